// A long list of moves of one kind becomes a few choices made one after another (issue 27
// item 4): Mag Blast's every fleet arrangement is "Front: which ship?", then "Left: which
// ship?"..., until one move is left to send. A board opts a command type in by exporting
// `narrowed` (a list of types) and may name a choice with
// `choiceLabel(field, value, view, names)`.
// Only the API's legal commands are ever sent: choosing only filters them.
import { el } from './dom.js';
import { plain } from './log.js';
import { t, tn } from './i18n.js';

const ENVELOPE = new Set(['type', 'expected_version', 'command_id']);
// Below this many moves of one kind a flat list reads faster than a chooser.
const NARROW_FROM = 7;

// 'zones.n' -> value, walking nested objects (lists are compared whole).
function fields(command, prefix = '', out = new Map()) {
  for (const [key, value] of Object.entries(command)) {
    if (!prefix && ENVELOPE.has(key)) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object' && !Array.isArray(value)) fields(value, path, out);
    else out.set(path, JSON.stringify(value ?? null));
  }
  return out;
}

// Splits the legal commands into those listed as they are and groups to choose step by step.
export function splitMoves(legal, narrowedTypes) {
  const types = new Set(narrowedTypes || []);
  const byType = new Map();
  for (const command of legal) {
    if (!types.has(command.type)) continue;
    byType.set(command.type, [...(byType.get(command.type) || []), command]);
  }
  const groups = [...byType.values()].filter((g) => g.length >= NARROW_FROM);
  const grouped = new Set(groups.flat());
  return { flat: legal.filter((c) => !grouped.has(c)), groups };
}

// The choosing panel of one group. picked: {path: value json} so far (kept by the caller across
// redraws); onPick(newPicked) redraws; makeButton(command) is the shell's move button.
export function chooser(commands, picked, { onPick, makeButton, choiceLabel, title }) {
  const withFields = commands.map((command) => ({ command, fields: fields(command) }));
  const left = withFields.filter((c) => Object.entries(picked)
    .every(([path, value]) => c.fields.get(path) === value));
  const box = el('div', { class: 'chooser', role: 'group', 'aria-label': title });
  box.append(el('p', { class: 'chooser-title' }, el('strong', {}, title),
    ` · ${tn('{n} way left', '{n} ways left', left.length)}`));
  if (Object.keys(picked).length) {
    box.append(el('p', { class: 'chooser-picked' },
      Object.entries(picked).map(([path, value]) => choiceLabel(path, JSON.parse(value))).join(' · '),
      ' ', el('button', { type: 'button', class: 'link', dataset: { key: 'chooser-reset' },
        onclick: () => onPick({}) }, t('Start over'))));
  }
  if (left.length <= 1) {
    box.append(el('div', { class: 'command-list' }, left.map((c) => makeButton(c.command))));
    return box;
  }
  // The first field on which the moves left differ is the next question.
  const paths = [...left[0].fields.keys()];
  const path = paths.find((p) => new Set(left.map((c) => c.fields.get(p))).size > 1);
  const values = [...new Set(left.map((c) => c.fields.get(path)))];
  box.append(el('div', { class: 'command-list' }, values.map((value) => el('button', {
    type: 'button', class: 'cmd narrow', dataset: { key: `choose:${path}=${value}` },
    onclick: () => onPick({ ...picked, [path]: value }),
  }, choiceLabel(path, JSON.parse(value))))));
  return box;
}

export function defaultChoiceLabel(path, value) {
  const name = plain(path.split('.').pop());
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}: ${value === null ? t('none') : plain(value)}`;
}
