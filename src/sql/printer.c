/*
 * sql/printer.c - renders a syntax tree as canonical SQL.
 *
 * The canonical form is one line per statement: keywords in upper case,
 * spelling variants normalised (INTEGER -> INT, != -> <>, MINUTES ->
 * MINUTE), every alias with AS, identifiers in backticks only when they are
 * keywords or not plain words, function names as written, and parentheses
 * only where precedence needs them. The printer's contract, checked by the
 * tests and the fuzzer: parsing its output gives a tree that prints the same
 * text again (print . parse is idempotent on printer output).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <stdlib.h>

#include "sql/lexer.h"
#include "sql/parser_internal.h"

typedef struct printer {
    weir_buf *out;
    int rc;
    weir__sql_rename_fn rename; /* NULL: every name as written */
    void *rename_ud;
    bool quote_all; /* every identifier in backquotes, types by their full names (SHOW CREATE) */
} printer;

static void putn(printer *pr, const char *s, size_t n)
{
    if (pr->rc == 0)
        pr->rc = weir_buf_put(pr->out, s, n);
}

static void put(printer *pr, const char *s)
{
    putn(pr, s, strlen(s));
}

static void put_u32(printer *pr, uint32_t v)
{
    char b[16];
    int n = snprintf(b, sizeof b, "%u", v);
    putn(pr, b, (size_t)n);
}

static void put_quoted(printer *pr, const char *s, size_t n, char q)
{
    putn(pr, &q, 1);
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == q) {
            putn(pr, s + start, i + 1 - start);
            putn(pr, &q, 1);
            start = i + 1;
        }
    }
    putn(pr, s + start, n - start);
    putn(pr, &q, 1);
}

static void put_string(printer *pr, const char *s)
{
    put_quoted(pr, s ? s : "", s ? strlen(s) : 0, '\'');
}

static void put_ident(printer *pr, const weir_sql_ident *id)
{
    if (!pr->quote_all && weir__sql_ident_is_plain(id->name, id->len))
        putn(pr, id->name, id->len);
    else
        put_quoted(pr, id->name, id->len, '`');
}

static void put_idents(printer *pr, const weir_sql_ident *ids, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(pr, ", ");
        put_ident(pr, &ids[i]);
    }
}

static void put_name(printer *pr, const weir_sql_name *n)
{
    for (uint32_t i = 0; i < n->n_parts; i++) {
        if (i)
            put(pr, ".");
        put_ident(pr, &n->parts[i]);
    }
}

/* A word of ASCII letters, digits, '_' and '$' not starting with a digit. */
static bool is_word(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9') || s[0] == '$')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '$'))
            return false;
    }
    return true;
}

static bool json_name(const weir_sql_ident *id)
{
    static const char *const names[] = {"JSON_VALUE", "JSON_QUERY",
                                        "JSON_EXISTS", "JSON_OBJECT",
                                        "JSON_ARRAY", "JSON_OBJECTAGG",
                                        "JSON_ARRAYAGG"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strlen(names[k]) == id->len &&
            strncasecmp(names[k], id->name, id->len) == 0)
            return true;
    return false;
}

/*
 * Function names print as written when the parser reads them back as the
 * same call: plain words, non-reserved keywords (YEAR(x), TRIM(x)) and the
 * reserved words that are also functions (LEFT, RIGHT, CURRENT_TIMESTAMP).
 * Keywords whose '(' starts a special form (EXTRACT, DESCRIPTOR, ...) are
 * quoted when the call is a plain one.
 */
static bool funcname_raw(const weir_sql_ident *id, bool single,
                         weir_sql_call_syntax syntax)
{
    if (!is_word(id->name, id->len))
        return false;
    if (single && syntax == WEIR_SQL_CALL_PLAIN && json_name(id))
        return false; /* `JSON_VALUE`(...) as a plain call stays one */
    weir__sql_kw kw = weir__sql_keyword_lookup(id->name, id->len);
    if (kw == WEIR__SQL_KW_NONE)
        return true;
    if (!single)
        return !weir__sql_keyword_reserved(kw);
    switch (kw) {
    case WEIR__SQL_KW_EXTRACT:
    case WEIR__SQL_KW_TRY_CAST:
    case WEIR__SQL_KW_DESCRIPTOR:
        return false;
    case WEIR__SQL_KW_POSITION:
        return syntax == WEIR_SQL_CALL_POSITION;
    case WEIR__SQL_KW_OVERLAY:
        return syntax == WEIR_SQL_CALL_OVERLAY;
    case WEIR__SQL_KW_LEFT:
    case WEIR__SQL_KW_RIGHT:
    case WEIR__SQL_KW_CURRENT_DATE:
    case WEIR__SQL_KW_CURRENT_TIME:
    case WEIR__SQL_KW_CURRENT_TIMESTAMP:
    case WEIR__SQL_KW_LOCALTIME:
    case WEIR__SQL_KW_LOCALTIMESTAMP:
        return true;
    default:
        return !weir__sql_keyword_reserved(kw);
    }
}

static void put_funcname(printer *pr, const weir_sql_expr *e)
{
    const weir_sql_name *n = &e->u.call.name;
    for (uint32_t i = 0; i < n->n_parts; i++) {
        if (i)
            put(pr, ".");
        const weir_sql_ident *id = &n->parts[i];
        if (funcname_raw(id, n->n_parts == 1, e->u.call.syntax))
            putn(pr, id->name, id->len);
        else
            put_quoted(pr, id->name, id->len, '`');
    }
}

/* ------------------------------------------------------------------- types */

static void type(printer *pr, const weir_sql_type *t);

/* A type by its full name, each length and precision written (their defaults where the type has none):
 * STRING is VARCHAR(2147483647), TIMESTAMP_LTZ(p) is TIMESTAMP(p) WITH LOCAL TIME ZONE. */
static bool full_type(printer *pr, const weir_sql_type *t)
{
    static const int32_t max_len = 2147483647;
    const char *base = NULL;
    int32_t p = t->precision;
    switch (t->kind) {
    case WEIR_SQL_TYPE_INT: base = "INT"; p = -1; break;
    case WEIR_SQL_TYPE_STRING: base = "VARCHAR"; p = max_len; break;
    case WEIR_SQL_TYPE_BYTES: base = "VARBINARY"; p = max_len; break;
    case WEIR_SQL_TYPE_CHAR: base = "CHAR"; p = p < 0 ? 1 : p; break;
    case WEIR_SQL_TYPE_VARCHAR: base = "VARCHAR"; p = p < 0 ? 1 : p; break;
    case WEIR_SQL_TYPE_BINARY: base = "BINARY"; p = p < 0 ? 1 : p; break;
    case WEIR_SQL_TYPE_VARBINARY: base = "VARBINARY"; p = p < 0 ? 1 : p; break;
    case WEIR_SQL_TYPE_TIME: base = "TIME"; p = p < 0 ? 0 : p; break;
    case WEIR_SQL_TYPE_TIMESTAMP: base = "TIMESTAMP"; p = p < 0 ? 6 : p; break;
    case WEIR_SQL_TYPE_TIMESTAMP_LTZ: base = "TIMESTAMP"; p = p < 0 ? 6 : p; break;
    case WEIR_SQL_TYPE_DECIMAL:
        put(pr, "DECIMAL(");
        put_u32(pr, (uint32_t)(p < 0 ? 10 : p));
        put(pr, ", ");
        put_u32(pr, (uint32_t)(p < 0 || t->scale < 0 ? 0 : t->scale));
        put(pr, ")");
        break;
    default: return false;
    }
    if (base) {
        put(pr, base);
        if (p >= 0) {
            put(pr, "(");
            put_u32(pr, (uint32_t)p);
            put(pr, ")");
        }
        if (t->kind == WEIR_SQL_TYPE_TIMESTAMP_LTZ)
            put(pr, " WITH LOCAL TIME ZONE");
    }
    if (t->not_null)
        put(pr, " NOT NULL");
    return true;
}

static void type(printer *pr, const weir_sql_type *t)
{
    if (pr->quote_all && full_type(pr, t))
        return;
    put(pr, weir__sql_type_kind_name(t->kind));
    switch (t->kind) {
    case WEIR_SQL_TYPE_DECIMAL:
        if (t->precision >= 0) {
            put(pr, "(");
            put_u32(pr, (uint32_t)t->precision);
            if (t->scale >= 0) {
                put(pr, ", ");
                put_u32(pr, (uint32_t)t->scale);
            }
            put(pr, ")");
        }
        break;
    case WEIR_SQL_TYPE_CHAR:
    case WEIR_SQL_TYPE_VARCHAR:
    case WEIR_SQL_TYPE_BINARY:
    case WEIR_SQL_TYPE_VARBINARY:
    case WEIR_SQL_TYPE_TIME:
    case WEIR_SQL_TYPE_TIMESTAMP:
    case WEIR_SQL_TYPE_TIMESTAMP_LTZ:
        if (t->precision >= 0) {
            put(pr, "(");
            put_u32(pr, (uint32_t)t->precision);
            put(pr, ")");
        }
        break;
    case WEIR_SQL_TYPE_ARRAY:
    case WEIR_SQL_TYPE_MULTISET:
        put(pr, "<");
        type(pr, t->elem);
        put(pr, ">");
        break;
    case WEIR_SQL_TYPE_MAP:
        put(pr, "<");
        type(pr, t->elem);
        put(pr, ", ");
        type(pr, t->value);
        put(pr, ">");
        break;
    case WEIR_SQL_TYPE_ROW:
        put(pr, "<");
        for (uint32_t i = 0; i < t->n_fields; i++) {
            if (i)
                put(pr, ", ");
            put_ident(pr, &t->fields[i].name);
            put(pr, " ");
            type(pr, t->fields[i].type);
            if (t->fields[i].comment) {
                put(pr, " ");
                put_string(pr, t->fields[i].comment);
            }
        }
        put(pr, ">");
        break;
    case WEIR_SQL_TYPE_INTERVAL:
        put(pr, t->precision == 2 ? " MONTH" : " SECOND(3)");
        break;
    default:
        break;
    }
    if (t->not_null)
        put(pr, " NOT NULL");
}

/* ------------------------------------------------------------- expressions */

static void expr(printer *pr, const weir_sql_expr *e);
static void query(printer *pr, const weir_sql_query *q);
static void window(printer *pr, const weir_sql_window *w);

/* Prints e, in parentheses if it binds more loosely than min_prec. */
static void child(printer *pr, const weir_sql_expr *e, int min_prec)
{
    if (weir__sql_expr_prec(e) < min_prec) {
        put(pr, "(");
        expr(pr, e);
        put(pr, ")");
    } else {
        expr(pr, e);
    }
}

static void exprs(printer *pr, weir_sql_expr *const *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(pr, ", ");
        expr(pr, v[i]);
    }
}

static void order_items(printer *pr, const weir_sql_order_item *o, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(pr, ", ");
        expr(pr, o[i].expr);
        if (o[i].dir == WEIR_SQL_ORDER_ASC)
            put(pr, " ASC");
        else if (o[i].dir == WEIR_SQL_ORDER_DESC)
            put(pr, " DESC");
        if (o[i].nulls == WEIR_SQL_NULLS_FIRST)
            put(pr, " NULLS FIRST");
        else if (o[i].nulls == WEIR_SQL_NULLS_LAST)
            put(pr, " NULLS LAST");
    }
}

static void interval_unit(printer *pr, weir_sql_time_unit u, int32_t prec)
{
    put(pr, weir__sql_unit_name(u));
    if (prec >= 0) {
        put(pr, "(");
        put_u32(pr, (uint32_t)prec);
        put(pr, ")");
    }
}

static void literal(printer *pr, const weir_sql_literal *l)
{
    switch (l->kind) {
    case WEIR_SQL_LIT_NULL:
        put(pr, "NULL");
        break;
    case WEIR_SQL_LIT_BOOLEAN:
        put(pr, l->boolean ? "TRUE" : "FALSE");
        break;
    case WEIR_SQL_LIT_INTEGER:
    case WEIR_SQL_LIT_DECIMAL:
    case WEIR_SQL_LIT_DOUBLE:
        putn(pr, l->text, l->len);
        break;
    case WEIR_SQL_LIT_STRING:
        put_quoted(pr, l->text, l->len, '\'');
        break;
    case WEIR_SQL_LIT_BINARY:
        put(pr, "X");
        put_quoted(pr, l->text, l->len, '\'');
        break;
    case WEIR_SQL_LIT_DATE:
    case WEIR_SQL_LIT_TIME:
    case WEIR_SQL_LIT_TIMESTAMP:
        put(pr, l->kind == WEIR_SQL_LIT_DATE   ? "DATE "
                : l->kind == WEIR_SQL_LIT_TIME ? "TIME "
                                               : "TIMESTAMP ");
        put_quoted(pr, l->text, l->len, '\'');
        break;
    case WEIR_SQL_LIT_INTERVAL:
        put(pr, l->interval.negated ? "INTERVAL -" : "INTERVAL ");
        put_quoted(pr, l->text, l->len, '\'');
        put(pr, " ");
        interval_unit(pr, l->interval.from, l->interval.from_precision);
        if (l->interval.to != WEIR_SQL_UNIT_NONE) {
            put(pr, " TO ");
            interval_unit(pr, l->interval.to, l->interval.to_precision);
        }
        break;
    }
}

static int64_t lit_i64(const weir_sql_expr *e)
{
    return e->kind == WEIR_SQL_EXPR_LITERAL ? e->u.lit.i64 : 0;
}

/* The SQL/JSON forms back from their trailing literal arguments (see
 * parse_json_call in parse_expr.c). */
static void json_call(printer *pr, const weir_sql_expr *e)
{
    weir_sql_expr *const *a = e->u.call.args;
    uint32_t n = e->u.call.n_args;
    const char *fn = e->u.call.name.parts[0].name;
    if (!strcmp(fn, "IS JSON")) {
        static const char *const kinds[] = {"", " SCALAR", " ARRAY", " OBJECT"};
        int64_t k = lit_i64(a[1]);
        put(pr, "(");
        child(pr, a[0], PREC_IS);
        put(pr, " IS JSON");
        put(pr, kinds[k >= 0 && k < 4 ? k : 0]);
        put(pr, ")");
        return;
    }
    put_funcname(pr, e);
    put(pr, "(");
    if (!strcasecmp(fn, "JSON_OBJECT") || !strcasecmp(fn, "JSON_ARRAY")) {
        bool object = !strcasecmp(fn, "JSON_OBJECT");
        uint32_t step = object ? 3 : 2;
        for (uint32_t i = 1; i + step <= n; i += step) {
            if (i > 1)
                put(pr, ", ");
            if (object) {
                put(pr, "KEY ");
                expr(pr, a[i]);
                put(pr, " VALUE ");
            }
            expr(pr, a[i + step - 2]);
        }
        if (n > 1)
            put(pr, " ");
        put(pr, n && lit_i64(a[0]) ? "ABSENT ON NULL)" : "NULL ON NULL)");
        return;
    }
    expr(pr, a[0]);
    put(pr, ", ");
    expr(pr, a[1]);
    if (!strcasecmp(fn, "JSON_EXISTS")) {
        static const char *const m[] = {"FALSE", "TRUE", "UNKNOWN", "ERROR"};
        if (n == 3) {
            int64_t k = lit_i64(a[2]);
            put(pr, " ");
            put(pr, m[k >= 0 && k < 4 ? k : 0]);
            put(pr, " ON ERROR");
        }
    } else if (!strcasecmp(fn, "JSON_VALUE") && n == 7) {
        put(pr, " RETURNING ");
        putn(pr, a[2]->u.lit.text, a[2]->u.lit.len);
        for (int k = 0; k < 2; k++) {
            int64_t m = lit_i64(a[3 + 2 * k]);
            if (m == 1) {
                put(pr, " ERROR");
            } else if (m == 2) {
                put(pr, " DEFAULT ");
                expr(pr, a[4 + 2 * k]);
            } else {
                continue;
            }
            put(pr, k ? " ON ERROR" : " ON EMPTY");
        }
    } else if (!strcasecmp(fn, "JSON_QUERY") && n == 5) {
        static const char *const w[] = {" WITHOUT ARRAY WRAPPER",
                                        " WITH CONDITIONAL ARRAY WRAPPER",
                                        " WITH UNCONDITIONAL ARRAY WRAPPER"};
        static const char *const m[] = {"", " ERROR", "", " EMPTY ARRAY",
                                        " EMPTY OBJECT"};
        int64_t k = lit_i64(a[2]);
        put(pr, w[k >= 0 && k < 3 ? k : 0]);
        for (int j = 0; j < 2; j++) {
            int64_t mm = lit_i64(a[3 + j]);
            if (mm == 1 || mm == 3 || mm == 4) {
                put(pr, m[mm]);
                put(pr, j ? " ON ERROR" : " ON EMPTY");
            }
        }
    }
    put(pr, ")");
}

static void call(printer *pr, const weir_sql_expr *e)
{
    weir_sql_expr *const *a = e->u.call.args;
    uint32_t n = e->u.call.n_args;
    if (e->u.call.syntax == WEIR_SQL_CALL_JSON) {
        json_call(pr, e);
        return;
    }
    if (e->u.call.syntax == WEIR_SQL_CALL_DATETIME_MINUS) {
        put(pr, "(");
        expr(pr, a[0]);
        put(pr, " - ");
        child(pr, a[1], PREC_ADD + 1);
        put(pr, ") ");
        put(pr, weir__sql_unit_name(e->u.call.unit));
        if (e->u.call.unit_to != WEIR_SQL_UNIT_NONE) {
            put(pr, " TO ");
            put(pr, weir__sql_unit_name(e->u.call.unit_to));
        }
        return;
    }
    put_funcname(pr, e);
    switch (e->u.call.syntax) {
    case WEIR_SQL_CALL_NO_PARENS:
    case WEIR_SQL_CALL_JSON:
    case WEIR_SQL_CALL_DATETIME_MINUS:
        return;
    case WEIR_SQL_CALL_TRIM: {
        static const char *const specs[] = {"BOTH", "LEADING", "TRAILING"};
        put(pr, "(");
        if (e->u.call.trim_spec_written) {
            put(pr, specs[e->u.call.trim]);
            put(pr, " ");
        }
        if (n > 1) {
            expr(pr, a[1]);
            put(pr, " ");
        }
        put(pr, "FROM ");
        expr(pr, a[0]);
        put(pr, ")");
        break;
    }
    case WEIR_SQL_CALL_POSITION:
        put(pr, "(");
        child(pr, a[0], PREC_ADD);
        put(pr, " IN ");
        expr(pr, a[1]);
        put(pr, ")");
        return;
    case WEIR_SQL_CALL_SUBSTRING:
    case WEIR_SQL_CALL_OVERLAY: {
        uint32_t i = 0;
        put(pr, "(");
        expr(pr, a[i++]);
        if (e->u.call.syntax == WEIR_SQL_CALL_OVERLAY) {
            put(pr, " PLACING ");
            expr(pr, a[i++]);
        }
        put(pr, " FROM ");
        expr(pr, a[i++]);
        if (i < n) {
            put(pr, " FOR ");
            expr(pr, a[i]);
        }
        put(pr, ")");
        return;
    }
    case WEIR_SQL_CALL_FLOOR_TO:
    case WEIR_SQL_CALL_CEIL_TO:
        put(pr, "(");
        expr(pr, a[0]);
        put(pr, " TO ");
        put(pr, weir__sql_unit_name(e->u.call.unit));
        put(pr, ")");
        break;
    case WEIR_SQL_CALL_UNIT_FIRST:
    case WEIR_SQL_CALL_PLAIN:
        put(pr, "(");
        if (e->u.call.syntax == WEIR_SQL_CALL_UNIT_FIRST) {
            put(pr, weir__sql_unit_name(e->u.call.unit));
            put(pr, ", ");
        }
        if (e->u.call.star) {
            put(pr, "*");
        } else {
            if (e->u.call.distinct)
                put(pr, "DISTINCT ");
            else if (e->u.call.all)
                put(pr, "ALL ");
            if (e->u.call.nulls && n) {
                expr(pr, a[0]);
                put(pr, e->u.call.nulls == 2 ? " IGNORE NULLS" : " RESPECT NULLS");
                if (n > 1) {
                    put(pr, ", ");
                    exprs(pr, a + 1, n - 1);
                }
            } else {
                exprs(pr, a, n);
            }
        }
        put(pr, ")");
        break;
    }
    if (e->u.call.filter) {
        put(pr, " FILTER (WHERE ");
        expr(pr, e->u.call.filter);
        put(pr, ")");
    }
    if (e->u.call.over) {
        put(pr, " OVER ");
        window(pr, e->u.call.over);
    }
}

static bool number_literal(const weir_sql_expr *e)
{
    return e->kind == WEIR_SQL_EXPR_LITERAL &&
           (e->u.lit.kind == WEIR_SQL_LIT_INTEGER || e->u.lit.kind == WEIR_SQL_LIT_DECIMAL ||
            e->u.lit.kind == WEIR_SQL_LIT_DOUBLE);
}

static void expr(printer *pr, const weir_sql_expr *e)
{
    switch (e->kind) {
    case WEIR_SQL_EXPR_LITERAL:
        literal(pr, &e->u.lit);
        break;
    case WEIR_SQL_EXPR_COLUMN:
        put_name(pr, &e->u.column);
        break;
    case WEIR_SQL_EXPR_STAR:
        if (e->u.star.qualifier.n_parts) {
            put_name(pr, &e->u.star.qualifier);
            put(pr, ".");
        }
        put(pr, "*");
        break;
    case WEIR_SQL_EXPR_UNARY: {
        const weir_sql_expr *o = e->u.unary.operand;
        if (e->u.unary.op == WEIR_SQL_OP_NOT) {
            put(pr, "NOT ");
            child(pr, o, PREC_NOT);
            break;
        }
        put(pr, e->u.unary.op == WEIR_SQL_OP_NEG ? "-" : "+");
        /* A space between signs, never "--" (a comment); no parentheses,
         * which would nest deeper than the input. */
        if (o->kind == WEIR_SQL_EXPR_UNARY && o->u.unary.op != WEIR_SQL_OP_NOT)
            put(pr, " ");
        child(pr, o, PREC_UNARY);
        break;
    }
    case WEIR_SQL_EXPR_BINARY: {
        int prec = weir__sql_expr_prec(e);
        child(pr, e->u.binary.left, prec);
        put(pr, " ");
        put(pr, weir__sql_binop_name(e->u.binary.op));
        put(pr, " ");
        child(pr, e->u.binary.right, prec + 1);
        break;
    }
    case WEIR_SQL_EXPR_IS: {
        static const char *const tests[] = {"NULL", "TRUE", "FALSE", "UNKNOWN",
                                            "DISTINCT FROM "};
        child(pr, e->u.is.operand, PREC_IS);
        put(pr, e->u.is.negated ? " IS NOT " : " IS ");
        put(pr, tests[e->u.is.test]);
        if (e->u.is.test == WEIR_SQL_IS_DISTINCT_FROM)
            child(pr, e->u.is.other, PREC_IS + 1);
        break;
    }
    case WEIR_SQL_EXPR_BETWEEN:
        child(pr, e->u.between.operand, PREC_LIKE);
        put(pr, e->u.between.negated ? " NOT BETWEEN " : " BETWEEN ");
        if (e->u.between.symmetric)
            put(pr, "SYMMETRIC ");
        child(pr, e->u.between.low, PREC_ADD);
        put(pr, " AND ");
        child(pr, e->u.between.high, PREC_ADD);
        break;
    case WEIR_SQL_EXPR_IN_LIST:
        child(pr, e->u.in_list.operand, PREC_LIKE);
        put(pr, e->u.in_list.negated ? " NOT IN (" : " IN (");
        exprs(pr, e->u.in_list.items, e->u.in_list.n_items);
        put(pr, ")");
        break;
    case WEIR_SQL_EXPR_IN_QUERY:
        child(pr, e->u.in_query.operand, PREC_LIKE);
        put(pr, e->u.in_query.negated ? " NOT IN (" : " IN (");
        query(pr, e->u.in_query.query);
        put(pr, ")");
        break;
    case WEIR_SQL_EXPR_LIKE:
        child(pr, e->u.like.operand, PREC_LIKE);
        put(pr, e->u.like.negated ? " NOT" : "");
        put(pr, e->u.like.similar ? " SIMILAR TO " : " LIKE ");
        child(pr, e->u.like.pattern, PREC_ADD);
        if (e->u.like.escape) {
            put(pr, " ESCAPE ");
            child(pr, e->u.like.escape, PREC_ADD);
        }
        break;
    case WEIR_SQL_EXPR_CASE:
        put(pr, "CASE");
        if (e->u.case_.operand) {
            put(pr, " ");
            expr(pr, e->u.case_.operand);
        }
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++) {
            put(pr, " WHEN ");
            expr(pr, e->u.case_.whens[i].when);
            put(pr, " THEN ");
            expr(pr, e->u.case_.whens[i].then);
        }
        if (e->u.case_.else_) {
            put(pr, " ELSE ");
            expr(pr, e->u.case_.else_);
        }
        put(pr, " END");
        break;
    case WEIR_SQL_EXPR_CAST:
        put(pr, e->u.cast.try_ ? "TRY_CAST(" : "CAST(");
        expr(pr, e->u.cast.operand);
        put(pr, " AS ");
        type(pr, e->u.cast.type);
        put(pr, ")");
        break;
    case WEIR_SQL_EXPR_EXTRACT:
        put(pr, "EXTRACT(");
        put(pr, weir__sql_unit_name(e->u.extract.unit));
        put(pr, " FROM ");
        expr(pr, e->u.extract.operand);
        put(pr, ")");
        break;
    case WEIR_SQL_EXPR_CALL:
        call(pr, e);
        break;
    case WEIR_SQL_EXPR_SUBQUERY:
    case WEIR_SQL_EXPR_EXISTS:
        put(pr, e->kind == WEIR_SQL_EXPR_EXISTS ? "EXISTS (" : "(");
        query(pr, e->u.subquery.query);
        put(pr, ")");
        break;
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP:
        put(pr, e->kind == WEIR_SQL_EXPR_ARRAY ? "ARRAY[" : "MAP[");
        exprs(pr, e->u.list.items, e->u.list.n_items);
        put(pr, "]");
        break;
    case WEIR_SQL_EXPR_ITEM:
        if (e->u.item.field && number_literal(e->u.item.operand)) {
            /* "1 .x" written "1.x" would read back as a bad number */
            put(pr, "(");
            expr(pr, e->u.item.operand);
            put(pr, ")");
        } else {
            child(pr, e->u.item.operand, PREC_POSTFIX);
        }
        if (e->u.item.field) {
            const weir_sql_literal *l = &e->u.item.index->u.lit;
            weir_sql_ident id = {.name = l->text, .len = l->len};
            put(pr, ".");
            put_ident(pr, &id);
            break;
        }
        put(pr, "[");
        expr(pr, e->u.item.index);
        put(pr, "]");
        break;
    case WEIR_SQL_EXPR_TABLE_ARG:
        put(pr, "TABLE ");
        put_name(pr, &e->u.table_arg.table);
        if (e->u.table_arg.n_partition_by == 1) {
            put(pr, " PARTITION BY ");
            child(pr, e->u.table_arg.partition_by[0], PREC_ADD);
        } else if (e->u.table_arg.n_partition_by > 1) {
            put(pr, " PARTITION BY (");
            exprs(pr, e->u.table_arg.partition_by,
                  e->u.table_arg.n_partition_by);
            put(pr, ")");
        }
        if (e->u.table_arg.n_order_by) {
            put(pr, " ORDER BY ");
            order_items(pr, e->u.table_arg.order_by, e->u.table_arg.n_order_by);
        }
        break;
    case WEIR_SQL_EXPR_DESCRIPTOR:
        put(pr, "DESCRIPTOR(");
        put_idents(pr, e->u.descriptor.columns, e->u.descriptor.n_columns);
        put(pr, ")");
        break;
    case WEIR_SQL_EXPR_NAMED_ARG: {
        const weir_sql_ident *id = &e->u.named_arg.name;
        if (is_word(id->name, id->len))
            putn(pr, id->name, id->len);
        else
            put_quoted(pr, id->name, id->len, '`');
        put(pr, " => ");
        expr(pr, e->u.named_arg.value);
        break;
    }
    case WEIR_SQL_EXPR_GROUPING_SETS: {
        /* ROLLUP(a, (b, c)): elements of one expression bare */
        bool sets = e->u.grouping_sets.op == WEIR_SQL_GROUPING_SETS;
        put(pr, sets ? "GROUPING SETS (" : e->u.grouping_sets.op == WEIR_SQL_GROUPING_ROLLUP ? "ROLLUP(" : "CUBE(");
        for (uint32_t i = 0; i < e->u.grouping_sets.n_sets; i++) {
            const weir_sql_expr_list *set = &e->u.grouping_sets.sets[i];
            bool bare = !sets && set->n_items == 1;
            if (i)
                put(pr, ", ");
            if (!bare)
                put(pr, "(");
            exprs(pr, set->items, set->n_items);
            if (!bare)
                put(pr, ")");
        }
        put(pr, ")");
        break;
    }
    }
}

static void bound(printer *pr, const weir_sql_bound *b)
{
    switch (b->kind) {
    case WEIR_SQL_BOUND_UNBOUNDED_PRECEDING:
        put(pr, "UNBOUNDED PRECEDING");
        break;
    case WEIR_SQL_BOUND_UNBOUNDED_FOLLOWING:
        put(pr, "UNBOUNDED FOLLOWING");
        break;
    case WEIR_SQL_BOUND_CURRENT_ROW:
        put(pr, "CURRENT ROW");
        break;
    case WEIR_SQL_BOUND_PRECEDING:
    case WEIR_SQL_BOUND_FOLLOWING:
        child(pr, b->offset, PREC_ADD);
        put(pr,
            b->kind == WEIR_SQL_BOUND_PRECEDING ? " PRECEDING" : " FOLLOWING");
        break;
    }
}

static void window(printer *pr, const weir_sql_window *w)
{
    if (w->ref_only) {
        put_ident(pr, w->ref);
        return;
    }
    const char *sep = "";
    put(pr, "(");
    if (w->ref) {
        put_ident(pr, w->ref);
        sep = " ";
    }
    if (w->n_partition_by) {
        put(pr, sep);
        put(pr, "PARTITION BY ");
        exprs(pr, w->partition_by, w->n_partition_by);
        sep = " ";
    }
    if (w->n_order_by) {
        put(pr, sep);
        put(pr, "ORDER BY ");
        order_items(pr, w->order_by, w->n_order_by);
        sep = " ";
    }
    if (w->frame) {
        put(pr, sep);
        put(pr, w->frame->rows ? "ROWS " : "RANGE ");
        if (w->frame->between) {
            put(pr, "BETWEEN ");
            bound(pr, &w->frame->start);
            put(pr, " AND ");
            bound(pr, &w->frame->end);
        } else {
            bound(pr, &w->frame->start);
        }
    }
    put(pr, ")");
}

/* ----------------------------------------------------------------- queries */

static void hints(printer *pr, const weir_sql_hint *h, uint32_t n)
{
    if (!n)
        return;
    put(pr, " /*+ ");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(pr, ", ");
        /* Hint names are never keywords to the hint parser. */
        if (is_word(h[i].name.name, h[i].name.len))
            putn(pr, h[i].name.name, h[i].name.len);
        else
            put_ident(pr, &h[i].name);
        if (h[i].n_options || h[i].n_args) {
            put(pr, "(");
            for (uint32_t k = 0; k < h[i].n_options; k++) {
                if (k)
                    put(pr, ", ");
                put_string(pr, h[i].options[k].key);
                put(pr, " = ");
                put_string(pr, h[i].options[k].value);
            }
            if (h[i].n_options && h[i].n_args)
                put(pr, ", ");
            exprs(pr, h[i].args, h[i].n_args);
            put(pr, ")");
        }
    }
    put(pr, " */");
}

static void table_ref(printer *pr, const weir_sql_table_ref *t);

static void alias(printer *pr, const weir_sql_table_ref *t)
{
    if (!t->alias)
        return;
    put(pr, " AS ");
    put_ident(pr, t->alias);
    if (t->n_column_aliases) {
        put(pr, "(");
        put_idents(pr, t->column_aliases, t->n_column_aliases);
        put(pr, ")");
    }
}

static void table_ref(printer *pr, const weir_sql_table_ref *t)
{
    switch (t->kind) {
    case WEIR_SQL_FROM_TABLE: {
        const weir_sql_name *nm = pr->rename ? pr->rename(pr->rename_ud, &t->u.table.name) : NULL;
        put_name(pr, nm ? nm : &t->u.table.name);
        hints(pr, t->u.table.hints, t->u.table.n_hints);
        if (t->u.table.system_time) {
            put(pr, " FOR SYSTEM_TIME AS OF ");
            expr(pr, t->u.table.system_time);
        }
        break;
    }
    case WEIR_SQL_FROM_SUBQUERY:
        put(pr, t->u.subquery.lateral ? "LATERAL (" : "(");
        query(pr, t->u.subquery.query);
        put(pr, ")");
        break;
    case WEIR_SQL_FROM_FUNCTION:
        put(pr, t->u.function.lateral ? "LATERAL TABLE(" : "TABLE(");
        expr(pr, t->u.function.call);
        put(pr, ")");
        break;
    case WEIR_SQL_FROM_UNNEST:
        put(pr, "UNNEST(");
        exprs(pr, t->u.unnest.args, t->u.unnest.n_args);
        put(pr, ")");
        if (t->u.unnest.with_ordinality)
            put(pr, " WITH ORDINALITY");
        break;
    case WEIR_SQL_FROM_MATCH:
        table_ref(pr, t->u.match.input);
        put(pr, " ");
        put(pr, t->u.match.mr->text);
        break;
    case WEIR_SQL_FROM_JOIN: {
        table_ref(pr, t->u.join.left);
        if (t->u.join.kind == WEIR_SQL_JOIN_COMMA) {
            put(pr, ", ");
        } else {
            put(pr, t->u.join.natural ? " NATURAL " : " ");
            put(pr, weir__sql_join_kind_name(t->u.join.kind));
            put(pr, " ");
        }
        const weir_sql_table_ref *r = t->u.join.right;
        if (r->kind == WEIR_SQL_FROM_JOIN) {
            put(pr, "(");
            table_ref(pr, r);
            put(pr, ")");
        } else {
            table_ref(pr, r);
        }
        if (t->u.join.on) {
            put(pr, " ON ");
            expr(pr, t->u.join.on);
        } else if (t->u.join.n_using) {
            put(pr, " USING (");
            put_idents(pr, t->u.join.using_, t->u.join.n_using);
            put(pr, ")");
        }
        return;
    }
    }
    alias(pr, t);
}

static void select_(printer *pr, const weir_sql_select *s)
{
    put(pr, "SELECT");
    hints(pr, s->hints, s->n_hints);
    put(pr, s->distinct ? " DISTINCT " : s->all ? " ALL " : " ");
    for (uint32_t i = 0; i < s->n_items; i++) {
        if (i)
            put(pr, ", ");
        expr(pr, s->items[i].expr);
        if (s->items[i].alias) {
            put(pr, " AS ");
            put_ident(pr, s->items[i].alias);
        }
    }
    if (s->from) {
        put(pr, " FROM ");
        table_ref(pr, s->from);
    }
    if (s->where) {
        put(pr, " WHERE ");
        expr(pr, s->where);
    }
    if (s->n_group_by) {
        put(pr, " GROUP BY ");
        exprs(pr, s->group_by, s->n_group_by);
    }
    if (s->having) {
        put(pr, " HAVING ");
        expr(pr, s->having);
    }
    for (uint32_t i = 0; i < s->n_windows; i++) {
        put(pr, i ? ", " : " WINDOW ");
        put_ident(pr, &s->windows[i].name);
        put(pr, " AS ");
        window(pr, s->windows[i].window);
    }
}

static int setop_prec(const weir_sql_query *q)
{
    return q->u.setop.op == WEIR_SQL_SETOP_INTERSECT ? 2 : 1;
}

static bool query_has_tail(const weir_sql_query *q)
{
    return q->n_with || q->n_order_by || q->limit || q->offset;
}

static void setop_operand(printer *pr, const weir_sql_query *parent,
                          const weir_sql_query *q, bool right)
{
    bool paren = query_has_tail(q);
    if (q->kind == WEIR_SQL_QUERY_SETOP) {
        int pp = setop_prec(parent), cp = setop_prec(q);
        if (cp < pp || (right && cp == pp))
            paren = true;
    }
    if (paren)
        put(pr, "(");
    query(pr, q);
    if (paren)
        put(pr, ")");
}

static void query(printer *pr, const weir_sql_query *q)
{
    if (q->n_with) {
        put(pr, "WITH ");
        for (uint32_t i = 0; i < q->n_with; i++) {
            if (i)
                put(pr, ", ");
            put_ident(pr, &q->with[i].name);
            if (q->with[i].n_columns) {
                put(pr, " (");
                put_idents(pr, q->with[i].columns, q->with[i].n_columns);
                put(pr, ")");
            }
            put(pr, " AS (");
            query(pr, q->with[i].query);
            put(pr, ")");
        }
        put(pr, " ");
    }
    switch (q->kind) {
    case WEIR_SQL_QUERY_SELECT:
        select_(pr, q->u.select);
        break;
    case WEIR_SQL_QUERY_SETOP: {
        static const char *const ops[] = {"UNION", "INTERSECT", "EXCEPT"};
        setop_operand(pr, q, q->u.setop.left, false);
        put(pr, " ");
        put(pr, ops[q->u.setop.op]);
        if (q->u.setop.all)
            put(pr, " ALL");
        else if (q->u.setop.distinct)
            put(pr, " DISTINCT");
        put(pr, " ");
        setop_operand(pr, q, q->u.setop.right, true);
        break;
    }
    case WEIR_SQL_QUERY_VALUES:
        put(pr, "VALUES ");
        for (uint32_t r = 0; r < q->u.values.n_rows; r++) {
            if (r)
                put(pr, ", ");
            put(pr, "(");
            exprs(pr, q->u.values.rows[r].items, q->u.values.rows[r].n_items);
            put(pr, ")");
        }
        break;
    }
    if (q->n_order_by) {
        put(pr, " ORDER BY ");
        order_items(pr, q->order_by, q->n_order_by);
    }
    if (q->limit) {
        put(pr, " LIMIT ");
        child(pr, q->limit, PREC_ADD);
    }
    if (q->offset) {
        put(pr, " OFFSET ");
        child(pr, q->offset, PREC_ADD);
    }
}

/* -------------------------------------------------------------- statements */

static void options(printer *pr, const weir_sql_option *o, uint32_t n)
{
    put(pr, "(");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(pr, ", ");
        put_string(pr, o[i].key);
        put(pr, " = ");
        put_string(pr, o[i].value);
    }
    put(pr, ")");
}

static void primary_key(printer *pr, const weir_sql_primary_key *pk)
{
    if (pk->constraint_name) {
        put(pr, "CONSTRAINT ");
        put_ident(pr, pk->constraint_name);
        put(pr, " ");
    }
    put(pr, "PRIMARY KEY");
    if (!pk->column_level) {
        put(pr, " (");
        put_idents(pr, pk->columns, pk->n_columns);
        put(pr, ")");
    }
    if (pk->enforcement == WEIR_SQL_NOT_ENFORCED)
        put(pr, " NOT ENFORCED");
    else if (pk->enforcement == WEIR_SQL_ENFORCED)
        put(pr, " ENFORCED");
}

/* The columns, watermark and primary key of a table's column list, or of
 * ALTER TABLE's ADD / MODIFY (positions: each column's FIRST / AFTER). */
static void table_elements(printer *pr, const weir_sql_create_table *ct,
                           const weir_sql_column_position *positions)
{
    const weir_sql_primary_key *pk = ct->primary_key;
        const char *sep = "";
        for (uint32_t i = 0; i < ct->n_columns; i++) {
            const weir_sql_column *c = &ct->columns[i];
            put(pr, sep);
            sep = ", ";
            put_ident(pr, &c->name);
            if (c->kind == WEIR_SQL_COLUMN_COMPUTED) {
                put(pr, " AS ");
                expr(pr, c->expr);
            } else {
                put(pr, " ");
                type(pr, c->type);
            }
            if (c->kind == WEIR_SQL_COLUMN_METADATA) {
                put(pr, " METADATA");
                if (c->metadata_key) {
                    put(pr, " FROM ");
                    put_string(pr, c->metadata_key);
                }
                if (c->is_virtual)
                    put(pr, " VIRTUAL");
            }
            if (pk && pk->column_level && pk->columns == &c->name) {
                put(pr, " ");
                primary_key(pr, pk);
            }
            if (c->comment) {
                put(pr, " COMMENT ");
                put_string(pr, c->comment);
            }
            if (positions && positions[i].first) {
                put(pr, " FIRST");
            } else if (positions && positions[i].after) {
                put(pr, " AFTER ");
                put_ident(pr, positions[i].after);
            }
        }
        if (ct->watermark) {
            put(pr, sep);
            sep = ", ";
            put(pr, "WATERMARK FOR ");
            put_name(pr, &ct->watermark->column);
            put(pr, " AS ");
            expr(pr, ct->watermark->expr);
        }
        if (pk && !pk->column_level) {
            put(pr, sep);
            primary_key(pr, pk);
        }
}

static void create_table(printer *pr, const weir_sql_create_table *ct)
{
    if (ct->replace)
        put(pr, "REPLACE TABLE ");
    else
        put(pr, ct->or_replace ? "CREATE OR REPLACE TABLE "
                : ct->temporary ? "CREATE TEMPORARY TABLE "
                                : "CREATE TABLE ");
    if (ct->if_not_exists)
        put(pr, "IF NOT EXISTS ");
    put_name(pr, &ct->name);
    if (ct->has_column_list) {
        put(pr, " (");
        table_elements(pr, ct, NULL);
        put(pr, ")");
    }
    if (ct->comment) {
        put(pr, " COMMENT ");
        put_string(pr, ct->comment);
    }
    if (ct->n_partitioned_by) {
        put(pr, " PARTITIONED BY (");
        put_idents(pr, ct->partitioned_by, ct->n_partitioned_by);
        put(pr, ")");
    }
    if (ct->n_options) {
        put(pr, " WITH ");
        options(pr, ct->options, ct->n_options);
    }
    if (ct->like) {
        static const char *const strat[] = {"INCLUDING", "EXCLUDING",
                                            "OVERWRITING"};
        static const char *const feat[] = {
            "ALL",     "CONSTRAINTS", "GENERATED", "METADATA",
            "OPTIONS", "PARTITIONS",  "WATERMARKS"};
        put(pr, " LIKE ");
        put_name(pr, &ct->like->source);
        if (ct->like->n_options) {
            put(pr, " (");
            for (uint32_t i = 0; i < ct->like->n_options; i++) {
                if (i)
                    put(pr, " ");
                put(pr, strat[ct->like->options[i].strategy]);
                put(pr, " ");
                put(pr, feat[ct->like->options[i].feature]);
            }
            put(pr, ")");
        }
    }
    if (ct->as_query) {
        put(pr, " AS ");
        query(pr, ct->as_query);
    }
}

static void alter(printer *pr, const weir_sql_alter *a)
{
    put(pr, a->object == WEIR_SQL_OBJECT_VIEW       ? "ALTER VIEW "
            : a->object == WEIR_SQL_OBJECT_DATABASE ? "ALTER DATABASE "
            : a->object == WEIR_SQL_OBJECT_CATALOG  ? "ALTER CATALOG "
                                                    : "ALTER TABLE ");
    if (a->if_exists)
        put(pr, "IF EXISTS ");
    put_name(pr, &a->name);
    switch (a->action) {
    case WEIR_SQL_ALTER_RENAME:
        put(pr, " RENAME TO ");
        put_name(pr, &a->new_name);
        break;
    case WEIR_SQL_ALTER_RENAME_COLUMN:
        put(pr, " RENAME ");
        put_ident(pr, &a->column);
        put(pr, " TO ");
        put_ident(pr, &a->new_column);
        break;
    case WEIR_SQL_ALTER_SET:
        put(pr, " SET ");
        options(pr, a->options, a->n_options);
        break;
    case WEIR_SQL_ALTER_RESET:
        put(pr, " RESET (");
        for (uint32_t i = 0; i < a->n_keys; i++) {
            if (i)
                put(pr, ", ");
            put_string(pr, a->keys[i]);
        }
        put(pr, ")");
        break;
    case WEIR_SQL_ALTER_ADD:
    case WEIR_SQL_ALTER_MODIFY:
        put(pr, a->action == WEIR_SQL_ALTER_ADD ? " ADD " : " MODIFY ");
        put(pr, a->parenthesized ? "(" : "");
        table_elements(pr, a->schema, a->positions);
        put(pr, a->parenthesized ? ")" : "");
        break;
    case WEIR_SQL_ALTER_DROP_COLUMNS:
        put(pr, " DROP (");
        put_idents(pr, a->drop_columns, a->n_drop_columns);
        put(pr, ")");
        break;
    case WEIR_SQL_ALTER_DROP_PRIMARY_KEY:
        if (a->constraint) {
            put(pr, " DROP CONSTRAINT ");
            put_ident(pr, a->constraint);
        } else {
            put(pr, " DROP PRIMARY KEY");
        }
        break;
    case WEIR_SQL_ALTER_DROP_WATERMARK:
        put(pr, " DROP WATERMARK");
        break;
    case WEIR_SQL_ALTER_AS:
        put(pr, " AS ");
        query(pr, a->query);
        break;
    }
}

static void stmt(printer *pr, const weir_sql_stmt *st, bool in_explain);

static void insert(printer *pr, const weir_sql_insert *ins)
{
    if (ins->execute)
        put(pr, "EXECUTE ");
    put(pr, ins->overwrite ? "INSERT OVERWRITE " : "INSERT INTO ");
    put_name(pr, &ins->table);
    hints(pr, ins->hints, ins->n_hints);
    if (ins->n_partition) {
        put(pr, " PARTITION (");
        for (uint32_t i = 0; i < ins->n_partition; i++) {
            if (i)
                put(pr, ", ");
            put_ident(pr, &ins->partition[i].column);
            put(pr, " = ");
            child(pr, ins->partition[i].value, PREC_ADD);
        }
        put(pr, ")");
    }
    if (ins->n_columns) {
        put(pr, " (");
        put_idents(pr, ins->columns, ins->n_columns);
        put(pr, ")");
    }
    put(pr, " ");
    query(pr, ins->query);
}

static void stmt(printer *pr, const weir_sql_stmt *st, bool in_explain)
{
    switch (st->kind) {
    case WEIR_SQL_STMT_CREATE_TABLE:
        create_table(pr, &st->u.create_table);
        break;
    case WEIR_SQL_STMT_CREATE_VIEW: {
        const weir_sql_create_view *cv = &st->u.create_view;
        put(pr, cv->temporary ? "CREATE TEMPORARY VIEW " : "CREATE VIEW ");
        if (cv->if_not_exists)
            put(pr, "IF NOT EXISTS ");
        put_name(pr, &cv->name);
        if (cv->n_columns) {
            put(pr, " (");
            put_idents(pr, cv->columns, cv->n_columns);
            put(pr, ")");
        }
        if (cv->comment) {
            put(pr, " COMMENT ");
            put_string(pr, cv->comment);
        }
        put(pr, " AS ");
        query(pr, cv->query);
        break;
    }
    case WEIR_SQL_STMT_CREATE_FUNCTION: {
        const weir_sql_create_function *cf = &st->u.create_function;
        put(pr, "CREATE ");
        if (cf->temporary)
            put(pr, cf->system ? "TEMPORARY SYSTEM " : "TEMPORARY ");
        put(pr, "FUNCTION ");
        if (cf->if_not_exists)
            put(pr, "IF NOT EXISTS ");
        put_name(pr, &cf->name);
        put(pr, " AS ");
        put_string(pr, cf->class_name);
        if (cf->language) {
            put(pr, " LANGUAGE ");
            put_ident(pr, cf->language);
        }
        for (uint32_t i = 0; i < cf->n_jars; i++) {
            put(pr, i ? ", JAR " : " USING JAR ");
            put_string(pr, cf->jars[i]);
        }
        break;
    }
    case WEIR_SQL_STMT_DROP: {
        static const char *const objs[] = {"TABLE ", "VIEW ", "FUNCTION ",
                                           "DATABASE ", "CATALOG "};
        const weir_sql_drop *d = &st->u.drop;
        put(pr, "DROP ");
        if (d->temporary)
            put(pr, d->system ? "TEMPORARY SYSTEM " : "TEMPORARY ");
        put(pr, objs[d->object]);
        if (d->if_exists)
            put(pr, "IF EXISTS ");
        put_name(pr, &d->name);
        if (d->cascade)
            put(pr, " CASCADE");
        break;
    }
    case WEIR_SQL_STMT_CREATE_CATALOG:
    case WEIR_SQL_STMT_CREATE_DATABASE: {
        const weir_sql_create_space *cs = &st->u.create_catalog;
        put(pr, st->kind == WEIR_SQL_STMT_CREATE_CATALOG ? "CREATE CATALOG " : "CREATE DATABASE ");
        if (cs->if_not_exists)
            put(pr, "IF NOT EXISTS ");
        put_name(pr, &cs->name);
        if (cs->comment) {
            put(pr, " COMMENT ");
            put_string(pr, cs->comment);
        }
        if (cs->n_options) {
            put(pr, " WITH ");
            options(pr, cs->options, cs->n_options);
        }
        break;
    }
    case WEIR_SQL_STMT_INSERT:
        insert(pr, &st->u.insert);
        break;
    case WEIR_SQL_STMT_STATEMENT_SET: {
        const weir_sql_statement_set *s = &st->u.statement_set;
        if (in_explain)
            put(pr, "STATEMENT SET BEGIN ");
        else
            put(pr, s->execute_form ? "EXECUTE STATEMENT SET BEGIN "
                                    : "BEGIN STATEMENT SET; ");
        for (uint32_t i = 0; i < s->n_inserts; i++) {
            stmt(pr, s->inserts[i], false);
            put(pr, "; ");
        }
        put(pr, "END");
        break;
    }
    case WEIR_SQL_STMT_SET:
        put(pr, "SET");
        if (st->u.set.key) {
            put(pr, " ");
            put_string(pr, st->u.set.key);
            put(pr, " = ");
            put_string(pr, st->u.set.value);
        }
        break;
    case WEIR_SQL_STMT_RESET:
        put(pr, "RESET");
        if (st->u.reset.key) {
            put(pr, " ");
            put_string(pr, st->u.reset.key);
        }
        break;
    case WEIR_SQL_STMT_EXPLAIN: {
        const weir_sql_explain *ex = &st->u.explain;
        put(pr, "EXPLAIN ");
        if (ex->plan_for)
            put(pr, "PLAN FOR ");
        for (uint32_t i = 0; i < ex->n_details; i++) {
            if (i)
                put(pr, ", ");
            putn(pr, ex->details[i].name, ex->details[i].len);
        }
        if (ex->n_details)
            put(pr, " ");
        stmt(pr, ex->stmt, true);
        break;
    }
    case WEIR_SQL_STMT_QUERY:
        query(pr, st->u.query.query);
        break;
    case WEIR_SQL_STMT_SHOW: {
        static const char *const what[] = {
            "SHOW TABLES",      "SHOW VIEWS",    "SHOW FUNCTIONS",
            "SHOW DATABASES",   "SHOW CATALOGS", "SHOW CREATE TABLE ",
            "SHOW CREATE VIEW ", "SHOW CURRENT CATALOG",
            "SHOW CURRENT DATABASE", "SHOW COLUMNS FROM ",
            "SHOW CREATE CATALOG ", "SHOW JOBS"};
        if (st->u.show.user)
            put(pr, "SHOW USER FUNCTIONS");
        else
            put(pr, what[st->u.show.what]);
        if (st->u.show.what == WEIR_SQL_SHOW_CREATE_TABLE ||
            st->u.show.what == WEIR_SQL_SHOW_CREATE_VIEW ||
            st->u.show.what == WEIR_SQL_SHOW_CREATE_CATALOG ||
            st->u.show.what == WEIR_SQL_SHOW_COLUMNS)
            put_name(pr, &st->u.show.name);
        if (st->u.show.from.n_parts) {
            put(pr, " FROM ");
            put_name(pr, &st->u.show.from);
        }
        if (st->u.show.like) {
            put(pr, st->u.show.not_like ? " NOT" : "");
            put(pr, st->u.show.ilike ? " ILIKE " : " LIKE ");
            put_string(pr, st->u.show.like);
        }
        break;
    }
    case WEIR_SQL_STMT_DESCRIBE:
        put(pr, st->u.describe.extended ? "DESCRIBE EXTENDED " : "DESCRIBE ");
        put_name(pr, &st->u.describe.name);
        break;
    case WEIR_SQL_STMT_USE:
        put(pr, st->u.use.catalog ? "USE CATALOG " : "USE ");
        put_name(pr, &st->u.use.name);
        break;
    case WEIR_SQL_STMT_ALTER:
        alter(pr, &st->u.alter);
        break;
    case WEIR_SQL_STMT_STOP_JOB:
        put(pr, "STOP JOB ");
        put_string(pr, st->u.stop_job.job);
        put(pr, st->u.stop_job.savepoint ? " WITH SAVEPOINT" : "");
        put(pr, st->u.stop_job.drain ? " WITH DRAIN" : "");
        break;
    }
}

/* ------------------------------------------------------- SHOW CREATE */

static void put_path(printer *pr, const char *const path[3])
{
    for (int i = 0; i < 3; i++) {
        if (i)
            put(pr, ".");
        put_quoted(pr, path[i], strlen(path[i]), '`');
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool pk_has(const weir_sql_primary_key *pk, const weir_sql_ident *c)
{
    for (uint32_t i = 0; pk && i < pk->n_columns; i++)
        if (pk->columns[i].len == c->len && !memcmp(pk->columns[i].name, c->name, c->len))
            return true;
    return false;
}

int weir__sql_format_show_create_table(const weir_sql_create_table *ct, const char *const path[3], weir_buf *out)
{
    printer pr = {out, 0, NULL, NULL, true};
    put(&pr, ct->temporary ? "CREATE TEMPORARY TABLE " : "CREATE TABLE ");
    put_path(&pr, path);
    put(&pr, " (\n");
    const weir_sql_primary_key *pk = ct->primary_key;
    const char *sep = "";
    for (uint32_t i = 0; i < ct->n_columns; i++) {
        const weir_sql_column *c = &ct->columns[i];
        put(&pr, sep);
        sep = ",\n";
        put(&pr, "  ");
        put_ident(&pr, &c->name);
        if (c->kind == WEIR_SQL_COLUMN_COMPUTED) {
            put(&pr, " AS ");
            expr(&pr, c->expr);
        } else {
            put(&pr, " ");
            weir_sql_type ty = *c->type;
            ty.not_null |= pk_has(pk, &c->name); /* a primary key's columns are NOT NULL */
            type(&pr, &ty);
        }
        if (c->kind == WEIR_SQL_COLUMN_METADATA) {
            put(&pr, " METADATA");
            if (c->metadata_key) {
                put(&pr, " FROM ");
                put_string(&pr, c->metadata_key);
            }
            if (c->is_virtual)
                put(&pr, " VIRTUAL");
        }
        if (c->comment && *c->comment) {
            put(&pr, " COMMENT ");
            put_string(&pr, c->comment);
        }
    }
    if (ct->watermark) {
        put(&pr, sep);
        put(&pr, "  WATERMARK FOR ");
        put_name(&pr, &ct->watermark->column);
        put(&pr, " AS ");
        expr(&pr, ct->watermark->expr);
    }
    if (pk) {
        put(&pr, sep);
        put(&pr, "  CONSTRAINT ");
        if (pk->constraint_name) {
            put_ident(&pr, pk->constraint_name);
        } else { /* the name Flink gives an unnamed key: PK_ and the columns joined by _ */
            put(&pr, "`PK");
            for (uint32_t i = 0; i < pk->n_columns; i++) {
                put(&pr, "_");
                weir_buf b;
                weir_buf_init(&b);
                printer inner = {&b, 0, NULL, NULL, false};
                put_quoted(&inner, pk->columns[i].name, pk->columns[i].len, '`');
                if (!inner.rc && b.len >= 2)
                    putn(&pr, (const char *)b.data + 1, b.len - 2);
                pr.rc = pr.rc ? pr.rc : inner.rc;
                weir_buf_fini(&b);
            }
            put(&pr, "`");
        }
        put(&pr, " PRIMARY KEY (");
        put_idents(&pr, pk->columns, pk->n_columns);
        put(&pr, ") NOT ENFORCED");
    }
    put(&pr, "\n)\n");
    if (ct->comment && *ct->comment) {
        put(&pr, "COMMENT ");
        put_string(&pr, ct->comment);
        put(&pr, "\n");
    }
    if (ct->n_partitioned_by) {
        put(&pr, "PARTITIONED BY (");
        put_idents(&pr, ct->partitioned_by, ct->n_partitioned_by);
        put(&pr, ")\n");
    }
    if (ct->n_options && !pr.rc) {
        /* one per line, sorted by their text, as Flink prints them */
        char **lines = weir_calloc(ct->n_options, sizeof *lines);
        weir_buf *bufs = weir_calloc(ct->n_options, sizeof *bufs);
        if (!lines || !bufs) {
            weir_free(lines);
            weir_free(bufs);
            return WEIR_ENOMEM;
        }
        for (uint32_t i = 0; i < ct->n_options; i++) {
            weir_buf_init(&bufs[i]);
            printer line = {&bufs[i], 0, NULL, NULL, true};
            put(&line, "  ");
            put_string(&line, ct->options[i].key);
            put(&line, " = ");
            put_string(&line, ct->options[i].value);
            putn(&line, "", 1);
            pr.rc = pr.rc ? pr.rc : line.rc;
            lines[i] = (char *)bufs[i].data;
        }
        if (!pr.rc) {
            if (ct->n_options > 1)
                qsort(lines, ct->n_options, sizeof *lines, cmp_str);
            put(&pr, "WITH (\n");
            for (uint32_t i = 0; i < ct->n_options; i++) {
                put(&pr, lines[i]);
                put(&pr, i + 1 < ct->n_options ? ",\n" : "\n");
            }
            put(&pr, ")\n");
        }
        for (uint32_t i = 0; i < ct->n_options; i++)
            weir_buf_fini(&bufs[i]);
        weir_free(bufs);
        weir_free(lines);
    }
    return pr.rc;
}

int weir__sql_format_show_create_view(const char *const path[3], bool temporary, const char *const *columns,
                                      uint32_t n_columns, const char *comment, const weir_sql_query *q,
                                      weir__sql_rename_fn rename, void *ud, weir_buf *out)
{
    printer pr = {out, 0, rename, ud, true};
    put(&pr, temporary ? "CREATE TEMPORARY VIEW " : "CREATE VIEW ");
    put_path(&pr, path);
    /* no columns: not known (a table the query reads has options its
     * connector refuses, which only the view's use reports) */
    put(&pr, n_columns ? " (\n" : "\n");
    for (uint32_t i = 0; i < n_columns; i++) {
        put(&pr, "  ");
        put_quoted(&pr, columns[i], strlen(columns[i]), '`');
        put(&pr, i + 1 < n_columns ? ",\n" : "\n");
    }
    if (n_columns)
        put(&pr, ")\n");
    if (comment && *comment) {
        put(&pr, "COMMENT ");
        put_string(&pr, comment);
        put(&pr, "\n");
    }
    put(&pr, "AS ");
    query(&pr, q);
    put(&pr, "\n");
    return pr.rc;
}

int weir_sql_format_stmt(const weir_sql_stmt *st, weir_buf *out)
{
    if (!st || !out)
        return WEIR_EINVAL;
    printer pr = {out, 0, NULL, NULL, false};
    stmt(&pr, st, false);
    return pr.rc;
}

int weir__sql_format_stmt_renamed(const weir_sql_stmt *st, weir_buf *out, weir__sql_rename_fn rename, void *ud)
{
    if (!st || !out)
        return WEIR_EINVAL;
    printer pr = {out, 0, rename, ud, false};
    stmt(&pr, st, false);
    return pr.rc;
}

int weir_sql_format_script(const weir_sql_script *s, weir_buf *out)
{
    if (!s || !out)
        return WEIR_EINVAL;
    printer pr = {out, 0, NULL, NULL, false};
    for (uint32_t i = 0; i < s->n_stmts; i++) {
        stmt(&pr, s->stmts[i], false);
        put(&pr, ";\n");
    }
    return pr.rc;
}

int weir__sql_format_expr(const weir_sql_expr *e, weir_buf *out)
{
    printer pr = {out, 0, NULL, NULL, false};
    expr(&pr, e);
    return pr.rc;
}

int weir__sql_format_query(const weir_sql_query *q, weir_buf *out)
{
    printer pr = {out, 0, NULL, NULL, false};
    query(&pr, q);
    return pr.rc;
}

int weir__sql_format_type(const weir_sql_type *t, weir_buf *out)
{
    printer pr = {out, 0, NULL, NULL, false};
    type(&pr, t);
    return pr.rc;
}
