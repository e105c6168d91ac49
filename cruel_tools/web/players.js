/**
 * players.js: the "Ranked play" panel of the play page: choose a name, link this device with a
 * code, make a code for another device, download the player's data and delete it. Loaded only
 * when the player has a name or asks for one: unranked play does without it.
 *
 * @module players
 */

import { byName, call, claim, keepToken, link, rankedName, rememberName, storedName, tokenOf } from './tokens.js';
import { formatDate, t } from './i18n.js';
import { apiErrorText } from './words.js';

/** The service's refusal in the player's words (a common code), else its own. */
const refusal = (data) => apiErrorText(data ?? {});
/** A request that never reached the service. */
const unreachable = (e) => t('players.unreachable', { detail: e.message });

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
      note(t('players.type-name'), 'error');
      return;
    }
    try {
      const got = await claim(name);
      if (got.ok) {
        view.mode = 'idle';
        view.note = t('players.ranked-as-note', { name });
        view.noteKind = 'ok';
        changed();
      } else if (got.taken) {
        view.mode = 'link';
        view.name = name;
        note(t('players.taken', { name }), 'error');
      } else {
        note(refusal(got), 'error');
      }
    } catch (e) {
      note(unreachable(e), 'error');
    }
  }

  async function doLink(name, code) {
    if (!name || !code) {
      note(t('players.need-name-code'), 'error');
      return;
    }
    try {
      const got = await link(name, code);
      if (got.ok) {
        view.mode = 'idle';
        view.note = t('players.linked', { name });
        view.noteKind = 'ok';
        changed();
      } else {
        note(refusal(got), 'error');
      }
    } catch (e) {
      note(unreachable(e), 'error');
    }
  }

  async function makeCode(name) {
    try {
      const answer = await call(`${byName(name)}/link-codes`, { method: 'POST', body: {}, player: name });
      if (!answer.ok) {
        note(refusal(answer.data), 'error');
        return;
      }
      view.code = answer.data;
      note('');
    } catch (e) {
      note(unreachable(e), 'error');
    }
  }

  async function download(name) {
    try {
      const answer = await call(`${byName(name)}/data`, { player: name });
      if (!answer.ok) {
        note(refusal(answer.data), 'error');
        return;
      }
      const blob = new Blob([JSON.stringify(answer.data, null, 2)], { type: 'application/json' });
      const a = el('a', { href: URL.createObjectURL(blob), download: `cruel-${name}.json`, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      note(t('players.downloaded', { file: `cruel-${name}.json` }), 'ok');
    } catch (e) {
      note(unreachable(e), 'error');
    }
  }

  async function erase(name) {
    try {
      const answer = await call(byName(name), { method: 'DELETE', player: name });
      if (!answer.ok) {
        view.confirmDelete = false;
        note(refusal(answer.data), 'error');
        return;
      }
      keepToken(name, null);
      rememberName('');
      view.confirmDelete = false;
      view.code = null;
      view.note = t('players.deleted', { name });
      view.noteKind = 'ok';
      changed();
    } catch (e) {
      note(unreachable(e), 'error');
    }
  }

  function forget() {
    rememberName('');
    view.code = null;
    view.confirmDelete = false;
    view.note = t('players.forgot');
    view.noteKind = '';
    changed();
  }

  function draw() {
    const ranked = rankedName();
    const parts = [el('h2', { id: 'ranked-title' }, t('play.ranked-title'))];
    if (ranked) {
      parts.push(el('p', { id: 'ranked-as' }, t('players.ranked-as-before'), el('b', {}, ranked),
        t('players.ranked-as-after')));
      const actions = el('div', { class: 'toolbar' },
        button(t('players.make-code'), 'make-code', () => makeCode(ranked)),
        button(t('players.forget'), 'forget-name', forget));
      parts.push(actions);
      if (view.code) {
        const until = new Date(view.code.expires_at);
        parts.push(el('p', { id: 'link-code-text' }, t('players.code-before'),
          el('b', {}, ranked), t('players.code-middle'), el('code', { id: 'link-code' }, view.code.code),
          Number.isNaN(until.getTime()) ? t('players.code-end')
            : t('players.code-until', { time: formatDate(until, { hour: '2-digit', minute: '2-digit', second: '2-digit' }) })));
      }
      const data = el('details', { id: 'your-data' }, el('summary', {}, t('players.your-data')),
        el('p', { class: 'muted' }, t('players.data-text')));
      const tools = el('div', { class: 'toolbar' },
        button(t('players.download'), 'export-data', () => download(ranked)));
      if (view.confirmDelete) {
        tools.append(
          button(t('players.delete-confirm', { name: ranked }), 'delete-confirm', () => erase(ranked), 'primary'),
          button(t('players.keep'), 'delete-cancel', () => {
            view.confirmDelete = false;
            draw();
          }));
      } else {
        tools.append(button(t('players.delete'), 'delete-data', () => {
          view.confirmDelete = true;
          view.note = t('players.delete-warning', { name: ranked });
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
        el('label', { for: 'link-name' }, t('players.your-name')), name,
        el('label', { for: 'link-code-input' }, t('players.code-label')), code,
        el('div', { class: 'toolbar' },
          el('button', { type: 'submit', class: 'primary', id: 'link-device' }, t('players.link-device')),
          button(t('players.choose-other'), 'link-cancel', () => {
            view.mode = 'idle';
            note('');
          })));
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        doLink(name.value.trim(), code.value.trim());
      });
      parts.push(form);
    } else {
      parts.push(el('p', { class: 'muted' }, t('play.ranked-text')));
      const name = el('input', { type: 'text', id: 'claim-name', autocomplete: 'nickname', maxlength: 40 });
      name.value = storedName();
      const form = el('form', { id: 'claim-form' },
        el('label', { for: 'claim-name' }, t('play.name-label')),
        el('div', { class: 'toolbar' }, name,
          el('button', { type: 'submit', class: 'primary', id: 'claim' }, t('play.play-ranked'))),
        el('p', {}, button(t('play.link-other'), 'show-link', () => {
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
