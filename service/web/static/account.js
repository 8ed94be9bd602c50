// Accounts on the web page (issue 25): sign up and sign in with a passkey or a password, turn a
// guest into an account, and a player's profile with a small rating-over-time chart.
// app.js hands in its helpers as `ctx`: { api, say, fail, page, keepSession, go }.
import { el } from './dom.js';
import { locale, t, tn, term } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';

// --- passkeys (WebAuthn): the options and answers travel as JSON ---------------------------

export function passkeysWork() {
  return Boolean(window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON);
}

export async function addPasskey(ctx) {
  const { challenge_id, options } = await ctx.api('POST', '/account/passkeys/options');
  const credential = await navigator.credentials.create({
    publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
  return ctx.api('POST', '/account/passkeys', { challenge_id, credential: credential.toJSON() });
}

async function passkeySignIn(ctx) {
  const { challenge_id, options } = await ctx.api('POST', '/sessions/passkey/options');
  const credential = await navigator.credentials.get({
    publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
  return ctx.api('POST', '/sessions/passkey', { challenge_id, credential: credential.toJSON() });
}

// --- the cards -----------------------------------------------------------------------------

function field(id, label, attrs) {
  const input = el('input', { id, name: id, ...attrs });
  return [el('label', { for: id }, label), input];
}

// Signing back in: with a passkey (no handle needed: the passkey knows whose it is) or with a
// handle and password.
export function signInCard(ctx) {
  const [handleLabel, handle] = field('login-handle', t('Handle'), { autocomplete: 'username',
    required: true, maxlength: '64' });
  const [passwordLabel, password] = field('login-password', t('Password'), {
    type: 'password', autocomplete: 'current-password', required: true });
  const passkey = el('button', { type: 'button', onclick: async () => {
    try {
      await ctx.keepSession(await passkeySignIn(ctx));
    } catch (error) { ctx.fail(error); }
  } }, t('Continue with a passkey'));
  return el('form', { class: 'card signin', id: 'login', 'aria-labelledby': 'login-h',
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        await ctx.keepSession(await ctx.api('POST', '/sessions',
          { handle: handle.value.trim(), password: password.value }));
      } catch (error) { ctx.fail(error); }
    } },
  el('h2', { id: 'login-h' }, t('Have an account?')),
  passkeysWork() ? passkey : null,
  handleLabel, handle, passwordLabel, password,
  el('button', { type: 'submit' }, t('Log in with password')));
}

// Signing up (or, called by a guest, keeping the guest's games under an account): a handle,
// then a passkey, or a password when the browser has no passkeys.
export function signUpCard(ctx, guest) {
  const [handleLabel, handle] = field('new-handle', t('Choose a handle'), {
    autocomplete: 'username', required: true, maxlength: '24' });
  const [passwordLabel, password] = field('new-password', t('Password (or use a passkey)'), {
    type: 'password', autocomplete: 'new-password', minlength: '10' });
  async function create(withPasskey) {
    const body = { handle: handle.value.trim() };
    if (!withPasskey) body.password = password.value;
    const created = await ctx.api('POST', '/account', body);
    await ctx.keepSession(created.session, true);
    if (withPasskey) {
      await addPasskey(ctx);
      ctx.say(t('Welcome, {handle}: your passkey is saved.', { handle: created.account.handle }));
    }
    ctx.go('#/');
  }
  return el('form', { class: 'card signin', id: 'signup', 'aria-labelledby': 'signup-h',
    onsubmit: (event) => { event.preventDefault(); create(false).catch(ctx.fail); } },
  el('h2', { id: 'signup-h' }, guest ? t('Keep what you played: create an account') : t('New here?')),
  handleLabel, handle,
  passkeysWork() ? el('button', { type: 'button', onclick: () => {
    if (handle.reportValidity()) create(true).catch(ctx.fail);
  } }, t('Create account with a passkey')) : null,
  passwordLabel, password,
  el('button', { type: 'submit' }, t('Create account with password')));
}

// --- the profile ---------------------------------------------------------------------------

export async function showProfile(ctx, handle, own = false) {
  const profile = await ctx.api('GET', `/players/${encodeURIComponent(handle)}`);
  const account = own ? await ctx.api('GET', '/account') : null;
  const record = profile.record;
  ctx.page(profile.handle,
    el('section', { class: 'card profile', 'aria-labelledby': 'profile-h' },
      el('h1', { id: 'profile-h' }, profile.name,
        profile.name !== profile.handle ? el('small', {}, ` @${profile.handle}`) : null),
      el('p', {}, tn('{n} rated game: {wins} won, {losses} lost, {draws} drawn.',
        '{n} rated games: {wins} won, {losses} lost, {draws} drawn.', record.games,
        { wins: record.wins, losses: record.losses, draws: record.draws })),
      profile.ratings.length ? null : el('p', {}, t('No rated game yet.')),
      profile.ratings.map((rating) => el('div', { class: 'rating' },
        el('h2', {}, el('a', { href: `#/leaderboards/${rating.game}` }, term(`game.${rating.game}`, rating.game))),
        el('p', {}, tn('Rating {rating} (skill {mu} ± {sigma}), {n} game',
          'Rating {rating} (skill {mu} ± {sigma}), {n} games', rating.games, {
            rating: rating.ordinal.toFixed(1), mu: rating.mu.toFixed(1), sigma: rating.sigma.toFixed(1) })),
        chart(rating.history)))),
    account ? passkeysCard(ctx, account, handle) : null,
    el('section', { class: 'card', 'aria-labelledby': 'recent-h' },
      el('h2', { id: 'recent-h' }, t('Recent games')),
      el('ul', { class: 'games' }, profile.recent_games.map((game) => el('li', {},
        el('a', { href: `#/games/${game.id}` }, `${term(`game.${game.game}`, game.game)} · ${game.id}`))))));
}

// A game's leaderboard, best first, a page at a time (the API's `next` cursor).
export async function showLeaderboard(ctx, game) {
  const rows = el('ol', { class: 'board', id: 'board' });
  const more = el('button', { type: 'button' }, t('More'));
  let cursor = null;
  async function next() {
    const query = new URLSearchParams({ limit: '25' });
    if (cursor) query.set('cursor', cursor);
    const page = await ctx.api('GET', `/leaderboards/${encodeURIComponent(game)}?${query}`);
    for (const entry of page.entries) {
      rows.append(el('li', {}, entry.handle
        ? el('a', { href: `#/players/${encodeURIComponent(entry.handle)}` }, entry.name)
        : entry.name, ` ${entry.ordinal.toFixed(1)} (${tn('{n} game', '{n} games', entry.games)})`));
    }
    cursor = page.next;
    more.hidden = !cursor;
  }
  more.addEventListener('click', () => next().catch(ctx.fail));
  const title = term(`game.${game}`, game);
  ctx.page(t('{game} leaderboard', { game: title }), el('section', { class: 'card', 'aria-labelledby': 'board-h' },
    el('h1', { id: 'board-h' }, t('Leaderboard: {game}', { game: title })), rows, more));
  await next();
  if (!rows.children.length) rows.replaceWith(el('p', {}, t('No rated game yet.')));
}

// Your own passkeys (several per account: one per phone or key), and a button to add one.
function passkeysCard(ctx, account, handle) {
  return el('section', { class: 'card', 'aria-labelledby': 'passkeys-h' },
    el('h2', { id: 'passkeys-h' }, t('Your passkeys')),
    el('ul', { id: 'passkeys' }, account.passkeys.map((key) => el('li', {}, key.name,
      ` ${t('(added {date})', { date: new Date(key.created).toLocaleDateString(locale()) })}`))),
    passkeysWork() ? el('button', { type: 'button', onclick: async () => {
      try {
        await addPasskey(ctx);
        ctx.say(t('Passkey added.'));
        await showProfile(ctx, handle, true);
      } catch (error) { ctx.fail(error); }
    } }, t('Add a passkey')) : null);
}

// The rating (mu - 3 sigma) after each game, as a small line chart.
function chart(history) {
  const width = 300, height = 80, pad = 6;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'chart');
  svg.setAttribute('role', 'img');
  const values = history.map((point) => point.ordinal);
  svg.setAttribute('aria-label', tn('Rating over the last {n} game', 'Rating over the last {n} games', values.length));
  if (!values.length) return svg;
  const low = Math.min(...values, 0), high = Math.max(...values, 1);
  const x = (i) => pad + (values.length > 1 ? i * (width - 2 * pad) / (values.length - 1) : 0);
  const y = (v) => height - pad - (v - low) * (height - 2 * pad) / (high - low || 1);
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('points', values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`)
    .join(' '));
  line.setAttribute('class', 'chart-line');
  svg.append(line);
  values.forEach((v, i) => {
    const dot = document.createElementNS(SVG, 'circle');
    dot.setAttribute('cx', x(i).toFixed(1));
    dot.setAttribute('cy', y(v).toFixed(1));
    dot.setAttribute('r', '2.5');
    dot.setAttribute('class', 'chart-dot');
    svg.append(dot);
  });
  return svg;
}
