// A map that pans and zooms inside its own box (issue 27 item 2): the page never grows wider
// than the screen, whatever the map's size. Drag (or one finger) pans, the wheel or two
// fingers zoom, and the box's buttons and keys (arrows pan, + and - zoom, 0 fits) do the same
// for a keyboard. The viewBox is kept per map across redraws (a board redraws after every
// move), so the player's view stays where they left it.
//
//   panZoom(svg, { key, className, focus: [x, y] | null, minScale, legend })
//     svg: an <svg> with a viewBox (the whole map); returns the box to put on the page.
import { t } from "../i18n.js";

const kept = new Map(); // key -> {cx, cy, scale}: the centre shown (map units) and px per unit
const DRAG_PX = 6; // a pointer moving less than this is a click, not a drag

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return node;
}

export function panZoom(svg, options = {}) {
  const [mx, my, mw, mh] = svg.getAttribute("viewBox").split(/[ ,]+/).map(Number);
  const key = options.key || "map";
  const minScale = options.minScale || 1.25; // readable labels: 10-unit text at >= 12.5 px
  svg.removeAttribute("width");
  svg.style.width = "100%";
  svg.style.height = "100%";
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet"); // i18n-ignore: an SVG value
  const viewport = el("div", { class: "panzoom-viewport", tabindex: "0", role: "group",
    "aria-label": t("{map}: arrow keys move it, + and - zoom, 0 shows it all", { map: options.label || t("Map") }) },
  svg);
  let size = { w: 0, h: 0 };
  let at = kept.get(key);

  const fitScale = () => Math.min(size.w / mw, size.h / mh);
  const clamp = () => {
    at.scale = Math.max(Math.min(fitScale(), minScale) * 0.9, Math.min(at.scale, 4));
    const halfW = size.w / at.scale / 2;
    const halfH = size.h / at.scale / 2;
    at.cx = halfW * 2 >= mw ? mx + mw / 2 : Math.max(mx + halfW, Math.min(mx + mw - halfW, at.cx));
    at.cy = halfH * 2 >= mh ? my + mh / 2 : Math.max(my + halfH, Math.min(my + mh - halfH, at.cy));
  };
  const draw = () => {
    if (!size.w || !at) return;
    clamp();
    const w = size.w / at.scale;
    const h = size.h / at.scale;
    svg.setAttribute("viewBox", `${at.cx - w / 2} ${at.cy - h / 2} ${w} ${h}`);
    zoomOut.disabled = at.scale <= Math.min(fitScale(), minScale) * 0.9 + 1e-6;
    zoomIn.disabled = at.scale >= 4 - 1e-6;
  };
  const zoom = (factor, px = size.w / 2, py = size.h / 2) => {
    // Zoom about the point under the pointer (px, py in the box's pixels).
    const ux = at.cx + (px - size.w / 2) / at.scale;
    const uy = at.cy + (py - size.h / 2) / at.scale;
    at.scale *= factor;
    clamp();
    at.cx = ux - (px - size.w / 2) / at.scale;
    at.cy = uy - (py - size.h / 2) / at.scale;
    draw();
  };
  const pan = (dx, dy) => {
    at.cx -= dx / at.scale;
    at.cy -= dy / at.scale;
    draw();
  };
  const fit = () => {
    at.scale = Math.max(fitScale(), Math.min(minScale, fitScale() * 3));
    at.cx = mx + mw / 2;
    at.cy = my + mh / 2;
    if (options.focus && at.scale > fitScale()) [at.cx, at.cy] = options.focus;
    draw();
  };

  const zoomIn = el("button", { type: "button", class: "panzoom-btn", "aria-label": t("Zoom in"),
    onclick: () => zoom(1.25) }, "+");
  const zoomOut = el("button", { type: "button", class: "panzoom-btn", "aria-label": t("Zoom out"),
    onclick: () => zoom(0.8) }, "−");
  const whole = el("button", { type: "button", class: "panzoom-btn",
    "aria-label": t("Show the whole map"), onclick: () => {
      at.scale = fitScale();
      at.cx = mx + mw / 2;
      at.cy = my + mh / 2;
      draw();
    } }, t("Whole map"));

  // Dragging: pointer events on the box; a click (little movement) still reaches the regions.
  const pointers = new Map();
  let dragged = false;
  let pinch = null;
  viewport.addEventListener("pointerdown", (e) => {
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY });
    dragged = false;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = Math.hypot(a.x - b.x, a.y - b.y);
    }
  });
  viewport.addEventListener("pointermove", (e) => {
    const p = pointers.get(e.pointerId);
    if (!p) return;
    if (pointers.size === 2 && pinch) {
      p.x = e.clientX;
      p.y = e.clientY;
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      zoom(d / pinch);
      pinch = d;
      dragged = true;
      return;
    }
    if (!dragged && Math.hypot(e.clientX - p.x0, e.clientY - p.y0) < DRAG_PX) return;
    if (!dragged) viewport.setPointerCapture(e.pointerId);
    dragged = true;
    pan(e.clientX - p.x, e.clientY - p.y);
    p.x = e.clientX;
    p.y = e.clientY;
  });
  const release = (e) => {
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
  };
  viewport.addEventListener("pointerup", release);
  viewport.addEventListener("pointercancel", release);
  // A drag ends with a click on whatever is under the pointer: swallow it.
  viewport.addEventListener("click", (e) => {
    if (dragged) {
      e.stopPropagation();
      e.preventDefault();
      dragged = false;
    }
  }, true);
  viewport.addEventListener("wheel", (e) => {
    e.preventDefault();
    const box = viewport.getBoundingClientRect();
    zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - box.left, e.clientY - box.top);
  }, { passive: false });
  viewport.addEventListener("keydown", (e) => {
    if (e.target !== viewport) return; // a focused region keeps its own keys
    const step = 60;
    const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step],
      ArrowDown: [0, -step] };
    if (moves[e.key]) pan(...moves[e.key]);
    else if (e.key === "+" || e.key === "=") zoom(1.25);
    else if (e.key === "-") zoom(0.8);
    else if (e.key === "0") whole.click();
    else return;
    e.preventDefault();
  });
  // Tabbing onto a region off screen brings it into view.
  viewport.addEventListener("focusin", (e) => {
    const target = e.target.closest && e.target.closest("g[data-region]");
    if (!target || !at || !target.getBBox) return;
    const b = target.getBBox();
    const w = size.w / at.scale;
    const h = size.h / at.scale;
    if (Math.abs(b.x + b.width / 2 - at.cx) > w / 2 - b.width / 2
        || Math.abs(b.y + b.height / 2 - at.cy) > h / 2 - b.height / 2) {
      at.cx = b.x + b.width / 2;
      at.cy = b.y + b.height / 2;
      draw();
    }
  });

  new ResizeObserver(() => {
    const w = viewport.clientWidth;
    const h = viewport.clientHeight;
    if (!w || !h || (w === size.w && h === size.h)) return;
    size = { w, h };
    if (!at) {
      at = { cx: 0, cy: 0, scale: 1 };
      kept.set(key, at);
      fit();
    } else draw();
  }).observe(viewport);

  return el("div", { class: `panzoom ${options.className || ""}` },
    el("div", { class: "panzoom-bar" }, zoomIn, zoomOut, whole,
      options.legend ? el("span", { class: "panzoom-legend" }, options.legend) : null),
    viewport);
}

