#!/usr/bin/env python3
"""The examples of README.md and docs/*.md, checked against the weir command.

Usage: docs_examples.py WEIR_BINARY SOURCE_DIR [FILE...]

Every code block (fenced, or indented by four spaces) is handled by the
first rule below that fits it. The summary prints, per file, how many blocks
were planned (`weir explain`), ran (`weir run`, or a command), compared
(what weir printed against what the docs show) and skipped; every failure
names FILE:LINE. WEIR_DOCS_VERBOSE=1 also lists each skipped block and why.

Markers: an HTML comment right before a block (only blanks between) steers it.
  <!-- docs-test: skip (REASON) -->    not checked; REASON is printed with it
  <!-- docs-test: prelude NAME... -->  tests/docs_preludes/NAME.sql (tables the
                                        block reads but does not define) goes
                                        before the block's statements
  <!-- docs-test: error               the block quotes the error that SCRIPT
  SCRIPT                                causes (`weir explain job.sql` in a
  -- next script                        fresh folder): with one script the
  SCRIPT -->                            block is the message, with several each
                                        line is the message of its script; the
                                        message must match a whole line of
                                        stderr (or all of it), `...` any text;
                                        in a script, `-- args A...` adds
                                        arguments and `-- file F` starts the
                                        text of a file F beside job.sql
  <!-- docs-test: output              the block appears in what
  SCRIPT -->                            `weir run job.sql` prints for SCRIPT
                                        (blanks compared as one)

Rules (a block without a marker):
  1. lang c: skipped, not SQL or a command. lang yaml: skipped, unless its
     first line is `# F.yaml`: then it is the file F.yaml of the commands
     after it (as a sql block the prose tells to "Save this as `F`").
  2. A block with `$ ` lines is a console session. Each `$ weir ...` runs in a
     fresh folder (`cd DIR &&` in front: a copy of the repository's DIR; a
     sql block the prose before it tells to "Save this as `F`" is written
     there as F) and what it prints - standard output, then the log on
     standard error - must be the lines after it: exactly, except that a
     line `...` stands for any lines, `...` within a line for any text, and
     a log line's timestamp and durations (`0.0 s`) for any. A session that
     shows no output is checked as rule 7, and a `weir run F ...` of saved
     files in it is planned (`weir explain F ...`, without the options of a
     restore): no error, no warning.
  3. sql blocks, and unlabelled or sh blocks whose first word starts a SQL
     statement, are SQL (4 - 6); a block of weir commands is rule 7; any
     other block (a layout, a grammar, a diagram, a log) is skipped.
  4. SQL whose every line is `EXPRESSION -- RESULT` lists function examples:
     `SELECT EXPRESSION;` must print RESULT (a quoted 'text' as text,
     TRUE/FALSE as true/false, a trailing "(TYPE)" note dropped).
  5. SQL with `...`, a grammar bracket (` [`) or bar (`|`), or a statement
     that starts with no statement keyword is a fragment: skipped.
  6. Other SQL is planned (`weir explain`) and must plan with no error and
     no warning. A first line `-- PATH` naming a file of the repository: the
     block must be that file (comments and blanks aside). A table the block
     creates but never uses gets a use, so that its options are checked:
     `SELECT * FROM t`, or for a table with 'sink.' options or one that can
     only be written `INSERT INTO t` from a datagen table LIKE it (such a
     block plans with checkpoints on). JAR paths '/opt/udf/F' are the
     build's F. A block that needs a library this weir was built without
     (librdkafka, libpq, ...) is skipped, saying so.
  7. Commands (`weir ...` lines, `\\` continuing, `#` comments, VAR=value
     words in front): each names a command of `weir`, each `--option` is in
     the usage of `weir COMMAND --help`, and each `-D key` is a key weir
     knows (no "unknown configuration key" warning).

  8. Tables: in a row whose first cell is a `weir ...` command, the command
     is checked as in rule 7; in a table whose first column is headed `key`,
     each `dotted.key` of the first column must be a key weir knows. A
     table of connector options after a marker
       <!-- docs-test: options SCRIPT [-- next script SCRIPT] -->
     : each `option` of its first column (a cell that starts with "(" is a
     note), written `, 'option' = '1'` in
     place of @OPTION@ in every SCRIPT, draws no "unsupported option" or
     "unknown option" error.
  9. Inline examples: `F(...)` is `R` (or gives, returns, =; or = R with R
     a bare number or word) anywhere in a file:
     `SELECT F(...);` must print R; one that reads a column (`COT(x)`) or
     names a type (`DECIMAL(5, 2)`) is a schema, skipped.

Environment: WEIR_DOCS_FILES=REGEX checks only the files whose path matches;
WEIR_DOCS_KEEP=1 keeps the work folders (they are kept on a failure);
WEIR_DOCS_TABLES=0 leaves the tables (rule 8) out.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

STATEMENT_WORDS = {
    "CREATE", "INSERT", "SELECT", "WITH", "SET", "RESET", "DROP", "ALTER",
    "EXPLAIN", "SHOW", "DESCRIBE", "DESC", "USE", "EXECUTE", "BEGIN", "VALUES",
    "STOP", "END",
}
MARKER = re.compile(r"<!--\s*docs-test:\s*(\w[\w-]*)(.*?)-->", re.S)
TIMEOUT = 60
TYPE_NAMES = "DECIMAL|DEC|NUMERIC|CHAR|VARCHAR|BINARY|VARBINARY|TIMESTAMP|TIME|TIMESTAMP_LTZ|INTERVAL"


class Block:
    def __init__(self, path, line, lang, text, before):
        self.path = path  # relative to the source folder
        self.line = line  # 1-based line of the opening fence (or first line)
        self.lang = lang
        self.text = text
        self.before = before  # the text between the previous block and this one
        self.marker = None  # (kind, argument text)
        self.counted = set()
        m = None
        for m in MARKER.finditer(before):
            pass
        if m and not before[m.end():].strip():
            self.marker = (m.group(1), textwrap.dedent(m.group(2).strip("\n")).strip())

    def where(self):
        return f"{self.path}:{self.line}"


def dedent(lines):
    ind = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
    return [l[ind:] for l in lines]


def read_blocks(src, rel):
    lines = open(os.path.join(src, rel), encoding="utf-8").read().split("\n")
    blocks, i, last_end = [], 0, 0
    while i < len(lines):
        m = re.match(r"^(\s*)```\s*(\w*)", lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            body = dedent(lines[i + 1:j])
            blocks.append(Block(rel, i + 1, m.group(2), "\n".join(body),
                                "\n".join(lines[last_end:i])))
            i = last_end = j + 1
            continue
        if (lines[i].startswith("    ") and lines[i].strip()
                and (i == 0 or not lines[i - 1].strip())):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            body = lines[i:j]
            while body and not body[-1].strip():
                body.pop()
            blocks.append(Block(rel, i + 1, "", "\n".join(dedent(body)),
                                "\n".join(lines[last_end:i])))
            i = last_end = i + len(body)
            continue
        i += 1
    return blocks


def sql_tokens(text):
    """The tokens of SQL text: comments and blanks do not count."""
    return re.findall(r"'(?:[^']|'')*'|`[^`]*`|\"[^\"]*\"|\w+|\S",
                      strip_sql(text, keep_strings=True))


def strip_sql(text, keep_strings=False):
    """The text with comments removed and string literals and quoted names
    emptied, so that checks for `...` or brackets see only SQL tokens."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*+", i):
            j = text.find("*/", i)
            out.append(" /*+*/ ")
            i = n if j < 0 else j + 2
        elif text.startswith("/*", i):
            j = text.find("*/", i)
            i = n if j < 0 else j + 2
        elif c in "'`\"":
            j = i + 1
            while j < n:
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            out.append(text[i:j + 1] if keep_strings else c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def statements(text):
    """The statements of a script, split at `;` outside strings and comments."""
    bare = strip_sql(text)
    return [s.strip() for s in bare.split(";") if s.strip()]


def first_word(s):
    m = re.match(r"\s*\(*\s*([A-Za-z_]+)", s)
    return m.group(1).upper() if m else ""


def is_sql(block):
    if block.lang == "sql":
        return True
    if block.lang not in ("", "sh", "console"):
        return False
    text = strip_sql(block.text).strip()
    return first_word(text) in STATEMENT_WORDS


def fragment_reason(text):
    bare = strip_sql(text)
    if "..." in bare:
        return "elided (...)"
    if re.search(r"\s\[", bare) or re.search(r"(^|[^|])\|([^|]|$)", bare):
        return "grammar sketch ([ ] or |)"
    for s in statements(text):
        if first_word(s) not in STATEMENT_WORDS:
            return f"not a statement ({s.split()[0]})"
    return None


class Checker:
    def __init__(self, weir, src):
        self.weir = os.path.abspath(weir)
        self.src = os.path.abspath(src)
        self.build = os.path.dirname(self.weir)
        self.keep = os.environ.get("WEIR_DOCS_KEEP") == "1"
        self.root = tempfile.mkdtemp(prefix="weir-docs-")
        self.seq = 0
        self.failures = []
        self.counts = {}
        self.skips = []
        self.saved = {}  # file name -> (text, block), per docs file ("Save this as")
        self.helps = {}  # weir SUB --help, by SUB

    def count(self, block, what):
        """Notes that the block was planned, ran, compared or skipped (once
        each, however many commands it took)."""
        c = self.counts.setdefault(block.path, {"blocks": 0, "planned": 0, "ran": 0,
                                                "compared": 0, "skipped": 0})
        if what not in block.counted:
            block.counted.add(what)
            c[what] += 1

    def fail(self, block, msg):
        self.failures.append(f"{block.where()}: {msg}")

    def skip(self, block, reason):
        self.count(block, "skipped")
        self.skips.append(f"{block.where()}: {reason}")

    def workdir(self):
        self.seq += 1
        d = os.path.join(self.root, f"b{self.seq}")
        os.makedirs(d)
        return d

    def weir_cmd(self, args, cwd):
        env = dict(os.environ, WEIR_REGISTRY_DIR=os.path.join(self.root, "reg"))
        p = subprocess.run([self.weir] + args, cwd=cwd, capture_output=True, text=True,
                           timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr

    def fix_paths(self, sql):
        return re.sub(r"'/opt/udf/([\w.-]+)'",
                      lambda m: "'" + os.path.join(self.build, m.group(1)) + "'", sql)

    def prelude(self, names):
        out = []
        for name in names:
            p = os.path.join(self.src, "tests", "docs_preludes", name + ".sql")
            out.append(self.fix_paths(open(p, encoding="utf-8").read()))
        return "\n".join(out)

    # -- rule 6: plan a complete SQL block ------------------------------------
    def plan(self, block, sql, prelude_names):
        m = re.match(r"--\s*(\S+\.sql)\s*\n", sql)
        if m and os.path.isfile(os.path.join(self.src, m.group(1))):
            want = open(os.path.join(self.src, m.group(1)), encoding="utf-8").read()
            a, b = sql_tokens(sql), sql_tokens(want)
            if a != b:
                k = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                self.fail(block, f"differs from {m.group(1)} (comments and blanks aside) at token"
                          f" {k + 1}: the docs have {' '.join(a[k:k + 6])!r}, the file"
                          f" {' '.join(b[k:k + 6])!r}")
        body = self.fix_paths(sql)
        stmts = statements(body)
        uses_query = any(first_word(s) in ("INSERT", "SELECT", "WITH", "EXECUTE", "BEGIN")
                         for s in stmts)
        created = []
        for s in stmts:
            c = re.match(r"CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
                         r"([\w.`]+)", s, re.I)
            if c:
                created.append(c.group(1))
        bare = strip_sql(body)
        probes = {}
        for t in created:
            pos = [m.end() for m in re.finditer(r"TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
                                                 + re.escape(t) + r"\b", bare, re.I)]
            rest = bare[pos[0]:] if pos else ""
            if not re.search(r"\b" + re.escape(t) + r"\b", rest):
                # a table with sink options is written, any other one read
                opts = re.search(r"TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?" + re.escape(t) + r"\b.*?;",
                                 body + ";", re.I | re.S)
                probes[t] = "sink" if opts and "'sink." in opts.group(0) else "source"
        extra_args = []
        if probes and not uses_query:
            extra_args = ["-D", "execution.checkpointing.interval=10s",
                          "-D", "state.checkpoints.dir=" + os.path.join(self.root, "ckpt")]
        pre = self.prelude(prelude_names)
        for _ in range(len(probes) + 1):
            script = pre + "\n" + body.rstrip()
            if not script.rstrip().endswith(";"):
                script += ";"
            for t, kind in probes.items():
                if kind == "source":
                    script += f"\nSELECT * FROM {t};"
                else:
                    src = t.strip("`") + "__docs_src"
                    script += (f"\nCREATE TEMPORARY TABLE `{src}` WITH ('connector' = 'datagen',"
                               f" 'number-of-rows' = '1') LIKE {t} (EXCLUDING ALL);"
                               f"\nINSERT INTO {t} SELECT * FROM `{src}`;")
            d = self.workdir()
            with open(os.path.join(d, "job.sql"), "w", encoding="utf-8") as f:
                f.write(script)
            rc, out, err = self.weir_cmd(["explain", "job.sql"] + extra_args, d)
            sink_only = re.search(r"table '([^']+)': (connector '[\w-]+' can only be written to"
                                  r"|unsupported connector '[\w-]+' as a source)", err)
            if rc != 0 and sink_only:
                name = sink_only.group(1)
                hit = [t for t in probes if t.strip("`") == name and probes[t] == "source"]
                if hit:
                    probes[hit[0]] = "sink"
                    continue
            break
        missing = re.search(r"is not built into this weir|built without (lib\w+)", err)
        if rc != 0 and missing:
            self.skip(block, "this weir lacks a library: " + err.strip())
            return
        self.count(block, "planned")
        if rc != 0 or "warning" in err:
            line_map = pre.count("\n") + 1
            self.fail(block, f"does not plan (exit {rc}; the block's lines start at job.sql line "
                      f"{line_map + 1}):\n    " + err.strip().replace("\n", "\n    ")
                      + f"\n    (script: {os.path.join(d, 'job.sql')})")

    # -- rule 4: function examples with their results ---------------------------
    def expressions(self, block):
        lines = [l for l in block.text.split("\n") if l.strip()]
        pairs = []
        for l in lines:
            m = re.match(r"(.*?)\s+--\s+(.*)$", l)
            if not m:
                return False
            pairs.append((m.group(1).strip(), m.group(2).strip()))
        ok = True
        for k, (expr, want) in enumerate(pairs):
            want = re.sub(r"\s*\([A-Z]+\)$", "", want)
            if len(want) >= 2 and want[0] == "'" and want[-1] == "'":
                want = want[1:-1].replace("''", "'")
            elif want in ("TRUE", "FALSE", "NULL"):
                want = want.lower() if want != "NULL" else "NULL"
            d = self.workdir()
            with open(os.path.join(d, "job.sql"), "w", encoding="utf-8") as f:
                f.write(f"SELECT {expr};\n")
            rc, out, err = self.weir_cmd(["run", "job.sql", "-D", "rest.enabled=false"], d)
            got = out.strip()
            if rc != 0 or got != f"+I[{want}]":
                ok = False
                self.fail(block, f"line {block.line + 1 + k}: {expr} printed "
                          f"{got or err.strip()!r}, the docs say +I[{want}]")
        self.count(block, "ran")
        self.count(block, "compared")
        return ok

    # -- rule 2: console sessions ----------------------------------------------
    def console(self, block):
        lines = block.text.split("\n")
        sessions, cur = [], None
        for l in lines:
            if l.startswith("$ "):
                cur = [l[2:], []]
                sessions.append(cur)
            elif cur is not None:
                cur[1].append(l)
        if not any(out for _, out in sessions):
            self.commands(block)  # nothing to compare: the command line is checked
            for cmd, _ in sessions:
                self.plan_command(block, cmd)
            return
        for cmd, want in sessions:
            d = self.workdir()
            for name, (text, _) in self.saved.items():
                with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                    f.write(text)
            m = re.match(r"cd\s+(\S+)\s*&&\s*(.*)$", cmd)
            cwd = d
            if m:
                rel = m.group(1)
                if not os.path.isdir(os.path.join(self.src, rel)):
                    self.fail(block, f"no folder {rel} in the repository")
                    continue
                cwd = os.path.join(d, rel)
                shutil.copytree(os.path.join(self.src, rel), cwd)
                cmd = m.group(2)
            words = cmd.split()
            if not words or not re.match(r"^(\S*/)?weir$", words[0]):
                self.fail(block, f"not a weir command: {cmd}")
                continue
            args = words[1:]
            if args and args[0] == "run":
                args += ["-D", "rest.enabled=false"]
            rc, out, err = self.weir_cmd(args, cwd)
            self.count(block, "ran")
            problem = match_lines(want, printed(out, err))
            if rc != 0:
                problem = f"exit {rc}: {err.strip()}"
            if problem:
                self.fail(block, f"$ {cmd}: {problem}")
        self.count(block, "compared")

    def plan_command(self, block, cmd):
        """`weir run F ...` of saved files: `weir explain F ...` must plan
        with no error or warning."""
        words = cmd.split()
        if len(words) < 3 or not re.match(r"^(\S*/)?weir$", words[0]) or words[1] != "run":
            return
        args, i, used = ["explain"], 2, []
        while i < len(words):
            w = words[i]
            if w in ("--fresh", "--allow-non-restored-state", "--drain-on-stop"):
                i += 1
                continue
            if w == "--from":
                i += 2
                continue
            args.append(w)
            i += 1
        files = [a for a in args[1:] if not a.startswith("-") and "=" not in a]
        if not all(f in self.saved for f in files):
            return
        d = self.workdir()
        for name, (text, _) in self.saved.items():
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(text)
        rc, out, err = self.weir_cmd(args, d)
        for f in files:
            self.count(self.saved[f][1], "planned")
        self.count(block, "planned")
        if rc != 0 or "warning" in err:
            self.fail(block, f"$ {cmd}: weir {' '.join(args)} exits {rc}: {err.strip()}")

    # -- rule 7: commands whose output is not shown --------------------------------
    def help_of(self, sub):
        if sub not in self.helps:
            rc, out, err = self.weir_cmd([sub, "--help"], self.root)
            self.helps[sub] = (out + err) if rc == 0 else None
        return self.helps[sub]

    def check_command(self, where, args):
        """Checks one weir command line (its arguments): the command exists
        and has each --option; returns the -D keys it sets."""
        keys = []
        sub = args[0] if args else ""
        if sub.startswith("-"):  # weir --version
            if not re.search(r"(^|\s)" + re.escape(sub) + r"\b", self.help_of("--help") or ""):
                self.failures.append(f"{where}: weir has no option {sub}")
            return keys
        if sub.isupper():  # weir COMMAND --help
            return keys
        text = self.help_of(sub)
        if text is None:
            self.failures.append(f"{where}: weir has no command {sub!r}")
            return keys
        usage = text.split("\n\n")[0]
        for k, a in enumerate(args[1:], 1):
            a = a.strip("[]|.")
            if a.startswith("--") and not re.search(re.escape(a) + r"\b", usage):
                self.failures.append(f"{where}: weir {sub} has no option {a} (weir {sub} --help)")
            if a == "-D" and k + 1 < len(args):
                keys.append(args[k + 1].split("=", 1)[0])
        return keys

    def commands(self, block):
        keys = []
        for args in commands_of(block.text):
            keys += self.check_command(block.where(), args)
        if keys:
            d = self.workdir()
            with open(os.path.join(d, "job.sql"), "w", encoding="utf-8") as f:
                f.write("SELECT 1;\n")
            argv = ["explain", "job.sql"]
            for key in keys:
                argv += ["-D", key + "=1"]
            rc, out, err = self.weir_cmd(argv, d)
            for m in re.finditer(r"-D (\S+): unknown configuration key.*", err):
                self.fail(block, m.group(0))
        self.count(block, "compared")

    # -- markers error / output ---------------------------------------------------
    def scripts_of(self, arg):
        return [s.strip("\n") + "\n" for s in re.split(r"^-- next script\s*$", arg, flags=re.M)
                if s.strip()]

    def error(self, block, arg):
        scripts = self.scripts_of(arg)
        want_lines = [l for l in block.text.split("\n") if l.strip()]
        if len(scripts) > 1 and len(scripts) != len(want_lines):
            self.fail(block, f"{len(scripts)} scripts for {len(want_lines)} lines")
            return
        wants = want_lines if len(scripts) > 1 else [" ".join(want_lines)]
        for k, (script, want) in enumerate(zip(scripts, wants)):
            d = self.workdir()
            # "-- file NAME" starts another file of the folder, "-- args A..."
            # adds arguments to the command
            parts = re.split(r"^-- file (\S+)\s*$", script, flags=re.M)
            args = []
            for m in re.finditer(r"^-- args (.*)$", parts[0], re.M):
                args += m.group(1).split()
            files = {"job.sql": parts[0]}
            files.update(zip(parts[1::2], parts[2::2]))
            for name, text in files.items():
                with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                    f.write(self.fix_paths(text.lstrip("\n")))
            rc, out, err = self.weir_cmd(["explain", "job.sql"] + args, d)
            self.count(block, "ran")
            pattern = wildcard(" ".join(want.split()))
            said = [" ".join(err.split())] + [" ".join(l.split()) for l in err.split("\n")]
            if rc == 0 or not any(pattern.fullmatch(l) for l in said):
                self.fail(block, f"line {block.line + 1 + k if len(scripts) > 1 else block.line}:"
                          f" the docs say\n    {want}\n  weir says (exit {rc})\n    {err.strip()}")
        self.count(block, "compared")

    def restore_error(self, block, arg):
        scripts = self.scripts_of(arg)
        if len(scripts) != 2:
            self.fail(block, "a restore-error marker needs two scripts")
            return
        d = self.workdir()
        job = os.path.join(d, "job.sql")
        for k, script in enumerate(scripts):
            with open(job, "w", encoding="utf-8") as f:
                f.write(self.fix_paths(script))
            rc, out, err = self.weir_cmd(["run", "job.sql", "-D", "rest.enabled=false"], d)
            if k == 0 and rc != 0:
                self.fail(block, f"the first script exits {rc}: {err.strip()}")
                return
        self.count(block, "ran")
        self.count(block, "compared")

        def norm(text):
            return re.sub(r"chk-\d+", "chk-N", unvarying(" ".join(text.split())))

        pattern = wildcard(norm(block.text))
        if rc == 0 or not any(pattern.fullmatch(norm(l)) for l in err.split("\n")):
            self.fail(block, f"the docs say\n    {block.text}\n  weir says (exit {rc})\n"
                      f"    {err.strip()}")

    def output(self, block, arg):
        d = self.workdir()
        with open(os.path.join(d, "job.sql"), "w", encoding="utf-8") as f:
            f.write(self.fix_paths(arg.strip("\n") + "\n"))
        rc, out, err = self.weir_cmd(["run", "job.sql", "-D", "rest.enabled=false"], d)
        self.count(block, "ran")
        problem = None
        if " ".join(block.text.split()) not in " ".join(out.split()):
            problem = f"the docs show\n    {block.text}\n  weir prints\n    {out.strip()}"
        if rc != 0:
            problem = f"exit {rc}: {err.strip()}"
        if problem:
            self.fail(block, problem)
        self.count(block, "compared")

    # -- one block ------------------------------------------------------------------
    def check(self, block):
        self.count(block, "blocks")
        m = re.search(r"[Ss]ave this as `([\w.-]+)`", block.before)
        if m and block.lang == "sql":
            self.saved[m.group(1)] = (block.text + "\n", block)
        m = re.match(r"#\s*([\w-]+\.ya?ml)\s*\n", block.text)
        if m and block.lang == "yaml":
            self.saved[m.group(1)] = (block.text + "\n", block)
            self.count(block, "blocks")
            return
        prelude_names = []
        if block.marker:
            kind, arg = block.marker
            if kind == "skip":
                if not re.match(r"\(.+\)", arg):
                    self.fail(block, "a skip marker needs a (reason)")
                self.skip(block, "marker: " + arg)
                return
            if kind == "error":
                self.error(block, arg)
                return
            if kind == "output":
                self.output(block, arg)
                return
            if kind == "restore-error":
                self.restore_error(block, arg)
                return
            if kind == "prelude":
                prelude_names = arg.split()
            else:
                self.fail(block, f"unknown docs-test marker {kind!r}")
                return
        if block.lang in ("c", "yaml"):
            self.skip(block, f"rule 1: {block.lang}, not SQL or a command")
            return
        if re.search(r"^\$ ", block.text, re.M):
            self.console(block)
            return
        if commands_of(block.text):
            self.commands(block)
            return
        if not is_sql(block):
            self.skip(block, "rule 3: not SQL, no `$ ` command")
            return
        if (first_word(strip_sql(block.text)) not in STATEMENT_WORDS
                and all(re.search(r"\S\s+--\s+\S", l) for l in block.text.split("\n") if l.strip())):
            self.expressions(block)
            return
        reason = fragment_reason(block.text)
        if reason:
            self.skip(block, "rule 5: " + reason)
            return
        self.plan(block, block.text, prelude_names)

    # -- rule 8: tables of configuration keys and of commands ------------------
    def tables(self, rel):
        """Checks the tables of a docs file; returns how many rows it read."""
        lines = open(os.path.join(self.src, rel), encoding="utf-8").read().split("\n")
        keys, rows = [], 0
        for i, line in enumerate(lines):
            if not re.match(r"^\|\s*`weir ", line):
                continue
            rows += 1
            cell = line.split(" | ")[0].replace("\\|", "|")
            for code in re.findall(r"`(weir [^`]*)`", cell):
                self.check_command(f"{rel}:{i + 1}", code.split()[1:])
        i = 0
        while i < len(lines):
            head = [c.strip() for c in lines[i].strip("|").split("|")]
            if (lines[i].startswith("|") and head[0] == "key" and i + 1 < len(lines)
                    and re.match(r"^\|[\s:|-]+$", lines[i + 1])):
                i += 2
                while i < len(lines) and lines[i].startswith("|"):
                    cell = lines[i].strip("|").split("|")[0]
                    for key in re.findall(r"`([a-z][\w-]*(?:\.[\w-]+)+)`", cell):
                        keys.append((f"{rel}:{i + 1}", key))
                    rows += 1
                    i += 1
            i += 1
        text = "\n".join(lines)
        for m in MARKER.finditer(text):
            if m.group(1) != "options":
                continue
            line = text.count("\n", 0, m.end()) + 1  # 0-based index of the line after it
            while line < len(lines) and not lines[line].strip():
                line += 1
            if line >= len(lines) or not lines[line].startswith("|"):
                self.failures.append(f"{rel}:{line}: an options marker not before a table")
                continue
            rows += self.options(rel, lines, line, textwrap.dedent(m.group(2).strip("\n")))
        if keys:
            d = self.workdir()
            with open(os.path.join(d, "job.sql"), "w", encoding="utf-8") as f:
                f.write("SELECT 1;\n")
            argv = ["explain", "job.sql"]
            for _, key in keys:
                argv += ["-D", key + "=1"]
            rc, out, err = self.weir_cmd(argv, d)
            if rc != 0:  # a value weir refuses: each key alone
                err = "\n".join(self.weir_cmd(["explain", "job.sql", "-D", key + "=1"], d)[2]
                                 for _, key in keys)
            for where, key in keys:
                m = re.search(r"-D " + re.escape(key) + r": unknown configuration key.*", err)
                if m:
                    self.failures.append(f"{where}: {key} is not a key weir knows: {m.group(0)}")
        return rows

    # -- rule 9: inline function examples ------------------------------------------
    def inline(self, rel):
        """`F(...)` is `R` in prose or a table: SELECT F(...) prints R.
        Returns how many were compared."""
        text = open(os.path.join(self.src, rel), encoding="utf-8").read()
        n = 0
        for m in re.finditer(r"`([A-Z][A-Z0-9_]*\([^`]*\))` (?:(?:is|gives|returns|=) `([^`]*)`"
                             r"|= (-?[\w.]*\w)\b)", text):
            call, want = m.group(1), m.group(2) if m.group(2) is not None else m.group(3)
            where = f"{rel}:{text.count(chr(10), 0, m.start()) + 1}"
            d = self.workdir()
            with open(os.path.join(d, "job.sql"), "w", encoding="utf-8") as f:
                f.write(f"SELECT {call};\n")
            rc, out, err = self.weir_cmd(["run", "job.sql", "-D", "rest.enabled=false"], d)
            if rc != 0 and re.search(r"unknown column|no function (" + TYPE_NAMES + r")\(", err):
                self.skips.append(f"{where}: rule 9: {call} is a schema, not a value")
                continue
            n += 1
            if rc != 0 or out.strip() != f"+I[{want}]":
                self.failures.append(f"{where}: {call} printed {out.strip() or err.strip()!r},"
                                     f" the docs say {want!r}")
        return n

    def options(self, rel, lines, first, arg):
        """A table of connector options (the one at lines[first]): each
        option of its first column must be one the scripts of the marker take
        (no "unsupported option" error when `, 'KEY' = '1'` replaces their
        @OPTION@)."""
        scripts = self.scripts_of(arg)
        d = self.workdir()
        job = os.path.join(d, "job.sql")

        def plan(script, option):
            with open(job, "w", encoding="utf-8") as f:
                f.write(script.replace("@OPTION@", option))
            return self.weir_cmd(["explain", "job.sql"], d)

        refused = r"(unsupported|unknown) option '%s'.*"
        for script in scripts:
            rc, out, err = plan(script, "")
            if rc != 0:
                self.failures.append(f"{rel}:{first + 1}: the options marker's script does not "
                                     f"plan: {err.strip()}")
                return 0
            # the check below must see an option weir does not have
            rc, out, err = plan(script, ", 'docs-test.no-such-option' = '1'")
            if not re.search(refused % "docs-test.no-such-option", err):
                self.failures.append(f"{rel}:{first + 1}: an unknown option is not refused as "
                                     f"the test expects: {err.strip()}")
                return 0
        rows, i = 0, first + 2
        while i < len(lines) and lines[i].startswith("|"):
            cell = lines[i].strip("|").split("|")[0]
            if cell.strip().startswith("("):  # a note, as "(`group-offsets` bound)"
                cell = ""
            for key in re.findall(r"`([a-z][\w.-]*)`", cell):
                for script in scripts:
                    rc, out, err = plan(script, f", '{key}' = '1'")
                    m = re.search(refused % re.escape(key), err)
                    if m:
                        self.failures.append(f"{rel}:{i + 1}: option {key}: {m.group(0)}")
            rows += 1
            i += 1
        return rows

    def close(self):
        if self.keep or self.failures:
            print(f"work folders kept in {self.root}")
        else:
            shutil.rmtree(self.root, ignore_errors=True)


LOG_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ")
DURATION = re.compile(r"\b\d+\.\d s\b")


def printed(out, err):
    """What a command printed: standard output, then its log (standard
    error), as the docs show a run."""
    return [l for l in (out + err).rstrip("\n").split("\n")] if (out + err).strip() else []


def unvarying(line):
    """A line with what differs from run to run made equal: the log's
    timestamp and durations in seconds."""
    return DURATION.sub("N.N s", LOG_TIME.sub("TIME ", line.rstrip()))


def commands_of(text):
    """The arguments of each `weir ...` command of a block of commands
    (after a `$ ` prompt or not, `\\` continuing a line, `#` a comment,
    VAR=value words in front skipped); [] when a line is no weir command."""
    out = []
    for line in re.sub(r"\\\n", " ", text).split("\n"):
        line = re.sub(r"(^|\s)#.*", "", line).strip()
        if line.startswith("$ "):
            line = line[2:]
        if not line:
            continue
        words = line.split()
        while words and re.match(r"^[A-Z_]+=", words[0]):
            words.pop(0)
        if not words or not re.match(r"^(\S*/)?weir$", words[0]):
            return []
        out.append(words[1:])
    return out


def wildcard(text):
    return re.compile(".*?".join(re.escape(p) for p in text.split("...")), re.S)


def match_lines(want, got):
    """None when the printed lines `got` are those the docs show (`want`),
    else what differs. A line `...` in `want` stands for any lines, and `...`
    within a line for any text."""
    want = [w.rstrip() for w in want]
    while want and not want[-1]:
        want.pop()

    def rec(i, j):
        if i == len(want):
            return j == len(got)
        if want[i].strip() == "...":
            return any(rec(i + 1, k) for k in range(j, len(got) + 1))
        if j < len(got) and wildcard(unvarying(want[i])).fullmatch(unvarying(got[j])):
            return rec(i + 1, j + 1)
        return False

    if rec(0, 0):
        return None
    shown = "\n      ".join(got[:20]) + ("\n      ..." if len(got) > 20 else "")
    return ("the output differs from the docs:\n    docs:\n      " + "\n      ".join(want)
            + "\n    weir:\n      " + shown)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    weir, src = sys.argv[1], sys.argv[2]
    files = sys.argv[3:] or (["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(src, "docs"))
        if f.endswith(".md")))
    only = os.environ.get("WEIR_DOCS_FILES")
    if only:
        files = [f for f in files if re.search(only, f)]
    ck = Checker(weir, src)
    try:
        for rel in files:
            ck.saved = {}
            for b in read_blocks(src, rel):
                try:
                    ck.check(b)
                except subprocess.TimeoutExpired:
                    ck.fail(b, f"timed out after {TIMEOUT} s")
        tables = os.environ.get("WEIR_DOCS_TABLES", "1") != "0"
        table_rows = {rel: ck.tables(rel) if tables else 0 for rel in files}
        inline = {rel: ck.inline(rel) for rel in files}
    finally:
        ck.close()
    print(f"{'file':24} {'blocks':>6} {'planned':>7} {'ran':>4} {'compared':>8} {'skipped':>7}"
          f" {'table rows':>10} {'inline':>6}")
    tot = {k: 0 for k in ("blocks", "planned", "ran", "compared", "skipped")}
    for rel in files:
        c = ck.counts.get(rel, {k: 0 for k in tot})
        for k in tot:
            tot[k] += c[k]
        print(f"{rel:24} {c['blocks']:6} {c['planned']:7} {c['ran']:4} {c['compared']:8}"
              f" {c['skipped']:7} {table_rows[rel]:10} {inline[rel]:6}")
    print(f"{'total':24} {tot['blocks']:6} {tot['planned']:7} {tot['ran']:4}"
          f" {tot['compared']:8} {tot['skipped']:7} {sum(table_rows.values()):10}"
          f" {sum(inline.values()):6}")
    print("table rows: `weir` commands, configuration keys and connector options checked;"
          " inline: `F(...)` is `R` examples compared")
    if os.environ.get("WEIR_DOCS_VERBOSE") == "1":
        print("skipped:\n  " + "\n  ".join(ck.skips))
    for f in ck.failures:
        print("FAIL " + f)
    print(f"{len(ck.failures)} failures")
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
