/*
 * planner/udtf.c - joins with a user-defined table function (weir_udtf,
 * weir/expr.h): t, LATERAL TABLE(f(t.a)) AS x(c, ...), its CROSS JOIN and
 * JOIN ... ON forms, and t LEFT JOIN LATERAL TABLE(...) ON TRUE.
 *
 * The Correlate operator calls the function once per input row, with the
 * arguments evaluated over that row, and emits one row per row the
 * function returns: the input's columns, then the function's. A call that
 * returns nothing drops the input row, or under LEFT JOIN emits it once
 * with NULL function columns. Row times and row kinds are the input row's,
 * so the time attribute survives and an updating input's -U/+U (-D) reach
 * every row emitted for them; it keeps no state.
 *
 * As in Flink, LEFT JOIN takes ON TRUE only; an inner JOIN's ON condition
 * filters the joined rows. Without LATERAL, TABLE(f(...)) may not read the
 * tables before it (Flink cannot resolve such a column either).
 *
 * Alone in FROM ([LATERAL] TABLE(f('a b')) AS x(c), constant arguments,
 * or the left side of a join) the function is a bounded table: the
 * Correlate over a VALUES source of one row, whose rows are inserted once.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "planner/query_internal.h"
#include "util/dec128.h"

typedef struct udtf_conf {
    weir_udtf fn;             /* the registry's: its pointers stay valid for the process */
    weir_expr **args;         /* over the input row, cast to the argument types */
    uint32_t n_args;
    weir_schema *arg_schema;  /* one column per argument */
    const weir_schema *out;
    uint32_t n_in;            /* input columns, copied first */
    bool left;                /* LEFT JOIN ... ON TRUE */
    weir_sql_loc loc;         /* of the call, for a failure's message */
    weir_clock clock;
} udtf_conf;

typedef struct udtf_op {
    const udtf_conf *conf;
    weir_expr_env *env;
    weir_batch *argb; /* the arguments of each input row */
    weir_batch *out;
    weir_value *argv;
    /* the call in progress */
    weir_op_ctx *ctx;
    const weir_batch *in;
    uint32_t row;
    uint32_t n_emitted;
    int emit_rc; /* a failure inside weir_udtf_emit */
    char emit_why[160]; /* what it was */
} udtf_op;

static int udtf_create(void *arg, const weir_op_info *info, void **out_op)
{
    const udtf_conf *c = arg;
    udtf_op *k = weir_calloc(1, sizeof *k);
    *out_op = k;
    if (!k)
        return WEIR_ENOMEM;
    k->conf = c;
    k->env = weir_expr_env_create();
    uint32_t cap = info->batch_size ? info->batch_size : 1;
    k->argb = weir_batch_create(c->arg_schema, cap);
    k->out = weir_batch_create(c->out, cap);
    k->argv = weir_calloc(c->n_args ? c->n_args : 1, sizeof *k->argv);
    if (!k->env || !k->argb || !k->out || !k->argv)
        return WEIR_ENOMEM;
    if (c->clock.now_ms)
        weir_expr_env_set_clock(k->env, &c->clock);
    return 0;
}

/* Cell (col, row) of b as a weir_value of its column's type (strings borrowed from b). */
static void read_cell(const weir_batch *b, uint32_t col, uint32_t row, weir_value *v)
{
    memset(v, 0, sizeof *v);
    const weir_column *c = &b->cols[col];
    v->type = c->type;
    if (weir_batch_is_null(b, col, row)) {
        v->is_null = true;
        return;
    }
    if (weir_type_is_varlen(c->type.id)) {
        uint32_t len;
        v->v.s.ptr = weir_batch_str(b, col, row, &len);
        v->v.s.len = len;
        return;
    }
    size_t w = weir_type_size(c->type);
    memcpy(&v->v, (const char *)c->data + (size_t)row * w, w < sizeof v->v ? w : sizeof v->v);
}

/* A row for input row k->row: its columns, then `vals` (NULL: all NULL). */
static int put_row(udtf_op *k, const weir_value *vals)
{
    const udtf_conf *c = k->conf;
    int row;
    int rc = plan_correlate_row(k->out, k->ctx, k->in, k->row, c->n_in, &row);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < c->fn.n_cols; i++) {
        uint32_t col = c->n_in + i;
        weir_type t = c->out->fields[col].type;
        const weir_value *v = vals ? &vals[i] : NULL;
        if (!v || v->is_null) {
            weir_batch_set_null(k->out, col, (uint32_t)row);
            continue;
        }
        if (t.id == WEIR_TYPE_DECIMAL) {
            /* a value beyond the column's precision is NULL, as Flink's conversion of a BigDecimal */
            weir_i128 d = t.precision <= 18 ? (weir_i128)v->v.i64 : WEIR__I128_GET(v->v.i128);
            if (!weir__dec_fits(d, t.precision)) {
                weir_batch_set_null(k->out, col, (uint32_t)row);
                continue;
            }
        }
        bool var = weir_type_is_varlen(t.id);
        const uint8_t *p = var ? (const uint8_t *)v->v.s.ptr : (const uint8_t *)&v->v;
        uint32_t len = var ? v->v.s.len : (uint32_t)weir_type_size(t);
        if (var && len && !p) {
            snprintf(k->emit_why, sizeof k->emit_why, "column %s: a string of %u bytes at a NULL pointer",
                     c->out->fields[col].name, len);
            return WEIR_EINVAL;
        }
        if ((rc = plan_correlate_put(k->out, col, (uint32_t)row, false, p, len))) {
            snprintf(k->emit_why, sizeof k->emit_why, "column %s: %s", c->out->fields[col].name, weir_strerror(rc));
            return rc;
        }
    }
    return 0;
}

static int collect(weir_udtf_collector *self, const weir_value *row)
{
    udtf_op *k = self->sink;
    int rc = put_row(k, row);
    if (rc) {
        k->emit_rc = rc;
        return rc;
    }
    k->n_emitted++;
    return 0;
}

static int udtf_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    udtf_op *k = op;
    const udtf_conf *c = k->conf;
    weir_error err = {0};
    (void)input;
    weir_expr_env_set_watermark(k->env, weir_op_watermark(ctx));
    weir_batch_reset(k->argb);
    if (c->n_args && weir_expr_project(c->args, c->n_args, in, k->env, k->argb, &err))
        return weir_op_fail(ctx, err.code ? err.code : WEIR_EINVAL, "%s", err.message);
    weir_batch_reset(k->out);
    k->ctx = ctx;
    k->in = in;
    weir_udtf_collector coll = {collect, k};
    for (uint32_t r = 0; r < in->n_rows; r++) {
        bool skip = false;
        for (uint32_t a = 0; a < c->n_args; a++) {
            read_cell(k->argb, a, r, &k->argv[a]);
            skip |= c->fn.null_on_null && k->argv[a].is_null;
        }
        k->row = r;
        k->n_emitted = 0;
        k->emit_rc = 0;
        k->emit_why[0] = 0;
        if (!skip) {
            memset(&err, 0, sizeof err);
            int rc = c->fn.row_fn(c->fn.ud, k->argv, c->n_args, &coll, &err);
            if (k->emit_rc)
                return weir_op_fail(ctx, k->emit_rc, "table function %s at line %u, column %u emitted a bad row: %s",
                                    c->fn.name, c->loc.line, c->loc.col,
                                    k->emit_why[0] ? k->emit_why : weir_strerror(k->emit_rc));
            if (rc)
                return weir_op_fail(ctx, rc < 0 ? rc : WEIR_EINVAL, "table function %s at line %u, column %u failed: %s",
                                    c->fn.name, c->loc.line, c->loc.col,
                                    err.message[0] ? err.message : weir_strerror(rc < 0 ? rc : WEIR_EINVAL));
        }
        if (k->n_emitted == 0 && c->left) {
            int rc = put_row(k, NULL);
            if (rc)
                return rc;
        }
    }
    return k->out->n_rows ? weir_op_emit(ctx, k->out) : 0;
}

static void udtf_close(void *op)
{
    udtf_op *k = op;
    if (!k)
        return;
    weir_expr_env_destroy(k->env);
    weir_batch_destroy(k->argb);
    weir_batch_destroy(k->out);
    weir_free(k->argv);
    weir_free(k);
}

static const weir_operator_class udtf_class = {
    .name = "Correlate",
    .process = udtf_process,
    .close = udtf_close,
};

static void udtf_conf_free(void *arg)
{
    udtf_conf *c = arg;
    if (c) {
        weir_schema_destroy(c->arg_schema);
        weir_free(c);
    }
}

/* ------------------------------------------------------------- planning */

static const char *call_name(const weir_sql_expr *call)
{
    return call->u.call.name.parts[call->u.call.name.n_parts - 1].name;
}

/* Whether name is one of the window table functions (TABLE(TUMBLE(...)) and friends). */
static bool window_tvf_name(const char *name)
{
    static const char *const w[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        if (!strcasecmp(name, w[i]))
            return true;
    return false;
}

int plan_udtf_check(plan_ctx *pc, const weir_sql_table_ref *f)
{
    const weir_sql_expr *call = f->u.function.call;
    const char *name = call_name(call);
    int rc = plan_check_function_name(pc, &call->u.call.name); /* db.f, cat.db.f: as a scalar call's */
    if (rc)
        return rc;
    weir_udtf u;
    if (!weir_expr_udtf_lookup(name, &u))
        return 0;
    if (window_tvf_name(name))
        return plan_error(pc, f->loc, WEIR_EUNSUPPORTED,
                          "LATERAL TABLE(%s(...)): a window table function is read as TABLE(%s(TABLE t, "
                          "DESCRIPTOR(ts), ...)), without LATERAL",
                          name, name);
    if (weir_expr_function_exists(name) || plan_is_agg_name(name))
        return plan_error(pc, call->loc, WEIR_EPLAN,
                          "%s is a scalar function, not a table function: LATERAL TABLE(...) calls a table function "
                          "(a weir_udtf, or CREATE FUNCTION ... LANGUAGE C of a table function)",
                          name);
    return plan_error(pc, call->loc, WEIR_ENOTFOUND,
                      "no table function %s: register one written in C (CREATE FUNCTION %s AS 'symbol' LANGUAGE C "
                      "USING JAR 'lib.so'); a temporal table function of Flink's Table API has no SQL definition, "
                      "write a temporal join (JOIN ... FOR SYSTEM_TIME AS OF) instead",
                      name, name);
}

static int correlate_udtf(plan_ctx *pc, const weir_sql_table_ref *f, const rel *lp, bool constant, bool alone,
                          bool left, const weir_sql_expr *on, weir_sql_loc loc, rel *out);

int plan_udtf_join(plan_ctx *pc, const weir_sql_table_ref *ref, join_conds *where, rel *out)
{
    const weir_sql_table_ref *f = ref->u.join.right;
    const weir_sql_expr *call = f->u.function.call;
    const char *name = call_name(call);
    weir_sql_join_kind kind = ref->u.join.kind;
    const weir_sql_expr *on = ref->u.join.on;
    bool on_true = on && on->kind == WEIR_SQL_EXPR_LITERAL && on->u.lit.kind == WEIR_SQL_LIT_BOOLEAN && on->u.lit.boolean;
    bool left = kind == WEIR_SQL_JOIN_LEFT;
    int rc;
    if ((rc = plan_udtf_check(pc, f)))
        return rc;
    if (ref->u.join.natural || ref->u.join.n_using)
        return plan_error(pc, ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                          "a join with LATERAL TABLE(%s(...)) takes no NATURAL or USING: write it as a comma join, "
                          "CROSS JOIN, JOIN ... ON TRUE or LEFT JOIN ... ON TRUE",
                          name);
    if (left && !on_true)
        return plan_error(pc, on ? on->loc : ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                          "LEFT JOIN LATERAL TABLE(%s(...)) takes ON TRUE only (as in Flink): filter the function's "
                          "rows in WHERE or inside the function",
                          name);
    if (kind == WEIR_SQL_JOIN_RIGHT || kind == WEIR_SQL_JOIN_FULL)
        return plan_error(pc, ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                          "%s JOIN LATERAL TABLE(%s(...)) is not supported (nor in Flink): a table function joins "
                          "as a comma join, CROSS JOIN, JOIN ... ON or LEFT JOIN ... ON TRUE",
                          kind == WEIR_SQL_JOIN_RIGHT ? "RIGHT" : "FULL", name);
    rel l;
    if (where && !left && plan_join_takes_where(ref->u.join.left))
        rc = plan_join(pc, ref->u.join.left, where, &l);
    else
        rc = plan_from(pc, ref->u.join.left, &l);
    if (rc)
        return rc;
    if (l.win.present && (rc = plan_window_assign(pc, &l, "LATERAL TABLE")))
        return rc;
    return correlate_udtf(pc, f, &l, !f->u.function.lateral, false, left, on_true ? NULL : on, ref->loc, out);
}

/* The Correlate of table function f over the rows of l (arguments over nothing when constant; alone:
 * l is one row of nothing), then an inner join's ON filtering its rows. */
static int correlate_udtf(plan_ctx *pc, const weir_sql_table_ref *f, const rel *lp, bool constant, bool alone,
                          bool left, const weir_sql_expr *on, weir_sql_loc loc, rel *out)
{
    const weir_sql_expr *call = f->u.function.call;
    const char *name = call_name(call);
    rel l = *lp;
    int rc;
    /* the arguments, over the left row (with LATERAL) or over nothing */
    uint32_t n_args = call->u.call.n_args;
    weir_expr **args = plan_alloc(pc, (n_args ? n_args : 1) * sizeof *args);
    if (!args)
        return WEIR_ENOMEM;
    weir_schema *none = constant ? plan_new_schema(pc) : NULL;
    rel empty = {0};
    if (none) {
        empty.schema = none;
        empty.rowtime = -1;
        empty.loc = f->loc;
    }
    for (uint32_t i = 0; i < n_args; i++) {
        const weir_sql_expr *a = call->u.call.args[i];
        if (a->kind == WEIR_SQL_EXPR_STAR || plan_has_agg(a))
            return plan_error(pc, a->loc, WEIR_EPLAN, "argument %u of table function %s must be a scalar value",
                              i + 1, name);
        rc = plan_bind_expr(pc, none ? &empty : &l, NULL, a, &args[i]);
        if (rc == WEIR_ENOTFOUND && alone) {
            size_t ml = strlen(pc->err->message);
            snprintf(pc->err->message + ml, sizeof pc->err->message - ml,
                     " (TABLE(%s(...)) alone in FROM reads no table: its arguments are constants; a function of a "
                     "table's rows is joined to them: FROM t, LATERAL TABLE(%s(t.a)))",
                     name, name);
            return rc;
        }
        if (rc && none && rc == WEIR_ENOTFOUND && !f->u.function.lateral)
            return plan_error(pc, f->loc, WEIR_EUNSUPPORTED,
                              "TABLE(%s(...)) reads the tables before it only with LATERAL (as in Flink): write "
                              "LATERAL TABLE(%s(...))",
                              name, name);
        if (rc)
            return rc;
    }
    weir_udtf fn;
    weir_error err = {0};
    if ((rc = weir_expr_udtf_bind(pc->arena, name, args, n_args, &fn, &err)))
        return plan_error(pc, call->loc, rc, "%s", err.message);
    if (f->n_column_aliases && f->n_column_aliases != fn.n_cols)
        return plan_error(pc, f->column_aliases[0].loc, WEIR_EPLAN,
                          "table function %s returns %u column%s, but %u names are given", name, fn.n_cols,
                          fn.n_cols == 1 ? "" : "s", f->n_column_aliases);
    udtf_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    c->fn = fn;
    c->args = args;
    c->n_args = n_args;
    c->n_in = l.n_physical;
    c->left = left;
    c->loc = call->loc;
    c->clock = pc->cenv.clock;
    c->arg_schema = weir_schema_create();
    bool ok = c->arg_schema != NULL;
    for (uint32_t i = 0; ok && i < n_args; i++) {
        char nm[24];
        snprintf(nm, sizeof nm, "a%u", i);
        ok = weir_schema_add(c->arg_schema, nm, weir_expr_type(args[i])) >= 0;
    }
    /* the output: the left columns, then the function's */
    weir_schema *os = NULL;
    char **quals = NULL;
    ok = ok && !plan_correlate_schema(pc, &l, fn.n_cols, &os, &quals);
    char *q = f->alias ? (char *)f->alias->name : NULL;
    for (uint32_t i = 0; ok && i < fn.n_cols; i++) {
        const char *cn = i < f->n_column_aliases ? f->column_aliases[i].name : fn.col_names[i];
        ok = weir_schema_add(os, cn, fn.col_types[i]) >= 0;
        quals[l.n_physical + i] = q;
    }
    if (!ok) {
        udtf_conf_free(c);
        return WEIR_ENOMEM;
    }
    c->out = os;
    weir_operator_spec spec = {"Correlate", &udtf_class, udtf_create, c, udtf_conf_free};
    rel o = l;
    if ((rc = weir_job_operator(pc->job, &l.s, 1, &spec, os, plan_forward_parallelism(pc, l.s), &o.s))) {
        udtf_conf_free(c);
        return plan_error(pc, loc, rc, "cannot add operator Correlate: %s", weir_job_error(pc->job));
    }
    weir_buf_printf(&pc->explain, "  Correlate[%d]: %s(", o.s.node, fn.name);
    for (uint32_t i = 0; i < n_args; i++) {
        char buf[256];
        weir_expr_format(args[i], buf, sizeof buf);
        weir_buf_printf(&pc->explain, "%s%s", i ? ", " : "", buf);
    }
    weir_buf_printf(&pc->explain, ")%s\n", left ? " (left)" : "");
    plan_correlate_rel(&o, &l, os, quals, loc);
    /* an inner JOIN ... ON cond: a filter over the joined rows */
    if (on) {
        weir_expr *cond;
        if ((rc = plan_bind_expr(pc, &o, NULL, on, &cond)))
            return rc;
        weir_type ct = weir_expr_type(cond);
        if (ct.id != WEIR_TYPE_BOOLEAN && ct.id != WEIR_TYPE_NULL)
            return plan_error(pc, on->loc, WEIR_EPLAN, "the ON condition must be BOOLEAN, not %s",
                              weir_type_name(ct.id));
        rel filtered;
        if ((rc = plan_calc(pc, &o, cond, NULL, NULL, 0, &filtered, "Calc")))
            return rc;
        o = filtered;
    }
    *out = o;
    return 0;
}

/*
 * A table function alone in FROM (its arguments constant): the Correlate
 * over one row of no columns, a bounded source read once, so the
 * function's rows are inserted once and the table ends.
 */
int plan_udtf_alone(plan_ctx *pc, const weir_sql_table_ref *f, rel *out)
{
    int rc = plan_udtf_check(pc, f);
    if (rc)
        return rc;
    weir_sql_expr *lit = plan_alloc(pc, sizeof *lit), **items = plan_alloc(pc, sizeof *items);
    weir_sql_expr_list *row = plan_alloc(pc, sizeof *row);
    weir_sql_query *vq = plan_alloc(pc, sizeof *vq);
    if (!lit || !items || !row || !vq)
        return WEIR_ENOMEM;
    memset(lit, 0, sizeof *lit);
    lit->kind = WEIR_SQL_EXPR_LITERAL;
    lit->loc = f->loc;
    lit->height = 1;
    lit->u.lit.kind = WEIR_SQL_LIT_BOOLEAN;
    lit->u.lit.boolean = true;
    items[0] = lit;
    *row = (weir_sql_expr_list){items, 1, f->loc};
    memset(vq, 0, sizeof *vq);
    vq->kind = WEIR_SQL_QUERY_VALUES;
    vq->loc = f->loc;
    vq->height = 2;
    vq->u.values.rows = row;
    vq->u.values.n_rows = 1;
    rel one, c;
    if ((rc = plan_values(pc, vq, &one)) || (rc = correlate_udtf(pc, f, &one, true, true, false, NULL, f->loc, &c)))
        return rc;
    /* the function's columns alone */
    uint32_t n = c.n_physical - 1;
    weir_expr **exprs = plan_alloc(pc, (n ? n : 1) * sizeof *exprs);
    const char **names = plan_alloc(pc, (n ? n : 1) * sizeof *names);
    char **quals = plan_alloc(pc, (n + 1) * sizeof *quals);
    if (!exprs || !names || !quals)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        weir_error err = {0};
        if (weir_expr_column(pc->arena, i + 1, c.schema->fields[i + 1].type, &exprs[i], &err))
            return WEIR_ENOMEM;
        names[i] = c.schema->fields[i + 1].name;
        quals[i] = c.quals ? c.quals[i + 1] : NULL;
    }
    quals[n] = NULL;
    rel o;
    if ((rc = plan_calc(pc, &c, NULL, exprs, names, n, &o, "Calc")))
        return rc;
    o.quals = quals;
    o.hidden = NULL;
    o.n_hidden = 0;
    *out = o;
    return 0;
}
