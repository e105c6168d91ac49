/**
 * i18n.js: every word a page shows comes from one message catalog per language
 * (messages-en.js, messages-nl.js), chosen by the player's switch (remembered in
 * localStorage "cruel.lang"), else by the browser's languages, else English.
 * Only the chosen catalog is loaded.
 *
 * Use: `t('play.undone', { step: '…' })` in scripts; `data-i18n="key"` on an element whose
 * text is a message (`data-i18n-attr="aria-label:key;title:key2"` for attributes), filled by
 * `translatePage()`.
 *
 * @module i18n
 */

export const LANGUAGES = ['en', 'nl'];
export const LANG_KEY = 'cruel.lang';

function stored() {
  try {
    return globalThis.localStorage?.getItem(LANG_KEY) ?? null;
  } catch {
    return null;
  }
}

/** The language to show: the remembered switch, else the browser's first known language. */
export function chooseLanguage() {
  const asked = new URLSearchParams(globalThis.location?.search ?? '').get('lang');
  for (const want of [asked, stored(), ...(globalThis.navigator?.languages ?? [])]) {
    const base = typeof want === 'string' ? want.toLowerCase().split('-')[0] : '';
    if (LANGUAGES.includes(base)) {
      return base;
    }
  }
  return 'en';
}

export const lang = chooseLanguage();
const catalog = (await import(lang === 'nl' ? './messages-nl.js' : './messages-en.js')).default;

/**
 * The message `key` in the player's language, with `{name}` replaced by `params.name`.
 * A missing key is a defect: it is reported on the console and shown as the key itself.
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @returns {string}
 */
export function t(key, params = {}) {
  const message = catalog[key];
  if (typeof message !== 'string') {
    console.error(`i18n: no message ${key} in ${lang}`);
    return key;
  }
  return message.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** Remember the player's language and show the page in it. */
export function setLanguage(language) {
  try {
    globalThis.localStorage?.setItem(LANG_KEY, language);
  } catch {
    // storage refused: the switch holds for this page only
  }
  location.reload();
}

/** Fill every `data-i18n` element's text and `data-i18n-attr` attributes under `root`. */
export function translatePage(root = document) {
  document.documentElement.lang = lang;
  for (const el of root.querySelectorAll('[data-i18n]')) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':');
      el.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}
