// hinting.js: the play page's Hint and "Still winnable?" (docs/web.md "Routine moves and
// hints"). Both send the game's log to POST /v1/hint (cruel-hint/1: the solver's next step of a
// win, its proof that none is left, or "unknown within the budget") and turn the answer into
// what the page shows. The step itself is read by cruel.js; no rule lives here.

import { readEntry, parseCard } from './cruel.js';
import { t } from './i18n.js';
import { cardText } from './words.js';

/**
 * Ask the service for a hint on `log` (a cruel-log/1 object). Resolves to one of
 * `{status: 'win-next', step, actions}`, `{status: 'no-win', reason}`, `{status: 'won'}`,
 * `{status: 'unknown', reason}`, or `{status: 'error', message, code}` (refused, rate-limited,
 * busy, or the service not reached: its words for the player); `ms` is how long it took.
 * @param {object} log
 * @param {string} [server] the service's address (`<cruel-game server>`); the page's own when
 *   empty
 */
export async function askHint(log, server = '') {
  const began = performance.now();
  let res;
  try {
    res = await fetch(`${server}/v1/hint`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(log),
    });
  } catch (e) {
    return { status: 'error', code: 'unreachable', message: t('play.hint-unreachable', { why: e.message }), ms: 0 };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  const ms = performance.now() - began;
  if (!res.ok || !data || typeof data !== 'object') {
    return { status: 'error', code: data?.code ?? String(res.status), message: refusal(res, data), ms };
  }
  if (data.status === 'win-next' && data.next_step) {
    try {
      return { status: 'win-next', step: readEntry(data.next_step.entry), actions: data.actions_to_win, ms };
    } catch {
      return { status: 'error', code: 'bad-answer', message: t('play.hint-bad-answer'), ms };
    }
  }
  if (data.status === 'no-win' || data.status === 'unknown') {
    return { status: data.status, reason: String(data.reason ?? ''), ms };
  }
  return { status: data.status === 'won' ? 'won' : 'error', message: t('play.hint-bad-answer'), ms };
}

/** The player's words for a refused or failed request. */
function refusal(res, data) {
  const after = Number(res.headers.get('Retry-After'));
  if (res.status === 429) {
    return t('play.hint-rate-limited', { seconds: Number.isFinite(after) && after > 0 ? Math.ceil(after) : 10 });
  }
  if (res.status === 503) {
    return t('play.hint-busy');
  }
  if (data?.code === 'puzzle-open') {
    return t('play.hint-puzzle-open');
  }
  return t('play.hint-refused', { message: data?.message ?? String(res.status) });
}

/**
 * The player's words for an answer of {@link askHint} that is not a hint's next step: for
 * "Still winnable?" (a win found), a proof that none is left, unknown, won, or a refusal.
 * @param {object} answer
 */
export function answerWords(answer) {
  switch (answer.status) {
    case 'win-next':
      return t('play.winnable-yes', { actions: answer.actions });
    case 'no-win':
      return t('play.hint-no-win', { reason: proofWords(answer.reason) });
    case 'unknown':
      return t('play.hint-unknown');
    case 'won':
      return t('play.hint-won');
    default:
      return answer.message;
  }
}

/**
 * The solver's proof (a cruel-hint/1 `reason`: rule F or V, rule L, or the whole search; see
 * docs/solver.md) in the player's language, its cards as symbols; a reason of another form is
 * shown as the service words it.
 * @param {string} reason
 */
export function proofWords(reason) {
  const never = /^(\d+) cards can never move \((.*); rule ([FV])\)$/.exec(reason);
  if (never) {
    return t('play.proof-never-move', { count: never[1], cards: symbols(never[2]), rule: never[3] });
  }
  const lock = /^(\S+) in pile 1 can never leave \(rule L\)$/.exec(reason);
  if (lock) {
    return t('play.proof-pile-1', { card: symbols(lock[1]) });
  }
  if (reason === 'every reachable position searched or proven lost') {
    return t('play.proof-searched');
  }
  return reason;
}

/** Card names as the log writes them ("2S 3S ...") as symbols ("2♠ 3♠ …"). */
function symbols(names) {
  return names.split(' ').map((name) => {
    if (name === '...') {
      return '…';
    }
    try {
      return cardText(parseCard(name));
    } catch {
      return name;
    }
  }).join(' ');
}
