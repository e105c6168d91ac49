// notfound.js: the 404 page (404.html): its words come from the catalogs (i18n.js translates
// the page and adds the language switch when it loads); it names the address asked for.
import { t } from './i18n.js';

const path = document.createElement('code');
path.textContent = location.pathname;
const line = document.createElement('p');
line.className = 'muted';
line.append(t('notfound.asked'), ' ', path);
document.querySelector('main h1').after(line);
