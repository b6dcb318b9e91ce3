"""Reference outputs of the sample MNIST model from onnxruntime (CPU provider).

Feeds the first 64 images of tests/data/mnist/t10k-images-1k-idx3-ubyte.gz as float32 pixels / 255
in (64, 1, 28, 28) and writes the `logits` output, with the versions that produced it, to
tests/data/models/mnist_cnn_ort64.json. Run with the venv that has onnxruntime and numpy.
"""
import gzip
import hashlib
import json
import pathlib

import numpy as np
import onnxruntime as ort

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
N = 64


def main() -> None:
    raw = gzip.decompress((DATA / "mnist" / "t10k-images-1k-idx3-ubyte.gz").read_bytes())
    assert raw[:4] == b"\x00\x00\x08\x03", "IDX magic for uint8 3-D"
    images = np.frombuffer(raw, dtype=np.uint8, offset=16).reshape(-1, 1, 28, 28)[:N]
    x = images.astype(np.float32) / np.float32(255.0)
    model_path = DATA / "models" / "mnist_cnn.onnx"
    sess = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    (logits,) = sess.run(["logits"], {"input": x})
    out = {
        "model_sha256": hashlib.sha256(model_path.read_bytes()).hexdigest(),
        "onnxruntime": ort.__version__,
        "images": "mnist/t10k-images-1k-idx3-ubyte.gz",
        "first": N,
        "input": {"name": "input", "shape": list(x.shape), "scale": "pixels / 255"},
        "output": {"name": "logits", "shape": list(logits.shape), "values": [float(v) for v in logits.ravel()]},
    }
    (DATA / "models" / "mnist_cnn_ort64.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
