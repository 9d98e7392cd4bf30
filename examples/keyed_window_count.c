/*
 * examples/keyed_window_count.c - the C API end to end.
 *
 * Page views (user, url, event time) come from a small in-memory source,
 * slightly out of order. A keyed process function counts the views of each
 * user per one-minute tumbling window in keyed state and registers an
 * event-time timer at the end of each window; when the watermark passes the
 * window end the timer emits (user, window_end, views). A watermark with 5
 * seconds of bounded out-of-orderness decides when a window is complete; a
 * view that arrives after its window fired is late and goes to a side
 * output. The job runs at parallelism 2 with a keyed exchange, then checks
 * its own output and exits non-zero on any difference.
 *
 * Build and run: it is built with weir and runs as a test (ctest).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/weir.h"

#define MINUTE 60000

/* ---- an in-memory source: one split, rows from a static table ---- */

typedef struct view {
    const char *user;
    const char *url;
    int64_t ts_ms;
} view;

static const view VIEWS[] = {
    {"alice", "/home", 1000},
    {"bob", "/home", 2000},
    {"alice", "/cart", 30000},
    {"carol", "/home", 58000},
    {"alice", "/pay", 61000},
    {"bob", "/cart", 59000}, /* 2 s out of order */
    {"bob", "/pay", 65000},
    {"carol", "/cart", 119000},
    {"alice", "/home", 125000},
    {"bob", "/home",
     50000}, /* 75 s behind: its window [0, 60 s) fired already - late */
    {"carol", "/pay", 130000},
    {"alice", "/cart", 181000},
};
#define N_VIEWS (sizeof VIEWS / sizeof VIEWS[0])

typedef struct table_source {
    const weir_schema *schema;
    bool discovered;
} table_source;

typedef struct table_reader {
    uint64_t pos;
} table_reader;

static int ts_create(void *arg, const weir_source_info *info, void **out,
                     weir_error *err)
{
    (void)arg;
    (void)err;
    table_source *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->schema = info->schema;
    /* Only subtask 0 owns the one split; the others have none and are idle. */
    s->discovered = info->subtask != 0;
    *out = s;
    return 0;
}

static int ts_discover(void *src, const char ***ids, uint32_t *n, bool *done,
                       weir_error *err)
{
    (void)err;
    static const char *split[] = {"views"};
    table_source *s = src;
    *done = true;
    *n = 0;
    if (!s->discovered) {
        s->discovered = true;
        *ids = split;
        *n = 1;
    }
    return 0;
}

static int ts_open_split(void *src, const char *id, const void *pos,
                         size_t pos_len, void **out, weir_error *err)
{
    (void)src;
    (void)id;
    (void)err;
    table_reader *r = calloc(1, sizeof *r);
    if (!r)
        return WEIR_ENOMEM;
    if (pos && pos_len == sizeof r->pos)
        memcpy(&r->pos, pos, sizeof r->pos);
    *out = r;
    return 0;
}

static int ts_read(void *reader, weir_batch *out, uint32_t max_rows,
                   weir_error *err)
{
    (void)err;
    table_reader *r = reader;
    if (r->pos >= N_VIEWS)
        return WEIR_EOF;
    uint32_t n = 0;
    while (n < max_rows && r->pos < N_VIEWS) {
        const view *v = &VIEWS[r->pos++];
        int row = weir_batch_append_row(out);
        if (row < 0)
            break;
        weir_batch_set_str(out, 0, (uint32_t)row, v->user, strlen(v->user));
        weir_batch_set_str(out, 1, (uint32_t)row, v->url, strlen(v->url));
        WEIR_COL_I64(out, 2)
        [row] = v->ts_ms; /* the rowtime column: the runtime takes event time
                             from it */
        n++;
    }
    return (int)n;
}

static int ts_position(void *reader, weir_buf *out)
{
    table_reader *r = reader;
    return weir_buf_put(out, &r->pos, sizeof r->pos);
}

static void ts_close_split(void *reader)
{
    free(reader);
}
static void ts_destroy(void *src)
{
    free(src);
}

static const weir_source_class table_source_class = {
    .name = "table",
    .create = ts_create,
    .discover = ts_discover,
    .open_split = ts_open_split,
    .read = ts_read,
    .position = ts_position,
    .close_split = ts_close_split,
    .destroy = ts_destroy,
};

/* ---- the keyed process function ---- */

#define LATE 1

typedef struct counter {
    weir_state *views; /* per user and window end: the count so far */
    weir_batch *late;
} counter;

static int count_open(void *ud, weir_op_ctx *ctx, void **instance)
{
    (void)ud;
    counter *c = calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    weir_state_desc desc = {.name = "views", .kind = WEIR_STATE_VALUE};
    int rc = weir_op_get_state(ctx, &desc, &c->views);
    c->late = weir_batch_create(weir_op_info_of(ctx)->input_schemas[0], 16);
    if (rc || !c->late) {
        weir_batch_destroy(c->late);
        free(c);
        return rc ? rc : WEIR_ENOMEM;
    }
    *instance = c;
    return 0;
}

static int count_process(void *instance, weir_op_ctx *ctx, const weir_batch *in,
                         uint32_t row, weir_batch *out)
{
    (void)out;
    counter *c = instance;
    int64_t ts = in->ts[row];
    int64_t end =
        (ts / MINUTE + 1) * MINUTE; /* event times here are positive */
    if (end <= weir_op_watermark(ctx)) {
        /* The window has fired: a late view. */
        weir_batch_copy_row(c->late, in, row);
        int rc = weir_op_emit_side(ctx, LATE, c->late);
        weir_batch_reset(c->late);
        return rc;
    }
    int64_t n = 0;
    const void *v;
    size_t len;
    if (weir_value_get(c->views, &end, sizeof end, &v, &len) == 0)
        memcpy(&n, v, sizeof n);
    n++;
    int rc = weir_value_put(c->views, &end, sizeof end, &n, sizeof n);
    if (!rc) /* registering the same timer again is a no-op */
        rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, end, end);
    return rc;
}

static int count_timer(void *instance, weir_op_ctx *ctx, const weir_timer *t,
                       weir_batch *out)
{
    (void)ctx;
    counter *c = instance;
    int64_t end = t->ns, n = 0;
    const void *v;
    size_t len;
    if (weir_value_get(c->views, &end, sizeof end, &v, &len) == 0)
        memcpy(&n, v, sizeof n);
    /* The key is the encoded user column: a NULL flag, a u32 length, the bytes.
     */
    uint32_t ulen;
    memcpy(&ulen, t->key + 1, sizeof ulen);
    int row = weir_batch_append_row(out);
    if (row < 0)
        return row;
    weir_batch_set_str(out, 0, (uint32_t)row, (const char *)t->key + 5, ulen);
    WEIR_COL_I64(out, 1)[row] = end;
    WEIR_COL_I64(out, 2)[row] = n;
    out->ts[row] = end - 1;
    return weir_state_clear(c->views, &end, sizeof end);
}

static void count_close(void *instance)
{
    counter *c = instance;
    weir_batch_destroy(c->late);
    free(c);
}

/* ---- a sink that keeps the rows as text ---- */

typedef struct lines {
    char text[64][96];
    int n;
} lines;

static int sink_create(void *arg, const weir_op_info *info, void **out)
{
    (void)info;
    *out = arg; /* parallelism 1: one instance */
    return 0;
}

static int sink_process(void *op, weir_op_ctx *ctx, int input,
                        const weir_batch *b)
{
    (void)ctx;
    (void)input;
    lines *l = op;
    for (uint32_t r = 0; r < b->n_rows && l->n < 64; r++) {
        char *p = l->text[l->n++];
        size_t len = 0;
        for (uint32_t c = 0; c < b->schema->n_fields; c++) {
            char v[48];
            weir_batch_format_value(b, c, r, v, sizeof v);
            len += (size_t)snprintf(p + len, 96 - len, "%s%s", c ? " " : "", v);
        }
    }
    return 0;
}

static void sink_close(void *op)
{
    (void)op;
}

static const weir_operator_class lines_sink = {
    .name = "lines", .process = sink_process, .close = sink_close};

static int cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

int main(void)
{
    weir_schema *views = weir_schema_create();
    weir_schema_add(views, "user", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(views, "url", weir_type_make(WEIR_TYPE_STRING, false));
    views->rowtime = weir_schema_add(
        views, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    weir_schema *counts = weir_schema_create();
    weir_schema_add(counts, "user", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(counts, "window_end",
                    weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    weir_schema_add(counts, "views", weir_type_make(WEIR_TYPE_BIGINT, false));

    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = 2;
    cfg.batch_size = 4;
    weir_job *job;
    if (weir_job_create(&cfg, &job))
        return 1;

    weir_source_spec src = {
        .name = "views", .cls = &table_source_class, .schema = views};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 5000};
    weir_stream s, counted;
    uint32_t user_col = 0;
    weir_process_fn fn = {.name = "count_views",
                          .open = count_open,
                          .process = count_process,
                          .timer = count_timer,
                          .close = count_close};
    lines out = {0}, late = {0};
    weir_operator_spec out_sink = {.name = "counts",
                                   .cls = &lines_sink,
                                   .create = sink_create,
                                   .arg = &out};
    weir_operator_spec late_sink = {.name = "late",
                                    .cls = &lines_sink,
                                    .create = sink_create,
                                    .arg = &late};
    if (weir_job_source(job, &src, &wm, 0, &s) ||
        weir_job_process(job, weir_stream_key_by(s, &user_col, 1), counts, &fn,
                         &counted) ||
        weir_job_sink(job, counted, &out_sink, 1) ||
        weir_job_sink(job, weir_stream_side(counted, LATE), &late_sink, 1)) {
        fprintf(stderr, "building the job failed: %s\n", weir_job_error(job));
        return 1;
    }

    weir_buf plan;
    weir_buf_init(&plan);
    if (weir_job_explain(job, &plan) == 0)
        printf("%s\n", (const char *)plan.data);
    weir_buf_fini(&plan);

    if (weir_job_run(job)) {
        fprintf(stderr, "the job failed: %s\n", weir_job_error(job));
        return 1;
    }

    const char *expect[] = {
        "alice 1970-01-01 00:01:00.000 2", "alice 1970-01-01 00:02:00.000 1",
        "alice 1970-01-01 00:03:00.000 1", "alice 1970-01-01 00:04:00.000 1",
        "bob 1970-01-01 00:01:00.000 2",   "bob 1970-01-01 00:02:00.000 1",
        "carol 1970-01-01 00:01:00.000 1", "carol 1970-01-01 00:02:00.000 1",
        "carol 1970-01-01 00:03:00.000 1",
    };
    int n_expect = (int)(sizeof expect / sizeof expect[0]);
    qsort(out.text, (size_t)out.n, sizeof out.text[0], cmp);
    int bad = out.n != n_expect;
    for (int i = 0; i < out.n; i++) {
        printf("%s\n", out.text[i]);
        if (i < n_expect && strcmp(out.text[i], expect[i]) != 0)
            bad = 1;
    }
    printf("late: %d\n", late.n);
    if (late.n != 1 ||
        strcmp(late.text[0], "bob /home 1970-01-01 00:00:50.000") != 0)
        bad = 1;
    if (bad)
        fprintf(stderr, "unexpected output\n");
    weir_job_destroy(job);
    weir_schema_destroy(views);
    weir_schema_destroy(counts);
    return bad;
}
