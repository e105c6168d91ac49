// language.js: which language a page shows, decided in one place (docs/web.md "Languages"):
// i18n.js loads that language's catalog, and gameday.js, the play page's first script, fetches
// it early. It imports nothing and awaits nothing, so that the early fetch waits for no module.

/** The languages a player can choose, each with its name in itself (the switch's options). */
export const LANGUAGES = ['en', 'nl'];
export const LANGUAGE_NAMES = { en: 'English', nl: 'Nederlands' };
export const LANG_KEY = 'cruel.lang';
/** The test-only pseudo language (docs/web.md "Languages"). */
export const PSEUDO = 'qps';

export function stored() {
  try {
    return globalThis.localStorage?.getItem(LANG_KEY) ?? null;
  } catch {
    return null;
  }
}

function base(want) {
  return typeof want === 'string' ? want.trim().toLowerCase().split(/[-_]/)[0] : '';
}

/** The language to show: `?lang=`, else the remembered switch, else the browser's first known
 * language, else English. */
export function chooseLanguage() {
  const asked = new URLSearchParams(globalThis.location?.search ?? '').get('lang');
  if (base(asked) === PSEUDO) {
    return PSEUDO;
  }
  for (const want of [asked, stored(), ...(globalThis.navigator?.languages ?? [])]) {
    if (LANGUAGES.includes(base(want))) {
      return base(want);
    }
  }
  return 'en';
}
