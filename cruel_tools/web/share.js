/**
 * share.js: the text a player shares after a win (docs/web.md "The win moment"), made from a
 * summary of the game and nothing else, so that it cannot spoil the puzzle: the puzzle (date
 * and tier, or the free deal's number), the actions against par, the time, the rank of a
 * ranked win, and one square per deal for the cards on the foundations at its end (Wordle's
 * grid, for Cruel: how the game went, never which cards moved where).
 *
 * Pure: no DOM, no storage, no import; the words come from the `t` it is given (i18n.js's, or
 * a catalog's in a test under Node), so the text is in the player's language.
 *
 * @module share
 */

/** The squares, by the foundation cards at the end of a deal: fewer than 20, 36, 52, and all. */
const SQUARES = [[52, '🟩'], [36, '🟨'], [20, '🟧'], [0, '🟥']];

/** One square for a deal that ended with `cards` on the foundations (4 to 52). */
export function square(cards) {
  return SQUARES.find(([least]) => cards >= least)[1];
}

/** Milliseconds as the play page's clock shows them: `0:07`, `12:30`, `1:02:03`. */
export function clockWords(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/**
 * The foundation cards at the end of each deal of a game: before each redeal, and at its end.
 * @param {Array<{type: string}>} steps the game's steps (a redeal has `type` 'redeal')
 * @param {(i: number) => number} cardsAfter the foundation cards after the first `i` steps
 * @returns {number[]}
 */
export function dealProgress(steps, cardsAfter) {
  const out = [];
  steps.forEach((step, i) => {
    if (step.type === 'redeal') {
      out.push(cardsAfter(i));
    }
  });
  out.push(cardsAfter(steps.length));
  return out;
}

/**
 * The words against par: `at par`, `2 over par`, `1 under par` (the play page's own).
 * @param {number} gap actions minus par
 * @param {(key: string, params?: object) => string} t
 */
export function versusPar(gap, t) {
  if (gap > 0) {
    return t('play.over-par', { n: gap });
  }
  return gap < 0 ? t('play.under-par', { n: -gap }) : t('play.at-par');
}

/**
 * The text to share.
 * @param {{date?: string, tier?: string, deal?: number|null, actions: number, par?: number|null,
 *   ms?: number|null, rank?: number|null, progress: number[], url?: string|null}} summary
 *   `date` (YYYY-MM-DD) and `tier` for a puzzle, `deal` for free play; `progress` from
 *   {@link dealProgress}; `url` the puzzle's page (it names the puzzle, not its solution)
 * @param {(key: string, params?: object) => string} t the words (i18n.js's `t`)
 * @returns {string}
 */
export function shareText(summary, t) {
  const s = summary;
  const tier = s.tier ? t(`tier.${s.tier}`) : '';
  const head = s.date ? t('share.title', { date: s.date, tier }) : t('share.title-free', { number: s.deal ?? '?' });
  let result = typeof s.par === 'number'
    ? t('share.won-par', { n: s.actions, par: s.par, versus: versusPar(s.actions - s.par, t) })
    : t('share.won', { n: s.actions });
  if (typeof s.ms === 'number') {
    result += ` · ⏱ ${clockWords(s.ms)}`;
  }
  if (typeof s.rank === 'number') {
    result += ` · ${t('share.rank', { rank: s.rank })}`;
  }
  const lines = [head, result, s.progress.map(square).join('')];
  if (s.url) {
    lines.push(s.url);
  }
  return lines.join('\n');
}
