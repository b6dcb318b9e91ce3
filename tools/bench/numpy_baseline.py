"""numpy's side of the kernel benchmark, measured the same way (median and best of repeats).

Run beside `cargo bench -p stridelab-gpu --bench kernels`:
    /work/venv/bin/python tools/bench/numpy_baseline.py
(needs numpy; the fixture venv has it). Prints one line per figure, in milliseconds. The add
writes into a preallocated output, as the GPU kernel does; the plain `a + b` (which also
allocates the result) is printed beside it. With `--json` it prints one JSON object instead,
figure name to median seconds: the GPU bench spawns it that way to print both sides together.
"""
import json
import statistics
import sys
import timeit

import numpy as np


AS_JSON = "--json" in sys.argv[1:]
medians = {}


def show(name, fn, number, repeat, flops=None, nbytes=None):
    times = [t / number for t in timeit.repeat(fn, number=number, repeat=repeat)]
    med, best = statistics.median(times), min(times)
    medians[name] = med
    if AS_JSON:
        return
    rate = ""
    if flops:
        rate = f"  {flops / med / 1e9:.2f} GFLOP/s"
    if nbytes:
        rate = f"  {nbytes / med / 1e9:.2f} GB/s"
    print(f"numpy {name:<32} {med * 1e3:9.3f} ms  (best {best * 1e3:.3f} ms){rate}")


n = 1 << 24
a = np.arange(n, dtype=np.float32)
b = np.arange(n, dtype=np.float32) * 0.5
c = np.empty_like(a)
show("add 2^24 f32 (into c)", lambda: np.add(a, b, out=c), 5, 7, nbytes=12 * n)
show("add 2^24 f32 (a + b)", lambda: a + b, 5, 7, nbytes=12 * n)
show("sum 2^24 f32", lambda: a.sum(), 5, 7, nbytes=4 * n)
for m in (256, 1024):
    x = ((np.arange(m * m) % 97) / 97 - 0.5).astype(np.float32).reshape(m, m)
    y = ((np.arange(m * m) % 89) / 89 - 0.5).astype(np.float32).reshape(m, m)
    show(f"matmul {m} f32", lambda: x @ y, 20 if m < 512 else 2, 5, flops=2 * m**3)
if AS_JSON:
    print(json.dumps(medians))
