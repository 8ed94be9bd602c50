// Takebacks on the table (issue 27 item 1): ask to take back your last move, accept or decline
// another seat's request, and, before anyone asks, whether a takeback is possible now and why
// not (GET /v1/games/{id}/undo answers as asking would, without asking).
import { el, clear } from './dom.js';
import { t } from './i18n.js';

// Why a takeback is refused, as a player says it (the problem codes of POST .../undo).
const REFUSALS = () => ({
  undo_past_hidden_information: t('No takeback now: since your last move something hidden came to light (a card drawn or turned up, a die rolled), so it cannot be taken back.'),
  nothing_to_undo: t('Nothing to take back yet: you have not made a move since the game started.'),
  undo_pending: t('A takeback request is already waiting for an answer.'),
  game_not_running: t('Takebacks are only possible while the game runs.'),
  invalid_undo_target: t('Your last move cannot be taken back on its own.'),
});

// Names a list of seats: "Mina", "Mina and Bo", "Mina, Bo and Kai".
function listed(seats, names) {
  const words = seats.map((s) => names[s] || t('Seat {n}', { n: Number(s) + 1 }));
  return words.length < 2 ? words.join('')
    : t('{some} and {last}', { some: words.slice(0, -1).join(', '), last: words.at(-1) });
}

// tb: { game, names, api, update, fail, say } from app.js; root: the takeback section.
export function drawTakeback(root, tb) {
  const body = tb.game;
  const seated = body.you !== null && body.you !== undefined;
  clear(root);
  if (body.status !== 'running' || (!seated && !body.undo)) {
    root.hidden = true;
    return;
  }
  root.hidden = false;
  root.append(el('h2', { id: 'takeback-h' }, t('Takeback')));
  if (body.undo) root.append(pendingRequest(body, tb));
  else if (seated) root.append(askControl(body, tb));
}

let announced = null; // the request last told of in the toast

function pendingRequest(body, tb) {
  const undo = body.undo;
  const asker = tb.names[undo.by] || t('Seat {n}', { n: undo.by + 1 });
  const text = undo.by === body.you
    ? t('You asked to take back your last move (back to version {version}).', { version: String(undo.to_version) })
    : t('{asker} asked to take back their last move (back to version {version}).', { asker, version: String(undo.to_version) });
  const box = el('div', { class: 'takeback-request', id: 'takeback-request', role: 'status' },
    el('p', {}, el('strong', {}, `${t('Takeback asked.')} `), text));
  if (undo.waiting.includes(body.you)) {
    // Said once per request, wherever the player is on the page (the panel may be far below).
    if (announced !== `${body.id}@${undo.at_version}`) {
      announced = `${body.id}@${undo.at_version}`;
      tb.say(t('{asker} asks to take back their last move: accept or decline under "Takeback".', { asker }));
    }
    box.append(el('p', {}, t('Do you accept? Making a move instead declines it.')),
      el('div', { class: 'actions' },
        el('button', { type: 'button', id: 'takeback-accept', dataset: { key: 'takeback-accept' },
          onclick: () => answer(tb, true) }, t('Accept takeback')),
        el('button', { type: 'button', id: 'takeback-decline', class: 'secondary',
          dataset: { key: 'takeback-decline' }, onclick: () => answer(tb, false) },
        t('Decline takeback'))));
  } else if (undo.waiting.length) {
    box.append(el('p', {}, t('Waiting for {seats} to accept or decline.', { seats: listed(undo.waiting, tb.names) })));
  }
  return box;
}

async function answer(tb, accept) {
  try {
    tb.update(await tb.api('POST', `/games/${tb.game.id}/undo/answer`, { accept }));
    tb.say(accept ? t('You accepted the takeback.') : t('You declined the takeback.'));
  } catch (error) { tb.fail(error); }
}

// The ask button with, beside it, what will happen: who must agree, or why it is not possible.
function askControl(body, tb) {
  const note = el('p', { class: 'takeback-note', id: 'takeback-note' }, t('Checking…'));
  const button = el('button', { type: 'button', id: 'takeback-ask', class: 'secondary',
    dataset: { key: 'takeback-ask' }, disabled: true, 'aria-describedby': 'takeback-note',
    onclick: async () => {
      try {
        tb.update(await tb.api('POST', `/games/${body.id}/undo`, {}));
        tb.say(t('Takeback asked.'));
      } catch (error) { tb.fail(error); }
    } }, t('Take back my last move'));
  checkOnce(body, tb).then((check) => {
    if (!check) { note.textContent = ''; return; }
    button.disabled = !check.possible;
    if (check.possible) {
      note.textContent = check.waiting.length
        ? t('{seats} must agree.', { seats: listed(check.waiting, tb.names) })
        : t('Granted at once: bots always agree.');
    } else {
      note.textContent = REFUSALS()[check.code] || check.detail;
    }
  });
  return el('div', { class: 'takeback-ask' }, button, note);
}

// One check per version of the game (the answer cannot change before the game does).
const checks = new Map();
function checkOnce(body, tb) {
  const key = `${body.id}@${body.version}`;
  if (!checks.has(key)) {
    checks.clear();
    checks.set(key, tb.api('GET', `/games/${body.id}/undo`).catch(() => null));
  }
  return checks.get(key);
}
