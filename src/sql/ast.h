/*
 * sql/ast.h - the syntax tree of a parsed SQL script (internal-but-shared:
 * the parser builds it, the planner walks it).
 *
 * Ownership: every node, array and string hangs off the script's arena and
 * lives exactly as long as the script (weir_sql_script_destroy). Nothing in
 * the tree is freed on its own; nodes never point outside their script.
 *
 * Conventions:
 * - Every node has `loc`, where its text starts (line, column, byte offset),
 *   so the planner can report FILE:LINE:COL errors with weir__sql_error_at().
 *   Expressions, queries and table references also have `end`, the byte
 *   offset just past their text, so [loc.offset, end) is their source text
 *   (useful for naming unnamed columns and for quoting in messages).
 * - Lists are a pointer plus a count (`items`, `n_items`); a count of 0 means
 *   the list was absent or empty. Optional children are NULL when absent.
 * - Strings are NUL-terminated and decoded: identifiers without their
 *   backticks, string literals without quotes and with '' undoubled. The
 *   lexer rejects NUL characters, so C string functions are safe on them.
 * - Keywords and spelling variants are normalised (INTEGER -> INT,
 *   MINUTES -> MINUTE, != -> <>, INNER JOIN -> JOIN); identifiers and
 *   function names keep the spelling the user wrote.
 * - `height` on expressions, queries and table references is the length of
 *   the longest path below the node (a leaf has height 1); the parser keeps
 *   it <= WEIR_SQL_MAX_HEIGHT so recursive walkers have a bounded stack.
 *
 * The canonical printer (weir_sql_format_stmt) prints any tree back as SQL
 * that parses to the same tree; weir_sql_dump_stmt shows the node structure.
 */
#ifndef WEIR_SQL_AST_H
#define WEIR_SQL_AST_H

#include "weir/sql.h"

typedef struct weir_sql_expr weir_sql_expr;
typedef struct weir_sql_query weir_sql_query;
typedef struct weir_sql_select weir_sql_select;
typedef struct weir_sql_table_ref weir_sql_table_ref;
typedef struct weir_sql_type weir_sql_type;
typedef struct weir_sql_window weir_sql_window;

/* ------------------------------------------------------------------ names */

/* One identifier: a column, table, alias or function name part. */
typedef struct weir_sql_ident {
    const char *name; /* as written, without backticks */
    uint32_t len;     /* strlen(name) */
    bool quoted;      /* written in `backticks` */
    weir_sql_loc loc;
    /* 0, or (planner) 1 + the input column that a column name ending in
     * this ident names: a star written out (SELECT DISTINCT *), whose
     * columns may share a name */
    uint32_t ordinal;
} weir_sql_ident;

/* A possibly qualified name: t, db.t, catalog.db.t, alias.column, row.field. */
typedef struct weir_sql_name {
    weir_sql_ident *parts; /* n_parts >= 1 */
    uint32_t n_parts;
    weir_sql_loc loc;
} weir_sql_name;

/* A 'key' = 'value' pair: table options, hint options, SET. */
typedef struct weir_sql_option {
    const char *key;
    uint32_t key_len;
    const char *value;
    uint32_t value_len;
    weir_sql_loc loc;       /* of the key */
    weir_sql_loc value_loc; /* of the value */
} weir_sql_option;

/*
 * A hint: a block comment whose first character is '+', placed after
 * SELECT, after a table name in FROM or after the target table of an
 * INSERT. OPTIONS('k' = 'v') style hints fill `options`; list hints such as
 * BROADCAST(t1, t2) fill `args` (column references or literals).
 */
typedef struct weir_sql_hint {
    weir_sql_ident name;
    weir_sql_option *options;
    uint32_t n_options;
    weir_sql_expr **args;
    uint32_t n_args;
    weir_sql_loc loc;
} weir_sql_hint;

/* ------------------------------------------------------------------ types */

typedef enum weir_sql_type_kind {
    WEIR_SQL_TYPE_BOOLEAN,
    WEIR_SQL_TYPE_TINYINT,
    WEIR_SQL_TYPE_SMALLINT,
    WEIR_SQL_TYPE_INT, /* INT, INTEGER */
    WEIR_SQL_TYPE_BIGINT,
    WEIR_SQL_TYPE_FLOAT,   /* FLOAT, REAL */
    WEIR_SQL_TYPE_DOUBLE,  /* DOUBLE [PRECISION] */
    WEIR_SQL_TYPE_DECIMAL, /* DECIMAL, DEC, NUMERIC [(p [, s])] */
    WEIR_SQL_TYPE_CHAR,    /* CHAR, CHARACTER [(n)] */
    WEIR_SQL_TYPE_VARCHAR, /* VARCHAR, CHARACTER VARYING [(n)] */
    WEIR_SQL_TYPE_STRING,  /* STRING (= VARCHAR(2147483647)) */
    WEIR_SQL_TYPE_BINARY,
    WEIR_SQL_TYPE_VARBINARY,
    WEIR_SQL_TYPE_BYTES, /* BYTES (= VARBINARY(2147483647)) */
    WEIR_SQL_TYPE_DATE,
    WEIR_SQL_TYPE_TIME,          /* TIME [(p)] [WITHOUT TIME ZONE] */
    WEIR_SQL_TYPE_TIMESTAMP,     /* TIMESTAMP [(p)] [WITHOUT TIME ZONE] */
    WEIR_SQL_TYPE_TIMESTAMP_LTZ, /* TIMESTAMP_LTZ [(p)],
                                    TIMESTAMP [(p)] WITH LOCAL TIME ZONE */
    WEIR_SQL_TYPE_ARRAY,         /* ARRAY<T>, T ARRAY */
    WEIR_SQL_TYPE_MULTISET,      /* MULTISET<T>, T MULTISET */
    WEIR_SQL_TYPE_MAP,           /* MAP<K, V> */
    WEIR_SQL_TYPE_ROW,           /* ROW<name T, ...>, ROW(name T, ...) */
    WEIR_SQL_TYPE_INTERVAL,      /* any day-time qualifier (precision 1,
                                    printed INTERVAL SECOND(3)), any
                                    year-month one (precision 2, printed
                                    INTERVAL MONTH) */
} weir_sql_type_kind;

typedef struct weir_sql_row_field {
    weir_sql_ident name;
    weir_sql_type *type;
    const char *comment; /* 'text' after the type, or NULL */
} weir_sql_row_field;

struct weir_sql_type {
    weir_sql_type_kind kind;
    weir_sql_loc loc;
    /*
     * DECIMAL precision, CHAR/VARCHAR/BINARY/VARBINARY length, TIME and
     * TIMESTAMP fractional digits; -1 when not written (the planner applies
     * Flink's defaults).
     */
    int32_t precision;
    int32_t scale;              /* DECIMAL scale, -1 when not written */
    bool not_null;              /* NOT NULL written after the type */
    weir_sql_type *elem;        /* ARRAY/MULTISET element; MAP key */
    weir_sql_type *value;       /* MAP value */
    weir_sql_row_field *fields; /* ROW fields */
    uint32_t n_fields;
};

/* ------------------------------------------------------------ expressions */

typedef enum weir_sql_expr_kind {
    WEIR_SQL_EXPR_LITERAL,       /* u.lit */
    WEIR_SQL_EXPR_COLUMN,        /* u.column: a (qualified) name */
    WEIR_SQL_EXPR_STAR,          /* u.star: * or t.* (select items only) */
    WEIR_SQL_EXPR_UNARY,         /* u.unary: -x, +x, NOT x */
    WEIR_SQL_EXPR_BINARY,        /* u.binary: arithmetic, comparison, AND, OR */
    WEIR_SQL_EXPR_IS,            /* u.is: x IS [NOT] NULL/TRUE/FALSE/UNKNOWN,
                                    x IS [NOT] DISTINCT FROM y */
    WEIR_SQL_EXPR_BETWEEN,       /* u.between */
    WEIR_SQL_EXPR_IN_LIST,       /* u.in_list: x [NOT] IN (a, b, ...) */
    WEIR_SQL_EXPR_IN_QUERY,      /* u.in_query: x [NOT] IN (SELECT ...) */
    WEIR_SQL_EXPR_LIKE,          /* u.like: [NOT] LIKE / [NOT] SIMILAR TO */
    WEIR_SQL_EXPR_CASE,          /* u.case_ */
    WEIR_SQL_EXPR_CAST,          /* u.cast: CAST / TRY_CAST */
    WEIR_SQL_EXPR_EXTRACT,       /* u.extract: EXTRACT(unit FROM x) */
    WEIR_SQL_EXPR_CALL,          /* u.call: function call, aggregate, OVER */
    WEIR_SQL_EXPR_SUBQUERY,      /* u.subquery: scalar (SELECT ...) */
    WEIR_SQL_EXPR_EXISTS,        /* u.subquery: EXISTS (SELECT ...) */
    WEIR_SQL_EXPR_ARRAY,         /* u.list: ARRAY[a, b, ...] */
    WEIR_SQL_EXPR_MAP,           /* u.list: MAP[k1, v1, k2, v2, ...] */
    WEIR_SQL_EXPR_ITEM,          /* u.item: x[i] */
    WEIR_SQL_EXPR_TABLE_ARG,     /* u.table_arg: TABLE t [PARTITION BY ...]
                                    (table function arguments only) */
    WEIR_SQL_EXPR_DESCRIPTOR,    /* u.descriptor: DESCRIPTOR(col, ...) */
    WEIR_SQL_EXPR_NAMED_ARG,     /* u.named_arg: name => value (arguments) */
    WEIR_SQL_EXPR_GROUPING_SETS, /* u.grouping_sets: GROUPING SETS (...),
                                    ROLLUP (...) or CUBE (...)
                                    (GROUP BY items only) */
} weir_sql_expr_kind;

typedef enum weir_sql_grouping_op {
    WEIR_SQL_GROUPING_SETS,
    WEIR_SQL_GROUPING_ROLLUP,
    WEIR_SQL_GROUPING_CUBE,
} weir_sql_grouping_op;

typedef enum weir_sql_lit_kind {
    WEIR_SQL_LIT_NULL,
    WEIR_SQL_LIT_BOOLEAN,   /* TRUE, FALSE (UNKNOWN is a NULL BOOLEAN) */
    WEIR_SQL_LIT_INTEGER,   /* 42: digits only */
    WEIR_SQL_LIT_DECIMAL,   /* 4.2, .5, 1.: exact decimal */
    WEIR_SQL_LIT_DOUBLE,    /* 4.2E1: approximate (has an exponent) */
    WEIR_SQL_LIT_STRING,    /* 'text' */
    WEIR_SQL_LIT_BINARY,    /* X'0A1B' */
    WEIR_SQL_LIT_DATE,      /* DATE '2020-01-31' */
    WEIR_SQL_LIT_TIME,      /* TIME '12:30:00[.fff]' */
    WEIR_SQL_LIT_TIMESTAMP, /* TIMESTAMP '2020-01-31 12:30:00[.fff]' */
    WEIR_SQL_LIT_INTERVAL,  /* INTERVAL '10' MINUTE, '1-2' YEAR TO MONTH */
} weir_sql_lit_kind;

/* Units of interval qualifiers, EXTRACT and FLOOR/CEIL ... TO. */
typedef enum weir_sql_time_unit {
    WEIR_SQL_UNIT_NONE,
    WEIR_SQL_UNIT_YEAR,
    WEIR_SQL_UNIT_QUARTER,
    WEIR_SQL_UNIT_MONTH,
    WEIR_SQL_UNIT_WEEK,
    WEIR_SQL_UNIT_DAY,
    WEIR_SQL_UNIT_HOUR,
    WEIR_SQL_UNIT_MINUTE,
    WEIR_SQL_UNIT_SECOND,
    WEIR_SQL_UNIT_MILLISECOND,
    WEIR_SQL_UNIT_MICROSECOND,
    WEIR_SQL_UNIT_NANOSECOND,
    WEIR_SQL_UNIT_DOW,
    WEIR_SQL_UNIT_DOY,
    WEIR_SQL_UNIT_ISODOW,
    WEIR_SQL_UNIT_ISOYEAR,
    WEIR_SQL_UNIT_EPOCH,
    WEIR_SQL_UNIT_DECADE,
    WEIR_SQL_UNIT_CENTURY,
    WEIR_SQL_UNIT_MILLENNIUM,
} weir_sql_time_unit;

/*
 * An interval literal, already checked against its qualifier. Year-month
 * intervals (YEAR, MONTH, YEAR TO MONTH) are counted in months, day-time
 * intervals in milliseconds (finer digits are rejected: weir's time is in
 * milliseconds). The sign of the text and the optional sign before the
 * string (INTERVAL -'1' DAY) are both applied.
 */
typedef struct weir_sql_interval {
    weir_sql_time_unit from; /* leading field */
    weir_sql_time_unit to;   /* trailing field, or NONE */
    int32_t from_precision;  /* DAY(3): 3; -1 when not written */
    int32_t to_precision;    /* SECOND(3) fractional digits; -1 */
    bool year_month;         /* value is in months, else in ms */
    bool negated;            /* written as INTERVAL -'...' */
    int64_t months;
    int64_t ms;
} weir_sql_interval;

typedef struct weir_sql_literal {
    weir_sql_lit_kind kind;
    /*
     * The literal's text: numbers as written, the decoded contents of
     * strings, of typed literals (DATE '...') and of interval strings, the
     * hex digits of X'..'. NULL for NULL and BOOLEAN.
     */
    const char *text;
    uint32_t len;
    bool boolean;  /* BOOLEAN */
    bool overflow; /* INTEGER that does not fit int64 (Flink: DECIMAL) */
    int64_t i64;   /* INTEGER value; DATE: days since 1970-01-01;
                      TIME: ms of the day; TIMESTAMP: epoch ms (UTC) */
    double f64;    /* DECIMAL and DOUBLE value (nearest double) */
    weir_sql_interval interval; /* INTERVAL */
} weir_sql_literal;

typedef enum weir_sql_unop {
    WEIR_SQL_OP_NEG,  /* -x */
    WEIR_SQL_OP_PLUS, /* +x */
    WEIR_SQL_OP_NOT,  /* NOT x */
} weir_sql_unop;

typedef enum weir_sql_binop {
    WEIR_SQL_OP_OR,
    WEIR_SQL_OP_AND,
    WEIR_SQL_OP_EQ, /* = */
    WEIR_SQL_OP_NE, /* <> and != */
    WEIR_SQL_OP_LT,
    WEIR_SQL_OP_LE,
    WEIR_SQL_OP_GT,
    WEIR_SQL_OP_GE,
    WEIR_SQL_OP_ADD,
    WEIR_SQL_OP_SUB,
    WEIR_SQL_OP_MUL,
    WEIR_SQL_OP_DIV,
    WEIR_SQL_OP_MOD,    /* % */
    WEIR_SQL_OP_CONCAT, /* || */
} weir_sql_binop;

typedef enum weir_sql_is_test {
    WEIR_SQL_IS_NULL,
    WEIR_SQL_IS_TRUE,
    WEIR_SQL_IS_FALSE,
    WEIR_SQL_IS_UNKNOWN,
    WEIR_SQL_IS_DISTINCT_FROM, /* uses `other` */
} weir_sql_is_test;

/*
 * Calls written with keywords inside the parentheses. The arguments are
 * stored in a fixed order so the planner can treat them as plain calls:
 *   TRIM([BOTH|LEADING|TRAILING] [chars] FROM s)  args: s [, chars]
 *   POSITION(a IN b)                              args: a, b
 *   SUBSTRING(s FROM start [FOR len])             args: s, start [, len]
 *   OVERLAY(s PLACING r FROM start [FOR len])     args: s, r, start [, len]
 *   FLOOR(x TO unit), CEIL(x TO unit)             args: x; unit in `unit`
 *   TIMESTAMPADD(unit, n, t), TIMESTAMPDIFF(unit, a, b)
 *                                                 args: n, t / a, b; unit
 *   CURRENT_TIMESTAMP and friends without ()      no args
 */
typedef enum weir_sql_call_syntax {
    WEIR_SQL_CALL_PLAIN,     /* name(args) */
    WEIR_SQL_CALL_NO_PARENS, /* CURRENT_TIMESTAMP, LOCALTIME, ... */
    WEIR_SQL_CALL_TRIM,
    WEIR_SQL_CALL_POSITION,
    WEIR_SQL_CALL_SUBSTRING,
    WEIR_SQL_CALL_OVERLAY,
    WEIR_SQL_CALL_FLOOR_TO,
    WEIR_SQL_CALL_CEIL_TO,
    WEIR_SQL_CALL_UNIT_FIRST, /* TIMESTAMPADD / TIMESTAMPDIFF */
    WEIR_SQL_CALL_JSON,       /* JSON_VALUE(... ON ERROR), x IS JSON, ...: the
                                 clauses are trailing literal arguments */
    WEIR_SQL_CALL_DATETIME_MINUS, /* (a - b) unit [TO unit2]: $DATETIME_MINUS(a, b),
                                     unit in `unit`, unit2 in `unit_to` */
} weir_sql_call_syntax;

typedef enum weir_sql_trim_spec {
    WEIR_SQL_TRIM_BOTH,
    WEIR_SQL_TRIM_LEADING,
    WEIR_SQL_TRIM_TRAILING,
} weir_sql_trim_spec;

typedef struct weir_sql_when {
    weir_sql_expr *when; /* condition, or the value compared to the operand */
    weir_sql_expr *then;
} weir_sql_when;

typedef enum weir_sql_order_dir {
    WEIR_SQL_ORDER_DEFAULT, /* not written (ascending) */
    WEIR_SQL_ORDER_ASC,
    WEIR_SQL_ORDER_DESC,
} weir_sql_order_dir;

typedef enum weir_sql_nulls_order {
    WEIR_SQL_NULLS_DEFAULT,
    WEIR_SQL_NULLS_FIRST,
    WEIR_SQL_NULLS_LAST,
} weir_sql_nulls_order;

typedef struct weir_sql_order_item {
    weir_sql_expr *expr;
    weir_sql_order_dir dir;
    weir_sql_nulls_order nulls;
} weir_sql_order_item;

/* A parenthesised list of expressions: a VALUES row, a grouping set. */
typedef struct weir_sql_expr_list {
    weir_sql_expr **items;
    uint32_t n_items;
    weir_sql_loc loc; /* of the '(' */
} weir_sql_expr_list;

struct weir_sql_expr {
    weir_sql_expr_kind kind;
    weir_sql_loc loc; /* where the expression's text starts */
    uint32_t end;     /* byte offset just past its text */
    uint32_t height;
    /* written once but placed at several points of the tree (an operand of
     * an expanded row comparison): bound once, so it is evaluated once */
    bool once;
    union {
        weir_sql_literal lit;
        weir_sql_name column;
        struct {
            weir_sql_name qualifier; /* n_parts == 0 for a bare * */
        } star;
        struct {
            weir_sql_unop op;
            weir_sql_expr *operand;
        } unary;
        struct {
            weir_sql_binop op;
            weir_sql_loc op_loc; /* where the operator is */
            weir_sql_expr *left, *right;
        } binary;
        struct {
            weir_sql_is_test test;
            bool negated;
            weir_sql_expr *operand;
            weir_sql_expr *other; /* IS DISTINCT FROM only */
        } is;
        struct {
            bool negated;
            bool symmetric; /* SYMMETRIC written; ASYMMETRIC is the default */
            weir_sql_expr *operand, *low, *high;
        } between;
        struct {
            bool negated;
            weir_sql_expr *operand;
            weir_sql_expr **items;
            uint32_t n_items;
        } in_list;
        struct {
            bool negated;
            weir_sql_expr *operand;
            weir_sql_query *query;
        } in_query;
        struct {
            bool negated;
            bool similar; /* SIMILAR TO, else LIKE */
            weir_sql_expr *operand, *pattern;
            weir_sql_expr *escape; /* ESCAPE e, or NULL */
        } like;
        struct {
            weir_sql_expr *operand; /* CASE x WHEN ..., or NULL (searched) */
            weir_sql_when *whens;
            uint32_t n_whens;
            weir_sql_expr *else_; /* or NULL */
        } case_;
        struct {
            bool try_; /* TRY_CAST */
            weir_sql_expr *operand;
            weir_sql_type *type;
        } cast;
        struct {
            weir_sql_time_unit unit;
            weir_sql_loc unit_loc;
            weir_sql_expr *operand;
        } extract;
        struct {
            weir_sql_name name; /* as written, e.g. COUNT, count, db.f */
            weir_sql_call_syntax syntax;
            weir_sql_expr **args;
            uint32_t n_args;
            bool star;               /* COUNT(*): no args */
            bool distinct;           /* f(DISTINCT ...) */
            bool all;                /* f(ALL ...) written */
            uint8_t nulls;           /* f(x RESPECT NULLS): 1, f(x IGNORE NULLS): 2, else 0 */
            weir_sql_trim_spec trim; /* CALL_TRIM */
            bool trim_spec_written;  /* BOTH/LEADING/TRAILING written */
            weir_sql_time_unit unit; /* FLOOR_TO, CEIL_TO, UNIT_FIRST, DATETIME_MINUS */
            weir_sql_time_unit unit_to; /* DATETIME_MINUS: the qualifier's TO unit, or NONE */
            weir_sql_expr *filter;   /* FILTER (WHERE ...), or NULL */
            weir_sql_window *over;   /* OVER ..., or NULL */
        } call;
        struct {
            weir_sql_query *query;
        } subquery;
        struct {
            weir_sql_expr **items;
            uint32_t n_items;
        } list;
        struct {
            weir_sql_expr *operand, *index;
            bool field; /* operand.name (a[1].f, (r).f): index is the field's name, a string literal */
        } item;
        struct {
            weir_sql_name table;
            weir_sql_expr **partition_by; /* SESSION(TABLE t PARTITION BY k) */
            uint32_t n_partition_by;
            weir_sql_order_item *order_by;
            uint32_t n_order_by;
        } table_arg;
        struct {
            weir_sql_ident *columns;
            uint32_t n_columns;
        } descriptor;
        struct {
            weir_sql_ident name;
            weir_sql_expr *value;
        } named_arg;
        struct {
            /* GROUPING SETS: each set (a, b), (a) or () -- a bare
             * expression is a set of one, and an item may itself be
             * GROUPING SETS, ROLLUP or CUBE; ROLLUP and CUBE: each element,
             * a composite (a, b) or a bare expression */
            weir_sql_expr_list *sets;
            uint32_t n_sets;
            weir_sql_grouping_op op;
        } grouping_sets;
    } u;
};

/* ---------------------------------------------------------------- windows */

typedef enum weir_sql_bound_kind {
    WEIR_SQL_BOUND_UNBOUNDED_PRECEDING,
    WEIR_SQL_BOUND_PRECEDING, /* offset PRECEDING */
    WEIR_SQL_BOUND_CURRENT_ROW,
    WEIR_SQL_BOUND_FOLLOWING, /* offset FOLLOWING */
    WEIR_SQL_BOUND_UNBOUNDED_FOLLOWING,
} weir_sql_bound_kind;

typedef struct weir_sql_bound {
    weir_sql_bound_kind kind;
    weir_sql_expr *offset; /* a number or an INTERVAL; NULL otherwise */
    weir_sql_loc loc;
} weir_sql_bound;

typedef struct weir_sql_frame {
    bool rows;    /* ROWS, else RANGE */
    bool between; /* BETWEEN start AND end written; else only start */
    weir_sql_bound start;
    weir_sql_bound end; /* CURRENT ROW when `between` is false */
    weir_sql_loc loc;
} weir_sql_frame;

/* OVER (...) or OVER name, and the bodies of WINDOW name AS (...). */
struct weir_sql_window {
    weir_sql_loc loc;
    weir_sql_ident *ref; /* OVER w, or (w PARTITION BY ...): the base window */
    bool ref_only;       /* OVER w without parentheses */
    weir_sql_expr **partition_by;
    uint32_t n_partition_by;
    weir_sql_order_item *order_by;
    uint32_t n_order_by;
    weir_sql_frame *frame; /* or NULL */
};

typedef struct weir_sql_named_window {
    weir_sql_ident name;
    weir_sql_window *window;
} weir_sql_named_window;

/* ---------------------------------------------------------------- queries */

typedef struct weir_sql_select_item {
    weir_sql_expr *expr;   /* may be WEIR_SQL_EXPR_STAR */
    weir_sql_ident *alias; /* [AS] alias, or NULL */
} weir_sql_select_item;

typedef enum weir_sql_table_ref_kind {
    WEIR_SQL_FROM_TABLE,    /* u.table: a named table or view */
    WEIR_SQL_FROM_SUBQUERY, /* u.subquery: [LATERAL] (query) */
    WEIR_SQL_FROM_FUNCTION, /* u.function: TABLE(f(...)), LATERAL TABLE(...) */
    WEIR_SQL_FROM_UNNEST,   /* u.unnest: UNNEST(a, ...) [WITH ORDINALITY] */
    WEIR_SQL_FROM_JOIN,     /* u.join */
    WEIR_SQL_FROM_MATCH,    /* u.match: input MATCH_RECOGNIZE (...) */
} weir_sql_table_ref_kind;

/* MATCH_RECOGNIZE (sql/match_parse.c). */
typedef enum weir_sql_mr_skip {
    WEIR_SQL_MR_SKIP_PAST_LAST_ROW, /* the default */
    WEIR_SQL_MR_SKIP_TO_NEXT_ROW,
    WEIR_SQL_MR_SKIP_TO_FIRST,      /* SKIP TO FIRST var */
    WEIR_SQL_MR_SKIP_TO_LAST,       /* SKIP TO LAST var, SKIP TO var */
} weir_sql_mr_skip;

#define WEIR_SQL_MR_UNBOUNDED UINT32_MAX

/* One pattern variable with its quantifier: var{min,max}, reluctant with a trailing '?'. */
typedef struct weir_sql_mr_term {
    weir_sql_ident var;
    uint32_t min, max; /* max WEIR_SQL_MR_UNBOUNDED: no upper bound */
    bool quantified;   /* written with a quantifier (A is A{1,1} unquantified) */
    bool reluctant;
} weir_sql_mr_term;

typedef struct weir_sql_mr_define {
    weir_sql_ident var;
    weir_sql_expr *cond;
} weir_sql_mr_define;

typedef struct weir_sql_match {
    weir_sql_expr **partition; /* PARTITION BY */
    uint32_t n_partition;
    weir_sql_order_item *order; /* ORDER BY */
    uint32_t n_order;
    weir_sql_loc order_loc;
    weir_sql_select_item *measures; /* MEASURES expr AS name */
    uint32_t n_measures;
    weir_sql_mr_skip skip;
    weir_sql_ident *skip_var;
    weir_sql_mr_term *terms; /* PATTERN: a concatenation */
    uint32_t n_terms;
    weir_sql_loc pattern_loc;
    weir_sql_expr *within; /* WITHIN INTERVAL ..., or NULL */
    weir_sql_mr_define *defines;
    uint32_t n_defines;
    const char *text; /* the clause as written, from MATCH_RECOGNIZE to its ')' (the printer's) */
} weir_sql_match;

typedef enum weir_sql_join_kind {
    WEIR_SQL_JOIN_INNER, /* [INNER] JOIN */
    WEIR_SQL_JOIN_LEFT,  /* LEFT [OUTER] JOIN */
    WEIR_SQL_JOIN_RIGHT,
    WEIR_SQL_JOIN_FULL,
    WEIR_SQL_JOIN_CROSS, /* CROSS JOIN */
    WEIR_SQL_JOIN_COMMA, /* a, b: a cross join with the FROM-list precedence */
} weir_sql_join_kind;

struct weir_sql_table_ref {
    weir_sql_table_ref_kind kind;
    weir_sql_loc loc;
    uint32_t end;
    uint32_t height;
    /* [AS] alias [(c1, c2, ...)]; not for joins. */
    weir_sql_ident *alias;
    weir_sql_ident *column_aliases;
    uint32_t n_column_aliases;
    union {
        struct {
            weir_sql_name name;
            weir_sql_hint *hints; /* t followed by a hint comment */
            uint32_t n_hints;
            /* FOR SYSTEM_TIME AS OF expr (temporal join), or NULL */
            weir_sql_expr *system_time;
        } table;
        struct {
            weir_sql_query *query;
            bool lateral;
        } subquery;
        struct {
            weir_sql_expr *call; /* a WEIR_SQL_EXPR_CALL */
            bool lateral;        /* LATERAL TABLE(...) */
        } function;
        struct {
            weir_sql_expr **args;
            uint32_t n_args;
            bool with_ordinality;
        } unnest;
        struct {
            weir_sql_join_kind kind;
            bool natural;
            weir_sql_loc op_loc; /* the JOIN keyword or the ',' */
            weir_sql_table_ref *left, *right;
            weir_sql_expr *on;      /* ON condition, or NULL */
            weir_sql_ident *using_; /* USING (c, ...) columns */
            uint32_t n_using;
        } join;
        struct {
            weir_sql_table_ref *input;
            weir_sql_match *mr;
        } match;
    } u;
};

struct weir_sql_select {
    weir_sql_loc loc;
    bool distinct;
    bool all; /* SELECT ALL written */
    weir_sql_hint *hints;
    uint32_t n_hints;
    weir_sql_select_item *items;
    uint32_t n_items;
    weir_sql_table_ref *from; /* or NULL (SELECT 1) */
    weir_sql_expr *where;
    /* GROUP BY expressions; legacy group windows (TUMBLE(ts, size), HOP,
     * SESSION) appear here as ordinary calls. */
    weir_sql_expr **group_by;
    uint32_t n_group_by;
    weir_sql_expr *having;
    weir_sql_named_window *windows; /* WINDOW w AS (...), ... */
    uint32_t n_windows;
};

typedef enum weir_sql_query_kind {
    WEIR_SQL_QUERY_SELECT, /* u.select */
    WEIR_SQL_QUERY_SETOP,  /* u.setop */
    WEIR_SQL_QUERY_VALUES, /* u.values */
} weir_sql_query_kind;

typedef enum weir_sql_setop_kind {
    WEIR_SQL_SETOP_UNION,
    WEIR_SQL_SETOP_INTERSECT,
    WEIR_SQL_SETOP_EXCEPT, /* EXCEPT and MINUS */
} weir_sql_setop_kind;

typedef struct weir_sql_cte {
    weir_sql_ident name;
    weir_sql_ident *columns; /* WITH name (c1, c2) AS (...) */
    uint32_t n_columns;
    weir_sql_query *query;
} weir_sql_cte;

/*
 * A query expression. WITH, ORDER BY, LIMIT and OFFSET belong to the level
 * they were written at: in (SELECT ... LIMIT 1) UNION ALL (SELECT ...) the
 * LIMIT is on the left operand, in SELECT ... UNION ALL SELECT ... LIMIT 1
 * on the set operation.
 */
struct weir_sql_query {
    weir_sql_query_kind kind;
    weir_sql_loc loc;
    uint32_t end;
    uint32_t height;
    weir_sql_cte *with;
    uint32_t n_with;
    union {
        weir_sql_select *select;
        struct {
            weir_sql_setop_kind op;
            bool all;      /* UNION ALL */
            bool distinct; /* UNION DISTINCT written */
            weir_sql_loc op_loc;
            weir_sql_query *left, *right;
        } setop;
        struct {
            weir_sql_expr_list *rows;
            uint32_t n_rows;
        } values;
    } u;
    weir_sql_order_item *order_by;
    uint32_t n_order_by;
    weir_sql_expr *limit;  /* LIMIT n, FETCH FIRST n ROWS ONLY; or NULL */
    weir_sql_expr *offset; /* OFFSET n [ROWS]; or NULL */
};

/* ------------------------------------------------------------- statements */

typedef enum weir_sql_column_kind {
    WEIR_SQL_COLUMN_PHYSICAL, /* name TYPE */
    WEIR_SQL_COLUMN_COMPUTED, /* name AS expr */
    WEIR_SQL_COLUMN_METADATA, /* name TYPE METADATA [FROM 'key'] [VIRTUAL] */
} weir_sql_column_kind;

typedef struct weir_sql_column {
    weir_sql_column_kind kind;
    weir_sql_ident name;
    weir_sql_type *type;      /* PHYSICAL, METADATA */
    weir_sql_expr *expr;      /* COMPUTED */
    const char *metadata_key; /* METADATA FROM 'key', or NULL (= the name) */
    bool is_virtual;          /* METADATA ... VIRTUAL */
    const char *comment;      /* COMMENT '...', or NULL */
    weir_sql_loc loc;
} weir_sql_column;

typedef struct weir_sql_watermark {
    weir_sql_name column; /* WATERMARK FOR column */
    weir_sql_expr *expr;  /* AS expr */
    weir_sql_loc loc;
} weir_sql_watermark;

typedef enum weir_sql_enforcement {
    WEIR_SQL_ENFORCEMENT_UNSPECIFIED, /* neither written */
    WEIR_SQL_ENFORCED,
    WEIR_SQL_NOT_ENFORCED,
} weir_sql_enforcement;

typedef struct weir_sql_primary_key {
    weir_sql_ident *constraint_name; /* CONSTRAINT name, or NULL */
    weir_sql_ident *columns;
    uint32_t n_columns;
    weir_sql_enforcement enforcement;
    bool column_level; /* written after a column's type: a INT PRIMARY KEY */
    weir_sql_loc loc;
} weir_sql_primary_key;

typedef enum weir_sql_like_strategy {
    WEIR_SQL_LIKE_INCLUDING,
    WEIR_SQL_LIKE_EXCLUDING,
    WEIR_SQL_LIKE_OVERWRITING,
} weir_sql_like_strategy;

typedef enum weir_sql_like_feature {
    WEIR_SQL_LIKE_ALL,
    WEIR_SQL_LIKE_CONSTRAINTS,
    WEIR_SQL_LIKE_GENERATED,
    WEIR_SQL_LIKE_METADATA,
    WEIR_SQL_LIKE_OPTIONS,
    WEIR_SQL_LIKE_PARTITIONS,
    WEIR_SQL_LIKE_WATERMARKS,
} weir_sql_like_feature;

typedef struct weir_sql_like_option {
    weir_sql_like_strategy strategy;
    weir_sql_like_feature feature;
} weir_sql_like_option;

/* CREATE TABLE t (...) LIKE source (INCLUDING ALL ...) */
typedef struct weir_sql_table_like {
    weir_sql_name source;
    weir_sql_like_option *options;
    uint32_t n_options;
    weir_sql_loc loc;
} weir_sql_table_like;

typedef struct weir_sql_create_table {
    weir_sql_name name;
    bool temporary;
    bool if_not_exists;
    weir_sql_column *columns;
    uint32_t n_columns;
    weir_sql_watermark *watermark;     /* at most one, or NULL */
    weir_sql_primary_key *primary_key; /* at most one, or NULL */
    const char *comment;
    weir_sql_ident *partitioned_by;
    uint32_t n_partitioned_by;
    weir_sql_option *options; /* WITH ('k' = 'v', ...) */
    uint32_t n_options;
    weir_sql_table_like *like; /* or NULL */
    weir_sql_query *as_query;  /* CREATE TABLE ... AS query, or NULL */
    bool has_column_list;      /* a ( ... ) list was written */
    bool or_replace;           /* CREATE OR REPLACE TABLE ... AS query */
    bool replace;              /* REPLACE TABLE ... AS query */
} weir_sql_create_table;

typedef struct weir_sql_create_view {
    weir_sql_name name;
    bool temporary;
    bool if_not_exists;
    weir_sql_ident *columns;
    uint32_t n_columns;
    const char *comment;
    weir_sql_query *query;
} weir_sql_create_view;

typedef struct weir_sql_create_function {
    weir_sql_name name;
    bool temporary;
    bool system; /* TEMPORARY SYSTEM FUNCTION */
    bool if_not_exists;
    const char *class_name;   /* AS 'class' */
    weir_sql_ident *language; /* LANGUAGE JAVA|SCALA|PYTHON|SQL, or NULL */
    const char **jars;        /* USING JAR 'path', ... */
    uint32_t n_jars;
} weir_sql_create_function;

/* CREATE CATALOG [IF NOT EXISTS] c [COMMENT '...'] WITH (...), and
 * CREATE DATABASE [IF NOT EXISTS] [c.]db [COMMENT '...'] [WITH (...)]. */
typedef struct weir_sql_create_space {
    weir_sql_name name;
    bool if_not_exists;
    const char *comment;      /* or NULL */
    weir_sql_option *options; /* WITH ('k' = 'v', ...) */
    uint32_t n_options;
} weir_sql_create_space;

typedef enum weir_sql_object_kind {
    WEIR_SQL_OBJECT_TABLE,
    WEIR_SQL_OBJECT_VIEW,
    WEIR_SQL_OBJECT_FUNCTION,
    WEIR_SQL_OBJECT_DATABASE,
    WEIR_SQL_OBJECT_CATALOG,
} weir_sql_object_kind;

typedef struct weir_sql_drop {
    weir_sql_object_kind object;
    bool temporary;
    bool system;
    bool if_exists;
    bool cascade; /* DROP DATABASE ... CASCADE (RESTRICT: false) */
    weir_sql_name name;
} weir_sql_drop;

/* What an ALTER TABLE / ALTER VIEW does. */
typedef enum weir_sql_alter_action {
    WEIR_SQL_ALTER_RENAME,          /* RENAME TO new_name */
    WEIR_SQL_ALTER_RENAME_COLUMN,   /* RENAME column TO new_column */
    WEIR_SQL_ALTER_SET,             /* SET ('k' = 'v', ...) */
    WEIR_SQL_ALTER_RESET,           /* RESET ('k', ...) */
    WEIR_SQL_ALTER_ADD,             /* ADD schema components */
    WEIR_SQL_ALTER_MODIFY,          /* MODIFY schema components */
    WEIR_SQL_ALTER_DROP_COLUMNS,    /* DROP column | DROP (column, ...) */
    WEIR_SQL_ALTER_DROP_PRIMARY_KEY, /* DROP PRIMARY KEY | DROP CONSTRAINT name */
    WEIR_SQL_ALTER_DROP_WATERMARK,  /* DROP WATERMARK */
    WEIR_SQL_ALTER_AS,              /* ALTER VIEW v AS query */
} weir_sql_alter_action;

/* FIRST / AFTER column of a column that ADD or MODIFY places. */
typedef struct weir_sql_column_position {
    bool first;               /* FIRST */
    weir_sql_ident *after;    /* AFTER column, or NULL */
} weir_sql_column_position;

typedef struct weir_sql_alter {
    /* TABLE or VIEW; DATABASE and CATALOG with SET (and RESET of a catalog) */
    weir_sql_object_kind object;
    bool if_exists;              /* ALTER TABLE IF EXISTS */
    weir_sql_name name;
    weir_sql_alter_action action;
    weir_sql_name new_name;          /* RENAME TO */
    weir_sql_ident column, new_column; /* RENAME column TO new_column */
    weir_sql_option *options;        /* SET */
    uint32_t n_options;
    const char **keys;               /* RESET */
    weir_sql_loc *key_locs;
    uint32_t n_keys;
    /* ADD / MODIFY: the components in a table definition of their own
     * (columns, watermark, primary key), each column's place beside it */
    weir_sql_create_table *schema;
    weir_sql_column_position *positions; /* schema->n_columns of them */
    bool parenthesized;              /* ADD (...) rather than ADD one */
    weir_sql_ident *drop_columns;    /* DROP_COLUMNS */
    uint32_t n_drop_columns;
    weir_sql_ident *constraint;      /* DROP CONSTRAINT name, or NULL */
    weir_sql_query *query;           /* ALTER VIEW AS */
} weir_sql_alter;

/* PARTITION (col = literal, ...) of an INSERT: a static partition. */
typedef struct weir_sql_partition_value {
    weir_sql_ident column;
    weir_sql_expr *value;
} weir_sql_partition_value;

typedef struct weir_sql_insert {
    bool overwrite; /* INSERT OVERWRITE */
    bool execute;   /* EXECUTE INSERT ... */
    weir_sql_name table;
    weir_sql_hint *hints;
    uint32_t n_hints;
    weir_sql_partition_value *partition;
    uint32_t n_partition;
    weir_sql_ident *columns; /* (c1, c2, ...) target columns */
    uint32_t n_columns;
    weir_sql_query *query;
} weir_sql_insert;

typedef struct weir_sql_statement_set {
    /* EXECUTE STATEMENT SET BEGIN ... END (true), or the script form
     * BEGIN STATEMENT SET; ...; END (false). */
    bool execute_form;
    weir_sql_stmt **inserts; /* each a WEIR_SQL_STMT_INSERT */
    uint32_t n_inserts;
} weir_sql_statement_set;

typedef struct weir_sql_explain {
    bool plan_for;           /* EXPLAIN PLAN FOR */
    weir_sql_ident *details; /* EXPLAIN CHANGELOG_MODE, ESTIMATED_COST ... */
    uint32_t n_details;
    weir_sql_stmt *stmt; /* query, INSERT or STATEMENT SET */
} weir_sql_explain;

typedef enum weir_sql_show_what {
    WEIR_SQL_SHOW_TABLES,
    WEIR_SQL_SHOW_VIEWS,
    WEIR_SQL_SHOW_FUNCTIONS,
    WEIR_SQL_SHOW_DATABASES,
    WEIR_SQL_SHOW_CATALOGS,
    WEIR_SQL_SHOW_CREATE_TABLE, /* uses name */
    WEIR_SQL_SHOW_CREATE_VIEW,  /* uses name */
    WEIR_SQL_SHOW_CURRENT_CATALOG,
    WEIR_SQL_SHOW_CURRENT_DATABASE,
    WEIR_SQL_SHOW_COLUMNS, /* uses name */
    WEIR_SQL_SHOW_CREATE_CATALOG, /* uses name */
    WEIR_SQL_SHOW_JOBS,
} weir_sql_show_what;

struct weir_sql_stmt {
    weir_sql_stmt_kind kind;
    weir_sql_loc loc;
    uint32_t end; /* byte offset just past the statement (before ';') */
    const char *text_base; /* the script text, for weir_sql_stmt_text */
    union {
        weir_sql_create_table create_table;
        weir_sql_create_view create_view;
        weir_sql_create_function create_function;
        weir_sql_create_space create_catalog;  /* and CREATE DATABASE */
        weir_sql_drop drop;
        weir_sql_alter alter;
        weir_sql_insert insert;
        weir_sql_statement_set statement_set;
        struct {
            const char *key; /* NULL: bare SET (list the configuration) */
            const char *value;
            weir_sql_loc key_loc, value_loc;
        } set;
        struct {
            const char *key; /* NULL: RESET everything */
            weir_sql_loc key_loc;
        } reset;
        weir_sql_explain explain;
        struct {
            weir_sql_query *query;
        } query;
        struct {
            weir_sql_show_what what;
            weir_sql_name name;
            /* SHOW TABLES | VIEWS | FUNCTIONS FROM [c.]db, SHOW DATABASES
             * FROM c: n_parts 0 when there is no FROM / IN */
            weir_sql_name from;
            bool user; /* SHOW USER FUNCTIONS */
            const char *like; /* [NOT] LIKE | ILIKE 'pattern', or NULL */
            bool not_like;
            bool ilike;       /* ILIKE: case-insensitive */
        } show;
        struct {
            bool extended;
            weir_sql_name name;
        } describe;
        struct {
            bool catalog; /* USE CATALOG name */
            weir_sql_name name;
        } use;
        struct {
            const char *job; /* the quoted job id */
            weir_sql_loc job_loc;
            bool savepoint;  /* WITH SAVEPOINT */
            bool drain;      /* WITH DRAIN */
        } stop_job;
    } u;
};

struct weir_sql_script {
    struct weir__sql_arena *arena; /* owns every node below */
    const char *file;
    const char *text; /* NUL-terminated copy of the input */
    size_t len;
    weir_sql_stmt **stmts;
    uint32_t n_stmts;
};

/* ---------------------------------------------------------------- helpers */

/* Static upper-case names, for printing and messages. */
const char *weir__sql_type_kind_name(weir_sql_type_kind k);
const char *weir__sql_unit_name(weir_sql_time_unit u);
const char *weir__sql_binop_name(weir_sql_binop op); /* "=", "AND", ... */
const char *weir__sql_expr_kind_name(weir_sql_expr_kind k);
const char *weir__sql_join_kind_name(weir_sql_join_kind k); /* "LEFT JOIN" */

/*
 * Sets err to "FILE:LINE:COL: error: <message>" for a position in s and
 * returns code: how the planner reports errors about a node.
 */
int weir__sql_error_at(weir_error *err, const weir_sql_script *s,
                       weir_sql_loc loc, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * weir_sql_format_stmt with the name of each table a FROM item reads
 * replaced by rename's answer for it (NULL: as written): SHOW CREATE VIEW
 * prints a view's query with the names it resolved to.
 */
typedef const weir_sql_name *(*weir__sql_rename_fn)(void *ud, const weir_sql_name *n);
int weir__sql_format_stmt_renamed(const weir_sql_stmt *st, weir_buf *out, weir__sql_rename_fn rename, void *ud);

/*
 * SHOW CREATE TABLE / VIEW as Flink prints them: the object's catalog,
 * database and name (path), every identifier in backquotes, one column (and
 * the watermark, the primary key) per line, each type by its full name,
 * then COMMENT, PARTITIONED BY and the WITH options one per line (sorted);
 * a view's column names, then AS and its query (rename as above).
 */
int weir__sql_format_show_create_table(const weir_sql_create_table *ct, const char *const path[3], weir_buf *out);
int weir__sql_format_show_create_view(const char *const path[3], bool temporary, const char *const *columns,
                                      uint32_t n_columns, const char *comment, const weir_sql_query *q,
                                      weir__sql_rename_fn rename, void *ud, weir_buf *out);

/* Whether e is a row constructor: ROW(a, b, ...) or (a, b, ...). */
bool weir__sql_is_row_ctor(const weir_sql_expr *e);

/* Appends canonical SQL for one expression / query / type. */
int weir__sql_format_expr(const weir_sql_expr *e, weir_buf *out);
int weir__sql_format_query(const weir_sql_query *q, weir_buf *out);
int weir__sql_format_type(const weir_sql_type *t, weir_buf *out);

/*
 * Calls fn(child, ud) for each direct child expression of e, in source
 * order: operands, arguments, CASE branches, IN items, the FILTER condition
 * and the expressions of an OVER window (partition keys, order keys, frame
 * offsets). Subqueries are not entered: they are a new scope (their query
 * is reachable through e->u.subquery / e->u.in_query). A non-zero return
 * from fn stops the walk and is returned.
 */
typedef int (*weir__sql_expr_fn)(const weir_sql_expr *child, void *ud);
int weir__sql_expr_each_child(const weir_sql_expr *e, weir__sql_expr_fn fn,
                              void *ud);

/*
 * Edit distance with adjacent transpositions, case-insensitive, capped:
 * returns max + 1 as soon as the distance is known to exceed max. Used for
 * "did you mean" suggestions (here for keywords, in the planner for
 * columns, tables and functions).
 */
int weir__sql_edit_distance(const char *a, size_t alen, const char *b,
                            size_t blen, int max);

#endif
