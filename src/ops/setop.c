/*
 * ops/setop.c - INTERSECT, EXCEPT and their ALL forms over two streams
 * (append-only or changelogs), as Flink's streaming set operations: an
 * updating result with state per distinct row.
 *
 * Both inputs arrive keyed by all their columns, so one key is one row
 * value (NULLs compare equal, as in SQL set operations). State: one value
 * per key, "setop-counts" = {left count, right count}. Per input row: the
 * count of its side moves by one (+I/+U add, -U/-D remove; never below
 * zero: a retraction of a row never seen changes nothing), and the output
 * multiplicity of the value (see ops.h) is recomputed; the difference is
 * emitted as that many +I rows (more) or -D rows (fewer), carrying the
 * input row's time. The entry goes when both counts are zero.
 */
#include <string.h>

#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "weir/state.h"

typedef struct setop_op {
    const weir_setop_config *cfg;
    weir_state *st;
    weir_batch *out;
    weir_keyspec ks;
    uint8_t key[2048];
    uint64_t *n_emitted;
} setop_op;

static int setop_create(void *arg, const weir_op_info *info, void **out_op)
{
    const weir_setop_config *c = arg;
    setop_op *o = weir_calloc(1, sizeof *o);
    *out_op = o;
    if (!o)
        return WEIR_ENOMEM;
    o->cfg = c;
    o->out = weir_batch_create(c->out_schema, info->batch_size ? info->batch_size : 1024);
    if (!o->out)
        return WEIR_ENOMEM;
    o->ks.n = c->n_cols;
    for (uint32_t i = 0; i < c->n_cols; i++)
        o->ks.cols[i] = i;
    return 0;
}

static int setop_open(void *op, weir_op_ctx *ctx)
{
    setop_op *o = op;
    const weir_op_info *info = weir_op_info_of(ctx);
    if (info->n_inputs != 2)
        return weir_op_fail(ctx, WEIR_EINVAL, "a set operation needs two inputs, not %u", info->n_inputs);
    for (int s = 0; s < 2; s++)
        if (info->input_schemas[s]->n_fields < o->cfg->n_cols)
            return weir_op_fail(ctx, WEIR_EINVAL, "set operation input %d has %u columns, fewer than %u", s,
                                info->input_schemas[s]->n_fields, o->cfg->n_cols);
    weir_state_desc d = {.name = "setop-counts", .kind = WEIR_STATE_VALUE, .ttl_ms = o->cfg->state_ttl_ms};
    int rc = weir_op_get_state(ctx, &d, &o->st);
    if (rc)
        return rc;
    o->n_emitted = weir_op_counter(ctx, "setop_rows_emitted");
    return 0;
}

static void setop_close(void *op)
{
    setop_op *o = op;
    if (!o)
        return;
    weir_batch_destroy(o->out);
    weir_free(o);
}

static int64_t multiplicity(const weir_setop_config *c, int64_t l, int64_t r)
{
    if (c->kind == WEIR_SETOP_INTERSECT)
        return c->all ? (l < r ? l : r) : (l > 0 && r > 0);
    return c->all ? (l > r ? l - r : 0) : (l > 0 && r == 0);
}

static int setop_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    setop_op *o = op;
    const weir_setop_config *c = o->cfg;
    if (input < 0 || input > 1)
        return weir_op_fail(ctx, WEIR_EINVAL, "set operation input %d does not exist", input);
    for (uint32_t r = 0; r < in->n_rows; r++) {
        size_t klen = weir_key_encode(in, &o->ks, r, o->key, sizeof o->key);
        if (klen > sizeof o->key)
            return weir_op_fail(ctx, WEIR_EINVAL, "a row of %zu bytes exceeds the set operation's limit of %zu",
                                klen, sizeof o->key);
        int rc = weir_op_set_key(ctx, o->key, klen);
        if (rc)
            return rc;
        int64_t n[2] = {0, 0};
        const void *v;
        size_t vlen;
        rc = weir_value_get(o->st, NULL, 0, &v, &vlen);
        if (rc == 0) {
            if (vlen != 16)
                return weir_op_fail(ctx, WEIR_ECORRUPT, "set operation state holds a value of %zu bytes", vlen);
            memcpy(n, v, 16);
        } else if (rc != WEIR_ENOTFOUND) {
            return rc;
        }
        int64_t before = multiplicity(c, n[0], n[1]);
        bool acc = in->kind[r] == WEIR_ROW_INSERT || in->kind[r] == WEIR_ROW_UPDATE_AFTER;
        if (acc)
            n[input]++;
        else if (n[input] > 0)
            n[input]--;
        else
            continue;
        rc = n[0] || n[1] ? weir_value_put(o->st, NULL, 0, n, 16) : weir_state_clear(o->st, NULL, 0);
        if (rc)
            return rc;
        int64_t after = multiplicity(c, n[0], n[1]);
        int64_t d = after - before;
        weir_row_kind kind = d > 0 ? WEIR_ROW_INSERT : WEIR_ROW_DELETE;
        for (int64_t k = 0; k < (d > 0 ? d : -d); k++) {
            int row = weir__out_row(ctx, o->out);
            if (row < 0)
                return row;
            weir_op_counter_add(o->n_emitted, 1);
            o->out->kind[row] = (uint8_t)kind;
            o->out->ts[row] = in->ts[r];
            if ((rc = weir__row_copy_cols(o->out, (uint32_t)row, 0, in, r, 0, c->n_cols)))
                return rc;
        }
    }
    return weir_op_emit_reset(ctx, o->out);
}

static const weir_operator_class setop_class = {
    .name = "SetOp",
    .open = setop_open,
    .process = setop_process,
    .close = setop_close,
};

int weir_setop_spec(const weir_setop_config *cfg, weir_operator_spec *out)
{
    if (!cfg || !cfg->out_schema || cfg->n_cols == 0 || cfg->n_cols > WEIR_KEY_MAX_COLS ||
        cfg->out_schema->n_fields != cfg->n_cols)
        return WEIR_EINVAL;
    weir_setop_config *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    *c = *cfg;
    const char *name = c->kind == WEIR_SETOP_INTERSECT ? (c->all ? "IntersectAll" : "Intersect")
                                                       : (c->all ? "ExceptAll" : "Except");
    *out = (weir_operator_spec){name, &setop_class, setop_create, c, weir_free};
    return 0;
}
