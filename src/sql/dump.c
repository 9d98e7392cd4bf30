/*
 * sql/dump.c - an indented, debug view of a statement's syntax tree: one
 * node per line, its kind, its key attributes and its position
 * (@line:column), children indented by two spaces. Meant for people
 * debugging the parser or the planner, not for machines; the canonical
 * printer is the stable text form.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql/parser_internal.h"

typedef struct dumper {
    weir_buf *out;
    int rc;
} dumper;

__attribute__((format(printf, 4, 5))) static void
line(dumper *d, int depth, weir_sql_loc loc, const char *fmt, ...)
{
    if (d->rc)
        return;
    for (int i = 0; i < depth && d->rc == 0; i++)
        d->rc = weir_buf_put(d->out, "  ", 2);
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf)
        n = (int)sizeof buf - 1;
    if (d->rc == 0)
        d->rc = weir_buf_put(d->out, buf, (size_t)n);
    if (d->rc == 0 && loc.line)
        d->rc = weir_buf_printf(d->out, " @%u:%u", loc.line, loc.col);
    if (d->rc == 0)
        d->rc = weir_buf_put(d->out, "\n", 1);
}

/* Canonical SQL of a small piece, for leaf lines; truncated. */
static void sql_of_expr(const weir_sql_expr *e, char *buf, size_t cap)
{
    weir_buf b;
    weir_buf_init(&b);
    if (weir__sql_format_expr(e, &b) == 0 && b.len) {
        size_t n = b.len < cap - 1 ? b.len : cap - 1;
        memcpy(buf, b.data, n);
        buf[n] = '\0';
    } else {
        snprintf(buf, cap, "?");
    }
    weir_buf_fini(&b);
}

static void sql_of_type(const weir_sql_type *t, char *buf, size_t cap)
{
    weir_buf b;
    weir_buf_init(&b);
    if (weir__sql_format_type(t, &b) == 0 && b.len) {
        size_t n = b.len < cap - 1 ? b.len : cap - 1;
        memcpy(buf, b.data, n);
        buf[n] = '\0';
    } else {
        snprintf(buf, cap, "?");
    }
    weir_buf_fini(&b);
}

static void name_text(const weir_sql_name *n, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n->n_parts && o + 1 < cap; i++) {
        int k =
            snprintf(buf + o, cap - o, "%s%s", i ? "." : "", n->parts[i].name);
        if (k < 0)
            break;
        o += (size_t)k;
    }
}

static void expr(dumper *d, int depth, const char *role,
                 const weir_sql_expr *e);
static void query(dumper *d, int depth, const char *role,
                  const weir_sql_query *q);

static void exprs(dumper *d, int depth, const char *role,
                  weir_sql_expr *const *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        expr(d, depth, role, v[i]);
}

static void order_items(dumper *d, int depth, const weir_sql_order_item *o,
                        uint32_t n)
{
    static const char *const dirs[] = {"", " ASC", " DESC"};
    static const char *const nulls[] = {"", " NULLS FIRST", " NULLS LAST"};
    for (uint32_t i = 0; i < n; i++) {
        line(d, depth, o[i].expr->loc, "order-item%s%s", dirs[o[i].dir],
             nulls[o[i].nulls]);
        expr(d, depth + 1, "", o[i].expr);
    }
}

static void window(dumper *d, int depth, const weir_sql_window *w)
{
    line(d, depth, w->loc, "window%s%s%s", w->ref ? " ref=" : "",
         w->ref ? w->ref->name : "", w->ref_only ? " (name only)" : "");
    exprs(d, depth + 1, "partition-by ", w->partition_by, w->n_partition_by);
    order_items(d, depth + 1, w->order_by, w->n_order_by);
    if (w->frame) {
        static const char *const kinds[] = {"UNBOUNDED PRECEDING", "PRECEDING",
                                            "CURRENT ROW", "FOLLOWING",
                                            "UNBOUNDED FOLLOWING"};
        line(d, depth + 1, w->frame->loc, "frame %s %s .. %s",
             w->frame->rows ? "ROWS" : "RANGE", kinds[w->frame->start.kind],
             kinds[w->frame->end.kind]);
        if (w->frame->start.offset)
            expr(d, depth + 2, "start-offset ", w->frame->start.offset);
        if (w->frame->end.offset)
            expr(d, depth + 2, "end-offset ", w->frame->end.offset);
    }
}

static void expr(dumper *d, int depth, const char *role, const weir_sql_expr *e)
{
    char text[200];
    const char *kind = weir__sql_expr_kind_name(e->kind);
    switch (e->kind) {
    case WEIR_SQL_EXPR_LITERAL:
    case WEIR_SQL_EXPR_COLUMN:
    case WEIR_SQL_EXPR_STAR:
    case WEIR_SQL_EXPR_DESCRIPTOR:
        sql_of_expr(e, text, sizeof text);
        line(d, depth, e->loc, "%s%s %s", role, kind, text);
        return;
    case WEIR_SQL_EXPR_UNARY:
        line(d, depth, e->loc, "%s%s %s", role, kind,
             e->u.unary.op == WEIR_SQL_OP_NOT   ? "NOT"
             : e->u.unary.op == WEIR_SQL_OP_NEG ? "-"
                                                : "+");
        expr(d, depth + 1, "", e->u.unary.operand);
        return;
    case WEIR_SQL_EXPR_BINARY:
        line(d, depth, e->loc, "%s%s %s", role, kind,
             weir__sql_binop_name(e->u.binary.op));
        expr(d, depth + 1, "", e->u.binary.left);
        expr(d, depth + 1, "", e->u.binary.right);
        return;
    case WEIR_SQL_EXPR_IS: {
        static const char *const tests[] = {"NULL", "TRUE", "FALSE", "UNKNOWN",
                                            "DISTINCT FROM"};
        line(d, depth, e->loc, "%s%s %s%s", role, kind,
             e->u.is.negated ? "NOT " : "", tests[e->u.is.test]);
        expr(d, depth + 1, "", e->u.is.operand);
        if (e->u.is.other)
            expr(d, depth + 1, "", e->u.is.other);
        return;
    }
    case WEIR_SQL_EXPR_BETWEEN:
        line(d, depth, e->loc, "%s%s%s%s", role,
             e->u.between.negated ? "NOT " : "", kind,
             e->u.between.symmetric ? " SYMMETRIC" : "");
        expr(d, depth + 1, "", e->u.between.operand);
        expr(d, depth + 1, "low ", e->u.between.low);
        expr(d, depth + 1, "high ", e->u.between.high);
        return;
    case WEIR_SQL_EXPR_IN_LIST:
        line(d, depth, e->loc, "%s%s%s", role,
             e->u.in_list.negated ? "NOT " : "", kind);
        expr(d, depth + 1, "", e->u.in_list.operand);
        exprs(d, depth + 1, "item ", e->u.in_list.items, e->u.in_list.n_items);
        return;
    case WEIR_SQL_EXPR_IN_QUERY:
        line(d, depth, e->loc, "%s%s%s", role,
             e->u.in_query.negated ? "NOT " : "", kind);
        expr(d, depth + 1, "", e->u.in_query.operand);
        query(d, depth + 1, "", e->u.in_query.query);
        return;
    case WEIR_SQL_EXPR_LIKE:
        line(d, depth, e->loc, "%s%s%s", role, e->u.like.negated ? "NOT " : "",
             e->u.like.similar ? "SIMILAR TO" : "LIKE");
        expr(d, depth + 1, "", e->u.like.operand);
        expr(d, depth + 1, "pattern ", e->u.like.pattern);
        if (e->u.like.escape)
            expr(d, depth + 1, "escape ", e->u.like.escape);
        return;
    case WEIR_SQL_EXPR_CASE:
        line(d, depth, e->loc, "%s%s%s", role, kind,
             e->u.case_.operand ? " (simple)" : " (searched)");
        if (e->u.case_.operand)
            expr(d, depth + 1, "operand ", e->u.case_.operand);
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++) {
            expr(d, depth + 1, "when ", e->u.case_.whens[i].when);
            expr(d, depth + 1, "then ", e->u.case_.whens[i].then);
        }
        if (e->u.case_.else_)
            expr(d, depth + 1, "else ", e->u.case_.else_);
        return;
    case WEIR_SQL_EXPR_CAST:
        sql_of_type(e->u.cast.type, text, sizeof text);
        line(d, depth, e->loc, "%s%s%s %s", role, e->u.cast.try_ ? "TRY_" : "",
             kind, text);
        expr(d, depth + 1, "", e->u.cast.operand);
        return;
    case WEIR_SQL_EXPR_EXTRACT:
        line(d, depth, e->loc, "%s%s %s", role, kind,
             weir__sql_unit_name(e->u.extract.unit));
        expr(d, depth + 1, "", e->u.extract.operand);
        return;
    case WEIR_SQL_EXPR_CALL: {
        static const char *const syn[] = {"",
                                          " (no parens)",
                                          " (TRIM)",
                                          " (POSITION)",
                                          " (SUBSTRING)",
                                          " (OVERLAY)",
                                          " (FLOOR TO)",
                                          " (CEIL TO)",
                                          " (unit first)",
                                          " (SQL/JSON)"};
        name_text(&e->u.call.name, text, sizeof text);
        line(d, depth, e->loc, "%s%s %s%s%s%s%s%s", role, kind, text,
             syn[e->u.call.syntax], e->u.call.star ? " (*)" : "",
             e->u.call.distinct ? " DISTINCT" : "",
             e->u.call.unit != WEIR_SQL_UNIT_NONE ? " unit=" : "",
             weir__sql_unit_name(e->u.call.unit));
        exprs(d, depth + 1, "arg ", e->u.call.args, e->u.call.n_args);
        if (e->u.call.filter)
            expr(d, depth + 1, "filter ", e->u.call.filter);
        if (e->u.call.over)
            window(d, depth + 1, e->u.call.over);
        return;
    }
    case WEIR_SQL_EXPR_SUBQUERY:
    case WEIR_SQL_EXPR_EXISTS:
        line(d, depth, e->loc, "%s%s", role, kind);
        query(d, depth + 1, "", e->u.subquery.query);
        return;
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP:
        line(d, depth, e->loc, "%s%s", role, kind);
        exprs(d, depth + 1, "", e->u.list.items, e->u.list.n_items);
        return;
    case WEIR_SQL_EXPR_ITEM:
        line(d, depth, e->loc, "%s%s", role, kind);
        expr(d, depth + 1, "", e->u.item.operand);
        expr(d, depth + 1, e->u.item.field ? "field " : "index ", e->u.item.index);
        return;
    case WEIR_SQL_EXPR_TABLE_ARG:
        name_text(&e->u.table_arg.table, text, sizeof text);
        line(d, depth, e->loc, "%s%s %s", role, kind, text);
        exprs(d, depth + 1, "partition-by ", e->u.table_arg.partition_by,
              e->u.table_arg.n_partition_by);
        order_items(d, depth + 1, e->u.table_arg.order_by,
                    e->u.table_arg.n_order_by);
        return;
    case WEIR_SQL_EXPR_NAMED_ARG:
        line(d, depth, e->loc, "%s%s %s", role, kind, e->u.named_arg.name.name);
        expr(d, depth + 1, "", e->u.named_arg.value);
        return;
    case WEIR_SQL_EXPR_GROUPING_SETS:
        line(d, depth, e->loc, "%s%s", role, kind);
        for (uint32_t i = 0; i < e->u.grouping_sets.n_sets; i++) {
            line(d, depth + 1, e->u.grouping_sets.sets[i].loc, "set");
            exprs(d, depth + 2, "", e->u.grouping_sets.sets[i].items,
                  e->u.grouping_sets.sets[i].n_items);
        }
        return;
    }
}

static void table_ref(dumper *d, int depth, const weir_sql_table_ref *t)
{
    char text[200];
    char al[160] = "";
    if (t->alias)
        snprintf(al, sizeof al, " AS %s", t->alias->name);
    switch (t->kind) {
    case WEIR_SQL_FROM_TABLE:
        name_text(&t->u.table.name, text, sizeof text);
        line(d, depth, t->loc, "table %s%s%s", text, al,
             t->u.table.n_hints ? " (with hints)" : "");
        if (t->u.table.system_time)
            expr(d, depth + 1, "for-system-time-as-of ",
                 t->u.table.system_time);
        return;
    case WEIR_SQL_FROM_SUBQUERY:
        line(d, depth, t->loc, "%ssubquery%s",
             t->u.subquery.lateral ? "lateral " : "", al);
        query(d, depth + 1, "", t->u.subquery.query);
        return;
    case WEIR_SQL_FROM_FUNCTION:
        line(d, depth, t->loc, "%stable-function%s",
             t->u.function.lateral ? "lateral " : "", al);
        expr(d, depth + 1, "", t->u.function.call);
        return;
    case WEIR_SQL_FROM_UNNEST:
        line(d, depth, t->loc, "unnest%s%s",
             t->u.unnest.with_ordinality ? " WITH ORDINALITY" : "", al);
        exprs(d, depth + 1, "", t->u.unnest.args, t->u.unnest.n_args);
        return;
    case WEIR_SQL_FROM_JOIN:
        line(d, depth, t->u.join.op_loc, "join %s%s",
             t->u.join.natural ? "NATURAL " : "",
             weir__sql_join_kind_name(t->u.join.kind));
        table_ref(d, depth + 1, t->u.join.left);
        table_ref(d, depth + 1, t->u.join.right);
        if (t->u.join.on)
            expr(d, depth + 1, "on ", t->u.join.on);
        for (uint32_t i = 0; i < t->u.join.n_using; i++)
            line(d, depth + 1, t->u.join.using_[i].loc, "using %s",
                 t->u.join.using_[i].name);
        return;
    case WEIR_SQL_FROM_MATCH:
        line(d, depth, t->loc, "match-recognize%s: %s", al,
             t->u.match.mr->text);
        table_ref(d, depth + 1, t->u.match.input);
        return;
    }
}

static void query(dumper *d, int depth, const char *role,
                  const weir_sql_query *q)
{
    static const char *const ops[] = {"UNION", "INTERSECT", "EXCEPT"};
    for (uint32_t i = 0; i < q->n_with; i++) {
        line(d, depth, q->with[i].name.loc, "%swith %s", role,
             q->with[i].name.name);
        query(d, depth + 1, "", q->with[i].query);
    }
    switch (q->kind) {
    case WEIR_SQL_QUERY_SELECT: {
        const weir_sql_select *s = q->u.select;
        line(d, depth, q->loc, "%sselect%s", role,
             s->distinct ? " DISTINCT" : "");
        for (uint32_t i = 0; i < s->n_items; i++) {
            char al[160] = "";
            if (s->items[i].alias)
                snprintf(al, sizeof al, "item AS %s ", s->items[i].alias->name);
            expr(d, depth + 1, al[0] ? al : "item ", s->items[i].expr);
        }
        if (s->from) {
            line(d, depth + 1, s->from->loc, "from");
            table_ref(d, depth + 2, s->from);
        }
        if (s->where)
            expr(d, depth + 1, "where ", s->where);
        exprs(d, depth + 1, "group-by ", s->group_by, s->n_group_by);
        if (s->having)
            expr(d, depth + 1, "having ", s->having);
        for (uint32_t i = 0; i < s->n_windows; i++) {
            line(d, depth + 1, s->windows[i].name.loc, "named-window %s",
                 s->windows[i].name.name);
            window(d, depth + 2, s->windows[i].window);
        }
        break;
    }
    case WEIR_SQL_QUERY_SETOP:
        line(d, depth, q->u.setop.op_loc, "%s%s%s", role, ops[q->u.setop.op],
             q->u.setop.all ? " ALL" : "");
        query(d, depth + 1, "", q->u.setop.left);
        query(d, depth + 1, "", q->u.setop.right);
        break;
    case WEIR_SQL_QUERY_VALUES:
        line(d, depth, q->loc, "%svalues", role);
        for (uint32_t r = 0; r < q->u.values.n_rows; r++) {
            line(d, depth + 1, q->u.values.rows[r].loc, "row");
            exprs(d, depth + 2, "", q->u.values.rows[r].items,
                  q->u.values.rows[r].n_items);
        }
        break;
    }
    order_items(d, depth + 1, q->order_by, q->n_order_by);
    if (q->limit)
        expr(d, depth + 1, "limit ", q->limit);
    if (q->offset)
        expr(d, depth + 1, "offset ", q->offset);
}

static void options(dumper *d, int depth, const weir_sql_option *o, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        line(d, depth, o[i].loc, "option '%s' = '%s'", o[i].key, o[i].value);
}

static void stmt(dumper *d, int depth, const weir_sql_stmt *st)
{
    char text[200];
    const char *kind = weir_sql_stmt_kind_name(st->kind);
    switch (st->kind) {
    case WEIR_SQL_STMT_CREATE_TABLE: {
        const weir_sql_create_table *ct = &st->u.create_table;
        name_text(&ct->name, text, sizeof text);
        line(d, depth, st->loc, "%s %s%s%s", kind, text,
             ct->temporary ? " TEMPORARY" : "",
             ct->if_not_exists ? " IF NOT EXISTS" : "");
        for (uint32_t i = 0; i < ct->n_columns; i++) {
            const weir_sql_column *c = &ct->columns[i];
            static const char *const ck[] = {"physical", "computed",
                                             "metadata"};
            char ty[160] = "";
            if (c->type)
                sql_of_type(c->type, ty, sizeof ty);
            line(d, depth + 1, c->loc, "column %s %s %s%s%s", c->name.name,
                 ck[c->kind], ty, c->is_virtual ? " VIRTUAL" : "",
                 c->comment ? " (comment)" : "");
            if (c->expr)
                expr(d, depth + 2, "", c->expr);
        }
        if (ct->watermark) {
            name_text(&ct->watermark->column, text, sizeof text);
            line(d, depth + 1, ct->watermark->loc, "watermark for %s", text);
            expr(d, depth + 2, "", ct->watermark->expr);
        }
        if (ct->primary_key) {
            const weir_sql_primary_key *pk = ct->primary_key;
            line(d, depth + 1, pk->loc, "primary-key%s",
                 pk->enforcement == WEIR_SQL_NOT_ENFORCED ? " NOT ENFORCED"
                 : pk->enforcement == WEIR_SQL_ENFORCED   ? " ENFORCED"
                                                          : "");
            for (uint32_t i = 0; i < pk->n_columns; i++)
                line(d, depth + 2, pk->columns[i].loc, "%s",
                     pk->columns[i].name);
        }
        for (uint32_t i = 0; i < ct->n_partitioned_by; i++)
            line(d, depth + 1, ct->partitioned_by[i].loc, "partitioned-by %s",
                 ct->partitioned_by[i].name);
        options(d, depth + 1, ct->options, ct->n_options);
        if (ct->like) {
            name_text(&ct->like->source, text, sizeof text);
            line(d, depth + 1, ct->like->loc, "like %s", text);
        }
        if (ct->as_query)
            query(d, depth + 1, "as ", ct->as_query);
        return;
    }
    case WEIR_SQL_STMT_CREATE_VIEW:
        name_text(&st->u.create_view.name, text, sizeof text);
        line(d, depth, st->loc, "%s %s%s", kind, text,
             st->u.create_view.temporary ? " TEMPORARY" : "");
        query(d, depth + 1, "", st->u.create_view.query);
        return;
    case WEIR_SQL_STMT_CREATE_FUNCTION:
        name_text(&st->u.create_function.name, text, sizeof text);
        line(d, depth, st->loc, "%s %s AS '%s'", kind, text,
             st->u.create_function.class_name);
        return;
    case WEIR_SQL_STMT_DROP:
        name_text(&st->u.drop.name, text, sizeof text);
        line(d, depth, st->loc, "%s %s%s", kind, text,
             st->u.drop.if_exists ? " IF EXISTS" : "");
        return;
    case WEIR_SQL_STMT_INSERT:
        name_text(&st->u.insert.table, text, sizeof text);
        line(d, depth, st->loc, "%s %s %s", kind,
             st->u.insert.overwrite ? "OVERWRITE" : "INTO", text);
        for (uint32_t i = 0; i < st->u.insert.n_columns; i++)
            line(d, depth + 1, st->u.insert.columns[i].loc, "target-column %s",
                 st->u.insert.columns[i].name);
        query(d, depth + 1, "", st->u.insert.query);
        return;
    case WEIR_SQL_STMT_STATEMENT_SET:
        line(d, depth, st->loc, "%s", kind);
        for (uint32_t i = 0; i < st->u.statement_set.n_inserts; i++)
            stmt(d, depth + 1, st->u.statement_set.inserts[i]);
        return;
    case WEIR_SQL_STMT_SET:
        line(d, depth, st->loc, "%s '%s' = '%s'", kind,
             st->u.set.key ? st->u.set.key : "",
             st->u.set.value ? st->u.set.value : "");
        return;
    case WEIR_SQL_STMT_RESET:
        line(d, depth, st->loc, "%s '%s'", kind,
             st->u.reset.key ? st->u.reset.key : "");
        return;
    case WEIR_SQL_STMT_EXPLAIN:
        line(d, depth, st->loc, "%s%s", kind,
             st->u.explain.plan_for ? " PLAN FOR" : "");
        stmt(d, depth + 1, st->u.explain.stmt);
        return;
    case WEIR_SQL_STMT_QUERY:
        line(d, depth, st->loc, "%s", kind);
        query(d, depth + 1, "", st->u.query.query);
        return;
    case WEIR_SQL_STMT_SHOW:
    case WEIR_SQL_STMT_DESCRIBE:
    case WEIR_SQL_STMT_ALTER:
    case WEIR_SQL_STMT_CREATE_CATALOG:
    case WEIR_SQL_STMT_CREATE_DATABASE:
    case WEIR_SQL_STMT_STOP_JOB:
    case WEIR_SQL_STMT_USE: {
        weir_buf b;
        weir_buf_init(&b);
        if (weir_sql_format_stmt(st, &b) == 0 && b.len) {
            line(d, depth, st->loc, "%.*s", (int)(b.len > 200 ? 200 : b.len),
                 (const char *)b.data);
        } else {
            line(d, depth, st->loc, "%s", kind);
        }
        weir_buf_fini(&b);
        return;
    }
    }
}

int weir_sql_dump_stmt(const weir_sql_stmt *st, weir_buf *out)
{
    if (!st || !out)
        return WEIR_EINVAL;
    dumper d = {out, 0};
    stmt(&d, 0, st);
    return d.rc;
}
