/*
 * expr/cond_order.c - the order in which AND and OR test their operands.
 *
 * AND and OR evaluate their operands left to right, each only for the rows
 * the ones before left open (eval.c), so that an operand that could fail
 * for a row never runs where an earlier one decided it - as Flink, which
 * evaluates row by row. When no operand can fail and none is volatile or
 * reads the session, the order cannot change the result (three-valued AND
 * and OR are commutative) and only decides the cost: the cheap operands go
 * first, so that an expensive one (a regular expression) runs only for the
 * rows they leave open. Nexmark q21's `REGEXP_EXTRACT(url, ..) IS NOT NULL
 * OR LOWER(channel) IN (..)` then matches the expression only for the rows
 * of the channels not listed.
 *
 * "Cannot fail" is a list of what is known: column references, literals,
 * comparisons, IS [NOT] NULL/TRUE/FALSE, NOT, IN, LOWER/UPPER, the
 * conditionals over such operands, and REGEXP / REGEXP_EXTRACT with a
 * literal pattern (their only errors are running out of memory or the
 * matcher's own resource limits, which no evaluation order makes part of a
 * result). Everything else (casts, arithmetic, UDFs, ...) keeps its place.
 */
#include <string.h>

#include "expr/expr_internal.h"

static bool name_is(const weir_expr *e, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(e->name, *names))
            return true;
    return false;
}

static bool cannot_fail(const weir_expr *e)
{
    static const char *const safe[] = {"=",       "<>",          "!=",     "<",           ">",
                                       "<=",      ">=",          "NOT",    "IS NULL",     "IS NOT NULL",
                                       "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IN",
                                       "NOT IN",  "LOWER",       "UPPER",  "IS DISTINCT FROM",
                                       "IS NOT DISTINCT FROM",   NULL};
    static const char *const regex[] = {"REGEXP", "REGEXP_EXTRACT", NULL};
    switch (e->kind) {
    case N_COLUMN:
    case N_LITERAL: return true;
    case N_CALL:
        if (!e->name)
            return false;
        if (name_is(e, regex)) {
            if (e->n_args < 2 || e->args[1]->kind != N_LITERAL || !cannot_fail(e->args[0]))
                return false;
            return e->n_args < 3 || e->args[2]->kind == N_LITERAL;
        }
        if (!name_is(e, safe))
            return false;
        break;
    case N_AND:
    case N_OR:
    case N_CASE:
    case N_COALESCE:
    case N_IF:
    case N_SHARED: break;
    default: return false;
    }
    for (uint32_t i = 0; i < e->n_args; i++)
        if (!cannot_fail(e->args[i]))
            return false;
    return true;
}

/* A rough cost of evaluating e per row: nodes, a regular expression as many. */
static uint32_t cost(const weir_expr *e)
{
    static const char *const dear[] = {"REGEXP", "REGEXP_EXTRACT", NULL};
    uint32_t c = e->kind == N_COLUMN || e->kind == N_LITERAL ? 0 : 1;
    if (e->kind == N_CALL && e->name && name_is(e, dear))
        c += 64;
    for (uint32_t i = 0; i < e->n_args && c < 1u << 20; i++)
        c += cost(e->args[i]);
    return c;
}

/* Orders the operands of the AND/OR nodes at and under e (see above). */
static int order(weir_expr_arena *a, weir_expr *e)
{
    for (uint32_t i = 0; i < e->n_args; i++) {
        int rc = order(a, e->args[i]);
        if (rc)
            return rc;
    }
    if ((e->kind != N_AND && e->kind != N_OR) || e->aux || e->n_args < 2 || weir__has_volatile_or_session(e) ||
        !cannot_fail(e))
        return 0;
    uint32_t n = e->n_args, c[64];
    if (n > 64)
        return 0;
    bool sorted = true;
    for (uint32_t i = 0; i < n; i++) {
        c[i] = cost(e->args[i]);
        sorted &= i == 0 || c[i - 1] <= c[i];
    }
    if (sorted)
        return 0;
    xcond_order *o = weir__arena_alloc(a, sizeof *o + n * sizeof o->idx[0]);
    if (!o)
        return WEIR_ENOMEM;
    o->n = n;
    for (uint32_t i = 0; i < n; i++) {
        /* insertion sort by cost, stable */
        uint32_t j = i;
        while (j > 0 && c[o->idx[j - 1]] > c[i]) {
            o->idx[j] = o->idx[j - 1];
            j--;
        }
        o->idx[j] = i;
    }
    e->aux = o;
    return 0;
}

int weir__order_conditions(weir_expr_arena *a, weir_expr **roots, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        int rc = roots[i] ? order(a, roots[i]) : 0;
        if (rc)
            return rc;
    }
    return 0;
}
