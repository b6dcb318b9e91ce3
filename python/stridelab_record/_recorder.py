"""The recorder: runs under `sys.settrace`, line events of the user's own files only, and turns
each executed line into one step of stridelab's report.

A line's step closes when the next event of its frame arrives (its next line, its return or
its exception): the step then holds what the line did, writes by the functions it called
included. Writes are found by comparing each storage with a copy taken at the previous step,
cell by cell, where a version counter on it moved (and always for small storages, which
catches writes through `.data`).
"""

import io
import json
import linecache
import os
import sys
import sysconfig

import torch

from . import _describe as d

RECORDER_VERSION = "0.2.0"


class Limits:
    """How much a recording may hold. A limit that cuts the recording says so in
    `recorded.cut`; the program itself always runs to its end."""

    def __init__(self, steps=10_000, bytes=64 << 20, values=4096, compare_bytes=16 << 20, nodes=20_000):
        self.steps = steps  # steps recorded, at most
        self.bytes = bytes  # the recording's size, about
        self.values = values  # values listed per tensor (then `values_total`)
        self.compare_bytes = compare_bytes  # storages larger than this are not compared cell by cell
        self.nodes = nodes  # autograd nodes followed

    def as_json(self):
        return dict(vars(self))


def _library_dirs():
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            dirs.add(os.path.realpath(p))
    for mod in (torch, json):
        dirs.add(os.path.realpath(os.path.dirname(os.path.dirname(mod.__file__))))
    dirs.add(os.path.realpath(os.path.dirname(__file__)))
    return tuple(sorted(dirs))


_LIBRARIES = _library_dirs()


class _Tee(io.TextIOBase):
    """Standard output, kept as it is written (and passed on unless `echo` is off)."""

    def __init__(self, inner, echo):
        self.inner, self.echo, self.parts = inner, echo, []

    def write(self, s):
        self.parts.append(s)
        return self.inner.write(s) if self.echo else len(s)

    def flush(self):
        if self.echo:
            self.inner.flush()

    def take(self):
        text, self.parts = "".join(self.parts), []
        return text


def _cells(t):
    """The storage cells a tensor covers (in units of its element size), or None if unknown."""
    try:
        n = t.untyped_storage().nbytes() // t.element_size()
        return torch.arange(n).as_strided(t.shape, t.stride(), t.storage_offset()).reshape(-1)
    except RuntimeError:
        return None


def _is_leaf_node(fn):
    """AccumulateGrad: the report shows it as a `{"leaf": name}` edge, not as a node."""
    return fn is not None and hasattr(fn, "variable")


def _byte_view(st):
    b = torch.empty(0, dtype=torch.uint8, device=st.device).set_(st)
    return b if b.device.type == "cpu" else b.cpu()


class Recorder:
    def __init__(self, limits=None, main_file=None, echo=True, exclude=()):
        self.limits = limits or Limits()
        # Folders of code that is not the user's although it lives outside the libraries.
        self.exclude = tuple(os.path.realpath(p) for p in exclude)
        self.main_file = os.path.realpath(main_file) if main_file else None
        self.storages = d.Storages()
        self.steps = []
        self.size = 0
        self.cut = None
        self.stopped = False
        self.pending = {}  # frame -> the line it is running
        self.bindings = {}  # frame -> {name: id(value)} at its last step
        self.keys = {}  # name -> what its record was made from (see describe.key_of)
        self.shadows = {}  # storage id -> (copy of its bytes, element size, versions seen)
        self.refs = {}  # storage id -> a weak reference to a tensor on it (is it alive)
        self.nodes = {}  # id(node) -> [node, line, order]
        self.stale_line = None
        self.error = None
        self.exit_code = None
        self.echo = echo
        self.tee = None
        self._user = {}
        self._previous_trace = None

    # ---- which code is the user's
    def is_user(self, filename):
        hit = self._user.get(filename)
        if hit is None:
            if filename.startswith("<"):
                hit = False
            else:
                real = os.path.realpath(filename)
                hit = real == self.main_file or not any(
                    real == lib or real.startswith(lib + os.sep) for lib in _LIBRARIES + self.exclude
                )
            self._user[filename] = hit
            if hit:
                # A file rewritten since linecache read it (the same path run twice) is read anew.
                linecache.checkcache(filename)
        return hit

    # ---- tracing
    def start(self):
        self._previous_trace = sys.gettrace()
        self.tee = _Tee(sys.stdout, self.echo)
        sys.stdout = self.tee
        sys.settrace(self._global)

    def stop(self):
        sys.settrace(self._previous_trace)
        if self.tee is not None and sys.stdout is self.tee:
            sys.stdout = self.tee.inner

    def attach(self, frame):
        """Traces a frame already running (the one that entered `record()`)."""
        frame.f_trace = self._local
        frame.f_trace_lines = True
        self.bindings[frame] = self._bound(frame)

    def _global(self, frame, event, arg):
        if self.stopped or event != "call" or not self.is_user(frame.f_code.co_filename):
            return None
        frame.f_trace_lines = True
        # What the frame holds before its first line (arguments, a script's prelude) is not
        # defined by that line.
        self.bindings.setdefault(frame, self._bound(frame))
        return self._local

    def _local(self, frame, event, arg):
        if self.stopped:
            return None
        if event == "line":
            self.close(frame)
            self.pending[frame] = frame.f_lineno
        elif event == "return":
            self.close(frame)
            self.bindings.pop(frame, None)
        return self._local

    def close(self, frame):
        line = self.pending.pop(frame, None)
        if line is not None and not self.stopped:
            try:
                self._step(frame, line)
            except Exception as e:  # the recorder must never break the program it records
                self._stop("recorder", frame, line, f"the recorder failed: {type(e).__name__}: {e}")

    def _stop(self, limit, frame, line, note):
        self.stopped = True
        self.cut = {"limit": limit, "line": line, "file": self._file_field(frame.f_code.co_filename), "note": note}
        sys.settrace(self._previous_trace)
        for f in list(self.pending):
            f.f_trace = None
        self.pending.clear()

    def _file_field(self, filename):
        real = os.path.realpath(filename)
        return None if real == self.main_file else filename

    # ---- what a scope holds
    def scope(self, frame):
        """(name, tensor) for every tensor the frame can name: its locals, then the globals they
        do not shadow; module parameters and buffers as `m.0.weight`, optimizer state as
        `opt.state[0].exp_avg`."""
        out = []
        seen = set()
        spaces = [frame.f_locals]
        if frame.f_globals is not frame.f_locals:
            spaces.append(frame.f_globals)
        for space in spaces:
            for name, v in list(space.items()):
                if name in seen or name.startswith("__"):
                    continue
                seen.add(name)
                named(name, v, out)
        return out

    # ---- one step
    def _step(self, frame, line):
        filename = frame.f_code.co_filename
        scope = self.scope(frame)
        defines = self._defines(frame)
        written, tensors_changed = self._writes(scope)
        step = {
            "line": line,
            "source": linecache.getline(filename, line).rstrip(),
            "defines": defines,
            "writes": None,
            "tensors_changed": tensors_changed,
        }
        if written:
            first = written[0]
            step["writes"] = dict(first)
            if len(written) > 1:
                step["writes"]["all"] = written
        file_field = self._file_field(filename)
        if file_field is not None:
            step["file"] = file_field
        if frame.f_code.co_name != "<module>":
            step["function"] = frame.f_code.co_name
        text = self.tee.take() if self.tee else ""
        if text:
            step["output"] = text
        changed = {}
        for name, t in scope:
            key = d.key_of(t)
            if self.keys.get(name) != key or name in tensors_changed:
                self.keys[name] = key
                changed[name] = d.describe(t, self.storages, self.limits.values)
        step["tensors"] = changed
        self._follow_graph(scope, line)
        if written and self.stale_line is None and self._graph_is_stale(scope):
            self.stale_line = line
        self.steps.append(step)
        self.size += len(json.dumps(step, separators=(",", ":")))
        if len(self.steps) >= self.limits.steps:
            self._stop("steps", frame, line, f"recording stopped after {len(self.steps)} steps (the step limit)")
        elif self.size >= self.limits.bytes:
            self._stop("bytes", frame, line, f"recording stopped at about {self.size} bytes (the byte limit)")

    def _bound(self, frame):
        return {name: id(v) for name, v in frame.f_locals.items() if not name.startswith("__")}

    def _defines(self, frame):
        """The names the line bound or rebound in its frame."""
        now = self._bound(frame)
        before = self.bindings.get(frame, {})
        self.bindings[frame] = now
        return [n for n, i in now.items() if before.get(n) != i]

    def _writes(self, scope):
        """The cells each storage had changed since the last step, and the tensors that see them."""
        on = {}
        for name, t in scope:
            try:
                sid = self.storages.id_of(t)
            except RuntimeError:
                continue
            on.setdefault(sid, []).append((name, t))
        written = []
        for sid, ts in sorted(on.items()):
            t0 = ts[0][1]
            versions = tuple(sorted({t._version for _, t in ts}))
            st = t0.untyped_storage()
            shadow = self.shadows.get(sid)
            if st.nbytes() > self.limits.compare_bytes:
                if shadow is not None and shadow[2] != versions:
                    written.append({"storage": sid, "elements": [], "elements_total": None, "note": "too large to compare"})
                self.shadows[sid] = (None, None, versions)
                continue
            if shadow is None or shadow[0] is None:
                self.shadows[sid] = (_byte_view(st).clone(), self.storages.itemsize[sid], versions)
                continue
            old, k, seen = shadow
            if seen == versions and st.nbytes() > 4096:
                continue
            cur = _byte_view(st)
            n = min(old.numel(), cur.numel()) // k
            diff = (old[: n * k].view(n, k) != cur[: n * k].view(n, k)).any(1).nonzero().reshape(-1)
            extra = torch.arange(n, cur.numel() // k)
            cells = torch.cat([diff, extra])
            self.shadows[sid] = (cur.clone(), k, versions)
            if cells.numel() == 0:
                continue
            listed = cells[: self.limits.values].tolist()
            w = {"storage": sid, "elements": listed}
            if cells.numel() > len(listed):
                w["elements_total"] = cells.numel()
            w["_cells"] = cells
            written.append(w)
        changed = []
        for w in written:
            cells = w.pop("_cells", None)
            for name, t in on.get(w["storage"], []):
                covered = _cells(t) if cells is not None and t.element_size() == self.shadows[w["storage"]][1] else None
                if covered is None or bool(torch.isin(covered, cells).any()):
                    changed.append(name)
        for sid in [s for s in self.shadows if s not in on and not self.storages.alive(s)]:
            del self.shadows[sid]
        return written, changed

    # ---- autograd
    def _follow_graph(self, scope, line):
        todo = []
        for _, t in scope:
            try:
                fn = t.grad_fn
            except RuntimeError:
                continue
            if fn is not None and id(fn) not in self.nodes:
                todo.append(fn)
        while todo and len(self.nodes) < self.limits.nodes:
            fn = todo.pop()
            if fn is None or id(fn) in self.nodes:
                continue
            self.nodes[id(fn)] = [fn, line, len(self.nodes)]
            todo.extend(f for f, _ in getattr(fn, "next_functions", ()) if not _is_leaf_node(f))

    def _graph_is_stale(self, scope):
        for fn in self._reachable(scope, 2000):
            for attr in dir(fn):
                if attr.startswith("_saved_"):
                    try:
                        getattr(fn, attr)
                    except RuntimeError as e:
                        if d.stale_versions(str(e)):
                            return True
        return False

    def _reachable(self, scope, cap):
        todo, seen, out = [], set(), []
        for _, t in scope:
            try:
                todo.append(t.grad_fn)
            except RuntimeError:
                pass
        while todo and len(out) < cap:
            fn = todo.pop()
            if fn is None or id(fn) in seen:
                continue
            seen.add(id(fn))
            out.append(fn)
            todo.extend(f for f, _ in getattr(fn, "next_functions", ()) if not _is_leaf_node(f))
        return out

    def graph(self, named_tensors):
        """The report's `autograd_graph`: every node reachable from the named tensors."""
        nodes = self._reachable(named_tensors, self.limits.nodes)
        if not nodes:
            return []
        order = {id(fn): (self.nodes.get(id(fn), [None, 0, len(self.nodes) + i])[2]) for i, fn in enumerate(nodes)}
        nodes.sort(key=lambda fn: order[id(fn)])
        ids = {id(fn): i for i, fn in enumerate(nodes)}
        by_object, by_layout, outputs = {}, {}, {}
        for name, t in named_tensors:
            by_object.setdefault(id(t), name)
            try:
                by_layout.setdefault(
                    (self.storages.id_of(t), tuple(t.shape), tuple(t.stride()), t.storage_offset()), name
                )
                fn = t.grad_fn
            except RuntimeError:
                continue
            if fn is not None:
                outputs.setdefault(id(fn), []).append(name)
        out = []
        for fn in nodes:
            nxt = []
            for f, _ in getattr(fn, "next_functions", ()):
                if f is None:
                    nxt.append(None)
                elif id(f) in ids:
                    nxt.append({"node": ids[id(f)]})
                elif hasattr(f, "variable"):
                    nxt.append({"leaf": by_object.get(id(f.variable))})
                else:
                    nxt.append(None)
            freed, saved = self._saved(fn, by_object, by_layout)
            out.append(
                {
                    "id": ids[id(fn)],
                    "name": type(fn).__name__,
                    "line": self.nodes.get(id(fn), [None, 0])[1],
                    "outputs": outputs.get(id(fn), []),
                    "next": nxt,
                    "freed": freed,
                    "saved": saved,
                }
            )
        return out

    def _saved(self, fn, by_object, by_layout):
        freed, saved = False, []
        for attr in sorted(a for a in dir(fn) if a.startswith("_saved_")):
            try:
                v = getattr(fn, attr)
            except RuntimeError as e:
                stale = d.stale_versions(str(e))
                if stale:
                    shape, version, saved_version = stale
                    saved.append(
                        {"tensor": None, "shape": shape or [], "storage": None, "elements": None,
                         "saved_version": saved_version, "version": version, "stale": True}
                    )
                elif "second time" in str(e) or "already been freed" in str(e):
                    freed = True
                continue
            for t in v if isinstance(v, (tuple, list)) else (v,):
                if not isinstance(t, torch.Tensor):
                    continue
                sid = self.storages.id_of(t)
                name = by_object.get(id(t)) or by_layout.get((sid, tuple(t.shape), tuple(t.stride()), t.storage_offset()))
                saved.append(
                    {"tensor": name, "shape": list(t.shape), "storage": sid, "elements": None,
                     "saved_version": t._version, "version": t._version, "stale": False}
                )
        return freed, saved

    # ---- the end
    def fail(self, e, tb=None):
        """Records the exception the program ended with, at the innermost line of a user file."""
        if isinstance(e, SyntaxError) and tb is None:
            self.error = {"line": e.lineno or 0, "column": e.offset, "kind": "parse", "message": e.msg,
                          "exception": type(e).__name__}
            return
        line, column, filename = 0, None, None
        tb = tb or e.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if self.is_user(code.co_filename):
                line, filename = tb.tb_lineno, code.co_filename
                column = None
                try:
                    pos = list(code.co_positions())[tb.tb_lasti // 2]
                    column = None if pos[2] is None else pos[2] + 1
                except (AttributeError, IndexError):
                    pass
            tb = tb.tb_next
        self.error = {"line": line, "column": column, "kind": d.error_kind(e), "message": d.error_message(e),
                      "exception": type(e).__name__}
        if filename is not None and self._file_field(filename) is not None:
            self.error["file"] = filename

    def finish(self, namespace, script=None, extra=None):
        """The recording: the report's fields, plus `recorded`."""
        tensors = {}
        named_tensors = []
        for name, v in list(namespace.items()):
            if not name.startswith("__"):
                named(name, v, named_tensors)
        for name, t in named_tensors:
            if name not in tensors:
                tensors[name] = d.describe(t, self.storages, self.limits.values)
        rest = self.tee.take() if self.tee else ""
        if rest and self.steps:
            self.steps[-1]["output"] = self.steps[-1].get("output", "") + rest
        output = "".join(s.get("output", "") for s in self.steps) if self.steps else rest
        recorded = {
            "recorder": RECORDER_VERSION,
            "torch": torch.__version__,
            "python": sys.version.split()[0],
            "script": script,
            "limits": self.limits.as_json(),
            "cut": self.cut,
            "steps_recorded": len(self.steps),
        }
        source = _script_source(self.main_file or script)
        if source is not None:
            recorded["source"] = source
        if self.exit_code is not None:
            recorded["exit_code"] = self.exit_code
        recorded.update(extra or {})
        rec = {"version": 1, "recorded": recorded, "error": self.error}
        if output:
            rec["output"] = output
        if self.stale_line is not None:
            rec["stale_line"] = self.stale_line
        rec["tensors"] = tensors
        graph = self.graph(named_tensors)
        if graph:
            rec["autograd_graph"] = graph
        rec["steps"] = self.steps
        return rec


# The script's text travels with the recording up to this size (the page shows it whole).
_SOURCE_LIMIT = 256 << 10


def _script_source(path):
    """The recorded script's text, for the viewer to show as written (indentation, comments and
    lines no step ran included); None where it cannot be read or is larger than the limit."""
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(_SOURCE_LIMIT + 1)
    except (OSError, UnicodeDecodeError):
        return None
    return text if len(text) <= _SOURCE_LIMIT else None


def named(name, v, out):
    """Appends (name, tensor) for a value a name holds: a tensor, a module's parameters and
    buffers, an optimizer's state."""
    if isinstance(v, torch.Tensor):
        out.append((name, v))
    elif isinstance(v, torch.nn.Module):
        try:
            for pname, p in v.named_parameters():
                out.append((f"{name}.{pname}", p))
            for bname, b in v.named_buffers():
                out.append((f"{name}.{bname}", b))
        except Exception:  # a module half built (inside its __init__) names what it has
            pass
    elif isinstance(v, torch.optim.Optimizer):
        i = 0
        for group in v.param_groups:
            for p in group["params"]:
                for key, s in v.state.get(p, {}).items():
                    if isinstance(s, torch.Tensor):
                        out.append((f"{name}.state[{i}].{key}", s))
                i += 1
