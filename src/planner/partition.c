/*
 * planner/partition.c - reading a PARTITIONED BY filesystem table: the
 * partition columns, which the source fills from the table's k=v folders,
 * and partition pruning.
 *
 * Pruning. The WHERE of the SELECT that reads the table directly (the
 * table is its whole FROM) is split at its top-level ANDs. A conjunct that
 * reads nothing but partition columns (resolved as the SELECT resolves
 * them), calls nothing volatile and does not read the session (clock,
 * watermark, time zone) is bound over one row of the partition values;
 * the AND of those conjuncts goes to the source, which does not read a
 * folder whose values do not make it TRUE. A row of such a folder could
 * not pass the WHERE, which is still applied to the rows read, so pruning
 * changes what is read, never the result.
 */
#include <string.h>
#include <strings.h>

#include "planner/planner.h"
#include "sql/ast.h"

/* The visitor of a conjunct: does every column it reads resolve among the partition columns? */
static int key_column(void *ud, const weir_sql_expr *e)
{
    const rel *keys = ud;
    return plan_find_column(NULL, keys, &e->u.column) >= 0 ? 1 : 0;
}

/* Adds the prunable conjuncts of e to *acc (their AND) and their SQL text to text. */
static int add_conjuncts(plan_ctx *pc, const rel *keys, const weir_sql_expr *e, weir_expr **acc, weir_buf *text)
{
    if (e->kind == WEIR_SQL_EXPR_BINARY && e->u.binary.op == WEIR_SQL_OP_AND) {
        int rc = add_conjuncts(pc, keys, e->u.binary.left, acc, text);
        return rc ? rc : add_conjuncts(pc, keys, e->u.binary.right, acc, text);
    }
    const plan_column_visitor v = {key_column, (void *)keys};
    int rc = plan_walk_columns(&v, e);
    if (rc <= 0)
        return rc; /* reads another column, or something the walk does not look into */
    weir_expr *x;
    if ((rc = plan_bind_expr(pc, keys, NULL, e, &x)))
        return rc; /* the WHERE would fail the same way */
    if (weir_expr_type(x).id != WEIR_TYPE_BOOLEAN || weir_expr_is_volatile(x) || weir_expr_reads_session(x))
        return 0;
    if (*acc) {
        weir_expr *both[2] = {*acc, x};
        weir_error err = {0};
        if ((rc = weir_expr_call(pc->arena, "AND", both, 2, &x, &err)))
            return plan_error(pc, e->loc, rc, "%s", err.message);
    }
    *acc = x;
    /* an OR among the conjuncts keeps its parentheses */
    bool paren = e->kind == WEIR_SQL_EXPR_BINARY && e->u.binary.op == WEIR_SQL_OP_OR;
    if ((text->len && weir_buf_put(text, " AND ", 5)) || (paren && weir_buf_put(text, "(", 1)) ||
        weir__sql_format_expr(e, text) || (paren && weir_buf_put(text, ")", 1)))
        return WEIR_ENOMEM;
    return 0;
}

int plan_partition_source(plan_ctx *pc, const cat_table *t, const plan_source_cols *cols,
                          const weir_sql_table_ref *ref, const weir_sql_expr *where, plan_partitions *out)
{
    memset(out, 0, sizeof *out);
    const weir_sql_create_table *ddl = t->ddl;
    uint32_t nk = ddl->n_partitioned_by;
    out->keys = plan_alloc(pc, nk * sizeof *out->keys);
    weir_schema *ks = plan_new_schema(pc);
    if (!out->keys || !ks)
        return WEIR_ENOMEM;
    ks->rowtime = -1;
    for (uint32_t i = 0; i < nk; i++) {
        const weir_sql_ident *k = &ddl->partitioned_by[i];
        int col = weir_schema_find(cols->physical, k->name);
        if (col < 0)
            return plan_error(pc, k->loc, WEIR_EINVAL,
                              "partition column '%s' of table '%s' is not one of its physical columns (a partition "
                              "column cannot be computed or METADATA)",
                              k->name, t->name);
        const weir_field *f = &cols->physical->fields[col];
        weir_type ty = f->type;
        ty.nullable = true; /* the default partition is NULL */
        out->keys[i] = f->name;
        if (weir_schema_add(ks, f->name, ty) < 0)
            return WEIR_ENOMEM;
    }
    out->n_keys = nk;
    /* Pruning: the SELECT reads the table directly, under its own column names. */
    if (!where || !ref || ref->n_column_aliases)
        return 0;
    rel keys = {.schema = ks, .rowtime = -1, .n_physical = nk};
    keys.quals = plan_alloc(pc, (nk + 1) * sizeof *keys.quals);
    if (!keys.quals)
        return WEIR_ENOMEM;
    char *q = plan_strdup(pc, ref->alias ? ref->alias->name : t->name);
    if (!q)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < nk; i++)
        keys.quals[i] = q;
    weir_buf text;
    weir_buf_init(&text);
    int rc = add_conjuncts(pc, &keys, where, &out->filter, &text);
    if (!rc && out->filter) {
        out->filter_sql = plan_alloc(pc, text.len + 1);
        if (!out->filter_sql)
            rc = WEIR_ENOMEM;
        else {
            memcpy(out->filter_sql, text.data, text.len);
            out->filter_sql[text.len] = '\0';
        }
    }
    weir_buf_fini(&text);
    return rc;
}
