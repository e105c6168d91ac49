// messages-en.js: the English catalog of the pages (i18n.js). Keys: page.what; {name} fields.
export default {
  'lang.name': 'English',
};
