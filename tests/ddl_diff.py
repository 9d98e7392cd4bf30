#!/usr/bin/env python3
"""Randomized differential test of weir's DDL statements against a model
of the catalog.

Each case is a random script of CREATE CATALOG / CREATE DATABASE / USE
[CATALOG] / DROP DATABASE ... CASCADE / DROP CATALOG and CREATE TABLE /
CREATE TABLE ... LIKE /
DROP TABLE [IF EXISTS] / ALTER TABLE (RENAME TO, ADD a physical or computed
column FIRST / AFTER / last, DROP, RENAME and MODIFY a column, ADD and DROP
PRIMARY KEY, SET and RESET an option) / CREATE, DROP and ALTER VIEW RENAME
statements (a view's query reads a table, its columns referenced bare or
qualified by the table's alias, name, database.name or catalog.database.name,
or a qualified star), run in order; tables and views live in several databases of
several catalogs, a bare name is often taken again in another database, and
every statement names its table or view by a random form that reaches it
from the current catalog and database (t, db.t, catalog.db.t, parts in
backquotes). Then either

  - the catalog is shown (SHOW CATALOGS, SHOW CURRENT CATALOG / DATABASE,
    SHOW DATABASES FROM each catalog, SHOW TABLES, SHOW VIEWS and SHOW
    TABLES LIKE of each database, and DESCRIBE, SHOW CREATE TABLE and SHOW
    COLUMNS [NOT] LIKE of each table, through a qualified name)
    and each table is read: its path set to a
    CSV file written for its final physical columns and the table copied by
    CREATE TABLE ... AS SELECT into a print table; the printed tables and
    rows must be the model's, or
  - one statement that must fail ends the script (DROP of a missing table,
    ALTER of a missing column, ADD of an existing one, RENAME onto a taken
    name, DROP of a column a computed column uses, a name in a database
    that does not exist, USE of one, DROP DATABASE of the current database
    or of one that is not empty without CASCADE, a view over a missing table
    or column, refused at CREATE VIEW as Flink validates it there, a column
    qualified by a database its table is not in, or by a table name its
    alias hides): weir must refuse the
    script (exit 3) with the model's message.

Other cases (about a third) are views over tables and over views: CREATE
VIEW (`*` or a list of columns, some renamed), ALTER TABLE ADD (a physical
or computed column, FIRST or last), DROP and RENAME of a column, DROP VIEW
and CREATE VIEW of the same name with other columns, under the views that
read them; then every view is copied by CREATE TABLE ... AS SELECT * into
a print table. The model keeps each view as Flink does, its query
expanded where it was created (the columns `*` meant, each by name), and
gives the rows, or the statement that fails: a CREATE VIEW over a view
that no longer reads, a column written in a view that is gone ("unknown
column"), one a `*` meant ("view 'v' reads column 'c' of 'w', which 'w'
no longer has"), or a view column whose type changed.

The model (a list of columns per table, its catalog and database, Flink's
rules for each statement, the SQL client's table layout) shares no code
with weir. WEIR_DDLDIFF_MUTATE=lastpart makes the model resolve a name by
its last part alone (the bug weir had): the test must then fail, which
shows that it looks at resolution.
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


MUTATE = os.environ.get("WEIR_DDLDIFF_MUTATE", "")


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.tables = {}    # (catalog, database, name) -> Table
        self.written = {}   # path -> the table's name as its CREATE or last RENAME TO wrote it
        self.views = {}     # path -> temporary
        self.cats = {"default_catalog": ["default_database"]}  # catalog -> its databases, in creation order
        self.default_db = {"default_catalog": "default_database"}
        self.cur = ("default_catalog", "default_database")
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

    # ---- names

    def q(self, part):
        return "`%s`" % part if self.rng.random() < 0.2 else part

    def ref(self, path, quote=True):
        """A name that reaches path from the current catalog and database."""
        c, d, n = path
        forms = []
        if (c, d) == self.cur:
            forms.append([n])
        if c == self.cur[0]:
            forms.append([d, n])
        forms.append([c, d, n])
        parts = self.rng.choice(forms)
        return ".".join(self.q(x) if quote else x for x in parts)

    def col_ref(self, path, col, alias=None):
        """A reference to column col of the FROM item that reads path (under alias, if given): bare, or
        qualified by the alias, or by the table's name, its database and name (when path is in the
        current catalog) or its catalog, database and name, as Flink resolves them."""
        c, d, n = path
        if alias:
            forms = [[], [alias]]
        else:
            forms = [[], [n], [c, d, n]]
            if c == self.cur[0]:
                forms.append([d, n])
        return ".".join([self.q(x) for x in self.rng.choice(forms)] + [col])

    def select_list(self, path, t, alias=None):
        """The columns of table t, which the FROM item reading path reads, in order: each referenced by
        col_ref, or all of them as a (qualified) star, which lists them in their declared order,
        computed columns among the physical ones, as Flink's does."""
        cols = [c.name for c in t.cols]
        if self.rng.random() < 0.3:
            star = self.col_ref(path, "*", alias)
            return star
        return ", ".join(self.col_ref(path, c, alias) for c in cols)

    def from_item(self, path):
        """path named as a FROM item, with an alias or not; (text, alias)."""
        if self.rng.random() < 0.3:
            alias = self.fresh("x")
            return "%s AS %s" % (self.ref(path), alias), alias
        if self.rng.random() < 0.2:
            return "%s AS %s" % (self.ref(path), path[2]), None  # its own name: the path still qualifies
        return self.ref(path), None

    def db_ref(self, c, d):
        return d if c == self.cur[0] and self.rng.random() < 0.6 else "%s.%s" % (c, d)

    def all_dbs(self):
        return [(c, d) for c in sorted(self.cats) for d in self.cats[c]]

    def target_db(self):
        return self.cur if self.rng.random() < 0.5 else self.rng.choice(self.all_dbs())

    def in_db(self, c, d, objs):
        return sorted(p for p in objs if p[:2] == (c, d))

    def taken(self, path):
        """A permanent table or view of that path."""
        return path in self.tables or (path in self.views and not self.views[path])

    def new_name(self, c, d, prefix):
        """A fresh name, or often a name some other database has (the case a last-part lookup gets wrong)."""
        others = sorted({p[2] for p in list(self.tables) + list(self.views) if p[:2] != (c, d)
                         and p[2].startswith(prefix)})
        others = [o for o in others if not self.taken((c, d, o)) and (c, d, o) not in self.views]
        if others and self.rng.random() < 0.5:
            return self.rng.choice(others)
        return self.fresh(prefix)

    # ---- catalogs and databases

    def catalog_op(self):
        op = self.rng.choice(["catalog", "database", "database", "use", "use", "dropdb", "dropcat"])
        if op == "catalog":
            name = self.fresh("cat")
            db = self.rng.choice(["default", self.fresh("d")])
            opts = "'type' = 'generic_in_memory'"
            if db != "default":
                opts += ", 'default-database' = '%s'" % db
            self.cats[name] = [db]
            self.default_db[name] = db
            self.stmt("CREATE CATALOG %s WITH (%s)" % (name, opts))
        elif op == "database":
            c = self.rng.choice(sorted(self.cats))
            d = self.fresh("d")
            self.cats[c].append(d)
            self.stmt("CREATE DATABASE %s%s" % ("IF NOT EXISTS " if self.rng.random() < 0.3 else "",
                                                 self.db_ref(c, d)))
        elif op == "use":
            c, d = self.rng.choice(self.all_dbs())
            if self.rng.random() < 0.3:
                self.cur = (c, self.default_db[c])
                if self.cur[1] not in self.cats[c]:
                    self.cur = None  # the default database was dropped: not this statement
                    return
                self.stmt("USE CATALOG %s" % self.q(c))
            else:
                self.stmt("USE %s" % self.db_ref(c, d))
                self.cur = (c, d)
        elif op == "dropdb":
            cand = [x for x in self.all_dbs() if x != self.cur]
            if not cand:
                return
            c, d = self.rng.choice(cand)
            objs = self.in_db(c, d, self.tables) + self.in_db(c, d, self.views)
            if objs and self.rng.random() < 0.5:
                return
            for p in objs:
                self.tables.pop(p, None)
                self.views.pop(p, None)
            self.cats[c].remove(d)
            self.stmt("DROP DATABASE %s%s" % (self.db_ref(c, d), " CASCADE" if objs else
                                              self.rng.choice(["", " RESTRICT"])))
        else:
            cand = [c for c in sorted(self.cats) if c != self.cur[0]]
            if not cand or self.rng.random() < 0.5:
                return
            c = self.rng.choice(cand)
            for p in list(self.tables) + list(self.views):
                if p[0] == c:
                    self.tables.pop(p, None)
                    self.views.pop(p, None)
            del self.cats[c]
            self.stmt("DROP CATALOG %s" % c)

    # ---- tables and views

    def create(self):
        c, d = self.target_db()
        path = (c, d, self.new_name(c, d, "t"))
        cols = [Col(self.fresh("c"), self.rng.choice(TYPES)) for _ in range(self.rng.randint(1, 3))]
        t = Table(cols, [["connector", "filesystem"], ["path", "none.csv"], ["format", "csv"]])
        if self.rng.random() < 0.4:
            t.cols.append(self.computed_over(t))
        self.tables[path] = t
        self.written[path] = self.ref(path, quote=False)
        self.stmt("CREATE TABLE %s (%s) WITH (%s)" % (self.written[path], ", ".join(self.coldef(c) for c in t.cols),
                                                       ", ".join("'%s' = '%s'" % (k, v) for k, v in t.opts)))

    def computed_over(self, t):
        p = self.rng.choice(self.physical(t))
        return Col(self.fresh("k"), "STRING" if p.typ == "STRING" else p.typ, p.name)

    def like(self):
        src = self.rng.choice(sorted(self.tables))
        c, d = self.target_db()
        path = (c, d, self.new_name(c, d, "t"))
        t = self.tables[src].copy()
        opt = ""
        if self.rng.random() < 0.5:
            opt = " (EXCLUDING GENERATED)"
            t.cols = [c for c in t.cols if not c.computed()]
        self.tables[path] = t
        self.written[path] = self.ref(path, quote=False)
        self.stmt("CREATE TABLE %s LIKE %s%s" % (self.written[path], self.ref(src), opt))

    def alter(self):
        path = self.rng.choice(sorted(self.tables))
        name = self.ref(path)
        t = self.tables[path]
        op = self.rng.choice(["rename", "add", "addc", "drop", "renamecol", "modify", "pk", "set", "reset"])
        phys = self.physical(t)
        if op == "rename":
            new = (path[0], path[1], self.new_name(path[0], path[1], "t"))
            self.tables[new] = self.tables.pop(path)
            self.written.pop(path)
            self.written[new] = new[2] if self.rng.random() < 0.6 else "%s.%s.%s" % new
            self.stmt("ALTER TABLE %s RENAME TO %s" % (name, self.written[new]))
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
            c, d = self.target_db()
            temp = self.rng.random() < 0.3
            path = (c, d, self.new_name(c, d, "v"))
            if (path in self.views and self.views[path] == temp) or (not temp and path in self.tables):
                return
            self.views[path] = temp
            src = self.rng.choice(sorted(self.tables))
            # planned where it is written: its qualified columns resolve from the current database
            item, alias = self.from_item(src)
            cols = self.select_list(src, self.tables[src], alias)
            self.stmt("CREATE %sVIEW %s AS SELECT %s FROM %s" % ("TEMPORARY " if temp else "", self.ref(path),
                                                              cols, item))
        elif op == "drop":
            path = self.rng.choice(sorted(self.views))
            temp = self.views.pop(path)
            self.stmt("DROP %sVIEW %s" % ("TEMPORARY " if temp else "", self.ref(path)))
        else:
            path = self.rng.choice(sorted(self.views))
            new = (path[0], path[1], self.fresh("v"))
            self.views[new] = self.views.pop(path)
            self.stmt("ALTER VIEW %s RENAME TO %s" % (self.ref(path), new[2]))

    def step(self):
        r = self.rng.random()
        if not self.tables or r < 0.12:
            self.create()
        elif r < 0.18:
            self.like()
        elif r < 0.25:
            path = self.rng.choice(sorted(self.tables))
            del self.tables[path]
            del self.written[path]
            self.stmt("DROP TABLE %s" % self.ref(path))
        elif r < 0.28:
            c, d = self.target_db()
            self.stmt("DROP TABLE IF EXISTS %s" % self.ref((c, d, self.fresh("gone"))))
        elif r < 0.38:
            self.view_op()
        elif r < 0.5:
            saved = self.cur
            self.catalog_op()
            if self.cur is None:
                self.cur = saved
        else:
            self.alter()

    def failing(self):
        """One statement that must fail, and the message weir must give."""
        path = self.rng.choice(sorted(self.tables))
        t = self.ref(path)
        tb = self.tables[path]
        kinds = ["drop_missing", "alter_missing_col", "add_existing", "rename_taken", "unknown_db", "use_unknown",
                 "drop_current", "view_missing_table", "view_missing_col", "qual_other_db", "qual_alias"]
        if any(c.computed() for c in tb.cols):
            kinds.append("drop_used")
        if any(self.in_db(c, d, self.tables) for c, d in self.all_dbs() if (c, d) != self.cur):
            kinds.append("db_not_empty")
        k = self.rng.choice(kinds)
        if k == "drop_missing":
            c, d = self.target_db()
            miss = (c, d, self.fresh("zz"))
            where = "" if (c, d) == self.cur else " in '%s.%s'" % (c, d)
            return "DROP TABLE %s" % self.ref(miss), "table '%s' does not exist%s" % (miss[2], where)
        if k == "alter_missing_col":
            miss = self.fresh("zz")
            return ("ALTER TABLE %s DROP %s" % (t, miss), "column '%s' does not exist in table '%s'" % (miss, path[2]))
        if k == "add_existing":
            c = self.rng.choice(tb.cols)
            return ("ALTER TABLE %s ADD %s INT" % (t, c.name),
                    "column '%s' already exists in table '%s'" % (c.name, path[2]))
        if k == "rename_taken":
            others = [p for p in self.tables if p[:2] == path[:2]] + \
                     [p for p in self.views if p[:2] == path[:2] and not self.views[p]]
            other = self.rng.choice(sorted(others))
            where = "" if path[:2] == self.cur else " in '%s.%s'" % path[:2]
            return ("ALTER TABLE %s RENAME TO %s" % (t, other[2]),
                    "table or view '%s' already exists%s" % (other[2], where))
        if k == "unknown_db":
            db = self.fresh("nodb")
            return "DROP TABLE %s.%s" % (db, path[2]), "database '%s' does not exist in catalog '%s'" % (db, self.cur[0])
        if k == "use_unknown":
            db = self.fresh("nodb")
            return "USE %s" % db, "database '%s' does not exist in catalog '%s'" % (db, self.cur[0])
        if k in ("view_missing_col", "qual_other_db", "qual_alias") and not any(o[0] == "path" for o in tb.opts):
            # weir checks a view's query by planning it, which stops at a table whose connector refuses
            # its options (RESET 'path'): then the view is not checked further (documented)
            k = "view_missing_table"
        if k == "view_missing_table":
            miss = self.fresh("zz")
            return ("CREATE VIEW %s AS SELECT * FROM %s" % (self.fresh("v"), miss), "unknown table '%s'" % miss)
        if k == "view_missing_col":
            miss = self.fresh("zz")
            return ("CREATE VIEW %s AS SELECT %s FROM %s" % (self.fresh("v"), miss, t), "unknown column '%s'" % miss)
        if k == "qual_other_db":
            # a database path is not in: db.t.c names no FROM item
            db = self.rng.choice([self.fresh("nodb")] + [x[1] for x in self.all_dbs()
                                                        if x[0] == self.cur[0] and x[1] != path[1]])
            col = self.rng.choice(tb.cols).name
            view = self.rng.random() < 0.5
            return ("%sSELECT %s.%s.%s FROM %s" % ("CREATE VIEW %s AS " % self.fresh("v") if view else "", db,
                                                   path[2], col, t),
                    "unknown table or alias '%s.%s' in '%s.%s.%s'" % (db, path[2], db, path[2], col))
        if k == "qual_alias":
            # an alias hides the table's name
            col = self.rng.choice(tb.cols).name
            return ("SELECT %s.%s FROM %s AS %s" % (path[2], col, t, self.fresh("x")),
                    "unknown table or alias '%s' in '%s.%s'" % (path[2], path[2], col))
        if k == "drop_current":
            return ("DROP DATABASE %s CASCADE" % self.db_ref(*self.cur),
                    "database '%s' is the current database and cannot be dropped" % self.cur[1])
        if k == "db_not_empty":
            c, d = self.rng.choice([x for x in self.all_dbs() if x != self.cur and self.in_db(*x, self.tables)])
            n = len(self.in_db(c, d, self.tables)) + len(self.in_db(c, d, self.views))
            return ("DROP DATABASE %s" % self.db_ref(c, d),
                    "database '%s' in catalog '%s' is not empty (%d table%s and view%s)"
                    % (d, c, n, "" if n == 1 else "s", "" if n == 1 else "s"))
        c = next(c for c in tb.cols if c.computed())
        return ("ALTER TABLE %s DROP %s" % (t, c.over),
                "column '%s' cannot be dropped: computed column '%s' is defined over it" % (c.over, c.name))

    def lookup(self, path):
        """The table a name of path reaches in the model (MUTATE=lastpart: the first of that last part)."""
        if MUTATE == "lastpart":
            for p in sorted(self.tables):
                if p[2] == path[2]:
                    return self.tables[p]
        return self.tables[path]


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


FULL_TYPE = {"INT": "INT", "BIGINT": "BIGINT", "STRING": "VARCHAR(2147483647)"}


def show_create(path, t):
    """SHOW CREATE TABLE as Flink prints it: the path and every name in backquotes, one column per line
    (types by their full names, a key column NOT NULL), the key named PK_ and its column, the options
    one per line, sorted; in the SQL client's one-column table."""
    lines = []
    for c in t.cols:
        if c.computed():
            e = "UPPER(`%s`)" % c.over if c.typ == "STRING" else "`%s` + 1" % c.over
            lines.append("  `%s` AS %s" % (c.name, e))
        else:
            lines.append("  `%s` %s%s" % (c.name, FULL_TYPE[c.typ], " NOT NULL" if t.pk == c.name else ""))
    if t.pk:
        lines.append("  CONSTRAINT `PK_%s` PRIMARY KEY (`%s`) NOT ENFORCED" % (t.pk, t.pk))
    s = "CREATE TABLE %s (\n" % ".".join("`%s`" % x for x in path) + ",\n".join(lines) + "\n)\n"
    if t.opts:
        s += "WITH (\n" + ",\n".join(sorted("  '%s' = '%s'" % (k, v) for k, v in t.opts)) + "\n)\n"
    return [x for x in "\n".join(tableau(["result"], [[s]])).split("\n") if x]


def value(rng, typ, row):
    if typ == "STRING":
        return rng.choice(["a", "bc", "Dd", "e%d" % row])
    return str(rng.randint(-50, 50))


# ---- views over tables and views, changed under them

class ViewModel:
    """A view as Flink keeps it: its source (a table or view name) and its columns fixed where it was
    created, each (source column, name, type)."""

    def __init__(self, src, cols, star, src_cols):
        self.src = src
        self.cols = cols
        self.star = star
        self.src_cols = src_cols  # the names of all of the source's columns there


class ViewCase:
    """Random scripts of views over tables and over views, with ALTER TABLE ADD / DROP / RENAME of a
    column and DROP VIEW followed by CREATE VIEW of the same name with other columns under them; then
    every view read by CREATE TABLE ... AS SELECT * FROM it."""

    def __init__(self, rng):
        self.rng = rng
        self.tables = {}   # name -> [Col] (physical and computed)
        self.views = {}    # name -> ViewModel
        self.sql = []
        self.n = 0
        self.error = None  # the message of the first statement that fails

    def fresh(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def stmt(self, s):
        self.sql.append(s + ";")

    def columns_of(self, name):
        """[(name, type)] of a table or view now."""
        if name in self.tables:
            return [(c.name, c.typ) for c in self.tables[name]]
        return [(n, t) for _, n, t in self.views[name].cols]

    def select(self, src):
        """A select list over src's columns now, and the view columns it gives."""
        cols = self.columns_of(src)
        if self.rng.random() < 0.4:
            return "*", [(n, n, t) for n, t in cols]
        k = self.rng.randint(1, len(cols))
        picked = self.rng.sample(cols, k)
        items, out = [], []
        for n, t in picked:
            if self.rng.random() < 0.3:
                a = self.fresh("a")
                items.append("%s AS %s" % (n, a))
                out.append((n, a, t))
            else:
                items.append(n)
                out.append((n, n, t))
        return ", ".join(items), out

    def create_view(self, name=None):
        src = self.rng.choice(sorted(self.tables) + sorted(self.views))
        name = name or self.fresh("v")
        items, cols = self.select(src)
        self.stmt("CREATE VIEW %s AS SELECT %s FROM %s" % (name, items, src))
        self.check(src)
        self.views[name] = ViewModel(src, cols, items == "*", [n for n, _ in self.columns_of(src)])

    def check(self, src):
        """CREATE VIEW plans its query where it is written, as Flink validates it: a source view that
        no longer reads fine fails it."""
        if src in self.views and not self.error:
            _, _, err = self.eval(src, None)
            self.error = err

    def table_op(self):
        name = self.rng.choice(sorted(self.tables))
        cols = self.tables[name]
        used = {c.over for c in cols if c.computed()}
        op = self.rng.choice(["add", "add", "drop", "rename"])
        if op == "add" or len(cols) < 2:
            c = Col(self.fresh("c"), self.rng.choice(TYPES))
            phys = [x for x in cols if not x.computed()]
            if self.rng.random() < 0.3 and phys:
                o = self.rng.choice(phys)
                c = Col(c.name, "STRING" if o.typ == "STRING" else o.typ, o.name)
                if c.typ == "BIGINT":
                    c.typ = "BIGINT"
            where = self.rng.choice(["", " FIRST"])
            self.stmt("ALTER TABLE %s ADD %s%s" % (name, "%s AS %s" % (c.name, c.expr()) if c.computed()
                                                   else "%s %s" % (c.name, c.typ), where))
            if where:
                cols.insert(0, c)
            else:
                cols.append(c)
            return
        cands = [c for c in cols if c.name not in used]
        if not cands or len([c for c in cols if not c.computed()]) < 2:
            return
        c = self.rng.choice(cands)
        if op == "drop":
            if not c.computed() and len([x for x in cols if not x.computed()]) < 2:
                return
            self.stmt("ALTER TABLE %s DROP %s" % (name, c.name))
            cols.remove(c)
        else:
            new = self.fresh("r")
            self.stmt("ALTER TABLE %s RENAME %s TO %s" % (name, c.name, new))
            c.name = new

    def recreate(self):
        name = self.rng.choice(sorted(self.views))
        self.stmt("DROP VIEW %s" % name)
        del self.views[name]
        readers = {n for n, v in self.views.items() if v.src == name}
        # its source may not be one of the views reading it (that would be a cycle)
        srcs = sorted(self.tables) + sorted(v for v in self.views if v not in self.readers_of(name))
        src = self.rng.choice(srcs)
        items, cols = self.select(src)
        self.stmt("CREATE VIEW %s AS SELECT %s FROM %s" % (name, items, src))
        self.check(src)
        self.views[name] = ViewModel(src, cols, items == "*", [n for n, _ in self.columns_of(src)])
        return readers

    def readers_of(self, name):
        """The views that read name, directly or through others."""
        out, todo = set(), [name]
        while todo:
            x = todo.pop()
            for n, v in self.views.items():
                if v.src == x and n not in out:
                    out.add(n)
                    todo.append(n)
        return out

    def eval(self, name, data):
        """(rows as [[value]], [(name, type)], None) of reading name now, or (None, None, message)."""
        if name in self.tables:
            rows = []
            for d in (data or {}).get(name, []):
                r = []
                for c in self.tables[name]:
                    if not c.computed():
                        r.append(d[c.name])
                    elif c.typ == "STRING":
                        r.append(d[c.over].upper())
                    else:
                        r.append(str(int(d[c.over]) + 1))
                rows.append(r)
            return rows, [(c.name, c.typ) for c in self.tables[name]], None
        v = self.views[name]
        rows, cols, err = self.eval(v.src, data)
        if err:
            return None, None, err
        if v.src in self.views:
            sv = self.views[v.src]
            for (_, n, t), (_, t2) in zip(sv.cols, cols):
                if t != t2:
                    return None, None, "view '%s': column '%s' was %s where the view was created and is %s now" % (
                        v.src, n, t, t2)
        names = [n for n, _ in cols]
        # Flink's expanded query names each column it reads: one gone is not found (an item written
        # in the view, in select-list order); one a `*` meant leaves the view short of it
        gone = [c for c in v.src_cols if c not in names]
        msg = "view '%s' reads column '%s' of '%s', which '%s' no longer has" % (
            name, gone[0], v.src, v.src) if gone else None
        if gone and len(gone) == len(v.src_cols):
            return None, None, msg  # weir: nothing of the source is left to read
        for src_col, _, _ in v.cols:
            if src_col not in names and not v.star:
                return None, None, "unknown column '%s'" % src_col
        if v.star and gone:
            return None, None, msg
        idx = [names.index(c) for c, _, _ in v.cols]
        out = [[r[i] for i in idx] for r in rows]
        return out, [(n, cols[i][1]) for (_, n, _), i in zip(v.cols, idx)], None


def run_view_case(case):
    rng = case.rng
    g = ViewCase(rng)
    for _ in range(rng.randint(1, 2)):
        name = g.fresh("t")
        cols = [Col(g.fresh("c"), rng.choice(TYPES)) for _ in range(rng.randint(2, 3))]
        g.tables[name] = cols
        g.stmt("CREATE TABLE %s (%s) WITH ('connector' = 'filesystem', 'path' = '%s.csv', 'format' = 'csv')"
               % (name, ", ".join("%s %s" % (c.name, c.typ) for c in cols), name))
    for _ in range(rng.randint(1, 3)):
        g.create_view()
    for _ in range(rng.randint(2, 8)):
        if g.error:
            break
        k = rng.random()
        if k < 0.35:
            g.create_view()
        elif k < 0.7:
            g.table_op()
        else:
            g.recreate()
    data = {}
    for name, cols in g.tables.items():
        rows = []
        for r in range(rng.randint(1, 3)):
            rows.append({c.name: value(rng, c.typ, r) for c in cols if not c.computed()})
        data[name] = rows
        with open(case.path("%s.csv" % name), "w") as f:
            for d in rows:
                f.write(",".join(d[c.name] for c in cols if not c.computed()) + "\n")
    want, error = [], g.error
    for name in sorted(g.views) if not error else []:
        out = g.fresh("out")
        g.stmt("CREATE TABLE %s WITH ('connector' = 'print', 'print-identifier' = '%s') AS SELECT * FROM %s"
               % (out, out, name))
        rows, cols, err = g.eval(name, data)
        if not err:
            v = g.views[name]
            for (_, n, t), (_, t2) in zip(v.cols, cols):
                if t != t2:
                    err = "view '%s': column '%s' was %s where the view was created and is %s now" % (name, n, t, t2)
                    break
        if err:
            error = err
            break
        want += ["%s> +I[%s]" % (out, ", ".join(r)) for r in rows]
    case.write("job.sql", "\n".join(g.sql) + "\n")
    case.note = "views: %d statements, %d views%s" % (len(g.sql), len(g.views), ", failing" if error else "")
    case.counts["statements"] += len(g.sql)
    p = case.run_weir(["run", "job.sql", "-D", "parallelism.default=%d" % rng.choice([1, 2, 4])])
    if error:
        case.counts["errors"] += 1
        if p.returncode != 3 or error not in p.stderr:
            return ["want exit 3 with '%s'; got exit %d: %s" % (error, p.returncode, p.stderr.strip()[-500:])]
        return []
    if p.returncode:
        return [diffrun.failed_run(p)]
    printed = [re.sub(r"^([A-Za-z0-9_]+):[0-9]+> ", r"\1> ", line) for line in p.stdout.splitlines() if "> +I[" in line]
    return diffrun.multiset_problems("rows", want, printed)


def run_case(case):
    if case.rng.random() < 0.35:
        return run_view_case(case)
    return run_catalog_case(case)


def run_catalog_case(case):
    rng = case.rng
    g = Gen(rng)
    for _ in range(rng.randint(3, 16)):
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
    g.stmt("SHOW CATALOGS")
    want += tableau(["catalog name"], [[c] for c in sorted(g.cats)])
    g.stmt("SHOW CURRENT CATALOG")
    want += tableau(["current catalog name"], [[g.cur[0]]])
    g.stmt("SHOW CURRENT DATABASE")
    want += tableau(["current database name"], [[g.cur[1]]])
    for c in sorted(g.cats):
        g.stmt("SHOW DATABASES FROM %s" % c)
        want += tableau(["database name"], [[d] for d in sorted(g.cats[c])])
    for c, d in g.all_dbs():
        names = sorted({p[2] for p in g.in_db(c, d, g.tables) + g.in_db(c, d, g.views)})
        views = sorted({p[2] for p in g.in_db(c, d, g.views)})
        if (c, d) == g.cur and rng.random() < 0.5:
            g.stmt("SHOW TABLES")
        else:
            g.stmt("SHOW TABLES %s %s" % (rng.choice(["FROM", "IN"]), g.db_ref(c, d)))
        want += tableau(["table name"], [[n] for n in names])
        g.stmt("SHOW VIEWS FROM %s" % g.db_ref(c, d))
        want += tableau(["view name"], [[n] for n in views])
        pat = rng.choice(["t%", "v%", "%1%", "t_", "%"])
        g.stmt("SHOW TABLES FROM %s LIKE '%s'" % (g.db_ref(c, d), pat))
        want += tableau(["table name"], [[n] for n in names if like(n, pat)])
    rows = []
    for i, path in enumerate(sorted(g.tables)):
        t = g.lookup(path)
        name = g.ref(path)
        g.stmt("DESCRIBE %s" % name)
        want += describe(t)
        g.stmt("SHOW CREATE TABLE %s" % g.ref(path))
        want += show_create(path, t)
        pat = rng.choice(["c%", "k%", "%1%", "_2", "c_", "%", "t%"])
        neg = rng.random() < 0.3
        g.stmt("SHOW COLUMNS FROM %s %sLIKE '%s'" % (g.ref(path), "NOT " if neg else "", pat))
        want += describe(t, lambda n: like(n, pat) != neg)
        # read it: the path of a file written for its physical columns
        t = g.tables[path]
        data = []
        for r in range(rng.randint(1, 3)):
            data.append({c.name: value(rng, c.typ, r) for c in t.cols if not c.computed()})
        fname = "d_%s_%s_%s.csv" % path
        with open(case.path(fname), "w") as f:
            for d in data:
                f.write(",".join(d[c.name] for c in t.cols if not c.computed()) + "\n")
        g.stmt("ALTER TABLE %s SET ('path' = '%s')" % (g.ref(path), fname))
        out = g.fresh("out")
        t = g.lookup(path)
        item, alias = g.from_item(path)
        g.stmt("CREATE TABLE %s WITH ('connector' = 'print', 'print-identifier' = '%s') AS SELECT %s FROM %s"
               % (out, out, g.select_list(path, t, alias), item))
        for d in data:
            vals = []
            for c in t.cols:
                if not c.computed():
                    vals.append(d.get(c.name, "?"))
                elif c.typ == "STRING":
                    vals.append(d.get(c.over, "?").upper())
                else:
                    vals.append(str(int(d.get(c.over, "0")) + 1))
            rows.append("%s> +I[%s]" % (out, ", ".join(vals)))
    case.write("job.sql", "\n".join(g.sql) + "\n")
    case.note = "%d statements, %d catalogs, %d databases, %d tables, %d views" % (
        len(g.sql), len(g.cats), len(g.all_dbs()), len(g.tables), len(g.views))
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
    # "out3:1> +I[...]" at parallelism 2: the subtask is no part of the row
    printed = [re.sub(r"^([A-Za-z0-9_]+):[0-9]+> ", r"\1> ", line) for line in printed]
    return probs + diffrun.multiset_problems("rows", rows, printed)


if __name__ == "__main__":
    sys.exit(diffrun.main("ddl_diff", run_case, jobs_env="WEIR_DDLDIFF_JOBS", jobs=40, asan_jobs=12,
                          one_env="WEIR_DDLDIFF_JOB", out_env="WEIR_DDLDIFF_OUT"))
