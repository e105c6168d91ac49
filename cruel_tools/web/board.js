// board.js: draws a Cruel position (12 piles and 4 foundations) into a container.
// Used by the play, replay and leaderboard pages (docs/web.md). It draws; it knows no rule:
// every rule comes from cruel.js.

import { parseCard, cardSuit, cardName, SUITS, SUIT_SYMBOLS, KING } from './cruel.js';
import { t } from './i18n.js';
import { cardText, cardWords, suitWords } from './words.js';

export { cardWords };

function toCard(c) {
  return typeof c === 'string' ? parseCard(c) : c;
}

/** A target's label: `words (move here)`, with its key when it has one. */
function moveHere(words, key) {
  return key ? t('board.move-here-key', { what: words, key }) : t('board.move-here', { what: words });
}

/** "7♥" with the rank as printed on the card in the player's language (words.js). */
export function cardFace(card) {
  return cardText(toCard(card));
}

/**
 * A position in one shape, from a cruel.js Game or a plain object.
 * @param {object} position a Game, or {piles: [[card names or ints, bottom to top] x12],
 *   foundations: {S, H, D, C: rank} or [S, H, D, C]}
 * @returns {{piles: number[][], foundations: number[]}}
 */
export function normalizePosition(position) {
  const piles = position.piles.map((p) => p.map(toCard));
  let f = position.foundations ?? [1, 1, 1, 1];
  if (!Array.isArray(f)) {
    f = [...SUITS].map((s) => f[s] ?? 0);
  }
  return { piles, foundations: f.slice() };
}

function cardElement(card, { button, label, classes }) {
  const el = document.createElement(button ? 'button' : 'div');
  if (button) {
    el.type = 'button';
  } else {
    el.setAttribute('role', 'img');
  }
  const suit = cardSuit(card);
  el.className = `card suit-${SUITS[suit]}` + (suit === 1 || suit === 2 ? ' red' : '') +
    (classes ? ` ${classes}` : '');
  el.dataset.card = cardName(card);
  el.setAttribute('aria-label', label);
  const face = document.createElement('span');
  face.className = 'face';
  face.setAttribute('aria-hidden', 'true');
  face.textContent = cardFace(card);
  const pip = document.createElement('span');
  pip.className = 'pip';
  pip.setAttribute('aria-hidden', 'true');
  pip.textContent = SUIT_SYMBOLS[suit];
  el.append(face, pip);
  return el;
}

/**
 * Draw `position` into `container` (its content is replaced).
 *
 * Options:
 * - `interactive` (false): top cards (and foundations) are buttons, for the play page;
 * - `highlight`: a card (name like "7H" or int) drawn highlighted (e.g. the card just moved);
 * - `selected`: a pile number drawn as selected;
 * - `targets`: where the selected card may go: pile numbers, and `'foundation'` (the selected
 *   card's foundation, or the highlighted card's when none is selected: a hint);
 * - `targetKeys`: {pile or 'foundation': key} small key labels drawn on the targets;
 * - `label` ('Board'): the accessible name of the board;
 * - `compact` (false): smaller cards (previews);
 * - `idPrefix`: a prefix for element ids (two boards on one page).
 *
 * Every card is an element with `data-card` ("7H") and an aria-label ("7 of hearts, top of
 * pile 4"); each pile is an `li.pile` with `data-pile` (1-12); each foundation a
 * `.foundation` with `data-suit` (S H D C) and `data-target="foundation"`.
 * @returns {HTMLElement} the board element
 */
export function renderBoard(container, position, options = {}) {
  const {
    interactive = false, highlight = null, selected = null, targets = [], targetKeys = {},
    label = t('board.label'), compact = false, idPrefix = 'board',
  } = options;
  const pos = normalizePosition(position);
  const hl = highlight === null || highlight === undefined ? null : toCard(highlight);
  const targetSet = new Set(targets.map((t) => (t === null ? 'foundation' : t)));

  const board = document.createElement('section');
  board.className = 'board' + (compact ? ' compact' : '');
  board.setAttribute('aria-label', label);

  // a foundation target: the selected card's own foundation, else the highlighted card's (a
  // hint), else all four
  const sel = selected !== null ? pos.piles[selected - 1] ?? [] : [];
  const targetSuit = sel.length ? cardSuit(sel[sel.length - 1]) : hl !== null ? cardSuit(hl) : null;
  const founds = document.createElement('ul');
  founds.className = 'foundations';
  founds.setAttribute('aria-label', t('board.foundations'));
  pos.foundations.forEach((rank, s) => {
    const li = document.createElement('li');
    li.className = 'foundation';
    li.dataset.suit = SUITS[s];
    li.dataset.target = 'foundation';
    const words = rank >= 1
      ? t(rank === KING ? 'board.foundation-full' : 'board.foundation',
        { suit: suitWords(s), card: cardWords(s * 13 + rank - 1) })
      : t('board.foundation-empty', { suit: suitWords(s) });
    if (rank >= 1) {
      const card = s * 13 + rank - 1;
      const isTarget = targetSet.has('foundation') && (targetSuit === null || s === targetSuit);
      const el = cardElement(card, {
        button: interactive,
        label: isTarget ? moveHere(words, targetKeys.foundation) : words,
        classes: 'top' + (card === hl ? ' highlight' : ''),
      });
      el.dataset.target = 'foundation';
      li.append(el);
    } else {
      li.setAttribute('aria-label', words);
    }
    founds.append(li);
  });
  if (targetSet.has('foundation')) {
    [...founds.children].forEach((li, s) => {
      if (targetSuit === null || s === targetSuit) {
        li.classList.add('target');
      }
    });
    const key = targetKeys.foundation;
    if (key) {
      founds.dataset.key = key;
    }
  }

  const piles = document.createElement('ol');
  piles.className = 'piles';
  piles.setAttribute('aria-label', t('board.piles'));
  pos.piles.forEach((cards, i) => {
    const n = i + 1;
    const li = document.createElement('li');
    li.className = 'pile' + (cards.length ? '' : ' empty') +
      (selected === n ? ' selected' : '') + (targetSet.has(n) ? ' target' : '');
    li.dataset.pile = String(n);
    li.style.setProperty('--count', String(Math.max(cards.length, 1))); // the fan (style.css)
    li.id = `${idPrefix}-pile-${n}`;
    const num = document.createElement('span');
    num.className = 'pile-number';
    num.setAttribute('aria-hidden', 'true');
    num.textContent = String(n);
    li.append(num);
    if (!cards.length) {
      li.setAttribute('aria-label', t('board.pile-empty', { n }));
    }
    cards.forEach((card, k) => {
      const top = k === cards.length - 1;
      let words = top
        ? t('board.top', { card: cardWords(card), n })
        : t('board.in-pile', { card: cardWords(card), n, k: k + 1, count: cards.length });
      const isTarget = top && targetSet.has(n);
      if (isTarget) {
        words = moveHere(words, targetKeys[n]);
      }
      if (top && selected === n) {
        words = t('board.selected', { what: words });
      }
      const el = cardElement(card, {
        button: interactive && top,
        label: words,
        classes: (top ? 'top' : '') + (card === hl ? ' highlight' : '') + (isTarget ? ' target' : ''),
      });
      el.dataset.pile = String(n);
      if (isTarget && targetKeys[n]) {
        const key = document.createElement('span');
        key.className = 'target-key';
        key.setAttribute('aria-hidden', 'true');
        key.textContent = targetKeys[n];
        el.append(key);
      }
      li.append(el);
    });
    piles.append(li);
  });

  board.append(founds, piles);
  container.replaceChildren(board);
  return board;
}
