// The table's events in words (issue 27 item 3): each event credited to the seat it happened
// to (a capture to the capturer, a hit to the one hit), not to whoever's command caused it;
// seats by name; no identifier from the wire shown as it is. The panel follows the replay
// position, and keeps one row per version.
import { el } from './dom.js';
import { t, tn, term, termNamed } from './i18n.js';

// Payload keys naming a seat (as play_text.py's SEAT_KEYS).
const SEAT_KEYS = new Set(['seat', 'target', 'by', 'by_seat', 'leader', 'owner', 'winner',
  'redirect', 'first', 'last', 'capturer', 'defender', 'attacker', 'challenger', 'fleet',
  'target_seat', 'from_seat']);
// wotr.md: seat 1 plays the Free Peoples, seat 2 the Shadow.
const SIDE_SEAT = { fp: 0, sh: 1 };
const sideName = (side) => term(`wotr.side.${side}`, { fp: 'Free Peoples', sh: 'Shadow' }[side] || side); // i18n-ignore: term()'s English fallback
// Payload keys too long or too secret-looking to list in a line (deals, decks, options).
const SKIPPED = new Set(['hands', 'decks', 'deck', 'options', 'ships', 'zones', 'tiebreak',
  'ranking', 'races', 'seats', 'link', 'knowledge', 'discarded', 'returning', 'effects']);

// WotR's places: a region, or one of the battle's boxes.
const place = (where) => ({ att: t('the battle'), reinf: t('the reinforcements'), dead: t('the dead') }[where]
  || (/^box:/.test(String(where))
    ? t('the Stronghold of {region}', { region: region(String(where).slice(4)) }) : region(where)));
const region = (name) => term(`wotr.region.${name}`, String(name));
const nation = (name) => term(`wotr.nation.${name}`, cap(String(name)));

const cap = (text) => (text ? text.charAt(0).toUpperCase() + text.slice(1) : text);

// 'mag_blast' -> 'mag blast', 'laser_blast-14' -> 'laser blast 14'.
export function plain(text) {
  return String(text).replace(/[_]+/g, ' ').replace(/(\D)-(\d)/g, '$1 $2').trim();
}

// A rules text in words for people: "challenge seat 1's Shield_bearer?" -> "challenge
// Bo's Shield bearer?" (the rules count seats from 0; people never see that).
export function inWords(text, names = {}) {
  return plain(text).replace(/\bseat (\d+)\b/gi, (_, s) => names[s] || t('seat {n}', { n: Number(s) + 1 }));
}

// The rules' prompts ("respond to mag_blast?"), each in the page's words; any other in words
// as they come (a server that already answers in the player's language).
const PROMPTS = () => ({
  'Scouts: retreat before the combat roll?': t('Scouts: retreat before the combat roll?'),
  'choose a combat card (secret)': t('choose a combat card (secret)'),
  'continue the attack or cease?': t('continue the attack or cease?'),
  'field battle or retreat into the siege?': t('field battle or retreat into the siege?'),
  'reduce an Elite to fight another round?': t('reduce an Elite to fight another round?'),
  'remove casualties': t('remove casualties'),
  'retreat or stand?': t('retreat or stand?'),
  'which figures advance and lay siege?': t('which figures advance and lay siege?'),
  'which figures advance into the region?': t('which figures advance into the region?'),
  'add 1 to 3': t('add 1 to 3'),
  'beat the play or give up': t('beat the play or give up'),
  'discard down to 6 cards': t('discard down to 6 cards'),
  'lead a wrestler': t('lead a wrestler'),
  'move a second army, or end the action': t('move a second army, or end the action'),
  'place the new ship': t('place the new ship'),
  'place your fleet, one ship per zone': t('place your fleet, one ship per zone'),
  'play No Mercy?': t('play No Mercy?'),
  'use a card': t('use a card'),
  'use an action die': t('use an action die'),
  'which figures go?': t('which figures go?'),
  'your turn': t('your turn'),
  'your move': t('your move'),
});

export function promptWords(label, names = {}) {
  if (!label) return t('your move');
  const text = String(label);
  const fixed = PROMPTS()[text];
  if (fixed) return fixed;
  let m = /^respond to ([a-z_]+)(?:-\d+)?\?$/.exec(text);
  if (m) return t('respond to {card}?', { card: term(`magblast.action.${m[1]}`, plain(m[1])) });
  m = /^defend against (.+)\?$/.exec(text);
  if (m) return t('defend against {card}?', { card: termNamed('faker_blue.card.', m[1]) });
  m = /^challenge seat (\d+)'s (.+)\?$/.exec(text);
  if (m) {
    return t("challenge {name}'s {card}?", { name: names[m[1]] || t('seat {n}', { n: Number(m[1]) + 1 }),
      card: termNamed('faker_blue.card.', m[2]) });
  }
  m = /^([a-z]+) phase$/.exec(text);
  if (m) return t('{phase} phase', { phase: term(`magblast.phase.${m[1]}`, m[1]) });
  return inWords(text, names);
}

// A wire name in the page's words where it has them ('gave_up' -> 'gave up' otherwise).
export function wireWords(name) {
  return WIRE_WORDS()[name] || plain(name);
}
const WIRE_WORDS = () => ({
  stage: t('stage'), reason: t('reason'), phase: t('phase'), round: t('round'), turn: t('turn'),
  amount: t('amount'), count: t('count'), card: t('card'), cards: t('cards'), merchant: t('merchant ship'),
  target: t('target'), winner: t('winner'), zone: t('zone'), ship: t('ship'), damage: t('damage'),
  version: t('version'), to_version: t('back to version'), season: t('season'), points: t('points'),
  place: t('place'), region: t('region'), nation: t('nation'), dice: t('dice'), hits: t('hits'),
  die: t('die'), action: t('action'), src: t('from'), dst: t('to'), wrestler: t('wrestler'),
  declared: t('declared'), truthful: t('truthful'), lapsed: t('lapsed'), by: t('by'),
  owner: t('owner'), leader: t('leader'), first: t('starting player'), last: t('last player'),
  hand: t('hand'), deck_count: t('cards in the deck'), merchants: t('merchant ships'),
  liar: t('liar'), challenger: t('challenger'), defender: t('defender'), attacker: t('attacker'),
  character: t('character'), army: t('army'), muster: t('muster'), event: t('event'),
  will: t('will of the West'), eye: t('eye'), muster_army: t('muster/army'),
  attack: t('attack'), move: t('move'), recruit: t('recruit'), diplomacy: t('diplomacy'),
  play_event: t('play an event'), pass: t('pass'), draw: t('draw'), discard: t('discard'),
  regular: t('regular'), elite: t('elite'), field: t('field battle'), siege: t('siege'),
  sortie: t('sortie'), combat_cards: t('combat cards'), combat_roll: t('combat roll'),
  leader_reroll: t('leader re-roll'), casualties: t('casualties'), cease_or_retreat: t('cease or retreat'),
  elimination: t('elimination'), liar_penalty: t('liar penalty'), challenger_penalty: t('challenger penalty'),
  timeout: t('timeout'), last_survivor: t('last survivor'), deck_out: t('deck out'),
  military_victory: t('military victory'), ring_destroyed: t('ring destroyed'),
  // War of the Ring's battle stages and rolls (wotr.md §5)
  pre: t('before the combat roll'), post: t('after the combat roll'), roll: t('combat roll'),
  cards: t('combat cards'), siege_choice: t('siege or field battle'), scouts: t('Scouts retreat'),
  end: t('end of the round'), besiege: t('lay siege'), advance: t('advance'), retreat: t('retreat'),
  extend: t('extra siege round'), cease: t('cease the attack'), onslaught_roll: t('Onslaught roll'),
  cannot_withdraw: t('cannot withdraw'), combat: t('combat roll'), onslaught: t('Onslaught'),
  charge: t('Charge'), sudden_strike: t('Sudden Strike'), we_come_to_kill: t('We Come to Kill'),
  second_move: t('second move'), dead: t('the dead'), order: t('order'), played: t('played'),
  by_seat: t('by'),
  // Faker Blue's reasons for a loss of health
  wrong_challenge: t('wrong challenge'), caught_lying: t('caught lying'), stolen: t('stolen'),
  // Mag Blast's response chain and Direct Hits
  hit: t('hit'), effect: t('effect'), start: t('start'), blast: t('blast'), launch: t('squadron launch'),
  ramming: t('ramming'), direct_hit: t('direct hit'), dh_effect: t('direct hit effect'), misc: t('card'),
  evade: t('evasive action'), intercept: t('interception'), flux: t('Temporal Flux'),
  cranium: t('Cranium Consortium'), sweep: t('sweep'), fighter: t('fighter'),
});

// Whole sentences for the events that happen most; any other event gets its name in words and
// its fields (h: the helpers below).
const SENTENCES = {
  common: {
    game_created: () => t('The table is set up.'),
    seat_joined: () => t('Took a seat.'),
    seat_left: () => t('Left the table.'),
    game_started: () => t('The game begins.'),
    game_finished: () => t('The result is recorded.'),
    game_ended: () => t('The game is over.'),
    seed_revealed: () => t('The secret seed is revealed, so anyone can check the shuffles.'),
    clock_expired: () => t('Ran out of time: the default move is played.'),
    seat_replaced_by_bot: () => t('Timed out too often: a bot plays this seat now.'),
    seat_reclaimed: () => t('Is back at the table.'),
    undo_requested: (d) => t('Asked to take back their last move (back to version {version}).', { version: String(d.to_version) }),
    undo_accepted: () => t('Accepted the takeback.'),
    undo_declined: (d) => (d.lapsed ? t('The takeback request lapsed unanswered.') : t('Declined the takeback.')),
    rewound: (d) => t('The game went back to version {version}.', { version: String(d.to_version) }),
    dispute_opened: (d) => t('Disputed version {version}.', { version: String(d.version) }),
    dispute_ruled: () => t('The dispute was ruled on.'),
    turn_passed: () => t('Takes the turn.'),
    turn_started: (d) => (d.turn ? t('Turn {turn} begins.', { turn: d.turn }) : t('Turn begins.')),
  },
  loot: {
    loot_started: () => t('The cards are dealt.'),
    discard_taken: (d, h) => (d.card ? t('Took {card} from the discard.', { card: h.card(d.card) })
      : t('Took a card from the discard.')),
    turn_skipped: () => t('Turn skipped: no card to play.'),
    card_drawn: (d, h) => (d.card ? t('Drew {card}.', { card: h.card(d.card) }) : t('Drew a card.')),
    merchant_played: (d, h) => t('Sailed a merchant ship: {card}.', { card: h.card(d.card) }),
    pirate_played: (d, h) => t('Played {card} against {ship}.', { card: h.card(d.card), ship: h.ship(d.merchant) }),
    captain_played: (d, h) => t('Played {card} against {ship}.', { card: h.card(d.card), ship: h.ship(d.merchant) }),
    admiral_played: (d, h) => t('Played the Admiral to defend {ship}.', { ship: h.ship(d.merchant) }),
    merchant_captured: (d, h) => t('Captured {ship}.', { ship: h.ship(d.merchant) }),
    card_discarded: (d, h) => t('Discarded {card}.', { card: h.card(d.card) }),
  },
  maskmen: {
    maskmen_started: () => t('The game is set up.'),
    season_dealt: (d) => t('Season {season} is dealt.', { season: d.season }),
    cards_played: (d) => t('Played {count} × {wrestler}.', { count: d.count,
      wrestler: term(`maskmen.wrestler.${d.wrestler}`, cap(String(d.wrestler).toLowerCase())) }),
    gave_up: () => t('Gave up the round.'),
    round_ended: () => t('Won the round and leads the next.'),
    went_out: (d) => tn('Went out, place {place}, for {n} point.', 'Went out, place {place}, for {n} points.',
      d.points, { place: d.place }),
    season_ended: (d, h) => t('Season {season} ends: points {points}.', { season: d.season, points: h.perSeat(d.points) }),
  },
  faker_blue: {
    faker_blue_started: () => t('The game is set up.'),
    cards_dealt: () => t('The cards are dealt.'),
    card_drawn: (d, h) => (d.card ? t('Drew {card}.', { card: h.card(d.card) }) : t('Drew a card.')),
    card_used: (d, h) => (d.target !== null && d.target !== undefined
      ? t('Played a card as {card} on {target}.', { card: h.card(d.declared), target: h.who(d.target) })
      : t('Played a card as {card}.', { card: h.card(d.declared) })),
    challenge_passed: () => t('Did not challenge.'),
    challenge_made: () => t('Challenged the card.'),
    defence_declined: () => t('Did not defend.'),
    defence_declared: (d, h) => t('Defended with a card declared as {card}.', { card: h.card(d.declared) }),
    card_revealed: (d, h) => {
      const fields = { owner: h.who(d.owner), card: h.card(d.card), declared: h.card(d.declared) };
      if (h.isYou(d.owner)) {
        return d.truthful ? t('Your card is turned up: {card}, declared {declared}: the truth.', fields)
          : t('Your card is turned up: {card}, declared {declared}: a lie.', fields);
      }
      return d.truthful ? t("{owner}'s card is turned up: {card}, declared {declared}: the truth.", fields)
        : t("{owner}'s card is turned up: {card}, declared {declared}: a lie.", fields);
    },
    card_inspected: (d, h) => (h.isYou(d.target) ? t('Looked at your card.')
      : t("Looked at {target}'s card.", { target: h.who(d.target) })),
    health_lost: (d) => (d.reason
      ? t('Lost {amount} health ({reason}).', { amount: d.amount, reason: wireWords(d.reason) })
      : t('Lost {amount} health.', { amount: d.amount })),
    health_gained: (d) => t('Gained {amount} health.', { amount: d.amount }),
    health_stolen: (d, h) => t('Lost {amount} health to {by}.', { amount: d.amount, by: h.who(d.by) }),
    cards_discarded: () => t('Cards in play go to the discard pile.'),
    players_eliminated: (d, h) => t('Out of the game: {seats}.', { seats: h.seats(d.seats) }),
  },
  magblast: {
    magblast_started: () => t('The game is set up.'),
    fleets_dealt: () => t('The fleets are dealt.'),
    hands_dealt: () => t('The hands are dealt.'),
    fleet_placed: () => t('Placed their fleet face down.'),
    fleets_revealed: () => t('The fleets are turned up.'),
    phase_started: (d) => t('The {phase} phase begins.', { phase: term(`magblast.phase.${d.phase}`, plain(d.phase)) }),
    ship_moved: (d, h) => t('Moved {ship} to the {zone} zone.', { ship: h.ship(d.ship), zone: h.zone(d.zone) }),
    card_played: (d, h) => t('Played {card}.', { card: h.card(d.card) }),
    response_passed: () => t('Did not respond.'),
    response_made: (d, h) => (d.card ? t('Responded with {card}.', { card: h.card(d.card) }) : t('Responded.')),
    damage_dealt: (d, h) => t('Hit {ship} for {damage} damage.', { ship: h.ship(d.target), damage: d.damage }),
    ship_destroyed: (d, h) => t('Lost {ship}.', { ship: h.ship(d.ship) }),
    hand_raided: (d, h) => {
      const n = d.count ?? (d.cards || []).length; // the cards are hidden from the others
      return h.isYou(d.target) ? tn('Took {n} card from your hand.', 'Took {n} cards from your hand.', n)
        : tn("Took {n} card from {target}'s hand.", "Took {n} cards from {target}'s hand.", n,
          { target: h.who(d.target) });
    },
    ship_captured: (d, h) => (h.isYou(d.from_seat)
      ? t('Captured your {ship} into the {zone} zone.', { ship: h.ship(d.ship), zone: h.zone(d.zone) })
      : t("Captured {owner}'s {ship} into the {zone} zone.",
        { owner: h.who(d.from_seat), ship: h.ship(d.ship), zone: h.zone(d.zone) })),
    cards_drawn: (d) => ((d.cards || []).length
      ? tn('Drew {n} card.', 'Drew {n} cards.', d.cards.length) : t('Drew some cards.')),
    cards_discarded: (d) => tn('Discarded {n} card.', 'Discarded {n} cards.', (d.cards || []).length),
    turn_ended: () => t('Turn ends.'),
    chain_closed: () => t('Every response is in.'),
    player_eliminated: () => t('Lost their command ship and is out.'),
    ship_placed: (d, h) => t('Placed {ship} in the {zone} zone.', { ship: h.ship(d.ship), zone: h.zone(d.zone) }),
    fleet_drawn: () => t('Drew a ship.'),
  },
  wotr: {
    war_begun: () => t('The war begins.'),
    round_started: (d) => t('Round {round} begins.', { round: d.round }),
    card_drawn: () => t('Drew an event card.'),
    dice_rolled: () => t('The action dice are rolled.'),
    die_used: (d) => t('Used a {die} die to {action}.', { die: wireWords(d.die), action: wireWords(d.action) }),
    army_moved: (d) => t('An army moved from {src} to {dst}.', { src: place(d.src), dst: place(d.dst) }),
    nation_activated: (d) => t('{nation} is now active.', { nation: nation(d.nation) }),
    battle_step: (d) => t('The battle goes on: {stage}.', { stage: wireWords(d.stage) }),
    casualties_removed: (d) => t('Casualties removed from {src}.', { src: place(d.src) }),
    attackers_returned: (d) => t('The attackers went back to {dst}.', { dst: place(d.dst) }),
    army_advanced: (d) => t('The attackers advanced into {dst}.', { dst: place(d.dst) }),
    hits_scored: (d) => t('Hits scored: {hits}.', { hits: Object.entries(d).map(([side, n]) => `${sideName(side)} ${n}`).join(', ') }),
    combat_cards_revealed: () => t('The combat cards are turned up.'),
    excess_removed: (d) => t('Too many figures in {src}: the extra ones were removed.', { src: place(d.src) }),
    withdrew_into_siege: (d) => t('The defenders withdrew into the Stronghold of {region}.', { region: place(d.src) }),
    siege_lifted: (d) => t('The siege of {dst} is lifted.', { dst: place(d.dst) }),
    passed: () => t('Passed.'),
    political_advanced: (d) => t('{nation} advanced on the political track.', { nation: nation(d.nation) }),
    battle_started: (d) => t('Battle in {region}: {side} attack.', { region: region(d.region), side: sideName(d.attacker) }),
    battle_ended: (d) => t('The battle in {region} ends.', { region: region(d.region) }),
    combat_rolled: (d) => tn('Rolled {dice}: {n} hit.', 'Rolled {dice}: {n} hits.', d.hits, { dice: (d.dice || []).join(' ') }),
    settlement_captured: (d) => t('Captured {region}.', { region: region(d.region) }),
    acted_with: (d) => t('Acted with {nations}.', { nations: (d.nations || []).map(nation).join(', ') }),
    figures_mustered: (d) => t('Recruited in {region}.', { region: region(d.dst) }),
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
  const who = (seat) => (seat === you ? t('you') : names[seat] || t('Seat {n}', { n: Number(seat) + 1 }));
  const card = (id) => (id === null || id === undefined ? t('a hidden card')
    : plain(board.cardName ? board.cardName(id) : (board.cardTitle ? board.cardTitle(id) : id)));
  // A Mag Blast ship or command ship by its printed name ('ship-14', 'kalgon' are wire ids).
  const shipNamed = (v) => {
    const named = board.shipName ? board.shipName(v) : v;
    return named !== v ? named : '';
  };
  return {
    who,
    isYou: (seat) => seat === you,
    seats: (list) => (list || []).map(who).join(', '),
    perSeat: (list) => (list || []).map((v, s) => `${who(s)} ${v}`).join(', '),
    card,
    ship: (id) => plain(shipNamed(id) || (board.cardName ? board.cardName(id) : id)),
    // Any other value: a region, a nation, a ship or a wire word, in the page's words where it
    // has them.
    thing: (v) => term(`wotr.region.${v}`, '') || term(`wotr.nation.${v}`, '') || shipNamed(v)
      || wireWords(v),
    zone: (z) => term(`magblast.zone.${z}`, plain(z)),
  };
}

function fieldText(key, value, h) {
  if (value === null || value === undefined || SKIPPED.has(key)) return null;
  if (typeof value === 'object' && !Array.isArray(value)) return null;
  if (SEAT_KEYS.has(key) && Number.isInteger(value)) return `${wireWords(key)} ${h.who(value)}`;
  if (key === 'card' || key === 'merchant' || key === 'blast') return `${wireWords(key)} ${h.card(value)}`;
  if (/ship|carrier/.test(key) && typeof value === 'string') return `${wireWords(key)} ${h.ship(value)}`;
  if (Array.isArray(value)) {
    if (value.length > 6 || value.some((v) => typeof v === 'object')) return null;
    return `${wireWords(key)} ${value.map((v) => (/card|hand/.test(key) ? h.card(v) : h.thing(v))).join(', ')}`;
  }
  if (typeof value === 'boolean') return value ? wireWords(key) : null;
  return `${wireWords(key)} ${typeof value === 'string' ? h.thing(value) : plain(value)}`;
}

// One event as a sentence (without who it happened to).
export function sentence(event, gameName, names, board, you) {
  const h = helpers(names, board || {}, you);
  const own = (SENTENCES[gameName] || {})[event.type] || SENTENCES.common[event.type];
  const kind = cap(eventWords(event.type));
  if (event.data === null) return t('{event} (hidden from you).', { event: kind });
  if (own) {
    try { return own(event.data || {}, h); } catch (error) { console.error(error); }
  }
  const fields = Object.entries(event.data || {}).filter(([key]) => key !== 'seat' && key !== 'side')
    .map(([key, value]) => fieldText(key, value, h)).filter(Boolean);
  const text = `${kind}${fields.length ? `: ${fields.join('; ')}` : ''}.`;
  return text.length > 160 ? `${text.slice(0, 158)}….` : text;
}

// "Bo: Captured the 4-gold ship." / "You: ..." / "The table: The game is over."
export function line(event, game, board) {
  const seat = subjectSeat(event, game.game);
  const n = seatNames(game);
  const text = sentence(event, game.game, n, board, game.you);
  if (seat === null || seat === undefined) return text;
  return `${seat === game.you ? t('You') : n[seat]}: ${text}`;
}

// Seat -> name, one-based where a seat has no player name: "Seat 2", "Bot 2 (basic)".
export function seatNames(game) {
  const out = {};
  for (const seat of game.seats) {
    out[seat.seat] = seat.name || (seat.kind === 'bot'
      ? t('Bot {n} ({level})', { n: seat.seat + 1, level: LEVELS()[seat.level] || seat.level })
      : t('Seat {n}', { n: seat.seat + 1 }));
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
    'aria-label': t('Explain event {version}', { version: String(event.version) }),
    onclick: () => onExplain(event.version) },
  t('Explain')))));
}

const LEVELS = () => ({ random: t('random'), basic: t('basic'), expert: t('expert') });

// The events that have no sentence of their own, named in words.
function eventWords(type) {
  return EVENT_WORDS()[type] || plain(type);
}
const EVENT_WORDS = () => ({
  loot_started: t('game started'), maskmen_started: t('game started'),
  faker_blue_started: t('game started'), magblast_started: t('game started'),
  discard_taken: t('took a card from the discard'), turn_skipped: t('turn skipped'),
  effect_expired: t('effect expired'), action_deck_reshuffled: t('action deck reshuffled'),
  fleet_deck_reshuffled: t('fleet deck reshuffled'), blasts_salvaged: t('blasts salvaged'),
  reinforcement_paid: t('reinforcement paid'), hand_raided: t('hand raided'),
  sound_made: t('sound made'), card_cancelled: t('card cancelled'), card_settled: t('card settled'),
  blast_missed: t('blast missed'), damage_moved: t('damage moved'), damage_repaired: t('damage repaired'),
  direct_hit_ready: t('direct hit ready'), ship_captured: t('ship captured'),
  ships_scattered: t('ships scattered'), effect_placed: t('effect placed'), effect_swept: t('effect swept'),
  power_used: t('command ship power used'), no_mercy_proposed: t('no mercy proposed'),
  no_mercy_refused: t('no mercy refused'), no_mercy_agreed: t('no mercy agreed'),
  action_opened: t('action opened'), action_closed: t('action closed'), order_declared: t('order declared'),
  figures_chosen: t('figures chosen'), army_retreated: t('army retreated'),
  leaders_removed: t('leaders removed'), elite_reduced: t('elite reduced'),
  combat_card_chosen: t('combat card chosen'), battle_round_ended: t('battle round ended'),
  card_drawn: t('card drawn'), card_discarded: t('card discarded'),
});


