/*
 * planner/query_internal.h - aggregation scopes shared by the query planner
 * and the expression binder.
 *
 * An aggregating SELECT is planned in three steps: a pre-projection that
 * computes the grouping keys and the aggregate arguments, the aggregation
 * (a window operator or an updating group aggregation, keyed by the keys),
 * and a post-projection for the SELECT list and HAVING over the
 * aggregation's output. The scope collects the aggregate calls (phase
 * COLLECT) and then maps expressions onto the aggregation output (BIND).
 */
#ifndef WEIR_PLANNER_QUERY_INTERNAL_H
#define WEIR_PLANNER_QUERY_INTERNAL_H

#include "planner/planner.h"

/* AGG_OVER: binding a SELECT list over an OVER aggregation (planner/over.c):
 * columns are the input's, OVER calls are the aggregation's columns. */
typedef enum agg_phase { AGG_COLLECT, AGG_BIND, AGG_OVER } agg_phase;

/* The weir name of F(DISTINCT x) for a call named fn (upper case) into
 * out; an error naming fn when weir cannot compute it (planner/query.c). */
int plan_agg_distinct_name(plan_ctx *pc, const weir_sql_expr *call, char *fn, size_t fn_size);

/* The text of the LAG_PRESENT call beside LAG(x, n, default): LAG's text and this. */
#define LAG_PRESENT_SUFFIX " #present"

typedef struct agg_call {
    const weir_sql_expr *call;
    char *text;          /* canonical SQL, to share equal calls */
    char fn[32];         /* weir aggregate name (COUNT_DISTINCT for COUNT(DISTINCT x)) */
    double param;
    const char *sep;     /* LISTAGG's separator (plan arena), NULL for ',' */
    const char *label;   /* SINGLE_VALUE's run-time error (plan arena) */
    const double *params; /* PERCENTILE's ARRAY of percentages (plan arena), n_params of them */
    uint32_t n_params;
    int32_t pre_col;     /* argument column in the pre-projection, -1 for COUNT(*) */
    int32_t filter_col;  /* FILTER (WHERE ...) column in the pre-projection, -1 for none */
    uint32_t out_col;    /* result column in the aggregation output */
} agg_call;

struct agg_scope {
    agg_phase phase;
    const rel *in;       /* the aggregation's input, for resolving names */
    uint32_t n_keys;
    const weir_sql_expr **keys;
    char **key_text;
    int32_t *key_in_col; /* column of `in` for a plain column key, else -1 */
    bool windowed;
    int32_t ws_in, we_in, wt_in;   /* window columns of a window TVF input, or -1 */
    uint32_t ws_out, we_out, wt_out;
    /*
     * A cascaded window aggregation: GROUP BY both window bounds of an
     * input with window properties. Its window_start is an ordinary key
     * (key cascade_ws_key); the input's window_end is the window.
     */
    bool cascade;
    uint32_t cascade_ws_key;
    agg_call *calls;
    uint32_t n_calls;
    const rel *out;      /* the aggregation's output (BIND) */
    /*
     * GROUPING SETS / ROLLUP / CUBE: the SELECT is planned once per set
     * (each a plain GROUP BY) and the results are united. gs_expr lists
     * every expression of any set (gs_text its SQL); gs_in says whether it
     * is grouped in this set: one that is not reads as a NULL of its type,
     * and GROUPING() / GROUPING_ID() are constants. n_gs == 0 without
     * grouping sets (GROUPING() of a key is then 0).
     */
    const weir_sql_expr **gs_expr;
    char **gs_text;
    bool *gs_in;
    int64_t gs_group_id; /* GROUP_ID(): the number of earlier sets equal to this one */
    uint32_t n_gs;
    bool gs_force;       /* aggregate even when this set is () and no aggregate is called */
    /*
     * The aggregation's rows are LEFT-joined to another query's (a
     * correlated scalar subquery, subquery.c): a key without rows reads
     * NULL, which a COUNT reads as 0.
     */
    bool outer_joined;
    /*
     * A LATERAL derived table's aggregates LEFT-joined to the rows before it
     * (lateral.c, in == out): columns [0, n_outer) are those rows' own, read
     * as they are by a name that does not resolve in inner (the derived
     * table's FROM, whose names come first).
     */
    uint32_t n_outer;
    const rel *inner;
};

bool plan_is_agg_name(const char *name);
/* The aggregate functions' names, NULL-terminated. */
const char *const *plan_agg_names(void);
/* TUMBLE_START, HOP_END, SESSION_ROWTIME, ... */
bool plan_is_window_prop(const char *name);
/* BIND: 0 and *out when e is a grouping key; 1 when not; < 0 on error. */
int agg_scope_match_key(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, weir_expr **out);
/* BIND: a column that is not a grouping key (an error). */
int agg_scope_column(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, weir_expr **out);
/* BIND: an aggregate call or window property. */
int agg_scope_ref(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, weir_expr **out);

/* BIND: GROUPING(e, ...) / GROUPING_ID(e, ...) of this scope's grouping set, a BIGINT constant. */
int agg_scope_grouping(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, weir_expr **out);

/* Checks the arguments of aggregate call c (sets c->param); *has_arg: args[0] is its value. */
int plan_agg_call_args(plan_ctx *pc, agg_call *c, bool *has_arg);
/* The distinct rows of r (UNION without ALL), replacing r. */
int plan_distinct(plan_ctx *pc, rel *r, weir_sql_loc loc);
/* VALUES (...), (...): a bounded table of constant rows (planner/values.c). */
int plan_values(plan_ctx *pc, const weir_sql_query *q, rel *out);
/* Whether a SELECT item calls an aggregate with OVER. */
bool plan_select_has_over(const weir_sql_select *sel);
/* Whether e calls an aggregate function (or a window property) outside an OVER. */
bool plan_has_agg(const weir_sql_expr *e);
/*
 * Plans the OVER aggregation of sel's SELECT list over in; out has in's
 * columns followed by the aggregates; as is left in phase AGG_OVER for
 * binding the SELECT list over out.
 */
int plan_over(plan_ctx *pc, const weir_sql_select *sel, rel *in, agg_scope *as, rel *out);

#endif
