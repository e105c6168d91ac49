/**
 * The leaderboard page (/leaderboard/ID): the puzzle's tier, date and par, its entries (ranked
 * by actions or by server time, each player's best (the default) or every entry, a page at a
 * time) and, once the puzzle is closed, a replay of each entry and of the published solution.
 * The options live in the URL (?by=time&all=1&limit=25&offset=25).
 */
import {
  api, dayName, duration, h, isClosed, parText, serviceToday, showError, tierName, when,
} from '/static/site.js';
import { t, tn } from '/static/i18n.js';
import { learnGameDay, onGameDay } from '/static/gameday.js';

const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.replace(/^\/leaderboard\//, ''));
const enc = encodeURIComponent(id);
const LIMITS = ['10', '25', '50', '100'];

let closed = false;
const state = readState();

function readState() {
  const q = new URLSearchParams(location.search);
  const limit = LIMITS.includes(q.get('limit')) ? Number(q.get('limit')) : 25;
  const offset = Math.max(0, Number.parseInt(q.get('offset') ?? '0', 10) || 0);
  return {
    by: q.get('by') === 'time' ? 'time' : 'actions',
    // Each player's best entry unless every entry is asked for: one name's many games do not
    // fill the board (issue #24).
    best: q.get('all') !== '1',
    limit,
    offset: offset - (offset % limit),
  };
}

function writeState() {
  const q = new URLSearchParams();
  if (state.by !== 'actions') q.set('by', state.by);
  if (!state.best) q.set('all', '1');
  if (state.limit !== 25) q.set('limit', String(state.limit));
  if (state.offset) q.set('offset', String(state.offset));
  const search = q.toString();
  history.replaceState(null, '', location.pathname + (search ? `?${search}` : ''));
}

function showPuzzle(puzzle, today) {
  closed = isClosed(puzzle, today);
  document.title = t('lb.doc-title-of', { id: puzzle.id });
  $('title').textContent = t('lb.heading-puzzle', { tier: tierName(puzzle.tier), date: puzzle.date ?? puzzle.id });
  $('meta').replaceChildren(
    h('li', {}, h('span', { class: 'label' }, t('lb.label-puzzle')), puzzle.id),
    puzzle.date ? h('li', {}, h('span', { class: 'label' }, t('lb.label-date')), dayName(puzzle.date)) : null,
    h('li', {}, h('span', { class: 'label' }, t('lb.label-tier')), tierName(puzzle.tier)),
    h('li', {}, h('span', { class: 'label' }, t('lb.label-par')), parText(puzzle.par)));
  if (closed) {
    $('links').replaceChildren(t('lb.closed'),
      h('a', { href: `/replay?puzzle=${enc}`, id: 'solution-link' }, t('lb.replay-solution')), '.');
  } else {
    const opens = puzzle.solution_from
      ? t('lb.open-until', { date: dayName(puzzle.solution_from) })
      : t('lb.open');
    $('links').replaceChildren(opens,
      h('a', { href: `/play/${enc}`, id: 'play-link' }, t('lb.play')), '.');
  }
}

function row(entry, showTime) {
  const replay = closed
    ? h('a', { href: `/replay?puzzle=${enc}&entry=${entry.submission_id}`, class: 'replay-link',
      'aria-label': t('lb.replay-label', { player: entry.player, id: entry.submission_id }) }, t('lb.replay'))
    : h('span', { class: 'muted' }, t('lb.after-close'));
  return h('tr', { 'data-submission': entry.submission_id },
    h('td', { class: 'num rank' }, entry.rank),
    h('td', { class: 'player' }, entry.player),
    h('td', { class: 'num actions' }, entry.actions),
    h('td', { class: 'num wide-only moves' }, entry.moves),
    h('td', { class: 'num wide-only redeals' }, entry.redeals),
    showTime ? h('td', { class: 'num time' }, entry.elapsed_ms == null ? '—' : duration(entry.elapsed_ms)) : null,
    h('td', { class: 'wide-only submitted' },
      // on the game day of a demo (gameday.js): the entry was sent on the puzzle's day
      h('time', { datetime: entry.submitted_at }, when(onGameDay(entry.submitted_at)))),
    h('td', { class: 'replay' }, replay));
}

async function loadEntries() {
  const q = new URLSearchParams({
    limit: String(state.limit), offset: String(state.offset),
    best_per_player: String(state.best), by: state.by,
  });
  $('board-section').setAttribute('aria-busy', 'true');
  try {
    const board = await api(`/v1/puzzles/${enc}/leaderboard?${q}`);
    const showTime = state.by === 'time' || board.entries.some((e) => e.elapsed_ms != null);
    document.querySelector('th.time-col').hidden = !showTime;
    $('rows').replaceChildren(...board.entries.map((e) => row(e, showTime)));
    $('entries').hidden = board.entries.length === 0;
    const first = board.total === 0 ? 0 : board.offset + 1;
    const last = board.offset + board.entries.length;
    const kind = state.best ? 'players' : 'entries';
    $('status').textContent = board.total === 0
      ? t(`lb.none-${kind}${state.by === 'time' ? '-time' : ''}`)
      : t('lb.status', {
        count: tn(state.best ? 'lb.players' : 'lb.entries-count', board.total),
        by: t(state.by === 'time' ? 'lb.by-time-short' : 'lb.by-actions'),
      });
    $('page-info').textContent = board.total ? t('lb.page-info', { first, last, total: board.total }) : '';
    $('prev').disabled = state.offset === 0;
    $('next').disabled = last >= board.total;
    $('entries').dataset.loaded = `${state.by}:${state.best}:${state.offset}:${state.limit}`;
  } catch (e) {
    showError($('error'), e);
  } finally {
    $('board-section').setAttribute('aria-busy', 'false');
  }
}

function wire() {
  $('all').checked = !state.best;
  $('by').value = state.by;
  $('limit').value = String(state.limit);
  $('options').addEventListener('submit', (e) => e.preventDefault());
  $('options').addEventListener('change', () => {
    state.best = !$('all').checked;
    state.by = $('by').value === 'time' ? 'time' : 'actions';
    state.limit = Number($('limit').value);
    state.offset = 0;
    writeState();
    loadEntries();
  });
  $('prev').addEventListener('click', () => {
    state.offset = Math.max(0, state.offset - state.limit);
    writeState();
    loadEntries();
  });
  $('next').addEventListener('click', () => {
    state.offset += state.limit;
    writeState();
    loadEntries();
  });
}

async function main() {
  wire();
  try {
    const [puzzle, today] = await Promise.all([api(`/v1/puzzles/${enc}`), serviceToday()]);
    await learnGameDay(today);
    showPuzzle(puzzle, today);
    $('board-section').hidden = false;
    await loadEntries();
  } catch (e) {
    $('title').textContent = t('lb.heading-of', { id });
    showError($('error'), e);
  }
  document.body.dataset.ready = 'true';
}

main();
