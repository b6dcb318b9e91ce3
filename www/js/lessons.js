// The lesson gallery: built-in traces with a one-line explanation each; every card is a share
// link, so a lesson opens exactly like a link someone sent.
import { $, h, fill } from './dom.js';

export function drawLessons(lessons) {
  fill($('#lessons'), lessons.map((l) => h('div', { class: 'lesson', dataset: { id: l.id } },
    h('a', { href: `#${l.fragment}`, class: 'ltitle' }, l.title),
    h('p', {}, l.explain),
    h('pre', { class: 'mono small' }, l.trace.trim()))));
}
