"""Record a real PyTorch program's tensors, line by line, as a stridelab report.

    python -m stridelab_record SCRIPT.py [ARGS...] -o run.json

    import stridelab_record
    with stridelab_record.record("run.json"):
        ...

The recording is stridelab's report JSON (`stridelab run --json --steps`): the final `tensors`,
`error`, `output`, `autograd_graph` and one step per executed line of the user's own files,
each with its writes (the storage cells that changed), the tensors that see them and the
records of the tensors it defined or changed; plus `recorded` (recorder and torch versions,
the limits, where a limit cut the recording). Read it with `stridelab run --json run.json`.
"""

import builtins
import json
import os
import sys

from ._recorder import RECORDER_VERSION, Limits, Recorder

__version__ = RECORDER_VERSION
__all__ = ["record", "run_script", "Limits", "write"]


def write(recording, path):
    """Writes a recording as compact JSON (`-` for standard output)."""
    text = json.dumps(recording, separators=(",", ":"), allow_nan=False)
    if path == "-":
        sys.__stdout__.write(text + "\n")
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.write("\n")


def _limits(limits, kw):
    if limits is None:
        limits = Limits(**kw)
    return limits


def run_script(path, args=(), output=None, limits=None, globals=None, echo=True, script=None, exclude=(), **kw):
    """Runs the Python file `path` as `python path args...` would, recording it; returns the
    recording and writes it to `output` when given. `globals` are names bound before the
    script starts (as a prelude would bind them, without shifting its lines); `exclude` names
    folders whose code is not recorded although it is outside the installed libraries."""
    limits = _limits(limits, kw)
    # The recording names the script as it was given (a relative path stays relative): a
    # recording shared as a link or a file says nothing of the folders it was made in.
    given, path = path, os.path.abspath(path)
    rec = Recorder(limits, main_file=path, echo=echo, exclude=exclude)
    with open(path, "rb") as f:
        source = f.read()
    namespace = {"__name__": "__main__", "__file__": path, "__builtins__": builtins}
    namespace.update(globals or {})
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(path))
    try:
        try:
            code = compile(source, path, "exec")
        except SyntaxError as e:
            rec.fail(e)
        else:
            rec.start()
            try:
                exec(code, namespace)
            except SystemExit as e:
                rec.exit_code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except BaseException as e:  # the program's own failure is part of the recording
                rec.stop()  # the last step closed on the frame's return
                rec.fail(e)
            finally:
                rec.stop()
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
    recording = rec.finish(namespace, script=script or os.fspath(given))
    if output is not None:
        write(recording, output)
    return recording


class record:
    """`with record("run.json"): ...` records the lines of the block and of the user's
    functions it calls; on leaving, writes the recording (an exception leaving the block is
    its error, and goes on). `limits` or the keyword arguments of `Limits` bound it."""

    def __init__(self, path, limits=None, echo=True, exclude=(), **kw):
        self.path = path
        self.exclude = exclude
        self.limits = _limits(limits, kw)
        self.echo = echo
        self.recording = None

    def __enter__(self):
        frame = sys._getframe(1)
        self.frame = frame
        self.enter_line = frame.f_lineno
        self.rec = Recorder(self.limits, main_file=frame.f_code.co_filename, echo=self.echo, exclude=self.exclude)
        self.rec.start()
        self.rec.attach(frame)
        return self

    def __exit__(self, exc_type, exc, tb):
        rec = self.rec
        # Leaving the block runs the `with` line again: that is not a step of the block.
        if rec.pending.get(self.frame) == self.enter_line:
            rec.pending.pop(self.frame)
        rec.close(self.frame)
        rec.stop()
        self.frame.f_trace = None
        if exc is not None:
            rec.fail(exc, tb)
        space = dict(self.frame.f_globals)
        if self.frame.f_locals is not self.frame.f_globals:
            space.update(self.frame.f_locals)
        self.recording = rec.finish(space, script=self.frame.f_code.co_filename)
        self.frame = None
        write(self.recording, self.path)
        return False
