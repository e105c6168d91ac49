// play.js: the play page, /play/{id} (docs/web.md "Playing a puzzle"). Every rule comes from
// cruel.js; this file only turns clicks, drags and keys into steps and shows what cruel.js says.
// A ranked game is a live attempt (docs/web.md "Ranked play"): each step goes to the server as
// it is played, and the server's answer, not this page, decides the line that stands.

import {
  Recorder, REDEAL, move, stepText, cardName, parseCard, rulesOf, IllegalMove, readEntry,
} from './cruel.js';
import { renderBoard } from './board.js';
import { attachPointer } from './pointer.js';
import { renderStats, recordGame } from './stats.js';
import { call, rankedName, storedName } from './tokens.js';
import { t, tn, has, formatNumber, formatDay } from './i18n.js';
import { apiErrorText, cardText, choiceWords, explain, stepWords } from './words.js';
import { readRoute, freePuzzle, fillFreeForm } from './freeplay.js';
import { snapshot, flip, touchScreen, startClock, MoveList, undoneWords } from './motion.js';
import { learnGameDay, gameNow, gameDay, early } from './gameday.js';

const $ = (id) => document.getElementById(id);
// What the address asks for: a published puzzle (/play/{id}) or free play (/play/deal/{n}).
const route = readRoute(location);
const puzzleId = route.kind === 'puzzle' ? route.id : null;
const KEYS = {
  progress: puzzleId !== null ? `cruel.progress.${puzzleId}` : `cruel.progress.deal.${route.number}.${route.rules}`,
  result: `cruel.result.${puzzleId}`,
  auto: 'cruel.auto',
};
// The pause between two automatic moves the page makes (cards go up one by one).
const AUTO_MS = matchMedia('(prefers-reduced-motion: reduce)').matches ? 60 : 160;
// The keys that pick a target pile: 1-9, 0 for 10, - for 11, = for 12.
const PILE_KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '='];
// A request the network lost, or the service could not take (5xx, 429), is tried again after
// these pauses; then the attempt is given up as not recorded (the game goes on, unranked).
const RETRY_MS = [300, 1000, 3000];

const state = {
  puzzle: null,
  mode: 'daily', // daily (open: ranked with a name) | practice (a closed puzzle) | free (a deal number)
  modeNote: '', // what the status line says of a practice or free game
  autoToken: 0, // the run of automatic moves the page makes; a new step or an undo ends it
  autoCards: [], // the cards of the current run, for its note
  hint: null, // {at, step, card}: the hint shown for the position after `at` steps
  givenUp: false, // an unranked game given up: over, counted as played
  helpPending: false, // a hint or winnability request on its way
  helpAt: null, // the position (steps played) the help's note speaks of
  clickedPile: null, // the pile of the last single click (a double-click's first)
  rec: null, // a Recorder at the current position: the game replayed from the deal
  steps: [], // the line that stands (undo pops)
  redo: [], // the player's steps undone, latest last: redo plays them again; a new move clears it
  autos: [], // for each step of the line: an automatic move (the server's, or this page's)
  startedAt: null,
  finishedAt: null, // set once the game is recorded in cruel.games (won, or started over)
  live: null, // the ranked game's live attempt (newLive())
  selected: null, // a pile whose card waits for the player to choose its target
  options: [], // the moves offered for it
  preview: false,
  highlight: null,
  restartArmed: false,
  giveUpArmed: false,
  panel: null,
  openDeal: null, // free play: a promise of whether the deal is one of today's puzzles'
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

/** The automatic moves asked for ranked games: 'foundations' or 'off' (remembered). */
function autoSetting() {
  try {
    return localStorage.getItem(KEYS.auto) === 'off' ? 'off' : 'foundations';
  } catch {
    return 'foundations';
  }
}

/** An ISO 8601 time with the player's own offset, e.g. 2027-01-05T21:04:05+01:00. */
function localTime(date = gameNow()) {
  const pad = (n) => String(Math.abs(n)).padStart(2, '0');
  const off = -date.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.trunc(off / 60))}:${pad(off % 60)}`;
}

function saveProgress() {
  const progress = { steps: state.steps.map(stepText), started_at: state.startedAt };
  if (state.autos.some(Boolean)) {
    progress.auto = state.autos.map((a) => (a ? 1 : 0));
  }
  // A reload restores a ranked game from the server while it goes on (and a win, for its
  // entry); once it ended otherwise, what was played after it here is the browser's own.
  if (state.live?.id && (liveActive() || state.live.status === 'won')) {
    progress.live = { id: state.live.id, player: state.live.player };
  }
  if (state.finishedAt) {
    progress.finished_at = state.finishedAt;
  }
  if (state.givenUp) {
    progress.given_up = true;
  }
  store(KEYS.progress, state.steps.length || progress.live ? progress : null);
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

/** Replay `steps` (with their auto marks) from the deal; keeps the legal prefix. */
function replay(steps, autos = []) {
  state.rec = newRecorder();
  state.steps = [];
  state.autos = [];
  for (const [i, step] of steps.entries()) {
    try {
      state.rec.push(step);
    } catch {
      break;
    }
    state.steps.push(step);
    state.autos.push(Boolean(autos[i]));
  }
}

/** How many steps an undo takes back from a line: its last own step and the automatic moves
 * that followed it (the server undoes so, or its automatic moves would come straight back);
 * 0 when the line holds no step of the player's. */
function undoCount(autos) {
  let n = autos.length;
  while (n > 0 && autos[n - 1]) {
    n--;
  }
  return n === 0 ? 0 : autos.length - n + 1;
}

/** The card a step moves in game `g` (its deepest card for a run), as a name; null for a redeal. */
function movedCard(g, step) {
  if (step.type === 'redeal') {
    return null;
  }
  const src = g.piles[step.source - 1] ?? [];
  const card = src[src.length - (step.count ?? 1)];
  return card === undefined ? null : cardName(card);
}

function gameLog() {
  const meta = {
    player: state.live?.player ?? (storedName() || null),
    puzzle: puzzleId,
    started_at: state.startedAt,
    finished_at: state.finishedAt ?? localTime(),
  };
  if (meta.player === null) {
    delete meta.player;
  }
  if (puzzleId === null) {
    delete meta.puzzle;
  }
  if (state.mode !== 'daily') {
    meta.play = state.mode; // practice or free: never ranked
  }
  if (state.givenUp || state.live?.status === 'given-up') {
    meta.given_up = true;
  }
  if (state.live?.id) {
    meta.attempt = state.live.id;
  }
  state.rec.meta = meta;
  return state.rec.log();
}

function say(text, kind = '') {
  const el = $('message');
  el.textContent = text;
  el.className = 'message' + (kind ? ` ${kind}` : '');
}

/** A step in the player's words, before it is played on `g` (words.js). */
function describe(step, g) {
  return stepWords(step, g);
}

/** Play a step: true when played; an illegal one changes nothing and says why. A redo
 * (`redoing`) keeps the rest of the redo stack; any other step clears it. */
function play(step, redoing = false) {
  if (state.givenUp) {
    say(t('play.given-up-over'), 'error');
    return false;
  }
  if (isFinal()) {
    say(t('play.game-final'), 'error');
    return false;
  }
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
  const card = movedCard(g, step);
  try {
    state.rec.push(step);
  } catch (e) {
    if (e instanceof IllegalMove) {
      clearChoice();
      say(explain(e), 'error');
      render();
      return false;
    }
    throw e;
  }
  state.steps.push(step);
  state.autos.push(false);
  if (!redoing) {
    state.redo = [];
  }
  state.highlight = moved;
  state.restartArmed = false;
  state.giveUpArmed = false;
  clearChoice();
  if (state.startedAt === null) {
    state.startedAt = localTime();
  }
  if (state.live === null && state.steps.length === 1 && rankedName() && state.mode === 'daily') {
    startLive(rankedName()); // at the first move: looking at the deal costs no time
  }
  if (liveActive()) {
    send({ text: stepText(step), card });
  }
  const outcome = game().outcome();
  sound(step.type === 'move' && step.target === null ? 'foundation' : 'move');
  say(outcome === 'won' ? t('play.said-won', { words }) : outcome === 'blocked' ? t('play.said-blocked', { words }) : words,
    outcome === 'won' ? 'ok' : '');
  saveProgress();
  render();
  scheduleAutos();
  return true;
}

// --- the page's automatic moves (unranked games: a ranked game's are the server's) ------------

/** After a step of the player's: make the automatic moves cruel.js finds safe, one by one. */
function scheduleAutos() {
  const token = ++state.autoToken;
  state.autoCards = [];
  if (autoSetting() !== 'foundations' || liveActive() || state.givenUp) {
    $('board').dataset.auto = 'idle';
    return;
  }
  const next = () => {
    if (token !== state.autoToken) {
      return;
    }
    const m = game().automaticMove();
    if (m === null) {
      $('board').dataset.auto = 'idle';
      return;
    }
    playAuto(m);
    setTimeout(next, AUTO_MS);
  };
  $('board').dataset.auto = 'running';
  setTimeout(next, AUTO_MS);
}

/** Play automatic move `m` (a step of the log, marked auto) and say so. */
function playAuto(m) {
  const card = game().top(m.source);
  state.rec.push(m);
  state.steps.push(m);
  state.autos.push(true);
  state.highlight = card;
  state.autoCards.push(cardText(card));
  sound('foundation');
  const won = game().outcome() === 'won';
  const key = m.why === 'finish' ? 'play.auto-finish' : 'play.auto-moved';
  say(t(key, { cards: state.autoCards.join(' ') }) + (won ? ` ${t('play.you-won')}` : ''), won ? 'ok' : '');
  $('message').dataset.auto = String(state.autoCards.length);
  saveProgress();
  render();
}

/** A won or given-up game is over: no undo, redo or give up; Play again starts over. */
function isFinal() {
  return state.givenUp || (state.rec !== null && game().isWon());
}

function undo() {
  if (state.givenUp) {
    say(t('play.given-up-over'), 'error');
    return;
  }
  if (isFinal()) {
    say(t('play.game-final'), 'error');
    return;
  }
  state.autoToken++; // an automatic run in progress stops: its moves so far are undone too
  const n = undoCount(state.autos);
  if (!n) {
    say(t('play.nothing-to-undo'), 'error');
    return;
  }
  const last = state.steps.at(-n);
  if (liveActive()) {
    send({ text: 'undo', card: null });
  }
  replay(state.steps.slice(0, -n), state.autos.slice(0, -n));
  state.redo.push(last); // the player's own step: its automatic moves follow it again
  const undone = undoneWords(last, game()); // in the player's words, on the game before it
  state.highlight = null;
  state.restartArmed = false;
  clearChoice();
  saveProgress();
  const also = n > 1 ? tn('play.undone-also', n - 1) : '';
  say(t('play.undone', { undone, also, stand: tn('play.steps-stand', state.steps.length) }));
  render();
}

/** Play again the step the last undo took back. Ranked, it is sent as an ordinary step: the
 * server's undo took back that step and its automatic moves, so the step is legal where it
 * is sent and the server checks and counts it like any other (docs/web.md: a redo gains
 * nothing an undo and a click would not). A line the server changed drops the stack (adopt). */
function redo() {
  if (isFinal()) {
    say(t('play.game-final'), 'error');
    return;
  }
  const step = state.redo.at(-1);
  if (step === undefined) {
    say(t('play.nothing-to-redo'), 'error');
    return;
  }
  state.redo.pop();
  if (!play(step, true)) {
    state.redo = []; // no longer playable here: what was undone is gone
    render();
  }
}

function redeal() {
  const problem = game().redealProblem();
  if (problem !== null) {
    clearChoice();
    say(t('play.no-redeal', { reason: explain(problem) }), 'error');
    render();
    return;
  }
  play(REDEAL);
}

function restart() {
  if (!state.steps.length && !liveActive()) {
    say(t('play.at-deal'));
    return;
  }
  if (!state.restartArmed) {
    state.restartArmed = true;
    say(liveActive()
      ? t('play.restart-confirm-ranked')
      : t('play.restart-confirm'));
    render();
    return;
  }
  if (liveActive()) {
    abandon(state.live);
  }
  if (!state.finishedAt && state.steps.length) {
    state.finishedAt = localTime();
    recordGame(gameLog());
  }
  replay([]);
  state.redo = [];
  state.autoToken++;
  state.givenUp = false;
  state.hint = null;
  state.startedAt = null;
  state.finishedAt = null;
  state.live = null;
  state.highlight = null;
  state.restartArmed = false;
  state.giveUpArmed = false;
  clearChoice();
  saveProgress();
  say(rankedName() ? t('play.started-over-ranked') : t('play.started-over'));
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
      say(t('play.choice-cancelled'));
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
    say(t('play.pile-empty', { n }), 'error');
    return;
  }
  const options = g.cardMoves().filter((m) => m.source === n);
  if (options.length === 1) {
    play(options[0]);
    return;
  }
  if (options.length === 0) {
    clearChoice();
    let why = t('play.no-move', { card: cardText(g.top(n)), n });
    try {
      g.copy().move(n, null);
    } catch (e) {
      why = t('play.no-move-why', { why: explain(e) });
    }
    say(why, 'error');
    render();
    return;
  }
  state.selected = n;
  state.options = options;
  // On a touch screen, words only: no key is named (docs/web.md "Phones").
  say(choiceWords(g, n, options, touchScreen() ? null : targetKey));
  render();
}

function targetKey(target) {
  return target === null ? 'F' : PILE_KEYS[target - 1];
}

/** Move the selected or focused pile's card to `target` (null: the foundation). */
function moveTo(target) {
  const source = state.selected ?? focusedPile();
  if (source === null) {
    say(t('play.choose-pile-first'), 'error');
    return;
  }
  const offered = state.options.find((m) => m.target === target) ??
    game().cardMoves().find((m) => m.source === source && m.target === target);
  play(offered ?? move(source, target));
}

// --- the live attempt ------------------------------------------------------------------------
//
// Steps played here go into `queue` at once (the board shows them at once) and to the server
// one request at a time, in batches. Each answer of the server gives its standing line; the
// page then shows that line and, after it, the steps still queued (a queued move is kept only
// while it still moves the same card: the server's automatic moves may have taken it).

function newLive(player) {
  return {
    id: null,
    player,
    status: 'starting', // starting | playing | blocked | won | given-up | expired | failed
    finished: false, // the server takes no more steps (an attempt blocked may still undo)
    flags: [], // why a won attempt waits for a moderator
    playerSteps: 0, // steps the server has taken from this page (undos too)
    confirmed: [], // the server's standing line: [{text, auto}]
    queue: [], // steps played here, not yet answered: [{text, card}] (text 'undo' for an undo)
    sending: false,
    givingUp: false,
    entry: null,
    elapsedMs: null,
    note: '',
  };
}

function liveActive() {
  return state.live !== null && !state.live.finished && state.live.status !== 'failed';
}

const pause = (ms) => new Promise((resolve) => {
  setTimeout(resolve, ms);
});

/** A call that is tried again on a lost connection, a 5xx or a 429 (RETRY_MS); `check()`, when
 * given, runs before each try again and may settle the matter (a request the server took but
 * whose answer was lost must not be sent twice). Resolves to {ok, status, data}, or to
 * {ok: false, status: 0, data: {message}} when every try failed. */
async function reliably(path, options, check = null) {
  let last = null;
  for (let i = 0; i <= RETRY_MS.length; i++) {
    if (i > 0) {
      await pause(RETRY_MS[i - 1]);
      if (check) {
        const settled = await check();
        if (settled) {
          return settled;
        }
      }
    }
    try {
      const answer = await call(path, options);
      if (answer.status < 500 && answer.status !== 429) {
        return answer;
      }
      last = answer;
    } catch (e) {
      last = { ok: false, status: 0, data: { code: 'network', message: `the service cannot be reached (${e.message})` } };
    }
  }
  return last;
}

async function startLive(player) {
  const live = newLive(player);
  state.live = live;
  const answer = await reliably(`/v1/puzzles/${encodeURIComponent(puzzleId)}/attempts`, {
    body: { format: 'cruel-attempt/1', player, auto: autoSetting() }, player,
  });
  if (state.live !== live) { // started over meanwhile: abandon() gives it up
    if (answer.ok) {
      live.id = answer.data.attempt;
    } else {
      live.status = 'failed';
    }
    return;
  }
  if (!answer.ok) {
    fail(apiErrorText(answer.data));
    return;
  }
  live.id = answer.data.attempt;
  adopt(answer.data, []);
  saveProgress();
  flush();
}

function send(item) {
  state.live.queue.push(item);
  renderLive();
  flush();
}

/** Send what is queued, one request at a time. */
async function flush() {
  const live = state.live;
  if (!live || live.sending || live.id === null || live.finished || live.status === 'failed') {
    return;
  }
  if (!live.queue.length) {
    if (live.givingUp) {
      live.sending = true;
      const answer = await reliably(`/v1/attempts/${encodeURIComponent(live.id)}/give-up`,
        { method: 'POST', body: {}, player: live.player });
      live.sending = false;
      if (state.live !== live) {
        return;
      }
      if (answer.ok) {
        adoptStatus(live, answer.data);
        recordEnded();
        saveProgress();
        say(live.status === 'blocked' ? t('play.gave-up-blocked') : t('play.gave-up'));
        render();
      } else {
        fail(apiErrorText(answer.data));
      }
    }
    return;
  }
  live.sending = true;
  renderLive();
  const batch = live.queue.slice();
  const before = live.playerSteps;
  const path = `/v1/attempts/${encodeURIComponent(live.id)}/steps`;
  // Before sending again after a failure: has the server taken the batch already? Its line
  // then differs from the one the batch was sent on (nobody else writes this attempt).
  const check = async () => {
    try {
      const now = await call(`/v1/attempts/${encodeURIComponent(live.id)}`, { player: live.player });
      if (now.ok && (now.data.finished || now.data.player_steps !== before)) {
        return now;
      }
    } catch {
      // still unreachable: try again
    }
    return null;
  };
  const answer = await reliably(path, { body: { steps: batch.map((q) => q.text) }, player: live.player }, check);
  live.sending = false;
  if (state.live !== live) {
    return;
  }
  if (answer.ok) {
    live.queue = live.queue.slice(batch.length);
    adopt(answer.data, batch);
  } else if (answer.status === 0 || answer.status >= 500 || answer.status === 429) {
    fail(apiErrorText(answer.data));
    return;
  } else {
    // Refused (an illegal step, an attempt that has ended): nothing of the batch was taken.
    // The server's position stands, and the steps played here after it are dropped.
    const refused = apiErrorText({ status: answer.status, code: 'http', message: `the service answered ${answer.status}`, ...answer.data });
    live.queue = [];
    let now = null;
    try {
      now = await call(`/v1/attempts/${encodeURIComponent(live.id)}`, { player: live.player });
    } catch {
      now = null;
    }
    if (state.live !== live) {
      return;
    }
    if (!now || !now.ok) {
      fail(refused);
      return;
    }
    adopt(now.data, null);
    say(t('play.server-refused', { steps: batch.map((q) => q.text).join(', '), reason: refused }), 'error');
  }
  flush();
}

/** The line of an attempt's state as [{text, auto}]; entries may be log entries or objects
 * {step, auto}. */
function readLine(doc) {
  return (Array.isArray(doc.line) ? doc.line : []).map((e) => {
    if (e && typeof e === 'object' && 'step' in e) {
      return { text: stepText(readEntry(e.step)), auto: Boolean(e.auto) };
    }
    return { text: stepText(readEntry(e)), auto: Boolean(e && typeof e === 'object' && e.auto) };
  });
}

/** The line `entries` with `queue` played after it: {steps, autos, kept, dropped}. */
function lineWith(entries, queue) {
  let steps = entries.map((e) => readEntry(e.text));
  let autos = entries.map((e) => e.auto);
  const kept = [];
  let dropped = null;
  for (const q of queue) {
    if (q.text === 'undo') {
      const n = undoCount(autos);
      steps = steps.slice(0, steps.length - n);
      autos = autos.slice(0, autos.length - n);
      kept.push(q);
      continue;
    }
    const g = newRecorder();
    steps.forEach((s) => g.push(s));
    const step = readEntry(q.text);
    if (movedCard(g.game, step) !== q.card) {
      dropped = q;
      break;
    }
    try {
      g.push(step);
    } catch {
      dropped = q;
      break;
    }
    steps.push(step);
    autos.push(false);
    kept.push(q);
  }
  return { steps, autos, kept, dropped };
}

/** Take the server's state of the attempt: its line, then what is still queued here. `batch`:
 * the steps this answer is to (null: a state read after a refusal). */
function adopt(doc, batch) {
  const live = state.live;
  let line;
  try {
    line = readLine(doc);
  } catch (e) {
    fail(t('play.line-unreadable', { detail: e.message }));
    return;
  }
  const shownBefore = state.steps.map(stepText);
  let known = 0; // the common start of the line known so far and the server's
  while (known < line.length && known < live.confirmed.length &&
    line[known].text === live.confirmed[known].text && line[known].auto === live.confirmed[known].auto) {
    known++;
  }
  // The line this page expected for the batch: the player's own steps must be the same.
  let differs = false;
  if (batch) {
    const expected = lineWith(live.confirmed, batch);
    const own = (steps, autos) => steps.filter((_, i) => !autos[i]).map(stepText);
    differs = own(expected.steps, expected.autos).join() !== own(line.map((e) => readEntry(e.text)), line.map((e) => e.auto)).join();
  }
  const autoCards = []; // the cards the server moved by itself in this answer
  try {
    const g = newRecorder();
    line.forEach((e, i) => {
      const step = readEntry(e.text);
      if (e.auto && i >= known) {
        autoCards.push(movedCard(g.game, step));
      }
      g.push(step);
    });
  } catch (e) {
    fail(t('play.line-unplayable', { detail: e.message }));
    return;
  }
  live.confirmed = line;
  let next;
  try {
    next = lineWith(line, live.queue);
  } catch (e) {
    fail(t('play.line-unplayable', { detail: e.message }));
    return;
  }
  live.queue = next.kept;
  replay(next.steps, next.autos);
  if (state.steps.map(stepText).join() !== shownBefore.join()) {
    clearChoice();
  }
  adoptStatus(live, doc);
  if (differs || next.dropped || batch === null) {
    state.redo = []; // the server's line is not the one the undone steps came off
  }
  if (differs) {
    say(t('play.line-differs'), 'error');
  } else if (next.dropped) {
    say(t('play.step-dropped', { step: next.dropped.text }), 'error');
  } else if (autoCards.length) {
    state.highlight = autoCards.at(-1) === null ? null : parseCard(autoCards.at(-1));
    const cards = autoCards.filter(Boolean).map((c) => cardText(parseCard(c))).join(' ');
    sound('foundation'); // the server's automatic moves sound as the page's own do (playAuto)
    say(t(game().outcome() === 'won' ? 'play.auto-moved-won' : 'play.auto-moved', { cards }),
      game().outcome() === 'won' ? 'ok' : '');
    $('message').dataset.auto = String(autoCards.length);
  }
  saveProgress();
  render();
}

/** The attempt's status from the server's state: the end of a ranked game. */
function adoptStatus(live, doc) {
  const status = typeof doc.status === 'string' ? doc.status : 'playing';
  live.status = status;
  live.finished = doc.finished === true;
  live.flags = Array.isArray(doc.flags) ? doc.flags : [];
  live.playerSteps = Number.isInteger(doc.player_steps) ? doc.player_steps : live.playerSteps;
  live.elapsedMs = doc.elapsed_ms ?? live.elapsedMs;
  if (status === 'won' && doc.entry) {
    live.entry = doc.entry;
    if (doc.entry.accepted) {
      store(KEYS.result, doc.entry);
    }
  }
  if (live.finished) {
    live.queue = [];
  }
}

/** The attempt cannot be recorded: the game goes on here, unranked. */
function fail(message) {
  if (!state.live) {
    return;
  }
  state.live.status = 'failed';
  state.live.queue = [];
  state.live.note = message;
  say(t('play.not-recorded', { reason: message }), 'error');
  saveProgress();
  render();
}

/** End the ranked game as given up (once the queued steps are sent); an unranked game ends
 * here (giveUpHere). */
function giveUp() {
  if (!liveActive()) {
    giveUpHere();
    return;
  }
  if (!state.giveUpArmed) {
    state.giveUpArmed = true;
    say(t('play.give-up-confirm-ranked'));
    render();
    return;
  }
  state.giveUpArmed = false;
  state.live.givingUp = true;
  flush();
  say(t('play.giving-up'));
  render();
}

/** A ranked game given up (or ended blocked) on the server: recorded in this browser's stats
 * once, as played and not won (what is played after it, unranked, is not counted again). */
function recordEnded() {
  if (!state.finishedAt) {
    state.finishedAt = localTime();
    recordGame(gameLog());
    showStats();
  }
}

/** Whether an unranked game may be given up: begun, not over, not ranked. */
function canGiveUpHere() {
  return !liveActive() && !state.givenUp && state.steps.length > 0 && !state.finishedAt;
}

/** Give up an unranked game (press twice): it is over, and counts as played, not won. */
function giveUpHere() {
  if (!canGiveUpHere()) {
    return;
  }
  if (!state.giveUpArmed) {
    state.giveUpArmed = true;
    say(t('play.give-up-confirm'));
    render();
    return;
  }
  state.giveUpArmed = false;
  state.autoToken++;
  state.givenUp = true;
  state.redo = [];
  state.finishedAt = localTime();
  recordGame(gameLog());
  clearChoice();
  saveProgress();
  say(t('play.given-up'));
  render();
  showStats();
}

/** Give up an attempt the page has left (started over): after its request in flight, if any;
 * the steps still queued are not sent. */
async function abandon(live) {
  live.givingUp = true;
  live.queue = [];
  for (let i = 0; i < 300 && (live.sending || (live.id === null && live.status === 'starting')); i++) {
    await pause(100);
  }
  if (live.id === null || live.finished || live.status === 'failed') {
    return;
  }
  await reliably(`/v1/attempts/${encodeURIComponent(live.id)}/give-up`,
    { method: 'POST', body: {}, player: live.player });
}

async function restoreLive(saved) {
  const live = newLive(saved.player);
  live.id = saved.id;
  live.status = 'playing';
  live.sending = true; // nothing is sent before the server's line is known
  state.live = live;
  renderLive();
  const answer = await reliably(`/v1/attempts/${encodeURIComponent(saved.id)}`, { player: saved.player });
  live.sending = false;
  if (state.live !== live) {
    return;
  }
  if (!answer.ok) {
    fail(apiErrorText(answer.data));
    return;
  }
  const had = state.steps.length;
  adopt(answer.data, null);
  if (liveActive()) {
    const stand = tn('play.steps-stand', state.steps.length);
    say(had > state.steps.length
      ? t('play.restored-live-lost', { stand, lost: had - state.steps.length })
      : t('play.restored-live', { stand }));
  }
  flush();
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
  const hint = shownHint();
  if (hint && hint.step.type === 'move') {
    targets.push(hint.step.target ?? 'foundation'); // the hinted card's own foundation
  }
  const places = snapshot($('board')); // motion.js: moved cards slide from here
  renderBoard($('board'), g, {
    interactive: !state.givenUp, highlight: hint?.card ?? state.highlight, selected: state.selected, targets,
    targetKeys: touchScreen() ? {} : keys, label: t('play.board-label', { id: puzzleId }), idPrefix: 'play',
  });
  flip($('board'), places);
  inMotion.moves?.update(state.steps, state.autos);
  inMotion.clock?.update();
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
  $('redeal-note').textContent = problem ? t('play.redeal-not-allowed', { reason: explain(problem) }) : '';
  $('redeal').classList.toggle('unavailable', problem !== null); // still clickable: it says why
  $('undo').disabled = !state.steps.length || isFinal();
  $('redo').disabled = !state.redo.length || isFinal();
  $('restart').textContent = state.restartArmed ? t('play.restart-really') : t('play.restart');
  $('give-up').hidden = isFinal() || (!liveActive() && !canGiveUpHere());
  $('give-up').textContent = state.giveUpArmed ? t('play.give-up-really') : t('play.give-up');
  $('preview').setAttribute('aria-pressed', String(state.preview));
  $('preview-wrap').hidden = !state.preview;
  if (state.preview) {
    renderBoard($('preview-board'), { piles: g.redealPreview(), foundations: g.foundations }, {
      label: t('play.preview-label'), compact: true, idPrefix: 'preview',
    });
  }
  renderChoice();
  renderEnd();
  renderLive();
  renderHelp(hint);
}

// --- hints and "still winnable?" (free play and practice; hinting.js asks POST /v1/hint) ---

/** The hint for the position shown, if one was asked for it and no card is picked up. */
function shownHint() {
  const h = state.hint;
  return h && h.at === state.steps.length && state.selected === null && !state.givenUp ? h : null;
}

/** Ask the service for the next step of a win (`kind` 'hint') or whether one is left
 * ('winnable'), for the position shown. */
async function askHelp(kind) {
  if (state.mode === 'daily' || state.helpPending) {
    return;
  }
  const at = state.steps.length;
  state.helpPending = true;
  helpNote(t('play.hint-asking'), 'pending', at);
  if (await isOpenDeal()) {
    state.helpPending = false;
    if (state.steps.length === at) {
      helpNote(t('play.hint-puzzle-open'), 'error', at);
    } else {
      helpNote('', 'stale', null);
    }
    return;
  }
  const { askHint, answerWords } = await import('./hinting.js');
  const answer = await askHint(state.rec.log({ claim: false }));
  state.helpPending = false;
  if (state.steps.length !== at) {
    helpNote('', 'stale', null); // the game moved on meanwhile: the answer is of another position
    return;
  }
  const note = $('hint-note');
  note.dataset.ms = String(Math.round(answer.ms));
  if (answer.status === 'win-next' && kind === 'hint') {
    const g = game();
    state.hint = { at, step: answer.step, card: answer.step.type === 'move' ? g.top(answer.step.source) : null };
    note.dataset.step = stepText(answer.step);
    helpNote(t('play.hint-next', { step: describe(answer.step, g) }), 'win-next', at);
    render();
    return;
  }
  helpNote(answerWords(answer), answer.status, at);
}

/** A deal's piles up to which suit is which (suits numbered as they first appear). */
function dealShape(piles) {
  const suits = [];
  return piles.map((pile) => pile.map((name) => {
    const suit = name.slice(-1);
    if (!suits.includes(suit)) {
      suits.push(suit);
    }
    return `${name.slice(0, -1)}${suits.indexOf(suit)}`;
  }).join(' ')).join('/');
}

/** Free play: is the deal one of today's puzzles' (a hint would be refused, 403, an error in
 * the console)? Asked once, before the first hint; days ahead are unknown here (hinting.js). */
function isOpenDeal() {
  if (state.mode !== 'free') {
    return Promise.resolve(false);
  }
  state.openDeal ??= call('/v1/puzzles/daily/today').then((answer) => {
    const shape = dealShape(newRecorder().game.piles.map((p) => p.map(cardName)));
    const today = answer.ok && Array.isArray(answer.data.puzzles) ? answer.data.puzzles : [];
    return today.some((p) => Array.isArray(p.deal?.piles) && dealShape(p.deal.piles) === shape);
  }, () => false);
  return state.openDeal;
}

/** Show `text` as the help's answer for the position after `at` steps (hidden once it moves on). */
function helpNote(text, status, at) {
  const note = $('hint-note');
  note.textContent = text;
  note.dataset.status = status;
  note.className = 'hint-note' + (status === 'error' || status === 'no-win' ? ' error' : '');
  state.helpAt = at;
  if (status !== 'win-next') {
    delete note.dataset.step;
  }
  note.hidden = at === null;
}

function renderHelp(hint) {
  const note = $('hint-note');
  if (state.helpAt !== state.steps.length && !state.helpPending) {
    note.hidden = true;
  }
  $('redeal').classList.toggle('hinted', hint?.step.type === 'redeal');
  $('hint').disabled = Boolean(state.helpPending) || state.givenUp || game().isWon();
  $('winnable').disabled = $('hint').disabled;
}

function renderChoice() {
  const box = $('choice');
  box.replaceChildren();
  box.hidden = state.selected === null;
  if (state.selected === null) {
    return;
  }
  const label = document.createElement('span');
  label.textContent = t('play.choice-label', { card: cardText(game().top(state.selected)) });
  box.append(label);
  const touch = touchScreen(); // the choice names the pile; on a touch screen no key
  for (const m of state.options) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.choice = m.target === null ? 'foundation' : String(m.target);
    const words = { onto: m.target === null ? '' : cardText(game().top(m.target)), pile: m.target, key: targetKey(m.target) };
    b.textContent = m.target === null
      ? t(touch ? 'play.choice-foundation' : 'play.choice-foundation-key', words)
      : t(touch ? 'play.choice-pile' : 'play.choice-pile-key', words);
    b.addEventListener('click', () => play(m));
    box.append(b);
  }
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.textContent = t(touch ? 'play.choice-cancel' : 'play.choice-cancel-key');
  cancel.addEventListener('click', () => {
    clearChoice();
    render();
  });
  box.append(cancel);
}

/** Server milliseconds as `12.4 s` in the page's language. */
function seconds(ms) {
  return t('site.seconds', { s: formatNumber(ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
}

function versusWords(gap) {
  if (gap > 0) {
    return t('play.over-par', { n: gap });
  }
  return gap < 0 ? t('play.under-par', { n: -gap }) : t('play.at-par');
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
  updateWin(outcome === 'won' && !state.givenUp);
  if (state.givenUp) {
    end.hidden = false;
    $('end-title').textContent = t('play.given-up-title');
    $('end-text').textContent = t('play.given-up-text');
    $('result').replaceChildren();
    actions.append(endButton(t('play.play-again'), playAgain));
    return;
  }
  if (outcome === 'in_progress') {
    end.hidden = true;
    return;
  }
  end.hidden = false;
  const par = state.puzzle.par?.actions;
  const live = state.live;
  if (outcome === 'won') {
    if (!state.finishedAt) {
      state.finishedAt = localTime();
      recordGame(gameLog());
      saveProgress();
      showStats();
      winMoment(); // celebrate.js: the cards cascade, the result in a dialog
    }
    $('end-title').textContent = t('play.won-title');
    const n = g.moves + g.redeals;
    const counts = { n, moves: g.moves, redeals: g.redeals };
    $('end-text').textContent = par ? t('play.won-text-par', { ...counts, par, versus: versusWords(n - par) })
      : t('play.won-text', counts);
    if (live && live.entry) {
      showResult(live.entry, live.flags);
    } else if (liveActive()) {
      showNote(t('play.recording-win'), '', 'pending');
    } else if (live && live.status === 'failed') {
      showNote(t('play.win-not-recorded', { reason: live.note }), 'error', 'failed');
    } else if (live) {
      showNote(t('play.not-ranked', { status: live.status }), 'error', live.status);
    } else if (state.mode !== 'daily') {
      showNote(t(state.mode === 'free' ? 'play.won-free' : 'play.won-practice'), '', state.mode);
    } else {
      showNote(t('play.played-unranked'), '', 'unranked');
    }
  } else {
    $('end-title').textContent = t('play.blocked-title');
    $('end-text').textContent = t('play.blocked-text');
    $('result').replaceChildren();
    actions.append(endButton(t('play.undo'), undo));
  }
  actions.append(outcome === 'won' ? endButton(t('play.play-again'), playAgain)
    : endButton(state.restartArmed ? t('play.restart-really') : t('play.restart'), restart));
}

/** Start a finished game's deal over at once: nothing is lost, so nothing to confirm. */
function playAgain() {
  state.restartArmed = true;
  restart();
}

function showNote(text, kind, verdict) {
  const p = document.createElement('p');
  p.className = kind;
  p.dataset.verdict = verdict;
  p.textContent = text;
  $('result').replaceChildren(p);
}

/** The live attempt's state in one line above the board (data-status, data-pending: for tests
 * and for people: is every step recorded?). */
function renderLive() {
  const box = $('live-status');
  const live = state.live;
  const pending = live ? live.queue.length + (live.sending ? 1 : 0) : 0;
  const ready = !live && rankedName() && !state.steps.length;
  box.dataset.status = live ? live.status : ready ? 'ready' : 'unranked';
  box.dataset.pending = String(pending);
  if (state.mode !== 'daily') {
    box.dataset.status = state.mode;
    box.textContent = state.modeNote;
    return;
  }
  let text;
  if (!live) {
    text = ready ? t('play.live-ready', { name: rankedName() })
      : rankedName() ? t('play.live-began-unranked') : t('play.live-unranked');
  } else if (liveActive()) {
    text = t(pending ? 'play.live-sending' : 'play.live-recorded', { name: live.player }) +
      (live.status === 'blocked' ? t('play.live-blocked') : '');
  } else if (live.status === 'won') {
    text = live.elapsedMs != null ? t('play.live-won', { name: live.player, time: seconds(live.elapsedMs) })
      : t('play.live-won-plain', { name: live.player });
  } else if (live.status === 'failed') {
    text = t('play.live-failed');
  } else {
    const how = has(`play.live-how.${live.status}`) ? t(`play.live-how.${live.status}`) : live.status;
    text = t('play.live-ended', { how });
  }
  box.textContent = text;
}

function showResult(result, flags = []) {
  const box = $('result');
  const p = document.createElement('p');
  const link = document.createElement('a');
  link.href = `/leaderboard/${encodeURIComponent(puzzleId)}`;
  link.textContent = t('play.see-leaderboard');
  if (result.accepted) {
    p.className = 'ok';
    const optimal = result.optimal ? t('play.result-optimal') : '';
    p.textContent = t('play.result', {
      what: t(result.duplicate ? 'play.already' : 'play.accepted'),
      rank: result.rank ?? '–', player: result.player, actions: result.actions,
      versus: versusWords(result.versus_par), optimal: result.versus_par <= 0 ? optimal : '',
      time: result.elapsed_ms !== null && result.elapsed_ms !== undefined
        ? t('play.result-time', { time: seconds(result.elapsed_ms) }) : '',
    });
    p.dataset.verdict = 'accepted';
    if (flags.length || isHeld(result)) {
      p.textContent += t('play.held');
      p.dataset.verdict = 'held';
    }
  } else {
    p.className = 'error';
    p.textContent = t('play.not-accepted', { reason: result.reason?.message ?? t('play.rejected') });
    p.dataset.verdict = 'rejected';
  }
  p.append(link);
  box.replaceChildren(p);
}

/** A win the server flagged (too fast for a person): kept off the board until a moderator
 * clears it. */
function isHeld(result) {
  return Boolean(result.flagged || result.held || result.status === 'held' || result.review);
}

// --- the win moment and sound (win.js and sound.js, loaded when first needed: the first load
// stays light) -----------------------------------------------------------------------------------

/** A win, just now: a sound, the cards cascade, the result in a dialog (win.js). */
function winMoment() {
  sound('win');
  state.win = import('./win.js').then((m) => m.winMoment({
    game, puzzle: state.puzzle, steps: () => state.steps, deal: () => newRecorder().game,
    live: () => state.live, recording: liveActive, held: isHeld, mode: state.mode,
    times: () => [state.startedAt, state.finishedAt], board: $('board'),
    replay: () => inMotion.moves?.view(0),
    again: () => {
      state.restartArmed = true; // the game is over: start again at once
      restart();
    },
  }));
}

/** Keep the open dialog in step with the game: the rank once the server answers; closed when
 * the game is no longer won (a start over). */
function updateWin(won) {
  state.win?.then((w) => {
    if (!won) {
      w.close();
      state.win = null;
    } else if (w.el.open) {
      w.update();
    }
  });
}

/** Sound (sound.js), off until the player turns it on under the board's settings. */
function sound(kind) {
  if ($('sound')?.checked) {
    import('./sound.js').then((m) => m.playSound(kind));
  }
}

function setupSound() {
  const box = $('sound');
  try {
    box.checked = localStorage.getItem('cruel.sound') === 'on'; // sound.js's SOUND_KEY
  } catch {
    box.checked = false;
  }
  box.addEventListener('change', () => store('cruel.sound', box.checked ? 'on' : 'off'));
}

// --- input -----------------------------------------------------------------------------------

/** A click on the board (pointer.js): a card, or a foundation to send the chosen card to. */
function onBoardClick(card) {
  state.clickedPile = card?.dataset.pile ? Number(card.dataset.pile) : null;
  if (!card) {
    return;
  }
  if (card.dataset.target === 'foundation') {
    if (state.selected !== null) {
      moveTo(null);
    } else {
      say(t('play.choose-card-first'), 'error');
    }
    return;
  }
  activatePile(Number(card.dataset.pile));
}

/** The second click of a double-click (or double-tap) on a card: sends the card of the first
 * click's pile (the board may have moved under the pointer) to the foundation when that click
 * offered it among its places; after a first click that played a step, does nothing more (the
 * card has gone). True when the click is handled. */
function secondClick() {
  const n = state.clickedPile;
  if (n === null) {
    return false;
  }
  state.clickedPile = null;
  const home = state.selected === n ? state.options.find((m) => m.target === null) : undefined;
  if (home) {
    play(home);
  } else if (state.selected === n) {
    say(t('play.no-foundation-move', { card: cardText(game().top(n)) }), 'error');
  }
  return true;
}

/** A card of pile `source` dropped on pile `target` (null: the foundation). */
function onDrop(source, target) {
  state.selected = null;
  state.options = [];
  const offered = game().cardMoves().find((m) => m.source === source && m.target === target);
  play(offered ?? move(source, target));
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
  if (!state.rec || event.altKey || event.metaKey || $('keys-dialog').open) {
    return; // the keyboard help is open: its keys are for it (Esc closes it)
  }
  const field = event.target;
  if (field && (field.tagName === 'INPUT' || field.tagName === 'TEXTAREA' || field.tagName === 'SELECT' || field.isContentEditable)) {
    return;
  }
  const key = event.key;
  if (event.ctrlKey) {
    // Ctrl+Z undoes; Ctrl+Y and Ctrl+Shift+Z redo, as in most programs.
    if ((key === 'z' || key === 'Z') && !event.shiftKey) {
      event.preventDefault();
      undo();
    } else if (key === 'y' || key === 'Y' || key === 'z' || key === 'Z') {
      event.preventDefault();
      redo();
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
  } else if ((key === 'h' || key === 'H') && state.mode !== 'daily') {
    event.preventDefault();
    askHelp('hint');
  } else if (key === 'Escape') {
    if (state.selected !== null) {
      clearChoice();
      say(t('play.choice-cancelled'));
      render();
    }
  } else if (key === '?') {
    event.preventDefault();
    showKeys();
  }
}

/** The keyboard help, over the page (a modal dialog: Esc or Close shuts it, and the board
 * stays where it was; issue #36). */
function showKeys() {
  const dialog = $('keys-dialog');
  if (!dialog.open) {
    dialog.showModal();
  }
}

function togglePreview() {
  state.preview = !state.preview;
  say(state.preview ? t('play.preview-shown') : t('play.preview-hidden'));
  render();
}

function showStats() {
  renderStats($('stats'), undefined, gameDay()); // streaks to the game day (gameday.js)
}

// --- a game in motion: the move list and the clock (motion.js) --------------------------

const inMotion = { moves: null, clock: null };

function startInMotion() {
  inMotion.moves = new MoveList({
    list: $('move-list'), empty: $('moves-empty'), bar: $('past-bar'), board: $('board'),
    past: $('past-board'), deal: () => newRecorder().game,
  });
  inMotion.moves.update(state.steps, state.autos);
  inMotion.clock = startClock($('clock'), () => ({
    start: state.startedAt,
    end: state.finishedAt,
    serverMs: state.live?.status === 'won' ? state.live.elapsedMs ?? null : null,
    over: game().outcome() !== 'in_progress' || Boolean(state.givenUp),
    now: gameNow,
  }));
}

function rulesWords(spec) {
  const r = rulesOf(spec);
  const parts = [t('play.rules', { preset: r.preset })];
  parts.push(t(r.run_moves ? 'play.rules-runs' : 'play.rules-single'));
  parts.push(r.max_redeals === null ? t('play.rules-unlimited') : tn('play.rules-max', r.max_redeals));
  if (r.redeal_only_when_stuck) {
    parts.push(t('play.rules-stuck'));
  }
  return parts.join(', ') + '.';
}

// --- start -----------------------------------------------------------------------------------

/** What to play: a free deal (from the address), or the puzzle, open (daily) or closed
 * (practice: the service's date, GET /v1/health, is on or after its solution_from). Null when
 * there is nothing to play (the page says why). */
async function loadGame() {
  fillFreeForm($('free-form'), route);
  if (route.kind === 'free') {
    $('leaderboard-link').hidden = true;
    // Free play is never ranked: no word of it.
    $('ranked').hidden = true;
    document.querySelector('[data-i18n="play.auto-ranked-note"]')?.setAttribute('hidden', '');
    if (route.error) {
      $('title').textContent = t('play.free-title-bad');
      say(route.error, 'error');
      $('message').dataset.code = 'bad-free-play';
      return null;
    }
    state.mode = 'free';
    return freePuzzle(route.number, route.rules);
  }
  $('leaderboard-link').href = `/leaderboard/${encodeURIComponent(puzzleId)}`;
  let answer;
  let health;
  try {
    const path = `/v1/puzzles/${encodeURIComponent(puzzleId)}`; // started early by gameday.js
    [answer, health] = await Promise.all([early(path) ?? call(path), early('/v1/health') ?? call('/v1/health')]);
  } catch (e) {
    say(t('play.unreachable', { detail: e.message }), 'error');
    return null;
  }
  if (!answer.ok) {
    $('title').textContent = t('play.no-such');
    say(apiErrorText({ status: answer.status, code: 'http', message: `the service answered ${answer.status}`, ...answer.data }), 'error');
    $('message').dataset.code = answer.data?.code ?? '';
    return null;
  }
  const today = health.ok ? health.data.today : null;
  learnGameDay(today ?? undefined).then(showStats); // the game day: no second request
  const from = answer.data.solution_from;
  state.mode = typeof today === 'string' && typeof from === 'string' && today >= from ? 'practice' : 'daily';
  return answer.data;
}

/** The heading, the counters' par and the line that says what kind of game this is. */
function showGame(puzzle) {
  if (puzzle.free) {
    document.title = t('play.free-doc-title', { number: puzzle.deal.number });
    $('title').textContent = t('play.free-title', { number: puzzle.deal.number, rules: puzzle.rules });
    $('puzzle-meta').textContent = t('play.free-meta');
  } else {
    document.title = t('play.doc-title-puzzle', { id: puzzle.id });
    $('title').textContent = t('play.title', {
      date: formatDay(puzzle.date), tier: has(`tier.${puzzle.tier}`) ? t(`tier.${puzzle.tier}`) : puzzle.tier,
    });
    $('puzzle-meta').textContent = t('play.meta', { id: puzzle.id, par: puzzle.par?.actions ?? '?' });
  }
  $('par').textContent = String(puzzle.par?.actions ?? '–');
  $('rules-text').textContent = rulesWords(puzzle.rules);
  // Practice and free play say so on the status line, before the first move (renderLive).
  state.modeNote = state.mode === 'practice' ? t('play.practice-note', { date: formatDay(puzzle.solution_from) })
    : state.mode === 'free' ? t('play.free-note') : '';
  $('hint-tools').hidden = state.mode === 'daily';
  $('hints-off').hidden = state.mode !== 'daily';
  $('hints-off').textContent = state.mode === 'daily' ? t('play.hints-off-open') : '';
}

async function start() {
  const puzzle = await loadGame();
  if (puzzle === null) {
    return;
  }
  state.puzzle = puzzle;
  showGame(puzzle);

  const saved = load(KEYS.progress);
  let steps = [];
  let autos = [];
  let savedLive = null;
  if (saved && Array.isArray(saved.steps)) {
    try {
      steps = saved.steps.map(readEntry);
    } catch {
      steps = [];
    }
    autos = Array.isArray(saved.auto) ? saved.auto : [];
    state.startedAt = typeof saved.started_at === 'string' ? saved.started_at : null;
    state.finishedAt = typeof saved.finished_at === 'string' ? saved.finished_at : null;
    if (saved.live && typeof saved.live.id === 'string' && typeof saved.live.player === 'string' &&
      state.mode === 'daily') {
      savedLive = saved.live;
    }
    state.givenUp = saved.given_up === true && state.finishedAt !== null;
  }
  replay(steps, autos);

  const board = $('board');
  attachPointer(board, {
    click: onBoardClick, second: secondClick, drop: onDrop, nowhere: () => say(t('play.dropped-nowhere')),
  });
  document.addEventListener('keydown', onKey);
  $('redeal').addEventListener('click', redeal);
  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('preview').addEventListener('click', togglePreview);
  $('restart').addEventListener('click', restart);
  $('give-up').addEventListener('click', () => giveUp());
  $('keys-open').addEventListener('click', showKeys);
  $('hint').addEventListener('click', () => askHelp('hint'));
  $('winnable').addEventListener('click', () => askHelp('winnable'));
  setupSound();
  const auto = $('auto-moves');
  auto.checked = autoSetting() === 'foundations';
  auto.addEventListener('change', () => {
    store(KEYS.auto, auto.checked ? 'foundations' : 'off');
    say(liveActive() ? t('play.auto-next')
      : t(auto.checked ? 'play.auto-on' : 'play.auto-off'));
    if (!state.finishedAt) {
      scheduleAutos();
    }
  });
  $('claim-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = $('claim-name').value.trim(); // before the panel draws its own form
    (await panel()).claim(name);
  });
  $('show-link').addEventListener('click', async () => {
    const name = $('claim-name').value.trim();
    (await panel()).showLink(name);
  });

  $('game').hidden = false;
  render();
  say(state.steps.length
    ? tn('play.restored', state.steps.length)
    : touchScreen() ? t('play.start-touch')
      : t('play.intro'));
  board.dataset.ready = 'true';
  performance.mark('board-ready');
  startInMotion();
  showStats();
  learnGameDay().then(showStats); // free play: asked now (a puzzle's page knows it already)
  if (savedLive) {
    restoreLive(savedLive);
  } else if (!state.finishedAt) {
    scheduleAutos(); // a reload in the middle of a run of automatic moves finishes it
  }
  if (storedName() && state.mode !== 'free') {
    (await panel()).claimRemembered();
  }
}

/** The Ranked play panel (players.js), loaded when the player has a name or asks for one:
 * unranked play does without it (the page's weight, docs/web.md). */
function panel() {
  state.panel ??= import('./players.js').then((m) => m.renderPlayerPanel($('ranked'), { onChange: playerChanged }));
  return state.panel;
}

/** The ranked name changed (claimed, linked, forgotten, deleted). */
function playerChanged() {
  if (!state.live && state.steps.length && rankedName() && state.mode === 'daily') {
    say(t('play.stays-unranked'));
  }
  render();
}

start();
