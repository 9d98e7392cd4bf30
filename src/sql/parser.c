/*
 * sql/parser.c - the parser's driver: weir_sql_parse, error reporting,
 * token helpers and the statements of a script (CREATE, DROP, INSERT,
 * statement sets, SET, RESET, EXPLAIN, SHOW, DESCRIBE, USE). Queries are in
 * parse_query.c, expressions and types in parse_expr.c.
 *
 * The grammar it accepts is documented in docs/sql-grammar.md. It is a
 * hand-written recursive-descent parser with precedence climbing for
 * expressions; it decides with bounded lookahead (no backtracking), so
 * every token is examined a bounded number of times.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sql/parser_internal.h"

/* ------------------------------------------------------------------ errors */

static _Noreturn void unwind(parser *p, int code)
{
    p->code = code;
    longjmp(*p->jb, 1);
}

_Noreturn void parser_oom(parser *p)
{
    weir_error_set(p->err, WEIR_ENOMEM,
                   "%s: error: out of memory while "
                   "parsing",
                   p->file);
    unwind(p, WEIR_ENOMEM);
}

static _Noreturn void fail_msg(parser *p, weir_sql_loc loc, const char *msg)
{
    weir_error_set(p->err, WEIR_EPARSE, "%s:%u:%u: error: %s", p->file,
                   loc.line, loc.col, msg);
    if (p->err_loc)
        *p->err_loc = loc;
    unwind(p, WEIR_EPARSE);
}

_Noreturn void parser_fail_at(parser *p, weir_sql_loc loc, const char *fmt, ...)
{
    char msg[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fail_msg(p, loc, msg);
}

/* Copies n bytes of source text for a message: at most ~40 characters
 * (cut on a UTF-8 boundary, then "..."), control characters as spaces. */
static void excerpt(char *buf, size_t cap, const char *s, size_t n)
{
    const size_t max = 40;
    bool cut = n > max;
    if (cut) {
        n = max - 3;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[o++] = (c < 0x20 || c == 0x7F) ? ' ' : (char)c;
    }
    if (cut && o + 4 < cap) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
}

static void describe_tok(const parser *p, const token *t, char *buf, size_t cap)
{
    char ex[64];
    excerpt(ex, sizeof ex, p->src + t->loc.offset, t->len);
    switch (t->type) {
    case WEIR__SQL_TK_EOF:
        snprintf(buf, cap, "end of input");
        break;
    case WEIR__SQL_TK_ERROR:
        snprintf(buf, cap, "an invalid token");
        break;
    case WEIR__SQL_TK_IDENT:
        if (t->kw)
            snprintf(buf, cap, "keyword %s", weir__sql_keyword_name(t->kw));
        else
            snprintf(buf, cap, "identifier '%s'", ex);
        break;
    case WEIR__SQL_TK_QIDENT:
        snprintf(buf, cap, "identifier %s", ex);
        break;
    case WEIR__SQL_TK_STRING:
    case WEIR__SQL_TK_BINSTRING:
        snprintf(buf, cap, "string %s", ex);
        break;
    case WEIR__SQL_TK_INTEGER:
    case WEIR__SQL_TK_DECIMAL:
    case WEIR__SQL_TK_APPROX:
        snprintf(buf, cap, "number %s", ex);
        break;
    default:
        snprintf(buf, cap, "'%s'", ex);
        break;
    }
}

/* Keywords that a mistyped word most likely stands for when it was taken
 * as an implicit alias (SELECT a FORM t). */
static const char clause_words[] =
    "FROM WHERE GROUP HAVING ORDER LIMIT OFFSET UNION INTERSECT EXCEPT "
    "JOIN INNER LEFT RIGHT FULL CROSS ON USING AS AND OR WINDOW SELECT "
    "BETWEEN LIKE OVER PARTITION FILTER";

/*
 * The candidate closest to word[0,n) among the upper-case words (2+
 * letters) of list, if close enough to be an obvious typo: distance 1 for
 * words up to 4 letters, 2 beyond. Writes it into best.
 */
static bool closest_word(const char *list, const char *word, size_t n,
                         char *best, size_t cap)
{
    if (n < 3 || n > 30)
        return false;
    int max = n <= 4 ? 1 : 2;
    int best_d = max + 1;
    const char *s = list;
    while (*s) {
        while (*s && !((*s >= 'A' && *s <= 'Z') || *s == '_'))
            s++;
        const char *w = s;
        while ((*s >= 'A' && *s <= 'Z') || *s == '_')
            s++;
        size_t wl = (size_t)(s - w);
        /* Skip fragments of lower-case words such as the 'A' of "a". */
        bool word_start = w == list || !((w[-1] >= 'a' && w[-1] <= 'z'));
        bool word_end = !((*s >= 'a' && *s <= 'z'));
        if (wl < 2 || !word_start || !word_end || wl + 1 > cap)
            continue;
        int d = weir__sql_edit_distance(word, n, w, wl, max);
        if (d > 0 && d < best_d) {
            best_d = d;
            memcpy(best, w, wl);
            best[wl] = '\0';
        }
    }
    return best_d <= max;
}

_Noreturn void parser_expected_hint(parser *p, const char *what,
                                    const char *candidates)
{
    const token *t = cur(p);
    if (t->type == WEIR__SQL_TK_ERROR)
        fail_msg(p, t->loc, t->str);
    char found[96], msg[480], best[32];
    describe_tok(p, t, found, sizeof found);
    int n = snprintf(msg, sizeof msg, "expected %s, found %s", what, found);
    if (n < 0 || (size_t)n >= sizeof msg)
        n = (int)strlen(msg);
    const char *text = p->src + t->loc.offset;
    if (t->type == WEIR__SQL_TK_IDENT && t->kw == WEIR__SQL_KW_NONE &&
        closest_word(candidates ? candidates : what, text, t->len, best,
                     sizeof best)) {
        snprintf(msg + n, sizeof msg - (size_t)n, "; did you mean %s?", best);
    } else if (p->alias_tok >= 0 && (uint32_t)p->alias_tok + 1 == p->pos) {
        const token *a = &p->toks.tok[p->alias_tok];
        if (a->type == WEIR__SQL_TK_IDENT &&
            closest_word(clause_words, p->src + a->loc.offset, a->len, best,
                         sizeof best)) {
            char ex[64];
            excerpt(ex, sizeof ex, p->src + a->loc.offset, a->len);
            snprintf(msg + n, sizeof msg - (size_t)n,
                     " (did you mean %s instead of '%s' at %u:%u?)", best, ex,
                     a->loc.line, a->loc.col);
        }
    }
    fail_msg(p, t->loc, msg);
}

_Noreturn void parser_expected(parser *p, const char *what)
{
    parser_expected_hint(p, what, NULL);
}

/* ------------------------------------------------------------------ memory */

void *parser_alloc(parser *p, size_t size)
{
    void *m = weir__sql_arena_alloc(p->arena, size);
    if (!m)
        parser_oom(p);
    return m;
}

char *parser_strndup(parser *p, const char *s, size_t n)
{
    char *d = weir__sql_arena_strndup(p->arena, s, n);
    if (!d)
        parser_oom(p);
    return d;
}

void *vec_push(parser *p, vec *v, size_t size)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 4;
        if (cap <= v->cap)
            parser_oom(p);
        void *d = weir__sql_arena_alloc_raw(p->arena, (size_t)cap * size);
        if (!d)
            parser_oom(p);
        if (v->n)
            memcpy(d, v->data, (size_t)v->n * size);
        v->data = d;
        v->cap = cap;
    }
    void *slot = (char *)v->data + (size_t)v->n++ * size;
    memset(slot, 0, size);
    return slot;
}

/* ------------------------------------------------------------------ tokens */

void parser_advance(parser *p)
{
    if (p->pos + 1 < p->toks.n)
        p->pos++;
}

bool accept_tk(parser *p, weir__sql_tk t)
{
    if (!is_tk(p, t))
        return false;
    parser_advance(p);
    return true;
}

bool accept_kw(parser *p, weir__sql_kw kw)
{
    if (!is_kw(p, kw))
        return false;
    parser_advance(p);
    return true;
}

const token *expect_tk(parser *p, weir__sql_tk t, const char *what)
{
    if (!is_tk(p, t))
        parser_expected(p, what);
    const token *r = cur(p);
    parser_advance(p);
    return r;
}

const token *expect_kw(parser *p, weir__sql_kw kw)
{
    if (!is_kw(p, kw))
        parser_expected(p, weir__sql_keyword_name(kw));
    const token *r = cur(p);
    parser_advance(p);
    return r;
}

uint32_t prev_end(const parser *p)
{
    if (p->pos == 0)
        return cur(p)->loc.offset;
    const token *t = &p->toks.tok[p->pos - 1];
    return t->loc.offset + t->len;
}

bool tok_is_name(const token *t)
{
    if (t->type == WEIR__SQL_TK_QIDENT)
        return true;
    return t->type == WEIR__SQL_TK_IDENT &&
           (t->kw == WEIR__SQL_KW_NONE || !weir__sql_keyword_reserved(t->kw));
}

void parser_enter(parser *p)
{
    if (++p->depth > WEIR_SQL_MAX_NESTING)
        parser_fail_at(p, cur(p)->loc,
                       "nested too deeply (more than %d levels of "
                       "parentheses, subqueries or types)",
                       WEIR_SQL_MAX_NESTING);
}

void parser_check_height(parser *p, uint32_t height, weir_sql_loc loc)
{
    if (height > WEIR_SQL_MAX_HEIGHT)
        parser_fail_at(p, loc,
                       "expression or query too complex (more than %d "
                       "nested operations); split it or use IN (...)",
                       WEIR_SQL_MAX_HEIGHT);
}

/* ------------------------------------------------------------ shared bits */

weir_sql_ident parse_ident(parser *p, const char *what)
{
    const token *t = cur(p);
    if (!tok_is_name(t)) {
        if (t->type == WEIR__SQL_TK_IDENT && t->kw)
            parser_fail_at(p, t->loc,
                           "expected %s, found keyword %s (a reserved word; "
                           "write `%.*s` to use it as a name)",
                           what, weir__sql_keyword_name(t->kw), (int)t->len,
                           p->src + t->loc.offset);
        parser_expected(p, what);
    }
    weir_sql_ident id;
    memset(&id, 0, sizeof id);
    id.loc = t->loc;
    if (t->type == WEIR__SQL_TK_QIDENT) {
        id.name = t->str;
        id.len = t->str_len;
        id.quoted = true;
    } else {
        id.name = parser_strndup(p, p->src + t->loc.offset, t->len);
        id.len = t->len;
    }
    parser_advance(p);
    return id;
}

weir_sql_ident *parse_ident_ptr(parser *p, const char *what)
{
    weir_sql_ident *id = PNEW(p, weir_sql_ident);
    *id = parse_ident(p, what);
    return id;
}

weir_sql_name parse_name(parser *p, const char *what)
{
    vec parts = {0};
    weir_sql_name n;
    n.loc = cur(p)->loc;
    *(weir_sql_ident *)vec_push(p, &parts, sizeof(weir_sql_ident)) =
        parse_ident(p, what);
    while (is_tk(p, WEIR__SQL_TK_DOT) && tok_is_name(peek_tok(p, 1))) {
        parser_advance(p);
        *(weir_sql_ident *)vec_push(p, &parts, sizeof(weir_sql_ident)) =
            parse_ident(p, "a name");
    }
    n.parts = parts.data;
    n.n_parts = parts.n;
    return n;
}

void parse_ident_list(parser *p, weir_sql_ident **out, uint32_t *n,
                      const char *what)
{
    vec v = {0};
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    do {
        *(weir_sql_ident *)vec_push(p, &v, sizeof(weir_sql_ident)) =
            parse_ident(p, what);
    } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
    *out = v.data;
    *n = v.n;
}

const char *parse_string(parser *p, const char *what, weir_sql_loc *loc)
{
    const token *t = cur(p);
    if (t->type != WEIR__SQL_TK_STRING)
        parser_expected(p, what);
    if (loc)
        *loc = t->loc;
    parser_advance(p);
    return t->str;
}

static bool query_keyword(const token *t)
{
    return tok_is_kw(t, WEIR__SQL_KW_SELECT) ||
           tok_is_kw(t, WEIR__SQL_KW_WITH) || tok_is_kw(t, WEIR__SQL_KW_VALUES);
}

bool at_query_start(const parser *p)
{
    uint32_t k = 0;
    while (peek_is_tk(p, k, WEIR__SQL_TK_LPAREN))
        k++;
    return query_keyword(peek_tok(p, k));
}

/* ------------------------------------------------------------------- hints */

/*
 * Parses one hint comment's text: NAME [( args )] [, NAME [( args )]]...
 * by lexing it on its own and pointing the parser at those tokens.
 */
static void parse_hint_text(parser *p, const weir__sql_hint_text *h, vec *out)
{
    weir__sql_tokens saved = p->toks;
    uint32_t saved_pos = p->pos;
    int32_t saved_alias = p->alias_tok;
    weir__sql_tokens sub;
    if (weir__sql_lex(p->src, h->end, h->loc, false, p->scratch, p->arena,
                      &sub))
        parser_oom(p);
    p->toks = sub;
    p->pos = 0;
    p->alias_tok = -1;
    do {
        weir_sql_hint *hint = vec_push(p, out, sizeof(weir_sql_hint));
        hint->loc = cur(p)->loc;
        if (is_tk(p, WEIR__SQL_TK_IDENT)) {
            /* Hint names are plain words even when they are keywords. */
            const token *t = cur(p);
            hint->name.loc = t->loc;
            hint->name.name = parser_strndup(p, p->src + t->loc.offset, t->len);
            hint->name.len = t->len;
            parser_advance(p);
        } else {
            hint->name = parse_ident(p, "a hint name");
        }
        if (accept_tk(p, WEIR__SQL_TK_LPAREN) &&
            !accept_tk(p, WEIR__SQL_TK_RPAREN)) {
            vec opts = {0}, args = {0};
            do {
                if (is_tk(p, WEIR__SQL_TK_STRING) &&
                    peek_is_tk(p, 1, WEIR__SQL_TK_EQ)) {
                    weir_sql_option *o =
                        vec_push(p, &opts, sizeof(weir_sql_option));
                    o->loc = cur(p)->loc;
                    o->key = cur(p)->str;
                    o->key_len = cur(p)->str_len;
                    parser_advance(p);
                    parser_advance(p);
                    o->value_loc = cur(p)->loc;
                    o->value =
                        parse_string(p, "a quoted hint option value", NULL);
                    o->value_len = (uint32_t)strlen(o->value);
                } else {
                    *(weir_sql_expr **)vec_push(p, &args, sizeof(void *)) =
                        parse_expr(p, PREC_ADD);
                }
            } while (accept_tk(p, WEIR__SQL_TK_COMMA));
            expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
            hint->options = opts.data;
            hint->n_options = opts.n;
            hint->args = args.data;
            hint->n_args = args.n;
        }
    } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    if (!is_tk(p, WEIR__SQL_TK_EOF))
        parser_expected(p, "',' or the end of the hint");
    p->toks = saved;
    p->pos = saved_pos;
    p->alias_tok = saved_alias;
}

void parse_hints_after(parser *p, uint32_t after, weir_sql_hint **out,
                       uint32_t *n)
{
    *out = NULL;
    *n = 0;
    if (after >= p->toks.n)
        return;
    int32_t h = p->toks.tok[after].hint;
    if (h < 0)
        return;
    vec v = {0};
    for (; h >= 0; h = p->toks.hints[h].next)
        parse_hint_text(p, &p->toks.hints[h], &v);
    *out = v.data;
    *n = v.n;
}

/* -------------------------------------------------------------- statements */

static weir_sql_stmt *parse_statement(parser *p);
static weir_sql_stmt *parse_insert(parser *p, bool execute);

static weir_sql_stmt *new_stmt(parser *p, weir_sql_stmt_kind kind,
                               weir_sql_loc loc)
{
    weir_sql_stmt *st = PNEW(p, weir_sql_stmt);
    st->kind = kind;
    st->loc = loc;
    st->text_base = p->src;
    return st;
}

static bool accept_if_not_exists(parser *p)
{
    if (is_kw(p, WEIR__SQL_KW_IF) && peek_is_kw(p, 1, WEIR__SQL_KW_NOT) &&
        peek_is_kw(p, 2, WEIR__SQL_KW_EXISTS)) {
        parser_advance(p);
        parser_advance(p);
        parser_advance(p);
        return true;
    }
    if (is_kw(p, WEIR__SQL_KW_IF)) {
        parser_advance(p);
        expect_kw(p, WEIR__SQL_KW_NOT);
        expect_kw(p, WEIR__SQL_KW_EXISTS);
        return true;
    }
    return false;
}

static bool accept_if_exists(parser *p)
{
    if (is_kw(p, WEIR__SQL_KW_IF) && peek_is_kw(p, 1, WEIR__SQL_KW_EXISTS)) {
        parser_advance(p);
        parser_advance(p);
        return true;
    }
    if (is_kw(p, WEIR__SQL_KW_IF)) {
        parser_advance(p);
        expect_kw(p, WEIR__SQL_KW_EXISTS);
        return true;
    }
    return false;
}

static const char *parse_comment(parser *p)
{
    return parse_string(p, "a quoted comment such as 'text'", NULL);
}

/* WITH ('key' = 'value', ...) */
static void parse_options(parser *p, weir_sql_option **out, uint32_t *n)
{
    vec v = {0};
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    if (!is_tk(p, WEIR__SQL_TK_RPAREN)) {
        do {
            weir_sql_option *o = vec_push(p, &v, sizeof(weir_sql_option));
            const char *key = parse_string(
                p, "a quoted option key such as 'connector'", &o->loc);
            o->key = key;
            o->key_len = (uint32_t)strlen(key);
            expect_tk(p, WEIR__SQL_TK_EQ, "'='");
            o->value = parse_string(
                p, "a quoted option value such as 'datagen' or '10'",
                &o->value_loc);
            o->value_len = (uint32_t)strlen(o->value);
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    }
    expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
    *out = v.data;
    *n = v.n;
}

static void parse_primary_key_cols(parser *p, weir_sql_primary_key *pk)
{
    expect_kw(p, WEIR__SQL_KW_PRIMARY);
    expect_kw(p, WEIR__SQL_KW_KEY);
    if (!pk->column_level)
        parse_ident_list(p, &pk->columns, &pk->n_columns, "a column name");
    if (is_kw(p, WEIR__SQL_KW_NOT) && peek_is_kw(p, 1, WEIR__SQL_KW_ENFORCED)) {
        parser_advance(p);
        parser_advance(p);
        pk->enforcement = WEIR_SQL_NOT_ENFORCED;
    } else if (accept_kw(p, WEIR__SQL_KW_ENFORCED)) {
        pk->enforcement = WEIR_SQL_ENFORCED;
    }
}

static void set_primary_key(parser *p, weir_sql_create_table *ct,
                            weir_sql_primary_key *pk)
{
    if (ct->primary_key)
        parser_fail_at(p, pk->loc,
                       "a table can have only one PRIMARY KEY "
                       "(the first is at %u:%u)",
                       ct->primary_key->loc.line, ct->primary_key->loc.col);
    ct->primary_key = pk;
}

static bool is_type_keyword(weir__sql_kw kw)
{
    switch (kw) {
    case WEIR__SQL_KW_BOOLEAN:
    case WEIR__SQL_KW_TINYINT:
    case WEIR__SQL_KW_SMALLINT:
    case WEIR__SQL_KW_INT:
    case WEIR__SQL_KW_INTEGER:
    case WEIR__SQL_KW_BIGINT:
    case WEIR__SQL_KW_FLOAT:
    case WEIR__SQL_KW_REAL:
    case WEIR__SQL_KW_DOUBLE:
    case WEIR__SQL_KW_DECIMAL:
    case WEIR__SQL_KW_DEC:
    case WEIR__SQL_KW_NUMERIC:
    case WEIR__SQL_KW_CHAR:
    case WEIR__SQL_KW_CHARACTER:
    case WEIR__SQL_KW_VARCHAR:
    case WEIR__SQL_KW_STRING:
    case WEIR__SQL_KW_BINARY:
    case WEIR__SQL_KW_VARBINARY:
    case WEIR__SQL_KW_BYTES:
    case WEIR__SQL_KW_DATE:
    case WEIR__SQL_KW_TIME:
    case WEIR__SQL_KW_TIMESTAMP:
    case WEIR__SQL_KW_TIMESTAMP_LTZ:
    case WEIR__SQL_KW_ARRAY:
    case WEIR__SQL_KW_MULTISET:
    case WEIR__SQL_KW_MAP:
    case WEIR__SQL_KW_ROW:
        return true;
    default:
        return false;
    }
}

/* WATERMARK starts a watermark definition unless it is the name of a
 * column (followed by a type or AS); WATERMARK ts AS ... lacks its FOR. */
static bool at_watermark(const parser *p)
{
    if (!is_kw(p, WEIR__SQL_KW_WATERMARK))
        return false;
    const token *n = peek_tok(p, 1);
    if (tok_is_kw(n, WEIR__SQL_KW_FOR))
        return true;
    return tok_is_name(n) && !is_type_keyword(n->kw) &&
           !tok_is_kw(n, WEIR__SQL_KW_AS);
}

/* One element of CREATE TABLE's column list. */
static void parse_table_element(parser *p, weir_sql_create_table *ct, vec *cols)
{
    weir_sql_loc loc = cur(p)->loc;
    if (at_watermark(p)) {
        parser_advance(p);
        expect_kw(p, WEIR__SQL_KW_FOR);
        weir_sql_watermark *wm = PNEW(p, weir_sql_watermark);
        wm->loc = loc;
        wm->column = parse_name(p, "the name of the event-time column");
        expect_kw(p, WEIR__SQL_KW_AS);
        wm->expr = parse_expr(p, PREC_MIN);
        if (ct->watermark)
            parser_fail_at(p, loc,
                           "a table can have only one WATERMARK (the first "
                           "is at %u:%u)",
                           ct->watermark->loc.line, ct->watermark->loc.col);
        ct->watermark = wm;
        return;
    }
    if ((is_kw(p, WEIR__SQL_KW_PRIMARY) &&
         peek_is_kw(p, 1, WEIR__SQL_KW_KEY)) ||
        (is_kw(p, WEIR__SQL_KW_CONSTRAINT) && tok_is_name(peek_tok(p, 1)) &&
         peek_is_kw(p, 2, WEIR__SQL_KW_PRIMARY))) {
        weir_sql_primary_key *pk = PNEW(p, weir_sql_primary_key);
        pk->loc = loc;
        if (accept_kw(p, WEIR__SQL_KW_CONSTRAINT))
            pk->constraint_name = parse_ident_ptr(p, "a constraint name");
        parse_primary_key_cols(p, pk);
        set_primary_key(p, ct, pk);
        return;
    }
    weir_sql_column *col = vec_push(p, cols, sizeof(weir_sql_column));
    col->loc = loc;
    col->name = parse_ident(p, "a column name, WATERMARK FOR or PRIMARY KEY");
    if (accept_kw(p, WEIR__SQL_KW_AS)) {
        col->kind = WEIR_SQL_COLUMN_COMPUTED;
        col->expr = parse_expr(p, PREC_MIN);
        if (accept_kw(p, WEIR__SQL_KW_COMMENT))
            col->comment = parse_comment(p);
        return;
    }
    col->kind = WEIR_SQL_COLUMN_PHYSICAL;
    col->type = parse_type(p);
    for (;;) {
        weir_sql_loc at = cur(p)->loc;
        if (is_kw(p, WEIR__SQL_KW_METADATA) &&
            col->kind == WEIR_SQL_COLUMN_PHYSICAL) {
            parser_advance(p);
            col->kind = WEIR_SQL_COLUMN_METADATA;
            if (accept_kw(p, WEIR__SQL_KW_FROM))
                col->metadata_key =
                    parse_string(p, "a quoted metadata key", NULL);
            if (accept_kw(p, WEIR__SQL_KW_VIRTUAL))
                col->is_virtual = true;
        } else if (is_kw(p, WEIR__SQL_KW_PRIMARY) ||
                   is_kw(p, WEIR__SQL_KW_CONSTRAINT)) {
            weir_sql_primary_key *pk = PNEW(p, weir_sql_primary_key);
            pk->loc = at;
            pk->column_level = true;
            if (accept_kw(p, WEIR__SQL_KW_CONSTRAINT))
                pk->constraint_name = parse_ident_ptr(p, "a constraint name");
            parse_primary_key_cols(p, pk);
            pk->columns = &col->name;
            pk->n_columns = 1;
            set_primary_key(p, ct, pk);
        } else if (is_kw(p, WEIR__SQL_KW_COMMENT) && !col->comment) {
            parser_advance(p);
            col->comment = parse_comment(p);
        } else {
            return;
        }
    }
}

static const char like_strategy_words[] = "INCLUDING EXCLUDING OVERWRITING";

static weir_sql_table_like *parse_table_like(parser *p)
{
    weir_sql_table_like *like = PNEW(p, weir_sql_table_like);
    like->loc = cur(p)->loc;
    expect_kw(p, WEIR__SQL_KW_LIKE);
    like->source = parse_name(p, "the name of a table");
    if (!accept_tk(p, WEIR__SQL_TK_LPAREN))
        return like;
    vec v = {0};
    while (!accept_tk(p, WEIR__SQL_TK_RPAREN)) {
        weir_sql_like_option *o = vec_push(p, &v, sizeof *o);
        if (accept_kw(p, WEIR__SQL_KW_INCLUDING))
            o->strategy = WEIR_SQL_LIKE_INCLUDING;
        else if (accept_kw(p, WEIR__SQL_KW_EXCLUDING))
            o->strategy = WEIR_SQL_LIKE_EXCLUDING;
        else if (accept_kw(p, WEIR__SQL_KW_OVERWRITING))
            o->strategy = WEIR_SQL_LIKE_OVERWRITING;
        else
            parser_expected_hint(p, "INCLUDING, EXCLUDING, OVERWRITING or ')'",
                                 like_strategy_words);
        static const struct {
            weir__sql_kw kw;
            weir_sql_like_feature f;
        } feats[] = {
            {WEIR__SQL_KW_ALL, WEIR_SQL_LIKE_ALL},
            {WEIR__SQL_KW_CONSTRAINTS, WEIR_SQL_LIKE_CONSTRAINTS},
            {WEIR__SQL_KW_GENERATED, WEIR_SQL_LIKE_GENERATED},
            {WEIR__SQL_KW_METADATA, WEIR_SQL_LIKE_METADATA},
            {WEIR__SQL_KW_OPTIONS, WEIR_SQL_LIKE_OPTIONS},
            {WEIR__SQL_KW_PARTITIONS, WEIR_SQL_LIKE_PARTITIONS},
            {WEIR__SQL_KW_WATERMARKS, WEIR_SQL_LIKE_WATERMARKS},
        };
        size_t i;
        for (i = 0; i < sizeof feats / sizeof feats[0]; i++)
            if (accept_kw(p, feats[i].kw))
                break;
        if (i == sizeof feats / sizeof feats[0])
            parser_expected(p, "ALL, CONSTRAINTS, GENERATED, METADATA, "
                               "OPTIONS, PARTITIONS or WATERMARKS");
        o->feature = feats[i].f;
    }
    like->options = v.data;
    like->n_options = v.n;
    return like;
}

/*
 * Flink statements weir does not run, refused by name where they start
 * (rather than as "expected a statement, found ALTER"), with the reason:
 * the opening word, and after CREATE the objects weir has no notion of.
 */
typedef struct flink_only {
    const char *word; /* the word that starts it (after CREATE: the object) */
    const char *name; /* the statement, as Flink's documentation names it */
    const char *why;
} flink_only;

#define WHY_JAR                                                                \
    "weir runs no Java code; a library of C functions is loaded by CREATE "    \
    "FUNCTION f AS 'symbol' LANGUAGE C USING JAR '/path/lib.so' "              \
    "(docs/functions.md)"
#define WHY_MODULE                                                             \
    "weir has no modules (its built-in functions, Flink's core module, are "   \
    "always loaded; Hive's are not available)"
#define WHY_PLAN                                                               \
    "weir keeps no compiled JSON plan: it plans a job from its SQL at each "   \
    "run, and a restored checkpoint's state is matched to that plan "          \
    "operator by operator"
#define WHY_IN_PLACE                                                           \
    "it changes a table in place, which Flink runs in batch mode against "     \
    "connectors that support it; weir's sinks append, or upsert by a "         \
    "PRIMARY KEY"

static const flink_only flink_only_statements[] = {
    {"ADD", "ADD JAR", WHY_JAR},
    {"REMOVE", "REMOVE JAR", WHY_JAR},
    {"LOAD", "LOAD MODULE", WHY_MODULE},
    {"UNLOAD", "UNLOAD MODULE", WHY_MODULE},
    {"COMPILE", "COMPILE PLAN", WHY_PLAN},
    {"ANALYZE", "ANALYZE TABLE", "weir keeps no table statistics"},
    {"TRUNCATE", "TRUNCATE TABLE", WHY_IN_PLACE},
    {"DELETE", "DELETE", WHY_IN_PLACE},
    {"UPDATE", "UPDATE", WHY_IN_PLACE},
    {"CALL", "CALL", "weir's catalogs have no stored procedures"},
};
static const flink_only flink_only_create[] = {
    {"MATERIALIZED", "CREATE MATERIALIZED TABLE",
     "weir schedules no refreshes: declare the table with CREATE TABLE and "
     "fill it with a continuous INSERT INTO ... SELECT (or CREATE TABLE ... "
     "AS SELECT)"},
    {"MODEL", "CREATE MODEL",
     "weir has no models (nor ML_PREDICT or ML_EVALUATE over them)"},
};

static void refuse_flink_only(parser *p, const flink_only *what, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (next_word_is(p, 0, what[i].word))
            parser_fail_at(p, cur(p)->loc, "%s is not supported by weir: %s",
                           what[i].name, what[i].why);
}

static void parse_create_table(parser *p, weir_sql_stmt *st)
{
    weir_sql_create_table *ct = &st->u.create_table;
    ct->if_not_exists = accept_if_not_exists(p);
    ct->name = parse_name(p, "a table name");
    if (accept_tk(p, WEIR__SQL_TK_LPAREN)) {
        ct->has_column_list = true;
        vec cols = {0};
        do {
            parse_table_element(p, ct, &cols);
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
        ct->columns = cols.data;
        ct->n_columns = cols.n;
    }
    if (accept_kw(p, WEIR__SQL_KW_COMMENT))
        ct->comment = parse_comment(p);
    if (next_word_is(p, 0, "DISTRIBUTED") && next_word_is(p, 1, "BY"))
        parser_fail_at(p, cur(p)->loc,
                       "DISTRIBUTED BY (buckets) is not supported by weir: "
                       "none of weir's connectors stores a table in buckets "
                       "(PARTITIONED BY splits a file table by value)");
    if (accept_kw(p, WEIR__SQL_KW_PARTITIONED)) {
        expect_kw(p, WEIR__SQL_KW_BY);
        parse_ident_list(p, &ct->partitioned_by, &ct->n_partitioned_by,
                         "a column name");
    }
    if (accept_kw(p, WEIR__SQL_KW_WITH))
        parse_options(p, &ct->options, &ct->n_options);
    if (is_kw(p, WEIR__SQL_KW_LIKE))
        ct->like = parse_table_like(p);
    if (accept_kw(p, WEIR__SQL_KW_AS)) {
        if (!at_query_start(p))
            parser_expected(p, "a query (SELECT, VALUES or WITH)");
        ct->as_query = parse_query(p);
    }
}

static void parse_create_view(parser *p, weir_sql_stmt *st)
{
    weir_sql_create_view *cv = &st->u.create_view;
    cv->if_not_exists = accept_if_not_exists(p);
    cv->name = parse_name(p, "a view name");
    if (is_tk(p, WEIR__SQL_TK_LPAREN))
        parse_ident_list(p, &cv->columns, &cv->n_columns, "a column name");
    if (accept_kw(p, WEIR__SQL_KW_COMMENT))
        cv->comment = parse_comment(p);
    expect_kw(p, WEIR__SQL_KW_AS);
    if (!at_query_start(p))
        parser_expected(p, "a query (SELECT, VALUES or WITH)");
    cv->query = parse_query(p);
}

static void parse_create_function(parser *p, weir_sql_stmt *st)
{
    weir_sql_create_function *cf = &st->u.create_function;
    cf->if_not_exists = accept_if_not_exists(p);
    cf->name = parse_name(p, "a function name");
    expect_kw(p, WEIR__SQL_KW_AS);
    cf->class_name =
        parse_string(p, "the quoted name of the implementing class", NULL);
    if (accept_kw(p, WEIR__SQL_KW_LANGUAGE))
        cf->language = parse_ident_ptr(p, "JAVA, SCALA, PYTHON, SQL or C");
    if (accept_kw(p, WEIR__SQL_KW_USING)) {
        vec v = {0};
        do {
            expect_kw(p, WEIR__SQL_KW_JAR);
            *(const char **)vec_push(p, &v, sizeof(char *)) =
                parse_string(p, "a quoted jar path", NULL);
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        cf->jars = v.data;
        cf->n_jars = v.n;
    }
}


/* [CREATE OR] REPLACE TABLE name [WITH (...)] AS query, as Flink has it. */
static weir_sql_stmt *parse_replace_table(parser *p, weir_sql_loc loc,
                                          bool or_replace)
{
    expect_kw(p, WEIR__SQL_KW_TABLE);
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_CREATE_TABLE, loc);
    weir_sql_create_table *ct = &st->u.create_table;
    ct->or_replace = or_replace;
    ct->replace = !or_replace;
    parse_create_table(p, st);
    if (ct->if_not_exists)
        parser_fail_at(p, loc, "%sREPLACE TABLE takes no IF NOT EXISTS",
                       or_replace ? "CREATE OR " : "");
    if (!ct->as_query)
        parser_fail_at(p, loc,
                       "%sREPLACE TABLE needs AS followed by a query (a "
                       "table is replaced by a query's result, as in Flink)",
                       or_replace ? "CREATE OR " : "");
    return st;
}

/* CREATE CATALOG / DATABASE [IF NOT EXISTS] name [COMMENT '...'] [WITH (...)]
 * (a catalog needs its WITH: its 'type'). */
static void parse_create_space(parser *p, weir_sql_stmt *st, bool catalog)
{
    weir_sql_create_space *cs = &st->u.create_catalog;
    cs->if_not_exists = accept_if_not_exists(p);
    cs->name = parse_name(p, catalog ? "a catalog name" : "a database name");
    if (accept_kw(p, WEIR__SQL_KW_COMMENT))
        cs->comment = parse_comment(p);
    if (catalog && !is_kw(p, WEIR__SQL_KW_WITH))
        parser_expected(p, "WITH ('type' = ...)");
    if (accept_kw(p, WEIR__SQL_KW_WITH))
        parse_options(p, &cs->options, &cs->n_options);
}

static weir_sql_stmt *parse_create(parser *p)
{
    weir_sql_loc loc = cur(p)->loc;
    expect_kw(p, WEIR__SQL_KW_CREATE);
    if (is_kw(p, WEIR__SQL_KW_OR) && next_word_is(p, 1, "REPLACE")) {
        parser_advance(p);
        parser_advance(p);
        if (!is_kw(p, WEIR__SQL_KW_TABLE))
            parser_fail_at(p, cur(p)->loc,
                           "CREATE OR REPLACE is supported for TABLE ... AS "
                           "query only (as in Flink)");
        return parse_replace_table(p, loc, true);
    }
    bool temporary = accept_kw(p, WEIR__SQL_KW_TEMPORARY);
    bool system = temporary && accept_kw(p, WEIR__SQL_KW_SYSTEM);
    weir_sql_stmt *st;
    if (!system && accept_kw(p, WEIR__SQL_KW_TABLE)) {
        st = new_stmt(p, WEIR_SQL_STMT_CREATE_TABLE, loc);
        st->u.create_table.temporary = temporary;
        parse_create_table(p, st);
    } else if (!system && accept_kw(p, WEIR__SQL_KW_VIEW)) {
        st = new_stmt(p, WEIR_SQL_STMT_CREATE_VIEW, loc);
        st->u.create_view.temporary = temporary;
        parse_create_view(p, st);
    } else if (accept_kw(p, WEIR__SQL_KW_FUNCTION)) {
        st = new_stmt(p, WEIR_SQL_STMT_CREATE_FUNCTION, loc);
        st->u.create_function.temporary = temporary;
        st->u.create_function.system = system;
        parse_create_function(p, st);
    } else if (!temporary && accept_kw(p, WEIR__SQL_KW_CATALOG)) {
        st = new_stmt(p, WEIR_SQL_STMT_CREATE_CATALOG, loc);
        parse_create_space(p, st, true);
    } else if (!temporary && accept_kw(p, WEIR__SQL_KW_DATABASE)) {
        st = new_stmt(p, WEIR_SQL_STMT_CREATE_DATABASE, loc);
        parse_create_space(p, st, false);
    } else if (system) {
        parser_expected(p, "FUNCTION");
    } else {
        if (!temporary)
            refuse_flink_only(p, flink_only_create,
                              sizeof flink_only_create / sizeof *flink_only_create);
        parser_expected(p, temporary ? "TABLE, VIEW, SYSTEM or FUNCTION"
                                     : "TABLE, VIEW, FUNCTION, DATABASE, "
                                       "CATALOG or TEMPORARY");
    }
    return st;
}

static weir_sql_stmt *parse_drop(parser *p)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_DROP, cur(p)->loc);
    weir_sql_drop *d = &st->u.drop;
    expect_kw(p, WEIR__SQL_KW_DROP);
    d->temporary = accept_kw(p, WEIR__SQL_KW_TEMPORARY);
    d->system = d->temporary && accept_kw(p, WEIR__SQL_KW_SYSTEM);
    if (!d->system && accept_kw(p, WEIR__SQL_KW_TABLE))
        d->object = WEIR_SQL_OBJECT_TABLE;
    else if (!d->system && accept_kw(p, WEIR__SQL_KW_VIEW))
        d->object = WEIR_SQL_OBJECT_VIEW;
    else if (accept_kw(p, WEIR__SQL_KW_FUNCTION))
        d->object = WEIR_SQL_OBJECT_FUNCTION;
    else if (!d->temporary && accept_kw(p, WEIR__SQL_KW_DATABASE))
        d->object = WEIR_SQL_OBJECT_DATABASE;
    else if (!d->temporary && accept_kw(p, WEIR__SQL_KW_CATALOG))
        d->object = WEIR_SQL_OBJECT_CATALOG;
    else if (d->system)
        parser_expected(p, "FUNCTION");
    else if (d->temporary)
        parser_expected(p, "TABLE, VIEW, SYSTEM or FUNCTION");
    else
        parser_expected(p, "TABLE, VIEW, FUNCTION, DATABASE, CATALOG or "
                           "TEMPORARY");
    d->if_exists = accept_if_exists(p);
    d->name = parse_name(p, "a name");
    if (d->object == WEIR_SQL_OBJECT_DATABASE) {
        if (accept_word(p, "CASCADE"))
            d->cascade = true;
        else
            accept_word(p, "RESTRICT");
    }
    return st;
}

/* RESET ('k', ...) of ALTER TABLE / CATALOG */
static void parse_reset_keys(parser *p, weir_sql_alter *a)
{
    a->action = WEIR_SQL_ALTER_RESET;
    vec keys = {0}, locs = {0};
    expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
    do {
        weir_sql_loc *l = vec_push(p, &locs, sizeof *l);
        *(const char **)vec_push(p, &keys, sizeof(char *)) =
            parse_string(p, "a quoted option key", l);
    } while (accept_tk(p, WEIR__SQL_TK_COMMA));
    expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
    a->keys = keys.data;
    a->key_locs = locs.data;
    a->n_keys = keys.n;
}

/* ADD / MODIFY: one schema component, or a parenthesized list of them. */
static void parse_alter_components(parser *p, weir_sql_alter *a)
{
    weir_sql_create_table *ct = PNEW(p, weir_sql_create_table);
    vec cols = {0}, pos = {0};
    a->schema = ct;
    a->parenthesized = accept_tk(p, WEIR__SQL_TK_LPAREN);
    do {
        uint32_t before = cols.n;
        parse_table_element(p, ct, &cols);
        if (cols.n == before)
            continue;
        weir_sql_column_position *cp = vec_push(p, &pos, sizeof *cp);
        if (accept_kw(p, WEIR__SQL_KW_FIRST))
            cp->first = true;
        else if (accept_word(p, "AFTER"))
            cp->after = parse_ident_ptr(p, "a column name");
    } while (a->parenthesized && accept_tk(p, WEIR__SQL_TK_COMMA));
    if (a->parenthesized)
        expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
    ct->columns = cols.data;
    ct->n_columns = cols.n;
    ct->has_column_list = true;
    a->positions = pos.data;
}

/* ALTER TABLE ... ADD / MODIFY / DROP of partitions or a distribution. */
static void refuse_alter_partitions(parser *p)
{
    uint32_t k = tok_is_kw(cur(p), WEIR__SQL_KW_IF) ? 1 : 0;
    while (k && k < 3 && !next_word_is(p, k, "PARTITION"))
        k++; /* IF [NOT] EXISTS PARTITION */
    static const char *const words[] = {"PARTITION", "DISTRIBUTION", "DISTRIBUTED"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (next_word_is(p, k, words[i]))
            parser_fail_at(p, peek_tok(p, k)->loc,
                           "ALTER TABLE ... %s is not supported by weir",
                           words[i]);
}

static void parse_alter_table(parser *p, weir_sql_alter *a)
{
    if (accept_word(p, "RENAME")) {
        if (accept_kw(p, WEIR__SQL_KW_TO)) {
            a->action = WEIR_SQL_ALTER_RENAME;
            a->new_name = parse_name(p, "the new table name");
            return;
        }
        a->action = WEIR_SQL_ALTER_RENAME_COLUMN;
        a->column = parse_ident(p, "TO or a column name");
        expect_kw(p, WEIR__SQL_KW_TO);
        a->new_column = parse_ident(p, "the new column name");
    } else if (accept_kw(p, WEIR__SQL_KW_SET)) {
        a->action = WEIR_SQL_ALTER_SET;
        parse_options(p, &a->options, &a->n_options);
    } else if (accept_kw(p, WEIR__SQL_KW_RESET)) {
        parse_reset_keys(p, a);
    } else if (accept_word(p, "ADD")) {
        a->action = WEIR_SQL_ALTER_ADD;
        refuse_alter_partitions(p);
        parse_alter_components(p, a);
    } else if (accept_word(p, "MODIFY")) {
        a->action = WEIR_SQL_ALTER_MODIFY;
        refuse_alter_partitions(p);
        parse_alter_components(p, a);
    } else if (accept_kw(p, WEIR__SQL_KW_DROP)) {
        refuse_alter_partitions(p);
        if (is_kw(p, WEIR__SQL_KW_PRIMARY)) {
            parser_advance(p);
            expect_kw(p, WEIR__SQL_KW_KEY);
            a->action = WEIR_SQL_ALTER_DROP_PRIMARY_KEY;
        } else if (accept_kw(p, WEIR__SQL_KW_CONSTRAINT)) {
            a->action = WEIR_SQL_ALTER_DROP_PRIMARY_KEY;
            a->constraint = parse_ident_ptr(p, "a constraint name");
        } else if (is_kw(p, WEIR__SQL_KW_WATERMARK) &&
                   (peek_tok(p, 1)->type == WEIR__SQL_TK_SEMI ||
                    peek_tok(p, 1)->type == WEIR__SQL_TK_EOF)) {
            parser_advance(p);
            a->action = WEIR_SQL_ALTER_DROP_WATERMARK;
        } else {
            a->action = WEIR_SQL_ALTER_DROP_COLUMNS;
            if (is_tk(p, WEIR__SQL_TK_LPAREN)) {
                parse_ident_list(p, &a->drop_columns, &a->n_drop_columns,
                                 "a column name");
            } else {
                a->drop_columns = parse_ident_ptr(
                    p, "a column name, PRIMARY KEY, CONSTRAINT or WATERMARK");
                a->n_drop_columns = 1;
            }
        }
    } else {
        if (next_word_is(p, 0, "DISTRIBUTED") || next_word_is(p, 0, "PARTITION"))
            parser_fail_at(p, cur(p)->loc,
                           "ALTER TABLE ... %s is not supported by weir",
                           next_word_is(p, 0, "PARTITION") ? "PARTITION"
                                                         : "DISTRIBUTED");
        parser_expected_hint(p, "RENAME, SET, RESET, ADD, MODIFY or DROP",
                             "RENAME SET RESET ADD MODIFY DROP");
    }
}

/* ALTER TABLE [IF EXISTS] t ... | ALTER VIEW v RENAME TO v2 | AS query */
static weir_sql_stmt *parse_alter(parser *p)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_ALTER, cur(p)->loc);
    weir_sql_alter *a = &st->u.alter;
    parser_advance(p); /* ALTER */
    if (accept_kw(p, WEIR__SQL_KW_TABLE)) {
        a->object = WEIR_SQL_OBJECT_TABLE;
        a->if_exists = accept_if_exists(p);
        a->name = parse_name(p, "a table name");
        parse_alter_table(p, a);
        return st;
    }
    if (is_kw(p, WEIR__SQL_KW_DATABASE) || is_kw(p, WEIR__SQL_KW_CATALOG)) {
        /* ALTER DATABASE [c.]db SET (...); ALTER CATALOG c SET (...) | RESET (...) */
        bool catalog = is_kw(p, WEIR__SQL_KW_CATALOG);
        parser_advance(p);
        a->object = catalog ? WEIR_SQL_OBJECT_CATALOG : WEIR_SQL_OBJECT_DATABASE;
        a->name = parse_name(p, catalog ? "a catalog name" : "a database name");
        if (accept_kw(p, WEIR__SQL_KW_SET)) {
            a->action = WEIR_SQL_ALTER_SET;
            parse_options(p, &a->options, &a->n_options);
        } else if (catalog && accept_kw(p, WEIR__SQL_KW_RESET)) {
            parse_reset_keys(p, a);
        } else if (catalog && next_word_is(p, 0, "COMMENT")) {
            parser_fail_at(p, cur(p)->loc,
                           "ALTER CATALOG ... COMMENT is not supported by weir");
        } else {
            parser_expected(p, catalog ? "SET or RESET" : "SET");
        }
        return st;
    }
    if (!accept_kw(p, WEIR__SQL_KW_VIEW)) {
        const token *t = cur(p);
        if (t->type == WEIR__SQL_TK_IDENT)
            parser_fail_at(p, t->loc,
                           "ALTER %.*s statements are not supported by weir",
                           (int)t->len, p->src + t->loc.offset);
        parser_expected(p, "TABLE, VIEW, DATABASE or CATALOG");
    }
    a->object = WEIR_SQL_OBJECT_VIEW;
    a->name = parse_name(p, "a view name");
    if (accept_word(p, "RENAME")) {
        expect_kw(p, WEIR__SQL_KW_TO);
        a->action = WEIR_SQL_ALTER_RENAME;
        a->new_name = parse_name(p, "the new view name");
    } else if (accept_kw(p, WEIR__SQL_KW_AS)) {
        if (!at_query_start(p))
            parser_expected(p, "a query (SELECT, VALUES or WITH)");
        a->action = WEIR_SQL_ALTER_AS;
        a->query = parse_query(p);
    } else {
        parser_expected_hint(p, "RENAME TO or AS", "RENAME AS");
    }
    return st;
}

static weir_sql_stmt *parse_insert(parser *p, bool execute)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_INSERT, cur(p)->loc);
    weir_sql_insert *ins = &st->u.insert;
    ins->execute = execute;
    expect_kw(p, WEIR__SQL_KW_INSERT);
    if (accept_kw(p, WEIR__SQL_KW_OVERWRITE))
        ins->overwrite = true;
    else if (!accept_kw(p, WEIR__SQL_KW_INTO))
        parser_expected(p, "INTO or OVERWRITE");
    ins->table = parse_name(p, "a table name");
    parse_hints_after(p, p->pos - 1, &ins->hints, &ins->n_hints);
    if (accept_kw(p, WEIR__SQL_KW_PARTITION)) {
        vec v = {0};
        expect_tk(p, WEIR__SQL_TK_LPAREN, "'('");
        do {
            weir_sql_partition_value *pv = vec_push(p, &v, sizeof *pv);
            pv->column = parse_ident(p, "a partition column name");
            expect_tk(p, WEIR__SQL_TK_EQ, "'='");
            pv->value = parse_expr(p, PREC_ADD);
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        expect_tk(p, WEIR__SQL_TK_RPAREN, "',' or ')'");
        ins->partition = v.data;
        ins->n_partition = v.n;
    }
    if (is_tk(p, WEIR__SQL_TK_LPAREN) && !at_query_start(p))
        parse_ident_list(p, &ins->columns, &ins->n_columns, "a column name");
    if (!at_query_start(p))
        parser_expected_hint(p,
                             ins->n_columns || is_tk(p, WEIR__SQL_TK_LPAREN)
                                 ? "a query (SELECT, VALUES or WITH)"
                                 : "a query (SELECT, VALUES or WITH) or a "
                                   "column list",
                             "SELECT VALUES WITH");
    ins->query = parse_query(p);
    return st;
}

/* The INSERTs of EXECUTE STATEMENT SET BEGIN ...; ...; END. */
static void parse_set_body(parser *p, weir_sql_statement_set *set,
                           bool script_form)
{
    vec v = {0};
    for (;;) {
        while (accept_tk(p, WEIR__SQL_TK_SEMI))
            ;
        if (accept_kw(p, WEIR__SQL_KW_END))
            break;
        if (!is_kw(p, WEIR__SQL_KW_INSERT))
            parser_expected_hint(p,
                                 v.n ? "INSERT or END"
                                     : "INSERT (a statement set holds "
                                       "INSERT statements)",
                                 "INSERT END");
        weir_sql_stmt *ins = parse_insert(p, false);
        ins->end = prev_end(p);
        *(weir_sql_stmt **)vec_push(p, &v, sizeof(void *)) = ins;
        if (!is_tk(p, WEIR__SQL_TK_SEMI) && !is_kw(p, WEIR__SQL_KW_END))
            parser_expected(p, script_form ? "';'" : "';' or END");
    }
    set->inserts = v.data;
    set->n_inserts = v.n;
}

static weir_sql_stmt *parse_statement_set(parser *p, weir_sql_loc loc,
                                          bool execute_form)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_STATEMENT_SET, loc);
    st->u.statement_set.execute_form = execute_form;
    if (execute_form) {
        /* [EXECUTE] STATEMENT SET BEGIN ... END */
        expect_kw(p, WEIR__SQL_KW_STATEMENT);
        expect_kw(p, WEIR__SQL_KW_SET);
        expect_kw(p, WEIR__SQL_KW_BEGIN);
        parse_set_body(p, &st->u.statement_set, false);
    } else {
        /* BEGIN STATEMENT SET; ...; END */
        expect_kw(p, WEIR__SQL_KW_BEGIN);
        expect_kw(p, WEIR__SQL_KW_STATEMENT);
        expect_kw(p, WEIR__SQL_KW_SET);
        expect_tk(p, WEIR__SQL_TK_SEMI, "';'");
        parse_set_body(p, &st->u.statement_set, true);
    }
    return st;
}

/*
 * The SQL client's unquoted form SET table.exec.mini-batch.enabled = true:
 * the key is the text up to '=', the value the text up to ';' (both
 * without the blanks around them).
 */
static const char *parse_set_word(parser *p, weir_sql_loc *loc, bool key)
{
    *loc = cur(p)->loc;
    uint32_t start = cur(p)->loc.offset;
    while (!is_tk(p, WEIR__SQL_TK_SEMI) && !is_tk(p, WEIR__SQL_TK_EOF) &&
           !is_tk(p, WEIR__SQL_TK_ERROR) &&
           !(key && is_tk(p, WEIR__SQL_TK_EQ)))
        parser_advance(p);
    uint32_t end = prev_end(p);
    if (end <= start)
        parser_expected(p, key ? "a configuration key such as "
                                 "'parallelism.default'"
                               : "a value such as '4'");
    /* one line of plain text: a comment or line break inside it is refused */
    for (uint32_t i = start; i < end; i++) {
        char c = p->src[i], d = i + 1 < end ? p->src[i + 1] : 0;
        if (c == '\n' || c == '\r' || c == 0 || (c == '-' && d == '-') ||
            (c == '/' && d == '*'))
            parser_fail_at(p, *loc,
                           "an unquoted SET %s must be one line without "
                           "comments: quote it ('...')",
                           key ? "key" : "value");
    }
    return parser_strndup(p, p->src + start, end - start);
}

static weir_sql_stmt *parse_set(parser *p)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_SET, cur(p)->loc);
    expect_kw(p, WEIR__SQL_KW_SET);
    if (is_tk(p, WEIR__SQL_TK_SEMI) || is_tk(p, WEIR__SQL_TK_EOF))
        return st;
    if (is_tk(p, WEIR__SQL_TK_STRING))
        st->u.set.key = parse_string(
            p, "a quoted configuration key such as 'parallelism.default'",
            &st->u.set.key_loc);
    else
        st->u.set.key = parse_set_word(p, &st->u.set.key_loc, true);
    expect_tk(p, WEIR__SQL_TK_EQ, "'='");
    if (is_tk(p, WEIR__SQL_TK_STRING))
        st->u.set.value = parse_string(p, "a quoted value such as '4'",
                                       &st->u.set.value_loc);
    else
        st->u.set.value = parse_set_word(p, &st->u.set.value_loc, false);
    return st;
}

static weir_sql_stmt *parse_reset(parser *p)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_RESET, cur(p)->loc);
    expect_kw(p, WEIR__SQL_KW_RESET);
    if (is_tk(p, WEIR__SQL_TK_SEMI) || is_tk(p, WEIR__SQL_TK_EOF))
        return st;
    st->u.reset.key = parse_string(
        p, "a quoted configuration key such as 'parallelism.default'",
        &st->u.reset.key_loc);
    return st;
}

static const char *const explain_details[] = {
    "ESTIMATED_COST", "CHANGELOG_MODE", "PLAN_ADVICE", "JSON_EXECUTION_PLAN"};

static bool is_explain_detail(const parser *p, const token *t)
{
    if (t->type != WEIR__SQL_TK_IDENT || t->kw)
        return false;
    for (size_t i = 0; i < sizeof explain_details / sizeof *explain_details;
         i++)
        if (strlen(explain_details[i]) == t->len &&
            strncasecmp(explain_details[i], p->src + t->loc.offset, t->len) ==
                0)
            return true;
    return false;
}

static weir_sql_stmt *parse_explain(parser *p)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_EXPLAIN, cur(p)->loc);
    weir_sql_explain *ex = &st->u.explain;
    expect_kw(p, WEIR__SQL_KW_EXPLAIN);
    if (accept_kw(p, WEIR__SQL_KW_PLAN)) {
        expect_kw(p, WEIR__SQL_KW_FOR);
        ex->plan_for = true;
    } else if (cur(p)->type == WEIR__SQL_TK_IDENT && !cur(p)->kw) {
        vec v = {0};
        do {
            if (!is_explain_detail(p, cur(p)))
                parser_expected_hint(
                    p,
                    "a statement or an EXPLAIN detail (ESTIMATED_COST, "
                    "CHANGELOG_MODE, PLAN_ADVICE, JSON_EXECUTION_PLAN)",
                    "SELECT INSERT STATEMENT EXECUTE WITH VALUES PLAN "
                    "ESTIMATED_COST CHANGELOG_MODE PLAN_ADVICE "
                    "JSON_EXECUTION_PLAN");
            *(weir_sql_ident *)vec_push(p, &v, sizeof(weir_sql_ident)) =
                parse_ident(p, "an EXPLAIN detail");
        } while (accept_tk(p, WEIR__SQL_TK_COMMA));
        ex->details = v.data;
        ex->n_details = v.n;
    }
    weir_sql_loc loc = cur(p)->loc;
    if (is_kw(p, WEIR__SQL_KW_INSERT)) {
        ex->stmt = parse_insert(p, false);
    } else if (is_kw(p, WEIR__SQL_KW_EXECUTE) &&
               peek_is_kw(p, 1, WEIR__SQL_KW_STATEMENT)) {
        parser_advance(p);
        ex->stmt = parse_statement_set(p, loc, true);
    } else if (is_kw(p, WEIR__SQL_KW_STATEMENT)) {
        ex->stmt = parse_statement_set(p, loc, true);
    } else if (at_query_start(p)) {
        ex->stmt = new_stmt(p, WEIR_SQL_STMT_QUERY, loc);
        ex->stmt->u.query.query = parse_query(p);
    } else {
        parser_expected_hint(p, "a query, INSERT or STATEMENT SET",
                             "SELECT INSERT STATEMENT WITH VALUES");
    }
    ex->stmt->end = prev_end(p);
    return st;
}

/* SHOW TABLES / VIEWS / FUNCTIONS [FROM | IN [c.]db], SHOW DATABASES
 * [FROM | IN c] */
static void parse_show_from(parser *p, weir_sql_stmt *st, const char *what)
{
    if (accept_kw(p, WEIR__SQL_KW_FROM) || accept_kw(p, WEIR__SQL_KW_IN))
        st->u.show.from = parse_name(p, what);
}

/* SHOW TABLES / VIEWS / COLUMNS ... [NOT] LIKE | ILIKE 'pattern' */
static void parse_show_like(parser *p, weir_sql_stmt *st)
{
    if (is_tk(p, WEIR__SQL_TK_SEMI) || is_tk(p, WEIR__SQL_TK_EOF))
        return;
    st->u.show.not_like = accept_kw(p, WEIR__SQL_KW_NOT);
    if (accept_word(p, "ILIKE"))
        st->u.show.ilike = true;
    else if (!accept_kw(p, WEIR__SQL_KW_LIKE))
        parser_expected(p, st->u.show.not_like ? "LIKE or ILIKE"
                                               : "';', LIKE or ILIKE");
    st->u.show.like = parse_string(p, "a quoted pattern such as 'a%'", NULL);
}

static weir_sql_stmt *parse_show(parser *p)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_SHOW, cur(p)->loc);
    expect_kw(p, WEIR__SQL_KW_SHOW);
    if (accept_kw(p, WEIR__SQL_KW_TABLES)) {
        st->u.show.what = WEIR_SQL_SHOW_TABLES;
        parse_show_from(p, st, "a database name");
        parse_show_like(p, st);
    } else if (accept_kw(p, WEIR__SQL_KW_VIEWS)) {
        st->u.show.what = WEIR_SQL_SHOW_VIEWS;
        parse_show_from(p, st, "a database name");
        parse_show_like(p, st);
    } else if (accept_word(p, "COLUMNS")) {
        st->u.show.what = WEIR_SQL_SHOW_COLUMNS;
        if (!accept_kw(p, WEIR__SQL_KW_FROM) && !accept_kw(p, WEIR__SQL_KW_IN))
            parser_expected(p, "FROM or IN");
        st->u.show.name = parse_name(p, "a table or view name");
        parse_show_like(p, st);
    } else if (is_kw(p, WEIR__SQL_KW_FUNCTIONS) ||
               (next_word_is(p, 0, "USER") &&
                tok_is_kw(peek_tok(p, 1), WEIR__SQL_KW_FUNCTIONS))) {
        st->u.show.user = !is_kw(p, WEIR__SQL_KW_FUNCTIONS);
        if (st->u.show.user)
            parser_advance(p); /* USER */
        parser_advance(p);     /* FUNCTIONS */
        st->u.show.what = WEIR_SQL_SHOW_FUNCTIONS;
        parse_show_from(p, st, "a database name");
        parse_show_like(p, st);
    } else if (accept_kw(p, WEIR__SQL_KW_DATABASES)) {
        st->u.show.what = WEIR_SQL_SHOW_DATABASES;
        parse_show_from(p, st, "a catalog name");
        parse_show_like(p, st);
    } else if (accept_kw(p, WEIR__SQL_KW_CATALOGS)) {
        st->u.show.what = WEIR_SQL_SHOW_CATALOGS;
        parse_show_like(p, st);
    } else if (accept_kw(p, WEIR__SQL_KW_CREATE)) {
        if (accept_kw(p, WEIR__SQL_KW_TABLE))
            st->u.show.what = WEIR_SQL_SHOW_CREATE_TABLE;
        else if (accept_kw(p, WEIR__SQL_KW_VIEW))
            st->u.show.what = WEIR_SQL_SHOW_CREATE_VIEW;
        else if (accept_kw(p, WEIR__SQL_KW_CATALOG))
            st->u.show.what = WEIR_SQL_SHOW_CREATE_CATALOG;
        else if (next_word_is(p, 0, "DATABASE") || next_word_is(p, 0, "MATERIALIZED") ||
                 next_word_is(p, 0, "MODEL") || next_word_is(p, 0, "FUNCTION"))
            parser_fail_at(p, cur(p)->loc,
                           "SHOW CREATE %.*s is not supported by weir",
                           (int)cur(p)->len, p->src + cur(p)->loc.offset);
        else
            parser_expected(p, "TABLE, VIEW or CATALOG");
        st->u.show.name = parse_name(p, "a name");
    } else if (accept_word(p, "JOBS")) {
        st->u.show.what = WEIR_SQL_SHOW_JOBS;
    } else if (next_word_is(p, 0, "CURRENT") &&
               (tok_is_kw(peek_tok(p, 1), WEIR__SQL_KW_CATALOG) ||
                tok_is_kw(peek_tok(p, 1), WEIR__SQL_KW_DATABASE))) {
        parser_advance(p);
        st->u.show.what = is_kw(p, WEIR__SQL_KW_CATALOG)
                              ? WEIR_SQL_SHOW_CURRENT_CATALOG
                              : WEIR_SQL_SHOW_CURRENT_DATABASE;
        parser_advance(p);
    } else {
        /* Flink's other SHOW statements (JOBS, MODULES, JARS, COLUMNS,
         * ...): named, as weir runs none of them. */
        const token *t = cur(p);
        if (next_word_is(p, 0, "MODULES") ||
            (next_word_is(p, 0, "FULL") && next_word_is(p, 1, "MODULES")))
            parser_fail_at(p, t->loc, "SHOW MODULES is not supported by weir: %s", WHY_MODULE);
        if (next_word_is(p, 0, "JARS"))
            parser_fail_at(p, t->loc, "SHOW JARS is not supported by weir: %s", WHY_JAR);
        if (t->type == WEIR__SQL_TK_IDENT && !tok_is_kw(t, WEIR__SQL_KW_FROM))
            parser_fail_at(p, t->loc, "SHOW %.*s statements are not supported by weir",
                           (int)t->len, p->src + t->loc.offset);
        parser_expected(p, "TABLES, VIEWS, FUNCTIONS, DATABASES, CATALOGS, "
                           "COLUMNS, CURRENT or CREATE");
    }
    return st;
}

static weir_sql_stmt *parse_describe(parser *p)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_DESCRIBE, cur(p)->loc);
    parser_advance(p); /* DESCRIBE or DESC */
    st->u.describe.extended = accept_kw(p, WEIR__SQL_KW_EXTENDED);
    /* DESCRIBE CATALOG c, DESCRIBE FUNCTION f, ...: Flink's, named (a table
     * called catalog is still DESCRIBE catalog) */
    static const char *const others[] = {"CATALOG", "DATABASE", "FUNCTION", "MODEL", "JOB"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (next_word_is(p, 0, others[i]) && tok_is_name(peek_tok(p, 1)))
            parser_fail_at(p, cur(p)->loc, "DESCRIBE %s is not supported by weir",
                           others[i]);
    st->u.describe.name = parse_name(p, "a table or view name");
    return st;
}

static weir_sql_stmt *parse_use(parser *p)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_USE, cur(p)->loc);
    expect_kw(p, WEIR__SQL_KW_USE);
    /* USE MODULES m1, m2 (Flink's module order), but USE modules_db */
    if (next_word_is(p, 0, "MODULES") && tok_is_name(peek_tok(p, 1)))
        parser_fail_at(p, st->loc, "USE MODULES is not supported by weir: %s", WHY_MODULE);
    /* USE CATALOG c, but also USE catalog_named_db */
    if (is_kw(p, WEIR__SQL_KW_CATALOG) && tok_is_name(peek_tok(p, 1))) {
        parser_advance(p);
        st->u.use.catalog = true;
    }
    st->u.use.name = parse_name(p, "a catalog or database name");
    return st;
}

/* STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN] (Flink's SQL client) */
static weir_sql_stmt *parse_stop_job(parser *p)
{
    weir_sql_stmt *st = new_stmt(p, WEIR_SQL_STMT_STOP_JOB, cur(p)->loc);
    parser_advance(p); /* STOP */
    if (!accept_word(p, "JOB"))
        parser_expected(p, "JOB");
    st->u.stop_job.job = parse_string(p, "a quoted job id", &st->u.stop_job.job_loc);
    if (is_kw(p, WEIR__SQL_KW_WITH) && next_word_is(p, 1, "SAVEPOINT")) {
        parser_advance(p);
        parser_advance(p);
        st->u.stop_job.savepoint = true;
    }
    if (accept_kw(p, WEIR__SQL_KW_WITH)) {
        if (!accept_word(p, "DRAIN"))
            parser_expected(p, st->u.stop_job.savepoint ? "DRAIN" : "SAVEPOINT or DRAIN");
        st->u.stop_job.drain = true;
    }
    return st;
}

static const char statement_words[] =
    "SELECT INSERT CREATE DROP SET RESET EXPLAIN EXECUTE BEGIN WITH VALUES "
    "SHOW DESCRIBE USE ALTER REPLACE STOP";

static weir_sql_stmt *parse_statement(parser *p)
{
    const token *t = cur(p);
    weir_sql_loc loc = t->loc;
    weir_sql_stmt *st = NULL;
    switch (t->type == WEIR__SQL_TK_IDENT ? t->kw : WEIR__SQL_KW_NONE) {
    case WEIR__SQL_KW_CREATE:
        st = parse_create(p);
        break;
    case WEIR__SQL_KW_DROP:
        st = parse_drop(p);
        break;
    case WEIR__SQL_KW_INSERT:
        st = parse_insert(p, false);
        break;
    case WEIR__SQL_KW_EXECUTE:
        parser_advance(p);
        if (is_kw(p, WEIR__SQL_KW_STATEMENT)) {
            st = parse_statement_set(p, loc, true);
        } else if (is_kw(p, WEIR__SQL_KW_INSERT)) {
            st = parse_insert(p, true);
            st->loc = loc;
        } else {
            if (next_word_is(p, 0, "PLAN"))
                parser_fail_at(p, loc, "EXECUTE PLAN is not supported by weir: %s", WHY_PLAN);
            parser_expected(p, "STATEMENT SET or INSERT");
        }
        break;
    case WEIR__SQL_KW_BEGIN:
        st = parse_statement_set(p, loc, false);
        break;
    case WEIR__SQL_KW_SET:
        st = parse_set(p);
        break;
    case WEIR__SQL_KW_RESET:
        st = parse_reset(p);
        break;
    case WEIR__SQL_KW_EXPLAIN:
        st = parse_explain(p);
        break;
    case WEIR__SQL_KW_SHOW:
        st = parse_show(p);
        break;
    case WEIR__SQL_KW_DESCRIBE:
    case WEIR__SQL_KW_DESC:
        st = parse_describe(p);
        break;
    case WEIR__SQL_KW_USE:
        st = parse_use(p);
        break;
    default:
        if (next_word_is(p, 0, "ALTER")) {
            st = parse_alter(p);
            break;
        }
        if (next_word_is(p, 0, "REPLACE") &&
            tok_is_kw(peek_tok(p, 1), WEIR__SQL_KW_TABLE)) {
            parser_advance(p);
            st = parse_replace_table(p, loc, false);
            break;
        }
        if (next_word_is(p, 0, "STOP")) {
            st = parse_stop_job(p);
            break;
        }
        refuse_flink_only(p, flink_only_statements,
                          sizeof flink_only_statements /
                              sizeof *flink_only_statements);
        if (!at_query_start(p))
            parser_expected_hint(p, "a statement", statement_words);
        st = new_stmt(p, WEIR_SQL_STMT_QUERY, loc);
        st->u.query.query = parse_query(p);
        break;
    }
    st->end = prev_end(p);
    return st;
}

static void parse_script(parser *p, weir_sql_script *s)
{
    vec v = {0};
    for (;;) {
        while (accept_tk(p, WEIR__SQL_TK_SEMI))
            ;
        if (is_tk(p, WEIR__SQL_TK_EOF))
            break;
        p->depth = 0;
        weir_sql_stmt *st = parse_statement(p);
        *(weir_sql_stmt **)vec_push(p, &v, sizeof(void *)) = st;
        if (accept_tk(p, WEIR__SQL_TK_SEMI))
            continue;
        if (is_tk(p, WEIR__SQL_TK_EOF))
            break;
        const token *t = cur(p);
        weir__sql_kw kw =
            t->type == WEIR__SQL_TK_IDENT ? t->kw : WEIR__SQL_KW_NONE;
        if (kw == WEIR__SQL_KW_CREATE || kw == WEIR__SQL_KW_INSERT ||
            kw == WEIR__SQL_KW_SELECT || kw == WEIR__SQL_KW_DROP ||
            kw == WEIR__SQL_KW_EXECUTE || kw == WEIR__SQL_KW_EXPLAIN ||
            kw == WEIR__SQL_KW_BEGIN || kw == WEIR__SQL_KW_RESET)
            parser_expected(p, "';' before the next statement");
        parser_expected_hint(p, "';'", clause_words);
    }
    s->stmts = v.data;
    s->n_stmts = v.n;
}

/* ---------------------------------------------------------------- the API */

/* Runs the parse under setjmp; p is not modified here after setjmp, so its
 * contents are well-defined after a longjmp. */
static int run(parser *p, weir_sql_script *s)
{
    jmp_buf jb;
    p->jb = &jb;
    if (setjmp(jb))
        return p->code;
    weir_sql_loc start = {1, 1, 0};
    if (weir__sql_lex(p->src, (uint32_t)s->len, start, true, p->scratch,
                      p->arena, &p->toks))
        parser_oom(p);
    parse_script(p, s);
    return 0;
}

int weir_sql_parse(const char *file, const char *text, size_t len,
                   weir_sql_script **out, weir_error *err,
                   weir_sql_loc *err_loc)
{
    if (out)
        *out = NULL;
    if (err_loc)
        *err_loc = (weir_sql_loc){0, 0, 0};
    if (!file)
        file = "<input>";
    if (!out || (!text && len))
        return weir_error_set(err, WEIR_EINVAL,
                              "%s: error: invalid arguments to "
                              "weir_sql_parse",
                              file);
    if (len > WEIR_SQL_MAX_SCRIPT_BYTES)
        return weir_error_set(err, WEIR_EPARSE,
                              "%s: error: script too large (%zu bytes; the "
                              "limit is %zu)",
                              file, len, WEIR_SQL_MAX_SCRIPT_BYTES);
    weir_sql_script *s = weir_calloc(1, sizeof *s);
    weir__sql_arena *scratch = weir__sql_arena_create();
    if (!s || !scratch || !(s->arena = weir__sql_arena_create()))
        goto oom;
    s->file = weir__sql_arena_strndup(s->arena, file, strlen(file));
    char *copy = weir__sql_arena_strndup(s->arena, text ? text : "", len);
    if (!s->file || !copy)
        goto oom;
    s->text = copy;
    s->len = len;

    parser p;
    memset(&p, 0, sizeof p);
    p.file = s->file;
    p.src = s->text;
    p.arena = s->arena;
    p.scratch = scratch;
    p.err = err;
    p.err_loc = err_loc;
    p.alias_tok = -1;
    int rc = run(&p, s);
    weir__sql_arena_destroy(scratch);
    if (rc) {
        weir_sql_script_destroy(s);
        return rc;
    }
    weir_error_clear(err);
    *out = s;
    return 0;

oom:
    weir__sql_arena_destroy(scratch);
    weir_sql_script_destroy(s);
    return weir_error_set(err, WEIR_ENOMEM,
                          "%s: error: out of memory while parsing", file);
}

void weir_sql_script_destroy(weir_sql_script *s)
{
    if (!s)
        return;
    weir__sql_arena_destroy(s->arena);
    weir_free(s);
}

const char *weir_sql_script_file(const weir_sql_script *s)
{
    return s->file;
}

const char *weir_sql_script_text(const weir_sql_script *s, size_t *len)
{
    if (len)
        *len = s->len;
    return s->text;
}

size_t weir_sql_script_count(const weir_sql_script *s)
{
    return s ? s->n_stmts : 0;
}

const weir_sql_stmt *weir_sql_script_stmt(const weir_sql_script *s, size_t i)
{
    if (!s || i >= s->n_stmts)
        return NULL;
    return s->stmts[i];
}

weir_sql_stmt_kind weir_sql_stmt_get_kind(const weir_sql_stmt *st)
{
    return st->kind;
}

weir_sql_loc weir_sql_stmt_loc(const weir_sql_stmt *st)
{
    return st->loc;
}

const char *weir_sql_stmt_text(const weir_sql_stmt *st, size_t *len)
{
    if (len)
        *len = st->end - st->loc.offset;
    return st->text_base + st->loc.offset;
}
