// The Mag Blast board: every fleet (command ship in the middle, its four zones around it, each
// ship's hull left and damage), the viewer's hand, the response chain with who is asked and the
// reaction clock's countdown, Asteroids and Minefields, the decks. Drawn only from `view` (plus
// the printed cards in data/magblast.json); clicking a card, a ship, a zone or a seat chooses
// among the legal commands (pick.js).

import { Picker, countdown, h, useStyles } from "./pick.js";
import { t, tn, term } from "../i18n.js";
import { inWords, promptWords } from "../log.js";

const DATA = await (await fetch(new URL("./data/magblast.json", import.meta.url))).json();

const ZONES = DATA.zones.map((z) => z.id);  // n e s w
const ZONE_NAME = Object.fromEntries(DATA.zones.map((z) => [z.id, term(`magblast.zone.${z.id}`, z.name)]));
const TURRET = { laser: "L", beam: "B", mag: "M" };

const kindOf = (card) => card.replace(/-\d+$/, "");
export function cardName(card) {
  const kind = kindOf(card);
  return DATA.kinds[kind] ? term(`magblast.action.${kind}`, DATA.kinds[kind].name) : card;
}
export function shipName(id) {
  if (DATA.ships[id]) return term(`magblast.ship.${id}`, DATA.ships[id].name);
  if (DATA.command_ships[id]) return term(`magblast.command_ship.${id}`, DATA.command_ships[id].name);
  return id;
}
const phaseName = (phase) => term(`magblast.phase.${phase}`, phase || "");
const className = (cls) => term(`magblast.class.${cls}`, DATA.classes[cls]);
const cards = (list) => (list || []).map(cardName).join(", ");
// magblast.md §4a: resource icons, paid to reinforce.
const RESOURCE = { star: { icon: "★", word: () => t("energy (★)") },
  circle: { icon: "●", word: () => t("technology (●)") },
  diamond: { icon: "◆", word: () => t("raw materials (◆)") } };
// A card's kind, said in words as well as its colour.
const CATEGORY = () => ({ blast: t("Blast"), squadron: t("Squadron"), dh_effect: t("Direct Hit effect"),
  direct_hit: t("Direct Hit"), misc: t("Other") });
const CATEGORY_ORDER = ["blast", "squadron", "direct_hit", "dh_effect", "misc"];
const handOrder = (card) => {
  const at = CATEGORY_ORDER.indexOf(DATA.kinds[kindOf(card)]?.category);
  return at < 0 ? CATEGORY_ORDER.length : at;
};
const kindDamage = (card) => DATA.kinds[kindOf(card)]?.damage || 0;

// Who owns a ship (or a command ship, named by its race), from the view's public zones.
function owner(view, id) {
  if (!view) return null;
  const race = (view.races || []).indexOf(id);
  if (race >= 0) return race;
  for (const [seat, zones] of (view.zones || []).entries()) {
    for (const ships of Object.values(zones || {})) if (ships.includes(id)) return seat;
  }
  return null;
}
// Seat -> display name for labels (the shell passes them to label as its third argument).
let NAMES = {};
const seatName = (seat) => NAMES[seat] || t("seat {n}", { n: Number(seat) + 1 });
function target(view, id) {
  const seat = owner(view, id);
  return seat === null ? shipName(id) : `${shipName(id)} (${seatName(seat)})`;
}

// The shell offers these step by step, not as one button per arrangement (choices.js).
export const narrowed = ["place_fleet"];

// "zones.n" -> "Front: Chezill" (a step of choosing a fleet's arrangement).
export function choiceLabel(path, value) {
  const zone = /^zones\.([nesw])$/.exec(path);
  if (!zone) return null;
  const name = ZONE_NAME[zone[1]];
  return t("{zone} zone: {ship}", { zone: `${name[0].toUpperCase()}${name.slice(1)}`, ship: value === null ? t("no ship") : shipName(value) });
}

export function label(c, view, names) {
  if (names) NAMES = names;
  switch (c.type) {
    case "place_fleet":
      return t("Place fleet: {ships}", { ships: ZONES.filter((z) => c.zones?.[z])
        .map((z) => `${ZONE_NAME[z]} ${shipName(c.zones[z])}`).join(", ") });
    case "discard":
      return c.cards?.length ? t("Discard {cards}", { cards: cards(c.cards) }) : t("Discard nothing");
    case "transfer_blast":
      return t("Transfer {card} from {ship} to {target}", { card: cardName(c.blast), ship: shipName(c.ship), target: target(view, c.target) });
    case "draw": return t("Draw cards");
    case "salvage_blasts": return t("Salvage {cards} from the discard pile", { cards: cards(c.cards) || t("nothing") });
    case "reinforce":
      return c.ship ? t("Reinforce, paying {cards}, taking {ship} from the fleet discard", { cards: cards(c.cards), ship: shipName(c.ship) })
        : t("Reinforce, paying {cards}", { cards: cards(c.cards) });
    case "place_ship": return t("Place {ship} in the {zone} zone", { ship: shipName(c.ship), zone: ZONE_NAME[c.zone] });
    case "end_phase": return view?.phase ? t("End the {phase} phase", { phase: phaseName(view.phase) }) : t("End the phase");
    case "move": return t("Move {ship} to the {zone} zone", { ship: shipName(c.ship), zone: ZONE_NAME[c.zone] });
    case "raid_hand": return t("Take 3 random cards from {name}", { name: seatName(c.seat) });
    case "blast":
      return t("{card}: {ship} fires at {target}", { card: cardName(c.card), ship: shipName(c.ship), target: target(view, c.target) }) +
        (c.sound ? ` ("${c.sound}")` : "");
    case "make_sound": return t("Make the sound \"{sound}\"", { sound: c.sound });
    case "stay_silent": return t("Stay silent");
    case "launch":
      return t("Launch {card} from {ship} at {target}", { card: cardName(c.card), ship: shipName(c.carrier), target: target(view, c.target) });
    case "direct_hit": return t("Play {card}", { card: cardName(c.card) });
    case "dh_effect": {
      const more = [];
      if (c.zone) more.push(t("into the {zone} zone", { zone: ZONE_NAME[c.zone] }));
      if (c.moves) {
        more.push(t("moving {moves}", { moves: Object.entries(c.moves)
          .map(([s, z]) => t("{ship} to {zone}", { ship: shipName(s), zone: ZONE_NAME[z] })).join(", ") }));
      }
      if (c.power) more.push(t("(command ship power)"));
      return [cardName(c.card), ...more].join(" ");
    }
    case "play_card": {
      const text = [t("Play {card}", { card: cardName(c.card) })];
      if (c.ship) text.push(t("on {ship}", { ship: shipName(c.ship) }));
      if (c.blast) text.push(t("with {card}", { card: cardName(c.blast) }));
      if (c.target) text.push(t("at {target}", { target: target(view, c.target) }));
      if (c.seat !== null && c.seat !== undefined) text.push(t("against {name}", { name: seatName(c.seat) }));
      return text.join(" ");
    }
    case "sweep": return t("Sweep {card} with {ship}", { card: cardName(c.card), ship: shipName(c.ship) });
    case "end_turn": return t("End turn");
    case "respond": return t("Respond with {card}", { card: cardName(c.card) });
    case "cranium": return t("{power}: discard {cards}", { power: term("magblast.command_ship.cranium", "Cranium Consortium"), cards: cards(c.cards) });
    case "no_response": return t("No response");
    case "propose_no_mercy": return t("Propose No Mercy");
    case "accept_no_mercy": return t("Accept No Mercy");
    case "refuse_no_mercy": return t("Refuse No Mercy");
    default: return c.type.replaceAll("_", " ");
  }
}

// What a command names on the board. Fleet placement pairs a ship with a zone ("n=ship-16").
function tokensOf(c) {
  const out = [];
  for (const key of ["card", "ship", "target", "carrier", "blast"]) {
    if (c[key]) out.push(c[key]);
  }
  if (c.zone) out.push(`zone:${c.zone}`);
  if (c.seat !== null && c.seat !== undefined) out.push(`seat:${c.seat}`);
  for (const card of c.cards || []) out.push(card);
  if (c.type === "place_fleet") {
    for (const [z, ship] of Object.entries(c.zones || {})) out.push(`${z}=${ship}`, ship, `zone:${z}`);
  }
  if (c.type === "make_sound" || !out.length) out.push(cmdToken(c));
  return out;
}
// A choice with nothing on the board to click (end a phase, pass, draw...) gets a button of its own.
const cmdToken = (c) => `cmd:${JSON.stringify({ ...c, expected_version: undefined })}`;

// During setup a ship clicked and then a zone clicked make one pair.
function combine(sel, token, picker) {
  const last = sel[sel.length - 1];
  const pair = token.startsWith("zone:") && last && DATA.ships[last] ? `${token.slice(5)}=${last}`
    : (DATA.ships[token] && last?.startsWith("zone:") ? `${last.slice(5)}=${token}` : null);
  if (pair && picker.candidates([...sel.slice(0, -1), pair]).length) {
    return [...sel.slice(0, -1), pair];
  }
  return [...sel, token];
}

function damageOf(view, id) {
  const under = (view.under?.[id] || []).reduce((n, [, d]) => n + d, 0);
  return under + (view.temp?.[id] || 0);
}

export function render(root, ctx) {
  useStyles("magblast");
  const { view, game, seat } = ctx;
  const names = ctx.names || {};
  const who = (s) => names[s] || names[String(s)] || t("Seat {n}", { n: Number(s) + 1 });
  NAMES = ctx.names || {};
  const picker = new Picker(ctx, { tokensOf, label: (c) => label(c, view), combine,
    required: (c, tokens) => [...tokens].filter((t) => c.type !== "place_fleet" || t.includes("=")) });
  const bind = (node, token) => picker.bind(node, token);
  root.classList.add("mb-board", "pick-board");
  if (!view || !view.zones) {
    root.append(h("p", {}, t("The fleets are not dealt yet.")));
    return;
  }

  // The table: turn, phase, decks, effects.
  const prompts = game?.pending || {};
  const status = h("section", { class: "mb-status", "aria-label": t("table") },
    h("p", { class: "mb-turn" },
      view.result ? t("Game over") :
        t("Turn {turn} · {name} · {phase} phase", { turn: view.turn_number, name: who(view.turn), phase: phaseName(view.phase) })),
    h("p", { class: "mb-decks" },
      t("Fleet deck {fleet} · action deck {action} · action discard {discard}", {
        fleet: view.fleet_deck, action: view.action_deck, discard: view.action_discard.length }) +
      (view.action_discard.length ? ` ${t("(top: {card})", { card: cardName(view.action_discard[0]) })}` : "")),
    view.effects?.length ? h("ul", { class: "mb-effects" }, view.effects.map((e) =>
      h("li", { class: "mb-effect", "data-card": e.card },
        t("{card} on {name}'s fleet (by {by})", { card: cardName(e.card), name: who(e.fleet), by: who(e.by) })))) : null,
    view.no_mercy ? h("p", {}, t("No Mercy is in force.")) : null,
    view.proposal ? h("p", {}, t("{name} proposes No Mercy.", { name: who(view.proposal.by) })) : null);
  root.append(status);

  // Who must answer now, with the clock (the reaction clock counts down for a response window).
  const waits = Object.entries(view.pending || {});
  if (waits.length) {
    root.append(h("section", { class: "mb-pending", "aria-label": t("waiting for") },
      waits.map(([s, p]) => h("p", {
        class: `mb-wait ${p.clock === "reaction" ? "reaction" : ""}`, "data-seat": s,
      }, `${who(s)}: ${promptWords(p.label, names)}`, countdown(prompts[s]?.deadline)))));
  }

  // The response chain: each card played and each answer, bottom first.
  if (view.chain) {
    const links = view.chain.links.map((link, i) => {
      const bits = [link.card ? cardName(link.card) : (link.action ? inWords(link.action) : t("ability"))];
      if (link.ship) bits.push(t("from {ship}", { ship: shipName(link.ship) }));
      if (link.target) bits.push(t("at {target}", { target: target(view, link.target) }));
      return h("li", { class: "mb-link", "data-card": link.card || "" },
        `${i ? "↳ " : ""}${who(link.seat)}: ${bits.join(" ")}`);
    });
    root.append(h("section", { class: "mb-chain", "aria-label": t("response chain") },
      h("h3", {}, t("Response chain")), h("ol", {}, links),
      view.chain.passed.length ?
        h("p", {}, t("Passed: {names}", { names: view.chain.passed.map(who).join(", ") })) : null));
  }
  if (view.dh) {
    root.append(h("p", { class: "mb-dh" },
      t("Direct Hit on {target} ({stage})", { target: target(view, view.dh.target || view.dh.ship), stage: inWords(view.dh.stage) })));
  }

  // The viewer's hand, and a ship being placed or the six dealt at setup.
  if (seat !== null && seat !== undefined) {
    // Sorted as a player holds them: blasts, squadrons, the rest; by name, strongest first.
    const sorted = [...view.hand].sort((a, b) => handOrder(a) - handOrder(b)
      || cardName(a).localeCompare(cardName(b)) || (kindDamage(b) - kindDamage(a)));
    const hand = h("section", { class: "mb-hand", "aria-label": t("your hand") },
      h("h3", {}, t("Your hand ({n})", { n: view.hand.length })),
      h("div", { class: "mb-cards" }, sorted.map((card) => {
        const k = DATA.kinds[kindOf(card)] || {};
        const icons = DATA.icons[card] || [];
        const words = [k.damage ? t("{n} damage", { n: k.damage }) : "",
          icons.length ? t("resources {icons}", { icons: icons.map((i) => RESOURCE[i]?.word() || i).join(", ") }) : ""]
          .filter(Boolean).join(", ");
        return bind(h("button", { type: "button", class: `mb-card cat-${k.category}`,
          "data-card": card, title: words ? `${cardName(card)}: ${words}` : null },
        h("span", { class: "mb-card-kind" }, CATEGORY()[k.category] || ""),
        h("span", {}, h("b", {}, cardName(card)),
          k.damage ? h("span", { class: "mb-card-damage" }, ` ${k.damage}`) : "",
          icons.length ? h("span", { class: "mb-card-icons" },
            ` ${icons.map((i) => RESOURCE[i]?.icon || i).join("")}`) : "")),
        card);
      })),
      h("p", { class: "mb-legend" }, t("The number: damage. Resources, paid to reinforce (3 alike, or one of each): ★ energy, ● technology, ◆ raw materials.")));
    root.append(hand);
    const spare = view.placing?.ships?.length ? view.placing.ships :
      (view.dealt?.length && !Object.keys(view.my_placement || {}).length ? view.dealt : []);
    if (spare.length) {
      root.append(h("section", { class: "mb-spare", "aria-label": t("ships to place") },
        h("h3", {}, view.dealt?.length ? t("Dealt ships: pick one, then a zone") : t("Ship to place")),
        h("div", { class: "mb-cards" }, spare.map((id) => bind(shipNode(view, id, "button"), id)))));
    }
    const actions = h("div", { class: "mb-actions" },
      (ctx.legal || []).filter((c) => tokensOf(c).some((token) => token.startsWith("cmd:")))
        .map((c) => bind(h("button", { type: "button", class: "mb-do" }, label(c, view)),
          cmdToken(c))));
    if (actions.children.length) root.append(actions);
  }
  root.append(picker.panel);

  // The fleets, the viewer's first.
  const order = [...Array(view.seats).keys()];
  if (seat !== null && seat !== undefined && seat < view.seats) {
    order.push(...order.splice(0, seat));
  }
  const fleets = h("section", { class: "mb-fleets", "aria-label": t("fleets") });
  for (const s of order) fleets.append(fleetNode(view, s, who, bind, s === seat));
  root.append(fleets);
  picker.refresh();
}

function shipNode(view, id, tag = "div") {
  const ship = DATA.ships[id];
  const hull = ship ? ship.hull : DATA.constants.command_hull;
  const dmg = damageOf(view, id);
  const fired = view.fired?.[id] || [];
  const attrs = { class: `mb-ship ${ship ? `cls-${ship.class}` : "command"}`, "data-ship": id,
    "data-hull": String(hull - dmg) };
  if (tag === "button") attrs.type = "button";
  return h(tag, attrs,
    h("span", { class: "mb-ship-name" }, shipName(id)),
    h("span", { class: "mb-ship-meta" },
      ship ? `${className(ship.class)} · ${t("spd {n}", { n: ship.speed })} · ` +
        ship.turrets.map((x) => (fired.includes(x) ? `${TURRET[x]}✓` : TURRET[x])).join("") : ""),
    h("span", { class: "mb-hull", title: t("hull {left} of {hull}", { left: hull - dmg, hull }) },
      h("span", { class: "mb-hull-bar", style: { width: `${Math.max(0, (hull - dmg) / hull) * 100}%` } }),
      h("span", { class: "mb-hull-text" }, `${hull - dmg}/${hull}`)));
}

function fleetNode(view, s, who, bind, mine) {
  const race = view.races[s];
  const cmd = DATA.command_ships[race] || {};
  const alive = view.alive[s];
  const zones = view.zones[s] || {};
  const head = h("header", { class: "mb-fleet-head", "data-seat": String(s) },
    h("b", {}, who(s)), ` · ${shipName(race)}`,
    ` · ${tn("{n} card", "{n} cards", view.hand_counts[s])}`,
    view.uses[s] !== null && view.uses[s] !== undefined ? ` · ${t("power {n} left", { n: view.uses[s] })}` : "",
    alive ? "" : ` · ${t("destroyed")}`);
  bind(head, `seat:${s}`);  // a seat to raid or to lay a Minefield before
  const grid = h("div", { class: "mb-grid" });
  const zoneCell = (z) => {
    // The zone's name is what chooses the zone (a control of its own: the ships inside are
    // controls too, and controls must not nest); a click on the zone's empty space does too.
    const name = h("span", { class: "mb-zone-name" }, ZONE_NAME[z]);
    const cell = h("div", { class: `mb-zone zone-${z}`, "data-zone": z, "data-seat": String(s) },
      name, (zones[z] || []).map((id) => bind(shipNode(view, id), id)));
    if (mine) {
      bind(name, `zone:${z}`);
      cell.addEventListener("click", (ev) => { if (ev.target === cell) name.click(); });
    }
    return cell;
  };
  const command = shipNode(view, race);
  if (!alive) command.querySelector(".mb-hull-text").textContent = t("destroyed");
  const centre = bind(h("div", { class: "mb-command", "data-ship": race, title: cmd.text || "" },
    command), race);
  grid.append(h("div", { class: "mb-corner" }), zoneCell("n"), h("div", { class: "mb-corner" }),
    zoneCell("w"), centre, zoneCell("e"),
    h("div", { class: "mb-corner" }), zoneCell("s"), h("div", { class: "mb-corner" }));
  return h("article", { class: `mb-fleet ${mine ? "mine" : ""} ${alive ? "" : "dead"}`,
    "data-seat": String(s), "aria-label": t("{name}'s fleet", { name: who(s) }) }, head, grid);
}
