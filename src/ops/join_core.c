/*
 * ops/join_core.c - the set-up, output and key helpers the two-input joins
 * share (see join_core.h).
 */
#include "ops/join_core.h"

#include <stdio.h>
#include <string.h>

#include "weir/common.h"

int weir__join_core_init(weir_join_core *jc, const char *what,
                         const weir_op_info *info,
                         const weir_schema *out_schema,
                         const weir_schema *cand_schema, uint32_t cand_cap,
                         const weir_clock *clock)
{
    jc->what = what;
    jc->batch_size = info->batch_size ? info->batch_size : 1024;
    jc->cand_cap = cand_cap ? cand_cap : jc->batch_size;
    jc->env = weir_expr_env_create();
    jc->out = weir_batch_create(out_schema, jc->batch_size);
    jc->cand = weir_batch_create(cand_schema, jc->cand_cap);
    jc->sel = weir_malloc(jc->cand_cap);
    if (!jc->env || !jc->out || !jc->cand || !jc->sel)
        return WEIR_ENOMEM;
    if (clock->now_ms)
        weir_expr_env_set_clock(jc->env, clock);
    return 0;
}

int weir__join_core_open(weir_join_core *jc, weir_op_ctx *ctx,
                         const uint32_t n_out[2], const weir_state_desc desc[2])
{
    const weir_op_info *info = weir_op_info_of(ctx);
    if (info->n_inputs != 2)
        return weir_op_fail(ctx, WEIR_EINVAL, "a %s needs two inputs, not %u",
                            jc->what, info->n_inputs);
    for (int s = 0; s < 2; s++)
        if (info->input_schemas[s]->n_fields < n_out[s])
            return weir_op_fail(
                ctx, WEIR_EINVAL,
                "%s input %d has %u columns, fewer than its %u output columns",
                jc->what, s, info->input_schemas[s]->n_fields, n_out[s]);
    for (int s = 0; s < 2; s++) {
        int rc = weir_op_get_state(ctx, &desc[s], &jc->st[s]);
        if (rc)
            return rc;
    }
    jc->n_emitted = weir_op_counter(ctx, "join_rows_emitted");
    jc->n_late = weir_op_counter(ctx, "late_rows");
    return 0;
}

void weir__join_core_fini(weir_join_core *jc)
{
    weir_expr_env_destroy(jc->env);
    weir_batch_destroy(jc->out);
    weir_batch_destroy(jc->cand);
    weir_free(jc->sel);
}

/* Room for n candidates; keep: with the candidates already there. */
static int cand_resize(weir_join_core *jc, const weir_schema *cand_schema,
                       uint32_t n, bool keep)
{
    if (n <= jc->cand_cap)
        return 0;
    uint32_t cap = jc->cand_cap;
    while (cap < n)
        cap *= 2;
    weir_batch *b = weir_batch_create(cand_schema, cap);
    uint8_t *sel = weir_malloc(cap);
    int rc = !b || !sel ? WEIR_ENOMEM : keep ? weir_batch_copy(b, jc->cand) : 0;
    if (rc) {
        weir_batch_destroy(b);
        weir_free(sel);
        return rc;
    }
    weir_batch_destroy(jc->cand);
    weir_free(jc->sel);
    jc->cand = b;
    jc->sel = sel;
    jc->cand_cap = cap;
    return 0;
}

int weir__join_core_reserve(weir_join_core *jc, const weir_schema *cand_schema,
                            uint32_t n)
{
    return cand_resize(jc, cand_schema, n, false);
}

int weir__join_core_grow(weir_join_core *jc, const weir_schema *cand_schema,
                         uint32_t n)
{
    return cand_resize(jc, cand_schema, n, true);
}

int weir__join_core_key(weir_join_core *jc, weir_op_ctx *ctx,
                        const weir_batch *in, const weir_keyspec *ks,
                        uint32_t r, size_t *klen)
{
    *klen = weir_key_encode(in, ks, r, jc->key, sizeof jc->key);
    return weir__join_core_key_fits(jc, ctx, *klen);
}

int weir__join_core_key_fits(weir_join_core *jc, weir_op_ctx *ctx, size_t klen)
{
    if (klen > sizeof jc->key)
        return weir_op_fail(ctx, WEIR_EINVAL,
                            "%s key of %zu bytes exceeds the limit of %zu",
                            jc->what, klen, sizeof jc->key);
    return 0;
}

int weir__join_core_flush(weir_join_core *jc, weir_op_ctx *ctx)
{
    weir_op_counter_add(jc->n_emitted, jc->out->n_rows);
    jc->out_gen++;
    return weir_op_emit_reset(ctx, jc->out);
}

/* A new output row (append: how the batch appends it). */
static int out_row(weir_join_core *jc, weir_op_ctx *ctx, weir_row_kind kind, weir_ts ts, uint32_t *row,
                   int (*append)(weir_batch *))
{
    if (weir_batch_full(jc->out)) {
        int rc = weir__join_core_flush(jc, ctx);
        if (rc)
            return rc;
    }
    int r = append(jc->out);
    if (r < 0)
        return r;
    jc->out->kind[r] = (uint8_t)kind;
    jc->out->ts[r] = ts;
    *row = (uint32_t)r;
    return 0;
}

int weir__join_core_out_row(weir_join_core *jc, weir_op_ctx *ctx, weir_row_kind kind, weir_ts ts, uint32_t *row)
{
    return out_row(jc, ctx, kind, ts, row, weir_batch_append_row);
}

int weir__join_core_out_row_to_fill(weir_join_core *jc, weir_op_ctx *ctx, weir_row_kind kind, weir_ts ts,
                                    uint32_t *row)
{
    return out_row(jc, ctx, kind, ts, row, weir_batch_append_row_to_fill);
}

bool weir__join_error_candidate(weir_error *err, uint32_t *cand)
{
    char *at = strrchr(err->message, '(');
    unsigned i;
    int end = 0;
    if (!at || sscanf(at, "(row %u)%n", &i, &end) != 1 || at[end] ||
        at == err->message || at[-1] != ' ')
        return false;
    at[-1] = 0;
    *cand = i;
    return true;
}
