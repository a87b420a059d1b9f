"""The ``sstad`` command: ``sstad dump FILE.py:FUNC --args "..." [--grad [--grad]|--vjp|--jvp]
[--emit STAGE] [--after PASS]``, ``sstad cache info|clear`` and ``sstad --version``.

Every misuse is one line ``sstad: error: ...`` on stderr and exit status 2; a compile
error is sstad's diagnostic (the user's file and line) and exit status 1."""
from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import math
import os
import platform
import sys
import traceback
import types

import numba
import numpy as np

import sstad
from sstad.api import STAGES, Jitted, dump
from sstad.backend import loader
from sstad.errors import SstadError
from sstad.jacobians import pushforward
from sstad.passes import PASSES
from sstad.transforms import grad, pullback

STAGE_HELP = {
    "ir": "the typed ANF IR, after the passes (or after --after PASS)",
    "python": "the emitted Python, one primitive per line, with `# file:line` comments",
    "numba": "the Python the numba backend compiles (elementwise chains fused into one expression)",
    "llvm": "Numba's LLVM IR of the entry function",
}

EXAMPLE = 'sstad dump examples/demo.py:pendulum --args "0.5, 0.0, 0.1, 1e-3, 10.0" --emit python'

DUMP_EPILOG = f"""\
stages (--emit):
{chr(10).join(f"  {name:8} {STAGE_HELP[name]}" for name in STAGES)}

passes (--after), in the order they run:
  lowering (the IR before any pass), {", ".join(PASSES)}

sstad dump imports FILE.py, which runs its top-level code: keep a script's work under
`if __name__ == "__main__":`.

examples:
  {EXAMPLE}
  sstad dump examples/demo.py:final_angle --args "0.1, 0.5" --grad --emit python
  sstad dump examples/demo.py:rhs --args "0.5, 0.0, 0.1" --after lowering
"""


class UsageError(Exception):
    """A misuse of the command: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def load_function(target):
    """``path/to/file.py:func`` -> (the function, its module).  The file is imported as a
    module, so its top-level code runs (``if __name__ == "__main__":`` blocks do not)."""
    path, sep, name = target.rpartition(":")
    if not sep or not path.endswith(".py") or not name:
        raise UsageError(f"expected FILE.py:FUNCTION, got {target!r}")
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    module_name = "sstad_user_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(module_name, os.path.abspath(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except SstadError:
        raise
    except SyntaxError as exc:
        raise UsageError(f"{path}:{exc.lineno}: {exc.msg} (a syntax error in the file)") from None
    except (Exception, SystemExit) as exc:
        where = _innermost(exc, os.path.abspath(path))
        raise UsageError(f"importing {path} raised {_describe(exc)}{where}; sstad dump runs the "
                         'file\'s top-level code: put a script\'s work under `if __name__ == "__main__":`'
                         ) from None
    if not hasattr(module, name):
        functions = [k for k, v in vars(module).items()
                     if isinstance(v, types.FunctionType) and v.__module__ == module_name]
        raise UsageError(f"{path} has no function {name!r}"
                         + (f" (its functions: {', '.join(functions)})" if functions else ""))
    fn = getattr(module, name)
    if isinstance(fn, Jitted):
        fn = fn.fn
    if not (isinstance(fn, types.FunctionType) or hasattr(fn, "sstad_lower")):
        kind = "a module" if isinstance(fn, types.ModuleType) else f"a {type(fn).__name__}"
        raise UsageError(f"{path}:{name} is {kind}, not a function")
    return fn, module


def _describe(exc):
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _innermost(exc, filename):
    """`` at file.py:LINE`` for the innermost frame of ``exc`` in ``filename``."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return f" at {os.path.basename(filename)}:{frames[-1].lineno}" if frames else ""


def parse_args_text(text, module):
    """Example arguments, as Python: ``"np.ones(3), 2.0"`` (np, math and the file's names)."""
    if not text.strip():
        return ()
    namespace = {**vars(module), "np": np, "numpy": np, "math": math}
    not_a_list = f"--args {text!r} is not a comma-separated list of Python expressions"
    try:
        tree = ast.parse(f"({text}\n,)", "--args", "eval")
    except SyntaxError as exc:
        column = f" at column {exc.offset - 1}" if exc.offset and exc.lineno == 1 else ""
        raise UsageError(f"{not_a_list} ({exc.msg}{column})") from None
    if not isinstance(tree.body, ast.Tuple):
        raise UsageError(not_a_list)
    code = compile(tree, "--args", "eval")
    try:
        return eval(code, namespace)  # noqa: S307 - the user's own command line
    except NameError as exc:
        raise UsageError(f"--args: {exc} (the names of the file, np, numpy and math can be used)"
                         ) from None
    except Exception as exc:
        raise UsageError(f"--args: evaluating {text!r} raised {_describe(exc)}") from None


def _positional(fn):
    """(required, total) positional parameters of a plain function, or None."""
    if not isinstance(fn, types.FunctionType):
        return None
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return sum(p.default is p.empty for p in positional), len(positional)


def _check_counts(fn, args, options):
    counts = _positional(fn)
    if counts is None:
        return
    required, total = counts
    signature = f"{fn.__name__}{inspect.signature(fn)}"
    wanted = f"{required}" if required == total else f"{required} to {total}"
    if options.vjp and not required <= len(args) - 1 <= total:
        raise UsageError(f"--vjp: --args are the arguments of {signature} followed by the output "
                         f"cotangent (e.g. 1.0 for a scalar result): {wanted} + 1 values, "
                         f"got {len(args)}")
    if options.jvp and not (len(args) % 2 == 0 and required <= len(args) // 2 <= total):
        raise UsageError(f"--jvp: --args are the arguments of {signature} followed by one tangent "
                         f"for each: 2 x {wanted} values, got {len(args)}")


def run_dump(options):
    cache_bound()                                  # a bad SSTAD_CACHE_MAX_MB is a misuse too
    fn, module = load_function(options.target)
    args = parse_args_text(options.args, module)
    _check_counts(fn, args, options)
    for _ in range(options.grad):
        fn = grad(fn)
    if options.vjp:
        fn = pullback(fn)
    elif options.jvp:
        fn = pushforward(fn)
    sys.stdout.write(dump(fn, *args, emit=options.emit, after=options.after))
    return 0


def cache_bound():
    try:
        return loader.cache_max_bytes()
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def run_cache(options):
    bound = cache_bound()
    root = loader.cache_dir(create=False)
    if options.action == "clear":
        count = loader.clear_cache(root)
        print(f"removed {count} compiled function{'s' * (count != 1)} from {root}")
        return 0
    entries = loader.cache_entries(root)
    size = sum(e.size for e in entries)
    source = "SSTAD_CACHE_DIR" if os.environ.get("SSTAD_CACHE_DIR") else "default; set SSTAD_CACHE_DIR to move it"
    print(f"location: {root} ({source})")
    print(f"size:     {_megabytes(size)} in {len(entries)} compiled function{'s' * (len(entries) != 1)}")
    print(f"bound:    {_megabytes(bound)}, least recently used removed first (SSTAD_CACHE_MAX_MB)")
    return 0


def _megabytes(size):
    return f"{size / 1e6:.3g} MB"


def build_parser():
    parser = _Parser(
        prog="sstad", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="sstad: source-to-source automatic differentiation for Python/NumPy.",
        epilog=DUMP_EPILOG + "\nsstad cache info|clear: where compiled code is kept, and how much "
                             "(see `sstad cache --help`).\n")
    parser.add_argument("--version", action="version",
                        version=f"sstad {sstad.__version__} (Python {platform.python_version()}, "
                                f"NumPy {np.__version__}, Numba {numba.__version__})")
    commands = parser.add_subparsers(dest="command", title="commands", metavar="{dump,cache}")

    dump_cmd = commands.add_parser(
        "dump", help="print a compilation stage of a function (IR, emitted Python, LLVM)",
        description="Print one compilation stage of FILE.py:FUNCTION specialised to example arguments.",
        epilog=DUMP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    dump_cmd.add_argument("target", metavar="FILE.py:FUNCTION", help="the function to compile")
    dump_cmd.add_argument("--args", default="", metavar="EXPR",
                          help='example arguments as Python, e.g. "np.ones(3), 2.0" (the names '
                               "of the file, np and math can be used); the function is specialised "
                               "to their types")
    dump_cmd.add_argument("--emit", choices=STAGES, default="ir", help="which stage to print (default: ir)")
    dump_cmd.add_argument("--after", metavar="PASS", choices=("lowering", *PASSES),
                          help="show the IR after this pass ('lowering': before any pass)")
    mode = dump_cmd.add_mutually_exclusive_group()
    mode.add_argument("--grad", action="count", default=0,
                      help="the reverse-mode gradient (of a scalar function, w.r.t. its first argument); "
                           "twice for the second derivative, and so on")
    mode.add_argument("--vjp", action="store_true",
                      help="the pullback: --args are the arguments, followed by the output cotangent")
    mode.add_argument("--jvp", action="store_true",
                      help="the forward-mode pushforward: --args are the arguments, then one tangent each")
    dump_cmd.set_defaults(run=run_dump)

    cache_cmd = commands.add_parser(
        "cache", help="show or clear the cache of compiled code",
        description="The numba backend keeps compiled functions in $SSTAD_CACHE_DIR (default "
                    "~/.cache/sstad), bounded by $SSTAD_CACHE_MAX_MB megabytes (default "
                    f"{loader.DEFAULT_CACHE_MAX_MB}).")
    cache_cmd.add_argument("action", choices=("info", "clear"), metavar="{info,clear}",
                           help="info: where the cache is and its size; clear: remove its entries")
    cache_cmd.set_defaults(run=run_cache)
    return parser


def main(argv=None):
    try:
        options = build_parser().parse_args(argv)
        if options.command is None:
            raise UsageError("missing command: `sstad dump ...` or `sstad cache info|clear` "
                             "(see sstad --help)")
        return options.run(options)
    except UsageError as exc:
        print(f"sstad: error: {exc}", file=sys.stderr)
        return 2
    except SstadError as exc:
        print(f"sstad: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if os.environ.get("SSTAD_TRACEBACK"):
            raise
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        print(f"sstad: internal error: {_describe(exc)} at {frame.filename}:{frame.lineno} "
              "(a bug in sstad; SSTAD_TRACEBACK=1 shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
