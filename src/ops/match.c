/*
 * ops/match.c - the Match operator (MATCH_RECOGNIZE); see ops/match.h for
 * what it computes.
 *
 * The pattern is a concatenation of terms (a variable with a quantifier).
 * The search from a start row is a backtracking walk in preference order
 * that records, per row of the candidate match, the variable it is mapped
 * to (asg). It ends in MATCH, FAIL, or WAIT: the preferred way on needs a
 * row not yet released, so nothing after it may be decided yet (a less
 * preferred match must not be taken while a preferred one may still come).
 * The partial matches are thus implied by the released rows from the first
 * undecided start, which is what the state keeps; a restore (at any
 * parallelism, the state being keyed) resumes from them.
 */
#include <string.h>

#include "ops/match.h"
#include "ops/rowcodec.h"
#include "weir/state.h"

enum { M_FAIL, M_MATCH, M_WAIT };

typedef struct match_op {
    weir_match_config conf;
    uint32_t n_cols;
    weir_state *rows, *seqst;
    weir_batch *seq;   /* the released rows of the current key */
    weir_batch *slotb; /* one row of slot values */
    weir_batch *mb;    /* one row of measures */
    weir_batch *out;
    weir_expr_env *env;
    weir_buf elem, sk, row, enc;
    weir__held held; /* the rows of the timestamp being released */
    uint32_t *asg; /* variable of each row of the candidate match, from its start */
    uint32_t cap_asg;
    /* the search in progress */
    uint32_t start, n, end;
    int64_t next_min; /* the least timestamp a row not yet released may have */
    bool final;       /* no more rows will come */
    weir_op_ctx *ctx;
    uint64_t *n_late, *n_matches;
} match_op;

/* ------------------------------------------------------------- the sequence */

static int seq_reserve(match_op *o, uint32_t need)
{
    if (o->seq && o->seq->capacity >= need)
        return 0;
    uint32_t cap = o->seq ? o->seq->capacity : 64;
    while (cap < need)
        cap *= 2;
    weir_batch *nb = weir_batch_create(o->conf.in_schema, cap);
    if (!nb)
        return WEIR_ENOMEM;
    if (o->seq) {
        int rc = weir_batch_copy(nb, o->seq);
        weir_batch_destroy(o->seq);
        o->seq = nb;
        return rc;
    }
    o->seq = nb;
    return 0;
}

/* Appends an encoded row with timestamp ts to the sequence. */
static int seq_push(match_op *o, const void *row, size_t len, int64_t ts)
{
    int rc = seq_reserve(o, o->seq->n_rows + 1);
    if (rc || (rc = weir_batch_append_row(o->seq)) < 0)
        return rc;
    uint32_t r = (uint32_t)rc;
    o->seq->ts[r] = ts;
    o->seq->kind[r] = WEIR_ROW_INSERT;
    return weir__row_decode(row, len, o->seq, r, 0, o->n_cols);
}

/* The key's released rows from state into o->seq. */
static int seq_load(match_op *o)
{
    weir_batch_reset(o->seq);
    const void *v;
    size_t len;
    int rc = weir_value_get(o->seqst, NULL, 0, &v, &len);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    if (rc)
        return rc;
    weir_cursor cur;
    weir_cursor_init(&cur, v, len);
    uint32_t n;
    if (weir_cursor_get_u32(&cur, &n))
        return WEIR_ECORRUPT;
    if ((rc = seq_reserve(o, n)))
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        int64_t ts;
        const void *row;
        size_t rlen;
        if (weir_cursor_get_i64(&cur, &ts) || weir_cursor_get_bytes(&cur, &row, &rlen))
            return WEIR_ECORRUPT;
        if ((rc = seq_push(o, row, rlen, ts)))
            return rc;
    }
    return 0;
}

/* Stores the rows [from, n) of o->seq as the key's released rows. */
static int seq_store(match_op *o, uint32_t from)
{
    if (from >= o->seq->n_rows)
        return weir_state_clear(o->seqst, NULL, 0);
    weir_buf_clear(&o->enc);
    int rc = weir_buf_put_u32(&o->enc, o->seq->n_rows - from);
    for (uint32_t r = from; r < o->seq->n_rows && !rc; r++) {
        if (!(rc = weir__row_encode(o->seq, r, o->n_cols, &o->row)) &&
            !(rc = weir_buf_put_i64(&o->enc, o->seq->ts[r])))
            rc = weir_buf_put_bytes(&o->enc, o->row.data, o->row.len);
    }
    return rc ? rc : weir_value_put(o->seqst, NULL, 0, o->enc.data, o->enc.len);
}

/* ------------------------------------------------------------------ slots */

static bool maps(const match_op *o, int32_t var, uint32_t r)
{
    return var < 0 || o->asg[r - o->start] == (uint32_t)var;
}

/* Aggregate of slot s over the rows [start, end) mapped to its variable into slot column sc. */
static int fill_agg(match_op *o, const weir_mr_slot *s, uint32_t end, uint32_t sc)
{
    weir_batch *sb = o->slotb;
    const weir_batch *q = o->seq;
    int64_t cnt = 0, isum = 0, iext = 0;
    double dsum = 0, dext = 0;
    weir_type_id t = s->col >= 0 ? q->cols[s->col].type.id : WEIR_TYPE_BIGINT;
    bool dbl = t == WEIR_TYPE_DOUBLE, i32 = t == WEIR_TYPE_INT;
    for (uint32_t r = o->start; r < end; r++) {
        if (!maps(o, s->var, r))
            continue;
        if (s->col < 0) {
            cnt++;
            continue;
        }
        if (weir_batch_is_null(q, (uint32_t)s->col, r))
            continue;
        double dv = 0;
        int64_t iv = 0;
        if (dbl)
            dv = WEIR_COL_F64(q, s->col)[r];
        else if (i32)
            iv = WEIR_COL_I32(q, s->col)[r];
        else
            iv = WEIR_COL_I64(q, s->col)[r];
        bool first = cnt++ == 0;
        dsum += dv;
        isum = (int64_t)((uint64_t)isum + (uint64_t)iv); /* wraps as Flink's long sum */
        if (first || (s->agg == WEIR_MR_MIN ? (dbl ? dv < dext : iv < iext) : (dbl ? dv > dext : iv > iext)))
            dext = dv, iext = iv;
    }
    if (s->agg == WEIR_MR_COUNT) {
        weir_batch_set_valid(sb, sc, 0);
        WEIR_COL_I64(sb, sc)[0] = cnt;
        return 0;
    }
    if (!cnt) {
        weir_batch_set_null(sb, sc, 0);
        return 0;
    }
    weir_batch_set_valid(sb, sc, 0);
    double dres = s->agg == WEIR_MR_SUM ? dsum : s->agg == WEIR_MR_AVG ? dsum / (double)cnt : dext;
    int64_t ires = s->agg == WEIR_MR_SUM ? isum : s->agg == WEIR_MR_AVG ? isum / cnt : iext;
    if (dbl)
        WEIR_COL_F64(sb, sc)[0] = dres;
    else if (i32)
        WEIR_COL_I32(sb, sc)[0] = (int32_t)ires;
    else
        WEIR_COL_I64(sb, sc)[0] = ires;
    return 0;
}

/* The row a navigation slot reads over the match rows [start, end), or -1. */
static int64_t nav_row(const match_op *o, const weir_mr_slot *s, uint32_t end)
{
    if (s->kind == WEIR_MR_SLOT_FIRST) {
        uint32_t k = 0;
        for (uint32_t r = o->start; r < end; r++)
            if (maps(o, s->var, r) && k++ == s->offset)
                return r;
        return -1;
    }
    uint32_t k = 0, want = s->kind == WEIR_MR_SLOT_LAST ? s->offset : 0;
    for (uint32_t r = end; r-- > o->start;) {
        if (!maps(o, s->var, r) || k++ != want)
            continue;
        if (s->kind == WEIR_MR_SLOT_LAST)
            return r;
        return r >= o->start + s->offset ? (int64_t)(r - s->offset) : -1; /* PREV: physical, inside the match */
    }
    return -1;
}

/* Fills the slots `u` for the candidate match rows [start, end) into row 0 of slotb. */
static int fill_slots(match_op *o, const weir_mr_uses *u, uint32_t end)
{
    weir_batch *sb = o->slotb;
    weir_batch_reset(sb);
    int rc = weir_batch_append_row(sb);
    rc = rc < 0 ? rc : 0;
    for (uint32_t i = 0; i < u->n && !rc; i++) {
        uint32_t sc = u->slots[i];
        const weir_mr_slot *s = &o->conf.slots[sc];
        if (s->kind == WEIR_MR_SLOT_ROWTIME) {
            weir_batch_set_valid(sb, sc, 0);
            WEIR_COL_I64(sb, sc)[0] = o->seq->ts[end - 1];
        } else if (s->kind == WEIR_MR_SLOT_AGG) {
            rc = fill_agg(o, s, end, sc);
        } else {
            int64_t r = nav_row(o, s, end);
            if (r < 0)
                weir_batch_set_null(sb, sc, 0);
            else
                rc = weir__row_copy_cols(sb, 0, sc, o->seq, (uint32_t)r, (uint32_t)s->col, 1);
        }
    }
    return rc;
}

/* Whether row i, mapped to var (asg set), satisfies var's condition. */
static int holds(match_op *o, uint32_t var, uint32_t i, bool *ok)
{
    const weir_expr *e = o->conf.define[var];
    *ok = true;
    if (!e)
        return 0;
    int rc = fill_slots(o, &o->conf.define_uses[var], i + 1);
    if (rc)
        return rc;
    weir_value v;
    weir_error err = {0};
    if ((rc = weir_expr_eval_row(e, o->slotb, 0, o->env, &v, &err)))
        return weir_op_fail(o->ctx, rc, "MATCH_RECOGNIZE: a DEFINE condition failed: %s", err.message);
    *ok = !v.is_null && v.v.b;
    return 0;
}

/* ----------------------------------------------------------------- search */

static int step(match_op *o, uint32_t t, uint32_t c, uint32_t i, int *res)
{
    const weir_match_config *cf = &o->conf;
    if (t == cf->n_terms) {
        o->end = i;
        *res = M_MATCH;
        return 0;
    }
    const weir_mr_term *T = &cf->terms[t];
    const int64_t *ts = o->seq->ts;
    for (int pass = 0; pass < 2; pass++) {
        bool take = T->reluctant ? pass == 1 : pass == 0;
        int rc;
        if (!take) {
            if (c < T->min)
                continue;
            if ((rc = step(o, t + 1, 0, i, res)) || *res != M_FAIL)
                return rc;
            continue;
        }
        if (c >= T->max)
            continue;
        if (i == o->n) {
            if (o->final || (cf->within_ms && o->next_min - ts[o->start] >= cf->within_ms))
                continue; /* no row can come for this way */
            *res = M_WAIT;
            return 0;
        }
        if (cf->within_ms && ts[i] - ts[o->start] >= cf->within_ms)
            continue;
        if (i - o->start >= cf->max_match_rows)
            return weir_op_fail(o->ctx, WEIR_EUNSUPPORTED,
                                "MATCH_RECOGNIZE: a candidate match grew past %u rows (bound the pattern's "
                                "quantifiers or add WITHIN)",
                                cf->max_match_rows);
        if (i - o->start >= o->cap_asg) {
            uint32_t cap = o->cap_asg ? 2 * o->cap_asg : 64;
            uint32_t *na = weir_realloc(o->asg, cap * sizeof *na);
            if (!na)
                return WEIR_ENOMEM;
            o->asg = na;
            o->cap_asg = cap;
        }
        o->asg[i - o->start] = T->var;
        bool ok;
        if ((rc = holds(o, T->var, i, &ok)))
            return rc;
        if (!ok)
            continue;
        if ((rc = step(o, t, c + 1, i + 1, res)) || *res != M_FAIL)
            return rc;
    }
    *res = M_FAIL;
    return 0;
}

static int emit_match(match_op *o)
{
    const weir_match_config *cf = &o->conf;
    int rc = fill_slots(o, &cf->measure_uses, o->end);
    if (rc)
        return rc;
    weir_batch_reset(o->mb);
    if ((rc = weir_batch_append_row(o->mb)) < 0)
        return rc;
    rc = 0;
    weir_error err = {0};
    for (uint32_t m = 0; m < cf->n_measures; m++)
        if ((rc = weir_expr_eval(cf->measures[m], o->slotb, o->env, o->mb, m, &err)))
            return weir_op_fail(o->ctx, rc, "MATCH_RECOGNIZE: a measure failed: %s", err.message);
    int row = weir__out_row(o->ctx, o->out);
    if (row < 0)
        return row;
    uint32_t np = cf->partition.n;
    for (uint32_t k = 0; k < np && !rc; k++)
        rc = weir__row_copy_cols(o->out, (uint32_t)row, k, o->seq, o->start, cf->partition.cols[k], 1);
    if (!rc && cf->n_measures)
        rc = weir__row_copy_cols(o->out, (uint32_t)row, np, o->mb, 0, 0, cf->n_measures);
    o->out->kind[row] = WEIR_ROW_INSERT;
    o->out->ts[row] = o->seq->ts[o->end - 1];
    weir_op_counter_add(o->n_matches, 1);
    return rc;
}

/* Where matching resumes after the match [start, end). */
static uint32_t resume_at(const match_op *o)
{
    const weir_match_config *cf = &o->conf;
    uint32_t next = o->start + 1;
    switch (cf->skip) {
    case WEIR_MR_SKIP_PAST_LAST_ROW: next = o->end; break;
    case WEIR_MR_SKIP_TO_NEXT_ROW: break;
    case WEIR_MR_SKIP_TO_FIRST:
        for (uint32_t r = o->start; r < o->end; r++)
            if (maps(o, cf->skip_var, r)) {
                next = r;
                break;
            }
        break;
    case WEIR_MR_SKIP_TO_LAST:
        for (uint32_t r = o->end; r-- > o->start;)
            if (maps(o, cf->skip_var, r)) {
                next = r;
                break;
            }
        break;
    }
    return next > o->start ? next : o->start + 1; /* never the same start again */
}

/* Matches from the first row of the sequence on, as far as can be decided; keeps the rest. */
static int run(match_op *o)
{
    o->n = o->seq->n_rows;
    uint32_t s = 0;
    int rc = 0;
    while (s < o->n) {
        o->start = s;
        int res;
        if ((rc = step(o, 0, 0, s, &res)))
            return rc;
        if (res == M_WAIT)
            break;
        if (res == M_FAIL) {
            s++;
            continue;
        }
        if ((rc = emit_match(o)))
            return rc;
        s = resume_at(o);
    }
    if (s < o->n && o->conf.within_ms) {
        int64_t at; /* (saturated: a huge WITHIN never fires) */
        if (__builtin_add_overflow(o->seq->ts[s], o->conf.within_ms, &at) || __builtin_add_overflow(at, 1, &at))
            at = WEIR_TS_MAX;
        if ((rc = weir_op_timer_register(o->ctx, WEIR_TIME_EVENT, at, 1)))
            return rc;
    }
    return seq_store(o, s);
}

/* ------------------------------------------------------------- operator */

static int match_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)input;
    match_op *o = op;
    const weir_match_config *c = &o->conf;
    weir_ts wm = weir_op_watermark(ctx);
    uint8_t key[1024];
    for (uint32_t r = 0; r < in->n_rows; r++) {
        if (in->kind[r] != WEIR_ROW_INSERT)
            return weir_op_fail(ctx, WEIR_EUNSUPPORTED, "MATCH_RECOGNIZE takes an append-only input, got a %s row",
                                weir_row_kind_name((weir_row_kind)in->kind[r]));
        int64_t t = in->ts[r];
        if (t <= wm || t >= WEIR_TS_MAX - 1) {
            weir_op_counter_add(o->n_late, 1);
            continue;
        }
        size_t klen = weir_key_encode(in, &c->partition, r, key, sizeof key);
        if (klen > sizeof key)
            return weir_op_fail(ctx, WEIR_EINVAL, "MATCH_RECOGNIZE: a partition key of %zu bytes exceeds the limit of %zu",
                                klen, sizeof key);
        int rc = weir_op_set_key(ctx, key, klen);
        if (rc)
            return rc;
        weir_buf_clear(&o->sk);
        for (uint32_t i = 0; i < c->n_order && !rc; i++)
            rc = weir__sort_key_col(&o->sk, in, c->order_cols[i], r, c->order_desc[i], c->nulls_last[i]);
        uint8_t ns[8];
        for (int i = 0; i < 8; i++)
            ns[i] = (uint8_t)((uint64_t)t >> (8 * i));
        weir_buf_clear(&o->elem);
        if (rc || (rc = weir__row_encode(in, r, o->n_cols, &o->row)) ||
            (rc = weir_buf_put_bytes(&o->elem, o->sk.data, o->sk.len)) ||
            (rc = weir_buf_put_bytes(&o->elem, o->row.data, o->row.len)) ||
            (rc = weir_list_add(o->rows, ns, 8, o->elem.data, o->elem.len)) ||
            (rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, t + 1, 0)) ||
            (rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, WEIR_TS_MAX, 1)))
            return rc;
    }
    return 0;
}

/* Appends the held rows of timestamp ts to the sequence, in secondary ORDER BY order (stable). */
static int release(match_op *o, int64_t ts)
{
    uint8_t ns[8];
    for (int i = 0; i < 8; i++)
        ns[i] = (uint8_t)((uint64_t)ts >> (8 * i));
    int rc = weir__held_load(&o->held, o->rows, ns, 8);
    for (uint32_t i = 0; i < o->held.n && !rc; i++)
        rc = seq_push(o, weir__held_row_data(&o->held, i), o->held.v[i].row_len, ts);
    return rc ? rc : weir_state_clear(o->rows, ns, 8);
}

static int match_timer(void *op, weir_op_ctx *ctx, const weir_timer *t)
{
    match_op *o = op;
    o->ctx = ctx;
    int rc = seq_load(o);
    if (!rc && t->ns == 0)
        rc = release(o, t->ts - 1);
    if (rc)
        return weir_op_fail(ctx, rc, "MATCH_RECOGNIZE: cannot read its state: %s", weir_strerror(rc));
    o->final = t->ts == WEIR_TS_MAX;
    o->next_min = t->ts - 1;
    if ((rc = run(o)))
        return rc;
    weir__held_trim(&o->held);
    return weir_op_emit_reset(ctx, o->out);
}

static int match_create(void *arg, const weir_op_info *info, void **out_op)
{
    const weir_match_config *c = arg;
    match_op *o = weir_calloc(1, sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    *out_op = o;
    o->conf = *c;
    o->n_cols = c->in_schema->n_fields;
    weir_buf_init(&o->elem);
    weir_buf_init(&o->sk);
    weir_buf_init(&o->row);
    weir_buf_init(&o->enc);
    weir_buf_init(&o->held.buf);
    o->out = weir_batch_create(c->out_schema, info->batch_size);
    o->slotb = weir_batch_create(c->slot_schema, 1);
    o->mb = weir_batch_create(c->measure_schema, 1);
    o->env = weir_expr_env_create();
    if (!o->out || !o->slotb || !o->mb || !o->env)
        return WEIR_ENOMEM;
    return seq_reserve(o, 64);
}

static int match_open(void *op, weir_op_ctx *ctx)
{
    match_op *o = op;
    weir_state_desc rows = {.name = "mr-rows", .kind = WEIR_STATE_LIST};
    weir_state_desc seq = {.name = "mr-seq", .kind = WEIR_STATE_VALUE};
    o->n_late = weir_op_counter(ctx, "late_records_dropped");
    o->n_matches = weir_op_counter(ctx, "matches");
    int rc = weir_op_get_state(ctx, &rows, &o->rows);
    return rc ? rc : weir_op_get_state(ctx, &seq, &o->seqst);
}

static void match_close(void *op)
{
    match_op *o = op;
    if (!o)
        return;
    weir_batch_destroy(o->out);
    weir_batch_destroy(o->slotb);
    weir_batch_destroy(o->mb);
    weir_batch_destroy(o->seq);
    if (o->env)
        weir_expr_env_destroy(o->env);
    weir_buf_fini(&o->elem);
    weir_buf_fini(&o->sk);
    weir_buf_fini(&o->row);
    weir_buf_fini(&o->enc);
    weir__held_fini(&o->held);
    weir_free(o->asg);
    weir_free(o);
}

static const weir_operator_class match_class = {
    .name = "Match",
    .open = match_open,
    .process = match_process,
    .timer = match_timer,
    .close = match_close,
};

static void conf_free(void *arg) { weir_free(arg); }

int weir_match_spec(const weir_match_config *cfg, weir_operator_spec *out)
{
    if (!cfg->in_schema || !cfg->out_schema || !cfg->slot_schema || !cfg->measure_schema || !cfg->n_terms ||
        cfg->n_order > WEIR_KEY_MAX_COLS || cfg->partition.n > WEIR_KEY_MAX_COLS)
        return WEIR_EINVAL;
    weir_match_config *c = weir_malloc(sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    *c = *cfg;
    /* (the search takes a stack frame per row of a candidate: 10 000 rows
     * stay well inside a thread's stack, also under AddressSanitizer) */
    if (!c->max_match_rows)
        c->max_match_rows = 10000;
    *out = (weir_operator_spec){"Match", &match_class, match_create, c, conf_free};
    return 0;
}
