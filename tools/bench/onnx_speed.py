#!/usr/bin/env python3
"""ONNX models at real sizes: onnxruntime (one thread) against stridelab's CPU plan, same run.

    /work/venv/bin/python tools/bench/onnx_speed.py [--bin target/release/stridelab] [--runs 20]
        [--models resnet18 gpt]

Builds, with fixed seeds and random weights, ResNet-18 as torchvision defines it (BasicBlocks
[2, 2, 2, 2], widths 64-512, one 3x224x224 image) and a GPT-2-style decoder (nanoGPT attention,
vocabulary 1,000, context 64, width 128, 4 layers, 4 heads, one sequence of 64 tokens), exports
each with the classic exporter at opset 17, and times, one after the other in this process's run:
- onnxruntime with one intra- and inter-op thread, the median of `--runs` runs after a warm-up;
- `stridelab model capture` then `model replay --runs N --json` (the CPU plan; its median `ms`);
- `stridelab model run --runs N --json` (the same plan built from the model; its median `ms`).
Outputs are compared with onnxruntime's (largest relative difference). Nothing here is a
dependency of the product or its tests.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The export fixtures' modules, at real sizes here.
sys.path.insert(0, os.path.join(ROOT, "tools", "models"))
from make_export_models import GPT, BasicBlock, randomize  # noqa: E402


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(3, 2, 1)
        blocks, cin = [], 64
        for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        return self.fc(torch.flatten(self.avg(self.blocks(x)), 1))


def build(name):
    torch.manual_seed(0)
    if name == "resnet18":
        model = ResNet18()
        x = torch.from_numpy(np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32))
        return model, x, "x"
    model = GPT(vocab=1000, block=64, d=128, heads=4, layers=4)
    x = torch.from_numpy(np.random.default_rng(1).integers(0, 1000, (1, 64)).astype(np.int64))
    return model, x, "idx"


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return r.stdout


def max_rel(ours, ref):
    ours, ref = np.asarray(ours, np.float64).reshape(-1), ref.astype(np.float64).reshape(-1)
    return float(np.max(np.abs(ours - ref)) / max(1e-30, float(np.max(np.abs(ref)))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "stridelab"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--models", nargs="*", default=["resnet18", "gpt"])
    ap.add_argument("--skip-run", action="store_true", help="time only the capture's replay")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="onnx_speed_")
    rows = []
    for name in args.models:
        model, x, input_name = build(name)
        randomize(model, 2)
        model.eval()
        path = os.path.join(tmp, f"{name}.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x,), path, opset_version=17, dynamo=False,
                              input_names=[input_name], output_names=["y"])
        npy = os.path.join(tmp, f"{name}_in.npy")
        np.save(npy, x.numpy())
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        feed = {input_name: x.numpy()}
        ref = sess.run(None, feed)[0]
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            sess.run(None, feed)
            times.append((time.perf_counter() - t) * 1e3)
        ort_ms = statistics.median(times)
        cap = os.path.join(tmp, f"{name}_capture")
        run([args.bin, "model", "capture", path, cap])
        rep = json.loads(run([args.bin, "model", "replay", cap, "--input", f"{input_name}={npy}",
                              "--runs", str(args.runs), "--json"]))
        row = {"model": name, "ort_ms": ort_ms, "replay_ms": rep["ms"],
               "replay_err": max_rel(rep["outputs"]["y"]["values"], ref)}
        kernels = sorted(rep["kernels"], key=lambda k: -k["ms"])
        row["top"] = [(k["op"], round(k["ms"], 3), k.get("direct")) for k in kernels[:8]]
        interp = [k["op"] for k in rep["kernels"] if not k.get("direct")]
        row["interpreted"] = sorted(set(interp))
        if not args.skip_run:
            out = json.loads(run([args.bin, "model", "run", path, "--input", f"{input_name}={npy}",
                                  "--runs", str(args.runs), "--json"]))
            row["run_ms"] = out["ms"]
            row["run_err"] = max_rel(out["outputs"]["y"]["values"], ref)
        rows.append(row)
        print(json.dumps(row), flush=True)
    for r in rows:
        ratio = r["replay_ms"] / r["ort_ms"]
        extra = f", model run {r['run_ms']:.1f} ms" if "run_ms" in r else ""
        print(f"{r['model']}: onnxruntime {r['ort_ms']:.2f} ms, replay {r['replay_ms']:.2f} ms "
              f"({ratio:.2f}x){extra}")


if __name__ == "__main__":
    main()
