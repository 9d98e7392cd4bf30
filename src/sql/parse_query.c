/*
 * sql/parse_query.c - query expressions: WITH, SELECT, VALUES, set
 * operations, ORDER BY / LIMIT / OFFSET / FETCH, the FROM clause (tables,
 * subqueries, table functions such as the window TVFs, UNNEST, joins,
 * FOR SYSTEM_TIME AS OF) and window specifications for OVER.
 *
 * Set operations follow SQL precedence: INTERSECT binds more tightly than
 * UNION and EXCEPT; all are left-associative. Joins (including the comma)
 * are left-associative at one level, as in Calcite: in `a, b JOIN c ON ...`
 * the ON condition can see a.
 */
#include <string.h>
#include <strings.h>

#include "sql/parser_internal.h"

static uint32_t qmax(uint32_t h, const weir_sql_expr *e)
{
    return e && e->height > h ? e->height : h;
}

static uint32_t tref_height(const weir_sql_table_ref *t);

static uint32_t select_height(const weir_sql_select *s)
{
    uint32_t h = 0;
    for (uint32_t i = 0; i < s->n_items; i++)
        h = qmax(h, s->items[i].expr);
    if (s->from && s->from->height > h)
        h = s->from->height;
    h = qmax(h, s->where);
    for (uint32_t i = 0; i < s->n_group_by; i++)
        h = qmax(h, s->group_by[i]);
    h = qmax(h, s->having);
    for (uint32_t i = 0; i < s->n_windows; i++) {
        uint32_t wh = window_height(s->windows[i].window);
        if (wh > h)
            h = wh;
    }
    return h;
}

uint32_t query_height(const weir_sql_query *q)
{
    uint32_t h = 0;
    for (uint32_t i = 0; i < q->n_with; i++)
        if (q->with[i].query->height > h)
            h = q->with[i].query->height;
    switch (q->kind) {
    case WEIR_SQL_QUERY_SELECT:
        if (select_height(q->u.select) > h)
            h = select_height(q->u.select);
        break;
    case WEIR_SQL_QUERY_SETOP:
        if (q->u.setop.left->height > h)
            h = q->u.setop.left->height;
        if (q->u.setop.right->height > h)
            h = q->u.setop.right->height;
        break;
    case WEIR_SQL_QUERY_VALUES:
        for (uint32_t r = 0; r < q->u.values.n_rows; r++)
            for (uint32_t i = 0; i < q->u.values.rows[r].n_items; i++)
                h = qmax(h, q->u.values.rows[r].items[i]);
        break;
    }
    for (uint32_t i = 0; i < q->n_order_by; i++)
        h = qmax(h, q->order_by[i].expr);
    h = qmax(qmax(h, q->limit), q->offset);
    return h + 1;
}

static uint32_t tref_height(const weir_sql_table_ref *t)
{
    uint32_t h = 0;
    switch (t->kind) {
    case WEIR_SQL_FROM_TABLE:
        h = qmax(h, t->u.table.system_time);
        break;
    case WEIR_SQL_FROM_SUBQUERY:
        h = t->u.subquery.query->height;
        break;
    case WEIR_SQL_FROM_FUNCTION:
        h = t->u.function.call->height;
        break;
    case WEIR_SQL_FROM_UNNEST:
        for (uint32_t i = 0; i < t->u.unnest.n_args; i++)
            h = qmax(h, t->u.unnest.args[i]);
        break;
    case WEIR_SQL_FROM_MATCH:
        h = t->u.match.input->height; /* its expressions: checked as parsed */
        break;
    case WEIR_SQL_FROM_JOIN:
        h = t->u.join.left->height;
        if (t->u.join.right->height > h)
            h = t->u.join.right->height;
        h = qmax(h, t->u.join.on);
        break;
    }
    return h + 1;
}

static void finish_query(parser *p, weir_sql_query *q)
{
    q->end = prev_end(p);
    q->height = query_height(q);
    parser_check_height(p, q->height, q->loc);
}

static void finish_tref(parser *p, weir_sql_table_ref *t)
{
    t->end = prev_end(p);
    t->height = tref_height(t);
    parser_check_height(p, t->height, t->loc);
}

static void push_expr(parser *p, vec *v, weir_sql_expr *e)
{
    *(weir_sql_expr **)vec_push(p, v, sizeof(void *)) = e;
}

/* ------------------------------------------------------------ ORDER BY */

void parse_order_by_list(parser *p, weir_sql_order_item **out, uint32_t *n)
{
    expect_kw(p, WEIR__SQL_KW_ORDER);
    expect_kw(p, WEIR__SQL_KW_BY);
    vec v = {0};
    do {
        weir_sql_order_item *o = vec_push(p, &v, sizeof *o);
        o->expr = parse_expr(p, PREC_MIN);
        if (accept_kw(p, WEIR__SQL_KW_ASC))
            o->dir = WEIR_SQL_ORDER_ASC;
        else if (accept_kw(p, WEIR__SQL_KW_DESC))
            o->dir = WEIR_SQL_ORDER_DESC;
        if (accept_kw(p, WEIR__SQL_KW_NULLS)) {
            if (accept_kw(p, WEIR__SQL_KW_FIRST))
                o->nulls = WEIR_SQL_NULLS_FIRST;
            else if (accept_kw(p, WEIR__SQL_KW_LAST))
                o->nulls = WEIR_SQL_NULLS_LAST;
            else
                parser_expected(p, "FIRST or LAST");
        }
    } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    *out = v.data;
    *n = v.n;
}

/* --------------------------------------------------------------- windows */

static void parse_bound(parser *p, weir_sql_bound *b)
{
    b->loc = cur(p)->loc;
    if (is_kw(p, WEIR__SQL_KW_UNBOUNDED)) {
        parser_advance(p);
        if (accept_kw(p, WEIR__SQL_KW_PRECEDING))
            b->kind = WEIR_SQL_BOUND_UNBOUNDED_PRECEDING;
        else if (accept_kw(p, WEIR__SQL_KW_FOLLOWING))
            b->kind = WEIR_SQL_BOUND_UNBOUNDED_FOLLOWING;
        else
            parser_expected(p, "PRECEDING or FOLLOWING");
        return;
    }
    if (is_kw(p, WEIR__SQL_KW_CURRENT)) {
        parser_advance(p);
        expect_kw(p, WEIR__SQL_KW_ROW);
        b->kind = WEIR_SQL_BOUND_CURRENT_ROW;
        return;
    }
    if (is_kw(p, WEIR__SQL_KW_PRECEDING) || is_kw(p, WEIR__SQL_KW_FOLLOWING) ||
        is_tk(p, WEIR__SQL_TK_RPAREN) || is_kw(p, WEIR__SQL_KW_AND))
        parser_expected(p, "UNBOUNDED, CURRENT ROW or an offset (such as 10 "
                           "or INTERVAL '1' HOUR)");
    b->offset = parse_expr(p, PREC_ADD);
    if (accept_kw(p, WEIR__SQL_KW_PRECEDING))
        b->kind = WEIR_SQL_BOUND_PRECEDING;
    else if (accept_kw(p, WEIR__SQL_KW_FOLLOWING))
        b->kind = WEIR_SQL_BOUND_FOLLOWING;
    else
        parser_expected(p, "PRECEDING or FOLLOWING");
}

weir_sql_window *parse_window_spec(parser *p)
{
    weir_sql_window *w = PNEW(p, weir_sql_window);
    w->loc = cur(p)->loc;
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    parser_enter(p);
    if (tok_is_name(cur(p)) && !is_kw(p, WEIR__SQL_KW_ROWS) &&
        !is_kw(p, WEIR__SQL_KW_RANGE))
        w->ref = parse_ident_ptr(p, "a window name");
    if (accept_kw(p, WEIR__SQL_KW_PARTITION)) {
        expect_kw(p, WEIR__SQL_KW_BY);
        vec v = {0};
        do {
            push_expr(p, &v, parse_expr(p, PREC_MIN));
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        w->partition_by = v.data;
        w->n_partition_by = v.n;
    }
    if (is_kw(p, WEIR__SQL_KW_ORDER))
        parse_order_by_list(p, &w->order_by, &w->n_order_by);
    if (is_kw(p, WEIR__SQL_KW_ROWS) || is_kw(p, WEIR__SQL_KW_RANGE)) {
        weir_sql_frame *f = PNEW(p, weir_sql_frame);
        f->loc = cur(p)->loc;
        f->rows = is_kw(p, WEIR__SQL_KW_ROWS);
        parser_advance(p);
        if (accept_kw(p, WEIR__SQL_KW_BETWEEN)) {
            f->between = true;
            parse_bound(p, &f->start);
            expect_kw(p, WEIR__SQL_KW_AND);
            parse_bound(p, &f->end);
        } else {
            parse_bound(p, &f->start);
            f->end.kind = WEIR_SQL_BOUND_CURRENT_ROW;
            f->end.loc = f->start.loc;
        }
        w->frame = f;
    }
    if (!is_tk(p, WEIR__SQL_TK_RPAREN)) {
        const char *what = w->frame        ? "')'"
                           : w->n_order_by ? "ROWS, RANGE or ')'"
                           : w->n_partition_by
                               ? "',', ORDER BY, ROWS, RANGE or ')'"
                               : "PARTITION BY, ORDER BY, ROWS, RANGE or ')'";
        parser_expected(p, what);
    }
    parser_advance(p);
    parser_leave(p);
    return w;
}

/* ------------------------------------------------------------------ FROM */

static weir_sql_table_ref *new_tref(parser *p, weir_sql_table_ref_kind kind,
                                    weir_sql_loc loc)
{
    weir_sql_table_ref *t = PNEW(p, weir_sql_table_ref);
    t->kind = kind;
    t->loc = loc;
    return t;
}

/* [AS] alias [(c1, ...)] */
static void parse_table_alias(parser *p, weir_sql_table_ref *t)
{
    if (accept_kw(p, WEIR__SQL_KW_AS)) {
        t->alias = parse_ident_ptr(p, "an alias");
    } else if (tok_is_name(cur(p))) {
        p->alias_tok = (int32_t)p->pos;
        t->alias = parse_ident_ptr(p, "an alias");
    } else {
        return;
    }
    if (is_tk(p, WEIR__SQL_TK_LPAREN))
        parse_ident_list(p, &t->column_aliases, &t->n_column_aliases,
                         "a column name");
}

static weir_sql_table_ref *parse_from_list(parser *p);

/* TABLE(f(...)) after TABLE; the call must be a function call. */
static weir_sql_expr *parse_table_function_call(parser *p)
{
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    const token *t = cur(p);
    if (!(tok_is_name(t) && (peek_is_tk(p, 1, WEIR__SQL_TK_LPAREN) ||
                             peek_is_tk(p, 1, WEIR__SQL_TK_DOT))))
        parser_expected(p, "a table function call such as TUMBLE(...)");
    weir_sql_expr *call = parse_expr(p, PREC_MIN);
    if (call->kind != WEIR_SQL_EXPR_CALL ||
        call->u.call.syntax != WEIR_SQL_CALL_PLAIN)
        parser_fail_at(p, call->loc,
                       "expected a table function call such as "
                       "TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' "
                       "MINUTE)");
    expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
    return call;
}

/* Flink's model functions (ML_PREDICT, ML_EVALUATE over a CREATE MODEL),
 * refused by name at word k (in FROM, or inside TABLE(...)). */
static void refuse_model_function(parser *p, uint32_t k)
{
    static const char *const fns[] = {"ML_PREDICT", "ML_EVALUATE"};
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
        if (next_word_is(p, k, fns[i]) &&
            peek_tok(p, k + 1)->type == WEIR__SQL_TK_LPAREN)
            parser_fail_at(p, peek_tok(p, k)->loc,
                           "%s is not supported by weir: weir has no models "
                           "(CREATE MODEL) to run",
                           fns[i]);
}

static weir_sql_table_ref *parse_table_primary(parser *p)
{
    parser_enter(p);
    const token *t = cur(p);
    weir_sql_loc loc = t->loc;
    weir_sql_table_ref *r;
    bool lateral = accept_kw(p, WEIR__SQL_KW_LATERAL);
    if (is_kw(p, WEIR__SQL_KW_TABLE)) {
        parser_advance(p);
        if (is_tk(p, WEIR__SQL_TK_LPAREN))
            refuse_model_function(p, 1);
        r = new_tref(p, WEIR_SQL_FROM_FUNCTION, loc);
        r->u.function.lateral = lateral;
        r->u.function.call = parse_table_function_call(p);
        parse_table_alias(p, r);
    } else if (is_tk(p, WEIR__SQL_TK_LPAREN) && at_query_start(p)) {
        r = new_tref(p, WEIR_SQL_FROM_SUBQUERY, loc);
        r->u.subquery.lateral = lateral;
        parser_advance(p);
        r->u.subquery.query = parse_query(p);
        expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
        if (!lateral && is_kw(p, WEIR__SQL_KW_MATCH_RECOGNIZE)) {
            /* (SELECT ...) MATCH_RECOGNIZE (...) [AS alias], as a table's */
            finish_tref(p, r);
            weir_sql_table_ref *m = new_tref(p, WEIR_SQL_FROM_MATCH, loc);
            m->u.match.input = r;
            m->u.match.mr = parse_match_recognize(p);
            r = m;
        }
        parse_table_alias(p, r);
    } else if (lateral) {
        parser_expected(p, "TABLE or '(' after LATERAL");
    } else if (is_tk(p, WEIR__SQL_TK_LPAREN)) {
        /* A parenthesised join: (a JOIN b ON ...) */
        parser_advance(p);
        r = parse_from_list(p);
        expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
        parser_leave(p);
        return r;
    } else if (is_kw(p, WEIR__SQL_KW_UNNEST)) {
        parser_advance(p);
        r = new_tref(p, WEIR_SQL_FROM_UNNEST, loc);
        expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
        vec v = {0};
        do {
            push_expr(p, &v, parse_expr(p, PREC_MIN));
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
        r->u.unnest.args = v.data;
        r->u.unnest.n_args = v.n;
        if (is_kw(p, WEIR__SQL_KW_WITH) &&
            peek_is_kw(p, 1, WEIR__SQL_KW_ORDINALITY)) {
            parser_advance(p);
            parser_advance(p);
            r->u.unnest.with_ordinality = true;
        }
        parse_table_alias(p, r);
    } else {
        refuse_model_function(p, 0);
        r = new_tref(p, WEIR_SQL_FROM_TABLE, loc);
        r->u.table.name = parse_name(
            p, "a table name, a subquery in parentheses, TABLE(...), "
               "LATERAL or UNNEST");
        parse_hints_after(p, p->pos - 1, &r->u.table.hints,
                          &r->u.table.n_hints);
        if (is_kw(p, WEIR__SQL_KW_FOR)) {
            parser_advance(p);
            expect_kw(p, WEIR__SQL_KW_SYSTEM_TIME);
            expect_kw(p, WEIR__SQL_KW_AS);
            expect_kw(p, WEIR__SQL_KW_OF);
            r->u.table.system_time = parse_expr(p, PREC_MIN);
        }
        if (is_kw(p, WEIR__SQL_KW_MATCH_RECOGNIZE)) {
            finish_tref(p, r);
            weir_sql_table_ref *m = new_tref(p, WEIR_SQL_FROM_MATCH, loc);
            m->u.match.input = r;
            m->u.match.mr = parse_match_recognize(p);
            r = m;
        }
        parse_table_alias(p, r);
    }
    finish_tref(p, r);
    parser_leave(p);
    return r;
}

static bool join_requires_condition(const weir_sql_table_ref *j)
{
    return !j->u.join.natural && j->u.join.kind != WEIR_SQL_JOIN_CROSS &&
           j->u.join.kind != WEIR_SQL_JOIN_COMMA;
}

static weir_sql_table_ref *parse_from_list(parser *p)
{
    weir_sql_table_ref *left = parse_table_primary(p);
    for (;;) {
        const token *t = cur(p);
        weir_sql_loc op_loc = t->loc;
        weir_sql_join_kind kind;
        bool natural = false;
        if (t->type == WEIR__SQL_TK_COMMA) {
            parser_advance(p);
            kind = WEIR_SQL_JOIN_COMMA;
        } else {
            natural = accept_kw(p, WEIR__SQL_KW_NATURAL);
            if (accept_kw(p, WEIR__SQL_KW_JOIN)) {
                kind = WEIR_SQL_JOIN_INNER;
            } else if (accept_kw(p, WEIR__SQL_KW_INNER)) {
                kind = WEIR_SQL_JOIN_INNER;
                expect_kw(p, WEIR__SQL_KW_JOIN);
            } else if (accept_kw(p, WEIR__SQL_KW_LEFT)) {
                kind = WEIR_SQL_JOIN_LEFT;
            } else if (accept_kw(p, WEIR__SQL_KW_RIGHT)) {
                kind = WEIR_SQL_JOIN_RIGHT;
            } else if (accept_kw(p, WEIR__SQL_KW_FULL)) {
                kind = WEIR_SQL_JOIN_FULL;
            } else if (!natural && accept_kw(p, WEIR__SQL_KW_CROSS)) {
                kind = WEIR_SQL_JOIN_CROSS;
                expect_kw(p, WEIR__SQL_KW_JOIN);
            } else if (natural) {
                parser_expected(p, "JOIN, INNER, LEFT, RIGHT or FULL");
            } else {
                break;
            }
            if (kind == WEIR_SQL_JOIN_LEFT || kind == WEIR_SQL_JOIN_RIGHT ||
                kind == WEIR_SQL_JOIN_FULL) {
                accept_kw(p, WEIR__SQL_KW_OUTER);
                expect_kw(p, WEIR__SQL_KW_JOIN);
            }
        }
        weir_sql_table_ref *j = new_tref(p, WEIR_SQL_FROM_JOIN, left->loc);
        j->u.join.kind = kind;
        j->u.join.natural = natural;
        j->u.join.op_loc = op_loc;
        j->u.join.left = left;
        j->u.join.right = parse_table_primary(p);
        if (join_requires_condition(j)) {
            if (accept_kw(p, WEIR__SQL_KW_ON)) {
                j->u.join.on = parse_expr(p, PREC_MIN);
            } else if (accept_kw(p, WEIR__SQL_KW_USING)) {
                parse_ident_list(p, &j->u.join.using_, &j->u.join.n_using,
                                 "a column name");
            } else {
                parser_expected(p, "ON or USING");
            }
        }
        finish_tref(p, j);
        left = j;
    }
    return left;
}

/* ---------------------------------------------------------------- SELECT */

/* Is the current position `name.name. ... .*` (a qualified star)? */
static bool at_qualified_star(const parser *p)
{
    uint32_t k = 0;
    while (tok_is_name(peek_tok(p, k)) &&
           peek_is_tk(p, k + 1, WEIR__SQL_TK_DOT))
        k += 2;
    return k > 0 && peek_is_tk(p, k, WEIR__SQL_TK_STAR);
}

static void parse_select_item(parser *p, vec *items)
{
    weir_sql_select_item *it = vec_push(p, items, sizeof *it);
    weir_sql_loc loc = cur(p)->loc;
    if (is_tk(p, WEIR__SQL_TK_STAR) || at_qualified_star(p)) {
        weir_sql_expr *e = PNEW(p, weir_sql_expr);
        e->kind = WEIR_SQL_EXPR_STAR;
        e->loc = loc;
        if (!is_tk(p, WEIR__SQL_TK_STAR)) {
            vec parts = {0};
            do {
                *(weir_sql_ident *)vec_push(p, &parts, sizeof(weir_sql_ident)) =
                    parse_ident(p, "a name");
                expect_tk(p, WEIR__SQL_TK_DOT, "'.'");
            } while (!is_tk(p, WEIR__SQL_TK_STAR));
            e->u.star.qualifier.parts = parts.data;
            e->u.star.qualifier.n_parts = parts.n;
            e->u.star.qualifier.loc = loc;
        }
        parser_advance(p); /* '*' */
        e->end = prev_end(p);
        e->height = 1;
        it->expr = e;
        return;
    }
    it->expr = parse_expr(p, PREC_MIN);
    if (accept_kw(p, WEIR__SQL_KW_AS)) {
        it->alias = parse_ident_ptr(p, "an alias");
    } else if (tok_is_name(cur(p))) {
        p->alias_tok = (int32_t)p->pos;
        it->alias = parse_ident_ptr(p, "an alias");
    }
}

static weir_sql_expr *parse_group_item(parser *p);

/* The token at p spells word (an identifier, any case). */
static bool is_word_at(parser *p, const token *t, const char *word)
{
    size_t n = strlen(word);
    return t->type == WEIR__SQL_TK_IDENT && t->len == n && strncasecmp(p->src + t->loc.offset, word, n) == 0;
}

/* GROUPING SETS, ROLLUP ( or CUBE ( at the cursor. */
static bool at_grouping_op(parser *p)
{
    const token *t = cur(p), *n = peek_tok(p, 1);
    if (is_word_at(p, t, "GROUPING"))
        return is_word_at(p, n, "SETS");
    return (is_word_at(p, t, "ROLLUP") || is_word_at(p, t, "CUBE")) && n->type == WEIR__SQL_TK_LPAREN;
}

/* One set of GROUPING SETS ((a, b), () or a bare item), or one element of
 * ROLLUP / CUBE (a composite (a, b) or a bare expression). An item may be
 * GROUPING SETS, ROLLUP or CUBE itself: the planner expands those inside
 * GROUPING SETS and refuses them inside ROLLUP and CUBE. */
static void parse_grouping_set(parser *p, weir_sql_expr_list *set)
{
    set->loc = cur(p)->loc;
    vec v = {0};
    if (is_tk(p, WEIR__SQL_TK_LPAREN) && !at_query_start(p)) {
        parser_advance(p);
        if (!is_tk(p, WEIR__SQL_TK_RPAREN)) {
            do {
                push_expr(p, &v, parse_group_item(p));
            } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        }
        expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
    } else {
        push_expr(p, &v, parse_group_item(p));
    }
    set->items = v.data;
    set->n_items = v.n;
}

/* A GROUP BY item: an expression, or GROUPING SETS (...), ROLLUP (...) or
 * CUBE (...). */
static weir_sql_expr *parse_group_item(parser *p)
{
    if (!at_grouping_op(p))
        return parse_expr(p, PREC_MIN);
    const token *t = cur(p);
    parser_enter(p);
    weir_sql_expr *e = PNEW(p, weir_sql_expr);
    e->kind = WEIR_SQL_EXPR_GROUPING_SETS;
    e->loc = t->loc;
    e->u.grouping_sets.op = is_word_at(p, t, "ROLLUP") ? WEIR_SQL_GROUPING_ROLLUP
                            : is_word_at(p, t, "CUBE") ? WEIR_SQL_GROUPING_CUBE
                                                       : WEIR_SQL_GROUPING_SETS;
    bool sets = e->u.grouping_sets.op == WEIR_SQL_GROUPING_SETS;
    parser_advance(p);
    if (sets)
        parser_advance(p);
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    vec v = {0};
    do {
        parse_grouping_set(p, vec_push(p, &v, sizeof(weir_sql_expr_list)));
    } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
    e->u.grouping_sets.sets = v.data;
    e->u.grouping_sets.n_sets = v.n;
    e->end = prev_end(p);
    e->height = expr_height(e);
    parser_check_height(p, e->height, e->loc);
    parser_leave(p);
    return e;
}

static weir_sql_select *parse_select(parser *p)
{
    weir_sql_select *s = PNEW(p, weir_sql_select);
    s->loc = cur(p)->loc;
    expect_kw(p, WEIR__SQL_KW_SELECT);
    parse_hints_after(p, p->pos - 1, &s->hints, &s->n_hints);
    if (accept_kw(p, WEIR__SQL_KW_DISTINCT))
        s->distinct = true;
    else if (accept_kw(p, WEIR__SQL_KW_ALL))
        s->all = true;
    vec items = {0};
    do {
        parse_select_item(p, &items);
    } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    s->items = items.data;
    s->n_items = items.n;
    if (accept_kw(p, WEIR__SQL_KW_FROM))
        s->from = parse_from_list(p);
    if (accept_kw(p, WEIR__SQL_KW_WHERE))
        s->where = parse_expr(p, PREC_MIN);
    if (accept_kw(p, WEIR__SQL_KW_GROUP)) {
        expect_kw(p, WEIR__SQL_KW_BY);
        vec v = {0};
        do {
            push_expr(p, &v, parse_group_item(p));
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        s->group_by = v.data;
        s->n_group_by = v.n;
    }
    if (accept_kw(p, WEIR__SQL_KW_HAVING))
        s->having = parse_expr(p, PREC_MIN);
    if (accept_kw(p, WEIR__SQL_KW_WINDOW)) {
        vec v = {0};
        do {
            weir_sql_named_window *nw = vec_push(p, &v, sizeof *nw);
            nw->name = parse_ident(p, "a window name");
            expect_kw(p, WEIR__SQL_KW_AS);
            nw->window = parse_window_spec(p);
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        s->windows = v.data;
        s->n_windows = v.n;
    }
    return s;
}

/* ----------------------------------------------------------------- query */

static weir_sql_query *new_query(parser *p, weir_sql_query_kind kind,
                                 weir_sql_loc loc)
{
    weir_sql_query *q = PNEW(p, weir_sql_query);
    q->kind = kind;
    q->loc = loc;
    return q;
}

static weir_sql_query *parse_values(parser *p)
{
    weir_sql_query *q = new_query(p, WEIR_SQL_QUERY_VALUES, cur(p)->loc);
    expect_kw(p, WEIR__SQL_KW_VALUES);
    vec rows = {0};
    do {
        weir_sql_expr_list *r = vec_push(p, &rows, sizeof *r);
        r->loc = cur(p)->loc;
        /* ROW(...) is the same as (...). */
        if (is_kw(p, WEIR__SQL_KW_ROW) && peek_is_tk(p, 1, WEIR__SQL_TK_LPAREN))
            parser_advance(p);
        expect_tk(p, WEIR__SQL_TK_LPAREN, "'(' (a row of values)");
        vec v = {0};
        do {
            push_expr(p, &v, parse_expr(p, PREC_MIN));
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
        r->items = v.data;
        r->n_items = v.n;
    } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    q->u.values.rows = rows.data;
    q->u.values.n_rows = rows.n;
    finish_query(p, q);
    return q;
}

static weir_sql_query *parse_query_term(parser *p)
{
    weir_sql_loc loc = cur(p)->loc;
    if (is_kw(p, WEIR__SQL_KW_SELECT)) {
        weir_sql_query *q = new_query(p, WEIR_SQL_QUERY_SELECT, loc);
        q->u.select = parse_select(p);
        finish_query(p, q);
        return q;
    }
    if (is_kw(p, WEIR__SQL_KW_VALUES))
        return parse_values(p);
    if (is_tk(p, WEIR__SQL_TK_LPAREN) && at_query_start(p)) {
        parser_advance(p);
        weir_sql_query *q = parse_query(p);
        expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
        return q;
    }
    parser_expected_hint(p, "a query (SELECT, VALUES or '(')", "SELECT VALUES");
}

static bool at_setop(const parser *p, bool intersect_level)
{
    if (intersect_level)
        return is_kw(p, WEIR__SQL_KW_INTERSECT);
    return is_kw(p, WEIR__SQL_KW_UNION) || is_kw(p, WEIR__SQL_KW_EXCEPT) ||
           is_kw(p, WEIR__SQL_KW_MINUS);
}

static weir_sql_query *parse_setop_level(parser *p, bool intersect_level)
{
    weir_sql_query *left =
        intersect_level ? parse_query_term(p) : parse_setop_level(p, true);
    while (at_setop(p, intersect_level)) {
        weir_sql_query *q = new_query(p, WEIR_SQL_QUERY_SETOP, left->loc);
        q->u.setop.op_loc = cur(p)->loc;
        q->u.setop.op = is_kw(p, WEIR__SQL_KW_UNION) ? WEIR_SQL_SETOP_UNION
                        : is_kw(p, WEIR__SQL_KW_INTERSECT)
                            ? WEIR_SQL_SETOP_INTERSECT
                            : WEIR_SQL_SETOP_EXCEPT;
        parser_advance(p);
        if (accept_kw(p, WEIR__SQL_KW_ALL))
            q->u.setop.all = true;
        else if (accept_kw(p, WEIR__SQL_KW_DISTINCT))
            q->u.setop.distinct = true;
        q->u.setop.left = left;
        q->u.setop.right =
            intersect_level ? parse_query_term(p) : parse_setop_level(p, true);
        finish_query(p, q);
        left = q;
    }
    return left;
}

/* A parenthesised operand that already has its own WITH, ORDER BY, LIMIT
 * or OFFSET cannot take another at this level without a wrapper node. */
static void check_free(parser *p, bool taken, weir_sql_loc loc,
                       const char *what)
{
    if (taken)
        parser_fail_at(p, loc,
                       "this query already has its own %s inside the "
                       "parentheses; wrap it in SELECT * FROM (...)",
                       what);
}

weir_sql_query *parse_query(parser *p)
{
    parser_enter(p);
    weir_sql_loc loc = cur(p)->loc;
    vec ctes = {0};
    if (accept_kw(p, WEIR__SQL_KW_WITH)) {
        do {
            weir_sql_cte *c = vec_push(p, &ctes, sizeof *c);
            c->name = parse_ident(p, "a name for the WITH query");
            if (is_tk(p, WEIR__SQL_TK_LPAREN))
                parse_ident_list(p, &c->columns, &c->n_columns,
                                 "a column name");
            expect_kw(p, WEIR__SQL_KW_AS);
            expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
            if (!at_query_start(p))
                parser_expected(p, "a query (SELECT, VALUES or WITH)");
            c->query = parse_query(p);
            expect_tk(p, WEIR__SQL_TK_RPAREN, "')'");
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    }
    weir_sql_query *q = parse_setop_level(p, false);
    if (ctes.n) {
        check_free(p, q->n_with != 0, loc, "WITH");
        q->with = ctes.data;
        q->n_with = ctes.n;
        q->loc = loc;
    }
    if (is_kw(p, WEIR__SQL_KW_ORDER)) {
        check_free(p, q->n_order_by != 0, cur(p)->loc, "ORDER BY");
        parse_order_by_list(p, &q->order_by, &q->n_order_by);
    }
    if (is_kw(p, WEIR__SQL_KW_LIMIT)) {
        check_free(p, q->limit != NULL, cur(p)->loc, "LIMIT");
        parser_advance(p);
        q->limit = parse_expr(p, PREC_ADD);
    }
    if (is_kw(p, WEIR__SQL_KW_OFFSET)) {
        check_free(p, q->offset != NULL, cur(p)->loc, "OFFSET");
        parser_advance(p);
        q->offset = parse_expr(p, PREC_ADD);
        if (!accept_kw(p, WEIR__SQL_KW_ROWS))
            accept_kw(p, WEIR__SQL_KW_ROW);
    }
    if (is_kw(p, WEIR__SQL_KW_FETCH)) {
        check_free(p, q->limit != NULL, cur(p)->loc, "LIMIT or FETCH");
        parser_advance(p);
        if (!accept_kw(p, WEIR__SQL_KW_FIRST) &&
            !accept_kw(p, WEIR__SQL_KW_NEXT))
            parser_expected(p, "FIRST or NEXT");
        if (is_kw(p, WEIR__SQL_KW_ROW) || is_kw(p, WEIR__SQL_KW_ROWS)) {
            /* FETCH FIRST ROW ONLY: one row */
            weir_sql_expr *one = PNEW(p, weir_sql_expr);
            one->kind = WEIR_SQL_EXPR_LITERAL;
            one->loc = cur(p)->loc;
            one->end = one->loc.offset;
            one->height = 1;
            one->u.lit.kind = WEIR_SQL_LIT_INTEGER;
            one->u.lit.text = "1";
            one->u.lit.len = 1;
            one->u.lit.i64 = 1;
            one->u.lit.f64 = 1.0;
            q->limit = one;
        } else {
            q->limit = parse_expr(p, PREC_ADD);
        }
        if (!accept_kw(p, WEIR__SQL_KW_ROWS) && !accept_kw(p, WEIR__SQL_KW_ROW))
            parser_expected(p, "ROW or ROWS");
        expect_kw(p, WEIR__SQL_KW_ONLY);
    }
    finish_query(p, q);
    parser_leave(p);
    return q;
}
