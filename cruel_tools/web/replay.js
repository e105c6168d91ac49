/**
 * The replay page (/replay): any log, step by step, in the words of `cruel replay`.
 *
 * - `/replay?puzzle=ID`: the puzzle's published solution (GET /v1/puzzles/ID/solution);
 * - `/replay?puzzle=ID&entry=SID`: a leaderboard entry, once the puzzle is closed
 *   (GET /v1/puzzles/ID/submissions/SID/log; the service's 403 message otherwise);
 * - a log pasted, chosen or dropped by the user.
 * `&step=N` opens at step N. The service replays the log (POST /v1/replay: each step's words
 * and the position after it, and the first illegal step); the deal, step 0, comes from cruel.js.
 * An answer holds a window of at most 2,000 steps (issue #33): the page asks for the next
 * window (`?from=`, the answer's `window.next`) until it has them all.
 */
import { Game, SUITS, cardName, readLog } from '/static/cruel.js';
import { renderBoard } from '/static/board.js';
import { api, clearError, h, parText, showError } from '/static/site.js';
import { t, tn } from '/static/i18n.js';
import { apiErrorText, explain, lineWords } from '/static/words.js';
import { proofWords } from '/static/hinting.js';

const $ = (id) => document.getElementById(id);

/**
 * The replay being shown.
 * @type {{log: string|object, doc: any, stops: Array<{text: string, position: any, moved: any, error?: any}>}|null}
 */
let replay = null;
let current = 0;
let timer = null;
let keepStepInUrl = false;
const ANALYSIS_HINT = t('replay.analysis-hint');

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
  stops.push({ text: t('replay.the-deal'), position: start, moved: null });
  // The steps in the player's words, played here by cruel.js (the service's own words, in
  // English, where this page cannot play the log).
  let game = null;
  try {
    game = read === null ? null : new Game(read.deal.piles, read.rules);
  } catch {
    game = null;
  }
  doc.steps.forEach((step, i) => {
    const before = stops[stops.length - 1].position;
    const played = read === null ? undefined : read.steps[(step.step ?? i + 1) - 1];
    const redeal = played === undefined || played.type === 'redeal';
    const moved = redeal || before === null ? null : movedBetween(before, step.position);
    let text = step.text;
    if (game !== null && played !== undefined) {
      try {
        text = lineWords(played, game);
        game.push(played);
      } catch {
        game = null;
      }
    }
    stops.push({ text, position: step.position, moved, step: step.step ?? i + 1 });
  });
  if (doc.error) {
    doc.error.words = refusalWords(doc.error, read, game);
  }
  if (doc.error && doc.error.index != null) {
    const last = stops[stops.length - 1];
    stops.push({
      text: t('replay.error-step', { message: doc.error.words, code: doc.error.code }),
      position: last.position,
      moved: null,
      step: doc.error.index + 1,
      error: doc.error,
    });
  }
  return stops;
}

/**
 * The service's refusal of a log in the player's words: an illegal step played again here by
 * cruel.js (its code and fields), or the log's error by its code; the service's own words when
 * this page cannot tell more.
 */
function refusalWords(error, read, game) {
  if (error.index != null && game !== null && read !== null && read.steps[error.index]) {
    try {
      game.copy().push(read.steps[error.index]);
    } catch (e) {
      if (e.code === error.code) {
        return t('replay.move-error', { n: error.index + 1, message: explain(e) });
      }
    }
  }
  return explain({ code: error.code, path: error.path, message: error.message, name: error.index != null ? 'IllegalMove' : 'LogError' });
}

// --- showing it -----------------------------------------------------------------------------

function summaryText(doc) {
  if (doc.outcome == null) {
    return t('replay.cannot-play');
  }
  const outcome = ['won', 'blocked', 'in_progress'].includes(doc.outcome)
    ? t(`replay.outcome.${doc.outcome}`) : doc.outcome.replace('_', ' ');
  return t('replay.summary', {
    validity: t(doc.error ? 'replay.not-valid' : 'replay.valid'),
    outcome,
    cards: tn('replay.cards', doc.foundation_cards),
    moves: tn('replay.moves', doc.moves),
    redeals: tn('replay.redeals', doc.redeals),
    actions: tn('site.actions', doc.moves + doc.redeals),
  });
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
    h('span', { class: 'step-label' }, current === 0 ? t('replay.step-label-0') : t('replay.step-label', { n: stop.step })),
    h('span', { id: 'step-text', class: 'step-text' }, stop.text));
  $('scrubber').value = String(current);
  $('scrubber').setAttribute('aria-valuetext', t('replay.step-of', { n: current, last }));
  $('counter').textContent = `${current} / ${last}`;
  $('jump').value = String(current);
  $('board').dataset.step = String(current);
  if (stop.position) {
    renderBoard($('board'), stop.position, {
      highlight: stop.moved ? stop.moved.card : null,
      label: t('replay.position-after', { n: current }),
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
  $('play').textContent = t('replay.pause');
}

function pause() {
  clearInterval(timer);
  timer = null;
  $('play').textContent = t('replay.play');
}

function toggle() {
  if (timer === null) {
    play();
  } else {
    pause();
  }
}

/** How long to wait before asking again for a window the service was too busy to replay. */
const BUSY_WAIT_MS = 1000;
const BUSY_TRIES = 5;

/** One window of the replay from step `from`, asked again a few times while the service is busy. */
async function replayWindow(init, from) {
  const path = from > 1 ? `/v1/replay?from=${from}` : '/v1/replay';
  for (let tries = 1; ; tries++) {
    try {
      return await api(path, init);
    } catch (e) {
      if (e.code !== 'busy' || tries >= BUSY_TRIES) {
        throw e;
      }
      await new Promise((resolve) => { setTimeout(resolve, BUSY_WAIT_MS); });
    }
  }
}

/** The whole replay: the first window, then each next one's steps after it. */
async function replayAll(init) {
  const doc = await replayWindow(init, 1);
  let next = doc.window?.next ?? null;
  // Each window starts after the last: a next that does not move on ends the loop.
  for (let from = 1; next !== null && next > from;) {
    from = next;
    const more = await replayWindow(init, from);
    doc.steps.push(...more.steps);
    next = more.window?.next ?? null;
  }
  return doc;
}

/** Replay a log: ask the service for its steps and show them, at `step`. */
async function start(log, rawText, { title, source, step = 0, inUrl = false, par = null }) {
  // `log`: an object (a puzzle's solution, an entry), or null and `rawText` the user's text
  pause();
  clearError($('error'));
  const doc = await replayAll(rawText !== null ? { method: 'POST', raw: rawText }
    : { method: 'POST', body: log });
  replay = { log: log ?? rawText, doc, stops: stopsOf(log ?? rawText, doc), par };
  keepStepInUrl = inUrl;
  $('title').textContent = title;
  $('source').replaceChildren(...source);
  $('summary').textContent = summaryText(doc);
  if (doc.error) {
    const where = doc.error.index != null ? t('replay.step-n', { n: doc.error.index + 1 }) : doc.error.path;
    showError($('error'), t('replay.error-at', { where, message: doc.error.words, code: doc.error.code }));
    $('error').dataset.step = doc.error.index != null ? String(doc.error.index + 1) : '';
  }
  if (replay.stops[0].position === null && doc.outcome === null && !doc.error) {
    showError($('error'), t('replay.deal-unplayable'));
  }
  const last = replay.stops.length - 1;
  $('scrubber').max = String(last);
  $('jump').max = String(last);
  renderSteps();
  // An illegal log cannot be analysed (the service would say so): the button is for games.
  $('analyze').disabled = Boolean(doc.error) || doc.outcome === null;
  $('analysis').textContent = doc.error ? t('replay.only-legal') : ANALYSIS_HINT;
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
      mark(step.number, '!!', t('replay.mark-loss'));
      const wins = loss.alternatives.filter((alt) => alt.verdict === 'won').length;
      const others = loss.alternatives.length;
      // The step in the words of cruel replay, as the list shows it.
      const words = replay.stops[step.number]?.text ?? step.words;
      out.push(t('replay.lost-at', { n: step.number, words }));
      if (loss.reason) {
        out.push(t('replay.after-it', { reason: proofWords(loss.reason) }));
      }
      out.push(others === 0 ? t('replay.no-other') : tn('replay.others-win', others, { wins }));
    } else if (loss.status === 'lost-from-start') {
      out.push(t('replay.lost-from-start'));
    } else if (loss.status === 'still-winnable') {
      out.push(t('replay.still-winnable'));
    } else {
      const first = loss.first_step == null ? 0 : loss.first_step + 1;
      const last = loss.last_step == null ? first : loss.last_step + 1;
      for (let n = Math.max(1, first); n <= last; n++) {
        mark(n, '??', t('replay.mark-undecided'));
      }
      out.push(t('replay.lost-between', {
        from: first ? t('replay.step-n', { n: first }) : t('replay.the-deal-lower'), last,
      }));
    }
  } else if (a.win) {
    const win = withPar(a.win, replay.par);
    let text = t('replay.won-in', { actions: tn('site.actions', win.actions) });
    if (win.par && win.over_par != null) {
      const par = win.par.actions;
      text += win.over_par === 0 ? t('replay.vs-at', { par })
        : win.over_par > 0 ? t('replay.vs-over', { n: win.over_par, par })
          : t('replay.vs-under', { n: -win.over_par, par });
    }
    const best = win.optimum;
    if (win.over_optimum != null) {
      text += win.over_optimum === 0 ? t('replay.optimal')
        : t('replay.optimum', { best: tn('site.actions', best.actions), fewer: win.over_optimum });
    } else {
      text += t('replay.at-most', { bound: tn('site.actions', best.lower_bound), over: win.at_most_over_optimum });
    }
    out.push(text);
    for (const costly of win.costly_steps ?? []) {
      mark(costly.step.number, '++', tn('replay.mark-cost', costly.cost));
    }
  }
  $('analysis').textContent = out.join(' ');
}

/**
 * A win's analysis with the par the page shows beside it: the puzzle's par, proven with a
 * budget far larger than an analysis has, settles what the analysis's own search left open
 * (a proven par is the optimum; a par's lower bound is a lower bound), so that the page never
 * says "at least 56" beside "58 actions, optimal" (issue #36). The service does the same for a
 * closed puzzle's very deal and rules (docs/service.md, POST /v1/analyze); this keeps the page
 * to one answer whatever the analysis was given. `par`: the par shown, or null.
 */
function withPar(win, par) {
  if (!par || win.over_optimum != null || !Number.isInteger(par.actions)) {
    return win;
  }
  const best = { ...win.optimum };
  if (par.optimal) {
    best.actions = par.actions;
    best.lower_bound = par.actions;
    return { ...win, optimum: best, over_optimum: win.actions - par.actions, at_most_over_optimum: win.actions - par.actions };
  }
  if (Number.isInteger(par.lower_bound) && par.lower_bound > (best.lower_bound ?? 0)) {
    best.lower_bound = par.lower_bound;
    return { ...win, optimum: best, at_most_over_optimum: win.actions - par.lower_bound };
  }
  return win;
}

async function analyze() {
  if (replay === null) {
    return;
  }
  const button = $('analyze');
  button.disabled = true;
  $('analysis').textContent = t('replay.analysing');
  try {
    const log = replay.log; // the user's text as it is, or the object the service gave
    showAnalysis(await api('/v1/analyze', typeof log === 'string' ? { method: 'POST', raw: log }
      : { method: 'POST', body: log }));
  } catch (e) {
    $('analysis').textContent = apiErrorText(e);
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
  const board = h('a', { href: `/leaderboard/${id}` }, t('replay.leaderboard-link'));
  try {
    if (entry) {
      const log = await api(`/v1/puzzles/${id}/submissions/${encodeURIComponent(entry)}/log`);
      const player = log.meta && log.meta.player ? log.meta.player : null;
      await start(log, null, {
        title: player === null ? t('replay.entry-title', { entry, puzzle })
          : t('replay.entry-title-by', { entry, puzzle, player }),
        source: [t('replay.entry-source-before'), board, t('replay.entry-source-after', { puzzle })],
        step, inUrl: true,
      });
    } else {
      const solution = await api(`/v1/puzzles/${id}/solution`);
      await start(solution.log, null, {
        par: solution.par,
        title: t('replay.solution-title', { puzzle }),
        source: [t('replay.solution-source-before', { par: parText(solution.par), date: solution.date }),
          board, t('replay.solution-source-after')],
        step, inUrl: true,
      });
    }
    $('load').querySelector('h2').textContent = t('replay.load-title-or');
  } catch (e) {
    $('title').textContent = entry ? t('replay.entry-title', { entry, puzzle }) : t('replay.solution-title', { puzzle });
    showError($('error'), e);
    document.body.dataset.ready = 'true';
  }
}

/** The codes with which POST /v1/replay refuses a text outright (400, 413, 422): cruel.js's
 * readLog refuses the same texts with the same codes (docs/web.md, Reading logs). */
const REFUSED_OUTRIGHT = new Set(['not-json', 'schema', 'too-large', 'too-many-moves']);

/** Why the service would refuse `text` outright, in the page's words, or null. A text that is
 * no log is refused here, by cruel.js, without a request: the service's 4xx would be an error
 * in the browser's console for what is only a paste gone wrong (issue #36). */
function refusedHere(text) {
  try {
    readLog(text);
  } catch (e) {
    if (REFUSED_OUTRIGHT.has(e?.code)) {
      return explain(e);
    }
  }
  return null;
}

async function fromText(text, what) {
  if (!text.trim()) {
    showError($('error'), t('replay.paste-first'));
    return;
  }
  const refused = refusedHere(text);
  if (refused !== null) {
    replay = null;
    $('player').hidden = true;
    showError($('error'), refused);
    return;
  }
  try {
    const url = new URL(location.href);
    url.search = '';
    history.replaceState(null, '', url);
    await start(null, text, { title: t('replay.your-log'), source: [what], step: 0, inUrl: false });
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
    fromText(text, t('replay.from-file', { file: file.name }));
  }, (e) => showError($('error'), t('replay.cannot-read', { file: file.name, detail: e.message })));
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
    fromText($('log-text').value, t('replay.pasted'));
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
        fromText(text, t('replay.dropped'));
      }
    }
  });
}

wire();
fromUrl();
