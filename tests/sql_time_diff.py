#!/usr/bin/env python3
"""Randomized differential test of table.local-time-zone against Python's
zoneinfo/datetime (tests/test_sql_time_diff.sh runs it).

Each case draws a zone from the system's zoneinfo and instants across
1900-2100, half of them within hours of the zone's offset changes (DST
gaps and overlaps, found here by bisection), and runs one weir job per case
that decomposes each TIMESTAMP_LTZ in the session zone (CAST to TIMESTAMP
and STRING, DATE_FORMAT, FROM_UNIXTIME, EXTRACT, local wall time back to an
instant, CONVERT_TZ), and counts the events of each local day (TUMBLE 1 DAY) and local
hour (TUMBLE 1 HOUR: in an overlap the repeated hour's two passes are one
window). The expected rows come from Python's zoneinfo (which reads the
same TZif files, footer rule included, but shares no code with weir) with
java.time's rules: a local time in a gap moves forward by the gap, one in
an overlap takes the earlier instant (Python's fold=0 does both). A third
of the cases use a zone of their own (a TZif file under a private TZDIR
with no transitions and a random POSIX footer rule: Mm.w.d and Jn dates,
times past 24 h or negative), so the footer decides every year.
"""
import datetime as dt
import os
import random
import subprocess
import sys
import zoneinfo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
LO = int((dt.datetime(1900, 1, 1, tzinfo=UTC) - EPOCH).total_seconds())
HI = int((dt.datetime(2100, 1, 1, tzinfo=UTC) - EPOCH).total_seconds())


def zones():
    out = []
    for name in sorted(zoneinfo.available_timezones()):
        if name.startswith(("posix/", "right/")) or name in ("Factory", "localtime"):
            continue
        if os.path.isfile(os.path.join("/usr/share/zoneinfo", name)):
            out.append(name)
    return out


def off(z, s):
    return dt.datetime.fromtimestamp(s, z).utcoffset().total_seconds()


def transitions(z, rnd, n):
    """Up to n instants (seconds) where z's offset changes, found by bisection."""
    found = []
    for _ in range(n * 6):
        if len(found) >= n:
            break
        a = rnd.randrange(LO, HI - 400 * 86400)
        b = a + 400 * 86400
        if off(z, a) == off(z, b):
            continue
        while b - a > 1:
            m = (a + b) // 2
            if off(z, m) == off(z, a):
                a = m
            else:
                b = m
        found.append(b)
    return found


def posix_time(sec, sign_ok=True):
    """POSIX TZ [+-]hh[:mm] text of sec seconds."""
    neg = sec < 0
    sec = abs(sec)
    t = "%d" % (sec // 3600)
    if sec % 3600:
        t += ":%02d" % (sec % 3600 // 60)
    return ("-" if neg else "") + t


def synth_rule(rnd):
    """A random POSIX TZ rule with DST (Mm.w.d, Jn or n dates, odd times)."""
    std = rnd.randrange(-12 * 4, 14 * 4 + 1) * 900  # seconds east of UTC
    dst = std + rnd.choice([3600, 3600, 1800, 7200])

    def date(month):
        # Dates the oracle reads wrongly are left out; weir's reading is
        # POSIX's (and glibc's) in each:
        # - zero-based "n" dates: CPython's zoneinfo reads them one day early
        #   (it adds n to the day before January 1);
        # - J59: CPython moves it to February 29 in leap years (it counts the
        #   leap day from J59 on, POSIX from J60 on);
        # - a transition within two days of New Year: CPython evaluates an
        #   instant with the rules of its UTC year, so a transition whose
        #   local time falls in the next (or last) year is missed there.
        if rnd.random() < 0.7:
            w = rnd.randint(2 if month == 1 else 1, 4 if month == 12 else 5)
            d = "M%d.%d.%d" % (month, w, rnd.randint(0, 6))
        else:
            n = 59
            while n == 59:
                n = rnd.randint(max(3, (month - 1) * 30 + 1), min(362, month * 30))
            d = "J%d" % n
        if rnd.random() < 0.7:
            d += "/" + posix_time(rnd.randrange(-2, 27) * 1800)
        return d

    m1 = rnd.randint(1, 12)
    m2 = (m1 - 1 + rnd.randint(3, 9)) % 12 + 1
    # POSIX offsets count west of Greenwich: the sign is inverted
    return "<S%s>%s<D%s>%s,%s,%s" % ("a", posix_time(-std), "b", posix_time(-dst), date(m1), date(m2))


def write_tzif(path, footer):
    """A version-2 TZif file with no transitions: every instant follows the footer rule."""
    import struct
    chars = b"LMT\0"
    body = struct.pack(">lBB", 0, 0, 0) + chars
    hdr = b"TZif2" + b"\0" * 15 + struct.pack(">6l", 0, 0, 0, 0, 1, len(chars))
    with open(path, "wb") as f:
        f.write(hdr + body + hdr + body + b"\n" + footer.encode() + b"\n")


def local_of(z, ms):
    """Local wall time (naive datetime with milliseconds) of epoch ms ms."""
    s, frac = divmod(ms, 1000)
    d = dt.datetime.fromtimestamp(s, z).replace(tzinfo=None)
    return d + dt.timedelta(milliseconds=frac)


def java_ldt(d):
    """java.time.LocalDateTime.toString, as Flink prints a TIMESTAMP."""
    t = d.strftime("%Y-%m-%dT%H:%M")
    if d.second or d.microsecond:
        t += ":%02d" % d.second
    if d.microsecond:
        t += ".%03d" % (d.microsecond // 1000)
    return t


def to_instant(z, d):
    """java.time's LocalDateTime.atZone(z).toInstant() in epoch ms (fold=0)."""
    aware = d.replace(tzinfo=z, fold=0)
    delta = aware.astimezone(UTC) - EPOCH
    return delta.days * 86400000 + delta.seconds * 1000 + delta.microseconds // 1000


def dow(d):  # 1 = Sunday
    return (d.isoweekday() % 7) + 1


def run_case(weir, seed, n, tmp):
    rnd = random.Random(seed)
    env = dict(os.environ)
    if rnd.random() < 0.3:
        # a zone of our own: only the footer rule, so it decides every year
        rule = synth_rule(rnd)
        zdir = os.path.join(tmp, "zones")
        os.makedirs(os.path.join(zdir, "Synth"))
        write_tzif(os.path.join(zdir, "Synth", "Zone"), rule)
        with open(os.path.join(zdir, "Synth", "Zone"), "rb") as fh:
            z = zoneinfo.ZoneInfo.from_file(fh, key="Synth/Zone")
        z_name = "Synth/Zone"
        env["TZDIR"] = zdir
    else:
        rule = None
        z_name = rnd.choice(zones())
        z = zoneinfo.ZoneInfo(z_name)
    insts = set()
    for t in transitions(z, rnd, max(1, n // 20)):
        # dense events around the change: every 10 minutes from -2 h to +3 h, random ms
        for k in range(-12, 19):
            insts.add((t + k * 600) * 1000 + rnd.randrange(1000))
    while len(insts) < n:
        insts.add(rnd.randrange(LO, HI) * 1000 + rnd.randrange(1000))
    ms = sorted(insts)
    with open(os.path.join(tmp, "t.csv"), "w") as f:
        for i, v in enumerate(ms):
            f.write("%d,%d,%d\n" % (i, v, v // 1000))
    job = """SET 'table.local-time-zone' = '%s';
CREATE TABLE t (id INT, ms BIGINT, sec BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE f (id INT, lt TIMESTAMP(3), s STRING, df STRING, fu STRING, y BIGINT, mo BIGINT, d BIGINT, h BIGINT,
  dw BIGINT, back BIGINT, cz STRING) WITH ('connector' = 'filesystem', 'path' = 'out-f', 'format' = 'csv');
CREATE TABLE days (ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out-d', 'format' = 'csv');
CREATE TABLE hours (ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out-h', 'format' = 'csv');
INSERT INTO f SELECT id, CAST(ts AS TIMESTAMP(3)), CAST(ts AS STRING), DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS'),
  FROM_UNIXTIME(sec), EXTRACT(YEAR FROM ts), EXTRACT(MONTH FROM ts), EXTRACT(DAY FROM ts), HOUR(ts),
  DAYOFWEEK(ts), CAST(CAST(CAST(ts AS TIMESTAMP(3)) AS TIMESTAMP_LTZ(3)) AS BIGINT),
  CONVERT_TZ(CAST(CAST(ts AS TIMESTAMP(3)) AS STRING), '%s', 'UTC') FROM t;
INSERT INTO days SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' DAY))
  GROUP BY window_start, window_end;
INSERT INTO hours SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR))
  GROUP BY window_start, window_end;
""" % (z_name, z_name)
    with open(os.path.join(tmp, "job.sql"), "w") as f:
        f.write(job)
    par = rnd.choice([1, 2, 4])
    p = subprocess.run([weir, "run", "job.sql", "-D", "parallelism.default=%d" % par], cwd=tmp,
                       capture_output=True, text=True, timeout=600, env=env)
    if p.returncode != 0:
        return "weir failed (exit %d): %s" % (p.returncode, p.stderr[-2000:])

    def read(folder):
        rows = []
        d = os.path.join(tmp, folder)
        for name in sorted(os.listdir(d)):
            if name.startswith("."):
                continue
            with open(os.path.join(d, name)) as fh:
                rows += [line.rstrip("\n") for line in fh if line.strip()]
        return sorted(rows)

    def fmt_ts(d):
        return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (d.microsecond // 1000)

    want_f, days, hours = [], {}, {}
    for i, v in enumerate(ms):
        L = local_of(z, v)
        back = to_instant(z, L.replace(microsecond=0)) // 1000  # CAST(LTZ AS BIGINT) floors to seconds
        fu = local_of(z, (v // 1000) * 1000).strftime("%Y-%m-%d %H:%M:%S")
        cz = local_of(dt.timezone.utc, to_instant(z, L)).strftime("%Y-%m-%d %H:%M:%S")
        want_f.append(",".join(str(x) for x in [i, fmt_ts(L), fmt_ts(L), fmt_ts(L), fu, L.year, L.month, L.day,
                                                  L.hour, dow(L), back, cz]))
        day = dt.datetime(L.year, L.month, L.day)
        days[day] = days.get(day, 0) + 1
        hour = L.replace(minute=0, second=0, microsecond=0)
        hours[hour] = hours.get(hour, 0) + 1
    want_d = sorted("%s,%s,%d" % (fmt_ts(k), fmt_ts(k + dt.timedelta(days=1)), c) for k, c in days.items())
    want_h = sorted("%s,%s,%d" % (fmt_ts(k), fmt_ts(k + dt.timedelta(hours=1)), c) for k, c in hours.items())
    errs = []
    for what, want, got in (("functions", sorted(want_f), read("out-f")), ("day windows", want_d, read("out-d")),
                            ("hour windows", want_h, read("out-h"))):
        if want != got:
            ws, gs = set(want), set(got)
            errs.append("%s: %d rows expected, %d got; expected not got: %s; got not expected: %s" % (
                what, len(want), len(got), sorted(ws - gs)[:4], sorted(gs - ws)[:4]))
    if errs:
        return "zone %s%s, parallelism %d: %s" % (z_name, " (rule %s)" % rule if rule else "", par, "; ".join(errs))
    return None


def one_case(case):
    # each case's own seed (WEIR_SEED + its index) drives it, as before
    err = run_case(case.weir, case.seed + case.index, case.args.rows, case.folder)
    return [err] if err else []


def main():
    return diffrun.main("sql_time_diff", one_case, jobs_env="WEIR_TIME_DIFF_CASES", jobs=6, asan_jobs=2,
                        one_env="WEIR_TIME_DIFF_CASE",
                        add_args=lambda ap: ap.add_argument("--rows", type=int,
                                                            default=int(os.environ.get("WEIR_TIME_DIFF_ROWS", "400"))))


if __name__ == "__main__":
    sys.exit(main())
