#!/usr/bin/env python3
"""Randomized differential test of date/time PATTERNS (tests/test_time_pattern_diff.sh runs it).

Each case draws a session time zone and a handful of random patterns made
of the letters docs/functions.md lists (y M d D H k K h a m s S E u w Z X z,
each repeated 1-5 times, quoted text, '' and punctuation), and random
times: TIMESTAMPs from year 1 to 9999 (leap days, the ends of the range,
milliseconds) and instants of 1950-2100 in the session zone, a part of them
within hours of its offset changes. One weir job formats them with
DATE_FORMAT (of a TIMESTAMP, a TIMESTAMP_LTZ, a DATE and a TIME) and
FROM_UNIXTIME, and
parses texts back with TO_TIMESTAMP, TO_DATE, TO_TIMESTAMP_LTZ (in UTC and
in the session zone named) and UNIX_TIMESTAMP: texts the
model's formatter wrote with the same pattern, a fifth of them spoiled (a
digit of a number or a character of the quoted text replaced), which give
NULL (UNIX_TIMESTAMP: -9223372036854775808). One pattern is a column, not
a literal, so the per-row compile is checked too; on a tenth of the rows
it has an unsupported letter, which formats to NULL and parses nothing. A second job per case
puts an unsupported letter (or an unterminated quote) into a pattern and
must fail naming it.

The model shares no code with weir. It follows docs/functions.md, and
Java where the docs defer to it: formatting as Java's SimpleDateFormat /
DateTimeFormatter agree; where they part, as documented: `S` is digits of
the fraction (DateTimeFormatter), `u` the ISO day of the week and `w` the
ISO week, `z` (any count) UTC or GMT+hh:mm, `Z` (any count) +hhmm, `X`
+hh, `XX`/`XXXX` +hhmm, `XXX`/`XXXXX` +hh:mm, and a number letter
repeated past what DateTimeFormatter takes (ddd, HHH, DDDD, aa, MMMMM,
EEEEE) pads with zeros or writes the full name, as SimpleDateFormat.
Parsing follows Flink's TO_TIMESTAMP: the fields the pattern has, the rest
from 1970-01-01 00:00:00.000; two-digit years are 2000-2099; a zone offset
in the text is dropped (TO_TIMESTAMP, TO_DATE) or names the instant
(UNIX_TIMESTAMP, which otherwise reads the wall time in the session zone:
a time in a gap moves forward by the gap, one in an overlap is the
earlier instant). Patterns are parsed only where Java's two parsers agree
on the text: a number followed by another number always has its letters'
width (yyyyMMdd, HHmmss), no w or u, h and K only with a, E only with a
full date, and D with a year and not with d alone (d and M win over D,
else D gives the date).
"""
import datetime as dt
import json
import os
import sys
import zoneinfo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
LONG_MIN = -9223372036854775808
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
NUMERIC = set("yMdDHkKhmsSuw")
SUPPORTED = "yMdDHkKhamsSEuwZXz"
UNSUPPORTED = [c for c in "ABCFGIJLNOPQRTUVWYbcefgijlnopqrtvx"]
# zones: whole-hour offsets, half-hour ones, DST of both hemispheres, Lord Howe's half-hour DST
ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata", "Australia/Lord_Howe",
         "America/Sao_Paulo", "Asia/Shanghai", "America/St_Johns"]
LITERALS = ["-", "/", ":", ".", " ", ", ", "_", "'T'", "'at'", "'o''clock'", "''", "' '", "'h'", "[", "]", "(",
            ")", "#", "@"]


# ---- the pattern model ----

def tokens(pattern):
    """[(letter, count)] and [(None, text)] of a pattern (Java's rules for quotes)."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c.isascii() and c.isalpha():
            j = i
            while j < len(pattern) and pattern[j] == c:
                j += 1
            out.append((c, j - i))
            i = j
        elif c == "'":
            if pattern[i + 1:i + 2] == "'":
                out.append((None, "'"))
                i += 2
                continue
            j, text = i + 1, ""
            while True:
                if j >= len(pattern):
                    raise ValueError("unterminated quote")
                if pattern[j] == "'":
                    if pattern[j + 1:j + 2] == "'":
                        text += "'"
                        j += 2
                        continue
                    break
                text += pattern[j]
                j += 1
            out.append((None, text))
            i = j + 1
        else:
            out.append((None, c))
            i += 1
    return out


def pad(v, n):
    return ("-" if v < 0 else "") + str(abs(v)).rjust(n, "0")


def fmt_offset(letter, n, off_min):
    if letter == "X" and off_min == 0:
        return "Z"
    if letter == "z" and off_min == 0:
        return "UTC"
    sign = "-" if off_min < 0 else "+"
    h, m = divmod(abs(off_min), 60)
    if letter == "X" and n == 1:
        return sign + pad(h, 2)
    if letter == "z" or (letter == "X" and n in (3, 5)):
        return ("GMT" if letter == "z" else "") + sign + pad(h, 2) + ":" + pad(m, 2)
    return sign + pad(h, 2) + pad(m, 2)


def format_wall(toks, w, off_min):
    """The text of wall time w (a naive datetime) with zone offset off_min (minutes)."""
    out = []
    for letter, n in toks:
        if letter is None:
            out.append(n)
        elif letter == "y":
            out.append(pad(w.year % 100, 2) if n == 2 else pad(w.year, n))
        elif letter == "M":
            out.append(pad(w.month, n) if n <= 2 else MONTHS[w.month - 1][:3] if n == 3 else MONTHS[w.month - 1])
        elif letter == "d":
            out.append(pad(w.day, n))
        elif letter == "D":
            out.append(pad(w.timetuple().tm_yday, n))
        elif letter == "H":
            out.append(pad(w.hour, n))
        elif letter == "k":
            out.append(pad(w.hour or 24, n))
        elif letter == "K":
            out.append(pad(w.hour % 12, n))
        elif letter == "h":
            out.append(pad(w.hour % 12 or 12, n))
        elif letter == "a":
            out.append("AM" if w.hour < 12 else "PM")
        elif letter == "m":
            out.append(pad(w.minute, n))
        elif letter == "s":
            out.append(pad(w.second, n))
        elif letter == "S":
            out.append(("%03d" % (w.microsecond // 1000) + "0" * n)[:n])
        elif letter == "E":
            out.append(DAYS[w.weekday()][:3] if n <= 3 else DAYS[w.weekday()])
        elif letter == "u":
            out.append(pad(w.isoweekday(), n))
        elif letter == "w":
            out.append(pad(w.isocalendar()[1], n))
        else:
            out.append(fmt_offset(letter, n, off_min))
    return "".join(out)


def parse_wall(toks, w, spoiled):
    """What parsing the text of w (made by format_wall) gives: the wall time
    (a naive datetime), or None for a spoiled text."""
    if spoiled:
        return None
    year, month, day, hour, minute, second, ms = 1970, 1, 1, 0, 0, 0, 0
    doy = None
    letters = {letter: n for letter, n in toks if letter}
    if "y" in letters:
        year = 2000 + w.year % 100 if letters["y"] == 2 else w.year
    if "M" in letters:
        month = w.month
    if "d" in letters:
        day = w.day
    if "D" in letters:
        doy = w.timetuple().tm_yday
    if "H" in letters or "k" in letters:
        hour = w.hour
    if "h" in letters or "K" in letters:
        hour = w.hour  # with a (parseable patterns only)
    if "m" in letters:
        minute = w.minute
    if "s" in letters:
        second = w.second
    if "S" in letters:
        n = letters["S"]
        ms = (w.microsecond // 1000) // (10 ** max(0, 3 - n)) * (10 ** max(0, 3 - n))
    try:
        if doy is not None and "d" not in letters:
            d0 = dt.datetime(year, 1, 1) + dt.timedelta(days=doy - 1)
            month, day = d0.month, d0.day
        return dt.datetime(year, month, day, hour, minute, second, ms * 1000)
    except ValueError:
        return None  # 29 February read with yy into a year that has none


def fixed_width(letter, n):
    """Whether the letter, n times, always writes n digits (so a number after
    it can start right away: yyyyMMdd)."""
    if letter == "y":
        return n == 2 or n >= 4
    if letter == "D":
        return n >= 3
    if letter == "S":
        return True
    return n == 2 or (n > 2 and letter != "M")


def parseable(toks):
    """Whether Java's parsers agree on the texts of this pattern (see the docstring)."""
    letters = [t for t in toks if t[0]]
    names = [t[0] for t in letters]
    if len(set(names)) != len(names) or not letters:
        return False
    if set(names) & set("uw"):
        return False
    if sum(1 for c in names if c in "HkhK") > 1:
        return False
    if ("h" in names or "K" in names) and "a" not in names:
        return False
    if "a" in names and not set(names) & set("HkhK"):
        return False
    if "E" in names and not {"y", "M", "d"} <= set(names):
        return False
    if "D" in names and ("y" not in names or ("d" in names and "M" not in names)):
        return False  # D and d alone: SimpleDateFormat takes the later, DateTimeFormatter D
    for (a, an), (b, btext) in zip(toks, toks[1:]):
        if a in NUMERIC and not (a == "M" and an >= 3):
            if b in NUMERIC and not (b == "M" and btext >= 3) and not fixed_width(a, an):
                return False
            if b is None and btext[:1].isdigit():
                return False
        if a in ("Z", "X", "z") and (b in NUMERIC or (b is None and btext[:1] in ":0123456789")):
            return False
    return True


def spoil(rng, toks, text_parts):
    """A spoiled text: the first digit of a number, or a character of literal
    text before the last letter, replaced (SimpleDateFormat ignores what
    follows the last field it reads, so text after that is not spoiled)."""
    last = max(k for k, (letter, _) in enumerate(toks) if letter)
    choices = [k for k, (letter, _) in enumerate(toks) if letter in NUMERIC]
    choices += [k for k, (letter, t) in enumerate(toks) if letter is None and t.strip() and k < last]
    if not choices:
        return None
    k = rng.choice(choices)
    part = text_parts[k]
    if toks[k][0] in NUMERIC:
        j = next((j for j, c in enumerate(part) if c.isdigit()), None)
        if j is None:
            return None
        part = part[:j] + "x" + part[j + 1:]
    else:
        j = next(j for j, c in enumerate(part) if c.strip())
        part = part[:j] + ("~" if part[j] != "~" else "!") + part[j + 1:]
    parts = list(text_parts)
    parts[k] = part
    return "".join(parts)


def parts_of(toks, w, off_min):
    return [format_wall([t], w, off_min) for t in toks]


# ---- random patterns and times ----

# patterns people write (a fifth of the patterns drawn)
COMMON = ["dMMMyyyy", "d MMM yyyy", "EEE, d MMM yyyy HH:mm:ss Z", "yyyyMMddHHmmssSSS", "h:mm a",
          "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "MMMM d, yyyy", "dd.MM.yy", "yyyy-DDD", "k:mm", "K:mm a, z",
          "yyyy-MM-dd HH:mm:ss", "yyMMdd", "EEEE, MMMM d, yyyy 'at' h:mm:ss a", "d/M/yyyy H:m:s.S",
          "yyyy-MM-dd'T'HH:mm:ssZ", "yyyy.MM.dd", "HHmmss", "MMMyyyy", "dMMMyy HHmm"]


def rand_pattern(rng, zone_has_half_hours):
    if rng.random() < 0.2:
        return rng.choice(COMMON)
    n = rng.randint(1, 7)
    out = []
    for _ in range(n):
        if rng.random() < 0.35 and out:
            out.append(rng.choice(LITERALS))
            continue
        c = rng.choice(SUPPORTED)
        cnt = rng.randint(1, 5)
        if c == "X" and zone_has_half_hours and cnt == 1:
            cnt = 2  # X writes only the hours: a half-hour offset has no X form both Java classes share
        if out and out[-1] and out[-1][0] == c:
            out.append(rng.choice(LITERALS))
        out.append(c * cnt)
    if rng.random() < 0.5:
        # most real patterns separate their numbers: a separator after each letter run
        spaced = []
        for p in out:
            spaced.append(p)
            if p[0].isalpha() and rng.random() < 0.8:
                spaced.append(rng.choice(["-", ":", " ", "/", "."]))
        out = spaced
    return "".join(out)


def rand_wall(rng):
    r = rng.random()
    if r < 0.1:
        y = rng.choice([1, 2, 9999, 9998, 100, 999, 1000])
    elif r < 0.2:
        y = rng.choice([1600, 1900, 2000, 2004, 2023, 2024, 1968, 1969])
    else:
        y = rng.randint(1, 9999)
    m = rng.randint(1, 12)
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    mdays = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
    d = rng.choice([1, mdays, rng.randint(1, mdays)])
    if leap and rng.random() < 0.1:
        m, d = 2, 29
    h = rng.choice([0, 11, 12, 23, rng.randint(0, 23)])
    ms = rng.choice([0, 999, 1, 10, 100, rng.randint(0, 999)])
    return dt.datetime(y, m, d, h, rng.randint(0, 59), rng.randint(0, 59), ms * 1000)


def transitions(z, rng, n):
    """Up to n instants (seconds) in 1950-2100 where z's offset changes."""
    lo = int((dt.datetime(1950, 1, 1, tzinfo=UTC) - EPOCH).total_seconds())
    hi = int((dt.datetime(2100, 1, 1, tzinfo=UTC) - EPOCH).total_seconds())
    found = []

    def off(s):
        return dt.datetime.fromtimestamp(s, z).utcoffset()
    for _ in range(n * 4):
        if len(found) >= n:
            break
        a = rng.randrange(lo, hi - 400 * 86400)
        b = a + 400 * 86400
        if off(a) == off(b):
            continue
        while b - a > 1:
            mid = (a + b) // 2
            if off(mid) == off(a):
                a = mid
            else:
                b = mid
        found.append(b)
    return found, lo, hi


def rand_instants(rng, z, n):
    found, lo, hi = transitions(z, rng, 3)
    out = []
    for _ in range(n):
        if found and rng.random() < 0.4:
            t = rng.choice(found) + rng.randint(-3, 3) * 1800 + rng.randint(-2, 2)
            out.append(t * 1000 + rng.randrange(1000))
        else:
            out.append(rng.randrange(lo, hi) * 1000 + rng.randrange(1000))
    return out


def local_of(z, ms):
    d = EPOCH + dt.timedelta(milliseconds=ms)
    loc = d.astimezone(z)
    return loc.replace(tzinfo=None), int(loc.utcoffset().total_seconds()) // 60


def utc_of(z, wall):
    """Wall time in zone z -> epoch ms. Python's fold=0 is java.time's rule: a
    time in a gap takes the offset before it (so moves forward by the gap),
    one in an overlap the earlier instant."""
    return (wall.replace(tzinfo=z, fold=0) - EPOCH) // dt.timedelta(milliseconds=1)


def show_ts(w):
    return "%04d-%02d-%02d %02d:%02d:%02d.%03d" % (w.year, w.month, w.day, w.hour, w.minute, w.second,
                                                  w.microsecond // 1000)


# ---- one case ----

def run_case(case):
    rng = case.rng
    zname = rng.choice(ZONES)
    z = zoneinfo.ZoneInfo(zname)
    half = zname in ("Asia/Kolkata", "Australia/Lord_Howe", "America/St_Johns")
    npat = 6
    pats = [rand_pattern(rng, half) for _ in range(npat)]
    toks = [tokens(p) for p in pats]
    nrows = case.args.rows
    walls = [rand_wall(rng) for _ in range(nrows)]
    insts = rand_instants(rng, z, nrows)
    rows = []
    for i in range(nrows):
        w = walls[i]
        lw, loff = local_of(z, insts[i])
        # the pattern column: on a tenth of the rows with an unsupported letter (NULL; UNIX_TIMESTAMP MIN)
        badp = rng.random() < 0.1
        r = {"id": i, "tss": show_ts(w), "ms": insts[i], "sec": insts[i] // 1000,
             "p0": pats[0] + rng.choice(UNSUPPORTED) if badp else pats[0], "_badp": badp}
        r["_w"], r["_lw"], r["_loff"] = w, lw, loff
        for k in range(npat):
            # the text TO_TIMESTAMP/TO_DATE read (a TIMESTAMP's wall time), the one UNIX_TIMESTAMP reads
            # (the TIMESTAMP's text names the zone's offset too: TO_TIMESTAMP drops it)
            for col, wall, off in (("p%dt" % k, w, loff), ("p%du" % k, lw, loff)):
                parts = parts_of(toks[k], wall, off)
                bad = rng.random() < 0.2
                text = spoil(rng, toks[k], parts) if bad else None
                r["_" + col] = text is not None
                r[col] = text if text is not None else "".join(parts)
        rows.append(r)
    with open(case.path("in.json"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({k: v for k, v in r.items() if not k.startswith("_")}) + "\n")

    def lit(p):
        return "'" + p.replace("'", "''") + "'"
    cols, exprs = [], []
    for k, p in enumerate(pats):
        pe = "p0" if k == 0 else lit(p)  # the first pattern is a column: compiled per row
        cols += ["f%da STRING" % k, "f%db STRING" % k, "f%dc STRING" % k, "f%dd STRING" % k, "f%de STRING" % k]
        exprs += ["DATE_FORMAT(TO_TIMESTAMP(tss), %s)" % pe, "DATE_FORMAT(TO_TIMESTAMP_LTZ(ms, 3), %s)" % pe,
                  "FROM_UNIXTIME(sec, %s)" % pe, "DATE_FORMAT(CAST(TO_TIMESTAMP(tss) AS DATE), %s)" % pe,
                  "DATE_FORMAT(CAST(TO_TIMESTAMP(tss) AS TIME(3)), %s)" % pe]
        ok = parseable(toks[k])
        if ok:
            cols += ["t%d STRING" % k, "d%d STRING" % k, "l%d BIGINT" % k, "z%d BIGINT" % k]
            exprs += ["CAST(TO_TIMESTAMP(p%dt, %s) AS STRING)" % (k, pe), "CAST(TO_DATE(p%dt, %s) AS STRING)" % (k, pe),
                      "CAST(TO_TIMESTAMP_LTZ(p%dt, %s) AS BIGINT)" % (k, pe),
                      "CAST(TO_TIMESTAMP_LTZ(p%dt, %s, '%s') AS BIGINT)" % (k, pe, zname)]
        if ok:
            cols += ["u%d BIGINT" % k]
            exprs += ["UNIX_TIMESTAMP(p%du, %s)" % (k, pe)]
    in_cols = "id BIGINT, tss STRING, ms BIGINT, sec BIGINT, p0 STRING, " + ", ".join(
        "p%dt STRING, p%du STRING" % (k, k) for k in range(npat))
    sql = ["SET 'table.local-time-zone' = '%s';" % zname,
           "CREATE TABLE t (%s) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');" % in_cols,
           "CREATE TABLE o (id BIGINT, %s) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');"
           % ", ".join(cols),
           "INSERT INTO o SELECT id, %s FROM t;" % ", ".join(exprs)]
    case.write("job.sql", "\n".join(sql) + "\n")
    case.note = "zone %s, patterns %s" % (zname, pats)
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, rng.choice([1, 2])))
    if p.returncode:
        return [diffrun.failed_run(p)]
    got = diffrun.json_rows_by_id(case.path("out"))
    problems = []
    for r in rows:
        g = got.get(r["id"])
        if g is None:
            problems.append("row %d missing" % r["id"])
            continue
        w, lw, loff = r["_w"], r["_lw"], r["_loff"]
        for k, tk in enumerate(toks):
            want = {"f%da" % k: format_wall(tk, w, 0), "f%db" % k: format_wall(tk, lw, loff)}
            fw, foff = local_of(z, r["sec"] * 1000)
            want["f%dc" % k] = format_wall(tk, fw, foff)
            # a DATE is its midnight, a TIME a time of 1970-01-01, both at offset zero
            want["f%dd" % k] = format_wall(tk, w.replace(hour=0, minute=0, second=0, microsecond=0), 0)
            want["f%de" % k] = format_wall(tk, w.replace(year=1970, month=1, day=1), 0)
            case.counts["formatted"] += 5
            bad = k == 0 and r["_badp"]
            if bad:
                want = {c: None for c in want}
                case.counts["bad pattern column"] += 1
            if "t%d" % k in g and not bad:  # (a bad pattern falls back to the default format: not modelled)
                pw = parse_wall(tk, w, r["_p%dt" % k])
                want["t%d" % k] = show_ts(pw) if pw else None
                want["d%d" % k] = show_ts(pw)[:10] if pw else None
                # TO_TIMESTAMP_LTZ: that wall time in UTC, or in the zone named (seconds: CAST floors)
                want["l%d" % k] = utc_of(UTC, pw) // 1000 if pw else None
                want["z%d" % k] = utc_of(z, pw) // 1000 if pw else None
                case.counts["parsed" if pw else "parsed: NULL"] += 4
            if "u%d" % k in g:
                pw = parse_wall(tk, lw, r["_p%du" % k])
                if pw is None or bad:
                    want["u%d" % k] = LONG_MIN
                elif any(t[0] in "ZXz" for t in tk if t[0]):
                    want["u%d" % k] = ((pw - dt.datetime(1970, 1, 1)) // dt.timedelta(milliseconds=1)
                                       - loff * 60000) // 1000
                else:
                    want["u%d" % k] = utc_of(z, pw) // 1000
                case.counts["unix parsed" if pw else "unix: MIN"] += 1
            for col, v in want.items():
                if g.get(col) != v:
                    src = r.get("p%du" % k) if col[0] == "u" else r.get("p%dt" % k) if col[0] in "tdlz" else None
                    problems.append("pattern %r, %s of %s%s: got %r, want %r" % (
                        pats[k], col, show_ts(w if col.endswith("a") or col[0] in "tdlz" else lw),
                        "" if src is None else " (text %r)" % src, g.get(col), v))
    return problems[:20] + refusal(case)


def refusal(case):
    """An unsupported letter (or an unterminated quote) in a literal pattern fails the job, naming it."""
    rng = case.rng
    base = rand_pattern(rng, False)
    if rng.random() < 0.2:
        bad, want = base + "'open", "unterminated quote"
    else:
        c = rng.choice(UNSUPPORTED)
        # the letter goes between tokens, not into a quoted text or a run of its own letter
        toks = tokens(base)
        cut = rng.randint(0, len(toks))
        bad = "".join(("'" + t.replace("'", "''") + "'" if t != "'" else "''") if le is None else le * t
                      for le, t in toks[:cut]) + c * rng.randint(1, 3) + "".join(
            ("'" + t.replace("'", "''") + "'" if t != "'" else "''") if le is None else le * t for le, t in toks[cut:])
        want = "unsupported date pattern letter '%s'" % c
    fn = rng.choice(["DATE_FORMAT(TIMESTAMP '2024-01-01 00:00:00', %s)", "TO_TIMESTAMP('2024', %s)",
                     "TO_DATE('2024', %s)", "UNIX_TIMESTAMP('2024', %s)", "FROM_UNIXTIME(0, %s)"])
    sql = "CREATE TABLE o (v STRING) WITH ('connector' = 'print');\nINSERT INTO o SELECT CAST(%s AS STRING);\n" % (
        fn % ("'" + bad.replace("'", "''") + "'"))
    case.write("refuse.sql", sql)
    p = case.run_weir(["run", "refuse.sql"])
    case.counts["refusals checked"] += 1
    if p.returncode == 0:
        return ["pattern %r was not refused: %s" % (bad, p.stdout.strip()[-200:])]
    if want not in p.stderr:
        return ["pattern %r refused without %r: %s" % (bad, want, p.stderr.strip()[-300:])]
    return []


def main():
    return diffrun.main("time_pattern_diff", run_case, jobs_env="WEIR_TPDIFF_JOBS", jobs=20, asan_jobs=4,
                        one_env="WEIR_TPDIFF_JOB", out_env="WEIR_TPDIFF_OUT",
                        add_args=lambda ap: ap.add_argument("--rows", type=int,
                                                            default=int(os.environ.get("WEIR_TPDIFF_ROWS", "60"))))


if __name__ == "__main__":
    sys.exit(main())
