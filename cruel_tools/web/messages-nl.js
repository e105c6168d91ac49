// messages-nl.js: de Nederlandse teksten van de pagina's (i18n.js); dezelfde sleutels als messages-en.js.
export default {
  // --- presentatie, telefoons, het kader (#27): de kop, overslaan-links, de 404-pagina ---
  'site.skip-content': 'Naar de inhoud',
  'site.skip-game': 'Naar het spel',
  'site.nav': 'Site',
  'site.nav-today': 'Vandaag',
  'site.nav-replay': 'Terugkijken',
  'site.nav-api': 'API-documentatie',
  'play.leaderboard-link': 'Ranglijst',
  'play.how-link': 'Zo speel je',
  'notfound.title': 'Deze pagina bestaat niet',
  'notfound.text': 'Op dit adres staat geen pagina. De puzzels van vandaag staan op de voorpagina.',
  'notfound.home': 'Naar de puzzels van vandaag',
  'notfound.asked': 'Je vroeg om:',
  'lang.name': 'Nederlands',
};
