"""Random debezium-json histories for the changelog differential tests
(tests/cdc_diff.py, tests/retract_diff.py): a consistent sequence of
snapshot reads, creates, updates and deletes of keyed rows, and its
records in Debezium's envelope."""

import json


def maybe(rng, p, v):
    """None with probability p, else v."""
    return None if rng.random() < p else v


def gen_history(rng, n_ids, new_row, updated, max_snapshot, max_events):
    """A consistent history [(op, before, after)] and the final rows {id: row}:
    up to max_snapshot snapshot reads ('r'), then up to max_events changes
    ('c' of a free id, 'u' of a live row to updated(rng, id, row), 'd' of a
    live row, whose id comes back later half of the time). new_row(id) makes
    a row."""
    cur = {}
    events = []
    free = list(range(n_ids))
    rng.shuffle(free)
    for _ in range(rng.randint(0, min(len(free), max_snapshot))):
        i = free.pop()
        cur[i] = new_row(i)
        events.append(("r", None, cur[i]))
    for _ in range(rng.randint(0, max_events)):
        x = rng.random()
        if free and (x < 0.3 or not cur):
            i = free.pop()
            cur[i] = new_row(i)
            events.append(("c", None, cur[i]))
        elif cur and x < 0.85:
            i = rng.choice(sorted(cur))
            after = updated(rng, i, cur[i])
            events.append(("u", cur[i], after))
            cur[i] = after
        elif cur:
            i = rng.choice(sorted(cur))
            events.append(("d", cur.pop(i), None))
            if rng.random() < 0.5:
                free.append(i)
    return events, cur


def envelope(op, before, after, schema):
    """One record: {"before", "after", "op"}, wrapped as Debezium's JSON
    converter with schemas does when schema is true."""
    e = {"before": before, "after": after, "op": op}
    if schema:
        e = {"schema": {"type": "struct", "optional": False}, "payload": e}
    return json.dumps(e)
