/*
 * ops/match.c - the Match operator (MATCH_RECOGNIZE); see ops/match.h for
 * what it computes.
 *
 * The pattern is a concatenation of terms (a variable with a quantifier).
 * Matching runs from one start row at a time, as an automaton over the
 * rows: the live partial matches ("threads") of the start are kept in
 * preference order, each waiting to take the next row as the variable of
 * its term. A thread carries its term, its count of rows in that term and
 * running values per navigation and aggregate (the rows FIRST/LAST/PREV
 * point to, counts, sums, extremes), so a condition never rereads the
 * match. A row is offered to each thread in order; those whose condition
 * holds move on, and their epsilon moves (leave a term whose minimum is
 * reached, in the quantifier's preferred order) give the threads waiting
 * for the next row, in order. A thread that completes the pattern is the
 * best match so far: the threads after it can never win and are dropped;
 * the match is taken once no thread before it is left (a less preferred
 * match must not be taken while a preferred one may still come). This is
 * the order of the backtracking search the SQL standard describes, without
 * recursion and row by row. Two threads with the same term and count whose
 * futures cannot differ (the conditions left read only the candidate row)
 * are one: the later can never win (weir_match_merged_from).
 *
 * A start that fails lets the next row try; after a match matching resumes
 * where AFTER MATCH SKIP says; both replay the released rows from there, so
 * the state keeps the released rows from the current start on, one state
 * entry per row (a new row writes one entry, a row behind the start is
 * deleted), and the threads of the current start. A restore (at any
 * parallelism, the state being keyed) resumes from them.
 *
 * Rows are taken in time order, released by the watermark: a row at or
 * behind the watermark is late (dropped, counted). The operator's own state
 * is its watermark (ops/held_wm.h): after a restore a row behind the
 * checkpoint's watermark is late too, as it would have been without the
 * restore, and not matched after rows it precedes in time. Ordered by
 * processing time (conf.proctime), a row is given the job clock's time as
 * it arrives (never less than the row before it) and is released and
 * matched at once, through the same step a timer takes; WITHIN's timers are
 * then processing-time timers.
 */
#include <string.h>

#include "ops/held_wm.h"
#include "ops/match.h"
#include "ops/rowcodec.h"
#include "util/dec128.h"
#include "time/timefmt.h"
#include "weir/state.h"

/* The words of a thread, then its trackers' words. */
enum { TH_TERM, TH_COUNT, TH_LAST_ROW, TH_LAST_TS, TH_FIRST_SKIP, TH_LAST_SKIP, TH_HDR };

/*
 * A running value a thread keeps for the slots that read it: LAST (words:
 * count, then a ring of the last offset + 1 rows of var), FIRST (count, the
 * offset-th row), PREV (the last row of var) - rows by sequence number, the
 * column read when a slot is filled - or AGG (count, sum, extreme; doubles
 * by their bits).
 */
typedef struct tracker {
    weir_mr_slot_kind kind;
    int32_t var, col;
    uint32_t offset;
    weir_mr_agg agg;
    uint32_t at; /* its first word in a thread */
} tracker;

#define CACHE_ROWS 4096u /* rows decoded at once (a power of two) */
#define RUN_VERSION 2u

typedef struct match_op {
    weir_match_config conf;
    uint32_t n_cols;
    weir_state *held_st; /* mr-rows: rows not yet released */
    weir_state *row_st;  /* mr-row: a released row by sequence number */
    weir_state *run_st;  /* mr-run: the run of the key */
    weir_state *old_st;  /* mr-seq: the released rows of an earlier layout */
    tracker *tr;
    uint32_t n_tr, *slot_tr; /* per slot its tracker (ROWTIME: none) */
    uint32_t W;              /* words per thread */
    bool *free_from;         /* per term: it and the terms after it read only the candidate row */
    uint32_t *post_t, *post_c;
    /* decoded released rows of the current key, direct-mapped by sequence number */
    weir_batch *cache;
    int64_t *cache_seq;
    uint32_t *cache_pos, *cache_gen, cgen;
    weir_batch *slotb; /* one row of slot values */
    weir_batch *mb;    /* one row of measures */
    weir_batch *out;
    weir_expr_env *env;
    weir_buf elem, sk, row, enc;
    weir__held held; /* the rows of the timestamp being released */
    /* the run of the current key: rows [base, next) are stored; matching from s, at row i */
    int64_t base, next, s, i, ts_s;
    bool active, has_m;
    int64_t *cur, *nxt, *m, *tmp;
    uint32_t n_cur, n_nxt, cap_cur, cap_nxt;
    /* threads of one row seen (term, count), when their futures cannot differ */
    uint64_t *set_key;
    uint32_t *set_gen, set_cap, set_n, gen;
    int64_t next_min; /* the least timestamp a row not yet released may have */
    bool final;       /* no more rows will come */
    weir_op_ctx *ctx;
    uint64_t *n_late, *n_matches;
    weir__held_wm wm; /* held across a restore */
    int64_t last_proc; /* processing time: the time given to the last row (times never go back) */
} match_op;

static void ns_of(int64_t v, uint8_t ns[8])
{
    for (int k = 0; k < 8; k++)
        ns[k] = (uint8_t)((uint64_t)v >> (8 * k));
}

/* ------------------------------------------------------------- the rows */

/* Decodes a row into the cache as row seq. */
static int cache_put(match_op *o, int64_t seq, int64_t ts, const void *row, size_t len, uint32_t *pos)
{
    if (weir_batch_full(o->cache)) {
        weir_batch_reset(o->cache);
        if (!++o->cgen) {
            memset(o->cache_gen, 0, CACHE_ROWS * sizeof *o->cache_gen);
            o->cgen = 1;
        }
    }
    int r = weir_batch_append_row(o->cache);
    if (r < 0)
        return r;
    o->cache->ts[r] = ts;
    int rc = weir__row_decode(row, len, o->cache, (uint32_t)r, 0, o->n_cols);
    uint32_t h = (uint32_t)seq & (CACHE_ROWS - 1);
    o->cache_seq[h] = seq;
    o->cache_pos[h] = (uint32_t)r;
    o->cache_gen[h] = o->cgen;
    *pos = (uint32_t)r;
    return rc;
}

/* The cache row of released row seq, read from state when not there (valid until the next call). */
static int row_at(match_op *o, int64_t seq, uint32_t *pos)
{
    uint32_t h = (uint32_t)seq & (CACHE_ROWS - 1);
    if (o->cache_gen[h] == o->cgen && o->cache_seq[h] == seq) {
        *pos = o->cache_pos[h];
        return 0;
    }
    uint8_t ns[8];
    ns_of(seq, ns);
    const void *v;
    size_t len;
    int rc = weir_value_get(o->row_st, ns, 8, &v, &len);
    if (rc)
        return rc == WEIR_ENOTFOUND ? WEIR_ECORRUPT : rc;
    weir_cursor cur;
    weir_cursor_init(&cur, v, len);
    int64_t ts;
    if (weir_cursor_get_i64(&cur, &ts))
        return WEIR_ECORRUPT;
    return cache_put(o, seq, ts, cur.p, weir_cursor_left(&cur), pos);
}

/* Stores an encoded row as the next released row of the key. */
static int row_add(match_op *o, const void *row, size_t len, int64_t ts)
{
    uint8_t ns[8];
    ns_of(o->next, ns);
    weir_buf_clear(&o->enc);
    uint32_t pos;
    int rc;
    if ((rc = weir_buf_put_i64(&o->enc, ts)) || (rc = weir_buf_put(&o->enc, row, len)) ||
        (rc = weir_value_put(o->row_st, ns, 8, o->enc.data, o->enc.len)) ||
        (rc = cache_put(o, o->next, ts, row, len, &pos)))
        return rc;
    o->next++;
    return 0;
}

/* ------------------------------------------------------------- threads */

static void thread_init(const match_op *o, int64_t *th)
{
    memset(th, 0, o->W * sizeof *th);
    th[TH_LAST_ROW] = th[TH_FIRST_SKIP] = th[TH_LAST_SKIP] = -1;
    for (uint32_t k = 0; k < o->n_tr; k++)
        if (o->tr[k].kind == WEIR_MR_SLOT_FIRST)
            th[o->tr[k].at + 1] = -1;
        else if (o->tr[k].kind == WEIR_MR_SLOT_PREV)
            th[o->tr[k].at] = -1;
}

static void agg_add(const match_op *o, const tracker *k, int64_t *w, uint32_t pos)
{
    const weir_batch *q = o->cache;
    if (k->col < 0) {
        w[0]++;
        return;
    }
    if (weir_batch_is_null(q, (uint32_t)k->col, pos))
        return;
    weir_type_id t = q->cols[k->col].type.id;
    bool first = w[0]++ == 0, min = k->agg == WEIR_MR_MIN;
    if (t == WEIR_TYPE_DOUBLE) {
        double dv = WEIR_COL_F64(q, k->col)[pos], sum, ext;
        memcpy(&sum, &w[1], sizeof sum);
        memcpy(&ext, &w[2], sizeof ext);
        sum += dv;
        if (first || (min ? dv < ext : dv > ext))
            ext = dv;
        memcpy(&w[1], &sum, sizeof sum);
        memcpy(&w[2], &ext, sizeof ext);
        return;
    }
    bool i32 = t == WEIR_TYPE_INT || t == WEIR_TYPE_DATE || t == WEIR_TYPE_TIME;
    int64_t iv = i32 ? WEIR_COL_I32(q, k->col)[pos] : WEIR_COL_I64(q, k->col)[pos];
    if (t == WEIR_TYPE_DECIMAL && k->agg != WEIR_MR_MIN && k->agg != WEIR_MR_MAX) {
        /* SUM and AVG of a DECIMAL: 128 bits in w[1] (low) and w[2] (high), the sum's DECIMAL(38, s) */
        __int128 sum = (__int128)(((unsigned __int128)(uint64_t)w[2] << 64) | (uint64_t)w[1]);
        sum += iv;
        w[1] = (int64_t)(uint64_t)sum;
        w[2] = (int64_t)(uint64_t)((unsigned __int128)sum >> 64);
        return;
    }
    w[1] = (int64_t)((uint64_t)w[1] + (uint64_t)iv); /* wraps as Flink's long sum */
    if (first || (min ? iv < w[2] : iv > w[2]))
        w[2] = iv;
}

/* Maps released row seq to var in th. */
static int thread_map(match_op *o, int64_t *th, uint32_t var, int64_t seq)
{
    uint32_t pos;
    int rc = row_at(o, seq, &pos);
    if (rc)
        return rc;
    th[TH_LAST_ROW] = seq;
    th[TH_LAST_TS] = o->cache->ts[pos];
    if (o->conf.skip_var == (int32_t)var) {
        if (th[TH_FIRST_SKIP] < 0)
            th[TH_FIRST_SKIP] = seq;
        th[TH_LAST_SKIP] = seq;
    }
    for (uint32_t j = 0; j < o->n_tr; j++) {
        const tracker *k = &o->tr[j];
        int64_t *w = th + k->at;
        if (k->var >= 0 && k->var != (int32_t)var)
            continue;
        switch (k->kind) {
        case WEIR_MR_SLOT_LAST: w[1 + w[0]++ % ((int64_t)k->offset + 1)] = seq; break;
        case WEIR_MR_SLOT_FIRST:
            if (w[0] == k->offset)
                w[1] = seq;
            if (w[0] <= k->offset)
                w[0]++;
            break;
        case WEIR_MR_SLOT_PREV: w[0] = seq; break;
        default: agg_add(o, k, w, pos); break;
        }
    }
    return 0;
}

/* The row a navigation tracker points to in th, or -1. */
static int64_t nav_row(const match_op *o, const tracker *k, const int64_t *th)
{
    const int64_t *w = th + k->at;
    if (k->kind == WEIR_MR_SLOT_FIRST)
        return w[1];
    if (k->kind == WEIR_MR_SLOT_PREV) /* physical, inside the match */
        return w[0] >= 0 && w[0] - (int64_t)k->offset >= o->s ? w[0] - (int64_t)k->offset : -1;
    int64_t n = (int64_t)k->offset + 1;
    return w[0] > (int64_t)k->offset ? w[1 + (w[0] - n) % n] : -1;
}

/*
 * SUM or AVG of a DECIMAL(p <= 18, s) column from its tracker's words (a
 * count and a 128-bit sum) into row 0 of slotb's column sc: SUM as a
 * DECIMAL(38, s), AVG as a DECIMAL(38, max(6, s)) rounded HALF_UP, as the
 * aggregation's; NULL when the value does not fit 38 digits.
 */
static int put_decimal_sum(match_op *o, uint32_t sc, const weir_mr_slot *s, const int64_t *w)
{
    weir_batch *sb = o->slotb;
    weir_column *c = &sb->cols[sc];
    __int128 v = (__int128)(((unsigned __int128)(uint64_t)w[2] << 64) | (uint64_t)w[1]);
    if (s->agg == WEIR_MR_AVG) {
        int up = c->type.scale - o->conf.in_schema->fields[s->col].type.scale;
        if (!weir__dec_div(v, up, w[0], &v)) {
            weir_batch_set_null(sb, sc, 0);
            return 0;
        }
    }
    if (!weir__dec_fits(v, WEIR_DEC_MAX_PRECISION)) {
        weir_batch_set_null(sb, sc, 0);
        return 0;
    }
    memcpy((char *)c->data, &v, 16);
    return 0;
}

/* Fills the slots `u` of thread th into row 0 of slotb. */
static int fill_slots(match_op *o, const weir_mr_uses *u, const int64_t *th)
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
            WEIR_COL_I64(sb, sc)[0] = th[TH_LAST_TS];
            continue;
        }
        const tracker *k = &o->tr[o->slot_tr[sc]];
        if (s->kind != WEIR_MR_SLOT_AGG) {
            int64_t r = nav_row(o, k, th);
            uint32_t pos;
            if (r < 0)
                weir_batch_set_null(sb, sc, 0);
            else if (!(rc = row_at(o, r, &pos)))
                rc = weir__row_copy_cols(sb, 0, sc, o->cache, pos, (uint32_t)s->col, 1);
            continue;
        }
        const int64_t *w = th + k->at;
        int64_t cnt = w[0];
        if (s->agg == WEIR_MR_COUNT) {
            weir_batch_set_valid(sb, sc, 0);
            WEIR_COL_I64(sb, sc)[0] = cnt;
            continue;
        }
        if (!cnt) {
            weir_batch_set_null(sb, sc, 0);
            continue;
        }
        weir_batch_set_valid(sb, sc, 0);
        weir_type_id t = o->conf.in_schema->fields[s->col].type.id;
        if (t == WEIR_TYPE_DOUBLE) {
            double sum, ext;
            memcpy(&sum, &w[1], sizeof sum);
            memcpy(&ext, &w[2], sizeof ext);
            WEIR_COL_F64(sb, sc)[0] = s->agg == WEIR_MR_SUM ? sum : s->agg == WEIR_MR_AVG ? sum / (double)cnt : ext;
            continue;
        }
        if (t == WEIR_TYPE_DECIMAL && s->agg != WEIR_MR_MIN && s->agg != WEIR_MR_MAX) {
            rc = put_decimal_sum(o, sc, s, w);
            continue;
        }
        int64_t res = s->agg == WEIR_MR_SUM ? w[1] : s->agg == WEIR_MR_AVG ? w[1] / cnt : w[2];
        if (t == WEIR_TYPE_INT || t == WEIR_TYPE_DATE || t == WEIR_TYPE_TIME)
            WEIR_COL_I32(sb, sc)[0] = (int32_t)res;
        else
            WEIR_COL_I64(sb, sc)[0] = res;
    }
    return rc;
}

/* Whether var's condition holds for th, whose last row is the candidate mapped to var. */
static int holds(match_op *o, uint32_t var, const int64_t *th, bool *ok)
{
    const weir_expr *e = o->conf.define[var];
    *ok = true;
    if (!e)
        return 0;
    int rc = fill_slots(o, &o->conf.define_uses[var], th);
    if (rc)
        return rc;
    weir_value v;
    weir_error err = {0};
    if ((rc = weir_expr_eval_row(e, o->slotb, 0, o->env, &v, &err)))
        return weir_op_fail(o->ctx, rc, "MATCH_RECOGNIZE: a DEFINE condition failed: %s", err.message);
    *ok = !v.is_null && v.v.b;
    return 0;
}

/* ------------------------------------------------------- the thread lists */

static int reserve(int64_t **v, uint32_t *cap, uint32_t need, uint32_t W)
{
    if (need <= *cap)
        return 0;
    uint32_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    int64_t *nv = weir_realloc(*v, (size_t)c * W * sizeof *nv);
    if (!nv)
        return WEIR_ENOMEM;
    *v = nv;
    *cap = c;
    return 0;
}

/* Starts the threads of the next row (the set of seen states is emptied). */
static void next_row_begin(match_op *o)
{
    o->n_nxt = 0;
    o->set_n = 0;
    if (!++o->gen) {
        if (o->set_cap)
            memset(o->set_gen, 0, o->set_cap * sizeof *o->set_gen);
        o->gen = 1;
    }
}

static uint32_t set_slot(const match_op *o, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & (o->set_cap - 1);
}

/* Adds key to the states seen for the next row; *seen when it was there. */
static int set_add(match_op *o, uint64_t key, bool *seen)
{
    if (2 * (o->set_n + 1) > o->set_cap) {
        uint32_t oc = o->set_cap, nc = oc ? 2 * oc : 64;
        uint64_t *nk = weir_calloc(nc, sizeof *nk), *ok = o->set_key;
        uint32_t *ng = weir_calloc(nc, sizeof *ng), *og = o->set_gen;
        if (!nk || !ng) {
            weir_free(nk);
            weir_free(ng);
            return WEIR_ENOMEM;
        }
        o->set_key = nk;
        o->set_gen = ng;
        o->set_cap = nc;
        for (uint32_t j = 0; j < oc; j++)
            if (og[j] == o->gen) {
                uint32_t h = set_slot(o, ok[j]);
                while (ng[h] == o->gen)
                    h = (h + 1) & (nc - 1);
                ng[h] = o->gen;
                nk[h] = ok[j];
            }
        weir_free(ok);
        weir_free(og);
    }
    uint32_t h = set_slot(o, key);
    for (; o->set_gen[h] == o->gen; h = (h + 1) & (o->set_cap - 1))
        if (o->set_key[h] == key) {
            *seen = true;
            return 0;
        }
    o->set_gen[h] = o->gen;
    o->set_key[h] = key;
    o->set_n++;
    *seen = false;
    return 0;
}

/* Appends th, waiting to take the next row at term t with count c, to the next row's threads. */
static int push(match_op *o, const int64_t *th, uint32_t t, uint32_t c)
{
    const weir_mr_term *T = &o->conf.terms[t];
    if (o->free_from[t]) { /* its future depends on (t, c) only: the first such thread wins */
        uint32_t ce = T->max == UINT32_MAX && c > T->min ? T->min : c;
        bool seen;
        int rc = set_add(o, (uint64_t)t << 32 | ce, &seen);
        if (rc || seen)
            return rc;
    }
    if (o->n_nxt >= o->conf.max_partial)
        return weir_op_fail(o->ctx, WEIR_EUNSUPPORTED,
                            "MATCH_RECOGNIZE: more than %u partial matches are live at once (raise "
                            "'weir.match.max-partial-matches', bound the pattern's quantifiers or add WITHIN)",
                            o->conf.max_partial);
    int rc = reserve(&o->nxt, &o->cap_nxt, o->n_nxt + 1, o->W);
    if (rc)
        return rc;
    int64_t *d = o->nxt + (size_t)o->n_nxt++ * o->W;
    memcpy(d, th, o->W * sizeof *d);
    d[TH_TERM] = t;
    d[TH_COUNT] = c;
    return 0;
}

/*
 * The threads th becomes for the next row, in preference order: at each
 * term, a greedy quantifier takes one more row before it leaves the term,
 * a reluctant one after; a term is left once its minimum is reached. When
 * the pattern completes first, th is the best match and the rest (less
 * preferred) is dropped: *matched.
 */
static int advance(match_op *o, int64_t *th, bool *matched)
{
    const weir_match_config *cf = &o->conf;
    uint32_t t = (uint32_t)th[TH_TERM], c = (uint32_t)th[TH_COUNT], np = 0;
    int rc = 0;
    *matched = false;
    for (;; t++, c = 0) {
        if (t == cf->n_terms) {
            memcpy(o->m, th, o->W * sizeof *th);
            o->has_m = true;
            *matched = true;
            return 0;
        }
        const weir_mr_term *T = &cf->terms[t];
        bool take = c < T->max;
        if (c < T->min) {
            if (take)
                rc = push(o, th, t, c);
            break;
        }
        if (take && T->reluctant) {
            o->post_t[np] = t;
            o->post_c[np++] = c;
        } else if (take && (rc = push(o, th, t, c))) {
            return rc;
        }
    }
    while (!rc && np--)
        rc = push(o, th, o->post_t[np], o->post_c[np]);
    return rc;
}

static void swap_lists(match_op *o)
{
    int64_t *v = o->cur;
    uint32_t cap = o->cap_cur;
    o->cur = o->nxt;
    o->cap_cur = o->cap_nxt;
    o->n_cur = o->n_nxt;
    o->nxt = v;
    o->cap_nxt = cap;
    o->n_nxt = 0;
}

/* Offers row i to the threads, in order. */
static int feed(match_op *o)
{
    const weir_match_config *cf = &o->conf;
    uint32_t pos;
    int rc = row_at(o, o->i, &pos);
    if (rc)
        return rc;
    int64_t ts = o->cache->ts[pos];
    next_row_begin(o);
    if (!cf->within_ms || ts - o->ts_s < cf->within_ms) {
        for (uint32_t k = 0; k < o->n_cur; k++) {
            uint32_t var = cf->terms[o->cur[(size_t)k * o->W + TH_TERM]].var;
            memcpy(o->tmp, o->cur + (size_t)k * o->W, o->W * sizeof *o->tmp);
            bool ok, matched;
            if ((rc = thread_map(o, o->tmp, var, o->i)) || (rc = holds(o, var, o->tmp, &ok)))
                return rc;
            if (!ok)
                continue;
            o->tmp[TH_COUNT]++;
            if ((rc = advance(o, o->tmp, &matched)))
                return rc;
            if (matched)
                break;
        }
    }
    swap_lists(o);
    o->i++;
    return 0;
}

/* Starts matching from row s. */
static int begin(match_op *o)
{
    uint32_t pos;
    int rc = row_at(o, o->s, &pos);
    if (rc)
        return rc;
    o->ts_s = o->cache->ts[pos];
    o->i = o->s;
    o->has_m = false;
    o->active = true;
    thread_init(o, o->tmp);
    next_row_begin(o);
    bool matched;
    if ((rc = advance(o, o->tmp, &matched)))
        return rc;
    o->has_m = false; /* (an empty match: the planner refuses such patterns) */
    swap_lists(o);
    return 0;
}

/* ------------------------------------------------------------- matches */

static int emit_match(match_op *o)
{
    const weir_match_config *cf = &o->conf;
    int rc = fill_slots(o, &cf->measure_uses, o->m);
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
    uint32_t np = cf->partition.n, pos;
    if (np && (rc = row_at(o, o->m[TH_LAST_ROW], &pos)))
        return rc;
    for (uint32_t k = 0; k < np && !rc; k++)
        rc = weir__row_copy_cols(o->out, (uint32_t)row, k, o->cache, pos, cf->partition.cols[k], 1);
    if (!rc && cf->n_measures)
        rc = weir__row_copy_cols(o->out, (uint32_t)row, np, o->mb, 0, 0, cf->n_measures);
    o->out->kind[row] = WEIR_ROW_INSERT;
    o->out->ts[row] = o->m[TH_LAST_TS];
    weir_op_counter_add(o->n_matches, 1);
    return rc;
}

/*
 * Where matching resumes after the match m (*next). SKIP TO FIRST / LAST V
 * fails the job, before the match is emitted, when V has no row in the
 * match or its row is the match's first (a next match would start where
 * this one did), as Flink's MATCH_RECOGNIZE does.
 */
static int resume_at(const match_op *o, int64_t *next)
{
    *next = o->s + 1;
    int64_t to = -1;
    switch (o->conf.skip) {
    case WEIR_MR_SKIP_PAST_LAST_ROW: *next = o->m[TH_LAST_ROW] + 1; return 0;
    case WEIR_MR_SKIP_TO_NEXT_ROW: return 0;
    case WEIR_MR_SKIP_TO_FIRST: to = o->m[TH_FIRST_SKIP]; break;
    case WEIR_MR_SKIP_TO_LAST: to = o->m[TH_LAST_SKIP]; break;
    }
    if (to > o->s) {
        *next = to;
        return 0;
    }
    char ts[40];
    weir__format_ts(o->ts_s, ts, sizeof ts);
    const char *clause = o->conf.skip_text ? o->conf.skip_text : "TO ...";
    if (to < 0)
        return weir_op_fail(o->ctx, WEIR_EINVAL,
                            "MATCH_RECOGNIZE: AFTER MATCH SKIP %s: the match whose first row is at %s maps no row "
                            "to that variable, so there is no row to skip to",
                            clause, ts);
    return weir_op_fail(o->ctx, WEIR_EINVAL,
                        "MATCH_RECOGNIZE: AFTER MATCH SKIP %s would resume at the first row of the match (the row at "
                        "%s): the next match would start where this one did",
                        clause, ts);
}

/* Matches the released rows as far as can be decided. */
static int run(match_op *o)
{
    const weir_match_config *cf = &o->conf;
    int rc;
    for (;;) {
        if (!o->active) {
            if (o->s >= o->next)
                break;
            if ((rc = begin(o)))
                return rc;
        }
        while (o->n_cur && o->i < o->next)
            if ((rc = feed(o)))
                return rc;
        if (o->n_cur) {
            if (!o->final && !(cf->within_ms && o->next_min - o->ts_s >= cf->within_ms))
                break; /* a row that may still come decides */
            o->n_cur = 0;
        }
        int64_t nx = o->s + 1;
        if (o->has_m) {
            if ((rc = resume_at(o, &nx)) || (rc = emit_match(o)))
                return rc;
        }
        o->active = false;
        o->s = nx;
    }
    if (o->active && cf->within_ms) {
        int64_t at; /* (saturated: a huge WITHIN never fires) */
        if (__builtin_add_overflow(o->ts_s, cf->within_ms, &at) || __builtin_add_overflow(at, 1, &at))
            at = WEIR_TS_MAX;
        if ((rc = weir_op_timer_register(o->ctx, cf->proctime ? WEIR_TIME_PROCESSING : WEIR_TIME_EVENT, at, 1)))
            return rc;
    }
    return 0;
}

/* ----------------------------------------------------------- the run state */

/* n little-endian i64 words (bulk on a little-endian host). */
static int put_words(weir_buf *b, const int64_t *w, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return n ? weir_buf_put(b, w, n * sizeof *w) : 0;
#else
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++)
        rc = weir_buf_put_i64(b, w[k]);
    return rc;
#endif
}

static int get_words(weir_cursor *cur, int64_t *w, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return n ? weir_cursor_get(cur, w, n * sizeof *w) : 0;
#else
    for (size_t k = 0; k < n; k++)
        if (weir_cursor_get_i64(cur, &w[k]))
            return WEIR_ECORRUPT;
    return 0;
#endif
}

/*
 * mr-run: u32 version, i64 base, next, s, i, ts_s, u8 active, has_m, u32
 * words per thread, the match's words (has_m), u32 threads, their words.
 */
static int run_load(match_op *o)
{
    o->base = o->next = o->s = o->i = o->ts_s = 0;
    o->active = o->has_m = false;
    o->n_cur = 0;
    const void *v;
    size_t len;
    int rc = weir_value_get(o->run_st, NULL, 0, &v, &len);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    if (rc)
        return rc;
    weir_cursor cur;
    weir_cursor_init(&cur, v, len);
    uint32_t ver, w, n;
    uint8_t active, has_m;
    if (weir_cursor_get_u32(&cur, &ver) || ver != RUN_VERSION || weir_cursor_get_i64(&cur, &o->base) ||
        weir_cursor_get_i64(&cur, &o->next) || weir_cursor_get_i64(&cur, &o->s) || weir_cursor_get_i64(&cur, &o->i) ||
        weir_cursor_get_i64(&cur, &o->ts_s) || weir_cursor_get_u8(&cur, &active) ||
        weir_cursor_get_u8(&cur, &has_m) || weir_cursor_get_u32(&cur, &w) || w != o->W)
        return WEIR_ECORRUPT;
    o->active = active;
    o->has_m = has_m;
    if (has_m && get_words(&cur, o->m, o->W))
        return WEIR_ECORRUPT;
    if (weir_cursor_get_u32(&cur, &n) || (size_t)n * o->W * 8 > weir_cursor_left(&cur))
        return WEIR_ECORRUPT;
    if ((rc = reserve(&o->cur, &o->cap_cur, n, o->W)))
        return rc;
    if (get_words(&cur, o->cur, (size_t)n * o->W))
        return WEIR_ECORRUPT;
    o->n_cur = n;
    return 0;
}

/* Deletes the rows before the start; stores the run (none when nothing is left). */
static int run_store(match_op *o)
{
    int rc = 0;
    uint8_t ns[8];
    for (; o->base < o->s && o->base < o->next && !rc; o->base++) {
        ns_of(o->base, ns);
        rc = weir_state_clear(o->row_st, ns, 8);
    }
    if (rc)
        return rc;
    if (!o->active && o->base >= o->next)
        return weir_state_clear(o->run_st, NULL, 0);
    weir_buf *b = &o->enc;
    weir_buf_clear(b);
    if ((rc = weir_buf_put_u32(b, RUN_VERSION)) || (rc = weir_buf_put_i64(b, o->base)) ||
        (rc = weir_buf_put_i64(b, o->next)) || (rc = weir_buf_put_i64(b, o->s)) || (rc = weir_buf_put_i64(b, o->i)) ||
        (rc = weir_buf_put_i64(b, o->ts_s)) || (rc = weir_buf_put_u8(b, o->active)) ||
        (rc = weir_buf_put_u8(b, o->has_m)) || (rc = weir_buf_put_u32(b, o->W)))
        return rc;
    if ((o->has_m && (rc = put_words(b, o->m, o->W))) || (rc = weir_buf_put_u32(b, o->n_cur)) ||
        (rc = put_words(b, o->cur, (size_t)o->n_cur * o->W)))
        return rc;
    return weir_value_put(o->run_st, NULL, 0, b->data, b->len);
}

/*
 * A key restored from a checkpoint of the earlier layout ("mr-seq": the
 * released rows from the first undecided start, the search rerun from
 * there) becomes the same rows stored one by one, matching from the first.
 */
static int old_seq_load(match_op *o)
{
    const void *v;
    size_t len;
    int rc = weir_value_get(o->old_st, NULL, 0, &v, &len);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    if (rc)
        return rc;
    weir_buf_clear(&o->elem); /* (v is valid until the first put) */
    if ((rc = weir_buf_put(&o->elem, v, len)))
        return rc;
    weir_cursor cur;
    weir_cursor_init(&cur, o->elem.data, o->elem.len);
    uint32_t n;
    if (weir_cursor_get_u32(&cur, &n))
        return WEIR_ECORRUPT;
    for (uint32_t k = 0; k < n; k++) {
        int64_t ts;
        const void *row;
        size_t rlen;
        if (weir_cursor_get_i64(&cur, &ts) || weir_cursor_get_bytes(&cur, &row, &rlen))
            return WEIR_ECORRUPT;
        if ((rc = row_add(o, row, rlen, ts)))
            return rc;
    }
    return weir_state_clear(o->old_st, NULL, 0);
}

/* ------------------------------------------------------------- operator */

static int step(match_op *o, weir_op_ctx *ctx, int64_t ts, bool release_rows);

static int match_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)input;
    match_op *o = op;
    const weir_match_config *c = &o->conf;
    weir_ts wm = weir__held_wm_input(&o->wm, ctx, 0);
    int64_t now = c->proctime ? weir_op_now_ms(ctx) : 0;
    uint8_t key[1024];
    for (uint32_t r = 0; r < in->n_rows; r++) {
        if (in->kind[r] != WEIR_ROW_INSERT)
            return weir_op_fail(ctx, WEIR_EUNSUPPORTED, "MATCH_RECOGNIZE takes an append-only input, got a %s row",
                                weir_row_kind_name((weir_row_kind)in->kind[r]));
        int64_t t = in->ts[r];
        if (c->proctime) {
            t = o->last_proc = now > o->last_proc ? now : o->last_proc;
        } else if (t <= wm || t >= WEIR_TS_MAX - 1) {
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
        ns_of(t, ns);
        weir_buf_clear(&o->elem);
        if (rc || (rc = weir__row_encode(in, r, o->n_cols, &o->row)) ||
            (rc = weir_buf_put_bytes(&o->elem, o->sk.data, o->sk.len)) ||
            (rc = weir_buf_put_bytes(&o->elem, o->row.data, o->row.len)) ||
            (rc = weir_list_add(o->held_st, ns, 8, o->elem.data, o->elem.len)) ||
            (!c->proctime && (rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, t + 1, 0))) ||
            (rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, WEIR_TS_MAX, 1)))
            return rc;
        /* processing time: the row is matched now, in the order rows arrive */
        if (c->proctime && (rc = step(o, ctx, t + 1, true)))
            return rc;
    }
    return 0;
}

/* Appends the held rows of timestamp ts to the released rows, in secondary ORDER BY order (stable). */
static int release(match_op *o, int64_t ts)
{
    uint8_t ns[8];
    ns_of(ts, ns);
    int rc = weir__held_load(&o->held, o->held_st, ns, 8);
    for (uint32_t i = 0; i < o->held.n && !rc; i++)
        rc = row_add(o, weir__held_row_data(&o->held, i), o->held.v[i].row_len, ts);
    return rc ? rc : weir_state_clear(o->held_st, ns, 8);
}

static int match_timer(void *op, weir_op_ctx *ctx, const weir_timer *t)
{
    return step(op, ctx, t->ts, t->ns == 0);
}

/*
 * The current key's step at time ts: the rows held at ts - 1 released
 * (release_rows) and matched as far as can be decided; ts = WEIR_TS_MAX is
 * the end of the input.
 */
static int step(match_op *o, weir_op_ctx *ctx, int64_t ts, bool release_rows)
{
    o->ctx = ctx;
    weir_batch_reset(o->cache); /* (the cache holds one key's rows) */
    if (!++o->cgen) {
        memset(o->cache_gen, 0, CACHE_ROWS * sizeof *o->cache_gen);
        o->cgen = 1;
    }
    int rc = run_load(o);
    if (!rc && !o->active && o->base >= o->next)
        rc = old_seq_load(o);
    if (!rc && release_rows)
        rc = release(o, ts - 1);
    if (rc)
        return weir_op_fail(ctx, rc, "MATCH_RECOGNIZE: cannot read its state: %s", weir_strerror(rc));
    o->final = ts == WEIR_TS_MAX;
    o->next_min = ts - 1;
    if ((rc = run(o)))
        return rc == WEIR_ECORRUPT ? weir_op_fail(ctx, rc, "MATCH_RECOGNIZE: cannot read its state: %s", weir_strerror(rc))
                                   : rc;
    if ((rc = run_store(o)))
        return rc;
    weir__held_trim(&o->held);
    return weir_op_emit_reset(ctx, o->out);
}

/* The trackers the slots read, shared by the slots that read the same rows. */
static int make_trackers(match_op *o)
{
    const weir_match_config *c = &o->conf;
    o->tr = weir_calloc(c->n_slots + 1, sizeof *o->tr);
    o->slot_tr = weir_calloc(c->n_slots + 1, sizeof *o->slot_tr);
    if (!o->tr || !o->slot_tr)
        return WEIR_ENOMEM;
    uint64_t at = TH_HDR;
    for (uint32_t sc = 0; sc < c->n_slots; sc++) {
        const weir_mr_slot *s = &c->slots[sc];
        o->slot_tr[sc] = UINT32_MAX;
        if (s->kind == WEIR_MR_SLOT_ROWTIME)
            continue;
        bool agg = s->kind == WEIR_MR_SLOT_AGG;
        uint32_t k = 0;
        for (; k < o->n_tr; k++) {
            const tracker *x = &o->tr[k];
            if (x->kind == s->kind && x->var == s->var &&
                (agg ? x->col == s->col && (x->agg == s->agg || (s->agg != WEIR_MR_MIN && s->agg != WEIR_MR_MAX &&
                                                                 x->agg != WEIR_MR_MIN && x->agg != WEIR_MR_MAX))
                     : x->offset == s->offset))
                break;
        }
        if (k == o->n_tr) {
            o->tr[k] = (tracker){s->kind, s->var, s->col, agg ? 0 : s->offset, s->agg, (uint32_t)at};
            at += s->kind == WEIR_MR_SLOT_LAST ? 2 + (uint64_t)s->offset : s->kind == WEIR_MR_SLOT_PREV ? 1 : agg ? 3 : 2;
            o->n_tr++;
        }
        o->slot_tr[sc] = k;
    }
    if (at > (1u << 20))
        return WEIR_EUNSUPPORTED;
    o->W = (uint32_t)at;
    return 0;
}

/* Whether var's condition reads only the candidate row. */
static bool reads_candidate_only(const weir_match_config *c, uint32_t var)
{
    if (!c->define[var])
        return true;
    const weir_mr_uses *u = &c->define_uses[var];
    for (uint32_t i = 0; i < u->n; i++) {
        const weir_mr_slot *s = &c->slots[u->slots[i]];
        if (s->kind != WEIR_MR_SLOT_LAST || s->offset || (s->var >= 0 && s->var != (int32_t)var))
            return false;
    }
    return true;
}

uint32_t weir_match_merged_from(const weir_match_config *c)
{
    uint32_t t = c->n_terms;
    while (t > 0 && reads_candidate_only(c, c->terms[t - 1].var))
        t--;
    return t;
}

static int match_create(void *arg, const weir_op_info *info, void **out_op)
{
    const weir_match_config *c = arg;
    match_op *o = weir_calloc(1, sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    *out_op = o;
    o->conf = *c;
    weir__held_wm_init(&o->wm, 1);
    o->n_cols = c->in_schema->n_fields;
    weir_buf_init(&o->elem);
    weir_buf_init(&o->sk);
    weir_buf_init(&o->row);
    weir_buf_init(&o->enc);
    weir_buf_init(&o->held.buf);
    int rc = make_trackers(o);
    if (rc)
        return rc;
    o->free_from = weir_calloc(c->n_terms + 1, sizeof *o->free_from);
    o->post_t = weir_calloc(c->n_terms + 1, sizeof *o->post_t);
    o->post_c = weir_calloc(c->n_terms + 1, sizeof *o->post_c);
    o->m = weir_calloc(o->W, sizeof *o->m);
    o->tmp = weir_calloc(o->W, sizeof *o->tmp);
    o->cache_seq = weir_calloc(CACHE_ROWS, sizeof *o->cache_seq);
    o->cache_pos = weir_calloc(CACHE_ROWS, sizeof *o->cache_pos);
    o->cache_gen = weir_calloc(CACHE_ROWS, sizeof *o->cache_gen);
    o->cache = weir_batch_create(c->in_schema, CACHE_ROWS);
    o->out = weir_batch_create(c->out_schema, info->batch_size);
    o->slotb = weir_batch_create(c->slot_schema, 1);
    o->mb = weir_batch_create(c->measure_schema, 1);
    o->env = weir_expr_env_create();
    if (!o->free_from || !o->post_t || !o->post_c || !o->m || !o->tmp || !o->cache_seq || !o->cache_pos ||
        !o->cache_gen || !o->cache || !o->out || !o->slotb || !o->mb || !o->env)
        return WEIR_ENOMEM;
    for (uint32_t t = weir_match_merged_from(c); t <= c->n_terms; t++)
        o->free_from[t] = true;
    o->cgen = o->gen = 1;
    return 0;
}

static int match_open(void *op, weir_op_ctx *ctx)
{
    match_op *o = op;
    weir_state_desc held = {.name = "mr-rows", .kind = WEIR_STATE_LIST};
    weir_state_desc rows = {.name = "mr-row", .kind = WEIR_STATE_VALUE};
    weir_state_desc run = {.name = "mr-run", .kind = WEIR_STATE_VALUE};
    weir_state_desc old = {.name = "mr-seq", .kind = WEIR_STATE_VALUE};
    o->n_late = weir_op_counter(ctx, "late_records_dropped");
    o->n_matches = weir_op_counter(ctx, "matches");
    int rc;
    if ((rc = weir_op_get_state(ctx, &held, &o->held_st)) || (rc = weir_op_get_state(ctx, &rows, &o->row_st)) ||
        (rc = weir_op_get_state(ctx, &run, &o->run_st)))
        return rc;
    return weir_op_get_state(ctx, &old, &o->old_st);
}

static void match_close(void *op)
{
    match_op *o = op;
    if (!o)
        return;
    weir_batch_destroy(o->out);
    weir_batch_destroy(o->slotb);
    weir_batch_destroy(o->mb);
    weir_batch_destroy(o->cache);
    if (o->env)
        weir_expr_env_destroy(o->env);
    weir_buf_fini(&o->elem);
    weir_buf_fini(&o->sk);
    weir_buf_fini(&o->row);
    weir_buf_fini(&o->enc);
    weir__held_fini(&o->held);
    weir_free(o->tr);
    weir_free(o->slot_tr);
    weir_free(o->free_from);
    weir_free(o->post_t);
    weir_free(o->post_c);
    weir_free(o->m);
    weir_free(o->tmp);
    weir_free(o->cur);
    weir_free(o->nxt);
    weir_free(o->set_key);
    weir_free(o->set_gen);
    weir_free(o->cache_seq);
    weir_free(o->cache_pos);
    weir_free(o->cache_gen);
    weir_free(o);
}

static int match_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id, weir_buf *out)
{
    (void)ckpt_id;
    return weir__held_wm_snapshot(&((match_op *)op)->wm, ctx, out);
}

static int match_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    return weir__held_wm_restore(&((match_op *)op)->wm, ctx, in, "MATCH_RECOGNIZE");
}

static int match_restore_union(void *op, weir_op_ctx *ctx, weir_cursor *states, uint32_t n)
{
    return weir__held_wm_restore_union(&((match_op *)op)->wm, ctx, states, n, "MATCH_RECOGNIZE");
}

static const weir_operator_class match_class = {
    .name = "Match",
    .open = match_open,
    .process = match_process,
    .timer = match_timer,
    .snapshot = match_snapshot,
    .restore = match_restore,
    .restore_union = match_restore_union,
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
    if (!c->max_partial)
        c->max_partial = WEIR_MATCH_MAX_PARTIAL_DEFAULT;
    *out = (weir_operator_spec){"Match", &match_class, match_create, c, conf_free};
    return 0;
}
