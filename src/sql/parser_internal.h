/*
 * sql/parser_internal.h - state and helpers shared by the parser's files
 * (parser.c: scripts and statements; parse_query.c: queries, FROM, windows;
 * parse_expr.c: expressions, types and literals). Not used outside sql/.
 *
 * Error handling: a syntax error (or an allocation failure) formats the
 * message into the caller's weir_error and longjmps back to
 * weir_sql_parse, which frees both arenas. Every allocation during a parse
 * comes from an arena, so unwinding leaks nothing; no parser function holds
 * memory of its own across a call that can fail.
 *
 * Recursion: every recursive entry point (expression, query, table
 * reference, type) calls parser_enter/parser_leave, which fail beyond
 * WEIR_SQL_MAX_NESTING; node heights are checked against
 * WEIR_SQL_MAX_HEIGHT when nodes are built.
 */
#ifndef WEIR_SQL_PARSER_INTERNAL_H
#define WEIR_SQL_PARSER_INTERNAL_H

#include <setjmp.h>

#include "sql/arena.h"
#include "sql/ast.h"
#include "sql/lexer.h"

/*
 * The parser's shared functions keep short names in its source but link
 * under the internal prefix, so they cannot collide with other modules.
 */
#define parser_oom weir__sqlp_parser_oom
#define parser_fail_at weir__sqlp_parser_fail_at
#define parser_expected weir__sqlp_parser_expected
#define parser_expected_hint weir__sqlp_parser_expected_hint
#define parser_alloc weir__sqlp_parser_alloc
#define parser_strndup weir__sqlp_parser_strndup
#define vec_push weir__sqlp_vec_push
#define parser_advance weir__sqlp_parser_advance
#define accept_tk weir__sqlp_accept_tk
#define accept_kw weir__sqlp_accept_kw
#define expect_tk weir__sqlp_expect_tk
#define expect_kw weir__sqlp_expect_kw
#define prev_end weir__sqlp_prev_end
#define tok_is_name weir__sqlp_tok_is_name
#define parser_enter weir__sqlp_parser_enter
#define parser_check_height weir__sqlp_parser_check_height
#define parse_ident weir__sqlp_parse_ident
#define parse_ident_ptr weir__sqlp_parse_ident_ptr
#define parse_name weir__sqlp_parse_name
#define parse_ident_list weir__sqlp_parse_ident_list
#define parse_string weir__sqlp_parse_string
#define parse_hints_after weir__sqlp_parse_hints_after
#define at_query_start weir__sqlp_at_query_start
#define parse_expr weir__sqlp_parse_expr
#define parse_type weir__sqlp_parse_type
#define parse_call_arg weir__sqlp_parse_call_arg
#define expr_height weir__sqlp_expr_height
#define kw_time_unit weir__sqlp_kw_time_unit
#define parse_query weir__sqlp_parse_query
#define parse_match_recognize weir__sqlp_parse_match_recognize
#define next_word_is weir__sqlp_next_word_is
#define accept_word weir__sqlp_accept_word
#define expect_word weir__sqlp_expect_word
#define parse_window_spec weir__sqlp_parse_window_spec
#define parse_order_by_list weir__sqlp_parse_order_by_list
#define query_height weir__sqlp_query_height
#define window_height weir__sqlp_window_height

typedef weir__sql_token token;

typedef struct parser {
    const char *file;
    const char *src;          /* the script's copy of the text */
    weir__sql_arena *arena;   /* the script's arena: the tree */
    weir__sql_arena *scratch; /* tokens; freed after the parse */
    weir__sql_tokens toks;
    uint32_t pos; /* index of the current token */
    int depth;
    jmp_buf *jb;
    int code; /* error code after a longjmp */
    weir_error *err;
    weir_sql_loc *err_loc;
    int32_t alias_tok; /* index of the last implicit alias (typo hints) */
} parser;

/* A growable array in the arena (the old block is abandoned on growth). */
typedef struct vec {
    void *data;
    uint32_t n, cap;
} vec;

/* ---- errors (never return) */
_Noreturn void parser_oom(parser *p);
_Noreturn void parser_fail_at(parser *p, weir_sql_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "expected WHAT, found <current token>" plus a "did you mean" when the
 * current token is a near-miss of an upper-case word in WHAT. */
_Noreturn void parser_expected(parser *p, const char *what);
/* Same, with the keyword candidates for suggestions given separately. */
_Noreturn void parser_expected_hint(parser *p, const char *what,
                                    const char *candidates);

/* ---- memory */
void *parser_alloc(parser *p, size_t size);
#define PNEW(p, T) ((T *)parser_alloc((p), sizeof(T)))
char *parser_strndup(parser *p, const char *s, size_t n);
/* Appends a zeroed element of `size` bytes and returns it. */
void *vec_push(parser *p, vec *v, size_t size);

/* ---- tokens */
static inline const token *cur(const parser *p)
{
    return &p->toks.tok[p->pos];
}
static inline const token *peek_tok(const parser *p, uint32_t k)
{
    uint32_t i = p->pos + k;
    if (i >= p->toks.n)
        i = p->toks.n - 1;
    return &p->toks.tok[i];
}
static inline bool is_tk(const parser *p, weir__sql_tk t)
{
    return cur(p)->type == t;
}
static inline bool peek_is_tk(const parser *p, uint32_t k, weir__sql_tk t)
{
    return peek_tok(p, k)->type == t;
}
static inline bool tok_is_kw(const token *t, weir__sql_kw kw)
{
    return t->type == WEIR__SQL_TK_IDENT && t->kw == kw;
}
static inline bool is_kw(const parser *p, weir__sql_kw kw)
{
    return tok_is_kw(cur(p), kw);
}
static inline bool peek_is_kw(const parser *p, uint32_t k, weir__sql_kw kw)
{
    return tok_is_kw(peek_tok(p, k), kw);
}
/* Consumes the current token (never moves past the last one). */
void parser_advance(parser *p);
bool accept_tk(parser *p, weir__sql_tk t);
bool accept_kw(parser *p, weir__sql_kw kw);
/* Consume or fail with "expected what". */
const token *expect_tk(parser *p, weir__sql_tk t, const char *what);
const token *expect_kw(parser *p, weir__sql_kw kw);
/* Byte offset just past the previous token. */
uint32_t prev_end(const parser *p);
/* Can the token be a name: a quoted identifier or a word that is not a
 * reserved keyword. */
bool tok_is_name(const token *t);
/* Words that are no keywords (matched by their text, case-insensitively; sql/parse_expr.c):
 * is token k ahead the unquoted word w; accept it; or fail naming it. */
bool next_word_is(parser *p, uint32_t k, const char *w);
bool accept_word(parser *p, const char *w);
void expect_word(parser *p, const char *w);

/* ---- recursion */
void parser_enter(parser *p);
static inline void parser_leave(parser *p)
{
    p->depth--;
}
/* Fails when a node of this height would exceed WEIR_SQL_MAX_HEIGHT. */
void parser_check_height(parser *p, uint32_t height, weir_sql_loc loc);

/* ---- shared pieces */
weir_sql_ident parse_ident(parser *p, const char *what);
weir_sql_ident *parse_ident_ptr(parser *p, const char *what);
weir_sql_name parse_name(parser *p, const char *what);
/* '(' ident, ... ')' */
void parse_ident_list(parser *p, weir_sql_ident **out, uint32_t *n,
                      const char *what);
/* A 'string' literal's decoded text (arena). */
const char *parse_string(parser *p, const char *what, weir_sql_loc *loc);
/* Hints after the token at index `after` (may be none). */
void parse_hints_after(parser *p, uint32_t after, weir_sql_hint **out,
                       uint32_t *n);
/* Starts of things, for lookahead decisions. */
bool at_query_start(const parser *p); /* SELECT, WITH, VALUES, or '('
                                         leading to one of those */

/* ---- parse_expr.c */
/* Binding levels, lowest first; parse_expr(p, L) parses operators binding at
 * least as tightly as L. */
enum {
    PREC_MIN = 0,
    PREC_OR = 1,
    PREC_AND = 2,
    PREC_NOT = 3,
    PREC_IS = 4,
    PREC_CMP = 5,
    PREC_LIKE = 6, /* BETWEEN, IN, LIKE, SIMILAR TO */
    PREC_ADD = 7,
    PREC_MUL = 8, /* * / % || */
    PREC_UNARY = 9,
    PREC_POSTFIX = 10, /* x[i] */
    PREC_PRIMARY = 11,
};
weir_sql_expr *parse_expr(parser *p, int min_prec);
weir_sql_type *parse_type(parser *p);
/* Arguments inside f( ... ) of a call (TABLE t, DESCRIPTOR, name => v). */
weir_sql_expr *parse_call_arg(parser *p);
uint32_t expr_height(const weir_sql_expr *e);
/* Precedence of an expression's top operator (PREC_PRIMARY for atoms). */
int weir__sql_expr_prec(const weir_sql_expr *e);
/* Keyword -> time unit (plural forms included), or NONE. */
weir_sql_time_unit kw_time_unit(weir__sql_kw kw);

/* ---- parse_query.c */
weir_sql_query *parse_query(parser *p);
/* At MATCH_RECOGNIZE: the clause up to its ')' (sql/match_parse.c). */
weir_sql_match *parse_match_recognize(parser *p);
weir_sql_window *
parse_window_spec(parser *p); /* after OVER / AS: '(' ... ')' */
void parse_order_by_list(parser *p, weir_sql_order_item **out, uint32_t *n);
uint32_t query_height(const weir_sql_query *q);
uint32_t window_height(const weir_sql_window *w);

/* ---- literal.c: checking typed and interval literals */
/* Fills lit->interval from its text and qualifier; returns 0, or -1 with
 * a message in msg. */
int weir__sql_interval_eval(weir_sql_literal *lit, char *msg, size_t cap);
/* Fills lit->i64 for DATE, TIME and TIMESTAMP literals; returns 0, or -1
 * with a message in msg. */
int weir__sql_datetime_eval(weir_sql_literal *lit, char *msg, size_t cap);
/* Fills i64/overflow/f64 for numeric literals. */
void weir__sql_number_eval(weir_sql_literal *lit);

#endif
