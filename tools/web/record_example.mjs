// Trunk's post-build hook (Trunk.toml), after stamp_build.sh: runs the page's first example (the
// first lesson) through the built trace module under Node, with the worker's own session code
// (www/js/session.js), and writes every answer the page can ask for it to example.json beside
// the page: the run, each step's state, every tensor's panels at every step and every storage
// cell. The page draws the example from these answers while the trace module loads, so its first
// render needs no wasm; the lesson gallery and the op reference come with them. The page then
// opens the same trace in the engine and asks it for everything else.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { traceSession } from '../../www/js/session.js';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('record_example: run by trunk (TRUNK_STAGING_DIR is not set)');
const glue = await import(pathToFileURL(path.join(dir, 'stridelab-web.js')).href);
await glue.default({ module_or_path: fs.readFileSync(path.join(dir, 'stridelab-web_bg.wasm')) });

const lessons = JSON.parse(glue.lessons());
const src = lessons[0].trace;
const session = traceSession(glue, () => 0);
const open = session.open({ src });
const steps = [];
for (let k = 0; k <= open.steps; k++) {
  const { state } = session.goto({ k, selected: null });
  const tensors = {};
  const cells = {};
  for (const name of Object.keys(state.tensors)) {
    const t = session.tensor({ name });
    tensors[name] = { ...t, flags: [...t.flags] };
    const sid = t.info && t.info.storage;
    if (sid === null || sid === undefined || t.info.map) continue;
    for (let i = 0; i < t.flags.length; i++) {
      const key = `${sid}:${i}`;
      if (!(key in cells)) cells[key] = session.cell({ storage: sid, index: i });
    }
  }
  steps.push({ state, tensors, cells });
}
const out = { src, open, steps, lessons, opReference: JSON.parse(glue.opReference()) };
fs.writeFileSync(path.join(dir, 'example.json'), JSON.stringify(out));
console.log(`record_example: ${steps.length} steps of "${lessons[0].title}"`);
