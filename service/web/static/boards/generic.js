// The fallback board: any game's view, pretty-printed. Every move is still a button in the shell.
//
// The board interface (app.js loads boards/<game>.js and falls back to this file):
//   export function render(root, ctx)   fill `root`, an empty element, from ctx =
//     { game,   the game body as the API gives it (GET /v1/games/{id}, a command's `game`,
//               or GET /v1/games/{id}/replay while replaying)
//       view,   game.view: what this seat may see
//       seat,   the viewer's seat (an int), or null for a spectator or a replay
//       legal,  the viewer's legal commands, each postable unchanged ([] while replaying)
//       send,   send(command) -> Promise: POSTs it; the shell redraws with the answer
//       names,  {seat: display name}
//       el }    el(tag, attrs, ...children) from ../dom.js
//   export function label(command, view, names)   optional: a short text for a move button
//   export const stylesheet = '<game>.css'        optional: a stylesheet beside it, linked once
// render is called again, on a fresh root, after every change; a board that throws is
// replaced by this one for that view.
import { t } from '../i18n.js';

export function render(root, ctx) {
  const { el, view } = ctx;
  root.append(el('pre', { class: 'generic-view', tabindex: '0', 'aria-label': t('Game view') },
    view === null || view === undefined ? t('Nothing to see yet.') : JSON.stringify(view, null, 2)));
}
