// Faker Blue's table (docs/rules/fakerblue.md): each player's health and face-down hand, the
// cards in play face down with what they were declared as (turned up once a challenge reveals
// them), the hits between players, the reaction window (defend? challenge?) and the piles. Your
// own cards are face up to you; a card in play you may challenge is a button.

import { promptWords } from '../log.js';
import { t, term } from '../i18n.js';

export const stylesheet = 'faker_blue.css';

// term()'s English fallbacks (games.po has the names).
const NAMES = {
  shield_bearer: 'Shield-bearer', high_priest: 'High Priest', // i18n-ignore
  fire_dragon: 'Fire Dragon', vampire_king: 'Vampire King', // i18n-ignore
};

export function cardName(card) {
  if (!card) return t('face down');
  const kind = String(card).replace(/-\d+$/, '');
  return term(`faker_blue.card.${kind}`,
    NAMES[kind] || kind.charAt(0).toUpperCase() + kind.slice(1).replace(/_/g, ' '));
}

// The shell offers these step by step (choices.js): which card, what to call it, at whom.
export const narrowed = ['use', 'defend'];

export function choiceLabel(path, value, view, names = {}) {
  const seatName = (seat) => names[seat] || t('seat {n}', { n: Number(seat) + 1 });
  switch (path) {
    case 'card': return t('Card: {card}', { card: cardName(value) });
    case 'declare': return t('Say it is: {card}', { card: cardName(value) });
    case 'target': return value === null ? t('At: everyone') : t('At: {name}', { name: seatName(value) });
    case 'redirect': return value === null ? t('Keep the hit away from anyone') : t('Send it to: {name}', { name: seatName(value) });
    default: return null;
  }
}

export function label(command, view, names = {}) {
  const seatName = (seat) => names[seat] || t('seat {n}', { n: Number(seat) + 1 });
  const shownAs = (card, as) => (cardName(card) === as ? as : t('{card} as {declared}', { card: cardName(card), declared: as }));
  switch (command.type) {
    case 'use': {
      const shown = shownAs(command.card, cardName(command.declare));
      return command.target === null || command.target === undefined ? t('Use {card} on everyone', { card: shown })
        : t('Use {card} on {name}', { card: shown, name: seatName(command.target) });
    }
    case 'defend': {
      const shown = shownAs(command.card, cardName(command.declare));
      return command.redirect === null || command.redirect === undefined ? t('Defend: {card}', { card: shown })
        : t('Defend: {card}, send it to {name}', { card: shown, name: seatName(command.redirect) });
    }
    case 'no_defence': return t('Take the hit (no defence)');
    case 'challenge': return t('Challenge card {n} in play', { n: Number(command.slot) + 1 });
    case 'no_challenge': return t('No challenge');
    default: return null;
  }
}

function faceCard(el, card, attrs = {}, ...extra) {
  const tag = attrs.onclick ? 'button' : 'span';
  return el(tag, { ...(tag === 'button' ? { type: 'button' } : {}), ...attrs,
    class: ['playing-card', card ? `fb-${String(card).replace(/-\d+$/, '')}` : 'face-down', attrs.class] },
  el('span', { class: 'card-name' }, card ? cardName(card) : t('Face down')), ...extra);
}

export function render(root, ctx) {
  const { el, view, legal, send, names } = ctx;
  if (!view || !view.health) {
    root.append(el('p', {}, t('The cards are not dealt yet.')));
    return;
  }
  const who = (seat) => names[seat] || t('Seat {n}', { n: Number(seat) + 1 });
  const pending = view.pending || {};
  const play = view.play;

  // The players around the table: health, face-down hand, to move, out.
  const players = el('ul', { class: 'fb-players' }, view.health.map((health, seat) => el('li', {
    class: ['zone', 'fb-player', !view.alive[seat] && 'out', pending[seat] && 'to-move',
      view.viewer === seat && 'you'],
    'aria-label': t('{name}: {health} health, {cards} cards', { name: who(seat), health, cards: view.hand_counts[seat] }) },
  el('h3', {}, who(seat), view.turn === seat ? ` ${t('(turn)')}` : '', view.alive[seat] ? '' : ` — ${t('out')}`),
  el('p', { class: 'fb-health' }, '♥ ', String(health)),
  el('div', { class: 'cards small', 'aria-hidden': 'true' },
    Array.from({ length: view.hand_counts[seat] }, () => faceCard(el, null))),
  pending[seat] ? el('p', { class: ['fb-prompt', pending[seat].clock === 'reaction' && 'reaction'] },
    promptWords(pending[seat].label, names)) : null)));

  // The cards in play this turn and what happened to them.
  const challenges = new Map(legal.filter((c) => c.type === 'challenge').map((c) => [c.slot, c]));
  const inPlay = play ? play.cards.map((c) => {
    const challenge = challenges.get(c.slot);
    const shown = c.card && (c.truthful !== null || c.owner === view.viewer) ? c.card : null;
    // The button's name is its visible text ("Face down, Bo says Wizard, Challenge?").
    const attrs = challenge ? { onclick: () => send(challenge) } : {};
    return el('li', {}, faceCard(el, shown, attrs,
      el('small', {}, t('{name} says {card}', { name: who(c.owner), card: cardName(c.declared) })),
      c.truthful === true ? el('small', { class: 'truth' }, t('true')) : null,
      c.truthful === false ? el('small', { class: 'lie' }, t('a lie')) : null,
      c.challenger !== null && c.challenger !== undefined
        ? el('small', {}, t('challenged by {name}', { name: who(c.challenger) })) : null,
      challenge ? el('small', { class: 'action' }, t('Challenge?')) : null));
  }) : [];
  const hits = play ? (play.hits || []).map((h) => el('li', {},
    `${who(h.source)} → ${who(h.target)}`,
    h.declined ? ` ${t('(taken)')}` : '', h.defence !== null && h.defence !== undefined
      ? ` ${t('(defended with card {n})', { n: h.defence + 1 })}` : '')) : [];
  const reactions = Object.entries(pending).filter(([, p]) => p.clock === 'reaction');

  const hand = [...(view.hand || [])].sort((a, b) => cardName(a).localeCompare(cardName(b))
    || a.localeCompare(b)).map((card) => el('li', {}, faceCard(el, card,
    { title: t('{card} (yours)', { card: cardName(card) }) })));
  const peeked = (view.peeked || []).map((p) => el('li', {}, faceCard(el, p.card, {},
    el('small', {}, t("in {name}'s hand", { name: who(p.seat) })))));

  root.append(el('div', { class: 'faker-blue' },
    el('p', { class: 'fb-status' },
      el('span', { class: 'tag' }, t('Turn {turn}', { turn: view.turn_number })),
      el('span', { class: 'tag' }, t('Deck {n}', { n: view.deck })),
      el('span', { class: 'tag' }, t('Hidden pile {n}', { n: view.hidden })),
      el('span', { class: 'tag' }, t('Health supply {n}', { n: view.supply }))),
    reactions.length ? el('section', { class: 'fb-window', role: 'status',
      'aria-label': t('Reaction window') }, el('h3', {}, t('Reaction window')),
    el('ul', {}, reactions.map(([seat, p]) => el('li', {},
      `${Number(seat) === view.viewer ? t('You') : who(seat)}: ${promptWords(p.label, names)}`)))) : null,
    play ? el('section', { class: 'zone fb-play', 'aria-label': t('In play') },
      el('h3', {}, play.target !== null && play.target !== undefined
        ? t('{name} attacks, declaring {card} on {target}', { name: who(play.attacker), card: cardName(play.declared), target: who(play.target) })
        : t('{name} attacks, declaring {card}', { name: who(play.attacker), card: cardName(play.declared) })),
      el('ol', { class: 'cards' }, inPlay),
      hits.length ? el('ul', { class: 'fb-hits' }, hits) : null) : null,
    players,
    el('section', { class: 'zone', 'aria-label': t('Your cards') },
      el('h3', {}, t('Your hand')),
      hand.length ? el('ul', { class: 'cards' }, hand) : el('p', {}, t('No cards.')),
      peeked.length ? [el('h3', {}, t('Seen with the Alchemist')), el('ul', { class: 'cards' }, peeked)]
        : null),
    (view.public || []).length ? el('section', { class: 'zone', 'aria-label': t('Public pile') },
      el('h3', {}, t('Public pile (revealed)')),
      el('ul', { class: 'cards small' }, view.public.map((card) => el('li', {}, faceCard(el, card)))))
      : null));
}
