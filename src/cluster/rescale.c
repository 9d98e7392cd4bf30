/*
 * cluster/rescale.c - the restore source of one process of a job run by
 * several, over the parts of the processes that took the checkpoint
 * (control.h, weir__cluster_layout).
 *
 * Every process runs the whole graph, so each part holds state of every
 * operator: a keyed operator's state of the key groups its process owned,
 * every other operator's state of that process's subtasks, and the
 * positions of that process's source splits. Restoring over another number
 * of processes deals all of it out again by the rules that deal out the
 * work (cluster.h):
 *
 *   - key group kg of a keyed operator of parallelism p (per process)
 *     belongs to the process that reads partition
 *     r = weir_key_group_owner(kg, M, R), process (r mod (N * p)) / p.
 *     Its state comes from the part of its owner under the old count, and
 *     only the owner under the new count
 *     restores it (every process's subtask covers the key-group range of
 *     its index, most of which other processes own: their timers must not
 *     fire here too);
 *   - operator (non-keyed) state belongs to subtask g = process * p + s of
 *     the job's N * p; the runtime asks for it by that index
 *     (weir__job_cluster_subtask), with op_parallelism the old N * p, so
 *     after a scale-down the new subtask g also restores old g + N'p, ...;
 *   - a source split is found by its id in whichever part holds it (split
 *     ids do not depend on the number of processes).
 *
 * Keyed state of an operator whose input is not keyed (its subtasks cover
 * every key group) cannot be split by this rule: a rescale that finds such
 * state is refused, naming the operator.
 */
#ifdef WEIR_HAVE_KAFKA

#include <stdio.h>
#include <string.h>

#include "cluster/control.h"
#include "cluster/exchange.h"
#include "runtime/runtime.h"
#include "state/backend.h"

struct weir__cluster_restore {
    weir_job *job;
    weir__cluster_layout l;
    uint32_t max_par;
    weir__restore_source *parts; /* l.old_processes */
};

static bool node_keyed(const weir_job *job, int node)
{
    for (uint32_t i = 0; i < job->n_edges; i++)
        if (job->edges[i].to == node &&
            job->edges[i].req_part == WEIR_PART_KEYED)
            return true;
    return false;
}

/* The parallelism (per process) node had in the parts; 0: no state. */
static uint32_t old_par(const weir__cluster_restore *r, int node,
                        const char *name)
{
    for (uint32_t j = 0; j < r->l.old_processes; j++)
        if (r->parts[j].ud && r->parts[j].op_parallelism) {
            uint32_t p = r->parts[j].op_parallelism(r->parts[j].ud, node, name);
            if (p)
                return p;
        }
    return 0;
}

/* The process that reads key group kg under n processes of parallelism p. */
static uint32_t kg_process(const weir__cluster_restore *r, uint32_t kg,
                           uint32_t n, uint32_t p)
{
    uint32_t part = weir_key_group_owner(kg, r->max_par, r->l.partitions);
    return part % (n * p) / p;
}

static uint32_t c_op_parallelism(void *ud, int node, const char *name)
{
    weir__cluster_restore *r = ud;
    return old_par(r, node, name) * r->l.old_processes;
}

static int c_op_state(void *ud, int node, const char *name, uint32_t subtask,
                      uint32_t parallelism, weir_buf *out)
{
    (void)parallelism;
    weir__cluster_restore *r = ud;
    uint32_t p = old_par(r, node, name);
    if (!p || subtask / p >= r->l.old_processes)
        return 0;
    const weir__restore_source *s = &r->parts[subtask / p];
    if (!s->ud)
        return 0; /* the count did not change: another process's subtask */
    return s->op_state(s->ud, node, name, subtask % p, p, out);
}

static int c_kg_state(void *ud, int node, const char *name, uint32_t kg,
                      weir_buf *state, weir_buf *timers)
{
    weir__cluster_restore *r = ud;
    const weir__cluster_layout *l = &r->l;
    if (!node_keyed(r->job, node)) {
        if (l->old_processes == l->processes)
            return r->parts[l->index].kg_state(r->parts[l->index].ud, node,
                                               name, kg, state, timers);
        for (uint32_t j = 0; j < l->old_processes; j++) {
            const weir__restore_source *s = &r->parts[j];
            if (!s->ud)
                continue;
            weir_buf_clear(state);
            weir_buf_clear(timers);
            int rc = s->kg_state(s->ud, node, name, kg, state, timers);
            if (rc)
                return rc;
            if (!weir__backend_kg_bytes_empty(state->data, state->len) ||
                !(timers->len == 0 ||
                  (timers->len == 1 && timers->data[0] == 0))) {
                char msg[400];
                snprintf(msg, sizeof msg,
                         "weir.cluster.processes: operator '%s' keeps keyed "
                         "state without a keyed input, which cannot be dealt "
                         "out over another number of processes (%u to %u): "
                         "run the job on %u processes",
                         name, l->old_processes, l->processes,
                         l->old_processes);
                weir__job_abort(r->job, WEIR_EUNSUPPORTED, msg);
                return WEIR_EUNSUPPORTED;
            }
        }
        weir_buf_clear(state);
        weir_buf_clear(timers);
        return 0;
    }
    uint32_t p = weir__job_node_parallelism(r->job, node);
    uint32_t op = old_par(r, node, name);
    if (!p || kg_process(r, kg, l->processes, p) != l->index)
        return 0; /* another process's now */
    if (!op)
        return 0; /* no state of this operator at all */
    uint32_t from = kg_process(r, kg, l->old_processes, op);
    const weir__restore_source *s = &r->parts[from];
    if (!s->ud) {
        /* Only this process's own part was read (the count did not
         * change), yet the key group was another's: the operator's
         * parallelism in each process changed. */
        char msg[400];
        snprintf(msg, sizeof msg,
                 "operator '%s': key group %u was process %u's (parallelism "
                 "%u in each process) and is this process's now (parallelism "
                 "%u), but with the same number of processes (%u) only each "
                 "process's own part of the checkpoint is read: change the "
                 "parallelism together with weir.cluster.processes, or run "
                 "it at %u",
                 name, kg, from, op, p, l->processes, op);
        weir__job_abort(r->job, WEIR_EUNSUPPORTED, msg);
        return WEIR_EUNSUPPORTED;
    }
    return s->kg_state(s->ud, node, name, kg, state, timers);
}

static int c_split(void *ud, int node, const char *id,
                   weir__restored_split *out)
{
    weir__cluster_restore *r = ud;
    for (uint32_t j = 0; j < r->l.old_processes; j++) {
        const weir__restore_source *s = &r->parts[j];
        if (!s->ud)
            continue;
        int rc = s->split(s->ud, node, id, out);
        if (rc != WEIR_ENOTFOUND)
            return rc;
    }
    return WEIR_ENOTFOUND;
}

static uint32_t c_task_parallelism(void *ud, int task)
{
    (void)ud;
    (void)task;
    return 0; /* no in-flight data: unaligned checkpoints are refused */
}

int weir__cluster_restore_create(weir_job *job, const weir__cluster_layout *l,
                                 const weir__restore_source *parts,
                                 weir__cluster_restore **out,
                                 weir__restore_source *rs, weir_error *err)
{
    *out = NULL;
    if (!l->old_processes || l->index >= l->processes || !l->partitions ||
        (l->old_processes == l->processes && !parts[l->index].ud))
        return weir_error_set(err, WEIR_EINVAL,
                              "weir.cluster: nothing to restore this "
                              "process's part from");
    weir__cluster_restore *r = weir_calloc(1, sizeof *r);
    if (r)
        r->parts = weir_calloc(l->old_processes, sizeof *r->parts);
    if (!r || !r->parts) {
        weir_free(r);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    r->job = job;
    r->l = *l;
    r->max_par = job->cfg.max_parallelism;
    memcpy(r->parts, parts, l->old_processes * sizeof *parts);
    *rs = (weir__restore_source){.op_parallelism = c_op_parallelism,
                                 .op_state = c_op_state,
                                 .kg_state = c_kg_state,
                                 .split = c_split,
                                 .task_parallelism = c_task_parallelism,
                                 .ud = r};
    *out = r;
    return 0;
}

bool weir__cluster_parallelism_changed(const weir_job *job,
                                       const weir__restore_source *own)
{
    if (!own->op_parallelism)
        return false;
    for (uint32_t i = 0; i < job->n_nodes; i++) {
        const weir__node *n = &job->nodes[i];
        /* A repartition reader's partitions stay in their process: the
         * rule follows the keyed operator's parallelism, not the reader's
         * (one subtask per process now, one per operator subtask in the
         * checkpoints of an earlier weir). */
        if (n->kind == WEIR__NODE_SOURCE && weir__exchange_is_reader(&n->src))
            continue;
        uint32_t old = own->op_parallelism(own->ud, n->id, n->name);
        if (old && old != n->parallelism) {
            fprintf(stderr,
                    "weir: the parallelism in each process changed "
                    "(operator '%s': %u, now %u): every process's part of "
                    "the checkpoint is read\n",
                    n->name, old, n->parallelism);
            return true;
        }
    }
    return false;
}

void weir__cluster_restore_free(weir__cluster_restore *r)
{
    if (!r)
        return;
    weir_free(r->parts);
    weir_free(r);
}

#endif
