/**
 * win.js: what the win moment says and offers (docs/web.md "The win moment, sharing and
 * sound"), loaded by the play page at a win, not before (the page's weight): the result
 * (actions against par, time, rank, streak), the next things to do (the day's next tier,
 * share, watch it again, the solution in practice, play again), the cascade and the dialog
 * (celebrate.js), the text to share (share.js).
 *
 * @module win
 */

import { cascade, openWin } from './celebrate.js';
import { shareText, dealProgress, clockWords, versusPar } from './share.js';
import { computeStats } from './stats.js';
import { gameDay } from './gameday.js';
import { t, tn, has } from './i18n.js';

// The tiers of a day, easiest first: the service publishes one puzzle of each every day, as
// `{date}-{tier}` (the page asks nothing more of it: an unranked game sends and asks nothing).
const TIERS = ['easy', 'medium', 'hard', 'expert'];

/** The next tier's puzzle of the same day, `{id, tier}`, or null (free play, the last tier). */
export function nextTier(p) {
  const tier = TIERS[TIERS.indexOf(p.tier) + 1];
  return !p.free && p.date && TIERS.includes(p.tier) && tier && p.id === `${p.date}-${p.tier}`
    ? { id: `${p.date}-${tier}`, tier } : null;
}

/**
 * The win's result, for the dialog and the text to share: counts, time, rank, and the
 * foundation cards at the end of each deal (never a card or a move).
 * @param {object} play the play page's view of the game (see {@link winMoment})
 */
function summary(play) {
  const g = play.game();
  const p = play.puzzle;
  const live = play.live();
  const entry = live?.entry;
  const cards = [play.deal()];
  for (const step of play.steps()) {
    const next = cards.at(-1).copy();
    next.push(step);
    cards.push(next);
  }
  const [start, end] = play.times();
  const ms = live?.elapsedMs ?? Date.parse(end) - Date.parse(start);
  return {
    date: p.free ? null : p.date, tier: p.free ? null : p.tier, deal: p.deal.number ?? null,
    actions: g.moves + g.redeals, par: p.par?.actions ?? null, ms: Number.isFinite(ms) ? ms : null,
    rank: entry?.accepted && !play.held(entry) ? entry.rank ?? null : null,
    progress: dealProgress(play.steps(), (i) => cards[i].foundationCards),
    url: `${location.origin}${location.pathname}`,
  };
}

/** The dialog's lines: actions against par, time, rank (ranked play), streak. */
function lines(play) {
  const s = summary(play);
  const out = [{ key: 'actions', text: s.par === null ? t('win.actions', { n: s.actions })
    : t('win.actions-par', { n: s.actions, par: s.par, versus: versusPar(s.actions - s.par, t) }) }];
  if (s.ms !== null) {
    out.push({ key: 'time', text: t('win.time', { time: clockWords(s.ms) }) });
  }
  const entry = play.live()?.entry;
  if (entry?.accepted) {
    out.push({ key: 'rank', text: play.held(entry) ? t('win.held') : t('win.rank', { rank: entry.rank ?? '–' }) });
  } else if (play.recording()) {
    out.push({ key: 'rank', text: t('play.recording-win') });
  }
  const streak = computeStats(undefined, gameDay()).currentStreak;
  if (streak > 0) {
    out.push({ key: 'streak', text: tn('win.streak', streak) });
  }
  return out;
}

/** Share the text: the Web Share API where there is one, else the clipboard, else shown to
 * copy by hand; the dialog says which (and shows the text). */
async function share(text, note) {
  if (navigator.share) {
    try {
      await navigator.share({ text });
      note(t('win.shared'), text, 'shared');
      return;
    } catch (e) {
      if (e?.name === 'AbortError') {
        return; // the player closed the share sheet
      }
    }
  }
  try {
    await navigator.clipboard.writeText(text);
    note(t('win.copied'), text, 'copied');
  } catch {
    note(t('win.copy-this'), text, 'manual');
  }
}

/**
 * The win moment: the cascade (none under reduced motion) and the dialog.
 * @param {{game: () => object, puzzle: object, steps: () => object[], deal: () => object,
 *   live: () => object|null, recording: () => boolean, held: (entry: object) => boolean,
 *   mode: string, times: () => [string|null, string|null], board: HTMLElement,
 *   replay: () => void, again: () => void}} play the play page's game: the game won, its
 *   puzzle, steps and deal, the live attempt (its entry once the server answers), the start
 *   and end times, and what the actions do
 * @returns {{update: () => void, close: () => void, el: HTMLDialogElement}} update: the lines again
 */
export function winMoment(play) {
  const p = play.puzzle;
  const next = nextTier(p);
  const actions = [];
  if (next) {
    const tier = has(`tier.${next.tier}`) ? t(`tier.${next.tier}`) : next.tier;
    actions.push({ key: 'next', text: t('win.next', { tier }), href: `/play/${encodeURIComponent(next.id)}`, primary: true });
  }
  actions.push({ key: 'share', text: t('win.share'), primary: !next,
    run: ({ note }) => share(shareText(summary(play), t), note) });
  actions.push({ key: 'replay', text: t('win.replay'), run: ({ close }) => { close(); play.replay(); } });
  if (play.mode === 'practice') {
    actions.push({ key: 'solution', text: t('win.solution'), href: `/replay?puzzle=${encodeURIComponent(p.id)}` });
  }
  actions.push({ key: 'again', text: t('win.again'), run: ({ close }) => { close(); play.again(); } });
  cascade(play.board);
  const dialog = openWin({ title: t('play.won-title'), lines: lines(play), actions });
  return { ...dialog, update: () => dialog.update(lines(play)) };
}
