// Every ```js block of the README runs, as a module of its own, against the installed package:
// each imports 'cruel-engine' and checks what it says with node:assert, so a wrong example
// fails. Run in the package (which imports itself by name) or, by ci.sh, in an empty folder
// where the package is installed from its tarball (then the README is the installed one).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PACKAGE = dirname(fileURLToPath(import.meta.resolve('cruel-engine/package.json')));
const HERE = join(dirname(fileURLToPath(import.meta.url)), '..'); // where 'cruel-engine' resolves
const README = readFileSync(join(PACKAGE, 'README.md'), 'utf8');

// The examples: ```js blocks that import the package (the one-line import after Install too),
// each named by the README heading above it.
const blocks = [...README.matchAll(/^```js\n(.*?)^```$/gms)].map((m) => m[1]);
const headings = [...README.matchAll(/^```js\n/gm)].map((m) =>
  README.slice(0, m.index).match(/^## (.*)$/gm)?.pop()?.slice(3) ?? 'top');
const examples = blocks.filter((b) => b.includes('assert'));

test('the README has its examples', () => {
  assert.ok(examples.length >= 4, `${examples.length} examples with checks`);
  assert.ok(blocks.every((b) => b.includes("from 'cruel-engine'")), 'every js block imports the package');
});

for (const [i, code] of blocks.entries()) {
  test(`README example ${i + 1} (${headings[i]})`, () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
      cwd: HERE, encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(run.status, 0, `example ${i + 1} failed:\n${run.stderr}`);
  });
}
