/*
 * planner/reuse.c - sub-plan reuse: one operator for equal sub-plans.
 *
 * As in Flink (table.optimizer.reuse-sub-plan-enabled and
 * table.optimizer.reuse-source-enabled, both on by default, the second
 * effective only with the first), a job that computes the same thing twice
 * - Nexmark q5's two identical HOP aggregations, a view read twice, two
 * INSERTs from one table - plans it once and fans its output out. The
 * digest of an operator names its input by node, so equality is decided
 * bottom-up: two sources of one table with the same columns are one node,
 * then equal calcs over that node are one node, then equal aggregations.
 */
#include <string.h>
#include <strings.h>

#include "planner/planner.h"
#include "weir/buf.h"
#include "weir/connector.h"

int plan_reuse_stream(weir_buf *b, weir_stream s)
{
    int rc = weir_buf_printf(b, "n%d/%d/p%d/k", s.node, s.side_tag, (int)s.part);
    for (uint32_t i = 0; !rc && s.part == WEIR_PART_KEYED && i < s.key.n; i++)
        rc = weir_buf_printf(b, "%s%u", i ? "," : "", s.key.cols[i]);
    return rc;
}

static bool option_on(const plan_ctx *pc, const char *key)
{
    const char *v = plan_config(pc, key);
    bool on = true;
    if (v && weir_option_parse_bool(v, &on))
        return true; /* checked where the job is configured */
    return on;
}

static bool enabled(const plan_ctx *pc, plan_reuse_kind kind)
{
    if (!option_on(pc, "table.optimizer.reuse-sub-plan-enabled"))
        return false;
    return kind != PLAN_REUSE_SOURCE || option_on(pc, "table.optimizer.reuse-source-enabled");
}

const rel *plan_reuse_find(plan_ctx *pc, plan_reuse_kind kind, const weir_buf *digest)
{
    if (!digest->len || !enabled(pc, kind))
        return NULL;
    for (size_t i = 0; i < pc->n_reuse; i++)
        if (strlen(pc->reuse[i].digest) == digest->len && !memcmp(pc->reuse[i].digest, digest->data, digest->len))
            return &pc->reuse[i].r;
    return NULL;
}

int plan_reuse_add(plan_ctx *pc, plan_reuse_kind kind, const weir_buf *digest, const rel *r)
{
    if (!digest->len || !enabled(pc, kind))
        return 0;
    plan_reuse_entry *n = weir_realloc(pc->reuse, (pc->n_reuse + 1) * sizeof *n);
    if (!n)
        return WEIR_ENOMEM;
    pc->reuse = n;
    char *d = weir_malloc(digest->len + 1);
    if (!d)
        return WEIR_ENOMEM;
    memcpy(d, digest->data, digest->len);
    d[digest->len] = 0;
    pc->reuse[pc->n_reuse].digest = d;
    pc->reuse[pc->n_reuse].r = *r;
    pc->n_reuse++;
    return 0;
}

void plan_reuse_free(plan_ctx *pc)
{
    for (size_t i = 0; i < pc->n_reuse; i++)
        weir_free(pc->reuse[i].digest);
    weir_free(pc->reuse);
    pc->reuse = NULL;
    pc->n_reuse = 0;
}
