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

let preferred = null; // a <cruel-game lang="..."> of the page: before the player's own choice
let embedded = false; // the page is another site's, holding a <cruel-game> (docs/embed.md)

/** A `<cruel-game>`'s `lang` attribute: the page's language, when it is one of ours, unless the
 * address asks otherwise (`?lang=`). The first element that says one decides for the page: its
 * catalog is loaded once. */
export function preferLanguage(want) {
  if (preferred === null && LANGUAGES.includes(base(want))) {
    preferred = base(want);
  }
}

/** Say that this page is another site's with a `<cruel-game>` in it (i18n.js then loads only
 * the game's words, not those of this site's own pages). */
export function embedInPage() {
  embedded = true;
}

/** Whether {@link embedInPage} was said. */
export function isEmbedded() {
  return embedded;
}

/** The language to show: `?lang=`, else a `<cruel-game>`'s `lang`, else the remembered switch,
 * else the browser's first known language, else English. */
export function chooseLanguage() {
  const asked = new URLSearchParams(globalThis.location?.search ?? '').get('lang');
  if (base(asked) === PSEUDO) {
    return PSEUDO;
  }
  for (const want of [asked, preferred, stored(), ...(globalThis.navigator?.languages ?? [])]) {
    if (LANGUAGES.includes(base(want))) {
      return base(want);
    }
  }
  return 'en';
}
