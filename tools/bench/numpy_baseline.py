"""numpy's time for the interpreter benchmarks, measured the same way (best of repeated runs).

Run beside `cargo bench -p stridelab-core --bench trace -- interpreter`:
    python3 tools/bench/numpy_baseline.py
(needs numpy; the fixture venv has it). Prints one line per benchmark, in milliseconds.
"""
import timeit

import numpy as np

n = 1 << 22
a = np.arange(n, dtype=np.float32) * 0.5
b = 1 - np.arange(n, dtype=np.float32)
for name, fn in [("add 2^22 f32", lambda: a + b), ("sum 2^22 f32", lambda: a.sum())]:
    best = min(timeit.repeat(fn, number=20, repeat=7)) / 20
    print(f"numpy {name}: {best * 1e3:.2f} ms")
