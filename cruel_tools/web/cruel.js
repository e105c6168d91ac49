/**
 * cruel.js: the rules of the patience game Cruel as one ES module, for browsers and Node.
 *
 * A port of the Python engine of cruel-tools (cruel_tools/game/game.py, rules.py, cards.py, deals.py)
 * that must agree with it step for step: the same legal steps in the same order, the same
 * positions, the same error codes and messages, the same outcomes. tests/test_cruel_js.py plays
 * thousands of random games of every preset through both to hold them equal. Documented in
 * docs/web.md; deal numbers are specified in docs/deals.md (docs/deals.js is a link to this file).
 *
 * No dependencies, no build step: `import { Game, dealPiles } from './cruel.js'`.
 *
 * Conventions, as in Python:
 * - a card is an int 0..51, `suit * 13 + rank - 1`, suits in the order S H D C, ranks 1 (ace)
 *   to 13 (king); so a card's successor (the card it may be built onto) is `card + 1`;
 * - piles are numbered 1..12 as players number them; each pile is an array bottom to top, so its
 *   top card is the last element; foundations hold the rank of their top card per suit;
 * - a step is a card move `{type: 'move', source, target, count}` (target `null`: the
 *   foundation) or the redeal `{type: 'redeal'}` (see {@link move} and {@link REDEAL}).
 *
 * The facts it shares with Python and the native core (the rules parameters and presets, the
 * log's keys and bounds, the error codes and the English words of the illegal moves) come from
 * ./spec.js, written from cruel_tools/spec/ by
 * `python -m cruel_tools.spec generate`: change the spec, never a copy here.
 *
 * @module cruel
 */

import {
  RULE_PARAMETERS, RULE_CONSTRAINTS, PRESET_SETTINGS, LOG_FORMAT as SPEC_LOG_FORMAT,
  LOG_LIMITS as SPEC_LOG_LIMITS, LOG_KEYS as SPEC_LOG_KEYS, DEAL_KEYS as SPEC_DEAL_KEYS,
  MOVE_KEYS as SPEC_MOVE_KEYS, CLAIM_KEYS as SPEC_CLAIM_KEYS, MOVE_WORDS,
} from './spec.js';

// --- cards ----------------------------------------------------------------------------------

/** Suit letters in card order: spades, hearts, diamonds, clubs. */
export const SUITS = 'SHDC';
/** Suit symbols in card order. */
export const SUIT_SYMBOLS = '\u2660\u2665\u2666\u2663';
/** Rank names by rank 1..13 (index 0 is unused). */
export const RANK_NAMES = Object.freeze(['', 'A', '2', '3', '4', '5', '6', '7', '8', '9', '10',
  'J', 'Q', 'K']);
/** The rank of a king. */
export const KING = 13;

/**
 * The card of a suit and a rank.
 * @param {number} suit 0..3 (S H D C)
 * @param {number} rank 1 (ace) .. 13 (king)
 * @returns {number} the card, 0..51
 */
export function makeCard(suit, rank) {
  return suit * 13 + rank - 1;
}

/** @param {number} card @returns {number} its suit 0..3 (S H D C) */
export function cardSuit(card) {
  return Math.floor(card / 13);
}

/** @param {number} card @returns {number} its rank 1 (ace) .. 13 (king) */
export function cardRank(card) {
  return card % 13 + 1;
}

/** @param {number} card @returns {string} the canonical ASCII name, as in logs: `10H`, `AS` */
export function cardName(card) {
  return RANK_NAMES[cardRank(card)] + SUITS[cardSuit(card)];
}

/** @param {number} card @returns {string} the way players write it: `10♥`, `A♠` */
export function cardSymbol(card) {
  return RANK_NAMES[cardRank(card)] + SUIT_SYMBOLS[cardSuit(card)];
}

const CARD_TEXT = /^(10|[2-9AaTtJjQqKk])([SsHhDdCc]|[\u2660\u2665\u2666\u2663]\uFE0F?)$/u;

/**
 * Read a card written rank then suit, case-insensitively: ranks `A 2-9 10 T J Q K`, suits
 * `S H D C` or `♠ ♥ ♦ ♣` (an emoji variation selector after a symbol is ignored); the same
 * spellings as the log format (docs/log-format.md#cards).
 * @param {string} text
 * @returns {number} the card
 * @throws {CruelError} code `bad-card` for anything else
 */
export function parseCard(text) {
  const m = typeof text === 'string' ? CARD_TEXT.exec(text) : null;
  if (m === null) {
    throw new CruelError('bad-card',
      `not a card: ${JSON.stringify(String(text))} (write rank then suit, like 10H, TH or 4\u2666)`);
  }
  const r = m[1].toUpperCase();
  const rank = r === 'T' ? 10 : RANK_NAMES.indexOf(r);
  const s = m[2][0];
  const suit = SUIT_SYMBOLS.includes(s) ? SUIT_SYMBOLS.indexOf(s) : SUITS.indexOf(s.toUpperCase());
  return makeCard(suit, rank);
}

// --- errors ---------------------------------------------------------------------------------

/** An error with a stable `code`, as the Python toolkit's `CruelError`. */
export class CruelError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'CruelError';
    /** @type {string} */
    this.code = code;
  }
}

/**
 * A step the rules forbid in the current position. Its `code` is that of the Python
 * `IllegalMove` subclass (docs/verify.md#error-codes): `bad-pile`, `same-pile`, `empty-source`,
 * `empty-target`, `card-mismatch`, `not-next-on-foundation`, `wrong-suit`, `wrong-rank`,
 * `runs-not-allowed`, `not-a-run`, `run-to-foundation`, `redeal-unchanged`, `redeal-limit`,
 * `redeal-not-stuck`, `move-after-end`. A game that throws one is left unchanged.
 */
export class IllegalMove extends CruelError {
  /**
   * @param {string} code @param {string} message
   * @param {Record<string, unknown>} [fields] the refusal's facts, for words in another
   *   language than the engine's (docs/web.md "Languages"): `card` (the card that would move,
   *   an int), `source`, `target` (piles; target null: the foundation), `onto` (the card it
   *   would go onto), `needs` (the card it needs there, or null: none fits), `count`, ...
   */
  constructor(code, message, fields = {}) {
    super(code, message);
    this.name = 'IllegalMove';
    /** @type {Record<string, unknown>} */
    this.fields = fields;
  }
}

/**
 * The English words of refusal `key` (spec.js's MOVE_WORDS: the spec's `errors.move.<key>`) with
 * its `{fields}` filled in, as game.py's `_say` fills them: the spec gives the sentence, this
 * module the cards (as {@link cardSymbol} writes them) and piles in it.
 * @param {string} key @param {Record<string, string|number>} [fields] @returns {string}
 */
function say(key, fields = {}) {
  return MOVE_WORDS[key].replace(/\{(\w+)\}/g, (_, name) => {
    if (!(name in fields)) {
      throw new Error(`the words of ${key} need ${name}`); // a bug here, as Python's KeyError
    }
    return String(fields[name]);
  });
}

// --- deal numbers (docs/deals.md quotes this block verbatim) --------------------------------

const deals = (() => {
  const MAX_DEAL_NUMBER = 4294967295; // 2^32 - 1

  // mulberry32: returns a function giving the next unsigned 32-bit integer. Math.imul, `|`, `^`
  // and `>>>` all work on 32-bit integers, so every step is exact (no float rounding anywhere).
  function mulberry32(seed) {
    let a = seed >>> 0;
    return function next() {
      a = (a + 0x6D2B79F5) >>> 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (t ^ (t >>> 14)) >>> 0;
    };
  }

  function checkDealNumber(n) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_DEAL_NUMBER) {
      throw new RangeError('deal number must be an integer 0..' + MAX_DEAL_NUMBER + ': ' + n);
    }
  }

  // The 48 non-ace cards of deal n, in dealt order, as cards (ints: suit * 13 + rank - 1).
  function dealOrder(n) {
    checkDealNumber(n);
    const order = [];
    for (let s = 0; s < 4; s++) {             // spades, hearts, diamonds, clubs
      for (let r = 2; r <= 13; r++) {         // ranks 2..K (the aces are left out)
        order.push(makeCard(s, r));           // so order[0] = 2S, order[47] = KC
      }
    }
    const next = mulberry32(n);
    for (let i = 47; i >= 1; i--) {
      const u = next();
      // floor(u * (i + 1) / 2^32): exact, as u * (i + 1) < 2^38 is an integer a double holds.
      const j = Math.floor(u * (i + 1) / 4294967296);
      const tmp = order[i];
      order[i] = order[j];
      order[j] = tmp;
    }
    return order;
  }

  // The 12 piles of deal n, each bottom to top: pile 1 is dealOrder(n)[0..3], pile 2 [4..7], ...
  function dealPiles(n) {
    const order = dealOrder(n);
    const piles = [];
    for (let k = 0; k < 48; k += 4) {
      piles.push(order.slice(k, k + 4));
    }
    return piles;
  }

  return { MAX_DEAL_NUMBER, mulberry32, dealOrder, dealPiles };
})();

/** The largest deal number, 2^32 - 1. */
export const MAX_DEAL_NUMBER = deals.MAX_DEAL_NUMBER;

/**
 * The mulberry32 generator seeded with `seed` (read as `seed >>> 0`).
 * @type {(seed: number) => () => number} returns a function giving the next uint32
 */
export const mulberry32 = deals.mulberry32;

/**
 * The cards of deal `n` in dealt order (Fisher-Yates over mulberry32(n)): the 48 non-aces, or
 * under a profile that deals other cards its deck (docs/deals.md, "Other decks": all 52 for
 * `ripple-fan-pysolfc`, the 48 non-kings for `royal-family-pysolfc`).
 * @param {number} n @param {string|Partial<Rules>} [rules] default `'cruel'`
 * @returns {number[]}
 * @throws {RangeError} unless `n` is an integer 0..MAX_DEAL_NUMBER
 */
export function dealOrder(n, rules = 'cruel') {
  const base = rulesOf(rules).foundation_base;
  if (base === 'ace') {
    return deals.dealOrder(n);
  }
  deals.dealOrder(n); // the same check of n
  const order = [];
  for (let s = 0; s < 4; s++) {
    for (let r = 1; r <= (base === 'none' ? KING : KING - 1); r++) {
      order.push(makeCard(s, r));
    }
  }
  const next = mulberry32(n);
  for (let i = order.length - 1; i >= 1; i--) {
    const j = Math.floor(next() * (i + 1) / 4294967296);
    const tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
  return order;
}

/**
 * The piles of deal `n` (12, or 13 under `ripple-fan-pysolfc`), each bottom to top, as cards
 * (use {@link cardName} for names).
 * @param {number} n @param {string|Partial<Rules>} [rules] default `'cruel'`
 * @returns {number[][]}
 * @throws {RangeError} unless `n` is an integer 0..MAX_DEAL_NUMBER
 */
export function dealPiles(n, rules = 'cruel') {
  const r = rulesOf(rules);
  if (r.foundation_base === 'ace') {
    return deals.dealPiles(n);
  }
  const order = dealOrder(n, r);
  const piles = [];
  for (let k = 0; k < r.pile_count * PACKET; k += PACKET) {
    piles.push(order.slice(k, k + PACKET));
  }
  return piles;
}

/** Cards in a packet of a redeal (and in a starting pile). */
export const PACKET = 4;

// --- rules profiles -------------------------------------------------------------------------

/**
 * A rules profile, with the keys and values of the Python `Rules` model.
 * @typedef {object} Rules
 * @property {string} preset the named preset it starts from
 * @property {'bottom-up'|'top-down'} redeal_order
 * @property {number|null} max_redeals most redeals in a game; null for no limit
 * @property {boolean} redeal_only_when_stuck a redeal is legal only when no card move is
 * @property {boolean} run_moves suit runs move as a unit (Perseverance)
 * @property {12|13} pile_count tableau piles
 * @property {'ace'|'king'|'none'} foundation_base the cards that start on the foundations
 * @property {'up'|'down'} foundation_direction
 * @property {'down-in-suit'|'up-alternate-colour'|'up-or-down-alternate-colour'} tableau_build
 * @property {'packets-of-4'|'one-at-a-time'} redeal_deal how a redeal lays the cards out
 */

// Each parameter's default, in the spec's order (the Python `Rules` model's fields).
const RULE_DEFAULTS = Object.freeze(Object.fromEntries(RULE_PARAMETERS.map((p) => [p.name, p.default])));

/**
 * Every preset of the spec (cruel_tools/spec/presets.json, as rules.py's PRESET_TABLE reads it),
 * by name, with its parameters.
 * @type {Readonly<Record<string, Readonly<Rules>>>}
 */
export const PRESETS = Object.freeze(Object.fromEntries(PRESET_SETTINGS.map(
  ([name, settings]) => [name, Object.freeze({ preset: name, ...RULE_DEFAULTS, ...settings })])));

/**
 * A rules profile from a preset name or an object that starts from a preset and overrides some
 * of its parameters (the `rules` of a log: `{preset: 'perseverance', max_redeals: null}`).
 * @param {string|Partial<Rules>} [spec] default `'cruel'`
 * @returns {Readonly<Rules>}
 * @throws {CruelError} code `unknown-preset`, or `bad-rules` for an unknown key
 */
export function rulesOf(spec = 'cruel') {
  const name = typeof spec === 'string' ? spec : (spec.preset ?? 'cruel');
  const base = Object.hasOwn(PRESETS, name) ? PRESETS[name] : null;
  if (base === null) {
    throw new CruelError('unknown-preset',
      `unknown rules preset ${JSON.stringify(name)} (known: ${Object.keys(PRESETS).join(', ')})`);
  }
  if (typeof spec === 'string') {
    return base;
  }
  for (const key of Object.keys(spec)) {
    if (!Object.hasOwn(base, key)) {
      throw new CruelError('bad-rules', `unknown rules parameter ${JSON.stringify(key)}`);
    }
  }
  const rules = Object.freeze({ ...base, ...spec, preset: name });
  // The combinations that make no game, refused as the Python Rules model refuses them.
  if (rulesProblem(rules) !== null) {
    throw new CruelError('bad-rules', 'these rules parameters make no game (docs/rules.md)');
  }
  return rules;
}

/** Whether `rules` are Cruel's own layout and build (Python's `Rules.cruel_layout`). */
function cruelLayout(rules) {
  return rules.pile_count === 12 && rules.foundation_base === 'ace' &&
    rules.tableau_build === 'down-in-suit' && rules.redeal_deal === 'packets-of-4';
}

// --- steps ----------------------------------------------------------------------------------

/** The number of piles under Cruel (a profile's own: its `pile_count`, 12 or 13). */
export const NUM_PILES = 12;

/**
 * A card move: `{type: 'move', source, target, count}`, optionally with `card`.
 * @typedef {object} Move
 * @property {'move'} type
 * @property {number} source pile 1..12 the card (or run) leaves
 * @property {number|null} target pile 1..12 it goes onto, or null for its foundation
 * @property {number} count cards moving (more than 1: a run)
 * @property {number} [card] the card that must be moving (for a run, its deepest card)
 */

/** @typedef {{type: 'redeal'}} Redeal */
/** @typedef {Move|Redeal} Step */

/** The redeal step. @type {Readonly<Redeal>} */
export const REDEAL = Object.freeze({ type: 'redeal' });

/**
 * A card move step.
 * @param {number} source @param {number|null} target null for the foundation
 * @param {number} [count] default 1 @param {number|null} [card] the card that must be moving
 * @returns {Move}
 */
export function move(source, target, count = 1, card = null) {
  const step = { type: 'move', source, target, count };
  if (card !== null && card !== undefined) {
    step.card = card;
  }
  return step;
}

/**
 * A step in the compact form of logs: `3F`, `3-7`, `3-7x2`, `R`.
 * @param {Step} step @returns {string}
 */
export function stepText(step) {
  if (step.type === 'redeal') {
    return 'R';
  }
  const to = step.target === null ? 'F' : `-${step.target}`;
  return `${step.source}${to}${step.count !== 1 ? `x${step.count}` : ''}`;
}

// --- redeals --------------------------------------------------------------------------------

/**
 * The single sequence a redeal reads and keeps (pile 1 first).
 * @param {number[][]} piles @param {string} [order] `bottom-up` (default) or `top-down`
 * @returns {number[]}
 */
export function tableauSequence(piles, order = 'bottom-up') {
  const seq = [];
  for (const pile of piles) {
    if (order === 'bottom-up') {
      seq.push(...pile);
    } else {
      for (let k = pile.length - 1; k >= 0; k--) {
        seq.push(pile[k]);
      }
    }
  }
  return seq;
}

/**
 * The piles a redeal in `order` makes of `piles` (which it does not change), as many as there
 * are: the {@link tableauSequence} cut into packets of 4 (`deal` `packets-of-4`), or dealt one
 * card at a time to each pile in turn (`one-at-a-time`); top-down turns each new pile over, since
 * the first card a pile gets becomes its top. Past the end, piles stay empty.
 * @param {number[][]} piles @param {string} [order] @param {string} [deal]
 * @returns {number[][]}
 */
export function redealPiles(piles, order = 'bottom-up', deal = 'packets-of-4') {
  const seq = tableauSequence(piles, order);
  const n = piles.length;
  const out = [];
  for (let j = 0; j < n; j++) {
    let pile;
    if (deal === 'one-at-a-time') {
      pile = [];
      for (let k = j; k < seq.length; k += n) {
        pile.push(seq[k]);
      }
    } else {
      pile = seq.slice(j * PACKET, j * PACKET + PACKET);
    }
    out.push(order === 'bottom-up' ? pile : pile.reverse());
  }
  return out;
}

/**
 * Whether a redeal (in either order) would leave `piles` exactly as they are: the pile sizes
 * already are the packet sizes (full piles of 4, then at most one shorter pile, then empty ones).
 * @param {number[][]} piles @returns {boolean}
 */
export function isPacked(piles) {
  let left = 0;
  for (const pile of piles) {
    left += pile.length;
  }
  for (const pile of piles) {
    const size = Math.min(PACKET, left);
    if (pile.length !== size) {
      return false;
    }
    left -= size;
  }
  return true;
}

// --- the game -------------------------------------------------------------------------------

/** @typedef {'won'|'blocked'|'in_progress'} Outcome */

const COMPLETE = KING * 4; // the sum of the foundations of a won game (13 cards on each)
const RED = [false, true, true, false]; // per suit S H D C

/**
 * The rank of the top card of a foundation holding `count` cards under `rules` (0: empty).
 * @param {Readonly<Rules>} rules @param {number} count @returns {number}
 */
export function foundationRank(rules, count) {
  return rules.foundation_direction === 'up' || count === 0 ? count : KING + 1 - count;
}

/**
 * A game of Cruel in progress: position, rules profile and score counters. Mutable: {@link
 * Game#push} changes it or throws an {@link IllegalMove} that leaves it unchanged.
 */
export class Game {
  /**
   * A position; throws a CruelError `bad-position` unless it holds each card exactly once.
   * @param {Array<Array<number|string>>} piles 12 piles (the profile's `pile_count`) bottom to
   *   top, of cards or card names
   * @param {string|Partial<Rules>} [rules] a preset name or rules object (see {@link rulesOf})
   * @param {{foundations?: number[], moves?: number, redeals?: number}} [state] foundations
   *   (the number of cards on each of S H D C, which under Cruel is the rank of its top card;
   *   default those of a deal), card moves and redeals played so far
   */
  constructor(piles, rules = 'cruel', { foundations = null, moves = 0, redeals = 0 } = {}) {
    const r = rulesOf(rules);
    const n = r.pile_count;
    foundations = foundations ?? (r.foundation_base === 'none' ? [0, 0, 0, 0] : [1, 1, 1, 1]);
    if (!Array.isArray(piles) || piles.length !== n) {
      throw new CruelError('bad-position', `a position has ${n} piles, not ${piles?.length}`);
    }
    const low = r.foundation_base === 'none' ? 0 : 1;
    if (foundations.length !== 4 || foundations.some((k) => !(k >= low && k <= KING))) {
      throw new CruelError('bad-position',
        `foundations must give a card count ${low}-13 for each of S H D C`);
    }
    /** @type {Readonly<Rules>} */
    this.rules = r;
    /** @type {number[][]} the 12 piles, each bottom to top */
    this.piles = piles.map((p) => p.map((c) => (typeof c === 'string' ? parseCard(c) : c)));
    /** @type {number[]} the cards on each foundation, S H D C (under Cruel: its top rank) */
    this.foundations = [...foundations];
    /** @type {number} card moves played (a run counts once) */
    this.moves = moves;
    /** @type {number} redeals played */
    this.redeals = redeals;
    const seen = new Array(52).fill(0);
    for (const pile of this.piles) {
      for (const c of pile) {
        if (!(Number.isInteger(c) && c >= 0 && c < 52)) {
          throw new CruelError('bad-position', `not a card: ${JSON.stringify(c)}`);
        }
        seen[c] += 1;
      }
    }
    const down = r.foundation_direction === 'down';
    this.foundations.forEach((count, s) => {
      for (let k = 1; k <= count; k++) {
        seen[makeCard(s, down ? KING + 1 - k : k)] += 1;
      }
    });
    if (seen.some((n) => n !== 1)) {
      const words = seen.flatMap((n, c) => (n === 1 ? [] : [`${cardName(c)} ${n ? 'twice' : 'missing'}`]));
      throw new CruelError('bad-position', `not a full deck: ${words.slice(0, 6).join(', ')}`);
    }
  }

  /**
   * The opening position of deal number `n`.
   * @param {number} n @param {string|Partial<Rules>} [rules] @returns {Game}
   */
  static fromNumber(n, rules = 'cruel') {
    return new Game(dealPiles(n, rules), rules);
  }

  /** An independent copy (rules are shared: they are frozen). @returns {Game} */
  copy() {
    const g = Object.create(Game.prototype);
    g.rules = this.rules;
    g.piles = this.piles.map((p) => p.slice());
    g.foundations = this.foundations.slice();
    g.moves = this.moves;
    g.redeals = this.redeals;
    return g;
  }

  /** Cards on the foundations, aces included (4..52; 0..52 when none start there). @returns {number} */
  get foundationCards() {
    const f = this.foundations;
    return f[0] + f[1] + f[2] + f[3];
  }

  /** @returns {boolean} every card is on its foundation */
  isWon() {
    return this.foundationCards === COMPLETE;
  }

  /** @param {number} pile 1..12 @returns {number|null} its top card, null when empty */
  top(pile) {
    const p = this.piles[pile - 1];
    return p.length ? p[p.length - 1] : null;
  }

  /**
   * How many cards on top of `pile` form a run (one suit, each one rank below the last).
   * @param {number} pile 1..12 @returns {number}
   */
  runLength(pile) {
    const p = this.piles[pile - 1];
    const len = p.length;
    let n = len ? 1 : 0;
    while (n < len && p[len - n - 1] === p[len - n] + 1 && cardRank(p[len - n]) < KING) {
      n += 1;
    }
    return n;
  }

  /** @returns {Outcome} `won`, `blocked` (no card move and no redeal is legal) or `in_progress` */
  outcome() {
    if (this.isWon()) {
      return 'won';
    }
    return this.hasCardMove() || this.redealProblem() === null ? 'in_progress' : 'blocked';
  }

  /**
   * Move the top `count` cards of `source` to `target` (null: the foundation). The checks run
   * in the order of the Python engine's `Game.move`; the first that fails throws.
   * @param {number} source @param {number|null} target @param {number} [count]
   * @param {number|null} [card] the card that must be moving (for a run, its deepest card)
   * @throws {IllegalMove}
   */
  move(source, target, count = 1, card = null) {
    const n = this.rules.pile_count;
    if (!isPile(source, n) || !(target === null || isPile(target, n))) {
      throw new IllegalMove('bad-pile', say('bad-pile', { piles: n }), { piles: n, source, target });
    }
    const piles = this.piles;
    const src = piles[source - 1];
    if (!src.length) {
      if (this.isWon()) {
        throw afterEnd();
      }
      throw new IllegalMove('empty-source', say('empty-source', { source }), { source });
    }
    if (target === source) {
      throw new IllegalMove('same-pile', say('same-pile', { source }), { source });
    }
    if (count !== 1) {
      checkRun(this, source, target, count);
    }
    const moving = src[src.length - count]; // the deepest card that moves
    if (card !== null && card !== undefined && card !== moving) {
      const words = say(count === 1 ? 'card-mismatch' : 'card-mismatch-run',
        { logged: cardSymbol(card), source, count, card: cardSymbol(moving) });
      throw new IllegalMove('card-mismatch', words, { card: moving, logged: card, source, count });
    }
    if (target === null) {
      const found = this.foundations;
      const s = cardSuit(moving);
      if (!isNextOnFoundation(found, moving, this.rules)) {
        const needs = foundationCard(s, found[s], this.rules);
        throw new IllegalMove('not-next-on-foundation', notNextWords(moving, source, needs),
          { card: moving, source, target: null, needs });
      }
      found[s] += 1;
      src.pop();
    } else {
      const dst = piles[target - 1];
      if (!dst.length) {
        throw new IllegalMove('empty-target',
          say('empty-target', { card: cardSymbol(moving), source, target }),
          { card: moving, source, target });
      }
      const onto = dst[dst.length - 1];
      if (!fits(moving, onto, this.rules.tableau_build)) {
        throw buildError(source, target, moving, onto, this.rules.tableau_build);
      }
      dst.push(...src.splice(src.length - count, count));
    }
    this.moves += 1;
  }

  /**
   * Why a redeal is illegal now (the error {@link Game#redeal} would throw, with its `code` and
   * `message`), or null when it is legal. The one statement of when a redeal is legal.
   * @returns {IllegalMove|null}
   */
  redealProblem() {
    if (this.isWon()) {
      return afterEnd();
    }
    const rules = this.rules;
    if (rules.max_redeals !== null && this.redeals >= rules.max_redeals) {
      return new IllegalMove('redeal-limit', say('redeal-limit', { count: rules.max_redeals }),
        { max: rules.max_redeals });
    }
    if (rules.redeal_only_when_stuck && this.hasCardMove()) {
      return new IllegalMove('redeal-not-stuck', say('redeal-not-stuck', { preset: rules.preset }),
        { preset: rules.preset });
    }
    const unchanged = cruelLayout(rules)
      ? isPacked(this.piles)
      : JSON.stringify(this.redealPreview()) === JSON.stringify(this.piles);
    if (unchanged) {
      return new IllegalMove('redeal-unchanged', say('redeal-unchanged'));
    }
    return null;
  }

  /**
   * The piles a redeal would make now (whether or not it is legal: see {@link
   * Game#redealProblem}); the game is not changed.
   * @returns {number[][]}
   */
  redealPreview() {
    return redealPiles(this.piles, this.rules.redeal_order, this.rules.redeal_deal);
  }

  /** Gather the piles and deal them out again in packets of 4. @throws {IllegalMove} */
  redeal() {
    const problem = this.redealProblem();
    if (problem !== null) {
      throw problem;
    }
    this.piles = this.redealPreview();
    this.redeals += 1;
  }

  /**
   * Play a step: a card move or the redeal.
   * @param {Step} step @throws {IllegalMove} leaving the game unchanged
   */
  push(step) {
    if (step.type === 'redeal') {
      this.redeal();
    } else {
      this.move(step.source, step.target, step.count ?? 1, step.card ?? null);
    }
  }

  /**
   * Every legal card move (runs included where the rules allow them), in the order of the
   * Python engine: by source pile; for each, to the foundation first, then onto a pile (under
   * run moves, by growing count).
   * @returns {Move[]}
   */
  cardMoves() {
    return cardMovesOf(this, false);
  }

  /** @returns {boolean} whether any card can move */
  hasCardMove() {
    return cardMovesOf(this, true).length > 0;
  }

  /**
   * Every legal step: the card moves ({@link Game#cardMoves}), then the redeal when it is legal.
   * @returns {Step[]}
   */
  legalSteps() {
    const steps = this.cardMoves();
    if (this.redealProblem() === null) {
      steps.push(REDEAL);
    }
    return steps;
  }

  /**
   * The next foundation move a player's page or a server may make without asking, or null when
   * none is safe now: the Python engine's `Game.automatic_move`, proved in docs/rules.md
   * (Automatic moves). Two cases are safe: **auto-finish** (foundation moves alone, repeated,
   * empty the tableau) and **no redeal left** (the rules' `max_redeals` are used up, the tableau
   * builds down in suit and the foundations up). The move is the first foundation move of
   * {@link Game#cardMoves}, with `why`: `'no-redeal-left'` or `'finish'` (which case made it
   * safe; checked in that order, as Python does).
   * @returns {(Move & {why: string})|null}
   */
  automaticMove() {
    if (this.isWon()) {
      return null;
    }
    const first = this.cardMoves().find((m) => m.target === null);
    if (first === undefined) {
      return null;
    }
    const r = this.rules;
    if (r.max_redeals !== null && this.redeals >= r.max_redeals &&
      r.tableau_build === 'down-in-suit' && r.foundation_direction === 'up') {
      return { ...first, why: 'no-redeal-left' };
    }
    const finish = this.copy();
    for (;;) {
      const up = finish.cardMoves().find((m) => m.target === null);
      if (up === undefined) {
        break;
      }
      finish.move(up.source, null);
    }
    return finish.isWon() ? { ...first, why: 'finish' } : null;
  }
}

function checkRun(game, source, target, count) {
  if (!game.rules.run_moves) {
    throw new IllegalMove('runs-not-allowed', say('runs-not-allowed', { preset: game.rules.preset }),
      { source, target, count, preset: game.rules.preset });
  }
  if (target === null) {
    throw new IllegalMove('run-to-foundation', say('run-to-foundation'), { source, count });
  }
  const length = game.runLength(source);
  if (!(Number.isInteger(count) && count >= 1 && count <= length)) {
    const run = say(length === 1 ? 'run-length.one' : 'run-length.other', { count: length });
    throw new IllegalMove('not-a-run', say('not-a-run', { count, source, run }),
      { source, target, count, length });
  }
}

// Game#cardMoves; with firstOnly, stops after the first pile that has a move (hasCardMove).
function cardMovesOf(game, firstOnly) {
  const piles = game.piles;
  const found = game.foundations;
  const pileOfTop = new Array(52).fill(0);
  piles.forEach((p, i) => {
    if (p.length) {
      pileOfTop[p[p.length - 1]] = i + 1;
    }
  });
  const out = [];
  const rules = game.rules;
  const build = rules.tableau_build;
  for (let i = 1; i <= piles.length; i++) {
    const p = piles[i - 1];
    if (!p.length) {
      continue;
    }
    const c = p[p.length - 1];
    if (isNextOnFoundation(found, c, rules)) {
      out.push(move(i, null));
    }
    if (build !== 'down-in-suit') {
      // onto a card of the other colour one rank lower (or higher too), by target pile
      const targets = [];
      const s = cardSuit(c);
      const r = cardRank(c);
      for (let t = 0; t < 4; t++) {
        if (RED[t] === RED[s]) {
          continue;
        }
        const ranks = build === 'up-or-down-alternate-colour' ? [r - 1, r + 1] : [r - 1];
        for (const k of ranks) {
          const j = k >= 1 && k <= KING ? pileOfTop[makeCard(t, k)] : 0;
          if (j) {
            targets.push(j);
          }
        }
      }
      targets.sort((a, b) => a - b).forEach((j) => out.push(move(i, j)));
      if (firstOnly && out.length) {
        return out;
      }
      continue;
    }
    const most = rules.run_moves ? game.runLength(i) : 1;
    for (let k = 1; k <= most; k++) {
      const deepest = p[p.length - k];
      const onto = successor(deepest);
      const j = onto === null ? 0 : pileOfTop[onto];
      if (j) {
        out.push(move(i, j, k));
      }
    }
    if (firstOnly && out.length) {
      return out;
    }
  }
  return out;
}

// The two rules of where a card may go, stated once for checking and generating moves alike.

/** Whether `card` is the next card of its suit's foundation (up from the ace, or down). */
function isNextOnFoundation(foundations, card, rules) {
  const count = foundations[cardSuit(card)];
  return rules.foundation_direction === 'up'
    ? count === cardRank(card) - 1
    : count === KING - cardRank(card);
}

/** Whether `moving` may be built onto `onto` under the tableau build `build`. */
function fits(moving, onto, build) {
  if (build === 'down-in-suit') {
    return onto === successor(moving);
  }
  if (RED[cardSuit(moving)] === RED[cardSuit(onto)]) {
    return false;
  }
  const step = cardRank(onto) - cardRank(moving);
  return step === -1 || (step === 1 && build === 'up-or-down-alternate-colour');
}

/** The error of building `moving` onto `onto`, worded as the Python engine words it. */
function buildError(source, target, moving, onto, build) {
  const words = { card: cardSymbol(moving), source, onto: cardSymbol(onto), target };
  if (build === 'down-in-suit') {
    const needs = successor(moving);
    const code = cardSuit(onto) === cardSuit(moving) ? 'wrong-rank' : 'wrong-suit';
    const said = needs === null
      ? say('king-builds-on-nothing', words)
      : say(code, { ...words, needs: cardSymbol(needs) });
    return new IllegalMove(code, said, { card: moving, source, target, onto, needs, build });
  }
  let why;
  if (build === 'up-alternate-colour') {
    why = say(cardRank(moving) > 1 ? 'needs-lower-other-colour' : 'ace-builds-on-nothing');
  } else {
    why = say('needs-next-other-colour');
  }
  const code = RED[cardSuit(moving)] === RED[cardSuit(onto)] ? 'wrong-colour' : 'wrong-rank';
  return new IllegalMove(code, say('build', { ...words, rank: RANK_NAMES[cardRank(moving)], why }),
    { card: moving, source, target, onto, needs: null, build });
}

/** The card `card` may be built onto (same suit, one rank higher), or null for a king. */
function successor(card) {
  return cardRank(card) === KING ? null : card + 1;
}

function isPile(n, count = NUM_PILES) {
  return Number.isInteger(n) && n >= 1 && n <= count;
}

function afterEnd() {
  return new IllegalMove('move-after-end', say('move-after-end'));
}

/** The card a foundation takes next (an int), or null when it is complete. */
function foundationCard(suit, count, rules) {
  if (count === KING) {
    return null;
  }
  return makeCard(suit, rules.foundation_direction === 'up' ? count + 1 : KING - count);
}

/** The words of `moving` refused by its foundation, which takes `needs` next (null: complete). */
function notNextWords(moving, source, needs) {
  const card = cardSymbol(moving);
  if (needs === null) {
    return say('foundation-complete', { card, source, symbol: SUIT_SYMBOLS[cardSuit(moving)] });
  }
  return say('not-next-on-foundation', { card, source, needs: cardSymbol(needs) });
}

// --- recording a game as a cruel-log/1 ------------------------------------------------------

/** The log format a {@link Recorder} writes (docs/log-format.md). */
export const LOG_FORMAT = SPEC_LOG_FORMAT;

/**
 * Plays a game and records it as a `cruel-log/1` log that `cruel verify` accepts.
 *
 * ```js
 * const rec = new Recorder({ number: 17, rules: 'cruel' });
 * rec.push(move(2, null));          // 2C to its foundation; the log names the card
 * rec.push(REDEAL);
 * JSON.stringify(rec.log());        // {"format":"cruel-log/1","rules":"cruel","deal":{"number":17},...}
 * ```
 */
export class Recorder {
  /**
   * @param {object} options
   * @param {number|null} [options.number] the deal number, or
   * @param {Array<Array<number|string>>|null} [options.piles] the 12 starting piles (for a deal
   *   without a number; with both, they must be that deal's)
   * @param {string|Partial<Rules>} [options.rules] default `'cruel'`
   * @param {object|null} [options.meta] free-form data for the log's `meta`
   */
  constructor({ number = null, piles = null, rules = 'cruel', meta = null } = {}) {
    const start = number !== null ? dealPiles(number, rules) : piles;
    if (start === null) {
      throw new CruelError('bad-deal', 'a deal needs "number" or "piles"');
    }
    /** @type {Game} the game being played (read it; change it only through push) */
    this.game = new Game(start, rules);
    if (number !== null && piles !== null &&
        JSON.stringify(this.game.piles) !== JSON.stringify(new Game(piles, rules).piles)) {
      throw new CruelError('bad-deal', `these piles are not those of deal ${number}`);
    }
    /** @type {number|null} the deal number, null for a deal by piles */
    this.number = number;
    /** @type {number[][]} the starting piles, as cards */
    this.start = this.game.piles.map((p) => p.slice());
    /** @type {object|null} */
    this.meta = meta;
    /** @type {Array<LogMove|Redeal>} the log's move entries so far */
    this.entries = [];
  }

  /**
   * Play a step and record it (a card move with the card it moves).
   * @param {Step} step @throws {IllegalMove} nothing is played or recorded then
   */
  push(step) {
    const game = this.game;
    if (step.type === 'redeal') {
      game.redeal();
      this.entries.push({ type: 'redeal' });
      return;
    }
    const count = step.count ?? 1;
    const src = isPile(step.source, game.piles.length) ? game.piles[step.source - 1] : [];
    const moving = src[src.length - count]; // the (deepest) card, if the move is legal
    game.move(step.source, step.target, count, step.card ?? null);
    const entry = { type: 'move', from: step.source, to: step.target ?? 'foundation', card: cardName(moving) };
    if (count !== 1) {
      entry.count = count;
    }
    this.entries.push(entry);
  }

  /**
   * The log so far, as a JSON-ready object.
   * @param {{claim?: boolean}} [options] claim: include the claim of the current position
   *   (outcome, foundation cards, moves, redeals), default true
   * @returns {Log}
   */
  log({ claim = true } = {}) {
    const rules = this.game.rules;
    const preset = PRESETS[rules.preset];
    const same = Object.keys(preset).every((k) => preset[k] === rules[k]);
    const out = {
      format: LOG_FORMAT,
      rules: same ? rules.preset : { ...rules },
      deal: this.number !== null
        ? { number: this.number }
        : { piles: this.start.map((p) => p.map(cardName)) },
      moves: this.entries.map((e) => ({ ...e })),
    };
    if (claim) {
      const g = this.game;
      out.claim = {
        outcome: g.outcome(), foundation_cards: g.foundationCards, moves: g.moves, redeals: g.redeals,
      };
    }
    if (this.meta !== null) {
      out.meta = this.meta;
    }
    return out;
  }
}

// --- reading a cruel-log/1 ------------------------------------------------------------------
//
// The browser's reader of logs: it reads exactly what cruel_tools/game/log.py's `load` reads and
// refuses what it refuses, with the same error code and, for a schema error, the same JSON
// pointer (log.py's `_best` choice among pydantic's errors, restated below); then it resolves the
// deal as cruel_tools/game/deals.py's `resolve_deal` does. tests/test_cruel_js.py holds the two
// readers equal on the repository's logs, every log the differential games record, and
// thousands of mutated logs. log.py stays the definition of the format: change it first.

/**
 * The bounds {@link readLog} puts on a log, those of log.py's `Limits()`.
 * @type {Readonly<{maxBytes: number, maxMoves: number}>}
 */
export const LOG_LIMITS = SPEC_LOG_LIMITS;
/**
 * The most piles any profile has (13, under `ripple-fan-pysolfc`): log.py's `MAX_PILES`.
 * @type {number}
 */
export const MAX_PILES = SPEC_MOVE_KEYS.find((k) => k.name === 'from').maximum;

/**
 * A log that cannot be read (log.py's `LogFormatError`, or the deal's `BadDeal`). `code`:
 * `too-large`, `not-json`, `duplicate-key`, `too-many-moves`, `schema`, `bad-deal`;
 * `path`: a JSON pointer into the log (`/moves/3/from`), `''` for the text as a whole.
 */
export class LogError extends CruelError {
  /**
   * @param {string} code @param {string} path @param {string} message
   * @param {Record<string, unknown>} [fields] the facts, for words in another language
   *   (`too-large`: size, max; `claim-mismatch`: field, claimed, actual)
   */
  constructor(code, path, message, fields = {}) {
    super(code, message);
    this.name = 'LogError';
    /** @type {Record<string, unknown>} */
    this.fields = fields;
    /** @type {string} */
    this.path = path;
  }
}

// A JSON number written with a fraction or an exponent (or NaN, Infinity): pydantic's strict
// integers refuse it even when it is whole (`17.0`), so the parser keeps the difference.
class JsonFloat {
  constructor(value) {
    this.value = value;
  }
}

// jiter, the parser pydantic runs, refuses a value inside more than this many arrays or objects.
const JSON_DEPTH = 200;

/**
 * JSON text as pydantic's parser reads it: objects as Maps (key order kept), whole numbers as
 * numbers, others as JsonFloat; NaN, Infinity and -Infinity accepted, lone surrogates refused.
 * A key given twice in one object is `duplicate-key` at the second one, as log.py's
 * refuse_duplicates says it (docs/log-format.md, Duplicate keys), once the text is known to be
 * JSON: not being JSON comes first.
 */
function parseJson(text) {
  let i = 0;
  let repeated = null; // the first key given twice: [pointer, key]
  const fail = (what) => {
    const before = text.slice(0, i);
    const line = before.split('\n').length;
    const column = i - before.lastIndexOf('\n') - 1;
    throw new LogError('not-json', '', `not JSON: ${what} at line ${line} column ${column}`);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) {
      i++;
    }
  };
  const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
  const hex4 = () => {
    const h = text.slice(i, i + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) {
      fail('invalid escape');
    }
    i += 4;
    return parseInt(h, 16);
  };
  const string = () => {
    i++; // the opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) {
        fail('EOF while parsing a string');
      }
      const c = text[i];
      if (c === '"') {
        i++;
        return out;
      }
      if (c < ' ') {
        fail('control character (\\u0000-\\u001F) found while parsing a string');
      }
      if (c !== '\\') {
        out += c;
        i++;
        continue;
      }
      const e = text[i + 1];
      i += 2;
      const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (Object.hasOwn(simple, e)) {
        out += simple[e];
      } else if (e === 'u') {
        const u = hex4();
        if (u >= 0xDC00 && u <= 0xDFFF) {
          fail('lone leading surrogate in hex escape');
        }
        if (u >= 0xD800 && u <= 0xDBFF) {
          if (text.slice(i, i + 2) !== '\\u') {
            fail('unexpected end of hex escape');
          }
          i += 2;
          const low = hex4();
          if (!(low >= 0xDC00 && low <= 0xDFFF)) {
            fail('invalid surrogate in hex escape');
          }
          out += String.fromCharCode(u, low);
        } else {
          out += String.fromCharCode(u);
        }
      } else {
        fail('invalid escape');
      }
    }
  };
  const value = (depth, at) => {
    if (depth > JSON_DEPTH) {
      fail('recursion limit exceeded');
    }
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const map = new Map();
      space();
      if (text[i] === '}') {
        i++;
        return map;
      }
      for (;;) {
        space();
        if (text[i] !== '"') {
          fail('key must be a string');
        }
        const key = string();
        space();
        if (text[i] !== ':') {
          fail('expected `:`');
        }
        i++;
        const member = `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (repeated === null && map.has(key)) {
          repeated = [member, key];
        }
        map.set(key, value(depth + 1, member));
        space();
        if (text[i] === ',') {
          i++;
          space();
          if (text[i] === '}') {
            fail('trailing comma');
          }
        } else if (text[i] === '}') {
          i++;
          return map;
        } else {
          fail('expected `,` or `}`');
        }
      }
    }
    if (c === '[') {
      i++;
      const list = [];
      space();
      if (text[i] === ']') {
        i++;
        return list;
      }
      for (;;) {
        list.push(value(depth + 1, `${at}/${list.length}`));
        space();
        if (text[i] === ',') {
          i++;
          space();
          if (text[i] === ']') {
            fail('trailing comma');
          }
        } else if (text[i] === ']') {
          i++;
          return list;
        } else {
          fail('expected `,` or `]`');
        }
      }
    }
    if (c === '"') {
      return string();
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null],
      ['NaN', new JsonFloat(NaN)], ['Infinity', new JsonFloat(Infinity)],
      ['-Infinity', new JsonFloat(-Infinity)]]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m === null || /[0-9.eE+-]/.test(text[i + m[0].length] ?? '')) {
      fail(i >= text.length ? 'EOF while parsing a value' : 'invalid number');
    }
    i += m[0].length;
    const n = Number(m[0]);
    return m[1] === undefined && m[2] === undefined ? n : new JsonFloat(n);
  };
  const result = value(0, '');
  space();
  if (i < text.length) {
    fail('trailing characters');
  }
  if (repeated !== null) {
    const [member, key] = repeated;
    const shown = key.length <= 40 ? key : `${key.slice(0, 37)}...`;
    throw new LogError('duplicate-key', member, `key '${shown}' is given twice in one object: ` +
      'give each key once (JSON readers differ on which of the two values they keep)');
  }
  return result;
}

// A log given as an object (already parsed: JSON.parse, or built in code) in the parser's form.
// Its numbers cannot tell `17` from `17.0`: a whole number counts as an integer.
function fromPlain(v, depth = 0) {
  if (depth > JSON_DEPTH) {
    throw new LogError('not-json', '', 'not JSON: recursion limit exceeded');
  }
  if (Array.isArray(v)) {
    return v.map((x) => fromPlain(x, depth + 1));
  }
  if (typeof v === 'number') {
    return Number.isInteger(v) ? v : new JsonFloat(v);
  }
  if (v !== null && typeof v === 'object') {
    return new Map(Object.entries(v).map(([k, x]) => [k, fromPlain(x, depth + 1)]));
  }
  return v === undefined ? null : v;
}

// The parser's form back to plain JSON values (for a log's meta and claim).
function toPlain(v) {
  if (v instanceof JsonFloat) {
    return v.value;
  }
  if (Array.isArray(v)) {
    return v.map(toPlain);
  }
  if (v instanceof Map) {
    return Object.fromEntries([...v].map(([k, x]) => [k, toPlain(x)]));
  }
  return v;
}

// --- the model of log.py, as pydantic checks it ---

// The keys of log.py's models (`_KEYS`): only these, and array indexes, count in an error's
// depth (pydantic's locations also hold union labels, which a pointer never shows).
const names = (keys) => keys.map((k) => k.name);
const LOG_KEYS = new Set([...names(SPEC_LOG_KEYS), ...names(SPEC_DEAL_KEYS), ...names(SPEC_CLAIM_KEYS),
  ...names(SPEC_MOVE_KEYS), ...Object.keys(RULE_DEFAULTS), 'preset']);
// pydantic's error types that log.py's `_best` ranks below the others (`_TYPE_ERRORS`).
const TYPE_ERRORS = new Set(['string_type', 'model_type', 'model_attributes_type', 'dict_type',
  'literal_error', 'int_type']);
const COMPACT_TEXT = /^(?:[Rr]|([1-9]|1[0-3])(?:[Ff]|-([1-9]|1[0-3])(?:[xX]([1-9]|1[0-2]))?))$/;
const DEAL_KEYS = names(SPEC_DEAL_KEYS);
const CLAIM_KEYS = names(SPEC_CLAIM_KEYS);
const MOVE_KEYS = names(SPEC_MOVE_KEYS);
// What each key of a rules object takes: a preset name (null: checked against PRESETS), a
// parameter's values, its [low, high] bounds (max_redeals), or 'bool'.
const RULES_VALUES = Object.fromEntries([['preset', null], ...RULE_PARAMETERS.map((p) => [p.name,
  p.type === 'bool' ? 'bool' : p.type === 'int-or-null' ? [p.minimum, p.maximum] : p.values])]);

function pointer(parts) {
  return parts.map((p) => '/' + String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('') || '/';
}

function shown(v) {
  if (Array.isArray(v)) {
    return 'an array';
  }
  if (v instanceof Map) {
    return 'an object';
  }
  if (v instanceof JsonFloat) {
    return String(v.value);
  }
  if (typeof v === 'string') {
    const text = `'${v}'`;
    return text.length <= 40 ? text : text.slice(0, 37) + '...';
  }
  return String(v);
}

/** Collects pydantic's errors, in pydantic's order, as {type, keys, path, message}. */
class Errors {
  constructor() {
    this.list = [];
  }

  // `loc`: the location's keys and indexes (no union labels); `extra`: an unknown key, which
  // ends the pointer whatever it is called but counts in the depth only if it is a model's key.
  add(type, loc, message, extra = null) {
    const keys = extra === null || !LOG_KEYS.has(extra) ? loc : [...loc, extra];
    const path = pointer(extra === null ? loc : [...loc, extra]);
    this.list.push({ type, keys, path, message });
  }

  // A strict integer in [low, high] (pydantic: int_type, greater_than_equal, less_than_equal).
  int(v, loc, low, high, what = null) {
    if (typeof v !== 'number') {
      this.add('int_type', loc, 'Input should be a valid integer');
    } else if (v < low) {
      this.add('greater_than_equal', loc, what ? what(v) : `Input should be greater than or equal to ${low}`);
    } else if (v > high) {
      this.add('less_than_equal', loc, what ? what(v) : `Input should be less than or equal to ${high}`);
    }
  }

  literal(v, loc, values) {
    if (!values.includes(v)) {
      this.add('literal_error', loc,
        `Input should be ${values.map((x) => `'${x}'`).join(', ').replace(/, ([^,]*)$/, ' or $1')}`);
    }
  }

  // The keys of `map` outside `known`, after the known ones (pydantic checks them last).
  extras(map, loc, known) {
    for (const key of map.keys()) {
      if (!known.includes(key)) {
        this.add('extra_forbidden', loc,
          `unknown key '${key}' (only meta may hold free-form keys)`, key);
      }
    }
  }
}

const PILES_RULE = say('bad-pile', { piles: MAX_PILES }); // the engine's words, as log.py's
const RUN_RULE = `a run is 1 to ${NUM_PILES} cards`;
const noPile = (v) => `no pile ${v}: ${PILES_RULE}`;

// A rules object's preset with its overrides on top (log.py's _merged).
function resolvedRules(spec) {
  const overrides = Object.fromEntries(
    [...spec].filter(([k]) => k !== 'preset').map(([k, x]) => [k, toPlain(x)]),
  );
  return { ...PRESETS[spec.get('preset') ?? 'cruel'], ...overrides };
}

function checkRules(v, errors) {
  if (typeof v === 'string' && Object.hasOwn(PRESETS, v)) {
    return;
  }
  // Both branches of the union failed: pydantic reports the preset name's, then the object's.
  const branch = new Errors();
  if (v instanceof Map) {
    checkRulesObject(v, branch);
    if (!branch.list.length) {
      // GameLog's own check of the rules field (log.py): the overrides on their preset.
      const problem = rulesProblem(resolvedRules(v));
      if (problem !== null) {
        errors.add('value_error', ['rules'], `these rules make no game: ${problem}`);
      }
      return;
    }
  } else {
    branch.add('model_type', ['rules'], 'Input should be a preset name or a rules object');
  }
  errors.literal(v, ['rules'], Object.keys(PRESETS));
  errors.list.push(...branch.list);
}

function checkRulesObject(v, errors) {
  for (const [key, allowed] of Object.entries(RULES_VALUES)) {
    if (!v.has(key)) {
      continue;
    }
    const x = v.get(key);
    const loc = ['rules', key];
    if (key === 'preset') {
      errors.literal(x, loc, Object.keys(PRESETS));
    } else if (key === 'max_redeals') {
      if (x !== null) {
        errors.int(x, loc, ...allowed);
      }
    } else if (allowed === 'bool') {
      if (typeof x !== 'boolean') {
        errors.add('bool_type', loc, 'Input should be a valid boolean');
      }
    } else if (key === 'pile_count') {
      // Literal[12, 13]: a whole float (12.0) passes, a boolean does not.
      const n = x instanceof JsonFloat ? x.value : x;
      if (!(typeof n === 'number' && allowed.includes(n))) {
        errors.add('literal_error', loc, `Input should be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`);
      }
    } else {
      errors.literal(x, loc, allowed);
    }
  }
  errors.extras(v, ['rules'], Object.keys(RULES_VALUES));
  if (errors.list.length) {
    return;
  }
  // The Rules model's own check, on the object as written (absent keys: the model's defaults,
  // those of 'cruel'), as pydantic runs it.
  const r = { ...RULE_DEFAULTS, ...Object.fromEntries([...v].map(([k, x]) => [k, toPlain(x)])) };
  const problem = rulesProblem(r);
  if (problem !== null) {
    errors.add('value_error', ['rules'], problem);
  }
}

// Why a rules profile makes no game (the Rules model's validator: the spec's constraints in its
// order, in its words), or null.
function rulesProblem(r) {
  const holds = (condition) => Object.entries(condition).every(([k, values]) => values.includes(r[k]));
  for (const rule of RULE_CONSTRAINTS) {
    if (holds(rule.when) && !holds(rule.then)) {
      return rule.message.replace(/\{(\w+)\}/g, (_, k) => String(r[k]));
    }
  }
  return null;
}

function checkCard(x, loc, errors) {
  if (typeof x !== 'string') {
    errors.add('string_type', loc, 'Input should be a valid string');
  } else if (!CARD_TEXT.test(x)) {
    errors.add('string_pattern_mismatch', loc,
      `not a card: ${shown(x)} (write rank then suit, like 10H, TH or 4\u2666)`);
  }
}

function checkDeal(v, errors) {
  if (!(v instanceof Map)) {
    const n = typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : v;
    errors.add('model_type', ['deal'], Number.isInteger(n) && n >= 0 && n <= MAX_DEAL_NUMBER
      ? `a deal is an object, not ${shown(v)}: write {"number": ${n}} for deal ${n}`
      : `a deal is an object, not ${shown(v)}: {"number": N} or {"piles": [...]}`);
    return;
  }
  const before = errors.list.length;
  const number = v.get('number') ?? null;
  if (number !== null) {
    errors.int(number, ['deal', 'number'], 0, MAX_DEAL_NUMBER);
  }
  const piles = v.get('piles') ?? null;
  if (piles !== null) {
    if (!Array.isArray(piles)) {
      errors.add('list_type', ['deal', 'piles'], 'Input should be a valid list');
    } else {
      piles.forEach((pile, i) => {
        if (!Array.isArray(pile)) {
          errors.add('list_type', ['deal', 'piles', i], 'Input should be a valid list');
        } else {
          pile.forEach((card, j) => checkCard(card, ['deal', 'piles', i, j], errors));
        }
      });
    }
  }
  errors.extras(v, ['deal'], DEAL_KEYS);
  if (errors.list.length === before && number === null && piles === null) {
    errors.add('value_error', ['deal'], 'a deal needs "number" or "piles"');
  }
}

function compactMessage(x) {
  const text = shown(x);
  const shape = typeof x === 'string' ? /^([0-9]+)(?:[Ff]|-([0-9]+)(?:[xX]([0-9]+))?)$/.exec(x) : null;
  if (shape !== null) {
    const [, source, target, count] = shape;
    if (![source, target].every((p) => p === undefined || (Number(p) >= 1 && Number(p) <= MAX_PILES))) {
      return `not a move: ${text}: ${PILES_RULE} (compact moves are like 3F, 3-7, 3-7x2)`;
    }
    if (count !== undefined) {
      return `not a move: ${text}: ${RUN_RULE} (like 3-7x2)`;
    }
  }
  return `not a move: ${text} (compact moves are like 3F, 3-7, 3-7x2 or R)`;
}

// One entry of "moves": the union of the object forms (told apart by "type") and the compact
// form, tried in that order; pydantic reports the errors of both branches.
function checkEntry(x, i, errors) {
  const loc = ['moves', i];
  const notMove = `not a move: ${shown(x)} (use an object with "type", or a string like 3F, 3-7, R)`;
  if (typeof x === 'string') {
    if (!COMPACT_TEXT.test(x)) {
      errors.add('model_attributes_type', loc, notMove);
      errors.add('string_pattern_mismatch', loc, compactMessage(x));
    }
    return;
  }
  if (!(x instanceof Map)) {
    errors.add('model_attributes_type', loc, notMove);
    errors.add('string_type', loc, notMove);
    return;
  }
  const before = errors.list.length;
  const kind = x.get('type');
  if (!x.has('type')) {
    errors.add('union_tag_not_found', loc, 'a move object needs "type": "move" or "redeal"');
  } else if (kind !== 'move' && kind !== 'redeal') {
    errors.add('union_tag_invalid', loc,
      `unknown move type '${toPlain(kind)}' (use "move" or "redeal")`);
  } else if (kind === 'redeal') {
    errors.extras(x, loc, ['type']);
  } else {
    for (const key of ['from', 'to']) {
      if (!x.has(key)) {
        errors.add('missing', [...loc, key], `required key '${key}' is missing`);
      } else if (key === 'from') {
        errors.int(x.get(key), [...loc, key], 1, MAX_PILES, noPile);
      } else if (x.get(key) !== 'foundation' && !isPile(x.get(key), MAX_PILES)) {
        // "foundation" or a pile: both branches of the union report their error
        errors.literal(x.get(key), [...loc, key], ['foundation']);
        errors.int(x.get(key), [...loc, key], 1, MAX_PILES, noPile);
      }
    }
    if (x.has('card')) {
      checkCard(x.get('card'), [...loc, 'card'], errors);
    }
    if (x.has('count')) {
      errors.int(x.get('count'), [...loc, 'count'], 1, NUM_PILES, (c) => `count ${c}: ${RUN_RULE}`);
    }
    errors.extras(x, loc, MOVE_KEYS);
  }
  if (errors.list.length > before) {
    errors.add('string_type', loc, notMove); // the compact branch
  }
}

function checkClaim(v, errors) {
  if (!(v instanceof Map)) {
    errors.add('model_type', ['claim'], 'Input should be an object');
    return;
  }
  const outcome = v.get('outcome') ?? null;
  if (outcome !== null) {
    errors.literal(outcome, ['claim', 'outcome'], SPEC_CLAIM_KEYS[0].values);
  }
  for (const { name: key, minimum, maximum } of SPEC_CLAIM_KEYS.slice(1)) {
    const n = v.get(key) ?? null;
    if (n !== null) {
      errors.int(n, ['claim', key], minimum, maximum);
    }
  }
  errors.extras(v, ['claim'], CLAIM_KEYS);
}

// log.py's `_best`: the error to show is in the first part of the log that has any (a top-level
// key, or one move); of those, the deepest, then not a mere type mismatch; the first such.
function bestError(list) {
  const part = (e) => (e.keys[0] === 'moves' ? e.keys.slice(0, 2) : e.keys.slice(0, 1)).join('/');
  const first = part(list[0]);
  let best = null;
  for (const e of list) {
    if (part(e) === first && (best === null || e.keys.length > best.keys.length ||
        (e.keys.length === best.keys.length && TYPE_ERRORS.has(best.type) && !TYPE_ERRORS.has(e.type)))) {
      best = e;
    }
  }
  return best;
}

const LOG_FIELDS = names(SPEC_LOG_KEYS);

// The GameLog model's check of a parsed log: throws the LogError log.py would raise.
function checkLog(obj, maxMoves) {
  if (!(obj instanceof Map)) {
    throw new LogError('schema', '/', 'a log is a JSON object');
  }
  const errors = new Errors();
  if (!obj.has('format')) {
    errors.add('missing', ['format'], "required key 'format' is missing");
  } else {
    errors.literal(obj.get('format'), ['format'], [LOG_FORMAT]);
  }
  if (obj.has('rules')) {
    checkRules(obj.get('rules'), errors);
  }
  if (!obj.has('deal')) {
    errors.add('missing', ['deal'], "required key 'deal' is missing");
  } else {
    checkDeal(obj.get('deal'), errors);
  }
  if (obj.has('moves')) {
    const moves = obj.get('moves');
    if (!Array.isArray(moves)) {
      errors.add('list_type', ['moves'], 'Input should be a valid list');
    } else if (moves.length > maxMoves) {
      errors.add('too_many_moves', ['moves'], `${moves.length} moves, over the limit of ${maxMoves}`);
    } else {
      moves.forEach((x, i) => checkEntry(x, i, errors));
    }
  }
  if ((obj.get('claim') ?? null) !== null) {
    checkClaim(obj.get('claim'), errors);
  }
  const meta = obj.get('meta') ?? null;
  if (meta !== null && !(meta instanceof Map)) {
    errors.add('dict_type', ['meta'], 'Input should be a valid dictionary');
  }
  errors.extras(obj, [], LOG_FIELDS);
  if (errors.list.length) {
    const e = bestError(errors.list);
    throw e.type === 'too_many_moves'
      ? new LogError('too-many-moves', '/moves', e.message)
      : new LogError('schema', e.path, e.message);
  }
}

// An entry the model accepted, as a step (log.py's `decode`).
function entryStep(x) {
  if (typeof x === 'string') {
    const m = COMPACT_TEXT.exec(x);
    if (m[1] === undefined) {
      return REDEAL;
    }
    return move(Number(m[1]), m[2] === undefined ? null : Number(m[2]), m[3] === undefined ? 1 : Number(m[3]));
  }
  if (x.get('type') === 'redeal') {
    return REDEAL;
  }
  const to = x.get('to');
  return move(x.get('from'), to === 'foundation' ? null : to, x.get('count') ?? 1,
    x.has('card') ? parseCard(x.get('card')) : null);
}

// --- the deal (cruel_tools/game/deals.py's resolve_deal and check_piles) ---

function checkPiles(names, rules) {
  const base = '/deal/piles';
  const piles = names.map((p) => p.map(parseCard));
  const n = rules.pile_count;
  if (piles.length !== n) {
    throw new LogError('bad-deal', base, `a deal has ${n} piles, this one has ${piles.length}`);
  }
  const inDeck = (c) => (rules.foundation_base === 'none' ? true
    : cardRank(c) !== (rules.foundation_base === 'ace' ? 1 : KING));
  const where = new Map();
  for (let i = 0; i < piles.length; i++) {
    if (piles[i].length !== PACKET) {
      throw new LogError('bad-deal', `${base}/${i}`,
        `pile ${i + 1} has ${piles[i].length} cards (a deal has ${PACKET} in each)`);
    }
    for (let j = 0; j < PACKET; j++) {
      const c = piles[i][j];
      if (!inDeck(c)) {
        const why = cruelLayout(rules) ? 'the aces' : `the ${rules.foundation_base}s`;
        throw new LogError('bad-deal', `${base}/${i}/${j}`,
          `${cardSymbol(c)} in pile ${i + 1}: ${why} start on the foundations`);
      }
      if (where.has(c)) {
        throw new LogError('bad-deal', `${base}/${i}/${j}`,
          `${cardSymbol(c)} is in pile ${where.get(c)} and again in pile ${i + 1}`);
      }
      where.set(c, i + 1);
    }
  }
  return piles;
}

/**
 * A log read: what {@link readLog} returns.
 * @typedef {object} ReadLog
 * @property {Readonly<Rules>} rules the profile: the preset with the log's overrides
 * @property {{number: number|null, piles: number[][]}} deal the deal number (null for a deal by
 *   piles) and the starting piles, as cards
 * @property {Step[]} steps every entry of `moves` as a step (a move entry's card as `card`)
 * @property {Claim|null} claim the claim as written
 * @property {object|null} meta the free-form `meta`
 */
/**
 * A `cruel-log/1` log as a JSON-ready object: what {@link Recorder#log} gives (docs/log-format.md).
 * @typedef {object} Log
 * @property {'cruel-log/1'} format
 * @property {string|Rules} rules the preset's name, or the whole profile when it overrides one
 * @property {{number: number}|{piles: string[][]}} deal by number, or by piles (card names)
 * @property {Array<string|LogMove|Redeal>} moves compact (`3F`, `3-7x2`, `R`) or as objects
 * @property {Claim} [claim] the position the game reached
 * @property {object} [meta] free-form
 */
/**
 * A move entry of a log: `to` a pile or `'foundation'`; `card` the card (or the run's deepest).
 * @typedef {{type: 'move', from: number, to: number|'foundation', card?: string, count?: number}} LogMove
 */
/**
 * A log's claim: the position its game reached. Absent or null fields claim nothing.
 * @typedef {object} Claim
 * @property {Outcome|null} [outcome]
 * @property {number|null} [foundation_cards] cards on the foundations
 * @property {number|null} [moves] card moves
 * @property {number|null} [redeals]
 */

/**
 * Read a `cruel-log/1` log, as `cruel verify` and `cruel stats` read it (log.py's `load`, then
 * the deal): the same logs accepted, the same refused, with the same `code` and JSON-pointer
 * `path`. Reading does not play: the steps may still be illegal (play them with {@link Game}).
 * @param {string|object} input the JSON text (a leading byte order mark is ignored), or a log
 *   already parsed (its whole numbers count as integers; its size is not checked)
 * @param {{maxBytes?: number, maxMoves?: number}} [limits] default {@link LOG_LIMITS}
 * @returns {ReadLog}
 * @throws {LogError} `too-large` (over `maxBytes` bytes of UTF-8), `not-json`, `duplicate-key`,
 *   `too-many-moves`, `schema` (not a v1 log), `bad-deal` (piles that are not a deal, or not
 *   the deal number's); overrides that make no game of their preset are `schema` at `/rules`
 */
export function readLog(input, limits = {}) {
  const { maxBytes, maxMoves } = { ...LOG_LIMITS, ...limits };
  let obj;
  if (typeof input === 'string') {
    const size = new TextEncoder().encode(input).length;
    if (size > maxBytes) {
      throw new LogError('too-large', '', `log is ${size} bytes, over the limit of ${maxBytes}`,
        { size, max: maxBytes });
    }
    obj = parseJson(input.startsWith('\uFEFF') ? input.slice(1) : input);
  } else {
    obj = fromPlain(input);
  }
  checkLog(obj, maxMoves);
  // log.py's resolved_rules: the preset, with the keys the log wrote.
  const spec = obj.get('rules') ?? 'cruel';
  const resolved = spec instanceof Map ? resolvedRules(spec) : { ...PRESETS[spec] };
  const problem = rulesProblem(resolved);
  if (problem !== null) {
    // log.py's model refuses overrides that make no game of their preset (GameLog's rules check).
    throw new LogError('schema', '/rules', `these rules make no game: ${problem}`);
  }
  const rules = rulesOf(resolved);
  const deal = obj.get('deal');
  const number = deal.get('number') ?? null;
  const names = toPlain(deal.get('piles') ?? null);
  const byNumber = number === null ? null : dealPiles(number, rules);
  let piles = byNumber;
  if (names !== null) {
    piles = checkPiles(names, rules);
    const i = byNumber === null ? -1
      : piles.findIndex((p, k) => p.join() !== byNumber[k].join());
    if (i >= 0) {
      throw new LogError('bad-deal', `/deal/piles/${i}`, `pile ${i + 1} is not that of deal ` +
        `${number} (which has ${byNumber[i].map(cardSymbol).join(' ')}, bottom to top)`);
    }
  }
  const claim = obj.get('claim') ?? null;
  const meta = obj.get('meta') ?? null;
  return {
    rules,
    deal: { number, piles },
    steps: (obj.get('moves') ?? []).map(entryStep),
    claim: claim === null ? null : toPlain(claim),
    meta: meta === null ? null : toPlain(meta),
  };
}

/**
 * One entry of a log's `moves` as a step (log.py's `to_step`): `"3F"`, `"3-7x2"`, `"r"`, or an
 * object `{type: "move", from, to, card, count}` / `{type: "redeal"}`.
 * @param {string|object} entry @returns {Step}
 * @throws {LogError} `schema`, with the path inside the entry, for anything a log may not hold
 */
export function readEntry(entry) {
  const x = fromPlain(entry);
  const errors = new Errors();
  checkEntry(x, 0, errors);
  if (errors.list.length) {
    const e = bestError(errors.list);
    throw new LogError('schema', e.path.slice('/moves/0'.length), e.message);
  }
  return entryStep(x);
}

/**
 * The first field of a log's claim that a played game contradicts (cruel_tools/game/traversal.py's
 * `claim_error`), as a CruelError `claim-mismatch` with its `path`, or null. A claim's absent or
 * null fields are not checked.
 * @param {Game} game @param {Claim|object|null|undefined} claim
 * @returns {LogError|null}
 */
export function claimProblem(game, claim) {
  if (claim === null || claim === undefined) {
    return null;
  }
  const actual = {
    outcome: game.outcome(), foundation_cards: game.foundationCards, moves: game.moves,
    redeals: game.redeals,
  };
  for (const [key, value] of Object.entries(actual)) {
    const said = claim[key] ?? null;
    if (said !== null && said !== value) {
      return new LogError('claim-mismatch', `/claim/${key}`,
        `the claim says ${key} ${said}, the replay gives ${value}`,
        { field: key, claimed: said, actual: value });
    }
  }
  return null;
}

// --- command line (Node only) ---------------------------------------------------------------

/**
 * `node cruel.js N...` (or `node docs/deals.js N...`, a link to this file) prints one JSON line
 * per deal number N: `{"number":N,"piles":[["KH","10H","4D","3C"], ...12 piles, bottom to top]}`.
 * Anything but a decimal deal number is an error (exit status 2). Importing the module runs
 * nothing: the command line answers only when this file is the program Node was started with.
 * @param {string[]} args
 */
function commandLine(args) {
  const lines = [];
  for (const arg of args) {
    const n = /^[0-9]+$/.test(arg) ? Number(arg) : NaN;
    if (!(n <= MAX_DEAL_NUMBER)) {
      process.stderr.write(`deals.js: not a deal number 0..${MAX_DEAL_NUMBER}: ${JSON.stringify(arg)}\n`);
      process.exitCode = 2;
      return;
    }
    lines.push(JSON.stringify({ number: n, piles: dealPiles(n).map((p) => p.map(cardName)) }));
  }
  if (lines.length) {
    process.stdout.write(lines.join('\n') + '\n');
  }
}

if (typeof process !== 'undefined' && process.versions?.node && process.argv?.length > 1) {
  const builtins = ['node:fs', 'node:url']; // named at run time: bundlers for browsers skip them
  Promise.all(builtins.map((name) => import(name))).then(([fs, url]) => {
    let main = false;
    try {
      main = fs.realpathSync(process.argv[1]) === fs.realpathSync(url.fileURLToPath(import.meta.url));
    } catch {
      // not started from a file (node -e, a REPL): not the command line
    }
    if (main) {
      commandLine(process.argv.slice(2));
    }
  });
}
