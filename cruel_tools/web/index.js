/**
 * The front page (/): today's four puzzles with tier and par and the player's results on them,
 * the stats panel, and the past days with their public solutions and leaderboards.
 */
import { apiErrorText } from '/static/words.js';
import {
  api, addDays, dayName, h, hasProgress, parText, showError, storedGames, storedPlayer,
  storedResult, tierName, versusPar,
} from '/static/site.js';
import { renderStats } from '/static/stats.js';
import { learnGameDay, gameDay } from '/static/gameday.js';
import { t, tn } from '/static/i18n.js';

const PAST_DAYS = 7;

/** The player's record on one puzzle, from this browser's storage, in words (or null). */
function resultLine(puzzle) {
  const result = storedResult(puzzle.id);
  if (result) {
    if (result.accepted) {
      // rank null: kept off the board until a moderator clears it (a win too fast for a person)
      const rank = result.rank != null ? t('index.rank', { rank: result.rank }) : t('index.held');
      const vs = result.versus_par == null ? ''
        : result.versus_par === 0 ? t('index.at-par') : t('index.vs-par', { n: versusPar(result.versus_par) });
      return h('p', { class: 'result result-won' },
        t('index.entry', { actions: tn('site.actions', result.actions), vs, rank }));
    }
    const reason = result.reason && typeof result.reason === 'object' ? result.reason.message : result.reason;
    return h('p', { class: 'result result-rejected' },
      reason ? t('index.rejected-why', { reason }) : t('index.rejected'));
  }
  const games = storedGames().filter((g) => g.meta && g.meta.puzzle === puzzle.id);
  const wins = games.filter((g) => g.claim && g.claim.outcome === 'won');
  if (wins.length > 0) {
    const best = Math.min(...wins.map((g) => g.claim.moves + g.claim.redeals));
    return h('p', { class: 'result result-won' }, t('index.won-unranked', { actions: tn('site.actions', best) }));
  }
  if (hasProgress(puzzle.id)) {
    return h('p', { class: 'result' }, t('index.in-progress'));
  }
  if (games.length > 0) {
    return h('p', { class: 'result' }, tn('index.played', games.length));
  }
  return null;
}

/** A tier in running text: `easy` (English, lower case), `makkelijk`. */
function tierWord(tier) {
  return tierName(tier).toLowerCase();
}

function todayCard(puzzle) {
  const title = `${tierName(puzzle.tier)}`;
  return h('li', { class: `puzzle-card tier-${puzzle.tier}`, 'data-puzzle': puzzle.id },
    h('h3', {}, title),
    h('p', { class: 'par' }, h('span', { class: 'label' }, t('index.par-label')), parText(puzzle.par)),
    resultLine(puzzle),
    h('p', { class: 'actions' },
      h('a', { class: 'button primary', href: `/play/${encodeURIComponent(puzzle.id)}`,
        'aria-label': t('index.play-label', { tier: tierWord(puzzle.tier) }) }, t('index.play')),
      ' ',
      h('a', { class: 'button', href: `/leaderboard/${encodeURIComponent(puzzle.id)}`,
        'aria-label': t('index.leaderboard-label', { tier: tierWord(puzzle.tier) }) }, t('index.leaderboard'))));
}

function pastRow(puzzle) {
  const id = encodeURIComponent(puzzle.id);
  return h('li', { class: 'past-puzzle', 'data-puzzle': puzzle.id },
    h('span', { class: 'past-tier' }, tierName(puzzle.tier)),
    h('span', { class: 'past-par' }, t('index.past-par', { par: parText(puzzle.par) })),
    resultLine(puzzle),
    h('span', { class: 'past-links' },
      h('a', { href: `/play/${id}`, class: 'practice-link',
        'aria-label': t('index.practice-of', { id: puzzle.id }) }, t('index.practice')),
      ' · ',
      h('a', { href: `/replay?puzzle=${id}`, class: 'solution-link',
        'aria-label': t('index.solution-of', { id: puzzle.id }) }, t('index.solution')),
      ' · ',
      h('a', { href: `/leaderboard/${id}`, class: 'leaderboard-link',
        'aria-label': t('index.leaderboard-of', { id: puzzle.id }) }, t('index.leaderboard'))));
}

// Today's puzzles under way on a site's first start (503 publishing-today, docs/service.md):
// the page reloads itself this often until they are there, rather than leave the player a dead end.
const PUBLISHING_RETRY_MS = 10_000;

async function showToday(errorBox) {
  const section = document.getElementById('today');
  const list = document.getElementById('today-list');
  try {
    const day = await api('/v1/puzzles/daily/today');
    document.getElementById('today-title').textContent = t('index.today-date', { date: dayName(day.date) });
    list.replaceChildren(...day.puzzles.map(todayCard));
    return day.date;
  } catch (e) {
    showError(errorBox, e);
    if (e.code === 'publishing-today') { // a site's first start: today is being made, look again
      setTimeout(() => window.location.reload(), PUBLISHING_RETRY_MS);
    }
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
      box.append(h('p', {}, t('index.no-past')));
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
    line.textContent = t('index.record', {
      name, entries: tn('index.record-entries', rec.played), wins: tn('index.record-wins', rec.wins),
      days: tn('stats.days', rec.best_streak),
    });
  } catch (e) {
    line.textContent = t('index.record-error', { error: apiErrorText(e) });
  }
}

/** Free play's second link: a deal drawn here, the play page's own range (freeplay.js). */
function randomDealLink() {
  const link = document.getElementById('free-random');
  if (link) {
    link.href = `/play/deal/${Math.floor(Math.random() * 1_000_000) + 1}`;
  }
}

async function main() {
  randomDealLink();
  const errorBox = document.getElementById('error');
  try {
    renderStats(document.getElementById('stats'));
  } catch (e) {
    showError(errorBox, e);
  }
  const today = await showToday(errorBox);
  if (today !== null) { // the stats panel counts its streaks to the game day (gameday.js)
    await learnGameDay(today);
    try {
      renderStats(document.getElementById('stats'), undefined, gameDay());
    } catch (e) {
      showError(errorBox, e);
    }
  }
  await showServerRecord();
  if (today !== null) {
    await showPast(today, errorBox);
  }
  document.body.dataset.ready = 'true';
}

main();
