// messages-nl.js: de Nederlandse teksten van de pagina's (i18n.js); dezelfde sleutels als messages-en.js.
export default {
  'lang.name': 'Nederlands',
};
