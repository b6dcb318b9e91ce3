// The lesson gallery: built-in traces with a one-line explanation each; every card is a share
// link, so a lesson opens exactly like a link someone sent. While a lesson's trace is open, its
// card is marked and its narration for the current statement shows beside the stepper.
import { $, h, fill } from './dom.js';

export function drawLessons(lessons) {
  fill($('#lessons'), lessons.map((l) => h('div', { class: 'lesson', dataset: { id: l.id } },
    // Opening a lesson shows its panels: the Inspect tab.
    h('a', { href: `#${l.fragment}`, class: 'ltitle', onclick: () => $('.tabs button[data-tab="inspect"]').click() }, l.title),
    h('p', {}, l.explain),
    h('pre', { class: 'mono small' }, l.trace.trim()))));
}

/** The lesson whose trace `src` is, marked in the gallery (null when none). */
export function activeLesson(lessons, src) {
  const lesson = lessons.find((l) => l.trace === src) || null;
  for (const card of document.querySelectorAll('.lesson')) card.classList.toggle('active', lesson !== null && card.dataset.id === lesson.id);
  return lesson;
}

/** The open lesson's words for the statement just run, beside the stepper. */
export function drawNarration(lesson, step) {
  const box = $('#narration');
  const text = lesson && (step ? lesson.narration[String(step.line)] : lesson.explain);
  box.hidden = !text;
  fill(box, text ? [h('b', {}, `${lesson.title}: `), text] : []);
}
