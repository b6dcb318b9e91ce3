#!/usr/bin/env python3
"""Copy the subset of ONNX's backend node tests that the front end supports into tests/data/onnx_node/.

Why this exists: the front end is checked against ONNX's own test models rather than ones we
wrote, and a later phase runs them once the kernels exist. A test is kept when every node's op is
in the supported set, every graph input/output and test tensor is of an element type the front end decodes, and the whole test directory is small (the subset stays < 3 MB).

    /work/venv/bin/python tools/models/pick_onnx_node_tests.py
"""
import os
import re
import shutil
import sys

import onnx

def supported_ops():
    """The op names of the front end's op table (`OPS` in crates/core/src/onnx/mod.rs)."""
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crates", "core", "src", "onnx", "mod.rs")).read()
    table = src[src.index("pub const OPS"):src.index("/// The names of [`OPS`]")]
    return set(re.findall(r'^\s*\(\s*"([A-Za-z0-9]+)"', table, re.M))


SUPPORTED = supported_ops()
ELEM_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16, onnx.TensorProto.INT8,
              onnx.TensorProto.UINT8, onnx.TensorProto.INT16, onnx.TensorProto.INT32, onnx.TensorProto.INT64,
              onnx.TensorProto.BOOL}
MAX_DIR_BYTES = 32 * 1024


def keep(path):
    model = onnx.load(os.path.join(path, "model.onnx"))
    if not {n.op_type for n in model.graph.node} <= SUPPORTED:
        return False
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    if not 11 <= opset <= 25:  # OPSET_RANGE
        return False
    for v in list(model.graph.input) + list(model.graph.output):
        if v.type.tensor_type.elem_type not in ELEM_TYPES:
            return False
    for root, _, files in os.walk(path):
        for f in files:
            if f.endswith(".pb"):
                t = onnx.TensorProto()
                with open(os.path.join(root, f), "rb") as fh:
                    t.ParseFromString(fh.read())
                if t.data_type not in ELEM_TYPES:
                    return False
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)
    return size <= MAX_DIR_BYTES


def main():
    assert onnx.__version__ == "1.22.0", f"the committed subset is from onnx 1.22.0, not {onnx.__version__}"
    src = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    here = os.path.dirname(os.path.abspath(__file__))
    dst = os.path.join(here, "..", "..", "tests", "data", "onnx_node")
    shutil.rmtree(dst, ignore_errors=True)
    kept = [d for d in sorted(os.listdir(src)) if os.path.exists(os.path.join(src, d, "model.onnx")) and keep(os.path.join(src, d))]
    for d in kept:
        shutil.copytree(os.path.join(src, d), os.path.join(dst, d))
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(dst) for f in fs)
    print(f"kept {len(kept)} tests, {total} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
