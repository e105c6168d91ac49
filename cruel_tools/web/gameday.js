/**
 * gameday.js: the game day (docs/web.md "The game day"). The service says which day it is
 * (`GET /v1/health`'s `today`): a demo (`cruel serve --today 2027-01-05`, or the demo set played
 * on any date) lives on a day that is not the calendar's. When the service's day is more than
 * one day from this browser's date (a time zone is never that far), the pages live on the game
 * day: the times the play page writes into its logs (`started_at`, `finished_at`) and the
 * submission times the leaderboard shows are moved by whole days onto it, and the stats panel
 * counts its streaks to it. Durations are unchanged; on a real service nothing moves.
 *
 * On the play page it is the first script, and imports only language.js (which imports
 * nothing): it starts the page's first
 * requests at once, `GET /v1/puzzles/{id}`, `GET /v1/health` and the message catalog, while the
 * other modules still load (the board is drawn round trips sooner: docs/web.md "Weight and
 * speed"); play.js takes each answer once with `early(path)`.
 *
 * @module gameday
 */

import { chooseLanguage } from './language.js';

const DAY_MS = 86400000;

let shiftMs = 0;
let today = null;
let asked = null;

/** A Date's calendar day in this browser's zone, `YYYY-MM-DD`. */
export function localDay(date = new Date()) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function dayNumber(day) {
  const [y, m, d] = day.split('-').map(Number);
  return Date.UTC(y, m - 1, d) / DAY_MS;
}

/**
 * Learn the service's day (once per page; a failure leaves the calendar's day).
 * @param {string} [known] the day, when the page has it already (no request then)
 * @returns {Promise<string>} the game day, `YYYY-MM-DD`
 */
export function learnGameDay(known = undefined) {
  if (typeof known === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(known)) {
    asked ??= Promise.resolve(known);
  }
  asked ??= fetch('/v1/health', { headers: { Accept: 'application/json' } })
    .then((r) => r.json())
    .then((h) => h.today)
    .catch(() => null);
  return asked.then((day) => {
    if (typeof day === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(day)) {
      const days = dayNumber(day) - dayNumber(localDay());
      shiftMs = Math.abs(days) > 1 ? days * DAY_MS : 0;
      today = shiftMs ? day : localDay();
    }
    return gameDay();
  });
}

/** How far the game day is from the calendar's, in ms (whole days; 0 on a real service). */
export function gameShiftMs() {
  return shiftMs;
}

/** Now, on the game day. */
export function gameNow() {
  return new Date(Date.now() + shiftMs);
}

/** Today's game day, `YYYY-MM-DD` (the browser's date until the service has answered). */
export function gameDay() {
  return shiftMs ? localDay(gameNow()) : today ?? localDay();
}

/** An ISO time of the service's clock (a submission's time) moved onto the game day. */
export function onGameDay(iso) {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) || !shiftMs ? iso : new Date(ms + shiftMs).toISOString();
}

// --- the play page's first requests ---------------------------------------------------------

const started = new Map();

function get(path) {
  const answer = fetch(path, { headers: { Accept: 'application/json' } }).then(async (res) => {
    let data = null;
    try {
      data = await res.json();
    } catch {
      data = null;
    }
    if (!data || typeof data !== 'object') {
      data = { code: 'http', status: res.status, message: `the service answered ${res.status}` };
    }
    return { ok: res.ok, status: res.status, data }; // the shape of tokens.js's call()
  });
  answer.catch(() => {}); // a failure is the caller's to see, when it takes the answer
  started.set(path, answer);
}

const page = /^\/play\/(?!deal\/)([^/]+)\/?$/.exec(globalThis.location?.pathname ?? '');
if (page) {
  try {
    get(`/v1/puzzles/${encodeURIComponent(decodeURIComponent(page[1]))}`);
  } catch {
    // a malformed address: play.js says so
  }
  get('/v1/health');
}

// The catalog i18n.js will load (language.js decides for both): fetched now, not after
// i18n.js has loaded.
{
  const link = document.createElement('link');
  link.rel = 'modulepreload';
  link.href = `/static/messages-${chooseLanguage() === 'nl' ? 'nl' : 'en'}.js`;
  document.head.append(link);
}

// Intl's first long date costs 16-32 ms on a 2-core machine (ICU loads its patterns): paid
// here, while the page waits for its modules, not between the puzzle and the board (the
// heading's date). The result is thrown away.
try {
  new Date(0).toLocaleString(chooseLanguage() === 'nl' ? 'nl' : 'en',
    { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
} catch {
  // a browser without Intl's dates: i18n.js finds out in its own time
}

/** The answer of a GET started early (once: then it is forgotten), or null. */
export function early(path) {
  const answer = started.get(path) ?? null;
  started.delete(path);
  return answer;
}
