/**
 * The front page (/): today's four puzzles with tier and par and the player's results on them,
 * the stats panel, and the past days with their public solutions and leaderboards.
 */
import {
  api, addDays, dayName, h, hasProgress, parText, showError, storedGames, storedPlayer,
  storedResult, tierName, versusPar,
} from '/static/site.js';
import { renderStats } from '/static/stats.js';

const PAST_DAYS = 7;

/** The player's record on one puzzle, from this browser's storage, in words (or null). */
function resultLine(puzzle) {
  const result = storedResult(puzzle.id);
  if (result) {
    if (result.accepted) {
      // rank null: kept off the board until a moderator clears it (a win too fast for a person)
      const rank = result.rank != null ? `, rank ${result.rank}` : ', held for review';
      const vs = result.versus_par == null ? ''
        : result.versus_par === 0 ? ' (at par)' : ` (par ${versusPar(result.versus_par)})`;
      return h('p', { class: 'result result-won' },
        `Your entry: ${result.actions} actions${vs}${rank}`);
    }
    const reason = result.reason && typeof result.reason === 'object' ? result.reason.message : result.reason;
    const why = reason ? `: ${reason}` : '';
    return h('p', { class: 'result result-rejected' }, `Submitted, not accepted${why}`);
  }
  const games = storedGames().filter((g) => g.meta && g.meta.puzzle === puzzle.id);
  const wins = games.filter((g) => g.claim && g.claim.outcome === 'won');
  if (wins.length > 0) {
    const best = Math.min(...wins.map((g) => g.claim.moves + g.claim.redeals));
    return h('p', { class: 'result result-won' }, `Won in ${best} actions (unranked)`);
  }
  if (hasProgress(puzzle.id)) {
    return h('p', { class: 'result' }, 'Game in progress');
  }
  if (games.length > 0) {
    const times = games.length === 1 ? 'once' : `${games.length} times`;
    return h('p', { class: 'result' }, `Played ${times}, not won yet`);
  }
  return null;
}

function todayCard(puzzle) {
  const title = `${tierName(puzzle.tier)}`;
  return h('li', { class: `puzzle-card tier-${puzzle.tier}`, 'data-puzzle': puzzle.id },
    h('h3', {}, title),
    h('p', { class: 'par' }, h('span', { class: 'label' }, 'Par: '), parText(puzzle.par)),
    resultLine(puzzle),
    h('p', { class: 'actions' },
      h('a', { class: 'button primary', href: `/play/${encodeURIComponent(puzzle.id)}`,
        'aria-label': `Play today's ${puzzle.tier} puzzle` }, 'Play'),
      ' ',
      h('a', { class: 'button', href: `/leaderboard/${encodeURIComponent(puzzle.id)}`,
        'aria-label': `Leaderboard of today's ${puzzle.tier} puzzle` }, 'Leaderboard')));
}

function pastRow(puzzle) {
  const id = encodeURIComponent(puzzle.id);
  return h('li', { class: 'past-puzzle', 'data-puzzle': puzzle.id },
    h('span', { class: 'past-tier' }, tierName(puzzle.tier)),
    h('span', { class: 'past-par' }, `par ${parText(puzzle.par)}`),
    resultLine(puzzle),
    h('span', { class: 'past-links' },
      h('a', { href: `/replay?puzzle=${id}`, class: 'solution-link',
        'aria-label': `Solution of ${puzzle.id}` }, 'Solution'),
      ' · ',
      h('a', { href: `/leaderboard/${id}`, class: 'leaderboard-link',
        'aria-label': `Leaderboard of ${puzzle.id}` }, 'Leaderboard')));
}

async function showToday(errorBox) {
  const section = document.getElementById('today');
  const list = document.getElementById('today-list');
  try {
    const day = await api('/v1/puzzles/daily/today');
    document.getElementById('today-title').textContent = `Today, ${dayName(day.date)}`;
    list.replaceChildren(...day.puzzles.map(todayCard));
    return day.date;
  } catch (e) {
    showError(errorBox, e);
    return null;
  } finally {
    section.querySelector('.loading')?.remove();
    section.setAttribute('aria-busy', 'false');
  }
}

async function showPast(today, errorBox) {
  const section = document.getElementById('past');
  const box = document.getElementById('past-days');
  try {
    // One request: the service lists only days that have puzzles (none before the set's first).
    const past = await api(`/v1/puzzles/past?before=${today}&limit=${PAST_DAYS}`);
    for (const day of past.days) {
      const date = day.date;
      const headingId = `day-${date}`;
      box.append(h('section', { class: 'past-day', 'aria-labelledby': headingId, 'data-date': date },
        h('h3', { id: headingId }, dayName(date)),
        h('ul', { class: 'past-list' }, ...day.puzzles.map(pastRow))));
    }
    if (!box.hasChildNodes()) {
      box.append(h('p', {}, 'No past days yet.'));
    }
  } catch (e) {
    showError(errorBox, e);
  } finally {
    section.setAttribute('aria-busy', 'false');
  }
}

/** Whether this browser holds an accepted entry of `name` (so the service knows the player). */
function hasEntry(name) {
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith('cruel.result.')) {
        const result = storedResult(key.slice('cruel.result.'.length));
        if (result && result.accepted && result.player === name) {
          return true;
        }
      }
    }
  } catch {
    return false;
  }
  return false;
}

/** The player's record on the leaderboards (GET /v1/players/{name}), under the stats panel. */
async function showServerRecord() {
  const name = storedPlayer();
  if (name === null || !hasEntry(name)) {
    return; // no entry yet: the service would answer 404
  }
  const line = h('p', { id: 'server-record', class: 'muted' });
  document.getElementById('stats').append(line);
  try {
    const rec = await api(`/v1/players/${encodeURIComponent(name)}`);
    const days = rec.best_streak === 1 ? 'day' : 'days';
    line.textContent = `On the leaderboards as ${name}: ${rec.played} entries, ${rec.wins} wins, `
      + `best streak ${rec.best_streak} ${days}.`;
  } catch (e) {
    line.textContent = `Your record on the leaderboards: ${e.message}`;
  }
}

async function main() {
  const errorBox = document.getElementById('error');
  try {
    renderStats(document.getElementById('stats'));
  } catch (e) {
    showError(errorBox, e);
  }
  const today = await showToday(errorBox);
  await showServerRecord();
  if (today !== null) {
    await showPast(today, errorBox);
  }
  document.body.dataset.ready = 'true';
}

main();
