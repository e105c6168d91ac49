// The engine as the package ships it: imported by name ('cruel-engine', its exports), so these
// run against dist/ in the package and against the installed tarball in ci.sh's empty folder.
// The full agreement with the Python engine is tests/test_cruel_js.py's (the differential).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  CruelError, Game, IllegalMove, LogError, PRESETS, REDEAL, Recorder, cardName, dealPiles,
  move, readLog, stepText,
} from 'cruel-engine';

const PACKAGE = dirname(fileURLToPath(import.meta.resolve('cruel-engine/package.json')));
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'));

test('a deal by number: the 12 piles of 4, as docs/deals.md gives deal 17', () => {
  const piles = dealPiles(17);
  assert.equal(piles.length, 12);
  assert.ok(piles.every((p) => p.length === 4));
  assert.equal(piles[1].map(cardName).join(' '), '9D 4C 7S 2C');
  assert.deepEqual(Game.fromNumber(17).piles, piles);
  assert.throws(() => dealPiles(2 ** 32), RangeError);
});

test('legal moves, a move, an illegal move that changes nothing', () => {
  const game = Game.fromNumber(17);
  assert.deepEqual(game.legalSteps().map(stepText), ['2F']);
  game.push(move(2, null));
  assert.equal(game.moves, 1);
  assert.equal(game.foundationCards, 5);
  const before = JSON.stringify(game.piles);
  assert.throws(() => game.push(move(1, 3)), (e) => e instanceof IllegalMove && e instanceof CruelError &&
    e.code === 'wrong-rank');
  assert.equal(JSON.stringify(game.piles), before);
  assert.throws(() => game.push(move(14, null)), (e) => e.code === 'bad-pile');
});

test('a redeal: the preview is what it deals; an unchanged one is refused', () => {
  const opening = Game.fromNumber(17);
  assert.equal(opening.redealProblem()?.code, 'redeal-unchanged');
  const game = Game.fromNumber(17);
  game.push(move(2, null));
  const preview = game.redealPreview();
  assert.equal(game.redealProblem(), null);
  game.push(REDEAL);
  assert.deepEqual(game.piles, preview);
  assert.equal(game.redeals, 1);
  assert.equal(game.outcome(), 'in_progress');
});

test('automatic moves: none at the start, safe ones once the redeals are spent', () => {
  assert.equal(Game.fromNumber(17, 'cruel-limited-3').automaticMove(), null);
  const game = Game.fromNumber(17, 'cruel-limited-3');
  for (const step of [move(2, null), REDEAL, move(4, null), REDEAL, move(1, 9), REDEAL]) {
    game.push(step);
  }
  const auto = game.automaticMove();
  assert.equal(stepText(auto), '4F');
  assert.equal(auto.why, 'no-redeal-left');
  assert.equal(game.redealProblem()?.code, 'redeal-limit');
});

test('a recorded game reads back, and a bad log gives its code and path', () => {
  const rec = new Recorder({ number: 17, rules: 'perseverance' });
  rec.push(rec.game.legalSteps()[0]);
  const log = readLog(JSON.stringify(rec.log()));
  assert.equal(log.rules.preset, 'perseverance');
  assert.equal(log.deal.number, 17);
  assert.equal(log.steps.length, 1);
  assert.throws(() => readLog('{"format": "cruel-log/1", "deal": {"number": -1}}'),
    (e) => e instanceof LogError && e.code === 'schema' && e.path === '/deal/number');
  assert.throws(() => readLog('{"format": "cruel-log/1", "deal": {"number": 1}, "deal": {"number": 2}}'),
    (e) => e instanceof LogError && e.code === 'duplicate-key');
  assert.throws(() => readLog('{'), (e) => e instanceof LogError && e.code === 'not-json' && e.path === '');
});

test('every preset deals and plays', () => {
  assert.equal(Object.keys(PRESETS).length, 10);
  for (const name of Object.keys(PRESETS)) {
    const game = Game.fromNumber(1, name);
    assert.equal(game.piles.length, PRESETS[name].pile_count, name);
    assert.ok(game.legalSteps().length > 0 || game.outcome() === 'blocked', name);
  }
});

test('the package: every module of dist/ has its declarations, and exports point at them', () => {
  assert.equal(manifest.name, 'cruel-engine');
  assert.equal(manifest.type, 'module');
  assert.deepEqual(Object.keys(manifest.dependencies ?? {}), []);
  for (const file of [manifest.exports['.'].default, manifest.exports['.'].types]) {
    assert.ok(existsSync(join(PACKAGE, file)), file);
  }
  const spec = join(PACKAGE, 'dist', 'spec.js');
  assert.ok(existsSync(spec) && existsSync(spec.replace(/\.js$/, '.d.ts')));
});

test('importing the module runs nothing; run as a program it prints deals', () => {
  const quiet = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('cruel-engine')"], {
    cwd: join(dirname(fileURLToPath(import.meta.url)), '..'), encoding: 'utf8',
  });
  assert.equal(quiet.status, 0, quiet.stderr);
  assert.equal(quiet.stdout + quiet.stderr, '');
  const cli = spawnSync(process.execPath, [join(PACKAGE, 'dist', 'cruel.js'), '17'], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  assert.deepEqual(JSON.parse(cli.stdout).piles[1], ['9D', '4C', '7S', '2C']);
});
