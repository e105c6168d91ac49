/**
 * The replay page (/replay): any log, step by step, in the words of `cruel replay`.
 *
 * - `/replay?puzzle=ID`: the puzzle's published solution (GET /v1/puzzles/ID/solution);
 * - `/replay?puzzle=ID&entry=SID`: a leaderboard entry, once the puzzle is closed
 *   (GET /v1/puzzles/ID/submissions/SID/log; the service's 403 message otherwise);
 * - a log pasted, chosen or dropped by the user.
 * `&step=N` opens at step N. The service replays the log (POST /v1/replay: each step's words
 * and the position after it, and the first illegal step); the deal, step 0, comes from cruel.js.
 */
import { Game, SUITS, cardName, readLog } from '/static/cruel.js';
import { renderBoard } from '/static/board.js';
import { api, clearError, h, parText, showError } from '/static/site.js';

const $ = (id) => document.getElementById(id);

/**
 * The replay being shown.
 * @type {{log: string|object, doc: any, stops: Array<{text: string, position: any, moved: any, error?: any}>}|null}
 */
let replay = null;
let current = 0;
let timer = null;
let keepStepInUrl = false;
const ANALYSIS_HINT = 'Where was a lost game lost; how far is a win from the best?';

// --- reading a log --------------------------------------------------------------------------

/**
 * The log as cruel.js reads it (readLog: the rules, the deal's piles, the steps), or null when it
 * cannot be read; the service, which reads it the same way, then says why.
 */
function readOrNull(log) {
  try {
    return readLog(log);
  } catch {
    return null;
  }
}

/** The deal's position (step 0), from the log through cruel.js. */
function startPosition(read) {
  return positionOf(new Game(read.deal.piles, read.rules));
}

function positionOf(game) {
  const foundations = {};
  [...SUITS].forEach((s, i) => { foundations[s] = game.foundations[i]; });
  return { piles: game.piles.map((p) => p.map(cardName)), foundations };
}

/**
 * What a card move moved, from the position before and after it: the deepest moving card,
 * where it went (a pile and the index it lands at, or its foundation) and how many cards.
 */
function movedBetween(before, after) {
  const src = before.piles.findIndex((p, i) => after.piles[i].length < p.length);
  if (src < 0) {
    return null;
  }
  const from = before.piles[src];
  const count = from.length - after.piles[src].length;
  const card = from[after.piles[src].length];
  const tgt = after.piles.findIndex((p, i) => p.length > before.piles[i].length);
  if (tgt >= 0) {
    return { card, count, from: src + 1, pile: tgt + 1, index: before.piles[tgt].length };
  }
  return { card, count, from: src + 1, foundation: card.slice(-1) };
}

/** The stops of a replay: step 0 (the deal), each played step, and the illegal one if any. */
function stopsOf(log, doc) {
  const stops = [];
  const read = readOrNull(log);
  const start = read === null ? null : startPosition(read);
  stops.push({ text: 'The deal', position: start, moved: null });
  doc.steps.forEach((step, i) => {
    const before = stops[stops.length - 1].position;
    const played = read === null ? undefined : read.steps[(step.step ?? i + 1) - 1];
    const redeal = played === undefined || played.type === 'redeal';
    const moved = redeal || before === null ? null : movedBetween(before, step.position);
    stops.push({ text: step.text, position: step.position, moved, step: step.step ?? i + 1 });
  });
  if (doc.error && doc.error.index != null) {
    const last = stops[stops.length - 1];
    stops.push({
      text: `error: ${doc.error.message} [${doc.error.code}]`,
      position: last.position,
      moved: null,
      step: doc.error.index + 1,
      error: doc.error,
    });
  }
  return stops;
}

// --- showing it -----------------------------------------------------------------------------

function summaryText(doc) {
  if (doc.outcome == null) {
    return 'This log cannot be played.';
  }
  const outcome = doc.outcome.replace('_', ' ');
  const actions = doc.moves + doc.redeals;
  const words = `${doc.foundation_cards} foundation cards, ${doc.moves} moves, ${doc.redeals} redeals (${actions} actions)`;
  const validity = doc.error ? 'Not valid' : 'Valid';
  return `${validity}. Result: ${outcome}, ${words}.`;
}

function renderSteps() {
  const list = $('steps');
  list.replaceChildren(...replay.stops.map((stop, i) => {
    const label = i === 0 ? '0' : String(stop.step);
    const button = h('button', { type: 'button', 'data-stop': i, tabindex: '-1' },
      h('span', { class: 'step-no' }, `${label}.`), ' ',
      h('span', { class: 'step-text' }, stop.text));
    // The place for issue #16's analysis marks (!! losing step, ++ costly step).
    const marks = h('span', { class: 'marks', 'data-step': label });
    return h('li', { class: stop.error ? 'step-error' : null, 'data-stop': i, 'data-step-no': label },
      button, marks);
  }));
}

function setUrlStep() {
  if (!keepStepInUrl) {
    return;
  }
  const url = new URL(location.href);
  url.searchParams.set('step', String(current));
  history.replaceState(null, '', url);
}

function show(index) {
  if (replay === null) {
    return;
  }
  const last = replay.stops.length - 1;
  current = Math.max(0, Math.min(index, last));
  const stop = replay.stops[current];
  const now = $('step-now');
  now.classList.toggle('error', Boolean(stop.error));
  now.replaceChildren(
    h('span', { class: 'step-label' }, current === 0 ? 'Step 0: ' : `Step ${stop.step}: `),
    h('span', { id: 'step-text', class: 'step-text' }, stop.text));
  $('scrubber').value = String(current);
  $('scrubber').setAttribute('aria-valuetext', `step ${current} of ${last}`);
  $('counter').textContent = `${current} / ${last}`;
  $('jump').value = String(current);
  $('board').dataset.step = String(current);
  if (stop.position) {
    renderBoard($('board'), stop.position, {
      highlight: stop.moved ? stop.moved.card : null,
      label: `Position after step ${current}`,
      idPrefix: 'replay',
    });
  }
  for (const li of $('steps').children) {
    if (Number(li.dataset.stop) === current) {
      li.setAttribute('aria-current', 'step');
      const list = $('steps');
      const top = li.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top + li.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    } else {
      li.removeAttribute('aria-current');
    }
  }
  $('back').disabled = current === 0;
  $('first').disabled = current === 0;
  $('forward').disabled = current === last;
  $('last').disabled = current === last;
  if (current === last) {
    pause();
  }
  setUrlStep();
}

function play() {
  if (replay === null) {
    return;
  }
  if (current >= replay.stops.length - 1) {
    show(0);
  }
  clearInterval(timer);
  timer = setInterval(() => show(current + 1), Number($('speed').value));
  $('play').textContent = 'Pause';
}

function pause() {
  clearInterval(timer);
  timer = null;
  $('play').textContent = '▶ Play';
}

function toggle() {
  if (timer === null) {
    play();
  } else {
    pause();
  }
}

/** Replay a log: ask the service for its steps and show them, at `step`. */
async function start(log, rawText, { title, source, step = 0, inUrl = false }) {
  // `log`: an object (a puzzle's solution, an entry), or null and `rawText` the user's text
  pause();
  clearError($('error'));
  const doc = await api('/v1/replay', rawText !== null ? { method: 'POST', raw: rawText }
    : { method: 'POST', body: log });
  replay = { log: log ?? rawText, doc, stops: stopsOf(log ?? rawText, doc) };
  keepStepInUrl = inUrl;
  $('title').textContent = title;
  $('source').replaceChildren(...source);
  $('summary').textContent = summaryText(doc);
  if (doc.error) {
    const where = doc.error.index != null ? `step ${doc.error.index + 1}` : doc.error.path;
    showError($('error'), `${where}: ${doc.error.message} [${doc.error.code}]`);
    $('error').dataset.step = doc.error.index != null ? String(doc.error.index + 1) : '';
  }
  if (replay.stops[0].position === null && doc.outcome === null && !doc.error) {
    showError($('error'), 'the deal of this log cannot be played');
  }
  const last = replay.stops.length - 1;
  $('scrubber').max = String(last);
  $('jump').max = String(last);
  renderSteps();
  // An illegal log cannot be analysed (the service would say so): the button is for games.
  $('analyze').disabled = Boolean(doc.error) || doc.outcome === null;
  $('analysis').textContent = doc.error ? 'Only a legal game can be analysed.' : ANALYSIS_HINT;
  $('player').hidden = false;
  document.body.dataset.ready = 'true';
  show(Number.isFinite(step) ? step : 0);
}

// --- analysis (issue #16: POST /v1/analyze) ------------------------------------------------

/** Put a mark (`!!`, `??`, `++`) beside step `n` of the list, with its meaning. */
function mark(n, symbol, meaning) {
  const li = $('steps').querySelector(`li[data-step-no="${n}"]`);
  if (li) {
    const marks = li.querySelector('.marks');
    marks.textContent = symbol;
    marks.title = meaning;
    marks.setAttribute('aria-label', meaning);
    li.classList.add(`mark-${symbol === '!!' ? 'loss' : symbol === '??' ? 'undecided' : 'costly'}`);
  }
}

/** The analysis in words, and its marks on the steps. */
function showAnalysis(a) {
  const out = [];
  if (a.loss) {
    const loss = a.loss;
    if (loss.status === 'lost-at-step' && loss.losing_step) {
      const step = loss.losing_step;
      mark(step.number, '!!', 'the losing step');
      const wins = loss.alternatives.filter((alt) => alt.verdict === 'won').length;
      const others = loss.alternatives.length;
      // The step in the words of cruel replay, as the list shows it.
      const words = replay.stops[step.number]?.text ?? step.words;
      out.push(`!! Lost at step ${step.number} (${words}): the game could still be won before it, not after.`);
      if (loss.reason) {
        out.push(`After it: ${loss.reason}.`);
      }
      out.push(others === 0 ? 'There was no other step.'
        : `${wins} of the ${others} other step${others === 1 ? '' : 's'} there still win${wins === 1 ? 's' : ''}.`);
    } else if (loss.status === 'lost-from-start') {
      out.push('No win from the deal: this game was lost from the start.');
    } else if (loss.status === 'still-winnable') {
      out.push('Not lost: the last position can still be won.');
    } else {
      const first = loss.first_step == null ? 0 : loss.first_step + 1;
      const last = loss.last_step == null ? first : loss.last_step + 1;
      for (let n = Math.max(1, first); n <= last; n++) {
        mark(n, '??', 'the losing step may be this one (undecided)');
      }
      out.push(`?? The losing step lies between ${first ? `step ${first}` : 'the deal'} and step ${last}: the solver could not narrow it within its budget.`);
    }
  } else if (a.win) {
    const win = a.win;
    let text = `Won in ${win.actions} actions`;
    if (win.par && win.over_par != null) {
      text += `, ${win.over_par === 0 ? 'at' : win.over_par > 0 ? `${win.over_par} over` : `${-win.over_par} under`} par (${win.par.actions})`;
    }
    const best = win.optimum;
    if (win.over_optimum != null) {
      text += win.over_optimum === 0 ? ': optimal.'
        : `; the optimum is ${best.actions} actions (${win.over_optimum} fewer).`;
    } else {
      text += `; every win takes at least ${best.lower_bound} actions, so this one is at most ${win.at_most_over_optimum} over the optimum.`;
    }
    out.push(text);
    for (const costly of win.costly_steps ?? []) {
      mark(costly.step.number, '++', `cost ${costly.cost} action${costly.cost === 1 ? '' : 's'}`);
    }
  }
  $('analysis').textContent = out.join(' ');
}

async function analyze() {
  if (replay === null) {
    return;
  }
  const button = $('analyze');
  button.disabled = true;
  $('analysis').textContent = 'Analysing…';
  try {
    const log = replay.log; // the user's text as it is, or the object the service gave
    showAnalysis(await api('/v1/analyze', typeof log === 'string' ? { method: 'POST', raw: log }
      : { method: 'POST', body: log }));
  } catch (e) {
    $('analysis').textContent = e.message;
    button.disabled = false;
  }
}

// --- where the log comes from ---------------------------------------------------------------

async function fromUrl() {
  const params = new URLSearchParams(location.search);
  const puzzle = params.get('puzzle');
  const entry = params.get('entry');
  const step = Number.parseInt(params.get('step') ?? '0', 10);
  if (!puzzle) {
    document.body.dataset.ready = 'true';
    return;
  }
  const id = encodeURIComponent(puzzle);
  const board = h('a', { href: `/leaderboard/${id}` }, 'leaderboard');
  try {
    if (entry) {
      const log = await api(`/v1/puzzles/${id}/submissions/${encodeURIComponent(entry)}/log`);
      const player = log.meta && log.meta.player ? ` by ${log.meta.player}` : '';
      await start(log, null, {
        title: `Entry ${entry} of ${puzzle}${player}`,
        source: ['A game from the ', board, ' of ', puzzle, '.'],
        step, inUrl: true,
      });
    } else {
      const solution = await api(`/v1/puzzles/${id}/solution`);
      await start(solution.log, null, {
        title: `Solution of ${puzzle}`,
        source: [`The par solution (${parText(solution.par)}) of ${solution.date}'s puzzle; see its `,
          board, '.'],
        step, inUrl: true,
      });
    }
    $('load').querySelector('h2').textContent = 'Or replay your own log';
  } catch (e) {
    $('title').textContent = entry ? `Entry ${entry} of ${puzzle}` : `Solution of ${puzzle}`;
    showError($('error'), e);
    document.body.dataset.ready = 'true';
  }
}

async function fromText(text, what) {
  if (!text.trim()) {
    showError($('error'), 'paste a log first, or choose a file');
    return;
  }
  try {
    const url = new URL(location.href);
    url.search = '';
    history.replaceState(null, '', url);
    await start(null, text, { title: 'Replay of your log', source: [what], step: 0, inUrl: false });
    $('player').scrollIntoView({ block: 'start' });
  } catch (e) {
    replay = null;
    $('player').hidden = true;
    showError($('error'), e);
  }
}

function readFile(file) {
  file.text().then((text) => {
    $('log-text').value = text;
    fromText(text, `The log in ${file.name}.`);
  }, (e) => showError($('error'), `cannot read ${file.name}: ${e.message}`));
}

// --- wiring ---------------------------------------------------------------------------------

function wire() {
  $('first').addEventListener('click', () => { pause(); show(0); });
  $('back').addEventListener('click', () => { pause(); show(current - 1); });
  $('forward').addEventListener('click', () => { pause(); show(current + 1); });
  $('last').addEventListener('click', () => { pause(); show(Infinity); });
  $('play').addEventListener('click', toggle);
  $('analyze').addEventListener('click', analyze);
  $('speed').addEventListener('change', () => { if (timer !== null) { play(); } });
  $('scrubber').addEventListener('input', () => { pause(); show(Number($('scrubber').value)); });
  $('jump-form').addEventListener('submit', (e) => {
    e.preventDefault();
    pause();
    const n = Number.parseInt($('jump').value, 10);
    show(Number.isFinite(n) ? n : 0);
  });
  $('steps').addEventListener('click', (e) => {
    const li = e.target.closest('li[data-stop]');
    if (li) {
      pause();
      show(Number(li.dataset.stop));
    }
  });
  document.addEventListener('keydown', (e) => {
    if (replay === null || e.altKey || e.ctrlKey || e.metaKey) {
      return;
    }
    const tag = e.target instanceof Element ? e.target.tagName : '';
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(tag)) {
      return; // the field's own keys (the scrubber's arrows move it)
    }
    const keys = {
      ArrowLeft: () => { pause(); show(current - 1); },
      ArrowRight: () => { pause(); show(current + 1); },
      Home: () => { pause(); show(0); },
      End: () => { pause(); show(Infinity); },
      ' ': () => toggle(),
    };
    if (e.key === ' ' && ['BUTTON', 'A', 'SUMMARY'].includes(tag)) {
      return; // space activates the focused control
    }
    const act = keys[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  });
  $('load-form').addEventListener('submit', (e) => {
    e.preventDefault();
    fromText($('log-text').value, 'A pasted log.');
  });
  $('log-file').addEventListener('change', () => {
    const file = $('log-file').files[0];
    if (file) {
      readFile(file);
    }
  });
  const zone = $('drop-zone');
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('dragging'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    const file = e.dataTransfer?.files?.[0];
    if (file) {
      readFile(file);
    } else {
      const text = e.dataTransfer?.getData('text/plain');
      if (text) {
        $('log-text').value = text;
        fromText(text, 'A dropped log.');
      }
    }
  });
}

wire();
fromUrl();
