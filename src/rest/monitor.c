/*
 * rest/monitor.c - the job as the monitor thread samples it.
 *
 * Once per sample interval (rest_config.sample_ms) it reads every subtask
 * and operator through runtime/inspect.h and derives what a single reading
 * cannot give: rates (rows per second over the interval), how each
 * subtask's time split into busy, backpressured and idle (ms per second,
 * as Flink's busyTimeMsPerSecond), the checkpoints completed since the
 * last sample (history), and who holds each watermark back:
 *
 *   - a consumer subtask's watermark is the minimum over its active input
 *     channels, so the holder is the active channel with the smallest
 *     watermark (ties: the one silent longest); behind it is a producer
 *     subtask, whose own holder is followed the same way until a source;
 *   - a source subtask's watermark is the minimum over its active splits,
 *     so the holder is the active split with the smallest watermark;
 *   - the reason is what weir can see at that split: no record for a while
 *     (and whether an idle timeout would have let the others go on), no
 *     record at all yet, a backlog the source reports (a counter
 *     "<split>.lag_records"), backpressure, or plain slower event time.
 *
 * When an operator's watermark has not moved for stall_warn_ms while the
 * job runs, the monitor writes one line saying so to the log, once per
 * stall (a watermark that moves again starts a new one).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rest/rest_internal.h"
#include "weir/clock.h"

/* A task's name: its head operator's, "Source: <table>" for a table's
 * source (as Flink names source vertices). */
const char *rest_task_name(const weir_rest *r, uint32_t t, char *out, size_t cap)
{
    weir__insp_task task;
    weir__insp_task_get(r->job, t, &task);
    weir__insp_node n;
    weir__insp_node_get(r->job, (uint32_t)task.nodes[0], &n);
    if (n.is_source && n.table[0])
        snprintf(out, cap, "Source: %s", n.table);
    else
        snprintf(out, cap, "%s", n.name);
    return out;
}

void rest_task_label(const weir_rest *r, uint32_t t, uint32_t s, char *out, size_t cap)
{
    char name[200];
    /* a long name is cut (the result is read to say so to gcc) */
    if (snprintf(out, cap, "%s[%u]", rest_task_name(r, t, name, sizeof name), s) >= (int)cap && cap > 0)
        out[cap - 1] = '\0';
}

const char *rest_state_name(const weir_rest *r)
{
    int phase = weir__insp_phase(r->job);
    if (phase == 0)
        return "CREATED";
    if (phase == 1)
        return "RUNNING";
    const char *err = weir_job_error(r->job);
    return err && *err ? "FAILED" : "FINISHED";
}

static void fmt_secs(char *out, size_t cap, int64_t ms)
{
    if (ms < 10000)
        snprintf(out, cap, "%.1f s", (double)ms / 1000.0);
    else
        snprintf(out, cap, "%" PRId64 " s", ms / 1000);
}

typedef struct lag_find {
    const char *split;
    size_t split_len;
    uint64_t lag;
    bool found;
} lag_find;

/* A source's counter "<split id>.lag_records": records not read yet. */
static void find_lag(void *ud, const char *name, uint64_t v)
{
    lag_find *f = ud;
    static const char suffix[] = ".lag_records";
    size_t n = strlen(name), m = sizeof suffix - 1;
    if (n == f->split_len + m && !strncmp(name, f->split, f->split_len) && !strcmp(name + f->split_len, suffix)) {
        f->lag = v;
        f->found = true;
    }
}

typedef struct split_pick {
    weir__insp_split best; /* the holder: active, smallest watermark */
    char best_id[200];
    bool have_best;
    uint32_t n, n_finished, n_idle;
    int64_t last_data_ms; /* newest over every split */
} split_pick;

static void pick_split(void *ud, const weir__insp_split *sp)
{
    split_pick *p = ud;
    p->n++;
    if (sp->last_data_ms > p->last_data_ms)
        p->last_data_ms = sp->last_data_ms;
    if (sp->finished) {
        p->n_finished++;
        return;
    }
    if (sp->idle) {
        p->n_idle++;
        return;
    }
    if (!p->have_best || sp->wm < p->best.wm ||
        (sp->wm == p->best.wm && sp->last_data_ms < p->best.last_data_ms)) {
        p->best = *sp;
        snprintf(p->best_id, sizeof p->best_id, "%s", sp->id);
        p->best.id = p->best_id;
        p->have_best = true;
    }
}

static void add_reason(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_reason(char *out, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(out);
    if (n + 3 >= cap)
        return;
    if (n) {
        memcpy(out + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, cap - n, fmt, ap);
    va_end(ap);
}

/* A source subtask: which split holds its watermark, and why. */
static void describe_source(weir_rest *r, uint32_t t, uint32_t s, rest_sub *rs, int64_t now_ms)
{
    weir__insp_task task;
    weir__insp_task_get(r->job, t, &task);
    weir__insp_node node;
    weir__insp_node_get(r->job, (uint32_t)task.nodes[0], &node);
    split_pick p = {.last_data_ms = WEIR_TS_MIN};
    weir__insp_splits(r->job, t, s, pick_split, &p);
    /* "clicks[0]": the table and the subtask */
    char label[256], secs[32];
    if (node.table[0])
        snprintf(label, sizeof label, "%s[%u]", node.table, s);
    else
        rest_task_label(r, t, s, label, sizeof label);
    rs->reason[0] = 0;
    rs->behind_ms = -1;
    rs->in_idx = -1;
    int64_t quiet_after = r->cfg.sample_ms * 2; /* silence worth a word */
    if (!node.has_watermark) {
        rs->held = false;
        snprintf(rs->by, sizeof rs->by, "%s", label);
        add_reason(rs->reason, sizeof rs->reason, "the source declares no watermark (no WATERMARK FOR clause)");
        return;
    }
    if (!p.have_best) {
        rs->held = p.n_idle == 0; /* idle splits hold no one */
        rs->wm = rs->cur.out_wm;
        snprintf(rs->by, sizeof rs->by, "%s", label);
        if (p.n == 0)
            add_reason(rs->reason, sizeof rs->reason, "no split assigned yet");
        else if (p.n_idle)
            add_reason(rs->reason, sizeof rs->reason, "every open split is idle");
        else
            add_reason(rs->reason, sizeof rs->reason, "no open split: every split was read to its end, waiting for new ones");
        int64_t since = p.last_data_ms != WEIR_TS_MIN ? p.last_data_ms : r->start_ms;
        if (now_ms - since >= quiet_after) {
            fmt_secs(secs, sizeof secs, now_ms - since);
            add_reason(rs->reason, sizeof rs->reason, "no record for %s", secs);
        }
        if (rs->held && node.idle_timeout_ms <= 0)
            add_reason(rs->reason, sizeof rs->reason, "table.exec.source.idle-timeout is not set");
        return;
    }
    rs->held = true;
    rs->wm = p.best.wm;
    snprintf(rs->by, sizeof rs->by, "%.120s split %.120s", label, p.best.id);
    int64_t silent = now_ms - p.best.last_data_ms;
    if (p.best.rows == 0) {
        fmt_secs(secs, sizeof secs, silent);
        add_reason(rs->reason, sizeof rs->reason, "no record yet (opened %s ago)", secs);
    } else if (silent >= quiet_after) {
        fmt_secs(secs, sizeof secs, silent);
        add_reason(rs->reason, sizeof rs->reason, "no record for %s", secs);
    }
    if (p.best.rows == 0 || silent >= quiet_after) {
        if (node.idle_timeout_ms <= 0) {
            add_reason(rs->reason, sizeof rs->reason, "table.exec.source.idle-timeout is not set");
        } else {
            fmt_secs(secs, sizeof secs, node.idle_timeout_ms);
            add_reason(rs->reason, sizeof rs->reason, "it turns idle after %s without a record", secs);
        }
    }
    lag_find lf = {.split = p.best.id, .split_len = strlen(p.best.id)};
    weir__insp_op_counters(r->job, t, s, 0, find_lag, &lf);
    if (lf.found && lf.lag > 0)
        add_reason(rs->reason, sizeof rs->reason, "a backlog of %" PRIu64 " records", lf.lag);
    if (rs->bp_ms_s >= 500)
        add_reason(rs->reason, sizeof rs->reason, "backpressured (%.0f ms/s)", rs->bp_ms_s);
}

/* A consumer subtask: the active input with the smallest watermark. */
static void pick_input(weir_rest *r, uint32_t t, uint32_t s, rest_sub *rs)
{
    rs->held = false;
    rs->behind_ms = -1;
    rs->in_idx = -1;
    rs->by[0] = rs->reason[0] = 0;
    weir__insp_input best = {0}, in;
    weir_ts max_wm = WEIR_TS_MIN;
    uint32_t n_active = 0, n_idle = 0;
    for (uint32_t i = 0; i < rs->cur.n_in; i++) {
        if (weir__insp_input_get(r->job, t, s, i, &in))
            break;
        if (in.status == WEIR__INSP_IDLE)
            n_idle++;
        if (in.status != WEIR__INSP_ACTIVE)
            continue;
        n_active++;
        if (in.wm > max_wm)
            max_wm = in.wm;
        if (rs->in_idx < 0 || in.wm < best.wm || (in.wm == best.wm && in.last_data_ms < best.last_data_ms)) {
            best = in;
            rs->in_idx = (int)i;
        }
    }
    if (rs->in_idx < 0) {
        snprintf(rs->reason, sizeof rs->reason, "%s",
                 n_idle ? "every input is idle" : "every input has ended");
        return;
    }
    rs->held = true;
    rs->wm = best.wm;
    rs->from_task = best.from_task;
    rs->from_subtask = best.from_subtask;
    if (n_active > 1 && best.wm != WEIR_TS_MIN && max_wm != WEIR_TS_MAX)
        rs->behind_ms = max_wm - best.wm;
}

static rest_sub *sub_at(weir_rest *r, uint32_t t, uint32_t s)
{
    return &r->subs[r->sub_off[t] + s];
}

/* Follows the holders from (t, s) to a source; fills by and reason. */
static void trace_root(weir_rest *r, rest_sub *rs)
{
    uint32_t t = (uint32_t)rs->from_task, s = rs->from_subtask;
    char bp[256] = "";
    for (uint32_t depth = 0; depth < 64 && t < r->n_tasks; depth++) {
        rest_sub *up = sub_at(r, t, s);
        weir__insp_task task;
        weir__insp_task_get(r->job, t, &task);
        if (!task.is_source && up->bp_ms_s >= 500 && !bp[0]) {
            char label[200];
            rest_task_label(r, t, s, label, sizeof label);
            snprintf(bp, sizeof bp, "%s is backpressured (%.0f ms/s)", label, up->bp_ms_s);
        }
        if (task.is_source || !up->held) {
            if (!up->by[0])
                rest_task_label(r, t, s, up->by, sizeof up->by);
            snprintf(rs->by, sizeof rs->by, "%s", up->by);
            snprintf(rs->reason, sizeof rs->reason, "%s", up->reason);
            if (bp[0])
                add_reason(rs->reason, sizeof rs->reason, "%s", bp);
            return;
        }
        t = (uint32_t)up->from_task;
        s = up->from_subtask;
    }
}

void rest_monitor_sample_locked(weir_rest *r)
{
    weir_job *job = r->job;
    int64_t now_ns = weir_monotonic_ns();
    int64_t now_ms = weir__insp_now_ms(job);
    for (uint32_t t = 0; t < r->n_tasks; t++) {
        weir__insp_task task;
        weir__insp_task_get(job, t, &task);
        for (uint32_t s = 0; s < task.parallelism; s++) {
            rest_sub *rs = sub_at(r, t, s);
            if (weir__insp_subtask_get(job, t, s, &rs->cur))
                continue;
            int64_t end = rs->cur.end_ns ? rs->cur.end_ns : now_ns;
            int64_t from = rs->have_prev ? rs->prev_ns : rs->cur.start_ns;
            if (rs->cur.start_ns && end > from) {
                double wall = (double)(end - from);
                double idle = (double)(rs->cur.idle_ns - (rs->have_prev ? rs->prev_idle_ns : 0));
                double bp = (double)(rs->cur.backpressured_ns - (rs->have_prev ? rs->prev_bp_ns : 0));
                double busy = wall - idle - bp;
                rs->idle_ms_s = fmin(1000.0, fmax(0.0, idle / wall * 1000.0));
                rs->bp_ms_s = fmin(1000.0, fmax(0.0, bp / wall * 1000.0));
                rs->busy_ms_s = fmin(1000.0, fmax(0.0, busy / wall * 1000.0));
                rs->prev_ns = end;
                rs->prev_idle_ns = rs->cur.idle_ns;
                rs->prev_bp_ns = rs->cur.backpressured_ns;
                rs->have_prev = true;
            }
            rs->since_ms = rs->cur.out_wm_moved_ms ? rs->cur.out_wm_moved_ms : r->start_ms;
            for (uint32_t o = 0; o < task.n_nodes; o++) {
                rest_opm *om = &r->ops[r->op_off[t] + s * task.n_nodes + o];
                weir__insp_op op;
                if (weir__insp_op_get(job, t, s, o, &op))
                    continue;
                if (om->have_prev && now_ns > r->last_sample_ns) {
                    double dt = (double)(now_ns - r->last_sample_ns) / 1e9;
                    om->in_rate = (double)(op.records_in - om->prev_in) / dt;
                    om->out_rate = (double)(op.records_out - om->prev_out) / dt;
                }
                om->prev_in = op.records_in;
                om->prev_out = op.records_out;
                om->have_prev = true;
            }
        }
    }
    /* Holders: sources first (their splits), then every consumer's direct
     * input, then each consumer's chain back to a source. */
    for (uint32_t t = 0; t < r->n_tasks; t++) {
        weir__insp_task task;
        weir__insp_task_get(job, t, &task);
        for (uint32_t s = 0; s < task.parallelism; s++) {
            if (task.is_source)
                describe_source(r, t, s, sub_at(r, t, s), now_ms);
            else
                pick_input(r, t, s, sub_at(r, t, s));
        }
    }
    for (uint32_t t = 0; t < r->n_tasks; t++) {
        weir__insp_task task;
        weir__insp_task_get(job, t, &task);
        if (task.is_source)
            continue;
        for (uint32_t s = 0; s < task.parallelism; s++) {
            rest_sub *rs = sub_at(r, t, s);
            if (rs->held)
                trace_root(r, rs);
        }
    }
    /* Checkpoints completed since the last sample. */
    weir_checkpoint_stats cs;
    r->have_ckpt = weir_job_checkpoint_stats(job, &cs) == 0;
    if (r->have_ckpt) {
        r->ckpt = cs;
        const rest_ckpt *last = r->n_hist ? &r->hist[(r->n_hist - 1) % REST_CKPT_HISTORY] : NULL;
        if (cs.last_id && (!last || last->id != cs.last_id)) {
            rest_ckpt *h = &r->hist[r->n_hist++ % REST_CKPT_HISTORY];
            *h = (rest_ckpt){.id = cs.last_id,
                             .trigger_ms = cs.last_time_ms,
                             .duration_ms = cs.last_duration_ms,
                             .sync_ms = cs.last_sync_ms,
                             .async_ms = cs.last_async_ms,
                             .size_bytes = cs.last_size_bytes,
                             .checkpointed_bytes = cs.last_checkpointed_bytes};
        }
    }
    if (weir__insp_phase(job) == 2 && !r->end_ms)
        r->end_ms = now_ms;
    r->last_sample_ns = now_ns;
}

/* One line per stalled watermark, once per stall. */
static void warn_stalls(weir_rest *r)
{
    if (r->cfg.stall_warn_ms <= 0 || weir__insp_phase(r->job) != 1 || (!r->log && !r->cfg.log_line))
        return;
    int64_t now_ms = weir__insp_now_ms(r->job);
    for (uint32_t t = 0; t < r->n_tasks; t++) {
        weir__insp_task task;
        weir__insp_task_get(r->job, t, &task);
        if (task.is_source)
            continue;
        for (uint32_t s = 0; s < task.parallelism; s++) {
            rest_sub *rs = sub_at(r, t, s);
            if (!rs->held || rs->cur.end_ns || rs->cur.out_wm == WEIR_TS_MAX ||
                now_ms - rs->since_ms < r->cfg.stall_warn_ms || rs->warned_since == rs->since_ms)
                continue;
            rs->warned_since = rs->since_ms;
            char label[256], secs[32];
            rest_task_label(r, t, s, label, sizeof label);
            fmt_secs(secs, sizeof secs, now_ms - rs->since_ms);
            rest_log(r, true, "%s watermark held by %s: %s (not moved for %s)", label, rs->by,
                     rs->reason[0] ? rs->reason : "its event time is behind", secs);
        }
    }
}

static void *monitor_main(void *arg)
{
    weir_rest *r = arg;
    pthread_setname_np(pthread_self(), "weir-monitor"); /* for top -H, bench/rest_overhead.sh */
    pthread_mutex_lock(&r->mu);
    while (!r->quit) {
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        int64_t ns = dl.tv_nsec + (r->cfg.sample_ms % 1000) * 1000000L;
        dl.tv_sec += r->cfg.sample_ms / 1000 + ns / 1000000000L;
        dl.tv_nsec = ns % 1000000000L;
        while (!r->quit && pthread_cond_timedwait(&r->cv, &r->mu, &dl) == 0)
            ;
        if (r->quit)
            break;
        rest_monitor_sample_locked(r);
        warn_stalls(r);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int rest_monitor_start(weir_rest *r)
{
    r->n_tasks = weir__insp_n_tasks(r->job);
    r->sub_off = weir_calloc(r->n_tasks + 1, sizeof *r->sub_off);
    r->op_off = weir_calloc(r->n_tasks + 1, sizeof *r->op_off);
    if (!r->sub_off || !r->op_off)
        return WEIR_ENOMEM;
    for (uint32_t t = 0; t < r->n_tasks; t++) {
        weir__insp_task task;
        weir__insp_task_get(r->job, t, &task);
        r->sub_off[t + 1] = r->sub_off[t] + task.parallelism;
        r->op_off[t + 1] = r->op_off[t] + task.parallelism * task.n_nodes;
    }
    r->n_subs = r->sub_off[r->n_tasks];
    r->n_ops = r->op_off[r->n_tasks];
    r->subs = weir_calloc(r->n_subs ? r->n_subs : 1, sizeof *r->subs);
    r->ops = weir_calloc(r->n_ops ? r->n_ops : 1, sizeof *r->ops);
    if (!r->subs || !r->ops)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < r->n_subs; i++)
        r->subs[i].warned_since = -1;
    pthread_mutex_lock(&r->mu);
    rest_monitor_sample_locked(r);
    pthread_mutex_unlock(&r->mu);
    if (pthread_create(&r->thread, NULL, monitor_main, r))
        return WEIR_ENOMEM;
    r->thread_started = true;
    return 0;
}

void rest_monitor_stop(weir_rest *r)
{
    if (r->thread_started) {
        pthread_mutex_lock(&r->mu);
        r->quit = true;
        pthread_cond_signal(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->thread, NULL);
        r->thread_started = false;
    }
    weir_free(r->sub_off);
    weir_free(r->op_off);
    weir_free(r->subs);
    weir_free(r->ops);
    r->sub_off = r->op_off = NULL;
    r->subs = NULL;
    r->ops = NULL;
}
