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

typedef struct held_row {
    uint32_t sk_off, sk_len, row_off, row_len; /* into tsort_op.held */
    uint32_t seq;                              /* arrival order */
    int64_t ts;                                /* processing time: the row's own timestamp */
} held_row;

typedef struct tsort_op {
    weir_temporal_sort_config conf;
    uint32_t n_cols;
    weir_state *rows, *last;
    weir_batch *out;
    weir_buf elem, sk, row;
    weir_buf held; /* the rows of the timestamp being emitted */
    held_row *hr;
    uint32_t n_hr, cap_hr;
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

/* Copies one held element (sort key, row) into o->held. */
static int collect(void *ud, const void *val, size_t len)
{
    tsort_op *o = ud;
    weir_cursor cur;
    weir_cursor_init(&cur, val, len);
    const void *sk, *row, *tsb = NULL;
    size_t sklen, rowlen, tslen = 8;
    if ((o->conf.proctime && weir_cursor_get_bytes(&cur, &tsb, &tslen)) || tslen != 8 ||
        weir_cursor_get_bytes(&cur, &sk, &sklen) || weir_cursor_get_bytes(&cur, &row, &rowlen))
        return WEIR_ECORRUPT;
    if (o->n_hr == o->cap_hr) {
        uint32_t cap = o->cap_hr ? 2 * o->cap_hr : 64;
        held_row *n = weir_realloc(o->hr, cap * sizeof *n);
        if (!n)
            return WEIR_ENOMEM;
        o->hr = n;
        o->cap_hr = cap;
    }
    held_row *h = &o->hr[o->n_hr];
    h->sk_off = (uint32_t)o->held.len;
    h->sk_len = (uint32_t)sklen;
    h->row_off = (uint32_t)(o->held.len + sklen);
    h->row_len = (uint32_t)rowlen;
    h->seq = o->n_hr++;
    h->ts = 0;
    for (int i = 0; tsb && i < 8; i++)
        h->ts |= (int64_t)((uint64_t)((const uint8_t *)tsb)[i] << (8 * i));
    if (weir_buf_put(&o->held, sk, sklen) || weir_buf_put(&o->held, row, rowlen))
        return WEIR_ENOMEM;
    return 0;
}

/* Emits the rows held for time ts, sorted. */
static int emit_ts(tsort_op *o, weir_op_ctx *ctx, int64_t ts)
{
    uint8_t ns[8];
    ns_of(ts, ns);
    o->n_hr = 0;
    weir_buf_clear(&o->held);
    int rc = weir_list_get(o->rows, ns, 8, collect, o);
    if (rc)
        return weir_op_fail(ctx, rc, "ORDER BY a time attribute: cannot read its state: %s", weir_strerror(rc));
    /* a stable insertion sort by the secondary key (rows of one timestamp: few, mostly) */
    for (uint32_t i = 1; i < o->n_hr; i++) {
        held_row x = o->hr[i];
        uint32_t j = i;
        while (j > 0) {
            const held_row *p = &o->hr[j - 1];
            size_t m = p->sk_len < x.sk_len ? p->sk_len : x.sk_len;
            int cmp = m ? memcmp(o->held.data + p->sk_off, o->held.data + x.sk_off, m) : 0;
            if (!cmp)
                cmp = (p->sk_len > x.sk_len) - (p->sk_len < x.sk_len);
            if (cmp <= 0)
                break;
            o->hr[j] = o->hr[j - 1];
            j--;
        }
        o->hr[j] = x;
    }
    for (uint32_t i = 0; i < o->n_hr && !rc; i++) {
        int row = weir__out_row(ctx, o->out);
        if (row < 0)
            return row;
        rc = weir__row_decode(o->held.data + o->hr[i].row_off, o->hr[i].row_len, o->out, (uint32_t)row, 0, o->n_cols);
        o->out->kind[row] = WEIR_ROW_INSERT;
        o->out->ts[row] = o->conf.proctime ? o->hr[i].ts : ts;
    }
    uint8_t lv[8];
    ns_of(ts, lv); /* the same little-endian bytes */
    if (!rc)
        rc = weir_state_clear(o->rows, ns, 8);
    if (!rc)
        rc = weir_value_put(o->last, NULL, 0, lv, 8);
    if (o->held.cap > 1 << 20) {
        weir_buf_fini(&o->held);
        weir_buf_init(&o->held);
    }
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
    weir_buf_init(&o->held);
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
    weir_buf_fini(&o->held);
    weir_free(o->hr);
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
