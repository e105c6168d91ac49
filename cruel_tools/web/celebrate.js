/**
 * celebrate.js: the win moment (docs/web.md "The win moment"). Loaded by the play page at a
 * win, not before (the page's weight).
 *
 * - `cascade(board)`: the cards leave the foundations, kings first, and bounce off down the
 *   screen, as in the Solitaire of Windows; a layer of their own over the page, which nothing
 *   can click, removed when the last card is gone. Under `prefers-reduced-motion: reduce`
 *   nothing moves: no layer, no animation.
 * - `openWin(content)`: the result in a modal dialog over the board, in view at every size
 *   (the top layer, centred; it scrolls inside itself if a screen is too short): the title,
 *   lines of result (actions against par, time, rank, streak), and the next things to do;
 *   the focus moves into it, Esc or Close closes it, and the board is there behind it.
 *
 * @module celebrate
 */

import { makeCard, SUITS, SUIT_SYMBOLS, KING } from './cruel.js';
import { cardFace } from './board.js';
import { reducedMotion } from './motion.js';
import { t } from './i18n.js';

/** How long each card bounces, and the time between two cards leaving, in ms. */
const FLIGHT_MS = 2200;
const STAGGER_MS = 45;

/**
 * The keyframes of a card thrown from `rect` (its place on the foundation): it falls, bounces
 * on the bottom of the window, losing speed at each bounce, and goes off to one side.
 * @returns {Keyframe[]} transforms, one every 1/30 s
 */
function bounce(rect, index) {
  const floor = innerHeight - rect.height;
  const dir = index % 2 ? 1 : -1;
  const vx0 = dir * (4 + ((index * 7) % 5)); // px a frame: each card its own arc
  let vy = -(6 + ((index * 3) % 7));
  let x = 0;
  let y = 0;
  const frames = [];
  for (let f = 0; f < (FLIGHT_MS / 1000) * 60; f++) {
    x += vx0;
    vy += 0.9; // gravity
    y += vy;
    if (rect.top + y > floor) {
      y = floor - rect.top;
      vy = -vy * 0.72;
    }
    if (f % 2 === 0) {
      frames.push({ transform: `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px)` });
    }
  }
  return frames;
}

/** A card as the foundations show it (a face and a pip), for the cascade only. */
function flyingCard(card, suit, rect) {
  const el = document.createElement('div');
  el.className = `card top flying${suit === 1 || suit === 2 ? ' red' : ''}`;
  const face = document.createElement('span');
  face.className = 'face';
  face.textContent = cardFace(card);
  const pip = document.createElement('span');
  pip.className = 'pip';
  pip.textContent = SUIT_SYMBOLS[suit];
  el.append(face, pip);
  Object.assign(el.style, {
    left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px`,
  });
  return el;
}

/**
 * Throw the cards off the foundations of `board`, kings first, one suit after another.
 * @param {HTMLElement} board the play page's board (board.js's foundations, `data-suit`)
 * @param {number} [perSuit] how many cards of each suit fly (13: the whole pack)
 * @param {HTMLElement} [host] where the flying cards are drawn (a `<cruel-game>`'s shadow root
 *   keeps its own)
 * @returns {number} how many cards fly (0 under reduced motion, or with no foundation shown)
 */
export function cascade(board, perSuit = 13, host = document.body) {
  const founds = [...board.querySelectorAll('.foundation[data-suit]')];
  if (reducedMotion() || !founds.length) {
    return 0;
  }
  const layer = document.createElement('div');
  layer.className = 'cascade';
  layer.setAttribute('aria-hidden', 'true');
  host.append(layer);
  const runs = [];
  for (let rank = KING; rank > KING - perSuit; rank--) {
    for (const found of founds) {
      const suit = SUITS.indexOf(found.dataset.suit);
      const rect = found.getBoundingClientRect();
      const el = flyingCard(makeCard(suit, rank), suit, rect);
      layer.append(el);
      const delay = runs.length * STAGGER_MS;
      runs.push(el.animate(bounce(rect, runs.length), { duration: FLIGHT_MS, delay, fill: 'both' }).finished);
    }
  }
  document.documentElement.dataset.celebrating = 'true';
  Promise.allSettled(runs).then(() => {
    layer.remove();
    delete document.documentElement.dataset.celebrating;
  });
  return runs.length;
}

function h(tag, attrs = {}, text = '') {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    el.setAttribute(k, v);
  }
  el.textContent = text;
  return el;
}

/** An action of the dialog: a link (`href`) or a button (`run`); `key` names it for tests. */
function actionElement(action, close) {
  const el = action.href ? h('a', { href: action.href, class: 'button' }, action.text)
    : h('button', { type: 'button' }, action.text);
  el.dataset.action = action.key;
  if (action.primary) {
    el.classList.add('primary');
  }
  if (action.run) {
    el.addEventListener('click', () => action.run({ close, note }));
  }
  return el;
}

let dialog = null;

/** A note under the actions (`Copied:`), the text shared below it, and how it went
 * (`data-shared`: shared, copied, manual). */
function note(text, shared = '', how = '') {
  dialog.querySelector('.win-note').textContent = text;
  dialog.dataset.shared = how;
  const pre = dialog.querySelector('.share-text');
  pre.textContent = shared;
  pre.hidden = !shared;
}

/**
 * Open the win dialog (or fill it again, if open).
 * @param {{title: string, lines: Array<{key: string, text: string}>,
 *   actions: Array<{key: string, text: string, href?: string, run?: Function, primary?: boolean}>}} content
 * @param {() => void} [onClose] called when the player closes it (Esc, Close, an action that closes)
 * @param {HTMLElement} [host] where the dialog goes (a `<cruel-game>` keeps it in its shadow root)
 * @returns {{update: (lines: Array<{key: string, text: string}>) => void, close: () => void, el: HTMLDialogElement}}
 */
export function openWin(content, onClose = () => {}, host = document.body) {
  dialog?.remove();
  dialog = h('dialog', { id: 'win', class: 'win', 'aria-labelledby': 'win-title' });
  const close = () => dialog.open && dialog.close();
  const closeButton = h('button', { type: 'button', class: 'win-close' }, t('win.close'));
  closeButton.addEventListener('click', close);
  const lines = h('ul', { class: 'win-lines' });
  const actions = h('div', { class: 'toolbar win-actions' });
  actions.append(...content.actions.map((a) => actionElement(a, close)));
  dialog.append(closeButton, h('h2', { id: 'win-title' }, content.title), lines, actions,
    h('p', { class: 'win-note', role: 'status' }), h('pre', { class: 'share-text', hidden: '' }));
  const update = (rows) => lines.replaceChildren(...rows.map((r) => {
    const li = h('li', {}, r.text);
    li.dataset.line = r.key;
    return li;
  }));
  update(content.lines);
  dialog.addEventListener('close', onClose);
  host.append(dialog);
  dialog.showModal();
  (actions.querySelector('.primary') ?? actions.firstElementChild ?? closeButton).focus();
  return { update, close, el: dialog };
}
