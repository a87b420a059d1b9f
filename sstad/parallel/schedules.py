"""Pipeline schedules: which stage runs which micro-batch's forward or backward, slot by slot.

A schedule is a list of slots; slot ``s`` holds one entry per stage: ``("F", m)``,
``("B", m)`` or ``None`` (idle).  Every stage runs the operations of its own order as soon
as their inputs exist: ``F(m)`` on stage ``r`` needs ``F(m)`` of stage ``r - 1`` from an
earlier slot (the activation arrives after the slot that made it), ``B(m)`` needs
``B(m)`` of stage ``r + 1`` (the cotangent) and, on the last stage, its own ``F(m)``.

* ``gpipe``: every forward, then every backward (GPipe).  A stage keeps the inputs of all
  ``M`` micro-batches until their backward.
* ``1f1b``: stage ``r`` runs ``N - 1 - r`` forwards, then alternates one forward and one
  backward, then the remaining backwards (PipeDream-Flush).  A stage keeps at most
  ``N - r`` micro-batches in flight.

Both leave ``(N - 1) / (M + N - 1)`` of the slots idle (the bubble), counting a forward
and a backward as one slot each.
"""

SCHEDULES = ("gpipe", "1f1b")


def stage_order(kind, stage, n_stages, n_micro):
    """The operations of one stage, in the order it runs them."""
    forwards = [("F", m) for m in range(n_micro)]
    backwards = [("B", m) for m in range(n_micro)]
    if kind == "gpipe":
        return forwards + backwards
    if kind == "1f1b":
        warmup = min(n_stages - 1 - stage, n_micro)
        order = forwards[:warmup]
        for m in range(n_micro - warmup):
            order += [forwards[warmup + m], backwards[m]]
        return order + backwards[n_micro - warmup:]
    raise ValueError(f"schedule must be one of {', '.join(map(repr, SCHEDULES))}, not {kind!r}")


def _ready(op, stage, n_stages, done):
    kind, m = op
    if kind == "F":
        return stage == 0 or ("F", m) in done[stage - 1]
    if stage == n_stages - 1:
        return ("F", m) in done[stage]
    return ("B", m) in done[stage + 1]


def schedule(kind, n_stages, n_micro):
    """The slots of schedule ``kind`` for ``n_stages`` stages and ``n_micro`` micro-batches.

    >>> [" ".join(f"{op[0]}{op[1]}" if op else "--" for op in slot) for slot in schedule("1f1b", 2, 2)]
    ['F0 --', 'F1 F0', '-- B0', 'B0 F1', '-- B1', 'B1 --']
    """
    orders = [stage_order(kind, r, n_stages, n_micro) for r in range(n_stages)]
    done = [set() for _ in range(n_stages)]
    slots = []
    while any(orders):
        slot = tuple(order[0] if order and _ready(order[0], r, n_stages, done) else None
                     for r, order in enumerate(orders))
        for r, op in enumerate(slot):
            if op is not None:
                orders[r].pop(0)
                done[r].add(op)
        slots.append(slot)
    return slots


def bubble_fraction(slots):
    """The share of (slot, stage) places where a stage is idle."""
    places = len(slots) * len(slots[0])
    return sum(op is None for slot in slots for op in slot) / places


def peak_in_flight(slots, stage):
    """The most micro-batches whose forward has run on ``stage`` and backward not yet:
    how many inputs the stage holds at once."""
    live = peak = 0
    for slot in slots:
        op = slot[stage]
        if op is not None:
            live += 1 if op[0] == "F" else -1
            peak = max(peak, live)
    return peak
