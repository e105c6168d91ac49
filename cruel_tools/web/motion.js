/**
 * motion.js: a game in motion (docs/web.md "A game in motion"): card moves animated, the clock,
 * the move list with its past positions, and the words of an undone step.
 *
 * Cards that move are seen moving. Before a board is drawn again, `snapshot(container)` notes where each card is; after, `flip(container,
 * before)` starts each card that changed place at its old place and slides it to the new one
 * (the FLIP technique: First, Last, Invert, Play, with a Web Animation of `transform`; the
 * layout itself never moves, so nothing else on the page shifts). Under
 * `prefers-reduced-motion: reduce` nothing is animated: the cards are simply in their new place.
 *
 * The clock runs here too: it counts from the game's first move (`started_at`, which is also
 * when the server's clock of a ranked game starts) to now, and stops at the end (a won ranked
 * game shows the server's own time); `m:ss`, `h:mm:ss` past an hour; 0:00, still, before the
 * first move. And `touchScreen()`: whether the page speaks of taps rather than keys.
 *
 * The move list (`MoveList`): the steps played, each in the player's words (`5♥ 3→7`, `2♣ 3→foundation`, `Redeal`; an automatic move marked), and
 * a read-only view of the position after any of them: click a step, and the board shows the
 * position then (the live board is kept as it is, hidden), with a bar to step through the game
 * and a way back (the button, or Esc). Any new step of the live game closes the view.
 * Also the words of an undone step: `Undone: 5♥ from pile 1 onto pile 9`, `Undone: redeal`.
 *
 * @module motion
 */

import { stepText } from './cruel.js';
import { renderBoard } from './board.js';
import { cardText } from './words.js';
import { t } from './i18n.js';

const touch = globalThis.matchMedia?.('(hover: none), (pointer: coarse)');

/** Whether the page is on a touch screen (no hover, or a coarse pointer): the page then speaks
 * of taps and piles, never of keys (docs/web.md "Phones"). */
export function touchScreen() {
  return Boolean(touch?.matches);
}

/** How long a card takes to reach its new place, in ms (a redeal: every card at once). */
export const DURATION = 180;

const reduced = globalThis.matchMedia?.('(prefers-reduced-motion: reduce)');

/** Whether the player asked for less motion (read on every move: the setting may change). */
export function reducedMotion() {
  return Boolean(reduced?.matches);
}

/**
 * Where each card of a board is now: {card name: DOMRect}.
 * @param {HTMLElement} container a board drawn by board.js (cards have `data-card`)
 * @returns {Map<string, DOMRect>}
 */
export function snapshot(container) {
  const places = new Map();
  if (!container || reducedMotion()) {
    return places;
  }
  for (const el of container.querySelectorAll('.card[data-card]')) {
    places.set(el.dataset.card, el.getBoundingClientRect());
  }
  return places;
}

/**
 * Slide every card of `container` that is not where `before` saw it from its old place to its
 * new one. Cards new to the board (none in Cruel) and cards that did not move are left alone.
 * @param {HTMLElement} container
 * @param {Map<string, DOMRect>} before from {@link snapshot}, taken before the board was drawn
 * @returns {number} how many cards move
 */
export function flip(container, before) {
  if (!container || !before.size || reducedMotion()) {
    return 0;
  }
  let moving = 0;
  for (const el of container.querySelectorAll('.card[data-card]')) {
    const old = before.get(el.dataset.card);
    if (!old) {
      continue;
    }
    const now = el.getBoundingClientRect();
    const dx = old.left - now.left;
    const dy = old.top - now.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) {
      continue;
    }
    moving += 1;
    el.classList.add('moving');
    const run = el.animate(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'translate(0, 0)' }],
      { duration: DURATION, easing: 'cubic-bezier(.2, .7, .3, 1)' },
    );
    const done = () => el.classList.remove('moving');
    run.onfinish = done;
    run.oncancel = done;
  }
  return moving;
}

// --- the clock -------------------------------------------------------------------------------

/** Elapsed time as the clock shows it: `0:07`, `12:30`, `1:02:03`. */
export function clockText(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/**
 * Keep `el` showing the game's time, once a second and on `update()`.
 * @param {HTMLElement} el the clock (its `data-running` says whether it runs, `data-ms` the ms)
 * @param {() => {start: string|null, end: string|null, serverMs: number|null, over: boolean,
 *   now: () => Date}} read the game's times: its start and end (ISO), the server's time of a
 *   won ranked game, whether the game is over (won or no move left), and the clock's now
 * @returns {{update: () => void, stop: () => void}}
 */
export function startClock(el, read) {
  let frozen = null; // the time shown when the game stopped without an end time (no move left)
  const update = () => {
    const { start, end, serverMs, over, now } = read();
    let ms = 0;
    let running = false;
    if (serverMs !== null && serverMs !== undefined) {
      ms = serverMs;
    } else if (start) {
      const from = Date.parse(start);
      if (!Number.isNaN(from)) {
        if (end) {
          ms = Date.parse(end) - from;
        } else if (over) {
          frozen ??= now().getTime() - from;
          ms = frozen;
        } else {
          ms = now().getTime() - from;
          running = true;
        }
      }
    }
    if (!over) {
      frozen = null;
    }
    const text = clockText(ms);
    if (el.textContent !== text) {
      el.textContent = text;
    }
    el.dataset.running = String(running);
    el.dataset.ms = String(Math.max(0, Math.round(ms)));
  };
  update();
  const timer = setInterval(update, 1000);
  return { update, stop: () => clearInterval(timer) };
}

// --- the move list ---------------------------------------------------------------------------

/** The card a step moves in `game` (the deepest card of a run), or null (a redeal). */
function movedCard(game, step) {
  if (step.type === 'redeal') {
    return null;
  }
  const src = game.piles[step.source - 1] ?? [];
  const card = src[src.length - (step.count ?? 1)];
  return card === undefined ? null : card;
}

/** A step in the list's short words, on the game before it: `5♥ 3→7`, `2♣ 3→foundation`. */
export function stepLabel(step, game) {
  if (step.type === 'redeal') {
    return t('moves.redeal');
  }
  const card = cardText(movedCard(game, step));
  const count = step.count ?? 1;
  if (step.target === null) {
    return t('moves.foundation', { card, source: step.source });
  }
  return count > 1
    ? t('moves.run', { card, count, source: step.source, target: step.target })
    : t('moves.pile', { card, source: step.source, target: step.target });
}

/** An undone step in words, on the game before it: `Undone: 5♥ from pile 1 onto pile 9`. */
export function undoneWords(step, game) {
  if (step.type === 'redeal') {
    return t('moves.undone-redeal');
  }
  const card = cardText(movedCard(game, step));
  return step.target === null
    ? t('moves.undone-foundation', { card, source: step.source })
    : t('moves.undone-pile', { card, source: step.source, target: step.target });
}

function button(text, handler, attrs = {}) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  for (const [k, v] of Object.entries(attrs)) {
    b.setAttribute(k, v);
  }
  b.addEventListener('click', handler);
  return b;
}

/**
 * The move list of a page: `list` (an `ol`), `empty` (the text shown before the first step),
 * `bar` (the view's bar), `board` (the live board's container) and `past` (the view's board
 * container); `deal()` gives a fresh game at the deal (a cruel.js Game).
 */
export class MoveList {
  constructor({ list, empty, bar, board, past, deal }) {
    Object.assign(this, { list, empty, bar, board, past, deal });
    this.steps = [];
    this.autos = [];
    this.labels = [];
    this.cards = []; // the card each step moved (for the view's highlight)
    this.texts = [];
    this.game = null; // the game after the labelled steps
    this.viewing = null; // the step shown (1..n), or null: the live board
    list.addEventListener('click', (event) => {
      const b = event.target.closest('button[data-step]');
      if (b) {
        this.view(Number(b.dataset.step));
      }
    });
    document.addEventListener('keydown', (event) => {
      if (this.viewing !== null && event.key === 'Escape') {
        event.preventDefault();
        event.stopImmediatePropagation();
        this.back();
      }
    }, true);
  }

  /** The live game's line changed (or not): relabel what is new, redraw the list. */
  update(steps, autos) {
    const texts = steps.map(stepText);
    let same = 0;
    while (same < texts.length && same < this.texts.length && texts[same] === this.texts[same]) {
      same++;
    }
    if (same < this.texts.length || this.game === null) {
      this.game = this.deal();
      this.labels = [];
      this.cards = [];
      same = 0;
    }
    for (let i = same; i < steps.length; i++) {
      this.labels.push(stepLabel(steps[i], this.game));
      this.cards.push(movedCard(this.game, steps[i]));
      this.game.push(steps[i]);
    }
    const changed = texts.length !== this.texts.length || same < this.texts.length;
    this.steps = steps.slice();
    this.autos = autos.slice();
    this.texts = texts;
    if (changed && this.viewing !== null) {
      this.back(false);
    }
    this.draw();
  }

  draw() {
    const keepBottom = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 4;
    this.empty.hidden = this.steps.length > 0;
    const items = this.labels.map((label, i) => {
      const li = document.createElement('li');
      const b = button('', () => {}, { 'data-step': String(i + 1) });
      const no = document.createElement('span');
      no.className = 'step-no';
      no.textContent = `${i + 1}.`;
      b.append(no, ` ${label}`);
      if (this.autos[i]) {
        const mark = document.createElement('span');
        mark.className = 'auto-mark';
        mark.textContent = t('moves.auto');
        mark.title = t('moves.auto-title');
        b.append(' ', mark);
        li.dataset.auto = 'true';
      }
      if (this.viewing === i + 1) {
        li.setAttribute('aria-current', 'step');
      }
      b.setAttribute('aria-label', t('moves.show-step', { n: i + 1, step: label }));
      li.append(b);
      return li;
    });
    this.list.replaceChildren(...items);
    if (keepBottom && this.viewing === null) {
      this.list.scrollTop = this.list.scrollHeight;
    }
  }

  /** Show the position after step `n` (0: the deal), read-only. */
  view(n) {
    const last = this.steps.length;
    if (!last) {
      return;
    }
    const at = Math.max(0, Math.min(n, last));
    const game = this.deal();
    for (let i = 0; i < at; i++) {
      game.push(this.steps[i]);
    }
    const first = this.viewing === null;
    this.viewing = at;
    renderBoard(this.past, game, {
      highlight: at ? this.cards[at - 1] : null,
      label: t('moves.past-label', { n: at }),
      idPrefix: 'past',
    });
    this.board.hidden = true;
    this.past.hidden = false;
    const text = document.createElement('span');
    text.className = 'past-text';
    text.textContent = at
      ? t('moves.viewing', { n: at, total: last, step: this.labels[at - 1] })
      : t('moves.viewing-deal', { total: last });
    const back = button(t('moves.back-live'), () => this.back(), { id: 'past-back', class: 'primary' });
    this.bar.replaceChildren(
      text,
      button('◀', () => this.view(at - 1), {
        id: 'past-prev', 'aria-label': t('moves.previous'), title: t('moves.previous'),
        ...(at === 0 ? { disabled: '' } : {}),
      }),
      button('▶', () => this.view(at + 1), {
        id: 'past-next', 'aria-label': t('moves.next'), title: t('moves.next'),
        ...(at === last ? { disabled: '' } : {}),
      }),
      back,
    );
    this.bar.hidden = false;
    this.bar.dataset.step = String(at);
    this.draw();
    if (first) {
      back.focus();
    }
  }

  /** Back to the live position. */
  back(focus = true) {
    if (this.viewing === null) {
      return;
    }
    this.viewing = null;
    this.bar.hidden = true;
    this.bar.replaceChildren();
    this.past.hidden = true;
    this.past.replaceChildren();
    this.board.hidden = false;
    this.draw();
    if (focus) {
      this.board.querySelector('button.card')?.focus();
    }
  }
}
