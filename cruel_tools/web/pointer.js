/**
 * pointer.js: a drawn board's pointer input, for the play page and the `<cruel-game>` element
 * (docs/web.md "Drag and drop", docs/embed.md). Clicks, the second click of a double-click, and
 * drag and drop (a ghost of the card follows the pointer from 8 px on; the click that ends a
 * drag is swallowed) become calls of the caller's handlers. It knows no rule: which step a
 * click or a drop makes is the caller's, with cruel.js.
 *
 * @module pointer
 */

/** How far (px) a pressed card must travel before it is a drag rather than a click. */
const DRAG_PX = 8;

/**
 * Listen to `board` (the element a board is drawn into) for a player's pointer.
 *
 * Handlers (each optional but `click`):
 * - `click(card, event)`: a click on a card (a `button.card`, or null for the board's ground);
 * - `second(event)`: the second click of a double-click, before `click`; true when it is
 *   handled (then `click` is not called);
 * - `drop(source, target)`: a card of pile `source` dropped on pile `target` (null: its
 *   foundation);
 * - `nowhere(source)`: a card dropped where no step goes (off the board, on its own pile).
 *
 * @param {HTMLElement} board
 * @param {{click: Function, second?: Function, drop?: Function, nowhere?: Function,
 *   root?: Document | ShadowRoot, layer?: HTMLElement}} handlers `root` finds the element
 *   under the pointer (a shadow root for a board inside one); `layer` holds the ghost
 * @returns {{detach: () => void}}
 */
export function attachPointer(board, handlers) {
  const { click, second = () => false, drop = () => {}, nowhere = () => {} } = handlers;
  const root = handlers.root ?? board.ownerDocument;
  const layer = handlers.layer ?? board.ownerDocument.body;
  const win = board.ownerDocument.defaultView;
  let drag = null;
  let swallow = false; // the click a drag ends with

  const onClick = (event) => {
    if (swallow) {
      swallow = false;
      return;
    }
    if (event.detail >= 2 && second(event)) {
      return;
    }
    click(event.target.closest('button.card'), event);
  };

  const targetAt = (x, y) => {
    const el = root.elementFromPoint(x, y);
    if (!el) {
      return undefined;
    }
    if (el.closest('.foundations')) {
      return null;
    }
    const pile = el.closest('li[data-pile]');
    return pile && board.contains(pile) ? Number(pile.dataset.pile) : undefined;
  };

  const onDown = (event) => {
    const card = event.target.closest('button.card[data-pile]');
    if (card && event.button === 0) {
      drag = { source: Number(card.dataset.pile), x: event.clientX, y: event.clientY, card, ghost: null, id: event.pointerId };
    }
  };

  const onMove = (event) => {
    const d = drag;
    if (!d || event.pointerId !== d.id) {
      return;
    }
    if (!d.ghost) {
      if (Math.hypot(event.clientX - d.x, event.clientY - d.y) < DRAG_PX) {
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
      layer.append(d.ghost);
    }
    d.ghost.style.left = `${event.clientX - d.dx}px`;
    d.ghost.style.top = `${event.clientY - d.dy}px`;
    event.preventDefault();
  };

  const end = (event, dropped) => {
    const d = drag;
    if (!d || event.pointerId !== d.id) {
      return;
    }
    drag = null;
    if (!d.ghost) {
      return; // a click: the click handler plays it
    }
    d.ghost.remove();
    d.card.classList.remove('dragging');
    swallow = true;
    setTimeout(() => {
      swallow = false;
    }, 0);
    if (!dropped) {
      return;
    }
    const target = targetAt(event.clientX, event.clientY);
    if (target === undefined || target === d.source) {
      nowhere(d.source);
    } else {
      drop(d.source, target);
    }
  };
  const up = (e) => end(e, true);
  const cancel = (e) => end(e, false);

  board.addEventListener('click', onClick);
  board.addEventListener('pointerdown', onDown);
  win.addEventListener('pointermove', onMove, { passive: false });
  win.addEventListener('pointerup', up);
  win.addEventListener('pointercancel', cancel);
  return {
    detach() {
      board.removeEventListener('click', onClick);
      board.removeEventListener('pointerdown', onDown);
      win.removeEventListener('pointermove', onMove);
      win.removeEventListener('pointerup', up);
      win.removeEventListener('pointercancel', cancel);
    },
  };
}
