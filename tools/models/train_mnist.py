#!/usr/bin/env python3
"""Train the sample MNIST CNN that the ONNX front end's tests load, and export it.

Why this exists: the front end needs one real, small, trained model whose accuracy is known, so a
later phase can run it and compare. It trains on the real MNIST train set (CPU, seeded), measures
accuracy on all 10,000 test images, exports ONNX opset 13 with the legacy TorchScript exporter
(the dynamo exporter needs onnxscript and emits opset >= 18), and writes a JSON beside the model
with the accuracy, sha256 and the exact export settings.

    /work/venv/bin/python tools/models/train_mnist.py [--mnist DIR] [--out DIR]
"""
import argparse
import gzip
import hashlib
import json
import os
import platform
import random
import struct
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 0
EPOCHS = 3
BATCH = 64
LR = 2e-3
OPSET = 13
# Normalization is folded into the model so the ONNX graph takes raw pixels / 255.
MEAN, STD = 0.1307, 0.3081


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    zero, dtype, ndim = struct.unpack(">HBB", raw[:4])
    assert zero == 0 and dtype == 0x08, f"{path}: not a u8 IDX file"
    dims = struct.unpack(">" + "I" * ndim, raw[4 : 4 + 4 * ndim])
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    assert data.size == int(np.prod(dims)), f"{path}: count does not match the bytes"
    return data.reshape(dims)


class MnistCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = (x - MEAN) / STD
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def accuracy(model, images, labels):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(images), 1000):
            correct += (model(images[i : i + 1000]).argmax(1) == labels[i : i + 1000]).sum().item()
    return correct / len(images)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--mnist", default="/work/shared/data/mnist")
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "tests", "data", "models"))
    args = ap.parse_args()

    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(2)

    def load(kind):
        x = read_idx(os.path.join(args.mnist, f"{kind}-images-idx3-ubyte.gz"))
        y = read_idx(os.path.join(args.mnist, f"{kind}-labels-idx1-ubyte.gz"))
        x = torch.from_numpy(x.astype(np.float32) / 255.0).unsqueeze(1)
        return x, torch.from_numpy(y.astype(np.int64))

    train_x, train_y = load("train")
    test_x, test_y = load("t10k")

    model = MnistCnn()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    gen = torch.Generator().manual_seed(SEED)
    start = time.time()
    for epoch in range(EPOCHS):
        model.train()
        perm = torch.randperm(len(train_x), generator=gen)
        for i in range(0, len(perm), BATCH):
            idx = perm[i : i + BATCH]
            loss = F.cross_entropy(model(train_x[idx]), train_y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        acc = accuracy(model, test_x, test_y)
        print(f"epoch {epoch + 1}: test accuracy {acc:.4f} ({time.time() - start:.0f}s)", flush=True)
    acc = accuracy(model, test_x, test_y)
    assert acc >= 0.97, f"accuracy {acc} is under the 97% the sample model promises"

    os.makedirs(args.out, exist_ok=True)
    onnx_path = os.path.join(args.out, "mnist_cnn.onnx")
    export = dict(
        exporter="torch.onnx.export (TorchScript, dynamo=False)",
        opset_version=OPSET,
        input_names=["input"],
        output_names=["logits"],
        input_shape=[1, 1, 28, 28],
        dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
        do_constant_folding=True,
        export_params=True,
        input_scale="pixels / 255 (float32); the (x - 0.1307) / 0.3081 normalization is in the graph",
    )
    model.eval()
    torch.onnx.export(
        model,
        (torch.zeros(1, 1, 28, 28),),
        onnx_path,
        dynamo=False,
        opset_version=OPSET,
        input_names=export["input_names"],
        output_names=export["output_names"],
        dynamic_axes=export["dynamic_axes"],
        do_constant_folding=True,
        export_params=True,
    )
    import onnx  # only the export needs it (tools/bench/train_torch.py imports this module without)

    proto = onnx.load(onnx_path)
    onnx.checker.check_model(proto)

    # The ONNX file itself must score what the torch model scored.
    import onnxruntime as ort

    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    logits = sess.run(None, {"input": test_x.numpy()})[0]
    onnx_acc = float((logits.argmax(1) == test_y.numpy()).mean())

    meta = dict(
        model="mnist_cnn.onnx",
        architecture="normalize - conv(1->8,3x3,pad1) - relu - maxpool2 - conv(8->16,3x3,pad1) - relu - maxpool2 - flatten - gemm(784->10)",
        ops=sorted({n.op_type for n in proto.graph.node}),
        parameters=sum(p.numel() for p in model.parameters()),
        test_accuracy=acc,
        test_accuracy_onnxruntime=onnx_acc,
        test_set="MNIST t10k, all 10,000 images",
        training=dict(
            seed=SEED, epochs=EPOCHS, batch=BATCH, optimizer="Adam", lr=LR,
            lr_schedule="StepLR(step_size=1, gamma=0.5)", device="cpu", threads=2,
            seconds=round(time.time() - start),
        ),
        export=export,
        sha256=sha256(onnx_path),
        bytes=os.path.getsize(onnx_path),
        versions=dict(torch=torch.__version__, onnx=onnx.__version__, python=platform.python_version()),
    )
    with open(os.path.join(args.out, "mnist_cnn.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print(json.dumps(meta, indent=2))


if __name__ == "__main__":
    main()
