/*
 * sql/ast.c - names of syntax tree enums, positioned errors for the
 * planner, and the edit distance behind "did you mean" suggestions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql/ast.h"

const char *weir_sql_stmt_kind_name(weir_sql_stmt_kind kind)
{
    switch (kind) {
    case WEIR_SQL_STMT_CREATE_TABLE:
        return "CREATE TABLE";
    case WEIR_SQL_STMT_CREATE_VIEW:
        return "CREATE VIEW";
    case WEIR_SQL_STMT_CREATE_FUNCTION:
        return "CREATE FUNCTION";
    case WEIR_SQL_STMT_DROP:
        return "DROP";
    case WEIR_SQL_STMT_INSERT:
        return "INSERT";
    case WEIR_SQL_STMT_STATEMENT_SET:
        return "STATEMENT SET";
    case WEIR_SQL_STMT_SET:
        return "SET";
    case WEIR_SQL_STMT_RESET:
        return "RESET";
    case WEIR_SQL_STMT_EXPLAIN:
        return "EXPLAIN";
    case WEIR_SQL_STMT_QUERY:
        return "QUERY";
    case WEIR_SQL_STMT_SHOW:
        return "SHOW";
    case WEIR_SQL_STMT_DESCRIBE:
        return "DESCRIBE";
    case WEIR_SQL_STMT_USE:
        return "USE";
    case WEIR_SQL_STMT_ALTER:
        return "ALTER";
    case WEIR_SQL_STMT_CREATE_CATALOG:
        return "CREATE CATALOG";
    case WEIR_SQL_STMT_CREATE_DATABASE:
        return "CREATE DATABASE";
    case WEIR_SQL_STMT_STOP_JOB:
        return "STOP JOB";
    }
    return "?";
}

const char *weir__sql_type_kind_name(weir_sql_type_kind k)
{
    switch (k) {
    case WEIR_SQL_TYPE_BOOLEAN:
        return "BOOLEAN";
    case WEIR_SQL_TYPE_TINYINT:
        return "TINYINT";
    case WEIR_SQL_TYPE_SMALLINT:
        return "SMALLINT";
    case WEIR_SQL_TYPE_INT:
        return "INT";
    case WEIR_SQL_TYPE_BIGINT:
        return "BIGINT";
    case WEIR_SQL_TYPE_FLOAT:
        return "FLOAT";
    case WEIR_SQL_TYPE_DOUBLE:
        return "DOUBLE";
    case WEIR_SQL_TYPE_DECIMAL:
        return "DECIMAL";
    case WEIR_SQL_TYPE_CHAR:
        return "CHAR";
    case WEIR_SQL_TYPE_VARCHAR:
        return "VARCHAR";
    case WEIR_SQL_TYPE_STRING:
        return "STRING";
    case WEIR_SQL_TYPE_BINARY:
        return "BINARY";
    case WEIR_SQL_TYPE_VARBINARY:
        return "VARBINARY";
    case WEIR_SQL_TYPE_BYTES:
        return "BYTES";
    case WEIR_SQL_TYPE_DATE:
        return "DATE";
    case WEIR_SQL_TYPE_TIME:
        return "TIME";
    case WEIR_SQL_TYPE_TIMESTAMP:
        return "TIMESTAMP";
    case WEIR_SQL_TYPE_TIMESTAMP_LTZ:
        return "TIMESTAMP_LTZ";
    case WEIR_SQL_TYPE_ARRAY:
        return "ARRAY";
    case WEIR_SQL_TYPE_MULTISET:
        return "MULTISET";
    case WEIR_SQL_TYPE_MAP:
        return "MAP";
    case WEIR_SQL_TYPE_ROW:
        return "ROW";
    case WEIR_SQL_TYPE_INTERVAL:
        return "INTERVAL";
    }
    return "?";
}

const char *weir__sql_unit_name(weir_sql_time_unit u)
{
    switch (u) {
    case WEIR_SQL_UNIT_NONE:
        return "";
    case WEIR_SQL_UNIT_YEAR:
        return "YEAR";
    case WEIR_SQL_UNIT_QUARTER:
        return "QUARTER";
    case WEIR_SQL_UNIT_MONTH:
        return "MONTH";
    case WEIR_SQL_UNIT_WEEK:
        return "WEEK";
    case WEIR_SQL_UNIT_DAY:
        return "DAY";
    case WEIR_SQL_UNIT_HOUR:
        return "HOUR";
    case WEIR_SQL_UNIT_MINUTE:
        return "MINUTE";
    case WEIR_SQL_UNIT_SECOND:
        return "SECOND";
    case WEIR_SQL_UNIT_MILLISECOND:
        return "MILLISECOND";
    case WEIR_SQL_UNIT_MICROSECOND:
        return "MICROSECOND";
    case WEIR_SQL_UNIT_NANOSECOND:
        return "NANOSECOND";
    case WEIR_SQL_UNIT_DOW:
        return "DOW";
    case WEIR_SQL_UNIT_DOY:
        return "DOY";
    case WEIR_SQL_UNIT_ISODOW:
        return "ISODOW";
    case WEIR_SQL_UNIT_ISOYEAR:
        return "ISOYEAR";
    case WEIR_SQL_UNIT_EPOCH:
        return "EPOCH";
    case WEIR_SQL_UNIT_DECADE:
        return "DECADE";
    case WEIR_SQL_UNIT_CENTURY:
        return "CENTURY";
    case WEIR_SQL_UNIT_MILLENNIUM:
        return "MILLENNIUM";
    }
    return "?";
}

const char *weir__sql_binop_name(weir_sql_binop op)
{
    switch (op) {
    case WEIR_SQL_OP_OR:
        return "OR";
    case WEIR_SQL_OP_AND:
        return "AND";
    case WEIR_SQL_OP_EQ:
        return "=";
    case WEIR_SQL_OP_NE:
        return "<>";
    case WEIR_SQL_OP_LT:
        return "<";
    case WEIR_SQL_OP_LE:
        return "<=";
    case WEIR_SQL_OP_GT:
        return ">";
    case WEIR_SQL_OP_GE:
        return ">=";
    case WEIR_SQL_OP_ADD:
        return "+";
    case WEIR_SQL_OP_SUB:
        return "-";
    case WEIR_SQL_OP_MUL:
        return "*";
    case WEIR_SQL_OP_DIV:
        return "/";
    case WEIR_SQL_OP_MOD:
        return "%";
    case WEIR_SQL_OP_CONCAT:
        return "||";
    }
    return "?";
}

const char *weir__sql_expr_kind_name(weir_sql_expr_kind k)
{
    switch (k) {
    case WEIR_SQL_EXPR_LITERAL:
        return "LITERAL";
    case WEIR_SQL_EXPR_COLUMN:
        return "COLUMN";
    case WEIR_SQL_EXPR_STAR:
        return "STAR";
    case WEIR_SQL_EXPR_UNARY:
        return "UNARY";
    case WEIR_SQL_EXPR_BINARY:
        return "BINARY";
    case WEIR_SQL_EXPR_IS:
        return "IS";
    case WEIR_SQL_EXPR_BETWEEN:
        return "BETWEEN";
    case WEIR_SQL_EXPR_IN_LIST:
        return "IN_LIST";
    case WEIR_SQL_EXPR_IN_QUERY:
        return "IN_QUERY";
    case WEIR_SQL_EXPR_LIKE:
        return "LIKE";
    case WEIR_SQL_EXPR_CASE:
        return "CASE";
    case WEIR_SQL_EXPR_CAST:
        return "CAST";
    case WEIR_SQL_EXPR_EXTRACT:
        return "EXTRACT";
    case WEIR_SQL_EXPR_CALL:
        return "CALL";
    case WEIR_SQL_EXPR_SUBQUERY:
        return "SUBQUERY";
    case WEIR_SQL_EXPR_EXISTS:
        return "EXISTS";
    case WEIR_SQL_EXPR_ARRAY:
        return "ARRAY";
    case WEIR_SQL_EXPR_MAP:
        return "MAP";
    case WEIR_SQL_EXPR_ITEM:
        return "ITEM";
    case WEIR_SQL_EXPR_TABLE_ARG:
        return "TABLE_ARG";
    case WEIR_SQL_EXPR_DESCRIPTOR:
        return "DESCRIPTOR";
    case WEIR_SQL_EXPR_NAMED_ARG:
        return "NAMED_ARG";
    case WEIR_SQL_EXPR_GROUPING_SETS:
        return "GROUPING_SETS";
    }
    return "?";
}

const char *weir__sql_join_kind_name(weir_sql_join_kind k)
{
    switch (k) {
    case WEIR_SQL_JOIN_INNER:
        return "JOIN";
    case WEIR_SQL_JOIN_LEFT:
        return "LEFT JOIN";
    case WEIR_SQL_JOIN_RIGHT:
        return "RIGHT JOIN";
    case WEIR_SQL_JOIN_FULL:
        return "FULL JOIN";
    case WEIR_SQL_JOIN_CROSS:
        return "CROSS JOIN";
    case WEIR_SQL_JOIN_COMMA:
        return ",";
    }
    return "?";
}

int weir__sql_error_at(weir_error *err, const weir_sql_script *s,
                       weir_sql_loc loc, int code, const char *fmt, ...)
{
    char msg[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return weir_error_set(err, code, "%s:%u:%u: error: %s",
                          s && s->file ? s->file : "<input>", loc.line, loc.col,
                          msg);
}

#define VISIT(x)                                                               \
    do {                                                                       \
        if ((x) != NULL) {                                                     \
            int rc_ = fn((x), ud);                                             \
            if (rc_)                                                           \
                return rc_;                                                    \
        }                                                                      \
    } while (0)

static int visit_list(weir_sql_expr *const *v, uint32_t n, weir__sql_expr_fn fn,
                      void *ud)
{
    for (uint32_t i = 0; i < n; i++)
        VISIT(v[i]);
    return 0;
}

static int visit_window(const weir_sql_window *w, weir__sql_expr_fn fn,
                        void *ud)
{
    int rc = visit_list(w->partition_by, w->n_partition_by, fn, ud);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < w->n_order_by; i++)
        VISIT(w->order_by[i].expr);
    if (w->frame) {
        VISIT(w->frame->start.offset);
        VISIT(w->frame->end.offset);
    }
    return 0;
}

int weir__sql_expr_each_child(const weir_sql_expr *e, weir__sql_expr_fn fn,
                              void *ud)
{
    int rc;
    switch (e->kind) {
    case WEIR_SQL_EXPR_LITERAL:
    case WEIR_SQL_EXPR_COLUMN:
    case WEIR_SQL_EXPR_STAR:
    case WEIR_SQL_EXPR_DESCRIPTOR:
    case WEIR_SQL_EXPR_SUBQUERY:
    case WEIR_SQL_EXPR_EXISTS:
        return 0;
    case WEIR_SQL_EXPR_UNARY:
        VISIT(e->u.unary.operand);
        return 0;
    case WEIR_SQL_EXPR_BINARY:
        VISIT(e->u.binary.left);
        VISIT(e->u.binary.right);
        return 0;
    case WEIR_SQL_EXPR_IS:
        VISIT(e->u.is.operand);
        VISIT(e->u.is.other);
        return 0;
    case WEIR_SQL_EXPR_BETWEEN:
        VISIT(e->u.between.operand);
        VISIT(e->u.between.low);
        VISIT(e->u.between.high);
        return 0;
    case WEIR_SQL_EXPR_IN_LIST:
        VISIT(e->u.in_list.operand);
        return visit_list(e->u.in_list.items, e->u.in_list.n_items, fn, ud);
    case WEIR_SQL_EXPR_IN_QUERY:
        VISIT(e->u.in_query.operand);
        return 0;
    case WEIR_SQL_EXPR_LIKE:
        VISIT(e->u.like.operand);
        VISIT(e->u.like.pattern);
        VISIT(e->u.like.escape);
        return 0;
    case WEIR_SQL_EXPR_CASE:
        VISIT(e->u.case_.operand);
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++) {
            VISIT(e->u.case_.whens[i].when);
            VISIT(e->u.case_.whens[i].then);
        }
        VISIT(e->u.case_.else_);
        return 0;
    case WEIR_SQL_EXPR_CAST:
        VISIT(e->u.cast.operand);
        return 0;
    case WEIR_SQL_EXPR_EXTRACT:
        VISIT(e->u.extract.operand);
        return 0;
    case WEIR_SQL_EXPR_CALL:
        rc = visit_list(e->u.call.args, e->u.call.n_args, fn, ud);
        if (rc)
            return rc;
        VISIT(e->u.call.filter);
        return e->u.call.over ? visit_window(e->u.call.over, fn, ud) : 0;
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP:
        return visit_list(e->u.list.items, e->u.list.n_items, fn, ud);
    case WEIR_SQL_EXPR_ITEM:
        VISIT(e->u.item.operand);
        VISIT(e->u.item.index);
        return 0;
    case WEIR_SQL_EXPR_TABLE_ARG:
        rc = visit_list(e->u.table_arg.partition_by,
                        e->u.table_arg.n_partition_by, fn, ud);
        if (rc)
            return rc;
        for (uint32_t i = 0; i < e->u.table_arg.n_order_by; i++)
            VISIT(e->u.table_arg.order_by[i].expr);
        return 0;
    case WEIR_SQL_EXPR_NAMED_ARG:
        VISIT(e->u.named_arg.value);
        return 0;
    case WEIR_SQL_EXPR_GROUPING_SETS:
        for (uint32_t i = 0; i < e->u.grouping_sets.n_sets; i++) {
            rc = visit_list(e->u.grouping_sets.sets[i].items,
                            e->u.grouping_sets.sets[i].n_items, fn, ud);
            if (rc)
                return rc;
        }
        return 0;
    }
    return 0;
}

static char upper(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

int weir__sql_edit_distance(const char *a, size_t alen, const char *b,
                            size_t blen, int max)
{
    enum { CAP = 64 };
    size_t diff = alen > blen ? alen - blen : blen - alen;
    if (max < 0 || diff > (size_t)max || alen >= CAP || blen >= CAP)
        return max + 1;
    /* Three rows of the optimal-string-alignment matrix. */
    int prev2[CAP], prev[CAP], row[CAP];
    for (size_t j = 0; j <= blen; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= alen; i++) {
        row[0] = (int)i;
        int best = row[0];
        for (size_t j = 1; j <= blen; j++) {
            int cost = upper(a[i - 1]) == upper(b[j - 1]) ? 0 : 1;
            int v = prev[j] + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            if (prev[j - 1] + cost < v)
                v = prev[j - 1] + cost;
            if (i > 1 && j > 1 && upper(a[i - 1]) == upper(b[j - 2]) &&
                upper(a[i - 2]) == upper(b[j - 1]) && prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1;
            row[j] = v;
            if (v < best)
                best = v;
        }
        if (best > max)
            return max + 1;
        memcpy(prev2, prev, sizeof(int) * (blen + 1));
        memcpy(prev, row, sizeof(int) * (blen + 1));
    }
    return prev[blen] > max ? max + 1 : prev[blen];
}
