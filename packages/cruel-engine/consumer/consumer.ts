// A TypeScript program using cruel-engine through its declarations (dist/*.d.ts, written by tsc
// from cruel.js's JSDoc). ci.sh checks it with `tsc --strict --noEmit` against the package as
// installed from its tarball: a declaration that went missing or wrong fails that check.

import {
  Game, Recorder, IllegalMove, LogError, PRESETS, REDEAL, readLog, claimProblem, rulesOf,
  move, stepText, cardName, dealPiles, makeCard, LOG_LIMITS, MAX_PILES,
  type Step, type Move, type Rules, type Outcome, type Log, type ReadLog, type Claim,
} from 'cruel-engine';
import { MOVE_WORDS } from 'cruel-engine/spec.js';
import type { CruelGame } from 'cruel-engine/cruel-game.js';

const piles: number[][] = dealPiles(17, 'cruel');
const names: string[] = piles[1].map(cardName);

const rec = new Recorder({ number: 17, rules: 'cruel' });
const game: Game = rec.game;
const steps: Step[] = game.legalSteps();
const first: Step = steps[0];
if (first.type === 'move') {
  const m: Move = first;
  const target: number | null = m.target; // null: the foundation
  void target;
}
rec.push(move(2, null));
try {
  rec.push(move(1, 3));
} catch (e) {
  if (e instanceof IllegalMove) {
    const code: string = e.code;
    const fields: Record<string, unknown> = e.fields;
    void [code, fields];
  }
}
rec.push(REDEAL);
const outcome: Outcome = game.outcome();
const log: Log = rec.log();
const claim: Claim | undefined = log.claim;

const read: ReadLog = readLog(JSON.stringify(log), { maxMoves: 100 });
const replay = new Game(read.deal.piles, read.rules);
read.steps.forEach((s: Step) => replay.push(s));
const problem: LogError | null = claimProblem(replay, read.claim);
const path: string | undefined = problem?.path;

const auto = Game.fromNumber(17, 'cruel-limited-3').automaticMove();
const why: string | undefined = auto?.why;

const rules: Readonly<Rules> = rulesOf({ preset: 'perseverance', max_redeals: null });
const redeals: number | null = rules.max_redeals;
const pileCount: 12 | 13 = PRESETS['ripple-fan-pysolfc'].pile_count;
const bound: number = LOG_LIMITS.maxBytes + MAX_PILES + makeCard(0, 13);
const withState = new Game(piles, 'cruel', { foundations: [1, 1, 1, 1], moves: 0, redeals: 0 });
const text: string = stepText(withState.legalSteps()[0]);

void [names, outcome, claim, path, why, redeals, pileCount, bound, text, MOVE_WORDS];

// The web component's element, as a host page's script sees it (declared: no DOM runs here).
declare const element: CruelGame;
const elementLog: Log | null = element.getLog();
const submitted: Promise<{ ok: boolean; status: number }> = element.submit({ player: 'Ada' });
element.undo();
void [elementLog, submitted];

// What the declarations refuse: a misspelt outcome, a step of no kind, a rules value of no kind.
// @ts-expect-error 'lost' is not an Outcome
const wrong: Outcome = 'lost';
// @ts-expect-error a step is a move or the redeal
const notAStep: Step = { type: 'undo' };
// @ts-expect-error the redeal order is bottom-up or top-down
rulesOf({ redeal_order: 'sideways' });
// @ts-expect-error a submission names its player
void element.submit({});
void [wrong, notAStep];
