"""Loops that carry a run-time list of arrays to the next iteration: a list rebuilt in
every iteration (a new list replaces the carried one), or one that grows.  Used by
test_list_carry.py; each takes ``(x, steps)`` and returns a float."""
import numpy as np


def list_kept_across_steps(x, steps):
    """The list made in an iteration is read in the next."""
    kept = [x]
    kept.append(x)
    total = 0.0
    for t in range(steps):
        total = total + np.sum(kept[-1] * x)
        fresh = [x]
        fresh.append(x * t)
        kept = fresh
    return total


def several_appends_first_and_last(x, steps):
    kept = [x]
    kept.append(np.sin(x))
    total = 0.0
    for t in range(steps):
        total = total + np.sum(kept[0] * kept[-1])
        fresh = [np.cos(kept[-1])]
        fresh.append(kept[0] * x)
        fresh.append(np.tanh(kept[1] + t))
        kept = fresh
    return total + np.sum(kept[1] * kept[2])


def read_by_stack_and_sum(x, steps):
    kept = [x * 0.5]
    kept.append(x * x)
    total = 0.0
    for t in range(steps):
        total = total + np.sum(np.stack(kept) * x) + np.sum(sum(kept))
        fresh = []
        for v in kept:
            fresh.append(np.sin(v) * x)
        kept = fresh
    return total + np.sum(np.stack(kept, axis=1))


def rebuilt_by_comprehension(x, steps):
    kept = [x]
    kept.append(2.0 * x)
    kept.append(x * x)
    for t in range(steps):
        kept = [np.sin(v) + kept[0] * x for v in kept]
    return np.sum(kept[0] * kept[1] + kept[-1])


def while_loop(x, steps):
    kept = [x]
    kept.append(np.cos(x))
    total = 0.0
    t = 0
    while t < steps:
        total = total + np.sum(kept[-1] * kept[0])
        fresh = [np.sin(kept[1]) * x]
        fresh.append(kept[0] + x)
        kept = fresh
        t += 1
    return total


def rebuilt_on_some_steps(x, steps):
    """Replaced only when `t` is even: the `if` chooses between the carried list and a new
    one, refused in reverse mode (see rebuilt_or_copied)."""
    kept = [x]
    kept.append(x * x)
    total = 0.0
    for t in range(steps):
        total = total + np.sum(kept[-1] * x)
        if t % 2 == 0:
            fresh = [np.sin(kept[0])]
            fresh.append(kept[1] * x)
            kept = fresh
    return total + np.sum(kept[0])


def rebuilt_or_copied(x, steps):
    """rebuilt_on_some_steps as reverse mode takes it: a new list every step, its items
    new on even steps and the old ones on odd steps."""
    kept = []
    kept.append(x)
    kept.append(x * x)
    total = 0.0
    for t in range(steps):
        total = total + np.sum(kept[-1] * x)
        fresh = []
        if t % 2 == 0:
            fresh.append(np.sin(kept[0]))
            fresh.append(kept[1] * x)
        else:
            for v in kept:
                fresh.append(v)
        kept = fresh
    return total + np.sum(kept[0])


def grows_each_step(x, steps):
    """The carried list is appended to (not replaced): it grows by one item a step."""
    hist = []
    hist.append(x)
    total = 0.0
    for t in range(steps):
        hist.append(np.sin(hist[-1]) * x)
        total = total + np.sum(hist[-1] * hist[0])
    return total + np.sum(np.stack(hist) * x)


def rebuilt_longer_each_step(x, steps):
    """A new list each step, one item longer than the last."""
    kept = []
    kept.append(x)
    total = 0.0
    for t in range(steps):
        fresh = []
        for v in kept:
            fresh.append(v * x)
        fresh.append(np.cos(kept[-1]))
        total = total + np.sum(fresh[-1] * fresh[0])
        kept = fresh
    return total + np.sum(sum(kept))


def appended_then_replaced(x, steps):
    """The carried list grows inside the step, then a new list takes its place."""
    kept = []
    kept.append(x)
    total = 0.0
    for t in range(steps):
        kept.append(kept[-1] * x)
        total = total + np.sum(kept[-1] + kept[0])
        fresh = [kept[-1]]
        fresh.append(np.sin(kept[0]))
        kept = fresh
    return total + np.sum(kept[0] * kept[1])


def first_list_read_after_the_loop(x, steps):
    """The list the loop starts from is read again after the loop has replaced it."""
    first = [x]
    first.append(np.sin(x))
    kept = first
    for t in range(steps):
        fresh = [kept[1] * x]
        fresh.append(kept[0] + x)
        kept = fresh
    return np.sum(first[1] * kept[0] + first[0] * kept[1])


def nested_loops(x, steps):
    kept = [x]
    kept.append(x * x)
    total = 0.0
    for t in range(steps):
        for s in range(2):
            total = total + np.sum(kept[-1] * kept[0])
            fresh = [np.sin(kept[1])]
            fresh.append(kept[0] * x)
            kept = fresh
    return total



def reversed_each_step(x, steps):
    """A slice makes the new list (`kept[::-1]`), then it grows."""
    kept = []
    kept.append(x)
    kept.append(np.cos(x))
    kept.append(x * x)
    total = 0.0
    for t in range(steps):
        total = total + np.sum(kept[0] * kept[1])
        kept = kept[::-1]
        kept.append(np.sin(kept[-1]) * x)
    return total + np.sum(kept[-1])


def popped_and_replaced(x, steps):
    """The carried list is popped, then replaced."""
    kept = []
    kept.append(x)
    kept.append(np.cos(x))
    total = 0.0
    for t in range(steps):
        last = kept.pop()
        total = total + np.sum(last * kept[0])
        fresh = []
        fresh.append(last * x)
        fresh.append(np.sin(last))
        fresh.append(kept[0] + x)
        kept = fresh
    return total + np.sum(kept[-1])


def outer_grows_inner_replaces(x, steps):
    """An inner loop replaces a list, an outer one appends to another."""
    hist = []
    hist.append(x)
    total = 0.0
    for t in range(steps):
        kept = []
        kept.append(hist[-1])
        for s in range(2):
            fresh = []
            fresh.append(np.sin(kept[0]) * x)
            kept = fresh
        hist.append(kept[0])
        total = total + np.sum(hist[-1] * hist[0])
    return total


def inner_grows_outer_replaces(x, steps):
    """An inner loop appends to the list the outer loop replaces."""
    kept = []
    kept.append(x)
    total = 0.0
    for t in range(steps):
        fresh = []
        for v in kept:
            fresh.append(np.cos(v) * x)
        for s in range(2):
            fresh.append(fresh[-1] * x)
        total = total + np.sum(fresh[-1])
        kept = fresh
    return total


def while_unknown_trips(x, steps):
    """A while loop whose trip count depends on the values."""
    kept = []
    kept.append(x)
    total = 0.0
    while total < 3.0:
        fresh = []
        fresh.append(kept[-1] * 1.5 + x)
        total = total + np.sum(fresh[0])
        kept = fresh
    return total + np.sum(kept[0])


def appended_first_read_after(x, steps):
    """Iteration 0 appends to the initial list, which is read after the loop."""
    first = []
    first.append(x)
    kept = first
    for t in range(steps):
        kept.append(np.sin(kept[-1]) * x)
        fresh = []
        fresh.append(kept[-1] + x)
        kept = fresh
    return np.sum(first[-1] * 3.0 + kept[0])


def written_first_read_after(x, steps):
    """Iteration 0 writes into the initial list, which is read after the loop."""
    first = []
    first.append(x)
    first.append(x * x)
    kept = first
    for t in range(steps):
        kept[0] = np.sin(kept[1]) * x
        fresh = []
        fresh.append(kept[0] + x)
        fresh.append(kept[1] * kept[0])
        kept = fresh
    return np.sum(first[0] * 3.0 + first[1] + kept[0])


def popped_first_read_after(x, steps):
    """Iteration 0 pops the initial list, which is read after the loop."""
    first = []
    first.append(x)
    first.append(np.cos(x))
    kept = first
    for t in range(steps):
        last = kept.pop()
        fresh = []
        fresh.append(last * x)
        fresh.append(np.sin(last) + kept[0])
        kept = fresh
    return np.sum(first[0] * 3.0 + kept[1])



def both_branches_make(x, steps):
    """Both branches of an `if` make the new list (of different lengths)."""
    kept = []
    kept.append(x)
    total = 0.0
    for t in range(steps):
        total = total + np.sum(kept[-1] * kept[0])
        if t % 2 == 0:
            fresh = []
            fresh.append(np.sin(kept[0]))
        else:
            fresh = []
            fresh.append(kept[-1] * x)
            fresh.append(np.cos(kept[0]))
        kept = fresh
    return total + np.sum(kept[-1])


CASES = [list_kept_across_steps, several_appends_first_and_last, read_by_stack_and_sum, rebuilt_by_comprehension,
         while_loop, rebuilt_or_copied, grows_each_step, rebuilt_longer_each_step, appended_then_replaced,
         first_list_read_after_the_loop, nested_loops, reversed_each_step, popped_and_replaced,
         outer_grows_inner_replaces, inner_grows_outer_replaces, while_unknown_trips, appended_first_read_after,
         written_first_read_after, popped_first_read_after, both_branches_make]


def swapped(x, steps):
    """Two lists trade places each step: refused in reverse mode (neither is made in the loop)."""
    a = []
    a.append(x)
    b = []
    b.append(x * x)
    for t in range(steps):
        a, b = b, a
    return np.sum(a[0] * 2.0 + b[0])


def scaled_kept(w, steps):
    """list_kept_across_steps of a scalar, for a second derivative (refused: the tape of a
    replaced list is a list of lists)."""
    x = np.linspace(0.1, 0.9, 4) * w
    kept = []
    kept.append(x)
    total = 0.0
    for t in range(steps):
        total = total + np.sum(kept[-1] * x)
        fresh = []
        fresh.append(np.sin(kept[0]) * x)
        kept = fresh
    return total
