// The trace editor: a plain textarea with a line gutter that marks the current statement and the
// failing one, and the error message beside it. Plain text in, plain text out.
import { $, h, fill } from './dom.js';

const source = $('#source');
const gutter = $('#gutter');
const errorBox = $('#error');

export function getSource() {
  return source.value;
}

export function setSource(text) {
  source.value = text;
}

/** Calls `fn(text)` after typing pauses. */
export function onEdit(fn) {
  let timer = 0;
  source.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(source.value), 200);
  });
  source.addEventListener('scroll', () => { gutter.scrollTop = source.scrollTop; });
}

let suggestion = null;

/** Scrolls the editor so that `line` is inside it, centred when it was out of view. */
function showLine(line) {
  const style = getComputedStyle(source);
  const height = parseFloat(style.lineHeight) || 18;
  const pad = parseFloat(style.paddingTop) || 0;
  const top = pad + (line - 1) * height;
  if (top < source.scrollTop || top + height > source.scrollTop + source.clientHeight) {
    source.scrollTop = Math.max(0, top - (source.clientHeight - height) / 2);
  }
  gutter.scrollTop = source.scrollTop;
}

/** Calls `fn(name)` when the user follows an error's "did you mean" to the op reference. */
export function onSuggestion(fn) {
  suggestion = fn;
}

/** Redraws the gutter: `current` is the line of the statement just run, `error` the failing one. */
export function mark(current, error) {
  const n = source.value.split('\n').length;
  // Rows are rebuilt only when the line count changes: a step only moves two classes, and
  // reading scrollTop after a rebuild would force a layout in the middle of every redraw.
  if (gutter.childElementCount !== n) {
    fill(gutter, Array.from({ length: n }, (_, i) => h('div', {}, String(i + 1))));
    gutter.scrollTop = source.scrollTop;
  }
  const bad = error ? error.line : 0;
  for (let i = 1; i <= n; i++) {
    const row = gutter.children[i - 1];
    row.classList.toggle('cur', i === current);
    row.classList.toggle('bad', i === bad);
  }
  // Scrolled into view before the next paint, once the redraw's layout is done anyway.
  if (current) requestAnimationFrame(() => showLine(current));
  if (error) {
    const where = error.column ? `line ${error.line}:${error.column}` : `line ${error.line}`;
    const extra = error.elements ? ` (storage cells ${error.elements.slice(0, 12).join(', ')}${error.elements.length > 12 ? ', …' : ''})` : '';
    // "did you mean view?": the suggestion links to the op reference.
    const guess = /did you mean ([A-Za-z_0-9]+)\?$/.exec(error.message);
    const ref = guess && suggestion ? h('button', { class: 'link', id: 'error-ref', onclick: () => suggestion(guess[1]) }, 'op reference') : null;
    fill(errorBox, h('span', { class: 'where' }, where), h('span', { class: 'kind' }, error.kind), h('span', {}, error.message + extra), ref);
    errorBox.hidden = false;
  } else {
    errorBox.hidden = true;
    fill(errorBox);
  }
}
