/*
 * bench/nexmark_gen_bench.c - how fast the Nexmark source fills batches.
 *
 * Reads N events through the source class (as the runtime does: one split,
 * batches reset and refilled) for each table, and for the bid table also
 * with the projection q0 reads. Reports events/s of event numbers covered
 * (for a narrow table, the skipped events of other kinds count too, so the
 * figure compares with the full stream) and rows/s, by wall and CPU time.
 *
 *   bench_nexmark_gen_bench [events] [batch_rows] [case]   (defaults 20000000,
 * 1024, all) where case picks the cases whose name contains it (e.g. "q0").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weir/nexmark.h"
#include "weir/weir.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct result {
    double wall_s, cpu_s;
    uint64_t rows, heap_bytes;
} result;

static int run(weir_nexmark_table table, const weir_schema *projection,
               int64_t events, uint32_t batch_rows, result *res)
{
    weir_nexmark_config c;
    weir_error err;
    weir_source_spec spec;
    weir_nexmark_config_init(&c);
    c.table = table;
    c.events_num = events;
    c.first_event_rate = c.next_event_rate =
        10000000; /* the benchmark's rate */
    if (weir_nexmark_source_spec(&c, "nexmark", &spec, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const weir_schema *schema = projection ? projection : spec.schema;
    weir_source_info info = {.subtask = 0, .parallelism = 1, .batch_size = batch_rows, .schema = schema};
    void *inst, *rd;
    if (spec.cls->create(spec.arg, &info, &inst, &err) ||
        spec.cls->open_split(inst, "nexmark-0-of-1", NULL, 0, &rd, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    weir_batch *b = weir_batch_create(schema, batch_rows);
    memset(res, 0, sizeof *res);
    int64_t t0 = weir_monotonic_ns();
    double c0 = cpu_seconds();
    int rc;
    uint64_t sink = 0;
    for (;;) {
        weir_batch_reset(b);
        rc = spec.cls->read(rd, b, batch_rows, &err);
        if (rc <= 0)
            break;
        res->rows += (uint64_t)rc;
        res->heap_bytes += b->heap_len;
        sink += (uint64_t)b->ts[b->n_rows - 1];
    }
    res->wall_s = (double)(weir_monotonic_ns() - t0) * 1e-9;
    res->cpu_s = cpu_seconds() - c0;
    if (rc != WEIR_EOF) {
        fprintf(stderr, "read: %d %s\n", rc, err.message);
        return 1;
    }
    if (sink == 42)
        printf(" ");
    weir_batch_destroy(b);
    spec.cls->close_split(rd);
    spec.cls->destroy(inst);
    spec.free_arg(spec.arg);
    return 0;
}

int main(int argc, char **argv)
{
    int64_t events = argc > 1 ? strtoll(argv[1], NULL, 10) : 20000000;
    uint32_t batch = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1024;
    /* q0's projection of the bid table: auction, bidder, price, dateTime,
     * extra. */
    weir_schema *q0 = weir_schema_create();
    weir_schema_add(q0, "auction", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(q0, "bidder", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(q0, "price", weir_type_make(WEIR_TYPE_BIGINT, false));
    q0->rowtime = weir_schema_add(q0, "dateTime",
                                  weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    weir_schema_add(q0, "extra", weir_type_make(WEIR_TYPE_STRING, false));
    /* q5's: auction and dateTime (the source skips the draws of the
     * rest). */
    weir_schema *q5 = weir_schema_create();
    weir_schema_add(q5, "auction", weir_type_make(WEIR_TYPE_BIGINT, false));
    q5->rowtime = weir_schema_add(q5, "dateTime",
                                  weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    struct {
        const char *name;
        weir_nexmark_table table;
        const weir_schema *schema;
    } cases[] = {
        {"event (all kinds, wide)", WEIR_NEXMARK_TABLE_EVENT, NULL},
        {"bid (all columns)", WEIR_NEXMARK_TABLE_BID, NULL},
        {"bid (q0 columns)", WEIR_NEXMARK_TABLE_BID, q0},
        {"bid (q5 columns)", WEIR_NEXMARK_TABLE_BID, q5},
        {"auction", WEIR_NEXMARK_TABLE_AUCTION, NULL},
        {"person", WEIR_NEXMARK_TABLE_PERSON, NULL},
    };
    printf("events=%" PRId64 " batch=%u\n\n", events, batch);
    printf("| table | rows | events/s (wall) | events/s (CPU) | rows/s (CPU) | "
           "bytes/row |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    const char *only = argc > 3 ? argv[3] : NULL;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        result r;
        if (only && !strstr(cases[i].name, only))
            continue;
        if (run(cases[i].table, cases[i].schema, events, batch, &r))
            return 1;
        printf("| %s | %" PRIu64 " | %.2f M | %.2f M | %.2f M | %.1f |\n",
               cases[i].name, r.rows, (double)events / r.wall_s * 1e-6,
               (double)events / r.cpu_s * 1e-6, (double)r.rows / r.cpu_s * 1e-6,
               (double)r.heap_bytes / (double)r.rows);
        fflush(stdout);
    }
    weir_schema_destroy(q0);
    weir_schema_destroy(q5);
    return 0;
}
