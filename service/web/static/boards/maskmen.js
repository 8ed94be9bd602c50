// Mask Men's table (docs/rules/maskmen.md): the strength ladder of the season (§6's marker
// columns, weaker below), the round's plays, everyone's counts, and your hand by wrestler. A
// wrestler in your hand plays on a click when one count is legal, else offers its counts.

import { t, term } from '../i18n.js';

export const stylesheet = 'maskmen.css';

const selection = { key: null, wrestler: null };

const title = (w) => term(`maskmen.wrestler.${w}`, String(w).charAt(0) + String(w).slice(1).toLowerCase());

export function label(command) {
  if (command.type === 'give_up') return t('Give up this round');
  if (command.type === 'play') {
    const n = command.count || (command.cards || []).length;
    return t('Play {n} × {wrestler}', { n, wrestler: title(command.wrestler) });
  }
  return null;
}

// The shell's moves panel asks which wrestler, then how many, once the plays are many.
export const narrowed = ['play'];

// The title of a chooser of one kind of move.
export function typeLabel(type) {
  return type === 'play' ? t('Play cards') : null;
}

export function choiceLabel(path, value) {
  if (path === 'wrestler') return title(value);
  if (path === 'count') return t('Play {n}', { n: value });
  return null;
}

function chip(el, wrestler, attrs = {}, ...extra) {
  const tag = attrs.onclick ? 'button' : 'span';
  return el(tag, { ...(tag === 'button' ? { type: 'button' } : {}), ...attrs,
    class: ['wrestler', `mm-${String(wrestler).toLowerCase()}`, attrs.class] },
  title(wrestler), ...extra);
}

export function render(root, ctx) {
  const { el, view, legal, send, names } = ctx;
  if (!view || !view.knowledge) {
    root.append(el('p', {}, t('The season has not been dealt yet.')));
    return;
  }
  const key = `${ctx.game.id}:${ctx.game.version}`;
  if (selection.key !== key) Object.assign(selection, { key, wrestler: null });
  const redraw = () => { root.replaceChildren(); render(root, ctx); };
  const who = (seat) => names[seat] || t('Seat {n}', { n: seat + 1 });
  const knowledge = view.knowledge;
  const display = knowledge.display || {};
  const all = Object.keys(knowledge.beats || {});
  const debuted = new Set(knowledge.debuted || []);

  // The ladder: stronger above weaker. Columns (current edition) or levels (first edition).
  let ladder = null;
  if (display.style === 'columns' && (display.columns || []).length) {
    ladder = el('ol', { class: 'mm-ladder' }, display.columns.map((column, i) => el('li', {
      class: 'mm-column', 'aria-label': t('Column {n}, strongest first', { n: i + 1 }) },
    el('ol', {}, column.slice().reverse().map((w) => el('li', {}, chip(el, w)))))));
  } else if ((display.levels || []).length) {
    ladder = el('ol', { class: 'mm-levels', 'aria-label': t('Levels, strongest first') },
      display.levels.slice().reverse().map((level) => el('li', {}, level.map((w) => chip(el, w)))));
  }
  const beats = all.filter((w) => knowledge.beats[w].length).map((w) => el('li', {},
    chip(el, w), ` ${t('beats')} `, knowledge.beats[w].map(title).join(', ')));

  const round = view.round || {};
  const current = round.current;
  const plays = (round.plays || []).map((play) => el('li', {},
    el('strong', {}, who(play.seat)), ': ', chip(el, play.wrestler, {}, ` × ${play.cards.length}`),
    play.proved ? el('span', { class: 'tag' }, t('proved {stronger} > {weaker}', { stronger: title(play.proved[0]), weaker: title(play.proved[1]) }))
      : null));

  const players = el('table', { class: 'mm-players' },
    el('thead', {}, el('tr', {}, [t('Player'), t('Hand'), t('Season wins'), t('Score')].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, view.hand_counts.map((count, seat) => el('tr', {
      class: [view.turn === seat && 'to-move', view.viewer === seat && 'you',
        (round.given_up || []).includes(seat) && 'given-up'] },
    el('th', { scope: 'row' }, who(seat), view.turn === seat ? ' ⟵' : '',
      (round.given_up || []).includes(seat) ? ` ${t('(gave up)')}` : '',
      (view.out || []).includes(seat) ? ` ${t('(out)')}` : ''),
    el('td', {}, String(count)), el('td', {}, String((view.season_wins || [])[seat] ?? 0)),
    el('td', {}, String((view.scores || [])[seat] ?? 0))))));

  // Your hand, by wrestler.
  const counts = new Map();
  for (const card of view.hand || []) {
    const wrestler = card.split('-')[0];
    counts.set(wrestler, (counts.get(wrestler) || 0) + 1);
  }
  const playsOf = (w) => legal.filter((c) => c.type === 'play' && c.wrestler === w);
  const hand = [...counts].map(([w, n]) => {
    const options = playsOf(w);
    const attrs = { title: t('{wrestler}: {n} in hand', { wrestler: title(w), n }) };
    if (options.length === 1) attrs.onclick = () => send(options[0]);
    else if (options.length > 1) {
      attrs['aria-pressed'] = String(selection.wrestler === w);
      attrs.class = selection.wrestler === w ? 'selected' : null;
      attrs.onclick = () => { selection.wrestler = selection.wrestler === w ? null : w; redraw(); };
    }
    return el('li', {}, chip(el, w, attrs, el('span', { class: 'count' }, ` × ${n}`)));
  });
  const countButtons = selection.wrestler ? playsOf(selection.wrestler).map((c) => el('button', {
    type: 'button', class: 'board-move', onclick: () => send(c) }, label(c))) : [];

  root.append(el('div', { class: 'maskmen' },
    el('p', { class: 'mm-status' },
      el('span', { class: 'tag' }, t('Season {season} of {seasons}', { season: view.season, seasons: view.seasons })),
      el('span', { class: 'tag' }, t('Round {round}', { round: round.number ?? '—' })),
      round.leader !== undefined && round.leader !== null
        ? el('span', { class: 'tag' }, t('{name} led', { name: who(round.leader) })) : null),
    el('section', { class: 'zone', 'aria-label': t('Strength ladder') },
      el('h3', {}, t('Strength ladder (stronger above)')),
      ladder || el('p', {}, t('Nothing proven yet this season.')),
      el('p', { class: 'mm-undebuted' }, `${t('Not yet debuted:')} `,
        all.filter((w) => !debuted.has(w)).map((w) => chip(el, w, { class: 'undebuted' })),
        all.every((w) => debuted.has(w)) ? t('none') : ''),
      beats.length ? el('details', {}, el('summary', {}, t('Known wins')), el('ul', {}, beats)) : null),
    el('section', { class: 'zone', 'aria-label': t('This round') },
      el('h3', {}, t('This round')),
      current ? el('p', { class: 'mm-current' }, `${t('To beat:')} `, chip(el, current.wrestler, {},
        ` × ${current.count}`), ` ${t('by {name}', { name: who(current.seat) })}`) : el('p', {}, t('A new round: the leader leads.')),
      plays.length ? el('ol', { class: 'mm-plays' }, plays) : null),
    players,
    view.hand ? el('section', { class: 'zone', 'aria-label': t('Your hand') },
      el('h3', {}, t('Your hand ({n})', { n: view.hand.length }),
        selection.wrestler ? ` — ${t('how many {wrestler}?', { wrestler: title(selection.wrestler) })}` : ''),
      el('ul', { class: 'cards' }, hand), countButtons) : null));
}
