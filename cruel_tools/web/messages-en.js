// messages-en.js: the English catalog of the pages (i18n.js). Keys: page.what; {name} fields.
export default {
  // --- presentation, phones, furniture (#27): the header, skip links, the 404 page ---
  'site.skip-content': 'Skip to content',
  'site.skip-game': 'Skip to the game',
  'site.nav': 'Site',
  'site.nav-today': 'Today',
  'site.nav-replay': 'Replay',
  'site.nav-api': 'API docs',
  'play.leaderboard-link': 'Leaderboard',
  'play.how-link': 'How to play',
  'notfound.title': 'No such page',
  'notfound.text': 'There is no page at this address. The puzzles of the day are on the front page.',
  'notfound.home': 'Go to today’s puzzles',
  'notfound.asked': 'You asked for:',
  'lang.name': 'English',
};
