/*
 * bench/sql_parse.c - throughput of the SQL parser and canonical printer on
 * the Nexmark scripts in tests/sql/parse/nexmark, concatenated many
 * times into one script.
 *
 * usage: bench_sql_parse [SOURCE_DIR] [COPIES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weir/sql.h"

/* CPU time of this process: the figures should not depend on how busy a
 * shared machine is. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int append_file(weir_buf *b, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        weir_buf_put(b, chunk, n);
    fclose(f);
    return weir_buf_put(b, ";\n", 2);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    int copies = argc > 2 ? atoi(argv[2]) : 200;
    weir_buf one, all;
    weir_buf_init(&one);
    weir_buf_init(&all);
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/sql/parse/nexmark/ddl.sql", dir);
    if (append_file(&one, path)) {
        fprintf(stderr, "cannot read %s (pass the source directory)\n", path);
        return 2;
    }
    for (int q = 0; q <= 23; q++) {
        snprintf(path, sizeof path, "%s/tests/sql/parse/nexmark/q%d.sql", dir,
                 q);
        append_file(&one, path);
    }
    for (int i = 0; i < copies; i++)
        weir_buf_put(&all, one.data, one.len);

    weir_sql_script *s = NULL;
    weir_error err;
    double t0 = now_s();
    if (weir_sql_parse("bench.sql", (const char *)all.data, all.len, &s, &err,
                       NULL)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    double t1 = now_s();
    weir_buf out;
    weir_buf_init(&out);
    weir_sql_format_script(s, &out);
    double t2 = now_s();
    printf("script: %zu bytes, %zu statements\n", all.len,
           weir_sql_script_count(s));
    printf("parse:  %.1f ms cpu, %.1f MB/s, %.0f statements/s\n",
           (t1 - t0) * 1e3, all.len / (t1 - t0) / 1e6,
           weir_sql_script_count(s) / (t1 - t0));
    printf("print:  %.1f ms cpu, %.1f MB/s of output\n", (t2 - t1) * 1e3,
           out.len / (t2 - t1) / 1e6);
    weir_buf_fini(&out);
    weir_sql_script_destroy(s);
    weir_buf_fini(&one);
    weir_buf_fini(&all);
    return 0;
}
