/*
 * sql/lexer.c - tokens of the Flink SQL dialect.
 *
 * What it accepts: words (letters, digits, '_', '$', any non-ASCII letter),
 * `backtick identifiers` with `` for a backtick, 'strings' with '' for a
 * quote, X'hex' binary strings, numbers (123, 1.5, .5, 1e10, 1.5E-3),
 * -- line comments, block comments, hint comments (block comments starting
 * with '+'), and the operators of the grammar. The text must be UTF-8.
 *
 * Invariants: positions advance monotonically; the column counts code
 * points; every token array ends with exactly one EOF or ERROR token; the
 * lexer never reads at or past `end`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql/lexer.h"

/* ---------------------------------------------------------------- keywords */

typedef struct kwdef {
    const char *name;
    bool reserved;
} kwdef;

#define KW_R true
#define KW_N false
static const kwdef keywords[] = {{"", false}, /* WEIR__SQL_KW_NONE */
#define KW_ROW(name, res) {#name, KW_##res},
                                 WEIR__SQL_KEYWORDS(KW_ROW)
#undef KW_ROW
};

enum { MAX_KEYWORD_LEN = 20 };

weir__sql_kw weir__sql_keyword_lookup(const char *s, size_t n)
{
    if (n == 0 || n > MAX_KEYWORD_LEN)
        return WEIR__SQL_KW_NONE;
    char up[MAX_KEYWORD_LEN + 1];
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        up[i] = c;
    }
    up[n] = '\0';
    int lo = 1, hi = WEIR__SQL_KW_COUNT_ - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(up, keywords[mid].name);
        if (c == 0)
            return (weir__sql_kw)mid;
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return WEIR__SQL_KW_NONE;
}

const char *weir__sql_keyword_name(weir__sql_kw kw)
{
    if ((int)kw <= 0 || kw >= WEIR__SQL_KW_COUNT_)
        return "";
    return keywords[kw].name;
}

bool weir__sql_keyword_reserved(weir__sql_kw kw)
{
    if ((int)kw <= 0 || kw >= WEIR__SQL_KW_COUNT_)
        return false;
    return keywords[kw].reserved;
}

bool weir__sql_keywords_sorted(void)
{
    for (int i = 2; i < WEIR__SQL_KW_COUNT_; i++)
        if (strcmp(keywords[i - 1].name, keywords[i].name) >= 0)
            return false;
    for (int i = 1; i < WEIR__SQL_KW_COUNT_; i++)
        if (strlen(keywords[i].name) > MAX_KEYWORD_LEN)
            return false;
    return true;
}

static bool is_ident_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c >= 0x80;
}

static bool is_ident_char(unsigned char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

bool weir__sql_ident_is_plain(const char *s, size_t n)
{
    if (n == 0 || !is_ident_start((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        /* Non-ASCII words are fine for the lexer but may be spaces or
         * quotes that it treats specially; quoting them is always safe. */
        if (c >= 0x80 || !is_ident_char(c))
            return false;
    }
    return weir__sql_keyword_lookup(s, n) == WEIR__SQL_KW_NONE;
}

/* ------------------------------------------------------------------ lexer */

typedef struct lexer {
    const char *src;
    uint32_t pos, end;
    uint32_t line, col;
    bool hints;
    weir__sql_arena *scratch, *strings;
    weir__sql_tokens *out;
    uint32_t cap, hint_cap;
    bool oom;
} lexer;

/*
 * Length of the UTF-8 sequence at pos and its code point, or 0 when the
 * bytes are not valid UTF-8 (overlong forms and surrogates included).
 */
static uint32_t utf8_decode(const lexer *lx, uint32_t pos, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)lx->src + pos;
    uint32_t left = lx->end - pos;
    unsigned char c = s[0];
    uint32_t n, v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (left < n)
        return 0;
    for (uint32_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

/* Advances one byte, keeping line and column (columns count code points:
 * continuation bytes do not move the column). */
static void advance(lexer *lx)
{
    unsigned char c = (unsigned char)lx->src[lx->pos++];
    if (c == '\n') {
        lx->line++;
        lx->col = 1;
    } else if ((c & 0xC0) != 0x80) {
        lx->col++;
    }
}

static void advance_n(lexer *lx, uint32_t n)
{
    while (n-- > 0 && lx->pos < lx->end)
        advance(lx);
}

static int peekc(const lexer *lx, uint32_t ahead)
{
    if (ahead >= lx->end - lx->pos)
        return -1;
    return (unsigned char)lx->src[lx->pos + ahead];
}

static weir_sql_loc here(const lexer *lx)
{
    return (weir_sql_loc){lx->line, lx->col, lx->pos};
}

static weir__sql_token *push(lexer *lx, weir__sql_tk type, weir_sql_loc at)
{
    weir__sql_tokens *o = lx->out;
    if (o->n == lx->cap) {
        /* First guess: one token per 3 bytes of text (SQL averages 5-7),
         * capped. Pages that are never written are never touched, so a
         * generous guess costs address space, not memory, and saves the
         * copies of repeated doubling. */
        uint32_t guess = (lx->end - lx->pos) / 3 + 64;
        if (guess > (1u << 22))
            guess = 1u << 22;
        uint32_t cap = lx->cap ? lx->cap * 2 : guess;
        if (cap <= lx->cap) {
            lx->oom = true;
            return NULL;
        }
        weir__sql_token *t =
            weir__sql_arena_alloc_raw(lx->scratch, (size_t)cap * sizeof *t);
        if (!t) {
            lx->oom = true;
            return NULL;
        }
        if (o->n)
            memcpy(t, o->tok, (size_t)o->n * sizeof *t);
        o->tok = t;
        lx->cap = cap;
    }
    weir__sql_token *t = &o->tok[o->n++];
    memset(t, 0, sizeof *t);
    t->type = type;
    t->loc = at;
    t->len = lx->pos - at.offset;
    t->hint = -1;
    return t;
}

/* Ends the token stream with an error token whose message is printf-like. */
__attribute__((format(printf, 3, 4))) static void
lex_error(lexer *lx, weir_sql_loc at, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    weir__sql_token *t = push(lx, WEIR__SQL_TK_ERROR, at);
    if (!t)
        return;
    t->len = 0;
    t->str = weir__sql_arena_strndup(lx->strings, msg, strlen(msg));
    if (!t->str)
        lx->oom = true;
    else
        t->str_len = (uint32_t)strlen(msg);
}

/* Records a hint comment [body, end) after the last token. */
static void push_hint(lexer *lx, weir_sql_loc body, uint32_t end)
{
    weir__sql_tokens *o = lx->out;
    if (o->n_hints == lx->hint_cap) {
        uint32_t cap = lx->hint_cap ? lx->hint_cap * 2 : 8;
        weir__sql_hint_text *h =
            weir__sql_arena_alloc_raw(lx->scratch, (size_t)cap * sizeof *h);
        if (!h) {
            lx->oom = true;
            return;
        }
        if (o->n_hints)
            memcpy(h, o->hints, (size_t)o->n_hints * sizeof *h);
        o->hints = h;
        lx->hint_cap = cap;
    }
    int32_t idx = (int32_t)o->n_hints++;
    o->hints[idx] = (weir__sql_hint_text){body, end, -1};
    /* A hint before the first token (nowhere to attach) is a comment. */
    if (o->n == 0)
        return;
    weir__sql_token *prev = &o->tok[o->n - 1];
    if (prev->hint < 0) {
        prev->hint = idx;
    } else {
        int32_t h = prev->hint;
        while (o->hints[h].next >= 0)
            h = o->hints[h].next;
        o->hints[h].next = idx;
    }
}

/* Is the code point a space other than ASCII white space? Copy-pasted SQL
 * often carries no-break spaces and byte order marks. */
static bool is_unicode_space(uint32_t cp)
{
    return cp == 0xA0 || cp == 0xFEFF || cp == 0x3000 ||
           (cp >= 0x2000 && cp <= 0x200B) || cp == 0x202F || cp == 0x205F;
}

/* Skips white space and comments; returns false after reporting an error. */
static bool skip_space(lexer *lx)
{
    while (lx->pos < lx->end) {
        int c = peekc(lx, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
            c == '\v') {
            advance(lx);
        } else if (c == '-' && peekc(lx, 1) == '-') {
            while (lx->pos < lx->end && peekc(lx, 0) != '\n')
                advance(lx);
        } else if (c == '/' && peekc(lx, 1) == '*') {
            weir_sql_loc start = here(lx);
            bool hint = lx->hints && peekc(lx, 2) == '+';
            advance_n(lx, hint ? 3 : 2);
            weir_sql_loc body = here(lx);
            for (;;) {
                if (lx->pos >= lx->end) {
                    lex_error(lx, start, "unterminated comment");
                    return false;
                }
                if (peekc(lx, 0) == '*' && peekc(lx, 1) == '/')
                    break;
                advance(lx);
            }
            if (hint)
                push_hint(lx, body, lx->pos);
            advance_n(lx, 2);
        } else if (c >= 0x80) {
            uint32_t cp;
            uint32_t n = utf8_decode(lx, lx->pos, &cp);
            if (n == 0 || !is_unicode_space(cp))
                return true;
            advance_n(lx, n);
        } else {
            return true;
        }
    }
    return true;
}

/* Appends the byte c to a growing decode buffer in the strings arena. */
typedef struct sbuf {
    char *p;
    uint32_t n, cap;
} sbuf;

static bool sbuf_put(lexer *lx, sbuf *b, char c)
{
    if (b->n + 1 >= b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 32;
        char *p = weir__sql_arena_alloc_raw(lx->strings, cap);
        if (!p) {
            lx->oom = true;
            return false;
        }
        if (b->n)
            memcpy(p, b->p, b->n);
        b->p = p;
        b->cap = cap;
    }
    b->p[b->n++] = c;
    b->p[b->n] = '\0';
    return true;
}

/*
 * Reads a quoted run closed by `q`, where a doubled `q` stands for one.
 * The opening quote is at the current position. Returns false after an
 * error (unterminated, bad UTF-8, NUL).
 */
static bool read_quoted(lexer *lx, char q, weir_sql_loc start, sbuf *b,
                        const char *what)
{
    advance(lx); /* opening quote */
    if (!sbuf_put(lx, b, 0))
        return false;
    b->n = 0;
    for (;;) {
        if (lx->pos >= lx->end) {
            lex_error(lx, start, "unterminated %s", what);
            return false;
        }
        unsigned char c = (unsigned char)lx->src[lx->pos];
        if (c == (unsigned char)q) {
            if (peekc(lx, 1) == q) {
                if (!sbuf_put(lx, b, q))
                    return false;
                advance_n(lx, 2);
                continue;
            }
            advance(lx);
            return true;
        }
        if (c == 0) {
            lex_error(lx, here(lx), "NUL character in %s", what);
            return false;
        }
        if (c >= 0x80) {
            uint32_t cp;
            uint32_t n = utf8_decode(lx, lx->pos, &cp);
            if (n == 0) {
                lex_error(lx, here(lx), "invalid UTF-8 byte 0x%02X", c);
                return false;
            }
            for (uint32_t i = 0; i < n; i++)
                if (!sbuf_put(lx, b, lx->src[lx->pos + i]))
                    return false;
            advance_n(lx, n);
            continue;
        }
        if (!sbuf_put(lx, b, (char)c))
            return false;
        advance(lx);
    }
}

static void lex_number(lexer *lx)
{
    weir_sql_loc start = here(lx);
    weir__sql_tk type = WEIR__SQL_TK_INTEGER;
    while (peekc(lx, 0) >= '0' && peekc(lx, 0) <= '9')
        advance(lx);
    if (peekc(lx, 0) == '.') {
        type = WEIR__SQL_TK_DECIMAL;
        advance(lx);
        while (peekc(lx, 0) >= '0' && peekc(lx, 0) <= '9')
            advance(lx);
    }
    if (peekc(lx, 0) == 'e' || peekc(lx, 0) == 'E') {
        int c1 = peekc(lx, 1);
        int c2 = peekc(lx, 2);
        if ((c1 >= '0' && c1 <= '9') ||
            ((c1 == '+' || c1 == '-') && c2 >= '0' && c2 <= '9')) {
            type = WEIR__SQL_TK_APPROX;
            advance_n(lx, (c1 == '+' || c1 == '-') ? 2 : 1);
            while (peekc(lx, 0) >= '0' && peekc(lx, 0) <= '9')
                advance(lx);
        } else {
            lex_error(lx, start,
                      "invalid number '%.*s%c': the exponent has "
                      "no digits",
                      (int)(lx->pos - start.offset), lx->src + start.offset,
                      peekc(lx, 0));
            return;
        }
    }
    int c = peekc(lx, 0);
    if (c >= 0 && is_ident_char((unsigned char)c)) {
        uint32_t e = lx->pos;
        while (e < lx->end && is_ident_char((unsigned char)lx->src[e]) &&
               e - start.offset < 40)
            e++;
        lex_error(lx, start, "invalid number '%.*s'", (int)(e - start.offset),
                  lx->src + start.offset);
        return;
    }
    push(lx, type, start);
}

/* One token (the caller has skipped space). Returns false when done. */
static bool lex_one(lexer *lx)
{
    weir_sql_loc start = here(lx);
    unsigned char c = (unsigned char)lx->src[lx->pos];
    int c1 = peekc(lx, 1);

    if ((c == 'x' || c == 'X') && c1 == '\'') {
        advance(lx);
        sbuf b = {0};
        if (!read_quoted(lx, '\'', start, &b, "binary string"))
            return false;
        for (uint32_t i = 0; i < b.n; i++) {
            char h = b.p[i];
            bool hex = (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') ||
                       (h >= 'A' && h <= 'F');
            if (!hex) {
                lex_error(lx, start,
                          "invalid binary string: '%c' is not a "
                          "hex digit",
                          h);
                return false;
            }
        }
        if (b.n % 2) {
            lex_error(lx, start,
                      "invalid binary string: odd number of hex "
                      "digits");
            return false;
        }
        weir__sql_token *t = push(lx, WEIR__SQL_TK_BINSTRING, start);
        if (t) {
            t->str = b.p ? b.p : "";
            t->str_len = b.n;
        }
        return t != NULL;
    }
    if (is_ident_start(c) && c < 0x80) {
        while (lx->pos < lx->end &&
               is_ident_char((unsigned char)lx->src[lx->pos]) &&
               (unsigned char)lx->src[lx->pos] < 0x80)
            advance(lx);
    }
    if (c >= 0x80 || (lx->pos > start.offset && lx->pos < lx->end &&
                      (unsigned char)lx->src[lx->pos] >= 0x80)) {
        /* A word with non-ASCII letters; typographic quotes are errors
         * because they are almost always pasted by mistake. */
        for (;;) {
            if (lx->pos >= lx->end)
                break;
            unsigned char b = (unsigned char)lx->src[lx->pos];
            if (b < 0x80) {
                if (!is_ident_char(b))
                    break;
                advance(lx);
                continue;
            }
            uint32_t cp;
            uint32_t n = utf8_decode(lx, lx->pos, &cp);
            if (n == 0) {
                lex_error(lx, here(lx), "invalid UTF-8 byte 0x%02X", b);
                return false;
            }
            if (cp == 0x2018 || cp == 0x2019 || cp == 0x201C || cp == 0x201D) {
                lex_error(lx, here(lx),
                          "typographic quote '%.*s' (U+%04X); use ' for "
                          "strings and ` for identifiers",
                          (int)n, lx->src + lx->pos, (unsigned)cp);
                return false;
            }
            if (is_unicode_space(cp))
                break;
            advance_n(lx, n);
        }
        if (lx->pos == start.offset) {
            /* unreachable: a non-space code point always advances */
            lex_error(lx, start, "unexpected character");
            return false;
        }
    }
    if (lx->pos > start.offset) {
        weir__sql_token *t = push(lx, WEIR__SQL_TK_IDENT, start);
        if (!t)
            return false;
        t->kw = weir__sql_keyword_lookup(lx->src + start.offset, t->len);
        return true;
    }
    if (is_digit(c) || (c == '.' && c1 >= '0' && c1 <= '9')) {
        lex_number(lx);
        return !lx->oom &&
               lx->out->tok[lx->out->n - 1].type != WEIR__SQL_TK_ERROR;
    }
    if (c == '\'' || c == '`') {
        sbuf b = {0};
        bool str = c == '\'';
        if (!read_quoted(lx, (char)c, start, &b,
                         str ? "string literal" : "quoted identifier"))
            return false;
        if (!str && b.n == 0) {
            lex_error(lx, start, "empty quoted identifier");
            return false;
        }
        weir__sql_token *t =
            push(lx, str ? WEIR__SQL_TK_STRING : WEIR__SQL_TK_QIDENT, start);
        if (t) {
            t->str = b.p ? b.p : "";
            t->str_len = b.n;
        }
        return t != NULL;
    }

    weir__sql_tk type;
    uint32_t n = 1;
    switch (c) {
    case '(':
        type = WEIR__SQL_TK_LPAREN;
        break;
    case ')':
        type = WEIR__SQL_TK_RPAREN;
        break;
    case '[':
        type = WEIR__SQL_TK_LBRACKET;
        break;
    case ']':
        type = WEIR__SQL_TK_RBRACKET;
        break;
    case ',':
        type = WEIR__SQL_TK_COMMA;
        break;
    case ';':
        type = WEIR__SQL_TK_SEMI;
        break;
    case '.':
        type = WEIR__SQL_TK_DOT;
        break;
    case '*':
        type = WEIR__SQL_TK_STAR;
        break;
    case '+':
        type = WEIR__SQL_TK_PLUS;
        break;
    case '-':
        type = WEIR__SQL_TK_MINUS;
        break;
    case '/':
        type = WEIR__SQL_TK_SLASH;
        break;
    case '%':
        type = WEIR__SQL_TK_PERCENT;
        break;
    case '|':
        if (c1 != '|')
            type = WEIR__SQL_TK_BAR; /* a pattern's alternation */
        else
            type = WEIR__SQL_TK_CONCAT, n = 2;
        break;
    case '{':
        type = WEIR__SQL_TK_LBRACE;
        break;
    case '}':
        type = WEIR__SQL_TK_RBRACE;
        break;
    case '?':
        type = WEIR__SQL_TK_QUESTION;
        break;
    case '=':
        if (c1 == '=') {
            lex_error(lx, start, "'==' is not SQL; use '=' to compare");
            return false;
        }
        if (c1 == '>')
            type = WEIR__SQL_TK_ARROW, n = 2;
        else
            type = WEIR__SQL_TK_EQ;
        break;
    case '<':
        if (c1 == '>')
            type = WEIR__SQL_TK_NE, n = 2;
        else if (c1 == '=')
            type = WEIR__SQL_TK_LE, n = 2;
        else
            type = WEIR__SQL_TK_LT;
        break;
    case '>':
        if (c1 == '=')
            type = WEIR__SQL_TK_GE, n = 2;
        else
            type = WEIR__SQL_TK_GT;
        break;
    case '!':
        if (c1 == '=') {
            type = WEIR__SQL_TK_NE, n = 2;
            break;
        }
        lex_error(lx, start,
                  "unexpected character '!' (use NOT for "
                  "negation, <> for 'not equal')");
        return false;
    case '"':
        lex_error(lx, start,
                  "double quotes are not used in Flink SQL; write "
                  "'text' for a string or `name` for an "
                  "identifier");
        return false;
    case '$':
        if (c1 == '{') {
            uint32_t e = lx->pos + 2;
            while (e < lx->end && e - lx->pos < 64 && lx->src[e] != '}' &&
                   lx->src[e] != '\n')
                e++;
            if (e < lx->end && lx->src[e] == '}') {
                lex_error(lx, start, "unsubstituted placeholder '%.*s'",
                          (int)(e + 1 - lx->pos), lx->src + lx->pos);
                return false;
            }
        }
        lex_error(lx, start, "unexpected character '$'");
        return false;
    case 0:
        lex_error(lx, start, "NUL character in SQL text");
        return false;
    default:
        if (c >= 0x20 && c < 0x7F)
            lex_error(lx, start, "unexpected character '%c'", c);
        else
            lex_error(lx, start, "unexpected control character 0x%02X", c);
        return false;
    }
    advance_n(lx, n);
    return push(lx, type, start) != NULL;
}

int weir__sql_lex(const char *src, uint32_t end, weir_sql_loc at, bool hints,
                  weir__sql_arena *scratch, weir__sql_arena *strings,
                  weir__sql_tokens *out)
{
    lexer lx = {
        .src = src,
        .pos = at.offset,
        .end = end,
        .line = at.line,
        .col = at.col,
        .hints = hints,
        .scratch = scratch,
        .strings = strings,
        .out = out,
    };
    memset(out, 0, sizeof *out);
    for (;;) {
        if (!skip_space(&lx))
            break;
        if (lx.oom)
            break;
        if (lx.pos >= lx.end) {
            push(&lx, WEIR__SQL_TK_EOF, here(&lx));
            break;
        }
        if (!lex_one(&lx))
            break;
        if (lx.oom)
            break;
    }
    if (lx.oom)
        return WEIR_ENOMEM;
    /* Invariant: the last token is EOF or ERROR. */
    if (out->n == 0 || (out->tok[out->n - 1].type != WEIR__SQL_TK_EOF &&
                        out->tok[out->n - 1].type != WEIR__SQL_TK_ERROR))
        return WEIR_ENOMEM;
    return 0;
}
