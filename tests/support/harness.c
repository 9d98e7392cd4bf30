/* tests/support/harness.c - in-memory sources, a collecting sink and metric
 * helpers (see harness.h). */
#include "support/harness.h"

#include "ops/rowcodec.h"

#include <ctype.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- waiting with a real-time guard ---- */

static struct timespec deadline_ms(int timeout_ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

/* ---- sources ---- */

#define CHUNK 256

typedef struct th_split {
    weir_batch **chunks; /* rows, CHUNK per batch */
    uint32_t n_chunks;
    uint64_t n_rows;
    uint64_t n_read; /* rows handed to readers */
    bool ended;
    uint32_t subtask;
    bool assigned;
    uint64_t fail_row; /* UINT64_MAX: never */
    char fail_msg[256];
} th_split;

struct th_source {
    const weir_schema *schema;
    bool bounded;
    th_split *splits;
    uint32_t n_splits;
    uint32_t read_limit;
    uint64_t total_read;
    char **ids;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

typedef struct th_instance {
    th_source *src;
    uint32_t subtask, parallelism;
    bool discovered;
    const char **ids;
    uint32_t n_ids;
} th_instance;

typedef struct th_reader {
    th_source *src;
    uint32_t split;
    uint64_t pos;
} th_reader;

static th_source *source_create(const weir_schema *schema, uint32_t n_splits,
                                bool bounded)
{
    th_source *s = calloc(1, sizeof *s);
    s->schema = schema;
    s->bounded = bounded;
    s->n_splits = n_splits;
    s->splits = calloc(n_splits ? n_splits : 1, sizeof *s->splits);
    s->ids = calloc(n_splits ? n_splits : 1, sizeof *s->ids);
    for (uint32_t i = 0; i < n_splits; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "split-%u", i);
        s->ids[i] = strdup(buf);
        s->splits[i].fail_row = UINT64_MAX;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    return s;
}

th_source *th_vsource_create(const weir_schema *schema, uint32_t n_splits)
{
    return source_create(schema, n_splits, true);
}

th_source *th_usource_create(const weir_schema *schema, uint32_t n_splits)
{
    return source_create(schema, n_splits, false);
}

void th_source_destroy(th_source *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_splits; i++) {
        for (uint32_t c = 0; c < s->splits[i].n_chunks; c++)
            weir_batch_destroy(s->splits[i].chunks[c]);
        free(s->splits[i].chunks);
        free(s->ids[i]);
    }
    free(s->splits);
    free(s->ids);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

/* Mutex held: a fresh row at the end of split's storage. */
static int new_row(th_source *s, uint32_t split, weir_batch **out)
{
    th_split *sp = &s->splits[split];
    if (sp->n_rows == (uint64_t)sp->n_chunks * CHUNK) {
        sp->chunks =
            realloc(sp->chunks, (sp->n_chunks + 1) * sizeof *sp->chunks);
        sp->chunks[sp->n_chunks++] = weir_batch_create(s->schema, CHUNK);
    }
    weir_batch *b = sp->chunks[sp->n_chunks - 1];
    *out = b;
    return weir_batch_append_row(b);
}

static void set_field_text(weir_batch *b, uint32_t col, uint32_t row,
                           const char *v, size_t len)
{
    if (len == 4 && memcmp(v, "NULL", 4) == 0) {
        weir_batch_set_null(b, col, row);
        return;
    }
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%.*s", (int)len, v);
    switch (b->cols[col].type.id) {
    case WEIR_TYPE_BOOLEAN:
        WEIR_COL_BOOL(b, col)
        [row] = strcmp(tmp, "true") == 0 || strcmp(tmp, "1") == 0;
        break;
    case WEIR_TYPE_INT:
        WEIR_COL_I32(b, col)[row] = (int32_t)strtol(tmp, NULL, 10);
        break;
    case WEIR_TYPE_DOUBLE:
        WEIR_COL_F64(b, col)[row] = strtod(tmp, NULL);
        break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
        weir_batch_set_str(b, col, row, v, len);
        break;
    default:
        WEIR_COL_I64(b, col)[row] = strtoll(tmp, NULL, 10);
        break;
    }
}

static void row_done(th_source *s, uint32_t split, weir_batch *b, int r,
                     weir_ts ts)
{
    b->ts[r] = ts;
    s->splits[split].n_rows++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void th_source_row(th_source *s, uint32_t split, weir_ts ts, ...)
{
    pthread_mutex_lock(&s->mu);
    weir_batch *b;
    int r = new_row(s, split, &b);
    va_list ap;
    va_start(ap, ts);
    for (uint32_t c = 0; c < s->schema->n_fields; c++) {
        switch (s->schema->fields[c].type.id) {
        case WEIR_TYPE_BOOLEAN:
            WEIR_COL_BOOL(b, c)[r] = (uint8_t)(va_arg(ap, int) != 0);
            break;
        case WEIR_TYPE_INT:
            WEIR_COL_I32(b, c)[r] = (int32_t)va_arg(ap, int);
            break;
        case WEIR_TYPE_DOUBLE:
            WEIR_COL_F64(b, c)[r] = va_arg(ap, double);
            break;
        case WEIR_TYPE_STRING:
        case WEIR_TYPE_BYTES: {
            const char *v = va_arg(ap, const char *);
            if (v)
                weir_batch_set_str(b, c, (uint32_t)r, v, strlen(v));
            else
                weir_batch_set_null(b, c, (uint32_t)r);
            break;
        }
        default:
            WEIR_COL_I64(b, c)[r] = va_arg(ap, int64_t);
            break;
        }
    }
    va_end(ap);
    row_done(s, split, b, r, ts);
}

/* Writes a row of comma-separated fields after the split's rows, not yet
 * counted (s->mu held); returns its batch and row in it. */
static int text_row(th_source *s, uint32_t split, const char *fields, weir_batch **b)
{
    int r = new_row(s, split, b);
    const char *p = fields;
    for (uint32_t c = 0; c < s->schema->n_fields; c++) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        set_field_text(*b, c, (uint32_t)r, p, len);
        p = e ? e + 1 : p + len;
    }
    return r;
}

void th_source_row_text(th_source *s, uint32_t split, weir_ts ts,
                        const char *fields)
{
    pthread_mutex_lock(&s->mu);
    weir_batch *b;
    int r = text_row(s, split, fields, &b);
    row_done(s, split, b, r, ts);
}

void th_source_rows_text(th_source *s, uint32_t split, weir_ts ts,
                         const char *const *rows, size_t n)
{
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < n; i++) {
        weir_batch *b;
        int r = text_row(s, split, rows[i], &b);
        b->ts[r] = ts;
        s->splits[split].n_rows++; /* new_row opens the next chunk by it */
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void th_source_end(th_source *s, uint32_t split)
{
    pthread_mutex_lock(&s->mu);
    s->splits[split].ended = true;
    pthread_mutex_unlock(&s->mu);
}

void th_source_end_all(th_source *s)
{
    for (uint32_t i = 0; i < s->n_splits; i++)
        th_source_end(s, i);
}

void th_source_assign(th_source *s, uint32_t split, uint32_t subtask)
{
    s->splits[split].subtask = subtask;
    s->splits[split].assigned = true;
}

void th_source_set_read_limit(th_source *s, uint32_t n)
{
    s->read_limit = n;
}

void th_source_fail_at(th_source *s, uint32_t split, uint64_t row,
                       const char *msg)
{
    s->splits[split].fail_row = row;
    snprintf(s->splits[split].fail_msg, sizeof s->splits[split].fail_msg, "%s",
             msg);
}

bool th_source_wait_read(th_source *s, uint32_t split, int timeout_ms)
{
    struct timespec dl = deadline_ms(timeout_ms);
    pthread_mutex_lock(&s->mu);
    bool ok = true;
    while (s->splits[split].n_read < s->splits[split].n_rows) {
        if (pthread_cond_timedwait(&s->cv, &s->mu, &dl)) {
            ok = s->splits[split].n_read >= s->splits[split].n_rows;
            break;
        }
    }
    pthread_mutex_unlock(&s->mu);
    return ok;
}

uint64_t th_source_rows_read(th_source *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t n = s->total_read;
    pthread_mutex_unlock(&s->mu);
    return n;
}

static int src_create(void *arg, const weir_source_info *info, void **out,
                      weir_error *err)
{
    (void)err;
    th_instance *in = weir_calloc(1, sizeof *in);
    if (!in)
        return WEIR_ENOMEM;
    in->src = arg;
    in->subtask = info->subtask;
    in->parallelism = info->parallelism;
    *out = in;
    return 0;
}

static int src_discover(void *p, const char ***ids, uint32_t *n, bool *done,
                        weir_error *err)
{
    (void)err;
    th_instance *in = p;
    th_source *s = in->src;
    *done = true;
    *n = 0;
    if (in->discovered)
        return 0;
    in->discovered = true;
    in->ids = weir_calloc(s->n_splits ? s->n_splits : 1, sizeof *in->ids);
    if (!in->ids)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < s->n_splits; i++) {
        uint32_t owner =
            s->splits[i].assigned ? s->splits[i].subtask : i % in->parallelism;
        if (owner == in->subtask)
            in->ids[in->n_ids++] = s->ids[i];
    }
    *ids = in->ids;
    *n = in->n_ids;
    return 0;
}

static int src_open_split(void *p, const char *id, const void *pos,
                          size_t pos_len, void **out, weir_error *err)
{
    th_instance *in = p;
    th_source *s = in->src;
    uint32_t split = UINT32_MAX;
    for (uint32_t i = 0; i < s->n_splits; i++)
        if (strcmp(s->ids[i], id) == 0)
            split = i;
    if (split == UINT32_MAX)
        return weir_error_set(err, WEIR_ENOTFOUND, "no split %s", id);
    th_reader *r = weir_calloc(1, sizeof *r);
    if (!r)
        return WEIR_ENOMEM;
    r->src = s;
    r->split = split;
    if (pos && pos_len == 8) {
        weir_cursor c;
        weir_cursor_init(&c, pos, pos_len);
        weir_cursor_get_u64(&c, &r->pos);
    }
    *out = r;
    return 0;
}

static int src_read(void *p, weir_batch *out, uint32_t max_rows,
                    weir_error *err)
{
    th_reader *r = p;
    th_source *s = r->src;
    pthread_mutex_lock(&s->mu);
    th_split *sp = &s->splits[r->split];
    if (r->pos >= sp->fail_row) {
        int rc =
            weir_error_set(err, WEIR_EPARSE, "%s (split %u, row %llu)",
                           sp->fail_msg, r->split, (unsigned long long)r->pos);
        pthread_mutex_unlock(&s->mu);
        return rc;
    }
    uint64_t avail = sp->n_rows - r->pos;
    if (avail == 0) {
        bool eof = s->bounded || sp->ended;
        pthread_mutex_unlock(&s->mu);
        return eof ? WEIR_EOF : 0;
    }
    uint32_t n = avail < max_rows ? (uint32_t)avail : max_rows;
    if (s->read_limit && n > s->read_limit)
        n = s->read_limit;
    if (sp->fail_row != UINT64_MAX && r->pos + n > sp->fail_row)
        n = (uint32_t)(sp->fail_row - r->pos);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t row = r->pos + i;
        weir_batch_copy_row(out, sp->chunks[row / CHUNK],
                            (uint32_t)(row % CHUNK));
    }
    r->pos += n;
    if (r->pos > sp->n_read) {
        s->total_read += r->pos - sp->n_read;
        sp->n_read = r->pos;
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return (int)n;
}

static int src_position(void *p, weir_buf *out)
{
    th_reader *r = p;
    return weir_buf_put_u64(out, r->pos);
}

static void src_close_split(void *p)
{
    weir_free(p);
}

static void src_destroy(void *p)
{
    th_instance *in = p;
    weir_free(in->ids);
    weir_free(in);
}

static const weir_source_class th_source_cls = {
    .name = "th_source",
    .create = src_create,
    .discover = src_discover,
    .open_split = src_open_split,
    .read = src_read,
    .position = src_position,
    .close_split = src_close_split,
    .destroy = src_destroy,
};

weir_source_spec th_source_spec(th_source *s, const char *name)
{
    return (weir_source_spec){.name = name ? name : "source",
                              .cls = &th_source_cls,
                              .arg = s,
                              .schema = s->schema};
}

/* ---- collecting sink ---- */

#define TH_MAX_SUBTASKS 64

struct th_collect {
    unsigned flags;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char **lines;
    size_t n, cap;
    char *text;
    weir_ts wm[TH_MAX_SUBTASKS];
    uint32_t parallelism;
    uint32_t finished;
    uint32_t stopped; /* stop hooks run (a stop without a drain) */
    weir_ts *wm_log;
    size_t n_wm_log, cap_wm_log;
    int64_t delay_us;
};

typedef struct th_sink {
    th_collect *c;
    uint32_t subtask;
} th_sink;

th_collect *th_collect_create(unsigned flags)
{
    th_collect *c = calloc(1, sizeof *c);
    c->flags = flags;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    for (int i = 0; i < TH_MAX_SUBTASKS; i++)
        c->wm[i] = WEIR_TS_MIN;
    return c;
}

void th_collect_destroy(th_collect *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        free(c->lines[i]);
    free(c->lines);
    free(c->text);
    free(c->wm_log);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    free(c);
}

void th_collect_set_delay_us(th_collect *c, int64_t us)
{
    c->delay_us = us;
}

static int sink_create(void *arg, const weir_op_info *info, void **out)
{
    th_sink *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->c = arg;
    s->subtask = info->subtask;
    pthread_mutex_lock(&s->c->mu);
    s->c->parallelism = info->parallelism;
    pthread_mutex_unlock(&s->c->mu);
    *out = s;
    return 0;
}

static int sink_process(void *op, weir_op_ctx *ctx, int input,
                        const weir_batch *b)
{
    (void)ctx;
    (void)input;
    th_sink *s = op;
    th_collect *c = s->c;
    char line[4096];
    char val[1024];
    pthread_mutex_lock(&c->mu);
    for (uint32_t r = 0; r < b->n_rows; r++) {
        size_t len = 0;
        line[0] = 0;
        if (c->flags & TH_KIND)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s ",
                                    weir_row_kind_name(b->kind[r]));
        for (uint32_t col = 0; col < b->schema->n_fields && len < sizeof line;
             col++) {
            weir_batch_format_value(b, col, r, val, sizeof val);
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s",
                                    col ? "," : "", val);
        }
        if ((c->flags & TH_TS) && len < sizeof line)
            snprintf(line + len, sizeof line - len, "@%lld",
                     (long long)b->ts[r]);
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 256;
            c->lines = realloc(c->lines, c->cap * sizeof *c->lines);
        }
        c->lines[c->n++] = strdup(line);
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (c->delay_us > 0) {
        struct timespec ts = {.tv_sec = c->delay_us / 1000000,
                              .tv_nsec = (long)(c->delay_us % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

static int sink_watermark(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    (void)ctx;
    th_sink *s = op;
    th_collect *c = s->c;
    pthread_mutex_lock(&c->mu);
    if (s->subtask < TH_MAX_SUBTASKS)
        c->wm[s->subtask] = wm;
    if (s->subtask == 0) {
        if (c->n_wm_log == c->cap_wm_log) {
            c->cap_wm_log = c->cap_wm_log ? c->cap_wm_log * 2 : 64;
            c->wm_log = realloc(c->wm_log, c->cap_wm_log * sizeof *c->wm_log);
        }
        c->wm_log[c->n_wm_log++] = wm;
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return 0;
}

static int sink_finish(void *op, weir_op_ctx *ctx)
{
    (void)ctx;
    th_sink *s = op;
    pthread_mutex_lock(&s->c->mu);
    s->c->finished++;
    pthread_cond_broadcast(&s->c->cv);
    pthread_mutex_unlock(&s->c->mu);
    return 0;
}

static int sink_stop(void *op, weir_op_ctx *ctx)
{
    (void)ctx;
    th_sink *s = op;
    pthread_mutex_lock(&s->c->mu);
    s->c->stopped++;
    pthread_cond_broadcast(&s->c->cv);
    pthread_mutex_unlock(&s->c->mu);
    return 0;
}

static void sink_close(void *op)
{
    weir_free(op);
}

static const weir_operator_class th_sink_cls = {
    .name = "collect",
    .process = sink_process,
    .watermark = sink_watermark,
    .finish = sink_finish,
    .stop = sink_stop,
    .close = sink_close,
};

weir_operator_spec th_collect_spec(th_collect *c, const char *name)
{
    return (weir_operator_spec){.name = name ? name : "collect",
                                .cls = &th_sink_cls,
                                .create = sink_create,
                                .arg = c};
}

size_t th_collect_count(th_collect *c)
{
    pthread_mutex_lock(&c->mu);
    size_t n = c->n;
    pthread_mutex_unlock(&c->mu);
    return n;
}

const char *th_collect_line(th_collect *c, size_t i)
{
    pthread_mutex_lock(&c->mu);
    const char *l = i < c->n ? c->lines[i] : NULL;
    pthread_mutex_unlock(&c->mu);
    return l;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *th_collect_text(th_collect *c, bool sorted)
{
    pthread_mutex_lock(&c->mu);
    char **v = malloc((c->n ? c->n : 1) * sizeof *v);
    if (c->n) /* lines is NULL before the first */
        memcpy(v, c->lines, c->n * sizeof *v);
    if (sorted)
        qsort(v, c->n, sizeof *v, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < c->n; i++)
        len += strlen(v[i]) + 1;
    free(c->text);
    c->text = malloc(len);
    char *p = c->text;
    *p = 0;
    for (size_t i = 0; i < c->n; i++) {
        size_t l = strlen(v[i]);
        memcpy(p, v[i], l);
        p += l;
        *p++ = '\n';
        *p = 0;
    }
    free(v);
    pthread_mutex_unlock(&c->mu);
    return c->text;
}

bool th_collect_wait_count(th_collect *c, size_t n, int timeout_ms)
{
    struct timespec dl = deadline_ms(timeout_ms);
    pthread_mutex_lock(&c->mu);
    while (c->n < n && pthread_cond_timedwait(&c->cv, &c->mu, &dl) == 0)
        ;
    bool ok = c->n >= n;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

static weir_ts min_wm_locked(th_collect *c)
{
    if (c->parallelism == 0)
        return WEIR_TS_MIN;
    weir_ts m = WEIR_TS_MAX;
    for (uint32_t i = 0; i < c->parallelism && i < TH_MAX_SUBTASKS; i++)
        if (c->wm[i] < m)
            m = c->wm[i];
    return m;
}

weir_ts th_collect_watermark(th_collect *c)
{
    pthread_mutex_lock(&c->mu);
    weir_ts m = min_wm_locked(c);
    pthread_mutex_unlock(&c->mu);
    return m;
}

bool th_collect_wait_watermark(th_collect *c, weir_ts wm, int timeout_ms)
{
    struct timespec dl = deadline_ms(timeout_ms);
    pthread_mutex_lock(&c->mu);
    while (min_wm_locked(c) < wm &&
           pthread_cond_timedwait(&c->cv, &c->mu, &dl) == 0)
        ;
    bool ok = min_wm_locked(c) >= wm;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

const weir_ts *th_collect_watermarks(th_collect *c, size_t *n)
{
    pthread_mutex_lock(&c->mu);
    *n = c->n_wm_log;
    const weir_ts *w = c->wm_log;
    pthread_mutex_unlock(&c->mu);
    return w;
}

bool th_collect_stopped(th_collect *c)
{
    pthread_mutex_lock(&c->mu);
    bool f = c->parallelism > 0 && c->stopped >= c->parallelism;
    pthread_mutex_unlock(&c->mu);
    return f;
}

bool th_collect_finished(th_collect *c)
{
    pthread_mutex_lock(&c->mu);
    bool f = c->parallelism > 0 && c->finished >= c->parallelism;
    pthread_mutex_unlock(&c->mu);
    return f;
}

/* ---- metrics ---- */

typedef struct metric_sum {
    const char *pattern;
    double sum;
} metric_sum;

static void metric_visit(void *ud, const char *name, double v)
{
    metric_sum *m = ud;
    if (fnmatch(m->pattern, name, 0) == 0)
        m->sum += v;
}

int th_append_rows(void *ud, const weir_batch *b)
{
    weir_batch **rows = ud;
    for (uint32_t r = 0; r < b->n_rows; r++) {
        if (weir_batch_full(*rows)) {
            weir_batch *nb = weir_batch_create((*rows)->schema, (*rows)->capacity * 2);
            if (!nb)
                return WEIR_ENOMEM;
            int rc = weir_batch_copy(nb, *rows);
            if (rc) {
                weir_batch_destroy(nb);
                return rc;
            }
            weir_batch_destroy(*rows);
            *rows = nb;
        }
        int rc = weir_batch_copy_row(*rows, b, r);
        if (rc)
            return rc;
    }
    return 0;
}

void th_format_row(const weir_batch *b, uint32_t r, char *buf, size_t cap)
{
    size_t n = 0;
    for (uint32_t c = 0; c < b->schema->n_fields && n + 1 < cap; c++) {
        if (c)
            buf[n++] = ',';
        n += weir_batch_format_value(b, c, r, buf + n, cap - n);
    }
    buf[n < cap ? n : cap - 1] = 0;
}

double th_metric(weir_job *job, const char *pattern)
{
    metric_sum m = {pattern, 0};
    weir_job_metrics(job, metric_visit, &m);
    return m.sum;
}

/* ---- schemas ---- */

weir_schema *th_schema(const char *spec)
{
    weir_schema *s = weir_schema_create();
    const char *p = spec;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        char name[64], type[64], extra[64] = "";
        int used = 0;
        if (sscanf(p, "%63s %63[A-Za-z_]%n", name, type, &used) < 2)
            break;
        p += used;
        while (*p == ' ')
            p++;
        if (isalpha((unsigned char)*p)) {
            int u2 = 0;
            sscanf(p, "%63[A-Za-z]%n", extra, &u2);
            p += u2;
        }
        weir_type_id id = WEIR_TYPE_BIGINT;
        if (!strcasecmp(type, "BOOLEAN"))
            id = WEIR_TYPE_BOOLEAN;
        else if (!strcasecmp(type, "INT"))
            id = WEIR_TYPE_INT;
        else if (!strcasecmp(type, "DOUBLE"))
            id = WEIR_TYPE_DOUBLE;
        else if (!strcasecmp(type, "STRING"))
            id = WEIR_TYPE_STRING;
        else if (!strcasecmp(type, "BYTES"))
            id = WEIR_TYPE_BYTES;
        else if (!strcasecmp(type, "TIMESTAMP"))
            id = WEIR_TYPE_TIMESTAMP;
        int idx = weir_schema_add(s, name, weir_type_make(id, true));
        if (!strcasecmp(extra, "ROWTIME"))
            s->rowtime = idx;
    }
    return s;
}

int th_kind_map(void *ud, const weir_batch *in, weir_batch *out)
{
    (void)ud;
    for (uint32_t r = 0; r < in->n_rows; r++) {
        int o = weir_batch_append_row(out);
        if (o < 0)
            return o;
        uint32_t len;
        const char *op = weir_batch_str(in, 0, r, &len);
        weir_row_kind k = WEIR_ROW_INSERT;
        if (len == 2 && !memcmp(op, "-U", 2))
            k = WEIR_ROW_UPDATE_BEFORE;
        else if (len == 2 && !memcmp(op, "+U", 2))
            k = WEIR_ROW_UPDATE_AFTER;
        else if (len == 2 && !memcmp(op, "-D", 2))
            k = WEIR_ROW_DELETE;
        out->kind[o] = (uint8_t)k;
        out->ts[o] = in->ts[r];
        int rc = weir__row_copy_cols(out, (uint32_t)o, 0, in, r, 1,
                                     out->schema->n_fields);
        if (rc)
            return rc;
    }
    return 0;
}

int th_changelog_stream(weir_job *job, th_source *src, const char *name,
                        const weir_watermark_spec *wm,
                        const weir_schema *schema, weir_stream *out)
{
    weir_source_spec ss = th_source_spec(src, name);
    weir_stream st;
    int rc = weir_job_source(job, &ss, wm, 1, &st);
    if (!rc)
        rc = weir_job_map(job, st, schema, th_kind_map, NULL, out);
    if (!rc)
        rc = weir_job_set_parallelism(job, *out, 1);
    return rc;
}

static void th_quiet(void *ud, const char *line)
{
    (void)ud;
    (void)line;
}

int th_enable_checkpoints(weir_job *job, const char *dir, weir_error *err)
{
    weir_checkpoint_config cc;
    weir_checkpoint_config_init(&cc);
    cc.dir = dir;
    cc.restore = WEIR_RESTORE_LATEST;
    cc.log = th_quiet;
    return weir_job_enable_checkpoints(job, &cc, err);
}

char *th_print_row(char *line)
{
    char *gt = strstr(line, "> ");
    return gt && strspn(line, "0123456789") == (size_t)(gt - line) ? gt + 2 : line;
}
