// Builds the npm package cruel-engine: copies the browser modules of cruel_tools/web/ into dist/
// unchanged (the repository's files are the source; nothing is transpiled or bundled), then has
// tsc write a .d.ts beside each from its JSDoc. Plain Node, no dependency but the pinned
// typescript of package.json (a dev dependency: `npm ci` first).
//
//   node build.mjs        dist/*.js and dist/*.d.ts, from scratch

import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The modules the package holds, in cruel_tools/web/: the one list (tests/test_npm_package.py
// reads it). Each module's own imports must be here too, or the package would not load: the
// engine (cruel.js, spec.js), and the <cruel-game> element with the play page's modules it is
// made of, its words in both languages (i18n.js picks one) and its stylesheet (ASSETS).
export const MODULES = [
  'cruel.js', 'spec.js',
  'cruel-game.js', 'language.js', 'i18n.js', 'board.js', 'words.js', 'pointer.js', 'motion.js',
  'celebrate.js', 'hinting.js',
  'messages-en.js', 'messages-nl.js', 'messages-en-site.js', 'messages-nl-site.js',
];
// Files copied as they are, without declarations.
export const ASSETS = ['style.css'];

const HERE = dirname(fileURLToPath(import.meta.url));
const WEB = join(HERE, '..', '..', 'cruel_tools', 'web');
const DIST = join(HERE, 'dist');

function build() {
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST);
  for (const name of [...MODULES, ...ASSETS]) {
    cpSync(join(WEB, name), join(DIST, name));
  }
  const tsc = join(HERE, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    throw new Error('build.mjs: typescript is not installed here: run `npm ci` first');
  }
  // Declarations only, from the JSDoc of the copies (the .js files themselves stay as they are).
  execFileSync(process.execPath, [
    tsc, '--declaration', '--allowJs', '--emitDeclarationOnly', '--target', 'es2022',
    '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck',
    '--outDir', DIST, ...MODULES.map((name) => join(DIST, name)),
  ], { stdio: 'inherit', cwd: HERE });
  const missing = MODULES.map((n) => n.replace(/\.js$/, '.d.ts')).filter((d) => !existsSync(join(DIST, d)));
  if (missing.length) {
    throw new Error(`build.mjs: tsc wrote no ${missing.join(', ')}`);
  }
  console.log(`build.mjs: dist/ holds ${MODULES.join(', ')} and their .d.ts`);
}

build();
