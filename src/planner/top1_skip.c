/*
 * planner/top1_skip.c - links a continuous Top-1 to the regular join that
 * feeds it, so that the join skips the rows the Top-1 would drop at once
 * (ops/top1_hint.h; Nexmark q9: the bids below an auction's best bid).
 *
 * It applies when the Top-1 (ROW_NUMBER, ranks [1, 1], append-only input,
 * not windowed, no state TTL, at least one ORDER BY column) reads, through
 * Calcs of plain column references only, an inner join of insert-only
 * inputs without TTL, partitions by exactly the join key (the key columns
 * in their order, of the side whose key the join's rows are placed by:
 * the keyed exchange to the Top-1 is then chained) and orders by
 * columns of one join input, whose rows the join keeps in a row log and
 * does not bound. Whether the two then share a hint is the runtime's
 * chaining: only in one subtask (no exchange between them) does the join
 * see what the Top-1 keeps; otherwise it skips nothing. A job run by
 * several processes (weir.cluster.bootstrap-servers set) makes every keyed
 * exchange a repartition topic (cluster/cluster.h), the one into the
 * Top-1 too: the two never share a subtask, so no link is made there (the
 * join stores every row, and EXPLAIN, its fingerprint and the Top-1's
 * memory say so). 'weir.join.top1-skip' = 'false' turns it off.
 */
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"
#include "ops/top1_hint.h"
#include "planner/query_internal.h"
#include "runtime/runtime.h"

#define OPTION "weir.join.top1-skip"
#define CLUSTER_OPTION "weir.cluster.bootstrap-servers" /* set and not empty: a cluster job (cluster.h) */

static bool same_type(weir_type a, weir_type b)
{
    return a.id == b.id && a.precision == b.precision && a.scale == b.scale;
}

/*
 * The join node whose output column cols[i] of node `node` carries, each
 * of the n (through the Calcs between, which must pass them unchanged:
 * cols are rewritten to the join's output columns), or -1.
 */
static int join_upstream(const weir_job *job, int node, uint32_t *cols, uint32_t n)
{
    for (;;) {
        const weir__node *nd = weir__job_node(job, node);
        if (!nd || nd->kind != WEIR__NODE_OPERATOR || !nd->out_schema)
            return -1;
        if (weir__join_config_of(&nd->op))
            return node;
        if (!nd->passes || nd->n_in != 1)
            return -1; /* not a Calc */
        const weir__edge *e = &job->edges[nd->in_edges[0]];
        const weir__node *up = weir__job_node(job, e->from);
        if (e->side_tag || e->req_part != WEIR_PART_FORWARD || !up || !up->out_schema)
            return -1;
        for (uint32_t i = 0; i < n; i++) {
            int32_t c = nd->passes[cols[i]];
            if (c < 0 || (uint32_t)c >= up->out_schema->n_fields ||
                !same_type(up->out_schema->fields[c].type, nd->out_schema->fields[cols[i]].type))
                return -1;
            cols[i] = (uint32_t)c;
        }
        node = e->from;
    }
}

/*
 * The join's fingerprint says that its state lacks the rows of side l->side below the Top-1's
 * kept row ("top1 skip: right $2 DESC, $3 ASC NULLS LAST", runtime/checkpoint.h): a checkpoint
 * of it restores only into a job whose join skips for the same order.
 */
static int describe_skip(weir_job *job, int jn, const weir__top1_link *l)
{
    char v[32 + WEIR_KEY_MAX_COLS * 32];
    size_t n = (size_t)snprintf(v, sizeof v, "%s", l->side ? "right" : "left");
    for (uint32_t i = 0; i < l->n_order && n < sizeof v; i++)
        n += (size_t)snprintf(v + n, sizeof v - n, "%s $%u %s%s", i ? "," : "", l->cols[i], l->desc[i] ? "DESC" : "ASC",
                              l->nulls_last[i] ? " NULLS LAST" : "");
    return weir_job_describe_state(job, (weir_stream){.node = jn}, WEIR__TOP1_SKIP_FIELD, v);
}

int plan_top1_skip(plan_ctx *pc, const rel *r, weir_rank_config *rk, weir_sql_loc loc, int *join_node, int *side)
{
    *join_node = -1;
    const char *opt = plan_config(pc, OPTION);
    bool on = true;
    if (opt && weir_option_parse_bool(opt, &on))
        return plan_error(pc, plan_config_at(pc, OPTION, loc), WEIR_EINVAL, OPTION ": expected true or false, not '%s'",
                          opt);
    if (!on || rk->retract || rk->window_end_col >= 0 || rk->rank_fn != WEIR_RANK_ROW_NUMBER || rk->rank_start != 1 ||
        rk->rank_end != 1 || rk->state_ttl_ms || !rk->n_order || !rk->partition.n)
        return 0;
    /* in a cluster job the exchange into the Top-1 is a repartition topic, never chained */
    const char *cluster = plan_config(pc, CLUSTER_OPTION);
    if (cluster && *cluster)
        return 0;
    uint32_t np = rk->partition.n, cols[2 * WEIR_KEY_MAX_COLS];
    memcpy(cols, rk->partition.cols, np * sizeof *cols);
    memcpy(cols + np, rk->order_cols, rk->n_order * sizeof *cols);
    int jn = join_upstream(pc->job, r->s.node, cols, np + rk->n_order);
    if (jn < 0)
        return 0;
    const weir__node *nd = weir__job_node(pc->job, jn);
    const weir_join_config *c = weir__join_config_of(&nd->op);
    const weir_schema *os = nd->out_schema;
    const weir_schema *is[2] = {weir__edge_schema(pc->job, &pc->job->edges[nd->in_edges[0]]),
                                weir__edge_schema(pc->job, &pc->job->edges[nd->in_edges[1]])};
    if (c->keys[0].n != np || !is[0] || !is[1])
        return 0;
    /* PARTITION BY the join key, as the output columns by which the join's rows are already on
     * their key's subtask (its out_part: the keyed exchange before the Top-1 is then chained) */
    if (nd->out_part.n != np)
        return 0;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t k0 = c->keys[0].cols[i], k1 = c->keys[1].cols[i];
        if (cols[i] != nd->out_part.cols[i] || c->null_safe[i] ||
            !same_type(is[1]->fields[k1].type, os->fields[cols[i]].type) ||
            !same_type(is[0]->fields[k0].type, os->fields[cols[i]].type))
            return 0;
    }
    /* ORDER BY columns of one side, of its input's types */
    int s = cols[np] < c->n_out[0] ? 0 : 1;
    uint32_t off = s ? c->n_out[0] : 0;
    if (!weir__join_top1_fits(c, s))
        return 0;
    weir__top1_link *l = weir__top1_link_new();
    if (!l)
        return WEIR_ENOMEM;
    l->side = s;
    l->n_order = rk->n_order;
    for (uint32_t i = 0; i < rk->n_order; i++) {
        uint32_t oc = cols[np + i];
        if (oc < off || oc - off >= c->n_out[s] || !same_type(is[s]->fields[oc - off].type, os->fields[oc].type)) {
            weir__top1_link_unref(l);
            return 0;
        }
        l->cols[i] = oc - off;
        l->desc[i] = rk->order_desc[i];
        l->nulls_last[i] = rk->nulls_last[i];
    }
    int rc = weir__join_set_top1(&weir__job_node(pc->job, jn)->op, l);
    if (rc == WEIR_EINVAL) {
        weir__top1_link_unref(l);
        return 0;
    }
    if (!rc)
        rc = describe_skip(pc->job, jn, l); /* failing, the job is not planned at all */
    if (!rc) {
        rk->top1_link = l; /* the rank's spec takes its own reference: the caller drops this one */
        *join_node = jn;
        *side = s;
    } else {
        weir__top1_link_unref(l);
    }
    return rc;
}
