/**
 * motion.js: cards that move are seen moving (docs/web.md "A game in motion"). Before a board
 * is drawn again, `snapshot(container)` notes where each card is; after, `flip(container,
 * before)` starts each card that changed place at its old place and slides it to the new one
 * (the FLIP technique: First, Last, Invert, Play, with a Web Animation of `transform`; the
 * layout itself never moves, so nothing else on the page shifts). Under
 * `prefers-reduced-motion: reduce` nothing is animated: the cards are simply in their new place.
 *
 * @module motion
 */

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
