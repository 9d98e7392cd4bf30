/*
 * ops/temporal_join.c - event-time temporal join (Flink's
 * TemporalRowTimeJoinOperator): JOIN versioned FOR SYSTEM_TIME AS OF
 * probe.rowtime ON probe.k = versioned.pk.
 *
 * Input 0 is the probe stream (append-only), input 1 the versioned table's
 * changelog; both arrive keyed by the join key, which is the versioned
 * table's primary key, so one key holds one entity's versions.
 *
 * State, per key:
 *   tjoin-probe     map: encoded probe row -> {count, time}; rows waiting
 *                   for the watermark (duplicates share an entry);
 *   tjoin-versions  map: version time (8 bytes) -> {kind, encoded row};
 *                   every +I, +U and -D of the versioned side, by its time
 *                   (a later row of the same time replaces an earlier one,
 *                   as in Flink). -U rows are skipped: Flink reads the
 *                   versioned side in upsert mode, and a -U carries the old
 *                   row, whose time would overwrite the old version.
 *
 * A probe row at time t waits until the watermark passes it (W > t: no
 * version with a time <= t can still come), then is joined with the
 * version of the latest time <= t; that version must be an insert or an
 * update (+I/+U): a -D there means the key had no value at t. The residual condition decides on the joined row; a LEFT join emits a
 * probe row without a (passing) version padded with NULLs. Output rows are
 * +I at the probe row's time, emitted before the runtime forwards the
 * watermark that fired them, so the probe side's time attribute stays one.
 *
 * Each probe row and each version registers an event-time timer at its
 * time + 1 (namespace 0, deduplicated by the timer service). A timer at B
 * fires when W >= B: it joins and drops the probe rows with t < B, then
 * drops the versions no row still to come can need: probe rows still
 * stored and on-time rows still to come have t >= B, so of the versions
 * with time <= B only the latest is kept (and not even that one when it is
 * a deletion).
 *
 * Late rows: a row whose time is behind its own input's watermark
 * (weir_op_input_watermark; after a restore, held at the checkpoint's
 * until the input passes it: ops/held_wm.h) is counted in late_rows and
 * dropped. Flink keeps such rows and joins them with whatever is still
 * stored; weir drops them so that the result does not depend on how far
 * the other input got (thread timing). An on-time probe row always finds its version: that
 * version is either still to come or was kept by every cleanup, which only
 * drops versions older than the latest one <= B <= the row's time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/held_wm.h"
#include "ops/join_core.h"
#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "weir/state.h"

typedef struct tj_ref {
    size_t off, len; /* the encoded row in its scan buffer */
    int64_t count;   /* probe rows: occurrences */
    int64_t ts;      /* the row's time */
    uint8_t kind;    /* versions: the changelog kind */
} tj_ref;

typedef struct tj_list {
    tj_ref *v;
    uint32_t n, cap;
    weir_buf buf;
} tj_list;

typedef struct tj_op {
    const weir_temporal_join_config *cfg;
    weir_join_core core; /* cand: probe rows joined with their versions */
    tj_list probes, versions;
    int32_t *match; /* per ready probe: its version's index in versions, or -1 */
    uint32_t match_cap;
    weir_buf row, val;
    uint64_t *n_expired;
    weir__held_wm wm; /* each input's, held across a restore: its operator state */
} tj_op;

static int tj_create(void *arg, const weir_op_info *info, void **out_op)
{
    const weir_temporal_join_config *c = arg;
    tj_op *j = weir_calloc(1, sizeof *j);
    *out_op = j;
    if (!j)
        return WEIR_ENOMEM;
    j->cfg = c;
    weir__held_wm_init(&j->wm, 2);
    weir_buf_init(&j->row);
    weir_buf_init(&j->val);
    weir_buf_init(&j->probes.buf);
    weir_buf_init(&j->versions.buf);
    return weir__join_core_init(&j->core, "temporal join", info, c->out_schema,
                                c->out_schema, 16, &c->clock);
}

static int tj_open(void *op, weir_op_ctx *ctx)
{
    tj_op *j = op;
    const weir_state_desc desc[2] = {
        {.name = "tjoin-probe", .kind = WEIR_STATE_MAP},
        {.name = "tjoin-versions", .kind = WEIR_STATE_MAP}};
    int rc = weir__join_core_open(&j->core, ctx, j->cfg->n_out, desc);
    if (rc)
        return rc;
    const weir_op_info *info = weir_op_info_of(ctx);
    for (int s = 0; s < 2; s++)
        if (info->input_schemas[s]->n_fields <= j->cfg->time_col[s])
            return weir_op_fail(
                ctx, WEIR_EINVAL,
                "temporal join input %d has %u columns, no time column %u", s,
                info->input_schemas[s]->n_fields, j->cfg->time_col[s]);
    j->n_expired = weir_op_counter(ctx, "expired_versions");
    return 0;
}

static void tj_close(void *op)
{
    tj_op *j = op;
    if (!j)
        return;
    weir__join_core_fini(&j->core);
    weir_free(j->match);
    weir_free(j->probes.v);
    weir_free(j->versions.v);
    weir_buf_fini(&j->probes.buf);
    weir_buf_fini(&j->versions.buf);
    weir_buf_fini(&j->row);
    weir_buf_fini(&j->val);
    weir_free(j);
}

/* Emits the probe part of candidate i (padded: the versioned columns NULL) or all of it. */
static int emit_cand(tj_op *j, weir_op_ctx *ctx, uint32_t i, bool padded, weir_ts ts)
{
    const weir_temporal_join_config *c = j->cfg;
    uint32_t r;
    int rc = weir__join_core_out_row(&j->core, ctx, WEIR_ROW_INSERT, ts, &r);
    if (rc)
        return rc;
    if (!padded)
        return weir__row_copy_cols(j->core.out, r, 0, j->core.cand, i, 0,
                                   c->n_out[0] + c->n_out[1]);
    if ((rc = weir__row_copy_cols(j->core.out, r, 0, j->core.cand, i, 0,
                                  c->n_out[0])))
        return rc;
    for (uint32_t k = 0; k < c->n_out[1]; k++)
        weir_batch_set_null(j->core.out, c->n_out[0] + k, r);
    return 0;
}

static int ensure_cand(tj_op *j, uint32_t n)
{
    if (n > j->match_cap) {
        int32_t *m = weir_realloc(j->match, n * sizeof *m);
        if (!m)
            return WEIR_ENOMEM;
        j->match = m;
        j->match_cap = n;
    }
    return weir__join_core_reserve(&j->core, j->cfg->out_schema, n);
}

static tj_ref *list_add(tj_list *l)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        tj_ref *v = weir_realloc(l->v, cap * sizeof *v);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    return &l->v[l->n++];
}

static void list_clear(tj_list *l)
{
    l->n = 0;
    weir_buf_clear(&l->buf);
}

static int probe_visit(void *ud, const void *k, size_t klen, const void *v, size_t vlen)
{
    tj_list *l = ud;
    if (vlen != 16)
        return WEIR_ECORRUPT;
    tj_ref *r = list_add(l);
    if (!r)
        return WEIR_ENOMEM;
    r->off = l->buf.len;
    r->len = klen;
    memcpy(&r->count, v, 8);
    memcpy(&r->ts, (const char *)v + 8, 8);
    r->kind = WEIR_ROW_INSERT;
    return weir_buf_put(&l->buf, k, klen) ? WEIR_ENOMEM : 0;
}

static int version_visit(void *ud, const void *k, size_t klen, const void *v, size_t vlen)
{
    tj_list *l = ud;
    if (klen != 8 || vlen < 1)
        return WEIR_ECORRUPT;
    tj_ref *r = list_add(l);
    if (!r)
        return WEIR_ENOMEM;
    memcpy(&r->ts, k, 8);
    r->kind = *(const uint8_t *)v;
    r->off = l->buf.len;
    r->len = vlen - 1;
    r->count = 1;
    return weir_buf_put(&l->buf, (const uint8_t *)v + 1, vlen - 1) ? WEIR_ENOMEM : 0;
}

static int cmp_ts(const void *a, const void *b)
{
    const tj_ref *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static bool is_accumulate(uint8_t kind) { return kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER; }

static int tj_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    tj_op *j = op;
    const weir_temporal_join_config *c = j->cfg;
    if (input < 0 || input > 1)
        return weir_op_fail(ctx, WEIR_EINVAL, "temporal join input %d does not exist", input);
    weir_ts wm = weir__held_wm_input(&j->wm, ctx, input);
    const weir_keyspec *ks = &c->keys[input];
    int rc = 0;
    for (uint32_t r = 0; r < in->n_rows && !rc; r++) {
        uint32_t tc = c->time_col[input];
        int64_t t = WEIR_COL_I64(in, tc)[r];
        if (weir_batch_is_null(in, tc, r) || t < wm) {
            weir_op_counter_add(j->core.n_late, 1);
            continue;
        }
        bool null_key = false;
        for (uint32_t k = 0; k < ks->n; k++)
            null_key |= weir_batch_is_null(in, ks->cols[k], r);
        if (null_key) {
            /* no version can have a NULL key: a probe row matches nothing, a version is never read */
            if (input == 1 || !c->left_outer)
                continue;
            if ((rc = ensure_cand(j, 1)))
                return rc;
            weir_batch_reset(j->core.cand);
            int cr = weir_batch_append_row(j->core.cand);
            if (cr < 0)
                return cr;
            if ((rc = weir__row_copy_cols(j->core.cand, (uint32_t)cr, 0, in, r,
                                          0, c->n_out[0])) ||
                (rc = emit_cand(j, ctx, (uint32_t)cr, true, t)))
                return rc;
            continue;
        }
        size_t klen;
        if ((rc = weir__join_core_key(&j->core, ctx, in, ks, r, &klen)) ||
            (rc = weir_op_set_key(ctx, j->core.key, klen)))
            return rc;
        if ((rc = weir__row_encode(in, r, c->n_out[input], &j->row)))
            return rc;
        if (input == 0) {
            int64_t count = 0;
            const void *v;
            size_t vlen;
            rc = weir_map_get(j->core.st[0], NULL, 0, j->row.data, j->row.len,
                              &v, &vlen);
            if (rc == 0) {
                if (vlen != 16)
                    return weir_op_fail(ctx, WEIR_ECORRUPT, "temporal join state holds a value of %zu bytes", vlen);
                memcpy(&count, v, 8);
            } else if (rc != WEIR_ENOTFOUND) {
                return rc;
            }
            count++;
            weir_buf_clear(&j->val);
            if (weir_buf_put(&j->val, &count, 8) || weir_buf_put(&j->val, &t, 8))
                return WEIR_ENOMEM;
            rc = weir_map_put(j->core.st[0], NULL, 0, j->row.data, j->row.len,
                              j->val.data, j->val.len);
        } else {
            uint8_t kind = in->kind[r];
            /* Flink reads a versioned table in upsert mode, without -U: a -U carries the old row (often the
             * old version's time), and the +U after it is the new version */
            if (kind == WEIR_ROW_UPDATE_BEFORE)
                continue;
            weir_buf_clear(&j->val);
            if (weir_buf_put_u8(&j->val, kind) || weir_buf_put(&j->val, j->row.data, j->row.len))
                return WEIR_ENOMEM;
            rc = weir_map_put(j->core.st[1], NULL, 0, &t, 8, j->val.data,
                              j->val.len);
        }
        /* t >= W, so t + 1 > W: the timer is in the future */
        if (!rc)
            rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, t + 1, 0);
    }
    if (rc)
        return rc;
    return weir__join_core_flush(&j->core, ctx);
}

/*
 * An error of the residual names candidate i ("... (row i)"), the i-th of
 * the key's n left rows the watermark released, in time order: it names
 * that row and the right input's version it met (in time order), from 0
 * as the regular join's are.
 */
static void name_probe(const tj_op *j, uint32_t n, weir_error *err)
{
    uint32_t i;
    if (!weir__join_error_candidate(err, &i) || i >= n)
        return;
    char msg[sizeof err->message],
        with[96] = "with no version of the right input";
    if (j->match[i] >= 0)
        snprintf(with, sizeof with,
                 "with the right input's version %d of the %u",
                 (int)j->match[i], j->versions.n);
    snprintf(msg, sizeof msg,
             "%.300s (the left input's row %u of the %u of its key the "
             "watermark released, %s)",
             err->message, i, n, with);
    memcpy(err->message, msg, sizeof msg);
}

/* Joins the probe rows of the timer's key with t < B, then drops the versions nothing can need any more. */
static int tj_timer(void *op, weir_op_ctx *ctx, const weir_timer *tm)
{
    tj_op *j = op;
    const weir_temporal_join_config *c = j->cfg;
    weir_ts B = tm->ts;
    list_clear(&j->probes);
    list_clear(&j->versions);
    int rc =
        weir_map_iterate(j->core.st[1], NULL, 0, version_visit, &j->versions);
    if (!rc)
        rc = weir_map_iterate(j->core.st[0], NULL, 0, probe_visit, &j->probes);
    if (rc)
        return rc == WEIR_ECORRUPT ? weir_op_fail(ctx, rc, "temporal join state does not decode") : rc;
    /* the ready probe rows first, in time order */
    uint32_t n_ready = 0;
    for (uint32_t i = 0; i < j->probes.n; i++)
        if (j->probes.v[i].ts < B) {
            tj_ref t = j->probes.v[n_ready];
            j->probes.v[n_ready++] = j->probes.v[i];
            j->probes.v[i] = t;
        }
    if (n_ready > 1)
        qsort(j->probes.v, n_ready, sizeof *j->probes.v, cmp_ts);
    if (j->versions.n > 1)
        qsort(j->versions.v, j->versions.n, sizeof *j->versions.v, cmp_ts);
    if (n_ready) {
        if ((rc = ensure_cand(j, n_ready)))
            return rc;
        weir_batch_reset(j->core.cand);
        uint32_t nl = c->n_out[0], nr = c->n_out[1];
        for (uint32_t i = 0; i < n_ready; i++) {
            const tj_ref *p = &j->probes.v[i];
            int cr = weir_batch_append_row(j->core.cand);
            if (cr < 0)
                return cr;
            if ((rc = weir__row_decode(j->probes.buf.data + p->off, p->len,
                                       j->core.cand, (uint32_t)cr, 0, nl)))
                return weir_op_fail(ctx, rc, "temporal join state holds a row that does not decode");
            /* the version valid at p->ts: the latest with a time <= p->ts */
            int32_t m = -1;
            for (uint32_t v = 0; v < j->versions.n && j->versions.v[v].ts <= p->ts; v++)
                m = (int32_t)v;
            if (m >= 0 && !is_accumulate(j->versions.v[m].kind))
                m = -1;
            j->match[i] = m;
            if (m >= 0) {
                const tj_ref *vr = &j->versions.v[m];
                rc = weir__row_decode(j->versions.buf.data + vr->off, vr->len,
                                      j->core.cand, (uint32_t)cr, nl, nr);
                if (rc)
                    return weir_op_fail(ctx, rc, "temporal join state holds a row that does not decode");
            } else {
                for (uint32_t k = 0; k < nr; k++)
                    weir_batch_set_null(j->core.cand, nl + k, (uint32_t)cr);
            }
        }
        if (c->residual) {
            weir_error err = {0};
            weir_expr_env_set_watermark(j->core.env, weir_op_watermark(ctx));
            if (weir_expr_filter(c->residual, j->core.cand, j->core.env,
                                 j->core.sel, &err)) {
                name_probe(j, n_ready, &err);
                return weir_op_fail(ctx, err.code ? err.code : WEIR_EINVAL, "join condition: %s", err.message);
            }
        } else {
            memset(j->core.sel, 1, n_ready);
        }
        for (uint32_t i = 0; i < n_ready; i++) {
            const tj_ref *p = &j->probes.v[i];
            bool hit = j->match[i] >= 0 && j->core.sel[i];
            if (!hit && !c->left_outer)
                continue;
            for (int64_t k = 0; k < p->count; k++)
                if ((rc = emit_cand(j, ctx, i, !hit, p->ts)))
                    return rc;
        }
        for (uint32_t i = 0; i < n_ready; i++) {
            const tj_ref *p = &j->probes.v[i];
            if ((rc = weir_map_remove(j->core.st[0], NULL, 0,
                                      j->probes.buf.data + p->off, p->len)))
                return rc;
        }
    }
    /* of the versions with a time <= B only the latest can still be needed, and only if it is not a deletion */
    int32_t last = -1;
    for (uint32_t v = 0; v < j->versions.n && j->versions.v[v].ts <= B; v++)
        last = (int32_t)v;
    for (int32_t v = 0; v <= last; v++) {
        if (v == last && is_accumulate(j->versions.v[v].kind))
            break;
        int64_t ts = j->versions.v[v].ts;
        if ((rc = weir_map_remove(j->core.st[1], NULL, 0, &ts, 8)))
            return rc;
        weir_op_counter_add(j->n_expired, 1);
    }
    return weir__join_core_flush(&j->core, ctx);
}

/* Operator state: each input's watermark (ops/held_wm.h), so that a row behind it after a
 * restore is late as it would have been without the restore. */
static int tj_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id, weir_buf *out)
{
    (void)ckpt_id;
    return weir__held_wm_snapshot(&((tj_op *)op)->wm, ctx, out);
}

static int tj_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    return weir__held_wm_restore(&((tj_op *)op)->wm, ctx, in, "temporal join");
}

static int tj_restore_union(void *op, weir_op_ctx *ctx, weir_cursor *states, uint32_t n)
{
    return weir__held_wm_restore_union(&((tj_op *)op)->wm, ctx, states, n, "temporal join");
}

static const weir_operator_class tj_class = {
    .name = "TemporalJoin",
    .open = tj_open,
    .process = tj_process,
    .timer = tj_timer,
    .snapshot = tj_snapshot,
    .restore = tj_restore,
    .restore_union = tj_restore_union,
    .close = tj_close,
};

int weir_temporal_join_spec(const weir_temporal_join_config *cfg, weir_operator_spec *out)
{
    if (!cfg || !cfg->out_schema || cfg->keys[0].n == 0 || cfg->keys[0].n != cfg->keys[1].n ||
        cfg->n_out[0] + cfg->n_out[1] != cfg->out_schema->n_fields)
        return WEIR_EINVAL;
    weir_temporal_join_config *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    *c = *cfg;
    *out = (weir_operator_spec){"TemporalJoin", &tj_class, tj_create, c, weir_free};
    return 0;
}
