/*
 * ops/over_agg.c - OVER aggregation over an append-only input in event time:
 * every input row comes out once, with aggregates over the rows of its
 * partition that precede it in time order (Flink's OVER aggregation).
 *
 * Frames (ORDER BY the rowtime attribute, ascending):
 *   RANGE UNBOUNDED PRECEDING   every earlier row and every row of the same
 *                               timestamp (peers see each other);
 *   RANGE BETWEEN d PRECEDING   rows with ts in [t - d, t];
 *   ROWS UNBOUNDED PRECEDING    every earlier row, peers in arrival order;
 *   ROWS BETWEEN n PRECEDING    the row and the n rows before it.
 *
 * Time. A row with timestamp t is buffered until the watermark passes t
 * (W > t: no more rows with timestamp t can come, DESIGN.md's watermark,
 * which is Flink's timer at t), then the rows of t are processed in arrival
 * order. A row whose timestamp is not after the last timestamp its
 * partition processed is late: dropped and counted (late_records_dropped),
 * as Flink does.
 *
 * State per partition key:
 *   "over-rows" list state, namespace = timestamp (8 bytes): the rows of
 *     that timestamp not processed yet, and for bounded frames the rows the
 *     frame may still need to retract;
 *   "over-acc" value state: version, the last processed timestamp, the
 *     aggregates' accumulators, and for bounded frames the timestamps still
 *     held in the frame with their row counts (oldest first) and how many
 *     rows of the oldest were retracted already (ROWS).
 * An event-time timer at t + 1 (deduplicated) triggers the rows of t.
 * Bounded frames need retractable aggregates (the planner binds the
 * _RETRACT variants of MIN, MAX, FIRST_VALUE and LAST_VALUE).
 *
 * Processing time (ORDER BY a processing-time attribute; conf.proctime):
 * rows are ordered by their arrival here, as Flink's processing-time OVER
 * functions order them, and nothing is late.
 *   ROWS (bounded or not), RANGE UNBOUNDED: each row comes out as it
 *     arrives, with the aggregates over the rows that arrived before it and
 *     itself (no peers). A bounded ROWS frame keeps its rows in "over-rows"
 *     under a sequence number (namespace = seq), one row each; held[0] is
 *     then {oldest seq kept, rows kept} (n_held is 0 or 1).
 *   RANGE BETWEEN d PRECEDING: a row is buffered under the clock's
 *     millisecond t when it arrives (namespace = t, each value the row's
 *     8-byte event timestamp then the row) and processed, with every row of
 *     that millisecond as its peers, when the clock passes t (a
 *     processing-time timer at t + 1); the frame holds the rows that
 *     arrived in [t - d, t]. At the end of the input the rows still
 *     buffered are processed (in key, then time order), as weir fires
 *     processing-time windows at the end of bounded input.
 * Each output row keeps its input row's event timestamp.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "util/bytes.h"
#include "weir/state.h"

#define ACC_VERSION 1

typedef struct held {
    int64_t ts;
    uint32_t n;
} held;

typedef struct over_op {
    weir_over_config conf;
    weir_agg *aggs; /* conf.aggs points here */
    uint32_t n_in;  /* input columns */
    size_t *acc_off, acc_size;
    uint8_t *accs;
    weir_state *rows, *acc;
    weir_batch *cur; /* the rows of the timestamp being processed */
    weir_batch *old; /* the rows of an older timestamp, to retract */
    int64_t old_ts;
    bool old_valid;
    weir_batch *out;
    weir_buf val, row;
    held *held;
    uint32_t n_held, cap_held;
    uint32_t head; /* ROWS: rows of held[0] retracted already */
    int64_t last_ts;
    uint8_t key[1024];
    uint64_t *n_late;
    bool ts_prefix; /* values of "over-rows" start with the row's event timestamp */
} over_op;

static void ns_of(int64_t ts, uint8_t ns[8])
{
    for (int i = 0; i < 8; i++)
        ns[i] = (uint8_t)((uint64_t)ts >> (8 * i));
}

/* ---- the accumulator state ---- */

static void accs_fini(over_op *o)
{
    for (uint32_t i = 0; i < o->conf.n_aggs; i++)
        weir_agg_destroy(&o->aggs[i], o->accs + o->acc_off[i]);
}

static void accs_init(over_op *o)
{
    for (uint32_t i = 0; i < o->conf.n_aggs; i++)
        weir_agg_init(&o->aggs[i], o->accs + o->acc_off[i]);
}

static int held_reserve(over_op *o, uint32_t n)
{
    if (n <= o->cap_held)
        return 0;
    uint32_t cap = o->cap_held ? o->cap_held * 2 : 16;
    while (cap < n)
        cap *= 2;
    held *h = weir_realloc(o->held, cap * sizeof *h);
    if (!h)
        return WEIR_ENOMEM;
    o->held = h;
    o->cap_held = cap;
    return 0;
}

/*
 * Opens the partition's accumulator state at c and reads its header (the
 * last processed timestamp). 1 when the partition has no state yet.
 */
static int open_state(over_op *o, weir_cursor *c, int64_t *last)
{
    const void *v;
    size_t len;
    *last = WEIR_TS_MIN;
    int rc = weir_value_get(o->acc, NULL, 0, &v, &len);
    if (rc == WEIR_ENOTFOUND)
        return 1;
    if (rc)
        return rc;
    weir_cursor_init(c, v, len);
    uint8_t ver;
    if (weir_cursor_get_u8(c, &ver) || ver != ACC_VERSION || weir_cursor_get_i64(c, last))
        return WEIR_ECORRUPT;
    return 0;
}

/* Only the last processed timestamp (the per-row lateness check). */
static int load_last(over_op *o, int64_t *last)
{
    weir_cursor c;
    int rc = open_state(o, &c, last);
    return rc > 0 ? 0 : rc;
}

/* Loads the partition's accumulators (initialised empty when it has none). */
static int load(over_op *o)
{
    accs_init(o);
    o->n_held = 0;
    o->head = 0;
    weir_cursor c;
    int rc = open_state(o, &c, &o->last_ts);
    if (rc)
        return rc > 0 ? 0 : rc;
    for (uint32_t i = 0; i < o->conf.n_aggs; i++) {
        void *acc = o->accs + o->acc_off[i];
        weir_agg_destroy(&o->aggs[i], acc);
        if ((rc = o->aggs[i].cls->deserialize(&o->aggs[i], acc, &c)))
            return rc;
    }
    uint32_t n;
    if (weir_cursor_get_u32(&c, &n) || weir_cursor_get_u32(&c, &o->head))
        return WEIR_ECORRUPT;
    if ((rc = held_reserve(o, n)))
        return rc;
    for (uint32_t i = 0; i < n; i++)
        if (weir_cursor_get_i64(&c, &o->held[i].ts) || weir_cursor_get_u32(&c, &o->held[i].n))
            return WEIR_ECORRUPT;
    o->n_held = n;
    return weir_cursor_left(&c) ? WEIR_ECORRUPT : 0;
}

static int store(over_op *o)
{
    weir_buf_clear(&o->val);
    int rc = weir_buf_put_u8(&o->val, ACC_VERSION);
    rc = rc ? rc : weir_buf_put_i64(&o->val, o->last_ts);
    for (uint32_t i = 0; !rc && i < o->conf.n_aggs; i++)
        rc = o->aggs[i].cls->serialize(&o->aggs[i], o->accs + o->acc_off[i], &o->val);
    rc = rc ? rc : weir_buf_put_u32(&o->val, o->n_held);
    rc = rc ? rc : weir_buf_put_u32(&o->val, o->head);
    for (uint32_t i = 0; !rc && i < o->n_held; i++) {
        rc = weir_buf_put_i64(&o->val, o->held[i].ts);
        rc = rc ? rc : weir_buf_put_u32(&o->val, o->held[i].n);
    }
    return rc ? rc : weir_value_put(o->acc, NULL, 0, o->val.data, o->val.len);
}

/* ---- rows of one timestamp, decoded into a batch ---- */

typedef struct decode_ctx {
    weir_batch *b;
    uint32_t n;
    int rc;
} decode_ctx;

static int count_one(void *ud, const void *val, size_t len)
{
    (void)val;
    (void)len;
    ((decode_ctx *)ud)->n++;
    return 0;
}

typedef struct decode_ctx_ts {
    decode_ctx d;
    bool ts_prefix;
} decode_ctx_ts;

static int decode_one(void *ud, const void *val, size_t len)
{
    decode_ctx_ts *dt = ud;
    decode_ctx *d = &dt->d;
    const uint8_t *p = val;
    int64_t ts = 0;
    if (dt->ts_prefix) {
        if (len < 8) {
            d->rc = WEIR_ECORRUPT;
            return 1;
        }
        for (int i = 0; i < 8; i++)
            ts |= (int64_t)((uint64_t)p[i] << (8 * i));
        p += 8;
        len -= 8;
    }
    int row = weir_batch_append_row(d->b);
    if (row < 0)
        d->rc = WEIR_EINVAL;
    else
        d->rc = weir__row_decode(p, len, d->b, (uint32_t)row, 0, d->b->schema->n_fields);
    if (!d->rc && dt->ts_prefix)
        d->b->ts[row] = ts;
    return d->rc != 0;
}

/* The rows of timestamp ts into *b, replaced by a larger batch when they do not fit. */
static int rows_at(over_op *o, int64_t ts, weir_batch **b)
{
    uint8_t ns[8];
    ns_of(ts, ns);
    decode_ctx d = {*b, 0, 0};
    int rc = weir_list_get(o->rows, ns, 8, count_one, &d);
    if (rc == WEIR_ENOTFOUND)
        d.n = 0;
    else if (rc)
        return rc;
    if (d.n > (*b)->capacity) {
        uint32_t cap = (*b)->capacity * 2 > d.n ? (*b)->capacity * 2 : d.n;
        weir_batch *nb = weir_batch_create((*b)->schema, cap);
        if (!nb)
            return WEIR_ENOMEM;
        weir_batch_destroy(*b);
        *b = nb;
    }
    weir_batch_reset(*b);
    if (!d.n)
        return 0;
    decode_ctx_ts dt = {{*b, 0, 0}, o->ts_prefix};
    rc = weir_list_get(o->rows, ns, 8, decode_one, &dt);
    return rc ? rc : dt.d.rc;
}

static int forget(over_op *o, int64_t ts)
{
    uint8_t ns[8];
    ns_of(ts, ns);
    if (o->old_valid && o->old_ts == ts)
        o->old_valid = false;
    return weir_state_clear(o->rows, ns, 8);
}

/* The rows of held[0] (or of the current timestamp t, decoded in cur). */
static int oldest_rows(over_op *o, int64_t t, weir_batch **b)
{
    if (o->held[0].ts == t) {
        *b = o->cur;
        return 0;
    }
    if (!o->old_valid || o->old_ts != o->held[0].ts) {
        int rc = rows_at(o, o->held[0].ts, &o->old);
        if (rc)
            return rc;
        o->old_ts = o->held[0].ts;
        o->old_valid = true;
    }
    *b = o->old;
    return 0;
}

static int fold(over_op *o, weir_op_ctx *ctx, const weir_batch *b, uint32_t r, bool retract)
{
    for (uint32_t i = 0; i < o->conf.n_aggs; i++) {
        void *acc = o->accs + o->acc_off[i];
        int rc = retract ? weir_agg_retract(&o->aggs[i], acc, b, r) : weir_agg_add(&o->aggs[i], acc, b, r);
        if (rc == WEIR_EINVAL && o->aggs[i].label) /* the row's value is refused: the aggregate's message */
            return weir_op_fail(ctx, rc, "%s", o->aggs[i].label);
        if (rc)
            return rc;
    }
    return 0;
}

/* Drops held[0] from the frame's bookkeeping and its rows from state. */
static int pop_oldest(over_op *o)
{
    int rc = forget(o, o->held[0].ts);
    memmove(&o->held[0], &o->held[1], (o->n_held - 1) * sizeof *o->held);
    o->n_held--;
    o->head = 0;
    return rc;
}

/* ---- output ---- */

static int flush(over_op *o, weir_op_ctx *ctx) { return weir_op_emit_reset(ctx, o->out); }

static int emit(over_op *o, weir_op_ctx *ctx, uint32_t r, int64_t ts)
{
    int row = weir__out_row(ctx, o->out);
    if (row < 0)
        return row;
    int rc = weir__row_copy_cols(o->out, (uint32_t)row, 0, o->cur, r, 0, o->n_in);
    for (uint32_t i = 0; !rc && i < o->conf.n_aggs; i++)
        rc = o->aggs[i].cls->result(&o->aggs[i], o->accs + o->acc_off[i], o->out, o->n_in + i, (uint32_t)row);
    o->out->kind[row] = WEIR_ROW_INSERT;
    o->out->ts[row] = o->conf.proctime ? o->cur->ts[r] : ts;
    return rc;
}

/* ---- processing ---- */

static int proc_process(over_op *o, weir_op_ctx *ctx, const weir_batch *in);

/* Checks that row r is an insert and makes its partition the current key. */
static int set_row_key(over_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r)
{
    if (in->kind[r] != WEIR_ROW_INSERT)
        return weir_op_fail(ctx, WEIR_EUNSUPPORTED, "OVER aggregation takes an append-only input, got a %s row",
                            weir_row_kind_name((weir_row_kind)in->kind[r]));
    size_t klen = weir_key_encode(in, &o->conf.partition, r, o->key, sizeof o->key);
    if (klen > sizeof o->key)
        return weir_op_fail(ctx, WEIR_EINVAL, "partition key of %zu bytes exceeds the limit of %zu", klen,
                            sizeof o->key);
    return weir_op_set_key(ctx, o->key, klen);
}

static int over_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)input;
    over_op *o = op;
    if (o->conf.proctime)
        return proc_process(o, ctx, in);
    uint8_t ns[8];
    for (uint32_t r = 0; r < in->n_rows; r++) {
        int64_t t = in->ts[r], last;
        int rc = set_row_key(o, ctx, in, r);
        if (rc || (rc = load_last(o, &last)))
            return rc;
        if (t <= last) {
            weir_op_counter_add(o->n_late, 1);
            continue;
        }
        ns_of(t, ns);
        if ((rc = weir__row_encode(in, r, o->n_in, &o->row)) ||
            (rc = weir_list_add(o->rows, ns, 8, o->row.data, o->row.len)) ||
            (rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, t + 1, 0)))
            return rc;
    }
    return 0;
}

/* RANGE: the rows of t enter together and share one result. */
static int range_frame(over_op *o, weir_op_ctx *ctx, int64_t t)
{
    const weir_over_config *c = &o->conf;
    int rc = 0;
    if (!c->unbounded) {
        /* rows older than t - preceding leave the frame */
        while (o->n_held && o->held[0].ts < t - c->preceding) {
            weir_batch *b;
            if ((rc = oldest_rows(o, t, &b)))
                return rc;
            for (uint32_t r = 0; r < b->n_rows; r++)
                if ((rc = fold(o, ctx, b, r, true)))
                    return rc;
            if ((rc = pop_oldest(o)))
                return rc;
        }
    }
    for (uint32_t r = 0; r < o->cur->n_rows; r++)
        if ((rc = fold(o, ctx, o->cur, r, false)))
            return rc;
    for (uint32_t r = 0; r < o->cur->n_rows; r++)
        if ((rc = emit(o, ctx, r, t)))
            return rc;
    return 0;
}

/* ROWS: each row of t in arrival order, with the n rows before it. */
static int rows_frame(over_op *o, weir_op_ctx *ctx, int64_t t, uint64_t in_frame)
{
    const weir_over_config *c = &o->conf;
    int rc;
    for (uint32_t r = 0; r < o->cur->n_rows; r++) {
        /* The row leaving a full frame goes before the new one comes (as Flink's bounded ROWS
         * frames do): ARRAY_AGG(DISTINCT) then puts a value whose last row left at the end. */
        if (!c->unbounded && in_frame + 1 > (uint64_t)c->preceding + 1) {
            weir_batch *b;
            if ((rc = oldest_rows(o, t, &b)) || (rc = fold(o, ctx, b, o->head, true)))
                return rc;
            in_frame--;
            if (++o->head == o->held[0].n && (rc = pop_oldest(o)))
                return rc;
        }
        if ((rc = fold(o, ctx, o->cur, r, false)))
            return rc;
        in_frame++;
        if ((rc = emit(o, ctx, r, t)))
            return rc;
    }
    return 0;
}

/* Processes the rows of t (event time: a timestamp; processing time: a
 * millisecond of arrival) of the current key. */
static int process_ts(over_op *o, weir_op_ctx *ctx, int64_t t)
{
    const weir_over_config *c = &o->conf;
    o->old_valid = false; /* the cached older rows were another partition's */
    accs_fini(o);
    int rc = load(o);
    if (rc)
        return weir_op_fail(ctx, rc, "OVER aggregation: cannot read its state: %s", weir_strerror(rc));
    if (t <= o->last_ts) /* processed already (a processing-time timer after the end of input) */
        return 0;
    if ((rc = rows_at(o, t, &o->cur)))
        return rc;
    if (o->cur->n_rows == 0)
        return 0;
    uint64_t in_frame = 0;
    if (!c->unbounded) {
        /* t joins the frame's timestamps before its rows are folded (ROWS may retract them again) */
        for (uint32_t i = 0; i < o->n_held; i++)
            in_frame += o->held[i].n;
        in_frame -= o->head;
        if ((rc = held_reserve(o, o->n_held + 1)))
            return rc;
        o->held[o->n_held++] = (held){t, o->cur->n_rows};
    }
    rc = c->rows ? rows_frame(o, ctx, t, in_frame) : range_frame(o, ctx, t);
    if (!rc && c->unbounded)
        rc = forget(o, t);
    o->last_ts = t;
    if (!rc)
        rc = store(o);
    if (!rc)
        rc = flush(o, ctx);
    return rc;
}

static int over_timer(void *op, weir_op_ctx *ctx, const weir_timer *tm)
{
    return process_ts(op, ctx, tm->ts - 1);
}

/* ---- processing time ---- */

/* A row of RANGE BETWEEN d PRECEDING waits in state for the clock to pass its millisecond. */
static int proc_buffer(over_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r, int64_t now)
{
    int64_t last;
    int rc = load_last(o, &last);
    if (rc)
        return rc;
    /* the clock passed `last` when its rows were processed; one that went back still files after them */
    int64_t t = now > last ? now : last + 1;
    uint8_t ns[8];
    ns_of(in->ts[r], ns); /* the value: the row's event time, then the row */
    weir_buf_clear(&o->val);
    if ((rc = weir_buf_put(&o->val, ns, 8)) || (rc = weir__row_encode(in, r, o->n_in, &o->row)) ||
        (rc = weir_buf_put(&o->val, o->row.data, o->row.len)))
        return rc;
    ns_of(t, ns);
    if ((rc = weir_list_add(o->rows, ns, 8, o->val.data, o->val.len)))
        return rc;
    return weir_op_timer_register(ctx, WEIR_TIME_PROCESSING, t + 1, 0);
}

/* ROWS (bounded or not) and RANGE UNBOUNDED: the row comes out at once. */
static int proc_now(over_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r, int64_t now)
{
    const weir_over_config *c = &o->conf;
    o->old_valid = false;
    accs_fini(o);
    int rc = load(o);
    if (rc)
        return weir_op_fail(ctx, rc, "OVER aggregation: cannot read its state: %s", weir_strerror(rc));
    weir_batch_reset(o->cur);
    int row = weir_batch_append_row(o->cur);
    if (row < 0)
        return WEIR_EINVAL;
    if ((rc = weir__row_copy_cols(o->cur, 0, 0, in, r, 0, o->n_in)))
        return rc;
    o->cur->kind[0] = WEIR_ROW_INSERT;
    o->cur->ts[0] = in->ts[r];
    if (!c->unbounded) {
        /* keep the row under the next sequence number; the oldest leaves a full frame */
        if (!o->n_held) {
            if ((rc = held_reserve(o, 1)))
                return rc;
            o->held[0] = (held){0, 0};
            o->n_held = 1;
        }
        uint8_t ns[8];
        ns_of(o->held[0].ts + o->held[0].n, ns);
        if ((rc = weir__row_encode(in, r, o->n_in, &o->row)) ||
            (rc = weir_list_add(o->rows, ns, 8, o->row.data, o->row.len)))
            return rc;
        o->held[0].n++;
        if (o->held[0].n > (uint64_t)c->preceding + 1) {
            if ((rc = rows_at(o, o->held[0].ts, &o->old)) || (rc = fold(o, ctx, o->old, 0, true)) ||
                (rc = forget(o, o->held[0].ts)))
                return rc;
            o->held[0].ts++;
            o->held[0].n--;
        }
    }
    /* after the row that left the frame, as rows_frame */
    if ((rc = fold(o, ctx, o->cur, 0, false)))
        return rc;
    if (now > o->last_ts)
        o->last_ts = now;
    if ((rc = emit(o, ctx, 0, 0)))
        return rc;
    return store(o);
}

static int proc_process(over_op *o, weir_op_ctx *ctx, const weir_batch *in)
{
    const weir_over_config *c = &o->conf;
    int64_t now = weir_op_now_ms(ctx);
    for (uint32_t r = 0; r < in->n_rows; r++) {
        int rc = set_row_key(o, ctx, in, r);
        if (!rc)
            rc = !c->rows && !c->unbounded ? proc_buffer(o, ctx, in, r, now) : proc_now(o, ctx, in, r, now);
        if (rc)
            return rc;
    }
    return flush(o, ctx);
}

/* A (key, millisecond) whose rows still wait for the clock. */
typedef struct pending {
    uint8_t *key;
    size_t klen;
    int64_t t;
} pending;

typedef struct pending_list {
    over_op *o;
    pending *v;
    size_t n, cap;
    int rc;
} pending_list;

static int collect_pending(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    pending_list *pl = ud;
    int64_t last, t = 0;
    if (ns_len != 8)
        return pl->rc = WEIR_ECORRUPT;
    const uint8_t *p = ns;
    for (int i = 0; i < 8; i++)
        t |= (int64_t)((uint64_t)p[i] << (8 * i));
    int rc = load_last(pl->o, &last);
    if (rc)
        return pl->rc = rc;
    if (t <= last) /* kept for the frame, processed already */
        return 0;
    if (pl->n == pl->cap) {
        size_t cap = pl->cap ? pl->cap * 2 : 16;
        pending *nv = weir_realloc(pl->v, cap * sizeof *nv);
        if (!nv)
            return pl->rc = WEIR_ENOMEM;
        pl->v = nv;
        pl->cap = cap;
    }
    uint8_t *k = weir_malloc(klen ? klen : 1);
    if (!k)
        return pl->rc = WEIR_ENOMEM;
    memcpy(k, key, klen);
    pl->v[pl->n++] = (pending){k, klen, t};
    return 0;
}

static int cmp_pending(const void *a, const void *b)
{
    const pending *x = a, *y = b;
    int c = weir__bytes_cmp(x->key, x->klen, y->key, y->klen);
    if (c)
        return c;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* End of input: RANGE rows still waiting for the clock come out now. */
static int over_finish(void *op, weir_op_ctx *ctx)
{
    over_op *o = op;
    if (!o->conf.proctime || o->conf.rows || o->conf.unbounded)
        return 0;
    pending_list pl = {.o = o};
    int rc = weir_state_keys(o->rows, collect_pending, &pl);
    if (!rc)
        rc = pl.rc;
    if (!rc && pl.n) /* qsort takes no NULL array, not even an empty one */
        qsort(pl.v, pl.n, sizeof *pl.v, cmp_pending);
    for (size_t i = 0; !rc && i < pl.n; i++) {
        if (!(rc = weir_op_set_key(ctx, pl.v[i].key, pl.v[i].klen)))
            rc = process_ts(o, ctx, pl.v[i].t);
        if (!rc && (rc = weir_op_timer_delete(ctx, WEIR_TIME_PROCESSING, pl.v[i].t + 1, 0)))
            rc = 0; /* the timer may have gone already; it would find nothing */
    }
    for (size_t i = 0; i < pl.n; i++)
        weir_free(pl.v[i].key);
    weir_free(pl.v);
    return rc;
}

/* ---- lifecycle ---- */

static int over_create(void *arg, const weir_op_info *info, void **out_op)
{
    const weir_over_config *c = arg;
    over_op *o = weir_calloc(1, sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    *out_op = o;
    o->conf = *c;
    o->aggs = (weir_agg *)c->aggs;
    o->n_in = c->out_schema->n_fields - c->n_aggs;
    o->acc_off = weir_calloc(c->n_aggs + 1, sizeof *o->acc_off);
    if (!o->acc_off)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < c->n_aggs; i++) {
        o->acc_off[i] = o->acc_size;
        o->acc_size += (weir_agg_acc_size(&c->aggs[i]) + 15) & ~(size_t)15;
    }
    o->accs = weir_calloc(1, o->acc_size ? o->acc_size : 1);
    o->ts_prefix = c->proctime && !c->rows && !c->unbounded;
    weir_buf_init(&o->val);
    weir_buf_init(&o->row);
    const weir_schema *in = info->input_schemas[0];
    o->cur = weir_batch_create(in, info->batch_size);
    o->old = weir_batch_create(in, info->batch_size);
    o->out = weir_batch_create(c->out_schema, info->batch_size);
    if (!o->accs || !o->cur || !o->old || !o->out)
        return WEIR_ENOMEM;
    accs_init(o);
    return 0;
}

static int over_open(void *op, weir_op_ctx *ctx)
{
    over_op *o = op;
    weir_state_desc rows = {.name = "over-rows", .kind = WEIR_STATE_LIST};
    weir_state_desc acc = {.name = "over-acc", .kind = WEIR_STATE_VALUE};
    o->n_late = weir_op_counter(ctx, "late_records_dropped");
    int rc = weir_op_get_state(ctx, &rows, &o->rows);
    return rc ? rc : weir_op_get_state(ctx, &acc, &o->acc);
}

static void over_close(void *op)
{
    over_op *o = op;
    if (!o)
        return;
    if (o->accs)
        accs_fini(o);
    weir_free(o->accs);
    weir_free(o->acc_off);
    weir_free(o->held);
    weir_batch_destroy(o->cur);
    weir_batch_destroy(o->old);
    weir_batch_destroy(o->out);
    weir_buf_fini(&o->val);
    weir_buf_fini(&o->row);
    weir_free(o);
}

static const weir_operator_class over_class = {
    .name = "OverAggregate",
    .open = over_open,
    .process = over_process,
    .timer = over_timer,
    .finish = over_finish,
    .close = over_close,
};

typedef struct over_arg {
    weir_over_config conf;
    weir_agg aggs[];
} over_arg;

static void arg_free(void *arg) { weir_free(arg); }

int weir_over_spec(const weir_over_config *cfg, weir_operator_spec *out)
{
    if (!cfg->out_schema || cfg->out_schema->n_fields < cfg->n_aggs || (!cfg->unbounded && cfg->preceding < 0))
        return WEIR_EINVAL;
    /* processing-time ROWS keep the frame's row count in a u32 */
    if (cfg->proctime && cfg->rows && !cfg->unbounded && cfg->preceding >= UINT32_MAX)
        return WEIR_EINVAL;
    for (uint32_t i = 0; i < cfg->n_aggs; i++)
        if (!cfg->unbounded && !weir_agg_can_retract(&cfg->aggs[i]))
            return WEIR_EUNSUPPORTED;
    over_arg *a = weir_malloc(sizeof *a + (cfg->n_aggs + 1) * sizeof a->aggs[0]);
    if (!a)
        return WEIR_ENOMEM;
    a->conf = *cfg;
    memcpy(a->aggs, cfg->aggs, cfg->n_aggs * sizeof a->aggs[0]);
    a->conf.aggs = a->aggs;
    *out = (weir_operator_spec){"OverAggregate", &over_class, over_create, a, arg_free};
    return 0;
}
