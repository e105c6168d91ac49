/**
 * players.js: the player's name and its secret token in this browser, and the calls that need
 * them (docs/web.md "Ranked play"). A name is claimed once (`POST /v1/players`); the service
 * answers with a token that only this browser knows, and every ranked write under that name
 * carries it as `Authorization: Player <token>`. A second device gets its own token with a
 * one-time code made on the first. The panel drawn here lets the player choose a name, link a
 * device, make a code, download their data and delete it.
 *
 * @module players
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

function rememberName(name) {
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

function keepToken(name, token) {
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
    data = { message: `the service answered ${res.status}` };
  }
  return { ok: res.ok, status: res.status, data };
}

const byName = (name) => `/v1/players/${encodeURIComponent(name)}`;

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

// --- the panel ---------------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined && v !== false) {
      node.setAttribute(k, v === true ? '' : String(v));
    }
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function button(text, id, handler, kind = '') {
  const b = el('button', { type: 'button', id, class: kind || null }, text);
  b.addEventListener('click', handler);
  return b;
}

/**
 * Draw the "Ranked play" panel into `box`, and again after each change; `onChange()` is called
 * when the ranked name changes (claimed, linked, forgotten, deleted).
 * @param {HTMLElement} box
 * @param {{onChange?: () => void}} [options]
 */
export function renderPlayerPanel(box, { onChange = () => {} } = {}) {
  const view = {
    mode: 'idle', name: '', note: '', noteKind: '', code: null, confirmDelete: false, dataOpen: false,
  };

  const changed = () => {
    draw();
    onChange();
  };
  const note = (text, kind = '') => {
    view.note = text;
    view.noteKind = kind;
    draw();
  };

  async function doClaim(name) {
    if (!name) {
      note('Type a name first.', 'error');
      return;
    }
    try {
      const got = await claim(name);
      if (got.ok) {
        view.mode = 'idle';
        view.note = `You play ranked as ${name}. Your games under this name need this browser ` +
          '(or a device you link).';
        view.noteKind = 'ok';
        changed();
      } else if (got.taken) {
        view.mode = 'link';
        view.name = name;
        note(`The name ${name} is taken: someone already plays under it. If it is yours, link ` +
          'this device with a code from the device you play on; else choose another name.', 'error');
      } else {
        note(got.message, 'error');
      }
    } catch (e) {
      note(`Could not reach the service: ${e.message}`, 'error');
    }
  }

  async function doLink(name, code) {
    if (!name || !code) {
      note('Type the name and the code shown on your other device.', 'error');
      return;
    }
    try {
      const got = await link(name, code);
      if (got.ok) {
        view.mode = 'idle';
        view.note = `This device is linked: you play ranked as ${name} here too.`;
        view.noteKind = 'ok';
        changed();
      } else {
        note(got.message, 'error');
      }
    } catch (e) {
      note(`Could not reach the service: ${e.message}`, 'error');
    }
  }

  async function makeCode(name) {
    try {
      const answer = await call(`${byName(name)}/link-codes`, { method: 'POST', body: {}, player: name });
      if (!answer.ok) {
        note(answer.data.message, 'error');
        return;
      }
      view.code = answer.data;
      note('');
    } catch (e) {
      note(`Could not reach the service: ${e.message}`, 'error');
    }
  }

  async function download(name) {
    try {
      const answer = await call(`${byName(name)}/data`, { player: name });
      if (!answer.ok) {
        note(answer.data.message, 'error');
        return;
      }
      const blob = new Blob([JSON.stringify(answer.data, null, 2)], { type: 'application/json' });
      const a = el('a', { href: URL.createObjectURL(blob), download: `cruel-${name}.json`, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      note(`Your data is downloaded: cruel-${name}.json.`, 'ok');
    } catch (e) {
      note(`Could not reach the service: ${e.message}`, 'error');
    }
  }

  async function erase(name) {
    try {
      const answer = await call(byName(name), { method: 'DELETE', player: name });
      if (!answer.ok) {
        view.confirmDelete = false;
        note(answer.data.message, 'error');
        return;
      }
      keepToken(name, null);
      rememberName('');
      view.confirmDelete = false;
      view.code = null;
      view.note = `${name} and all their games are deleted from the service.`;
      view.noteKind = 'ok';
      changed();
    } catch (e) {
      note(`Could not reach the service: ${e.message}`, 'error');
    }
  }

  function forget() {
    rememberName('');
    view.code = null;
    view.confirmDelete = false;
    view.note = 'Games are unranked until you choose a name. This browser keeps the token of ' +
      'your name: choose it again to play ranked under it.';
    view.noteKind = '';
    changed();
  }

  function draw() {
    const ranked = rankedName();
    const parts = [el('h2', { id: 'ranked-title' }, 'Ranked play')];
    if (ranked) {
      parts.push(el('p', { id: 'ranked-as' }, 'You play ranked as ', el('b', {}, ranked),
        '. Each move goes to the server as you play it; the server times the game.'));
      const actions = el('div', { class: 'toolbar' },
        button('Link another device', 'make-code', () => makeCode(ranked)),
        button('Use another name', 'forget-name', forget));
      parts.push(actions);
      if (view.code) {
        const until = new Date(view.code.expires_at);
        parts.push(el('p', { id: 'link-code-text' }, 'On your other device, choose ',
          el('b', {}, ranked), ', then enter the code ', el('code', { id: 'link-code' }, view.code.code),
          Number.isNaN(until.getTime()) ? '.' : ` before ${until.toLocaleTimeString()}. It works once.`));
      }
      const data = el('details', { id: 'your-data' }, el('summary', {}, 'Your data'),
        el('p', { class: 'muted' }, 'What the service keeps under your name: your games, their ' +
          'times, your tokens. Download it, or delete it for good.'));
      const tools = el('div', { class: 'toolbar' },
        button('Download your data', 'export-data', () => download(ranked)));
      if (view.confirmDelete) {
        tools.append(
          button(`Delete ${ranked} for good`, 'delete-confirm', () => erase(ranked), 'primary'),
          button('Keep my data', 'delete-cancel', () => {
            view.confirmDelete = false;
            draw();
          }));
      } else {
        tools.append(button('Delete your data…', 'delete-data', () => {
          view.confirmDelete = true;
          view.note = `Deleting removes ${ranked}, every game and entry under this name and ` +
            "this browser's token. It cannot be undone.";
          view.noteKind = 'error';
          draw();
          box.querySelector('#delete-cancel')?.focus();
        }));
      }
      data.append(tools);
      data.open = view.confirmDelete || view.dataOpen;
      data.addEventListener('toggle', () => {
        view.dataOpen = data.open;
      });
      parts.push(data);
    } else if (view.mode === 'link') {
      const name = el('input', { type: 'text', id: 'link-name', autocomplete: 'nickname', maxlength: 40 });
      name.value = view.name;
      const code = el('input', { type: 'text', id: 'link-code-input', autocomplete: 'one-time-code', maxlength: 64 });
      const form = el('form', { id: 'link-form' },
        el('label', { for: 'link-name' }, 'Your name'), name,
        el('label', { for: 'link-code-input' }, 'The code shown on your other device'), code,
        el('div', { class: 'toolbar' },
          el('button', { type: 'submit', class: 'primary', id: 'link-device' }, 'Link this device'),
          button('Choose another name', 'link-cancel', () => {
            view.mode = 'idle';
            note('');
          })));
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        doLink(name.value.trim(), code.value.trim());
      });
      parts.push(form);
    } else {
      parts.push(el('p', { class: 'muted' }, 'Without a name you play unranked: the game stays ' +
        'in this browser. With a name, each move goes to the server, which times the game and ' +
        'puts your wins on the leaderboard.'));
      const name = el('input', { type: 'text', id: 'claim-name', autocomplete: 'nickname', maxlength: 40 });
      name.value = storedName();
      const form = el('form', { id: 'claim-form' },
        el('label', { for: 'claim-name' }, 'Your name for the leaderboard'),
        el('div', { class: 'toolbar' }, name,
          el('button', { type: 'submit', class: 'primary', id: 'claim' }, 'Play ranked')),
        el('p', {}, button('I play on another device: link this one', 'show-link', () => {
          view.mode = 'link';
          view.name = name.value.trim();
          note('');
        })));
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        doClaim(name.value.trim());
      });
      parts.push(form);
    }
    if (view.note) {
      parts.push(el('p', { id: 'player-note', class: view.noteKind || null, role: 'status' }, view.note));
    }
    box.replaceChildren(...parts);
  }

  draw();
  return {
    /** Claim the remembered name when this browser has no token for it yet (once per page). */
    async claimRemembered() {
      const name = storedName();
      if (name && !tokenOf(name)) {
        await doClaim(name);
      }
    },
    redraw: draw,
    note,
  };
}
