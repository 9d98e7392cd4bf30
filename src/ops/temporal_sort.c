/*
 * ops/temporal_sort.c - ORDER BY a rowtime attribute ASC on a stream
 * (Flink's temporal sort): rows come out in timestamp order, once the
 * watermark shows that no more rows of their timestamp can come.
 *
 * A row with timestamp t is held until the watermark passes t (W > t, as
 * Flink's timer at t: an event-time timer at t + 1 here); then the rows of t
 * come out, ordered by the secondary ORDER BY columns (equal ones in arrival
 * order: a stable sort). A row whose timestamp is not after the last
 * timestamp emitted is late: dropped and counted (late_records_dropped), as
 * Flink's sort does. A row behind the watermark but after the last emitted
 * timestamp is still taken, and comes out at the next watermark.
 *
 * Processing time (conf.proctime; ORDER BY a processing-time attribute,
 * then other columns): a row's time is the clock's millisecond when it
 * arrives, as Flink's processing-time sort reads the clock (after the last
 * millisecond emitted if the clock went back: nothing is late); a
 * processing-time timer at t + 1 emits the rows of t sorted alike, each
 * with its own (event) timestamp. At the end of input the rows still held
 * come out, millisecond by millisecond, as processing-time windows fire at
 * the end of bounded input.
 *
 * State (one subtask, the empty key): "sort-rows" list state, namespace =
 * the timestamp (8 bytes): per row its secondary sort key and its encoded
 * columns (processing time: its own timestamp first); "sort-last" value
 * state: the last timestamp emitted.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "weir/state.h"

typedef struct tsort_op {
    weir_temporal_sort_config conf;
    uint32_t n_cols;
    weir_state *rows, *last;
    weir_batch *out;
    weir_buf elem, sk, row;
    weir__held held; /* the rows of the timestamp being emitted */
    uint64_t *n_late;
} tsort_op;

static void ns_of(int64_t ts, uint8_t ns[8])
{
    for (int i = 0; i < 8; i++)
        ns[i] = (uint8_t)((uint64_t)ts >> (8 * i));
}

/* The last timestamp emitted, or INT64_MIN. */
static int load_last(tsort_op *o, int64_t *last)
{
    const void *v;
    size_t len;
    *last = INT64_MIN;
    int rc = weir_value_get(o->last, NULL, 0, &v, &len);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    if (rc)
        return rc;
    if (len != 8)
        return WEIR_ECORRUPT;
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)((const uint8_t *)v)[i] << (8 * i);
    *last = (int64_t)u;
    return 0;
}

static int tsort_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)input;
    tsort_op *o = op;
    const weir_temporal_sort_config *c = &o->conf;
    static const uint8_t no_key[1];
    int rc = weir_op_set_key(ctx, no_key, 0);
    int64_t last;
    if (rc || (rc = load_last(o, &last)))
        return rc;
    for (uint32_t r = 0; r < in->n_rows; r++) {
        if (in->kind[r] != WEIR_ROW_INSERT)
            return weir_op_fail(ctx, WEIR_EUNSUPPORTED, "ORDER BY a time attribute takes an append-only input, got a %s row",
                                weir_row_kind_name((weir_row_kind)in->kind[r]));
        int64_t t = in->ts[r];
        uint8_t ns[8];
        weir_buf_clear(&o->elem);
        if (c->proctime) {
            int64_t now = weir_op_now_ms(ctx);
            ns_of(t, ns); /* the row's own timestamp goes with it */
            t = now > last ? now : last + 1;
            if ((rc = weir_buf_put_bytes(&o->elem, ns, 8)))
                return rc;
        } else if (t <= last || t == INT64_MAX) {
            weir_op_counter_add(o->n_late, 1);
            continue;
        }
        weir_buf_clear(&o->sk);
        for (uint32_t i = 0; i < c->n_order && !rc; i++)
            rc = weir__sort_key_col(&o->sk, in, c->order_cols[i], r, c->order_desc[i], c->nulls_last[i]);
        ns_of(t, ns);
        if (rc || (rc = weir__row_encode(in, r, o->n_cols, &o->row)) ||
            (rc = weir_buf_put_bytes(&o->elem, o->sk.data, o->sk.len)) ||
            (rc = weir_buf_put_bytes(&o->elem, o->row.data, o->row.len)) ||
            (rc = weir_list_add(o->rows, ns, 8, o->elem.data, o->elem.len)) ||
            (rc = weir_op_timer_register(ctx, c->proctime ? WEIR_TIME_PROCESSING : WEIR_TIME_EVENT, t + 1, 0)))
            return rc;
    }
    return 0;
}

/* Emits the rows held for time ts, sorted. */
static int emit_ts(tsort_op *o, weir_op_ctx *ctx, int64_t ts)
{
    uint8_t ns[8];
    ns_of(ts, ns);
    int rc = weir__held_load(&o->held, o->rows, ns, 8);
    if (rc)
        return weir_op_fail(ctx, rc, "ORDER BY a time attribute: cannot read its state: %s", weir_strerror(rc));
    for (uint32_t i = 0; i < o->held.n && !rc; i++) {
        int row = weir__out_row(ctx, o->out);
        if (row < 0)
            return row;
        rc = weir__row_decode(weir__held_row_data(&o->held, i), o->held.v[i].row_len, o->out, (uint32_t)row, 0,
                              o->n_cols);
        o->out->kind[row] = WEIR_ROW_INSERT;
        o->out->ts[row] = o->conf.proctime ? o->held.v[i].ts : ts;
    }
    uint8_t lv[8];
    ns_of(ts, lv); /* the same little-endian bytes */
    if (!rc)
        rc = weir_state_clear(o->rows, ns, 8);
    if (!rc)
        rc = weir_value_put(o->last, NULL, 0, lv, 8);
    weir__held_trim(&o->held);
    return rc ? rc : weir_op_emit_reset(ctx, o->out);
}

static int tsort_timer(void *op, weir_op_ctx *ctx, const weir_timer *t)
{
    return emit_ts(op, ctx, t->ts - 1);
}

typedef struct held_times {
    int64_t *v;
    size_t n, cap;
    int rc;
} held_times;

static int collect_time(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    (void)key;
    (void)klen;
    held_times *h = ud;
    if (ns_len != 8)
        return h->rc = WEIR_ECORRUPT;
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 16;
        int64_t *v = weir_realloc(h->v, cap * sizeof *v);
        if (!v)
            return h->rc = WEIR_ENOMEM;
        h->v = v;
        h->cap = cap;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)((const uint8_t *)ns)[i] << (8 * i);
    h->v[h->n++] = (int64_t)u;
    return 0;
}

static int cmp_time(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* End of input (processing time): the rows still waiting for the clock come out, millisecond by millisecond. */
static int tsort_finish(void *op, weir_op_ctx *ctx)
{
    tsort_op *o = op;
    if (!o->conf.proctime)
        return 0;
    held_times h = {0};
    int rc = weir_state_keys(o->rows, collect_time, &h);
    if (!rc)
        rc = h.rc;
    if (!rc && h.n)
        qsort(h.v, h.n, sizeof *h.v, cmp_time);
    static const uint8_t no_key[1];
    if (!rc)
        rc = weir_op_set_key(ctx, no_key, 0);
    for (size_t i = 0; !rc && i < h.n; i++) {
        if (i && h.v[i] == h.v[i - 1])
            continue;
        rc = emit_ts(o, ctx, h.v[i]);
        if (!rc)
            weir_op_timer_delete(ctx, WEIR_TIME_PROCESSING, h.v[i] + 1, 0); /* it may have gone: it would find nothing */
    }
    weir_free(h.v);
    return rc;
}

static int tsort_create(void *arg, const weir_op_info *info, void **out_op)
{
    const weir_temporal_sort_config *c = arg;
    tsort_op *o = weir_calloc(1, sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    *out_op = o;
    o->conf = *c;
    o->n_cols = c->schema->n_fields;
    weir_buf_init(&o->elem);
    weir_buf_init(&o->sk);
    weir_buf_init(&o->row);
    weir_buf_init(&o->held.buf);
    o->held.with_ts = c->proctime;
    o->out = weir_batch_create(c->schema, info->batch_size);
    return o->out ? 0 : WEIR_ENOMEM;
}

static int tsort_open(void *op, weir_op_ctx *ctx)
{
    tsort_op *o = op;
    weir_state_desc rows = {.name = "sort-rows", .kind = WEIR_STATE_LIST};
    weir_state_desc last = {.name = "sort-last", .kind = WEIR_STATE_VALUE};
    o->n_late = weir_op_counter(ctx, "late_records_dropped");
    int rc = weir_op_get_state(ctx, &rows, &o->rows);
    return rc ? rc : weir_op_get_state(ctx, &last, &o->last);
}

static void tsort_close(void *op)
{
    tsort_op *o = op;
    if (!o)
        return;
    weir_batch_destroy(o->out);
    weir_buf_fini(&o->elem);
    weir_buf_fini(&o->sk);
    weir_buf_fini(&o->row);
    weir__held_fini(&o->held);
    weir_free(o);
}

static const weir_operator_class tsort_class = {
    .name = "TemporalSort",
    .open = tsort_open,
    .process = tsort_process,
    .timer = tsort_timer,
    .finish = tsort_finish,
    .close = tsort_close,
};

static void conf_free(void *arg) { weir_free(arg); }

int weir_temporal_sort_spec(const weir_temporal_sort_config *cfg, weir_operator_spec *out)
{
    if (cfg->n_order > WEIR_KEY_MAX_COLS || !cfg->schema)
        return WEIR_EINVAL;
    weir_temporal_sort_config *c = weir_malloc(sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    *c = *cfg;
    *out = (weir_operator_spec){"TemporalSort", &tsort_class, tsort_create, c, conf_free};
    return 0;
}
