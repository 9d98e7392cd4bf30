/*
 * tests/test_planner_fuzz.c - mutation fuzzing of the planner.
 *
 * The libFuzzer target (fuzz/sql_fuzz.c) covers the parser; this covers
 * what comes after it. Every SQL script the suite already has (the golden
 * cases, the examples, the Nexmark queries with their DDL) is cut into
 * tokens and mutated a few tokens at a time: a token deleted, repeated,
 * swapped with another, or replaced by a token of the same script or of a
 * list of keywords, functions and literals. Most mutants still parse, so
 * they reach name resolution, typing, window and join planning, changelog
 * checks and the job graph. Each mutant is planned (never run): it must
 * either plan - and then explain - or fail with WEIR_EPARSE / WEIR_EPLAN /
 * WEIR_EUNSUPPORTED... and a "FILE:LINE:COL: error: " message that points
 * into the script. Memory errors, leaks and undefined behaviour are left to
 * the sanitizers (the suite runs under ASan+UBSan in CI).
 *
 * WEIR_FUZZ_SEED replays a run; WEIR_FUZZ_ITERS sets the number of mutants
 * (default 20000); WEIR_FUZZ_VERBOSE=1 prints every refusal. A failure
 * prints the mutant.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "weir/planner.h"

typedef struct tok {
    const char *p;
    size_t n;
} tok;

typedef struct script {
    char *text;
    size_t len;
    tok *toks;
    size_t n_toks;
    char name[256];
} script;

static script *g_scripts;
static size_t g_n_scripts;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    size_t got = fread(s, 1, (size_t)n, f);
    fclose(f);
    s[got] = '\0';
    *len = got;
    return s;
}

/* Tokens as a SQL lexer sees them, near enough: words, numbers, quoted
 * strings and identifiers, comments skipped, every other byte alone. */
static void tokenize(script *s)
{
    size_t cap = 256;
    s->toks = malloc(cap * sizeof *s->toks);
    cr_assert_not_null(s->toks);
    const char *p = s->text, *end = s->text + s->len;
    while (p < end) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (p + 1 < end && p[0] == '-' && p[1] == '-') {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        const char *q = p + 1;
        if (isalnum((unsigned char)*p) || *p == '_') {
            while (q < end && (isalnum((unsigned char)*q) || *q == '_' || *q == '.'))
                q++;
        } else if (*p == '\'' || *p == '`' || *p == '"') {
            while (q < end && *q != *p)
                q++;
            if (q < end)
                q++;
        } else if ((*p == '<' || *p == '>' || *p == '!' || *p == '=' || *p == '|') && q < end &&
                   (*q == '=' || *q == '>' || *q == '|')) {
            q++;
        }
        if (s->n_toks == cap) {
            cap *= 2;
            s->toks = realloc(s->toks, cap * sizeof *s->toks);
            cr_assert_not_null(s->toks);
        }
        s->toks[s->n_toks++] = (tok){p, (size_t)(q - p)};
        p = q;
    }
}

static void add_script(char *text, size_t len, const char *name)
{
    g_scripts = realloc(g_scripts, (g_n_scripts + 1) * sizeof *g_scripts);
    cr_assert_not_null(g_scripts);
    script *s = &g_scripts[g_n_scripts++];
    memset(s, 0, sizeof *s);
    s->text = text;
    s->len = len;
    snprintf(s->name, sizeof s->name, "%s", name);
    tokenize(s);
}

/* Every DIR/<case>/job.sql. */
static void add_cases(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s/job.sql", dir, e->d_name);
        size_t len;
        char *t = slurp(path, &len);
        if (t)
            add_script(t, len, path);
    }
    closedir(d);
}

/* The Nexmark DDL's ${NAME} placeholders, as bench/run_nexmark.sh fills them. */
static char *substitute(char *text, size_t *len)
{
    static const char *const vars[][2] = {
        {"${TPS}", "10000000"},        {"${EVENTS_NUM}", "100000"},      {"${PERSON_PROPORTION}", "1"},
        {"${AUCTION_PROPORTION}", "3"}, {"${BID_PROPORTION}", "46"},
    };
    for (size_t v = 0; v < sizeof vars / sizeof *vars; v++) {
        char *at;
        while ((at = strstr(text, vars[v][0]))) {
            size_t kl = strlen(vars[v][0]), vl = strlen(vars[v][1]), off = (size_t)(at - text);
            char *t = malloc(*len - kl + vl + 1);
            cr_assert_not_null(t);
            memcpy(t, text, off);
            memcpy(t + off, vars[v][1], vl);
            memcpy(t + off + vl, at + kl, *len - off - kl + 1);
            free(text);
            text = t;
            *len = *len - kl + vl;
        }
    }
    return text;
}

/* The Nexmark queries, each after the DDL that declares its tables. */
static void add_nexmark(const char *dir)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/ddl.sql", dir);
    size_t dlen;
    char *ddl = slurp(path, &dlen);
    if (!ddl)
        return;
    ddl = substitute(ddl, &dlen);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] != 'q' || !strstr(e->d_name, ".sql"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t qlen;
        char *q = slurp(path, &qlen);
        cr_assert_not_null(q);
        char *t = malloc(dlen + qlen + 2);
        cr_assert_not_null(t);
        memcpy(t, ddl, dlen);
        t[dlen] = '\n';
        memcpy(t + dlen + 1, q, qlen);
        t[dlen + qlen + 1] = '\0';
        free(q);
        add_script(t, dlen + qlen + 1, path);
    }
    closedir(d);
    free(ddl);
}

static uint64_t g_rng;

static uint64_t rnd(void)
{
    /* splitmix64: replayable from the printed seed */
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const char *const k_words[] = {
    "SELECT", "FROM", "WHERE", "GROUP", "BY", "HAVING", "JOIN", "LEFT", "FULL", "ON", "AND", "OR", "NOT",
    "NULL", "AS", "CAST", "BIGINT", "STRING", "INT", "DOUBLE", "DECIMAL(10, 2)", "TIMESTAMP(3)",
    "TIMESTAMP_LTZ(3)", "BOOLEAN", "COUNT(*)", "COUNT(DISTINCT", "SUM(", "MIN(", "MAX(", "AVG(",
    "FIRST_VALUE(", "LAST_VALUE(", "TUMBLE(", "HOP(", "CUMULATE(", "SESSION(", "TABLE", "DESCRIPTOR(",
    "INTERVAL '1' SECOND", "INTERVAL '0' SECOND", "INTERVAL '-5' MINUTE", "window_start", "window_end",
    "window_time", "ROW_NUMBER()", "OVER (", "PARTITION BY", "ORDER BY", "DESC", "UNION ALL", "DISTINCT",
    "CASE WHEN", "THEN", "ELSE", "END", "IS NULL", "BETWEEN", "IN (", "LIKE", "FILTER (WHERE",
    "PROCTIME()", "CURRENT_WATERMARK(", "TO_TIMESTAMP_LTZ(", "0", "1", "-1", "9223372036854775807",
    "1e308", "'x'", "''", "TRUE", "(", ")", ",", ";", "*", "+", "-", "/", "%", "=", "<>", "<", ">=", ".",
    "INSERT INTO", "CREATE TABLE", "CREATE VIEW", "WITH", "WATERMARK FOR", "PRIMARY KEY", "SET",
    "EXPLAIN", "'connector'", "'blackhole'", "'print'", "'datagen'", "rn", "rownum", "ts", "rowtime",
};

static bool is_word(const tok *t) { return isalpha((unsigned char)t->p[0]) || t->p[0] == '_'; }
static bool is_number(const tok *t) { return isdigit((unsigned char)t->p[0]); }

/* A token of the script like t (a word for a word, a number for a number). */
static tok same_kind(const script *s, const tok *t)
{
    for (int tries = 0; tries < 32; tries++) {
        const tok *c = &s->toks[rnd() % s->n_toks];
        if (is_word(c) == is_word(t) && is_number(c) == is_number(t) && c->p[0] != ';')
            return *c;
    }
    return *t;
}

/* Where the queries start: the first INSERT or EXECUTE (the DDL before it
 * is mutated less often, so that most mutants still declare their tables). */
static size_t query_start(const script *s)
{
    for (size_t i = 0; i < s->n_toks; i++)
        if ((s->toks[i].n == 6 && !strncasecmp(s->toks[i].p, "INSERT", 6)) ||
            (s->toks[i].n == 7 && !strncasecmp(s->toks[i].p, "EXECUTE", 7)))
            return i;
    return 0;
}

/* One mutant of s into out (malloc'd, NUL-terminated). */
static char *mutate(const script *s, size_t *out_len)
{
    size_t n = s->n_toks;
    tok *t = malloc((n + 8) * sizeof *t);
    cr_assert_not_null(t);
    memcpy(t, s->toks, n * sizeof *t);
    uint64_t r = rnd() % 10;
    int edits = r < 7 ? 1 : r < 9 ? 2 : 3;
    size_t from = rnd() % 8 ? query_start(s) : 0;
    for (int k = 0; k < edits && n > from + 1; k++) {
        size_t i = from + rnd() % (n - from), j = from + rnd() % (n - from);
        switch (rnd() % 8) {
        case 0: /* delete */
            memmove(&t[i], &t[i + 1], (n - i - 1) * sizeof *t);
            n--;
            break;
        case 1: /* repeat */
            memmove(&t[i + 1], &t[i], (n - i) * sizeof *t);
            n++;
            break;
        case 2: { /* swap */
            tok x = t[i];
            t[i] = t[j];
            t[j] = x;
            break;
        }
        case 3: /* a word from the list */
        case 4: {
            const char *w = k_words[rnd() % (sizeof k_words / sizeof *k_words)];
            tok x = {w, strlen(w)};
            if (rnd() % 2) {
                t[i] = x;
            } else { /* inserted */
                memmove(&t[i + 1], &t[i], (n - i) * sizeof *t);
                t[i] = x;
                n++;
            }
            break;
        }
        default: /* a token of the same kind from the script (a name for a name) */
            t[i] = same_kind(s, &t[i]);
            break;
        }
    }
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += t[i].n + 1;
    char *o = malloc(len + 1);
    cr_assert_not_null(o);
    char *w = o;
    for (size_t i = 0; i < n; i++) {
        memcpy(w, t[i].p, t[i].n);
        w += t[i].n;
        /* keep line structure roughly: a newline after ';' */
        *w++ = t[i].n == 1 && t[i].p[0] == ';' ? '\n' : ' ';
    }
    *w = '\0';
    free(t);
    *out_len = (size_t)(w - o);
    return o;
}

/* The error contract: "mutant.sql:LINE:COL: error: " inside the script. */
static void check_error(const char *text, size_t len, int rc, const weir_error *err)
{
    cr_assert(rc < 0, "error code %d", rc);
    unsigned line = 0, col = 0;
    int used = 0;
    int got = sscanf(err->message, "mutant.sql:%u:%u: error: %n", &line, &col, &used);
    cr_assert(got == 2 && used > 0, "the message does not start with FILE:LINE:COL: error:\n%s\n--- script:\n%s",
              err->message, text);
    unsigned lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    cr_assert(line >= 1 && line <= lines && col >= 1, "the position %u:%u is outside the script (%u lines)\n%s\n%s",
              line, col, lines, err->message, text);
}

Test(planner_fuzz, mutants_plan_or_fail_with_a_located_message, .timeout = 600)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/sql", WEIR_SOURCE_DIR);
    add_cases(dir);
    snprintf(dir, sizeof dir, "%s/examples/sql", WEIR_SOURCE_DIR);
    add_cases(dir);
    snprintf(dir, sizeof dir, "%s/bench/nexmark", WEIR_SOURCE_DIR);
    add_nexmark(dir);
    cr_assert_gt(g_n_scripts, 50, "found only %zu scripts", g_n_scripts);

    /* Plans only; anything a planner might touch on disk stays in a scratch folder. */
    char tmpl[] = "/tmp/weir-planner-fuzz-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    char cwd[1024];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(tmpl), 0);

    const char *env = getenv("WEIR_FUZZ_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    const char *it = getenv("WEIR_FUZZ_ITERS");
    long iters = it ? atol(it) : 20000;
    fprintf(stderr, "planner_fuzz: WEIR_FUZZ_SEED=%" PRIu64 " WEIR_FUZZ_ITERS=%ld, %zu scripts\n", seed, iters,
            g_n_scripts);
    g_rng = seed;

    FILE *devnull = fopen("/dev/null", "w");
    cr_assert_not_null(devnull);
    weir_sql_job_options opt = {.print_out = devnull};
    long planned = 0, failed = 0;
    weir_buf ex;
    weir_buf_init(&ex);
    for (long k = 0; k < iters; k++) {
        const script *s = &g_scripts[rnd() % g_n_scripts];
        size_t len;
        char *text = mutate(s, &len);
        weir_sql_job *j = NULL;
        weir_error err = {0};
        /* WEIR_FUZZ_DUMP=path: each mutant written there before it is planned (the last one
         * left is the one a sanitizer stopped on) */
        const char *dump = getenv("WEIR_FUZZ_DUMP");
        FILE *df = dump ? fopen(dump, "w") : NULL;
        if (df) {
            fwrite(text, 1, len, df);
            fclose(df);
        }
        int rc = weir_sql_job_create("mutant.sql", text, len, &opt, &j, &err);
        if (rc) {
            cr_assert_null(j, "a failed plan returned a job\n%s", text);
            check_error(text, len, rc, &err);
            if (getenv("WEIR_FUZZ_VERBOSE"))
                fprintf(stderr, "%s\n", err.message);
            failed++;
        } else {
            weir_buf_clear(&ex);
            cr_assert_eq(weir_sql_job_explain(j, &ex), 0, "explain failed for a planned script (from %s):\n%s",
                         s->name, text);
            weir_sql_job_destroy(j);
            planned++;
        }
        free(text);
    }
    weir_buf_fini(&ex);
    fclose(devnull);
    fprintf(stderr, "planner_fuzz: %ld mutants planned, %ld refused with a located error\n", planned, failed);
    /* The mutations must reach the planner, not only the parser's errors. */
    cr_assert_gt(planned, iters / 50, "only %ld of %ld mutants planned", planned, iters);

    cr_assert_eq(chdir(cwd), 0);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
    cr_assert_eq(system(cmd), 0);
    for (size_t i = 0; i < g_n_scripts; i++) {
        free(g_scripts[i].text);
        free(g_scripts[i].toks);
    }
    free(g_scripts);
}
