/**
 * cruel-game.js: the `<cruel-game>` custom element, Cruel in anyone's page (docs/embed.md).
 *
 *     <script type="module" src="https://puzzles.example/embed/cruel-game.js"></script>
 *     <cruel-game deal="17"></cruel-game>
 *     <cruel-game puzzle="today:easy" server="https://puzzles.example"></cruel-game>
 *
 * Attributes: `deal` (a deal number; without `puzzle`, 1 if absent), `puzzle` (an id such as
 * `2027-01-05-easy`, or `today:TIER`; needs `server`), `rules` (a preset, for a deal), `lang`
 * (`en`, `nl`: one language a page, the first element's), `server` (a cruel-tools service:
 * puzzles, hints where the service allows them, submissions; without it a deal plays
 * offline), `auto-moves` (`off` to play every card yourself). Events: `cruel-move` and
 * `cruel-won` (`detail.log`, a cruel-log/1 object). Methods: `getLog()`, `undo()`, `redo()`,
 * `restart()`, `submit({player, token})`.
 *
 * The parts are the play page's own modules: cruel.js (every rule), board.js (the drawing),
 * pointer.js (clicks, double-clicks, drag and drop), motion.js (cards slide), celebrate.js (the
 * win moment), hinting.js (hints), i18n.js and words.js (the words). This file holds what the
 * element needs beyond them: its shadow root, its attributes, its small toolbar.
 *
 * @module cruel-game
 */

const HERE = new URL('.', import.meta.url);
/** Cards slide and automatic moves follow at this pace (ms; faster under reduced motion). */
const AUTO_MS = 160;

/** The element's own layout (its board's look is style.css's, shared with the play page). */
const LAYOUT = `
:host { display: block; container-type: inline-size; color: var(--fg); font-family: inherit; }
:host([hidden]) { display: none; }
.cg-head { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: baseline; margin: 0 0 .25rem; }
.cg-title { font-weight: 650; margin: 0; }
.message { margin: .35rem 0; }
.toolbar { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .4rem 0; }
.drag-ghost { position: fixed; }
@container (min-width: 560px) {
  .piles { grid-template-columns: repeat(6, minmax(0, 1fr)); }
}
`;

/** The module graph and the stylesheet, asked for at once when this script runs: this file
 * imports nothing statically, so that nothing waits for another file before the rest is asked
 * for (no waterfall: the board is drawn round trips sooner). The catalog is the first element's
 * language's, else the browser's (language.js decides for good, and loads another if need be). */
const GRAPH = ['language.js', 'cruel.js', 'spec.js', 'board.js', 'words.js', 'pointer.js', 'i18n.js', 'motion.js'];
function preload() {
  const asked = document.querySelector('cruel-game[lang]')?.getAttribute('lang') ?? navigator.language ?? '';
  const catalog = `messages-${asked.toLowerCase().startsWith('nl') ? 'nl' : 'en'}.js`;
  const link = (rel, name, as = null) => {
    const l = document.createElement('link');
    l.rel = rel;
    l.href = new URL(name, HERE).href;
    if (as) {
      l.as = as;
    }
    document.head.append(l);
  };
  for (const name of [...GRAPH, catalog]) {
    link('modulepreload', name);
  }
  link('preload', 'style.css', 'style');
}
preload();

/** The modules, loaded once for every element of the page (after the language is chosen). */
let parts = null;
function loadParts() {
  parts ??= Promise.all([
    import('./cruel.js'), import('./board.js'), import('./pointer.js'), import('./i18n.js'),
    import('./words.js'), import('./motion.js'),
  ]).then(([cruel, board, pointer, i18n, words, motion]) => ({ cruel, board, pointer, i18n, words, motion }));
  return parts;
}

function el(tag, attrs = {}, text = '') {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    e.setAttribute(k, v);
  }
  e.textContent = text;
  return e;
}

export class CruelGame extends HTMLElement {
  static observedAttributes = ['deal', 'puzzle', 'rules', 'server', 'auto-moves'];

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    /** A promise of the game being drawn (a host may await it). @type {Promise<void> | null} */
    this.ready = null;
    /** @private @type {any} the game: its puzzle, recorder, line, redo stack, choice */
    this.state = null;
    /** @private @type {any} the loaded modules */
    this.p = null;
    /** @private @type {any} */
    this.ui = null;
  }

  connectedCallback() {
    this.ready = this.#start();
  }

  attributeChangedCallback(name, before, after) {
    if (this.state && before !== after) {
      this.ready = this.#start();
    }
  }

  /**
   * The game so far as a cruel-log/1 object (what `cruel verify` reads; a won game's claims
   * its win); null before the game is drawn.
   * @returns {import('./cruel.js').Log | null}
   */
  getLog() {
    return this.state ? this.state.rec.log({ claim: this.state.rec.game.isWon() }) : null;
  }

  async #start() {
    const asked = this.#ask(); // the service's answers, while the modules load
    asked.catch(() => {}); // a failure is said once the words are there
    const language = await import('./language.js');
    language.embedInPage();
    language.preferLanguage(this.getAttribute('lang')); // before i18n.js loads its catalog
    this.p = await loadParts();
    this.#skeleton();
    let puzzle;
    try {
      puzzle = await this.#puzzle(await asked);
    } catch (e) {
      this.#say(e.message, 'error');
      this.dataset.ready = 'false';
      return;
    }
    this.state = {
      puzzle, rec: null, steps: [], autos: [], redo: [], selected: null, options: [], highlight: null,
      autoToken: 0, won: false, today: puzzle.today ?? null,
    };
    this.#replay([]);
    this.#showTitle();
    this.#render();
    this.#say(this.p.i18n.t('play.start-touch'));
    this.dataset.ready = 'true';
    performance.mark('cruel-game-ready'); // benchmarks/embed_bench.py: the first board's time
  }

  /** The shadow root's content: style.css (the board's look), the layout, the parts. */
  #skeleton() {
    const { t } = this.p.i18n;
    this.ui?.pointer?.detach();
    this.ui = {};
    const link = el('link', { rel: 'stylesheet', href: new URL('style.css', HERE).href });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(LAYOUT);
    this.shadowRoot.adoptedStyleSheets = [sheet];
    const head = el('div', { class: 'cg-head', part: 'head' });
    this.ui.titleEl = el('p', { class: 'cg-title', part: 'title' }, 'Cruel');
    this.ui.countersEl = el('p', { class: 'counters muted', part: 'counters' });
    head.append(this.ui.titleEl, this.ui.countersEl);
    this.ui.messageEl = el('p', { class: 'message', role: 'status', 'aria-live': 'polite', part: 'message' });
    this.ui.boardEl = el('div', { class: 'cg-board', part: 'board' });
    const bar = el('div', { class: 'toolbar', part: 'toolbar' });
    const button = (key, run, words) => {
      const b = el('button', { type: 'button', 'data-action': key, part: `button ${key}` }, words);
      b.addEventListener('click', run);
      bar.append(b);
      return b;
    };
    this.ui.buttons = {
      redeal: button('redeal', () => this.#step(this.p.cruel.REDEAL), t('play.redeal')),
      undo: button('undo', () => this.undo(), t('play.undo')),
      redo: button('redo', () => this.redo(), t('play.redo')),
      hint: button('hint', () => this.#hint(), t('play.hint-button')),
      restart: button('restart', () => this.restart(), t('play.restart')),
    };
    this.ui.layer = el('div', { class: 'cg-layer' });
    this.shadowRoot.replaceChildren(link, head, this.ui.messageEl, this.ui.boardEl, bar, this.ui.layer);
    this.ui.pointer = this.p.pointer.attachPointer(this.ui.boardEl, {
      root: this.shadowRoot, layer: this.ui.layer,
      click: (card) => this.#click(card),
      second: () => this.#second(),
      drop: (source, target) => this.#drop(source, target),
      nowhere: () => this.#say(t('play.dropped-nowhere')),
    });
  }

  #server() {
    const s = this.getAttribute('server');
    return s ? s.replace(/\/+$/, '') : null;
  }

  async #get(path) {
    const res = await fetch(this.#server() + path, { headers: { Accept: 'application/json' } });
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      throw new Error(data?.message ?? `the service answered ${res.status}`);
    }
    return data;
  }

  /** A puzzle's requests, both at once: the service's day and the puzzle; null for a deal. */
  async #ask() {
    const wanted = this.getAttribute('puzzle');
    if (!wanted) {
      return null;
    }
    if (!this.#server()) {
      throw new Error('a puzzle needs the server attribute (a cruel-tools service)');
    }
    const tier = /^today:(\w+)$/.exec(wanted);
    const [today, puzzle] = await Promise.all([
      this.#get('/v1/health').then((h) => h.today).catch(() => null),
      tier ? this.#get(`/v1/puzzles/daily/today?tier=${encodeURIComponent(tier[1])}`).then((d) => d.puzzles[0])
        : this.#get(`/v1/puzzles/${encodeURIComponent(wanted)}`),
    ]);
    return { ...puzzle, today };
  }

  /** The game to play: a puzzle of the server (`asked`), or a deal (offline). */
  #puzzle(asked) {
    const { cruel } = this.p;
    if (asked) {
      return asked;
    }
    const number = Number(this.getAttribute('deal') ?? '1');
    const rules = this.getAttribute('rules') ?? 'cruel';
    cruel.rulesOf(rules); // an unknown preset is refused here, in cruel.js's words
    cruel.dealPiles(number, rules); // and a deal number out of range
    return { id: null, deal: { number }, rules, par: null, free: true };
  }

  #replay(steps, autos = []) {
    const { puzzle } = this.state;
    this.state.rec = new this.p.cruel.Recorder({
      number: puzzle.deal.number ?? null, piles: puzzle.deal.number == null ? puzzle.deal.piles : null, rules: puzzle.rules,
    });
    this.state.steps = [];
    this.state.autos = [];
    steps.forEach((step, i) => {
      this.state.rec.push(step);
      this.state.steps.push(step);
      this.state.autos.push(Boolean(autos[i]));
    });
  }

  #game() {
    return this.state.rec.game;
  }

  #showTitle() {
    const { t, formatDay } = this.p.i18n;
    const { puzzle } = this.state;
    this.ui.titleEl.textContent = puzzle.free
      ? t('play.free-title', { number: puzzle.deal.number, rules: puzzle.rules })
      : t('play.title', { date: formatDay(puzzle.date), tier: t(`tier.${puzzle.tier}`) });
  }

  #say(text, kind = '') {
    this.ui.messageEl.textContent = text;
    this.ui.messageEl.className = `message ${kind}`.trim();
  }

  #render() {
    const { t } = this.p.i18n;
    const g = this.#game();
    const before = this.p.motion.snapshot(this.ui.boardEl);
    this.p.board.renderBoard(this.ui.boardEl, g, {
      interactive: !this.state.won, highlight: this.state.highlight, selected: this.state.selected,
      targets: this.state.options.map((m) => m.target), idPrefix: `cg${this.#uid()}`,
    });
    this.p.motion.flip(this.ui.boardEl, before);
    const par = this.state.puzzle.par?.actions;
    this.ui.countersEl.textContent = `${t('play.moves')} ${g.moves} · ${t('play.redeals')} ${g.redeals} · ` +
      `${t('play.actions')} ${g.moves + g.redeals}${par ? ` ${t('play.par-of')} ${par}` : ''}`;
    const final = this.state.won;
    this.ui.buttons.redeal.disabled = final || g.redealProblem() !== null;
    this.ui.buttons.undo.disabled = final || !this.state.autos.some((a) => !a);
    this.ui.buttons.redo.disabled = final || !this.state.redo.length;
    this.ui.buttons.hint.hidden = !this.#hintsAllowed();
    this.ui.buttons.hint.disabled = final;
  }

  #uid() {
    this.ui.uid ??= Math.random().toString(36).slice(2, 8);
    return this.ui.uid;
  }

  /** Hints come from the server, for a deal or a closed puzzle (an open one's are refused). */
  #hintsAllowed() {
    const { puzzle, today } = this.state;
    if (!this.#server()) {
      return false;
    }
    return Boolean(puzzle.free || (today && puzzle.solution_from && today >= puzzle.solution_from));
  }

  // --- steps -----------------------------------------------------------------------------------

  /** Play `step` (a move or REDEAL) if the rules allow it; true when played. */
  #step(step, { auto = false, redoing = false } = {}) {
    const { words } = this.p;
    const g = this.#game();
    const described = words.stepWords(step, g);
    const card = step.type === 'move' ? g.top(step.source) : null;
    try {
      this.state.rec.push(step);
    } catch (e) {
      this.#say(words.explain(e), 'error');
      return false;
    }
    this.state.steps.push(step);
    this.state.autos.push(auto);
    if (!auto && !redoing) {
      this.state.redo = [];
    }
    this.state.selected = null;
    this.state.options = [];
    this.state.highlight = card;
    this.#say(described);
    this.#emit('cruel-move', { step: this.p.cruel.stepText(step), auto });
    if (this.#game().isWon()) {
      this.#won();
    } else if (!auto) {
      this.#autos();
    }
    this.#render();
    return true;
  }

  /** After a step of the player's: the automatic moves cruel.js finds safe, one by one. */
  #autos() {
    const token = ++this.state.autoToken;
    if (this.getAttribute('auto-moves') === 'off') {
      return;
    }
    const pace = this.p.motion.reducedMotion() ? 60 : AUTO_MS;
    const next = () => {
      if (token !== this.state.autoToken || this.state.won) {
        return;
      }
      const m = this.#game().automaticMove();
      if (m !== null && this.#step(m, { auto: true })) {
        setTimeout(next, pace);
      }
    };
    setTimeout(next, pace);
  }

  #won() {
    const { t } = this.p.i18n;
    this.state.won = true;
    this.state.autoToken++;
    this.#say(t('play.you-won'), 'ok');
    this.#emit('cruel-won', { actions: this.#game().moves + this.#game().redeals });
    import('./celebrate.js').then((c) => {
      c.cascade(this.ui.boardEl, 13, this.ui.layer);
      const g = this.#game();
      c.openWin({
        title: t('play.you-won'),
        lines: [{ key: 'actions', text: t('win.actions', { n: g.moves + g.redeals }) }],
        actions: [{ key: 'again', text: t('win.again'), primary: true, run: ({ close }) => { close(); this.restart(); } }],
      }, () => {}, this.ui.layer);
    });
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail: { ...detail, log: this.getLog() }, bubbles: true, composed: true }));
  }

  /** Take back the last step of the player's (and the automatic moves after it). */
  undo() {
    const { autos, steps } = this.state;
    if (this.state.won || !autos.some((a) => !a)) {
      return;
    }
    let n = autos.length;
    while (autos[n - 1]) {
      n--;
    }
    this.state.redo.push(steps[n - 1]);
    this.state.autoToken++;
    this.#replay(steps.slice(0, n - 1), autos.slice(0, n - 1));
    this.state.highlight = null;
    this.#say(this.p.i18n.t('play.undo'));
    this.#render();
  }

  /** Play again the last step undone. */
  redo() {
    const step = this.state.redo.pop();
    if (step && !this.state.won) {
      this.#step(step, { redoing: true });
    }
  }

  /** The deal again, from its start. */
  restart() {
    this.state.autoToken++;
    Object.assign(this.state, { won: false, redo: [], selected: null, options: [], highlight: null });
    this.#replay([]);
    this.#say(this.p.i18n.t('play.start-touch'));
    this.#render();
  }

  // --- input -----------------------------------------------------------------------------------

  #click(card) {
    const { t } = this.p.i18n;
    this.ui.clickedPile = card?.dataset.pile ? Number(card.dataset.pile) : null;
    if (!card || this.state.won) {
      return;
    }
    if (card.dataset.target === 'foundation') {
      this.#choose(null);
      return;
    }
    const n = Number(card.dataset.pile);
    if (this.state.selected !== null && this.#choose(n)) {
      return;
    }
    const options = this.#game().cardMoves().filter((m) => m.source === n);
    if (options.length === 1) {
      this.#step(options[0]);
    } else if (!options.length) {
      this.#say(t('play.no-move', { card: this.p.words.cardText(this.#game().top(n)), n }), 'error');
    } else {
      this.state.selected = n;
      this.state.options = options;
      this.#say(this.p.words.choiceWords(this.#game(), n, options));
      this.#render();
    }
  }

  /** A choice offered after a click: true when `target` was among it (then it is played). */
  #choose(target) {
    const chosen = this.state.options.find((m) => m.target === target);
    if (chosen) {
      this.#step(chosen);
      return true;
    }
    return false;
  }

  /** A double-click on a card whose first click offered its foundation: it goes there. */
  #second() {
    const n = this.ui.clickedPile;
    this.ui.clickedPile = null;
    return n !== null && this.state.selected === n && this.#choose(null);
  }

  #drop(source, target) {
    const offered = this.#game().cardMoves().find((m) => m.source === source && m.target === target);
    this.#step(offered ?? this.p.cruel.move(source, target));
  }

  // --- the server ------------------------------------------------------------------------------

  async #hint() {
    const { t } = this.p.i18n;
    const { askHint, answerWords } = await import('./hinting.js');
    this.#say(t('play.hint-asking'));
    const answer = await askHint(this.state.rec.log({ claim: false }), this.#server());
    if (answer.status !== 'win-next') {
      this.#say(answerWords(answer), answer.status === 'error' ? 'error' : '');
      return;
    }
    this.#say(t('play.hint-next', { step: this.p.words.stepWords(answer.step, this.#game()) }));
    if (answer.step.type === 'move') {
      this.state.highlight = this.#game().top(answer.step.source);
      this.#render();
    }
  }

  /**
   * Send the won game to the server's leaderboard (`POST /v1/puzzles/{id}/submissions`), as
   * `player`, with the player's token where the name is claimed.
   * @param {{player: string, token?: string}} who
   * @returns {Promise<{ok: boolean, status: number, data: object|null}>}
   */
  async submit({ player, token = undefined }) {
    const { puzzle } = this.state;
    if (!this.#server() || !puzzle.id || !this.state.won) {
      throw new Error('only a won puzzle of a server can be submitted');
    }
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (token) {
      headers.Authorization = `Player ${token}`;
    }
    const log = { ...this.getLog(), meta: { player, puzzle: puzzle.id } };
    const res = await fetch(`${this.#server()}/v1/puzzles/${encodeURIComponent(puzzle.id)}/submissions`, {
      method: 'POST', headers, body: JSON.stringify({ player, log }),
    });
    return { ok: res.ok, status: res.status, data: await res.json().catch(() => null) };
  }
}

if (!customElements.get('cruel-game')) {
  customElements.define('cruel-game', CruelGame);
}
