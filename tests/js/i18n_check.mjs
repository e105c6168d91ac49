// i18n_check.mjs LANG: every refusal cruel.js raises on random games of every preset, explained
// by words.js in LANG (tests/test_i18n.py). Prints JSON: [{code, message, explained}], one per
// distinct (code, message) seen, and the deal's cards and steps in words.
//
// LANG is set the way a page sets it (`?lang=`), before i18n.js loads.
globalThis.location = { search: `?lang=${process.argv[2] ?? 'en'}`, href: 'http://x/' };

const cruel = await import('../../cruel_tools/web/cruel.js');
const words = await import('../../cruel_tools/web/words.js');
const { Game, IllegalMove, PRESETS, REDEAL, dealPiles, mulberry32, move } = cruel;

const seen = new Map();
function note(e) {
  if (!(e instanceof IllegalMove)) {
    throw e;
  }
  const key = `${e.code}\u0000${e.message}`;
  if (!seen.has(key)) {
    seen.set(key, { code: e.code, message: e.message, explained: words.explain(e) });
  }
}

function tryStep(game, step) {
  try {
    game.copy().push(step);
  } catch (e) {
    note(e);
  }
}

const lines = [];
for (const preset of Object.keys(PRESETS)) {
  for (const number of [1, 17]) {
    const game = new Game(dealPiles(number, preset), preset);
    const next = mulberry32(number * 7 + preset.length);
    const n = game.piles.length;
    for (let turn = 0; turn < 150; turn++) {
      // every step from here, at every third position: illegal ones are explained
      for (let s = 1; s <= (turn % 3 === 0 ? n + 1 : 0); s++) {
        for (const t of [null, ...Array.from({ length: n }, (_, i) => i + 1)]) {
          for (const count of [1, 2, 3]) {
            tryStep(game, move(s, t, count));
          }
        }
        const src = game.piles[s - 1] ?? [];
        if (src.length) {
          tryStep(game, move(s, null, 1, (src[src.length - 1] + 1) % 52));
          tryStep(game, move(s, null, 2, src[src.length - 1]));
        }
      }
      tryStep(game, REDEAL);
      const legal = game.legalSteps();
      if (!legal.length) {
        break;
      }
      const step = legal[next() % legal.length];
      if (lines.length < 40) {
        lines.push(words.stepWords(step, game), words.lineWords(step, game));
      }
      game.push(step);
      if (game.isWon()) {
        tryStep(game, REDEAL);
        tryStep(game, move(1, null));
        break;
      }
    }
  }
}
// A step after a win needs no position's facts: it is explained by its code alone.
note(new IllegalMove('move-after-end', 'the game is already won'));
const cards = Array.from({ length: 52 }, (_, c) => words.cardWords(c));
process.stdout.write(JSON.stringify({ refusals: [...seen.values()], cards, lines }));
