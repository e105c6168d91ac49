// freeplay.js: what the play page plays, read from its address (docs/web.md "Free play and
// practice"): /play/{id} a published puzzle, /play/deal/{n}?rules={preset} any deal number under
// any preset the board draws. No rule lives here: deals and presets are cruel.js's.

import { MAX_DEAL_NUMBER, PRESETS } from './cruel.js';
import { t } from './i18n.js';

/** The presets the board can draw: Cruel's 12 piles, foundations up from the aces. */
export const BOARD_PRESETS = Object.freeze(Object.keys(PRESETS).filter(
  (name) => PRESETS[name].pile_count === 12 && PRESETS[name].foundation_base === 'ace'));

/**
 * The game an address asks for: `{kind: 'puzzle', id}`, or `{kind: 'free', number, rules}`
 * (rules a preset name), or `{kind: 'free', error}` with the reason in the player's words.
 * @param {{pathname: string, search: string}} where
 */
export function readRoute(where) {
  const parts = where.pathname.replace(/\/+$/, '').split('/');
  const last = decodeURIComponent(parts.pop() ?? '');
  if (parts.at(-1) !== 'deal' || parts.at(-2) !== 'play') {
    return { kind: 'puzzle', id: last };
  }
  const rules = new URLSearchParams(where.search).get('rules') ?? 'cruel';
  if (!BOARD_PRESETS.includes(rules)) {
    return { kind: 'free', error: t('play.free-bad-rules', { rules, known: BOARD_PRESETS.join(', ') }) };
  }
  const number = /^\d{1,10}$/.test(last) ? Number(last) : NaN;
  if (!(Number.isInteger(number) && number >= 0 && number <= MAX_DEAL_NUMBER)) {
    return { kind: 'free', rules, error: t('play.free-bad-number', { number: last, max: MAX_DEAL_NUMBER }) };
  }
  return { kind: 'free', number, rules };
}

/** The address of free play of deal `number` under `rules`. */
export function freeAddress(number, rules = 'cruel') {
  return `/play/deal/${number}` + (rules === 'cruel' ? '' : `?rules=${encodeURIComponent(rules)}`);
}

/** A free game as the play page holds a puzzle: no id, no date, no par. */
export function freePuzzle(number, rules) {
  return { id: null, date: null, tier: null, rules, deal: { number }, par: null, free: true };
}

/**
 * The form that opens another deal: a number and a preset picker (`#free-form`, filled here).
 * @param {HTMLFormElement} form @param {{number?: number, rules?: string}} now
 */
export function fillFreeForm(form, now = {}) {
  const number = form.querySelector('#free-number');
  const select = form.querySelector('#free-rules');
  number.max = String(MAX_DEAL_NUMBER);
  number.value = now.number === undefined ? '' : String(now.number);
  select.replaceChildren(...BOARD_PRESETS.map((name) => {
    const option = document.createElement('option');
    option.value = name;
    option.textContent = name;
    option.selected = name === (now.rules ?? 'cruel');
    return option;
  }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const n = number.value.trim() === '' ? Math.floor(Math.random() * 1_000_000) + 1 : number.value.trim();
    location.assign(freeAddress(n, select.value));
  });
}
