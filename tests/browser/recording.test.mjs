// The page opens a recording of a real PyTorch run (python -m stridelab_record), from a file and
// from a link, and steps through it: the storage map, the step's writes and who saw them, the
// autograd graph going stale, PyTorch's error at its line, all as the recording says. The
// recording is tests/browser/recording/alias.json, made by the real recorder from alias.py beside
// it (the command is in alias.py's header).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDir } from './serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(ROOT, 'dist');
const ARTIFACTS = path.join(ROOT, 'target/browser-artifacts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const FILE = path.join(ROOT, 'tests/browser/recording/alias.json');
const RECORDING = JSON.parse(fs.readFileSync(FILE, 'utf8'));

let server;
let base;
let chrome;

async function open(url) {
  const page = await chrome.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  return { page, errors };
}

function settle(page) {
  return page.waitForFunction(() => window.stridelab && window.stridelab.busy && !window.stridelab.busy());
}

/** Stands on step `k` through the page's own stepper and waits for the redraw. */
async function step(page, k) {
  await page.evaluate((n) => window.stridelab.goto(n), k);
  await settle(page);
}

/** The tensor list: name → {shape, storage, strides, offset, kind, bridge}. */
function rows(page) {
  return page.$$eval('#tensors tbody tr[data-name]', (trs) => Object.fromEntries(trs.map((tr) => {
    const td = [...tr.querySelectorAll('td')].map((t) => t.textContent);
    return [tr.dataset.name, { shape: td[1], storage: td[3], strides: td[4], offset: Number(td[6]), kind: td[7], bridge: td[8] }];
  })));
}

async function select(page, name) {
  await page.click(`#tensors tr[data-name="${name}"]`);
  await settle(page);
  await page.waitForFunction((n) => window.stridelab.tensor && window.stridelab.tensor.name === n, name);
}

/** The storage map's cells: [{value, classes}] in cell order. */
function cells(page) {
  return page.$$eval('#storage .cell', (cs) => cs.map((c) => ({ value: c.querySelector('.cv').textContent, written: c.classList.contains('wr'), selected: c.classList.contains('sel') })));
}

/** The recorded step `k` (1-based), as the recording lists it. */
const recorded = (k) => RECORDING.steps[k - 1];

/** Everything the page must show of the recording, from wherever it opened it. */
async function checkSteps(page) {
  // The page says what this is: a recording of real PyTorch, the source read-only, tinygrad and
  // the bridge predictions or not run.
  assert.equal(await page.$eval('#recording-banner', (b) => b.hidden), false);
  assert.match(await page.textContent('#recording-banner'), /A recording of real PyTorch: tests\/browser\/recording\/alias\.py run by torch/);
  assert.match(await page.textContent('#recording-predicted'), /tinygrad's views are predicted/);
  assert.equal(await page.textContent('#editor-title'), 'Recorded source (read-only)');
  assert.equal(await page.evaluate(() => window.stridelab.editor.view.state.readOnly), true);
  const source = await page.evaluate(() => window.stridelab.editor.text());
  assert.equal(source.split('\n')[recorded(4).line - 1], recorded(4).source);
  assert.equal(await page.textContent('#stepno'), `${RECORDING.steps.length} / ${RECORDING.steps.length}`);

  // Step 4, `b[0] += 10`: a write through the transposed view lands in a's storage, cells 0 and
  // 3, and both names see it.
  await step(page, 4);
  assert.match(await page.textContent('#stepinfo'), /b\[0\] \+= 10/);
  assert.match(await page.textContent('#step-writes'), /2 cells of storage #0/);
  assert.equal(await page.textContent('#observers'), recorded(4).tensors_changed.join(', '));
  const list = await rows(page);
  assert.deepEqual(Object.keys(list), ['a', 'b']);
  assert.deepEqual(list.b, { shape: '(3, 2)', storage: '#0', strides: '(1, 3)', offset: 0, kind: 'view', bridge: '' });
  assert.equal(list.a.storage, list.b.storage);
  assert.match(await page.textContent('#tensors thead'), /bridge \(not run\)/);
  await select(page, 'b');
  const map = await cells(page);
  assert.deepEqual(map.map((c) => c.value), ['10', '1', '2', '13', '4', '5']);
  assert.deepEqual(map.map((c) => c.written), [true, false, false, true, false, false]);
  assert.ok(map.every((c) => c.selected));
  // The view chain: PyTorch's recorded layout, tinygrad's view predicted, the bridge not run.
  assert.match(await page.textContent('#chain thead'), /tinygrad: views \(predicted\)/);
  const chain = await page.$$eval('#chain tbody td', (tds) => tds.map((t) => t.textContent));
  assert.match(chain[0], /line 8: b = a\.t\(\)/);
  assert.match(chain[1], /\(3, 2\) · \(1, 3\) · 0/);
  assert.match(chain[4], /View\(\(3, 2\), \(1, 3\), off=0\)/);
  assert.equal(chain[6], 'not run');

  // Step 6: y's graph, every saved tensor at the version it was saved at.
  await step(page, 6);
  assert.equal(await page.$eval('#autograd-panel', (p) => p.hidden), false);
  assert.match(await page.textContent('#autograd-summary'), /every saved tensor is at the version it was saved at/);
  assert.deepEqual(await page.$$eval('#autograd .ag-node.stale', (ns) => ns.length), 0);

  // Step 7, `y.mul_(2)`: writes all of y's storage, and makes the sigmoid's saved result stale,
  // which the step and the graph say before any backward runs.
  await step(page, 7);
  assert.match(await page.textContent('#step-writes'), /6 cells of storage #2/);
  assert.match(await page.textContent('#stepinfo .stale'), /SigmoidBackward0 \(line 11\) saved at version 0 is now at version 1/);
  await select(page, 'y');
  assert.deepEqual((await cells(page)).map((c) => c.written), [true, true, true, true, true, true]);
  assert.deepEqual(await page.$$eval('#autograd .ag-node.stale', (ns) => ns.map((n) => n.dataset.node)), ['SigmoidBackward0']);
  assert.match(await page.textContent('#autograd-summary'), /will fail/);

  // The last step: PyTorch's own error, at its line.
  await step(page, 8);
  assert.equal(await page.$eval('#error', (e) => e.hidden), false);
  assert.match(await page.textContent('#error'), /line 13/);
  assert.match(await page.textContent('#error'), /is at version 1; expected version 0 instead/);
  // A recording has no kernels.
  assert.match(await page.textContent('#kernels'), /A recording has no kernels/);
}

before(async () => {
  assert.ok(fs.existsSync(path.join(DIST, 'index.html')), 'dist/ is built (cargo xtask build)');
  ({ server, base } = await serveDir(DIST));
  chrome = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage', '--disable-webgpu'] });
});

after(async () => {
  await chrome.close();
  server.close();
});

test('opens a recording from a file and steps through what PyTorch recorded', async () => {
  const { page, errors } = await open(base);
  await settle(page);
  await page.setInputFiles('#open-recording', FILE);
  await page.waitForSelector('body[data-recording="1"]');
  await settle(page);
  await checkSteps(page);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'recording.png'), fullPage: true });
  // The Share button makes a recording link; opening it in a fresh page stands on the same step
  // with the same tensor selected.
  await step(page, 4);
  await select(page, 'b');
  await page.click('#share');
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#r1\./);
  const again = await open(link);
  await settle(again.page);
  assert.equal(await again.page.textContent('#stepno'), `4 / ${RECORDING.steps.length}`);
  assert.equal(await again.page.evaluate(() => window.stridelab.selected), 'b');
  assert.deepEqual((await cells(again.page)).map((c) => c.written), [true, false, false, true, false, false]);
  // Back to a trace: the editor takes edits again.
  await again.page.click('#recording-close');
  await again.page.waitForFunction(() => !document.body.dataset.recording);
  await settle(again.page);
  assert.equal(await again.page.evaluate(() => window.stridelab.editor.view.state.readOnly), false);
  assert.equal(await again.page.textContent('#editor-title'), 'Trace');
  assert.deepEqual(again.errors, []);
  await again.page.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test('opens a recording from a link made by the page\'s own encoder', async () => {
  const { page: maker } = await open(base);
  const made = JSON.parse(await maker.evaluate((json) => window.wasmBindings.shareEncodeRecording(json), fs.readFileSync(FILE, 'utf8')));
  await maker.close();
  assert.ok(made.fragment.startsWith('r1.'), JSON.stringify(made));
  const { page, errors } = await open(`${base}#${made.fragment}`);
  await settle(page);
  await checkSteps(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a file that is not a recording says why, and the page stays usable', async () => {
  const { page, errors } = await open(base);
  await settle(page);
  const bad = path.join(ARTIFACTS, 'not-a-recording.json');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(bad, '{"version": 1, "tensors": {}}');
  await page.setInputFiles('#open-recording', bad);
  await page.waitForSelector('#fatal:not([hidden])');
  assert.match(await page.textContent('#fatal'), /not a recording the page can read: recording: missing field `recorded`/);
  assert.equal(await page.evaluate(() => window.stridelab.editor.view.state.readOnly), false);
  assert.deepEqual(errors, []);
  await page.close();
});
