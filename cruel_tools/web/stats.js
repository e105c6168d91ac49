// stats.js: the player's record kept in this browser (the seed 002 stats panel), computed from
// localStorage["cruel.games"] by exactly the definitions of `cruel stats`
// (cruel_tools/game/stats.py: aggregate() and record()). See docs/web.md "Statistics panel".

import { Game, claimProblem, readLog } from './cruel.js';
import { t, tn, formatNumber, formatDay } from './i18n.js';

export const GAMES_KEY = 'cruel.games';
export const MAX_GAMES = 1000;

/** The finished games of this browser: cruel-log/1 objects (never throws). */
export function loadGames(storage = globalThis.localStorage) {
  try {
    const games = JSON.parse(storage.getItem(GAMES_KEY) ?? '[]');
    return Array.isArray(games) ? games : [];
  } catch {
    return [];
  }
}

/** Append a finished game's log (append only, capped at the latest MAX_GAMES). */
export function recordGame(log, storage = globalThis.localStorage) {
  const games = loadGames(storage);
  games.push(log);
  storage.setItem(GAMES_KEY, JSON.stringify(games.slice(-MAX_GAMES)));
}

// --- the facts of one game (stats.py record(): Game(day, won, moves, foundation_cards, seconds))

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** A meta time as Python's datetime.fromisoformat reads it: {day, ms, aware} or null. */
function moment(meta, key) {
  const value = meta[key];
  if (typeof value !== 'string' || value.length > 64) {
    return null;
  }
  const m = ISO.exec(value);
  if (!m) {
    return null;
  }
  const aware = m[1] !== undefined;
  let text = value.length === 10 ? `${value}T00:00:00` : value.replace(' ', 'T');
  if (!aware) {
    text += 'Z'; // naive times: compared with each other only, as Python does
  }
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    return null;
  }
  return { day: value.slice(0, 10), ms, aware };
}

function duration(start, end) {
  if (start === null || end === null || start.aware !== end.aware) {
    return null;
  }
  const seconds = (end.ms - start.ms) / 1000;
  return seconds >= 0 ? seconds : null;
}

/**
 * Play a log with cruel.js as `cruel stats` does (cruel_tools/game/stats.py's record(): log.load, then
 * verify): read by readLog, every step legal, the claim true. The final Game and the log's meta,
 * or null when the log does not verify (it is left out, as `cruel stats` leaves it out).
 */
export function replayLog(log) {
  try {
    const read = readLog(log);
    const game = new Game(read.deal.piles, read.rules);
    for (const step of read.steps) {
      game.push(step);
    }
    return claimProblem(game, read.claim) === null ? { game, meta: read.meta ?? {} } : null;
  } catch {
    return null;
  }
}

/** One counted game's facts from its log, or null when it does not verify (left out). */
export function gameFacts(log) {
  const played = replayLog(log);
  if (played === null) {
    return null;
  }
  const { game, meta } = played;
  const start = moment(meta, 'started_at');
  const end = moment(meta, 'finished_at');
  const at = end ?? start;
  const won = game.isWon();
  return {
    day: at ? at.day : null,
    won,
    moves: game.moves,
    foundationCards: game.foundationCards,
    seconds: won ? duration(start, end) : null,
  };
}

// --- aggregate(): the rules of every figure -----------------------------------------------

function dayNumber(day) {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / 86400000;
}

/**
 * The record of `facts` (stats.py aggregate()): played, wins, winRate, fastestWinSeconds,
 * fewestMovesWin, bestScore, currentStreak, bestStreak, referenceDay.
 * @param {Array<object>} facts from gameFacts @param {string|null} [today] YYYY-MM-DD
 */
export function aggregate(facts, today = null) {
  let played = 0;
  let wins = 0;
  let fastest = null;
  let fewest = null;
  let best = null;
  const winDays = new Set();
  const allDays = new Set();
  for (const g of facts) {
    if (g.day) {
      allDays.add(g.day);
    }
    played += 1;
    best = Math.max(best ?? 0, g.foundationCards ?? 0);
    if (!g.won) {
      continue;
    }
    wins += 1;
    fewest = fewest === null ? g.moves : Math.min(fewest, g.moves ?? 0);
    if (g.seconds !== null && g.seconds !== undefined) {
      fastest = fastest === null ? g.seconds : Math.min(fastest, g.seconds);
    }
    if (g.day) {
      winDays.add(g.day);
    }
  }
  // runs: for each win day, the length of the run of consecutive win days ending on it
  const runs = new Map();
  for (const n of [...winDays].map(dayNumber).sort((a, b) => a - b)) {
    runs.set(n, (runs.get(n - 1) ?? 0) + 1);
  }
  const reference = today ?? (allDays.size ? [...allDays].sort().at(-1) : null);
  let current = 0;
  if (reference !== null) {
    const ref = dayNumber(reference);
    const before = allDays.has(reference) ? null : ref - 1;
    current = runs.get(ref) || (before !== null ? runs.get(before) ?? 0 : 0);
  }
  return {
    played,
    wins,
    winRate: played ? wins / played : null,
    fastestWinSeconds: fastest,
    fewestMovesWin: fewest,
    bestScore: best,
    currentStreak: current,
    bestStreak: runs.size ? Math.max(...runs.values()) : 0,
    referenceDay: reference,
  };
}

/** The record of this browser's finished games. */
export function computeStats(games = loadGames(), today = null) {
  return aggregate(games.map(gameFacts).filter((f) => f !== null), today);
}

/** A duration in words: `12 s`, `1 min 05 s`, `1 h 02 min 05 s` (issue #27). */
export function clock(seconds) {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  if (h) {
    return t('stats.clock-h', { h, m: String(m).padStart(2, '0'), s: sec });
  }
  return m ? t('stats.clock-m', { m, s: sec }) : t('stats.clock-s', { s: s % 60 });
}

function days(n) {
  return tn('stats.days', n);
}

/**
 * Draw the stats panel into `container` (replacing its content). Each figure is a `dd` with
 * `data-stat` (its key in computeStats()) and `data-value` (the raw number, '' for none).
 * @returns {object} the record shown
 */
export function renderStats(container, games = loadGames(), today = null) {
  const rec = computeStats(games, today);
  const rows = [
    ['played', t('stats.played'), rec.played, String(rec.played)],
    ['wins', t('stats.wins'), rec.wins, String(rec.wins)],
    ['winRate', t('stats.win-rate'), rec.winRate, rec.winRate === null ? '—'
      : formatNumber(rec.winRate, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 })],
    ['fastestWinSeconds', t('stats.fastest'), rec.fastestWinSeconds,
      rec.fastestWinSeconds === null ? '—' : clock(rec.fastestWinSeconds)],
    ['fewestMovesWin', t('stats.fewest'), rec.fewestMovesWin,
      rec.fewestMovesWin === null ? '—' : String(rec.fewestMovesWin)],
    ['bestScore', t('stats.best-score'), rec.bestScore, rec.bestScore === null ? '—' : `${rec.bestScore}/52`],
    ['currentStreak', t('stats.current-streak'), rec.currentStreak, days(rec.currentStreak)],
    ['bestStreak', t('stats.best-streak'), rec.bestStreak, days(rec.bestStreak)],
  ];
  const h = document.createElement('h2');
  h.textContent = t('stats.title');
  const dl = document.createElement('dl');
  dl.className = 'stats-list';
  for (const [key, name, value, text] of rows) {
    const div = document.createElement('div');
    const dt = document.createElement('dt');
    dt.textContent = name;
    const dd = document.createElement('dd');
    dd.dataset.stat = key;
    dd.dataset.value = value === null ? '' : String(value);
    dd.textContent = text;
    div.append(dt, dd);
    dl.append(div);
  }
  const note = document.createElement('p');
  note.className = 'muted';
  // given `today` (the game day, gameday.js), the streaks run to it; else to the latest game
  note.textContent = !rec.referenceDay ? t('stats.note-none')
    : t(today ? 'stats.note-today' : 'stats.note', { day: formatDay(rec.referenceDay) });
  container.replaceChildren(h, dl, note);
  return rec;
}
