/*
 * planner/values.c - VALUES (1, 'a'), (2, 'b'): a bounded table of
 * constant rows, as Flink's VALUES.
 *
 * Each cell is a constant expression, evaluated once at plan time. A
 * column's type is the common type of its cells (Flink's least restrictive
 * type, as a set operation's: INT < BIGINT < DECIMAL < DOUBLE for numbers,
 * weir_type_numeric_common; the other types must agree); a NULL cell makes
 * it nullable. Columns are named EXPR$0, EXPR$1,
 * ... unless the FROM item renames them (AS t(a, b)). The rows come from a
 * one-split source on one subtask, in the order written; the table has no
 * time attribute.
 */
#include <stdio.h>
#include <string.h>

#include "planner/query_internal.h"
#include "weir/expr.h"

/* ---- the source: one split, the rows of a batch built at plan time ---- */

typedef struct values_arg {
    weir_batch *rows;
} values_arg;

typedef struct values_src {
    const values_arg *arg;
    bool given; /* the split was handed out (or belongs to another subtask) */
} values_src;

typedef struct values_reader {
    const values_arg *arg;
    uint64_t pos;
} values_reader;

static int vs_create(void *arg, const weir_source_info *info, void **out, weir_error *err)
{
    (void)err;
    values_src *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->arg = arg;
    s->given = info->subtask != 0;
    *out = s;
    return 0;
}

static int vs_discover(void *src, const char ***ids, uint32_t *n, bool *done, weir_error *err)
{
    (void)err;
    static const char *split[] = {"values"};
    values_src *s = src;
    *done = true;
    *n = 0;
    if (!s->given) {
        s->given = true;
        *ids = split;
        *n = 1;
    }
    return 0;
}

static int vs_open(void *src, const char *id, const void *pos, size_t pos_len, void **out, weir_error *err)
{
    (void)id;
    (void)err;
    values_src *s = src;
    values_reader *r = weir_calloc(1, sizeof *r);
    if (!r)
        return WEIR_ENOMEM;
    r->arg = s->arg;
    if (pos && pos_len == sizeof r->pos)
        memcpy(&r->pos, pos, sizeof r->pos);
    *out = r;
    return 0;
}

static int vs_read(void *reader, weir_batch *out, uint32_t max_rows, weir_error *err)
{
    (void)err;
    values_reader *r = reader;
    const weir_batch *rows = r->arg->rows;
    if (r->pos >= rows->n_rows)
        return WEIR_EOF;
    uint32_t n = 0;
    while (n < max_rows && r->pos < rows->n_rows && !weir_batch_full(out)) {
        int rc = weir_batch_copy_row(out, rows, (uint32_t)r->pos);
        if (rc)
            return rc;
        out->ts[out->n_rows - 1] = 0;
        r->pos++;
        n++;
    }
    return (int)n;
}

static int vs_position(void *reader, weir_buf *out)
{
    values_reader *r = reader;
    return weir_buf_put(out, &r->pos, sizeof r->pos);
}

static void vs_close(void *reader) { weir_free(reader); }
static void vs_destroy(void *src) { weir_free(src); }

static void values_arg_free(void *p)
{
    values_arg *a = p;
    if (!a)
        return;
    weir_batch_destroy(a->rows);
    weir_free(a);
}

static const weir_source_class values_class = {
    .name = "values",
    .create = vs_create,
    .discover = vs_discover,
    .open_split = vs_open,
    .read = vs_read,
    .position = vs_position,
    .close_split = vs_close,
    .destroy = vs_destroy,
};

/* ---- planning ---- */

/* The common type of column c's cells (WEIR_TYPE_NULL when every cell is NULL). */
static int column_type(plan_ctx *pc, const weir_sql_query *q, weir_expr **cells, uint32_t n_cols, uint32_t c,
                       weir_type *out)
{
    weir_type t = weir_type_make(WEIR_TYPE_NULL, true);
    bool nullable = false;
    for (uint32_t r = 0; r < q->u.values.n_rows; r++) {
        weir_type ct = weir_expr_type(cells[r * n_cols + c]);
        if (ct.id == WEIR_TYPE_NULL) {
            nullable = true;
            continue;
        }
        nullable |= ct.nullable;
        if (t.id == WEIR_TYPE_NULL) {
            t = ct;
            continue;
        }
        /* numbers widen as a set operation's columns do: INT and DECIMAL(2, 1) to DECIMAL(11, 1) */
        if (!weir_type_interval(t) && !weir_type_interval(ct) && weir_type_numeric_common(t, ct, &t))
            continue;
        bool same = t.id == ct.id || ((t.id == WEIR_TYPE_TIMESTAMP || t.id == WEIR_TYPE_TIMESTAMP_LTZ) &&
                                      (ct.id == WEIR_TYPE_TIMESTAMP || ct.id == WEIR_TYPE_TIMESTAMP_LTZ));
        if (!same) {
            char a[64], b[64];
            const weir_sql_expr *at = q->u.values.rows[r].items[c];
            return plan_error(pc, at->loc, WEIR_EPLAN, "VALUES column %u mixes %s and %s", c + 1,
                              weir_type_format(t, a, sizeof a), weir_type_format(ct, b, sizeof b));
        }
    }
    t.nullable = nullable;
    *out = t;
    return 0;
}

int plan_values(plan_ctx *pc, const weir_sql_query *q, rel *out)
{
    uint32_t n_rows = q->u.values.n_rows;
    uint32_t n_cols = n_rows ? q->u.values.rows[0].n_items : 0;
    if (!n_rows || !n_cols)
        return plan_error(pc, q->loc, WEIR_EPLAN, "VALUES needs at least one row with at least one column");
    for (uint32_t r = 1; r < n_rows; r++)
        if (q->u.values.rows[r].n_items != n_cols)
            return plan_error(pc, q->u.values.rows[r].loc, WEIR_EPLAN,
                              "every VALUES row needs %u values, like the first; this one has %u", n_cols,
                              q->u.values.rows[r].n_items);
    weir_expr **cells = plan_alloc(pc, (size_t)n_rows * n_cols * sizeof *cells);
    weir_schema *empty = plan_new_schema(pc), *s = plan_new_schema(pc);
    if (!cells || !empty || !s)
        return WEIR_ENOMEM;
    rel none = {.schema = empty, .rowtime = -1};
    int rc;
    for (uint32_t r = 0; r < n_rows; r++)
        for (uint32_t c = 0; c < n_cols; c++)
            if ((rc = plan_bind_expr(pc, &none, NULL, q->u.values.rows[r].items[c], &cells[r * n_cols + c])))
                return rc;
    for (uint32_t c = 0; c < n_cols; c++) {
        weir_type t;
        if ((rc = column_type(pc, q, cells, n_cols, c, &t)))
            return rc;
        if (t.id == WEIR_TYPE_NULL)
            t = weir_type_make(WEIR_TYPE_STRING, true); /* a column of NULLs only */
        char nm[32];
        snprintf(nm, sizeof nm, "EXPR$%u", c);
        if (weir_schema_add(s, nm, t) < 0)
            return WEIR_ENOMEM;
        for (uint32_t r = 0; r < n_rows; r++) {
            weir_expr **e = &cells[r * n_cols + c];
            weir_type et = weir_expr_type(*e);
            if (et.id == t.id && et.precision == t.precision && et.scale == t.scale)
                continue;
            weir_error err = {0};
            if ((rc = weir_expr_cast(pc->arena, *e, t, false, e, &err)))
                return plan_error(pc, q->u.values.rows[r].items[c]->loc, rc, "%s", err.message);
        }
    }
    /* evaluate every cell once: into a one-row batch, then appended to the table */
    values_arg *arg = weir_calloc(1, sizeof *arg);
    weir_batch *one_in = weir_batch_create(empty, 1), *one = weir_batch_create(s, 1);
    weir_expr_env *env = weir_expr_env_create();
    rc = arg && one_in && one && env ? 0 : WEIR_ENOMEM;
    if (!rc && !(arg->rows = weir_batch_create(s, n_rows)))
        rc = WEIR_ENOMEM;
    if (!rc && weir_batch_append_row(one_in) < 0)
        rc = WEIR_ENOMEM;
    if (!rc)
        weir_expr_env_set_clock(env, &pc->cenv.clock);
    for (uint32_t r = 0; r < n_rows && !rc; r++) {
        weir_batch_reset(one);
        if (weir_batch_append_row(one) < 0) {
            rc = WEIR_ENOMEM;
            break;
        }
        for (uint32_t c = 0; c < n_cols && !rc; c++) {
            weir_error err = {0};
            if ((rc = weir_expr_eval(cells[r * n_cols + c], one_in, env, one, c, &err)))
                rc = plan_error(pc, q->u.values.rows[r].items[c]->loc, rc, "%s", err.message);
        }
        if (!rc)
            rc = weir_batch_copy_row(arg->rows, one, 0);
    }
    weir_batch_destroy(one_in);
    weir_batch_destroy(one);
    weir_expr_env_destroy(env);
    if (rc) {
        values_arg_free(arg);
        return rc;
    }
    weir_source_spec spec = {.name = "values", .cls = &values_class, .arg = arg, .free_arg = values_arg_free,
                             .schema = s};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_NONE};
    memset(out, 0, sizeof *out);
    if ((rc = plan_ensure_job(pc)) || (rc = weir_job_source(pc->job, &spec, &wm, 1, &out->s))) {
        values_arg_free(arg);
        return rc == WEIR_ENOMEM ? rc : plan_error(pc, q->loc, rc, "cannot add VALUES: %s", weir_job_error(pc->job));
    }
    weir_buf_printf(&pc->explain, "  Values[%d]: %u rows\n", out->s.node, n_rows);
    out->schema = s;
    out->n_physical = n_cols;
    out->rowtime = -1;
    out->loc = q->loc;
    out->quals = plan_alloc(pc, (n_cols + 1) * sizeof *out->quals);
    if (!out->quals)
        return WEIR_ENOMEM;
    memset(out->quals, 0, (n_cols + 1) * sizeof *out->quals);
    return 0;
}
