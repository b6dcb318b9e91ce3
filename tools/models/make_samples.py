#!/usr/bin/env python3
"""Build the small dataset samples under tests/data/ that the readers' tests load.

Why this exists: the tests need real, valid files in each supported format, small enough to
commit. MNIST: the first 1,000 test images and labels, rewritten as valid IDX files whose
declared count is 1,000, gzip'd reproducibly (mtime 0, no file name). CIFAR-10: no real file can
be had here, so 100 synthetic 3073-byte records (labels 0-9 in turn; each image is a class-coloured
gradient plus seeded noise, so the classes differ visibly). Prints the sha256 of every file, for
tests/data/README.md.

    /work/venv/bin/python tools/models/make_samples.py [--mnist DIR] [--out DIR]
"""
import argparse
import gzip
import hashlib
import os
import struct

import numpy as np

COUNT = 1000
CIFAR_RECORDS = 100


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    zero, code, ndim = struct.unpack(">HBB", raw[:4])
    assert zero == 0 and code == 0x08, f"{path}: not a u8 IDX file"
    dims = struct.unpack(">" + "I" * ndim, raw[4 : 4 + 4 * ndim])
    data = raw[4 + 4 * ndim :]
    assert len(data) == int(np.prod(dims)), f"{path}: count does not match the bytes"
    return dims, data


def idx_bytes(dims, data):
    return struct.pack(">HBB", 0, 0x08, len(dims)) + struct.pack(">" + "I" * len(dims), *dims) + data


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    print(f"{os.path.relpath(path)}  {len(data)} bytes  sha256 {hashlib.sha256(data).hexdigest()}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--mnist", default="/work/shared/data/mnist")
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "tests", "data"))
    args = ap.parse_args()

    for kind, src, dst in [
        ("images", "t10k-images-idx3-ubyte.gz", "t10k-images-1k-idx3-ubyte.gz"),
        ("labels", "t10k-labels-idx1-ubyte.gz", "t10k-labels-1k-idx1-ubyte.gz"),
    ]:
        dims, data = read_idx(os.path.join(args.mnist, src))
        item = int(np.prod(dims[1:]))
        raw = idx_bytes((COUNT,) + tuple(dims[1:]), data[: COUNT * item])
        print(f"  {kind}: decompressed sha256 {hashlib.sha256(raw).hexdigest()} ({len(raw)} bytes)")
        write(os.path.join(args.out, "mnist", dst), gzip.compress(raw, compresslevel=9, mtime=0))

    rng = np.random.RandomState(0)
    ys, xs = np.mgrid[0:32, 0:32]
    records = []
    for i in range(CIFAR_RECORDS):
        label = i % 10
        # A per-class base colour and gradient direction, plus noise, in CHW order.
        base = np.array([(label * 25) % 256, (label * 70 + 40) % 256, (255 - label * 25) % 256])
        grad = (xs if label % 2 == 0 else ys) * 4
        img = base[:, None, None] * 0.6 + grad[None, :, :] * 0.4 + rng.randint(0, 24, size=(3, 32, 32))
        img = np.clip(img, 0, 255).astype(np.uint8)
        records.append(bytes([label]) + img.tobytes())
    write(os.path.join(args.out, "cifar", "sample_batch.bin"), b"".join(records))


if __name__ == "__main__":
    main()
