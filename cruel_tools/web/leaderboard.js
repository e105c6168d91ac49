/**
 * The leaderboard page (/leaderboard/ID): the puzzle's tier, date and par, its entries (ranked
 * by actions or by server time, each player's best (the default) or every entry, a page at a
 * time) and, once the puzzle is closed, a replay of each entry and of the published solution.
 * The options live in the URL (?by=time&all=1&limit=25&offset=25).
 */
import {
  api, dayName, duration, h, isClosed, parText, serviceToday, showError, tierName, when,
} from '/static/site.js';

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
  document.title = `Leaderboard of ${puzzle.id}: Cruel`;
  $('title').textContent = `Leaderboard: ${tierName(puzzle.tier)} puzzle of ${puzzle.date ?? puzzle.id}`;
  $('meta').replaceChildren(
    h('li', {}, h('span', { class: 'label' }, 'Puzzle: '), puzzle.id),
    puzzle.date ? h('li', {}, h('span', { class: 'label' }, 'Date: '), dayName(puzzle.date)) : null,
    h('li', {}, h('span', { class: 'label' }, 'Tier: '), tierName(puzzle.tier)),
    h('li', {}, h('span', { class: 'label' }, 'Par: '), parText(puzzle.par)));
  if (closed) {
    $('links').replaceChildren('Closed: its solution and every entry’s game can be replayed. ',
      h('a', { href: `/replay?puzzle=${enc}`, id: 'solution-link' }, 'Replay the par solution'), '.');
  } else {
    const opens = puzzle.solution_from
      ? `Open: entries’ games and the solution are shown once it closes, on ${dayName(puzzle.solution_from)}. `
      : 'Open. ';
    $('links').replaceChildren(opens,
      h('a', { href: `/play/${enc}`, id: 'play-link' }, 'Play this puzzle'), '.');
  }
}

function row(entry, showTime) {
  const replay = closed
    ? h('a', { href: `/replay?puzzle=${enc}&entry=${entry.submission_id}`, class: 'replay-link',
      'aria-label': `Replay ${entry.player}'s game (entry ${entry.submission_id})` }, 'Replay')
    : h('span', { class: 'muted' }, 'after close');
  return h('tr', { 'data-submission': entry.submission_id },
    h('td', { class: 'num rank' }, entry.rank),
    h('td', { class: 'player' }, entry.player),
    h('td', { class: 'num actions' }, entry.actions),
    h('td', { class: 'num wide-only moves' }, entry.moves),
    h('td', { class: 'num wide-only redeals' }, entry.redeals),
    showTime ? h('td', { class: 'num time' }, entry.elapsed_ms == null ? '—' : duration(entry.elapsed_ms)) : null,
    h('td', { class: 'wide-only submitted' },
      h('time', { datetime: entry.submitted_at }, when(entry.submitted_at))),
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
      ? `No ${kind} yet${state.by === 'time' ? ' with a server time' : ''}.`
      : `${board.total} ${board.total === 1 ? (state.best ? 'player' : 'entry') : kind}, `
        + `ranked by ${state.by === 'time' ? 'time' : 'fewest actions'}.`;
    $('page-info').textContent = board.total ? `${first}–${last} of ${board.total}` : '';
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
    showPuzzle(puzzle, today);
    $('board-section').hidden = false;
    await loadEntries();
  } catch (e) {
    $('title').textContent = `Leaderboard of ${id}`;
    showError($('error'), e);
  }
  document.body.dataset.ready = 'true';
}

main();
