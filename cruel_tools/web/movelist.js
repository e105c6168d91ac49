/**
 * movelist.js: the play page's list of the steps played (docs/web.md "A game in motion"), each
 * in the player's words (`5♥ 3→7`, `2♣ 3→foundation`, `Redeal`; an automatic move marked), and
 * a read-only view of the position after any of them: click a step, and the board shows the
 * position then (the live board is kept as it is, hidden), with a bar to step through the game
 * and a way back (the button, or Esc). Any new step of the live game closes the view.
 * Also the words of an undone step: `Undone: 5♥ from pile 1 onto pile 9`, `Undone: redeal`.
 *
 * @module movelist
 */

import { stepText } from './cruel.js';
import { renderBoard } from './board.js';
import { cardText } from './words.js';
import { t } from './i18n.js';

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
