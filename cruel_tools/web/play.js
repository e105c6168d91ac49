// play.js: the play page, /play/{id} (docs/web.md "Playing a puzzle"). Every rule comes from
// cruel.js; this file only turns clicks, drags and keys into steps and shows what cruel.js says.

import { Recorder, REDEAL, move, stepText, cardSymbol, rulesOf, IllegalMove, readEntry } from './cruel.js';
import { renderBoard } from './board.js';
import { renderStats, recordGame } from './stats.js';

const $ = (id) => document.getElementById(id);
const puzzleId = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop());
const KEYS = {
  player: 'cruel.player',
  progress: `cruel.progress.${puzzleId}`,
  result: `cruel.result.${puzzleId}`,
};
// The keys that pick a target pile: 1-9, 0 for 10, - for 11, = for 12.
const PILE_KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '='];

const state = {
  puzzle: null,
  rec: null, // a Recorder at the current position: the game replayed from the deal
  steps: [], // the line that stands (undo pops)
  startedAt: null,
  finishedAt: null, // set once the game is recorded in cruel.games (won, or started over)
  attempt: null, // {id, player}: the server-timed attempt
  selected: null, // a pile whose card waits for the player to choose its target
  options: [], // the moves offered for it
  preview: false,
  highlight: null,
  restartArmed: false,
  drag: null,
  suppressClick: false,
};

// --- storage (never fatal: a browser may refuse storage) ------------------------------------

function load(key, fallback = null) {
  try {
    const text = localStorage.getItem(key);
    return text === null ? fallback : JSON.parse(text);
  } catch {
    return fallback;
  }
}

function store(key, value) {
  try {
    if (value === null) {
      localStorage.removeItem(key);
    } else {
      localStorage.setItem(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
  } catch {
    // storage full or refused: the game goes on, unsaved
  }
}

function playerName() {
  try {
    return localStorage.getItem(KEYS.player) || '';
  } catch {
    return '';
  }
}

/** An ISO 8601 time with the player's own offset, e.g. 2027-01-05T21:04:05+01:00. */
function localTime(date = new Date()) {
  const pad = (n) => String(Math.abs(n)).padStart(2, '0');
  const off = -date.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.trunc(off / 60))}:${pad(off % 60)}`;
}

function saveProgress() {
  const progress = { steps: state.steps.map(stepText), started_at: state.startedAt };
  if (state.attempt) {
    progress.attempt = state.attempt;
  }
  if (state.finishedAt) {
    progress.finished_at = state.finishedAt;
  }
  store(KEYS.progress, state.steps.length || state.attempt ? progress : null);
}

// --- the game --------------------------------------------------------------------------------

function newRecorder() {
  const deal = state.puzzle.deal;
  return new Recorder({
    number: deal.number ?? null,
    piles: deal.number === undefined || deal.number === null ? deal.piles : null,
    rules: state.puzzle.rules,
  });
}

function game() {
  return state.rec.game;
}

/** Replay `steps` from the deal; keeps the legal prefix. */
function replay(steps) {
  state.rec = newRecorder();
  state.steps = [];
  for (const step of steps) {
    try {
      state.rec.push(step);
    } catch {
      break;
    }
    state.steps.push(step);
  }
}

function gameLog() {
  const meta = {
    player: playerName() || null,
    puzzle: puzzleId,
    started_at: state.startedAt,
    finished_at: state.finishedAt ?? localTime(),
  };
  if (meta.player === null) {
    delete meta.player;
  }
  state.rec.meta = meta;
  return state.rec.log();
}

function say(text, kind = '') {
  const el = $('message');
  el.textContent = text;
  el.className = 'message' + (kind ? ` ${kind}` : '');
}

function describe(step, g) {
  if (step.type === 'redeal') {
    return `Redeal ${g.redeals + 1}: the piles are dealt again in packets of four`;
  }
  const src = g.piles[step.source - 1];
  const card = cardSymbol(src[src.length - (step.count ?? 1)]);
  if (step.target === null) {
    return `${card} from pile ${step.source} to the foundation`;
  }
  const onto = cardSymbol(g.top(step.target));
  const run = (step.count ?? 1) > 1 ? ` (${step.count} cards)` : '';
  return `${card}${run} from pile ${step.source} onto ${onto} on pile ${step.target}`;
}

/** Play a step: true when played; an illegal one changes nothing and says why. */
function play(step) {
  const g = game();
  let words;
  let moved = null;
  try {
    words = describe(step, g);
    if (step.type !== 'redeal') {
      const src = g.piles[step.source - 1];
      moved = src[src.length - (step.count ?? 1)] ?? null;
    }
  } catch {
    words = stepText(step);
  }
  try {
    state.rec.push(step);
  } catch (e) {
    if (e instanceof IllegalMove) {
      clearChoice();
      say(e.message, 'error');
      render();
      return false;
    }
    throw e;
  }
  state.steps.push(step);
  state.highlight = moved;
  state.restartArmed = false;
  clearChoice();
  if (state.startedAt === null) {
    state.startedAt = localTime();
  }
  if (state.steps.length === 1 && !state.attempt) {
    startAttempt();
  }
  const outcome = game().outcome();
  say(words + (outcome === 'won' ? '. You won!' : outcome === 'blocked' ? '. No move is left.' : ''),
    outcome === 'won' ? 'ok' : '');
  saveProgress();
  render();
  return true;
}

function undo() {
  if (!state.steps.length) {
    say('Nothing to undo', 'error');
    return;
  }
  const steps = state.steps.slice(0, -1);
  const last = state.steps.at(-1);
  replay(steps);
  state.highlight = null;
  state.restartArmed = false;
  clearChoice();
  saveProgress();
  say(`Undone: ${stepText(last)}. ${state.steps.length} step${state.steps.length === 1 ? '' : 's'} stand.`);
  render();
}

function redeal() {
  const problem = game().redealProblem();
  if (problem !== null) {
    clearChoice();
    say(`No redeal: ${problem.message}`, 'error');
    render();
    return;
  }
  play(REDEAL);
}

function restart() {
  if (!state.steps.length) {
    say('The game is at its deal already');
    return;
  }
  if (!state.restartArmed) {
    state.restartArmed = true;
    say('Press Start over again to start this puzzle over (this game then counts as played).');
    render();
    return;
  }
  if (!state.finishedAt) {
    state.finishedAt = localTime();
    recordGame(gameLog());
  }
  replay([]);
  state.startedAt = null;
  state.finishedAt = null;
  state.attempt = null;
  state.highlight = null;
  state.restartArmed = false;
  clearChoice();
  saveProgress();
  say('Started over: the deal again.');
  render();
  showStats();
}

function clearChoice() {
  state.selected = null;
  state.options = [];
}

/** A click, tap or Enter on pile n's top card. */
function activatePile(n) {
  if (state.selected !== null) {
    if (n === state.selected) {
      clearChoice();
      say('Choice cancelled');
      render();
      return;
    }
    const chosen = state.options.find((m) => m.target === n);
    if (chosen) {
      play(chosen);
      return;
    }
  }
  const g = game();
  if (!g.piles[n - 1].length) {
    say(`Pile ${n} is empty`, 'error');
    return;
  }
  const options = g.cardMoves().filter((m) => m.source === n);
  if (options.length === 1) {
    play(options[0]);
    return;
  }
  if (options.length === 0) {
    clearChoice();
    let why = `${cardSymbol(g.top(n))} from pile ${n} has no move`;
    try {
      g.copy().move(n, null);
    } catch (e) {
      why = `${e.message}, and no pile takes it`;
    }
    say(why, 'error');
    render();
    return;
  }
  state.selected = n;
  state.options = options;
  const card = cardSymbol(g.top(n));
  say(`${card} can go to ${options.length} places: ${options.map(optionWords).join(' or ')}. Choose one, or press Esc.`);
  render();
}

function targetKey(target) {
  return target === null ? 'F' : PILE_KEYS[target - 1];
}

function optionWords(m) {
  if (m.target === null) {
    return `the foundation (key F)`;
  }
  return `onto ${cardSymbol(game().top(m.target))} on pile ${m.target} (key ${targetKey(m.target)})`;
}

/** Move the selected or focused pile's card to `target` (null: the foundation). */
function moveTo(target) {
  const source = state.selected ?? focusedPile();
  if (source === null) {
    say('Choose a pile first: arrow keys or Tab, then F or the key of a pile', 'error');
    return;
  }
  const offered = state.options.find((m) => m.target === target) ??
    game().cardMoves().find((m) => m.source === source && m.target === target);
  play(offered ?? move(source, target));
}

// --- drawing ---------------------------------------------------------------------------------

function focusedPile() {
  const el = document.activeElement;
  if (!el || !$('board').contains(el)) {
    return null;
  }
  const pile = el.closest('[data-pile]');
  return pile ? Number(pile.dataset.pile) : null;
}

function focusPile(n) {
  const btn = $('board').querySelector(`li[data-pile="${n}"] button.card`);
  if (btn) {
    btn.focus();
  }
  return Boolean(btn);
}

function render() {
  const g = game();
  const keepFocus = focusedPile();
  const targets = state.options.map((m) => m.target ?? 'foundation');
  const keys = {};
  for (const m of state.options) {
    keys[m.target ?? 'foundation'] = targetKey(m.target);
  }
  renderBoard($('board'), g, {
    interactive: true, highlight: state.highlight, selected: state.selected, targets,
    targetKeys: keys, label: `Puzzle ${puzzleId}`, idPrefix: 'play',
  });
  if (keepFocus !== null && !focusPile(keepFocus)) {
    for (let k = 1; k <= 12; k++) {
      if (focusPile(((keepFocus - 1 + k) % 12) + 1)) {
        break;
      }
    }
  }
  $('moves').textContent = String(g.moves);
  $('redeals').textContent = String(g.redeals);
  $('actions').textContent = String(g.moves + g.redeals);
  $('foundation-cards').textContent = String(g.foundationCards);
  const problem = g.redealProblem();
  $('redeal-note').textContent = problem ? `Redeal not allowed: ${problem.message}` : '';
  $('redeal').classList.toggle('unavailable', problem !== null); // still clickable: it says why
  $('undo').disabled = !state.steps.length;
  $('restart').textContent = state.restartArmed ? 'Really start over?' : 'Start over';
  $('preview').setAttribute('aria-pressed', String(state.preview));
  $('preview-wrap').hidden = !state.preview;
  if (state.preview) {
    renderBoard($('preview-board'), { piles: g.redealPreview(), foundations: g.foundations }, {
      label: 'The piles after a redeal', compact: true, idPrefix: 'preview',
    });
  }
  renderChoice();
  renderEnd();
}

function renderChoice() {
  const box = $('choice');
  box.replaceChildren();
  box.hidden = state.selected === null;
  if (state.selected === null) {
    return;
  }
  const label = document.createElement('span');
  label.textContent = `Move ${cardSymbol(game().top(state.selected))}:`;
  box.append(label);
  for (const m of state.options) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.choice = m.target === null ? 'foundation' : String(m.target);
    b.textContent = m.target === null ? 'To the foundation (F)'
      : `Onto ${cardSymbol(game().top(m.target))}, pile ${m.target} (${targetKey(m.target)})`;
    b.addEventListener('click', () => play(m));
    box.append(b);
  }
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.textContent = 'Cancel (Esc)';
  cancel.addEventListener('click', () => {
    clearChoice();
    render();
  });
  box.append(cancel);
}

function versusWords(gap) {
  if (gap > 0) {
    return `${gap} over par`;
  }
  return gap < 0 ? `${-gap} under par` : 'at par';
}

function endButton(text, handler) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', handler);
  return b;
}

function renderEnd() {
  const g = game();
  const outcome = g.outcome();
  const end = $('end');
  const actions = $('end-actions');
  actions.replaceChildren();
  if (outcome === 'in_progress') {
    end.hidden = true;
    return;
  }
  end.hidden = false;
  const par = state.puzzle.par?.actions;
  if (outcome === 'won') {
    if (!state.finishedAt) {
      state.finishedAt = localTime();
      recordGame(gameLog());
      saveProgress();
      showStats();
    }
    $('end-title').textContent = 'You won!';
    const n = g.moves + g.redeals;
    $('end-text').textContent = `${n} actions (${g.moves} moves, ${g.redeals} redeals)` +
      (par ? `: par is ${par}, you are ${versusWords(n - par)}.` : '.');
    const result = load(KEYS.result);
    $('submit-form').hidden = Boolean(result && result.accepted);
    if (result) {
      showResult(result);
    } else {
      $('result').replaceChildren();
    }
    const name = $('player-name');
    if (!name.value) {
      name.value = playerName();
    }
  } else {
    $('end-title').textContent = 'No move is left';
    $('end-text').textContent = 'No card can move, and a redeal would change nothing: this game ' +
      'is lost. Undo to go back and try another line, or start over.';
    $('submit-form').hidden = true;
    $('result').replaceChildren();
    actions.append(endButton('Undo', undo));
  }
  actions.append(endButton(state.restartArmed ? 'Really start over?' : 'Start over', restart));
}

function showResult(result) {
  const box = $('result');
  const p = document.createElement('p');
  const link = document.createElement('a');
  link.href = `/leaderboard/${encodeURIComponent(puzzleId)}`;
  link.textContent = 'See the leaderboard';
  if (result.accepted) {
    p.className = 'ok';
    const optimal = result.optimal ? ' (optimal)' : '';
    p.textContent = `${result.duplicate ? 'Already on the leaderboard' : 'Accepted'}: ` +
      `rank ${result.rank ?? '–'} for ${result.player}, ${result.actions} actions, ` +
      `${versusWords(result.versus_par)}${result.versus_par <= 0 ? optimal : ''}` +
      (result.elapsed_ms !== null && result.elapsed_ms !== undefined
        ? `, server time ${(result.elapsed_ms / 1000).toFixed(1)} s` : '') + '. ';
    p.dataset.verdict = 'accepted';
  } else {
    p.className = 'error';
    p.textContent = `Not accepted: ${result.reason?.message ?? 'rejected'}. `;
    p.dataset.verdict = 'rejected';
  }
  p.append(link);
  box.replaceChildren(p);
}

// --- the service -----------------------------------------------------------------------------

async function api(path, body) {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = { message: `${res.status} ${res.statusText}` };
  }
  return { ok: res.ok, status: res.status, data };
}

/** A server-timed attempt, started at the first move when the player's name is known. */
async function startAttempt() {
  const player = playerName();
  if (!player) {
    return;
  }
  try {
    const { ok, data } = await api(`/v1/puzzles/${encodeURIComponent(puzzleId)}/attempts`,
      { format: 'cruel-attempt/1', player });
    if (ok && data.attempt && state.steps.length) {
      state.attempt = { id: data.attempt, player };
      saveProgress();
    }
  } catch {
    // no attempt: the win is submitted without one
  }
}

async function submit(event) {
  event.preventDefault();
  const player = $('player-name').value.trim();
  if (!player) {
    $('player-name').focus();
    return;
  }
  store(KEYS.player, player);
  const button = $('submit');
  button.disabled = true;
  $('result').textContent = 'Submitting…';
  const body = { player, log: gameLog() };
  const path = `/v1/puzzles/${encodeURIComponent(puzzleId)}/submissions`;
  try {
    let answer;
    if (state.attempt && state.attempt.player === player) {
      answer = await api(path, { ...body, attempt: state.attempt.id });
      if (answer.ok && !answer.data.accepted && answer.data.reason?.code === 'bad-attempt') {
        answer = await api(path, body);
      }
    } else {
      answer = await api(path, body);
    }
    if (!answer.ok) {
      const p = document.createElement('p');
      p.className = 'error';
      p.dataset.verdict = 'error';
      p.textContent = answer.data?.message ?? `the service answered ${answer.status}`;
      $('result').replaceChildren(p);
    } else {
      if (answer.data.accepted) {
        store(KEYS.result, answer.data);
        $('submit-form').hidden = true;
      }
      showResult(answer.data);
      say(answer.data.accepted ? `Submitted: rank ${answer.data.rank}` : 'Not accepted', answer.data.accepted ? 'ok' : 'error');
    }
  } catch (e) {
    $('result').textContent = `Could not reach the service: ${e.message}`;
  } finally {
    button.disabled = false;
  }
}

// --- input -----------------------------------------------------------------------------------

function onBoardClick(event) {
  if (state.suppressClick) {
    state.suppressClick = false;
    return;
  }
  const card = event.target.closest('button.card');
  if (!card) {
    return;
  }
  if (card.dataset.target === 'foundation') {
    if (state.selected !== null) {
      moveTo(null);
    } else {
      say('Choose a card first, then its foundation', 'error');
    }
    return;
  }
  activatePile(Number(card.dataset.pile));
}

function dropTarget(x, y) {
  const el = document.elementFromPoint(x, y);
  if (!el) {
    return undefined;
  }
  if (el.closest('.foundations')) {
    return null;
  }
  const pile = el.closest('li[data-pile]');
  return pile && $('board').contains(pile) ? Number(pile.dataset.pile) : undefined;
}

function onPointerDown(event) {
  const card = event.target.closest('button.card[data-pile]');
  if (!card || event.button !== 0) {
    return;
  }
  state.drag = { source: Number(card.dataset.pile), x: event.clientX, y: event.clientY, card, ghost: null, id: event.pointerId };
}

function onPointerMove(event) {
  const d = state.drag;
  if (!d || event.pointerId !== d.id) {
    return;
  }
  if (!d.ghost) {
    if (Math.hypot(event.clientX - d.x, event.clientY - d.y) < 8) {
      return;
    }
    const rect = d.card.getBoundingClientRect();
    d.ghost = d.card.cloneNode(true);
    d.ghost.classList.add('drag-ghost');
    d.ghost.removeAttribute('id');
    d.ghost.setAttribute('aria-hidden', 'true');
    d.ghost.style.width = `${rect.width}px`;
    d.dx = d.x - rect.left;
    d.dy = d.y - rect.top;
    d.card.classList.add('dragging');
    document.body.append(d.ghost);
  }
  d.ghost.style.left = `${event.clientX - d.dx}px`;
  d.ghost.style.top = `${event.clientY - d.dy}px`;
  event.preventDefault();
}

function endDrag(event, drop) {
  const d = state.drag;
  if (!d || event.pointerId !== d.id) {
    return;
  }
  state.drag = null;
  if (!d.ghost) {
    return; // a click: the click handler plays it
  }
  d.ghost.remove();
  d.card.classList.remove('dragging');
  state.suppressClick = true;
  setTimeout(() => {
    state.suppressClick = false;
  }, 0);
  if (!drop) {
    return;
  }
  const target = dropTarget(event.clientX, event.clientY);
  if (target === undefined || target === d.source) {
    say('Dropped on no pile: nothing moved');
    return;
  }
  state.selected = null;
  state.options = [];
  const offered = game().cardMoves().find((m) => m.source === d.source && m.target === target);
  play(offered ?? move(d.source, target));
}

function arrow(key) {
  const from = focusedPile() ?? state.selected ?? 0;
  const cols = getComputedStyle($('board').querySelector('.piles')).gridTemplateColumns.split(' ').length;
  const delta = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols }[key];
  let n = from === 0 ? (delta > 0 ? 0 : 13) : from;
  for (let k = 0; k < 12; k++) {
    n += delta;
    if (n < 1) {
      n += 12;
    }
    if (n > 12) {
      n -= 12;
    }
    if (focusPile(n)) {
      return;
    }
  }
}

function onKey(event) {
  if (!state.rec || event.altKey || event.metaKey) {
    return;
  }
  const t = event.target;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) {
    return;
  }
  const key = event.key;
  if (event.ctrlKey) {
    if (key === 'z' || key === 'Z') {
      event.preventDefault();
      undo();
    }
    return;
  }
  if (key.startsWith('Arrow')) {
    event.preventDefault();
    arrow(key);
  } else if (key === 'Home' || key === 'End') {
    event.preventDefault();
    const order = key === 'Home' ? [...Array(12).keys()].map((i) => i + 1) : [...Array(12).keys()].map((i) => 12 - i);
    order.some(focusPile);
  } else if (key === 'f' || key === 'F') {
    event.preventDefault();
    moveTo(null);
  } else if (PILE_KEYS.includes(key)) {
    event.preventDefault();
    moveTo(PILE_KEYS.indexOf(key) + 1);
  } else if (key === 'r' || key === 'R') {
    event.preventDefault();
    redeal();
  } else if (key === 'u' || key === 'U') {
    event.preventDefault();
    undo();
  } else if (key === 'p' || key === 'P') {
    event.preventDefault();
    togglePreview();
  } else if (key === 'Escape') {
    if (state.selected !== null) {
      clearChoice();
      say('Choice cancelled');
      render();
    }
  } else if (key === '?') {
    event.preventDefault();
    $('help').open = true;
    $('help').querySelector('summary').focus();
  }
}

function togglePreview() {
  state.preview = !state.preview;
  say(state.preview ? 'Redeal preview shown below the board' : 'Redeal preview hidden');
  render();
}

function showStats() {
  renderStats($('stats'));
}

function rulesWords(spec) {
  const r = rulesOf(spec);
  const parts = [`Rules: ${r.preset}`];
  parts.push(r.run_moves ? 'runs of one suit move together' : 'one card moves at a time');
  parts.push(r.max_redeals === null ? 'unlimited redeals' : `at most ${r.max_redeals} redeal${r.max_redeals === 1 ? '' : 's'}`);
  if (r.redeal_only_when_stuck) {
    parts.push('a redeal only when no card can move');
  }
  return parts.join(', ') + '.';
}

// --- start -----------------------------------------------------------------------------------

async function start() {
  $('leaderboard-link').href = `/leaderboard/${encodeURIComponent(puzzleId)}`;
  let answer;
  try {
    answer = await api(`/v1/puzzles/${encodeURIComponent(puzzleId)}`);
  } catch (e) {
    say(`Could not reach the service: ${e.message}`, 'error');
    return;
  }
  if (!answer.ok) {
    $('title').textContent = 'Cruel: no such puzzle';
    say(answer.data?.message ?? `the service answered ${answer.status}`, 'error');
    $('message').dataset.code = answer.data?.code ?? '';
    return;
  }
  const puzzle = answer.data;
  state.puzzle = puzzle;
  document.title = `Cruel ${puzzle.id}`;
  $('title').textContent = `Cruel · ${puzzle.date} · ${puzzle.tier}`;
  $('puzzle-meta').textContent = `Puzzle ${puzzle.id}, par ${puzzle.par?.actions ?? '?'} actions`;
  $('par').textContent = String(puzzle.par?.actions ?? '?');
  $('rules-text').textContent = rulesWords(puzzle.rules);

  const saved = load(KEYS.progress);
  let steps = [];
  if (saved && Array.isArray(saved.steps)) {
    try {
      steps = saved.steps.map(readEntry);
    } catch {
      steps = [];
    }
    state.startedAt = typeof saved.started_at === 'string' ? saved.started_at : null;
    state.finishedAt = typeof saved.finished_at === 'string' ? saved.finished_at : null;
    state.attempt = saved.attempt && typeof saved.attempt.id === 'string' ? saved.attempt : null;
  }
  replay(steps);

  const board = $('board');
  board.addEventListener('click', onBoardClick);
  board.addEventListener('pointerdown', onPointerDown);
  window.addEventListener('pointermove', onPointerMove, { passive: false });
  window.addEventListener('pointerup', (e) => endDrag(e, true));
  window.addEventListener('pointercancel', (e) => endDrag(e, false));
  document.addEventListener('keydown', onKey);
  $('redeal').addEventListener('click', redeal);
  $('undo').addEventListener('click', undo);
  $('preview').addEventListener('click', togglePreview);
  $('restart').addEventListener('click', restart);
  $('submit-form').addEventListener('submit', submit);

  $('game').hidden = false;
  render();
  say(state.steps.length
    ? `Your game is restored: ${state.steps.length} step${state.steps.length === 1 ? '' : 's'} played.`
    : 'Click or tap a top card to move it; drag it; or use the keyboard (press ? for the keys).');
  board.dataset.ready = 'true';
  performance.mark('board-ready');
  showStats();
}

start();
