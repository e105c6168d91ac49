// The Node side of tests/test_cruel_js.py: plays cruel_tools/web/cruel.js and prints what it did,
// for the Python engine to replay and compare. Node built-ins only.
//
//   node drive.mjs games GAMES_PER_PRESET SEED MAX_STEPS   JSON Lines, one random game a line
//   node drive.mjs presets                                 cruel.js's PRESETS as JSON
//   node drive.mjs deals [--rules PRESET] N...             one line per N: its piles, by name
//   node drive.mjs mulberry SEED COUNT                     the first COUNT outputs of mulberry32
//   node drive.mjs cases < cases.json                      positions and steps to try (below)
//   node drive.mjs read < texts.jsonl                      readLog on each text (below)
//
// Encodings (the Python side builds the same strings): a position is
// "PILES F.F.F.F MOVES REDEALS OUTCOME", PILES the 12 (or 13) piles joined by '|', each card as the
// character of code 48 + card; a step list is compact steps ("3F 1-7x2 R") joined by spaces; a
// tried step is [source, target, count, card] (target and card may be null), or [] for a redeal.

import { pathToFileURL } from 'node:url';

// CRUEL_JS_MODULE names another copy of cruel.js to drive: the npm package's, as installed
// (packages/cruel-engine/ci.sh), so the differential holds for what npm ships. Default: the source.
const MODULE = process.env.CRUEL_JS_MODULE;
const C = await import(MODULE ? pathToFileURL(MODULE).href : '../../cruel_tools/web/cruel.js');

const out = [];
const flush = () => {
  if (out.length) {
    process.stdout.write(out.join('\n') + '\n');
    out.length = 0;
  }
};

function position(g) {
  const piles = g.piles.map((p) => String.fromCharCode(...p.map((c) => 48 + c))).join('|');
  return `${piles} ${g.foundations.join('.')} ${g.moves} ${g.redeals} ${g.outcome()}`;
}

function toStep(a) {
  return a.length ? C.move(a[0], a[1], a[2], a[3]) : C.REDEAL;
}

function fromStep(s) {
  return s.type === 'redeal' ? [] : [s.source, s.target, s.count, s.card ?? null];
}

// Try a step on a copy; an illegal one gives [step, code, message], a legal one null. A throw
// that changes the copy breaks cruel.js's promise, and the message says so.
function attempt(game, step) {
  const t = game.copy();
  try {
    t.push(step);
    return null;
  } catch (e) {
    if (!(e instanceof C.IllegalMove)) {
      throw e;
    }
    const changed = position(t) !== position(game);
    return [fromStep(step), e.code, changed ? `CHANGED: ${e.message}` : e.message];
  }
}

function randomAttempt(game, rand) {
  const pick = (n) => Math.floor(rand() * n);
  if (rand() < 0.15) {
    return C.REDEAL;
  }
  const n = game.piles.length; // 12, or 13 under ripple-fan-pysolfc
  const pile = () => (rand() < 0.03 ? [0, 13, 14][pick(3)] : 1 + pick(n));
  const source = pile();
  const target = rand() < 0.3 ? null : pile();
  const count = rand() < 0.7 ? 1 : 1 + pick(4);
  let card = null;
  if (rand() < 0.3) {
    const src = game.piles[source - 1] ?? [];
    card = rand() < 0.5 && src.length >= count ? src[src.length - count] : pick(52);
  }
  return C.move(source, target, count, card);
}

function games(perPreset, seed, maxSteps) {
  const rng = C.mulberry32(seed);
  const rand = () => rng() / 4294967296;
  for (const preset of Object.keys(C.PRESETS)) {
    for (let k = 0; k < perPreset; k++) {
      const number = rng();
      const byPiles = rand() < 0.1; // some logs name the deal by its piles
      const rec = byPiles
        ? new C.Recorder({ piles: C.dealPiles(number, preset).map((p) => p.map(C.cardName)), rules: preset })
        : new C.Recorder({ number, rules: preset });
      const game = rec.game;
      const steps = [];
      for (let n = 0; n < maxSteps; n++) {
        const tried = [];
        if (rand() < 0.2) {
          for (let a = 1 + pick2(rand); a > 0; a--) {
            const r = attempt(game, randomAttempt(game, rand));
            if (r !== null) {
              tried.push(r);
            }
          }
        }
        const legal = game.legalSteps();
        if (!legal.length) {
          break;
        }
        const auto = game.automaticMove();
        const last = legal.length - 1;
        const redeal = legal[last].type === 'redeal';
        const cardMoves = redeal ? last : legal.length;
        const i = redeal && (cardMoves === 0 || rand() < 0.08) ? last : Math.floor(rand() * cardMoves);
        rec.push(legal[i]);
        steps.push([legal.map(C.stepText).join(' '), i, position(game), tried, autoText(auto)]);
      }
      const after = game.isWon() ? [attempt(game, C.move(1, null)), attempt(game, C.REDEAL)] : [];
      const autoEnd = autoText(game.automaticMove());
      out.push(JSON.stringify({ preset, number, byPiles, steps, after, autoEnd, log: rec.log() }));
      if (out.length >= 200) {
        flush();
      }
    }
  }
}

// Game#automaticMove as 'TEXT why' (e.g. '3F finish'), or null: Python's automatic_move must agree.
function autoText(m) {
  return m === null ? null : `${C.stepText(m)} ${m.why}`;
}

function pick2(rand) {
  return Math.floor(rand() * 2);
}

// cases: a JSON array of {piles, foundations, rules, moves, redeals, steps: [tried step...]};
// each case's steps are played in turn on one game, and each gives [code, message, position]
// (code and message null for a legal step).
function cases(input) {
  for (const c of JSON.parse(input)) {
    const game = new C.Game(c.piles, c.rules, c);
    const results = c.steps.map((s) => {
      try {
        game.push(toStep(s));
        return [null, null, position(game)];
      } catch (e) {
        if (!(e instanceof C.IllegalMove)) {
          throw e;
        }
        return [e.code, e.message, position(game)];
      }
    });
    out.push(JSON.stringify({ preview: game.redealPreview(), problem: game.redealProblem()?.code ?? null, results }));
  }
}

// read: JSON Lines, each a JSON string holding one log's text; each gives readLog's answer:
// {ok: true, rules, number, piles (names), steps (tried-step form)} or {ok: false, code, path}.
function read(input) {
  for (const line of input.split('\n')) {
    if (!line) {
      continue;
    }
    let answer;
    try {
      const log = C.readLog(JSON.parse(line));
      answer = {
        ok: true, rules: log.rules, number: log.deal.number,
        piles: log.deal.piles.map((p) => p.map(C.cardName)), steps: log.steps.map(fromStep),
      };
    } catch (e) {
      if (!(e instanceof C.LogError)) {
        throw e;
      }
      answer = { ok: false, code: e.code, path: e.path, message: e.message };
    }
    out.push(JSON.stringify(answer));
    if (out.length >= 200) {
      flush();
    }
  }
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'games') {
  games(Number(args[0]), Number(args[1]), Number(args[2]));
} else if (mode === 'presets') {
  out.push(JSON.stringify(C.PRESETS));
} else if (mode === 'deals') {
  // deals [--rules PRESET] N...
  const rules = args[0] === '--rules' ? args[1] : 'cruel';
  for (const n of args[0] === '--rules' ? args.slice(2) : args) {
    out.push(JSON.stringify({ number: Number(n), piles: C.dealPiles(Number(n), rules).map((p) => p.map(C.cardName)) }));
  }
} else if (mode === 'mulberry') {
  const next = C.mulberry32(Number(args[0]));
  out.push(JSON.stringify(Array.from({ length: Number(args[1]) }, next)));
} else if (mode === 'cases') {
  const chunks = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk);
  }
  cases(Buffer.concat(chunks).toString('utf8'));
} else if (mode === 'read') {
  const chunks = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk);
  }
  read(Buffer.concat(chunks).toString('utf8'));
} else {
  process.stderr.write(`drive.mjs: unknown mode ${JSON.stringify(mode)}\n`);
  process.exitCode = 2;
}
flush();
