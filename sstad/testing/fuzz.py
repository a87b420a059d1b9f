"""A fuzzing campaign: generate programs, check their derivatives, shrink each new failure.

    python -m sstad.testing.fuzz --n 1000 [--seed 0] [--numba 20] [--out /tmp/sstad_fuzz]
    make fuzz N=1000

Prints how many programs were generated, passed, failed (wrong derivative), crashed
(sstad raised) or could not be checked (not smooth at the point), overall and per
construct; then, for each distinct failure signature, the smallest program Hypothesis
found for it (also written to ``--out``; while the campaign runs, the results so far are
written there every ``--save-every`` seconds, marked ``"partial": true``).  Set
``SSTAD_CACHE_DIR`` to keep Numba's cache apart.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import sys
import time
import traceback
import warnings

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from sstad.testing.gradcheck import NotSmoothError
from sstad.testing.strategies import CALL_FORMS, CONSTRUCTS, programs

class _OutOfTime(Exception):
    pass


OUTCOMES = ("passed", "failed", "crashed", "not_smooth")


def classify(program, backend="python", modes=("rev", "fwd")):
    """``(outcome, signature, text)`` for one program."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            program.check(backend=backend, modes=modes, on_not_smooth="raise")
            return "passed", None, ""
        except NotSmoothError as exc:
            return "not_smooth", exc.reason, str(exc)
        except AssertionError as exc:
            mode = getattr(exc, "check_grads_mode", "?")
            text = str(exc)
            detail = "nan" if re.search(r"from sstad\S*:\s+nan|sstad nan", text) else "value"
            if "compiled output vs Python" in text:
                mode, detail = "value", "primal"
            return "failed", f"mismatch:{mode}:{detail}:{backend}", text
        except Exception as exc:  # noqa: BLE001 - sstad crashes of any kind are findings
            return "crashed", signature_of(exc, backend), "".join(
                traceback.format_exception(type(exc), exc, exc.__traceback__)[-6:])


def signature_of(exc, backend):
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    first = re.sub(r"/\S+?\.py:\d+(:\d+)?:?", "FILE", first)
    first = re.sub(r"`[a-z]\d+`|\b[a-z]+\d+\b", "NAME", first)
    first = re.sub(r"\d+(\.\d+)?", "N", first)
    mode = getattr(exc, "check_grads_mode", "?")
    return f"{type(exc).__name__}:{mode}:{backend}: {first[:160]}"


class Campaign:
    def __init__(self, n, seed=0, numba=0, out=None, shrink=True, shrink_budget_s=120.0, verbose=False,
                 program_kwargs=None, modes=("rev", "fwd"), save_every_s=300.0):
        self.n, self.seed, self.numba, self.out = n, seed, numba, out
        self.save_every_s = save_every_s
        self.shrink, self.shrink_budget_s, self.verbose = shrink, shrink_budget_s, verbose
        self.program_kwargs = program_kwargs or {}
        self.modes = modes
        self.totals = collections.Counter()
        self.by_construct = collections.defaultdict(collections.Counter)
        self.by_signature = collections.Counter()
        self.first = {}            # signature -> (program, text): the first seen
        self.minimal = {}          # signature -> (program, text): after shrinking
        self.checked = 0

    def run(self):
        examples = []

        @hypothesis_seed(self.seed)
        @settings(max_examples=self.n, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck), derandomize=False)
        @given(programs(**self.program_kwargs))
        def collect(program):
            examples.append(program)
        collect()
        saved = time.time()
        for k, program in enumerate(examples):
            backend = "numba" if k < self.numba and not program.python_only else "python"
            self.record(program, *classify(program, backend, self.modes), backend=backend)
            if self.out and time.time() - saved > self.save_every_s:   # a campaign cut short still reports
                self.save(self.out, partial=True)
                saved = time.time()
        if self.shrink:
            for sig in list(self.first):
                self.minimize(sig)
        return self

    def record(self, program, outcome, sig, text, backend):
        self.checked += 1
        self.totals["generated"] += 1
        self.totals[outcome] += 1
        self.totals[f"backend:{backend}"] += 1
        for tag in program.constructs:
            self.by_construct[tag]["generated"] += 1
            self.by_construct[tag][outcome] += 1
        if outcome in ("failed", "crashed"):
            self.by_signature[sig] += 1
            self.first.setdefault(sig, (program, text))
            if self.verbose:
                print(f"--- {sig}\n{program}\n{text}\n", flush=True)

    def minimize(self, sig):
        """Hypothesis' smallest program with this failure signature (searched afresh, then
        shrunk; within ``shrink_budget_s``)."""
        from hypothesis import find
        backend = sig.split(":")[3] if sig.startswith("mismatch") else sig.split(":")[2].split(" ")[0]
        deadline = time.time() + self.shrink_budget_s
        best = {}
        memo = {}

        def same_failure(program):
            if time.time() > deadline:
                raise _OutOfTime()
            key = (program.source, program.args_text())
            if key not in memo:
                memo[key] = classify(program, backend, self.modes)
            outcome, s, text = memo[key]
            if s == sig:
                size = len(program.source)
                if "program" not in best or size <= len(best["program"].source):
                    best["program"], best["text"] = program, text
                return True
            return False
        try:
            find(programs(**self.program_kwargs), same_failure,
                 settings=settings(max_examples=3000, database=None, deadline=None,
                                   suppress_health_check=list(HealthCheck)),
                 random=random.Random(self.seed))
        except BaseException as exc:  # noqa: BLE001 - out of time, not found, flaky: keep the best
            if isinstance(exc, KeyboardInterrupt):
                raise
        if "program" in best and len(best["program"].source) < len(self.first[sig][0].source):
            self.minimal[sig] = (best["program"], best["text"])
        else:
            self.minimal[sig] = self.first[sig]

    def report(self, file=sys.stdout):
        t = self.totals
        print(f"programs generated: {t['generated']}  passed: {t['passed']}  failed: {t['failed']}  "
              f"crashed: {t['crashed']}  not smooth (skipped): {t['not_smooth']}  "
              f"(numba: {t['backend:numba']}, python: {t['backend:python']})", file=file)
        print(f"{'construct':<18}{'generated':>10}{'passed':>8}{'failed':>8}{'crashed':>9}{'not_smooth':>11}",
              file=file)
        for tag in CONSTRUCTS + CALL_FORMS:
            c = self.by_construct.get(tag, collections.Counter())
            print(f"{tag:<18}{c['generated']:>10}{c['passed']:>8}{c['failed']:>8}{c['crashed']:>9}"
                  f"{c['not_smooth']:>11}", file=file)
        if self.by_signature:
            print("\nfailures by signature:", file=file)
            for sig, count in self.by_signature.most_common():
                print(f"  {count:5d}  {sig}", file=file)
        for sig, (program, text) in self.minimal.items():
            print(f"\n=== {sig}  (x{self.by_signature[sig]}); smallest program found:\n{program}\n{text}",
                  file=file)

    def save(self, out, partial=False):
        """Write the results as JSON; ``partial``: the campaign is still running (``checked``
        of ``n`` programs so far, the first program of each failure, not yet shrunk)."""
        os.makedirs(out, exist_ok=True)
        data = {"partial": partial, "n": self.n, "checked": self.checked, "seed": self.seed, "numba": self.numba,
                "totals": dict(self.totals), "by_construct": {k: dict(v) for k, v in self.by_construct.items()},
                "by_signature": dict(self.by_signature),
                "minimal": {sig: {"source": p.source, "args": p.args_text(), "error": text}
                            for sig, (p, text) in (self.minimal or self.first).items()}}
        path = os.path.join(out, f"campaign_{self.seed}.json")
        with open(path + ".tmp", "w") as fh:
            json.dump(data, fh, indent=1)
        os.replace(path + ".tmp", path)           # a reader never sees half a file


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sstad.testing.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="programs to generate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--numba", type=int, default=0, help="check the first K programs with backend='numba'")
    parser.add_argument("--out", default=os.environ.get("SSTAD_FUZZ_OUT", "/tmp/sstad_fuzz"))
    parser.add_argument("--no-shrink", action="store_true")
    parser.add_argument("--shrink-budget", type=float, default=120.0, help="seconds per failure signature")
    parser.add_argument("--modes", default="rev,fwd")
    parser.add_argument("--save-every", type=float, default=300.0, help="seconds between saves of partial results")
    parser.add_argument("-v", "--verbose", action="store_true")
    options = parser.parse_args(argv)
    start = time.time()
    campaign = Campaign(options.n, options.seed, options.numba, options.out, not options.no_shrink,
                        options.shrink_budget, options.verbose, modes=tuple(options.modes.split(",")),
                        save_every_s=options.save_every).run()
    campaign.report()
    campaign.save(options.out)
    print(f"\n{time.time() - start:.0f} s; results in {options.out}/campaign_{options.seed}.json")
    return 1 if campaign.totals["failed"] or campaign.totals["crashed"] else 0


if __name__ == "__main__":
    sys.exit(main())
