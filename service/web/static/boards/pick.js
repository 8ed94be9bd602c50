// Clicking on a board to choose a legal command (shared by the Mag Blast and War of the Ring
// boards). Every legal command names things drawn on the board (a card, a ship, a region, a die):
// its "tokens". Clicking a thing narrows the legal commands to those naming everything clicked
// so far; when one is left and everything it names was clicked, it is sent; otherwise the ones
// left are offered as buttons. Things that no remaining command names are not clickable.
// Only `legal` (what the API lists for this viewer) is ever offered, so nothing is guessed.
import { t, tn } from "../i18n.js";

const SVG = "http://www.w3.org/2000/svg";

// An element builder for the boards' own nodes, HTML or SVG (the shell's ctx.el makes HTML only):
// attrs are attributes, except `style` (an object, set through the CSSOM: the page's policy has
// no 'unsafe-inline') and `on*` functions (listeners).
export function h(tag, attrs = {}, ...children) {
  const svg = ["svg", "g", "rect", "circle", "line", "path", "text", "tspan", "title", "polygon"]
    .includes(tag);
  const node = svg ? document.createElementNS(SVG, tag) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "style" && typeof value === "object") {
      Object.assign(node.style, value);
    } else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A stylesheet beside this module, linked once per page.
export function useStyles(name) {
  const id = `board-css-${name}`;
  if (document.getElementById(id)) return;
  const link = document.createElement("link");
  link.id = id;
  link.rel = "stylesheet";
  link.href = new URL(`./${name}.css`, import.meta.url).href;
  document.head.append(link);
}

// A prompt's clock counting down. Deadlines are Unix ms on the wire; the SSE `game` event sends
// seconds (as the shell notes), so a number below 1e11 is read as seconds.
export function countdown(deadline) {
  const node = h("span", { class: "clock" });
  if (!deadline) return node;
  const at = deadline < 1e11 ? deadline * 1000 : deadline;
  const tick = () => {
    const left = Math.max(0, Math.ceil((at - Date.now()) / 1000));
    node.textContent = ` ${t("{n} s left", { n: left })}`;
    node.dataset.seconds = String(left);
    if (!node.isConnected && node.dataset.started) clearInterval(timer);
    node.dataset.started = "1";
  };
  const timer = setInterval(tick, 500);
  tick();
  return node;
}

// Selections survive a re-render of the same version (the shell may redraw on a clock tick) but
// not a new version, whose legal commands differ.
const memory = new Map();

export class Picker {
  // tokensOf(command) -> array of strings; label(command) -> text; combine(selection, token) ->
  // the new selection; required(command, tokens) -> the tokens that must all be clicked before
  // the command is sent without asking (default: all of them).
  constructor(ctx, { tokensOf, label, combine, required }) {
    useStyles("pick");
    this.ctx = ctx;
    this.label = label;
    this.combine = combine || ((sel, t) => [...sel, t]);
    this.required = required || ((cmd, tokens) => [...tokens]);
    this.key = `${ctx.game?.id}:${ctx.game?.version}:${ctx.seat}`;
    this.sel = memory.get(this.key) || [];
    this.items = [];  // [node, token]
    this.entries = (ctx.legal || []).map((cmd) => {
      const tokens = new Set(tokensOf(cmd));
      return { cmd, tokens, need: this.required(cmd, tokens) };
    });
    this.panel = h("div", { class: "pick-panel", "aria-live": "polite" });
    this.busy = false;
  }

  candidates(sel = this.sel) {
    return this.entries.filter((e) => sel.every((t) => e.tokens.has(t)));
  }

  // Make `node` stand for `token`: clickable (and focusable) while some candidate names it.
  bind(node, token) {
    this.items.push([node, token]);
    node.dataset.token = token;
    node.dataset.key = `token:${token}`;  // the shell gives focus back to it after a redraw
    node.addEventListener("click", (ev) => { ev.stopPropagation(); this.click(token); });
    node.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); this.click(token); }
    });
    return node;
  }

  click(token) {
    if (this.busy) return;
    const at = this.sel.indexOf(token);
    if (at >= 0) {  // clicking a chosen thing again un-chooses it
      this.sel = this.sel.filter((t) => t !== token);
    } else {
      const next = this.combine(this.sel, token, this);
      if (!this.candidates(next).length) return;
      this.sel = next;
    }
    memory.set(this.key, this.sel);
    const left = this.candidates();
    if (left.length === 1 && left[0].need.every((t) => this.sel.includes(t))) {
      this.send(left[0].cmd);
      return;
    }
    this.refresh();
  }

  send(cmd) {
    this.busy = true;
    this.sel = [];
    memory.delete(this.key);
    this.refresh();
    this.panel.replaceChildren(h("p", { class: "pick-note" }, t("Sending: {move}", { move: this.label(cmd) })));
    // The shell redraws the board with the answer; it answers null when the command was not
    // sent or not accepted (and shows why), so the board becomes usable again.
    const again = (err) => {
      this.busy = false;
      this.refresh();
      if (err) {
        this.panel.prepend(h("p", { class: "pick-error", role: "alert" },
          t("Not accepted: {why}", { why: err?.detail || err?.message || err })));
      }
    };
    Promise.resolve(this.ctx.send(cmd)).then((answer) => { if (!answer) again(); }, again);
  }

  // Mark what can be clicked now and list the remaining choices.
  refresh() {
    const left = this.candidates();
    const open = new Set(left.flatMap((e) => [...e.tokens]));
    for (const [node, token] of this.items) {
      const chosen = this.sel.includes(token);
      const live = !this.busy && (chosen || open.has(token));
      node.classList.toggle("pickable", live && !chosen);
      node.classList.toggle("picked", chosen);
      if (node instanceof HTMLButtonElement) {
        node.disabled = !live;
        if (chosen) node.setAttribute("aria-pressed", "true"); else node.removeAttribute("aria-pressed");
      } else if (live) {
        node.setAttribute("tabindex", "0");
        node.setAttribute("role", "button");
        node.setAttribute("aria-disabled", "false");
      } else {
        node.removeAttribute("tabindex");
        node.setAttribute("aria-disabled", "true");
      }
    }
    if (!this.sel.length || this.busy) {
      if (!this.busy) this.panel.replaceChildren();
      return;
    }
    const shown = left.slice(0, 40);
    this.panel.replaceChildren(
      h("div", { class: "pick-head" },
        h("span", {}, left.length === 1 ? t("Your move:") : tn("{n} possible move:", "{n} possible moves:", left.length)),
        h("button", { type: "button", class: "pick-clear", onclick: () => {
          this.sel = []; memory.delete(this.key); this.refresh();
        } }, t("Clear"))),
      h("div", { class: "pick-list" }, shown.map((e) => h("button", {
        type: "button", class: "pick-cmd", onclick: () => this.send(e.cmd),
      }, this.label(e.cmd)))),
      ...(left.length > shown.length ?
        [h("p", { class: "pick-note" }, t("Click more to narrow the list."))] : []));
  }
}
