"""The ``sstad`` command: ``sstad dump FILE.py:FUNC --args "..." [--grad [--grad]|--vjp|--jvp]
--emit ir|python|llvm``."""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys

import numpy as np

from sstad.api import STAGES, dump
from sstad.errors import SstadError
from sstad.jacobians import pushforward
from sstad.transforms import grad, pullback


def load_function(target):
    """``path/to/file.py:func`` -> the function object (the file is imported, not run)."""
    path, sep, name = target.rpartition(":")
    if not sep or not path.endswith(".py"):
        raise SystemExit(f"sstad: expected FILE.py:FUNCTION, got {target!r}")
    if not os.path.exists(path):
        raise SystemExit(f"sstad: no such file: {path}")
    module_name = "sstad_user_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(module_name, os.path.abspath(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    fn = getattr(module, name, None)
    if fn is None:
        raise SystemExit(f"sstad: {path} has no function {name!r}")
    return getattr(fn, "fn", fn), module


def parse_args_text(text, module):
    """Example arguments, as Python: ``"np.ones(3), 2.0"`` (np, math and the file's names)."""
    if not text:
        return ()
    namespace = {**vars(module), "np": np, "numpy": np, "math": math}
    value = eval(f"({text},)", namespace)  # noqa: S307 - the user's own command line
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(prog="sstad", description="sstad: source-to-source AD for NumPy")
    commands = parser.add_subparsers(dest="command", required=True)
    dump_cmd = commands.add_parser("dump", help="print a compilation stage of a function")
    dump_cmd.add_argument("target", help="path/to/file.py:function")
    dump_cmd.add_argument("--args", default="", metavar="EXPR",
                          help='example arguments as Python, e.g. "np.ones(3), 2.0"; '
                               "the function is specialised to their types")
    dump_cmd.add_argument("--emit", choices=STAGES, default="ir", help="which stage to print")
    dump_cmd.add_argument("--after", metavar="PASS", default=None,
                          help="show the IR after this pass ('lowering' for before any pass)")
    mode = dump_cmd.add_mutually_exclusive_group()
    mode.add_argument("--grad", action="count", default=0,
                      help="the reverse-mode gradient (of a scalar function, w.r.t. its first argument); "
                           "twice for the second derivative, and so on")
    mode.add_argument("--vjp", action="store_true",
                      help="the pullback: --args are the primals, followed by the output cotangent")
    mode.add_argument("--jvp", action="store_true",
                      help="the forward-mode pushforward: --args are the primals, then one tangent each")
    options = parser.parse_args(argv)
    fn, module = load_function(options.target)
    args = parse_args_text(options.args, module)
    for _ in range(options.grad):
        fn = grad(fn)
    if options.vjp:
        fn = pullback(fn)
    elif options.jvp:
        fn = pushforward(fn)
    try:
        text = dump(fn, *args, emit=options.emit, after=options.after)
    except SstadError as exc:
        print(f"sstad: error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
