"""What one tensor is, in the fields of stridelab's report (`tensors[name]`), read from PyTorch.

Only PyTorch is asked: sizes, strides, offset, storage, version counter, autograd state and
values. The fields only stridelab computes (tinygrad's `views`, `index`, `valid`, the bridge's
`bridge`) are left out; the reader fills tinygrad's view in as a prediction.
"""

import math
import re
import struct
import weakref

import torch

# Dtypes whose values are written as the shortest decimal that round-trips their float32 value,
# as the report writes them.
_SHORT_FLOATS = (torch.float32, torch.float16, torch.bfloat16)


def dtype_name(dt):
    """PyTorch's own name without the module: `float32`, `int64`, `bool`, ..."""
    return str(dt).rsplit(".", 1)[-1]


def _f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def encode_float(x, short):
    """A float as the report writes it: "nan" / "inf" / "-inf" as strings, a float32 value as
    its shortest round-tripping decimal (0.1f32 is 0.1)."""
    if x != x:
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if not short:
        return x
    for digits in range(1, 10):
        y = float("%.*g" % (digits, x))
        if _f32(y) == x:
            return y
    return x


def encode_values(flat, dtype):
    """Row-major values of a 1-D CPU tensor: ints for integer and bool tensors, floats else."""
    if dtype.is_complex:
        # The report has no complex values: each element as [real, imaginary].
        return [[encode_float(v.real, False), encode_float(v.imag, False)] for v in flat.tolist()]
    if dtype == torch.bool:
        return [int(v) for v in flat.tolist()]
    if dtype.is_floating_point:
        short = dtype in _SHORT_FLOATS
        if short:
            flat = flat.float()
        return [encode_float(float(v), short) for v in flat.tolist()]
    return [int(v) for v in flat.tolist()]


def values_of(t, limit):
    """`(values, values_total)`: all values up to `limit`, else the first `limit` in row-major
    order and the element count (the report's `values_total`)."""
    n = t.numel()
    try:
        flat = t.detach().reshape(-1)
        if n > limit:
            flat = flat[:limit]
        flat = flat.cpu()
        if flat.is_conj():
            flat = flat.resolve_conj()
        if flat.is_neg():
            flat = flat.resolve_neg()
        return encode_values(flat, t.dtype), (n if n > limit else None)
    except (RuntimeError, TypeError, NotImplementedError):
        # Meta, sparse or quantized tensors have no readable values.
        return [], (n if n else None)


def memory_format(t):
    """The format the layout is dense in, as the report names it (the suggested one when it is
    dense in several), or None."""
    formats = []
    for name, fmt, rank in (
        ("contiguous", torch.contiguous_format, None),
        ("channels_last", torch.channels_last, 4),
        ("channels_last_3d", torch.channels_last_3d, 5),
    ):
        if rank is not None and t.dim() != rank:
            continue
        try:
            if t.is_contiguous(memory_format=fmt):
                formats.append((name, fmt))
        except RuntimeError:
            pass
    if not formats:
        return None
    if len(formats) > 1:
        try:
            from torch._prims_common import suggest_memory_format

            suggested = suggest_memory_format(t)
            for name, fmt in formats:
                if fmt == suggested:
                    return name
        except Exception:  # a private helper: when it is missing, the first format fits
            pass
    return formats[0][0]


class Storages:
    """Storage identity: each storage a small int in order of first appearance.

    PyTorch keeps one Python object per live storage (`t.untyped_storage()` is the same object
    for every tensor on it while the storage lives), so identity is that object's, checked
    through a weak reference: a storage freed and a new one at the same address are two storages,
    and an empty storage (address 0) is its own.
    """

    def __init__(self):
        self._by_object = {}
        self._refs = {}
        self.count = 0
        self.itemsize = {}

    def id_of(self, t):
        st = t.untyped_storage()
        entry = self._by_object.get(id(st))
        if entry is not None and entry[0]() is st:
            return entry[1]
        sid = self.count
        self.count += 1
        try:
            ref = weakref.ref(st)
        except TypeError:
            ref = lambda st=st: st  # noqa: E731 (kept alive: identity stays right)
        self._by_object[id(st)] = (ref, sid)
        self._refs[sid] = ref
        self.itemsize[sid] = t.element_size()
        return sid

    def alive(self, sid):
        ref = self._refs.get(sid)
        return ref is not None and ref() is not None


def autograd_of(t, limit):
    """`requires_grad`, `is_leaf`, `grad_fn` (PyTorch's class name), `.grad` (read for leaves
    and tensors that retain their grad) and `grad_shape`; where reading the node raises (a
    multi-output or no_grad view after an in-place write), `grad_fn_error` and nulls."""
    out = {"requires_grad": t.requires_grad, "is_leaf": None, "grad_fn": None, "grad": None, "grad_shape": None}
    try:
        readable = t.is_leaf or t.retains_grad
    except RuntimeError:
        readable = t.retains_grad
    grad = t.grad if readable else None
    if grad is not None:
        out["grad"], _ = values_of(grad, limit)
        out["grad_shape"] = list(grad.shape)
    try:
        out["is_leaf"] = t.is_leaf
        fn = t.grad_fn
        out["grad_fn"] = type(fn).__name__ if fn is not None else None
    except RuntimeError as e:
        out["grad_fn_error"] = str(e).split("\n")[0]
    return out


def describe(t, storages, limit):
    """The report's record of one tensor, without the fields only stridelab computes."""
    values, total = values_of(t, limit)
    rec = {"shape": list(t.shape), "dtype": dtype_name(t.dtype), "values": values}
    if total is not None:
        rec["values_total"] = total
    rec["torch"] = {
        "strides": list(t.stride()),
        "storage_offset": t.storage_offset(),
        "storage": storages.id_of(t),
        "is_view": t._is_view(),
        "version": t._version,
        "is_contiguous": t.is_contiguous(),
        "memory_format": memory_format(t),
        "channels_last": t.is_contiguous(memory_format=torch.channels_last) if t.dim() == 4 else None,
    }
    rec["autograd"] = autograd_of(t, limit)
    return rec


def key_of(t):
    """What decides whether a tensor's record can have changed since it was last described: its
    object, layout, version, autograd state and `.grad`."""
    try:
        fn = t.grad_fn
    except RuntimeError:
        fn = "error"
    grad = t.grad if t.is_leaf else None
    return (
        id(t),
        tuple(t.shape),
        tuple(t.stride()),
        t.storage_offset(),
        t._version,
        t.dtype,
        t.requires_grad,
        id(fn),
        None if grad is None else (id(grad), grad._version),
    )


# --------------------------------------------------------------------------------------------
# Errors, classified as stridelab classifies them.
# --------------------------------------------------------------------------------------------

# Python's own exceptions, by class.
_KINDS = {
    "AssertionError": "assertion",
    "NameError": "name",
    "UnboundLocalError": "name",
    "AttributeError": "name",
    "ValueError": "value",
    "ZeroDivisionError": "value",
    "OverflowError": "value",
    "KeyError": "index",
    "SyntaxError": "parse",
    "IndentationError": "parse",
    "TypeError": "type",
    "IndexError": "index",
}

# PyTorch's errors (RuntimeError and its kin), by message: the first pattern found decides.
_MESSAGE_KINDS = [
    ("one of the variables needed for gradient computation has been modified by an inplace", "autograd"),
    ("a leaf Variable that requires grad is being used in an in-place operation", "autograd"),
    ("is a view and is being modified inplace", "autograd"),
    ("is a view and its base or another view of its base has been modified inplace", "autograd"),
    ("A view was created in no_grad mode and", "autograd"),
    ("Trying to backward through the graph a second time", "autograd"),
    ("grad can be implicitly created only for scalar outputs", "autograd"),
    ("does not require grad and does not have a grad_fn", "autograd"),
    ("One of the differentiated Tensors does not require grad", "autograd"),
    ("appears to not have been used in the graph", "autograd"),
    ("Mismatch in shape: grad_output", "autograd"),
    ("can require gradients", "autograd"),
    ("you can only change requires_grad flags of leaf variables", "autograd"),
    ("don't support automatic differentiation", "autograd"),
    ("cannot resize variables that require grad", "autograd"),
    ("data set to a tensor that requires gradients", "autograd"),
    ("single memory location", "overlap"),
    ("unsupported operation: some elements of the input tensor and the written-to tensor", "overlap"),
    ("can't be cast", "dtype"),
    ("could not infer output dtype", "dtype"),
    ("to have the same dtype", "dtype"),
    ("expected scalar type", "dtype"),
    ("not implemented for", "dtype"),
    ("view size is not compatible", "view"),
    ("step must be greater than zero", "unsupported"),
    ("out of range", "index"),
    ("out of bounds", "index"),
    ("exceeds dimension size", "index"),
    ("is invalid for input of size", "shape"),
    ("only one dimension can be inferred", "shape"),
    ("must match", "shape"),
    ("doesn't match the broadcast shape", "shape"),
    ("cannot be multiplied", "shape"),
    ("size mismatch", "shape"),
    ("Expected size", "shape"),
    ("expected input", "shape"),
]

_VERSIONS = re.compile(r"is at version (\d+); expected version (\d+) instead")
_SAVED_SHAPE = re.compile(r"\[torch\.\w+ \[([\d, ]*)\]\]")


def error_message(e):
    """PyTorch's message as a user sees it: some of c10's errors carry the C++ backtrace inside
    the message (machine paths and addresses); it is cut, a closing quote it interrupted kept."""
    text = str(e)
    cut = text.find("\nException raised from ")
    if cut >= 0:
        tail = text[cut:].rstrip("\n")
        text = text[:cut] + ('"' if tail.endswith('"') else "")
    return text


def error_kind(e):
    """The report's error kind for an exception (`runtime` where no rule names one)."""
    name = type(e).__name__
    if name in _KINDS:
        return _KINDS[name]
    text = str(e)
    for pattern, kind in _MESSAGE_KINDS:
        if pattern in text:
            return kind
    if "IndexError" in name:
        return "index"
    return "runtime"


def stale_versions(message):
    """`(shape, version, saved_version)` from autograd's "modified by an inplace operation"
    message, or None."""
    m = _VERSIONS.search(message)
    if not m:
        return None
    s = _SAVED_SHAPE.search(message)
    shape = [int(x) for x in s.group(1).split(",") if x.strip()] if s else None
    return shape, int(m.group(1)), int(m.group(2))
