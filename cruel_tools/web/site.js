/**
 * site.js: what the front page, the replay page and the leaderboard page share: calls to the
 * service's API (errors as the service's `message`), the browser storage the pages agree on
 * (docs/web.md), and small formatting helpers. No rules here: every rule is cruel.js's.
 *
 * @module site
 */

import { t, tn, formatDate, formatNumber } from './i18n.js';
import { apiErrorText } from './words.js';

/** An answer of the service that is not a success: its `cruel-error/1` fields. */
export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status
   * @param {string} code the error's stable code (`puzzle-not-open`, ...)
   * @param {string} message the service's words, shown to the player as they are
   */
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/**
 * Call the service and read its JSON answer.
 * @param {string} path e.g. `/v1/puzzles/daily/today`
 * @param {{method?: string, body?: unknown, raw?: string}} [options] `body` is sent as JSON;
 *   `raw` as it is (a log the user pasted, unparsed)
 * @returns {Promise<any>} the answer's JSON
 * @throws {ApiError} for an error answer (with the service's message) or a network failure
 */
export async function api(path, { method = 'GET', body = undefined, raw = undefined } = {}) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (raw !== undefined) {
    init.body = raw;
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
  }
  if (init.body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'network', `the service cannot be reached (${e.message})`);
  }
  let doc = null;
  try {
    doc = await response.json();
  } catch {
    doc = null;
  }
  if (!response.ok) {
    const message = doc && typeof doc.message === 'string'
      ? doc.message : `the service answered ${response.status}`;
    throw new ApiError(response.status, doc && doc.code ? doc.code : 'http', message);
  }
  return doc;
}

/**
 * Show an error's message in an element (role=alert: screen readers announce it).
 * @param {HTMLElement} el
 * @param {unknown} error an ApiError, an Error, or text
 */
export function showError(el, error) {
  el.textContent = error instanceof ApiError ? apiErrorText(error)
    : error instanceof Error ? error.message : String(error);
  el.hidden = false;
}

/** Hide an element shown by {@link showError}. */
export function clearError(el) {
  el.textContent = '';
  el.hidden = true;
}

/**
 * Make an element, with attributes, and children (elements or text).
 * @param {string} tag
 * @param {Record<string, string|boolean|number|null|undefined>} [attrs] `class`, `href`, ...;
 *   null/undefined/false are left out, true is an empty attribute
 * @param {...(Node|string|number|null|undefined)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) {
      continue;
    }
    el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) {
      continue;
    }
    el.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return el;
}

// --- what the pages show --------------------------------------------------------------------

/** A tier's name as shown: `Easy`, `Makkelijk`. */
export function tierName(tier) {
  if (!tier) {
    return '';
  }
  return ['easy', 'medium', 'hard', 'expert'].includes(tier) ? t(`tier.${tier}`)
    : tier[0].toUpperCase() + tier.slice(1);
}

/**
 * Par in words: `56 actions, optimal` or `59 actions, optimum ≥ 55`.
 * @param {{actions: number, moves: number, redeals: number, optimal: boolean, lower_bound: number|null}} par
 */
export function parText(par) {
  if (!par) {
    return '';
  }
  const bound = par.optimal ? t('site.bound-optimal')
    : par.lower_bound != null ? t('site.bound-lower', { n: par.lower_bound }) : t('site.bound-unknown');
  return t('site.par', { actions: tn('site.actions', par.actions), bound });
}

/** `+3`, `0`, `-1`: a result against par. */
export function versusPar(n) {
  if (n == null) {
    return '';
  }
  return n > 0 ? `+${n}` : String(n);
}

/** An ISO timestamp in the reader's words and zone: `5 Jan 2027, 14:03`. */
export function when(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) {
    return iso ?? '';
  }
  return formatDate(d, {
    day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit',
  });
}

/** Milliseconds as `1:05.3` (minutes, seconds) or `12.4 s`. */
export function duration(ms) {
  if (ms == null) {
    return '';
  }
  const s = ms / 1000;
  const tenths = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
  if (s < 60) {
    return t('site.seconds', { s: formatNumber(s, tenths) });
  }
  const m = Math.floor(s / 60);
  return `${m}:${formatNumber(s - m * 60, { ...tenths, minimumIntegerDigits: 2 })}`;
}

/** A date `YYYY-MM-DD` in words: `Tuesday 5 January 2027` (the date itself, no time zone). */
export function dayName(date) {
  const [y, m, d] = date.split('-').map(Number);
  return formatDate(new Date(Date.UTC(y, m - 1, d)), {
    weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC',
  });
}

/** The day before or after `YYYY-MM-DD`, by `delta` days. */
export function addDays(date, delta) {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + delta)).toISOString().slice(0, 10);
}

// --- browser storage (the pages' shared contract, docs/web.md) ------------------------------

/** The stored player name, or null. */
export function storedPlayer() {
  try {
    const name = localStorage.getItem('cruel.player');
    return name && name.trim() ? name : null;
  } catch {
    return null;
  }
}

function readJson(key, fallback) {
  try {
    const text = localStorage.getItem(key);
    return text === null ? fallback : JSON.parse(text);
  } catch {
    return fallback;
  }
}

/** The submission answer stored for a puzzle (`cruel.result.<id>`), or null. */
export function storedResult(puzzleId) {
  const doc = readJson(`cruel.result.${puzzleId}`, null);
  return doc && typeof doc === 'object' ? doc : null;
}

/** This browser's finished games (`cruel.games`), as logs. */
export function storedGames() {
  const games = readJson('cruel.games', []);
  return Array.isArray(games) ? games.filter((g) => g && typeof g === 'object') : [];
}

/** Whether a game in progress is stored for a puzzle (`cruel.progress.<id>`). */
export function hasProgress(puzzleId) {
  const doc = readJson(`cruel.progress.${puzzleId}`, null);
  return Boolean(doc && Array.isArray(doc.steps) && doc.steps.length > 0);
}

// --- the service's date ---------------------------------------------------------------------

let todayPromise = null;

/** The service's date (`GET /v1/health`'s `today`), asked once per page. */
export function serviceToday() {
  todayPromise ??= api('/v1/health').then((h) => h.today);
  return todayPromise;
}

/** Whether a puzzle is closed (its games and solution public) on `today`. */
export function isClosed(puzzle, today) {
  return Boolean(puzzle.solution_from) && puzzle.solution_from <= today;
}
