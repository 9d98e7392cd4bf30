/*
 * sql/lexer.h - turning Flink SQL text into tokens (internal to sql/).
 *
 * The lexer produces the whole token array up front; the parser looks ahead
 * by index. Keywords are not separate token types: a word is a
 * WEIR__SQL_TK_IDENT whose `kw` names the keyword it spells (any case), so
 * the parser decides from context whether a non-reserved keyword is a name.
 * Comments and whitespace produce no tokens. A hint comment (a block comment
 * starting with '+') is not in the token stream either: it is attached to
 * the token before it (`hint`), and the parser reads it only where Flink
 * allows hints; elsewhere it is an ordinary comment.
 *
 * On a lexical error (bad character, unterminated string or comment,
 * invalid UTF-8) the array ends with a WEIR__SQL_TK_ERROR token carrying
 * the message, so errors are reported in text order: a syntax error before
 * the bad character wins.
 */
#ifndef WEIR_SQL_LEXER_H
#define WEIR_SQL_LEXER_H

#include "sql/arena.h"
#include "weir/sql.h"

/*
 * Keywords, in strictly ascending ASCII order (binary search; a test checks
 * the order). R: reserved - never a bare identifier or alias, write it in
 * backticks to use it as a name. N: non-reserved - a keyword only where the
 * grammar expects it, a name everywhere else.
 */
/* clang-format off */
#define WEIR__SQL_KEYWORDS(X)                                                \
    X(ALL, R) X(AND, R) X(ARRAY, R) X(AS, R) X(ASC, N) X(ASYMMETRIC, N)      \
    X(BEGIN, N) X(BETWEEN, R) X(BIGINT, N) X(BINARY, N) X(BOOLEAN, N)        \
    X(BOTH, N) X(BY, R) X(BYTES, N) X(CASE, R) X(CAST, R) X(CATALOG, N)      \
    X(CATALOGS, N) X(CEIL, N) X(CEILING, N) X(CENTURY, N) X(CHAR, N)         \
    X(CHARACTER, N) X(COMMENT, N) X(CONSTRAINT, N) X(CONSTRAINTS, N)         \
    X(CREATE, R) X(CROSS, R) X(CURRENT, R) X(CURRENT_DATE, R)                \
    X(CURRENT_TIME, R) X(CURRENT_TIMESTAMP, R) X(DATABASE, N)                \
    X(DATABASES, N) X(DATE, R) X(DAY, N) X(DAYS, N) X(DEC, N) X(DECADE, N)   \
    X(DECIMAL, N) X(DESC, N) X(DESCRIBE, N) X(DESCRIPTOR, N) X(DISTINCT, R)  \
    X(DOUBLE, N) X(DOW, N) X(DOY, N) X(DROP, R) X(ELSE, R) X(END, R)         \
    X(ENFORCED, N) X(EPOCH, N) X(ESCAPE, R) X(EXCEPT, R) X(EXCLUDING, N)     \
    X(EXECUTE, N) X(EXISTS, R) X(EXPLAIN, N) X(EXTENDED, N) X(EXTRACT, N)    \
    X(FALSE, R) X(FETCH, R) X(FILTER, R) X(FIRST, N) X(FLOAT, N) X(FLOOR, N) \
    X(FOLLOWING, N) X(FOR, R) X(FROM, R) X(FULL, R) X(FUNCTION, N)           \
    X(FUNCTIONS, N) X(GENERATED, N) X(GROUP, R) X(HAVING, R) X(HOUR, N)      \
    X(HOURS, N) X(IF, N) X(IN, R) X(INCLUDING, N) X(INNER, R) X(INSERT, R)   \
    X(INT, N) X(INTEGER, N) X(INTERSECT, R) X(INTERVAL, R) X(INTO, R)        \
    X(IS, R) X(ISODOW, N) X(ISOYEAR, N) X(JAR, N) X(JOIN, R) X(KEY, N)       \
    X(LANGUAGE, N) X(LAST, N) X(LATERAL, R) X(LEADING, N) X(LEFT, R)         \
    X(LIKE, R) X(LIMIT, R) X(LOCAL, N) X(LOCALTIME, R) X(LOCALTIMESTAMP, R)  \
    X(MAP, N) X(MATCH_RECOGNIZE, R) X(METADATA, N) X(MICROSECOND, N)         \
    X(MICROSECONDS, N) X(MILLENNIUM, N) X(MILLISECOND, N)                    \
    X(MILLISECONDS, N) X(MINUS, R) X(MINUTE, N)                              \
    X(MINUTES, N) X(MONTH, N) X(MONTHS, N) X(MULTISET, N) X(NANOSECOND, N)   \
    X(NATURAL, R) X(NEXT, N) X(NOT, R) X(NULL, R) X(NULLS, N) X(NUMERIC, N)  \
    X(OF, N) X(OFFSET, R) X(ON, R) X(ONLY, N) X(OPTIONS, N) X(OR, R)         \
    X(ORDER, R) X(ORDINALITY, N) X(OUTER, R) X(OVER, R) X(OVERLAY, N)        \
    X(OVERWRITE, N) X(OVERWRITING, N) X(PARTITION, R) X(PARTITIONED, N)      \
    X(PARTITIONS, N) X(PLACING, N) X(PLAN, N) X(POSITION, N)                 \
    X(PRECEDING, N) X(PRECISION, N) X(PRIMARY, N) X(QUARTER, N) X(RANGE, N)  \
    X(REAL, N) X(RESET, N) X(RIGHT, R) X(ROW, N) X(ROWS, N) X(SECOND, N)     \
    X(SECONDS, N) X(SELECT, R) X(SET, N) X(SHOW, N) X(SIMILAR, R)            \
    X(SMALLINT, N) X(STATEMENT, N) X(STRING, N) X(SUBSTRING, N)              \
    X(SYMMETRIC, N) X(SYSTEM, N) X(SYSTEM_TIME, N) X(TABLE, R) X(TABLES, N)  \
    X(TEMPORARY, N) X(THEN, R) X(TIME, R) X(TIMESTAMP, R)                    \
    X(TIMESTAMP_LTZ, N) X(TINYINT, N) X(TO, R) X(TRAILING, N) X(TRIM, N)     \
    X(TRUE, R) X(TRY_CAST, N) X(UNBOUNDED, N) X(UNION, R) X(UNKNOWN, R)      \
    X(UNNEST, R) X(USE, N) X(USING, R) X(VALUES, R) X(VARBINARY, N)          \
    X(VARCHAR, N) X(VARYING, N) X(VIEW, N) X(VIEWS, N) X(VIRTUAL, N)         \
    X(WATERMARK, N) X(WATERMARKS, N) X(WEEK, N) X(WHEN, R) X(WHERE, R)       \
    X(WINDOW, R) X(WITH, R) X(WITHOUT, N) X(YEAR, N) X(YEARS, N) X(ZONE, N)
/* clang-format on */

typedef enum weir__sql_kw {
    WEIR__SQL_KW_NONE = 0,
#define WEIR__SQL_KW_ENUM(name, res) WEIR__SQL_KW_##name,
    WEIR__SQL_KEYWORDS(WEIR__SQL_KW_ENUM)
#undef WEIR__SQL_KW_ENUM
        WEIR__SQL_KW_COUNT_
} weir__sql_kw;

typedef enum weir__sql_tk {
    WEIR__SQL_TK_EOF,
    WEIR__SQL_TK_ERROR,     /* lexical error; message in `str` */
    WEIR__SQL_TK_IDENT,     /* word; `kw` says which keyword it spells */
    WEIR__SQL_TK_QIDENT,    /* `quoted identifier`; decoded in `str` */
    WEIR__SQL_TK_STRING,    /* 'string'; decoded in `str` */
    WEIR__SQL_TK_BINSTRING, /* X'hex'; the hex digits in `str` */
    WEIR__SQL_TK_INTEGER,   /* 123 */
    WEIR__SQL_TK_DECIMAL,   /* 1.5, .5, 1. */
    WEIR__SQL_TK_APPROX,    /* 1e5, 1.5E-3 */
    WEIR__SQL_TK_LPAREN,
    WEIR__SQL_TK_RPAREN,
    WEIR__SQL_TK_LBRACKET,
    WEIR__SQL_TK_RBRACKET,
    WEIR__SQL_TK_COMMA,
    WEIR__SQL_TK_SEMI,
    WEIR__SQL_TK_DOT,
    WEIR__SQL_TK_STAR,
    WEIR__SQL_TK_PLUS,
    WEIR__SQL_TK_MINUS,
    WEIR__SQL_TK_SLASH,
    WEIR__SQL_TK_PERCENT,
    WEIR__SQL_TK_CONCAT, /* || */
    WEIR__SQL_TK_EQ,
    WEIR__SQL_TK_NE, /* <> or != */
    WEIR__SQL_TK_LT,
    WEIR__SQL_TK_LE,
    WEIR__SQL_TK_GT,
    WEIR__SQL_TK_GE,
    WEIR__SQL_TK_ARROW, /* => (named arguments) */
    /* MATCH_RECOGNIZE's PATTERN only: quantifiers {n,m}, reluctant ?, alternation | */
    WEIR__SQL_TK_LBRACE,
    WEIR__SQL_TK_RBRACE,
    WEIR__SQL_TK_QUESTION,
    WEIR__SQL_TK_BAR,
} weir__sql_tk;

typedef struct weir__sql_token {
    weir__sql_tk type;
    weir__sql_kw kw; /* IDENT only */
    weir_sql_loc loc;
    uint32_t len; /* bytes of source text */
    /* Decoded text (QIDENT, STRING, BINSTRING) in the script arena, or the
     * error message (ERROR); NULL otherwise: use the source text. */
    const char *str;
    uint32_t str_len;
    int32_t hint; /* index of the first hint after this token, or -1 */
} weir__sql_token;

/* A hint comment: its inner text (between the '+' and the closing). */
typedef struct weir__sql_hint_text {
    weir_sql_loc loc; /* of the first character after the '+' */
    uint32_t end;     /* byte offset of the closing star-slash */
    int32_t next;     /* next hint after the same token, or -1 */
} weir__sql_hint_text;

typedef struct weir__sql_tokens {
    weir__sql_token *tok; /* n >= 1; the last is EOF or ERROR */
    uint32_t n;
    weir__sql_hint_text *hints;
    uint32_t n_hints;
} weir__sql_tokens;

/*
 * Lexes src[start, end), where start is at position `at` (line and column
 * included). Token arrays go in `scratch`, decoded strings in `strings`.
 * Returns 0, or WEIR_ENOMEM (a lexical error is a token, not a failure).
 * Hint comments are recorded only when `hints` is true; inside a hint they
 * are ordinary comments.
 */
int weir__sql_lex(const char *src, uint32_t end, weir_sql_loc at, bool hints,
                  weir__sql_arena *scratch, weir__sql_arena *strings,
                  weir__sql_tokens *out);

/* The keyword a word spells (case-insensitive), or WEIR__SQL_KW_NONE. */
weir__sql_kw weir__sql_keyword_lookup(const char *s, size_t n);
const char *weir__sql_keyword_name(weir__sql_kw kw); /* upper case */
bool weir__sql_keyword_reserved(weir__sql_kw kw);
/* True if the keyword table is sorted (checked by a test). */
bool weir__sql_keywords_sorted(void);
/* True if s[0,n) can be written without backticks: a plain word that is
 * not a keyword at all. */
bool weir__sql_ident_is_plain(const char *s, size_t n);

#endif
