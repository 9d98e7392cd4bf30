/*
 * sql/parse_expr.c - expressions, data types and literals.
 *
 * Expressions use precedence climbing over the levels in
 * parser_internal.h (lowest first): OR, AND, NOT, IS, comparison,
 * BETWEEN/IN/LIKE/SIMILAR, + -, * / % ||, unary - +, subscript. This follows
 * Calcite (and so Flink): IS binds more loosely than '=', || as tightly as
 * '*'. Binary operators are left-associative. BETWEEN bounds, LIKE
 * patterns and ESCAPE are parsed at the additive level, so
 * `a BETWEEN b AND c AND d` is `(a BETWEEN b AND c) AND d`.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sql/parser_internal.h"

static weir_sql_expr *new_expr(parser *p, weir_sql_expr_kind kind,
                               weir_sql_loc loc)
{
    weir_sql_expr *e = PNEW(p, weir_sql_expr);
    e->kind = kind;
    e->loc = loc;
    e->height = 1;
    return e;
}

static uint32_t hmax(uint32_t h, const weir_sql_expr *e)
{
    return e && e->height > h ? e->height : h;
}

static uint32_t hmax_list(uint32_t h, weir_sql_expr *const *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        h = hmax(h, v[i]);
    return h;
}

uint32_t window_height(const weir_sql_window *w)
{
    uint32_t h = 0;
    if (!w)
        return 0;
    h = hmax_list(h, w->partition_by, w->n_partition_by);
    for (uint32_t i = 0; i < w->n_order_by; i++)
        h = hmax(h, w->order_by[i].expr);
    if (w->frame) {
        h = hmax(h, w->frame->start.offset);
        h = hmax(h, w->frame->end.offset);
    }
    return h + 1;
}

/* 1 + the tallest child, from the children's stored heights. */
uint32_t expr_height(const weir_sql_expr *e)
{
    uint32_t h = 0;
    switch (e->kind) {
    case WEIR_SQL_EXPR_LITERAL:
    case WEIR_SQL_EXPR_COLUMN:
    case WEIR_SQL_EXPR_STAR:
    case WEIR_SQL_EXPR_DESCRIPTOR:
        break;
    case WEIR_SQL_EXPR_UNARY:
        h = hmax(h, e->u.unary.operand);
        break;
    case WEIR_SQL_EXPR_BINARY:
        h = hmax(hmax(h, e->u.binary.left), e->u.binary.right);
        break;
    case WEIR_SQL_EXPR_IS:
        h = hmax(hmax(h, e->u.is.operand), e->u.is.other);
        break;
    case WEIR_SQL_EXPR_BETWEEN:
        h = hmax(hmax(hmax(h, e->u.between.operand), e->u.between.low),
                 e->u.between.high);
        break;
    case WEIR_SQL_EXPR_IN_LIST:
        h = hmax(h, e->u.in_list.operand);
        h = hmax_list(h, e->u.in_list.items, e->u.in_list.n_items);
        break;
    case WEIR_SQL_EXPR_IN_QUERY:
        h = hmax(h, e->u.in_query.operand);
        if (e->u.in_query.query->height > h)
            h = e->u.in_query.query->height;
        break;
    case WEIR_SQL_EXPR_LIKE:
        h = hmax(hmax(hmax(h, e->u.like.operand), e->u.like.pattern),
                 e->u.like.escape);
        break;
    case WEIR_SQL_EXPR_CASE:
        h = hmax(hmax(h, e->u.case_.operand), e->u.case_.else_);
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++)
            h = hmax(hmax(h, e->u.case_.whens[i].when),
                     e->u.case_.whens[i].then);
        break;
    case WEIR_SQL_EXPR_CAST:
        h = hmax(h, e->u.cast.operand);
        break;
    case WEIR_SQL_EXPR_EXTRACT:
        h = hmax(h, e->u.extract.operand);
        break;
    case WEIR_SQL_EXPR_CALL: {
        h = hmax_list(h, e->u.call.args, e->u.call.n_args);
        h = hmax(h, e->u.call.filter);
        uint32_t wh = window_height(e->u.call.over);
        if (wh > h)
            h = wh;
        break;
    }
    case WEIR_SQL_EXPR_SUBQUERY:
    case WEIR_SQL_EXPR_EXISTS:
        h = e->u.subquery.query->height;
        break;
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP:
        h = hmax_list(h, e->u.list.items, e->u.list.n_items);
        break;
    case WEIR_SQL_EXPR_ITEM:
        h = hmax(hmax(h, e->u.item.operand), e->u.item.index);
        break;
    case WEIR_SQL_EXPR_TABLE_ARG:
        h = hmax_list(h, e->u.table_arg.partition_by,
                      e->u.table_arg.n_partition_by);
        for (uint32_t i = 0; i < e->u.table_arg.n_order_by; i++)
            h = hmax(h, e->u.table_arg.order_by[i].expr);
        break;
    case WEIR_SQL_EXPR_NAMED_ARG:
        h = hmax(h, e->u.named_arg.value);
        break;
    case WEIR_SQL_EXPR_GROUPING_SETS:
        for (uint32_t i = 0; i < e->u.grouping_sets.n_sets; i++)
            h = hmax_list(h, e->u.grouping_sets.sets[i].items,
                          e->u.grouping_sets.sets[i].n_items);
        break;
    }
    return h + 1;
}

/* Sets end and height once all children are parsed. */
static weir_sql_expr *finish(parser *p, weir_sql_expr *e)
{
    e->end = prev_end(p);
    e->height = expr_height(e);
    parser_check_height(p, e->height, e->loc);
    return e;
}

int weir__sql_expr_prec(const weir_sql_expr *e)
{
    switch (e->kind) {
    case WEIR_SQL_EXPR_UNARY:
        return e->u.unary.op == WEIR_SQL_OP_NOT ? PREC_NOT : PREC_UNARY;
    case WEIR_SQL_EXPR_BINARY:
        switch (e->u.binary.op) {
        case WEIR_SQL_OP_OR:
            return PREC_OR;
        case WEIR_SQL_OP_AND:
            return PREC_AND;
        case WEIR_SQL_OP_EQ:
        case WEIR_SQL_OP_NE:
        case WEIR_SQL_OP_LT:
        case WEIR_SQL_OP_LE:
        case WEIR_SQL_OP_GT:
        case WEIR_SQL_OP_GE:
            return PREC_CMP;
        case WEIR_SQL_OP_ADD:
        case WEIR_SQL_OP_SUB:
            return PREC_ADD;
        default:
            return PREC_MUL;
        }
    case WEIR_SQL_EXPR_IS:
        return PREC_IS;
    case WEIR_SQL_EXPR_BETWEEN:
    case WEIR_SQL_EXPR_IN_LIST:
    case WEIR_SQL_EXPR_IN_QUERY:
    case WEIR_SQL_EXPR_LIKE:
        return PREC_LIKE;
    case WEIR_SQL_EXPR_ITEM:
        return PREC_POSTFIX;
    case WEIR_SQL_EXPR_NAMED_ARG:
    case WEIR_SQL_EXPR_TABLE_ARG:
    case WEIR_SQL_EXPR_GROUPING_SETS:
        return PREC_MIN;
    default:
        return PREC_PRIMARY;
    }
}

weir_sql_time_unit kw_time_unit(weir__sql_kw kw)
{
    switch (kw) {
    case WEIR__SQL_KW_YEAR:
    case WEIR__SQL_KW_YEARS:
        return WEIR_SQL_UNIT_YEAR;
    case WEIR__SQL_KW_QUARTER:
        return WEIR_SQL_UNIT_QUARTER;
    case WEIR__SQL_KW_MONTH:
    case WEIR__SQL_KW_MONTHS:
        return WEIR_SQL_UNIT_MONTH;
    case WEIR__SQL_KW_WEEK:
        return WEIR_SQL_UNIT_WEEK;
    case WEIR__SQL_KW_DAY:
    case WEIR__SQL_KW_DAYS:
        return WEIR_SQL_UNIT_DAY;
    case WEIR__SQL_KW_HOUR:
    case WEIR__SQL_KW_HOURS:
        return WEIR_SQL_UNIT_HOUR;
    case WEIR__SQL_KW_MINUTE:
    case WEIR__SQL_KW_MINUTES:
        return WEIR_SQL_UNIT_MINUTE;
    case WEIR__SQL_KW_SECOND:
    case WEIR__SQL_KW_SECONDS:
        return WEIR_SQL_UNIT_SECOND;
    case WEIR__SQL_KW_MILLISECOND:
    case WEIR__SQL_KW_MILLISECONDS:
        return WEIR_SQL_UNIT_MILLISECOND;
    case WEIR__SQL_KW_MICROSECOND:
    case WEIR__SQL_KW_MICROSECONDS:
        return WEIR_SQL_UNIT_MICROSECOND;
    case WEIR__SQL_KW_NANOSECOND:
        return WEIR_SQL_UNIT_NANOSECOND;
    case WEIR__SQL_KW_DOW:
        return WEIR_SQL_UNIT_DOW;
    case WEIR__SQL_KW_DOY:
        return WEIR_SQL_UNIT_DOY;
    case WEIR__SQL_KW_ISODOW:
        return WEIR_SQL_UNIT_ISODOW;
    case WEIR__SQL_KW_ISOYEAR:
        return WEIR_SQL_UNIT_ISOYEAR;
    case WEIR__SQL_KW_EPOCH:
        return WEIR_SQL_UNIT_EPOCH;
    case WEIR__SQL_KW_DECADE:
        return WEIR_SQL_UNIT_DECADE;
    case WEIR__SQL_KW_CENTURY:
        return WEIR_SQL_UNIT_CENTURY;
    case WEIR__SQL_KW_MILLENNIUM:
        return WEIR_SQL_UNIT_MILLENNIUM;
    default:
        return WEIR_SQL_UNIT_NONE;
    }
}

static const char unit_words[] =
    "YEAR QUARTER MONTH WEEK DAY HOUR MINUTE SECOND MILLISECOND MICROSECOND "
    "NANOSECOND DOW DOY ISODOW ISOYEAR EPOCH DECADE CENTURY MILLENNIUM";

/* Any time unit (EXTRACT, FLOOR ... TO); fails with `what`. */
static weir_sql_time_unit parse_time_unit(parser *p, const char *what,
                                          weir_sql_loc *loc)
{
    const token *t = cur(p);
    weir_sql_time_unit u = t->type == WEIR__SQL_TK_IDENT ? kw_time_unit(t->kw)
                                                         : WEIR_SQL_UNIT_NONE;
    if (u == WEIR_SQL_UNIT_NONE)
        parser_expected_hint(p, what, unit_words);
    if (loc)
        *loc = t->loc;
    parser_advance(p);
    return u;
}

/* ------------------------------------------------------------------ types */

static int32_t parse_type_int(parser *p, const char *what)
{
    const token *t = cur(p);
    if (t->type != WEIR__SQL_TK_INTEGER)
        parser_expected(p, what);
    int64_t v = 0;
    for (uint32_t i = 0; i < t->len; i++) {
        v = v * 10 + (p->src[t->loc.offset + i] - '0');
        if (v > INT32_MAX)
            parser_fail_at(p, t->loc, "%s is too large (at most %d)", what,
                           INT32_MAX);
    }
    parser_advance(p);
    return (int32_t)v;
}

/* Optional '(' n ')' */
static void parse_type_length(parser *p, weir_sql_type *ty, const char *what)
{
    if (accept_tk(p, WEIR__SQL_TK_LPAREN)) {
        ty->precision = parse_type_int(p, what);
        expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    }
}

static const char type_words[] =
    "BOOLEAN TINYINT SMALLINT INT INTEGER BIGINT FLOAT REAL DOUBLE DECIMAL "
    "NUMERIC CHAR VARCHAR STRING BINARY VARBINARY BYTES DATE TIME TIMESTAMP "
    "TIMESTAMP_LTZ ARRAY MULTISET MAP ROW";

/* Type names from other systems, and what Flink SQL calls them. */
static const struct {
    const char *name;
    const char *flink;
} type_aliases[] = {
    {"LONG", "BIGINT"},           {"INT64", "BIGINT"},   {"INT32", "INT"},
    {"SHORT", "SMALLINT"},        {"BYTE", "TINYINT"},   {"BOOL", "BOOLEAN"},
    {"TEXT", "STRING"},           {"NUMBER", "DECIMAL"}, {"BLOB", "BYTES"},
    {"DATETIME", "TIMESTAMP(3)"}, {"JSON", "STRING"},    {"UUID", "STRING"},
};

static _Noreturn void fail_type(parser *p)
{
    const token *t = cur(p);
    if (t->type == WEIR__SQL_TK_IDENT && !t->kw) {
        for (size_t i = 0; i < sizeof type_aliases / sizeof *type_aliases;
             i++) {
            const char *n = type_aliases[i].name;
            if (strlen(n) == t->len &&
                strncasecmp(n, p->src + t->loc.offset, t->len) == 0) {
                char what[96];
                snprintf(what, sizeof what,
                         "a data type (Flink SQL spells %s as %s)", n,
                         type_aliases[i].flink);
                parser_expected_hint(p, what, "");
            }
        }
    }
    parser_expected_hint(p, "a data type", type_words);
}

static void parse_row_fields(parser *p, weir_sql_type *ty, weir__sql_tk close,
                             const char *close_what)
{
    vec v = {0};
    if (!is_tk(p, close)) {
        do {
            weir_sql_row_field *f = vec_push(p, &v, sizeof *f);
            f->name = parse_ident(p, "a field name");
            f->type = parse_type(p);
            if (is_tk(p, WEIR__SQL_TK_STRING)) {
                f->comment = cur(p)->str;
                parser_advance(p);
            }
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    }
    expect_tk(p, close, close_what);
    ty->fields = v.data;
    ty->n_fields = v.n;
}

/* [NOT] NULL after a type; a NULL followed by ON is JSON_VALUE's
 * `RETURNING INT NULL ON EMPTY`, not the type's. */
static void parse_nullability(parser *p, weir_sql_type *ty)
{
    if (is_kw(p, WEIR__SQL_KW_NOT) && peek_is_kw(p, 1, WEIR__SQL_KW_NULL)) {
        parser_advance(p);
        parser_advance(p);
        ty->not_null = true;
    } else if (is_kw(p, WEIR__SQL_KW_NULL) && !next_word_is(p, 1, "ON")) {
        parser_advance(p);
        ty->not_null = false;
    }
}

static weir_sql_type *new_type(parser *p, weir_sql_type_kind k,
                               weir_sql_loc loc)
{
    weir_sql_type *ty = PNEW(p, weir_sql_type);
    ty->kind = k;
    ty->loc = loc;
    ty->precision = -1;
    ty->scale = -1;
    return ty;
}

static weir_sql_time_unit parse_interval_unit(parser *p, int32_t *precision);

static bool valid_qualifier(weir_sql_time_unit from, weir_sql_time_unit to);

/*
 * The qualifier of an INTERVAL type: any of SQL's (YEAR[(p)] [TO MONTH],
 * MONTH; DAY[(p)] [TO HOUR|MINUTE|SECOND[(f)]], HOUR [TO MINUTE|SECOND[(f)]],
 * MINUTE [TO SECOND[(f)]], SECOND[(p[, f])]). As Flink, every year-month
 * qualifier is one type held in months (kind 2), every day-time one a type
 * held in milliseconds (kind 1); the resolution is not kept, and neither is
 * the precision. A day-time qualifier takes a leading precision of at most
 * 3 (Flink refuses more for any of them: "DAY_INTERVAL_TYPES precision is
 * not supported"); the fraction beyond milliseconds is dropped, as Flink's
 * SECOND(3).
 */
static int32_t parse_interval_type(parser *p)
{
    weir_sql_loc loc = cur(p)->loc;
    int32_t fp, tp = -1, frac = -1;
    weir_sql_time_unit from = parse_interval_unit(p, &fp), to = WEIR_SQL_UNIT_NONE;
    if (accept_kw(p, WEIR__SQL_KW_TO)) {
        weir_sql_loc tloc = cur(p)->loc;
        to = parse_interval_unit(p, &tp);
        if (!valid_qualifier(from, to))
            parser_fail_at(p, tloc,
                           "INTERVAL %s TO %s is not an interval type (use YEAR TO MONTH, DAY TO "
                           "HOUR|MINUTE|SECOND, HOUR TO MINUTE|SECOND or MINUTE TO SECOND)",
                           weir__sql_unit_name(from), weir__sql_unit_name(to));
        if (tp >= 0 && to != WEIR_SQL_UNIT_SECOND)
            parser_fail_at(p, tloc, "INTERVAL ... TO %s takes no precision: only the leading field "
                           "and a trailing SECOND have one", weir__sql_unit_name(to));
        frac = tp;
    }
    if (from == WEIR_SQL_UNIT_MILLISECOND || from == WEIR_SQL_UNIT_MICROSECOND)
        parser_fail_at(p, loc, "INTERVAL %s is not an interval type: the fields of an interval type are "
                       "YEAR, MONTH, DAY, HOUR, MINUTE and SECOND", weir__sql_unit_name(from));
    if (fp >= 0 && (fp < 1 || fp > 10))
        parser_fail_at(p, loc, "INTERVAL %s(%d): the leading precision must be between 1 and 10",
                       weir__sql_unit_name(from), (int)fp);
    if (frac > 9)
        parser_fail_at(p, loc, "INTERVAL ... TO SECOND(%d): Fractional precision of day-time intervals must be "
                       "between 0 and 9 (both inclusive), as in Flink",
                       (int)frac);
    bool year_month = from == WEIR_SQL_UNIT_YEAR || from == WEIR_SQL_UNIT_MONTH;
    if (!year_month && fp > 3)
        parser_fail_at(p, loc,
                       "INTERVAL %s(%d)%s%s: a leading precision above 3 is not supported for a "
                       "day-time interval type (as in Flink, which holds every one as INTERVAL SECOND(3))",
                       weir__sql_unit_name(from), (int)fp, to ? " TO " : "", weir__sql_unit_name(to));
    return year_month ? 2 : 1;
}

weir_sql_type *parse_type(parser *p)
{
    parser_enter(p);
    const token *t = cur(p);
    weir_sql_type *ty = new_type(p, WEIR_SQL_TYPE_BOOLEAN, t->loc);
    if (t->type != WEIR__SQL_TK_IDENT)
        fail_type(p);
    switch (t->kw) {
    case WEIR__SQL_KW_BOOLEAN:
        ty->kind = WEIR_SQL_TYPE_BOOLEAN;
        break;
    case WEIR__SQL_KW_TINYINT:
        ty->kind = WEIR_SQL_TYPE_TINYINT;
        break;
    case WEIR__SQL_KW_SMALLINT:
        ty->kind = WEIR_SQL_TYPE_SMALLINT;
        break;
    case WEIR__SQL_KW_INT:
    case WEIR__SQL_KW_INTEGER:
        ty->kind = WEIR_SQL_TYPE_INT;
        break;
    case WEIR__SQL_KW_BIGINT:
        ty->kind = WEIR_SQL_TYPE_BIGINT;
        break;
    case WEIR__SQL_KW_FLOAT:
    case WEIR__SQL_KW_REAL:
        ty->kind = WEIR_SQL_TYPE_FLOAT;
        break;
    case WEIR__SQL_KW_DOUBLE:
        ty->kind = WEIR_SQL_TYPE_DOUBLE;
        break;
    case WEIR__SQL_KW_DECIMAL:
    case WEIR__SQL_KW_DEC:
    case WEIR__SQL_KW_NUMERIC:
        ty->kind = WEIR_SQL_TYPE_DECIMAL;
        break;
    case WEIR__SQL_KW_CHAR:
    case WEIR__SQL_KW_CHARACTER:
        ty->kind = WEIR_SQL_TYPE_CHAR;
        break;
    case WEIR__SQL_KW_VARCHAR:
        ty->kind = WEIR_SQL_TYPE_VARCHAR;
        break;
    case WEIR__SQL_KW_STRING:
        ty->kind = WEIR_SQL_TYPE_STRING;
        break;
    case WEIR__SQL_KW_BINARY:
        ty->kind = WEIR_SQL_TYPE_BINARY;
        break;
    case WEIR__SQL_KW_VARBINARY:
        ty->kind = WEIR_SQL_TYPE_VARBINARY;
        break;
    case WEIR__SQL_KW_BYTES:
        ty->kind = WEIR_SQL_TYPE_BYTES;
        break;
    case WEIR__SQL_KW_DATE:
        ty->kind = WEIR_SQL_TYPE_DATE;
        break;
    case WEIR__SQL_KW_TIME:
        ty->kind = WEIR_SQL_TYPE_TIME;
        break;
    case WEIR__SQL_KW_TIMESTAMP:
        ty->kind = WEIR_SQL_TYPE_TIMESTAMP;
        break;
    case WEIR__SQL_KW_TIMESTAMP_LTZ:
        ty->kind = WEIR_SQL_TYPE_TIMESTAMP_LTZ;
        break;
    case WEIR__SQL_KW_ARRAY:
        ty->kind = WEIR_SQL_TYPE_ARRAY;
        break;
    case WEIR__SQL_KW_MULTISET:
        ty->kind = WEIR_SQL_TYPE_MULTISET;
        break;
    case WEIR__SQL_KW_MAP:
        ty->kind = WEIR_SQL_TYPE_MAP;
        break;
    case WEIR__SQL_KW_ROW:
        ty->kind = WEIR_SQL_TYPE_ROW;
        break;
    case WEIR__SQL_KW_INTERVAL:
        ty->kind = WEIR_SQL_TYPE_INTERVAL;
        break;
    default:
        fail_type(p);
    }
    parser_advance(p);
    switch (ty->kind) {
    case WEIR_SQL_TYPE_DOUBLE:
        accept_kw(p, WEIR__SQL_KW_PRECISION);
        break;
    case WEIR_SQL_TYPE_DECIMAL:
        if (accept_tk(p, WEIR__SQL_TK_LPAREN)) {
            ty->precision = parse_type_int(p, "a precision");
            if (accept_tk(p, WEIR__SQL_TK_COMMA))
                ty->scale = parse_type_int(p, "a scale");
            expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
        }
        break;
    case WEIR_SQL_TYPE_CHAR:
        if (accept_kw(p, WEIR__SQL_KW_VARYING))
            ty->kind = WEIR_SQL_TYPE_VARCHAR;
        parse_type_length(p, ty, "a length");
        break;
    case WEIR_SQL_TYPE_VARCHAR:
    case WEIR_SQL_TYPE_BINARY:
    case WEIR_SQL_TYPE_VARBINARY:
        parse_type_length(p, ty, "a length");
        break;
    case WEIR_SQL_TYPE_TIME:
        parse_type_length(p, ty, "a precision");
        if (is_kw(p, WEIR__SQL_KW_WITHOUT)) {
            parser_advance(p);
            expect_kw(p, WEIR__SQL_KW_TIME);
            expect_kw(p, WEIR__SQL_KW_ZONE);
        }
        break;
    case WEIR_SQL_TYPE_TIMESTAMP:
        parse_type_length(p, ty, "a precision");
        if (is_kw(p, WEIR__SQL_KW_WITHOUT)) {
            parser_advance(p);
            expect_kw(p, WEIR__SQL_KW_TIME);
            expect_kw(p, WEIR__SQL_KW_ZONE);
        } else if (is_kw(p, WEIR__SQL_KW_WITH) &&
                   peek_is_kw(p, 1, WEIR__SQL_KW_LOCAL)) {
            parser_advance(p);
            parser_advance(p);
            expect_kw(p, WEIR__SQL_KW_TIME);
            expect_kw(p, WEIR__SQL_KW_ZONE);
            ty->kind = WEIR_SQL_TYPE_TIMESTAMP_LTZ;
        }
        break;
    case WEIR_SQL_TYPE_TIMESTAMP_LTZ:
        parse_type_length(p, ty, "a precision");
        break;
    case WEIR_SQL_TYPE_ARRAY:
    case WEIR_SQL_TYPE_MULTISET:
        expect_tk(p, WEIR__SQL_TK_LT, "'<'");
        ty->elem = parse_type(p);
        expect_tk(p, WEIR__SQL_TK_GT, "'>'");
        break;
    case WEIR_SQL_TYPE_MAP:
        expect_tk(p, WEIR__SQL_TK_LT, "'<'");
        ty->elem = parse_type(p);
        expect_tk(p, WEIR__SQL_TK_COMMA, "','");
        ty->value = parse_type(p);
        expect_tk(p, WEIR__SQL_TK_GT, "'>'");
        break;
    case WEIR_SQL_TYPE_ROW:
        if (accept_tk(p, WEIR__SQL_TK_NE)) /* ROW<>: the lexer sees '<>' */
            break;
        if (accept_tk(p, WEIR__SQL_TK_LT))
            parse_row_fields(p, ty, WEIR__SQL_TK_GT, "',' or '>'");
        else if (accept_tk(p, WEIR__SQL_TK_LPAREN))
            parse_row_fields(p, ty, WEIR__SQL_TK_RPAREN, "',' or ')'");
        else
            parser_expected(p, "'<' or '('");
        break;
    case WEIR_SQL_TYPE_INTERVAL:
        ty->precision = parse_interval_type(p);
        break;
    default:
        break;
    }
    parse_nullability(p, ty);
    /* Postfix collection types: INT ARRAY, STRING NOT NULL MULTISET. */
    while (is_kw(p, WEIR__SQL_KW_ARRAY) || is_kw(p, WEIR__SQL_KW_MULTISET)) {
        weir_sql_type *outer =
            new_type(p,
                     is_kw(p, WEIR__SQL_KW_ARRAY) ? WEIR_SQL_TYPE_ARRAY
                                                  : WEIR_SQL_TYPE_MULTISET,
                     cur(p)->loc);
        parser_advance(p);
        outer->elem = ty;
        ty = outer;
        parse_nullability(p, ty);
    }
    parser_leave(p);
    return ty;
}

/* --------------------------------------------------------------- literals */

static weir_sql_expr *new_literal(parser *p, weir_sql_lit_kind kind,
                                  weir_sql_loc loc)
{
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_LITERAL, loc);
    e->u.lit.kind = kind;
    return e;
}

static weir_sql_expr *parse_number(parser *p)
{
    const token *t = cur(p);
    weir_sql_lit_kind k = t->type == WEIR__SQL_TK_INTEGER ? WEIR_SQL_LIT_INTEGER
                          : t->type == WEIR__SQL_TK_DECIMAL
                              ? WEIR_SQL_LIT_DECIMAL
                              : WEIR_SQL_LIT_DOUBLE;
    weir_sql_expr *e = new_literal(p, k, t->loc);
    e->u.lit.text = parser_strndup(p, p->src + t->loc.offset, t->len);
    e->u.lit.len = t->len;
    weir__sql_number_eval(&e->u.lit);
    parser_advance(p);
    return finish(p, e);
}

/* DATE '...', TIME '...', TIMESTAMP '...' */
static weir_sql_expr *parse_typed_literal(parser *p)
{
    const token *kw = cur(p);
    weir_sql_lit_kind k = kw->kw == WEIR__SQL_KW_DATE ? WEIR_SQL_LIT_DATE
                          : kw->kw == WEIR__SQL_KW_TIME
                              ? WEIR_SQL_LIT_TIME
                              : WEIR_SQL_LIT_TIMESTAMP;
    static const char *const examples[] = {
        [WEIR_SQL_LIT_DATE] = "a quoted date such as '2024-01-31'",
        [WEIR_SQL_LIT_TIME] = "a quoted time such as '12:30:00'",
        [WEIR_SQL_LIT_TIMESTAMP] =
            "a quoted timestamp such as '2024-01-31 12:30:00'",
    };
    weir_sql_expr *e = new_literal(p, k, kw->loc);
    parser_advance(p);
    weir_sql_loc sloc;
    e->u.lit.text = parse_string(p, examples[k], &sloc);
    e->u.lit.len = (uint32_t)strlen(e->u.lit.text);
    char msg[200];
    if (weir__sql_datetime_eval(&e->u.lit, msg, sizeof msg))
        parser_fail_at(p, sloc, "%s", msg);
    return finish(p, e);
}

static weir_sql_time_unit parse_interval_unit(parser *p, int32_t *precision)
{
    const token *t = cur(p);
    weir_sql_time_unit u = t->type == WEIR__SQL_TK_IDENT ? kw_time_unit(t->kw)
                                                         : WEIR_SQL_UNIT_NONE;
    if (u != WEIR_SQL_UNIT_YEAR && u != WEIR_SQL_UNIT_MONTH &&
        u != WEIR_SQL_UNIT_DAY && u != WEIR_SQL_UNIT_HOUR &&
        u != WEIR_SQL_UNIT_MINUTE && u != WEIR_SQL_UNIT_SECOND &&
        u != WEIR_SQL_UNIT_MILLISECOND && u != WEIR_SQL_UNIT_MICROSECOND)
        parser_expected_hint(p,
                             "an interval unit (YEAR, MONTH, DAY, HOUR, "
                             "MINUTE, SECOND, MILLISECOND or MICROSECOND)",
                             "YEAR MONTH DAY HOUR MINUTE SECOND MILLISECOND "
                             "MICROSECOND YEARS MONTHS DAYS HOURS MINUTES "
                             "SECONDS MILLISECONDS MICROSECONDS");
    parser_advance(p);
    *precision = -1;
    if (accept_tk(p, WEIR__SQL_TK_LPAREN)) {
        *precision = parse_type_int(p, "a precision");
        /* SECOND(p, f): the fractional precision, 0 to 9; weir holds milliseconds */
        if (u == WEIR_SQL_UNIT_SECOND && accept_tk(p, WEIR__SQL_TK_COMMA) &&
            parse_type_int(p, "a fractional precision") > 9)
            parser_fail_at(p, t->loc, "SECOND(p, f): Fractional precision of day-time intervals must be between 0 "
                                            "and 9 (both inclusive), as in Flink");
        expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    }
    return u;
}

static bool valid_qualifier(weir_sql_time_unit from, weir_sql_time_unit to)
{
    if (to == WEIR_SQL_UNIT_NONE)
        return true;
    switch (from) {
    case WEIR_SQL_UNIT_YEAR:
        return to == WEIR_SQL_UNIT_MONTH;
    case WEIR_SQL_UNIT_DAY:
        return to == WEIR_SQL_UNIT_HOUR || to == WEIR_SQL_UNIT_MINUTE ||
               to == WEIR_SQL_UNIT_SECOND;
    case WEIR_SQL_UNIT_HOUR:
        return to == WEIR_SQL_UNIT_MINUTE || to == WEIR_SQL_UNIT_SECOND;
    case WEIR_SQL_UNIT_MINUTE:
        return to == WEIR_SQL_UNIT_SECOND;
    default:
        return false;
    }
}

/* INTERVAL [+|-] 'value' unit [(p)] [TO unit [(p)]] */
static weir_sql_expr *parse_interval(parser *p)
{
    weir_sql_expr *e = new_literal(p, WEIR_SQL_LIT_INTERVAL, cur(p)->loc);
    weir_sql_interval *iv = &e->u.lit.interval;
    expect_kw(p, WEIR__SQL_KW_INTERVAL);
    if (accept_tk(p, WEIR__SQL_TK_MINUS))
        iv->negated = true;
    else
        accept_tk(p, WEIR__SQL_TK_PLUS);
    weir_sql_loc sloc;
    e->u.lit.text =
        parse_string(p, "a quoted interval value such as '10'", &sloc);
    e->u.lit.len = (uint32_t)strlen(e->u.lit.text);
    weir_sql_loc qloc = cur(p)->loc;
    iv->from = parse_interval_unit(p, &iv->from_precision);
    iv->to = WEIR_SQL_UNIT_NONE;
    iv->to_precision = -1;
    if (accept_kw(p, WEIR__SQL_KW_TO)) {
        iv->to = parse_interval_unit(p, &iv->to_precision);
        if (!valid_qualifier(iv->from, iv->to))
            parser_fail_at(p, qloc,
                           "invalid interval qualifier %s TO %s (use YEAR "
                           "TO MONTH, DAY TO HOUR|MINUTE|SECOND, HOUR TO "
                           "MINUTE|SECOND or MINUTE TO SECOND)",
                           weir__sql_unit_name(iv->from),
                           weir__sql_unit_name(iv->to));
    }
    char msg[200];
    if (weir__sql_interval_eval(&e->u.lit, msg, sizeof msg))
        parser_fail_at(p, sloc, "%s", msg);
    return finish(p, e);
}

/* ---------------------------------------------------------- special forms */

static weir_sql_expr *parse_case(parser *p)
{
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_CASE, cur(p)->loc);
    expect_kw(p, WEIR__SQL_KW_CASE);
    if (!is_kw(p, WEIR__SQL_KW_WHEN))
        e->u.case_.operand = parse_expr(p, PREC_MIN);
    vec v = {0};
    while (accept_kw(p, WEIR__SQL_KW_WHEN)) {
        weir_sql_when *w = vec_push(p, &v, sizeof *w);
        w->when = parse_expr(p, PREC_MIN);
        expect_kw(p, WEIR__SQL_KW_THEN);
        w->then = parse_expr(p, PREC_MIN);
    }
    if (v.n == 0)
        parser_expected(p, "WHEN");
    e->u.case_.whens = v.data;
    e->u.case_.n_whens = v.n;
    if (accept_kw(p, WEIR__SQL_KW_ELSE))
        e->u.case_.else_ = parse_expr(p, PREC_MIN);
    if (!accept_kw(p, WEIR__SQL_KW_END))
        parser_expected(p, e->u.case_.else_ ? "END" : "WHEN, ELSE or END");
    return finish(p, e);
}

static weir_sql_expr *parse_cast(parser *p)
{
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_CAST, cur(p)->loc);
    e->u.cast.try_ = is_kw(p, WEIR__SQL_KW_TRY_CAST);
    parser_advance(p);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    e->u.cast.operand = parse_expr(p, PREC_MIN);
    expect_kw(p, WEIR__SQL_KW_AS);
    e->u.cast.type = parse_type(p);
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    return finish(p, e);
}

static weir_sql_expr *parse_extract(parser *p)
{
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_EXTRACT, cur(p)->loc);
    parser_advance(p);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    e->u.extract.unit = parse_time_unit(
        p, "a time unit such as YEAR, MONTH, DAY, HOUR, MINUTE or SECOND",
        &e->u.extract.unit_loc);
    expect_kw(p, WEIR__SQL_KW_FROM);
    e->u.extract.operand = parse_expr(p, PREC_MIN);
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    return finish(p, e);
}

static weir_sql_expr *parse_exists(parser *p)
{
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_EXISTS, cur(p)->loc);
    expect_kw(p, WEIR__SQL_KW_EXISTS);
    if (!is_tk(p, WEIR__SQL_TK_LPAREN) || !at_query_start(p))
        parser_expected(p, "'(' and a query");
    parser_advance(p);
    e->u.subquery.query = parse_query(p);
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    return finish(p, e);
}

/* ARRAY[...] and MAP[...] */
static weir_sql_expr *parse_constructor(parser *p, weir_sql_expr_kind kind)
{
    weir_sql_expr *e = new_expr(p, kind, cur(p)->loc);
    parser_advance(p);
    expect_tk(p, WEIR__SQL_TK_LBRACKET, "'['");
    vec v = {0};
    if (!is_tk(p, WEIR__SQL_TK_RBRACKET)) {
        do {
            *(weir_sql_expr **)vec_push(p, &v, sizeof(void *)) =
                parse_expr(p, PREC_MIN);
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    }
    expect_tk(p, WEIR__SQL_TK_RBRACKET, "',' or ']'");
    if (kind == WEIR_SQL_EXPR_MAP && v.n % 2)
        parser_fail_at(p, e->loc,
                       "MAP[...] needs an even number of "
                       "elements (key, value, key, value, ...)");
    e->u.list.items = v.data;
    e->u.list.n_items = v.n;
    return finish(p, e);
}

static weir_sql_expr *parse_descriptor(parser *p)
{
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_DESCRIPTOR, cur(p)->loc);
    parser_advance(p);
    parse_ident_list(p, &e->u.descriptor.columns, &e->u.descriptor.n_columns,
                     "a column name");
    return finish(p, e);
}

/* ------------------------------------------------------------------ calls */

static weir_sql_expr *new_call(parser *p, weir_sql_name name,
                               weir_sql_call_syntax syntax)
{
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_CALL, name.loc);
    e->u.call.name = name;
    e->u.call.syntax = syntax;
    return e;
}

/* A one-part name from the current token (keywords used as function names). */
static weir_sql_name name_from_token(parser *p)
{
    const token *t = cur(p);
    weir_sql_name n;
    n.loc = t->loc;
    n.n_parts = 1;
    n.parts = PNEW(p, weir_sql_ident);
    n.parts->loc = t->loc;
    n.parts->name = parser_strndup(p, p->src + t->loc.offset, t->len);
    n.parts->len = t->len;
    parser_advance(p);
    return n;
}

static void push_expr(parser *p, vec *v, weir_sql_expr *e)
{
    *(weir_sql_expr **)vec_push(p, v, sizeof(void *)) = e;
}

/* The rest of a plain argument list: [, arg]... ')' */
static void parse_args_rest(parser *p, vec *args)
{
    while (accept_tk(p, WEIR__SQL_TK_COMMA))
        push_expr(p, args, parse_call_arg(p));
    expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
}

/* FILTER (WHERE c) after an aggregate call, onto the call e. */
static void parse_filter_clause(parser *p, weir_sql_expr *e)
{
    if (!accept_kw(p, WEIR__SQL_KW_FILTER))
        return;
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    expect_kw(p, WEIR__SQL_KW_WHERE);
    e->u.call.filter = parse_expr(p, PREC_MIN);
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
}

/* FILTER (WHERE ...) and OVER ... after a call. */
static void parse_call_suffix(parser *p, weir_sql_expr *e)
{
    parse_filter_clause(p, e);
    if (accept_kw(p, WEIR__SQL_KW_OVER)) {
        if (is_tk(p, WEIR__SQL_TK_LPAREN)) {
            e->u.call.over = parse_window_spec(p);
        } else {
            weir_sql_window *w = PNEW(p, weir_sql_window);
            w->loc = cur(p)->loc;
            w->ref = parse_ident_ptr(p, "'(' or a window name");
            w->ref_only = true;
            e->u.call.over = w;
        }
    }
}

/* TIMESTAMPADD and TIMESTAMPDIFF take a time unit as first argument. */
static bool takes_unit_first(const weir_sql_name *n)
{
    if (n->n_parts != 1)
        return false;
    const char *s = n->parts[0].name;
    return strcasecmp(s, "TIMESTAMPADD") == 0 ||
           strcasecmp(s, "TIMESTAMPDIFF") == 0;
}


/* name '(' ... ')' [FILTER (WHERE ...)] [OVER ...]; at '(' */
static weir_sql_expr *parse_call_rest(parser *p, weir_sql_name name)
{
    weir_sql_expr *e = new_call(p, name, WEIR_SQL_CALL_PLAIN);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    vec args = {0};
    if (takes_unit_first(&name)) {
        e->u.call.syntax = WEIR_SQL_CALL_UNIT_FIRST;
        e->u.call.unit = parse_time_unit(
            p, "a time unit such as SECOND, MINUTE, HOUR or DAY", NULL);
        expect_tk(p, WEIR__SQL_TK_COMMA, "','");
    }
    if (is_tk(p, WEIR__SQL_TK_STAR) && peek_is_tk(p, 1, WEIR__SQL_TK_RPAREN)) {
        parser_advance(p);
        parser_advance(p);
        e->u.call.star = true;
    } else if (!accept_tk(p, WEIR__SQL_TK_RPAREN)) {
        if (accept_kw(p, WEIR__SQL_KW_DISTINCT))
            e->u.call.distinct = true;
        else if (accept_kw(p, WEIR__SQL_KW_ALL))
            e->u.call.all = true;
        push_expr(p, &args, parse_call_arg(p));
        /* ARRAY_AGG(x RESPECT NULLS | IGNORE NULLS) */
        if ((next_word_is(p, 0, "RESPECT") || next_word_is(p, 0, "IGNORE")) && peek_is_kw(p, 1, WEIR__SQL_KW_NULLS)) {
            e->u.call.nulls = next_word_is(p, 0, "IGNORE") ? 2 : 1;
            parser_advance(p);
            parser_advance(p);
        }
        parse_args_rest(p, &args);
    }
    e->u.call.args = args.data;
    e->u.call.n_args = args.n;
    parse_call_suffix(p, e);
    return finish(p, e);
}

/* TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) or TRIM(args) */
static weir_sql_expr *parse_trim(parser *p)
{
    weir_sql_expr *e = new_call(p, name_from_token(p), WEIR_SQL_CALL_TRIM);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    vec args = {0};
    bool spec = true;
    if (accept_kw(p, WEIR__SQL_KW_BOTH))
        e->u.call.trim = WEIR_SQL_TRIM_BOTH;
    else if (accept_kw(p, WEIR__SQL_KW_LEADING))
        e->u.call.trim = WEIR_SQL_TRIM_LEADING;
    else if (accept_kw(p, WEIR__SQL_KW_TRAILING))
        e->u.call.trim = WEIR_SQL_TRIM_TRAILING;
    else
        spec = false;
    e->u.call.trim_spec_written = spec;
    if (spec && accept_kw(p, WEIR__SQL_KW_FROM)) {
        push_expr(p, &args, parse_expr(p, PREC_MIN));
        expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    } else {
        weir_sql_expr *first = parse_expr(p, PREC_MIN);
        if (accept_kw(p, WEIR__SQL_KW_FROM)) {
            push_expr(p, &args, parse_expr(p, PREC_MIN));
            push_expr(p, &args, first);
            expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
        } else if (spec) {
            parser_expected(p, "FROM");
        } else {
            e->u.call.syntax = WEIR_SQL_CALL_PLAIN;
            push_expr(p, &args, first);
            parse_args_rest(p, &args);
        }
    }
    e->u.call.args = args.data;
    e->u.call.n_args = args.n;
    parse_call_suffix(p, e);
    return finish(p, e);
}

/* POSITION(a IN b) */
static weir_sql_expr *parse_position(parser *p)
{
    weir_sql_expr *e = new_call(p, name_from_token(p), WEIR_SQL_CALL_POSITION);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    vec args = {0};
    push_expr(p, &args, parse_expr(p, PREC_ADD));
    expect_kw(p, WEIR__SQL_KW_IN);
    push_expr(p, &args, parse_expr(p, PREC_MIN));
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    e->u.call.args = args.data;
    e->u.call.n_args = args.n;
    return finish(p, e);
}

/* SUBSTRING(s FROM a [FOR b]) or SUBSTRING(s, a [, b]);
 * OVERLAY(s PLACING r FROM a [FOR b]) */
static weir_sql_expr *parse_substring_overlay(parser *p, bool overlay)
{
    weir_sql_expr *e =
        new_call(p, name_from_token(p),
                 overlay ? WEIR_SQL_CALL_OVERLAY : WEIR_SQL_CALL_SUBSTRING);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    vec args = {0};
    push_expr(p, &args, parse_expr(p, PREC_MIN));
    if (overlay) {
        expect_kw(p, WEIR__SQL_KW_PLACING);
        push_expr(p, &args, parse_expr(p, PREC_MIN));
    }
    if (accept_kw(p, WEIR__SQL_KW_FROM)) {
        push_expr(p, &args, parse_expr(p, PREC_MIN));
        if (accept_kw(p, WEIR__SQL_KW_FOR))
            push_expr(p, &args, parse_expr(p, PREC_MIN));
        expect_tk(p, WEIR__SQL_TK_RPAREN, "FOR or ')'");
    } else if (overlay) {
        parser_expected(p, "FROM");
    } else {
        e->u.call.syntax = WEIR_SQL_CALL_PLAIN;
        parse_args_rest(p, &args);
    }
    e->u.call.args = args.data;
    e->u.call.n_args = args.n;
    return finish(p, e);
}

static weir_sql_expr *synth_call(parser *p, const char *s, weir_sql_expr **args, uint32_t n, weir_sql_loc loc);

/*
 * After "(e1" at a ',': (t1, t2) OVERLAPS (t3, t4), which becomes the call
 * OVERLAPS(t1, t2, t3, t4), or a row constructor (e1, e2, ...), the call
 * ROW(e1, e2, ...) as Calcite reads it.
 */
static weir_sql_expr *parse_overlaps(parser *p, weir_sql_expr *t1, weir_sql_loc lparen)
{
    vec args = {0};
    push_expr(p, &args, t1);
    while (accept_tk(p, WEIR__SQL_TK_COMMA))
        push_expr(p, &args, parse_expr(p, PREC_MIN));
    expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
    const token *t = cur(p);
    if (args.n != 2 || t->type != WEIR__SQL_TK_IDENT || t->len != 8 ||
        strncasecmp(p->src + t->loc.offset, "OVERLAPS", 8))
        return synth_call(p, "ROW", args.data, args.n, lparen);
    weir_sql_expr *e = new_call(p, name_from_token(p), WEIR_SQL_CALL_PLAIN);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    push_expr(p, &args, parse_expr(p, PREC_MIN));
    expect_tk(p, WEIR__SQL_TK_COMMA, "','");
    push_expr(p, &args, parse_expr(p, PREC_MIN));
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    e->u.call.args = args.data;
    e->u.call.n_args = args.n;
    return finish(p, e);
}

/* FLOOR(x TO unit), CEIL(x TO unit), or their plain forms. */
static weir_sql_expr *parse_floor_ceil(parser *p)
{
    bool floor = is_kw(p, WEIR__SQL_KW_FLOOR);
    weir_sql_expr *e = new_call(p, name_from_token(p), WEIR_SQL_CALL_PLAIN);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    vec args = {0};
    push_expr(p, &args, parse_expr(p, PREC_MIN));
    if (accept_kw(p, WEIR__SQL_KW_TO)) {
        e->u.call.syntax =
            floor ? WEIR_SQL_CALL_FLOOR_TO : WEIR_SQL_CALL_CEIL_TO;
        e->u.call.unit =
            parse_time_unit(p, "a time unit such as DAY or HOUR", NULL);
        expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    } else {
        parse_args_rest(p, &args);
    }
    e->u.call.args = args.data;
    e->u.call.n_args = args.n;
    parse_call_suffix(p, e);
    return finish(p, e);
}

/* CURRENT_TIMESTAMP and friends: without parentheses, or a plain call. */
static weir_sql_expr *parse_niladic(parser *p)
{
    if (peek_is_tk(p, 1, WEIR__SQL_TK_LPAREN))
        return parse_call_rest(p, name_from_token(p));
    weir_sql_expr *e = new_call(p, name_from_token(p), WEIR_SQL_CALL_NO_PARENS);
    return finish(p, e);
}

weir_sql_expr *parse_call_arg(parser *p)
{
    weir_sql_loc loc = cur(p)->loc;
    /* Parameter names may be keywords: TUMBLE(..., OFFSET => ...). */
    if ((is_tk(p, WEIR__SQL_TK_IDENT) || is_tk(p, WEIR__SQL_TK_QIDENT)) &&
        peek_is_tk(p, 1, WEIR__SQL_TK_ARROW)) {
        weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_NAMED_ARG, loc);
        const token *t = cur(p);
        weir_sql_ident *id = &e->u.named_arg.name;
        id->loc = t->loc;
        id->quoted = t->type == WEIR__SQL_TK_QIDENT;
        if (id->quoted) {
            id->name = t->str;
            id->len = t->str_len;
        } else {
            id->name = parser_strndup(p, p->src + t->loc.offset, t->len);
            id->len = t->len;
        }
        parser_advance(p);
        expect_tk(p, WEIR__SQL_TK_ARROW, "'=>'");
        if (peek_is_tk(p, 1, WEIR__SQL_TK_ARROW))
            parser_expected(p, "an argument value");
        e->u.named_arg.value = parse_call_arg(p);
        return finish(p, e);
    }
    if (is_kw(p, WEIR__SQL_KW_TABLE)) {
        parser_enter(p);
        weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_TABLE_ARG, loc);
        parser_advance(p);
        e->u.table_arg.table = parse_name(p, "a table name");
        if (accept_kw(p, WEIR__SQL_KW_PARTITION)) {
            expect_kw(p, WEIR__SQL_KW_BY);
            vec v = {0};
            if (is_tk(p, WEIR__SQL_TK_LPAREN) && !at_query_start(p)) {
                parser_advance(p);
                do {
                    push_expr(p, &v, parse_expr(p, PREC_MIN));
                } while (accept_tk(p, WEIR__SQL_TK_COMMA));
                expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
            } else {
                push_expr(p, &v, parse_expr(p, PREC_ADD));
            }
            e->u.table_arg.partition_by = v.data;
            e->u.table_arg.n_partition_by = v.n;
        }
        if (is_kw(p, WEIR__SQL_KW_ORDER))
            parse_order_by_list(p, &e->u.table_arg.order_by,
                                &e->u.table_arg.n_order_by);
        parser_leave(p);
        return finish(p, e);
    }
    /* COUNT(A.*): the rows of MATCH_RECOGNIZE's pattern variable A */
    if (tok_is_name(cur(p)) && peek_is_tk(p, 1, WEIR__SQL_TK_DOT) &&
        peek_is_tk(p, 2, WEIR__SQL_TK_STAR) && !peek_is_tk(p, 3, WEIR__SQL_TK_DOT)) {
        weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_STAR, loc);
        weir_sql_ident *id = parser_alloc(p, sizeof *id);
        *id = parse_ident(p, "a name");
        parser_advance(p); /* . */
        parser_advance(p); /* * */
        e->u.star.qualifier.parts = id;
        e->u.star.qualifier.n_parts = 1;
        e->u.star.qualifier.loc = loc;
        return finish(p, e);
    }
    return parse_expr(p, PREC_MIN);
}

/* -------------------------------------------------------------- primaries */

/* ------------------------------------------------------- SQL/JSON syntax */

/* Is token k ahead the (unquoted) word w, keyword or not? */
bool next_word_is(parser *p, uint32_t k, const char *w)
{
    const token *t = peek_tok(p, k);
    return t->type == WEIR__SQL_TK_IDENT && t->len == strlen(w) &&
           strncasecmp(p->src + t->loc.offset, w, t->len) == 0;
}

bool accept_word(parser *p, const char *w)
{
    if (!next_word_is(p, 0, w))
        return false;
    parser_advance(p);
    return true;
}

void expect_word(parser *p, const char *w)
{
    if (!accept_word(p, w))
        parser_expected(p, w);
}

/* An INTEGER literal for a clause the parser turned into an argument. */
static weir_sql_expr *clause_int(parser *p, int64_t v, weir_sql_loc loc)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    weir_sql_expr *e = new_literal(p, WEIR_SQL_LIT_INTEGER, loc);
    e->u.lit.text = parser_strndup(p, buf, (size_t)n);
    e->u.lit.len = (uint32_t)n;
    weir__sql_number_eval(&e->u.lit);
    return finish(p, e);
}

static weir_sql_expr *clause_str(parser *p, const char *s, size_t n,
                                 weir_sql_loc loc)
{
    weir_sql_expr *e = new_literal(p, WEIR_SQL_LIT_STRING, loc);
    e->u.lit.text = parser_strndup(p, s, n);
    e->u.lit.len = (uint32_t)n;
    return finish(p, e);
}

static weir_sql_expr *clause_null(parser *p, weir_sql_loc loc)
{
    return finish(p, new_literal(p, WEIR_SQL_LIT_NULL, loc));
}

/* The "json, path" that JSON_VALUE, JSON_QUERY and JSON_EXISTS all start with. */
static void json_head(parser *p, vec *args)
{
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    push_expr(p, args, parse_expr(p, PREC_MIN));
    expect_tk(p, WEIR__SQL_TK_COMMA, "','");
    push_expr(p, args, parse_expr(p, PREC_MIN));
}

/* [ON EMPTY clause] [ON ERROR clause] for JSON_VALUE / JSON_QUERY: the
 * behaviour words are read by `beh`, which returns the mode (and may read a
 * DEFAULT expression into *dflt). */
typedef int (*json_beh_fn)(parser *p, weir_sql_expr **dflt);

static void json_on_clauses(parser *p, json_beh_fn beh, int mode[2],
                            weir_sql_expr *dflt[2])
{
    bool seen[2] = {false, false};
    while (!is_tk(p, WEIR__SQL_TK_RPAREN)) {
        weir_sql_expr *d = NULL;
        int m = beh(p, &d);
        expect_word(p, "ON");
        int which;
        if (accept_word(p, "EMPTY"))
            which = 0;
        else if (accept_word(p, "ERROR"))
            which = 1;
        else
            parser_expected(p, "EMPTY or ERROR");
        if (seen[which] || (which == 0 && seen[1]))
            parser_fail_at(p, cur(p)->loc,
                           "ON %s given twice or after ON ERROR (write "
                           "[... ON EMPTY] [... ON ERROR])",
                           which ? "ERROR" : "EMPTY");
        seen[which] = true;
        mode[which] = m;
        dflt[which] = d;
    }
}

static int value_beh(parser *p, weir_sql_expr **dflt)
{
    if (accept_kw(p, WEIR__SQL_KW_NULL))
        return 0;
    if (accept_word(p, "ERROR"))
        return 1;
    if (accept_word(p, "DEFAULT")) {
        *dflt = parse_expr(p, PREC_MIN);
        return 2;
    }
    parser_expected(p, "NULL, ERROR, DEFAULT, ')'");
}

static int query_beh(parser *p, weir_sql_expr **dflt)
{
    (void)dflt;
    if (accept_kw(p, WEIR__SQL_KW_NULL))
        return 0;
    if (accept_word(p, "ERROR"))
        return 1;
    if (accept_word(p, "EMPTY")) {
        if (accept_word(p, "ARRAY"))
            return 3;
        if (accept_word(p, "OBJECT"))
            return 4;
        parser_expected(p, "ARRAY or OBJECT");
    }
    parser_expected(p, "NULL, ERROR, EMPTY ARRAY, EMPTY OBJECT, ')'");
}

/* Was e written as a JSON constructor call (its text goes in as JSON)? */
static bool is_json_ctor(const weir_sql_expr *e)
{
    return e->kind == WEIR_SQL_EXPR_CALL && e->u.call.name.n_parts == 1 &&
           (!strcasecmp(e->u.call.name.parts[0].name, "JSON_OBJECT") ||
            !strcasecmp(e->u.call.name.parts[0].name, "JSON_ARRAY"));
}

/*
 * JSON_OBJECT([[KEY] k VALUE v, ...] [{NULL|ABSENT} ON NULL]) and
 * JSON_ARRAY([v, ...] [{NULL|ABSENT} ON NULL]): the arguments become
 * (on_null, k1, v1, raw1, ...) / (on_null, v1, raw1, ...), on_null 0 for
 * NULL ON NULL, 1 for ABSENT ON NULL, raw 1 when the value is itself a
 * JSON constructor call. At '('.
 */
static weir_sql_expr *parse_json_constructor(parser *p, weir_sql_expr *e,
                                             bool object)
{
    weir_sql_loc loc = e->loc;
    vec items = {0};
    int on_null = object ? 0 : 1; /* Flink's defaults */
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    while (!is_tk(p, WEIR__SQL_TK_RPAREN)) {
        if ((is_kw(p, WEIR__SQL_KW_NULL) || next_word_is(p, 0, "ABSENT")) &&
            next_word_is(p, 1, "ON")) {
            on_null = next_word_is(p, 0, "ABSENT");
            parser_advance(p);
            parser_advance(p);
            expect_kw(p, WEIR__SQL_KW_NULL);
            break;
        }
        if (items.n)
            expect_tk(p, WEIR__SQL_TK_COMMA, "',', ON NULL or ')'");
        if (object) {
            if (next_word_is(p, 0, "KEY") && !next_word_is(p, 1, "VALUE"))
                parser_advance(p);
            push_expr(p, &items, parse_expr(p, PREC_MIN));
            expect_word(p, "VALUE");
        }
        weir_sql_expr *v = parse_expr(p, PREC_MIN);
        push_expr(p, &items, v);
        push_expr(p, &items, clause_int(p, is_json_ctor(v), v->loc));
    }
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    vec args = {0};
    push_expr(p, &args, clause_int(p, on_null, loc));
    for (uint32_t k = 0; k < items.n; k++)
        push_expr(p, &args, ((weir_sql_expr **)items.data)[k]);
    e->u.call.args = args.data;
    e->u.call.n_args = args.n;
    return finish(p, e);
}

/* A call of the function named s (an ordinary, unquoted name) with args. */
static weir_sql_expr *synth_call(parser *p, const char *s, weir_sql_expr **args, uint32_t n, weir_sql_loc loc)
{
    weir_sql_ident *id = PNEW(p, weir_sql_ident);
    id->name = parser_strndup(p, s, strlen(s));
    id->len = (uint32_t)strlen(s);
    id->loc = loc;
    weir_sql_expr *e = new_call(p, (weir_sql_name){id, 1, loc}, WEIR_SQL_CALL_PLAIN);
    vec v = {0};
    for (uint32_t k = 0; k < n; k++)
        push_expr(p, &v, args[k]);
    e->u.call.args = v.data;
    e->u.call.n_args = v.n;
    return finish(p, e);
}

/* After a JSON aggregate's ')': FILTER (WHERE c) onto the aggregate call
 * agg; OVER is refused, as in Flink. */
static void json_agg_tail(parser *p, weir_sql_expr *agg, const char *fn)
{
    parse_filter_clause(p, agg);
    if (is_kw(p, WEIR__SQL_KW_OVER))
        parser_fail_at(p, cur(p)->loc, "%s is not supported in OVER windows (as in Flink)", fn);
}

/*
 * JSON_ARRAYAGG(v [{NULL|ABSENT} ON NULL]) [FILTER (WHERE c)], at '(':
 * the JSON array of the values in arrival order, written as what it
 * computes,
 *   CONCAT('[', COALESCE(LISTAGG(elem, ',') [FILTER (WHERE c)], ''), ']')
 * with elem JSON_STRING(v) (v itself when it is a JSON constructor call),
 * and COALESCE(elem, 'null') for NULL ON NULL (ABSENT ON NULL, the default,
 * leaves NULLs out as LISTAGG does). LISTAGG takes back the oldest equal
 * element on a retraction, as Flink's JSON_ARRAYAGG does.
 */
static weir_sql_expr *parse_json_arrayagg(parser *p, weir_sql_loc loc)
{
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    weir_sql_expr *v = parse_expr(p, PREC_MIN);
    bool null_on_null = false;
    if ((is_kw(p, WEIR__SQL_KW_NULL) || next_word_is(p, 0, "ABSENT")) && next_word_is(p, 1, "ON")) {
        null_on_null = is_kw(p, WEIR__SQL_KW_NULL);
        parser_advance(p);
        parser_advance(p);
        expect_kw(p, WEIR__SQL_KW_NULL);
    }
    expect_tk(p, WEIR__SQL_TK_RPAREN, "ON NULL or ')'");
    weir_sql_expr *elem = is_json_ctor(v) ? v : synth_call(p, "JSON_STRING", &v, 1, v->loc);
    if (null_on_null) {
        weir_sql_expr *a[2] = {elem, clause_str(p, "null", 4, loc)};
        elem = synth_call(p, "COALESCE", a, 2, loc);
    }
    weir_sql_expr *la[2] = {elem, clause_str(p, ",", 1, loc)};
    weir_sql_expr *agg = synth_call(p, "LISTAGG", la, 2, loc);
    json_agg_tail(p, agg, "JSON_ARRAYAGG");
    weir_sql_expr *ca[2] = {agg, clause_str(p, "", 0, loc)};
    weir_sql_expr *parts[3] = {clause_str(p, "[", 1, loc), synth_call(p, "COALESCE", ca, 2, loc),
                               clause_str(p, "]", 1, loc)};
    return synth_call(p, "CONCAT", parts, 3, loc);
}

/*
 * JSON_OBJECTAGG([KEY] k VALUE v [{NULL|ABSENT} ON NULL]) [FILTER (WHERE c)],
 * at '(': the JSON object of the groups' keys and values, written as what
 * it computes,
 *   JSON_OBJECTAGG_OBJECT(COLLECT(JSON_OBJECTAGG_ENTRY(k, val, absent)) [FILTER (WHERE c)])
 * with val JSON_STRING(v) (v itself when it is a JSON constructor call):
 * an entry is the key and the value's JSON text, NULL under ABSENT ON NULL
 * for a NULL value (COLLECT leaves it out); the object is the entries by
 * key, and a key met twice fails the row, as Flink's JSON_OBJECTAGG fails.
 * NULL ON NULL is Flink's default here.
 */
static weir_sql_expr *parse_json_objectagg(parser *p, weir_sql_loc loc)
{
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    if (next_word_is(p, 0, "KEY") && !next_word_is(p, 1, "VALUE"))
        parser_advance(p);
    weir_sql_expr *k = parse_expr(p, PREC_MIN);
    expect_word(p, "VALUE");
    weir_sql_expr *v = parse_expr(p, PREC_MIN);
    bool absent = false;
    if ((is_kw(p, WEIR__SQL_KW_NULL) || next_word_is(p, 0, "ABSENT")) && next_word_is(p, 1, "ON")) {
        absent = next_word_is(p, 0, "ABSENT");
        parser_advance(p);
        parser_advance(p);
        expect_kw(p, WEIR__SQL_KW_NULL);
    }
    expect_tk(p, WEIR__SQL_TK_RPAREN, "ON NULL or ')'");
    weir_sql_expr *ea[3] = {k, is_json_ctor(v) ? v : synth_call(p, "JSON_STRING", &v, 1, v->loc),
                            clause_int(p, absent, loc)};
    weir_sql_expr *entry = synth_call(p, "JSON_OBJECTAGG_ENTRY", ea, 3, loc);
    weir_sql_expr *agg = synth_call(p, "COLLECT", &entry, 1, loc);
    json_agg_tail(p, agg, "JSON_OBJECTAGG");
    return synth_call(p, "JSON_OBJECTAGG_OBJECT", &agg, 1, loc);
}

/*
 * JSON_VALUE(json, path [RETURNING type] [beh ON EMPTY] [beh ON ERROR]),
 * JSON_QUERY(json, path [wrapper] [beh ON EMPTY] [beh ON ERROR]) and
 * JSON_EXISTS(json, path [beh ON ERROR]); the clauses become trailing
 * literal arguments (see expr/f_json.c). At the name; the '(' is next.
 */
static weir_sql_expr *parse_json_call(parser *p, weir_sql_name name)
{
    weir_sql_expr *e = new_call(p, name, WEIR_SQL_CALL_JSON);
    const char *fn = name.parts[0].name;
    weir_sql_loc loc = name.loc;
    vec args = {0};
    if (!strcasecmp(fn, "JSON_OBJECTAGG"))
        return parse_json_objectagg(p, loc);
    if (!strcasecmp(fn, "JSON_ARRAYAGG"))
        return parse_json_arrayagg(p, loc);
    if (!strcasecmp(fn, "JSON_OBJECT") || !strcasecmp(fn, "JSON_ARRAY"))
        return parse_json_constructor(p, e, !strcasecmp(fn, "JSON_OBJECT"));
    json_head(p, &args);
    if (!strcasecmp(fn, "JSON_EXISTS")) {
        if (!is_tk(p, WEIR__SQL_TK_RPAREN)) {
            int m;
            if (accept_kw(p, WEIR__SQL_KW_FALSE))
                m = 0;
            else if (accept_kw(p, WEIR__SQL_KW_TRUE))
                m = 1;
            else if (accept_kw(p, WEIR__SQL_KW_UNKNOWN))
                m = 2;
            else if (accept_word(p, "ERROR"))
                m = 3;
            else
                parser_expected(p, "TRUE, FALSE, UNKNOWN, ERROR or ')'");
            expect_word(p, "ON");
            expect_word(p, "ERROR");
            push_expr(p, &args, clause_int(p, m, loc));
        }
    } else if (!strcasecmp(fn, "JSON_VALUE")) {
        weir_sql_expr *ret = NULL;
        if (accept_word(p, "RETURNING")) {
            uint32_t start = cur(p)->loc.offset;
            weir_sql_loc tloc = cur(p)->loc;
            parse_type(p);
            ret = clause_str(p, p->src + start, prev_end(p) - start, tloc);
        }
        int mode[2] = {0, 0};
        weir_sql_expr *dflt[2] = {NULL, NULL};
        json_on_clauses(p, value_beh, mode, dflt);
        if (ret || mode[0] || mode[1]) {
            push_expr(p, &args, ret ? ret : clause_str(p, "STRING", 6, loc));
            for (int k = 0; k < 2; k++) {
                push_expr(p, &args, clause_int(p, mode[k], loc));
                push_expr(p, &args, dflt[k] ? dflt[k] : clause_null(p, loc));
            }
        }
    } else { /* JSON_QUERY */
        int wrapper = 0, as_array = 0;
        if (accept_word(p, "RETURNING")) {
            /* STRING (the default) or ARRAY<STRING>: +4 on the wrapper argument */
            uint32_t start = cur(p)->loc.offset;
            weir_sql_loc tloc = cur(p)->loc;
            parse_type(p);
            char t[32];
            size_t tn = 0;
            for (uint32_t k = start; k < prev_end(p) && tn + 1 < sizeof t; k++)
                if (p->src[k] != ' ' && p->src[k] != '\t' && p->src[k] != '\n')
                    t[tn++] = (char)toupper((unsigned char)p->src[k]);
            t[tn] = 0;
            if (!strcmp(t, "ARRAY<STRING>") || !strcmp(t, "ARRAY<VARCHAR>") || !strcmp(t, "STRINGARRAY"))
                as_array = 4;
            else if (strcmp(t, "STRING") && strcmp(t, "VARCHAR"))
                parser_fail_at(p, tloc, "JSON_QUERY ... RETURNING supports only STRING and ARRAY<STRING>");
        }
        if (accept_word(p, "WITHOUT")) {
            accept_word(p, "ARRAY");
            expect_word(p, "WRAPPER");
        } else if (accept_word(p, "WITH")) {
            wrapper = 2;
            if (accept_word(p, "CONDITIONAL"))
                wrapper = 1;
            else
                accept_word(p, "UNCONDITIONAL");
            accept_word(p, "ARRAY");
            expect_word(p, "WRAPPER");
        }
        int mode[2] = {0, 0};
        weir_sql_expr *dflt[2] = {NULL, NULL};
        json_on_clauses(p, query_beh, mode, dflt);
        if (wrapper || as_array || mode[0] || mode[1]) {
            push_expr(p, &args, clause_int(p, wrapper + as_array, loc));
            push_expr(p, &args, clause_int(p, mode[0], loc));
            push_expr(p, &args, clause_int(p, mode[1], loc));
        }
    }
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    e->u.call.args = args.data;
    e->u.call.n_args = args.n;
    return finish(p, e);
}

static bool is_json_func(const weir_sql_name *n)
{
    static const char *const names[] = {
        "JSON_VALUE",  "JSON_QUERY",     "JSON_EXISTS",
        "JSON_OBJECT", "JSON_ARRAY",     "JSON_OBJECTAGG",
        "JSON_ARRAYAGG"};
    if (n->n_parts != 1 || n->parts[0].quoted)
        return false;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcasecmp(n->parts[0].name, names[k]))
            return true;
    return false;
}

static weir_sql_expr *parse_name_or_call(parser *p)
{
    weir_sql_name name = parse_name(p, "an expression");
    if (is_tk(p, WEIR__SQL_TK_LPAREN) && is_json_func(&name))
        return parse_json_call(p, name);
    if (is_tk(p, WEIR__SQL_TK_LPAREN))
        return parse_call_rest(p, name);
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_COLUMN, name.loc);
    e->u.column = name;
    return finish(p, e);
}

/*
 * (a - b) unit [TO unit2], after the ')': the difference of two points in
 * time as an INTERVAL of that qualifier (Calcite's datetime minus, which
 * Flink runs): $DATETIME_MINUS(a, b) with the units in the call.
 */
static weir_sql_expr *parse_datetime_minus(parser *p, weir_sql_expr *minus, weir_sql_loc lparen)
{
    weir_sql_loc qloc = cur(p)->loc;
    int32_t prec;
    weir_sql_time_unit from = parse_interval_unit(p, &prec), to = WEIR_SQL_UNIT_NONE;
    if (accept_kw(p, WEIR__SQL_KW_TO)) {
        to = parse_interval_unit(p, &prec);
        if (!valid_qualifier(from, to))
            parser_fail_at(p, qloc,
                           "invalid interval qualifier %s TO %s (use YEAR TO MONTH, DAY TO HOUR|MINUTE|SECOND, HOUR "
                           "TO MINUTE|SECOND or MINUTE TO SECOND)",
                           weir__sql_unit_name(from), weir__sql_unit_name(to));
    }
    weir_sql_ident *id = PNEW(p, weir_sql_ident);
    id->name = "$DATETIME_MINUS";
    id->len = (uint32_t)strlen(id->name);
    id->loc = lparen;
    weir_sql_expr *e = new_call(p, (weir_sql_name){id, 1, lparen}, WEIR_SQL_CALL_DATETIME_MINUS);
    e->loc = lparen;
    vec v = {0};
    push_expr(p, &v, minus->u.binary.left);
    push_expr(p, &v, minus->u.binary.right);
    e->u.call.args = v.data;
    e->u.call.n_args = v.n;
    e->u.call.unit = from;
    e->u.call.unit_to = to;
    return finish(p, e);
}

static weir_sql_expr *parse_primary(parser *p)
{
    const token *t = cur(p);
    switch (t->type) {
    case WEIR__SQL_TK_INTEGER:
    case WEIR__SQL_TK_DECIMAL:
    case WEIR__SQL_TK_APPROX:
        return parse_number(p);
    case WEIR__SQL_TK_STRING:
    case WEIR__SQL_TK_BINSTRING: {
        weir_sql_expr *e =
            new_literal(p,
                        t->type == WEIR__SQL_TK_STRING ? WEIR_SQL_LIT_STRING
                                                       : WEIR_SQL_LIT_BINARY,
                        t->loc);
        e->u.lit.text = t->str;
        e->u.lit.len = t->str_len;
        parser_advance(p);
        return finish(p, e);
    }
    case WEIR__SQL_TK_QIDENT:
        return parse_name_or_call(p);
    case WEIR__SQL_TK_LPAREN: {
        if (at_query_start(p)) {
            weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_SUBQUERY, t->loc);
            parser_advance(p);
            e->u.subquery.query = parse_query(p);
            expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
            return finish(p, e);
        }
        weir_sql_loc lparen = t->loc;
        parser_advance(p);
        weir_sql_expr *e = parse_expr(p, PREC_MIN);
        if (is_tk(p, WEIR__SQL_TK_COMMA))
            return parse_overlaps(p, e, lparen);
        expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
        if (e->kind == WEIR_SQL_EXPR_BINARY && e->u.binary.op == WEIR_SQL_OP_SUB && cur(p)->type == WEIR__SQL_TK_IDENT &&
            kw_time_unit(cur(p)->kw) >= WEIR_SQL_UNIT_YEAR && kw_time_unit(cur(p)->kw) <= WEIR_SQL_UNIT_SECOND &&
            kw_time_unit(cur(p)->kw) != WEIR_SQL_UNIT_QUARTER && kw_time_unit(cur(p)->kw) != WEIR_SQL_UNIT_WEEK)
            return parse_datetime_minus(p, e, lparen);
        return e;
    }
    case WEIR__SQL_TK_IDENT:
        break;
    default:
        parser_expected(p, "an expression");
    }

    bool call_next = peek_is_tk(p, 1, WEIR__SQL_TK_LPAREN);
    switch (t->kw) {
    case WEIR__SQL_KW_NULL:
    case WEIR__SQL_KW_UNKNOWN: {
        weir_sql_expr *e = new_literal(p, WEIR_SQL_LIT_NULL, t->loc);
        parser_advance(p);
        return finish(p, e);
    }
    case WEIR__SQL_KW_TRUE:
    case WEIR__SQL_KW_FALSE: {
        weir_sql_expr *e = new_literal(p, WEIR_SQL_LIT_BOOLEAN, t->loc);
        e->u.lit.boolean = t->kw == WEIR__SQL_KW_TRUE;
        parser_advance(p);
        return finish(p, e);
    }
    case WEIR__SQL_KW_DATE:
    case WEIR__SQL_KW_TIME:
    case WEIR__SQL_KW_TIMESTAMP:
        return parse_typed_literal(p);
    case WEIR__SQL_KW_INTERVAL:
        return parse_interval(p);
    case WEIR__SQL_KW_CASE:
        return parse_case(p);
    case WEIR__SQL_KW_CAST:
        return parse_cast(p);
    case WEIR__SQL_KW_EXISTS:
        return parse_exists(p);
    case WEIR__SQL_KW_ARRAY:
        return parse_constructor(p, WEIR_SQL_EXPR_ARRAY);
    case WEIR__SQL_KW_MULTISET:
        /* Flink does not run the MULTISET value or query constructor either. */
        if (peek_is_tk(p, 1, WEIR__SQL_TK_LBRACKET) || call_next)
            parser_fail_at(p, t->loc, "the MULTISET%s constructor is not supported by weir (COLLECT(x) builds a MULTISET)",
                           call_next ? "(SELECT ...)" : "[...]");
        break;
    case WEIR__SQL_KW_CURRENT_DATE:
    case WEIR__SQL_KW_CURRENT_TIME:
    case WEIR__SQL_KW_CURRENT_TIMESTAMP:
    case WEIR__SQL_KW_LOCALTIME:
    case WEIR__SQL_KW_LOCALTIMESTAMP:
        return parse_niladic(p);
    case WEIR__SQL_KW_LEFT:
    case WEIR__SQL_KW_RIGHT:
        if (call_next)
            return parse_call_rest(p, name_from_token(p));
        break;
    case WEIR__SQL_KW_TRY_CAST:
        if (call_next)
            return parse_cast(p);
        break;
    case WEIR__SQL_KW_EXTRACT:
        if (call_next)
            return parse_extract(p);
        break;
    case WEIR__SQL_KW_MAP:
        if (peek_is_tk(p, 1, WEIR__SQL_TK_LBRACKET))
            return parse_constructor(p, WEIR_SQL_EXPR_MAP);
        break;
    case WEIR__SQL_KW_DESCRIPTOR:
        if (call_next)
            return parse_descriptor(p);
        break;
    case WEIR__SQL_KW_TRIM:
        if (call_next)
            return parse_trim(p);
        break;
    case WEIR__SQL_KW_POSITION:
        if (call_next)
            return parse_position(p);
        break;
    case WEIR__SQL_KW_SUBSTRING:
    case WEIR__SQL_KW_OVERLAY:
        if (call_next)
            return parse_substring_overlay(p, t->kw == WEIR__SQL_KW_OVERLAY);
        break;
    case WEIR__SQL_KW_FLOOR:
    case WEIR__SQL_KW_CEIL:
    case WEIR__SQL_KW_CEILING:
        if (call_next)
            return parse_floor_ceil(p);
        break;
    default:
        break;
    }
    if (tok_is_name(t))
        return parse_name_or_call(p);
    if (t->kw == WEIR__SQL_KW_TABLE)
        parser_fail_at(p, t->loc,
                       "TABLE t is only allowed as an argument of a table "
                       "function such as TUMBLE(TABLE t, ...)");
    parser_expected(p, "an expression");
}

/* -------------------------------------------------------------- operators */

static weir_sql_expr *binary_node(parser *p, weir_sql_binop op, weir_sql_loc op_loc, weir_sql_expr *left,
                                  weir_sql_expr *right)
{
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_BINARY, left->loc);
    e->u.binary.op = op;
    e->u.binary.op_loc = op_loc;
    e->u.binary.left = left;
    e->u.binary.right = right;
    return finish(p, e);
}

/* A row constructor: ROW(a, b, ...) or (a, b, ...). */
bool weir__sql_is_row_ctor(const weir_sql_expr *e)
{
    return e->kind == WEIR_SQL_EXPR_CALL && e->u.call.name.n_parts == 1 && !e->u.call.over && !e->u.call.filter &&
           e->u.call.syntax == WEIR_SQL_CALL_PLAIN && !strcasecmp(e->u.call.name.parts[0].name, "ROW");
}

static bool is_cmp(weir_sql_binop op)
{
    return op == WEIR_SQL_OP_EQ || op == WEIR_SQL_OP_NE || op == WEIR_SQL_OP_LT || op == WEIR_SQL_OP_LE ||
           op == WEIR_SQL_OP_GT || op == WEIR_SQL_OP_GE;
}

/*
 * The comparison of two row constructors, field by field, as Calcite
 * expands it (exact under three-valued logic, as SQL defines row
 * comparison):
 *   (a, b) =  (c, d)   a = c AND b = d
 *   (a, b) <> (c, d)   a <> c OR b <> d
 *   (a, b) <  (c, d)   a < c OR (a = c AND b < d)     (<=, >, >= alike:
 *                      the last field takes the operator, the others its strict form)
 */
static weir_sql_expr *row_compare(parser *p, weir_sql_binop op, weir_sql_loc op_loc, weir_sql_expr *l,
                                  weir_sql_expr *r)
{
    uint32_t n = l->u.call.n_args;
    if (n != r->u.call.n_args)
        parser_fail_at(p, op_loc, "cannot compare a row of %u fields with a row of %u fields", n,
                       r->u.call.n_args);
    weir_sql_expr *const *a = l->u.call.args, *const *b = r->u.call.args;
    for (uint32_t i = 0; i < n; i++)
        a[i]->once = b[i]->once = true; /* shared by the expansion (and by an IN list's rows) */
    if (op == WEIR_SQL_OP_EQ || op == WEIR_SQL_OP_NE) {
        weir_sql_expr *acc = binary_node(p, op, op_loc, a[0], b[0]);
        for (uint32_t i = 1; i < n; i++)
            acc = binary_node(p, op == WEIR_SQL_OP_EQ ? WEIR_SQL_OP_AND : WEIR_SQL_OP_OR, op_loc, acc,
                              binary_node(p, op, op_loc, a[i], b[i]));
        return acc;
    }
    weir_sql_binop strict = op == WEIR_SQL_OP_LE ? WEIR_SQL_OP_LT : op == WEIR_SQL_OP_GE ? WEIR_SQL_OP_GT : op;
    weir_sql_expr *acc = binary_node(p, op, op_loc, a[n - 1], b[n - 1]);
    for (uint32_t i = n - 1; i-- > 0;) {
        weir_sql_expr *eq = binary_node(p, WEIR_SQL_OP_EQ, op_loc, a[i], b[i]);
        acc = binary_node(p, WEIR_SQL_OP_OR, op_loc, binary_node(p, strict, op_loc, a[i], b[i]),
                          binary_node(p, WEIR_SQL_OP_AND, op_loc, eq, acc));
    }
    return acc;
}

/*
 * A scalar subquery compared with a row constructor ((a, b) = (SELECT x, y
 * FROM ...)): a row of one scalar subquery per field, (SELECT x FROM ...)
 * and (SELECT y FROM ...), each with the same FROM, WHERE, GROUP BY and
 * HAVING. The subquery gives at most one row (a second one fails the job,
 * in every field's subquery alike), so each field reads that row's value,
 * or NULL over no rows, as the row's fields would; then the rows compare
 * field by field (row_compare). DISTINCT, LIMIT, set operations and `*`
 * could make the fields' rows differ: refused.
 */
static weir_sql_expr *subquery_row(parser *p, weir_sql_expr *sub, uint32_t n, weir_sql_loc op_loc)
{
    const weir_sql_query *q = sub->u.subquery.query;
    const char *bad = q->kind != WEIR_SQL_QUERY_SELECT ? "a set operation or VALUES"
                      : q->n_with                      ? "WITH"
                      : q->limit || q->offset          ? "LIMIT or OFFSET"
                      : q->u.select->distinct          ? "DISTINCT"
                                                       : NULL;
    for (uint32_t i = 0; !bad && i < q->u.select->n_items; i++)
        if (q->u.select->items[i].expr->kind == WEIR_SQL_EXPR_STAR)
            bad = "'*'";
    if (bad)
        parser_fail_at(p, sub->loc,
                       "a row compared with a subquery needs a SELECT of one column per field, "
                       "without %s",
                       bad);
    if (q->u.select->n_items != n)
        parser_fail_at(p, op_loc, "cannot compare a row of %u fields with a subquery of %u columns", n,
                       q->u.select->n_items);
    weir_sql_expr **fields = parser_alloc(p, n * sizeof *fields);
    for (uint32_t i = 0; i < n; i++) {
        weir_sql_select *s = PNEW(p, weir_sql_select);
        weir_sql_query *fq = PNEW(p, weir_sql_query);
        *s = *q->u.select;
        s->items = &q->u.select->items[i];
        s->n_items = 1;
        *fq = *q;
        fq->u.select = s;
        fq->n_order_by = 0; /* at most one row: an ORDER BY orders nothing */
        fq->order_by = NULL;
        weir_sql_expr *f = new_expr(p, WEIR_SQL_EXPR_SUBQUERY, sub->loc);
        f->end = sub->end;
        f->height = sub->height;
        f->u.subquery.query = fq;
        fields[i] = f;
    }
    weir_sql_expr *row = new_expr(p, WEIR_SQL_EXPR_CALL, sub->loc);
    row->end = sub->end;
    row->height = sub->height + 1;
    row->u.call.name = (weir_sql_name){PNEW(p, weir_sql_ident), 1, sub->loc};
    row->u.call.name.parts[0] = (weir_sql_ident){.name = "ROW", .len = 3, .loc = sub->loc};
    row->u.call.args = fields;
    row->u.call.n_args = n;
    return row;
}

static weir_sql_expr *make_binary(parser *p, weir_sql_binop op,
                                  weir_sql_loc op_loc, weir_sql_expr *left,
                                  weir_sql_expr *right)
{
    if (is_cmp(op) && weir__sql_is_row_ctor(left) && right->kind == WEIR_SQL_EXPR_SUBQUERY)
        right = subquery_row(p, right, left->u.call.n_args, op_loc);
    else if (is_cmp(op) && weir__sql_is_row_ctor(right) && left->kind == WEIR_SQL_EXPR_SUBQUERY)
        left = subquery_row(p, left, right->u.call.n_args, op_loc);
    if (is_cmp(op) && weir__sql_is_row_ctor(left) && weir__sql_is_row_ctor(right))
        return row_compare(p, op, op_loc, left, right);
    return binary_node(p, op, op_loc, left, right);
}

static weir_sql_expr *parse_prefix(parser *p, int min_prec)
{
    const token *t = cur(p);
    weir_sql_unop op;
    int prec;
    /* NOT binds loosely, so `a = NOT b` means `a = (NOT b)`: require the
     * parentheses, as the canonical form has them. (Accepting it bare
     * would let printing add nesting the input did not have.) */
    if (tok_is_kw(t, WEIR__SQL_KW_NOT) && min_prec > PREC_NOT)
        parser_expected(p, "an expression (write NOT ... in parentheses "
                           "here)");
    if (tok_is_kw(t, WEIR__SQL_KW_NOT))
        op = WEIR_SQL_OP_NOT, prec = PREC_NOT;
    else if (t->type == WEIR__SQL_TK_MINUS)
        op = WEIR_SQL_OP_NEG, prec = PREC_UNARY;
    else if (t->type == WEIR__SQL_TK_PLUS)
        op = WEIR_SQL_OP_PLUS, prec = PREC_UNARY;
    else
        return parse_primary(p);
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_UNARY, t->loc);
    parser_advance(p);
    e->u.unary.op = op;
    e->u.unary.operand = parse_expr(p, prec);
    return finish(p, e);
}

/* NOT x, at loc. */
static weir_sql_expr *negation(parser *p, weir_sql_loc loc, weir_sql_expr *x)
{
    weir_sql_expr *n = new_expr(p, WEIR_SQL_EXPR_UNARY, loc);
    n->u.unary.op = WEIR_SQL_OP_NOT;
    n->u.unary.operand = x;
    return finish(p, n);
}

/*
 * (a, b) [NOT] IN ((1, 2), (3, 4)), the IN list e of a row constructor, as
 * Calcite expands it: [NOT] ((a, b) = (1, 2) OR (a, b) = (3, 4)), each
 * comparison field by field (row_compare).
 */
static weir_sql_expr *row_in_list(parser *p, weir_sql_expr *e)
{
    weir_sql_expr *acc = NULL;
    for (uint32_t i = 0; i < e->u.in_list.n_items; i++) {
        weir_sql_expr *it = e->u.in_list.items[i];
        if (!weir__sql_is_row_ctor(it))
            parser_fail_at(p, it->loc, "the IN list of a row (a, b, ...) must hold rows such as (1, 2)");
        weir_sql_expr *eq = row_compare(p, WEIR_SQL_OP_EQ, it->loc, e->u.in_list.operand, it);
        acc = acc ? binary_node(p, WEIR_SQL_OP_OR, it->loc, acc, eq) : eq;
    }
    return e->u.in_list.negated ? negation(p, e->loc, acc) : acc;
}

/* x [NOT] IN (list | query); at IN */
static weir_sql_expr *parse_in(parser *p, weir_sql_expr *left, bool negated)
{
    expect_kw(p, WEIR__SQL_KW_IN);
    if (!is_tk(p, WEIR__SQL_TK_LPAREN))
        parser_expected(p, "'('");
    if (at_query_start(p)) {
        weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_IN_QUERY, left->loc);
        e->u.in_query.negated = negated;
        e->u.in_query.operand = left;
        parser_advance(p);
        e->u.in_query.query = parse_query(p);
        expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
        return finish(p, e);
    }
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_IN_LIST, left->loc);
    e->u.in_list.negated = negated;
    e->u.in_list.operand = left;
    parser_advance(p);
    vec v = {0};
    do {
        push_expr(p, &v, parse_expr(p, PREC_MIN));
    } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
    e->u.in_list.items = v.data;
    e->u.in_list.n_items = v.n;
    if (weir__sql_is_row_ctor(left))
        return row_in_list(p, e);
    return finish(p, e);
}

/* x IS [NOT] NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM y; at IS */
static weir_sql_expr *parse_is(parser *p, weir_sql_expr *left)
{
    weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_IS, left->loc);
    e->u.is.operand = left;
    expect_kw(p, WEIR__SQL_KW_IS);
    e->u.is.negated = accept_kw(p, WEIR__SQL_KW_NOT);
    if (accept_word(p, "JSON")) {
        /* x IS [NOT] JSON [VALUE|SCALAR|ARRAY|OBJECT]: a call of "IS JSON". */
        int kind = accept_word(p, "SCALAR")   ? 1
                   : accept_word(p, "ARRAY")  ? 2
                   : accept_word(p, "OBJECT") ? 3
                                              : (accept_word(p, "VALUE"), 0);
        weir_sql_name n;
        n.loc = e->loc;
        n.n_parts = 1;
        n.parts = PNEW(p, weir_sql_ident);
        n.parts->loc = e->loc;
        n.parts->name = "IS JSON";
        n.parts->len = 7;
        weir_sql_expr *c = new_call(p, n, WEIR_SQL_CALL_JSON);
        vec args = {0};
        push_expr(p, &args, left);
        push_expr(p, &args, clause_int(p, kind, e->loc));
        c->u.call.args = args.data;
        c->u.call.n_args = args.n;
        c = finish(p, c);
        return e->u.is.negated ? negation(p, e->loc, c) : c;
    }
    if (accept_kw(p, WEIR__SQL_KW_NULL)) {
        e->u.is.test = WEIR_SQL_IS_NULL;
    } else if (accept_kw(p, WEIR__SQL_KW_TRUE)) {
        e->u.is.test = WEIR_SQL_IS_TRUE;
    } else if (accept_kw(p, WEIR__SQL_KW_FALSE)) {
        e->u.is.test = WEIR_SQL_IS_FALSE;
    } else if (accept_kw(p, WEIR__SQL_KW_UNKNOWN)) {
        e->u.is.test = WEIR_SQL_IS_UNKNOWN;
    } else if (accept_kw(p, WEIR__SQL_KW_DISTINCT)) {
        expect_kw(p, WEIR__SQL_KW_FROM);
        e->u.is.test = WEIR_SQL_IS_DISTINCT_FROM;
        e->u.is.other = parse_expr(p, PREC_IS + 1);
    } else if (next_word_is(p, 0, "A") && next_word_is(p, 1, "SET")) {
        /* Named, as the other MULTISET operators (Flink does not run it). */
        parser_fail_at(p, e->loc, "IS %sA SET (a MULTISET operator) is not supported by weir",
                       e->u.is.negated ? "NOT " : "");
    } else {
        parser_expected(p, e->u.is.negated
                               ? "NULL, TRUE, FALSE, UNKNOWN, JSON or DISTINCT FROM"
                               : "NULL, NOT, TRUE, FALSE, UNKNOWN, JSON or "
                                 "DISTINCT FROM");
    }
    return finish(p, e);
}

weir_sql_expr *parse_expr(parser *p, int min_prec)
{
    parser_enter(p);
    weir_sql_expr *left = parse_prefix(p, min_prec);
    for (;;) {
        const token *t = cur(p);
        weir_sql_loc op_loc = t->loc;
        bool negated = false;
        weir__sql_kw kw =
            t->type == WEIR__SQL_TK_IDENT ? t->kw : WEIR__SQL_KW_NONE;
        if (kw == WEIR__SQL_KW_NOT) {
            const token *n = peek_tok(p, 1);
            if (!tok_is_kw(n, WEIR__SQL_KW_BETWEEN) &&
                !tok_is_kw(n, WEIR__SQL_KW_IN) &&
                !tok_is_kw(n, WEIR__SQL_KW_LIKE) &&
                !tok_is_kw(n, WEIR__SQL_KW_SIMILAR))
                break;
            if (PREC_LIKE < min_prec)
                break;
            parser_advance(p);
            negated = true;
            t = cur(p);
            kw = t->kw;
        }
        weir_sql_binop op;
        int prec;
        switch (t->type) {
        case WEIR__SQL_TK_EQ:
            op = WEIR_SQL_OP_EQ, prec = PREC_CMP;
            break;
        case WEIR__SQL_TK_NE:
            op = WEIR_SQL_OP_NE, prec = PREC_CMP;
            break;
        case WEIR__SQL_TK_LT:
            op = WEIR_SQL_OP_LT, prec = PREC_CMP;
            break;
        case WEIR__SQL_TK_LE:
            op = WEIR_SQL_OP_LE, prec = PREC_CMP;
            break;
        case WEIR__SQL_TK_GT:
            op = WEIR_SQL_OP_GT, prec = PREC_CMP;
            break;
        case WEIR__SQL_TK_GE:
            op = WEIR_SQL_OP_GE, prec = PREC_CMP;
            break;
        case WEIR__SQL_TK_PLUS:
            op = WEIR_SQL_OP_ADD, prec = PREC_ADD;
            break;
        case WEIR__SQL_TK_MINUS:
            op = WEIR_SQL_OP_SUB, prec = PREC_ADD;
            break;
        case WEIR__SQL_TK_STAR:
            op = WEIR_SQL_OP_MUL, prec = PREC_MUL;
            break;
        case WEIR__SQL_TK_SLASH:
            op = WEIR_SQL_OP_DIV, prec = PREC_MUL;
            break;
        case WEIR__SQL_TK_PERCENT:
            op = WEIR_SQL_OP_MOD, prec = PREC_MUL;
            break;
        case WEIR__SQL_TK_CONCAT:
            op = WEIR_SQL_OP_CONCAT, prec = PREC_MUL;
            break;
        case WEIR__SQL_TK_LBRACKET:
        case WEIR__SQL_TK_DOT:
            op = WEIR_SQL_OP_OR, prec = PREC_POSTFIX;
            break;
        case WEIR__SQL_TK_IDENT:
            switch (kw) {
            case WEIR__SQL_KW_OR:
                op = WEIR_SQL_OP_OR, prec = PREC_OR;
                break;
            case WEIR__SQL_KW_AND:
                op = WEIR_SQL_OP_AND, prec = PREC_AND;
                break;
            case WEIR__SQL_KW_IS:
                op = WEIR_SQL_OP_OR, prec = PREC_IS;
                break;
            case WEIR__SQL_KW_BETWEEN:
            case WEIR__SQL_KW_IN:
            case WEIR__SQL_KW_LIKE:
            case WEIR__SQL_KW_SIMILAR:
                op = WEIR_SQL_OP_OR, prec = PREC_LIKE;
                break;
            default:
                /* Flink's MULTISET operators: named, not "expected ';'". */
                if ((next_word_is(p, 0, "MEMBER") || next_word_is(p, 0, "SUBMULTISET")) &&
                    next_word_is(p, 1, "OF"))
                    parser_fail_at(p, op_loc, "%s OF (a MULTISET operator) is not supported by weir",
                                   next_word_is(p, 0, "MEMBER") ? "MEMBER" : "SUBMULTISET");
                if (kw == WEIR__SQL_KW_MULTISET &&
                    (next_word_is(p, 1, "UNION") || next_word_is(p, 1, "INTERSECT") || next_word_is(p, 1, "EXCEPT")))
                    parser_fail_at(p, op_loc, "MULTISET %s (a MULTISET operator) is not supported by weir",
                                   next_word_is(p, 1, "UNION") ? "UNION" : next_word_is(p, 1, "INTERSECT") ? "INTERSECT" : "EXCEPT");
                prec = -1, op = WEIR_SQL_OP_OR;
                break;
            }
            break;
        default:
            prec = -1, op = WEIR_SQL_OP_OR;
            break;
        }
        if (negated && prec != PREC_LIKE)
            parser_expected(p, "BETWEEN, IN, LIKE or SIMILAR TO");
        if (prec < 0 || prec < min_prec)
            break;

        if (t->type == WEIR__SQL_TK_LBRACKET) {
            weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_ITEM, left->loc);
            parser_advance(p);
            e->u.item.operand = left;
            e->u.item.index = parse_expr(p, PREC_MIN);
            expect_tk(p, WEIR__SQL_TK_RBRACKET, "']'");
            left = finish(p, e);
        } else if (t->type == WEIR__SQL_TK_DOT) {
            /* a field of a ROW value: items[1].sku, (r).f (a column path a.b.c is one name) */
            weir_sql_expr *f = new_expr(p, WEIR_SQL_EXPR_ITEM, left->loc);
            parser_advance(p);
            weir_sql_ident id = parse_ident(p, "a field name");
            f->u.item.operand = left;
            f->u.item.field = true;
            f->u.item.index = clause_str(p, id.name, id.len, id.loc);
            left = finish(p, f);
        } else if (kw == WEIR__SQL_KW_IS) {
            left = parse_is(p, left);
        } else if (kw == WEIR__SQL_KW_IN) {
            left = parse_in(p, left, negated);
        } else if (kw == WEIR__SQL_KW_BETWEEN) {
            weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_BETWEEN, left->loc);
            parser_advance(p);
            e->u.between.negated = negated;
            if (accept_kw(p, WEIR__SQL_KW_SYMMETRIC))
                e->u.between.symmetric = true;
            else
                accept_kw(p, WEIR__SQL_KW_ASYMMETRIC);
            e->u.between.operand = left;
            e->u.between.low = parse_expr(p, PREC_ADD);
            expect_kw(p, WEIR__SQL_KW_AND);
            e->u.between.high = parse_expr(p, PREC_ADD);
            left = finish(p, e);
        } else if (kw == WEIR__SQL_KW_LIKE || kw == WEIR__SQL_KW_SIMILAR) {
            weir_sql_expr *e = new_expr(p, WEIR_SQL_EXPR_LIKE, left->loc);
            parser_advance(p);
            if (kw == WEIR__SQL_KW_SIMILAR) {
                expect_kw(p, WEIR__SQL_KW_TO);
                e->u.like.similar = true;
            }
            e->u.like.negated = negated;
            e->u.like.operand = left;
            e->u.like.pattern = parse_expr(p, PREC_ADD);
            if (accept_kw(p, WEIR__SQL_KW_ESCAPE))
                e->u.like.escape = parse_expr(p, PREC_ADD);
            left = finish(p, e);
        } else {
            parser_advance(p);
            weir_sql_expr *right = parse_expr(p, prec + 1);
            left = make_binary(p, op, op_loc, left, right);
        }
    }
    parser_leave(p);
    return left;
}
