/**
 * words.js: the game in the player's words (docs/web.md "Languages"): cards and suits, steps,
 * and an illegal step or an unreadable log explained from the engine's refusal code and fields
 * (cruel.js's IllegalMove / LogError `fields`), not from its English message, which stays the
 * CLI's and the API's. Every word comes from the catalogs (i18n.js).
 *
 * In running text and on the board a card reads as its face, with the rank as the player's
 * cards print it: `5♥`, `K♣` in English, `H♣` (heer) in Dutch; in words (screen readers, aria
 * labels) as `5 of hearts` / `harten 5`, `king of clubs` / `klaveren heer`.
 *
 * @module words
 */

import { SUITS, SUIT_SYMBOLS, cardRank, cardSuit, parseCard } from './cruel.js';
import { t, tn, has, locale } from './i18n.js';

function toCard(c) {
  return typeof c === 'string' ? parseCard(c) : c;
}

/** A suit's name in the player's language: `hearts`, `harten` (suit: 0-3 or S H D C). */
export function suitWords(suit) {
  const letter = typeof suit === 'number' ? SUITS[suit] : suit;
  return t(`cards.suit.${letter}`);
}

/** A card in words, for screen readers: `7 of hearts`, `harten 7`, `ace of spades`. */
export function cardWords(card) {
  const c = toCard(card);
  return t('cards.card', { rank: t(`cards.rank.${cardRank(c)}`), suit: suitWords(cardSuit(c)) });
}

/** A card in running text and on its face: `7♥`, `K♣` (`H♣` in Dutch). */
export function cardText(card) {
  if (card === null || card === undefined) {
    return '';
  }
  const c = toCard(card);
  return `${t(`cards.face.${cardRank(c)}`)}${SUIT_SYMBOLS[cardSuit(c)]}`;
}

/**
 * The prompt when a card has more than one place to go: "{card} can go to {count} places: the
 * foundation or onto 9♥ on pile 3…", naming each place's key when `keyOf` gives one (the play
 * page with a keyboard), else in words only (a touch screen, `<cruel-game>`).
 * @param {import('./cruel.js').Game} game the position the moves are offered in
 * @param {number} source the card's pile
 * @param {Array<{target: number | null}>} options its moves
 * @param {((target: number | null) => string) | null} [keyOf]
 */
export function choiceWords(game, source, options, keyOf = null) {
  const place = (m) => {
    if (m.target === null) {
      return keyOf ? t('play.option-foundation-key', { key: keyOf(null) }) : t('play.option-foundation');
    }
    const words = { onto: cardText(game.top(m.target)), pile: m.target };
    return keyOf ? t('play.option-pile-key', { ...words, key: keyOf(m.target) }) : t('play.option-pile', words);
  };
  return t(keyOf ? 'play.choice-prompt' : 'play.choice-prompt-touch', {
    card: cardText(game.top(source)), count: options.length,
    options: options.map(place).join(t('play.choice-or')),
  });
}

/**
 * A step in words, before it is played on `game` (a cruel.js Game): `7♥ from pile 3 to the
 * foundation`, `Redeal 2: ...`. Throws when the step does not fit the position.
 */
export function stepWords(step, game) {
  if (step.type === 'redeal') {
    return t('game.step-redeal', { n: game.redeals + 1 });
  }
  const src = game.piles[step.source - 1];
  const count = step.count ?? 1;
  const card = cardText(src[src.length - count]);
  if (step.target === null) {
    return t('game.step-foundation', { card, source: step.source });
  }
  const onto = cardText(game.top(step.target));
  if (count > 1) {
    return t('game.step-run', { card, count, source: step.source, onto, target: step.target });
  }
  return t('game.step-pile', { card, source: step.source, onto, target: step.target });
}

const ordinals = new Intl.PluralRules(locale, { type: 'ordinal' });

/** `1st`, `2nd` / `1e`, `2e`. */
export function ordinal(n) {
  const form = `game.nth.${ordinals.select(n)}`;
  return t(has(form) ? form : 'game.nth.other', { count: n });
}

/**
 * A step as `cruel replay` lists it, before it is played on `game`: `4♦ pile 3 → pile 7, onto
 * 5♦`, `Redeal (2nd)` (render.py's describe(), in the player's language).
 */
export function lineWords(step, game) {
  if (step.type === 'redeal') {
    return t('game.line-redeal', { nth: ordinal(game.redeals + 1) });
  }
  const n = game.piles.length;
  const src = step.source >= 1 && step.source <= n ? game.piles[step.source - 1] : [];
  const count = step.count ?? 1;
  const moving = count > 0 && count <= src.length ? src.slice(src.length - count) : [];
  const cards = moving.length ? moving.slice().reverse().map(cardText).join(' ') : t('game.nothing');
  if (step.target === null) {
    return t('game.line-foundation', { cards, source: step.source });
  }
  const dst = step.target >= 1 && step.target <= n ? game.piles[step.target - 1] : [];
  return dst.length
    ? t('game.line-pile', { cards, source: step.source, target: step.target, onto: cardText(dst[dst.length - 1]) })
    : t('game.line-empty', { cards, source: step.source, target: step.target });
}

/**
 * An illegal step or an unreadable log in the player's language, from its `code` and `fields`
 * (cruel.js IllegalMove / LogError; every code has a message in each catalog). An error
 * without a known code (or a plain Error) keeps its own message.
 * @param {{code?: string, fields?: Record<string, any>, path?: string, message?: string}} error
 */
export function explain(error) {
  const code = error?.code;
  const f = error?.fields ?? {};
  const card = cardText(f.card);
  const common = {
    card, source: f.source, target: f.target, onto: cardText(f.onto), count: f.count,
    needs: cardText(f.needs), path: error?.path || '/', preset: f.preset, max: f.max,
    piles: f.piles, length: f.length, size: f.size, field: f.field, claimed: f.claimed,
    actual: f.actual, detail: error?.message ?? '',
  };
  const key = `errors.move.${code}`;
  const logKey = `errors.log.${code}`;
  if (error?.name === 'LogError' || (!has(key) && has(logKey))) {
    return has(logKey) ? t(logKey, common) : error?.message ?? String(error);
  }
  if (!has(key) || !error?.fields) {
    return has(key) && !fieldsNeeded(code) ? t(key, common) : error?.message ?? String(error);
  }
  switch (code) {
    case 'card-mismatch':
      return t(f.count > 1 ? 'errors.move.card-mismatch-run' : key,
        { ...common, logged: cardText(f.logged) });
    case 'not-next-on-foundation':
      return f.needs === null
        ? t('errors.move.foundation-complete', { ...common, symbol: SUIT_SYMBOLS[cardSuit(f.card)] })
        : t(key, common);
    case 'wrong-suit':
    case 'wrong-rank':
    case 'wrong-colour':
      if (f.build && f.build !== 'down-in-suit') {
        const rank = cardRank(f.card);
        const which = f.build === 'up-alternate-colour'
          ? (rank > 1 ? 'errors.move.needs-lower-other-colour' : 'errors.move.ace-builds-on-nothing')
          : 'errors.move.needs-next-other-colour';
        return t('errors.move.build', { ...common, rank: t(`cards.face.${rank}`), why: t(which) });
      }
      return f.needs === null ? t('errors.move.king-builds-on-nothing', common) : t(key, common);
    case 'not-a-run':
      return t(key, { ...common, run: tn('errors.move.run-length', f.length) });
    case 'redeal-limit':
      return tn('errors.move.redeal-limit', f.max);
    default:
      return t(key, common);
  }
}

/** The codes whose message needs the refusal's fields (an error without them keeps its own words). */
function fieldsNeeded(code) {
  return !['redeal-unchanged', 'move-after-end', 'run-to-foundation'].includes(code);
}

/** The codes of the service's answers the pages meet often, worded by the catalogs. */
const API_CODES = [
  'network', 'http', 'puzzle-not-open', 'puzzle-closed', 'puzzle-not-closed', 'solution-not-public',
  'rate-limited', 'busy', 'not-found', 'internal-error', 'name-taken', 'bad-player-name',
  'too-many-connections', 'attempt-over', 'token-required', 'bad-token', 'revoked-token',
];

/**
 * The service's error answer in the player's language: a common code (a network failure, an
 * open puzzle, a rate limit, ...) has a catalog message; any other keeps the service's words.
 * @param {{code?: string, status?: number, message?: string}|Error|string} error
 */
export function apiErrorText(error) {
  if (typeof error === 'string') {
    return error;
  }
  const code = error?.code;
  if (API_CODES.includes(code) && has(`errors.api.${code}`)) {
    return t(`errors.api.${code}`, { status: error.status ?? '', message: error.message ?? '' });
  }
  return error?.message ?? String(error);
}
