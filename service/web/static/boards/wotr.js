// The War of the Ring board ("the war of nations": no Fellowship or Hunt in this game, wotr.md's
// decisions block): the map as an SVG drawn from data/wotr.json (regions, adjacency and a
// schematic layout; the map has no printed coordinates), each region's armies per side
// (Regulars/Elites/Leaders), besieged armies inside their Stronghold, who controls each
// Settlement, the battle in progress, the action dice, the hand, VP and the political track.
// Drawn only from `view`; clicking a die, a card, a region or a Nation chooses among the legal
// commands (pick.js).

import { Picker, countdown, h, useStyles } from "./pick.js";
import { panZoom } from "./panzoom.js";

const DATA = await (await fetch(new URL("./data/wotr.json", import.meta.url))).json();

const SIDE_NAME = { fp: "Free Peoples", sh: "Shadow" };
const FACE = { character: "Character", army: "Army", muster: "Muster", event: "Event",
  muster_army: "Muster/Army", will: "Will of the West", eye: "Eye" };
const SETTLEMENT = { stronghold: "■", city: "●", town: "▲", fortification: "◆" };
const CELL_X = 60;
const CELL_Y = 66;
const NODE_W = 56;
const NODE_H = 58;

const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const nationName = (n) => cap(n);
export function cardTitle(id) {
  const c = DATA.cards[id];
  return c ? `${c.combat} (${c.event})` : id;
}
const figures = (f) => `${f[0]}/${f[1]}/${f[2]}`;
// An army drawn as figures on the map: ♟ regulars, ♜ elites, ♚ leaders, counted (issue 27).
const FIGURE = ["♟", "♜", "♚"];
const FIGURE_NAME = ["regular", "elite", "leader"];
const figureText = (f) => f.map((n, i) => (n ? `${n}${FIGURE[i]}` : "")).filter(Boolean).join(" ");
const figureWords = (f) => f.map((n, i) => (n ? `${n} ${FIGURE_NAME[i]}${n === 1 ? "" : "s"}` : ""))
  .filter(Boolean).join(", ");
const cards = (n) => `${n} card${n === 1 ? "" : "s"}`;
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
  return `${r.kind} of ${nationName(r.nation)} in ${r.region}`;
}

const KINDS = ["regular", "elite", "leader"];
// A count of figures per kind ({regular, elite, leader}) in words: "3 regulars, 1 leader".
export function countText(f) {
  const parts = KINDS.filter((k) => f?.[k]).map((k) => `${f[k]} ${k}${f[k] === 1 ? "" : "s"}`);
  return parts.join(", ") || "none";
}
// The commands that name which figures go (wotr.md §3-§5): shown as the figure chooser.
const FIGURE_CHOICES = ["choose_figures", "advance", "besiege"];
const isFigureChoice = (c) => FIGURE_CHOICES.includes(c.type) && c.figures;

export function label(c, view) {
  const die = c.die ? `${FACE[c.die] || c.die} die: ` : "";
  const leave = c.figures ? ` with ${countText(c.figures)}` : "";
  const none = c.figures && !KINDS.some((k) => c.figures[k]);
  switch (c.type) {
    case "move": return `${die}move ${c.from} → ${c.to}${leave}`;
    case "second_move": return `Second army: move ${c.from} → ${c.to}${leave}`;
    case "attack":
      return c.from === c.to ? `${die}attack in ${c.to}${leave}` :
        `${die}attack ${c.to} from ${c.from}${leave}`;
    case "muster": return `${die}recruit ${(c.recruits || []).map(recruitText).join(" and ")}`;
    case "diplomacy": return `${die}advance ${nationName(c.nation)} on the political track`;
    case "skip_die": return `${die}skip it`;
    case "draw_card": return `${die}draw a card`;
    case "pass": return "Pass";
    case "end_action": return "End the action";
    case "combat_card":
      return c.card ? `Combat card: ${cardTitle(c.card)}${c.x ? `, X = ${c.x}` : ""}` :
        "No combat card";
    case "take_hit": return `Casualty: a ${c.kind} of ${nationName(c.nation)}`;
    case "continue_battle": return c.yes ? "Continue the battle" : "Cease the battle";
    case "advance": return none ? "Do not advance" : `Advance${leave}`;
    case "choose_figures": {
      const order = view?.order;
      const verb = order?.order === "attack" ? "Attack" : "Move";
      return order ? `${verb} ${order.from} → ${order.to}${leave}` : `Send ${countText(c.figures)}`;
    }
    case "withdraw": return c.yes ? "Retreat into the Stronghold (siege)" : "Fight a field battle";
    case "besiege": return none ? "Do not lay siege" : `Advance and lay siege${leave}`;
    case "retreat":
      if (!c.to) return "Stand and fight";
      if (c.to === "siege") return "Retreat into the Stronghold";
      return `Retreat to ${c.to}`;
    case "extend_siege":
      return c.nation ? `Reduce an Elite of ${nationName(c.nation)} to fight another round` :
        "No extra siege round";
    case "discard": return `Discard ${cardTitle(c.card)}`;
    default: return c.type.replaceAll("_", " ");
  }
}

// The shell's moves panel offers these step by step (choices.js) rather than one button per
// move (issue 27 item 4): from where, to where, with which die; a muster die's recruits.
export const narrowed = ["move", "second_move", "attack", "muster"];

export function choiceLabel(path, value) {
  switch (path) {
    case "die": return `${FACE[value] || value} die`;
    case "from": return `From ${value}`;
    case "to": return `To ${value}`;
    case "recruits": return `Recruit ${(value || []).map(recruitText).join(" and ")}`;
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
  const heading = type === "choose_figures" ?
    `Which figures ${order?.order === "attack" ? "attack" : "move"} from ${order?.from} to ${order?.to}?` :
    `Which attackers advance into ${view.battle?.region}${type === "besiege" ? " and lay siege" : ""}?`;
  const section = h("section", { class: "wotr-figures", "aria-label": "which figures go",
    "data-type": type });
  const draw = () => {
    const match = choices.find((c) => KINDS.every((k) => c.figures[k] === want[k]));
    const stepper = (kind) => h("div", { class: "wotr-stepper", "data-kind": kind },
      h("span", { class: "wotr-kind" }, `${cap(kind)}s`),
      h("button", { type: "button", class: "wotr-less", "aria-label": `one ${kind} fewer`,
        disabled: want[kind] <= 0, onclick: () => { want[kind] -= 1; draw(); } }, "−"),
      h("output", { "data-count": want[kind] }, String(want[kind])),
      h("button", { type: "button", class: "wotr-more", "aria-label": `one ${kind} more`,
        disabled: want[kind] >= top[kind], onclick: () => { want[kind] += 1; draw(); } }, "+"),
      h("span", { class: "wotr-of" }, `of ${top[kind]}`));
    const none = choices.find((c) => KINDS.every((k) => !c.figures[k]));
    section.replaceChildren(h("h3", {}, heading),
      ...KINDS.filter((k) => top[k] > 0).map(stepper),
      h("div", { class: "wotr-figure-buttons" },
        h("button", { type: "button", class: `wotr-go${match ? " pickable" : ""}`,
          disabled: !match, onclick: () => match && picker.send(match) },
        match ? label(match, view) : `Not allowed: ${countText(want)}`),
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
  const bits = [r];
  if (info.settlement) {
    bits.push(`${info.nation ? nationName(info.nation) + " " : ""}${info.settlement}` +
      (info.vp ? ` (${info.vp} VP)` : ""));
  }
  const ctrl = view.control?.[r];
  if (ctrl) bits.push(`controlled by the ${SIDE_NAME[ctrl]}`);
  const army = view.armies?.[r];
  if (army) {
    bits.push("army: " + Object.entries(army).map(([n, f]) =>
      `${nationName(n)} ${f[0]} regular, ${f[1]} elite, ${f[2]} leader`).join("; "));
  }
  const box = view.boxes?.[r];
  if (box) {
    bits.push("besieged: " + Object.entries(box).map(([n, f]) =>
      `${nationName(n)} ${figureWords(f)}`).join("; "));
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
    role: "group", "aria-label": `Map: ${names.length} regions`,
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
    const lines = wrap(r);
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
        h("title", {}, `${SIDE_NAME[side]}, besieged in the Stronghold: ${figureWords(box[side])}`),
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
    `${nationName(n)} ${figureWords(f)}`).join(", ") || "none";
  const card = (s) => {
    if (b.revealed && b.revealed[s] !== undefined && b.revealed[s] !== null) {
      return b.revealed[s] ? cardTitle(b.revealed[s]) : "no card";
    }
    if (b.cards?.[s]) return `${cardTitle(b.cards[s])} (secret)`;
    // wotr.md §5.1: a card played lies face down, so whether one was played shows
    if (b.chosen && b.chosen[s]) return b.played?.[s] === false ? "no card" : "a card face down";
    if (b.chosen) return s === b.attacker ? "declares first" : "declares after the attacker";
    return b.cards?.[s] === "" ? "no card" : "—";
  };
  const rolls = (b.rolls || []).map((r) => h("li", {},
    `${SIDE_NAME[r.side]} ${r.why}: ${r.dice.join(" ")} → ${r.hits} hit${r.hits === 1 ? "" : "s"}` +
    ` (on ${r.target}+)`));
  return h("section", { class: "wotr-battle", "aria-label": "battle", "data-region": b.region },
    h("h3", {}, `Battle in ${b.region}: ${SIDE_NAME[b.attacker]} attack (${b.kind}, round ` +
      `${b.round}, ${b.stage})`),
    h("p", {}, `Attackers (from ${b.origin}): ${armyLine(b.att)}`),
    h("p", {}, `Defenders: ${armyLine(defender)}`),
    h("p", {}, `Combat cards: ${SIDE_NAME.fp} ${card("fp")}; ${SIDE_NAME.sh} ${card("sh")}`),
    b.hits ? h("p", {}, `Hits to take: ${SIDE_NAME.fp} ${b.hits.fp || 0}, ` +
      `${SIDE_NAME.sh} ${b.hits.sh || 0}`) : null,
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
          `${nationName(nation)} ${kind} (${f[i]})`), `hit:${nation}:${kind}`));
      }
    });
  }
  return buttons.length ? h("div", { class: "wotr-hits" }, buttons) : null;
}

export function render(root, ctx) {
  useStyles("wotr");
  const { view, game } = ctx;
  const names = ctx.names || {};
  const who = (s) => names[s] || names[String(s)] || `Seat ${s}`;
  root.classList.add("wotr-board", "pick-board");
  if (!view || !view.armies) {
    root.append(h("p", {}, "The armies are not set up yet."));
    return;
  }
  const picker = new Picker(ctx, { tokensOf, label: (c) => label(c, view),
    required: (c, tokens) => [...tokens].filter((t) => !t.startsWith("x:")) });

  const vp = view.vp || {};
  const win = view.vp_to_win || {};
  const status = h("section", { class: "wotr-status", "aria-label": "the war" },
    h("p", { class: "wotr-round" }, view.over ?
      (view.outcome || `Game over: the ${SIDE_NAME[view.winner] || "—"} win`) :
      `Round ${view.round} of ${view.max_rounds} · ${SIDE_NAME[view.turn]} to act`),
    h("p", { class: "wotr-vp" },
      h("span", { class: "side-fp", "data-vp": vp.fp }, `${SIDE_NAME.fp} ${vp.fp}/${win.fp} VP`),
      " · ",
      h("span", { class: "side-sh", "data-vp": vp.sh }, `${SIDE_NAME.sh} ${vp.sh}/${win.sh} VP`)));
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
      dice.length ? dice : "no dice left",
      ` · in hand: ${holders} · ${view.deck_counts?.[side] ?? 0} in the deck`));
  }
  if (view.action) {
    status.append(h("p", { class: "wotr-action" },
      `Army action: moved ${view.action.from.join(", ")} → ${view.action.to.join(", ")}`));
  }
  root.append(status);

  // Who must answer now (the shell counts the clocks down; shown here with the battle's stage).
  const waits = Object.entries(view.pending || {});
  if (waits.length) {
    root.append(h("section", { class: "wotr-pending", "aria-label": "waiting for" },
      waits.map(([s, p]) => h("p", { class: `wotr-wait ${p.clock}`, "data-seat": s },
        `${who(s)}: ${p.label}`, countdown(game?.pending?.[s]?.deadline)))));
  }
  const battle = battleNode(view, picker, who);
  if (battle) root.append(battle);
  const chooser = figuresNode(view, picker, ctx.legal || []);
  if (chooser) root.append(chooser);

  // Choices with nothing on the board to click (pass, stand, cease...), then the hand.
  const plain = (ctx.legal || []).filter((c) => tokensOf(c).some((t) => t.startsWith("cmd:")));
  if (plain.length) {
    root.append(h("div", { class: "wotr-choices" }, plain.map((c) => picker.bind(
      h("button", { type: "button", class: "wotr-choice" }, label(c, view)), cmdToken(c)))));
  }
  if (view.hand) {
    root.append(h("section", { class: "wotr-hand", "aria-label": "your hand" },
      h("h3", {}, `Your hand (${view.hand.length})`),
      h("div", { class: "wotr-cards" }, sortedHand(view.hand).map((card) => {
        const c = DATA.cards[card] || {};
        return picker.bind(h("button", { type: "button", class: "wotr-card", "data-card": card },
          h("b", {}, c.combat || card), ` ${c.initiative ?? ""}`, h("br"),
          h("small", {}, c.event || "")), `card:${card}`);
      }))));
  }
  root.append(picker.panel);
  const battleAt = view.battle?.region && places(view.scenario || "south")[view.battle.region];
  root.append(panZoom(mapNode(view, picker), { key: `wotr:${game?.id}:${view.scenario}`,
    className: "wotr-map-wrap", label: "The map", focus: battleAt || null,
    legend: "Figures: ♟ regular ♜ elite ♚ leader · ⌂ besieged · blue Free Peoples, red Shadow" }));
  root.append(h("p", { class: "wotr-legend" },
    "Armies: ♟ regulars, ♜ elites, ♚ leaders (the number before each); ⌂ besieged in the Stronghold; ",
    "■ stronghold ● city ▲ town ◆ fortification (VP); blue, Free Peoples; red, Shadow; ",
    "a dot in a region's corner: who controls it."));
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
    rows.push(h("li", { "data-region": r }, h("b", {}, r), `: ${army || "—"}`,
      box ? ` (besieged: ${box})` : ""));
  }
  return h("details", { class: "wotr-armies" },
    h("summary", {}, `Armies (${regions.length} regions)`), h("ul", {}, rows));
}

function politicsNode(view, picker) {
  const rows = Object.entries(view.politics || {}).map(([nation, p]) => {
    const node = h("button", { type: "button", class: `wotr-nation side-${sideOf(nation)}`,
      "data-nation": nation },
    `${nationName(nation)}: ${p.step ? `${p.step} to war` : "at war"}${p.active ? "" : ", passive"}`);
    return picker.bind(node, `nation:${nation}`);
  });
  return h("section", { class: "wotr-politics", "aria-label": "political track" },
    h("h3", {}, "Political track"), h("div", { class: "wotr-nations" }, rows));
}

function reinforcementsNode(view, picker) {
  const rows = Object.entries(view.reinforcements || {}).map(([nation, f]) =>
    h("li", {}, `${nationName(nation)}: `, ["regular", "elite", "leader"].map((kind, i) =>
      picker.bind(h("button", { type: "button", class: "wotr-recruit" }, `${f[i]} ${kind}`),
        `recruit:${nation}:${kind}`))));
  return h("details", { class: "wotr-reinforcements" },
    h("summary", {}, "Reinforcements"), h("ul", {}, rows));
}
