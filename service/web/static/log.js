// The table's events in words (issue 27 item 3): each event credited to the seat it happened
// to (a capture to the capturer, a hit to the one hit), not to whoever's command caused it;
// seats by name; no identifier from the wire shown as it is. The panel follows the replay
// position, and keeps one row per version.
import { el } from './dom.js';

// Payload keys naming a seat (as play_text.py's SEAT_KEYS).
const SEAT_KEYS = new Set(['seat', 'target', 'by', 'by_seat', 'leader', 'owner', 'winner',
  'redirect', 'first', 'last', 'capturer', 'defender', 'attacker', 'challenger', 'fleet',
  'target_seat']);
// wotr.md: seat 1 plays the Free Peoples, seat 2 the Shadow.
const SIDE_SEAT = { fp: 0, sh: 1 };
const SIDE_NAME = { fp: 'Free Peoples', sh: 'Shadow' };
// Payload keys too long or too secret-looking to list in a line (deals, decks, options).
const SKIPPED = new Set(['hands', 'decks', 'deck', 'options', 'ships', 'zones', 'tiebreak',
  'ranking', 'races', 'seats', 'link', 'knowledge', 'discarded', 'returning', 'effects']);

// WotR's places: a region, or one of the battle's boxes.
const place = (where) => ({ att: 'the battle', reinf: 'the reinforcements', dead: 'the dead' }[where]
  || String(where).replace(/^box:/, 'the Stronghold of '));

const cap = (text) => (text ? text.charAt(0).toUpperCase() + text.slice(1) : text);

// 'mag_blast' -> 'mag blast', 'laser_blast-14' -> 'laser blast 14'.
export function plain(text) {
  return String(text).replace(/[_]+/g, ' ').replace(/(\D)-(\d)/g, '$1 $2').trim();
}

// A rules text in words for people: "challenge seat 1's Shield_bearer?" -> "challenge
// Bo's Shield bearer?" (the rules count seats from 0; people never see that).
export function inWords(text, names = {}) {
  return plain(text).replace(/\bseat (\d+)\b/gi, (_, s) => names[s] || `seat ${Number(s) + 1}`);
}

// Whole sentences for the events that happen most; any other event gets its name in words and
// its fields (t: the helpers below).
const SENTENCES = {
  common: {
    game_created: () => 'The table is set up.',
    seat_joined: () => 'Took a seat.',
    seat_left: () => 'Left the table.',
    game_started: () => 'The game begins.',
    game_finished: () => 'The result is recorded.',
    game_ended: () => 'The game is over.',
    seed_revealed: () => 'The secret seed is revealed, so anyone can check the shuffles.',
    clock_expired: () => 'Ran out of time: the default move is played.',
    seat_replaced_by_bot: () => 'Timed out too often: a bot plays this seat now.',
    seat_reclaimed: () => 'Is back at the table.',
    undo_requested: (d) => `Asked to take back their last move (back to version ${d.to_version}).`,
    undo_accepted: () => 'Accepted the takeback.',
    undo_declined: (d) => (d.lapsed ? 'The takeback request lapsed unanswered.' : 'Declined the takeback.'),
    rewound: (d) => `The game went back to version ${d.to_version}.`,
    dispute_opened: (d) => `Disputed version ${d.version}.`,
    dispute_ruled: () => 'The dispute was ruled on.',
    turn_passed: () => 'Takes the turn.',
    turn_started: (d) => (d.turn ? `Turn ${d.turn} begins.` : 'Turn begins.'),
  },
  loot: {
    card_drawn: (d, t) => (d.card ? `Drew ${t.card(d.card)}.` : 'Drew a card.'),
    merchant_played: (d, t) => `Sailed a merchant ship: ${t.card(d.card)}.`,
    pirate_played: (d, t) => `Played ${t.card(d.card)} against ${t.ship(d.merchant)}.`,
    captain_played: (d, t) => `Played ${t.card(d.card)} against ${t.ship(d.merchant)}.`,
    admiral_played: (d, t) => `Played the Admiral to defend ${t.ship(d.merchant)}.`,
    merchant_captured: (d, t) => `Captured ${t.ship(d.merchant)}.`,
    card_discarded: (d, t) => `Discarded ${t.card(d.card)}.`,
  },
  maskmen: {
    season_dealt: (d) => `Season ${d.season} is dealt.`,
    cards_played: (d) => `Played ${d.count} × ${cap(String(d.wrestler).toLowerCase())}.`,
    gave_up: () => 'Gave up the round.',
    round_ended: () => 'Won the round and leads the next.',
    went_out: (d) => `Went out, place ${d.place}, for ${d.points} point${d.points === 1 ? '' : 's'}.`,
    season_ended: (d, t) => `Season ${d.season} ends: points ${t.perSeat(d.points)}.`,
  },
  faker_blue: {
    cards_dealt: () => 'The cards are dealt.',
    card_drawn: (d, t) => (d.card ? `Drew ${t.card(d.card)}.` : 'Drew a card.'),
    card_used: (d, t) => `Played a card as ${t.card(d.declared)}${d.target !== null && d.target !== undefined ? ` on ${t.who(d.target)}` : ''}.`,
    challenge_passed: () => 'Did not challenge.',
    challenge_made: () => 'Challenged the card.',
    defence_declined: () => 'Did not defend.',
    defence_declared: (d, t) => `Defended with a card declared as ${t.card(d.declared)}.`,
    card_revealed: (d, t) => `${t.who(d.owner)}'s card is turned up: ${t.card(d.card)}, declared ${t.card(d.declared)}: ${d.truthful ? 'the truth' : 'a lie'}.`,
    card_inspected: (d, t) => `Looked at ${t.who(d.target)}'s card.`,
    health_lost: (d) => `Lost ${d.amount} health${d.reason ? ` (${plain(d.reason)})` : ''}.`,
    health_gained: (d) => `Gained ${d.amount} health.`,
    health_stolen: (d, t) => `Lost ${d.amount} health to ${t.who(d.by)}.`,
    cards_discarded: () => 'Cards in play go to the discard pile.',
    players_eliminated: (d, t) => `Out of the game: ${t.seats(d.seats)}.`,
  },
  magblast: {
    fleets_dealt: () => 'The fleets are dealt.',
    hands_dealt: () => 'The hands are dealt.',
    fleet_placed: () => 'Placed their fleet face down.',
    fleets_revealed: () => 'The fleets are turned up.',
    phase_started: (d) => `The ${plain(d.phase)} phase begins.`,
    ship_moved: (d, t) => `Moved ${t.ship(d.ship)} to the ${t.zone(d.zone)} zone.`,
    card_played: (d, t) => `Played ${t.card(d.card)}.`,
    response_passed: () => 'Did not respond.',
    response_made: (d, t) => `Responded${d.card ? ` with ${t.card(d.card)}` : ''}.`,
    damage_dealt: (d, t) => `Hit ${t.ship(d.target)} for ${d.damage} damage.`,
    ship_destroyed: (d, t) => `Lost ${t.ship(d.ship)}.`,
    cards_drawn: (d) => `Drew ${(d.cards || []).length || 'some'} card${(d.cards || []).length === 1 ? '' : 's'}.`,
    cards_discarded: (d) => `Discarded ${(d.cards || []).length} card${(d.cards || []).length === 1 ? '' : 's'}.`,
    turn_ended: () => 'Turn ends.',
    chain_closed: () => 'Every response is in.',
    player_eliminated: () => 'Lost their command ship and is out.',
    ship_placed: (d, t) => `Placed ${t.ship(d.ship)} in the ${t.zone(d.zone)} zone.`,
    fleet_drawn: () => 'Drew a ship.',
  },
  wotr: {
    war_begun: () => 'The war begins.',
    round_started: (d) => `Round ${d.round} begins.`,
    card_drawn: () => 'Drew an event card.',
    dice_rolled: () => 'The action dice are rolled.',
    die_used: (d) => `Used ${/^[aeiou]/.test(d.die) ? 'an' : 'a'} ${plain(d.die)} die to ${plain(d.action)}.`,
    army_moved: (d) => `An army moved from ${place(d.src)} to ${place(d.dst)}.`,
    nation_activated: (d) => `${cap(d.nation)} is now active.`,
    battle_step: (d) => `The battle goes on: ${plain(d.stage)}.`,
    casualties_removed: (d) => `Casualties removed from ${place(d.src)}.`,
    attackers_returned: (d) => `The attackers went back to ${place(d.dst)}.`,
    army_advanced: (d) => `The attackers advanced into ${place(d.dst)}.`,
    hits_scored: (d) => `Hits scored: ${Object.entries(d).map(([side, n]) => `${SIDE_NAME[side] || side} ${n}`).join(', ')}.`,
    combat_cards_revealed: () => 'The combat cards are turned up.',
    excess_removed: (d) => `Too many figures in ${place(d.src)}: the extra ones were removed.`,
    withdrew_into_siege: (d) => `The defenders withdrew into the Stronghold of ${place(d.src)}.`,
    siege_lifted: (d) => `The siege of ${place(d.dst)} is lifted.`,
    passed: () => 'Passed.',
    political_advanced: (d) => `${cap(d.nation)} advanced on the political track.`,
    battle_started: (d) => `Battle in ${d.region}: ${SIDE_NAME[d.attacker]} attack.`,
    battle_ended: (d) => `The battle in ${d.region} ends.`,
    combat_rolled: (d) => `Rolled ${(d.dice || []).join(' ')}: ${d.hits} hit${d.hits === 1 ? '' : 's'}.`,
    settlement_captured: (d) => `Captured ${d.region}.`,
    figures_mustered: (d) => `Recruited in ${d.dst}.`,
  },
};

// Platform events about a seat that name it only as their sender.
const ACTOR_EVENTS = new Set(['seat_joined', 'seat_left', 'undo_requested', 'undo_accepted',
  'dispute_opened']);
const seatOrNull = (seat) => (Number.isInteger(seat) ? seat : null);

// The seat an event happened to: the payload's seat (or WotR side, or a round's winner), else
// nobody (the table: a deal, a battle, the end), never merely whoever's command caused it.
export function subjectSeat(event, game) {
  const data = event.data;
  if (data === null || data === undefined) return seatOrNull(event.seat); // hidden: its sender's
  if (Number.isInteger(data.seat)) return data.seat;
  if (game === 'wotr' && data.side in SIDE_SEAT) return SIDE_SEAT[data.side];
  if (event.type === 'round_ended') return seatOrNull(data.winner);
  if (ACTOR_EVENTS.has(event.type)) return seatOrNull(event.seat);
  return null;
}

function helpers(names, board, you) {
  const who = (seat) => (seat === you ? 'you' : names[seat] || `Seat ${Number(seat) + 1}`);
  const card = (id) => (id === null || id === undefined ? 'a hidden card'
    : plain(board.cardName ? board.cardName(id) : (board.cardTitle ? board.cardTitle(id) : id)));
  return {
    who,
    seats: (list) => (list || []).map(who).join(', '),
    perSeat: (list) => (list || []).map((v, s) => `${who(s)} ${v}`).join(', '),
    card,
    ship: (id) => plain(board.shipName ? board.shipName(id) : (board.cardName ? board.cardName(id) : id)),
    zone: (z) => ({ n: 'north', e: 'east', s: 'south', w: 'west' }[z] || plain(z)),
  };
}

function fieldText(key, value, t) {
  if (value === null || value === undefined || SKIPPED.has(key)) return null;
  if (typeof value === 'object' && !Array.isArray(value)) return null;
  if (SEAT_KEYS.has(key) && Number.isInteger(value)) return `${plain(key)} ${t.who(value)}`;
  if (key === 'card' || key === 'merchant') return `${plain(key)} ${t.card(value)}`;
  if (Array.isArray(value)) {
    if (value.length > 6 || value.some((v) => typeof v === 'object')) return null;
    return `${plain(key)} ${value.map((v) => (/card/.test(key) ? t.card(v) : plain(v))).join(', ')}`;
  }
  if (typeof value === 'boolean') return value ? plain(key) : null;
  return `${plain(key)} ${plain(value)}`;
}

// One event as a sentence (without who it happened to).
export function sentence(event, gameName, names, board, you) {
  const t = helpers(names, board || {}, you);
  const own = (SENTENCES[gameName] || {})[event.type] || SENTENCES.common[event.type];
  if (event.data === null) return `${cap(plain(event.type))} (hidden from you).`;
  if (own) {
    try { return own(event.data || {}, t); } catch (error) { console.error(error); }
  }
  const fields = Object.entries(event.data || {}).filter(([key]) => key !== 'seat' && key !== 'side')
    .map(([key, value]) => fieldText(key, value, t)).filter(Boolean);
  const text = `${cap(plain(event.type))}${fields.length ? `: ${fields.join('; ')}` : ''}.`;
  return text.length > 160 ? `${text.slice(0, 158)}….` : text;
}

// "Bo: Captured the 4-gold ship." / "You: ..." / "The table: The game is over."
export function line(event, game, board) {
  const seat = subjectSeat(event, game.game);
  const n = seatNames(game);
  const text = sentence(event, game.game, n, board, game.you);
  if (seat === null || seat === undefined) return text;
  return `${seat === game.you ? 'You' : n[seat]}: ${text}`;
}

// Seat -> name, one-based where a seat has no player name: "Seat 2", "Bot 2 (basic)".
export function seatNames(game) {
  const out = {};
  for (const seat of game.seats) {
    out[seat.seat] = seat.name || (seat.kind === 'bot' ? `Bot ${seat.seat + 1} (${seat.level})`
      : `Seat ${seat.seat + 1}`);
  }
  return out;
}

// The rows of the events panel, newest first: one per version up to `upto`.
export function logRows(events, upto, limit = 30) {
  const rows = [];
  for (let v = upto; v >= 1 && rows.length < limit; v -= 1) {
    if (events.has(v)) rows.push(events.get(v));
    else if (v < upto - limit * 2) break;
  }
  return rows;
}

// The events panel's list (explain buttons beside each row).
export function eventList(rows, game, board, onExplain) {
  return el('ol', { class: 'events', reversed: true }, rows.map((event) => el('li', {
    dataset: { version: String(event.version) },
  }, el('span', {}, el('span', { class: 'event-version' }, `${event.version}.`), ' ',
    line(event, game, board)),
  el('button', { type: 'button', class: 'link', dataset: { key: `explain-${event.version}` },
    'aria-label': `Explain event ${event.version}`, onclick: () => onExplain(event.version) },
  'Explain'))));
}
