/*
 * weir/expr.h - typed, vectorized scalar expressions (the SQL function
 * library).
 *
 * A planner builds a bound expression tree bottom-up with the constructors
 * below. Every constructor type-checks its arguments (inserting the implicit
 * casts Flink SQL allows), derives the result type (nullability included),
 * folds literal-only subtrees into literals, and fails with a user-facing
 * message in weir_error (no location: the caller prefixes FILE:LINE:COL).
 *
 * Ownership: every node lives in a weir_expr_arena and is freed with it, all
 * at once. Nodes are immutable after construction, so one tree can be
 * evaluated by several threads, each with its own weir_expr_env.
 *
 * Evaluation works a batch at a time: weir_expr_eval() computes the value of
 * an expression for every row of an input batch into one column of an output
 * batch; weir_expr_filter() computes a selection vector for a WHERE
 * predicate (NULL counts as false). The env holds the scratch memory reused
 * across batches, so steady-state evaluation allocates nothing per row.
 *
 * Names used with weir_expr_call() (case-insensitive):
 *   operators   + - * / % (binary), - (unary, one argument), = <> != < <= > >=
 *               AND OR NOT, || , IS NULL, IS NOT NULL, IS TRUE, IS NOT TRUE,
 *               IS FALSE, IS NOT FALSE, IS DISTINCT FROM, IS NOT DISTINCT FROM,
 *               BETWEEN, NOT BETWEEN (3 args), IN, NOT IN (value, list...),
 *               LIKE, NOT LIKE (2 args or 3 with ESCAPE), SIMILAR TO,
 *               NOT SIMILAR TO
 *   keyword-argument forms are flattened into positional arguments, with the
 *   keyword passed as a STRING literal:
 *               EXTRACT(unit FROM ts)        -> EXTRACT('unit', ts)
 *               FLOOR(ts TO unit)            -> FLOOR(ts, 'unit'), CEIL alike
 *               TRIM([BOTH|LEADING|TRAILING] [chars] FROM s)
 *                                            -> TRIM('BOTH', chars, s)
 *               TIMESTAMPADD(unit, n, ts)    -> TIMESTAMPADD('unit', n, ts)
 *               TIMESTAMPDIFF(unit, a, b)    -> TIMESTAMPDIFF('unit', a, b)
 *               POSITION(a IN b)             -> POSITION(a, b)
 *               SUBSTRING(s FROM a FOR b)    -> SUBSTRING(s, a, b)
 * The full list of functions, with signatures and NULL behaviour, is in
 * docs/functions.md.
 */
#ifndef WEIR_EXPR_H
#define WEIR_EXPR_H

#include "weir/batch.h"
#include "weir/clock.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_expr weir_expr;
typedef struct weir_expr_arena weir_expr_arena;
typedef struct weir_expr_env weir_expr_env;

/* Interval tag of an expression: intervals are BIGINT values with a tag. */
typedef enum weir_interval_kind {
    WEIR_INTERVAL_NONE = 0,
    WEIR_INTERVAL_DAY_TIME = 1,   /* milliseconds */
    WEIR_INTERVAL_YEAR_MONTH = 2, /* months */
} weir_interval_kind;

/* A string value inside an evaluation: borrowed bytes, not NUL-terminated. */
typedef struct weir_expr_str {
    const char *ptr;
    uint32_t len;
} weir_expr_str;

/* A single typed value (literals, UDF arguments, constant results). */
typedef struct weir_value {
    weir_type type;
    bool is_null;
    union {
        bool b;      /* BOOLEAN */
        int32_t i32; /* INT, DATE (days), TIME (ms of the day) */
        int64_t i64; /* BIGINT, DECIMAL(p <= 18) unscaled, TIMESTAMP(_LTZ) ms, intervals */
        struct {
            uint64_t lo;
            int64_t hi;
        } i128; /* DECIMAL(19 <= p <= 38) unscaled, two's complement halves (8-byte aligned) */
        double f64;  /* DOUBLE */
        weir_expr_str s; /* STRING, BYTES */
    } v;
} weir_value;

/*
 * One column of values during evaluation. data holds n values of the
 * physical type (uint8_t, int32_t, int64_t, double or weir_expr_str); nulls
 * holds n bytes, non-zero meaning NULL, or is NULL when no row is NULL.
 */
typedef struct weir_expr_vec {
    weir_type type;
    void *data;
    uint8_t *nulls;
} weir_expr_vec;

/* ---- arena ---- */

weir_expr_arena *weir_expr_arena_create(void);
/* Frees every expression built in the arena. */
void weir_expr_arena_destroy(weir_expr_arena *a);
/*
 * The session time zone of the expressions built in the arena from now on
 * (names as weir_expr_env_set_time_zone); an env's own zone, when set, wins.
 * A SQL job sets it from 'table.local-time-zone'.
 */
int weir_expr_arena_set_time_zone(weir_expr_arena *a, const char *tz, weir_error *err);

/* ---- leaves ---- */

/* A reference to column `index` of the input schema, of type `type`. */
int weir_expr_column(weir_expr_arena *a, uint32_t index, weir_type type, weir_expr **out, weir_error *err);
/* Convenience: column named `name` of schema s (case-insensitive). */
int weir_expr_column_named(weir_expr_arena *a, const weir_schema *s, const char *name, weir_expr **out,
                           weir_error *err);

/* Literals. Strings are copied into the arena. */
weir_expr *weir_expr_lit_null(weir_expr_arena *a, weir_type type); /* type WEIR_TYPE_NULL for an untyped NULL */
weir_expr *weir_expr_lit_bool(weir_expr_arena *a, bool v);
weir_expr *weir_expr_lit_int(weir_expr_arena *a, int32_t v);
weir_expr *weir_expr_lit_bigint(weir_expr_arena *a, int64_t v);
weir_expr *weir_expr_lit_double(weir_expr_arena *a, double v);
weir_expr *weir_expr_lit_decimal(weir_expr_arena *a, int64_t unscaled, uint8_t precision, uint8_t scale);
/* Any DECIMAL(p, s), p <= 38; NULL when unscaled has more than p digits. */
weir_expr *weir_expr_lit_decimal128(weir_expr_arena *a, __int128 unscaled, uint8_t precision, uint8_t scale);
weir_expr *weir_expr_lit_string(weir_expr_arena *a, const char *s, size_t len);
weir_expr *weir_expr_lit_bytes(weir_expr_arena *a, const void *p, size_t len);
weir_expr *weir_expr_lit_timestamp(weir_expr_arena *a, int64_t ms, bool ltz);
/* DATE: days since 1970-01-01; TIME(precision): milliseconds of the day. */
weir_expr *weir_expr_lit_date(weir_expr_arena *a, int32_t days);
weir_expr *weir_expr_lit_time(weir_expr_arena *a, int32_t ms, uint8_t precision);
/* INTERVAL literals: day-time in milliseconds, year-month in months. */
weir_expr *weir_expr_lit_interval(weir_expr_arena *a, int64_t v, weir_interval_kind kind);
/*
 * A numeric literal as written in SQL, typed as Flink types it: an integer
 * that fits is INT, else BIGINT (else DECIMAL); 1.5 is DECIMAL(2, 1); 1.5E0
 * is DOUBLE. Fails for malformed text or more than 38 significant digits.
 */
int weir_expr_lit_numeric(weir_expr_arena *a, const char *text, weir_expr **out, weir_error *err);
/*
 * An INTERVAL literal: INTERVAL 'text' unit [TO unit2], e.g. ("3", "SECOND",
 * NULL), ("1 02:03", "DAY", "MINUTE"), ("2-6", "YEAR", "MONTH").
 */
int weir_expr_lit_interval_text(weir_expr_arena *a, const char *text, const char *unit, const char *unit2,
                                weir_expr **out, weir_error *err);

/* ---- interior nodes ---- */

/*
 * A function or operator call by name (see the list above). Resolves
 * overloads, inserts implicit casts, checks types; unknown names fail with
 * "no function NAME(T1, T2); did you mean ...". args are borrowed (the
 * array), the nodes become children of the result.
 */
int weir_expr_call(weir_expr_arena *a, const char *name, weir_expr *const *args, uint32_t n_args,
                   weir_expr **out, weir_error *err);
/*
 * The type values of ta and tb both widen to, when both are numeric: INT <
 * BIGINT < DECIMAL < DOUBLE, DECIMALs to the integral digits and the scale
 * of both (INT counts as DECIMAL(10, 0), BIGINT as DECIMAL(19, 0)); past
 * 38 digits the scale is cut (to 0 if need be), so every value of both
 * fits, as Flink's set operations widen; nullable when either is. False
 * when one is not numeric.
 */
bool weir_type_numeric_common(weir_type ta, weir_type tb, weir_type *out);
/* CAST(e AS type) (an invalid value is a runtime error) or TRY_CAST (NULL). */
int weir_expr_cast(weir_expr_arena *a, weir_expr *e, weir_type type, bool try_cast, weir_expr **out,
                   weir_error *err);
/*
 * weir_expr_cast to TIMESTAMP(p) or TIMESTAMP_LTZ(p) as SQL writes it: every
 * TIMESTAMP type keeps milliseconds, and for 0 <= p < 3 the fraction of the
 * second is then cut to p digits, toward the past (CAST(... AS TIMESTAMP(0))
 * drops the milliseconds, as in Flink); p < 0 (not written) or >= 3 cuts
 * nothing. Any other type: weir_expr_cast.
 */
int weir_expr_cast_fraction(weir_expr_arena *a, weir_expr *e, weir_type type, int p, bool try_cast, weir_expr **out,
                            weir_error *err);
/*
 * Searched CASE WHEN conds[i] THEN vals[i] ... ELSE else_val END (else_val
 * may be NULL = ELSE NULL). A simple CASE x WHEN v ... is built by the
 * caller as conditions x = v.
 */
int weir_expr_case(weir_expr_arena *a, weir_expr *const *conds, weir_expr *const *vals, uint32_t n,
                   weir_expr *else_val, weir_expr **out, weir_error *err);

/* ---- inspection ---- */

/* The result type; an INTERVAL is a BIGINT with its kind in the precision
 * (weir_type_interval), so a column built from it keeps the kind. */
weir_type weir_expr_type(const weir_expr *e);
weir_interval_kind weir_expr_interval(const weir_expr *e);
bool weir_expr_is_literal(const weir_expr *e);
/* The value of a literal node (strings borrowed from the arena). */
int weir_expr_literal_value(const weir_expr *e, weir_value *out);
/* Column index of a column reference, or -1. */
int32_t weir_expr_column_index(const weir_expr *e);
/* True if e calls something whose value differs per call (RAND, a UDF not
 * marked deterministic): two equal-looking copies of e are not the same. */
bool weir_expr_is_volatile(const weir_expr *e);
/* True if e reads the evaluation environment (the clock, the watermark, the
 * session time zone): its value depends on where and when it is evaluated. */
bool weir_expr_reads_session(const weir_expr *e);
/*
 * The input columns whose NULL alone makes e NULL (e is a column, or calls
 * only functions that return NULL on a NULL argument, down to those
 * columns). Writes at most cap distinct indexes into cols; returns how many.
 */
uint32_t weir_expr_strict_columns(const weir_expr *e, uint32_t *cols, uint32_t cap);
/*
 * Sets reads[c] for every input column c that e reads (reads has n_cols
 * entries; the others are left as they are). False when e reads a column
 * at or past n_cols (not marked).
 */
bool weir_expr_columns(const weir_expr *e, bool *reads, uint32_t n_cols);
/* Writes a readable form ("(+ $0 1)") into buf; for EXPLAIN and tests. */
size_t weir_expr_format(const weir_expr *e, char *buf, size_t cap);
/* The readable form plus every parameter a function keeps beside its
 * arguments (a time unit, ...): two expressions over the same input with
 * the same digest compute the same values (sub-plan reuse compares them). */
size_t weir_expr_digest(const weir_expr *e, char *buf, size_t cap);
/* Type name as used in messages: "INT", "DECIMAL(10, 2)", "INTERVAL DAY TO SECOND". */
const char *weir_expr_type_name(weir_type t, weir_interval_kind iv, char *buf, size_t cap);

/* ---- evaluation environment (one per thread / operator instance) ---- */

weir_expr_env *weir_expr_env_create(void);
void weir_expr_env_destroy(weir_expr_env *env);
/* Current watermark for CURRENT_WATERMARK (WEIR_TS_MIN = none yet: NULL). */
void weir_expr_env_set_watermark(weir_expr_env *env, weir_ts watermark);
/* Clock for CURRENT_TIMESTAMP, NOW(), PROCTIME(), UNIX_TIMESTAMP() (default: system). Copied. */
void weir_expr_env_set_clock(weir_expr_env *env, const weir_clock *clock);
/*
 * Session time zone ('table.local-time-zone'): "UTC" (default), a fixed
 * offset ("+08:00", "GMT-5", "UTC+05:30"), or an IANA name read from the
 * system zoneinfo ("Europe/Berlin").
 */
int weir_expr_env_set_time_zone(weir_expr_env *env, const char *tz, weir_error *err);

/* ---- evaluation ---- */

/*
 * Evaluates e for rows [0, in->n_rows) of `in` into column out_col of `out`
 * (whose type must equal e's type, nullability aside; strings are copied
 * into out's heap). Does not change out->n_rows. `out` may be `in`.
 * A runtime error (division by zero, invalid CAST, ...) fails the call with
 * a message naming the row.
 */
int weir_expr_eval(const weir_expr *e, const weir_batch *in, weir_expr_env *env, weir_batch *out,
                   uint32_t out_col, weir_error *err);
/* sel[i] = 1 where the predicate is TRUE, 0 where FALSE or NULL. */
int weir_expr_filter(const weir_expr *e, const weir_batch *in, weir_expr_env *env, uint8_t *sel,
                     weir_error *err);
/*
 * Projection: resets out, evaluates exprs[i] into column i for every row of
 * in, copies row times and kinds, sets out->n_rows.
 */
int weir_expr_project(weir_expr *const *exprs, uint32_t n, const weir_batch *in, weir_expr_env *env,
                      weir_batch *out, weir_error *err);
/*
 * A filter and a projection over one input, evaluated together: a
 * deterministic subexpression that occurs more than once among them (in
 * the filter and a projection, in two projections, twice in one) is
 * computed once per batch, and for a row only where one of its occurrences
 * would evaluate it (a CASE branch not taken, or the right side of an AND
 * already decided, does not). Subexpressions that call anything volatile
 * (RAND, a UDF not marked deterministic) or read the session (the clock,
 * the watermark, the time zone) are never shared. filter may be NULL;
 * exprs may be NULL (n = 0) for a filter alone. The given trees are not
 * changed; the calc lives in the arena and is immutable, so several threads
 * may run it, each with its own env.
 */
typedef struct weir_expr_calc weir_expr_calc;
int weir_expr_calc_create(weir_expr_arena *a, weir_expr *filter, weir_expr *const *exprs, uint32_t n,
                          weir_expr_calc **out, weir_error *err);
/* How many subexpressions the calc computes once for several occurrences. */
uint32_t weir_expr_calc_shared(const weir_expr_calc *c);
/* The calc's filter alone, as weir_expr_filter (sel[i] = 1 where TRUE). */
int weir_expr_calc_filter(const weir_expr_calc *c, const weir_batch *in, weir_expr_env *env, uint8_t *sel,
                          weir_error *err);
/*
 * The filter, then the projections of the rows it keeps (all rows without a
 * filter): resets out and fills it with one row per kept row, in order, with
 * its row time and kind; out->n_rows is the number kept. The calc must have
 * projections.
 */
int weir_expr_calc_run(const weir_expr_calc *c, const weir_batch *in, weir_expr_env *env, weir_batch *out,
                       weir_error *err);
/* Evaluates an expression over a single row (row of in, or no input when in is NULL). */
int weir_expr_eval_row(const weir_expr *e, const weir_batch *in, uint32_t row, weir_expr_env *env,
                       weir_value *out, weir_error *err);

/* ---- scalar user-defined functions ---- */

/*
 * Scratch memory for a UDF result string, valid until the current
 * evaluation ends.
 */
typedef struct weir_udf_ctx weir_udf_ctx;
char *weir_udf_alloc(weir_udf_ctx *cx, size_t len);

/*
 * Per-row callback: args[0..n_args) hold the argument values (already cast
 * to the declared types); set *out (its type is preset). A string result may
 * point to memory of the callback's or from weir_udf_alloc(); it is copied
 * at once. Return 0, or a negative code to fail the evaluation.
 */
typedef int (*weir_udf_row_fn)(void *ud, const weir_value *args, uint32_t n_args, weir_value *out,
                               weir_udf_ctx *cx);
/*
 * Vectorized callback: args[i] are columns of n_rows values; fill out->data
 * (preallocated) and out->nulls (preallocated, zeroed). Strings in out point
 * to memory from weir_udf_alloc() or memory that outlives the evaluation.
 */
typedef int (*weir_udf_vec_fn)(void *ud, const weir_expr_vec *args, uint32_t n_args, uint32_t n_rows,
                               weir_expr_vec *out, weir_udf_ctx *cx);

typedef struct weir_udf {
    const char *name;          /* copied */
    const weir_type *arg_types; /* copied; implicit casts apply */
    uint32_t n_args;
    weir_type result_type;
    weir_udf_row_fn row_fn;    /* exactly one of row_fn / vec_fn */
    weir_udf_vec_fn vec_fn;
    void *ud;
    bool null_on_null;         /* NULL if any argument is NULL, without calling */
    bool deterministic;        /* may be constant-folded */
} weir_udf;

/* Registers a scalar function process-wide. Fails with WEIR_EEXIST for a taken name. */
int weir_expr_register_udf(const weir_udf *udf, weir_error *err);
/* Removes the name (a scalar or a table function); expressions and jobs bound to the
 * function before keep calling it. */
int weir_expr_unregister_udf(const char *name);
/* The registered UDF of that name (its pointers stay valid for the process), or WEIR_ENOTFOUND. */
int weir_expr_udf_lookup(const char *name, weir_udf *out);

/*
 * A C shared library's function for CREATE FUNCTION name AS 'symbol'
 * LANGUAGE C USING JAR '/path/libx.so': weir loads the library (dlopen,
 * never unloaded) and calls the symbol, which describes the function by
 * filling *out (arg_types, result_type, row_fn or vec_fn, ud, flags; the
 * name is the SQL name, set by weir) and returns 0, or a negative WEIR_E...
 * code with err set. abi is WEIR_UDF_ABI_VERSION: a library built against
 * another layout of weir_udf should refuse it. What out points to must stay
 * valid for the process. A table function's symbol returns
 * weir_udf_init_table(out, &def) instead (below).
 */
#define WEIR_UDF_ABI_VERSION 1
typedef int (*weir_udf_init_fn)(uint32_t abi, weir_udf *out, weir_error *err);

/* ---- table functions (user-defined, in C) ---- */

/*
 * A table function maps one call (its argument values) to zero or more
 * rows of declared columns: in SQL, `FROM t, LATERAL TABLE(f(t.a)) AS
 * x(c1, c2)` joins each row of t with the rows f returns for it (docs/sql.md).
 *
 * Where the rows of one call go. weir passes one to the callback, which
 * hands each row to weir_udtf_emit() and otherwise leaves it alone; only
 * code that calls a table function itself (a test) fills one in.
 */
typedef struct weir_udtf_collector weir_udtf_collector;
struct weir_udtf_collector {
    /* Takes one row: row[i] is column i's value (of the declared type;
     * is_null for NULL). Returns 0 or a negative WEIR_E... code. */
    int (*emit)(weir_udtf_collector *self, const weir_value *row);
    void *sink; /* the emitter's own state */
};

/*
 * Emits one row of the function's declared columns: row[i] holds column
 * i's value in the member of its declared type (row[i].type is not read);
 * strings and bytes may point to any memory of the callback's, since they
 * are copied at once. Returns 0, or a negative code (out of memory, or the
 * job stopping) that the callback should return at once.
 */
int weir_udtf_emit(weir_udtf_collector *out, const weir_value *row);

/*
 * Per-call callback: args[0..n_args) hold the argument values (already
 * cast to the declared types; NULL possible unless null_on_null). It emits
 * zero or more rows through out and returns 0, or a negative WEIR_E...
 * code with err set (weir_error_set) to fail the job: the message names
 * the function, the SQL location of its call, and says err's message.
 * Called by one thread at a time per running instance, possibly from
 * several threads at once (parallelism > 1): ud shared by the calls must
 * be read-only or guarded.
 */
typedef int (*weir_udtf_row_fn)(void *ud, const weir_value *args, uint32_t n_args, weir_udtf_collector *out,
                                weir_error *err);

typedef struct weir_udtf {
    const char *name;             /* copied */
    const weir_type *arg_types;   /* copied; implicit casts apply */
    uint32_t n_args;
    const char *const *col_names; /* copied: the result's column names (an alias list may rename them) */
    const weir_type *col_types;   /* copied: the result's column types; each column may hold NULL */
    uint32_t n_cols;              /* at least 1 */
    weir_udtf_row_fn row_fn;
    void *ud;
    bool null_on_null;            /* no rows for a call with a NULL argument, without calling */
} weir_udtf;

/*
 * Registers a table function process-wide. Scalar and table functions
 * share one name space: a name taken by either (or a built-in) fails with
 * WEIR_EEXIST.
 */
int weir_expr_register_udtf(const weir_udtf *f, weir_error *err);
/* Removes the name (as weir_expr_unregister_udf, which removes either kind). */
int weir_expr_unregister_udtf(const char *name);
/* The registered table function of that name (its pointers stay valid for the process), or WEIR_ENOTFOUND. */
int weir_expr_udtf_lookup(const char *name, weir_udtf *out);
/*
 * A call of the table function name with args (borrowed array of nodes of
 * arena a): checks the count and the types, and casts each argument in
 * place to its declared type (implicit casts only), as a scalar call
 * would; fills *out. WEIR_ENOTFOUND (err unset) when no table function has
 * that name; other failures set err ("no function f(INT); ...").
 */
int weir_expr_udtf_bind(weir_expr_arena *a, const char *name, weir_expr **args, uint32_t n_args, weir_udtf *out,
                        weir_error *err);

/*
 * In a weir_udf_init_fn (CREATE FUNCTION ... LANGUAGE C): makes *out
 * describe the table function def instead of a scalar function; return its
 * result. def (and all it points to) must stay valid for the process; its
 * name is ignored (the CREATE FUNCTION names the function). Returns 0, or
 * WEIR_EINVAL for a NULL argument.
 */
int weir_udf_init_table(weir_udf *out, const weir_udtf *def);
/* The table function weir_udf_init_table() put into u, or NULL (a scalar function). */
const weir_udtf *weir_udf_table(const weir_udf *u);

/* True if name is a built-in scalar function or operator or a registered UDF (scalar or table). */
bool weir_expr_function_exists(const char *name);
/*
 * The names of the built-in scalar functions callable by name (operators
 * and syntax forms such as `IS NULL` left out), in no particular order:
 * the first cap into names (static strings); returns how many there are.
 */
size_t weir_expr_builtin_names(const char **names, size_t cap);
/* The names of the registered UDFs, scalar and table functions (C API and
 * CREATE FUNCTION), the first cap of them (valid until the function is
 * dropped); returns how many. */
size_t weir_expr_udf_names(const char **names, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
