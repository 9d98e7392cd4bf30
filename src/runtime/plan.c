/*
 * runtime/plan.c - from the job graph to running threads.
 *
 * Chaining: an edge A -> B is chained (B runs in A's thread, called
 * synchronously) when it is A's main output, A and B have the same
 * parallelism, B has that single input, A's main output has no other
 * consumer, and the edge is FORWARD or KEYED on columns by which A's rows
 * are already where the exchange would send them (keyed_in_place; never in
 * a job run by several processes, whose keyed edges cross them). A chained
 * KEYED edge still makes B keyed (opctx.c): only the copy and the thread
 * hop go. Every other edge becomes channels between the subtasks of the two
 * tasks: one per (producer, consumer) pair, or one per subtask index for a
 * FORWARD edge between equal parallelisms. A FORWARD edge between different
 * parallelisms cannot keep "subtask i to subtask i", so it is planned as
 * REBALANCE (and explain shows it as such).
 *
 * Lifecycle: weir_job_start builds subtasks, channels and writers, then
 * starts one thread per subtask; weir_job_wait joins them. Operator
 * instances are created, opened and closed on their subtask's thread.
 */
#include <string.h>

#include "runtime/runtime.h"

static bool same_type(weir_type a, weir_type b)
{
    return a.id == b.id && a.precision == b.precision && a.scale == b.scale;
}

/*
 * Whether every row of node a's main output is on the subtask of a (at its
 * parallelism) that owns the key group of its columns k: a keyed exchange on
 * k would send it where it is. The key group hashes the encoded key, so the
 * columns must hold the very values of the key a's input was hashed by, of
 * the same types (nullability aside: it does not change the encoding): a's
 * own keyed input (out_part), or through a's chained single input and
 * columns it passes unchanged (passes), the same of the node above. Edges
 * are planned in order, and an edge into a comes before every edge out of a.
 */
static bool keyed_in_place(const weir_job *job, const weir__node *a,
                           const weir_keyspec *k)
{
    if (a->kind != WEIR__NODE_OPERATOR || !a->out_schema || k->n == 0)
        return false;
    for (uint32_t i = 0; i < k->n; i++)
        if (k->cols[i] >= a->out_schema->n_fields)
            return false;
    if (a->out_part.n == k->n) {
        const weir__edge *in = &job->edges[a->in_edges[a->out_part_in]];
        const weir_schema *is = weir__edge_schema(job, in);
        bool same = in->part == WEIR_PART_KEYED && in->key.n == k->n && is;
        for (uint32_t i = 0; same && i < k->n; i++)
            same = k->cols[i] == a->out_part.cols[i] &&
                   in->key.cols[i] < is->n_fields &&
                   same_type(a->out_schema->fields[k->cols[i]].type,
                             is->fields[in->key.cols[i]].type);
        if (same)
            return true;
    }
    if (!a->passes || a->n_in != 1)
        return false;
    const weir__edge *in = &job->edges[a->in_edges[0]];
    const weir__node *up = &job->nodes[in->from];
    if (!in->chained || in->side_tag != 0 || !up->out_schema)
        return false;
    weir_keyspec uk = {.n = k->n};
    for (uint32_t i = 0; i < k->n; i++) {
        int32_t c = a->passes[k->cols[i]];
        if (c < 0 || (uint32_t)c >= up->out_schema->n_fields ||
            !same_type(up->out_schema->fields[c].type,
                       a->out_schema->fields[k->cols[i]].type))
            return false;
        uk.cols[i] = (uint32_t)c;
    }
    return keyed_in_place(job, up, &uk);
}

static bool edge_chains(const weir_job *job, const weir__edge *e)
{
    const weir__node *a = &job->nodes[e->from], *b = &job->nodes[e->to];
    if (e->side_tag != 0 || a->parallelism != b->parallelism || b->n_in != 1)
        return false;
    if (e->part == WEIR_PART_KEYED) {
        if (job->cluster_count > 1 || !keyed_in_place(job, a, &e->key))
            return false;
    } else if (e->part != WEIR_PART_FORWARD) {
        return false;
    }
    for (uint32_t i = 0; i < job->n_edges; i++) {
        const weir__edge *o = &job->edges[i];
        if (o != e && o->from == e->from && o->side_tag == 0)
            return false;
    }
    return true;
}

int weir__plan_build(weir_job *job)
{
    if (job->n_tasks)
        return 0;
    if (job->n_nodes == 0)
        return weir__job_fail(job, WEIR_EINVAL, "the job has no operators");
    for (uint32_t i = 0; i < job->n_edges; i++) {
        weir__edge *e = &job->edges[i];
        const weir__node *a = &job->nodes[e->from], *b = &job->nodes[e->to];
        e->part = e->req_part;
        if (e->part == WEIR_PART_FORWARD && a->parallelism != b->parallelism)
            e->part = WEIR_PART_REBALANCE;
        e->chained = edge_chains(job, e);
    }
    job->tasks = weir_calloc(job->n_nodes, sizeof *job->tasks);
    if (!job->tasks)
        return weir__job_fail(job, WEIR_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < job->n_nodes; i++) {
        weir__node *n = &job->nodes[i];
        weir__task *t = NULL;
        if (n->n_in == 1 && job->edges[n->in_edges[0]].chained)
            t = &job->tasks[job->nodes[job->edges[n->in_edges[0]].from].task];
        if (!t) {
            t = &job->tasks[job->n_tasks];
            t->id = (int)job->n_tasks++;
            t->parallelism = n->parallelism;
            t->is_source = n->kind == WEIR__NODE_SOURCE;
            t->nodes = weir_calloc(job->n_nodes, sizeof *t->nodes);
            if (!t->nodes)
                return weir__job_fail(job, WEIR_ENOMEM, "out of memory");
        }
        n->task = t->id;
        n->chain_pos = t->n_nodes;
        t->nodes[t->n_nodes++] = (int)i;
    }
    return 0;
}

static void subtask_free(weir__subtask *st)
{
    if (!st)
        return;
    for (uint32_t i = 0; i < st->n_writers; i++) {
        weir__writer_fini(st->writers[i]);
        weir_free(st->writers[i]);
    }
    weir_free(st->writers);
    for (uint32_t i = 0; i < st->n_ops; i++) {
        weir_op_ctx *c = &st->ops[i];
        weir_free(c->in_schemas);
        weir_free(c->in_keys);
        weir_free(c->out);
        for (uint32_t s = 0; s < c->n_sides; s++)
            weir_free(c->sides[s].w);
        weir_free(c->sides);
        weir__counter *k = c->counters;
        while (k) {
            weir__counter *next = k->next;
            weir_free(k->name);
            weir_free(k);
            k = next;
        }
        weir_free(c->key);
        pthread_mutex_destroy(&c->counters_mu);
    }
    weir_free(st->ops);
    for (uint32_t i = 0; i < st->n_shared; i++)
        st->shared[i].destroy(st->shared[i].obj);
    weir_free(st->in);
    weir_free(st->input_wm);
    weir__wm_valve_fini(&st->valve);
    weir__gate_fini(&st->gate);
    for (uint32_t i = 0; i < st->n_split_pub; i++) {
        weir_free(st->split_pub[i]->id);
        weir_free(st->split_pub[i]);
    }
    weir_free(st->split_pub);
    pthread_mutex_destroy(&st->pub_mu);
    weir_free(st);
}

void weir__plan_free(weir_job *job)
{
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        weir__task *task = &job->tasks[t];
        if (task->subtasks)
            for (uint32_t s = 0; s < task->parallelism; s++)
                subtask_free(task->subtasks[s]);
        weir_free(task->subtasks);
        weir_free(task->nodes);
    }
    weir_free(job->tasks);
    job->tasks = NULL;
    job->n_tasks = 0;
    for (uint32_t i = 0; i < job->n_channels; i++) {
        weir__channel_fini(job->channels[i]);
        weir_free(job->channels[i]);
    }
    weir_free(job->channels);
    job->channels = NULL;
    job->n_channels = job->cap_channels = 0;
}

static weir__channel *new_channel(weir_job *job, weir__subtask *consumer,
                                  const weir_schema *schema)
{
    if (job->n_channels == job->cap_channels) {
        uint32_t cap = job->cap_channels ? job->cap_channels * 2 : 16;
        weir__channel **c = weir_realloc(job->channels, cap * sizeof *c);
        if (!c)
            return NULL;
        job->channels = c;
        job->cap_channels = cap;
    }
    weir__channel *ch = weir_calloc(1, sizeof *ch);
    if (!ch)
        return NULL;
    if (weir__channel_init(ch, &consumer->gate, job->cfg.channel_capacity,
                           schema, job->cfg.batch_size, &job->cancel)) {
        weir_free(ch);
        return NULL;
    }
    /*
     * Unaligned checkpoints are for backpressure: with them a producer
     * blocked on a full channel resumes at every message taken, so it sees
     * a trigger or a barrier on its own inputs one message later, not a
     * few batches later.
     */
    if (job->hooks.unaligned_ok)
        ch->resume_at = ch->cap - 1;
    job->channels[job->n_channels++] = ch;
    return ch;
}

static int add_writer(weir__subtask *st, weir__writer *w)
{
    weir__writer **ws =
        weir_realloc(st->writers, (st->n_writers + 1) * sizeof *ws);
    if (!ws)
        return WEIR_ENOMEM;
    st->writers = ws;
    st->writers[st->n_writers++] = w;
    return 0;
}

/* Attaches writer w to the operator context that produces edge e. */
static int attach_writer(weir_op_ctx *c, const weir__edge *e, weir__writer *w)
{
    if (e->side_tag == 0) {
        weir__writer **o = weir_realloc(c->out, (c->n_out + 1) * sizeof *o);
        if (!o)
            return WEIR_ENOMEM;
        c->out = o;
        c->out[c->n_out++] = w;
        return 0;
    }
    weir__side_out *so = NULL;
    for (uint32_t i = 0; i < c->n_sides; i++)
        if (c->sides[i].tag == e->side_tag)
            so = &c->sides[i];
    if (!so) {
        weir__side_out *s =
            weir_realloc(c->sides, (c->n_sides + 1) * sizeof *s);
        if (!s)
            return WEIR_ENOMEM;
        c->sides = s;
        so = &c->sides[c->n_sides++];
        *so = (weir__side_out){.tag = e->side_tag};
    }
    weir__writer **o = weir_realloc(so->w, (so->n + 1) * sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    so->w = o;
    so->w[so->n++] = w;
    return 0;
}

static int build_subtasks(weir_job *job)
{
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        weir__task *task = &job->tasks[t];
        task->subtasks = weir_calloc(task->parallelism, sizeof *task->subtasks);
        if (!task->subtasks)
            return WEIR_ENOMEM;
        for (uint32_t s = 0; s < task->parallelism; s++) {
            weir__subtask *st = weir_calloc(1, sizeof *st);
            if (!st)
                return WEIR_ENOMEM;
            task->subtasks[s] = st;
            st->job = job;
            st->task = task;
            st->index = s;
            st->out_wm_metric = WEIR_TS_MIN;
            st->max_event_ts_metric = WEIR_TS_MIN;
            pthread_mutex_init(&st->pub_mu, NULL);
            /* not started yet: holds its alignment group back */
            atomic_init(&st->align_wm, WEIR_TS_MIN);
            atomic_init(&st->lock_rows, 0);
            atomic_init(&st->lock_resume_at, 0);
            if (weir__gate_init(&st->gate)) {
                task->subtasks[s] = NULL;
                weir_free(st);
                return WEIR_ENOMEM;
            }
            st->ops = weir_calloc(task->n_nodes, sizeof *st->ops);
            if (!st->ops)
                return WEIR_ENOMEM;
            st->n_ops = task->n_nodes;
            for (uint32_t i = 0; i < task->n_nodes; i++)
                if (weir__op_init(&st->ops[i], st, i,
                                  &job->nodes[task->nodes[i]]))
                    return WEIR_ENOMEM;
            for (uint32_t i = 0; i + 1 < task->n_nodes; i++)
                st->ops[i].next = &st->ops[i + 1];
        }
    }
    /* Channels and writers, edge by edge. */
    for (uint32_t i = 0; i < job->n_edges; i++) {
        weir__edge *e = &job->edges[i];
        if (e->chained)
            continue;
        weir__node *from = &job->nodes[e->from], *to = &job->nodes[e->to];
        weir__task *pt = &job->tasks[from->task], *ct = &job->tasks[to->task];
        const weir_schema *schema = weir__edge_schema(job, e);
        if (!schema)
            return weir__job_fail(job, WEIR_EINVAL,
                                  "no schema for the stream from %s to %s",
                                  from->name, to->name);
        bool one_to_one = e->part == WEIR_PART_FORWARD;
        for (uint32_t p = 0; p < pt->parallelism; p++) {
            weir__subtask *prod = pt->subtasks[p];
            uint32_t n_targets = one_to_one ? 1 : ct->parallelism;
            weir__channel **targets = weir_calloc(n_targets, sizeof *targets);
            if (!targets)
                return WEIR_ENOMEM;
            for (uint32_t k = 0; k < n_targets; k++) {
                weir__subtask *cons = ct->subtasks[one_to_one ? p : k];
                weir__channel *ch = new_channel(job, cons, schema);
                weir__inchan *in =
                    ch ? weir_realloc(cons->in, (cons->n_in + 1) * sizeof *in)
                       : NULL;
                if (!in) {
                    weir_free(targets);
                    return WEIR_ENOMEM;
                }
                cons->in = in;
                cons->in[cons->n_in++] = (weir__inchan){
                    .ch = ch,
                    .input = e->input,
                    .edge = e->id,
                    .from_subtask = p,
                    .wm_metric = WEIR_TS_MIN,
                    .last_data_ms_metric = WEIR_TS_MIN};
                targets[k] = ch;
            }
            weir__writer *w = weir_calloc(1, sizeof *w);
            if (!w || weir__writer_init(w, prod, e, targets, n_targets)) {
                if (w)
                    weir__writer_fini(w);
                weir_free(targets);
                weir_free(w);
                return WEIR_ENOMEM;
            }
            weir_free(targets);
            if (add_writer(prod, w)) {
                weir__writer_fini(w);
                weir_free(w);
                return WEIR_ENOMEM;
            }
            if (attach_writer(&prod->ops[from->chain_pos], e, w))
                return WEIR_ENOMEM;
        }
    }
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        weir__task *task = &job->tasks[t];
        for (uint32_t s = 0; s < task->parallelism; s++) {
            weir__subtask *st = task->subtasks[s];
            if (!task->is_source && weir__wm_valve_init(&st->valve, st->n_in))
                return WEIR_ENOMEM;
            uint32_t n_inputs = 0;
            for (uint32_t i = 0; i < st->n_in; i++)
                if (st->in[i].input + 1 > n_inputs)
                    n_inputs = st->in[i].input + 1;
            if (n_inputs > 1) {
                st->input_wm = weir_malloc(n_inputs * sizeof *st->input_wm);
                if (!st->input_wm)
                    return WEIR_ENOMEM;
                for (uint32_t k = 0; k < n_inputs; k++)
                    st->input_wm[k] = WEIR_TS_MIN;
                st->n_inputs = n_inputs;
            }
        }
    }
    return 0;
}

int weir__job_start_threads(weir_job *job)
{
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        weir__task *task = &job->tasks[t];
        for (uint32_t s = 0; s < task->parallelism; s++) {
            weir__subtask *st = task->subtasks[s];
            if (pthread_create(&st->thread, NULL, weir__subtask_main, st)) {
                weir__job_fail(job, WEIR_ENOMEM,
                               "cannot start a thread for task %u subtask %u",
                               t, s);
                return WEIR_ENOMEM;
            }
            st->thread_started = true;
        }
    }
    return 0;
}

/* Wakes every thread: consumers on their gates, producers on full channels. */
static void wake_all(weir_job *job)
{
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        weir__task *task = &job->tasks[t];
        if (!task->subtasks)
            continue;
        for (uint32_t s = 0; s < task->parallelism; s++)
            if (task->subtasks[s])
                weir__gate_wake(&task->subtasks[s]->gate);
    }
    for (uint32_t i = 0; i < job->n_channels; i++)
        weir__channel_wake(job->channels[i]);
}

void weir__job_cancel(weir_job *job)
{
    atomic_store(&job->cancel, 1);
    wake_all(job);
}

int weir_job_start(weir_job *job)
{
    if (!job)
        return WEIR_EINVAL;
    if (job->build_failed)
        return job->err_code;
    if (job->phase != 0)
        return WEIR_ESTATE;
    int rc = weir__plan_build(job);
    if (rc)
        return rc;
    rc = build_subtasks(job);
    if (rc) {
        weir__job_fail(job, rc, "cannot start the job: %s", weir_strerror(rc));
        return rc;
    }
    job->phase = 1;
    rc = weir__job_start_threads(job);
    /* The checkpoint coordinator, if any, runs beside the threads
     * (checkpoint.h). */
    if (!rc && job->companion.started &&
        (rc = job->companion.started(job->companion.ud, job)))
        weir__job_fail(job, rc, "cannot start the checkpoint coordinator: %s",
                       weir_strerror(rc));
    if (rc) {
        weir__job_cancel(job);
        weir_job_wait(job);
        return rc;
    }
    return 0;
}

void weir_job_stop(weir_job *job)
{
    if (!job)
        return;
    int64_t none = 0;
    atomic_compare_exchange_strong(&job->stop_ns, &none, weir_monotonic_ns());
    /* Set even before the job starts: its sources then end at once. */
    atomic_store(&job->stop, 1);
    if (job->phase != 1)
        return;
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        weir__task *task = &job->tasks[t];
        if (task->is_source && task->subtasks)
            for (uint32_t s = 0; s < task->parallelism; s++)
                weir__gate_wake(&task->subtasks[s]->gate);
    }
}

void weir_job_stop_drain(weir_job *job)
{
    if (!job)
        return;
    /* Before stop: a source that sees the stop must see the drain too. */
    atomic_store(&job->drain, 1);
    weir_job_stop(job);
}

void weir_job_cancel(weir_job *job)
{
    if (!job)
        return;
    weir__job_cancel(job);
    weir_job_stop(job);
}

void weir__job_stop_for_savepoint(weir_job *job)
{
    if (job)
        atomic_store(&job->stop_savepoint, 1);
}

bool weir__job_stopped_undrained(const weir_job *job)
{
    return (atomic_load(&job->stop) && !atomic_load(&job->drain)) ||
           atomic_load(&job->stop_after_barrier) != 0;
}

void weir__job_stop_after_barrier(weir_job *job, uint64_t id)
{
    atomic_store(&job->stop_after_barrier, id);
}

bool weir__job_stop_requested(const weir_job *job)
{
    return atomic_load(&job->stop) != 0;
}

bool weir__job_canceled(const weir_job *job)
{
    return atomic_load(&job->cancel) != 0;
}

int weir__job_interrupted(weir_job *job)
{
    if (atomic_load_explicit(&job->cancel, memory_order_relaxed))
        return WEIR_ECANCELED;
    if (!atomic_load_explicit(&job->stop, memory_order_relaxed) ||
        atomic_load(&job->drain) || atomic_load(&job->stop_savepoint))
        return 0;
    /* A stop waits a little for the loop to end by itself. */
    int64_t since = atomic_load(&job->stop_ns);
    if (weir_monotonic_ns() - since < (int64_t)WEIR__STOP_GRACE_MS * 1000000)
        return 0;
    weir__job_cancel(job);
    return WEIR_ECANCELED;
}

int weir_job_wait(weir_job *job)
{
    if (!job)
        return WEIR_EINVAL;
    if (job->phase == 0)
        return WEIR_ESTATE;
    if (job->phase == 1) {
        for (uint32_t t = 0; t < job->n_tasks; t++) {
            weir__task *task = &job->tasks[t];
            for (uint32_t s = 0; s < task->parallelism; s++) {
                weir__subtask *st = task->subtasks[s];
                if (st->thread_started) {
                    pthread_join(st->thread, NULL);
                    st->thread_started = false;
                }
            }
        }
        job->phase = 2;
        if (job->companion.ended)
            job->companion.ended(job->companion.ud, job);
    }
    return job->err_code;
}

int weir_job_run(weir_job *job)
{
    int rc = weir_job_start(job);
    if (rc)
        return rc;
    return weir_job_wait(job);
}

uint32_t weir__job_subtask_count(const weir_job *job)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < job->n_tasks; t++)
        n += job->tasks[t].parallelism;
    return n;
}
