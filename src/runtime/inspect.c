/*
 * runtime/inspect.c - read access to a job for threads that do not run it
 * (runtime/inspect.h). Only relaxed atomic loads of figures the task
 * threads publish, plus two short locks that no per-record path takes: a
 * channel's gate (for its queue length, as weir_job_metrics does) and a
 * subtask's split list (taken by its source thread only when it adds a
 * split).
 */
#include <string.h>

#include "runtime/inspect.h"
#include "runtime/runtime.h"

int weir__insp_phase(const weir_job *job)
{
    return atomic_load(&((weir_job *)job)->phase);
}

int64_t weir__insp_now_ms(const weir_job *job)
{
    return weir_clock_now(&job->cfg.clock);
}

uint32_t weir__insp_n_nodes(const weir_job *job)
{
    return job->n_nodes;
}

void weir__insp_node_get(const weir_job *job, uint32_t i, weir__insp_node *out)
{
    const weir__node *n = &job->nodes[i];
    memset(out, 0, sizeof *out);
    out->id = n->id;
    out->name = n->name;
    out->is_source = n->kind == WEIR__NODE_SOURCE;
    out->is_sink = n->kind == WEIR__NODE_OPERATOR && !n->out_schema;
    out->parallelism = n->parallelism;
    out->task = n->task;
    out->chain_pos = n->chain_pos;
    /* The planner describes a table's node with a "table: <name>" line. */
    const char *d = n->state.data ? (const char *)n->state.data : NULL;
    for (size_t at = 0; d && at < n->state.len;) {
        const char *nl = memchr(d + at, '\n', n->state.len - at);
        size_t end = nl ? (size_t)(nl - d) : n->state.len;
        if (end - at > 7 && !memcmp(d + at, "table: ", 7)) {
            size_t len = end - at - 7;
            if (len >= sizeof out->table)
                len = sizeof out->table - 1;
            memcpy(out->table, d + at + 7, len);
            out->table[len] = 0;
            break;
        }
        at = end + 1;
    }
    if (out->is_source) {
        int64_t idle = n->wm.idle_timeout_ms;
        out->idle_timeout_ms = idle == 0 ? job->cfg.idle_timeout_ms : (idle < 0 ? 0 : idle);
        out->wm_delay_ms = n->wm.delay_ms;
        out->has_watermark = n->wm.kind != WEIR_WATERMARK_NONE;
    }
}

uint32_t weir__insp_n_edges(const weir_job *job)
{
    return job->n_edges;
}

static const char *ship_strategy(weir_partitioning p)
{
    /* Flink's names for the exchanges (its REST API's ship_strategy). */
    switch (p) {
    case WEIR_PART_FORWARD: return "FORWARD";
    case WEIR_PART_KEYED: return "HASH";
    case WEIR_PART_REBALANCE: return "REBALANCE";
    case WEIR_PART_BROADCAST: return "BROADCAST";
    case WEIR_PART_GLOBAL: return "GLOBAL";
    }
    return "UNKNOWN";
}

void weir__insp_edge_get(const weir_job *job, uint32_t i, weir__insp_edge *out)
{
    const weir__edge *e = &job->edges[i];
    out->id = e->id;
    out->from = e->from;
    out->to = e->to;
    out->input = e->input;
    out->side_tag = e->side_tag;
    out->part = ship_strategy(e->part);
    out->chained = e->chained;
}

uint32_t weir__insp_n_tasks(const weir_job *job)
{
    return weir__insp_phase(job) == 0 ? 0 : job->n_tasks;
}

void weir__insp_task_get(const weir_job *job, uint32_t t, weir__insp_task *out)
{
    const weir__task *task = &job->tasks[t];
    out->id = task->id;
    out->nodes = task->nodes;
    out->n_nodes = task->n_nodes;
    out->parallelism = task->parallelism;
    out->is_source = task->is_source;
}

static weir__subtask *subtask_at(const weir_job *job, uint32_t t, uint32_t s)
{
    if (t >= weir__insp_n_tasks(job))
        return NULL;
    const weir__task *task = &job->tasks[t];
    if (!task->subtasks || s >= task->parallelism)
        return NULL;
    return task->subtasks[s];
}

static void channel_fill(weir__channel *ch, uint32_t *queued, uint32_t *cap)
{
    pthread_mutex_lock(&ch->gate->mu);
    *queued += ch->count;
    *cap += ch->cap;
    pthread_mutex_unlock(&ch->gate->mu);
}

int weir__insp_subtask_get(const weir_job *job, uint32_t t, uint32_t s, weir__insp_subtask *out)
{
    weir__subtask *st = subtask_at(job, t, s);
    if (!st)
        return WEIR_ENOTFOUND;
    memset(out, 0, sizeof *out);
    /* A wait under way counts up to now. (The two loads may straddle the
     * wait's end: then the wait is missing until the next reading, or
     * counted twice for an instant; both are within one wait.) */
    int64_t since = WEIR__LOAD(&st->idle_since_ns);
    out->idle_ns = WEIR__LOAD(&st->idle_ns);
    if (since)
        out->idle_ns += weir_monotonic_ns() - since;
    out->backpressured_ns = WEIR__LOAD(&st->backpressured_ns);
    out->start_ns = WEIR__LOAD(&st->start_ns);
    out->end_ns = WEIR__LOAD(&st->end_ns);
    out->out_wm = WEIR__LOAD(&st->out_wm_metric);
    out->out_wm_moved_ms = WEIR__LOAD(&st->out_wm_moved_ms);
    out->newest_ts = WEIR__LOAD(&st->max_event_ts_metric);
    out->n_in = st->n_in;
    for (uint32_t i = 0; i < st->n_in; i++)
        channel_fill(st->in[i].ch, &out->queued, &out->capacity);
    return 0;
}

/* The counters operators name for the rows they judged late. */
static bool is_late_counter(const char *name)
{
    return !strcmp(name, "late_records") || !strcmp(name, "late_records_dropped") ||
           !strcmp(name, "late_rows");
}

int weir__insp_op_get(const weir_job *job, uint32_t t, uint32_t s, uint32_t pos, weir__insp_op *out)
{
    weir__subtask *st = subtask_at(job, t, s);
    if (!st || pos >= st->n_ops)
        return WEIR_ENOTFOUND;
    weir_op_ctx *c = &st->ops[pos];
    memset(out, 0, sizeof *out);
    out->records_in = WEIR__LOAD(&c->records_in);
    out->records_out = WEIR__LOAD(&c->records_out);
    out->in_wm = WEIR__LOAD(&c->in_wm_metric);
    out->out_wm = WEIR__LOAD(&c->out_wm_metric);
    pthread_mutex_lock(&c->counters_mu);
    for (weir__counter *k = c->counters; k; k = k->next)
        if (is_late_counter(k->name))
            out->late_records += WEIR__LOAD(&k->value);
    pthread_mutex_unlock(&c->counters_mu);
    return 0;
}

int weir__insp_input_get(const weir_job *job, uint32_t t, uint32_t s, uint32_t i, weir__insp_input *out)
{
    weir__subtask *st = subtask_at(job, t, s);
    if (!st || i >= st->n_in)
        return WEIR_ENOTFOUND;
    weir__inchan *in = &st->in[i];
    memset(out, 0, sizeof *out);
    out->edge = in->edge;
    out->from_task = job->nodes[job->edges[in->edge].from].task;
    out->from_subtask = in->from_subtask;
    out->input = in->input;
    out->wm = WEIR__LOAD(&in->wm_metric);
    out->status = WEIR__LOAD(&in->status_metric);
    out->last_data_ms = WEIR__LOAD(&in->last_data_ms_metric);
    channel_fill(in->ch, &out->queued, &out->capacity);
    out->started = out->last_data_ms != WEIR_TS_MIN || out->wm != WEIR_TS_MIN;
    return 0;
}

void weir__insp_op_counters(const weir_job *job, uint32_t t, uint32_t s, uint32_t pos,
                            void (*fn)(void *ud, const char *name, uint64_t v), void *ud)
{
    weir__subtask *st = subtask_at(job, t, s);
    if (!st || pos >= st->n_ops)
        return;
    weir_op_ctx *c = &st->ops[pos];
    pthread_mutex_lock(&c->counters_mu);
    for (weir__counter *k = c->counters; k; k = k->next)
        fn(ud, k->name, WEIR__LOAD(&k->value));
    pthread_mutex_unlock(&c->counters_mu);
}

void weir__insp_splits(const weir_job *job, uint32_t t, uint32_t s,
                       void (*fn)(void *ud, const weir__insp_split *split), void *ud)
{
    weir__subtask *st = subtask_at(job, t, s);
    if (!st)
        return;
    pthread_mutex_lock(&st->pub_mu);
    for (uint32_t i = 0; i < st->n_split_pub; i++) {
        weir__split_pub *p = st->split_pub[i];
        weir__insp_split v = {
            .id = p->id,
            .wm = WEIR__LOAD(&p->wm),
            .max_ts = WEIR__LOAD(&p->max_ts),
            .last_data_ms = WEIR__LOAD(&p->last_data_ms),
            .rows = WEIR__LOAD(&p->rows),
            .idle = WEIR__LOAD(&p->idle) != 0,
            .finished = WEIR__LOAD(&p->finished) != 0,
        };
        fn(ud, &v);
    }
    pthread_mutex_unlock(&st->pub_mu);
}
