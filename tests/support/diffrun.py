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

Environment: WEIR_SEED replays a run; <one_env>=i runs case i of it alone;
<jobs_env> sets the number of cases (a smaller default applies when weir is
built with AddressSanitizer); --out (or <NAME>_OUT) keeps failed cases.
"""

import argparse
import collections
import os
import random
import shutil
import subprocess
import tempfile


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

    def path(self, *names):
        return os.path.join(self.folder, *names)

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)

    def run_weir(self, argv, timeout=300, text=True):
        """Runs weir with argv in the case's folder; output captured."""
        return subprocess.run([self.weir] + list(argv), cwd=self.folder, capture_output=True,
                              text=text, timeout=timeout)


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


def built_with_asan(weir):
    try:
        out = subprocess.run(["ldd", weir], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "libasan" in out


def main(name, run_case, jobs_env, jobs, asan_jobs=None, one_env=None, unit="cases",
         add_args=None, summary=None):
    """Runs the cases of one randomized differential test; returns the exit
    status (1 when any case failed). add_args(parser) adds options of the
    test's own; summary() may return a string for the closing line."""
    ap = argparse.ArgumentParser(description="%s: randomized differential test of weir" % name)
    ap.add_argument("--weir", required=True, help="the weir binary")
    ap.add_argument("--jobs", "--cases", dest="jobs", type=int, default=None,
                    help="number of cases (default: $%s, else %d)" % (jobs_env, jobs))
    ap.add_argument("--seed", type=int, default=None, help="replays a run (default: $WEIR_SEED or random)")
    ap.add_argument("--out", default=None,
                    help="keep the folder of each failed case under this folder")
    if add_args:
        add_args(ap)
    a = ap.parse_args()
    weir = os.path.abspath(a.weir)
    if a.jobs is None:
        default = asan_jobs if asan_jobs is not None and built_with_asan(weir) else jobs
        a.jobs = int(os.environ.get(jobs_env, default))
    seed = a.seed
    if seed is None:
        seed = int(os.environ.get("WEIR_SEED", random.randrange(1 << 30)))
    only = os.environ.get(one_env) if one_env else None
    indices = [int(only)] if only else list(range(a.jobs))
    replay = "WEIR_SEED=%d" % seed
    print("%s: seed %d (%s replays it%s), %d %s"
          % (name, seed, replay, "; %s=i case i alone" % one_env if one_env else "", len(indices), unit),
          flush=True)
    failed = 0
    for i in indices:
        folder = tempfile.mkdtemp(prefix=name + "_")
        case = Case(weir, seed, i, folder, a)
        try:
            problems = run_case(case)
        except subprocess.TimeoutExpired:
            problems = ["weir timed out"]
        if problems:
            failed += 1
            print("FAIL case %d (%s%s)%s:" % (i, replay, " %s=%d" % (one_env, i) if one_env else "",
                                             " " + case.note if case.note else ""), flush=True)
            for line in problems[:10]:
                print("  " + line)
            if a.out:
                dst = os.path.join(a.out, "seed%d_case%d" % (seed, i))
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(folder, dst)
                with open(os.path.join(dst, "problems.txt"), "w", encoding="utf-8") as f:
                    f.write((case.note + "\n" if case.note else "") + "\n".join(problems) + "\n")
                print("  case kept in " + dst)
        shutil.rmtree(folder, ignore_errors=True)
    extra = summary() if summary else ""
    print("%s: %d %s, %d failed%s; seed %d" % (name, len(indices), unit, failed,
                                               ", " + extra if extra else "", seed))
    return 1 if failed else 0


def engine_options(case, parallelism, batch=None, rocksdb=False):
    """The -D options that run a case at a parallelism, a batch size, and on
    RocksDB (state under the case's folder) or the default backend."""
    opts = ["-D", "parallelism.default=%d" % parallelism]
    if batch is not None:
        opts += ["-D", "weir.batch-size=%d" % batch]
    if rocksdb:
        opts += ["-D", "state.backend.type=rocksdb", "-D", "weir.state.dir=" + case.path("state")]
    return opts
