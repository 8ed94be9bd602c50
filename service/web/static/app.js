// Tablestream's web client: a third-party client of the public API (openapi.yaml), nothing more.
// Routes: #/ (sign-in or lobby), #/games/<id> (a table: board, moves, clocks, replay, explain),
// #/players/<handle> (a profile), #/leaderboards/<game>.
import { el, append, clear, words, commandLabel } from './dom.js';
import { chooseLanguage, languages, loadLanguage, locale, t, tn, term } from './i18n.js';
import { showLeaderboard, showProfile, signInCard, signUpCard } from './account.js';
import { drawTakeback } from './takeback.js';
import { eventList, inWords, line, logRows, promptWords, seatNames, subjectSeat } from './log.js';
import { drawResult } from './result.js';
import { notifyButton } from './pwa.js';
import { chooser, defaultChoiceLabel, splitMoves } from './choices.js';

const API = '/v1';
const TOKEN_KEY = 'tablestream.token';
const REFRESH_KEY = 'tablestream.refresh'; // an account's refresh token (guests have none)
const main = document.getElementById('main');
const who = document.getElementById('who');
const toast = document.getElementById('toast');

const state = {
  token: localStorage.getItem(TOKEN_KEY),
  refresh: localStorage.getItem(REFRESH_KEY),
  me: null,
  account: null, // GET /account: the handle, when the player has an account
  catalog: null,
  table: null, // the open game page, see openTable()
};

// --- the API -------------------------------------------------------------------------------

class Problem extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || t('HTTP error {status}', { status: String(status) }));
    this.status = status;
    this.code = body && body.code;
  }
}

async function api(method, path, body) {
  try {
    return await call(method, path, body);
  } catch (error) {
    // An account's access token lives minutes: trade the refresh token for a new pair, once.
    if (error.status !== 401 || !state.refresh || path.startsWith('/sessions')) throw error;
    const refresh = state.refresh;
    state.refresh = null;
    keepTokens(await call('POST', '/sessions/refresh', { refresh_token: refresh }));
    return call(method, path, body);
  }
}

function keepTokens(session) {
  state.token = session.access_token;
  state.refresh = session.refresh_token;
  localStorage.setItem(TOKEN_KEY, state.token);
  localStorage.setItem(REFRESH_KEY, state.refresh);
}

// After signing in or up: keep the tokens, learn who we are, and (unless `stay`) go on.
async function keepSession(session, stay = false) {
  keepTokens(session);
  await whoAmI();
  renderWho();
  if (!stay) go('#/');
}

async function whoAmI() {
  state.me = await api('GET', '/me');
  state.account = await api('GET', '/account');
}

const accountCtx = { api, say, fail, page, keepSession, go: (hash) => go(hash) };

async function call(method, path, body) {
  // The API answers in the page's language where it can (problem details, rules' words).
  const headers = { Accept: 'application/json' };
  headers['Accept-Language'] = locale();
  if (state.token) headers.Authorization = `Bearer ${state.token}`; // i18n-ignore: a header
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(API + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Problem(response.status, data);
  return data;
}

function say(message, isError = false) {
  toast.textContent = message;
  toast.className = isError ? 'error' : '';
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { toast.textContent = ''; }, isError ? 8000 : 4000);
}

// A problem in words: its detail (or title), never its code.
function fail(error) {
  say(String(error.message || error), true);
}

// --- routing -------------------------------------------------------------------------------

function route() {
  const hash = location.hash || '#/';
  if (!hash.startsWith('#/')) return; // in-page anchors (the skip link)
  closeTable();
  closeNotices();
  const match = hash.match(/^#\/games\/([A-Za-z0-9_-]+)/);
  const player = hash.match(/^#\/players\/([^/]+)/);
  const board = hash.match(/^#\/leaderboards\/([a-z_]+)/);
  if (board) showLeaderboard(accountCtx, board[1]).catch(fail);
  else if (player) {
    const handle = decodeURIComponent(player[1]);
    const own = Boolean(state.account && state.account.handle === handle);
    showProfile(accountCtx, handle, own).catch(fail);
  }
  else if (!state.token) showSignIn();
  else if (match) openTable(match[1]);
  else showLobby();
}

function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function page(title, ...children) {
  clear(main);
  document.title = title ? `${title} · Tablestream` : 'Tablestream'; // i18n-ignore: the brand
  append(main, children);
  // A new page: keyboard and screen-reader users start at its top, not where the last one was.
  main.focus({ preventScroll: true });
}

function renderWho() {
  clear(who);
  if (state.me) {
    const handle = state.account && state.account.handle;
    // dom.js's append skips the nulls (the DOM's own would write "null" for a guest).
    append(who, [el('span', { class: 'me' }, t('Signed in as {name}', { name: state.me.name })), ' ',
      handle ? el('a', { class: 'link', href: `#/players/${encodeURIComponent(handle)}` },
        t('Profile')) : null, handle ? ' ' : null,
      notifyButton(accountCtx), ' ',
      el('button', { type: 'button', class: 'link', onclick: signOut }, t('Sign out'))]);
  }
  who.append(' ', languageSwitch());
}

// The language switch: the page's languages, each named in itself; the choice is remembered.
function languageSwitch() {
  const offered = languages();
  const select = el('select', { id: 'language', class: 'language', 'aria-label': t('Language'),
    onchange: () => chooseLanguage(select.value) },
  Object.entries(offered).map(([code, name]) => el('option', { value: code, lang: code }, name)));
  select.value = locale();
  return select;
}

// --- signing in ----------------------------------------------------------------------------

function showSignIn() {
  const input = el('input', { id: 'signin-name', name: 'name', required: true, maxlength: '40',
    autocomplete: 'nickname' });
  const form = el('form', { class: 'card signin', onsubmit: async (event) => {
    event.preventDefault();
    try {
      const created = await api('POST', '/players', { name: input.value.trim() });
      state.token = created.token;
      localStorage.setItem(TOKEN_KEY, created.token);
      state.me = { id: created.id, name: created.name };
      state.account = { handle: null }; // a guest, who may keep their games as an account
      renderWho();
      say(t('Welcome, {name}.', { name: created.name }));
      route();
    } catch (error) { fail(error); }
  } },
  el('h1', {}, t('Play turn-based games')),
  el('label', { for: 'signin-name' }, t('Your name')), input,
  el('button', { type: 'submit' }, t('Sign in')));
  page(t('Sign in'), form, signInCard(accountCtx), signUpCard(accountCtx, false));
  input.focus();
}

function signOut() {
  if (state.refresh) {
    call('POST', '/sessions/sign-out', { refresh_token: state.refresh }).catch(() => {});
  }
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(REFRESH_KEY);
  state.token = null;
  state.refresh = null;
  state.me = null;
  state.account = null;
  renderWho();
  go('#/');
}

// --- the lobby -----------------------------------------------------------------------------

async function catalog() {
  if (!state.catalog) state.catalog = await api('GET', '/games/catalog');
  return state.catalog;
}

function titleOf(game) {
  const entry = (state.catalog || []).find((e) => e.name === game);
  return term(`game.${game}`, entry ? entry.title : game);
}

// A game's status in words.
function statusText(status) {
  return { open: t('open'), running: t('running'), finished: t('finished') }[status] || status;
}

// The lobby follows the player's notices (one SSE stream over all their games) and redraws its
// lists when one comes: a game started, it is your turn, a game ended.
const NOTICES = ['game_started', 'your_turn', 'undo_asked', 'clock_warning', 'game_over'];

function followNotices(refresh) {
  const query = new URLSearchParams({ access_token: state.token });
  const source = new EventSource(`${API}/me/events/stream?${query}`);
  let pending = null;
  const later = () => {
    clearTimeout(pending);
    pending = setTimeout(refresh, 300); // one redraw for a burst of notices
  };
  for (const kind of NOTICES) source.addEventListener(kind, later);
  reopenWhenRefused(source, () => state.notices === source, () => {
    state.notices = null;
    followNotices(refresh);
  });
  state.notices = source;
}

// A stream keeps checking the token it was opened with, and an account's access token lives
// minutes: when it runs out the server ends the stream and refuses the browser's reconnection
// (401), which leaves the EventSource closed for good. Then trade the refresh token for a new
// pair (any API call does it on a 401) and open the stream again with the new token, waiting
// longer after each refusal in a row so that a stream refused for another reason (too many
// streams) does not knock in a loop.
const REOPEN_FIRST_MS = 500;
const REOPEN_MAX_MS = 30000;

function reopenWhenRefused(source, stillWanted, reopen) {
  source.addEventListener('open', () => { state.reopenWait = REOPEN_FIRST_MS; });
  source.addEventListener('error', () => {
    if (source.readyState !== EventSource.CLOSED || !stillWanted()) return;
    const wait = state.reopenWait || REOPEN_FIRST_MS;
    state.reopenWait = Math.min(2 * wait, REOPEN_MAX_MS);
    setTimeout(async () => {
      if (!stillWanted()) return;
      try {
        await api('GET', '/me');
      } catch (error) {
        if (error.status === 401) return; // signed out for good: the page says so elsewhere
      }
      if (stillWanted()) reopen();
    }, wait);
  });
}

function closeNotices() {
  if (state.notices) state.notices.close();
  state.notices = null;
}

async function showLobby() {
  const mine = el('ul', { class: 'games', id: 'my-games' });
  const open = el('ul', { class: 'games', id: 'open-games' });
  const creator = el('div', { id: 'create' });
  page(t('Lobby'),
    el('section', { class: 'card', 'aria-labelledby': 'create-h' },
      el('h2', { id: 'create-h' }, t('New game')), creator),
    el('section', { class: 'card', 'aria-labelledby': 'mine-h' },
      el('h2', { id: 'mine-h' }, t('Your games')), mine),
    el('section', { class: 'card', 'aria-labelledby': 'open-h' },
      el('h2', { id: 'open-h' }, t('Open games')), open,
      el('button', { type: 'button', onclick: () => fillLobby(mine, open).catch(fail) },
        t('Refresh'))),
    state.account && !state.account.handle ? signUpCard(accountCtx, true) : null);
  try {
    await catalog();
    renderCreator(creator);
    await fillLobby(mine, open);
    if (!state.notices && document.contains(mine)) followNotices(() => fillLobby(mine, open).catch(fail));
  } catch (error) { fail(error); }
}

async function fillLobby(mine, open) {
  const [my, lobby] = await Promise.all([api('GET', '/me/games?filter=all&limit=50'),
    api('GET', '/games?status=open&limit=50')]);
  fillGames(mine, my, (g) => [
    el('span', {}, `${titleOf(g.game)} · ${statusText(g.status)}`,
      g.your_turn ? el('strong', { class: 'badge' }, ' ', t('your turn')) : null),
    el('button', { type: 'button', onclick: () => go(`#/games/${g.id}`) }, t('Open'))],
  t('No games yet.'));
  const mineIds = new Set(my.map((g) => g.id));
  fillGames(open, lobby.filter((g) => !mineIds.has(g.id)), (g) => [
    el('span', {}, `${titleOf(g.game)} · `,
      t('{free} of {seats} seats free', { free: g.free_seats, seats: g.seats })),
    el('button', { type: 'button', onclick: () => join(g.id) }, t('Join')),
    el('button', { type: 'button', onclick: () => go(`#/games/${g.id}`) }, t('Watch'))],
  t('No open games.'));
}

function fillGames(list, games, row, empty) {
  clear(list);
  if (!games.length) list.append(el('li', { class: 'empty' }, empty));
  for (const game of games) list.append(el('li', { dataset: { game: game.id } }, row(game)));
}

async function join(gameId) {
  try {
    await api('POST', `/games/${gameId}/join`);
    go(`#/games/${gameId}`);
  } catch (error) { fail(error); }
}

// The create form: a title, its seats (you, open human seats, bots by level) and its options,
// all from the catalog, so a new title needs no change here.
function renderCreator(root) {
  const entries = state.catalog;
  const gameSelect = el('select', { id: 'new-game', name: 'game' },
    entries.map((e) => el('option', { value: e.name }, term(`game.${e.name}`, e.title))));
  const countSelect = el('select', { id: 'new-seats', name: 'seats' });
  // Rated games change the players' ratings (README: bots, takebacks, abandoned seats).
  const rated = el('input', { type: 'checkbox', id: 'new-rated', name: 'rated' });
  const seatsBox = el('fieldset', { class: 'seats' }, el('legend', {}, t('Seats')));
  const optionsBox = el('fieldset', { class: 'options' }, el('legend', {}, t('Options')));
  const think = el('input', { id: 'new-think', type: 'number', min: '10', max: '5000',
    placeholder: t('default') });
  const entry = () => entries.find((e) => e.name === gameSelect.value);

  function seatChoices(index) {
    const levels = entry().bot_levels;
    const select = el('select', { id: `seat-${index}`, class: 'seat-kind' },
      el('option', { value: 'human' }, t('Human (open seat)')),
      levels.map((level) => el('option', { value: `bot:${level}` },
        t('Bot: {level}', { level: levelText(level) }))));
    select.value = levels.includes('basic') ? 'bot:basic' : `bot:${levels[0]}`;
    return el('div', { class: 'field' }, el('label', { for: `seat-${index}` },
      t('Seat {n}', { n: index + 1 })), select);
  }

  function drawSeats() {
    const n = Number(countSelect.value);
    clear(seatsBox).append(el('legend', {}, t('Seats')),
      el('div', { class: 'field' }, el('span', { class: 'label' }, t('Seat {n}', { n: 1 })),
        el('span', {}, t('You'))));
    for (let i = 1; i < n; i += 1) seatsBox.append(seatChoices(i));
  }

  function drawGame() {
    const e = entry();
    clear(countSelect);
    for (let n = e.min_seats; n <= e.max_seats; n += 1) {
      countSelect.append(el('option', { value: String(n) }, String(n)));
    }
    drawSeats();
    clear(optionsBox).append(el('legend', {}, t('Options')));
    for (const [name, schema] of Object.entries(e.options.properties || {})) {
      optionsBox.append(optionField(name, schema));
    }
  }

  gameSelect.addEventListener('change', drawGame);
  countSelect.addEventListener('change', drawSeats);
  const form = el('form', { onsubmit: async (event) => {
    event.preventDefault();
    const seats = [{ kind: 'human' }];
    for (const select of seatsBox.querySelectorAll('select.seat-kind')) {
      const [kind, level] = select.value.split(':');
      const seat = kind === 'bot' ? { kind, level } : { kind };
      if (kind === 'bot' && level === 'expert' && think.value) seat.think_ms = Number(think.value);
      seats.push(seat);
    }
    try {
      const options = readOptions(optionsBox);
      let game = await api('POST', '/games', { game: gameSelect.value, seats, options,
        rated: rated.checked });
      if (game.seats.every((s) => s.kind !== 'human' || s.player)) {
        game = await api('POST', `/games/${game.id}/start`);
      }
      go(`#/games/${game.id}`);
    } catch (error) { fail(error); }
  } },
  el('div', { class: 'field' }, el('label', { for: 'new-game' }, t('Game')), gameSelect),
  el('div', { class: 'field' }, el('label', { for: 'new-seats' }, t('Players')), countSelect),
  seatsBox,
  el('div', { class: 'field' }, rated, el('label', { for: 'new-rated' }, t('Rated game'))),
  el('details', {}, el('summary', {}, t('Options')), optionsBox,
    el('div', { class: 'field' }, el('label', { for: 'new-think' }, t('Expert bot think time (ms)')),
      think)),
  el('button', { type: 'submit', id: 'create-game' }, t('Create game')));
  clear(root).append(form);
  drawGame();
}

// A bot level in words.
function levelText(level) {
  return { random: t('random'), basic: t('basic'), expert: t('expert') }[level] || level;
}

// An option's name or value in words: the page's word for it where it has one.
const OPTION_WORDS = () => ({
  turn_seconds: t('turn seconds'), reaction_seconds: t('reaction seconds'),
  max_timeouts: t('max timeouts'), teams: t('teams'), empty_deck_mode: t('empty deck mode'),
  discard: t('take from the discard'), seed_literal: t('as the rulebook says'),
  team_capture: t('team capture'), anchor: t('first of the team'),
  first_in_turn_order: t('first in turn order'), end_requires_play: t('end requires a play'),
  edition: t('edition'), current: t('current'), first: t('first'), beginner: t('beginner'),
  health: t('health'), supply: t('supply'), liar_penalty: t('liar penalty'),
  challenger_penalty: t('challenger penalty'), counts: t('card counts'), values: t('card values'),
  amounts: t('amounts'), attack_mode: t('attack mode'), free_for_all: t('free for all'),
  neighbours: t('neighbours'), no_mercy: t('No Mercy'), sound_effects: t('sound effects'),
  off: t('off'), on: t('on'), strict: t('strict'), windows: t('response windows'),
  every_eligible: t('every eligible player'), scenario: t('scenario'), south: t('south'),
  full: t('full'), max_rounds: t('max rounds'),
});
function optionWords(name) {
  return OPTION_WORDS()[name] || words(name);
}

// One input per option of the catalog's schema; only changed values are sent.
function optionField(name, schema) {
  const id = `opt-${name}`;
  const dflt = schema.default;
  let input;
  if (schema.enum) {
    input = el('select', { id }, schema.enum.map((v) => el('option', { value: JSON.stringify(v) },
      optionWords(String(v)))));
    input.value = JSON.stringify(dflt);
  } else if (schema.type === 'boolean') {
    input = el('input', { id, type: 'checkbox', checked: Boolean(dflt) });
  } else if (schema.type === 'integer' || schema.type === 'number') {
    input = el('input', { id, type: 'number', min: schema.minimum, max: schema.maximum,
      value: dflt === undefined ? '' : String(dflt) });
  } else {
    input = el('input', { id, type: 'text', value: dflt === undefined ? '' : JSON.stringify(dflt),
      spellcheck: 'false' });
  }
  input.dataset.option = name;
  input.dataset.kind = schema.enum ? 'enum' : (schema.type || 'json');
  input.dataset.initial = input.type === 'checkbox' ? String(input.checked) : input.value;
  return el('div', { class: 'field' }, el('label', { for: id }, optionWords(name)), input);
}

function readOptions(box) {
  const options = {};
  for (const input of box.querySelectorAll('[data-option]')) {
    const current = input.type === 'checkbox' ? String(input.checked) : input.value;
    if (current === input.dataset.initial) continue;
    const kind = input.dataset.kind;
    if (kind === 'boolean') options[input.dataset.option] = input.checked;
    else if (kind === 'integer' || kind === 'number') options[input.dataset.option] = Number(current);
    else if (current !== '') options[input.dataset.option] = JSON.parse(current);
  }
  return options;
}

// --- a table -------------------------------------------------------------------------------

const boards = new Map();

async function boardModule(game) {
  const name = /^[a-z0-9_]+$/.test(game) ? game : 'generic';
  if (!boards.has(name)) {
    boards.set(name, import(`./boards/${name}.js`).catch(() => import('./boards/generic.js'))
      .then((module) => { addStylesheet(module.stylesheet); return module; }));
  }
  return boards.get(name);
}

// A board may export `stylesheet`: a CSS file of its own beside it in boards/, linked once.
function addStylesheet(file) {
  if (!file || !/^[a-z0-9_-]+\.css$/.test(file)) return;
  const href = new URL(`./boards/${file}`, import.meta.url).href;
  if ([...document.querySelectorAll('link[rel=stylesheet]')].some((l) => l.href === href)) return;
  document.head.append(el('link', { rel: 'stylesheet', href }));
}

function closeTable() {
  const table = state.table;
  if (!table) return;
  table.closed = true;
  if (table.source) table.source.close();
  clearInterval(table.ticker);
  clearInterval(table.watchdog);
  state.table = null;
}

// On a phone the moves are pinned over the bottom of the page (style.css): whatever the keyboard
// focuses or a tap scrolls to stops above them, not under them (WCAG 2.4.11, focus not obscured).
// scroll-padding keeps what scrolls into view above them; what is focused half under them is
// lifted by hand, since the browser sees no need to scroll to what is already on screen.
let pinnedMoves = null;
const isPinned = (moves) => Boolean(moves && moves.isConnected
  && getComputedStyle(moves).position === 'sticky');
const pinnedHeight = new ResizeObserver(() => {
  const height = isPinned(pinnedMoves) ? pinnedMoves.offsetHeight : 0;
  document.documentElement.style.setProperty('--pinned-bottom', `${height}px`);
});
function keepScrollingAbove(moves) {
  pinnedMoves = moves;
  pinnedHeight.disconnect(); // the last table's panel, gone with it
  pinnedHeight.observe(moves);
}
// Not while a finger or the mouse is down: scrolling then would move what is being tapped out
// from under it, and the tap would be lost.
let pressing = false;
document.addEventListener('pointerdown', () => { pressing = true; }, true);
for (const type of ['pointerup', 'pointercancel']) {
  document.addEventListener(type, () => { pressing = false; }, true);
}
document.addEventListener('focusin', (event) => {
  if (pressing || !isPinned(pinnedMoves) || pinnedMoves.contains(event.target)) return;
  const under = event.target.getBoundingClientRect().bottom - pinnedMoves.getBoundingClientRect().top;
  if (under > 0) window.scrollBy(0, under + 8);
});

async function openTable(gameId) {
  await catalog().catch(() => null);
  const table = {
    id: gameId, game: null, module: null, replay: null, events: new Map(), announced: null,
    closed: false,
    source: null, ticker: null,
    parts: {
      head: el('div', { class: 'table-head' }),
      prompts: el('section', { class: 'prompts', 'aria-label': t('Whose move'), 'aria-live': 'polite' }),
      board: el('section', { class: 'board', id: 'board', 'aria-label': t('Board') }),
      moves: el('section', { class: 'moves card', id: 'commands', 'aria-labelledby': 'moves-h' }),
      takeback: el('section', { class: 'takeback card', id: 'takeback',
        'aria-labelledby': 'takeback-h', hidden: true }),
      replay: el('section', { class: 'replay card', 'aria-labelledby': 'replay-h' }),
      log: el('section', { class: 'log card', 'aria-labelledby': 'log-h' }),
      // What the others just did, read out by screen readers (the log's lines of their events).
      announce: el('div', { class: 'sr-only', id: 'announce', role: 'status',
        'aria-live': 'polite' }),
    },
  };
  state.table = table;
  const p = table.parts;
  keepScrollingAbove(p.moves);
  // The moves and the takeback side by side with the board on a desk, kept in view (style.css).
  page(t('Game'), p.head, p.prompts, p.board, el('div', { class: 'side' }, p.moves, p.takeback),
    p.replay, p.log, p.announce);
  try {
    const body = await api('GET', `/games/${gameId}`);
    table.module = await boardModule(body.game);
    if (table.closed) return;
    update(table, body);
    drawReplay(table);
    follow(table);
    table.ticker = setInterval(() => tick(table), 250);
    table.watchdog = setInterval(() => recheck(table), 10000);
  } catch (error) {
    fail(error);
    clear(p.head).append(el('p', {}, t('Could not open game {id}.', { id: gameId })),
      el('a', { href: '#/' }, t('Back to the lobby')));
  }
}

// The live feed: the game's events over SSE with ?views=true, so each batch of events comes
// with this player's new picture of the game (an event `game`). EventSource cannot set headers:
// the token goes in the URL, which the stream endpoint alone accepts.
function follow(table) {
  if (table.closed || !table.game || table.game.status === 'finished') return;
  // From the version we drew, so nothing between the GET and the connection is missed (a
  // reconnection's Last-Event-ID wins over it).
  const query = new URLSearchParams({ views: 'true', access_token: state.token,
    last_event_id: String(table.game.version) });
  const source = new EventSource(`${API}/games/${table.id}/events/stream?${query}`);
  table.source = source;
  source.addEventListener('game', (event) => update(table, JSON.parse(event.data)));
  source.addEventListener('error', () => {
    if (table.game && table.game.status === 'finished') source.close();
  });
  reopenWhenRefused(source, () => !table.closed && table.source === source
    && !(table.game && table.game.status === 'finished'), () => follow(table));
}

// A stream that went quiet (a proxy dropped it, the laptop slept) must not freeze the table:
// after 10 s without news of a running game, ask once.
async function recheck(table) {
  if (table.closed || !table.game || table.game.status === 'finished') return;
  if (Date.now() - (table.updatedAt || 0) < 10000) return;
  try {
    const body = await api('GET', `/games/${table.id}`);
    if (body.version > table.game.version) console.warn(`caught up to version ${body.version} by polling`);
    update(table, body);
  } catch (error) { fail(error); }
}

function update(table, body) {
  if (table.closed) return;
  table.updatedAt = Date.now();
  if (table.game && body.version < table.game.version) return; // an older answer, overtaken
  const text = JSON.stringify(body);
  if (text === table.drawn) return; // the same picture again (the stream after our own move)
  table.drawn = text;
  table.game = body;
  document.title = `${titleOf(body.game)} · Tablestream`;
  if (body.status === 'finished' && table.source) table.source.close();
  const focus = focusKey();
  drawHead(table);
  drawPrompts(table);
  if (!table.replay) drawBoard(table, body, body.you, body.legal_commands);
  drawMoves(table);
  drawTakeback(table.parts.takeback, { game: body, names: names(body), api, fail, say,
    update: (answer) => update(table, answer) });
  syncReplay(table);
  refreshLog(table);
  tick(table);
  restoreFocus(focus);
}

function names(body) {
  return seatNames(body);
}

function drawHead(table) {
  const body = table.game;
  const n = names(body);
  const you = body.you;
  // Whose move it is in words as well as colour.
  const seats = el('ul', { class: 'seats-list' }, body.seats.map((s) => el('li', {
    class: ['seat', s.seat === you && 'you', body.pending[s.seat] && 'to-move'],
  }, n[s.seat], s.seat === you ? ` ${t('(you)')}` : '',
  body.status === 'running' && body.pending[s.seat] ? ` · ${t('to move')}` : '',
  s.timeouts ? ` · ${tn('{n} timeout', '{n} timeouts', s.timeouts)}` : '')));
  const actions = [];
  const seated = you !== null && you !== undefined;
  if (body.status === 'open') {
    if (!seated && body.seats.some((s) => s.kind === 'human' && !s.player)) {
      actions.push(el('button', { type: 'button', dataset: { key: 'join' },
        onclick: () => join(body.id) }, t('Join this game')));
    }
    const empty = body.seats.filter((s) => s.kind === 'human' && !s.player).map((s) => s.seat + 1);
    if (seated && !empty.length) {
      actions.push(el('button', { type: 'button', dataset: { key: 'start' }, onclick: async () => {
        try { update(table, await api('POST', `/games/${body.id}/start`)); } catch (e) { fail(e); }
      } }, t('Start')));
    } else if (seated) {
      actions.push(el('p', { class: 'waiting', id: 'seats-empty' }, tn(
        'Waiting for players: seat {seats} is still empty. Share this page\'s address to invite someone.',
        'Waiting for players: seats {seats} are still empty. Share this page\'s address to invite someone.',
        empty.length, { seats: empty.join(', ') })));
    }
  }
  if (body.status === 'finished') {
    actions.push(el('button', { type: 'button', id: 'download', dataset: { key: 'download' },
      onclick: () => downloadTranscript(table) }, t('Download transcript')));
  }
  append(clear(table.parts.head), [
    el('p', {}, el('a', { href: '#/' }, `← ${t('Lobby')}`)),
    el('h1', {}, titleOf(body.game)),
    el('p', { class: 'meta' }, `${t('Game {id}', { id: body.id })} · ${statusText(body.status)} · ${t('version')} `,
      el('span', { id: 'version' }, String(body.version))),
    seats,
    body.result ? drawResult(body, n) : null,
    actions.length ? el('div', { class: 'actions' }, actions) : null]);
}

// Every open decision with its clock: reaction windows and turn clocks count down live
// (deadlines are Unix ms in `pending`).
function drawPrompts(table) {
  const body = table.game;
  const n = names(body);
  const root = clear(table.parts.prompts);
  const entries = Object.entries(body.pending || {});
  if (body.status !== 'running' || !entries.length) return;
  root.append(el('ul', {}, entries.map(([seat, prompt]) => el('li', {
    class: ['prompt', prompt.clock === 'reaction' && 'reaction', Number(seat) === body.you && 'mine'],
  }, el('strong', {}, Number(seat) === body.you ? t('You') : n[seat]), `: ${promptText(prompt.label, n)}`,
  prompt.clock === 'reaction' ? ` ${t('(reaction window)')}` : '',
  prompt.deadline ? el('span', { class: 'countdown', 'aria-hidden': 'true',
    dataset: { deadline: String(unixMillis(prompt.deadline)) } }, ' ', clockIcon(), el('span')) : null))));
}

// A stopwatch drawn as an inline SVG (the ⏱ character has no glyph in Debian's Chromium fonts).
const SVG = 'http://www.w3.org/2000/svg';
function clockIcon() {
  const svg = document.createElementNS(SVG, 'svg');
  for (const [k, v] of Object.entries({ class: 'icon clock', viewBox: '0 0 16 16', width: '1em',
    height: '1em', 'aria-hidden': 'true', focusable: 'false' })) svg.setAttribute(k, v);
  const shape = (tag, attrs) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    svg.append(node);
  };
  shape('circle', { cx: '8', cy: '9', r: '6', fill: 'none', stroke: 'currentColor', 'stroke-width': '1.6' });
  shape('path', { d: 'M8 9V5.5M6 1.5h4M13 4l1-1', fill: 'none', stroke: 'currentColor',
    'stroke-width': '1.6', 'stroke-linecap': 'round' });
  return svg;
}

// A prompt's label in words: "respond to mag_blast?" -> "Respond to mag blast?".
function promptText(label, n) {
  const text = promptWords(label, n);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// Deadlines are Unix ms on the wire, but the SSE `game` event (?views=true) sends the body
// unserialized, with seconds (reported to the lead): a number below 1e11 is seconds.
function unixMillis(time) {
  return time < 1e11 ? Math.round(time * 1000) : time;
}

function tick(table) {
  for (const node of table.parts.prompts.querySelectorAll('.countdown')) {
    const left = Math.max(0, Number(node.dataset.deadline) - Date.now());
    const seconds = left / 1000;
    const digits = left < 10000 ? 1 : 0;
    node.lastChild.textContent = ` ${t('{seconds} s', { seconds: new Intl.NumberFormat(locale(), {
      maximumFractionDigits: digits, minimumFractionDigits: digits }).format(seconds) })}`;
    node.classList.toggle('urgent', left < 10000);
  }
}

function drawBoard(table, body, seat, legal) {
  const before = boardMarks(table.parts.board);
  const root = clear(table.parts.board);
  root.dataset.version = String(body.version);
  const ctx = {
    game: body, view: body.view, seat: seat === undefined ? null : seat, legal: legal || [],
    send: (command) => send(table, command), names: names(body), el,
    // A thing chosen on the board ({card: id}) narrows the moves to those naming it; null
    // chooses nothing again. picked: what is chosen now (top-level fields, values as sent).
    picked: table.replay ? {} : boardPicked(table), pick: (fields) => pickOnBoard(table, fields),
  };
  const holder = el('div', { class: `board-${body.game}` });
  root.append(holder);
  try {
    table.module.render(holder, ctx);
    if (before.version < body.version) animateChanges(holder, before);
  } catch (error) {
    // A board that cannot draw this view falls back to the generic one; the buttons still work.
    console.error(error);
    clear(holder).append(el('pre', { class: 'generic-view' }, JSON.stringify(body.view, null, 2)));
  }
}

// What a board showed before a redraw: its cards and its ships' hull (data-card, data-ship
// and data-hull), so that a card just played and a hit just taken can be shown moving.
function boardMarks(board) {
  const hull = new Map();
  for (const node of board.querySelectorAll('[data-ship][data-hull]')) {
    hull.set(node.dataset.ship, Number(node.dataset.hull));
  }
  const cards = new Set([...board.querySelectorAll('[data-card]')].map((n) => n.dataset.card));
  return { version: Number(board.dataset.version || Infinity), hull, cards };
}

// Marks what changed since the last picture (style.css animates them, unless the player asked
// for reduced motion): a card that arrived somewhere, a ship that lost hull.
function animateChanges(holder, before) {
  for (const node of holder.querySelectorAll('[data-card]')) {
    if (!before.cards.has(node.dataset.card)) node.classList.add('arrived');
  }
  for (const node of holder.querySelectorAll('[data-ship][data-hull]')) {
    const was = before.hull.get(node.dataset.ship);
    if (was !== undefined && Number(node.dataset.hull) < was) node.classList.add('took-hit');
  }
}

function labelOf(table, command, view) {
  const custom = table.module && table.module.label;
  if (custom) {
    try {
      const text = custom(command, view, names(table.game));
      if (text) return text;
    } catch (error) { console.error(error); }
  }
  return commandLabel(command);
}

// What was chosen on the board for this version of the game (a tap on a card): {} if nothing.
function boardPicked(table) {
  const pick = table.boardPick;
  return pick && table.game && pick.version === table.game.version ? pick.fields : {};
}

// Whether a command names everything chosen on the board.
function namesPicked(command, picked) {
  return Object.entries(picked).every(([key, value]) => key in command
    && JSON.stringify(command[key]) === JSON.stringify(value));
}

// A tap on the board chooses a thing (fields), or nothing again (null): the board shows it
// chosen, the moves panel (in view on every screen) offers only what can be done with it, and
// the keyboard goes on there.
function pickOnBoard(table, fields) {
  const body = table.game;
  const legal = body.legal_commands || [];
  const valid = fields && Object.keys(fields).length && legal.some((c) => namesPicked(c, fields));
  table.boardPick = valid ? { version: body.version, fields } : null;
  table.choosing = null; // the panel's own steps start again from what the board chose
  drawBoard(table, body, body.you, legal);
  drawMoves(table);
  const first = valid && table.parts.moves.querySelector('button.cmd:not([disabled])');
  if (first) first.focus({ preventScroll: true });
}

function choiceText(table, path, value) {
  const board = table.module || {};
  if (board.choiceLabel) {
    try {
      const text = board.choiceLabel(path, value, table.game.view, names(table.game));
      if (text) return text;
    } catch (error) { console.error(error); }
  }
  return defaultChoiceLabel(path, value);
}

function drawMoves(table) {
  const body = table.game;
  const root = clear(table.parts.moves);
  root.append(el('h2', { id: 'moves-h' }, t('Your moves')));
  let legal = body.legal_commands || [];
  // What was chosen on the board, said once: by the one chooser left, or on a line of its own.
  const picked = table.replay ? {} : boardPicked(table);
  let chosen = [];
  if (Object.keys(picked).length && legal.some((c) => namesPicked(c, picked))) {
    legal = legal.filter((c) => namesPicked(c, picked));
    chosen = Object.entries(picked).map(([path, value]) => choiceText(table, path, value));
  }
  const chosenLine = () => el('p', { class: 'chooser-picked board-picked' }, chosen.join(' · '),
    ' ', el('button', { type: 'button', class: 'link', dataset: { key: 'board-pick-reset' },
      onclick: () => pickOnBoard(table, null) }, t('Start over')));
  // A finished game has no moves: the panel goes rather than stay pinned saying so.
  root.hidden = body.status === 'finished' && !table.replay;
  if (table.replay) root.append(el('p', {}, t('Replaying: go back to live to play.')));
  else if (!legal.length) {
    const waiting = body.status === 'running' && body.you !== null && body.you !== undefined
      ? t('Waiting for the others…') : (body.status === 'open' ? t('Waiting for players.') : t('Nothing to do.'));
    root.append(el('p', { class: 'waiting' }, waiting));
  } else {
    // New choices start at the top of the list, in view (a desk's side column scrolls).
    root.scrollTop = 0; // a phone's pinned panel scrolls itself
    if (root.parentElement) root.parentElement.scrollTop = 0;
    const button = (command) => {
      const key = JSON.stringify({ ...command, expected_version: undefined });
      return el('button', { type: 'button', class: 'cmd', dataset: { key },
        onclick: () => send(table, command) }, labelOf(table, command, body.view));
    };
    const board = table.module || {};
    const { flat, groups } = splitMoves(legal, board.narrowed);
    const oneChooser = groups.length === 1 && !flat.length;
    if (chosen.length && !oneChooser) root.append(chosenLine());
    if (flat.length) root.append(el('div', { class: 'command-list' }, flat.map(button)));
    for (const group of groups) {
      root.append(movesChooser(table, group, button, oneChooser ? chosen : []));
    }
  }
}

// A long list of one kind of move, chosen step by step (choices.js); what was chosen so far
// lasts until the game moves on.
function movesChooser(table, group, button, chosen) {
  const body = table.game;
  const board = table.module || {};
  const key = `${body.version}:${group[0].type}`;
  if (!table.choosing || table.choosing.key !== key) table.choosing = { key, picked: {} };
  const label = (path, value) => choiceText(table, path, value);
  const title = (board.typeLabel && board.typeLabel(group[0].type))
    || words(group[0].type).replace(/^./, (c) => c.toUpperCase());
  return chooser(group, table.choosing.picked, {
    title,
    makeButton: button,
    choiceLabel: label,
    chosen,
    onReset: chosen.length ? () => pickOnBoard(table, null) : null,
    onPick: (picked) => {
      table.choosing.picked = picked;
      drawMoves(table);
      // The next question of this chooser, in view: the pinned panel scrolls to it.
      const first = document.querySelector(
        `#commands .chooser[aria-label="${CSS.escape(title)}"] button.cmd`)
        || document.querySelector('#commands button.cmd');
      if (first) first.focus();
    },
  });
}

async function send(table, command) {
  if (table.sending) return null;
  table.sending = true;
  for (const b of table.parts.moves.querySelectorAll('button.cmd')) b.disabled = true;
  try {
    const answer = await api('POST', `/games/${table.id}/commands`, command);
    update(table, answer.game);
    return answer;
  } catch (error) {
    // The game moved on (a clock, a bot): show it as it is now, and say so in words.
    if (error.status === 409) {
      if (error.code === 'version_conflict') {
        say(t('The game moved on before your move arrived: here it is as it stands now.'));
      } else fail(error);
      update(table, await api('GET', `/games/${table.id}`));
    } else {
      fail(error);
      drawMoves(table);
    }
    return null;
  } finally {
    table.sending = false;
  }
}

function focusKey() {
  const active = document.activeElement;
  return active && active.dataset ? active.dataset.key || active.id || null : null;
}

function restoreFocus(key) {
  if (!key || (document.activeElement && document.activeElement !== document.body)) return;
  const target = document.querySelector(`[data-key="${CSS.escape(key)}"]`) || document.getElementById(key);
  if (target) target.focus();
  else {
    const first = document.querySelector('#commands button.cmd');
    if (first) first.focus();
  }
}

// --- replay, the log and explain -------------------------------------------------------------

function drawReplay(table) {
  const slider = el('input', { type: 'range', id: 'replay-slider', min: '1', step: '1',
    max: String(table.game.version), value: String(table.game.version) });
  const shown = el('output', { id: 'replay-version', for: 'replay-slider' });
  const live = el('button', { type: 'button', id: 'replay-live', onclick: () => goLive(table) }, t('Live'));
  const step = (delta) => {
    slider.value = String(Math.min(Number(slider.max), Math.max(1, Number(slider.value) + delta)));
    showVersion(table, Number(slider.value));
  };
  slider.addEventListener('change', () => showVersion(table, Number(slider.value)));
  clear(table.parts.replay).append(
    el('h2', { id: 'replay-h' }, t('Replay')),
    el('label', { for: 'replay-slider' }, t('Version')), slider, shown,
    el('div', { class: 'actions' },
      el('button', { type: 'button', id: 'replay-back', 'aria-label': t('One version back'),
        onclick: () => step(-1) }, `◀ ${t('Back')}`),
      el('button', { type: 'button', id: 'replay-forward', 'aria-label': t('One version forward'),
        onclick: () => step(1) }, `${t('Forward')} ▶`),
      live));
  table.slider = slider;
  table.shown = shown;
  syncReplay(table);
}

function syncReplay(table) {
  if (!table.slider) return;
  const latest = table.game.version;
  table.slider.max = String(latest);
  if (!table.replay) table.slider.value = String(latest);
  table.shown.textContent = table.replay
    ? t('{version} of {latest} (replay)', { version: String(table.replay.version), latest: String(latest) })
    : t('{latest} (live)', { latest: String(latest) });
}

async function showVersion(table, version) {
  try {
    const body = await api('GET', `/games/${table.id}/replay?version=${version}`);
    if (table.closed) return;
    table.replay = body;
    table.parts.board.classList.add('replaying');
    drawBoard(table, body, null, []);
    drawMoves(table);
    syncReplay(table);
    refreshLog(table);
  } catch (error) { fail(error); }
}

function goLive(table) {
  table.replay = null;
  table.parts.board.classList.remove('replaying');
  table.drawn = null;
  update(table, table.game);
}

// The events panel shows the 30 events up to the version on the board (live or replayed),
// each version once (kept by version, fetched only where missing).
const LOG_ROWS = 30;

async function refreshLog(table) {
  if (table.logging) { table.logAgain = true; return; }
  const upto = table.replay ? table.replay.version : table.game.version;
  const lowest = Math.max(1, upto - LOG_ROWS + 1);
  let missing = lowest;
  while (missing <= upto && table.events.has(missing)) missing += 1;
  table.logging = true;
  try {
    if (missing <= upto) {
      const page = await api('GET', `/games/${table.id}/events?from=${missing}&limit=${upto - missing + 1}`);
      for (const event of page.events) table.events.set(event.version, event);
    }
    if (!table.replay) announce(table, upto);
    drawLog(table, upto);
  } catch (error) { fail(error); } finally { table.logging = false; }
  if (table.logAgain && !table.closed) {
    table.logAgain = false;
    refreshLog(table);
  }
}

// Reads out the others' new events (not on first drawing the table, not while replaying).
function announce(table, upto) {
  const from = table.announced;
  table.announced = Math.max(upto, table.announced || 0);
  if (from === null || upto <= from) return;
  const lines = [];
  for (let v = from + 1; v <= upto; v += 1) {
    const event = table.events.get(v);
    if (!event || event.seat === table.game.you || subjectSeat(event, table.game.game) === table.game.you) continue;
    lines.push(line(event, table.game, table.module || {}));
  }
  if (lines.length) table.parts.announce.textContent = lines.slice(-3).join(' ');
}

function drawLog(table, upto) {
  const focus = focusKey();
  const root = clear(table.parts.log);
  const explainVersion = el('input', { type: 'number', id: 'explain-version', min: '1',
    value: String(table.explaining || upto) });
  append(root, [el('h2', { id: 'log-h' }, t('Events')),
    table.replay ? el('p', { class: 'meta' }, t('Up to version {version} (replay).', { version: String(upto) })) : null,
    eventList(logRows(table.events, upto, LOG_ROWS), table.game, table.module || {},
      (version) => explain(table, version)),
    el('form', { class: 'explain-form', onsubmit: (e) => {
      e.preventDefault();
      explain(table, Number(explainVersion.value));
    } }, el('label', { for: 'explain-version' }, t('Explain event')), explainVersion,
    el('button', { type: 'submit', id: 'explain-go' }, t('Explain'))),
    table.explanation || el('div', { id: 'explain' })]);
  restoreFocus(focus);
}

// The rules' checks as sentences; their own lists of the events that followed ("Then: x",
// "x: {...}") are left to the list of caused events, which names them in words.
function checksInWords(checks, n) {
  return (checks || []).filter((c) => !/^Then: /.test(c) && !/^[a-z]+(_[a-z]+)*(: |$)/.test(c))
    .map((c) => inWords(c, n));
}

async function explain(table, version) {
  try {
    const answer = await api('GET', `/games/${table.id}/events/${version}/explain`);
    const n = names(table.game);
    table.explaining = version;
    table.explanation = el('div', { id: 'explain', class: 'explain', tabindex: '-1' },
      el('h3', {}, answer.seat !== null
        ? t('Event {version} by {name}', { version: String(answer.version), name: n[answer.seat] || answer.seat })
        : t('Event {version}', { version: String(answer.version) })),
      // Another seat's command shows its type only: the board's words need its fields.
      answer.command ? el('p', {}, `${t('Command:')} `, Object.keys(answer.command).length > 1
        ? labelOf(table, answer.command, table.game.view) : commandLabel(answer.command)) : null,
      el('ul', { class: 'checks' }, checksInWords(answer.checks, n).map((c) => el('li', {}, c))),
      answer.events && answer.events.length ? el('div', {}, el('h4', {}, t('What it caused')),
        el('ul', { class: 'caused' }, answer.events.map((e) => el('li', {},
          line(e, table.game, table.module || {}))))) : null,
      el('details', {}, el('summary', {}, t('Events and the state before')),
        el('pre', {}, JSON.stringify({ events: answer.events, before: answer.before }, null, 2))));
    drawLog(table, table.replay ? table.replay.version : table.game.version);
    document.getElementById('explain').focus();
  } catch (error) { fail(error); }
}

async function downloadTranscript(table) {
  try {
    const transcript = await api('GET', `/games/${table.id}/audit`);
    const blob = new Blob([JSON.stringify(transcript, null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: `tablestream-${table.id}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    say(t('Transcript downloaded.'));
  } catch (error) { fail(error); }
}

// --- start ---------------------------------------------------------------------------------

async function start() {
  await loadLanguage();
  document.querySelector('.skip').textContent = t('Skip to content');

  if (state.token) {
    try {
      await whoAmI();
    } catch (error) {
      if (error.status === 401) {
        localStorage.removeItem(TOKEN_KEY);
        localStorage.removeItem(REFRESH_KEY);
        state.token = null;
        state.refresh = null;
      } else fail(error);
    }
  }
  renderWho();
  window.addEventListener('hashchange', route);
  route();
}

start();
