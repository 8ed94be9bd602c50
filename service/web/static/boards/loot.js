// Loot's table (docs/rules/loot.md): the merchant ships at sea with the battle on each, the
// players' hand and loot counts, your hand and your loot. A hand card with one legal use plays
// on a click; with several (a pirate that may attack more than one ship) it is selected first
// and the ships it may attack offer a button.

import { t, term } from '../i18n.js';

export const stylesheet = 'loot.css';

const selection = { key: null, card: null }; // the selected hand card, for this game and version

const cap = (word) => word.charAt(0).toUpperCase() + word.slice(1);

const colour = (c) => term(`loot.colour.${c}`, cap(c));

export function cardName(card) {
  if (!card) return t('a card');
  if (card === 'ADM') return term('loot.kind.admiral', 'Admiral');
  let m = /^M(\d)/.exec(card);
  if (m) return t('Merchant ship, {gold} gold', { gold: m[1] });
  m = /^P-([a-z]+)-(\d)/.exec(card);
  if (m) return t('{colour} pirate {n}', { colour: colour(m[1]), n: m[2] });
  m = /^C-([a-z]+)$/.exec(card);
  if (m) return t('{colour} captain', { colour: colour(m[1]) });
  return card;
}

// The gold of a merchant ship card ('M4b' -> '4').
const goldOf = (card) => (/^M(\d)/.exec(card || '') || [])[1];

function colourOf(card) {
  const m = /^[PC]-([a-z]+)/.exec(card || '');
  return m ? m[1] : (card === 'ADM' ? 'admiral' : (/^M/.test(card || '') ? 'merchant' : 'none'));
}

// A hand as a player holds it: merchant ships (richest first), pirates by colour and
// strength, captains, the Admiral.
const KIND_ORDER = { M: 0, P: 1, C: 2, A: 3 };
function sortHand(cards) {
  const key = (id) => [KIND_ORDER[id.charAt(0)] ?? 4, colourOf(id),
    -Number((/(\d)/.exec(id) || [0, 0])[1])];
  return [...cards].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0] - kb[0] || ka[1].localeCompare(kb[1]) || ka[2] - kb[2] || a.localeCompare(b);
  });
}

function shipName(merchant, view) {
  const ships = (view && view.ships) || [];
  const index = ships.findIndex((s) => s.merchant === merchant);
  const gold = index >= 0 ? ships[index].gold : (/^M(\d)/.exec(merchant) || [])[1];
  return index >= 0 ? t('ship {n} ({gold} gold)', { n: index + 1, gold }) : t('the {gold}-gold ship', { gold });
}

// The shell offers these step by step (choices.js): which card, then which ship.
export const narrowed = ['play_pirate', 'play_captain', 'play_admiral'];

export function choiceLabel(path, value, view) {
  if (path === 'card') return t('Card: {card}', { card: cardName(value) });
  if (path === 'merchant') return t('Against {ship}', { ship: shipName(value, view) });
  return null;
}

export function label(command, view) {
  switch (command.type) {
    case 'draw': return t('Draw a card');
    case 'play_merchant': return t('Sail a merchant ship ({gold} gold)', { gold: goldOf(command.card) });
    case 'play_pirate':
    case 'play_captain':
    case 'play_admiral': return `${cardName(command.card)} → ${shipName(command.merchant, view)}`;
    case 'discard': return t('Discard {card}', { card: cardName(command.card) });
    case 'take_discard': return t('Take {card} from the discard', { card: cardName(command.card) });
    default: return null;
  }
}

// The card's face symbol: ⚓ a merchant ship, ☠ per skull of a pirate, ★ a captain or the
// Admiral (the name says it too: the symbol is never the only sign).
function symbol(id) {
  if (!id) return '';
  if (id === 'ADM') return '⚓★';
  if (id.startsWith('M')) return '⚓';
  const m = /^P-[a-z]+-(\d)/.exec(id);
  if (m) return '☠'.repeat(Number(m[1]));
  return id.startsWith('C-') ? '★' : '';
}

function card(el, id, attrs = {}, extra = null) {
  const tag = attrs.onclick ? 'button' : 'span';
  return el(tag, { ...(tag === 'button' ? { type: 'button' } : {}), ...attrs,
    class: ['playing-card', `loot-${colourOf(id)}`, attrs.class], dataset: id ? { card: id } : null },
  el('span', { class: 'card-symbol', 'aria-hidden': 'true' }, symbol(id)),
  el('span', { class: 'card-name' }, id ? cardName(id) : t('Face down')), extra);
}

function sideName(view, names, side) {
  const seats = (view.side_of || []).map((s, seat) => (s === side ? seat : null))
    .filter((s) => s !== null);
  return seats.map((s) => names[s] || t('Seat {n}', { n: s + 1 })).join(' & ') || t('Side {n}', { n: side + 1 });
}

export function render(root, ctx) {
  const { el, view, legal, send, names } = ctx;
  if (!view || !view.ships) {
    root.append(el('p', {}, t('The ships are not dealt yet.')));
    return;
  }
  const key = `${ctx.game.id}:${ctx.game.version}`;
  if (selection.key !== key) Object.assign(selection, { key, card: null });
  const redraw = () => { root.replaceChildren(); render(root, ctx); };
  const uses = (id) => legal.filter((c) => c.card === id && c.type !== 'take_discard');
  const onShip = (merchant) => legal.filter((c) => c.merchant === merchant
    && (selection.card === null || c.card === selection.card));
  const who = (seat) => names[seat] || t('Seat {n}', { n: seat + 1 });

  // The ships at sea, each with its battle.
  const ships = view.ships.map((ship, index) => {
    const sides = ship.strengths.map((strength, side) => ({ side, strength,
      colour: ship.colours[side] })).filter((s) => s.colour || s.strength);
    const moves = selection.card ? onShip(ship.merchant) : [];
    return el('li', { class: ['zone', 'loot-ship', ship.leader !== null && 'led'],
      'aria-label': t('Ship {n}', { n: index + 1 }) },
    el('h3', {}, t('Ship {n}: {gold} gold', { n: index + 1, gold: ship.gold }),
      el('span', { class: 'tag' }, t('owner {name}', { name: who(ship.owner) }))),
    el('p', { class: 'battle' }, sides.length
      ? sides.map((s) => el('span', { class: ['tag', `loot-${s.colour || 'none'}`,
        ship.leader === s.side && 'leader'] },
      `${sideName(view, names, s.side)}: ${s.colour ? colour(s.colour) : '—'} ${s.strength}`,
      ship.trump === s.side ? ' ★' : ''))
      : t('Unopposed.'),
    ' ', ship.leader === null ? el('em', {}, t('No leader (tied).'))
      : el('span', {}, t('Leading: {side}.', { side: sideName(view, names, ship.leader) }))),
    ship.plays.length ? el('ul', { class: 'cards small' }, ship.plays.map(([seat, id]) => el('li', {},
      card(el, id, { title: `${who(seat)}: ${cardName(id)}` }, el('small', {}, who(seat)))))) : null,
    moves.map((command) => el('button', { type: 'button', class: 'board-move',
      onclick: () => send(command) }, t('Play {card} here', { card: cardName(command.card) }))));
  });

  // Everyone's hand and loot as counts (the cards are secret: loot.md §3, §6).
  const players = el('table', { class: 'loot-players' },
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, t('Player')), el('th', { scope: 'col' }, t('Hand')),
      el('th', { scope: 'col' }, t('Ships won')))),
    el('tbody', {}, view.hand_counts.map((count, seat) => el('tr', {
      class: [view.turn === seat && 'to-move', view.viewer === seat && 'you'] },
    el('th', { scope: 'row' }, who(seat), view.turn === seat ? ' ⟵' : ''),
    el('td', {}, String(count)), el('td', {}, String(view.won_counts[seat]))))));

  const hand = sortHand(view.hand || []).map((id) => {
    const options = uses(id);
    const attrs = { title: cardName(id), 'aria-pressed': options.length > 1
      ? String(selection.card === id) : null,
    class: selection.card === id ? 'selected' : null };
    if (options.length === 1) attrs.onclick = () => send(options[0]);
    else if (options.length > 1) {
      attrs.onclick = () => { selection.card = selection.card === id ? null : id; redraw(); };
    }
    return el('li', {}, card(el, id, attrs));
  });

  const discardTop = view.discard.length ? view.discard[view.discard.length - 1] : null;
  const takeable = legal.filter((c) => c.type === 'take_discard');
  const won = view.won || [];
  const gold = won.reduce((sum, id) => sum + Number((/^M(\d)/.exec(id) || [0, 0])[1]), 0);
  root.append(el('div', { class: 'loot' },
    el('p', { class: 'loot-status' },
      el('span', { class: 'tag' }, t('Deck {n}', { n: view.deck_count })),
      el('span', { class: 'tag' }, t('Discard {n}', { n: view.discard.length }),
        discardTop ? `: ${t('{card} on top', { card: cardName(discardTop) })}` : ''),
      view.turn !== null && view.turn !== undefined
        ? el('span', { class: 'tag' }, t('{name} to play', { name: who(view.turn) })) : null),
    el('section', { class: 'loot-sea', 'aria-label': t('Ships at sea') },
      el('h2', {}, t('At sea')),
      ships.length ? el('ul', { class: 'ships' }, ships) : el('p', {}, t('No merchant ship at sea.'))),
    el('section', { 'aria-label': t('Players') }, players),
    view.hand ? el('section', { class: 'zone', 'aria-label': t('Your hand') },
      el('h3', {}, t('Your hand'), selection.card ? ` — ${t('choose a ship for {card}', { card: cardName(selection.card) })}` : ''),
      el('ul', { class: 'cards' }, hand)) : null,
    takeable.length ? el('section', { class: 'zone', 'aria-label': t('Discard pile') },
      el('h3', {}, t('Discard pile')),
      el('ul', { class: 'cards' }, takeable.map((command) => el('li', {},
        card(el, command.card, { onclick: () => send(command) }))))) : null,
    view.hand ? el('section', { class: 'zone', 'aria-label': t('Your loot') },
      el('h3', {}, t('Your loot: {ships} ships, {gold} gold', { ships: won.length, gold })),
      el('ul', { class: 'cards small' }, won.map((id) => el('li', {}, card(el, id))))) : null));
}
