/*
 * cluster/cluster.c - the options of a job run by several processes, and
 * the rewrite of its keyed exchanges into repartition topics (cluster.h).
 *
 * Parts: options; topic names and their check against the brokers; the
 * rewrite of the graph. The writer and reader of a repartition topic are
 * in exchange.c.
 *
 * Invariants: the rewrite keeps every node of the graph and the schema and
 * key of every keyed edge; it only puts a writer (a sink) and a reader (a
 * source) between the two ends of each keyed edge, so the keyed operator
 * sees the rows it saw before, through an in-process keyed exchange from
 * the reader.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "cluster/control.h"
#include "cluster/exchange.h"
#include "runtime/runtime.h"
#include "weir/connector.h"

const char *const weir__cluster_keys[] = {"weir.cluster.bootstrap-servers",
                                          "weir.cluster.processes",
                                          "weir.cluster.process-index",
                                          "weir.cluster.group-id",
                                          "weir.cluster.repartition-partitions",
                                          "weir.cluster.epoch",
                                          "weir.cluster.heartbeat-interval",
                                          "weir.cluster.session-timeout",
                                          NULL};

/* ---- options ---- */

static int parse_u32(const char *key, const char *v, uint32_t lo, uint32_t hi,
                     uint32_t *out, weir_error *err)
{
    char *end = NULL;
    unsigned long long x = v ? strtoull(v, &end, 10) : 0;
    if (!v || !*v || *end || v[0] == '-' || x < lo || x > hi)
        return weir_error_set(err, WEIR_EINVAL,
                              "%s: expected a whole number from %u to %u, "
                              "got '%s'",
                              key, lo, hi, v ? v : "");
    *out = (uint32_t)x;
    return 0;
}

#ifdef WEIR_HAVE_KAFKA
/* A Kafka topic name: [A-Za-z0-9._-], everything else becomes '_'. */
static void topic_part(char *dst, size_t cap, const char *s)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++)
        dst[n++] =
            (isalnum((unsigned char)*s) || *s == '.' || *s == '_' || *s == '-')
                ? *s
                : '_';
    dst[n] = 0;
}

/* ---- the rewrite ---- */

static const char *part_word(weir_partitioning p)
{
    return p == WEIR_PART_GLOBAL ? "global (single-instance)" : "broadcast";
}

/* ---- the description (GET /cluster) ---- */

typedef struct xinfo {
    char topic[256];
    uint32_t reader_par; /* the keyed operator's subtasks per process */
} xinfo;

/* s, which holds no quote or backslash (topic and option text aside). */
static int put_str(weir_buf *b, const char *s)
{
    int rc = weir_buf_put_u8(b, '"');
    for (; *s && !rc; s++)
        rc = (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
                 ? weir_buf_printf(b, "\\u%04x", (unsigned char)*s)
                 : weir_buf_put_u8(b, (uint8_t)*s);
    return rc ? rc : weir_buf_put_u8(b, '"');
}

struct weir__cluster_view {
    const weir_job *job;
    weir__cluster_conf conf;
    char *group;
    const char *membership;
    xinfo *xs;
    uint32_t n_xs;
    weir__control *ctl; /* the job's (NULL: no checkpoints) */
};

/* Member j's liveness, when the control topic knows it. */
static int describe_member(weir_buf *b, weir__control *ctl, uint32_t j)
{
    weir__member_info m;
    if (!ctl || !weir__control_member(ctl, j, &m))
        return 0;
    int rc = weir_buf_printf(b, ",\"member\":");
    if (!rc && m.id)
        rc = weir_buf_printf(b, "\"%016llx\"", (unsigned long long)m.id);
    else if (!rc)
        rc = weir_buf_printf(b, "null");
    if (!rc)
        rc = weir_buf_printf(b, ",\"host\":");
    if (!rc)
        rc = put_str(b, m.host);
    if (!rc)
        rc = weir_buf_printf(b, ",\"pid\":%u,\"joined\":%s,\"leader\":%s,"
                                "\"heartbeat_age_ms\":",
                             m.pid, m.joined ? "true" : "false",
                             j == 0 ? "true" : "false");
    if (!rc)
        rc = m.age_ms >= 0 ? weir_buf_printf(b, "%lld", (long long)m.age_ms)
                           : weir_buf_printf(b, "null");
    return rc;
}

static int describe(weir_buf *b, const weir_job *job,
                    const weir__cluster_conf *c, const char *group,
                    const char *membership, const xinfo *xs, uint32_t n_xs,
                    weir__control *ctl)
{
    uint32_t M = job->cfg.max_parallelism, R = c->partitions;
    int rc = weir_buf_printf(b, "{\"group\":");
    if (!rc)
        rc = put_str(b, group);
    if (!rc)
        rc = weir_buf_printf(b,
                             ",\"membership\":\"%s\",\"processes\":%u,"
                             "\"self\":%u,\"epoch\":%u,"
                             "\"max_parallelism\":%u,\"members\":[",
                             membership, c->processes, c->index, c->epoch, M);
    for (uint32_t j = 0; j < c->processes && !rc; j++) {
        rc = weir_buf_printf(b, "%s{\"index\":%u", j ? "," : "", j);
        if (!rc)
            rc = describe_member(b, ctl, j);
        if (!rc)
            rc = weir_buf_printf(b, ",\"sources\":[");
        bool first = true;
        for (uint32_t k = 0; k < job->n_nodes && !rc; k++) {
            const weir__node *n = &job->nodes[k];
            if (n->kind != WEIR__NODE_SOURCE || n->src.cls->watermark)
                continue;
            rc = weir_buf_printf(b, "%s{\"source\":", first ? "" : ",");
            first = false;
            if (!rc)
                rc = put_str(b, n->name);
            if (!rc)
                rc = weir_buf_printf(b, ",\"subtasks\":[%u,%u],\"of\":%u}",
                                     j * n->parallelism,
                                     (j + 1) * n->parallelism - 1,
                                     c->processes * n->parallelism);
        }
        if (!rc)
            rc = weir_buf_printf(b, "],\"repartition\":[");
        for (uint32_t x = 0; x < n_xs && !rc; x++) {
            uint32_t p = xs[x].reader_par, all = c->processes * p;
            rc = weir_buf_printf(b, "%s{\"topic\":", x ? "," : "");
            if (!rc)
                rc = put_str(b, xs[x].topic);
            if (!rc)
                rc = weir_buf_printf(b, ",\"partitions\":[");
            bool f2 = true;
            for (uint32_t r = 0; r < R && !rc; r++) {
                if (r % all / p != j)
                    continue;
                /* key groups g with floor(g * R / M) == r */
                uint32_t lo = (uint32_t)(((uint64_t)r * M + R - 1) / R),
                         hi = (uint32_t)(((uint64_t)(r + 1) * M + R - 1) / R);
                rc = weir_buf_printf(b,
                                     "%s{\"partition\":%u,"
                                     "\"key_groups\":[%u,%u]}",
                                     f2 ? "" : ",", r, lo, hi - 1);
                f2 = false;
            }
            if (!rc)
                rc = weir_buf_printf(b, "]}");
        }
        if (!rc)
            rc = weir_buf_printf(b, "]}");
    }
    if (!rc)
        rc = weir_buf_printf(b, "]}");
    return rc ? rc : weir_buf_put_u8(b, 0);
}

int weir__cluster_view_json(void *view, weir_buf *out)
{
    const weir__cluster_view *v = view;
    return describe(out, v->job, &v->conf, v->group, v->membership, v->xs,
                    v->n_xs, v->ctl);
}

void weir__cluster_view_self(const weir__cluster_view *v, uint32_t *index,
                             uint32_t *processes, uint32_t *epoch)
{
    *index = v->conf.index;
    *processes = v->conf.processes;
    *epoch = v->conf.epoch;
}

void weir__cluster_view_free(weir__cluster_view *v)
{
    if (!v)
        return;
    weir_free(v->group);
    weir_free(v->xs);
    weir_free(v);
}

#else

int weir__cluster_view_json(void *view, weir_buf *out)
{
    (void)view;
    (void)out;
    return WEIR_EUNSUPPORTED;
}

void weir__cluster_view_self(const weir__cluster_view *v, uint32_t *index,
                             uint32_t *processes, uint32_t *epoch)
{
    (void)v;
    *index = *processes = *epoch = 0;
}

void weir__cluster_view_free(weir__cluster_view *v)
{
    (void)v;
}

#endif

int weir__cluster_setup(weir_job *job, weir__cluster_cfg_fn cfg, void *ud,
                        bool *enabled, bool *left, weir__cluster_view **out,
                        weir_error *err)
{
    *enabled = false;
    *left = false;
    if (out)
        *out = NULL;
    const char *servers = cfg(ud, "weir.cluster.bootstrap-servers");
    if (!servers || !*servers)
        return 0;
    weir__cluster_conf c = {.servers = servers,
                            .epoch = 1,
                            .heartbeat_ms = 1000,
                            .session_timeout_ms = 10000};
    int rc;
    const char *ckpt_dir = cfg(ud, "state.checkpoints.dir");
    if (!ckpt_dir || !*ckpt_dir)
        ckpt_dir = cfg(ud, "execution.checkpointing.dir");
    if (ckpt_dir && !*ckpt_dir)
        ckpt_dir = NULL;
    /* Without an index, with checkpoints: the control topic numbers the
     * processes (automatic membership; weir.cluster.processes is then the
     * count a new job starts with, 1 when not set). */
    const char *v = cfg(ud, "weir.cluster.process-index");
    c.auto_index = !v && ckpt_dir;
    if ((v = cfg(ud, "weir.cluster.processes")) &&
        (rc = parse_u32("weir.cluster.processes", v, 1, 1024, &c.processes,
                        err)))
        return rc;
    if (!v && !c.auto_index)
        return weir_error_set(err, WEIR_EINVAL,
                              "weir.cluster.processes: not set (how many "
                              "processes run the job together)");
    v = cfg(ud, "weir.cluster.process-index");
    if (!v && !c.auto_index)
        return weir_error_set(err, WEIR_EINVAL,
                              "weir.cluster.process-index: not set (this "
                              "process's number, 0 to %u; without "
                              "state.checkpoints.dir the processes are "
                              "numbered by hand)",
                              c.processes - 1);
    if (v && (rc = parse_u32("weir.cluster.process-index", v, 0,
                             c.processes - 1, &c.index, err)))
        return rc;
    static const char *const ms_keys[] = {"weir.cluster.heartbeat-interval",
                                          "weir.cluster.session-timeout"};
    int64_t *ms_vals[] = {&c.heartbeat_ms, &c.session_timeout_ms};
    for (int i = 0; i < 2; i++)
        if ((v = cfg(ud, ms_keys[i])) &&
            (weir_option_parse_duration(v, ms_vals[i]) || *ms_vals[i] <= 0))
            return weir_error_set(err, WEIR_EINVAL,
                                  "%s: expected a positive duration (for "
                                  "example 1 s or 500 ms), got '%s'",
                                  ms_keys[i], v);
    if (c.session_timeout_ms <= c.heartbeat_ms)
        return weir_error_set(err, WEIR_EINVAL,
                              "weir.cluster.session-timeout: %lld ms, not "
                              "above weir.cluster.heartbeat-interval (%lld "
                              "ms): every member would look silent",
                              (long long)c.session_timeout_ms,
                              (long long)c.heartbeat_ms);
    /* 0: not given (the control topic's, or one per process) */
    c.partitions = 0;
    if ((v = cfg(ud, "weir.cluster.repartition-partitions")) &&
        (rc = parse_u32("weir.cluster.repartition-partitions", v, 1,
                        job->cfg.max_parallelism, &c.partitions, err)))
        return rc;
    uint32_t epoch = 1;
    if ((v = cfg(ud, "weir.cluster.epoch")) &&
        (rc = parse_u32("weir.cluster.epoch", v, 1, UINT32_MAX, &epoch, err)))
        return rc;
    c.epoch = epoch;
    const char *group = cfg(ud, "weir.cluster.group-id");
    if (!group || !*group)
        group = cfg(ud, "pipeline.name");
    if (!group || !*group)
        return weir_error_set(err, WEIR_EINVAL,
                              "weir.cluster.bootstrap-servers: the processes "
                              "of one job are known by its name: set "
                              "pipeline.name (or weir.cluster.group-id)");
    v = cfg(ud, "execution.checkpointing.interval");
    if (ckpt_dir && (!v || !*v || !strcmp(v, "0") || v[0] == '-'))
        return weir_error_set(
            err, WEIR_EINVAL,
            "execution.checkpointing.interval: a job run by several "
            "processes with state.checkpoints.dir needs an interval: its "
            "checkpoints (the last one too) are taken together");
    if (!ckpt_dir && v && *v)
        return weir_error_set(err, WEIR_EINVAL,
                              "execution.checkpointing.interval: a job run "
                              "by several processes keeps its checkpoints "
                              "in state.checkpoints.dir, which is not set");
    /* Savepoints are taken and restored across the processes, through the
     * control topic, which only a job with checkpoints has. */
    const char *sp_path = cfg(ud, "execution.savepoint.path");
    if (sp_path && !*sp_path)
        sp_path = NULL;
    if (!ckpt_dir && sp_path)
        return weir_error_set(err, WEIR_EINVAL,
                              "execution.savepoint.path: a job run by "
                              "several processes restores a savepoint "
                              "through its checkpoints across the "
                              "processes: set state.checkpoints.dir and "
                              "execution.checkpointing.interval");
#ifndef WEIR_HAVE_KAFKA
    (void)job;
    (void)out;
    return weir_error_set(err, WEIR_EUNSUPPORTED,
                          "weir.cluster.bootstrap-servers: this weir was "
                          "built without librdkafka (Debian: "
                          "librdkafka-dev), which running a job on several "
                          "processes needs");
#else
    char gpart[128];
    topic_part(gpart, sizeof gpart, group);
    /* Checkpoints across the processes: join the job through its control
     * topic, which says at which epoch this process runs. */
    weir__control *ctl = NULL;
    if (ckpt_dir) {
        char ctopic[160];
        snprintf(ctopic, sizeof ctopic, "%s-control", gpart);
        if ((rc = weir__control_open(&c, ctopic, ckpt_dir, sp_path, &ctl,
                                     left, err)))
            return rc;
    }
    if (!c.partitions)
        c.partitions = c.processes;
    if (c.partitions > job->cfg.max_parallelism) {
        weir__control_free(ctl);
        return weir_error_set(err, WEIR_EINVAL,
                              "weir.cluster.repartition-partitions: %u "
                              "partitions, more than the %u key groups "
                              "(pipeline.max-parallelism)",
                              c.partitions, job->cfg.max_parallelism);
    }
    uint32_t n_edges = job->n_edges;
    xinfo *xs = weir_calloc(n_edges ? n_edges : 1, sizeof *xs);
    uint32_t n_xs = 0;
    if (!xs) {
        weir__control_free(ctl);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < n_edges; i++) {
        const weir__edge *e = &job->edges[i];
        if (e->req_part == WEIR_PART_GLOBAL ||
            e->req_part == WEIR_PART_BROADCAST) {
            rc = weir_error_set(
                err, WEIR_EUNSUPPORTED,
                "weir.cluster.bootstrap-servers: %s reads its input "
                "through a %s exchange, which a job run by several "
                "processes cannot split yet (only keyed exchanges cross "
                "processes)",
                job->nodes[e->to].name, part_word(e->req_part));
            goto out;
        }
    }
    for (uint32_t i = 0; i < n_edges; i++) {
        if (job->edges[i].req_part != WEIR_PART_KEYED)
            continue;
        weir__edge e = job->edges[i];
        /* Adding nodes moves job->nodes: nothing points into it across. */
        const weir__node *to = &job->nodes[e.to];
        uint32_t to_par = to->parallelism,
                 from_par = job->nodes[e.from].parallelism;
        const weir_schema *schema = weir__edge_schema(job, &e);
        if (!schema) {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "weir.cluster: no schema for the input "
                                "of %s",
                                to->name);
            goto out;
        }
        char npart[96], topic[256];
        topic_part(npart, sizeof npart, to->uid ? to->uid : to->name);
        /* Kafka Streams style: <job>-<operator>-repartition, with the
         * operator's node id (and input, when not the first) to tell two
         * operators of one name apart. */
        if (e.input)
            snprintf(topic, sizeof topic, "%s-%s-%d-in%u-repartition", gpart,
                     npart, e.to, e.input);
        else
            snprintf(topic, sizeof topic, "%s-%s-%d-repartition", gpart, npart,
                     e.to);
        weir__exchange_spec x = {.conf = c,
                                 .topic = topic,
                                 .schema = schema,
                                 .key = e.key,
                                 .max_parallelism = job->cfg.max_parallelism,
                                 .writer_parallelism = from_par,
                                 .reader_share = to_par};
        if ((rc = weir__exchange_check_topic(&x, err)))
            goto out;
        weir_operator_spec wspec;
        weir_source_spec rspec;
        if ((rc = weir__exchange_specs(&x, &wspec, &rspec, err)))
            goto out;
        weir_stream up = {
            .node = e.from, .side_tag = e.side_tag, .part = WEIR_PART_FORWARD};
        if ((rc = weir_job_sink(job, up, &wspec, from_par))) {
            if (rspec.free_arg)
                rspec.free_arg(rspec.arg);
            {
                rc = weir_error_set(err, rc, "weir.cluster: %s",
                                    weir_job_error(job));
                goto out;
            }
        }
        weir_watermark_spec wm = {.kind = WEIR_WATERMARK_SOURCE,
                                  .idle_timeout_ms = -1};
        weir_stream rd;
        /* One reader subtask per process feeds the operator's p subtasks:
         * each has one channel from it, so a row read after a producer's
         * watermark meets that watermark there (exchange.h). */
        if ((rc = weir_job_source(job, &rspec, &wm, 1, &rd))) {
            if (rspec.free_arg)
                rspec.free_arg(rspec.arg);
            {
                rc = weir_error_set(err, rc, "weir.cluster: %s",
                                    weir_job_error(job));
                goto out;
            }
        }
        weir__edge *ke = &job->edges[i];
        ke->from = rd.node;
        ke->side_tag = 0;
        snprintf(xs[n_xs].topic, sizeof xs[n_xs].topic, "%s", topic);
        xs[n_xs++].reader_par = to_par;
    }
    job->cluster_index = c.index;
    job->cluster_count = c.processes;
    job->cluster_rescalable = ctl != NULL; /* its control topic can rescale */
    weir__control *view_ctl = ctl;
    if (ctl) {
        if ((rc = weir__job_set_ckpt_gate(job, weir__control_gate(ctl)))) {
            rc = weir_error_set(err, rc, "weir.cluster: the job has started");
            goto out;
        }
        ctl = NULL; /* the job's now */
    }
    *enabled = true;
    if (out) {
        weir__cluster_view *view = weir_calloc(1, sizeof *view);
        if (!view || !(view->group = weir_strdup(group))) {
            weir_free(view);
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto out;
        }
        *view = (weir__cluster_view){.job = job,
                                  .conf = c,
                                  .group = view->group,
                                  .membership = ckpt_dir
                                                    ? (c.auto_index
                                                           ? "automatic"
                                                           : "control topic")
                                                    : "static",
                                  .xs = xs,
                                  .n_xs = n_xs,
                                  .ctl = view_ctl};
        view->conf.servers = NULL; /* borrowed from the configuration */
        xs = NULL;
        *out = view;
    }
out:
    weir__control_free(ctl);
    weir_free(xs);
    return rc;
#endif
}
