"""The driver that weir's randomized differential tests share.

A test (tests/*_diff.py) generates random cases, runs each through `weir run`
and compares the result with an oracle of its own that shares no code with
weir. What is the same for all of them lives here: the command line, the
seed and how one case of a run is replayed, a fresh folder per case, keeping
the folders of failed cases, the report, and the exit status.

    import diffrun

    def run_case(case):          # -> list of problems ([] when it passed)
        rows = gen(case.rng)
        case.write("job.sql", ...)
        p = case.run_weir(["run", "job.sql", "-D", "parallelism.default=2"])
        if p.returncode:
            return [diffrun.failed_run(p)]
        return diffrun.multiset_problems("q0", want, got)

    sys.exit(diffrun.main("json_diff", run_case, jobs_env="WEIR_JSONDIFF_JOBS",
                          jobs=20, asan_jobs=6, one_env="WEIR_JSONDIFF_JOB"))

Environment: WEIR_SEED replays a run; <one_env>=i (or --case i) runs case i
of it alone; <jobs_env> sets the number of cases (a smaller default applies
when weir is built with AddressSanitizer); --out (or <out_env>) keeps the
folder of each failed case; WEIR_DIFF_WORKERS (or --workers) runs that many
cases at once, each in a process of its own. A case's rng, and so the case,
depends only on the seed and its index, never on the number of workers.
What a case counts in case.counts is summed over the run and printed in the
closing line.
"""

import argparse
import collections
import concurrent.futures
import glob
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time


class Case:
    """One random case: its seed and index, its own rng, its own folder."""

    def __init__(self, weir, seed, index, folder, args):
        self.weir = weir
        self.seed = seed
        self.index = index
        self.folder = folder
        self.args = args  # the parsed command line (extra options included)
        self.rng = random.Random(seed * 1000003 + index)
        self.note = ""    # what the case was, printed with its problems
        self.counts = collections.Counter()  # summed over the run, printed at its end

    def path(self, *names):
        return os.path.join(self.folder, *names)

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)

    def run_weir(self, argv, timeout=None, text=True, cwd=None):
        """Runs weir with argv in the case's folder (or cwd); output
        captured. The timeout defaults to --timeout."""
        return subprocess.run([self.weir] + list(argv), cwd=cwd or self.folder, capture_output=True,
                              text=text, timeout=timeout or self.args.timeout)


def failed_run(p):
    """The problem line for a weir run that did not end with status 0."""
    err = p.stderr if isinstance(p.stderr, str) else p.stderr.decode(errors="replace")
    return "weir exited %d: %s" % (p.returncode, err.strip()[-2000:])


def multiset_problems(what, want, got, limit=10):
    """[] when the two multisets (Counters, or iterables) are equal, else one
    line naming what is missing from got and what got has in excess."""
    want = want if isinstance(want, collections.Counter) else collections.Counter(want)
    got = got if isinstance(got, collections.Counter) else collections.Counter(got)
    if want == got:
        return []
    missing = sorted((want - got).items(), key=str)[:limit]
    extra = sorted((got - want).items(), key=str)[:limit]
    return ["%s: %d rows, want %d; missing %s; unexpected %s"
            % (what, sum(got.values()), sum(want.values()), missing, extra)]


def json_rows(folder):
    """The rows of every JSON-lines file a filesystem sink wrote under
    folder (in-progress files, named with a leading dot, left out), as a
    list of dicts."""
    rows = []
    for root, _, files in os.walk(folder):
        for fn in files:
            if fn.startswith("."):
                continue
            with open(os.path.join(root, fn), encoding="utf-8") as f:
                rows.extend(json.loads(line) for line in f if line.strip())
    return rows


def json_rows_by_id(folder):
    """json_rows(folder) as {row["id"]: row}."""
    return {row["id"]: row for row in json_rows(folder)}


def write_csv(path, rows):
    """Rows (sequences of values) as CSV lines, NULL as an empty field."""
    with open(path, "w") as f:
        f.writelines(",".join("" if v is None else str(v) for v in r) + "\n" for r in rows)


def window_bounds(ts, kind, size, slide):
    """[start, end) of every TUMBLE or HOP window (ms) that holds time ts,
    newest first: the oracles' window assignment."""
    if kind == "TUMBLE":
        slide = size
    out, s = [], ts - ts % slide
    while s > ts - size:
        out.append((s, s + size))
        s -= slide
    return out


def print_inserts(stdout):
    """The rows print sinks wrote (`name> +I[a, b, ...]` or `name:subtask> ...`)
    as {name: [[field text, ...], ...]}, and a problem line for each line
    that is not an insertion."""
    rows, problems = {}, []
    for line in stdout.splitlines():
        head, _, rest = line.partition("> ")
        if not rest.startswith("+I[") or not rest.endswith("]"):
            problems.append("unexpected line: " + line)
            continue
        rows.setdefault(head.split(":")[0], []).append(rest[3:-1].split(", "))
    return rows, problems


def built_with_asan(weir):
    try:
        out = subprocess.run(["ldd", weir], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "libasan" in out


# What the cases of a run share (set before the worker processes fork).
_run = None


def _one_case(index):
    """Runs case `index` in a fresh folder, which is removed unless the case
    fails. Returns (index, problems, note, counts, folder or None)."""
    name, weir, seed, args, run_case = _run
    folder = tempfile.mkdtemp(prefix=name + "_")
    case = Case(weir, seed, index, folder, args)
    try:
        problems = run_case(case)
    except subprocess.TimeoutExpired as e:
        problems = ["weir timed out after %d s" % e.timeout]
    if not problems:
        shutil.rmtree(folder, ignore_errors=True)
        folder = None
    note = case.note + (" [%s]" % case.knob_note if getattr(case, "knob_note", "") else "")
    return index, problems, note, case.counts, folder


def _keep(folder, out, seed, index, note, problems):
    """Moves a failed case's folder to out (with problems.txt); its path."""
    kept = os.path.join(out, "seed%d_case%d" % (seed, index))
    shutil.rmtree(kept, ignore_errors=True)
    shutil.copytree(folder, kept)
    with open(os.path.join(kept, "problems.txt"), "w", encoding="utf-8") as f:
        f.write((note + "\n" if note else "") + "\n".join(problems) + "\n")
    return kept


def _results(indices, workers):
    """The results of _one_case for indices, in index order; the caller
    stops early by closing the generator (the cases already started then
    finish, unreported, their folders removed). With more than one worker,
    cases run in forked processes, at most 2 * workers submitted ahead."""
    if workers <= 1:
        for i in indices:
            yield _one_case(i)
        return
    with concurrent.futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
        pending = collections.deque()
        it = iter(indices)
        try:
            while True:
                while len(pending) < 2 * workers:
                    i = next(it, None)
                    if i is None:
                        break
                    pending.append(pool.submit(_one_case, i))
                if not pending:
                    return
                yield pending.popleft().result()
        finally:
            for f in pending:
                if not f.cancel() and not f.exception() and f.result()[4]:
                    shutil.rmtree(f.result()[4], ignore_errors=True)


def main(name, run_case, jobs_env, jobs, asan_jobs=None, one_env=None, unit="cases",
         add_args=None, out_env=None, max_failures=None, timeout=300, describe=None):
    """Runs the cases of one randomized differential test; returns the exit
    status (1 when any case failed). add_args(parser) adds options of the
    test's own (read as case.args); after max_failures failed cases no
    further case starts; timeout is the default of Case.run_weir's;
    describe(args) may return what the opening line says of the run's
    settings (what a replay needs besides the seed)."""
    ap = argparse.ArgumentParser(description="%s: randomized differential test of weir" % name)
    ap.add_argument("--weir", required=True, help="the weir binary")
    ap.add_argument("--jobs", "--cases", dest="jobs", type=int, default=None,
                    help="number of cases (default: $%s, else %d)" % (jobs_env, jobs))
    ap.add_argument("--seed", type=int, default=None, help="replays a run (default: $WEIR_SEED or random)")
    ap.add_argument("--case", "--job", dest="case", type=int, default=None,
                    help="runs case i of the seed alone%s" % (" (default: $%s)" % one_env if one_env else ""))
    ap.add_argument("--first", "--first-job", dest="first", type=int, default=0,
                    help="index of the first case (a run goes on from another)")
    ap.add_argument("--out", default=os.environ.get(out_env) if out_env else None,
                    help="keep the folder of each failed case under this folder%s"
                    % (" (default: $%s)" % out_env if out_env else ""))
    ap.add_argument("--workers", type=int, default=int(os.environ.get("WEIR_DIFF_WORKERS", "1")),
                    help="cases run at once, each in a process (default: $WEIR_DIFF_WORKERS, else 1)")
    ap.add_argument("--max-failures", type=int, default=max_failures,
                    help="start no case after this many failed")
    ap.add_argument("--timeout", type=int, default=timeout, help="seconds one weir run may take")
    if add_args:
        add_args(ap)
    a = ap.parse_args()
    weir = os.path.abspath(a.weir)
    if a.out:
        a.out = os.path.abspath(a.out)
    if a.jobs is None:
        default = asan_jobs if asan_jobs is not None and built_with_asan(weir) else jobs
        a.jobs = int(os.environ.get(jobs_env, default))
    seed = a.seed
    if seed is None:
        seed = int(os.environ.get("WEIR_SEED", random.randrange(1 << 30)))
    if a.case is None and one_env and os.environ.get(one_env):
        a.case = int(os.environ[one_env])
    indices = [a.case] if a.case is not None else list(range(a.first, a.first + a.jobs))
    replay = "WEIR_SEED=%d" % seed
    print("%s: seed %d (%s replays it%s), %d %s%s%s"
          % (name, seed, replay, "; %s=i case i alone" % one_env if one_env else "", len(indices), unit,
             ", " + describe(a) if describe else "", ", %d workers" % a.workers if a.workers > 1 else ""),
          flush=True)
    global _run
    _run = (name, weir, seed, a, run_case)
    failed = done = 0
    counts = collections.Counter()
    t0 = time.time()
    results = _results(indices, a.workers)
    for i, problems, note, case_counts, folder in results:
        done += 1
        counts.update(case_counts)
        if problems:
            failed += 1
            print("FAIL case %d (%s%s)%s:" % (i, replay, " %s=%d" % (one_env, i) if one_env else "",
                                             " " + note if note else ""), flush=True)
            for line in problems[:10]:
                print("  " + line)
            if a.out:
                print("  case kept in " + _keep(folder, a.out, seed, i, note, problems), flush=True)
            shutil.rmtree(folder, ignore_errors=True)
            if a.max_failures and failed >= a.max_failures and done < len(indices):
                print("%s: stopping after %d failed %s" % (name, failed, unit), flush=True)
                results.close()
                break
        if done % 200 == 0:
            print("%s: %d %s, %d failed, %.0f s" % (name, done, unit, failed, time.time() - t0), flush=True)
    extra = "".join(", %d %s" % (n, what) for what, n in sorted(counts.items()))
    print("%s: %d %s, %d failed%s, %.1f s; seed %d" % (name, done, unit, failed, extra,
                                                     time.time() - t0, seed), flush=True)
    return 1 if failed else 0


def first_parts_checkpointed(case, n_inputs=2, name="part0.json"):
    """Whether the newest completed checkpoint under the case's ckpt/ holds
    the first file (`name`) of each of n_inputs inputs read whole."""
    done = [int(m.group(1)) for m in (re.search(r"chk-(\d+)/_metadata$", p)
                                      for p in glob.glob(case.path("ckpt", "chk-*", "_metadata"))) if m]
    if not done:
        return False
    shown = case.run_weir(["inspect", case.path("ckpt", "chk-%d" % max(done))])
    splits = re.findall(r"source split (\S+): (\w+)", shown.stdout or "")
    first = [st for sid, st in splits if sid.endswith(name)]
    return shown.returncode == 0 and len(first) == n_inputs and all(st == "finished" for st in first)


def stop_mid_input(case, opts, ready=first_parts_checkpointed, sql="watched.sql", wait_s=60):
    """Runs `weir run sql` (a job whose sources watch their folders) with
    checkpoints into the case's ckpt/ until ready(case), then stops it with
    SIGTERM (a final checkpoint). None; a problem; or "skip" when ready did
    not come in wait_s seconds. A checkpoint every 100 ms, the last 50 kept:
    `weir inspect` (slow under a sanitizer or load) must still find the one
    it reads (with one kept it never did under ASan)."""
    cmd = ["run", sql, "-D", "state.checkpoints.dir=ckpt", "-D", "execution.checkpointing.interval=100ms",
           "-D", "state.checkpoints.num-retained=50"]
    with open(case.path("run0.log"), "w") as lf:
        p = subprocess.Popen([case.weir] + cmd + opts, cwd=case.folder, stdout=subprocess.DEVNULL, stderr=lf)
    try:
        end = time.time() + wait_s
        while time.time() < end and p.poll() is None and not ready(case):
            time.sleep(0.1)
        if p.poll() is not None:
            return "the watched run ended on its own (%s): %s" % (p.returncode, open(case.path("run0.log")).read()[-600:])
        if time.time() >= end:
            return "skip"
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=120)
        text = open(case.path("run0.log")).read()
        if rc != 143 or "final checkpoint" not in text:
            return "SIGTERM exited %s without a final checkpoint: %s" % (rc, text[-600:])
        return None
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def stop_for_restore(case, opts, n_inputs=2):
    """stop_mid_input until a checkpoint holds the first file of each of
    n_inputs inputs whole: None when the job stopped with its final
    checkpoint; else what the case returns, [] when no such checkpoint came
    in time (counted in case.counts) or [the problem]."""
    problem = stop_mid_input(case, opts, ready=lambda c: first_parts_checkpointed(c, n_inputs=n_inputs))
    if problem == "skip":
        case.counts["restores skipped (no checkpoint with the first parts read in 60 s)"] += 1
        return []
    return [problem] if problem else None


def engine_options(case, parallelism, batch=None, rocksdb=False):
    """The -D options that run a case at a parallelism, a batch size, and on
    RocksDB (state under the case's folder) or the default backend, plus the
    case's engine knobs (engine_knobs)."""
    opts = ["-D", "parallelism.default=%d" % parallelism]
    if batch is not None:
        opts += ["-D", "weir.batch-size=%d" % batch]
    if rocksdb:
        opts += ["-D", "state.backend.type=rocksdb", "-D", "weir.state.dir=" + case.path("state")]
    return opts + engine_knobs(case)


def engine_knobs(case):
    """Settings that must never change a result, drawn once per case from
    a stream of its own (the case's other draws are left as they were):
    the number of key groups (pipeline.max-parallelism: uneven key-group
    ranges over the subtasks; at least 8, every parallelism the tests use,
    restores at another parallelism included; the largest, 32768, rarely:
    empty key groups are not written, but each checkpoint and restore
    still walks every key group a subtask owns, so a case with checkpoints
    every few ms runs longer) and the batches a channel holds
    (weir.channel-capacity: 1 makes every exchange wait on its reader, so
    a cycle of waits shows as a hang). The same for every run of the case;
    named in its note when it fails, and counted."""
    if not hasattr(case, "knobs"):
        rng = random.Random("%d/%d/engine" % (case.seed, case.index))
        knobs = []
        maxp = rng.choice([None] * 10 + [8, 9, 13, 200] * 2 + [32768])
        if maxp:
            knobs.append("pipeline.max-parallelism=%d" % maxp)
        cap = rng.choice([None, None, None, 1, 2])
        if cap:
            knobs.append("weir.channel-capacity=%d" % cap)
        case.knobs = [x for k in knobs for x in ("-D", k)]
        for k in knobs:
            case.counts[k.replace("=", " ")] += 1
        case.knob_note = " ".join(knobs)
    return case.knobs


def committed_files(folder):
    """The visible files a filesystem sink wrote in folder (hidden and
    "_" files left out), in the order they were written: by modification
    time (a commit renames a file, which keeps it), then name. Across
    runs of a job that stopped and restored, that is each sink subtask's
    history in order."""
    if not os.path.isdir(folder):
        return []
    names = [n for n in os.listdir(folder) if not n.startswith((".", "_"))]
    return sorted(names, key=lambda n: (os.stat(os.path.join(folder, n)).st_mtime_ns, n))


def nested_loop_join(kind, lrows, rrows, meets, row, pairs=None):
    """The rows of l kind JOIN r (INNER, LEFT, RIGHT or FULL) as a Counter:
    row(l, r) for each pair that meets(l, r), and row(l, None) / row(None, r)
    for an outer side's row that met none (rows are told apart by their
    "id"); pairs, when a list, gets each pair (l, r) that meets."""
    out = collections.Counter()
    met_l, met_r = set(), set()
    for l in lrows:
        for r in rrows:
            if meets(l, r):
                out[row(l, r)] += 1
                if pairs is not None:
                    pairs.append((l, r))
                met_l.add(l["id"])
                met_r.add(r["id"])
    if kind in ("LEFT", "FULL"):
        out.update(row(l, None) for l in lrows if l["id"] not in met_l)
    if kind in ("RIGHT", "FULL"):
        out.update(row(None, r) for r in rrows if r["id"] not in met_r)
    return out


def random_changes(rng, rows, updated, more):
    """A random changelog of rows: each row inserted, and after it, while
    rng.random() < more, a change of a row still there: an update to
    updated(row) (7 in 10) or its delete. The changes as (op, before, after),
    op "c", "u" or "d", and the rows left at the end."""
    live, changes = [], []
    for r in rows:
        changes.append(("c", None, r))
        live.append(r)
        while live and rng.random() < more:
            i = rng.randrange(len(live))
            if rng.random() < 0.7:
                new = updated(live[i])
                changes.append(("u", live[i], new))
                live[i] = new
            else:
                changes.append(("d", live.pop(i), None))
    return changes, live


def debezium_changes(folder, names=None, numbers_as_text=False):
    """The changes of a folder of debezium-json changelog files, file by
    file in name order (or in the order of names; hidden files skipped):
    (op, row) with op "c" and its "after" row or "d" and its "before" row
    (numbers_as_text: every number as its JSON text, digits kept)."""
    if names is None:
        names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    for name in names:
        if name.startswith("."):
            continue
        with open(os.path.join(folder, name)) as f:
            for line in f:
                if not line.strip():
                    continue
                e = json.loads(line, parse_float=str, parse_int=str) if numbers_as_text else json.loads(line)
                if e["op"] not in ("c", "d"):
                    raise ValueError("op %r" % e["op"])
                yield e["op"], e["after"] if e["op"] == "c" else e["before"]


def fold_debezium(folder, cols, names=None, numbers_as_text=False):
    """The table a folder of debezium-json changelog files (names: in that
    order) describes, as a Counter of tuples of cols: a create adds its
    "after" row, a delete takes its "before" row away and must find it
    (ValueError otherwise)."""
    got = collections.Counter()
    for op, row in debezium_changes(folder, names, numbers_as_text):
        v = tuple(row[c] for c in cols)
        if op == "c":
            got[v] += 1
        elif got[v] <= 0:
            raise ValueError("a delete of a row not there: %s" % (v,))
        else:
            got[v] -= 1
    return +got


def fold_debezium_upserts(folder, cols, key, names=None):
    """The table a folder of debezium-json files (names: in that order)
    describes when applied as upserts, as a Counter of tuples of cols: a
    create sets its key's row, a delete removes its key and must find it
    (ValueError otherwise). Each sink subtask's files are applied in order;
    a key lives in one's."""
    rows = {}
    at = [cols.index(c) for c in key]
    for op, row in debezium_changes(folder, names):
        v = tuple(row[c] for c in cols)
        k = tuple(v[i] for i in at)
        if op == "c":
            rows[k] = v
        elif rows.pop(k, None) is None:
            raise ValueError("a delete of a key not there: %s" % (k,))
    return collections.Counter(rows.values())


def families(spec, all_families):
    """The families a --families list names: "-name" leaves one out of
    all_families; "name" alone runs only the names given."""
    fams = set(all_families)
    for f in filter(None, spec.split(",")):
        if f.startswith("-"):
            fams.discard(f[1:])
        else:
            fams = ({f} if fams == set(all_families) else fams | {f})
    return fams
