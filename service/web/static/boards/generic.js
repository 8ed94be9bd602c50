// The fallback board: any game's view, pretty-printed. Every move is still a button in the shell.

export function render(root, ctx) {
  const { el, view } = ctx;
  root.append(el('pre', { class: 'generic-view', tabindex: '0', 'aria-label': 'Game view' },
    view === null || view === undefined ? 'Nothing to see yet.' : JSON.stringify(view, null, 2)));
}
