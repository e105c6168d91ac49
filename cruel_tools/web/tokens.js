/**
 * tokens.js: the player's name and its secret token in this browser, and the calls that need
 * them (docs/web.md "Ranked play"). A name is claimed once (`POST /v1/players`); the service
 * answers with a token that only this browser knows, and every ranked write under that name
 * carries it as `Authorization: Player <token>`. A second device gets its own token with a
 * one-time code made on the first (players.js draws the panel for all that).
 *
 * @module tokens
 */

const NAME_KEY = 'cruel.player';
const TOKENS_KEY = 'cruel.tokens';
const CLAIM_FORMAT = 'cruel-player-claim/1';

// --- storage -----------------------------------------------------------------------------------

function readTokens() {
  try {
    const doc = JSON.parse(localStorage.getItem(TOKENS_KEY) ?? '{}');
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? doc : {};
  } catch {
    return {};
  }
}

function writeTokens(tokens) {
  try {
    localStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
  } catch {
    // storage refused: the token lives as long as the page
  }
}

/** The remembered name, or '' (the key every page shares: `cruel.player`). */
export function storedName() {
  try {
    return (localStorage.getItem(NAME_KEY) ?? '').trim();
  } catch {
    return '';
  }
}

export function rememberName(name) {
  try {
    if (name) {
      localStorage.setItem(NAME_KEY, name);
    } else {
      localStorage.removeItem(NAME_KEY);
    }
  } catch {
    // storage refused
  }
}

/** The token this browser holds for `name`, or null. */
export function tokenOf(name) {
  const token = readTokens()[name];
  return typeof token === 'string' && token ? token : null;
}

export function keepToken(name, token) {
  const tokens = readTokens();
  if (token) {
    tokens[name] = token;
  } else {
    delete tokens[name];
  }
  writeTokens(tokens);
}

/** The name ranked play uses: the remembered name when this browser holds its token, else null. */
export function rankedName() {
  const name = storedName();
  return name && tokenOf(name) ? name : null;
}

// --- the service -------------------------------------------------------------------------------

/**
 * Call the service; `player` adds that player's token. Resolves to `{ok, status, data}` (the
 * answer's JSON, or `{message}`); rejects only when the service cannot be reached.
 * @param {string} path
 * @param {{method?: string, body?: unknown, player?: string|null}} [options]
 */
export async function call(path, { method = undefined, body = undefined, player = null } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  const token = player ? tokenOf(player) : null;
  if (token) {
    headers.Authorization = `Player ${token}`;
  }
  const res = await fetch(path, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!data || typeof data !== 'object') {
    data = { code: 'http', status: res.status, message: `the service answered ${res.status}` };
  }
  return { ok: res.ok, status: res.status, data };
}

export const byName = (name) => `/v1/players/${encodeURIComponent(name)}`;

/**
 * Claim `name` for this browser. `{ok: true}` once the token is kept; else `{ok: false, taken,
 * message}`: `taken` when the name is someone's already (this browser may link to it).
 */
export async function claim(name) {
  const answer = await call('/v1/players', { body: { format: CLAIM_FORMAT, player: name } });
  if (answer.ok && typeof answer.data.token === 'string') {
    keepToken(answer.data.player ?? name, answer.data.token);
    rememberName(answer.data.player ?? name);
    return { ok: true };
  }
  const taken = answer.data.code === 'name-taken' || (answer.status === 409 && !answer.data.code);
  return { ok: false, taken, message: answer.data.message, code: answer.data.code };
}

/** Link this browser to `name` with the one-time `code` shown on the other device. */
export async function link(name, code) {
  const answer = await call(`${byName(name)}/tokens`, { body: { code } });
  if (answer.ok && typeof answer.data.token === 'string') {
    keepToken(answer.data.player ?? name, answer.data.token);
    rememberName(answer.data.player ?? name);
    return { ok: true };
  }
  return { ok: false, message: answer.data.message, code: answer.data.code };
}

