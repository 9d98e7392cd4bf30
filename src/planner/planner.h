/*
 * planner/planner.h - the SQL planner's internal structures.
 *
 * Planning walks the syntax tree (sql/ast.h) of each INSERT or query and
 * adds operators to one weir_job as it goes. A `rel` is the result of
 * planning a query fragment: the stream that carries it, its schema, the
 * qualifier (table alias) of each column for name resolution, which column
 * is the event-time attribute, and whether it is a changelog.
 *
 * Ownership: schemas, expressions and strings made while planning belong
 * to the weir_sql_job (lists freed in weir_sql_job_destroy, after the job).
 */
#ifndef WEIR_PLANNER_INTERNAL_H
#define WEIR_PLANNER_INTERNAL_H

#include "sql/ast.h"
#include "weir/agg.h"
#include "weir/connector.h"
#include "weir/expr.h"
#include "weir/planner.h"
#include "weir/window.h"

typedef struct plan_ctx plan_ctx;
typedef struct plan_alt_time {
    int node;
    uint32_t col;
} plan_alt_time;

/*
 * Catalogs and databases (database.c): weir's built-in catalog
 * default_catalog with its database default_database, and those CREATE
 * CATALOG (type generic_in_memory) and CREATE DATABASE add. Every table and
 * view lives in one database of one catalog; names match without regard to
 * case, as weir's table names always have.
 */
typedef struct cat_database {
    char *name;
    const char *comment;    /* or NULL */
    weir_option *props;     /* WITH, then ALTER DATABASE ... SET */
    size_t n_props;
} cat_database;

typedef struct cat_catalog {
    char *name;
    const char *comment;    /* or NULL */
    weir_option *opts;      /* WITH options ('type', 'default-database'), then ALTER CATALOG's */
    size_t n_opts;
    const char *default_db; /* the database USE CATALOG makes current */
    cat_database *dbs;
    size_t n_dbs;
} cat_catalog;

/* A fully qualified name: catalog.database.object (borrowed strings). */
typedef struct cat_path {
    const char *catalog, *database, *name;
} cat_path;

/* A table created with CREATE TABLE. */
typedef struct cat_table {
    char *name;
    char *catalog, *database;         /* where it lives */
    /* the name in messages about state and reuse: `name` in default_catalog.default_database, else
     * catalog.database.name */
    char *label;
    const weir_sql_create_table *ddl; /* in the script's arena */
    weir_schema *physical;            /* physical columns only */
    weir_schema *full;                /* physical + computed columns, rowtime set */
    int rowtime;                      /* index in full, or -1 */
    int64_t watermark_delay_ms;       /* when rowtime >= 0 */
    bool has_proctime;                /* a computed column `c AS PROCTIME()` ... */
    uint32_t proctime;                /* ... at this index in full */
    weir_option *opts;                /* WITH options, and a reference's OPTIONS hint (hints.c) */
    size_t n_opts;
    /* where each option was written (its WITH clause or an OPTIONS hint); NULL: ddl->options in order */
    const weir_sql_option **opt_src;
    /* METADATA columns, {column name, metadata key}; they are columns of
     * `physical` too (the source fills them). */
    weir_option *meta;
    uint32_t n_meta;
} cat_table;

/* The catalog table or view whose columns carry qualifier string qual (a FROM item that names it
 * without an alias, or with its own name as the alias): db.t.c and cat.db.t.c must name it. Each
 * FROM item owns its qualifier string, so the pointer tells the items apart. */
typedef struct plan_qual_path {
    const char *qual;
    cat_path path;
    struct plan_qual_path *next;
} plan_qual_path;

typedef struct plan_view_gone {
    const char *view, *column, *object;
} plan_view_gone;

/* A view, or a WITH query while its query is planned. */
typedef struct cat_view {
    char *name;
    const weir_sql_query *query;
    const weir_sql_ident *columns; /* column aliases, or NULL */
    uint32_t n_columns;
    bool temporary; /* CREATE TEMPORARY VIEW */
    /* where it lives; NULL for a WITH query (found by its bare name only, before any table or view) */
    const char *catalog, *database;
    /* the current catalog and database when its query was written: its names resolve there */
    const char *home_catalog, *home_database;
    /* a WITH query: how many enclosing scopes hide it (a view's body, its own and later WITH items'
     * bodies); a bare name finds it only while 0 */
    int hidden;
    /* the table and view names of its query (pointers into it) and the catalog objects they
     * resolved to where it was written: SHOW CREATE VIEW prints these paths */
    const weir_sql_name **res_names;
    cat_path *res_paths;
    /* and their columns there (NULL where not known): the view reads those and no others, as
     * Flink's view keeps its query expanded (`*` fixed to the columns it meant) */
    const weir_schema **res_cols;
    uint32_t n_res;
    /* its columns where it was created (names after its column list), or NULL when its check
     * stopped at a table whose connector refused its options */
    const weir_schema *schema;
    const char *comment; /* CREATE VIEW ... COMMENT, or NULL */
} cat_view;

/* Pending window table function: the columns window_start/end/time are virtual until aggregated. */
typedef struct rel_window {
    bool present;
    weir_window_assigner assigner;
    uint32_t ws_col, we_col, wt_col; /* indices of the virtual columns in the rel schema */
    /* The rows the stream really carries: the rel schema without the virtual columns. */
    const weir_schema *stream_schema;
    bool proctime;                   /* over a processing-time attribute: windows by the job's clock */
    weir_sql_loc loc;
    /* SESSION(TABLE t PARTITION BY ...): its columns (the window aggregation checks them against its keys) */
    uint32_t n_part;
    int32_t part_col[WEIR_KEY_MAX_COLS]; /* a column's index, or -1 for an expression (part_text) */
    const char *part_text[WEIR_KEY_MAX_COLS];
    weir_sql_loc part_loc;
} rel_window;

/*
 * Window properties of a rel whose rows each belong to one event-time
 * window: the output of a window aggregation or window join, through
 * projections and renames. A GROUP BY on both bound columns is a cascaded
 * window aggregation; a join on both of them with another rel of the same
 * window is a window join (join.c).
 */
typedef struct rel_wprops {
    bool present;
    weir_window_assigner assigner;
    uint32_t ws, we; /* window_start and window_end columns */
    int32_t wt;      /* window_time column, or -1 when projected away */
    bool local_tz;   /* windows of table.local-time-zone's wall time (a TIMESTAMP_LTZ attribute) */
} rel_wprops;

typedef struct rel {
    weir_stream s;
    weir_schema *schema;  /* owned by the plan context */
    char **quals;         /* per column: qualifier or NULL (owned by the plan context) */
    int rowtime;          /* time attribute column, or -1 */
    /* A processing-time attribute (PROCTIME()): a flag, so that zero-initialised rels have none. */
    bool has_proctime;
    uint32_t proctime;
    bool updating;        /* a changelog (+I/-U/+U/-D) rather than append-only */
    uint32_t n_physical;  /* columns really carried by the stream (< schema->n_fields with a pending window) */
    rel_window win;
    rel_wprops wprops;
    /*
     * Column above_col is above the watermark in every row that follows it
     * (window_end of an event-time window aggregation without allowed
     * lateness: a window fires once W >= end, and only once). Valid while
     * the rel's stream is still node above_node: an operator that does not
     * carry it forward (plan_calc does) leaves it behind.
     */
    bool above_wm;
    uint32_t above_col;
    int above_node;
    weir_sql_loc loc;
    /*
     * The conditions of a correlated subquery (a semi or anti join) see
     * columns [0, outer_cols) of the enclosing query and the subquery's
     * own after them: a name is looked up among the subquery's columns
     * first, as SQL scopes nest. 0: one scope.
     */
    uint32_t outer_cols;
    /*
     * How far out each column's scope is (0: the rel's own, 1: the query
     * around it, 2: the query around that, ...), where a subquery nested
     * several levels down sees the values carried from every level around
     * it: a name is looked up in the nearest scope that has it. Valid
     * while n_scope is the rel's column count; else columns [0,
     * outer_cols) are one scope out and the others the rel's own. Reset
     * with outer_cols and with the qualifiers.
     */
    const uint8_t *scope;
    uint32_t n_scope;
    /*
     * Columns a name finds only when qualified and that an unqualified `*`
     * skips: the inputs' own copies of the common columns of a NATURAL or
     * USING join (the unqualified name is the common column). NULL: none;
     * else hidden[i] for the first n_hidden columns (later ones are
     * visible). Reset with the qualifiers, carried with them.
     */
    const bool *hidden;
    uint32_t n_hidden;
    /*
     * Upsert keys (upsert.c): sets of columns such that every change of
     * one value of them reaches the next operator in order, from one
     * subtask. Valid while the rel's stream is still node ukey_node (main
     * output): an operator that does not carry them forward (plan_calc
     * does) leaves them behind, so a rel copied across a new operator
     * never keeps a stale key. None known (n_ukeys 0): the changes of one
     * row may come from several subtasks.
     */
    int ukey_node;
    uint32_t n_ukeys;
    weir_keyspec ukeys[4];
} rel;

/* Whether column c of r is a hidden copy of a NATURAL / USING join's common column. */
static inline bool plan_col_hidden(const rel *r, uint32_t c) { return c < r->n_hidden && r->hidden[c]; }

/* How far out the scope of column c of r is (rel.scope): 0 for the rel's own columns. */
static inline uint32_t plan_col_scope(const rel *r, uint32_t c)
{
    uint32_t nf = r->schema->n_fields;
    if (r->scope && r->n_scope == nf)
        return c < nf ? r->scope[c] : 0;
    return r->outer_cols < nf && c < r->outer_cols;
}

/* An operator added to the job, by the digest of what it computes (reuse.c). */
typedef struct plan_reuse_entry {
    char *digest;
    rel r;
} plan_reuse_entry;

struct plan_ctx {
    const weir_sql_script *script;
    weir_error *err;
    weir_job *job;
    weir_job_config jcfg;
    weir_expr_arena *arena;
    weir_connector_env cenv;
    /* configuration: keys and values (SET, then -D) */
    char **cfg_keys, **cfg_vals;
    weir_sql_loc *cfg_locs; /* of each value in the script; line 0: from -D */
    size_t n_cfg;
    const char *cfg_bad;    /* the key plan_job_config found wrong */
    const char *time_zone;  /* table.local-time-zone resolved (plan_alloc'd), or NULL for UTC */
    cat_table *tables;
    size_t n_tables;
    cat_view *views;
    size_t n_views;
    cat_catalog *catalogs; /* plan_alloc'd */
    size_t n_catalogs;
    const char *cur_catalog, *cur_database; /* USE; names owned by catalogs */
    plan_qual_path *qual_paths;             /* plan_alloc'd, newest first */
    /* plan_check_view: the names a view's own query resolves to (at view_depth rec_depth), and
     * whether a table's connector refused its options (source_failed) */
    bool recording, source_failed;
    int rec_depth;
    const weir_sql_name **rec_names; /* plan_alloc'd */
    cat_path *rec_paths;
    const weir_schema **rec_cols;
    uint32_t n_rec, cap_rec;
    const weir_schema *rec_schema; /* the checked view's columns */
    /* the view whose query is being planned (a copy; NULL: none): the names it recorded read the
     * columns they read where it was created */
    const cat_view *expanding;
    /* the first column such a name had and has no longer: the view, the column, the object */
    plan_view_gone view_gone;
    /* inside a view's body (plan_view_enter): how deep, and the statement's current catalog and
     * database (cur_* are the view's home meanwhile) */
    int n_homes;
    const char *stmt_catalog, *stmt_database;
    /* things to free with the job */
    weir_schema **schemas;
    size_t n_schemas;
    void **allocs;
    size_t n_allocs;
    weir_buf explain;     /* logical plan lines */
    weir_buf explain_out; /* output of EXPLAIN statements */
    const weir_sql_job_control *jobs; /* SHOW JOBS, STOP JOB (NULL: refused) */
    weir_buf warnings;    /* "FILE:LINE:COL: warning: ..." lines */
    int view_depth;
    /* A window Top-N's input is being planned: a window table function may
     * be used without aggregation (its rows get their windows assigned). */
    bool window_assign_ok;
    bool job_started;     /* the weir_job exists (created at the first INSERT) */
    int n_sinks;
    /* partition pruning (partition.c): the FROM item and WHERE of the SELECT being planned, when its FROM is one
     * table */
    const weir_sql_table_ref *prune_from;
    const weir_sql_expr *prune_where;
    /* projection pushdown (prune.c): the column names the SELECT being planned reads */
    const char **proj;
    size_t n_proj;
    bool proj_on;
    /* a SELECT over joins: the FROM items the names apply to (its tables and joins); none: every source */
    const weir_sql_table_ref **proj_refs;
    size_t n_proj_refs;
    /* sub-plan reuse (reuse.c) */
    plan_reuse_entry *reuse;
    size_t n_reuse;
    /* scalar subqueries of the SELECT being planned (subquery.c): each
     * expression's value is column scalar_col[i] of the rel it joined */
    const weir_sql_expr **scalar_e;
    uint32_t *scalar_col;
    /* a correlated one's aggregates (its value is its item over them), or NULL */
    struct agg_scope **scalar_as;
    uint32_t n_scalar;
    /* IN / EXISTS tests used as values (subquery.c): each test_e[i] reads as test_as[i] */
    const weir_sql_expr **test_e, **test_as;
    uint32_t n_test;
    bool agg_values; /* planning those of an aggregating SELECT's list and HAVING */
    const struct agg_scope *agg_values_as; /* and that aggregation's scope (its aggregates' columns) */
    /* per IN's count of matches: {its scalar subquery, outer x, inner y} of the correlation x = y */
    const weir_sql_expr **in_pairs;
    uint32_t n_in_pairs;
    /* scalar subqueries that may give more than one row (subquery.c): each runs as its query q, its
     * value through the SINGLE_VALUE call `call` (whose run-time error names the subquery) */
    struct plan_single_value {
        const weir_sql_expr *e, *call;
        const weir_sql_query *q;
    } *sv;
    uint32_t n_sv;
    /* plan_from hands out preplanned for this FROM item (a subquery planned over a FROM planned before) */
    const weir_sql_table_ref *preplanned_ref;
    rel preplanned;
    /* the join whose conditions see its right input's columns first, then its left's (plan_scoped_join) */
    const weir_sql_table_ref *scoped_join;
    /*
     * Second event-time attributes, per stream node: an inner interval
     * join's right time (its rows carry the left time, the rel's rowtime);
     * plan_calc carries one to its output node, plan_use_time_attr
     * re-stamps the rows when a window or OVER takes it. Arena memory.
     */
    plan_alt_time *alt_times;
    uint32_t n_alt_times, cap_alt_times;
    /* the query hints of the SELECT being planned (hints.c) */
    const weir_sql_hint *qhints;
    uint32_t n_qhints;
    /* MATCH_RECOGNIZE's navigation and aggregate calls (match.c): mr_e[i] binds as column mr_col[i] */
    const weir_sql_expr **mr_e;
    uint32_t *mr_col;
    uint32_t n_mr;
    /* syntax marked `once` bound in the expression being bound (bind.c):
     * its second place gets the same node, so it is evaluated once */
    struct plan_once *once;
    uint32_t n_once, cap_once, bind_depth;
};

/* Column col of stream node's rows is an event-time attribute besides the rel's rowtime. */
int plan_alt_time_add(plan_ctx *pc, int node, uint32_t col);
/* The second event-time attribute of r's stream, or -1. */
int plan_alt_time_of(const plan_ctx *pc, const rel *r);

/* hints (hints.c) */
/* Where option i of table t was written: its key (or value); the table's name when i is out of range. */
weir_sql_loc plan_option_loc(const cat_table *t, int i);
weir_sql_loc plan_option_value_loc(const cat_table *t, size_t i);
/*
 * The table a reference to t reads or writes: t itself without hints, else
 * a copy whose options are t's with the OPTIONS hints' pairs added or
 * replacing those of the same key (dynamic table options).
 */
int plan_hinted_table(plan_ctx *pc, cat_table *t, const weir_sql_hint *hints, uint32_t n_hints, cat_table **out);
/* Hints after a view's name: refused (a view takes no options). */
int plan_view_hints(plan_ctx *pc, const char *view, const weir_sql_hint *hints, uint32_t n_hints);
/* Checks the query hints of sel (names, the tables they name) and makes them the ones in force. */
int plan_query_hints_enter(plan_ctx *pc, const weir_sql_select *sel);
/* The state TTL for input `in` of a regular join or group aggregation: *ttl_ms unchanged when no STATE_TTL names it. */
int plan_hint_state_ttl(plan_ctx *pc, const weir_sql_table_ref *in, int64_t *ttl_ms);
/* Checks a LOOKUP hint naming lookup table `in` (what weir's lookup join honours; the rest refused by name). */
int plan_hint_lookup(plan_ctx *pc, const weir_sql_table_ref *in, const cat_table *t, bool keyed);

/* config */
const char *plan_config(const plan_ctx *pc, const char *key);
/* Where the script set key (line 0: on the command line, or not set). */
weir_sql_loc plan_config_loc(const plan_ctx *pc, const char *key);
/* For an error about key's value: where the script set it, else fallback. */
weir_sql_loc plan_config_at(const plan_ctx *pc, const char *key, weir_sql_loc fallback);
/* at: where the script sets it (line 0 for the command line's -D). */
int plan_config_set(plan_ctx *pc, const char *key, const char *value, weir_sql_loc at);
int plan_job_config(plan_ctx *pc, weir_job_config *cfg, weir_error *err);
/* Whether the job takes checkpoints or savepoints (then sinks commit exactly once). */
bool plan_checkpointing(const plan_ctx *pc);
int plan_ensure_job(plan_ctx *pc);
/*
 * Restore compatibility: records in the fingerprint of node s (a source or
 * sink of table t) the table's name and the options that say what its
 * state refers to (connector, path, format, topic).
 */
int plan_describe_table(plan_ctx *pc, weir_stream s, const cat_table *t);
/* "TUMBLE size=4000", "HOP size=4000 slide=2000 offset=500": window a, for messages and fingerprints. */
void plan_window_text(const weir_window_assigner *a, char *buf, size_t cap);
/*
 * Records in the fingerprint of node s, a window Top-N, window
 * deduplication or window join, the windows whose bounds key its state
 * ("windows: TUMBLE size=4000"): a checkpoint of other windows would fire
 * its rows under bounds no window of the job has. (The bounds' column
 * origins name the columns, not the windows that set them.)
 */
int plan_describe_windows(plan_ctx *pc, weir_stream s, const weir_window_assigner *a);

/* bookkeeping */
weir_schema *plan_new_schema(plan_ctx *pc);
/* Hands s (made elsewhere) to the plan, which frees it with its own; s is destroyed on failure. */
int plan_keep_schema(plan_ctx *pc, weir_schema *s);
void *plan_alloc(plan_ctx *pc, size_t n);
char *plan_strdup(plan_ctx *pc, const char *s);
int plan_error(plan_ctx *pc, weir_sql_loc loc, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* catalog.c */
int plan_create_table(plan_ctx *pc, const weir_sql_create_table *ct, weir_sql_loc loc);
/* CREATE TABLE of ct at path (ALTER TABLE's remade table keeps its place; ct->name is not read). */
int plan_create_table_at(plan_ctx *pc, const weir_sql_create_table *ct, const cat_path *path, weir_sql_loc loc);
int plan_create_view(plan_ctx *pc, const weir_sql_create_view *cv, weir_sql_loc loc);
/*
 * The table or view a name refers to, as Flink resolves it: a bare name is
 * first a WITH query's; then the name is qualified with the current
 * catalog and database (t, db.t, catalog.db.t), and a temporary object of
 * that path shadows a permanent one. NULL when it names none (or another
 * kind): plan_missing says why.
 */
cat_table *plan_find_table(plan_ctx *pc, const weir_sql_name *n);
cat_view *plan_find_view(plan_ctx *pc, const weir_sql_name *n);
/* The built-in catalog and database (current when a script starts). */
#define PLAN_DEFAULT_CATALOG "default_catalog"
#define PLAN_DEFAULT_DATABASE "default_database"
/* Qualifies n and checks that its catalog and database exist (a located error if not); the path's
 * catalog and database are then their names as created. */
int plan_check_space(plan_ctx *pc, const weir_sql_name *n, cat_path *path);
/* Whether a table or view of that temporariness is at path; the error for a CREATE that finds one. */
bool plan_exists_at(plan_ctx *pc, const cat_path *path, bool temporary);
int plan_exists_error(plan_ctx *pc, weir_sql_loc loc, const cat_path *path, bool temporary);
/* While a view's query is planned, its names resolve where the view was written (Flink expands them
 * there): enter makes the view's home the current catalog and database, leave restores them. The
 * WITH queries its body cannot see are hidden meanwhile: for a catalog view every WITH query of the
 * statement, for a WITH query itself and the later ones of its WITH (Flink's WITH is not recursive,
 * so `WITH t AS (SELECT ... FROM t)` reads the table t). v must point into pc->views. */
typedef struct plan_home {
    const char *catalog, *database;
    size_t hide_from, hide_to; /* the pc->views indices whose WITH queries enter hid */
} plan_home;
void plan_view_enter(plan_ctx *pc, const cat_view *v, plan_home *saved);
void plan_view_leave(plan_ctx *pc, const plan_home *saved);
/* A function call's qualifier (db.f or catalog.db.f): an error naming the catalog or database when it does
 * not exist. Functions are not kept per database: an existing one is the same as none. */
int plan_check_function_name(plan_ctx *pc, const weir_sql_name *n);
/* The table weir.late-records.table names (t, db.t or catalog.db.t; a bare or two-part name is in the
 * statement's current catalog and database, even while a view's body is planned): *t NULL when the
 * option is not set. quiet: no error either when it names no table (*t NULL). */
int plan_late_table(plan_ctx *pc, weir_sql_loc loc, bool quiet, cat_table **t);
/* The table or view at path, temporary or permanent as asked (no shadowing), or NULL. */
cat_table *plan_table_at(plan_ctx *pc, const cat_path *path, bool temporary);
cat_view *plan_view_at(plan_ctx *pc, const cat_path *path, bool temporary);
/* n qualified with the current catalog and database; a located error for a name of more than three parts. */
int plan_qualify(plan_ctx *pc, const weir_sql_name *n, cat_path *out);
/*
 * The located error for a name that plan_find_table / plan_find_view did not
 * find: a name of too many parts, an unknown catalog or database (each with
 * "did you mean"), else "<what> 'name' does not exist" ("unknown <what>
 * 'name'" when unknown_form) with the closest name of that database.
 */
int plan_missing(plan_ctx *pc, const weir_sql_name *n, const char *what, bool unknown_form);
int plan_type_from_sql(plan_ctx *pc, const weir_sql_type *t, weir_type *out);

/* database.c */
/* default_catalog.default_database, current. */
int plan_catalogs_init(plan_ctx *pc);
cat_catalog *plan_find_catalog(plan_ctx *pc, const char *name);
/* "catalog 'x' does not exist" / "database 'x' does not exist in catalog 'c'" at id, with "did you mean". */
int plan_unknown_catalog(plan_ctx *pc, const weir_sql_ident *id);
int plan_unknown_database(plan_ctx *pc, cat_catalog *c, const weir_sql_ident *id);
/* The closest of n names to name (edit distance below 3), or NULL. */
const char *plan_closest_name(const char *name, const char *const *cands, size_t n);
cat_database *plan_find_database(cat_catalog *c, const char *name);
/* CREATE CATALOG / DATABASE; DROP, ALTER and USE of them. */
int plan_create_space(plan_ctx *pc, const weir_sql_stmt *st);
int plan_drop_space(plan_ctx *pc, const weir_sql_drop *d);
int plan_alter_space(plan_ctx *pc, const weir_sql_alter *a);
/* SHOW CATALOGS / DATABASES / CURRENT ... / CREATE CATALOG (tableau printing: ddl.c). */
int plan_show_space(plan_ctx *pc, const weir_sql_stmt *st);
/* The catalog and database of a SHOW ... FROM [c.]db (the current ones without FROM), checked to exist. */
int plan_show_from(plan_ctx *pc, const weir_sql_name *from, weir_sql_loc at, cat_path *out);

/* bind.c: expressions over a rel */
typedef struct agg_scope agg_scope;
int plan_bind_expr(plan_ctx *pc, const rel *r, agg_scope *as, const weir_sql_expr *e, weir_expr **out);
/* A constant expression (no columns); evaluates to a value. */
int plan_const_interval_ms(plan_ctx *pc, const weir_sql_expr *e, int64_t *ms);
/* Column index in r for a (qualified) name, or a negative code with the error set. */
int plan_resolve_column(plan_ctx *pc, const rel *r, const weir_sql_name *n, uint32_t *idx);
/* Like plan_resolve_column but silent: the index, -1 when absent, -2 when ambiguous. pc NULL: a
 * qualifier matches by its last part only (an analysis before binding, which checks the rest). */
int plan_find_column(const plan_ctx *pc, const rel *r, const weir_sql_name *n);
/* Whether column col of r has the qualifier written as n's first n_quals parts: its FROM item's
 * alias (t), or, when that alias is the name of the catalog table or view the item reads, that
 * object's database and name (db.t) or its catalog, database and name (cat.db.t), resolved as a
 * table name is (plan_qualify). */
bool plan_column_qualified(const plan_ctx *pc, const rel *r, uint32_t col, const weir_sql_name *n, uint32_t n_quals);
/* Whether e is a ROW field access written as a name (col.field, t.col.field):
 * a COLUMN expression that is no column of r but starts with one. */
bool plan_is_field_path(const plan_ctx *pc, const rel *r, const weir_sql_expr *e);
/* The column a field path starts with (-2: ambiguous), or -1 when e is none. */
int plan_field_path_column(const plan_ctx *pc, const rel *r, const weir_sql_expr *e);
/* True for a call PROCTIME() (a processing-time attribute). */
bool plan_is_proctime_call(const weir_sql_expr *e);
/* The output name of a select item (alias, column name, or EXPR$i). */
void plan_item_name(const weir_sql_select_item *it, uint32_t i, char *buf, size_t cap);

/* query.c */
int plan_query(plan_ctx *pc, const weir_sql_query *q, rel *out);
/* Adds a calc (filter then projection) over r; exprs bound over r. */
/*
 * Makes column idx r's event-time attribute when it is r's second one (an
 * inner interval join's right time): a Calc re-stamps the rows with it. 0:
 * idx is r's event-time attribute now; 1: it is none of r's.
 */
int plan_use_time_attr(plan_ctx *pc, rel *r, int idx);
int plan_calc(plan_ctx *pc, rel *r, weir_expr *filter, weir_expr *const *exprs, const char *const *names,
              uint32_t n, rel *out, const char *label);

/* r as only its columns cols[0, keep), in that order (a Calc; qualifiers kept). */
int plan_keep_columns(plan_ctx *pc, rel *r, const uint32_t *cols, uint32_t keep);
/* prune.c: projection pushdown into sources that produce columns by name. */
typedef struct plan_source_cols {
    const weir_schema *physical, *full; /* the table's, or narrower ones */
    int rowtime;
    bool has_proctime;
    uint32_t proctime;
    bool pruned;
} plan_source_cols;
/* Before planning sel's FROM: records the columns sel reads, when it reads a table directly. */
/*
 * Visits every column reference of an expression (plan_walk_columns): column
 * returns 1 to go on, 0 to give up, < 0 for an error. The walk gives up (0)
 * on anything it does not look into: '*', subqueries, OVER windows, table
 * arguments, grouping sets.
 */
typedef struct plan_column_visitor {
    int (*column)(void *ud, const weir_sql_expr *e);
    void *ud;
} plan_column_visitor;
int plan_walk_columns(const plan_column_visitor *v, const weir_sql_expr *e);
int plan_projection_begin(plan_ctx *pc, const weir_sql_select *sel);
void plan_projection_end(plan_ctx *pc);
/* A nested query's planning keeps the enclosing SELECT's names aside (plan_query). */
typedef struct plan_projection_saved {
    const char **proj;
    size_t n_proj;
    bool proj_on;
    const weir_sql_table_ref **refs;
    size_t n_refs;
} plan_projection_saved;
void plan_projection_save(plan_ctx *pc, plan_projection_saved *s);
void plan_projection_restore(plan_ctx *pc, const plan_projection_saved *s);
/* Below a join of the SELECT being planned: narrows input r to the columns read above the join. */
int plan_projection_join_input(plan_ctx *pc, const weir_sql_table_ref *join, rel *r);
/* The columns the source of t produces (all of them, unless pushdown applies). */
int plan_projection_apply(plan_ctx *pc, const cat_table *t, const weir_sql_table_ref *ref, plan_source_cols *out);
/* planner.c: runs fn(pc, ud) against a scratch job (EXPLAIN, DESCRIBE of a
 * view), so that what it plans adds nothing to the real job. */
int plan_in_scratch_job(plan_ctx *pc, int (*fn)(plan_ctx *pc, void *ud), void *ud);
int plan_check_view(plan_ctx *pc, const cat_view *v);
/* A FROM item named name read catalog object *path, its columns qualified by qual (its alias, or
 * the name's last part): db.t.c and cat.db.t.c reach them unless an alias other than the name
 * hides the path, and plan_check_view records the resolution for SHOW CREATE VIEW, with cols (the
 * object's columns there, or NULL). */
int plan_note_from(plan_ctx *pc, const weir_sql_name *name, const char *qual, const weir_sql_ident *alias,
                   const cat_path *path, const weir_schema *cols);
/* ddl.c: DROP, ALTER, CREATE TABLE ... LIKE / AS query, SHOW, DESCRIBE. */
int plan_drop(plan_ctx *pc, const weir_sql_drop *d, weir_sql_loc loc);
int plan_alter(plan_ctx *pc, const weir_sql_alter *a, weir_sql_loc loc);
int plan_create_table_like(plan_ctx *pc, const weir_sql_create_table *ct, weir_sql_loc loc);
int plan_ctas(plan_ctx *pc, const weir_sql_create_table *ct, weir_sql_loc loc);
int plan_show(plan_ctx *pc, const weir_sql_stmt *st);
/* STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN]: stops another job of this machine now (ddl.c). */
int plan_stop_job(plan_ctx *pc, const weir_sql_stmt *st);
int plan_describe(plan_ctx *pc, const weir_sql_stmt *st);
/* Prints names as the SQL client's one-column table: sorted, each once, those a [NOT] LIKE / ILIKE keeps
 * (like NULL: all); sorts names in place. */
int plan_print_names(plan_ctx *pc, const char *header, const char **names, size_t n, const char *like,
                     bool not_like, bool ilike);
/* database.c */
int plan_use(plan_ctx *pc, const weir_sql_stmt *st);
/* function.c: SHOW [USER] FUNCTIONS. */
int plan_show_functions(plan_ctx *pc, const weir_sql_stmt *st);
/* function.c: CREATE FUNCTION (a C library's function, or another name of a registered one) and DROP FUNCTION. */
int plan_create_function(plan_ctx *pc, const weir_sql_create_function *cf, weir_sql_loc loc);
int plan_drop_function(plan_ctx *pc, const weir_sql_drop *d, weir_sql_loc loc);
/* partition.c: a PARTITIONED BY table as a source. */
typedef struct plan_partitions {
    const char **keys;  /* the partition columns' names in t's physical schema, PARTITIONED BY order */
    uint32_t n_keys;
    weir_expr *filter;  /* pruning over a row of the keys, or NULL */
    char *filter_sql;   /* its conjuncts as SQL, for EXPLAIN */
} plan_partitions;
/*
 * The partition columns of t and, when the SELECT reads t directly (ref is its FROM) with a WHERE, the pruning
 * predicate of the WHERE's conjuncts that read partition columns alone.
 */
int plan_partition_source(plan_ctx *pc, const cat_table *t, const plan_source_cols *cols,
                          const weir_sql_table_ref *ref, const weir_sql_expr *where, plan_partitions *out);
/* 'scan.parallelism' / 'sink.parallelism' of t: 0 when absent; an error at the option unless 1 to the max
 * parallelism. */
int plan_table_parallelism(plan_ctx *pc, const cat_table *t, const char *key, uint32_t *out);
/*
 * The parallelism of an operator that reads s without a shuffle (a Calc, a
 * window assignment, a sink without sink.parallelism): its input's, as
 * Flink's planner does, so that the rows keep their order - a changelog
 * from a single-subtask aggregation spread round-robin over several
 * subtasks would let a key's -U overtake its +U. 0 (the job's default)
 * when s is shuffled anyway.
 */
uint32_t plan_forward_parallelism(const plan_ctx *pc, weir_stream s);

/*
 * reuse.c: sub-plan reuse. Every reusable operator (source, calc, window
 * and group aggregation) is described by a digest: its kind, the digest
 * key of its input stream (node, side output, partitioning) and all its
 * parameters. Operators over the same input with the same digest compute
 * the same stream, so the second one is not added: its consumers read the
 * first one's output (the runtime fans a stream out to every consumer).
 * Since inputs are named by node, equal subtrees collapse bottom-up.
 */
typedef enum plan_reuse_kind { PLAN_REUSE_SOURCE, PLAN_REUSE_OPERATOR } plan_reuse_kind;
/* Appends the identity of stream s to b ("n3/0/p1/k0,2"). */
int plan_reuse_stream(weir_buf *b, weir_stream s);
/* The rel planned earlier with this digest (NULL: none, reuse is off for this kind, or the digest is empty). */
const rel *plan_reuse_find(plan_ctx *pc, plan_reuse_kind kind, const weir_buf *digest);
/* Records r under digest (a no-op when reuse is off for this kind). */
int plan_reuse_add(plan_ctx *pc, plan_reuse_kind kind, const weir_buf *digest, const rel *r);
void plan_reuse_free(plan_ctx *pc);

/*
 * Materialises the pending window table function of r (win.present): one
 * row per window, window_start/end/time become real columns and r gets
 * window properties. Fixed event-time windows only; `what` names the use
 * in the error otherwise ("a window join").
 */
int plan_window_assign(plan_ctx *pc, rel *r, const char *what);

/* FROM item: a table, view, subquery, window table function or join. */
int plan_from(plan_ctx *pc, const weir_sql_table_ref *ref, rel *out);
/* The set operation q (UNION, INTERSECT, EXCEPT) over its two inputs, planned before. */
int plan_setop_rels(plan_ctx *pc, const weir_sql_query *q, const rel *l, const rel *r, rel *out);
/* The qualifier and column aliases of FROM item ref on r, its rows planned (a derived table's). */
int plan_set_alias(plan_ctx *pc, rel *r, const weir_sql_table_ref *ref);
/* input MATCH_RECOGNIZE (...) (planner/match.c). */
int plan_match(plan_ctx *pc, const weir_sql_table_ref *ref, rel *out);
/*
 * Top-N / deduplication (rank.c): when sel's FROM is a subquery with a
 * ROW_NUMBER() OVER (...) item, plans it into *out, sets *handled and
 * leaves in *where the outer WHERE without the rank bounds (or NULL).
 */
int plan_rank(plan_ctx *pc, const weir_sql_select *sel, rel *out, const weir_sql_expr **where, bool *handled);
/* ORDER BY ... LIMIT / OFFSET / FETCH of a query on a stream: a Top-N without partition (planner/rank.c). */
int plan_sort_limit(plan_ctx *pc, const weir_sql_query *q, rel *out);

/* join.c: regular joins. */
typedef struct join_conds join_conds;
/* The conjuncts of a WHERE clause, offered to the comma joins below it. */
int plan_join_conds_make(plan_ctx *pc, const weir_sql_expr *where, join_conds **out);
/* The conjuncts of e (e itself when it is no AND): how many, and up to cap of them into v[*n...]. */
uint32_t plan_count_and(const weir_sql_expr *e);
void plan_split_and(const weir_sql_expr *e, const weir_sql_expr **v, uint32_t *n, uint32_t cap);
bool plan_join_conds_all_used(const join_conds *jc);
/* unnest.c: a join whose right side is UNNEST(collection) of the left's rows. */
int plan_unnest_join(plan_ctx *pc, const weir_sql_table_ref *ref, join_conds *where, rel *out);
/*
 * The row operators of a correlate (UNNEST, table functions) build their
 * output with these: plan_correlate_row appends to o a row with input row
 * r's first n_in columns, time and kind (emitting o first when it is full,
 * then reusing it); plan_correlate_put stores a value's bytes (fixed-size:
 * the value; strings, bytes, nested values: len bytes) as (col, row) of b.
 */
int plan_correlate_row(weir_batch *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r, uint32_t n_in, int *row);
int plan_correlate_put(weir_batch *b, uint32_t col, uint32_t row, bool is_null, const uint8_t *v, uint32_t len);
/*
 * Planning a correlate over l: plan_correlate_schema makes its output
 * schema with l's columns (and time attribute) and a qualifier array with
 * room for n_new more, which the caller adds; plan_correlate_rel makes o
 * (a copy of l on the correlate's stream) the rel of that output.
 */
int plan_correlate_schema(plan_ctx *pc, const rel *l, uint32_t n_new, weir_schema **os, char ***quals);
void plan_correlate_rel(rel *o, const rel *l, weir_schema *os, char **quals, weir_sql_loc loc);
/*
 * udtf.c: a join whose right side is [LATERAL] TABLE(f(...)) of a table
 * function (weir_udtf); plan_udtf_check refuses a name that is no table
 * function (a scalar one, a window table function under LATERAL).
 */
int plan_udtf_join(plan_ctx *pc, const weir_sql_table_ref *ref, join_conds *where, rel *out);
int plan_udtf_check(plan_ctx *pc, const weir_sql_table_ref *f);
/* A table function alone in FROM, its arguments constant: its rows, once. */
int plan_udtf_alone(plan_ctx *pc, const weir_sql_table_ref *f, rel *out);
/* True for joins that take WHERE conjuncts as conditions (inner and comma joins). */
bool plan_join_takes_where(const weir_sql_table_ref *t);
/* Plans a JOIN table ref; where (or NULL) supplies the condition of comma joins. */
int plan_join(plan_ctx *pc, const weir_sql_table_ref *ref, join_conds *where, rel *out);
/*
 * A semi join (anti: an anti join) of the planned
 * rels left and right: the conditions are conds (every one is used; they
 * see right's columns before left's), and for x [NOT] IN (SELECT y ...)
 * the n operands x (over left; several for a row (x1, x2) IN (SELECT y1, y2 ...))
 * and items y (over right); not_in: NOT IN, whose NULLs exclude rows (a
 * NULL x or y makes x <> y unknown). out: left's columns.
 */
int plan_semi_join(plan_ctx *pc, bool anti, const rel *left, const rel *right, join_conds *conds,
                   const weir_sql_expr *const *operand, const weir_sql_expr *const *item, uint32_t n, bool not_in,
                   weir_sql_loc loc, rel *out);
/*
 * A LEFT join of left with right (a scalar subquery's rows): on the
 * condition on (over both; NULL: on no key, the one row of an uncorrelated
 * subquery). out: left's columns, then right's.
 */
int plan_scalar_join(plan_ctx *pc, const rel *left, const rel *right, const weir_sql_expr *on, weir_sql_loc loc,
                     rel *out);
/*
 * An inner join of left (the outer query's correlated values) with right
 * (a subquery's FROM) on on, whose names resolve among right's columns
 * first, as in the subquery's WHERE. out: left's columns, then right's, in
 * the same scopes.
 */
int plan_scoped_join(plan_ctx *pc, const rel *left, const rel *right, const weir_sql_expr *on, weir_sql_loc loc,
                     rel *out);
/* plan_scoped_join, or (left_join) the LEFT join of the same (a LEFT JOIN LATERAL's, lateral.c). */
int plan_scoped_join_kind(plan_ctx *pc, bool left_join, const rel *left, const rel *right, const weir_sql_expr *on,
                          weir_sql_loc loc, rel *out);
/*
 * lateral.c: join ref whose right side is a LATERAL derived table, its left
 * input planned (*left). One that reads left's columns is decorrelated into
 * a join of its own (*out, *done); one that does not is an ordinary
 * subquery: *from_ref is then its FROM, planned (*from), for plan_join.
 */
int plan_lateral_join(plan_ctx *pc, const weir_sql_table_ref *ref, rel *left, rel *out,
                      bool *done, const weir_sql_table_ref **from_ref, rel *from);
/*
 * subquery.c: the aggregates of LATERAL derived table q (one row per row of
 * *in: aggregates, no GROUP BY) over its FROM (planned: from), correlated
 * with *in as a scalar subquery is, LEFT-joined to *in (replaced); items[i]
 * is its i-th SELECT item over the joined rows.
 */
int plan_lateral_aggregates(plan_ctx *pc, rel *in, const weir_sql_query *q, const rel *from, weir_expr **items);
/*
 * subquery.c: LATERAL derived table q with GROUP BY, HAVING or DISTINCT,
 * correlated by equalities: its rows per correlation key, joined (LEFT:
 * left_join) to *in (replaced); items[i] is its i-th SELECT item.
 */
int plan_lateral_grouped(plan_ctx *pc, rel *in, const weir_sql_query *q, const rel *from, bool left_join,
                         weir_expr **items);
/*
 * subquery.c: the rows of *j (a LATERAL derived table's rows joined to the
 * rows before it) for which cond, conditions of its WHERE with subqueries
 * (of sel), holds: IN / EXISTS as semi and anti joins, the rest a filter.
 * plan_and: l AND r (l NULL: r), or NULL out of memory.
 */
int plan_lateral_filter(plan_ctx *pc, rel *j, const weir_sql_select *sel, const weir_sql_expr *cond);
/* rc, its message (a name not found) telling a name of the rows in two subquery levels up, or (sub: the
 * subquery planned, or NULL) the form of sub that cannot read them. */
int plan_two_levels(plan_ctx *pc, const rel *in, const weir_sql_query *sub, int rc);
/* Whether the subqueries in sel's WHERE read the rows in (sel's outer query) from inside them. */
bool plan_reads_two_levels(plan_ctx *pc, const rel *in, const weir_sql_select *sel);
const weir_sql_expr *plan_and(plan_ctx *pc, const weir_sql_expr *l, const weir_sql_expr *r);
/*
 * scope.c: the column names of a FROM item told from its SQL and the catalog, without planning it
 * (unknown: it has a table function, UNNEST, MATCH_RECOGNIZE, VALUES or WITH, whose names are not
 * told so). plan_outer_name: e is an unqualified column that the rows outer have.
 */
typedef struct plan_colnames {
    const char **v;
    uint32_t n, cap;
    bool unknown;
} plan_colnames;
int plan_from_colnames(plan_ctx *pc, const weir_sql_table_ref *t, plan_colnames *o);
bool plan_colnames_has(const plan_colnames *o, const char *name);
bool plan_outer_name(const plan_ctx *pc, const rel *outer, const weir_sql_expr *e);
/*
 * The columns of left then right as one rel for binding names (no stream):
 * a padded side's columns nullable; scoped: right's columns shadow left's
 * (a subquery's over its enclosing query's).
 */
int plan_pair_rel(plan_ctx *pc, const rel *left, const rel *right, bool pad_left, bool pad_right, bool scoped,
                  rel *out);
/* Which columns of j (n_left of them first) e reads: PLAN_SIDE_* bits. */
enum { PLAN_SIDE_LEFT = 1, PLAN_SIDE_RIGHT = 2, PLAN_SIDE_OTHER = 4 };
int plan_side_mask(const rel *j, uint32_t n_left, const weir_sql_expr *e);
/*
 * subquery.c: the scalar subqueries of a SELECT's list and WHERE joined to
 * *in as hidden columns that plan_bind_expr reads for them: an
 * uncorrelated one (`(SELECT MAX(x) FROM t)`) a global aggregation
 * ($scalarN), a correlated one (`... WHERE t.k = o.k`) its aggregates
 * grouped by the correlation key ($scalarNkI, $scalarNaI), LEFT-joined on it.
 */
int plan_scalar_subqueries(plan_ctx *pc, rel *in, const weir_sql_select *sel, const weir_sql_expr *where,
                           bool aggregating);
/* True for a hidden column a scalar subquery added (not part of SELECT *). */
bool plan_is_scalar_column(const char *name);
/* The value of scalar subquery e over r's rows (the columns joined for it); 1 when r has none. */
int plan_bind_scalar(plan_ctx *pc, const rel *r, const weir_sql_expr *e, weir_expr **out);
/* The value of IN / EXISTS test e (its subqueries joined to r's rows); 1 when it was not planned as one. */
int plan_bind_test(plan_ctx *pc, const rel *r, agg_scope *as, const weir_sql_expr *e, weir_expr **out);
/* The scalar subqueries and IN / EXISTS tests of an aggregating SELECT's list and HAVING, joined to its
 * aggregation's rows *agg (uncorrelated with them). */
int plan_scalar_subqueries_agg(plan_ctx *pc, rel *agg, const weir_sql_select *sel, const rel *in,
                               const struct agg_scope *as);
/* The run-time error of SINGLE_VALUE call (a scalar subquery's, named by its place, or one the query wrote). */
const char *plan_single_value_error(plan_ctx *pc, const weir_sql_expr *call);
/* subquery.c: a LEFT (inner_right) or RIGHT join ref's ON conjuncts with subqueries that read only the side the
 * join does not preserve, planned as filters of that side (*left or *right: semi and anti joins, joined values);
 * *out is ref with the other conjuncts (ref itself when none moved). */
int plan_outer_on_subqueries(plan_ctx *pc, const weir_sql_table_ref *ref, rel *left, rel *right, bool inner_right,
                             const weir_sql_table_ref **out);
/* subquery.c: sel with the subquery conjuncts of its FROM's inner join's ON moved to its WHERE (*copy, *moved),
 * as they filter the same pairs there. */
int plan_on_subqueries(plan_ctx *pc, const weir_sql_select *sel, weir_sql_select *copy, bool *moved);
/* subquery.c: the IN / EXISTS conjuncts of a WHERE as semi and anti joins of *in; *rest: the other conjuncts. */
int plan_where_subqueries(plan_ctx *pc, rel *in, const weir_sql_expr *where, const weir_sql_expr **rest);

/*
 * upsert.c: upsert keys of rels, and the upsert materializer before a sink.
 * plan_ukey_set: r (on its stream's node now) has upsert key cols[0, n)
 * (n 0: one row at a time, as a global aggregation's), besides any it had
 * on the same node. plan_ukey_valid: whether r's upsert keys hold (its
 * stream still their node). plan_ukey_calc: out, a Calc over in whose
 * column i is exprs[i] (NULL: a filter, every column kept), gets the keys
 * of in whose columns all survive as plain column references; across an
 * exchange (in's stream keyed by columns H) only keys that contain H.
 */
void plan_ukey_set(rel *r, const uint32_t *cols, uint32_t n);
bool plan_ukey_valid(const rel *r);
void plan_ukey_calc(const rel *in, weir_expr *const *exprs, uint32_t n, rel *out);
/*
 * plan_ukey_join: out, a regular join of l and r (out's columns: l's
 * n_physical, then r's), its inputs hashed by hash[0] and hash[1]
 * (one_subtask: a join without a key), gets the keys of the inputs that
 * survive the exchange: a side's keys when the other side's join key holds
 * a key of it (a row meets at most one row there) and that other side pads
 * no NULLs for it (pads_left: a RIGHT or FULL join, pads_right: LEFT or
 * FULL), and a key of each side together (semi: a SEMI or ANTI join, the
 * left's keys).
 * plan_ukey_rank: out, a Top-N or deduplication of in by partition (none:
 * one subtask), gets the partition for ROW_NUMBER() <= 1 (top1); otherwise
 * partition + the rank number (column rank_col, -1: not output) for
 * ROW_NUMBER(), and the keys of in that survive the exchange - only when
 * rows never move between output positions (no rank number output, ranks
 * from 1: from_first): otherwise a row that climbs is inserted at its new
 * place before it is retracted from its old one, and a key of the input
 * would delete the row it just inserted.
 */
void plan_ukey_join(const rel *l, const rel *r, const weir_keyspec hash[2], bool one_subtask, bool semi,
                    bool pads_left, bool pads_right, rel *out);
void plan_ukey_rank(const rel *in, const weir_keyspec *partition, bool row_number, bool top1, int32_t rank_col,
                    bool from_first, rel *out);
/*
 * The upsert materializer (table.exec.sink.upsert-materialize) in front of
 * sink spec of table t, whose PRIMARY KEY is columns pk[0, n_pk) of w: when
 * the option asks for it, a keyed operator on w's stream (keyed by the PRIMARY
 * KEY, parallelism par) replaces *s; otherwise *s is left as it is.
 */
int plan_sink_materialize(plan_ctx *pc, const cat_table *t, const rel *w, const weir_operator_spec *spec,
                          const uint32_t *pk, uint32_t n_pk, uint32_t par, weir_sql_loc loc, weir_stream *s);

/* planner.c: adds a sink writing r into table t (casting to its columns). */
int plan_sink_table(plan_ctx *pc, cat_table *t, rel *r, weir_sql_loc loc);

/*
 * wtop1.c: a rewrite pass. When JOIN ref (its left side planned as left)
 * keeps the rows of a window aggregation that reach their window's MAX of
 * the same aggregation (Nexmark q5's shape), plans it as a window Top-1
 * with ties into *out and sets *done; otherwise changes nothing.
 * where_empty: no WHERE conjunct is offered to the join.
 */
int plan_window_top1_join(plan_ctx *pc, const weir_sql_table_ref *ref, bool where_empty, const rel *left, rel *out,
                          bool *done);
/*
 * wtop1.c: the stream a window Top-N of rank 1 (rk) over r reads: r's, or,
 * when r is a window aggregation's output partitioned by its bounds alone
 * and ordered by one integer column, r's rows filtered batch by batch down
 * to those at their window's top (a stateless operator chained to r).
 */
struct weir_rank_config;
int plan_window_top1_prefilter(plan_ctx *pc, const rel *r, const struct weir_rank_config *rk, weir_sql_loc loc,
                               weir_stream *s);

/*
 * top1_skip.c: links the Top-1 rk over r to the regular join that feeds it
 * through Calcs, when the join may skip the rows rk would drop
 * (ops/top1_hint.h; 'weir.join.top1-skip'): sets rk->top1_link (one
 * reference, the caller's to drop after weir_rank_spec) and the join's
 * node and the side whose rows it skips; *join_node -1 where it does not apply.
 */
int plan_top1_skip(plan_ctx *pc, const rel *r, struct weir_rank_config *rk, weir_sql_loc loc, int *join_node,
                   int *side);

/* ops in this folder */
int weir__calc_spec(weir_expr_arena *arena, weir_expr *filter, weir_expr *const *exprs, uint32_t n, int32_t ts_col,
                    const weir_schema *out_schema, weir_clock clock, weir_operator_spec *out);
/*
 * Wraps a source so that it produces `full` from the rows of `inner`:
 * exprs[i] (bound over inner's schema) computes column i of full. Computed
 * columns are evaluated inside the source task, before event time is read,
 * so a computed rowtime works with per-split watermarks.
 */
int weir__computed_source_spec(const weir_source_spec *inner, const weir_schema *full, weir_expr *const *exprs,
                               weir_source_spec *out);

/*
 * query.c: plan_union_schema: the schema of a union of rels, the first
 * one's with a column nullable where any input's is (kept by the plan);
 * plan_union_align: a projection that makes r's rows carry want when they
 * do not (a union's inputs must all emit its schema).
 */
weir_schema *plan_union_schema(plan_ctx *pc, const rel *rels, uint32_t n);
int plan_union_align(plan_ctx *pc, rel *r, weir_schema *want);
/* The stream a union at the default parallelism reads from r: r's own, or
 * an updating r of other parallelism sent whole to the union's subtask 0,
 * so that a key's changes keep their order. */
weir_stream plan_union_input(const plan_ctx *pc, const rel *r);

/*
 * Two-phase aggregation (twophase.c). plan_agg_phases: whether an
 * aggregation over `in` with these aggregates runs in two phases by
 * table.optimizer.agg-phase-strategy (an error at the option for a bad
 * value); the caller has checked what else the split needs.
 * plan_local_agg: the local phase over `in` (whose first n_keys columns
 * are the keys) on `out`, and in global[i] the global phase of aggs[i].
 * plan_window_slices: the slices the local phase of a window aggregation
 * folds by.
 */
int plan_agg_phases(plan_ctx *pc, weir_stream in, const weir_agg *aggs, uint32_t n, weir_sql_loc loc, bool *two);
int plan_local_agg(plan_ctx *pc, weir_stream in, const weir_schema *in_schema, uint32_t n_keys, const weir_agg *aggs,
                   const int32_t *filters, uint32_t n, int64_t slice_ms, int64_t slice_offset_ms, weir_sql_loc loc,
                   weir_stream *out, const weir_schema **out_schema, weir_agg *global);
void plan_window_slices(const weir_window_assigner *a, int64_t *slice_ms, int64_t *offset_ms);

/*
 * Split distinct aggregation (splitdistinct.c),
 * table.optimizer.distinct-agg.split.enabled. plan_split_distinct_buckets:
 * the number of buckets when a GROUP BY over columns `in` with these
 * aggregates is split, else 0 (an error at the option for a bad value).
 * plan_split_distinct: the partial aggregation over pr (whose first n_keys
 * columns are the keys) on `out`, grouped by the keys and the bucket;
 * `like` gives its options (TTL, mini-batch, cache). final[0, *n_final)
 * are the aggregates of the partial results (final has room for 2 n): one
 * per aggregate, giving aggs[i], but two for an AVG (the sum and the count);
 * the partial schema's first n_keys columns are the keys. With an AVG
 * (*n_final > n), the final aggregation's output is
 * plan_split_distinct_final_schema (os's keys, then one column per final
 * aggregate) and plan_split_distinct_avg turns it into os's columns (the
 * averages divided as AVG does). A window aggregation is
 * split only with one distinct column (window operators take no FILTER
 * column to expand by).
 */
struct weir_group_agg_config;
int plan_split_distinct_buckets(plan_ctx *pc, const weir_schema *in, uint32_t n_keys, const weir_agg *aggs,
                                uint32_t n, bool window, weir_sql_loc loc, uint32_t *buckets);
int plan_split_distinct(plan_ctx *pc, const rel *pr, uint32_t n_keys, const weir_agg *aggs, const int32_t *filters,
                        uint32_t n, uint32_t buckets, const struct weir_group_agg_config *like, weir_sql_loc loc,
                        weir_stream *out, const weir_schema **out_schema, weir_agg *final, uint32_t *n_final);
int plan_split_distinct_final_schema(plan_ctx *pc, const weir_schema *os, uint32_t n_keys, const weir_agg *final,
                                     uint32_t n_final, weir_schema **out);
int plan_split_distinct_avg(plan_ctx *pc, rel *fin, uint32_t n_keys, const weir_agg *aggs, uint32_t n,
                            const weir_schema *os, rel *out);
/*
 * The window aggregation ws over pr split: a partial window aggregation
 * (node *partial_node) keyed by the keys and the bucket, and a final one
 * over its windows; *out has the columns of ws's output over pr.
 */
struct weir_window_spec;
int plan_split_distinct_window(plan_ctx *pc, const rel *pr, uint32_t n_keys, const struct weir_window_spec *ws,
                               uint32_t buckets, weir_sql_loc loc, int *partial_node, weir_stream *out,
                               const weir_schema **out_schema);

#endif
