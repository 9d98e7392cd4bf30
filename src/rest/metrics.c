/*
 * rest/metrics.c - /metrics in Prometheus's text exposition format
 * (version 0.0.4).
 *
 * Names: weir_job_task_operator_<Flink name> for operator metrics,
 * weir_job_task_<Flink name> for subtask metrics, weir_job_<Flink name>
 * for job metrics (Flink's Prometheus reporter writes
 * flink_taskmanager_job_task_operator_numRecordsIn and so on). Labels: job
 * (the job's name), job_id, task (the vertex: its head operator's name),
 * task_id, operator, subtask. A counter an operator or a source registers
 * itself becomes weir_job_task_operator_<its name>; a dotted name
 * "<prefix>.<metric>" (a source's per-split figure, such as Kafka's
 * "<topic>.<partition>.lag_records") becomes weir_job_task_operator_<metric>
 * with the prefix in the label "split". Watermarks are epoch milliseconds,
 * -9223372036854775808 for "none yet", as Flink reports them.
 *
 * A family's samples must be contiguous, so samples are collected first
 * and written family by family.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rest/rest_internal.h"

typedef struct sample {
    char *family; /* full metric name */
    const char *help;
    bool counter;
    char *labels; /* `k="v",...` */
    double value;
    bool integer;
    int64_t ivalue;
    size_t seq; /* order of arrival, to keep the sort stable */
} sample;

typedef struct samples {
    sample *v;
    size_t n, cap;
    int rc;
} samples;

/* Escapes a label value (backslash, quote, line break). */
static void put_label(weir_buf *b, const char *key, const char *v, bool first)
{
    weir_buf_printf(b, "%s%s=\"", first ? "" : ",", key);
    for (const char *p = v; *p; p++) {
        if (*p == '\\' || *p == '"')
            weir_buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            weir_buf_put(b, "\\n", 2);
        else
            weir_buf_put(b, p, 1);
    }
    weir_buf_put(b, "\"", 1);
}

static void add(samples *ss, const char *family, const char *help, bool counter, const weir_buf *labels,
                double value, bool integer, int64_t ivalue)
{
    if (ss->rc)
        return;
    if (ss->n == ss->cap) {
        size_t cap = ss->cap ? ss->cap * 2 : 256;
        sample *v = weir_realloc(ss->v, cap * sizeof *v);
        if (!v) {
            ss->rc = WEIR_ENOMEM;
            return;
        }
        ss->v = v;
        ss->cap = cap;
    }
    sample *s = &ss->v[ss->n];
    s->family = weir_strdup(family);
    s->labels = weir_malloc(labels->len + 1);
    if (!s->family || !s->labels) {
        weir_free(s->family);
        weir_free(s->labels);
        ss->rc = WEIR_ENOMEM;
        return;
    }
    memcpy(s->labels, labels->data, labels->len);
    s->labels[labels->len] = 0;
    s->help = help;
    s->counter = counter;
    s->value = value;
    s->integer = integer;
    s->ivalue = ivalue;
    s->seq = ss->n;
    ss->n++;
}

static void add_num(samples *ss, const char *family, const char *help, bool counter, const weir_buf *l, double v)
{
    add(ss, family, help, counter, l, v, false, 0);
}

static void add_int(samples *ss, const char *family, const char *help, bool counter, const weir_buf *l, int64_t v)
{
    add(ss, family, help, counter, l, (double)v, true, v);
}

/* Metric names allow [a-zA-Z0-9_:]; anything else becomes '_'. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == ':'))
            *s = '_';
}

typedef struct op_ctx {
    samples *ss;
    const weir_buf *labels;
} op_ctx;

/* Counters the runtime already exports under Flink's names. */
static bool listed_elsewhere(const char *name)
{
    return !strcmp(name, "late_records") || !strcmp(name, "late_records_dropped") || !strcmp(name, "late_rows");
}

static void op_counter(void *ud, const char *name, uint64_t v)
{
    op_ctx *c = ud;
    if (listed_elsewhere(name))
        return;
    const char *dot = strrchr(name, '.');
    char fam[300];
    weir_buf l;
    weir_buf_init(&l);
    weir_buf_put(&l, c->labels->data, c->labels->len);
    if (dot) {
        char prefix[256];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(dot - name), name);
        put_label(&l, "split", prefix, false);
        name = dot + 1;
    }
    snprintf(fam, sizeof fam, "weir_job_task_operator_%s", name);
    sanitize(fam);
    add_int(c->ss, fam, "a counter the operator or source reports itself", false, &l, (int64_t)v);
    weir_buf_fini(&l);
}

typedef struct split_mctx {
    samples *ss;
    const weir_buf *labels;
    int64_t now;
} split_mctx;

static void split_metrics(void *ud, const weir__insp_split *sp)
{
    split_mctx *c = ud;
    weir_buf l;
    weir_buf_init(&l);
    weir_buf_put(&l, c->labels->data, c->labels->len);
    put_label(&l, "split", sp->id, false);
    add_int(c->ss, "weir_job_task_operator_split_currentWatermark", "a source split's watermark (epoch ms)", false,
            &l, sp->wm);
    add_int(c->ss, "weir_job_task_operator_split_numRecordsIn", "rows read from the split", true, &l,
            (int64_t)sp->rows);
    add_int(c->ss, "weir_job_task_operator_split_silentTimeMs", "ms since the split's last row", false, &l,
            c->now - sp->last_data_ms);
    add_int(c->ss, "weir_job_task_operator_split_idle", "1 when the split is idle, 2 when finished", false, &l,
            sp->finished ? 2 : sp->idle ? 1 : 0);
    weir_buf_fini(&l);
}

static int cmp_family(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    int c = strcmp(x->family, y->family);
    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq; /* keep the order they came in */
}

static void collect(weir_rest *r, samples *ss)
{
    weir_job *job = r->job;
    int64_t now = weir__insp_now_ms(job);
    weir_buf base, l;
    weir_buf_init(&base);
    weir_buf_init(&l);
    put_label(&base, "job", r->cfg.job_name, true);
    put_label(&base, "job_id", r->job_id, false);

    /* Job: uptime and checkpoints. */
    add_int(ss, "weir_job_uptime", "ms since the job started", false, &base,
            (r->end_ms ? r->end_ms : now) - r->start_ms);
    if (r->have_ckpt) {
        const weir_checkpoint_stats *c = &r->ckpt;
        add_int(ss, "weir_job_numberOfCompletedCheckpoints", "checkpoints completed", true, &base,
                (int64_t)c->completed);
        add_int(ss, "weir_job_numberOfFailedCheckpoints", "checkpoints failed", true, &base, (int64_t)c->failed);
        add_int(ss, "weir_job_numberOfInProgressCheckpoints", "checkpoints in progress", false, &base,
                c->in_progress);
        add_int(ss, "weir_job_totalNumberOfCheckpoints", "checkpoints triggered", true, &base,
                (int64_t)(c->completed + c->failed + c->in_progress));
        add_int(ss, "weir_job_lastCheckpointDuration", "ms, trigger to completion", false, &base,
                c->last_duration_ms);
        add_int(ss, "weir_job_lastCheckpointSize", "bytes the last checkpoint stored itself", false, &base,
                (int64_t)c->last_checkpointed_bytes);
        add_int(ss, "weir_job_lastCheckpointFullSize", "bytes of state the last checkpoint holds", false, &base,
                (int64_t)c->last_size_bytes);
        add_int(ss, "weir_job_lastCompletedCheckpointId", "id of the last completed checkpoint", false, &base,
                (int64_t)c->last_id);
        add_int(ss, "weir_job_lastCheckpointCompletionTimestamp", "epoch ms the last checkpoint was triggered",
                false, &base, c->last_time_ms);
        add_int(ss, "weir_job_lastCheckpointRestoreId", "the checkpoint the job restored (0: none)", false, &base,
                (int64_t)c->restored_id);
    }
    weir_ts newest = WEIR_TS_MIN; /* newest event time any source read */
    for (uint32_t i = 0; i < r->n_subs; i++)
        if (r->subs[i].cur.newest_ts > newest)
            newest = r->subs[i].cur.newest_ts;
    for (uint32_t t = 0; t < r->n_tasks; t++) {
        weir__insp_task task;
        weir__insp_task_get(job, t, &task);
        char tname[256], tid[16];
        rest_task_name(r, t, tname, sizeof tname);
        snprintf(tid, sizeof tid, "%u", t);
        for (uint32_t s = 0; s < task.parallelism; s++) {
            const rest_sub *rs = &r->subs[r->sub_off[t] + s];
            char sub[16];
            snprintf(sub, sizeof sub, "%u", s);
            weir_buf_clear(&l);
            weir_buf_put(&l, base.data, base.len);
            put_label(&l, "task", tname, false);
            put_label(&l, "task_id", tid, false);
            put_label(&l, "subtask", sub, false);
            add_num(ss, "weir_job_task_busyTimeMsPerSecond", "ms per second the subtask was busy", false, &l,
                    rs->busy_ms_s);
            add_num(ss, "weir_job_task_backPressuredTimeMsPerSecond",
                    "ms per second the subtask waited for room downstream", false, &l, rs->bp_ms_s);
            add_num(ss, "weir_job_task_idleTimeMsPerSecond", "ms per second the subtask waited for input", false,
                    &l, rs->idle_ms_s);
            add_int(ss, "weir_job_task_inputQueueLength", "messages queued in the subtask's input channels", false,
                    &l, rs->cur.queued);
            add_int(ss, "weir_job_task_currentOutputWatermark", "the subtask's output watermark (epoch ms)", false,
                    &l, rs->cur.out_wm);
            if (rs->held && rs->cur.out_wm != WEIR_TS_MAX)
                add_int(ss, "weir_job_task_watermarkStalledTimeMs", "ms since the subtask's watermark last moved",
                        false, &l, now - rs->since_ms);
            size_t task_len = l.len;
            for (uint32_t o = 0; o < task.n_nodes; o++) {
                weir__insp_node n;
                weir__insp_node_get(job, (uint32_t)task.nodes[o], &n);
                weir__insp_op op;
                if (weir__insp_op_get(job, t, s, o, &op))
                    continue;
                const rest_opm *om = &r->ops[r->op_off[t] + s * task.n_nodes + o];
                l.len = task_len;
                char nid[16];
                snprintf(nid, sizeof nid, "%d", n.id);
                put_label(&l, "operator", n.name, false);
                put_label(&l, "operator_id", nid, false); /* names repeat (Calc) */
                add_int(ss, "weir_job_task_operator_numRecordsIn", "rows into the operator", true, &l,
                        (int64_t)op.records_in);
                add_int(ss, "weir_job_task_operator_numRecordsOut", "rows out of the operator", true, &l,
                        (int64_t)op.records_out);
                add_num(ss, "weir_job_task_operator_numRecordsInPerSecond", "rows per second into the operator",
                        false, &l, om->in_rate);
                add_num(ss, "weir_job_task_operator_numRecordsOutPerSecond", "rows per second out of the operator",
                        false, &l, om->out_rate);
                add_int(ss, "weir_job_task_operator_numLateRecordsDropped",
                        "rows the operator judged late (dropped or sent to the late-records side output)", true, &l,
                        (int64_t)op.late_records);
                if (!n.is_source)
                    add_int(ss, "weir_job_task_operator_currentInputWatermark",
                            "the operator's input watermark (epoch ms)", false, &l, op.in_wm);
                add_int(ss, "weir_job_task_operator_currentOutputWatermark",
                        "the operator's output watermark (epoch ms)", false, &l, op.out_wm);
                weir_ts wm = n.is_source ? op.out_wm : op.in_wm;
                if (newest != WEIR_TS_MIN && wm != WEIR_TS_MIN && wm != WEIR_TS_MAX)
                    add_int(ss, "weir_job_task_operator_watermarkLag",
                            "ms between the newest event time read by the sources and the operator's watermark",
                            false, &l, newest - wm);
                op_ctx c = {.ss = ss, .labels = &l};
                weir__insp_op_counters(job, t, s, o, op_counter, &c);
                if (n.is_source && o == 0) {
                    split_mctx sc = {.ss = ss, .labels = &l, .now = now};
                    weir__insp_splits(job, t, s, split_metrics, &sc);
                }
            }
        }
    }
    weir_buf_fini(&base);
    weir_buf_fini(&l);
}

int rest_metrics_render(weir_rest *r, weir_buf *out)
{
    samples ss = {0};
    pthread_mutex_lock(&r->mu);
    collect(r, &ss);
    pthread_mutex_unlock(&r->mu);
    int rc = ss.rc;
    if (!rc && ss.n > 1)
        qsort(ss.v, ss.n, sizeof *ss.v, cmp_family);
    const char *last = "";
    for (size_t i = 0; i < ss.n && !rc; i++) {
        sample *s = &ss.v[i];
        if (strcmp(s->family, last)) {
            rc = weir_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", s->family, s->help, s->family,
                                 s->counter ? "counter" : "gauge");
            last = s->family;
        }
        if (!rc && s->integer)
            rc = weir_buf_printf(out, "%s{%s} %" PRId64 "\n", s->family, s->labels, s->ivalue);
        else if (!rc)
            rc = weir_buf_printf(out, "%s{%s} %.6g\n", s->family, s->labels, s->value);
    }
    for (size_t i = 0; i < ss.n; i++) {
        weir_free(ss.v[i].family);
        weir_free(ss.v[i].labels);
    }
    weir_free(ss.v);
    return rc;
}
