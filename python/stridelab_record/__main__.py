"""`python -m stridelab_record SCRIPT.py [ARGS...] -o run.json`: run a script under PyTorch and
record it as a stridelab report."""

import argparse
import sys

from . import Limits, run_script


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m stridelab_record",
        description="Run a Python script and record its tensors line by line for `stridelab run`.",
    )
    p.add_argument("script", help="the Python file to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    p.add_argument("-o", "--output", default="run.json", help="where to write the recording (`-`: standard output)")
    p.add_argument("--max-steps", type=int, default=10_000, help="steps recorded, at most")
    p.add_argument("--max-bytes", type=int, default=64 << 20, help="the recording's size, about, at most")
    p.add_argument("--max-values", type=int, default=4096, help="values listed per tensor")
    p.add_argument("--exclude", action="append", default=[], metavar="DIR", help="a folder of code not to record (repeatable)")
    argv = list(sys.argv[1:] if argv is None else argv)
    output = None
    # `SCRIPT.py ARGS... -o run.json`: a trailing `-o FILE` is the recorder's, not the script's.
    if len(argv) >= 3 and argv[-2] in ("-o", "--output"):
        output, argv = argv[-1], argv[:-2]
    ns = p.parse_args(argv)
    if output is not None:
        ns.output = output
    limits = Limits(steps=ns.max_steps, bytes=ns.max_bytes, values=ns.max_values)
    rec = run_script(ns.script, ns.args, output=ns.output, limits=limits, exclude=ns.exclude)
    err = rec.get("error")
    cut = rec["recorded"].get("cut")
    if cut:
        print(f"stridelab_record: {cut['note']} (line {cut['line']})", file=sys.stderr)
    if err:
        print(f"stridelab_record: the program failed at line {err['line']}: {err['message']}", file=sys.stderr)
    print(f"stridelab_record: {rec['recorded']['steps_recorded']} steps written to {ns.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
