// Faker Blue's table (docs/rules/fakerblue.md): each player's health and face-down hand, the
// cards in play face down with what they were declared as (turned up once a challenge reveals
// them), the hits between players, the reaction window (defend? challenge?) and the piles. Your
// own cards are face up to you; a card in play you may challenge is a button. A card in your hand
// that you may use (or defend with) is a button too: tapping it chooses it (ctx.pick), and the
// moves panel then offers only what can be done with it: what to say it is, and at whom.

import { inWords } from '../log.js';

export const stylesheet = 'faker_blue.css';

const NAMES = {
  shield_bearer: 'Shield-bearer', high_priest: 'High Priest', fire_dragon: 'Fire Dragon',
  vampire_king: 'Vampire King',
};

export function cardName(card) {
  if (!card) return 'face down';
  const kind = String(card).replace(/-\d+$/, '');
  return NAMES[kind] || kind.charAt(0).toUpperCase() + kind.slice(1).replace(/_/g, ' ');
}

// The shell offers these step by step (choices.js): which card, what to call it, at whom.
export const narrowed = ['use', 'defend'];

export function choiceLabel(path, value, view, names = {}) {
  const seatName = (seat) => names[seat] || `seat ${Number(seat) + 1}`;
  switch (path) {
    case 'card': return `Card: ${cardName(value)}`;
    case 'declare': return `Say it is: ${cardName(value)}`;
    case 'target': return value === null ? 'At: everyone' : `At: ${seatName(value)}`;
    case 'redirect': return value === null ? 'Keep the hit away from anyone' : `Send it to: ${seatName(value)}`;
    default: return null;
  }
}

export function label(command, view, names = {}) {
  const seatName = (seat) => names[seat] || `seat ${Number(seat) + 1}`;
  switch (command.type) {
    case 'use': {
      const as = cardName(command.declare);
      const shown = cardName(command.card) === as ? as : `${cardName(command.card)} as ${as}`;
      return command.target === null || command.target === undefined ? `Use ${shown} on everyone`
        : `Use ${shown} on ${seatName(command.target)}`;
    }
    case 'defend': {
      const as = cardName(command.declare);
      const shown = cardName(command.card) === as ? as : `${cardName(command.card)} as ${as}`;
      return command.redirect === null || command.redirect === undefined ? `Defend: ${shown}`
        : `Defend: ${shown}, send it to ${seatName(command.redirect)}`;
    }
    case 'no_defence': return 'Take the hit (no defence)';
    case 'challenge': return `Challenge card ${Number(command.slot) + 1} in play`;
    case 'no_challenge': return 'No challenge';
    default: return null;
  }
}

function faceCard(el, card, attrs = {}, ...extra) {
  const tag = attrs.onclick ? 'button' : 'span';
  return el(tag, { ...(tag === 'button' ? { type: 'button' } : {}), ...attrs,
    class: ['playing-card', card ? `fb-${String(card).replace(/-\d+$/, '')}` : 'face-down', attrs.class] },
  el('span', { class: 'card-name' }, card ? cardName(card) : 'Face down'), ...extra);
}

export function render(root, ctx) {
  const { el, view, legal, send, names } = ctx;
  if (!view || !view.health) {
    root.append(el('p', {}, 'The cards are not dealt yet.'));
    return;
  }
  const who = (seat) => names[seat] || `Seat ${Number(seat) + 1}`;
  const pending = view.pending || {};
  const play = view.play;

  // The players around the table: health, face-down hand, to move, out.
  const players = el('ul', { class: 'fb-players' }, view.health.map((health, seat) => el('li', {
    class: ['zone', 'fb-player', !view.alive[seat] && 'out', pending[seat] && 'to-move',
      view.viewer === seat && 'you'],
    'aria-label': `${who(seat)}: ${health} health, ${view.hand_counts[seat]} cards` },
  el('h3', {}, who(seat), view.turn === seat ? ' (turn)' : '', view.alive[seat] ? '' : ' — out'),
  el('p', { class: 'fb-health' }, '♥ ', String(health)),
  el('div', { class: 'cards small', 'aria-hidden': 'true' },
    Array.from({ length: view.hand_counts[seat] }, () => faceCard(el, null))),
  pending[seat] ? el('p', { class: ['fb-prompt', pending[seat].clock === 'reaction' && 'reaction'] },
    inWords(pending[seat].label, names)) : null)));

  // The cards in play this turn and what happened to them.
  const challenges = new Map(legal.filter((c) => c.type === 'challenge').map((c) => [c.slot, c]));
  const inPlay = play ? play.cards.map((c) => {
    const challenge = challenges.get(c.slot);
    const shown = c.card && (c.truthful !== null || c.owner === view.viewer) ? c.card : null;
    // The button's name is its visible text ("Face down, Bo says Wizard, Challenge?").
    const attrs = challenge ? { onclick: () => send(challenge) } : {};
    return el('li', {}, faceCard(el, shown, attrs,
      el('small', {}, `${who(c.owner)} says ${cardName(c.declared)}`),
      c.truthful === true ? el('small', { class: 'truth' }, 'true') : null,
      c.truthful === false ? el('small', { class: 'lie' }, 'a lie') : null,
      c.challenger !== null && c.challenger !== undefined
        ? el('small', {}, `challenged by ${who(c.challenger)}`) : null,
      challenge ? el('small', { class: 'action' }, 'Challenge?') : null));
  }) : [];
  const hits = play ? (play.hits || []).map((h) => el('li', {},
    `${who(h.source)} → ${who(h.target)}`,
    h.declined ? ' (taken)' : '', h.defence !== null && h.defence !== undefined
      ? ` (defended with card ${h.defence + 1})` : '')) : [];
  const reactions = Object.entries(pending).filter(([, p]) => p.clock === 'reaction');

  // Your hand, by name; a card you may use or defend with is chosen by a tap (again: unchosen).
  const picked = (ctx.picked || {}).card;
  const choosable = new Set(legal.filter((c) => c.type === 'use' || c.type === 'defend')
    .map((c) => c.card));
  const hand = [...(view.hand || [])].sort((a, b) => cardName(a).localeCompare(cardName(b))
    || a.localeCompare(b)).map((card) => el('li', {}, faceCard(el, card,
    choosable.has(card) && ctx.pick ? {
      onclick: () => ctx.pick(picked === card ? null : { card }),
      'aria-pressed': String(picked === card), class: picked === card ? 'selected' : null,
      dataset: { key: `fb-card:${card}` },
    } : { title: `${cardName(card)} (yours)` })));
  const peeked = (view.peeked || []).map((p) => el('li', {}, faceCard(el, p.card, {},
    el('small', {}, `in ${who(p.seat)}'s hand`))));

  root.append(el('div', { class: 'faker-blue' },
    el('p', { class: 'fb-status' },
      el('span', { class: 'tag' }, `Turn ${view.turn_number}`),
      el('span', { class: 'tag' }, `Deck ${view.deck}`),
      el('span', { class: 'tag' }, `Hidden pile ${view.hidden}`),
      el('span', { class: 'tag' }, `Health supply ${view.supply}`)),
    reactions.length ? el('section', { class: 'fb-window', role: 'status',
      'aria-label': 'Reaction window' }, el('h3', {}, 'Reaction window'),
    el('ul', {}, reactions.map(([seat, p]) => el('li', {},
      `${Number(seat) === view.viewer ? 'You' : who(seat)}: ${inWords(p.label, names)}`)))) : null,
    play ? el('section', { class: 'zone fb-play', 'aria-label': 'In play' },
      el('h3', {}, `${who(play.attacker)} attacks, declaring ${cardName(play.declared)}`,
        play.target !== null && play.target !== undefined ? ` on ${who(play.target)}` : ''),
      el('ol', { class: 'cards' }, inPlay),
      hits.length ? el('ul', { class: 'fb-hits' }, hits) : null) : null,
    players,
    el('section', { class: 'zone', 'aria-label': 'Your cards' },
      el('h3', {}, 'Your hand', choosable.size && ctx.pick ? ' — tap a card to choose it' : ''),
      hand.length ? el('ul', { class: 'cards' }, hand) : el('p', {}, 'No cards.'),
      peeked.length ? [el('h3', {}, 'Seen with the Alchemist'), el('ul', { class: 'cards' }, peeked)]
        : null),
    (view.public || []).length ? el('section', { class: 'zone', 'aria-label': 'Public pile' },
      el('h3', {}, 'Public pile (revealed)'),
      el('ul', { class: 'cards small' }, view.public.map((card) => el('li', {}, faceCard(el, card)))))
      : null));
}
