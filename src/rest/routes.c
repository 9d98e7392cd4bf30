/*
 * rest/routes.c - the JSON of the read-only endpoints (docs/rest.md),
 * shaped after Flink's REST API where Flink has the same endpoint:
 *
 *   /jobs, /jobs/overview            the job (weir runs one per process)
 *   /jobs/:id                        state, times, vertices with metrics
 *   /jobs/:id/plan                   tasks, chaining, exchanges
 *   /jobs/:id/vertices/:vid          per subtask and per operator figures
 *   /jobs/:id/vertices/:vid/watermarks    per subtask, input channel, split
 *   /jobs/:id/vertices/:vid/backpressure  Flink's levels and ratios
 *   /jobs/:id/watermarks             who holds each watermark back (weir)
 *   /jobs/:id/checkpoints            counts, latest, history
 *   /jobs/:id/exceptions             the failure, if any
 *
 * A vertex is a task (a chain of operators) and its id is the task's
 * number. Watermarks are epoch milliseconds, null for "none yet" and "end"
 * after the end of input.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rest/rest_internal.h"

static void times(jw *w, const weir_rest *r, int64_t now)
{
    jw_int(w, "start-time", r->start_ms);
    jw_int(w, "end-time", r->end_ms ? r->end_ms : -1);
    jw_int(w, "duration", (r->end_ms ? r->end_ms : now) - r->start_ms);
    jw_int(w, "now", now);
}

static const char *subtask_status(const rest_sub *rs)
{
    if (!rs->cur.start_ns)
        return "INITIALIZING";
    return rs->cur.end_ns ? "FINISHED" : "RUNNING";
}

/* Sums over the subtasks of task t. */
typedef struct vsum {
    uint64_t in, out, late;
    double in_rate, out_rate;
    double busy_max, bp_max, idle_min;
    uint32_t running, finished;
    weir_ts in_wm_min, out_wm_min;
} vsum;

static void vertex_sum(const weir_rest *r, uint32_t t, vsum *v)
{
    weir__insp_task task;
    weir__insp_task_get(r->job, t, &task);
    memset(v, 0, sizeof *v);
    v->idle_min = 1000;
    v->in_wm_min = v->out_wm_min = WEIR_TS_MAX;
    for (uint32_t s = 0; s < task.parallelism; s++) {
        const rest_sub *rs = &r->subs[r->sub_off[t] + s];
        weir__insp_op head, tail;
        weir__insp_op_get(r->job, t, s, 0, &head);
        weir__insp_op_get(r->job, t, s, task.n_nodes - 1, &tail);
        const rest_opm *oh = &r->ops[r->op_off[t] + s * task.n_nodes];
        const rest_opm *ot = oh + task.n_nodes - 1;
        /* A source task reads what its source emits. */
        v->in += task.is_source ? head.records_out : head.records_in;
        v->out += tail.records_out;
        v->in_rate += task.is_source ? oh->out_rate : oh->in_rate;
        v->out_rate += ot->out_rate;
        for (uint32_t o = 0; o < task.n_nodes; o++) {
            weir__insp_op op;
            weir__insp_op_get(r->job, t, s, o, &op);
            v->late += op.late_records;
        }
        if (rs->busy_ms_s > v->busy_max)
            v->busy_max = rs->busy_ms_s;
        if (rs->bp_ms_s > v->bp_max)
            v->bp_max = rs->bp_ms_s;
        if (rs->idle_ms_s < v->idle_min)
            v->idle_min = rs->idle_ms_s;
        if (rs->cur.end_ns)
            v->finished++;
        else if (rs->cur.start_ns)
            v->running++;
        if (head.in_wm < v->in_wm_min)
            v->in_wm_min = head.in_wm;
        if (rs->cur.out_wm < v->out_wm_min)
            v->out_wm_min = rs->cur.out_wm;
    }
}

static void vertex_brief(jw *w, const weir_rest *r, uint32_t t, int64_t now)
{
    weir__insp_task task;
    weir__insp_task_get(r->job, t, &task);
    vsum v;
    vertex_sum(r, t, &v);
    char name[256];
    jw_obj(w, NULL);
    jw_int(w, "id", t);
    jw_str(w, "name", rest_task_name(r, t, name, sizeof name));
    jw_int(w, "parallelism", task.parallelism);
    jw_str(w, "status", v.finished == task.parallelism ? "FINISHED" : v.running ? "RUNNING" : "INITIALIZING");
    jw_int(w, "start-time", r->start_ms);
    jw_int(w, "duration", (r->end_ms ? r->end_ms : now) - r->start_ms);
    jw_obj(w, "tasks");
    jw_int(w, "RUNNING", v.running);
    jw_int(w, "FINISHED", v.finished);
    jw_end(w);
    jw_obj(w, "metrics");
    jw_uint(w, "read-records", v.in);
    jw_uint(w, "write-records", v.out);
    jw_num(w, "read-records-per-second", v.in_rate);
    jw_num(w, "write-records-per-second", v.out_rate);
    jw_uint(w, "late-records", v.late);
    jw_num(w, "accumulated-busy-time", v.busy_max);
    jw_num(w, "accumulated-backpressured-time", v.bp_max);
    jw_num(w, "accumulated-idle-time", v.idle_min);
    jw_wm(w, "current-input-watermark", task.is_source ? WEIR_TS_MIN : v.in_wm_min);
    jw_wm(w, "current-output-watermark", v.out_wm_min);
    jw_end(w);
    jw_arr(w, "operators");
    for (uint32_t o = 0; o < task.n_nodes; o++) {
        weir__insp_node n;
        weir__insp_node_get(r->job, (uint32_t)task.nodes[o], &n);
        jw_str(w, NULL, n.name);
    }
    jw_end(w);
    jw_end(w);
}

static void plan_json(jw *w, const weir_rest *r)
{
    jw_obj(w, "plan");
    jw_str(w, "jid", r->job_id);
    jw_str(w, "name", r->cfg.job_name);
    jw_str(w, "type", "STREAMING");
    jw_arr(w, "nodes");
    uint32_t n_edges = weir__insp_n_edges(r->job);
    for (uint32_t t = 0; t < r->n_tasks; t++) {
        weir__insp_task task;
        weir__insp_task_get(r->job, t, &task);
        char name[256];
        jw_obj(w, NULL);
        jw_int(w, "id", t);
        jw_int(w, "parallelism", task.parallelism);
        jw_str(w, "operator", rest_task_name(r, t, name, sizeof name));
        jw_bool(w, "source", task.is_source);
        /* The chain, head first: Flink's description joins the names. */
        weir_buf d;
        weir_buf_init(&d);
        jw_arr(w, "operators");
        for (uint32_t o = 0; o < task.n_nodes; o++) {
            weir__insp_node n;
            weir__insp_node_get(r->job, (uint32_t)task.nodes[o], &n);
            jw_obj(w, NULL);
            jw_int(w, "id", n.id);
            jw_str(w, "name", n.name);
            jw_bool(w, "sink", n.is_sink);
            jw_end(w);
            weir_buf_printf(&d, "%s%s", o ? " -> " : "", n.name);
        }
        jw_end(w);
        jw_strn(w, "description", d.data ? (const char *)d.data : "", d.len);
        weir_buf_fini(&d);
        jw_arr(w, "inputs");
        for (uint32_t e = 0; e < n_edges; e++) {
            weir__insp_edge ed;
            weir__insp_edge_get(r->job, e, &ed);
            weir__insp_node to, from;
            weir__insp_node_get(r->job, (uint32_t)ed.to, &to);
            weir__insp_node_get(r->job, (uint32_t)ed.from, &from);
            if (ed.chained || to.task != (int)t)
                continue;
            jw_obj(w, NULL);
            jw_int(w, "num", ed.input);
            jw_int(w, "id", from.task);
            jw_str(w, "ship_strategy", ed.part);
            jw_str(w, "exchange", "pipelined_bounded");
            jw_str(w, "from_operator", from.name);
            jw_str(w, "to_operator", to.name);
            if (ed.side_tag)
                jw_int(w, "side_output", ed.side_tag);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

static void job_overview(jw *w, const weir_rest *r, int64_t now)
{
    uint32_t running = 0, finished = 0, total = 0;
    for (uint32_t i = 0; i < r->n_subs; i++) {
        total++;
        if (r->subs[i].cur.end_ns)
            finished++;
        else if (r->subs[i].cur.start_ns)
            running++;
    }
    jw_str(w, "jid", r->job_id);
    jw_str(w, "name", r->cfg.job_name);
    jw_str(w, "state", rest_state_name(r));
    times(w, r, now);
    jw_obj(w, "tasks");
    jw_int(w, "total", total);
    jw_int(w, "running", running);
    jw_int(w, "finished", finished);
    jw_end(w);
}

static void holder_json(jw *w, const weir_rest *r, uint32_t t, uint32_t s, int64_t now)
{
    const rest_sub *rs = &r->subs[r->sub_off[t] + s];
    jw_obj(w, "held-by");
    jw_bool(w, "held", rs->held);
    if (rs->held) {
        if (rs->in_idx >= 0) {
            jw_int(w, "input-channel", rs->in_idx);
            jw_int(w, "from-vertex", rs->from_task);
            jw_int(w, "from-subtask", rs->from_subtask);
        }
        jw_wm(w, "watermark", rs->wm);
        if (rs->behind_ms >= 0)
            jw_int(w, "behind-others-ms", rs->behind_ms);
        else
            jw_null(w, "behind-others-ms");
    }
    jw_int(w, "since", rs->since_ms);
    jw_int(w, "stalled-ms", now - rs->since_ms);
    jw_str(w, "by", rs->by);
    jw_str(w, "reason", rs->reason);
    char label[256];
    rest_task_label(r, t, s, label, sizeof label);
    if (rs->held) {
        char text[1100];
        snprintf(text, sizeof text, "%s watermark held by %s%s%s", label, rs->by, rs->reason[0] ? ": " : "",
                 rs->reason);
        jw_str(w, "text", text);
    } else {
        jw_null(w, "text");
    }
    jw_end(w);
}

typedef struct split_ctx {
    jw *w;
    int64_t now;
} split_ctx;

static void split_json(void *ud, const weir__insp_split *sp)
{
    split_ctx *c = ud;
    jw *w = c->w;
    jw_obj(w, NULL);
    jw_str(w, "id", sp->id);
    jw_wm(w, "watermark", sp->wm);
    jw_wm(w, "max-event-time", sp->max_ts);
    jw_str(w, "status", sp->finished ? "FINISHED" : sp->idle ? "IDLE" : "ACTIVE");
    jw_uint(w, "records", sp->rows);
    jw_int(w, "last-record-time", sp->last_data_ms);
    jw_int(w, "silent-ms", c->now - sp->last_data_ms);
    jw_end(w);
}

static void watermarks_json(jw *w, const weir_rest *r, uint32_t t, int64_t now)
{
    weir__insp_task task;
    weir__insp_task_get(r->job, t, &task);
    jw_arr(w, "subtasks");
    for (uint32_t s = 0; s < task.parallelism; s++) {
        const rest_sub *rs = &r->subs[r->sub_off[t] + s];
        weir__insp_op head;
        weir__insp_op_get(r->job, t, s, 0, &head);
        jw_obj(w, NULL);
        jw_int(w, "subtask", s);
        jw_wm(w, "currentInputWatermark", task.is_source ? WEIR_TS_MIN : head.in_wm);
        jw_wm(w, "currentOutputWatermark", rs->cur.out_wm);
        if (task.is_source) {
            jw_arr(w, "splits");
            split_ctx c = {.w = w, .now = now};
            weir__insp_splits(r->job, t, s, split_json, &c);
            jw_end(w);
        } else {
            jw_arr(w, "inputs");
            for (uint32_t i = 0; i < rs->cur.n_in; i++) {
                weir__insp_input in;
                if (weir__insp_input_get(r->job, t, s, i, &in))
                    break;
                jw_obj(w, NULL);
                jw_int(w, "channel", i);
                jw_int(w, "input", in.input);
                jw_int(w, "from-vertex", in.from_task);
                jw_int(w, "from-subtask", in.from_subtask);
                jw_wm(w, "watermark", in.wm);
                jw_str(w, "status", in.status == WEIR__INSP_ENDED ? "ENDED"
                                    : in.status == WEIR__INSP_IDLE ? "IDLE"
                                                                   : "ACTIVE");
                if (in.last_data_ms == WEIR_TS_MIN)
                    jw_null(w, "last-record-time");
                else
                    jw_int(w, "last-record-time", in.last_data_ms);
                jw_int(w, "queued", in.queued);
                jw_int(w, "capacity", in.capacity);
                jw_end(w);
            }
            jw_end(w);
        }
        holder_json(w, r, t, s, now);
        jw_end(w);
    }
    jw_end(w);
}

static const char *bp_level(double ms_s)
{
    /* Flink's thresholds on the backpressured ratio. */
    double ratio = ms_s / 1000.0;
    return ratio <= 0.10 ? "ok" : ratio <= 0.5 ? "low" : "high";
}

static void backpressure_json(jw *w, const weir_rest *r, uint32_t t, int64_t now)
{
    weir__insp_task task;
    weir__insp_task_get(r->job, t, &task);
    double max = 0;
    for (uint32_t s = 0; s < task.parallelism; s++)
        if (r->subs[r->sub_off[t] + s].bp_ms_s > max)
            max = r->subs[r->sub_off[t] + s].bp_ms_s;
    jw_str(w, "status", "ok");
    jw_str(w, "backpressure-level", bp_level(max));
    jw_int(w, "end-timestamp", now);
    jw_arr(w, "subtasks");
    for (uint32_t s = 0; s < task.parallelism; s++) {
        const rest_sub *rs = &r->subs[r->sub_off[t] + s];
        jw_obj(w, NULL);
        jw_int(w, "subtask", s);
        jw_str(w, "backpressure-level", bp_level(rs->bp_ms_s));
        jw_num(w, "ratio", rs->bp_ms_s / 1000.0);
        jw_num(w, "idleRatio", rs->idle_ms_s / 1000.0);
        jw_num(w, "busyRatio", rs->busy_ms_s / 1000.0);
        jw_int(w, "queued", rs->cur.queued);
        jw_int(w, "capacity", rs->cur.capacity);
        jw_end(w);
    }
    jw_end(w);
}

typedef struct counter_ctx {
    jw *w;
} counter_ctx;

static void counter_json(void *ud, const char *name, uint64_t v)
{
    jw_uint(((counter_ctx *)ud)->w, name, v);
}

static void vertex_detail(jw *w, const weir_rest *r, uint32_t t, int64_t now)
{
    weir__insp_task task;
    weir__insp_task_get(r->job, t, &task);
    char name[256];
    jw_int(w, "id", t);
    jw_str(w, "name", rest_task_name(r, t, name, sizeof name));
    jw_int(w, "parallelism", task.parallelism);
    jw_int(w, "now", now);
    jw_arr(w, "subtasks");
    for (uint32_t s = 0; s < task.parallelism; s++) {
        const rest_sub *rs = &r->subs[r->sub_off[t] + s];
        jw_obj(w, NULL);
        jw_int(w, "subtask", s);
        jw_str(w, "status", subtask_status(rs));
        jw_num(w, "busyTimeMsPerSecond", rs->busy_ms_s);
        jw_num(w, "backPressuredTimeMsPerSecond", rs->bp_ms_s);
        jw_num(w, "idleTimeMsPerSecond", rs->idle_ms_s);
        jw_wm(w, "currentOutputWatermark", rs->cur.out_wm);
        jw_arr(w, "operators");
        for (uint32_t o = 0; o < task.n_nodes; o++) {
            weir__insp_node n;
            weir__insp_node_get(r->job, (uint32_t)task.nodes[o], &n);
            weir__insp_op op;
            weir__insp_op_get(r->job, t, s, o, &op);
            const rest_opm *om = &r->ops[r->op_off[t] + s * task.n_nodes + o];
            jw_obj(w, NULL);
            jw_str(w, "name", n.name);
            jw_uint(w, "numRecordsIn", op.records_in);
            jw_uint(w, "numRecordsOut", op.records_out);
            jw_num(w, "numRecordsInPerSecond", om->in_rate);
            jw_num(w, "numRecordsOutPerSecond", om->out_rate);
            jw_uint(w, "numLateRecordsDropped", op.late_records);
            jw_wm(w, "currentInputWatermark", n.is_source ? WEIR_TS_MIN : op.in_wm);
            jw_wm(w, "currentOutputWatermark", op.out_wm);
            jw_obj(w, "counters");
            counter_ctx c = {.w = w};
            weir__insp_op_counters(r->job, t, s, o, counter_json, &c);
            jw_end(w);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
}

static void ckpt_entry(jw *w, const char *key, const rest_ckpt *h)
{
    jw_obj(w, key);
    jw_uint(w, "id", h->id);
    jw_str(w, "status", "COMPLETED");
    jw_bool(w, "is_savepoint", false);
    jw_int(w, "trigger_timestamp", h->trigger_ms);
    jw_int(w, "latest_ack_timestamp", h->trigger_ms + h->sync_ms);
    jw_int(w, "end_to_end_duration", h->duration_ms);
    jw_int(w, "sync_duration", h->sync_ms);
    jw_int(w, "async_duration", h->async_ms);
    jw_uint(w, "state_size", h->size_bytes);
    jw_uint(w, "checkpointed_size", h->checkpointed_bytes);
    jw_end(w);
}

static void checkpoints_json(jw *w, const weir_rest *r)
{
    const weir_checkpoint_stats *c = &r->ckpt;
    jw_bool(w, "enabled", r->have_ckpt);
    jw_obj(w, "counts");
    jw_uint(w, "restored", r->have_ckpt && c->restored_id ? 1 : 0);
    jw_uint(w, "total", r->have_ckpt ? c->completed + c->failed + c->in_progress : 0);
    jw_uint(w, "in_progress", r->have_ckpt ? c->in_progress : 0);
    jw_uint(w, "completed", r->have_ckpt ? c->completed : 0);
    jw_uint(w, "failed", r->have_ckpt ? c->failed : 0);
    jw_end(w);
    jw_obj(w, "latest");
    if (r->have_ckpt && r->n_hist) {
        ckpt_entry(w, "completed", &r->hist[(r->n_hist - 1) % REST_CKPT_HISTORY]);
    } else {
        jw_null(w, "completed");
    }
    if (r->have_ckpt && c->failed && c->last_failure[0]) {
        jw_obj(w, "failed");
        jw_str(w, "failure_message", c->last_failure);
        jw_end(w);
    } else {
        jw_null(w, "failed");
    }
    if (r->have_ckpt && c->restored_id) {
        jw_obj(w, "restored");
        jw_uint(w, "id", c->restored_id);
        jw_end(w);
    } else {
        jw_null(w, "restored");
    }
    jw_end(w);
    jw_arr(w, "history"); /* newest first */
    uint32_t n = r->n_hist < REST_CKPT_HISTORY ? r->n_hist : REST_CKPT_HISTORY;
    for (uint32_t i = 0; i < n; i++)
        ckpt_entry(w, NULL, &r->hist[(r->n_hist - 1 - i) % REST_CKPT_HISTORY]);
    jw_end(w);
}

/* Splits "/jobs/<id>/rest" into its parts; returns how many. */
static int split_path(const char *path, char parts[][128], int max)
{
    int n = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n == max || len >= 128)
            return -1;
        memcpy(parts[n], p, len);
        parts[n][len] = 0;
        n++;
        p += len;
    }
    return n;
}

static bool parse_vertex(const weir_rest *r, const char *s, uint32_t *t)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v >= r->n_tasks)
        return false;
    *t = (uint32_t)v;
    return true;
}

static int error_json(weir_buf *out, int status, const char *msg)
{
    jw w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_arr(&w, "errors");
    jw_str(&w, NULL, msg);
    jw_end(&w);
    jw_end(&w);
    return status;
}

int rest_route_get(weir_rest *r, const char *path, weir_buf *out)
{
    char parts[6][128];
    int n = split_path(path, parts, 6);
    if (n < 1 || strcmp(parts[0], "jobs") != 0)
        return error_json(out, 404, "Not found: no such endpoint");
    pthread_mutex_lock(&r->mu);
    int64_t now = weir__insp_now_ms(r->job);
    jw w;
    jw_init(&w, out);
    int status = 200;
    uint32_t t = 0;
    if (n == 1) {
        jw_obj(&w, NULL);
        jw_arr(&w, "jobs");
        jw_obj(&w, NULL);
        jw_str(&w, "id", r->job_id);
        jw_str(&w, "status", rest_state_name(r));
        jw_end(&w);
        jw_end(&w);
        jw_end(&w);
    } else if (n == 2 && !strcmp(parts[1], "overview")) {
        jw_obj(&w, NULL);
        jw_arr(&w, "jobs");
        jw_obj(&w, NULL);
        job_overview(&w, r, now);
        jw_end(&w);
        jw_end(&w);
        jw_end(&w);
    } else if (strcmp(parts[1], r->job_id) != 0) {
        status = 404;
    } else if (n == 2) {
        jw_obj(&w, NULL);
        job_overview(&w, r, now);
        jw_bool(&w, "isStoppable", true);
        jw_arr(&w, "vertices");
        for (uint32_t i = 0; i < r->n_tasks; i++)
            vertex_brief(&w, r, i, now);
        jw_end(&w);
        plan_json(&w, r);
        jw_end(&w);
    } else if (n == 3 && !strcmp(parts[2], "plan")) {
        jw_obj(&w, NULL);
        plan_json(&w, r);
        jw_end(&w);
    } else if (n == 3 && !strcmp(parts[2], "checkpoints")) {
        jw_obj(&w, NULL);
        checkpoints_json(&w, r);
        jw_end(&w);
    } else if (n == 3 && !strcmp(parts[2], "exceptions")) {
        const char *err = weir_job_error(r->job);
        bool failed = err && *err;
        jw_obj(&w, NULL);
        jw_str(&w, "root-exception", failed ? err : NULL);
        if (failed)
            jw_int(&w, "timestamp", r->end_ms ? r->end_ms : now);
        else
            jw_null(&w, "timestamp");
        jw_arr(&w, "all-exceptions");
        jw_end(&w);
        jw_obj(&w, "exceptionHistory");
        jw_arr(&w, "entries");
        if (failed) {
            jw_obj(&w, NULL);
            jw_str(&w, "exceptionName", "weir job failure");
            jw_str(&w, "stacktrace", err);
            jw_int(&w, "timestamp", r->end_ms ? r->end_ms : now);
            jw_end(&w);
        }
        jw_end(&w);
        jw_bool(&w, "truncated", false);
        jw_end(&w);
        jw_end(&w);
    } else if (n == 3 && !strcmp(parts[2], "watermarks")) {
        /* weir: every vertex's subtasks with who holds them back. */
        jw_obj(&w, NULL);
        jw_int(&w, "now", now);
        jw_arr(&w, "vertices");
        for (uint32_t i = 0; i < r->n_tasks; i++) {
            char name[256];
            jw_obj(&w, NULL);
            jw_int(&w, "id", i);
            jw_str(&w, "name", rest_task_name(r, i, name, sizeof name));
            watermarks_json(&w, r, i, now);
            jw_end(&w);
        }
        jw_end(&w);
        jw_end(&w);
    } else if (n >= 4 && !strcmp(parts[2], "vertices") && parse_vertex(r, parts[3], &t)) {
        jw_obj(&w, NULL);
        if (n == 4) {
            vertex_detail(&w, r, t, now);
        } else if (n == 5 && !strcmp(parts[4], "watermarks")) {
            jw_int(&w, "id", t);
            jw_int(&w, "now", now);
            watermarks_json(&w, r, t, now);
        } else if (n == 5 && !strcmp(parts[4], "backpressure")) {
            backpressure_json(&w, r, t, now);
        } else {
            status = 404;
        }
        jw_end(&w);
    } else {
        status = 404;
    }
    pthread_mutex_unlock(&r->mu);
    if (w.rc) {
        weir_buf_clear(out);
        return error_json(out, 500, "Internal server error: out of memory");
    }
    if (status == 404) {
        weir_buf_clear(out);
        return error_json(out, 404, "Not found: no such job or endpoint");
    }
    return status;
}
