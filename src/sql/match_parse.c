/*
 * sql/match_parse.c - the MATCH_RECOGNIZE clause of a FROM item.
 *
 *   t MATCH_RECOGNIZE (
 *     [PARTITION BY e, ...] ORDER BY e [ASC|DESC], ...
 *     [MEASURES e [AS] name, ...]
 *     [ONE ROW PER MATCH]
 *     [AFTER MATCH SKIP {PAST LAST ROW | TO NEXT ROW | TO FIRST v | TO LAST v | TO v}]
 *     PATTERN (v[quantifier] ...) [WITHIN INTERVAL '...' unit]
 *     DEFINE v AS condition, ...
 *   ) [AS alias]
 *
 * Quantifiers: *, +, ?, {n}, {n,}, {n,m}, {,m}, each reluctant with a
 * trailing '?'. The clause's words other than ORDER, BY, PARTITION, ALL
 * and TO are no keywords of the dialect: they are matched by their text.
 * What Flink refuses is refused here by name: ALL ROWS PER MATCH, pattern
 * groups, alternation, PERMUTE, anchors, exclusions.
 */
#include <string.h>
#include <strings.h>

#include "sql/parser_internal.h"

static uint32_t parse_count(parser *p)
{
    const token *t = cur(p);
    if (t->type != WEIR__SQL_TK_INTEGER)
        parser_expected(p, "a number of rows");
    uint64_t v = 0;
    for (uint32_t i = 0; i < t->len; i++) {
        v = v * 10 + (uint64_t)(p->src[t->loc.offset + i] - '0');
        if (v > 10000)
            parser_fail_at(p, t->loc, "a pattern quantifier may count at most 10000 rows");
    }
    parser_advance(p);
    return (uint32_t)v;
}

/* After a variable: its quantifier, if any. */
static void parse_quantifier(parser *p, weir_sql_mr_term *t)
{
    t->min = t->max = 1;
    weir_sql_loc at = cur(p)->loc;
    if (accept_tk(p, WEIR__SQL_TK_STAR)) {
        t->min = 0, t->max = WEIR_SQL_MR_UNBOUNDED;
    } else if (accept_tk(p, WEIR__SQL_TK_PLUS)) {
        t->min = 1, t->max = WEIR_SQL_MR_UNBOUNDED;
    } else if (accept_tk(p, WEIR__SQL_TK_QUESTION)) {
        t->min = 0, t->max = 1;
    } else if (accept_tk(p, WEIR__SQL_TK_LBRACE)) {
        if (is_tk(p, WEIR__SQL_TK_MINUS))
            parser_fail_at(p, at, "pattern exclusion {- ... -} is not supported (Flink neither)");
        t->min = is_tk(p, WEIR__SQL_TK_COMMA) ? 0 : parse_count(p);
        if (accept_tk(p, WEIR__SQL_TK_COMMA))
            t->max = is_tk(p, WEIR__SQL_TK_RBRACE) ? WEIR_SQL_MR_UNBOUNDED : parse_count(p);
        else
            t->max = t->min;
        expect_tk(p, WEIR__SQL_TK_RBRACE, "'}'");
        if (t->max < t->min)
            parser_fail_at(p, at, "quantifier {%u,%u}: the upper bound is below the lower one", t->min, t->max);
        if (t->max == 0)
            parser_fail_at(p, at, "quantifier {0}: a variable must match at least once");
    } else {
        return;
    }
    t->quantified = true;
    if (accept_tk(p, WEIR__SQL_TK_QUESTION))
        t->reluctant = true;
}

static void parse_pattern(parser *p, weir_sql_match *m)
{
    m->pattern_loc = cur(p)->loc;
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'(' after PATTERN");
    vec v = {0};
    for (;;) {
        const token *t = cur(p);
        if (t->type == WEIR__SQL_TK_LPAREN)
            parser_fail_at(p, t->loc,
                           "pattern groups (a quantifier over a parenthesised part of a PATTERN) are not "
                           "supported (Flink neither)");
        if (t->type == WEIR__SQL_TK_BAR)
            parser_fail_at(p, t->loc, "pattern alternation '|' is not supported (Flink neither)");
        if (next_word_is(p, 0, "PERMUTE") && peek_is_tk(p, 1, WEIR__SQL_TK_LPAREN))
            parser_fail_at(p, t->loc, "PERMUTE in a PATTERN is not supported (Flink neither)");
        if (t->type == WEIR__SQL_TK_RPAREN && v.n)
            break;
        weir_sql_mr_term *term = vec_push(p, &v, sizeof *term);
        term->var = parse_ident(p, "a pattern variable");
        parse_quantifier(p, term);
    }
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    m->terms = v.data;
    m->n_terms = v.n;
}

static void parse_skip(parser *p, weir_sql_match *m)
{
    expect_word(p, "MATCH");
    expect_word(p, "SKIP");
    if (accept_word(p, "PAST")) {
        expect_kw(p, WEIR__SQL_KW_LAST);
        expect_kw(p, WEIR__SQL_KW_ROW);
        m->skip = WEIR_SQL_MR_SKIP_PAST_LAST_ROW;
        return;
    }
    if (!accept_kw(p, WEIR__SQL_KW_TO))
        parser_expected(p, "PAST LAST ROW or TO");
    if (is_kw(p, WEIR__SQL_KW_NEXT) && peek_is_kw(p, 1, WEIR__SQL_KW_ROW)) {
        parser_advance(p);
        parser_advance(p);
        m->skip = WEIR_SQL_MR_SKIP_TO_NEXT_ROW;
        return;
    }
    m->skip = WEIR_SQL_MR_SKIP_TO_LAST;
    if ((is_kw(p, WEIR__SQL_KW_FIRST) || is_kw(p, WEIR__SQL_KW_LAST)) && tok_is_name(peek_tok(p, 1))) {
        m->skip = is_kw(p, WEIR__SQL_KW_FIRST) ? WEIR_SQL_MR_SKIP_TO_FIRST : WEIR_SQL_MR_SKIP_TO_LAST;
        parser_advance(p);
    }
    m->skip_var = parse_ident_ptr(p, "a pattern variable, FIRST v, LAST v or NEXT ROW");
}

weir_sql_match *parse_match_recognize(parser *p)
{
    parser_enter(p);
    const token *kw = cur(p);
    uint32_t start = kw->loc.offset;
    expect_kw(p, WEIR__SQL_KW_MATCH_RECOGNIZE);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'(' after MATCH_RECOGNIZE");
    weir_sql_match *m = PNEW(p, weir_sql_match);
    if (accept_kw(p, WEIR__SQL_KW_PARTITION)) {
        expect_kw(p, WEIR__SQL_KW_BY);
        vec v = {0};
        do {
            weir_sql_expr **e = vec_push(p, &v, sizeof *e);
            *e = parse_expr(p, PREC_MIN);
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        m->partition = v.data;
        m->n_partition = v.n;
    }
    m->order_loc = cur(p)->loc;
    if (!is_kw(p, WEIR__SQL_KW_ORDER))
        parser_expected(p, "ORDER BY (MATCH_RECOGNIZE orders its rows by a time attribute)");
    parse_order_by_list(p, &m->order, &m->n_order);
    if (accept_word(p, "MEASURES")) {
        vec v = {0};
        do {
            weir_sql_select_item *it = vec_push(p, &v, sizeof *it);
            it->expr = parse_expr(p, PREC_MIN);
            if (!accept_kw(p, WEIR__SQL_KW_AS) && !tok_is_name(cur(p)))
                parser_expected(p, "AS and a name for the measure");
            it->alias = parse_ident_ptr(p, "a name for the measure");
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        m->measures = v.data;
        m->n_measures = v.n;
    }
    if (is_kw(p, WEIR__SQL_KW_ALL) && peek_is_kw(p, 1, WEIR__SQL_KW_ROWS))
        parser_fail_at(p, cur(p)->loc,
                       "ALL ROWS PER MATCH is not supported (Flink neither): use ONE ROW PER MATCH");
    if (accept_word(p, "ONE")) {
        expect_kw(p, WEIR__SQL_KW_ROW);
        expect_word(p, "PER");
        expect_word(p, "MATCH");
    }
    if (accept_word(p, "AFTER"))
        parse_skip(p, m);
    if (!accept_word(p, "PATTERN"))
        parser_expected(p, "PATTERN");
    parse_pattern(p, m);
    if (accept_word(p, "WITHIN")) {
        if (!is_kw(p, WEIR__SQL_KW_INTERVAL))
            parser_expected(p, "INTERVAL after WITHIN");
        m->within = parse_expr(p, PREC_MIN);
    }
    if (next_word_is(p, 0, "SUBSET"))
        parser_fail_at(p, cur(p)->loc, "SUBSET in MATCH_RECOGNIZE is not supported (Flink neither)");
    if (accept_word(p, "DEFINE")) {
        vec v = {0};
        do {
            weir_sql_mr_define *d = vec_push(p, &v, sizeof *d);
            d->var = parse_ident(p, "a pattern variable");
            expect_kw(p, WEIR__SQL_KW_AS);
            d->cond = parse_expr(p, PREC_MIN);
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        m->defines = v.data;
        m->n_defines = v.n;
    } else {
        parser_expected(p, "DEFINE");
    }
    const token *close = expect_tk(p, WEIR__SQL_TK_RPAREN, "')' closing MATCH_RECOGNIZE");
    uint32_t end = close->loc.offset + close->len;
    m->text = parser_strndup(p, p->src + start, end - start);
    parser_leave(p);
    return m;
}
