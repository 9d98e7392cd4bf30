#!/usr/bin/env python3
"""Randomized differential test of watermark idleness: per-split watermarks,
idle splits, the source subtask's watermark over its splits, and what the
window operator behind it makes of them, against a python model that shares
no code with weir (tests/test_idle_diff.sh runs it).

Each case is a schedule for tests/tools/idle_driver.c (weir-idle-driver):
1 to 8 splits of one source subtask, read in passes on a manual clock that
moves only between passes; in each pass a split delivers a few records (keys,
event times, values), or nothing, or nothing while it says it has a backlog
(rows it has not read yet, as a Kafka partition behind its high watermark),
or its end; in a fifth of the cases the splits say themselves when they
are idle (as a repartition topic's reader does) instead of a timeout.
Splits run at different event-time speeds, fall silent for stretches (all
of them at once now and then), come back ahead of the others or behind
them (with records the watermark has passed), and end at different passes. Random settings: the bounded out-of-orderness delay, the idle timeout
(on the watermark spec, on the job, both, or off), the batch size, the window
(TUMBLE, HOP, CUMULATE or SESSION) with COUNT(*), SUM, MIN and MAX of v per
key, the allowed
lateness, the accumulation mode (accumulating, discarding, retracting) and
the window operator's parallelism (1 to 3).

The model (docs/connectors.md "Splits and event time" and "Idleness is
lag-aware", docs/windows.md "Semantics, exactly", DESIGN.md "Time"):
  - a split's watermark is the largest event time it delivered minus the
    delay (none before its first record), taking effect after each record;
  - in each pass the splits are read in order; a split that delivers
    nothing, is caught up (no backlog) and has delivered nothing for the
    idle timeout (processing time: the pass's time minus that of its last
    records or backlog, or of the start) turns idle; a split with a backlog
    is not idle (and one that was idle is active again); its next record
    makes an idle split active again; splits that say when they are idle
    are idle exactly while they say so (asked after each read, after its
    rows), whatever the timeout and the backlog;
  - the subtask's watermark is the minimum over its active splits that have
    not ended, never going back; when every split that has not ended is
    idle it is the largest of their watermarks; at the end of every split
    it is +infinity;
  - a record joins each of its windows with end + L > W (W: the watermark
    before it); if none takes it, it is late (side output with W and
    W - ts); a window fires once W >= end (a record that a fired window
    takes fires it again at once), and keeps its state until W >= end + L;
    accumulating firings carry the whole window (+I), discarding ones what
    came since the last firing (+I), retracting ones -U the previous result
    and +U the new one; CUMULATE(step, size): the windows [s, s + step),
    [s, s + 2 step) ... [s, s + size) of the period s = floor(ts / size) *
    size that end after ts;
  - SESSION(gap) (docs/windows.md "Sessions", DESIGN.md "Windows"): a record
    opens [ts, ts + gap), which merges with every live session of its key
    (one not yet cleaned up) that intersects or touches it, their contents
    merging (discarding: what each had not fired yet); it is late only if it
    touches none and ts + gap + L <= W; the merged session fires at once if
    its end <= W (a late firing), else by the watermark; in retracting mode
    each merged session that had a result and whose bounds are not the new
    ones gets -D of that result, emitted with the new window's result (so
    with its firing), and a new window with the bounds of one that fired
    goes on with -U/+U.
What is compared: every result row per key and window, in order (kind and
aggregates), and where it stands among the watermarks the window operator
passed on: a firing by the watermark comes after a watermark below the
window's end (for a session's -D: the merged window's end) and before one
at or past it; a firing by a record comes right
after the watermark that record met. The late rows as a multiset. The
watermarks each result subtask sees: rising, each one a value the model's
watermark takes, the last +infinity (not every value: a watermark that
nothing came behind may be passed over on the way, and within one read the
source may pass over the values after single records, as a record ahead of
the watermark cannot be late).

Not covered: several source subtasks (which split's watermark reaches an
operator of several inputs first is a matter of thread timing, so results
are not a function of the schedule), a session's maximum length, window
offsets, early and processing-time firings, splits that report their own watermark,
restores (tests/restore_diff.py).

Usage: idle_diff.py --weir DRIVER [--cases N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run, WEIR_IDLEDIFF_CASE=i one case of it;
WEIR_IDLEDIFF_CASES cases (default 80, 20 under AddressSanitizer);
WEIR_IDLEDIFF_PASSES the most passes of a case (default 40; more for a soak).
"""

import bisect
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

MIN = -(1 << 63)
MAX = (1 << 63) - 1
ACC, DISC, RETRACT = 0, 1, 2


class Job:
    pass


def bridge(j, rng, seen, wm):
    """Now and then an event time that bridges two sessions of a split's
    rows of a key (seen, sorted), most often two that have fired at the
    watermark wm this split makes and are not past their lateness, or one
    that opens a session of its own a little more than a gap after such a
    session (fired at once: a pair to bridge later); else None."""
    runs = []  # [first, last] of each session of seen
    for t in seen:
        if runs and t - runs[-1][1] <= j.size:
            runs[-1][1] = t
        else:
            runs.append([t, t])
    pairs = [(a, b) for a, b in zip(runs, runs[1:]) if b[0] - a[1] <= 2 * j.size]
    fired = [(a, b) for a, b in pairs if b[1] + j.size <= wm < a[1] + j.size + j.lateness]
    x = rng.random()
    if fired and x < 0.9:
        pairs = fired
    elif x < 0.5:
        for i in range(len(runs) - 1, -1, -1):
            a = runs[i]
            ts = a[1] + j.size + rng.randint(1, j.size)
            if a[1] + j.size <= wm < a[1] + j.size + j.lateness and ts + j.size + j.lateness > wm \
                    and (i + 1 == len(runs) or runs[i + 1][0] > ts + j.size):
                return ts
        return None
    elif not pairs or x > 0.8:
        return None
    a, b = rng.choice(pairs[-4:])
    return rng.randint(b[0] - j.size, a[1] + j.size)


def gen_case(rng):
    """A random configuration and schedule."""
    j = Job()
    j.kind = rng.choices(["tumble", "hop", "session", "cumulate"], [0.27, 0.23, 0.35, 0.15])[0]
    # (sessions: fewer splits, whose rows of a key leave gaps between them)
    j.n = rng.choice([1, 1, 2, 2, 3, 4] if j.kind == "session" else [1, 1, 2, 2, 2, 3, 3, 4, 5, 6, 8])
    j.delay = rng.choice([0, 0, 1, 3, 10, 40])
    timeout = rng.choice([1, 5, 20, 50, 120])
    how = rng.choice(["spec", "spec", "job", "job", "both", "never", "off"])
    j.spec_idle, j.job_idle = {
        "spec": (timeout, 0), "job": (0, timeout), "both": (timeout, rng.choice([1, 500])),
        "never": (-1, timeout), "off": (0, 0)}[how]
    j.timeout = timeout if how not in ("never", "off") else 0
    # Now and then the splits say themselves when they are idle (a
    # repartition topic's reader): no timeout, no backlog, then.
    j.self_idle = rng.random() < 0.2
    j.batch = rng.choice([1, 2, 3, 8, 1024])
    j.par = rng.choice([1, 1, 2, 3])
    if j.kind == "hop":
        j.slide = rng.choice([5, 10, 20])
        j.size = j.slide * rng.randint(1, 4)
    elif j.kind == "cumulate":
        j.slide = rng.choice([5, 10, 20])  # the step
        j.size = j.slide * rng.randint(2, 5)
    else:
        # a session's size is its gap (what the schedule's jumps scale with)
        j.size = j.slide = rng.choice([3, 5, 10, 25] if j.kind == "session" else [5, 10, 25, 100])
    # Sessions: mostly with lateness and retracting, for merges into fired
    # sessions (late firings, -D of the sessions merged away).
    if j.kind == "session":
        j.lateness = rng.choice([0, j.size // 2 + 1, 2 * j.size, 3 * j.size, 6 * j.size])
        j.acc = rng.choice([ACC, DISC, RETRACT, RETRACT, RETRACT])
    else:
        j.lateness = rng.choice([0, 0, 0, j.size // 2 + 1, 2 * j.size])
        j.acc = rng.choice([ACC, DISC, RETRACT])
    j.keys = rng.randint(1, 4)
    j.start = rng.choice([0, 1000, 50000])
    max_rows = max(j.batch, 2) - 1
    n_passes = rng.randint(3, int(os.environ.get("WEIR_IDLEDIFF_PASSES", "40")))
    # The clock: steps around the timeout, none at all now and then.
    j.times, t = [], j.start
    scale = timeout
    for _ in range(n_passes):
        t += rng.choice([0, 1, max(1, scale // 3), scale - 1 if scale > 1 else 1, scale, scale,
                         scale + 1, 2 * scale, rng.randint(0, 3 * scale)])
        j.times.append(t)
    # All splits silent for a stretch now and then (the all-idle jump).
    silent = set()
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        a = rng.randrange(n_passes)
        silent.update(range(a, min(n_passes, a + rng.randint(1, 8))))
    base = rng.choice([0, 0, 1000, -300])
    j.sched = [[None] * n_passes for _ in range(j.n)]  # (flags, [(k, ts, v)])
    last_end = 0
    for s in range(j.n):
        end = n_passes - 1 if rng.random() < 0.6 else rng.randrange(n_passes)
        last_end = max(last_end, end)
        speed = rng.choice([1, 2, 3, 8, 20])
        if j.kind == "session" and rng.random() < 0.7:
            # a key's rows about a gap apart: sessions that end and start,
            # and rows behind them that bridge two
            speed = max(1, j.size * rng.choice([1, 2, 3]) // (2 * j.keys))
        cursor = base + rng.randint(0, 30)
        mode = "on"
        says = False
        seen = [[] for _ in range(j.keys)]  # a session case's event times per key
        top = MIN
        for p in range(end + 1):
            r = rng.random()
            if r > 0.7:
                old = mode
                mode = rng.choices(["on", "quiet", "lag"], [0.55, 0.35, 0.10])[0]
                if old != "on" and mode == "on":
                    # back from silence: ahead, where it was, or behind
                    cursor += rng.choice([0, 0, rng.randint(0, 5 * j.size), -rng.randint(0, 3 * j.size)])
            rows = []
            flags = ""
            if p in silent and p != end:
                pass
            elif mode == "on":
                for _ in range(rng.randint(0 if rng.random() < 0.1 else 1, max_rows if max_rows < 4 else 4)):
                    cursor += rng.randint(0, 2 * speed)
                    x = rng.random()
                    k = rng.randrange(j.keys)
                    # now and then a session row placed by this split's
                    # earlier rows of its key (bridge)
                    ts = bridge(j, rng, seen[k], top - j.delay) if j.kind == "session" else None
                    if ts is None and x < 0.75:
                        ts = cursor - rng.randint(0, j.delay)
                    elif ts is None and x < 0.92:
                        ts = cursor - j.delay - rng.randint(1, 3 * j.size)
                    elif ts is None:
                        ts = cursor
                        cursor += rng.randint(0, 4 * j.size)
                    if j.kind == "session":
                        bisect.insort(seen[k], ts)
                        top = max(top, ts)
                    rows.append((k, ts, rng.randint(-20, 50)))
            elif mode == "lag":
                flags += "b"
            if j.self_idle:
                if rng.random() < (0.1 if rows else 0.4):
                    says = not says if rows or rng.random() < 0.5 else True
                if says:
                    flags += "i"
            if p == end:
                flags += "e"
            j.sched[s][p] = (flags, rows)
    j.times = j.times[:last_end + 1]
    for s in range(j.n):
        del j.sched[s][last_end + 1:]
    j.note = ("%d splits, delay %d, idle %s, batch %d, %s, lateness %d, %s, parallelism %d, %d passes"
              % (j.n, j.delay, "said by the splits" if j.self_idle else "%s %d" % (how, timeout) if j.timeout else how, j.batch,
                 window_text(j), j.lateness,
                 ["accumulating", "discarding", "retracting"][j.acc], j.par, len(j.times)))
    return j


def window_text(j):
    return {"tumble": "TUMBLE(%d)" % j.size, "hop": "HOP(%d, %d)" % (j.slide, j.size),
            "cumulate": "CUMULATE(%d, %d)" % (j.slide, j.size), "session": "SESSION(%d)" % j.size}[j.kind]


def schedule_text(j):
    out = ["splits %d" % j.n, "delay %d" % j.delay, "spec_idle %d" % j.spec_idle,
           "job_idle %d" % j.job_idle, "batch %d" % j.batch, "par %d" % j.par,
           "window %s %d %d" % (j.kind, j.slide, j.size) if j.kind in ("hop", "cumulate")
           else "window %s %d" % (j.kind, j.size),
           "lateness %d" % j.lateness, "acc %d" % j.acc, "start %d" % j.start,
           "self_idle %d" % j.self_idle]
    for p, t in enumerate(j.times):
        out.append("pass %d" % t)
        for s in range(j.n):
            e = j.sched[s][p]
            if e is None or (not e[0] and not e[1]):
                continue
            out.append("s %d %s %d%s" % (s, e[0] or "-", len(e[1]),
                                         "".join(" %d %d %d" % r for r in e[1])))
    out.append("end")
    return "\n".join(out) + "\n"


# ---- the model ----

def windows_of(j, ts):
    """[start, end) of every window that holds ts (not sessions)."""
    if j.kind == "cumulate":
        s = ts - ts % j.size  # the period; a window ends at every step
        return [(s, e) for e in range(s + j.slide, s + j.size + 1, j.slide) if e > ts]
    out, s = [], ts - ts % j.slide  # python's % floors, as the windows do
    while s > ts - j.size:
        out.append((s, s + j.size))
        s -= j.slide
    return out


def aggs(vals):
    return (len(vals), sum(vals), min(vals), max(vals))


class Model:
    def __init__(self, j):
        self.j = j
        self.wm = [MIN] * j.n          # each split's watermark
        self.top = [MIN] * j.n         # each split's largest event time
        self.idle = [False] * j.n
        self.ended = [False] * j.n
        self.last = [j.start] * j.n    # processing time of its last rows (or backlog)
        self.out = MIN                 # the subtask's watermark
        self.values = set()            # every value the watermark takes
        self.win = {}                  # (k, start, end) -> state
        self.rows = collections.defaultdict(list)  # (k, start, end) -> [(kind, aggs, cause)]
        self.late = collections.Counter()
        self.events = collections.Counter()  # what the case went through

    # -- the subtask's watermark
    def level(self):
        live = [s for s in range(self.j.n) if not self.ended[s]]
        active = [s for s in live if not self.idle[s]]
        if active:
            return min(self.wm[s] for s in active)
        if live:
            return max(self.wm[s] for s in live)
        return MIN  # every split ended: the final watermark follows

    def settle(self):
        w = self.level()
        if w > self.out:
            if all(self.idle[s] or self.ended[s] for s in range(self.j.n)):
                self.events["all-idle advances"] += 1
            self.out = w
            self.values.add(w)
            self.advance(w)

    # -- the window operator
    def fire(self, key, st, cause):
        vals = st["new"] if self.j.acc == DISC else st["all"]
        if not st["new"]:
            return
        res = aggs(vals)
        # sessions merged into this one that had a result: -D, together
        # with the new window's result
        for old, last in st["gone"]:
            self.rows[old].append(("-D", last, cause))
            self.events["session results deleted" + (" (later, by the watermark)" if cause[0] == "wm" else "")] += 1
        st["gone"] = []
        if self.j.acc == RETRACT and st["last"] is not None:
            self.rows[key].append(("-U", st["last"], cause))
            self.rows[key].append(("+U", res, cause))
        else:
            self.rows[key].append(("+I", res, cause))
        st["last"] = res
        st["new"] = []
        st["fired"] = True

    def advance(self, w):
        for key in sorted(self.win):
            st = self.win[key]
            if not st["fired"] and key[2] <= w:
                self.fire(key, st, ("wm", key[2]))
            if key[2] + self.j.lateness <= w or w == MAX:
                del self.win[key]

    @staticmethod
    def fresh():
        return {"all": [], "new": [], "last": None, "fired": False, "gone": []}

    def session(self, k, ts, v):
        """A record into the sessions of key k: it opens [ts, ts + gap),
        which merges with every live session it intersects or touches."""
        w, j = self.out, self.j
        s, e = ts, ts + j.size
        touch = sorted((x for x in self.win if x[0] == k and x[1] <= e and x[2] >= s), key=lambda x: x[1])
        if not touch and e + j.lateness <= w:
            self.late[(k, v, ts, w, w - ts)] += 1
            return
        if touch and e + j.lateness <= w:
            self.events["rows saved by a live session"] += 1
        if len(touch) > 1:
            self.events["sessions bridged"] += 1
            if sum(1 for x in touch if self.win[x]["fired"]) > 1:
                self.events["fired sessions bridged"] += 1
        new = (k, min([s] + [x[1] for x in touch]), max([e] + [x[2] for x in touch]))
        st = self.fresh()
        for x in touch:
            old = self.win.pop(x)
            if old["fired"]:
                self.events["merges into a fired session"] += 1
            st["all"] += old["all"]
            st["new"] += old["new"]
            st["gone"] += old["gone"]
            if x == new:
                st["last"], st["fired"] = old["last"], old["fired"]
            elif old["last"] is not None and j.acc == RETRACT:
                st["gone"].append((x, old["last"]))
        st["all"].append(v)
        st["new"].append(v)
        self.win[new] = st
        if new[2] <= w:
            self.fire(new, st, ("rec", w))

    def record(self, k, ts, v):
        if self.j.kind == "session":
            return self.session(k, ts, v)
        w = self.out
        took = False
        for ws, we in windows_of(self.j, ts):
            if we + self.j.lateness <= w:
                continue
            took = True
            key = (k, ws, we)
            st = self.win.setdefault(key, self.fresh())
            st["all"].append(v)
            st["new"].append(v)
            if we <= w:
                self.fire(key, st, ("rec", w))
        if not took:
            self.late[(k, v, ts, w, w - ts)] += 1

    def run(self):
        j = self.j
        for p, now in enumerate(j.times):
            for s in range(j.n):
                if self.ended[s]:
                    continue
                flags, rows = j.sched[s][p] or ("", [])
                if rows:
                    self.last[s] = now
                    if self.idle[s]:
                        self.idle[s] = False
                        self.events["idle splits back with rows"] += 1
                        self.settle()
                    for k, ts, v in rows:
                        self.record(k, ts, v)
                        if ts > self.top[s]:
                            self.top[s] = ts
                            self.wm[s] = ts - j.delay
                            self.settle()
                if "e" in flags:
                    self.ended[s] = True
                    self.settle()
                    continue
                if j.self_idle:
                    # idle exactly while it says so (after its rows)
                    if self.idle[s] != ("i" in flags):
                        self.idle[s] = "i" in flags
                        self.events["idle turns (said)" if self.idle[s] else "idle splits back (said)"] += 1
                        self.settle()
                    continue
                if rows:
                    continue
                if "b" in flags:
                    self.last[s] = now
                    if self.idle[s]:
                        self.idle[s] = False
                        self.events["idle splits back by a backlog"] += 1
                        self.settle()
                elif not self.idle[s] and j.timeout > 0 and now - self.last[s] >= j.timeout:
                    self.idle[s] = True
                    self.events["idle turns"] += 1
                    self.settle()
        self.out = MAX
        self.values.add(MAX)
        self.advance(MAX)


# ---- the check ----

def parse(text):
    """{subtask: [("W", wm) or ("R", kind, key, aggs)]}, late rows, problems."""
    logs, late, probs = collections.defaultdict(list), collections.Counter(), []
    for line in text.splitlines():
        f = line.split()
        if f[0] == "W":
            logs[int(f[1])].append(("W", MAX if f[2] == "MAX" else int(f[2])))
        elif f[0] == "R":
            k, ws, we = int(f[3]), int(f[4]), int(f[5])
            logs[int(f[1])].append(("R", f[2], (k, ws, we), tuple(int(x) for x in f[6:10])))
        elif f[0] == "L":
            late[tuple(int(x) for x in f[1:6])] += 1
        else:
            probs.append("unexpected line: " + line)
    return logs, late, probs


def show(w):
    return "MAX" if w == MAX else "MIN" if w == MIN else str(w)


def check(j, m, text, counts):
    logs, late, probs = parse(text)
    got = collections.defaultdict(list)
    for sub in sorted(logs):
        ev = logs[sub]
        seen, prev = [], MIN
        for e in ev:
            if e[0] == "W":
                if e[1] <= prev:
                    probs.append("subtask %d: watermark %s after %s" % (sub, show(e[1]), show(prev)))
                elif e[1] not in m.values:
                    probs.append("subtask %d: watermark %s, which the model never has" % (sub, show(e[1])))
                seen.append(e[1])
                prev = e[1]
        if not seen or seen[-1] != MAX:
            probs.append("subtask %d: no final watermark (seen %s)" % (sub, [show(w) for w in seen[-8:]]))
        prev = MIN
        for i, e in enumerate(ev):
            if e[0] == "W":
                prev = e[1]
                continue
            nxt = next((x[1] for x in ev[i + 1:] if x[0] == "W"), None)
            got[e[2]].append((e[1], e[3], prev, nxt, sub))
    if not logs:
        probs.append("no watermark reached the results")
    for key in sorted(set(got) | set(m.rows)):
        want, have = m.rows.get(key, []), got.get(key, [])
        name = "key %d window [%d, %d)" % key
        if [(w[0], w[1]) for w in want] != [(h[0], h[1]) for h in have]:
            probs.append("%s: rows %s, want %s" % (name, [(h[0], h[1]) for h in have],
                                                   [(w[0], w[1]) for w in want]))
            continue
        if len({h[4] for h in have}) > 1:
            probs.append("%s: rows on several subtasks" % name)
        for w, h in zip(want, have):
            # (a -D of a merged session goes with the merged window's firing)
            if w[2][0] == "wm" and not (h[2] < w[2][1] and h[3] is not None and h[3] >= w[2][1]):
                probs.append("%s: %s %s fired by the watermark between %s and %s, want between "
                             "one below %d and one at or past it"
                             % (name, h[0], h[1], show(h[2]), h[3] if h[3] is None else show(h[3]), w[2][1]))
            if w[2][0] == "rec" and h[2] != w[2][1]:
                probs.append("%s: %s %s, a late firing, after watermark %s, want %s"
                             % (name, h[0], h[1], show(h[2]), show(w[2][1])))
    probs += diffrun.multiset_problems("late rows", m.late, late)
    counts["records"] += sum(len(e[1]) for sp in j.sched for e in sp if e)
    counts["late records"] += sum(m.late.values())
    counts["late firings"] += sum(1 for rs in m.rows.values() for r in rs if r[2][0] == "rec")
    counts["result rows"] += sum(len(rs) for rs in m.rows.values())
    return probs


def run_case(case):
    j = gen_case(case.rng)
    case.note = j.note
    text = schedule_text(j)
    case.write("schedule.txt", text)
    m = Model(j)
    m.run()
    p = subprocess.run([case.weir], input=text, capture_output=True, text=True, timeout=case.args.timeout)
    case.write("log.txt", p.stdout)
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    case.counts["splits"] += j.n
    case.counts.update(m.events)
    return check(j, m, p.stdout, case.counts)


if __name__ == "__main__":
    sys.exit(diffrun.main("idle_diff", run_case, jobs_env="WEIR_IDLEDIFF_CASES", jobs=80, asan_jobs=20,
                          one_env="WEIR_IDLEDIFF_CASE", timeout=60))
