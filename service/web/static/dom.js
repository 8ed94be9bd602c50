// The one DOM helper of the web client, shared with the boards (ctx.el).
// el('button', {class: 'x', onclick: f, style: {color: 'red'}}, 'text', child, [more])
// Attributes set with setAttribute except: class, style (an object, set through the CSSOM so
// the page needs no 'unsafe-inline'), dataset (an object), on* (listeners), and
// false/null/undefined (left out). Children: nodes, strings, numbers, arrays, null (skipped).

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    else if (key === 'style' && typeof value === 'object') Object.assign(node.style, value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === 'value' && 'value' in node) node.value = value;
    else if (value === true) node.setAttribute(key, '');
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

// 'play_merchant' -> 'play merchant'
export function words(name) {
  return String(name).replace(/[_-]+/g, ' ').trim();
}

// A short text for any JSON value: scalars as they are, lists joined, objects as k=v pairs.
export function brief(value) {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.map(brief).join(', ');
  if (typeof value === 'object') {
    return Object.entries(value).map(([k, v]) => `${words(k)} ${brief(v)}`).join(', ');
  }
  return String(value);
}

// The generic label of a legal command: its type in words and its fields.
export function commandLabel(command) {
  const fields = Object.entries(command)
    .filter(([key]) => key !== 'type' && key !== 'expected_version' && key !== 'command_id')
    .map(([key, value]) => `${words(key)}: ${brief(value)}`);
  return fields.length ? `${words(command.type)} (${fields.join('; ')})` : words(command.type);
}
