#!/usr/bin/env python3
"""Randomized differential test of ARRAY, MAP and ROW against Python.

Each round writes random nested JSON documents (NULLs at every level: a
whole column, an element, a field, a nested row; absent keys too), then runs
three weir jobs over them at a random parallelism and compares each with
what Python computes from the same documents with its json module:

  1. element access: random arr[i] (inside and outside 1..n), map['k'],
     row.field, row.row.field, a field of an array's ROW element
     (ar[i].k: NULL for a missing or NULL element), CARDINALITY, ARRAY_CONTAINS, MAP_KEYS and
     nested values passed through, written to a JSON file sink;
  2. CROSS JOIN UNNEST (ARRAY WITH ORDINALITY, MAP, ARRAY of ROW) and LEFT
     JOIN UNNEST ... ON TRUE, written to JSON file sinks;
  3. GROUP BY an ARRAY and a ROW field (a ROW) with COUNT and SUM, printed:
     the changelog is replayed into the final table, whose rows Python
     formats as the print connector does (Java's toString of the values);
  4. GROUP BY a MAP whose keys the documents list in random order: maps
     with the same entries are one group, as Flink compares maps;
  5. the collection functions (ARRAY_APPEND ... MAP_UNION, SPLIT) with
     random arguments, NULLs included, against Python models written from
     Flink's documented rules, written to a JSON file sink.

The seed is printed; --seed replays a run.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

WORDS = ["a", "b", "red", "x y", 'q"t', "é", "", "k,v", "[z]"]
KEYS = ["k1", "k2", "k3", "k 4"]


def maybe(rng, p, v):
    return None if rng.random() < p else v


def gen_doc(rng, i):
    d = {"id": i}

    def put(name, make):
        r = rng.random()
        if r < 0.08:
            return  # absent: NULL
        d[name] = None if r < 0.18 else make()

    put("a", lambda: [maybe(rng, 0.15, rng.randint(-5, 9)) for _ in range(rng.randint(0, 5))])
    put("s", lambda: [maybe(rng, 0.15, rng.choice(WORDS)) for _ in range(rng.randint(0, 3))])
    put("m", lambda: {k: maybe(rng, 0.2, rng.randint(-100, 100)) for k in rng.sample(KEYS, rng.randint(0, 4))})

    def row():
        r = {}
        for f, make in (("x", lambda: rng.randint(-3, 3)), ("y", lambda: rng.choice(WORDS)),
                        ("z", lambda: [maybe(rng, 0.2, rng.randint(0, 4)) for _ in range(rng.randint(0, 3))]),
                        ("w", lambda: maybe(rng, 0.25, {"p": maybe(rng, 0.25, rng.choice(WORDS[:3]))}))):
            q = rng.random()
            if q < 0.1:
                continue
            r[f] = None if q < 0.2 else make()
        return r

    put("r", row)
    put("ar", lambda: [maybe(rng, 0.15, {"k": maybe(rng, 0.2, rng.choice(WORDS[:4])),
                                         "v": maybe(rng, 0.2, rng.randint(0, 9))})
                       for _ in range(rng.randint(0, 3))])
    return d


DDL = """CREATE TABLE t (
  id BIGINT,
  a ARRAY<INT>,
  s ARRAY<STRING>,
  m MAP<STRING, BIGINT>,
  r ROW<x INT, y STRING, z ARRAY<INT>, w ROW<p STRING>>,
  ar ARRAY<ROW<k STRING, v INT>>
) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
"""


def get(d, *path):
    for p in path:
        if d is None:
            return None
        d = d.get(p)
    return d


def item(arr, i):
    if arr is None or i < 1 or i > len(arr):
        return None
    return arr[i - 1]


def access_exprs(rng):
    """(sql, sink type, python function of a document)"""
    out = []
    for _ in range(rng.randint(4, 9)):
        kind = rng.randrange(12)
        i = rng.randint(-1, 6)
        k = rng.choice(KEYS + ["none"])
        if kind == 0:
            out.append((f"a[{i}]", "INT", lambda d, i=i: item(d.get("a"), i)))
        elif kind == 1:
            out.append((f"s[{i}]", "STRING", lambda d, i=i: item(d.get("s"), i)))
        elif kind == 2:
            out.append((f"m['{k}']", "BIGINT", lambda d, k=k: None if d.get("m") is None else d["m"].get(k)))
        elif kind == 3:
            f, ty = rng.choice([("x", "INT"), ("y", "STRING")])
            out.append((f"r.{f}", ty, lambda d, f=f: get(d, "r", f)))
        elif kind == 4:
            out.append((f"r.z[{i}]", "INT", lambda d, i=i: item(get(d, "r", "z"), i)))
        elif kind == 5:
            out.append(("r.w.p", "STRING", lambda d: get(d, "r", "w", "p")))
        elif kind == 6:
            col = rng.choice(["a", "s", "m"])
            out.append((f"CARDINALITY({col})", "INT", lambda d, c=col: None if d.get(c) is None else len(d[c])))
        elif kind == 7:
            v = rng.randint(-5, 9)
            out.append((f"ARRAY_CONTAINS(a, {v})", "BOOLEAN",
                        lambda d, v=v: None if d.get("a") is None else v in d["a"]))
        elif kind == 8:
            out.append(("MAP_KEYS(m)", "ARRAY<STRING>", lambda d: None if d.get("m") is None else sorted(d["m"], key=str.encode)))
        elif kind == 10:
            f, ty = rng.choice([("k", "STRING"), ("v", "INT")])
            out.append((f"ar[{i}].{f}", ty, lambda d, i=i, f=f: get(item(d.get("ar"), i), f)))
        elif kind == 9:
            out.append(("r.w", "ROW<p STRING>",
                        lambda d: None if get(d, "r", "w") is None else {"p": get(d, "r", "w", "p")}))
        else:
            out.append(("ar", "ARRAY<ROW<k STRING, v INT>>",
                        lambda d: None if d.get("ar") is None else
                        [None if e is None else {"k": e.get("k"), "v": e.get("v")} for e in d["ar"]]))
    return out


# ---- collection functions: Python models of Flink's documented rules ----

def distinct(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


def m_slice(a, s, e):
    if a is None:
        return None
    n = len(a)
    if n == 0:
        return []
    e = n if e is None else e
    s, e = s + (n + 1 if s < 0 else 0), e + (n + 1 if e < 0 else 0)
    s, e = max(1, s), (1 if e == 0 else min(e, n))
    return a[s - 1:e] if e >= s else []


def m_sort(a, asc, nulls_first):
    if a is None:
        return None
    vals = sorted((x for x in a if x is not None), reverse=not asc)
    nulls = [None] * (len(a) - len(vals))
    return nulls + vals if nulls_first else vals + nulls


def m_split(s, sep):
    if s is None:
        return None
    if s == "":
        return []
    if sep == "":
        return list(s)
    return s.split(sep)


def m_extreme(a, fn, key=None):
    if a is None:
        return None
    vals = [x for x in a if x is not None]
    return fn(vals, key=key) if vals else None


def coll_exprs(rng):
    """(sql, sink type, python function of a document) for collection functions."""
    out = []
    nul = lambda d, c: d.get(c) is None
    for _ in range(rng.randint(6, 12)):
        kind = rng.randrange(16)
        v = rng.choice([None, rng.randint(-5, 9)])
        vs = "CAST(NULL AS INT)" if v is None else str(v)
        if kind == 0:
            out.append((f"ARRAY_APPEND(a, {vs})", "ARRAY<INT>", lambda d, v=v: None if nul(d, "a") else d["a"] + [v]))
        elif kind == 1:
            out.append((f"ARRAY_PREPEND(s, 'p')", "ARRAY<STRING>", lambda d: None if nul(d, "s") else ["p"] + d["s"]))
        elif kind == 2:
            out.append(("ARRAY_CONCAT(a, r.z, ARRAY[7])", "ARRAY<INT>",
                        lambda d: None if nul(d, "a") or get(d, "r", "z") is None else d["a"] + d["r"]["z"] + [7]))
        elif kind == 3:
            w = rng.randint(-5, 9)
            out.append((f"ARRAY_POSITION(a, {w})", "INT",
                        lambda d, w=w: None if nul(d, "a") else (d["a"].index(w) + 1 if w in d["a"] else 0)))
        elif kind == 4:
            out.append((f"ARRAY_REMOVE(a, {vs})", "ARRAY<INT>",
                        lambda d, v=v: None if nul(d, "a") else [x for x in d["a"] if x != v]))
        elif kind == 5:
            out.append(("ARRAY_REVERSE(s)", "ARRAY<STRING>", lambda d: None if nul(d, "s") else d["s"][::-1]))
        elif kind == 6:
            st, en = rng.randint(-7, 7), rng.choice([None, rng.randint(-7, 7)])
            sql = f"ARRAY_SLICE(a, {st})" if en is None else f"ARRAY_SLICE(a, {st}, {en})"
            out.append((sql, "ARRAY<INT>", lambda d, st=st, en=en: m_slice(d.get("a"), st, en)))
        elif kind == 7:
            asc = rng.choice([None, True, False])
            nf = None if asc is None else rng.choice([None, True, False])
            args = "" if asc is None else f", {asc}".upper() + ("" if nf is None else f", {nf}".upper())
            a2 = True if asc is None else asc
            out.append((f"ARRAY_SORT(a{args})", "ARRAY<INT>",
                        lambda d, a2=a2, n2=(a2 if nf is None else nf): m_sort(d.get("a"), a2, n2)))
        elif kind == 8:
            op = rng.choice(["UNION", "INTERSECT", "EXCEPT"])

            def f(d, op=op):
                x, y = d.get("a"), get(d, "r", "z")
                if x is None or y is None:
                    return None
                if op == "UNION":
                    return distinct(x + y)
                return [e for e in distinct(x) if (e in y) == (op == "INTERSECT")]
            out.append((f"ARRAY_{op}(a, r.z)", "ARRAY<INT>", f))
        elif kind == 9:
            op = rng.choice(["MAX", "MIN"])
            out.append((f"ARRAY_{op}(a)", "INT", lambda d, op=op: m_extreme(d.get("a"), max if op == "MAX" else min)))
        elif kind == 10:
            op = rng.choice(["MAX", "MIN"])
            out.append((f"ARRAY_{op}(s)", "STRING",
                        lambda d, op=op: m_extreme(d.get("s"), max if op == "MAX" else min, key=str.encode)))
        elif kind == 11:
            sep, rep = rng.choice([",", "", " - "]), rng.choice([None, "", "N"])
            sql = f"ARRAY_JOIN(s, '{sep}')" if rep is None else f"ARRAY_JOIN(s, '{sep}', '{rep}')"
            out.append((sql, "STRING", lambda d, sep=sep, rep=rep: None if nul(d, "s") else
                        sep.join(x if x is not None else rep for x in d["s"] if x is not None or rep is not None)))
        elif kind == 12:
            sep = rng.choice(["", ",", " ", "a", "x y", "é"])
            out.append((f"SPLIT(r.y, '{sep}')", "ARRAY<STRING>", lambda d, sep=sep: m_split(get(d, "r", "y"), sep)))
        elif kind == 13:
            out.append(("MAP_ENTRIES(m)", "ARRAY<ROW<key STRING, `value` BIGINT>>",
                        lambda d: None if nul(d, "m") else
                        [{"key": k, "value": d["m"][k]} for k in sorted(d["m"], key=str.encode)]))
        elif kind == 14:
            out.append(("MAP_FROM_ARRAYS(MAP_KEYS(m), ARRAY_REVERSE(MAP_VALUES(m)))", "MAP<STRING, BIGINT>",
                        lambda d: None if nul(d, "m") else
                        dict(zip(sorted(d["m"], key=str.encode),
                                 [d["m"][k] for k in sorted(d["m"], key=str.encode)][::-1]))))
        else:
            k = rng.choice(KEYS + ["new"])
            out.append((f"MAP_UNION(m, MAP['{k}', CAST({v if v is not None else 'NULL'} AS BIGINT)])",
                        "MAP<STRING, BIGINT>", lambda d, k=k, v=v: None if nul(d, "m") else {**d["m"], k: v}))
    return out


def java_text(v, ty):
    """The print connector's text of a value of type ty (a small type tree)."""
    if v is None:
        return "null"
    if ty[0] == "ARRAY":
        return "[" + ", ".join(java_text(e, ty[1]) for e in v) + "]"
    if ty[0] == "ROW":
        return "+I[" + ", ".join(java_text(v.get(n), t) for n, t in ty[1]) + "]"
    return str(v)


def run(weir, d, sql, p):
    with open(os.path.join(d, "job.sql"), "w") as f:
        f.write(sql)
    r = subprocess.run([weir, "run", "job.sql", "-D", f"parallelism.default={p}"], cwd=d,
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        print(sql, file=sys.stderr)
        print(r.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"weir failed (exit {r.returncode})")
    return r.stdout


def read_json_dir(path):
    rows = []
    for name in sorted(os.listdir(path)):
        with open(os.path.join(path, name)) as f:
            rows += [json.loads(line) for line in f if line.strip()]
    return rows


def canon(rows):
    return sorted(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in rows)


def check(what, got, want, seed):
    if canon(got) != canon(want):
        g, w = canon(got), canon(want)
        print(f"MISMATCH in {what} (seed {seed})", file=sys.stderr)
        for line in sorted(set(g) ^ set(w))[:10]:
            print(("  weir:   " if line in g else "  python: ") + line, file=sys.stderr)
        raise SystemExit(1)


def exprs_to_sink(weir, d, docs, ex, sink, what, p, seed):
    """Runs SELECT id, <ex's expressions> FROM t into a JSON file sink and
    compares its rows with ex's Python functions of each document."""
    cols = ", ".join(f"c{j} {ty}" for j, (_, ty, _) in enumerate(ex))
    sel = ", ".join(sql for sql, _, _ in ex)
    run(weir, d, DDL + f"CREATE TABLE {sink} (id BIGINT, {cols}) WITH ('connector' = 'filesystem', "
                        f"'path' = '{sink}', 'format' = 'json');\n"
                        f"INSERT INTO {sink} SELECT id, {sel} FROM t;\n", p)
    want = [dict([("id", doc["id"])] + [(f"c{j}", fn(doc)) for j, (_, _, fn) in enumerate(ex)])
            for doc in docs]
    check(f"{what}: " + sel, read_json_dir(os.path.join(d, sink)), want, seed)


def one_round(weir, rng, seed, rows):
    docs = [gen_doc(rng, i) for i in range(rows)]
    p = rng.choice([1, 2, 4])
    d = tempfile.mkdtemp(prefix="weir-nested-diff-")
    try:
        with open(os.path.join(d, "in.json"), "w") as f:
            for doc in docs:
                f.write(json.dumps(doc, ensure_ascii=False) + "\n")
        # 1. element access
        exprs_to_sink(weir, d, docs, access_exprs(rng), "o", "element access", p, seed)

        # 2. UNNEST
        run(weir, d, DDL +
            "CREATE TABLE u1 (id BIGINT, x INT, o INT) WITH ('connector' = 'filesystem', 'path' = 'u1', 'format' = 'json');\n"
            "CREATE TABLE u2 (id BIGINT, k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'u2', 'format' = 'json');\n"
            "CREATE TABLE u3 (id BIGINT, k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'u3', 'format' = 'json');\n"
            "CREATE TABLE u4 (id BIGINT, y STRING) WITH ('connector' = 'filesystem', 'path' = 'u4', 'format' = 'json');\n"
            "INSERT INTO u1 SELECT id, x, o FROM t CROSS JOIN UNNEST(t.a) WITH ORDINALITY AS u(x, o);\n"
            "INSERT INTO u2 SELECT id, k, v FROM t, UNNEST(m) AS u(k, v);\n"
            "INSERT INTO u3 SELECT id, k, v FROM t CROSS JOIN UNNEST(ar) AS u(k, v);\n"
            "INSERT INTO u4 SELECT id, y FROM t LEFT JOIN UNNEST(s) AS u(y) ON TRUE;\n", p)
        w1, w2, w3, w4 = [], [], [], []
        for doc in docs:
            for j, x in enumerate(doc.get("a") or []):
                w1.append({"id": doc["id"], "x": x, "o": j + 1})
            for k, v in (doc.get("m") or {}).items():
                w2.append({"id": doc["id"], "k": k, "v": v})
            for e in doc.get("ar") or []:
                w3.append({"id": doc["id"], "k": get(e, "k"), "v": get(e, "v")})
            for y in doc.get("s") or [None]:
                w4.append({"id": doc["id"], "y": y})
        check("UNNEST ARRAY WITH ORDINALITY", read_json_dir(os.path.join(d, "u1")), w1, seed)
        check("UNNEST MAP", read_json_dir(os.path.join(d, "u2")), w2, seed)
        check("UNNEST ARRAY of ROW", read_json_dir(os.path.join(d, "u3")), w3, seed)
        check("LEFT JOIN UNNEST", read_json_dir(os.path.join(d, "u4")), w4, seed)

        # 3. GROUP BY nested keys, printed as a changelog
        out = run(weir, d, DDL + "SELECT s, r.w, COUNT(*), SUM(id) FROM t GROUP BY s, r.w;\n", p)
        got = final_rows(out)
        groups = {}
        sty, wty = ("ARRAY", ("STRING",)), ("ROW", [("p", ("STRING",))])
        for doc in docs:
            # grouped by value (the text of [] and [""] is the same)
            w = get(doc, "r", "w")
            kv = (doc.get("s"), None if w is None else {"p": w.get("p")})
            key = json.dumps(kv, sort_keys=True)
            c, t, _ = groups.get(key, (0, 0, kv))
            groups[key] = (c + 1, t + doc["id"], kv)
        want = sorted(f"[{java_text(kv[0], sty)}, {java_text(kv[1], wty)}, {c}, {t}]"
                      for c, t, kv in groups.values())
        if got != want:
            print(f"MISMATCH in GROUP BY nested keys (seed {seed})", file=sys.stderr)
            for line in sorted(set(got) ^ set(want))[:10]:
                print(("  weir:   " if line in got else "  python: ") + line, file=sys.stderr)
            raise SystemExit(1)

        # 4. GROUP BY a MAP: maps with the same entries in any order (the
        # documents list their keys in random order) are one group, whose
        # key prints with its keys in order
        out = run(weir, d, DDL + "SELECT m, COUNT(*), SUM(id) FROM t GROUP BY m;\n", p)
        got = final_rows(out)
        groups = {}
        for doc in docs:
            m = doc.get("m")
            key = None if m is None else frozenset(m.items())
            c, t = groups.get(key, (0, 0))
            groups[key] = (c + 1, t + doc["id"])

        def map_text(key):
            if key is None:
                return "null"
            items = sorted(key, key=lambda kv: kv[0].encode())
            return "{" + ", ".join(f"{k}={'null' if v is None else v}" for k, v in items) + "}"
        want = sorted(f"[{map_text(k)}, {c}, {t}]" for k, (c, t) in groups.items())
        if got != want:
            print(f"MISMATCH in GROUP BY a MAP (seed {seed})", file=sys.stderr)
            for line in sorted(set(got) ^ set(want))[:10]:
                print(("  weir:   " if line in got else "  python: ") + line, file=sys.stderr)
            raise SystemExit(1)
        # 5. collection functions
        exprs_to_sink(weir, d, docs, coll_exprs(rng), "oc", "collection functions", p, seed)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def final_rows(out):
    """The rows a printed changelog leaves, sorted."""
    final = {}
    for line in out.splitlines():
        line = line.split("> ", 1)[1] if "> " in line[:6] else line
        kind, text = line[:2], line[2:]
        if kind in ("+I", "+U"):
            final[text] = final.get(text, 0) + 1
        elif kind in ("-U", "-D"):
            final[text] -= 1
    return sorted(t for t, n in final.items() for _ in range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weir", required=True)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--rows", type=int, default=120)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int(os.environ.get("WEIR_SEED", random.randrange(1 << 30)))
    print(f"nested_diff: seed {seed} (WEIR_SEED={seed} replays), {a.rounds} rounds of {a.rows} documents")
    rng = random.Random(seed)
    for _ in range(a.rounds):
        one_round(os.path.abspath(a.weir), rng, seed, a.rows)
    print("nested_diff: all rounds agree")


if __name__ == "__main__":
    main()
