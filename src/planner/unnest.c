/*
 * planner/unnest.c - t CROSS JOIN UNNEST(collection) AS u(c, ...), its
 * comma form, and t LEFT JOIN UNNEST(...) ON TRUE.
 *
 * The Unnest operator emits, for every input row, one row per element of
 * the collection (an expression over the row): the input's columns, then
 * the element's - an ARRAY's element (a ROW element spread into its
 * fields, as Flink does), or a MAP entry's key and value - then, WITH
 * ORDINALITY, the element's position from 1. An empty or NULL collection
 * emits nothing, or under LEFT JOIN one row whose element columns are NULL.
 * Row times and row kinds are the input row's, so event time and changelogs
 * pass through; it keeps no state.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "planner/planner.h"
#include "record/nested.h"

typedef struct unnest_conf {
    weir_expr *coll;         /* the collection, over the input row */
    weir_schema *coll_schema; /* one column of the collection's type */
    const weir_schema *out;
    uint32_t n_in;           /* input columns, copied first */
    bool spread_row;         /* ARRAY<ROW<...>>: a column per field */
    bool ordinality;
    bool left;               /* LEFT JOIN ... ON TRUE */
    weir_clock clock;
} unnest_conf;

typedef struct unnest_op {
    const unnest_conf *conf;
    weir_expr_env *env;
    weir_batch *coll; /* the collection of each input row */
    weir_batch *out;
} unnest_op;

static int unnest_create(void *arg, const weir_op_info *info, void **out_op)
{
    const unnest_conf *c = arg;
    unnest_op *k = weir_calloc(1, sizeof *k);
    *out_op = k;
    if (!k)
        return WEIR_ENOMEM;
    k->conf = c;
    k->env = weir_expr_env_create();
    uint32_t cap = info->batch_size ? info->batch_size : 1;
    k->coll = weir_batch_create(c->coll_schema, cap);
    k->out = weir_batch_create(c->out, cap);
    if (!k->env || !k->coll || !k->out)
        return WEIR_ENOMEM;
    if (c->clock.now_ms)
        weir_expr_env_set_clock(k->env, &c->clock);
    return 0;
}

int plan_correlate_put(weir_batch *b, uint32_t col, uint32_t row, bool is_null, const uint8_t *v, uint32_t len)
{
    if (is_null) {
        weir_batch_set_null(b, col, row);
        return 0;
    }
    weir_column *c = &b->cols[col];
    if (!c->all_valid)
        weir_batch_set_valid(b, col, row);
    if (weir_type_is_varlen(c->type.id))
        return weir_batch_set_str(b, col, row, (const char *)v, len);
    size_t w = weir_type_size(c->type);
    memcpy((char *)c->data + (size_t)row * w, v, w < len ? w : len);
    return 0;
}

int plan_correlate_row(weir_batch *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r, uint32_t n_in, int *row)
{
    if (weir_batch_full(o)) {
        int rc = weir_op_emit(ctx, o);
        if (rc)
            return rc;
        weir_batch_reset(o);
    }
    *row = weir_batch_append_row(o);
    if (*row < 0)
        return WEIR_ENOMEM;
    uint32_t i = (uint32_t)*row;
    o->ts[i] = in->ts[r];
    o->kind[i] = in->kind[r];
    for (uint32_t c = 0; c < n_in; c++) {
        const weir_column *sc = &in->cols[c];
        if (weir_batch_is_null(in, c, r)) {
            weir_batch_set_null(o, c, i);
            continue;
        }
        const uint8_t *v;
        uint32_t len;
        if (weir_type_is_varlen(sc->type.id)) {
            v = (const uint8_t *)weir_batch_str(in, c, r, &len);
        } else {
            len = (uint32_t)weir_type_size(sc->type);
            v = (const uint8_t *)sc->data + (size_t)r * len;
        }
        int rc = plan_correlate_put(o, c, i, false, v, len);
        if (rc)
            return rc;
    }
    return 0;
}

static int unnest_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    unnest_op *k = op;
    const unnest_conf *c = k->conf;
    weir_error err;
    (void)input;
    weir_expr_env_set_watermark(k->env, weir_op_watermark(ctx));
    weir_batch_reset(k->coll);
    if (weir_expr_eval(c->coll, in, k->env, k->coll, 0, &err))
        return weir_op_fail(ctx, err.code ? err.code : WEIR_EINVAL, "%s", err.message);
    weir_type ct = c->coll_schema->fields[0].type;
    const weir_nested_type *d = weir_type_nested(ct);
    uint32_t n_out = c->out->n_fields;
    weir_batch_reset(k->out);
    int rc = 0;
    for (uint32_t r = 0; r < in->n_rows && !rc; r++) {
        uint32_t n = 0;
        weir_nv_iter it = {0};
        if (!weir_batch_is_null(k->coll, 0, r)) {
            uint32_t len;
            const char *v = weir_batch_str(k->coll, 0, r, &len);
            n = weir_nv_open(ct, v, len, &it);
        }
        for (uint32_t e = 0; e < n && !rc; e++) {
            int row;
            if ((rc = plan_correlate_row(k->out, ctx, in, r, k->conf->n_in, &row)))
                break;
            uint32_t col = c->n_in;
            bool en;
            const uint8_t *ev;
            uint32_t el;
            /* re-read the element: plan_correlate_row may have emitted and reset the batch, not the collection */
            if (!weir_nv_next(&it, d->elems[0], &en, &ev, &el)) {
                rc = weir_op_fail(ctx, WEIR_ECORRUPT, "a malformed collection value");
                break;
            }
            if (ct.id == WEIR_TYPE_MAP) {
                rc = plan_correlate_put(k->out, col++, (uint32_t)row, en, ev, el);
                if (!rc && weir_nv_next(&it, d->elems[1], &en, &ev, &el))
                    rc = plan_correlate_put(k->out, col++, (uint32_t)row, en, ev, el);
            } else if (c->spread_row) {
                weir_type rt = d->elems[0];
                const weir_nested_type *rd = weir_type_nested(rt);
                weir_nv_iter fi = {0};
                uint32_t nf = en ? 0 : weir_nv_open(rt, ev, el, &fi);
                for (uint32_t f = 0; f < rd->n && !rc; f++) {
                    bool fn = true;
                    const uint8_t *fv = NULL;
                    uint32_t fl = 0;
                    if (f < nf && !weir_nv_next(&fi, rd->elems[f], &fn, &fv, &fl))
                        fn = true;
                    rc = plan_correlate_put(k->out, col++, (uint32_t)row, fn, fv, fl);
                }
            } else {
                rc = plan_correlate_put(k->out, col++, (uint32_t)row, en, ev, el);
            }
            if (!rc && c->ordinality) {
                int32_t ord = (int32_t)(e + 1);
                rc = plan_correlate_put(k->out, col, (uint32_t)row, false, (const uint8_t *)&ord, 4);
            }
        }
        if (!rc && n == 0 && c->left) {
            int row;
            if ((rc = plan_correlate_row(k->out, ctx, in, r, k->conf->n_in, &row)))
                break;
            for (uint32_t col = c->n_in; col < n_out; col++)
                weir_batch_set_null(k->out, col, (uint32_t)row);
        }
    }
    if (rc)
        return rc;
    return k->out->n_rows ? weir_op_emit(ctx, k->out) : 0;
}

static void unnest_close(void *op)
{
    unnest_op *k = op;
    if (!k)
        return;
    weir_expr_env_destroy(k->env);
    weir_batch_destroy(k->coll);
    weir_batch_destroy(k->out);
    weir_free(k);
}

static const weir_operator_class unnest_class = {
    .name = "Unnest",
    .process = unnest_process,
    .close = unnest_close,
};

static void unnest_conf_free(void *arg)
{
    unnest_conf *c = arg;
    if (c) {
        weir_schema_destroy(c->coll_schema);
        weir_free(c);
    }
}

/* ------------------------------------------------------------- planning */

static const char *alias_at(const weir_sql_table_ref *u, uint32_t i, const char *dflt)
{
    return i < u->n_column_aliases ? u->column_aliases[i].name : dflt;
}

int plan_unnest_join(plan_ctx *pc, const weir_sql_table_ref *ref, join_conds *where, rel *out)
{
    const weir_sql_table_ref *u = ref->u.join.right;
    weir_sql_join_kind kind = ref->u.join.kind;
    const weir_sql_expr *on = ref->u.join.on;
    bool on_true = on && on->kind == WEIR_SQL_EXPR_LITERAL && on->u.lit.kind == WEIR_SQL_LIT_BOOLEAN && on->u.lit.boolean;
    bool left = kind == WEIR_SQL_JOIN_LEFT;
    if (!(kind == WEIR_SQL_JOIN_CROSS || kind == WEIR_SQL_JOIN_COMMA ||
          ((kind == WEIR_SQL_JOIN_INNER || left) && on_true)))
        return plan_error(pc, ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                          "UNNEST is supported in CROSS JOIN UNNEST(...), ', UNNEST(...)', JOIN UNNEST(...) ON TRUE "
                          "and LEFT JOIN UNNEST(...) ON TRUE");
    if (u->u.unnest.n_args != 1)
        return plan_error(pc, u->loc, WEIR_EUNSUPPORTED,
                          "UNNEST of %u collections at once is not supported (Flink's planner unnests one collection "
                          "per UNNEST too); write one CROSS JOIN UNNEST per collection (their rows multiply) or zip "
                          "them by position with WITH ORDINALITY and a condition on the ordinals",
                          u->u.unnest.n_args);
    rel l;
    int rc;
    if (where && plan_join_takes_where(ref->u.join.left))
        rc = plan_join(pc, ref->u.join.left, where, &l);
    else
        rc = plan_from(pc, ref->u.join.left, &l);
    if (rc)
        return rc;
    if (l.win.present && (rc = plan_window_assign(pc, &l, "UNNEST")))
        return rc;
    weir_expr *coll;
    if ((rc = plan_bind_expr(pc, &l, NULL, u->u.unnest.args[0], &coll)))
        return rc;
    weir_type ct = weir_expr_type(coll);
    const weir_nested_type *d = weir_type_nested(ct);
    if (!d || d->kind == WEIR_TYPE_ROW) {
        char tb[128];
        return plan_error(pc, u->u.unnest.args[0]->loc, WEIR_EPLAN,
                          "UNNEST needs an ARRAY or a MAP, not %s",
                          weir_expr_type_name(ct, weir_expr_interval(coll), tb, sizeof tb));
    }
    unnest_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    c->coll = coll;
    c->n_in = l.n_physical;
    c->ordinality = u->u.unnest.with_ordinality;
    c->left = left;
    c->clock = pc->cenv.clock;
    c->spread_row = d->kind == WEIR_TYPE_ARRAY && d->elems[0].id == WEIR_TYPE_ROW;
    c->coll_schema = weir_schema_create();
    if (!c->coll_schema || weir_schema_add(c->coll_schema, "c", ct) < 0) {
        unnest_conf_free(c);
        return WEIR_ENOMEM;
    }
    /* the output: the left columns, then the element's */
    const weir_nested_type *rd = c->spread_row ? weir_type_nested(d->elems[0]) : NULL;
    uint32_t n_el = d->kind == WEIR_TYPE_MAP ? 2 : rd ? rd->n : 1;
    uint32_t n_new = n_el + (c->ordinality ? 1 : 0);
    if (u->n_column_aliases && u->n_column_aliases != n_new) {
        unnest_conf_free(c);
        return plan_error(pc, u->column_aliases[0].loc, WEIR_EPLAN,
                          "UNNEST produces %u column%s here, but %u names are given", n_new, n_new == 1 ? "" : "s",
                          u->n_column_aliases);
    }
    weir_schema *os;
    char **quals;
    if (plan_correlate_schema(pc, &l, n_new, &os, &quals)) {
        unnest_conf_free(c);
        return WEIR_ENOMEM;
    }
    char *q = u->alias ? (char *)u->alias->name : NULL;
    for (uint32_t i = 0; i < n_new; i++) {
        weir_type t;
        const char *name;
        if (i == n_el) {
            t = weir_type_make(WEIR_TYPE_INT, left);
            name = alias_at(u, i, "ORDINALITY");
        } else if (d->kind == WEIR_TYPE_MAP) {
            t = d->elems[i];
            name = alias_at(u, i, i ? "VALUE" : "KEY");
        } else if (rd) {
            t = rd->elems[i];
            name = alias_at(u, i, rd->names[i]);
        } else {
            t = d->elems[0];
            name = alias_at(u, i, "EXPR$0");
        }
        t.nullable = t.nullable || left || rd;
        if (weir_schema_add(os, name, t) < 0) {
            unnest_conf_free(c);
            return WEIR_ENOMEM;
        }
        quals[l.n_physical + i] = q;
    }
    c->out = os;
    weir_operator_spec spec = {"Unnest", &unnest_class, unnest_create, c, unnest_conf_free};
    rel o = l;
    if ((rc = weir_job_operator(pc->job, &l.s, 1, &spec, os, plan_forward_parallelism(pc, l.s), &o.s))) {
        unnest_conf_free(c);
        return plan_error(pc, ref->loc, rc, "cannot add operator Unnest: %s", weir_job_error(pc->job));
    }
    char buf[512];
    weir_expr_format(coll, buf, sizeof buf);
    weir_buf_printf(&pc->explain, "  Unnest[%d]: %s%s%s\n", o.s.node, buf, c->ordinality ? " with ordinality" : "",
                    left ? " (left)" : "");
    plan_correlate_rel(&o, &l, os, quals, ref->loc);
    *out = o;
    return 0;
}

int plan_correlate_schema(plan_ctx *pc, const rel *l, uint32_t n_new, weir_schema **os, char ***quals)
{
    *os = plan_new_schema(pc);
    *quals = plan_alloc(pc, (l->n_physical + n_new + 1) * sizeof **quals);
    if (!*os || !*quals)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < l->n_physical; i++) {
        if (weir_schema_add(*os, l->schema->fields[i].name, l->schema->fields[i].type) < 0)
            return WEIR_ENOMEM;
        (*quals)[i] = l->quals ? l->quals[i] : NULL;
    }
    (*os)->rowtime = l->rowtime >= 0 && (uint32_t)l->rowtime < l->n_physical ? l->rowtime : -1;
    return 0;
}

void plan_correlate_rel(rel *o, const rel *l, weir_schema *os, char **quals, weir_sql_loc loc)
{
    o->schema = os;
    o->quals = quals;
    o->hidden = l->hidden;
    o->n_hidden = l->n_hidden < l->n_physical ? l->n_hidden : l->n_physical;
    o->n_physical = os->n_fields;
    o->win.present = false;
    o->wprops.present = false;
    o->above_wm = false;
    o->rowtime = os->rowtime;
    o->loc = loc;
}
