/**
 * clock.js: the play page's clock (docs/web.md "A game in motion"). It counts from the game's
 * first move (`started_at`, which is also when the server's clock of a ranked game starts) to
 * now, and stops at the end: a won ranked game shows the server's own time. Shown as `m:ss`
 * (`h:mm:ss` past an hour); before the first move it reads 0:00 and does not run.
 *
 * @module clock
 */

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
