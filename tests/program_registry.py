"""The registry of a batch of user programs (tests/user_programs_5.py, _6.py)."""


def registry():
    """``(PROGRAMS, program)``: the batch's list of ``(fn, make_args, modes)``, and the
    decorator ``@program(make_args, modes=("fwd", "rev"))`` that adds a function to it;
    ``modes`` leaves out a mode the test file records as a known defect."""
    programs = []

    def program(make_args, modes=("fwd", "rev")):
        def register(fn):
            programs.append((fn, make_args, modes))
            return fn
        return register
    return programs, program
