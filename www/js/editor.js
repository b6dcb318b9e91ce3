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
  // Laid out now, in the task that sets the text (a long trace's lines cost a layout of their
  // own), rather than in the middle of the redraw that follows.
  void source.scrollHeight;
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

/** The gutter's line numbers: one text block (thousands of rows as elements took 100 ms to
 *  build), with the current and failing lines as two markers laid over it. */
const numbers = h('div', { class: 'lines' });
const curMark = h('div', { class: 'mark cur', hidden: true });
const badMark = h('div', { class: 'mark bad', hidden: true });
fill(gutter, numbers, curMark, badMark);
let numbered = 0;

/** Puts `marker` over gutter row `line` (1-based), or hides it for line 0. */
function place(marker, line) {
  marker.hidden = !line;
  if (!line) return;
  marker.textContent = String(line);
  marker.style.top = `${6 + (line - 1) * 18}px`;
}

/** Redraws the gutter: `current` is the line of the statement just run, `error` the failing one. */
export function mark(current, error) {
  const n = source.value.split('\n').length;
  // The numbers change only with the line count: a step only moves the two markers, and reading
  // scrollTop after a rebuild would force a layout in the middle of every redraw.
  if (numbered !== n) {
    numbers.textContent = Array.from({ length: n }, (_, i) => String(i + 1)).join('\n');
    numbered = n;
    gutter.scrollTop = source.scrollTop;
  }
  place(curMark, current);
  place(badMark, error ? error.line : 0);
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
