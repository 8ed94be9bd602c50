// The War of the Ring board ("the war of nations": no Fellowship or Hunt in this game, wotr.md's
// decisions block): the map as an SVG drawn from data/wotr.json (regions, adjacency and a
// schematic layout; the map has no printed coordinates), each region's armies per side
// (Regulars/Elites/Leaders), besieged armies inside their Stronghold, who controls each
// Settlement, the battle in progress, the action dice, the hand, VP and the political track.
// Drawn only from `view`; clicking a die, a card, a region or a Nation chooses among the legal
// commands (pick.js).

import { Picker, countdown, h, useStyles } from "./pick.js";
import { panZoom } from "./panzoom.js";
import { locale, t, tn, term } from "../i18n.js";
import { promptWords, wireWords } from "../log.js";

const DATA = await (await fetch(new URL("./data/wotr.json", import.meta.url))).json();

const SIDES = { fp: "Free Peoples", sh: "Shadow" }; // i18n-ignore: term()'s English fallback
const SIDE_NAME = new Proxy(SIDES, { get: (o, side) => term(`wotr.side.${String(side)}`, o[side]) });
const FACES = () => ({ character: t("Character"), army: t("Army"), muster: t("Muster"), event: t("Event"),
  muster_army: t("Muster/Army"), will: t("Will of the West"), eye: t("Eye") });
const FACE = new Proxy({}, { get: (o, face) => FACES()[face] });
// The battle's words (wotr.md §5): its kind and its stage.
const BATTLE_WORDS = () => ({ field: t("field battle"), siege: t("siege"), sortie: t("sortie"),
  combat_cards: t("combat cards"), combat_roll: t("combat roll"), leader_reroll: t("leader re-roll"),
  casualties: t("casualties"), cease_or_retreat: t("cease or retreat"), advance: t("advance"),
  withdraw: t("withdraw"), combat: t("combat roll"), reroll: t("leader re-roll") });
const battleWords = (w) => BATTLE_WORDS()[w] || wireWords(String(w ?? ""));
const SETTLEMENT_NAME = () => ({ stronghold: t("stronghold"), city: t("city"), town: t("town"),
  fortification: t("fortification") });
const regionName = (r) => term(`wotr.region.${r}`, String(r));
const kindWord = (kind, n = 1) => ({ regular: tn("regular", "regulars", n), elite: tn("elite", "elites", n),
  leader: tn("leader", "leaders", n) })[kind] || kind;
const SETTLEMENT = { stronghold: "■", city: "●", town: "▲", fortification: "◆" };
const CELL_X = 60;
const CELL_Y = 66;
const NODE_W = 56;
const NODE_H = 58;

const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const nationName = (n) => term(`wotr.nation.${n}`, cap(n));
export function cardTitle(id) {
  const c = DATA.cards[id];
  return c ? `${term(`wotr.combat.${id}`, c.combat)} (${term(`wotr.event.${id}`, c.event)})` : id;
}
const figures = (f) => `${f[0]}/${f[1]}/${f[2]}`;
// An army drawn as figures on the map: ♟ regulars, ♜ elites, ♚ leaders, counted (issue 27).
const FIGURE = ["♟", "♜", "♚"];
const FIGURE_NAME = ["regular", "elite", "leader"];
const figureText = (f) => f.map((n, i) => (n ? `${n}${FIGURE[i]}` : "")).filter(Boolean).join(" ");
const figureWords = (f) => f.map((n, i) => (n ? `${n} ${kindWord(FIGURE_NAME[i], n)}` : ""))
  .filter(Boolean).join(", ");
const cards = (n) => tn("{n} card", "{n} cards", n);
const sideOf = (nation) => DATA.nations[nation];

// Sum an army {nation: [r, e, l]} per side: {fp: [r, e, l], sh: [...]}.
function bySide(army) {
  const out = {};
  for (const [nation, f] of Object.entries(army || {})) {
    const side = sideOf(nation);
    out[side] = (out[side] || [0, 0, 0]).map((v, i) => v + f[i]);
  }
  return out;
}

function recruitText(r) {
  return t("{kind} of {nation} in {region}", { kind: kindWord(r.kind), nation: nationName(r.nation), region: regionName(r.region) });
}

const KINDS = ["regular", "elite", "leader"];
// A count of figures per kind ({regular, elite, leader}) in words: "3 regulars, 1 leader".
export function countText(f) {
  const parts = KINDS.filter((k) => f?.[k]).map((k) => `${f[k]} ${kindWord(k, f[k])}`);
  return parts.join(", ") || t("none");
}
// The commands that name which figures go (wotr.md §3-§5): shown as the figure chooser.
const FIGURE_CHOICES = ["choose_figures", "advance", "besiege"];
const isFigureChoice = (c) => FIGURE_CHOICES.includes(c.type) && c.figures;

export function label(c, view) {
  const die = c.die ? `${t("{face} die:", { face: FACE[c.die] || c.die })} ` : "";
  const leave = c.figures ? ` ${t("with {figures}", { figures: countText(c.figures) })}` : "";
  const none = c.figures && !KINDS.some((k) => c.figures[k]);
  const from = regionName(c.from);
  const to = regionName(c.to);
  switch (c.type) {
    case "move": return `${die}${t("move {from} → {to}", { from, to })}${leave}`;
    case "second_move": return `${t("Second army: move {from} → {to}", { from, to })}${leave}`;
    case "attack":
      return c.from === c.to ? `${die}${t("attack in {to}", { to })}${leave}` :
        `${die}${t("attack {to} from {from}", { from, to })}${leave}`;
    case "muster": return `${die}${t("recruit {recruits}", { recruits: (c.recruits || []).map(recruitText).join(", ") })}`;
    case "diplomacy": return `${die}${t("advance {nation} on the political track", { nation: nationName(c.nation) })}`;
    case "skip_die": return `${die}${t("skip it")}`;
    case "draw_card": return `${die}${t("draw a card")}`;
    case "pass": return t("Pass");
    case "end_action": return t("End the action");
    case "combat_card":
      return c.card ? t("Combat card: {card}", { card: cardTitle(c.card) }) + (c.x ? `, X = ${c.x}` : "") :
        t("No combat card");
    case "take_hit": return t("Casualty: a {kind} of {nation}", { kind: kindWord(c.kind), nation: nationName(c.nation) });
    case "continue_battle": return c.yes ? t("Continue the battle") : t("Cease the battle");
    case "advance": return none ? t("Do not advance") : `${t("Advance")}${leave}`;
    case "choose_figures": {
      const order = view?.order;
      if (!order) return t("Send {figures}", { figures: countText(c.figures) });
      const where = { from: regionName(order.from), to: regionName(order.to) };
      return `${order.order === "attack" ? t("Attack {from} → {to}", where) : t("Move {from} → {to}", where)}${leave}`;
    }
    case "withdraw": return c.yes ? t("Retreat into the Stronghold (siege)") : t("Fight a field battle");
    case "besiege": return none ? t("Do not lay siege") : `${t("Advance and lay siege")}${leave}`;
    case "retreat":
      if (!c.to) return t("Stand and fight");
      if (c.to === "siege") return t("Retreat into the Stronghold");
      return t("Retreat to {to}", { to });
    case "extend_siege":
      return c.nation ? t("Reduce an Elite of {nation} to fight another round", { nation: nationName(c.nation) }) :
        t("No extra siege round");
    case "discard": return t("Discard {card}", { card: cardTitle(c.card) });
    default: return c.type.replaceAll("_", " ");
  }
}

// The shell's moves panel offers these step by step (choices.js) rather than one button per
// move (issue 27 item 4): from where, to where, with which die; a muster die's recruits.
export const narrowed = ["move", "second_move", "attack", "muster"];

// The title of a chooser of one kind of move.
export function typeLabel(type) {
  return { move: t("Move"), second_move: t("Second move"), attack: t("Attack"),
    muster: t("Muster") }[type] || null;
}

export function choiceLabel(path, value) {
  switch (path) {
    case "die": return t("{face} die", { face: FACE[value] || value });
    case "from": return t("From {region}", { region: regionName(value) });
    case "to": return t("To {region}", { region: regionName(value) });
    case "recruits": return t("Recruit {what}", { what: (value || []).map(recruitText).join(t(" and ")) });
    default: return null;
  }
}

// What a command names on the board; the choices with nothing to click become `cmd:` buttons.
function tokensOf(c) {
  if (isFigureChoice(c)) return [`figures:${JSON.stringify(c)}`];  // the figure chooser's
  const out = [];
  if (c.die) out.push(`die:${c.die}`);
  if (c.from) out.push(`region:${c.from}`);
  if (c.to && c.to !== "siege") out.push(`region:${c.to}`);
  for (const r of c.recruits || []) out.push(`region:${r.region}`, `recruit:${r.nation}:${r.kind}`);
  if (c.nation && c.type !== "take_hit") out.push(`nation:${c.nation}`);
  if (c.type === "take_hit") out.push(`hit:${c.nation}:${c.kind}`);
  if (c.card) out.push(`card:${c.card}`);
  if (!out.length || c.type === "retreat" && (!c.to || c.to === "siege")) out.push(cmdToken(c));
  if (c.type === "combat_card" && c.card && c.x) out.push(`x:${c.x}`);
  return out;
}
// A hand as a player holds it: by combat card name, then by event.
function sortedHand(hand) {
  const card = (id) => DATA.cards[id] || {};
  return [...hand].sort((a, b) => (card(a).combat || a).localeCompare(card(b).combat || b)
    || (card(a).event || "").localeCompare(card(b).event || "") || a.localeCompare(b));
}
const cmdToken = (c) => `cmd:${JSON.stringify({ ...c, expected_version: undefined })}`;

// Which figures go: a stepper per kind (the most that may go first), then one button sending
// the legal command with those counts; a few taps on a phone (issue 24). Only what `legal` lists
// can be sent: a count no command has leaves the button disabled.
function figuresNode(view, picker, legal) {
  const choices = legal.filter(isFigureChoice);
  if (!choices.length) return null;
  const type = choices[0].type;
  const top = Object.fromEntries(KINDS.map((k) => [k, Math.max(...choices.map((c) => c.figures[k]))]));
  const want = { ...choices[0].figures };
  const order = view.order;
  const where = { from: regionName(order?.from), to: regionName(order?.to), region: regionName(view.battle?.region) };
  const heading = type === "choose_figures"
    ? (order?.order === "attack" ? t("Which figures attack from {from} to {to}?", where)
      : t("Which figures move from {from} to {to}?", where))
    : (type === "besiege" ? t("Which attackers advance into {region} and lay siege?", where)
      : t("Which attackers advance into {region}?", where));
  const section = h("section", { class: "wotr-figures", "aria-label": t("which figures go"),
    "data-type": type });
  const draw = () => {
    const match = choices.find((c) => KINDS.every((k) => c.figures[k] === want[k]));
    const stepper = (kind) => h("div", { class: "wotr-stepper", "data-kind": kind },
      h("span", { class: "wotr-kind" }, cap(kindWord(kind, 2))),
      h("button", { type: "button", class: "wotr-less", "aria-label": t("one {kind} fewer", { kind: kindWord(kind) }),
        disabled: want[kind] <= 0, onclick: () => { want[kind] -= 1; draw(); } }, "−"),
      h("output", { "data-count": want[kind] }, String(want[kind])),
      h("button", { type: "button", class: "wotr-more", "aria-label": t("one {kind} more", { kind: kindWord(kind) }),
        disabled: want[kind] >= top[kind], onclick: () => { want[kind] += 1; draw(); } }, "+"),
      h("span", { class: "wotr-of" }, t("of {n}", { n: top[kind] })));
    const none = choices.find((c) => KINDS.every((k) => !c.figures[k]));
    section.replaceChildren(h("h3", {}, heading),
      ...KINDS.filter((k) => top[k] > 0).map(stepper),
      h("div", { class: "wotr-figure-buttons" },
        h("button", { type: "button", class: `wotr-go${match ? " pickable" : ""}`,
          disabled: !match, onclick: () => match && picker.send(match) },
        match ? label(match, view) : t("Not allowed: {figures}", { figures: countText(want) })),
        none && type !== "choose_figures" ? h("button", { type: "button",
          class: "wotr-stay", onclick: () => picker.send(none) }, label(none, view)) : null));
  };
  draw();
  return section;
}

// The region nodes' places in SVG units (the scenario's layout, in grid cells).
function places(scenario) {
  const grid = DATA.layout[scenario] || DATA.layout.full;
  const out = {};
  for (const [r, [x, y]] of Object.entries(grid)) {
    out[r] = [x * CELL_X + NODE_W / 2 + 4, y * CELL_Y + NODE_H / 2 + 4];
  }
  return out;
}

// An edge between two regions: straight, or bent around any region it would cross.
function edgePath(a, b, at, names) {
  const [x1, y1] = at[a];
  const [x2, y2] = at[b];
  const dx = x2 - x1;
  const dy = y2 - y1;
  const len = Math.hypot(dx, dy) || 1;
  let hit = 0;
  for (const n of names) {
    if (n === a || n === b) continue;
    const [px, py] = at[n];
    const t = ((px - x1) * dx + (py - y1) * dy) / (len * len);
    if (t <= 0 || t >= 1) continue;
    const dist = Math.abs((px - x1) * dy - (py - y1) * dx) / len;
    if (dist < NODE_W * 0.55) hit = Math.max(hit, NODE_W * 0.55 - dist + 14);
  }
  if (!hit) return `M${x1},${y1} L${x2},${y2}`;
  const bend = hit + NODE_W * 0.3;
  const cx = (x1 + x2) / 2 - (dy / len) * bend;
  const cy = (y1 + y2) / 2 + (dx / len) * bend;
  return `M${x1},${y1} Q${cx},${cy} ${x2},${y2}`;
}

function wrap(name) {
  const words = name.split(" ");
  const lines = [];
  for (const w of words) {
    const last = lines[lines.length - 1];
    if (last && (last + " " + w).length <= 9) lines[lines.length - 1] = `${last} ${w}`;
    else lines.push(w);
  }
  return lines.slice(0, 3);
}

function regionSummary(view, r) {
  const info = DATA.regions[r];
  const bits = [regionName(r)];
  if (info.settlement) {
    bits.push(`${info.nation ? nationName(info.nation) + " " : ""}${SETTLEMENT_NAME()[info.settlement] || info.settlement}` +
      (info.vp ? ` (${t("{n} VP", { n: info.vp })})` : ""));
  }
  const ctrl = view.control?.[r];
  if (ctrl) bits.push(t("controlled by the {side}", { side: SIDE_NAME[ctrl] }));
  const army = view.armies?.[r];
  if (army) {
    bits.push(t("army: {figures}", { figures: Object.entries(army).map(([n, f]) =>
      `${nationName(n)} ${figureWords(f)}`).join("; ") }));
  }
  const box = view.boxes?.[r];
  if (box) {
    bits.push(t("besieged: {figures}", { figures: Object.entries(box).map(([n, f]) =>
      `${nationName(n)} ${figureWords(f)}`).join("; ") }));
  }
  return bits.join(", ");
}

function mapNode(view, picker) {
  const scenario = view.scenario || "south";
  const names = view.regions?.length ? view.regions : DATA.scenarios[scenario].regions;
  const at = places(scenario);
  const xs = names.map((r) => at[r][0]);
  const ys = names.map((r) => at[r][1]);
  const width = Math.max(...xs) + NODE_W / 2 + 4;
  const height = Math.max(...ys) + NODE_H / 2 + 4;
  const inPlay = new Set(names);
  const svg = h("svg", { class: "wotr-map", viewBox: `0 0 ${width} ${height}`,
    role: "group", "aria-label": tn("Map: {n} region", "Map: {n} regions", names.length),
    "data-scenario": scenario });
  if (names.length > 40) svg.classList.add("wotr-map-full");
  const edges = h("g", { class: "wotr-edges", "aria-hidden": "true" });
  for (const r of names) {
    for (const a of DATA.regions[r].adjacent) {
      if (inPlay.has(a) && a > r) edges.append(h("path", { d: edgePath(r, a, at, names) }));
    }
  }
  svg.append(edges);
  const battle = view.battle?.region;
  for (const r of names) {
    const info = DATA.regions[r];
    const [cx, cy] = at[r];
    const x = cx - NODE_W / 2;
    const y = cy - NODE_H / 2;
    const army = bySide(view.armies?.[r]);
    const box = bySide(view.boxes?.[r]);
    const ctrl = view.control?.[r];
    const classes = ["wotr-region", info.nation ? `nation-${sideOf(info.nation)}` : "neutral",
      ctrl ? `control-${ctrl}` : "", r === battle ? "battle" : ""].filter(Boolean).join(" ");
    // Named by its <title> (the summary in words), not an aria-label: a label must hold the
    // visible text (axe: label-content-name-mismatch), and the figures' counts are drawn too.
    const g = h("g", { class: classes, "data-region": r },
      h("title", {}, regionSummary(view, r)),
      h("rect", { x, y, width: NODE_W, height: NODE_H, rx: 6 }));
    // Top row: who controls it (a dot) and its settlement (with VP); then the name.
    if (ctrl) {
      g.append(h("circle", { cx: x + 7, cy: y + 7, r: 4.5, class: `wotr-control side-${ctrl}`,
        "data-control": ctrl }));
    }
    if (info.settlement) {
      g.append(h("text", { x: x + NODE_W - 3, y: y + 10, class: "wotr-settlement", "aria-hidden": "true" },
        SETTLEMENT[info.settlement] + (info.vp ? info.vp : "")));
    }
    // Each line but the last ends in a space, so the name reads whole ("Dimrill Dale").
    const lines = wrap(regionName(r));
    lines.forEach((line, i) => g.append(h("text", { x: cx, y: y + 21 + i * 10,
      class: "wotr-name" }, i < lines.length - 1 ? `${line} ` : line)));
    let row = 0;
    for (const side of ["fp", "sh"]) {
      if (army[side]) {
        g.append(h("g", { class: `wotr-army side-${side}`, "data-side": side, "aria-hidden": "true",
          "data-figures": figures(army[side]) },
        h("title", {}, `${SIDE_NAME[side]}: ${figureWords(army[side])}`),
        h("rect", { x: x + 2, y: y + NODE_H - 15 - row * 14, width: NODE_W - 4, height: 13, rx: 3 }),
        h("text", { x: cx, y: y + NODE_H - 5 - row * 14 }, figureText(army[side]))));
        row += 1;
      }
      if (box[side]) {
        g.append(h("g", { class: `wotr-army besieged side-${side}`, "data-side": side,
          "aria-hidden": "true",
          "data-figures": figures(box[side]) },
        h("title", {}, t("{side}, besieged in the Stronghold: {figures}", { side: SIDE_NAME[side], figures: figureWords(box[side]) })),
        h("rect", { x: x + 2, y: y + NODE_H - 15 - row * 14, width: NODE_W - 4, height: 13, rx: 3 }),
        h("text", { x: cx, y: y + NODE_H - 5 - row * 14 }, `⌂ ${figureText(box[side])}`)));
        row += 1;
      }
    }
    picker.bind(g, `region:${r}`);
    svg.append(g);
  }
  return svg;
}

function battleNode(view, picker, who) {
  const b = view.battle;
  if (!b) return null;
  const defender = b.def_loc?.startsWith("box:") ? view.boxes?.[b.region] : view.armies?.[b.region];
  const armyLine = (army) => Object.entries(army || {}).map(([n, f]) =>
    `${nationName(n)} ${figureWords(f)}`).join(", ") || t("none");
  const card = (s) => {
    if (b.revealed && b.revealed[s] !== undefined && b.revealed[s] !== null) {
      return b.revealed[s] ? cardTitle(b.revealed[s]) : t("no card");
    }
    if (b.cards?.[s]) return t("{card} (secret)", { card: cardTitle(b.cards[s]) });
    // wotr.md §5.1: a card played lies face down, so whether one was played shows
    if (b.chosen && b.chosen[s]) return b.played?.[s] === false ? t("no card") : t("a card face down");
    if (b.chosen) return s === b.attacker ? t("declares first") : t("declares after the attacker");
    return b.cards?.[s] === "" ? t("no card") : "—";
  };
  const rolls = (b.rolls || []).map((r) => h("li", {},
    `${SIDE_NAME[r.side]} ${battleWords(r.why)}: ${r.dice.join(" ")} → ${tn("{n} hit", "{n} hits", r.hits)}` +
    ` ${t("(on {n}+)", { n: r.target })}`));
  return h("section", { class: "wotr-battle", "aria-label": t("battle"), "data-region": b.region },
    h("h3", {}, t("Battle in {region}: {side} attack ({kind}, round {round}, {stage})", {
      region: regionName(b.region), side: SIDE_NAME[b.attacker], kind: battleWords(b.kind),
      round: b.round, stage: battleWords(b.stage) })),
    h("p", {}, t("Attackers (from {origin}): {army}", { origin: regionName(b.origin), army: armyLine(b.att) })),
    h("p", {}, t("Defenders: {army}", { army: armyLine(defender) })),
    h("p", {}, t("Combat cards: {fp} {fp_card}; {sh} {sh_card}", { fp: SIDE_NAME.fp, fp_card: card("fp"), sh: SIDE_NAME.sh, sh_card: card("sh") })),
    b.hits ? h("p", {}, t("Hits to take: {fp} {fp_hits}, {sh} {sh_hits}", {
      fp: SIDE_NAME.fp, fp_hits: b.hits.fp || 0, sh: SIDE_NAME.sh, sh_hits: b.hits.sh || 0 })) : null,
    rolls.length ? h("ul", { class: "wotr-rolls" }, rolls) : null,
    hitButtons(view, picker, b));
}

function hitButtons(view, picker, b) {
  if (b.stage !== "casualties" || !b.hits?.[view.side]) return null;
  const army = view.side === b.attacker ? b.att :
    (b.def_loc?.startsWith("box:") ? view.boxes?.[b.region] : view.armies?.[b.region]);
  const buttons = [];
  for (const [nation, f] of Object.entries(army || {})) {
    ["regular", "elite", "leader"].forEach((kind, i) => {
      if (f[i]) {
        buttons.push(picker.bind(h("button", { type: "button", class: "wotr-hit" },
          `${nationName(nation)} ${kindWord(kind)} (${f[i]})`), `hit:${nation}:${kind}`));
      }
    });
  }
  return buttons.length ? h("div", { class: "wotr-hits" }, buttons) : null;
}

export function render(root, ctx) {
  useStyles("wotr");
  const { view, game } = ctx;
  const names = ctx.names || {};
  const who = (s) => names[s] || names[String(s)] || t("Seat {n}", { n: Number(s) + 1 });
  root.classList.add("wotr-board", "pick-board");
  if (!view || !view.armies) {
    root.append(h("p", {}, t("The armies are not set up yet.")));
    return;
  }
  const picker = new Picker(ctx, { tokensOf, label: (c) => label(c, view),
    required: (c, tokens) => [...tokens].filter((token) => !token.startsWith("x:")) });

  const vp = view.vp || {};
  const win = view.vp_to_win || {};
  const status = h("section", { class: "wotr-status", "aria-label": t("the war") },
    h("p", { class: "wotr-round" }, view.over ?
      ((locale() === "en" && view.outcome) || t("Game over: the {side} win", { side: view.winner ? SIDE_NAME[view.winner] : "—" })) :
      t("Round {round} of {rounds} · {side} to act", { round: view.round, rounds: view.max_rounds, side: SIDE_NAME[view.turn] })),
    h("p", { class: "wotr-vp" },
      h("span", { class: "side-fp", "data-vp": vp.fp }, `${SIDE_NAME.fp} ${vp.fp}/${win.fp} ${t("VP")}`),
      " · ",
      h("span", { class: "side-sh", "data-vp": vp.sh }, `${SIDE_NAME.sh} ${vp.sh}/${win.sh} ${t("VP")}`)));
  for (const side of ["fp", "sh"]) {
    const mine = side === view.side;
    const dice = (view.dice?.[side] || []).map((face) => {
      const node = h(mine ? "button" : "span", { class: `wotr-die side-${side}`,
        "data-face": face, type: mine ? "button" : null }, FACE[face] || face);
      return mine ? picker.bind(node, `die:${face}`) : node;
    });
    // wotr.md §16: with two seats a side each seat has its own Nations and hand
    const seating = (view.seating || [{ seat: side === "fp" ? 0 : 1, hand: side }])
      .filter((s) => !s.side || s.side === side);
    const holders = seating.map((s) => `${who(s.seat)}` +
      (s.name && seating.length > 1 ? ` (${s.name}: ${s.nations.map(nationName).join(", ")})` : "") +
      ` ${cards(view.hand_counts?.[s.hand] ?? 0)}`).join("; ");
    status.append(h("p", { class: `wotr-dice side-${side}` },
      h("b", {}, `${SIDE_NAME[side]}: `),
      dice.length ? dice : t("no dice left"),
      ` · ${t("in hand: {holders}", { holders })} · ${t("{n} in the deck", { n: view.deck_counts?.[side] ?? 0 })}`));
  }
  if (view.action) {
    status.append(h("p", { class: "wotr-action" },
      t("Army action: moved {from} → {to}", { from: view.action.from.map(regionName).join(", "), to: view.action.to.map(regionName).join(", ") })));
  }
  root.append(status);

  // Who must answer now (the shell counts the clocks down; shown here with the battle's stage).
  const waits = Object.entries(view.pending || {});
  if (waits.length) {
    root.append(h("section", { class: "wotr-pending", "aria-label": t("waiting for") },
      waits.map(([s, p]) => h("p", { class: `wotr-wait ${p.clock}`, "data-seat": s },
        `${who(s)}: ${promptWords(p.label, names)}`, countdown(game?.pending?.[s]?.deadline)))));
  }
  const battle = battleNode(view, picker, who);
  if (battle) root.append(battle);
  const chooser = figuresNode(view, picker, ctx.legal || []);
  if (chooser) root.append(chooser);

  // Choices with nothing on the board to click (pass, stand, cease...), then the hand.
  const plain = (ctx.legal || []).filter((c) => tokensOf(c).some((token) => token.startsWith("cmd:")));
  if (plain.length) {
    root.append(h("div", { class: "wotr-choices" }, plain.map((c) => picker.bind(
      h("button", { type: "button", class: "wotr-choice" }, label(c, view)), cmdToken(c)))));
  }
  if (view.hand) {
    root.append(h("section", { class: "wotr-hand", "aria-label": t("your hand") },
      h("h3", {}, t("Your hand ({n})", { n: view.hand.length })),
      h("div", { class: "wotr-cards" }, sortedHand(view.hand).map((card) => {
        const c = DATA.cards[card] || {};
        return picker.bind(h("button", { type: "button", class: "wotr-card", "data-card": card },
          h("b", {}, c.combat ? term(`wotr.combat.${card}`, c.combat) : card), ` ${c.initiative ?? ""}`, h("br"),
          h("small", {}, c.event ? term(`wotr.event.${card}`, c.event) : "")), `card:${card}`);
      }))));
  }
  root.append(picker.panel);
  const battleAt = view.battle?.region && places(view.scenario || "south")[view.battle.region];
  root.append(panZoom(mapNode(view, picker), { key: `wotr:${game?.id}:${view.scenario}`,
    className: "wotr-map-wrap", label: t("The map"), focus: battleAt || null,
    legend: t("Figures: ♟ regular ♜ elite ♚ leader · ⌂ besieged · blue Free Peoples, red Shadow") }));
  root.append(h("p", { class: "wotr-legend" },
    t("Armies: ♟ regulars, ♜ elites, ♚ leaders (the number before each); ⌂ besieged in the Stronghold; ■ stronghold ● city ▲ town ◆ fortification (VP); blue, Free Peoples; red, Shadow; a dot in a region's corner: who controls it.")));
  root.append(armiesList(view), politicsNode(view, picker), reinforcementsNode(view, picker));
  picker.refresh();
}

// The armies as text: the map's figures again, readable on any screen and by a screen reader.
function armiesList(view) {
  const rows = [];
  const regions = [...new Set([...Object.keys(view.armies || {}), ...Object.keys(view.boxes || {})])]
    .sort();
  for (const r of regions) {
    const army = Object.entries(view.armies?.[r] || {}).map(([n, f]) =>
      `${nationName(n)} ${figureWords(f)}`).join(", ");
    const box = Object.entries(view.boxes?.[r] || {}).map(([n, f]) =>
      `${nationName(n)} ${figureWords(f)}`).join(", ");
    rows.push(h("li", { "data-region": r }, h("b", {}, regionName(r)), `: ${army || "—"}`,
      box ? ` ${t("(besieged: {figures})", { figures: box })}` : ""));
  }
  return h("details", { class: "wotr-armies" },
    h("summary", {}, tn("Armies ({n} region)", "Armies ({n} regions)", regions.length)), h("ul", {}, rows));
}

function politicsNode(view, picker) {
  const rows = Object.entries(view.politics || {}).map(([nation, p]) => {
    const node = h("button", { type: "button", class: `wotr-nation side-${sideOf(nation)}`,
      "data-nation": nation },
    `${nationName(nation)}: ${p.step ? t("{n} to war", { n: p.step }) : t("at war")}${p.active ? "" : `, ${t("passive")}`}`);
    return picker.bind(node, `nation:${nation}`);
  });
  return h("section", { class: "wotr-politics", "aria-label": t("political track") },
    h("h3", {}, t("Political track")), h("div", { class: "wotr-nations" }, rows));
}

function reinforcementsNode(view, picker) {
  const rows = Object.entries(view.reinforcements || {}).map(([nation, f]) =>
    h("li", {}, `${nationName(nation)}: `, ["regular", "elite", "leader"].map((kind, i) =>
      picker.bind(h("button", { type: "button", class: "wotr-recruit" }, `${f[i]} ${kindWord(kind, f[i])}`),
        `recruit:${nation}:${kind}`))));
  // Open while a muster may take figures from it: a figure to tap hidden in a closed box is a
  // choice the player cannot see.
  const mustering = picker.entries.some((e) => [...e.tokens].some((tk) => tk.startsWith("recruit:")));
  return h("details", { class: "wotr-reinforcements", open: mustering },
    h("summary", {}, t("Reinforcements")), h("ul", {}, rows));
}
