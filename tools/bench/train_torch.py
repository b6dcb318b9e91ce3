#!/usr/bin/env python3
"""The sample MNIST CNN trained in PyTorch exactly as `stridelab train` trains it.

Why this exists: the training plan (crates/core/src/train) claims PyTorch's initialisation, batch
order, loss, gradients and optimizer steps. This script is the other side of that claim, in the
ten lines a PyTorch user would write: `torch.manual_seed(seed)`, the model's constructor, one
`torch.Generator().manual_seed(seed)` whose `randperm` orders each epoch, pixels / 255 as float32,
`F.cross_entropy`, `zero_grad(); backward(); step()` with the optimizer's single-tensor loop.

    # the fixture the tests replay (50 steps of three optimizers on the committed 1k sample)
    python tools/bench/train_torch.py record --out tests/fixtures/train_mnist.json
    # one-thread step time at batch 64 and one epoch of the 60,000 images, as JSON
    python tools/bench/train_torch.py bench --mnist ../shared/data/mnist [--epochs 1]

Use a venv with torch and numpy (tools/fixtures/requirements.txt); nothing here is a dependency
of the product or of its tests.
"""
import argparse
import base64
import json
import os
import platform
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
# The sample model's own definition: the architecture `Architecture::mnist_cnn()` names.
sys.path.insert(0, os.path.join(ROOT, "tools", "models"))
from train_mnist import MnistCnn, read_idx  # noqa: E402


OPTIMIZERS = {
    "adam": lambda p: torch.optim.Adam(p, lr=1e-3),
    "adamw-amsgrad": lambda p: torch.optim.AdamW(p, lr=2e-3, weight_decay=0.05, amsgrad=True),
    "sgd-nesterov": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4),
}


def pixels(images):
    return torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1)


def train(images, labels, seed, batch, make_opt, steps, on_step=None):
    torch.manual_seed(seed)
    model = MnistCnn()
    opt = make_opt(model.parameters())
    gen = torch.Generator().manual_seed(seed)
    x_all, y_all = pixels(images), torch.from_numpy(labels.astype(np.int64))
    done, losses = 0, []
    while done < steps:
        perm = torch.randperm(len(x_all), generator=gen)
        for i in range(0, len(perm), batch):
            idx = perm[i : i + batch]
            loss = F.cross_entropy(model(x_all[idx]), y_all[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            done += 1
            if on_step:
                on_step(done)
            if done == steps:
                break
    return model, losses


def record(args):
    images = read_idx(os.path.join(ROOT, "tests/data/mnist/t10k-images-1k-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(ROOT, "tests/data/mnist/t10k-labels-1k-idx1-ubyte.gz"))
    torch.set_num_threads(1)
    runs = []
    for name, make in OPTIMIZERS.items():
        model, losses = train(images, labels, seed=0, batch=64, make_opt=make, steps=args.steps)
        runs.append(
            dict(
                optimizer=name,
                seed=0,
                batch=64,
                steps=args.steps,
                losses=losses,
                # float32 little-endian, base64: the exact bits, a quarter of the JSON text.
                params={k: base64.b64encode(v.detach().numpy().astype("<f4").tobytes()).decode()
                        for k, v in model.named_parameters()},
            )
        )
    out = dict(
        what="the sample MNIST CNN trained on the committed 1k test images; losses per step, parameters after the last "
             "(float32 little-endian, base64)",
        made_by="tools/bench/train_torch.py record",
        versions=dict(torch=torch.__version__, numpy=np.__version__, python=platform.python_version()),
        runs=runs,
    )
    with open(args.out, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.out}: {len(runs)} runs of {args.steps} steps")


def bench(args):
    torch.set_num_threads(1)
    images = read_idx(os.path.join(args.mnist, "train-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(args.mnist, "train-labels-idx1-ubyte.gz"))
    test_x = pixels(read_idx(os.path.join(args.mnist, "t10k-images-idx3-ubyte.gz")))
    test_y = torch.from_numpy(read_idx(os.path.join(args.mnist, "t10k-labels-idx1-ubyte.gz")).astype(np.int64))
    stamps = []
    per_epoch = (len(labels) + args.batch - 1) // args.batch
    start = time.perf_counter()
    model, losses = train(images, labels, args.seed, args.batch, OPTIMIZERS["adam"], per_epoch * args.epochs,
                          on_step=lambda _: stamps.append(time.perf_counter()))
    total = time.perf_counter() - start
    steps_ms = sorted(1e3 * (b - a) for a, b in zip(stamps, stamps[1:]))
    model.eval()
    with torch.no_grad():
        correct = sum((model(test_x[i : i + 1000]).argmax(1) == test_y[i : i + 1000]).sum().item()
                      for i in range(0, len(test_y), 1000))
    print(json.dumps(dict(
        torch=torch.__version__, threads=torch.get_num_threads(), batch=args.batch, epochs=args.epochs,
        step_ms_median=steps_ms[len(steps_ms) // 2], step_ms_p10=steps_ms[len(steps_ms) // 10],
        step_ms_p90=steps_ms[len(steps_ms) * 9 // 10], seconds=total, final_loss=losses[-1],
        test_accuracy=correct / len(test_y),
    ), indent=2))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--out", default=os.path.join(ROOT, "tests/fixtures/train_mnist.json"))
    r.add_argument("--steps", type=int, default=50)
    b = sub.add_parser("bench")
    b.add_argument("--mnist", default=os.path.join(ROOT, "..", "shared", "data", "mnist"))
    b.add_argument("--epochs", type=int, default=1)
    b.add_argument("--batch", type=int, default=64)
    b.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    {"record": record, "bench": bench}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
