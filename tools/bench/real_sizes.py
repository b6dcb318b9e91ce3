#!/usr/bin/env python3
"""Real sizes side by side: each program in programs/ run by PyTorch and by `stridelab run --json`
in the same invocation, with wall time and peak memory of each.

    python tools/bench/real_sizes.py [--bin target/release/stridelab] [--repeat 3] [PROGRAM ...]

Without PROGRAMs it runs the real-size set; the per-statement costs (a loop with a
million-element list in scope, 2,000 nested `nn.Sequential`, in-place and out-of-place adds on
2^22 elements, a 4,000-step autograd chain) are

    python tools/bench/real_sizes.py scope_loop.py nested_sequential.py inplace_add.py \
        out_of_place_add.py autograd_chain.py

PyTorch runs the program after `import torch` with one thread (its import is not counted);
stridelab is timed as the whole `stridelab run --json PROGRAM > /dev/null` process, report
included. Peak memory is each process's maximum resident set. Use a venv with torch
(tools/fixtures/requirements.txt); nothing here is a dependency of the product or its tests.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = ["nanogpt_step.py", "mlp_loop.py", "embedding.py", "views_10k.py"]

# Run in a fresh interpreter so that its peak resident set is the program's alone.
TORCH = r"""
import resource, sys, time, io, contextlib
import torch
torch.set_num_threads(1)
src = open(sys.argv[1]).read()
t = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    exec(compile(src, sys.argv[1], "exec"), {"__name__": "__main__"})
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

# The same for a child process: its wall time and the children's peak resident set.
CHILD = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)
"""


def measure(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]) / 1024.0, (int(out[2]) if len(out) > 2 else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "stridelab"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("programs", nargs="*", default=PROGRAMS)
    args = ap.parse_args()
    rows = []
    for name in args.programs:
        path = os.path.join(HERE, "programs", name)
        torch_runs = [measure([sys.executable, "-c", TORCH, path]) for _ in range(args.repeat)]
        ours = [measure([sys.executable, "-c", CHILD, args.bin, "run", "--json", path]) for _ in range(args.repeat)]
        if any(code != 0 for _, _, code in ours):
            sys.exit(f"{name}: stridelab failed")
        t_torch, m_torch = min(r[0] for r in torch_runs), max(r[1] for r in torch_runs)
        t_ours, m_ours = min(r[0] for r in ours), max(r[1] for r in ours)
        rows.append({"program": name, "stridelab_s": t_ours, "stridelab_mb": m_ours,
                     "torch_s": t_torch, "torch_mb": m_torch, "ratio": t_ours / t_torch})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'program':<18} {'stridelab':>16} {'PyTorch':>16} {'ratio':>7}")
    for r in rows:
        print(f"{r['program']:<18} {r['stridelab_s']:7.2f} s {r['stridelab_mb']:5.0f} MB "
              f"{r['torch_s']:7.2f} s {r['torch_mb']:5.0f} MB {r['ratio']:6.1f}x")


if __name__ == "__main__":
    main()
