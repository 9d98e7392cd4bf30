/*
 * runtime/job.c - building the job graph (the C API of weir/job.h), explain,
 * metrics and the job's error.
 *
 * The graph is a list of nodes (sources and operators) and edges (streams
 * into an input of a node). Nothing runs until weir_job_start, which plans
 * tasks (plan.c) from the graph. Invariant: edges only point backwards
 * (from a node created earlier), so the graph is acyclic by construction.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"
#include "util/io.h"

void weir_job_config_init(weir_job_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->parallelism = 1;
    cfg->max_parallelism = WEIR_DEFAULT_MAX_PARALLELISM;
    cfg->batch_size = 1024;
    cfg->channel_capacity = 8;
    cfg->idle_timeout_ms = 0;
    cfg->clock = weir_clock_system();
    cfg->state_backend = "memory";
}

/* RocksDB keeps its files in a working folder: without weir.state.dir a job
 * gets a temporary one of its own, removed with the job (as Flink puts
 * RocksDB's files in its temporary folders when no local directory is set;
 * without a folder the first keyed state failed, "invalid argument"). One
 * a killed process left is removed by the next job that makes one. */
static int temp_state_dir(weir_job *job)
{
    if (job->cfg_state_dir && *job->cfg_state_dir)
        return 0;
    if (strcmp(job->cfg_state_backend, "rocksdb") != 0)
        return 0;
    char dir[1024];
    int owner;
    int rc = weir__io_temp_dir_owned("weir-state", dir, sizeof dir, &owner);
    if (rc)
        return rc;
    char *copy = weir_strdup(dir);
    if (!copy) {
        weir__io_temp_dir_release(dir, owner);
        return WEIR_ENOMEM;
    }
    job->state_dir_owner = owner;
    weir_free(job->cfg_state_dir);
    job->cfg_state_dir = copy;
    job->cfg.state_dir = copy;
    job->state_dir_temp = true;
    return 0;
}

int weir_job_create(const weir_job_config *cfg, weir_job **out)
{
    if (!out)
        return WEIR_EINVAL;
    weir_job_config def;
    if (!cfg) {
        weir_job_config_init(&def);
        cfg = &def;
    }
    if (cfg->max_parallelism == 0 || cfg->max_parallelism > 32768 ||
        cfg->batch_size == 0 || cfg->batch_size > (1u << 24))
        return WEIR_EINVAL;
    weir_job *job = weir_calloc(1, sizeof *job);
    if (!job)
        return WEIR_ENOMEM;
    job->cfg = *cfg;
    if (job->cfg.parallelism == 0)
        job->cfg.parallelism = 1;
    if (job->cfg.channel_capacity == 0)
        job->cfg.channel_capacity = 8;
    if (!job->cfg.clock.now_ms)
        job->cfg.clock = weir_clock_system();
    job->cfg_state_backend =
        weir_strdup(cfg->state_backend ? cfg->state_backend : "memory");
    job->cfg_state_dir = cfg->state_dir ? weir_strdup(cfg->state_dir) : NULL;
    job->cfg_checkpoint_dir =
        cfg->checkpoint_dir ? weir_strdup(cfg->checkpoint_dir) : NULL;
    job->cfg.state_backend = job->cfg_state_backend;
    job->cfg.state_dir = job->cfg_state_dir;
    job->cfg.checkpoint_dir = job->cfg_checkpoint_dir;
    atomic_init(&job->cancel, 0);
    atomic_init(&job->stop, 0);
    atomic_init(&job->stop_after_barrier, 0);
    atomic_init(&job->drain, 0);
    atomic_init(&job->stop_ns, 0);
    if (!job->cfg_state_backend || (cfg->state_dir && !job->cfg_state_dir) ||
        (cfg->checkpoint_dir && !job->cfg_checkpoint_dir) ||
        pthread_mutex_init(&job->mu, NULL)) {
        weir_free(job->cfg_state_backend);
        weir_free(job->cfg_state_dir);
        weir_free(job->cfg_checkpoint_dir);
        weir_free(job);
        return WEIR_ENOMEM;
    }
    int rc = temp_state_dir(job);
    if (rc) {
        weir_job_destroy(job);
        return rc;
    }
    *out = job;
    return 0;
}

void weir_job_destroy(weir_job *job)
{
    if (!job)
        return;
    if (job->phase == 1) {
        /*
         * Destroying a running job: stop it hard and wait for its threads.
         * Cancel wakes producers blocked on full channels too (a source
         * under backpressure would otherwise wait for consumers that have
         * already left).
         */
        weir__job_cancel(job);
        weir_job_stop(job);
        weir_job_wait(job);
    }
    if (job->companion.destroy)
        job->companion.destroy(job->companion.ud);
    if (job->has_gate && job->gate.destroy)
        job->gate.destroy(job->gate.ud);
    weir__plan_free(job);
    if (job->state_dir_temp)
        weir__io_temp_dir_release(job->cfg_state_dir, job->state_dir_owner);
    for (uint32_t i = 0; i < job->n_nodes; i++) {
        weir__node *n = &job->nodes[i];
        if (n->kind == WEIR__NODE_SOURCE && n->src.free_arg)
            n->src.free_arg(n->src.arg);
        if (n->kind == WEIR__NODE_OPERATOR && n->op.free_arg)
            n->op.free_arg(n->op.arg);
        weir_free(n->name);
        weir_free(n->uid);
        weir_buf_fini(&n->state);
        weir_free(n->fp_input);
        weir_free(n->in_edges);
        weir_free(n->sides);
        weir_free(n->passes);
        for (uint32_t k = 0; n->col_exprs && n->out_schema && k < n->out_schema->n_fields; k++)
            weir_free(n->col_exprs[k]);
        weir_free(n->col_exprs);
    }
    weir_free(job->nodes);
    weir_free(job->edges);
    weir_free(job->cfg_state_backend);
    weir_free(job->cfg_state_dir);
    weir_free(job->cfg_checkpoint_dir);
    pthread_mutex_destroy(&job->mu);
    weir_free(job);
}

int weir__job_fail(weir_job *job, int code, const char *fmt, ...)
{
    pthread_mutex_lock(&job->mu);
    if (job->err_code == 0) {
        job->err_code = code ? code : WEIR_EINVAL;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(job->err_msg, sizeof job->err_msg, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&job->mu);
    return code;
}

const char *weir_job_error(const weir_job *job)
{
    if (!job)
        return "";
    return job->err_msg;
}

weir__node *weir__job_node(const weir_job *job, int id)
{
    if (id < 0 || (uint32_t)id >= job->n_nodes)
        return NULL;
    return &job->nodes[id];
}

int weir__job_keyed_output(weir_job *job, int node, const weir_keyspec *part,
                           uint32_t input)
{
    weir__node *n = weir__job_node(job, node);
    if (!n || n->kind != WEIR__NODE_OPERATOR || !n->out_schema ||
        input >= n->n_in || part->n > WEIR_KEY_MAX_COLS)
        return WEIR_EINVAL;
    for (uint32_t i = 0; i < part->n; i++)
        if (part->cols[i] >= n->out_schema->n_fields)
            return WEIR_EINVAL;
    n->out_part = *part;
    n->out_part_in = input;
    return 0;
}

int weir__job_passes_columns(weir_job *job, int node, const int32_t *src,
                             uint32_t n)
{
    weir__node *nd = weir__job_node(job, node);
    if (!nd || nd->kind != WEIR__NODE_OPERATOR || !nd->out_schema ||
        n != nd->out_schema->n_fields || nd->n_in != 1)
        return WEIR_EINVAL;
    int32_t *p = weir_calloc(n ? n : 1, sizeof *p);
    if (!p)
        return WEIR_ENOMEM;
    if (n)
        memcpy(p, src, n * sizeof *p);
    weir_free(nd->passes);
    nd->passes = p;
    return 0;
}

const weir_schema *weir__edge_schema(const weir_job *job, const weir__edge *e)
{
    const weir__node *from = &job->nodes[e->from];
    if (e->side_tag == 0)
        return from->out_schema;
    for (uint32_t i = 0; i < from->n_sides; i++)
        if (from->sides[i].tag == e->side_tag)
            return from->sides[i].schema;
    /* Without a declared schema a side output carries the first input's. */
    return from->n_in ? weir__edge_schema(job, &job->edges[from->in_edges[0]]) : from->out_schema;
}

/* Graph building fails the job for good: a half-built graph must not run. */
int weir__job_build_error(weir_job *job, int code, const char *fmt, ...)
{
    pthread_mutex_lock(&job->mu);
    if (job->err_code == 0) {
        job->err_code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(job->err_msg, sizeof job->err_msg, fmt, ap);
        va_end(ap);
    }
    job->build_failed = true;
    pthread_mutex_unlock(&job->mu);
    return code;
}

static weir__node *add_node(weir_job *job, weir__node_kind kind,
                            const char *name, uint32_t parallelism)
{
    if (job->n_nodes == job->cap_nodes) {
        uint32_t cap = job->cap_nodes ? job->cap_nodes * 2 : 8;
        weir__node *n = weir_realloc(job->nodes, cap * sizeof *n);
        if (!n)
            return NULL;
        job->nodes = n;
        job->cap_nodes = cap;
    }
    weir__node *n = &job->nodes[job->n_nodes];
    memset(n, 0, sizeof *n);
    n->name = weir_strdup(
        name && *name ? name
                      : (kind == WEIR__NODE_SOURCE ? "source" : "operator"));
    if (!n->name)
        return NULL;
    n->id = (int)job->n_nodes++;
    n->kind = kind;
    n->parallelism = parallelism ? parallelism : job->cfg.parallelism;
    n->task = -1;
    return n;
}

static const weir_schema *stream_schema(const weir_job *job,
                                        const weir_stream *s)
{
    const weir__node *n = weir__job_node(job, s->node);
    if (!n)
        return NULL;
    if (s->side_tag == 0)
        return n->out_schema;
    for (uint32_t i = 0; i < n->n_sides; i++)
        if (n->sides[i].tag == s->side_tag)
            return n->sides[i].schema;
    /* By default a side output carries rows of the node's first input (late
     * records). */
    if (n->n_in > 0) {
        const weir__edge *e = &job->edges[n->in_edges[0]];
        weir_stream up = {.node = e->from, .side_tag = e->side_tag};
        return stream_schema(job, &up);
    }
    return n->out_schema;
}

static int check_running(weir_job *job)
{
    if (!job)
        return WEIR_EINVAL;
    if (job->phase != 0)
        return weir__job_build_error(
            job, WEIR_ESTATE,
            "the job graph cannot change once the job started");
    if (job->build_failed)
        return job->err_code;
    /* explain may have planned the graph; a change invalidates that plan.
     * The temporary state folder is emptied, not removed: removed, it came
     * back (made by the store) as 0755, not mkdtemp's 0700, and for that
     * moment its owner file stood without it. */
    weir__plan_free(job);
    if (job->state_dir_temp)
        weir__io_empty_dir(job->cfg_state_dir);
    return 0;
}

int weir_job_source(weir_job *job, const weir_source_spec *src,
                    const weir_watermark_spec *wm, uint32_t parallelism,
                    weir_stream *out)
{
    int rc = check_running(job);
    if (rc)
        return rc;
    if (!src || !src->cls || !src->schema || !out || !src->cls->create ||
        !src->cls->discover || !src->cls->open_split || !src->cls->read ||
        !src->cls->close_split || !src->cls->destroy)
        return weir__job_build_error(job, WEIR_EINVAL,
                                     "weir_job_source: incomplete source spec");
    if (src->schema->rowtime >= 0 &&
        (uint32_t)src->schema->rowtime >= src->schema->n_fields)
        return weir__job_build_error(job, WEIR_EINVAL,
                                     "source %s: rowtime column out of range",
                                     src->name ? src->name : "?");
    if (wm && wm->kind == WEIR_WATERMARK_SOURCE && !src->cls->watermark)
        return weir__job_build_error(job, WEIR_EINVAL,
                                     "source %s: WEIR_WATERMARK_SOURCE needs "
                                     "the class's watermark function",
                                     src->name ? src->name : "?");
    weir__node *n =
        add_node(job, WEIR__NODE_SOURCE, src->name ? src->name : src->cls->name,
                 parallelism);
    if (!n)
        return weir__job_build_error(job, WEIR_ENOMEM, "out of memory");
    n->src = *src;
    if (wm)
        n->wm = *wm;
    else
        n->wm = (weir_watermark_spec){.kind = WEIR_WATERMARK_NONE};
    n->out_schema = src->schema;
    *out =
        (weir_stream){.node = n->id, .side_tag = 0, .part = WEIR_PART_FORWARD};
    return 0;
}

static int add_edge(weir_job *job, const weir_stream *s, int to, uint32_t input)
{
    if (job->n_edges == job->cap_edges) {
        uint32_t cap = job->cap_edges ? job->cap_edges * 2 : 8;
        weir__edge *e = weir_realloc(job->edges, cap * sizeof *e);
        if (!e)
            return WEIR_ENOMEM;
        job->edges = e;
        job->cap_edges = cap;
    }
    weir__edge *e = &job->edges[job->n_edges];
    memset(e, 0, sizeof *e);
    e->id = (int)job->n_edges++;
    e->from = s->node;
    e->to = to;
    e->side_tag = s->side_tag;
    e->input = input;
    e->req_part = e->part = s->part;
    e->key = s->key;
    if (e->part != WEIR_PART_KEYED)
        e->key.n = 0;
    return e->id;
}

int weir_job_operator(weir_job *job, const weir_stream *inputs, uint32_t n_in,
                      const weir_operator_spec *spec,
                      const weir_schema *out_schema, uint32_t parallelism,
                      weir_stream *out)
{
    int rc = check_running(job);
    if (rc)
        return rc;
    const char *name = spec && spec->name
                           ? spec->name
                           : (spec && spec->cls ? spec->cls->name : NULL);
    if (!spec || !spec->cls || !spec->create || !spec->cls->close ||
        (n_in > 0 && !inputs))
        return weir__job_build_error(job, WEIR_EINVAL,
                                     "operator %s: incomplete operator spec",
                                     name ? name : "?");
    if (n_in == 0)
        return weir__job_build_error(job, WEIR_EINVAL,
                                     "operator %s: an operator needs an input "
                                     "(use weir_job_source for sources)",
                                     name ? name : "?");
    if (!spec->cls->process)
        return weir__job_build_error(job, WEIR_EINVAL,
                                     "operator %s: no process function",
                                     name ? name : "?");
    for (uint32_t i = 0; i < n_in; i++) {
        const weir__node *up = weir__job_node(job, inputs[i].node);
        if (!up)
            return weir__job_build_error(
                job, WEIR_EINVAL,
                "operator %s: input %u is not a stream of this job",
                name ? name : "?", i);
        if (inputs[i].side_tag == 0 && !up->out_schema)
            return weir__job_build_error(
                job, WEIR_EINVAL, "operator %s: input %u comes from sink %s",
                name ? name : "?", i, up->name);
        if ((unsigned)inputs[i].part > WEIR_PART_GLOBAL)
            return weir__job_build_error(job, WEIR_EINVAL,
                                         "operator %s: bad partitioning",
                                         name ? name : "?");
        if (inputs[i].part == WEIR_PART_KEYED) {
            const weir_schema *s = stream_schema(job, &inputs[i]);
            if (inputs[i].key.n > WEIR_KEY_MAX_COLS)
                return weir__job_build_error(
                    job, WEIR_EINVAL, "operator %s: too many key columns",
                    name ? name : "?");
            for (uint32_t k = 0; k < inputs[i].key.n; k++)
                if (!s || inputs[i].key.cols[k] >= s->n_fields)
                    return weir__job_build_error(
                        job, WEIR_EINVAL,
                        "operator %s: key column %u out of range",
                        name ? name : "?", inputs[i].key.cols[k]);
        }
    }
    weir__node *n = add_node(job, WEIR__NODE_OPERATOR, name, parallelism);
    if (!n) {
        if (spec->free_arg)
            spec->free_arg(spec->arg);
        return weir__job_build_error(job, WEIR_ENOMEM, "out of memory");
    }
    n->op = *spec;
    n->op.name = n->name;
    n->out_schema = out_schema;
    n->n_in = n_in;
    if (n_in) {
        n->in_edges = weir_calloc(n_in, sizeof *n->in_edges);
        if (!n->in_edges)
            return weir__job_build_error(job, WEIR_ENOMEM, "out of memory");
    }
    int id = n->id;
    for (uint32_t i = 0; i < n_in; i++) {
        int e = add_edge(job, &inputs[i], id, i);
        if (e < 0)
            return weir__job_build_error(job, WEIR_ENOMEM, "out of memory");
        job->nodes[id].in_edges[i] = e;
    }
    if (out)
        *out =
            (weir_stream){.node = id, .side_tag = 0, .part = WEIR_PART_FORWARD};
    return 0;
}

weir_stream weir_stream_key_by(weir_stream in, const uint32_t *cols,
                               uint32_t n_cols)
{
    in.part = WEIR_PART_KEYED;
    in.key.n = n_cols > WEIR_KEY_MAX_COLS ? WEIR_KEY_MAX_COLS + 1 : n_cols;
    for (uint32_t i = 0; i < n_cols && i < WEIR_KEY_MAX_COLS; i++)
        in.key.cols[i] = cols[i];
    if (n_cols > WEIR_KEY_MAX_COLS)
        in.key.n = WEIR_KEY_MAX_COLS + 1; /* rejected when used */
    return in;
}

weir_stream weir_stream_partition(weir_stream in, weir_partitioning part)
{
    in.part = part;
    if (part != WEIR_PART_KEYED)
        in.key.n = 0;
    return in;
}

weir_stream weir_stream_side(weir_stream s, int tag)
{
    s.side_tag = tag;
    s.part = WEIR_PART_FORWARD;
    s.key.n = 0;
    return s;
}

int weir_job_set_side_schema(weir_job *job, weir_stream s, int tag,
                             const weir_schema *schema)
{
    int rc = check_running(job);
    if (rc)
        return rc;
    weir__node *n = weir__job_node(job, s.node);
    if (!n || tag <= 0 || !schema)
        return weir__job_build_error(job, WEIR_EINVAL,
                                     "weir_job_set_side_schema: bad arguments");
    for (uint32_t i = 0; i < n->n_sides; i++)
        if (n->sides[i].tag == tag) {
            n->sides[i].schema = schema;
            return 0;
        }
    weir__side_schema *ss =
        weir_realloc(n->sides, (n->n_sides + 1) * sizeof *ss);
    if (!ss)
        return weir__job_build_error(job, WEIR_ENOMEM, "out of memory");
    n->sides = ss;
    n->sides[n->n_sides++] = (weir__side_schema){.tag = tag, .schema = schema};
    return 0;
}

int weir_job_sink(weir_job *job, weir_stream in, const weir_operator_spec *sink,
                  uint32_t parallelism)
{
    return weir_job_operator(job, &in, 1, sink, NULL, parallelism, NULL);
}

int weir_job_set_parallelism(weir_job *job, weir_stream s, uint32_t parallelism)
{
    int rc = check_running(job);
    if (rc)
        return rc;
    weir__node *n = weir__job_node(job, s.node);
    if (!n || parallelism == 0)
        return weir__job_build_error(job, WEIR_EINVAL,
                                     "weir_job_set_parallelism: bad arguments");
    n->parallelism = parallelism;
    return 0;
}

/* ---- explain ---- */

static const char *part_name(weir_partitioning p)
{
    switch (p) {
    case WEIR_PART_FORWARD:
        return "FORWARD";
    case WEIR_PART_KEYED:
        return "KEYED";
    case WEIR_PART_REBALANCE:
        return "REBALANCE";
    case WEIR_PART_BROADCAST:
        return "BROADCAST";
    case WEIR_PART_GLOBAL:
        return "GLOBAL";
    }
    return "?";
}

static int explain_edge(const weir_job *job, const weir__edge *e, weir_buf *out)
{
    const weir__node *from = &job->nodes[e->from], *to = &job->nodes[e->to];
    int rc = weir_buf_printf(out, "    -> %s", part_name(e->part));
    if (!rc && e->part == WEIR_PART_KEYED) {
        const weir_schema *s = from->out_schema;
        rc = weir_buf_printf(out, "(");
        for (uint32_t k = 0; !rc && k < e->key.n; k++) {
            uint32_t c = e->key.cols[k];
            if (e->side_tag == 0 && s && c < s->n_fields)
                rc = weir_buf_printf(out, "%s%s", k ? ", " : "",
                                     s->fields[c].name);
            else
                rc = weir_buf_printf(out, "%s#%u", k ? ", " : "", c);
        }
        if (!rc)
            rc = weir_buf_printf(out, ") max_parallelism=%u",
                                 job->cfg.max_parallelism);
    }
    if (!rc && e->side_tag)
        rc = weir_buf_printf(out, " from side output %d of %s", e->side_tag,
                             from->name);
    if (!rc && e->chained) /* keyed, its rows already where it sends them */
        rc = weir_buf_printf(
            out, " chained to %s (rows already on their key's subtask)\n",
            to->name);
    else if (!rc)
        rc = weir_buf_printf(out, " to task %d (%s, input %u)\n", to->task,
                             to->name, e->input);
    return rc;
}

int weir_job_explain(const weir_job *job, weir_buf *out)
{
    if (!job || !out)
        return WEIR_EINVAL;
    weir_job *mjob = (weir_job *)job;
    if (job->build_failed)
        return job->err_code;
    /* Planning is deterministic and cheap; explain plans on a graph not yet
     * started. */
    if (job->n_tasks == 0) {
        int rc = weir__plan_build(mjob);
        if (rc)
            return rc;
    }
    int rc = weir_buf_printf(
        out,
        "job: %u tasks, %u operators, max_parallelism=%u, batch_size=%u, "
        "channel_capacity=%u\n",
        job->n_tasks, job->n_nodes, job->cfg.max_parallelism,
        job->cfg.batch_size, job->cfg.channel_capacity);
    for (uint32_t t = 0; !rc && t < job->n_tasks; t++) {
        const weir__task *task = &job->tasks[t];
        rc = weir_buf_printf(out, "task %u (parallelism %u): ", t,
                             task->parallelism);
        for (uint32_t i = 0; !rc && i < task->n_nodes; i++) {
            const weir__node *n = &job->nodes[task->nodes[i]];
            const char *kind = n->kind == WEIR__NODE_SOURCE
                                   ? "Source"
                                   : (n->out_schema ? "" : "Sink");
            rc = weir_buf_printf(out, "%s%s%s%s%s", i ? " -> " : "", kind,
                                 *kind ? "[" : "", n->name, *kind ? "]" : "");
        }
        if (!rc)
            rc = weir_buf_printf(out, "%s\n",
                                 task->n_nodes > 1 ? "  (chained)" : "");
        for (uint32_t i = 0; !rc && i < task->n_nodes; i++) {
            int nid = task->nodes[i];
            for (uint32_t e = 0; !rc && e < job->n_edges; e++)
                if (job->edges[e].from == nid &&
                    (!job->edges[e].chained ||
                     job->edges[e].part == WEIR_PART_KEYED))
                    rc = explain_edge(job, &job->edges[e], out);
        }
    }
    if (!rc)
        rc = weir_buf_put_u8(out, 0);
    if (!rc)
        out->len--; /* NUL-terminated for printing, not counted */
    return rc;
}

/* ---- metrics ---- */

void weir_job_metrics(weir_job *job, weir_metric_visit_fn fn, void *ud)
{
    if (!job || !fn)
        return;
    if (job->companion.metrics)
        job->companion.metrics(job->companion.ud, fn, ud);
    char name[512];
    double read = 0, written = 0; /* job totals: rows out of sources, into sinks */
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        weir__task *task = &job->tasks[t];
        if (!task->subtasks)
            continue;
        for (uint32_t s = 0; s < task->parallelism; s++) {
            weir__subtask *st = task->subtasks[s];
            if (!st)
                continue;
            for (uint32_t o = 0; o < st->n_ops; o++) {
                weir_op_ctx *c = &st->ops[o];
                if (c->node->kind == WEIR__NODE_SOURCE)
                    read += (double)WEIR__LOAD(&c->records_out);
                else if (!c->node->out_schema)
                    written += (double)WEIR__LOAD(&c->records_in);
            }
            snprintf(name, sizeof name, "task%u.%u.backpressured_ns", t, s);
            fn(ud, name, (double)WEIR__LOAD(&st->backpressured_ns));
            int64_t wm = WEIR__LOAD(&st->out_wm_metric);
            snprintf(name, sizeof name, "task%u.%u.watermark", t, s);
            fn(ud, name, (double)wm);
            int64_t newest = WEIR__LOAD(&st->max_event_ts_metric);
            if (newest != WEIR_TS_MIN) {
                snprintf(name, sizeof name, "task%u.%u.max_event_ts", t, s);
                fn(ud, name, (double)newest);
            }
            uint64_t queued = 0, peak = 0, batches = 0;
            for (uint32_t i = 0; i < st->n_in; i++) {
                weir__channel *ch = st->in[i].ch;
                pthread_mutex_lock(&ch->gate->mu);
                queued += ch->count;
                peak += ch->peak_count;
                batches += ch->n_batches;
                pthread_mutex_unlock(&ch->gate->mu);
            }
            snprintf(name, sizeof name, "task%u.%u.input_queued", t, s);
            fn(ud, name, (double)queued);
            snprintf(name, sizeof name, "task%u.%u.input_queued_peak", t, s);
            fn(ud, name, (double)peak);
            snprintf(name, sizeof name, "task%u.%u.input_batches_allocated", t,
                     s);
            fn(ud, name, (double)batches);
            for (uint32_t o = 0; o < st->n_ops; o++) {
                weir_op_ctx *c = &st->ops[o];
                const char *on = c->node->name;
                snprintf(name, sizeof name, "task%u.%s.%u.records_in", t, on,
                         s);
                fn(ud, name, (double)WEIR__LOAD(&c->records_in));
                snprintf(name, sizeof name, "task%u.%s.%u.records_out", t, on,
                         s);
                fn(ud, name, (double)WEIR__LOAD(&c->records_out));
                /* What the job read and wrote, per source and per sink. */
                if (c->node->kind == WEIR__NODE_SOURCE || !c->node->out_schema) {
                    bool src = c->node->kind == WEIR__NODE_SOURCE;
                    snprintf(name, sizeof name, "task%u.%s.%u.%s", t, on, s,
                             src ? "rows_read" : "rows_written");
                    fn(ud, name, (double)WEIR__LOAD(src ? &c->records_out : &c->records_in));
                }
                pthread_mutex_lock(&c->counters_mu);
                for (weir__counter *k = c->counters; k; k = k->next) {
                    snprintf(name, sizeof name, "task%u.%s.%u.%s", t, on, s,
                             k->name);
                    fn(ud, name, (double)WEIR__LOAD(&k->value));
                }
                pthread_mutex_unlock(&c->counters_mu);
            }
        }
    }
    fn(ud, "job.records_read", read);
    fn(ud, "job.records_written", written);
}
