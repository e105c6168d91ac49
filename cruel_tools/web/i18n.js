/**
 * i18n.js: every word a page shows comes from one message catalog per language
 * (messages-en.js, messages-nl.js), chosen by `?lang=` in the address, else the player's switch
 * (remembered in localStorage "cruel.lang"), else the browser's languages, else English.
 * Only the chosen language's catalog is loaded: `messages-xx.js`, and on every page but the play
 * page `messages-xx-site.js` too (the words of the front, replay and leaderboard pages)
 * (docs/web.md "Languages").
 *
 * Use: `t('play.undone', { step: '…' })` in scripts (`tn(key, count, params)` for a message
 * with a singular and a plural: keys `key.one` and `key.other`); `data-i18n="key"` on an element
 * whose text is a message (`data-i18n-attr="aria-label:key;title:key2"` for attributes), filled
 * by `translatePage()`, which runs once when this module loads. Dates and numbers: `formatDate`,
 * `formatNumber` (Intl, in the page's language).
 *
 * `?lang=qps` (never remembered, never offered by the switch) is a test-only pseudo language:
 * the English catalog with each message wrapped in ⟦…⟧ (and each date or number Intl formats
 * in ⟪…⟫), so that a test can see any text that escapes the catalog.
 *
 * @module i18n
 */

import { LANGUAGES, LANGUAGE_NAMES, LANG_KEY, PSEUDO, chooseLanguage, isEmbedded, stored } from './language.js';

export { LANGUAGES, LANGUAGE_NAMES, LANG_KEY, PSEUDO, chooseLanguage };

export const lang = chooseLanguage();
/** The locale Intl formats dates and numbers in (the pseudo language's is English). */
export const locale = lang === PSEUDO ? 'en' : lang;
const pseudo = lang === PSEUDO;

/** Whether this page needs the words of the front, replay and leaderboard pages
 * (`messages-xx-site.js`): every page but the play page, which does without them. */
const sitePage = !isEmbedded() && !/^\/play(\/|$)/.test(globalThis.location?.pathname ?? '/');

const catalog = await (async () => {
  const base = lang === 'nl' ? 'nl' : 'en';
  const parts = await Promise.all([
    import(base === 'nl' ? './messages-nl.js' : './messages-en.js'),
    sitePage ? import(base === 'nl' ? './messages-nl-site.js' : './messages-en-site.js') : null,
  ]);
  const messages = Object.assign({}, ...parts.map((m) => m?.default ?? {}));
  if (!pseudo) {
    return messages;
  }
  return Object.fromEntries(Object.entries(messages).map(([k, v]) => [k, `\u27e6${v}\u27e7`]));
})();

/** Whether the catalog has a message `key`. */
export function has(key) {
  return typeof catalog[key] === 'string';
}

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

const plurals = new Intl.PluralRules(locale);

/**
 * A message with a number: `key.one` or `key.other` (as Intl.PluralRules chooses for the
 * language; English and Dutch have these two), with `{count}` set to `count`.
 * @param {string} key @param {number} count @param {Record<string, unknown>} [params]
 */
export function tn(key, count, params = {}) {
  const form = `${key}.${plurals.select(count)}`;
  return t(has(form) ? form : `${key}.other`, { count: formatNumber(count), ...params });
}

function marked(text) {
  return pseudo ? `\u27ea${text}\u27eb` : text;
}

/** A number in the page's language (`1,234.5` or `1.234,5`). */
export function formatNumber(n, options = {}) {
  return marked(new Intl.NumberFormat(locale, options).format(n));
}

/** A date (a Date) in the page's language, by Intl's `options`. */
export function formatDate(date, options = {}) {
  return marked(date.toLocaleString(locale, options));
}

/** A day (`2027-01-03`, the API's dates) in the page's language: `January 3, 2027`,
 * `3 januari 2027`; anything else as it is. */
export function formatDay(iso) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(iso ?? ''));
  if (!m) {
    return String(iso ?? '');
  }
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return formatDate(day, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
}

/** Remember the player's language and show the page in it (a `?lang=` in the address is
 * dropped: the switch wins). */
export function setLanguage(language) {
  try {
    globalThis.localStorage?.setItem(LANG_KEY, language);
  } catch {
    // storage refused: the address carries the choice for this page
  }
  const url = new URL(location.href);
  url.searchParams.delete('lang');
  if (stored() !== language) {
    url.searchParams.set('lang', language);
  }
  location.assign(url.href);
}

/** Fill every `data-i18n` element's text and `data-i18n-attr` attributes under `root`. */
export function translatePage(root = document) {
  document.documentElement.lang = locale;
  for (const el of root.querySelectorAll('[data-i18n]')) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':');
      if (attr && key) {
        el.setAttribute(attr.trim(), t(key.trim()));
      }
    }
  }
  document.documentElement.dataset.i18nDone = ''; // style.css shows the page's words now
}

/**
 * The language switch (a `<select id="lang-switch">`) in the site header's nav, on every page:
 * its options are the languages' own names; choosing one remembers it and reloads the page.
 */
export function installSwitch(doc = document) {
  const nav = doc.querySelector('header nav') ?? doc.querySelector('header');
  if (!nav || doc.getElementById('lang-switch')) {
    return;
  }
  const select = doc.createElement('select');
  select.id = 'lang-switch';
  select.className = 'lang-switch';
  select.setAttribute('aria-label', t('site.language'));
  select.title = t('site.language');
  // On a phone the header has no room for "Nederlands": the options read EN, NL there (their
  // full names stay their accessible names).
  const narrow = globalThis.matchMedia?.('(max-width: 600px)').matches ?? false;
  for (const code of LANGUAGES) {
    const option = doc.createElement('option');
    option.value = code;
    option.lang = code;
    option.textContent = narrow ? code.toUpperCase() : LANGUAGE_NAMES[code];
    option.setAttribute('aria-label', LANGUAGE_NAMES[code]);
    option.selected = code === lang;
    select.append(option);
  }
  select.addEventListener('change', () => setLanguage(select.value));
  const list = nav.querySelector('ul');
  if (list) {
    const li = doc.createElement('li');
    li.className = 'lang-item';
    li.append(select);
    list.append(li);
  } else {
    nav.append(select);
  }
}

if (globalThis.document) {
  translatePage();
  installSwitch();
}
