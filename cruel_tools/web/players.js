/**
 * players.js: the "Ranked play" panel of the play page: choose a name, link this device with a
 * code, make a code for another device, download the player's data and delete it. Loaded only
 * when the player has a name or asks for one: unranked play does without it.
 *
 * @module players
 */

import { byName, call, claim, keepToken, link, rankedName, rememberName, storedName, tokenOf } from './tokens.js';

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
    /** Claim `name` (typed before this panel was loaded). */
    claim: doClaim,
    /** Show the form that links this device to `name`. */
    showLink(name) {
      view.mode = 'link';
      view.name = name;
      note('');
    },
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
