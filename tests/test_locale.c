/*
 * tests/test_locale.c - a program that embeds weir and sets a locale whose
 * decimal point is ',' (de_DE) reads and writes numbers as weir always does.
 *
 * The locale is compiled into a temporary folder with localedef (the
 * `locales` package's sources, which scripts/install-deps.sh installs) and
 * found through LOCPATH, so the machine need not have it installed.
 */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cnum.h"
#include "weir/batch.h"
#include "weir/job.h"
#include "weir/planner.h"

static char locdir[] = "/tmp/weir-locale-XXXXXX";

/* Sets LC_ALL to a German locale (',' as the point), made for the test. */
static void german(void)
{
    cr_assert(mkdtemp(locdir), "mkdtemp");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", locdir);
    int rc = system(cmd);
    cr_assert(rc == 0 || rc == 256, "localedef failed (%d): is the locales package installed?", rc); /* 1: warnings */
    setenv("LOCPATH", locdir, 1);
    cr_assert(setlocale(LC_ALL, "de_DE.UTF-8"), "the de_DE locale made by localedef does not load");
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 2.5);
    cr_assert_str_eq(probe, "2,5", "the locale is not one with ',' for the point");
}

static void back(void)
{
    setlocale(LC_ALL, "C");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", locdir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(locale, .init = german, .fini = back);

Test(locale, text_to_double_and_back)
{
    cr_assert_eq(weir__strtod_c("2.5", NULL), 2.5);
    cr_assert_eq(weir__strtod_c("0x1.8p1", NULL), 3.0);
    char buf[32];
    weir__format_g17_c(buf, sizeof buf, 2.5);
    cr_assert_str_eq(buf, "2.5");

    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "d", weir_type_make(WEIR_TYPE_DOUBLE, false));
    weir_batch *b = weir_batch_create(s, 1);
    cr_assert(b);
    int r = weir_batch_append_row(b);
    WEIR_COL_F64(b, 0)[r] = 0.25;
    size_t n = weir_batch_format_value(b, 0, (uint32_t)r, buf, sizeof buf);
    cr_assert_str_eq(buf, "0.25");
    cr_assert_eq(n, 4);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* A whole SQL job: literals, CAST, DECIMAL to DOUBLE, ROUND and the printed rows. */
Test(locale, sql_job)
{
    static const char sql[] =
        "SELECT CAST('2.5' AS DOUBLE) * 2, 1.5E0 + 1, CAST(CAST(2.25 AS DECIMAL(5, 2)) AS DOUBLE),\n"
        "       ROUND(2.675E0, 2), CAST(' 0x1.8p1 ' AS DOUBLE), CAST('1.5' AS DECIMAL(4, 1));\n";
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    cr_assert(mem);
    weir_sql_job_options opt = {.print_out = mem};
    weir_error err = {0};
    weir_sql_job *sj = NULL;
    cr_assert_eq(weir_sql_job_create("locale.sql", sql, strlen(sql), &opt, &sj, &err), 0, "%s", err.message);
    cr_assert_eq(weir_job_run(weir_sql_job_graph(sj)), 0, "%s", weir_job_error(weir_sql_job_graph(sj)));
    weir_sql_job_destroy(sj);
    fclose(mem);
    cr_assert_str_eq(out, "+I[5.0, 2.5, 2.25, 2.68, 3.0, 1.5]\n");
    free(out);
}
