#!/usr/bin/env python3
"""Randomized differential test of weir's DDL statements against a model
of the catalog.

Each case is a random script of CREATE TABLE / CREATE TABLE ... LIKE /
DROP TABLE [IF EXISTS] / ALTER TABLE (RENAME TO, ADD a physical or computed
column FIRST / AFTER / last, DROP, RENAME and MODIFY a column, ADD and DROP
PRIMARY KEY, SET and RESET an option) / CREATE, DROP and ALTER VIEW RENAME
statements, run in order. Then either

  - the catalog is shown (SHOW TABLES, SHOW VIEWS, SHOW TABLES LIKE, and
    DESCRIBE, SHOW CREATE TABLE and SHOW COLUMNS [NOT] LIKE of each table)
    and each table is read: its path set to a
    CSV file written for its final physical columns and the table copied by
    CREATE TABLE ... AS SELECT into a print table; the printed tables and
    rows must be the model's, or
  - one statement that must fail ends the script (DROP of a missing table,
    ALTER of a missing column, ADD of an existing one, RENAME onto a taken
    name, DROP of a column a computed column uses): weir must refuse the
    script (exit 3) with the model's message.

The model (a list of columns per table, Flink's rules for each statement,
the SQL client's table layout) shares no code with weir.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

TYPES = ["INT", "BIGINT", "STRING"]


class Col:
    def __init__(self, name, typ, over=None):
        self.name = name
        self.typ = typ      # declared type (physical), result type (computed)
        self.over = over    # computed: the physical column it is defined over

    def computed(self):
        return self.over is not None

    def expr(self):
        return "UPPER(%s)" % self.over if self.typ == "STRING" else "%s + 1" % self.over

    def copy(self):
        return Col(self.name, self.typ, self.over)


class Table:
    def __init__(self, cols, opts):
        self.cols = cols
        self.pk = None      # column name
        self.opts = opts    # [[key, value]]

    def copy(self):
        t = Table([c.copy() for c in self.cols], [list(o) for o in self.opts])
        t.pk = self.pk
        return t

    def col(self, name):
        for c in self.cols:
            if c.name == name:
                return c
        return None

    def used(self, name):
        return self.pk == name or any(c.over == name for c in self.cols)


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.tables = {}
        self.views = {}     # name -> temporary
        self.n = 0
        self.sql = []

    def fresh(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def stmt(self, s):
        self.sql.append(s + ";")

    def physical(self, t):
        return [c for c in t.cols if not c.computed()]

    def coldef(self, c):
        return "%s AS %s" % (c.name, c.expr()) if c.computed() else "%s %s" % (c.name, c.typ)

    def create(self):
        name = self.fresh("t")
        cols = [Col(self.fresh("c"), self.rng.choice(TYPES)) for _ in range(self.rng.randint(1, 3))]
        t = Table(cols, [["connector", "filesystem"], ["path", "none.csv"], ["format", "csv"]])
        if self.rng.random() < 0.4:
            t.cols.append(self.computed_over(t))
        self.tables[name] = t
        self.stmt("CREATE TABLE %s (%s) WITH (%s)" % (name, ", ".join(self.coldef(c) for c in t.cols),
                                                       ", ".join("'%s' = '%s'" % (k, v) for k, v in t.opts)))

    def computed_over(self, t):
        p = self.rng.choice(self.physical(t))
        return Col(self.fresh("k"), "STRING" if p.typ == "STRING" else p.typ, p.name)

    def like(self):
        src = self.rng.choice(sorted(self.tables))
        name = self.fresh("t")
        t = self.tables[src].copy()
        opt = ""
        if self.rng.random() < 0.5:
            opt = " (EXCLUDING GENERATED)"
            t.cols = [c for c in t.cols if not c.computed()]
        self.tables[name] = t
        self.stmt("CREATE TABLE %s LIKE %s%s" % (name, src, opt))

    def alter(self):
        name = self.rng.choice(sorted(self.tables))
        t = self.tables[name]
        op = self.rng.choice(["rename", "add", "addc", "drop", "renamecol", "modify", "pk", "set", "reset"])
        phys = self.physical(t)
        if op == "rename":
            new = self.fresh("t")
            self.tables[new] = self.tables.pop(name)
            self.stmt("ALTER TABLE %s RENAME TO %s" % (name, new))
        elif op in ("add", "addc"):
            c = Col(self.fresh("c"), self.rng.choice(TYPES)) if op == "add" else self.computed_over(t)
            where = self.rng.choice(["", " FIRST", " AFTER"])
            if where == " FIRST":
                t.cols.insert(0, c)
            elif where == " AFTER":
                ref = self.rng.choice(t.cols)
                where = " AFTER " + ref.name
                t.cols.insert(t.cols.index(ref) + 1, c)
            else:
                t.cols.append(c)
            self.stmt("ALTER TABLE %s ADD %s%s" % (name, self.coldef(c), where))
        elif op == "drop":
            cand = [c for c in t.cols if not t.used(c.name)]
            if len(cand) < 1 or len(t.cols) < 2 or (len(phys) < 2 and not cand[0].computed()
                                                      and all(not c.computed() for c in cand)):
                return
            c = self.rng.choice(cand)
            if not c.computed() and len(phys) < 2:
                return
            t.cols.remove(c)
            self.stmt("ALTER TABLE %s DROP %s" % (name, c.name))
        elif op == "renamecol":
            cand = [c for c in t.cols if not any(o.over == c.name for o in t.cols)]
            if not cand:
                return
            c = self.rng.choice(cand)
            new = self.fresh("c")
            if t.pk == c.name:
                t.pk = new
            self.stmt("ALTER TABLE %s RENAME %s TO %s" % (name, c.name, new))
            c.name = new
        elif op == "modify":
            cand = [c for c in phys if c.typ != "STRING"]
            if not cand:
                return
            c = self.rng.choice(cand)
            c.typ = "BIGINT" if c.typ == "INT" else "INT"
            for o in t.cols:
                if o.over == c.name:
                    o.typ = c.typ
            self.stmt("ALTER TABLE %s MODIFY %s %s" % (name, c.name, c.typ))
        elif op == "pk":
            if t.pk:
                t.pk = None
                self.stmt("ALTER TABLE %s DROP PRIMARY KEY" % name)
            else:
                t.pk = self.rng.choice(phys).name
                self.stmt("ALTER TABLE %s ADD PRIMARY KEY (%s) NOT ENFORCED" % (name, t.pk))
        elif op == "set":
            v = self.rng.choice(["a.csv", "b.csv"])
            for o in t.opts:
                if o[0] == "path":
                    o[1] = v
                    break
            else:
                t.opts.append(["path", v])
            self.stmt("ALTER TABLE %s SET ('path' = '%s')" % (name, v))
        else:
            t.opts = [o for o in t.opts if o[0] != "path"]
            self.stmt("ALTER TABLE %s RESET ('path')" % name)

    def view_op(self):
        op = self.rng.choice(["create", "drop", "rename"] if self.views else ["create"])
        if op == "create":
            name = self.fresh("v")
            temp = self.rng.random() < 0.3
            self.views[name] = temp
            src = self.rng.choice(sorted(self.tables))
            self.stmt("CREATE %sVIEW %s AS SELECT * FROM %s" % ("TEMPORARY " if temp else "", name, src))
        elif op == "drop":
            name = self.rng.choice(sorted(self.views))
            temp = self.views.pop(name)
            self.stmt("DROP %sVIEW %s" % ("TEMPORARY " if temp else "", name))
        else:
            name = self.rng.choice(sorted(self.views))
            new = self.fresh("v")
            self.views[new] = self.views.pop(name)
            self.stmt("ALTER VIEW %s RENAME TO %s" % (name, new))

    def step(self):
        r = self.rng.random()
        if not self.tables or r < 0.12:
            self.create()
        elif r < 0.2:
            self.like()
        elif r < 0.3:
            name = self.rng.choice(sorted(self.tables))
            del self.tables[name]
            self.stmt("DROP TABLE %s" % name)
        elif r < 0.35:
            self.stmt("DROP TABLE IF EXISTS %s" % self.fresh("gone"))
        elif r < 0.45:
            self.view_op()
        else:
            self.alter()

    def failing(self):
        """One statement that must fail, and the message weir must give."""
        t = self.rng.choice(sorted(self.tables))
        tb = self.tables[t]
        kinds = ["drop_missing", "alter_missing_col", "add_existing", "rename_taken"]
        if any(c.computed() for c in tb.cols):
            kinds.append("drop_used")
        k = self.rng.choice(kinds)
        if k == "drop_missing":
            miss = self.fresh("zz")
            return "DROP TABLE %s" % miss, "table '%s' does not exist" % miss
        if k == "alter_missing_col":
            miss = self.fresh("zz")
            return ("ALTER TABLE %s DROP %s" % (t, miss), "column '%s' does not exist in table '%s'" % (miss, t))
        if k == "add_existing":
            c = self.rng.choice(tb.cols)
            return ("ALTER TABLE %s ADD %s INT" % (t, c.name),
                    "column '%s' already exists in table '%s'" % (c.name, t))
        if k == "rename_taken":
            other = self.rng.choice(sorted(self.tables) + sorted(self.views))
            return "ALTER TABLE %s RENAME TO %s" % (t, other), "table or view '%s' already exists" % other
        c = next(c for c in tb.cols if c.computed())
        return ("ALTER TABLE %s DROP %s" % (t, c.over),
                "column '%s' cannot be dropped: computed column '%s' is defined over it" % (c.over, c.name))


def tableau(header, rows):
    """The SQL client's table of rows, as the model writes it."""
    if not rows:
        return ["Empty set"]
    w = [max([len(header[i])] + [len(r[i]) for r in rows]) for i in range(len(header))]
    rule = "".join("+" + "-" * (x + 2) for x in w) + "+"
    line = lambda cells: "".join("| " + c.rjust(w[i]) + " " for i, c in enumerate(cells)) + "|"  # noqa: E731
    out = [rule, line(header), rule] + [line(r) for r in rows] + [rule]
    return out + ["%d row%s in set" % (len(rows), "" if len(rows) == 1 else "s")]


def like(name, pattern):
    """SQL LIKE, as a regular expression: % any run, _ one character."""
    rx = "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in pattern)
    return re.fullmatch(rx, name, re.S) is not None


def describe(t, keep=lambda name: True):
    rows = []
    for c in t.cols:
        if not keep(c.name):
            continue
        pk = t.pk == c.name
        rows.append([c.name, c.typ, "FALSE" if pk else "TRUE", "PRI(%s)" % c.name if pk else "",
                     "AS " + c.expr() if c.computed() else "", ""])
    return tableau(["name", "type", "null", "key", "extras", "watermark"], rows)


def show_create(name, t):
    parts = ["%s AS %s" % (c.name, c.expr()) if c.computed() else "%s %s" % (c.name, c.typ) for c in t.cols]
    if t.pk:
        parts.append("PRIMARY KEY (%s) NOT ENFORCED" % t.pk)
    s = "CREATE TABLE %s (%s)" % (name, ", ".join(parts))
    if t.opts:
        s += " WITH (%s)" % ", ".join("'%s' = '%s'" % (k, v) for k, v in t.opts)
    return [s]


def value(rng, typ, row):
    if typ == "STRING":
        return rng.choice(["a", "bc", "Dd", "e%d" % row])
    return str(rng.randint(-50, 50))


def run_case(case):
    rng = case.rng
    g = Gen(rng)
    for _ in range(rng.randint(3, 14)):
        g.step()
    if not g.tables:
        g.create()
    if rng.random() < 0.3:
        bad, msg = g.failing()
        g.stmt(bad)
        case.note = "failing: " + bad
        case.write("job.sql", "\n".join(g.sql) + "\n")
        p = case.run_weir(["run", "job.sql"])
        case.counts["errors"] += 1
        if p.returncode != 3 or msg not in p.stderr:
            return ["want exit 3 with '%s'; got exit %d: %s" % (msg, p.returncode, p.stderr.strip()[-500:])]
        return []
    want = []
    g.stmt("SHOW TABLES")
    want += tableau(["table name"], [[n] for n in sorted(list(g.tables) + list(g.views))])
    g.stmt("SHOW VIEWS")
    want += tableau(["view name"], [[n] for n in sorted(g.views)])
    pat = rng.choice(["t%", "v%", "%1%", "t_", "%"])
    g.stmt("SHOW TABLES LIKE '%s'" % pat)
    want += tableau(["table name"], [[n] for n in sorted(list(g.tables) + list(g.views)) if like(n, pat)])
    rows = []
    for i, name in enumerate(sorted(g.tables)):
        t = g.tables[name]
        g.stmt("DESCRIBE %s" % name)
        want += describe(t)
        g.stmt("SHOW CREATE TABLE %s" % name)
        want += show_create(name, t)
        pat = rng.choice(["c%", "k%", "%1%", "_2", "c_", "%", "t%"])
        neg = rng.random() < 0.3
        g.stmt("SHOW COLUMNS FROM %s %sLIKE '%s'" % (name, "NOT " if neg else "", pat))
        want += describe(t, lambda n: like(n, pat) != neg)
        # read it: the path of a file written for its physical columns
        data = []
        for r in range(rng.randint(1, 3)):
            data.append({c.name: value(rng, c.typ, r) for c in t.cols if not c.computed()})
        with open(case.path("d_%s.csv" % name), "w") as f:
            for d in data:
                f.write(",".join(d[c.name] for c in t.cols if not c.computed()) + "\n")
        g.stmt("ALTER TABLE %s SET ('path' = 'd_%s.csv')" % (name, name))
        g.stmt("CREATE TABLE out_%s WITH ('connector' = 'print', 'print-identifier' = '%s') AS SELECT %s FROM %s"
               % (name, name, ", ".join(c.name for c in t.cols), name))
        for d in data:
            vals = []
            for c in t.cols:
                if not c.computed():
                    vals.append(d[c.name])
                elif c.typ == "STRING":
                    vals.append(d[c.over].upper())
                else:
                    vals.append(str(int(d[c.over]) + 1))
            rows.append("%s> +I[%s]" % (name, ", ".join(vals)))
    case.write("job.sql", "\n".join(g.sql) + "\n")
    case.note = "%d statements, %d tables, %d views" % (len(g.sql), len(g.tables), len(g.views))
    case.counts["statements"] += len(g.sql)
    p = case.run_weir(["run", "job.sql", "-D", "parallelism.default=%d" % rng.choice([1, 2])])
    if p.returncode:
        return [diffrun.failed_run(p)]
    got = [line for line in p.stdout.splitlines() if line]
    printed = [line for line in got if "> +I[" in line]
    shown = [line for line in got if "> +I[" not in line]
    probs = []
    if shown != want:
        for i in range(max(len(shown), len(want))):
            a = shown[i] if i < len(shown) else "<none>"
            b = want[i] if i < len(want) else "<none>"
            if a != b:
                probs.append("catalog output line %d: got %r, want %r" % (i + 1, a, b))
                break
    # "t3:1> +I[...]" at parallelism 2: the subtask is no part of the row
    printed = [re.sub(r"^([A-Za-z0-9_]+):[0-9]+> ", r"\1> ", line) for line in printed]
    return probs + diffrun.multiset_problems("rows", rows, printed)


if __name__ == "__main__":
    sys.exit(diffrun.main("ddl_diff", run_case, jobs_env="WEIR_DDLDIFF_JOBS", jobs=40, asan_jobs=12,
                          one_env="WEIR_DDLDIFF_JOB", out_env="WEIR_DDLDIFF_OUT"))
