/*
 * fuzz/sql_fuzz.c - libFuzzer target for the SQL parser.
 *
 * Build (tests/test_sql_fuzz.sh does this): clang with
 * -fsanitize=fuzzer,address,undefined, this file, the parser's sources in
 * src/sql, src/util/{alloc,buf,error}.c and src/time/timefmt.c. Run it on
 * the seed corpus fuzz/corpus/sql plus tests/sql/parse/nexmark with the
 * dictionary fuzz/sql.dict.
 *
 * Besides "no crash, no leak, no undefined behaviour", every input checks
 * the parser's contracts, and a violation aborts so libFuzzer keeps it:
 * - an error is WEIR_EPARSE (or WEIR_ENOMEM) with a "FILE:LINE:COL: error:"
 *   message whose position lies inside the input;
 * - a parsed script prints to canonical SQL that parses again and prints
 *   to the same text (the fixpoint the tests rely on);
 * - every statement can be dumped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/sql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const weir_buf *a, const weir_buf *b)
{
    fprintf(stderr, "sql_fuzz: %s\n", what);
    if (a && a->len)
        fprintf(stderr, "first:\n%.*s\n", (int)a->len, (const char *)a->data);
    if (b && b->len)
        fprintf(stderr, "second:\n%.*s\n", (int)b->len, (const char *)b->data);
    abort();
}

static void check_error(int rc, const weir_error *err, const weir_sql_loc *loc,
                        size_t size)
{
    if (rc == WEIR_ENOMEM)
        return;
    if (rc != WEIR_EPARSE || err->code != WEIR_EPARSE)
        fail("parse failed with an unexpected code", NULL, NULL);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "fuzz.sql:%u:%u: error: ", loc->line,
             loc->col);
    if (strncmp(err->message, prefix, strlen(prefix)) != 0) {
        fprintf(stderr, "message: %s\nexpected prefix: %s\n", err->message,
                prefix);
        fail("error message does not start with FILE:LINE:COL: error:", NULL,
             NULL);
    }
    if (loc->line == 0 || loc->col == 0 || loc->offset > size)
        fail("error position outside the input", NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    weir_sql_script *s = NULL;
    weir_error err;
    weir_sql_loc loc;
    int rc =
        weir_sql_parse("fuzz.sql", (const char *)data, size, &s, &err, &loc);
    if (rc) {
        if (s)
            fail("failed parse returned a script", NULL, NULL);
        check_error(rc, &err, &loc, size);
        return 0;
    }
    weir_buf once, twice, dump;
    weir_buf_init(&once);
    weir_buf_init(&twice);
    weir_buf_init(&dump);
    if (weir_sql_format_script(s, &once))
        fail("format failed", NULL, NULL);
    for (size_t i = 0; i < weir_sql_script_count(s); i++)
        if (weir_sql_dump_stmt(weir_sql_script_stmt(s, i), &dump))
            fail("dump failed", NULL, NULL);

    weir_sql_script *s2 = NULL;
    rc = weir_sql_parse("canonical.sql", (const char *)once.data, once.len, &s2,
                        &err, &loc);
    if (rc) {
        fprintf(stderr, "%s\n", err.message);
        fail("canonical text does not parse", &once, NULL);
    }
    if (weir_sql_script_count(s2) != weir_sql_script_count(s))
        fail("canonical text has a different number of statements", &once,
             NULL);
    if (weir_sql_format_script(s2, &twice))
        fail("format failed", NULL, NULL);
    if (once.len != twice.len ||
        (once.len && memcmp(once.data, twice.data, once.len) != 0))
        fail("printing is not a fixpoint", &once, &twice);

    weir_buf_fini(&once);
    weir_buf_fini(&twice);
    weir_buf_fini(&dump);
    weir_sql_script_destroy(s2);
    weir_sql_script_destroy(s);
    return 0;
}
