/*
 * ops/window_join.c - window join (Flink's window join; see ops.h and
 * docs/joins.md).
 *
 * The join key includes the window bounds, so the rows of one key belong
 * to one window. State: per side one list state, "wjoin-left" and
 * "wjoin-right", of encoded rows (ops/rowcodec.h), appended without being
 * read: inputs are append-only, so a row never has to be found again. Rows
 * whose key has a NULL column can never match; an outer side keeps them
 * in the namespace "n" so that they are padded when the window fires.
 * A row is late when its window end is at or behind the watermark of its
 * own side (weir_op_input_watermark), whatever the other side did: so
 * late-row decisions do not depend on how the two inputs interleave, on
 * batch sizes, or on which side ended first. A row on time by its side's
 * watermark always finds its window open (the join's watermark is never
 * ahead of an active side's).
 * Each key has one event-time timer at its window end: when the watermark
 * reaches it (W >= end) both sides' rows are read, every pair is built
 * into a candidate batch, the residual condition filters the candidates in
 * one call per batch, matches are emitted, unmatched rows of an outer side
 * are emitted padded, and the state of the key is cleared. State and timers
 * live in the backend; the operator's own state is each side's watermark
 * (ops/held_wm.h): after a restore a row behind a window that fired before
 * the checkpoint is late, as it would have been without the restore (it
 * does not open its window again and join).
 *
 * Window SEMI and ANTI joins (IN / EXISTS subqueries over windowed
 * inputs) keep the same state and fire the same way, but emit each left
 * row of the window once, alone, if it matched at least one right row
 * (SEMI) or none (ANTI); ANTI keeps left rows with a NULL key column, which
 * match nothing, to emit them at the window end.
 *
 * Output rows carry event time end - 1 (the window's window_time). They
 * are emitted by the timer, before the runtime forwards the watermark that
 * fired it, so they are on time downstream.
 *
 * Windows of local wall time (cfg.time_zone, windows over a TIMESTAMP_LTZ
 * attribute): window ends are local times, so a row is late when its end
 * is at or behind the local floor of its side's watermark (the smallest
 * local time any instant from the watermark on shows, which stays
 * monotonic across a fall-back), and the timer waits for the first instant
 * from which that floor reaches the end; the timer carries the end as its
 * namespace, and the rows get the instant of local end - 1, as the window
 * aggregation gives its window_time.
 */
#include <stdio.h>
#include <string.h>

#include "ops/held_wm.h"
#include "ops/join_core.h"
#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "time/tz.h"
#include "weir/state.h"

/* Namespace of the rows whose join key has a NULL: they match nothing. */
static const char NULL_NS[1] = {'n'};

typedef struct wjoin_conf {
    weir_window_join_config cfg;
    bool outer[2]; /* side i keeps unmatched rows (NULL-padded in the output) */
    bool semi;     /* SEMI or ANTI: the output is the left row alone */
    /* the joined row (candidates, decoded rows) */
    const weir_schema *cand_schema;
} wjoin_conf;

/* One side's rows of the window that fires, decoded out of the state. */
typedef struct side_rows {
    uint32_t n;
    weir_batch *rows; /* decoded, in this side's columns of a cand_schema
                         batch */
    uint32_t rows_cap;
    uint8_t *matched; /* per row: joined at least once */
} side_rows;

typedef struct wjoin_op {
    const wjoin_conf *conf;
    weir_join_core core; /* cand: the candidate pairs (a batch of them) */
    uint32_t *pair[2];   /* per candidate: its row on each side */
    side_rows side[2];
    weir_buf row; /* encoded input row */
    /* the (key, end) whose timer was registered last: consecutive rows of one
     * window skip the lookup */
    uint8_t last_key[1024];
    size_t last_klen;
    weir_ts last_end;
    uint64_t *n_fired;
    uint64_t *n_held; /* rows in state now (a gauge) */
    weir__tz *tz;     /* cfg.time_zone loaded; NULL: UTC */
    weir__held_wm wm; /* each side's, held across a restore */
} wjoin_op;

/* ------------------------------------------------------------ lifecycle */

static int wjoin_create(void *arg, const weir_op_info *info, void **out_op)
{
    const wjoin_conf *c = arg;
    wjoin_op *j = weir_calloc(1, sizeof *j);
    *out_op = j;
    if (!j)
        return WEIR_ENOMEM;
    j->conf = c;
    weir_buf_init(&j->row);
    j->last_end = WEIR_TS_MIN;
    weir__held_wm_init(&j->wm, 2);
    int rc =
        weir__join_core_init(&j->core, "window join", info, c->cfg.out_schema,
                             c->cand_schema, 0, &c->cfg.clock);
    if (rc)
        return rc;
    j->pair[0] = weir_malloc(j->core.batch_size * sizeof(uint32_t));
    j->pair[1] = weir_malloc(j->core.batch_size * sizeof(uint32_t));
    if (c->cfg.time_zone) {
        weir_error err = {0};
        if ((rc = weir__tz_load(c->cfg.time_zone, &j->tz, &err)))
            return rc;
    }
    return j->pair[0] && j->pair[1] ? 0 : WEIR_ENOMEM;
}

static int wjoin_open(void *op, weir_op_ctx *ctx)
{
    wjoin_op *j = op;
    const weir_window_join_config *c = &j->conf->cfg;
    const weir_state_desc desc[2] = {
        {.name = "wjoin-left", .kind = WEIR_STATE_LIST},
        {.name = "wjoin-right", .kind = WEIR_STATE_LIST}};
    int rc = weir__join_core_open(&j->core, ctx, c->n_out, desc);
    if (rc)
        return rc;
    const weir_op_info *info = weir_op_info_of(ctx);
    for (int s = 0; s < 2; s++) {
        const weir_schema *in = info->input_schemas[s];
        if (c->end_col[s] >= in->n_fields ||
            (in->fields[c->end_col[s]].type.id != WEIR_TYPE_TIMESTAMP &&
             in->fields[c->end_col[s]].type.id != WEIR_TYPE_TIMESTAMP_LTZ))
            return weir_op_fail(
                ctx, WEIR_EINVAL,
                "window join input %d: column %u is not a window_end TIMESTAMP",
                s, c->end_col[s]);
    }
    j->n_fired = weir_op_counter(ctx, "windows_fired");
    j->n_held = weir_op_counter(ctx, "rows_in_state");
    return 0;
}

static void wjoin_close(void *op)
{
    wjoin_op *j = op;
    if (!j)
        return;
    weir__join_core_fini(&j->core);
    weir__tz_free(j->tz);
    weir_free(j->pair[0]);
    weir_free(j->pair[1]);
    for (int s = 0; s < 2; s++) {
        side_rows *sr = &j->side[s];
        weir_free(sr->matched);
        weir_batch_destroy(sr->rows);
    }
    weir_buf_fini(&j->row);
    weir_free(j);
}

/* ------------------------------------------------------------ input */

static int wjoin_process(void *op, weir_op_ctx *ctx, int input,
                         const weir_batch *in)
{
    wjoin_op *j = op;
    const wjoin_conf *jc = j->conf;
    const weir_window_join_config *c = &jc->cfg;
    if (input < 0 || input > 1)
        return weir_op_fail(ctx, WEIR_EINVAL,
                            "window join input %d does not exist", input);
    int s = input;
    const weir_keyspec *ks = &c->keys[s];
    /* Judged against this side's own watermark: the join's is held back by
     * the other side, or jumps when it ends, by thread timing (see
     * weir_op_input_watermark). */
    weir_ts wm = weir__tz_local_watermark(j->tz, weir__held_wm_input(&j->wm, ctx, input));
    for (uint32_t r = 0; r < in->n_rows; r++) {
        if (in->kind[r] != WEIR_ROW_INSERT)
            return weir_op_fail(
                ctx, WEIR_EUNSUPPORTED,
                "window join input %d is not append-only (row kind %s)", s,
                weir_row_kind_name((weir_row_kind)in->kind[r]));
        /* A row without a window end belongs to no window: like a late row, it
         * can never be joined. */
        if (weir_batch_is_null(in, c->end_col[s], r)) {
            weir_op_counter_add(j->core.n_late, 1);
            continue;
        }
        weir_ts end = WEIR_COL_I64(in, c->end_col[s])[r];
        if (end <= wm) {
            /* Its window has been joined (or could have been) already. */
            weir_op_counter_add(j->core.n_late, 1);
            continue;
        }
        bool null_key = false;
        for (uint32_t k = 0; k < ks->n; k++)
            null_key |= weir_batch_is_null(in, ks->cols[k], r);
        if (null_key && !jc->outer[s])
            continue; /* matches nothing and is not kept */
        size_t klen;
        int rc = weir__join_core_key(&j->core, ctx, in, ks, r, &klen);
        if (!rc)
            rc = weir_op_set_key(ctx, j->core.key, klen);
        if (!rc)
            rc = weir__row_encode(in, r, c->n_out[s], &j->row);
        if (!rc)
            rc = weir_list_add(j->core.st[s], null_key ? NULL_NS : NULL,
                               null_key ? sizeof NULL_NS : 0, j->row.data,
                               j->row.len);
        if (rc)
            return rc;
        weir_op_counter_add(j->n_held, 1);
        if (end != j->last_end || klen != j->last_klen ||
            memcmp(j->core.key, j->last_key, klen)) {
            rc = j->tz ? weir_op_timer_register(ctx, WEIR_TIME_EVENT, weir__tz_fire_instant(j->tz, end), end)
                       : weir_op_timer_register(ctx, WEIR_TIME_EVENT, end, 0);
            if (rc)
                return rc;
            memcpy(j->last_key, j->core.key, klen);
            j->last_klen = klen;
            j->last_end = end;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ firing */

/* Makes room for cap rows in side s's batch, keeping the rows loaded so far. */
static int side_reserve(wjoin_op *j, side_rows *sr, int s, uint32_t cap)
{
    const weir_window_join_config *c = &j->conf->cfg;
    weir_batch *b = weir_batch_create(j->conf->cand_schema, cap);
    uint8_t *m = weir_malloc(cap);
    if (!b || !m) {
        weir_batch_destroy(b);
        weir_free(m);
        return WEIR_ENOMEM;
    }
    uint32_t off = s == 0 ? 0 : c->n_out[0];
    for (uint32_t i = 0; i < sr->n; i++) {
        int row = weir_batch_append_row(b);
        int rc = row < 0 ? row : weir__row_copy_cols(b, (uint32_t)row, off, sr->rows, i, off, c->n_out[s]);
        if (rc) {
            weir_batch_destroy(b);
            weir_free(m);
            return rc;
        }
    }
    weir_batch_destroy(sr->rows);
    weir_free(sr->matched);
    sr->rows = b;
    sr->matched = m;
    sr->rows_cap = cap;
    return 0;
}

typedef struct load_ctx {
    wjoin_op *j;
    int s;
    bool bad; /* a stored row did not decode */
} load_ctx;

/* Decodes one stored row of the side being loaded straight out of the state
 * (its bytes are valid during the visit). */
static int load_visit(void *ud, const void *val, size_t len)
{
    load_ctx *lc = ud;
    wjoin_op *j = lc->j;
    const weir_window_join_config *c = &j->conf->cfg;
    side_rows *sr = &j->side[lc->s];
    if (sr->n == sr->rows_cap) {
        int rc = side_reserve(j, sr, lc->s, sr->rows_cap ? sr->rows_cap * 4 : 256);
        if (rc)
            return rc;
    }
    int row = weir_batch_append_row(sr->rows);
    if (row < 0)
        return row;
    int rc = weir__row_decode(val, len, sr->rows, (uint32_t)row, lc->s == 0 ? 0 : c->n_out[0], c->n_out[lc->s]);
    if (rc) {
        lc->bad = true;
        return rc;
    }
    sr->n++;
    return 0;
}

/* Reads side s's rows of the current key in namespace (ns, ns_len) and decodes
 * them into sr->rows. */
static int load_side(wjoin_op *j, weir_op_ctx *ctx, int s, const void *ns,
                     size_t ns_len)
{
    side_rows *sr = &j->side[s];
    sr->n = 0;
    if (sr->rows)
        weir_batch_reset(sr->rows);
    load_ctx lc = {j, s, false};
    int rc = weir_list_get(j->core.st[s], ns, ns_len, load_visit, &lc);
    if (lc.bad)
        return weir_op_fail(
            ctx, rc, "window join state holds a row that does not decode");
    if (rc || sr->n == 0)
        return rc;
    memset(sr->matched, 0, sr->n);
    return 0;
}

/*
 * An error of the residual names candidate k ("... (row k)"): it becomes
 * the pair's rows, each as its place among its side's rows of the key in
 * the window (the state's order), from 0 as the regular join's are.
 */
static void name_pair(const wjoin_op *j, uint32_t n, weir_error *err)
{
    uint32_t k;
    if (!weir__join_error_candidate(err, &k) || k >= n)
        return;
    char msg[sizeof err->message];
    snprintf(msg, sizeof msg,
             "%.300s (the left input's row %u of the %u of its key in the "
             "window, with the right input's row %u of the %u)",
             err->message, j->pair[0][k], j->side[0].n, j->pair[1][k],
             j->side[1].n);
    memcpy(err->message, msg, sizeof msg);
}

/* Filters the candidate pairs by the residual and emits the matches. */
static int emit_candidates(wjoin_op *j, weir_op_ctx *ctx, weir_ts ts)
{
    const weir_window_join_config *c = &j->conf->cfg;
    uint32_t n = j->core.cand->n_rows;
    if (n == 0)
        return 0;
    if (c->residual) {
        weir_error err = {0};
        weir_expr_env_set_watermark(j->core.env, weir_op_watermark(ctx));
        if (weir_expr_filter(c->residual, j->core.cand, j->core.env,
                             j->core.sel, &err)) {
            name_pair(j, n, &err);
            return weir_op_fail(ctx, err.code ? err.code : WEIR_EINVAL,
                                "window join condition: %s", err.message);
        }
    } else {
        memset(j->core.sel, 1, n);
    }
    uint32_t nf = c->out_schema->n_fields;
    for (uint32_t k = 0; k < n; k++) {
        if (!j->core.sel[k])
            continue;
        j->side[0].matched[j->pair[0][k]] = 1;
        j->side[1].matched[j->pair[1][k]] = 1;
        if (j->conf->semi)
            continue; /* emitted per left row once all pairs are known */
        uint32_t r;
        int rc =
            weir__join_core_out_row(&j->core, ctx, WEIR_ROW_INSERT, ts, &r);
        if (!rc)
            rc = weir__row_copy_cols(j->core.out, r, 0, j->core.cand, k, 0, nf);
        if (rc)
            return rc;
    }
    weir_batch_reset(j->core.cand);
    return 0;
}

/* A SEMI (matched = 1) or ANTI (matched = 0) join: emits the loaded left
 * rows whose matched flag is `matched`, alone. */
static int emit_left(wjoin_op *j, weir_op_ctx *ctx, uint8_t matched, weir_ts ts)
{
    side_rows *sr = &j->side[0];
    for (uint32_t i = 0; i < sr->n; i++) {
        if (sr->matched[i] != matched)
            continue;
        uint32_t r;
        int rc =
            weir__join_core_out_row(&j->core, ctx, WEIR_ROW_INSERT, ts, &r);
        if (!rc)
            rc = weir__row_copy_cols(j->core.out, r, 0, sr->rows, i, 0,
                                     j->conf->cfg.n_out[0]);
        if (rc)
            return rc;
    }
    return 0;
}

/* Emits the loaded rows of side s that matched nothing, with the other side
 * NULL. */
static int emit_unmatched(wjoin_op *j, weir_op_ctx *ctx, int s, weir_ts ts)
{
    const weir_window_join_config *c = &j->conf->cfg;
    side_rows *sr = &j->side[s];
    if (j->conf->semi)
        return emit_left(j, ctx, 0, ts);
    uint32_t off = s == 0 ? 0 : c->n_out[0], ooff = s == 0 ? c->n_out[0] : 0;
    for (uint32_t i = 0; i < sr->n; i++) {
        if (sr->matched[i])
            continue;
        uint32_t r;
        int rc =
            weir__join_core_out_row(&j->core, ctx, WEIR_ROW_INSERT, ts, &r);
        if (!rc)
            rc = weir__row_copy_cols(j->core.out, r, off, sr->rows, i, off,
                                     c->n_out[s]);
        if (rc)
            return rc;
        for (uint32_t k = 0; k < c->n_out[1 - s]; k++)
            weir_batch_set_null(j->core.out, ooff + k, r);
    }
    return 0;
}

static void release(wjoin_op *j, uint32_t n)
{
    weir_op_counter_set(j->n_held, *j->n_held >= n ? *j->n_held - n : 0);
}

/* The window of the current key ended (W >= end): join its rows, emit, drop
 * them. */
static int wjoin_timer(void *op, weir_op_ctx *ctx, const weir_timer *tm)
{
    wjoin_op *j = op;
    const wjoin_conf *jc = j->conf;
    const weir_window_join_config *c = &jc->cfg;
    weir_ts ts = j->tz ? weir__tz_to_utc(j->tz, tm->ns - 1) : tm->ts - 1;
    weir_op_counter_add(j->n_fired, 1);
    int rc = 0;
    for (int s = 0; s < 2 && !rc; s++)
        rc = load_side(j, ctx, s, NULL, 0);
    if (rc)
        return rc;
    side_rows *L = &j->side[0], *R = &j->side[1];
    uint32_t nl = c->n_out[0], nr = c->n_out[1];
    weir_batch_reset(j->core.cand);
    for (uint32_t a = 0; a < L->n && !rc; a++) {
        for (uint32_t b = 0; b < R->n && !rc; b++) {
            if (weir_batch_full(j->core.cand) &&
                (rc = emit_candidates(j, ctx, ts)))
                break;
            int k = weir_batch_append_row(j->core.cand);
            if (k < 0) {
                rc = k;
                break;
            }
            j->pair[0][k] = a;
            j->pair[1][k] = b;
            rc = weir__row_copy_cols(j->core.cand, (uint32_t)k, 0, L->rows, a,
                                     0, nl);
            if (!rc)
                rc = weir__row_copy_cols(j->core.cand, (uint32_t)k, nl, R->rows,
                                         b, nl, nr);
        }
    }
    if (!rc)
        rc = emit_candidates(j, ctx, ts);
    if (!rc && c->type == WEIR_JOIN_SEMI)
        rc = emit_left(j, ctx, 1, ts);
    release(j, L->n + R->n);
    for (int s = 0; s < 2 && !rc; s++)
        if (jc->outer[s])
            rc = emit_unmatched(j, ctx, s, ts);
    /* rows under a key with a NULL column: only an outer side keeps them, and
     * they are all unmatched */
    for (int s = 0; s < 2 && !rc; s++) {
        if (!jc->outer[s])
            continue;
        if (!(rc = load_side(j, ctx, s, NULL_NS, sizeof NULL_NS)))
            rc = emit_unmatched(j, ctx, s, ts);
        release(j, j->side[s].n);
        if (!rc)
            rc = weir_state_clear(j->core.st[s], NULL_NS, sizeof NULL_NS);
    }
    for (int s = 0; s < 2 && !rc; s++)
        rc = weir_state_clear(j->core.st[s], NULL, 0);
    return rc ? rc : weir__join_core_flush(&j->core, ctx);
}

/* ------------------------------------------------------------ checkpoints */

static int wjoin_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id, weir_buf *out)
{
    (void)ckpt_id;
    return weir__held_wm_snapshot(&((wjoin_op *)op)->wm, ctx, out);
}

static int wjoin_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    return weir__held_wm_restore(&((wjoin_op *)op)->wm, ctx, in, "window join");
}

static int wjoin_restore_union(void *op, weir_op_ctx *ctx, weir_cursor *states, uint32_t n)
{
    return weir__held_wm_restore_union(&((wjoin_op *)op)->wm, ctx, states, n, "window join");
}

static const weir_operator_class wjoin_class = {
    .name = "WindowJoin",
    .open = wjoin_open,
    .process = wjoin_process,
    .timer = wjoin_timer,
    .snapshot = wjoin_snapshot,
    .restore = wjoin_restore,
    .restore_union = wjoin_restore_union,
    .close = wjoin_close,
};

int weir_window_join_spec(const weir_window_join_config *cfg,
                          weir_operator_spec *out)
{
    bool semi =
        cfg && (cfg->type == WEIR_JOIN_SEMI || cfg->type == WEIR_JOIN_ANTI);
    if (!cfg || !out || !cfg->out_schema || cfg->keys[0].n == 0 ||
        cfg->keys[0].n != cfg->keys[1].n ||
        (semi ? !cfg->cand_schema ||
                    cfg->n_out[0] != cfg->out_schema->n_fields ||
                    cfg->n_out[0] + cfg->n_out[1] != cfg->cand_schema->n_fields
              : cfg->n_out[0] + cfg->n_out[1] != cfg->out_schema->n_fields))
        return WEIR_EINVAL;
    wjoin_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    c->cfg = *cfg;
    c->outer[0] = cfg->type == WEIR_JOIN_LEFT || cfg->type == WEIR_JOIN_FULL;
    c->outer[1] = cfg->type == WEIR_JOIN_RIGHT || cfg->type == WEIR_JOIN_FULL;
    /* ANTI emits the left rows that matched nothing, those with a NULL key
     * included: it keeps them as an outer side does. */
    c->outer[0] |= cfg->type == WEIR_JOIN_ANTI;
    c->semi = semi;
    c->cand_schema = semi ? cfg->cand_schema : cfg->out_schema;
    *out = (weir_operator_spec){"WindowJoin", &wjoin_class, wjoin_create, c,
                                weir_free};
    return 0;
}
