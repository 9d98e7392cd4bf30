/*
 * runtime/task.c - the life of a subtask thread, the loop of a subtask that
 * reads channels, and the chain plumbing both kinds of subtask share.
 *
 * Input protocol, per channel, as the producer writes it:
 *   status (ACTIVE or IDLE), then any mix of batches, watermarks, IDLE /
 *   ACTIVE and barriers, then possibly a final watermark WEIR_TS_MAX, then END.
 * The first message of every channel is sent before any data and depends on
 * nothing but the producer's own inputs, so a consumer can wait for the first
 * message of all its channels before it processes any data. It does: that
 * way its watermark never starts from a guess (for example, a source subtask
 * without splits announces itself idle before anyone reads a record), which
 * keeps late-data decisions independent of thread timing.
 *
 * Watermarks: the subtask's input watermark is the valve's output (minimum
 * over active channels, never backwards). When it advances, each operator of
 * the chain in turn fires its event-time timers up to W (in timer order,
 * with the key set), runs its watermark hook and forwards
 * min(W, its hold) to the next operator, the last one to its writers.
 *
 * Processing-time timers fire from the job's clock: the loop never sleeps
 * longer than 10 ms of real time before it looks at the clock again, so a
 * test that moves a manual clock sees the effect promptly.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runtime/runtime.h"
#include "state/rocksdb_backend.h"

#define MAX_WAIT_MS 10

int weir__subtask_fail(weir__subtask *st, int code, const char *fmt, ...)
{
    if (st->err.code == 0) {
        va_list ap;
        va_start(ap, fmt);
        st->err.code = code ? code : WEIR_EINVAL;
        vsnprintf(st->err.message, sizeof st->err.message, fmt, ap);
        va_end(ap);
    }
    return code;
}

static bool canceled(const weir__subtask *st)
{
    return atomic_load_explicit(&st->job->cancel, memory_order_relaxed);
}

/* Names the operator that failed when it did not say why itself. */
static int op_failed(weir_op_ctx *c, int rc, const char *what)
{
    if (rc == WEIR_ECANCELED && canceled(c->st))
        return rc;
    weir__subtask_fail(c->st, rc, "%s[%u]: %s failed: %s", c->node->name,
                       c->st->index, what, weir_strerror(rc));
    return rc;
}

/* ---- chain plumbing ---- */

static void set_out_wm_metric(weir__subtask *st, weir_ts wm)
{
    /* For "who holds the watermark back": since when it has not moved.
     * Stamped before the watermark itself, so that a reader who sees the
     * new watermark also sees when it moved. */
    WEIR__SET(&st->out_wm_moved_ms, weir_clock_now(&st->job->cfg.clock));
    WEIR__SET(&st->out_wm_metric, wm);
}

/* Forwards min(input watermark, hold) if that advanced. */
static int op_forward(weir_op_ctx *c)
{
    weir_ts out = c->in_wm < c->hold ? c->in_wm : c->hold;
    if (out <= c->out_wm)
        return 0;
    c->out_wm = out;
    WEIR__SET(&c->out_wm_metric, out);
    weir__msg m = {.type = WEIR__MSG_WATERMARK, .wm = out};
    for (uint32_t s = 0; s < c->n_sides; s++)
        for (uint32_t i = 0; i < c->sides[s].n; i++) {
            int rc = weir__writer_control(c->sides[s].w[i], &m);
            if (rc)
                return rc;
        }
    if (c->next)
        return weir__op_advance_watermark(c->next, out);
    for (uint32_t i = 0; i < c->n_out; i++) {
        int rc = weir__writer_control(c->out[i], &m);
        if (rc)
            return rc;
    }
    set_out_wm_metric(c->st, out);
    return 0;
}

int weir__op_check_hold(weir_op_ctx *c)
{
    return op_forward(c);
}

static int fire_timer(void *ud, const weir_timer *t)
{
    weir_op_ctx *c = ud;
    /* Timers due at one watermark can be millions: a stop does not wait. */
    int rc = ++c->st->interrupt_tick % WEIR__INTERRUPT_EVERY
                 ? 0
                 : weir__job_interrupted(c->st->job);
    if (rc)
        return rc;
    rc = weir__op_set_key_raw(c, t->key, t->key_len,
                              weir_key_hash(t->key, t->key_len));
    if (rc)
        return rc;
    if (!c->cls || !c->cls->timer)
        return 0;
    rc = c->cls->timer(c->op, c, t);
    if (rc)
        return op_failed(c, rc, "timer");
    return 0;
}

int weir__op_advance_watermark(weir_op_ctx *c, weir_ts wm)
{
    if (wm <= c->in_wm)
        return 0;
    c->in_wm = wm;
    WEIR__SET(&c->in_wm_metric, wm);
    int rc;
    if (c->timers && weir__timers_next(c->timers, WEIR_TIME_EVENT) <= wm &&
        (rc = weir__timers_advance(c->timers, WEIR_TIME_EVENT, wm, fire_timer,
                                   c)))
        return rc;
    if (c->cls && c->cls->watermark && (rc = c->cls->watermark(c->op, c, wm)))
        return op_failed(c, rc, "watermark");
    return op_forward(c);
}

int weir__chain_watermark(weir__subtask *st, weir_ts wm)
{
    return weir__op_advance_watermark(&st->ops[0], wm);
}

static int all_writers(weir__subtask *st, const weir__msg *m)
{
    for (uint32_t i = 0; i < st->n_writers; i++) {
        int rc = weir__writer_control(st->writers[i], m);
        if (rc)
            return rc;
    }
    return 0;
}

int weir__chain_status(weir__subtask *st, bool idle)
{
    if (st->status_sent && st->idle_out == idle)
        return 0;
    st->status_sent = true;
    st->idle_out = idle;
    weir__msg m = {.type = idle ? WEIR__MSG_IDLE : WEIR__MSG_ACTIVE};
    int rc = all_writers(st, &m);
    /* Operators that carry the status out of the process. */
    for (uint32_t i = 0; i < st->n_ops && !rc; i++) {
        weir_op_ctx *c = &st->ops[i];
        if (c->status_fn && c->opened)
            rc = c->status_fn(c->op, c, idle);
    }
    return rc;
}

int weir__chain_flush(weir__subtask *st)
{
    for (uint32_t i = 0; i < st->n_writers; i++) {
        int rc = weir__writer_flush(st->writers[i]);
        if (rc)
            return rc;
    }
    if (st->wake_pending) {
        st->wake_pending = false;
        for (uint32_t i = 0; i < st->n_writers; i++)
            weir__writer_notify(st->writers[i]);
    }
    return 0;
}

static bool has_staged(const weir__subtask *st)
{
    for (uint32_t i = 0; i < st->n_writers; i++) {
        const weir__writer *w = st->writers[i];
        for (uint32_t t = 0; t < w->n; t++)
            if (w->stage[t] && w->stage[t]->n_rows)
                return true;
    }
    return false;
}

int weir__chain_finish(weir__subtask *st)
{
    for (uint32_t i = 0; i < st->n_ops; i++) {
        weir_op_ctx *c = &st->ops[i];
        if (c->cls && c->cls->finish) {
            int rc = c->cls->finish(c->op, c);
            if (rc)
                return op_failed(c, rc, "finish");
        }
    }
    return 0;
}

int weir__chain_stop(weir__subtask *st)
{
    for (uint32_t i = 0; i < st->n_ops; i++) {
        weir_op_ctx *c = &st->ops[i];
        if (c->cls && c->cls->stop) {
            int rc = c->cls->stop(c->op, c);
            if (rc)
                return op_failed(c, rc, "stop");
        }
    }
    return 0;
}

int weir__chain_end(weir__subtask *st, bool drained)
{
    weir__msg m = {.type = WEIR__MSG_END, .drained = drained};
    return all_writers(st, &m);
}

int weir__fire_processing_timers(weir__subtask *st)
{
    int64_t now = -1;
    for (uint32_t i = 0; i < st->n_ops; i++) {
        weir_op_ctx *c = &st->ops[i];
        if (!c->timers)
            continue;
        weir_ts next = weir__timers_next(c->timers, WEIR_TIME_PROCESSING);
        if (next == WEIR_TS_MAX)
            continue;
        if (now < 0)
            now = weir_clock_now(&st->job->cfg.clock);
        if (next > now)
            continue;
        int rc = weir__timers_advance(c->timers, WEIR_TIME_PROCESSING, now,
                                      fire_timer, c);
        if (!rc)
            rc = op_forward(c);
        if (rc)
            return rc;
    }
    return 0;
}

/* Earliest processing-time timer of the chain, or WEIR_TS_MAX. */
static weir_ts next_processing_timer(const weir__subtask *st)
{
    weir_ts m = WEIR_TS_MAX;
    for (uint32_t i = 0; i < st->n_ops; i++) {
        weir_ts t = weir__timers_next(st->ops[i].timers, WEIR_TIME_PROCESSING);
        if (t < m)
            m = t;
    }
    return m;
}

/* ---- checkpoints ---- */

static void ack(weir__subtask *st, uint64_t id, bool finished, weir_buf *data)
{
    weir_job *job = st->job;
    if (!job->has_hooks || !job->hooks.ack)
        return;
    weir__task_snapshot s = {
        .ckpt_id = id,
        .task = st->task->id,
        .subtask = st->index,
        .parallelism = st->task->parallelism,
        .finished = finished,
        .data = data ? data->data : NULL,
        .len = data ? data->len : 0,
        .buf = data,
    };
    job->hooks.ack(job->hooks.ud, &s);
}

static void decline(weir__subtask *st, uint64_t id, int code, const char *why)
{
    weir_job *job = st->job;
    if (job->has_hooks && job->hooks.decline)
        job->hooks.decline(job->hooks.ud, id, st->task->id, st->index, code,
                           why);
}

/*
 * The timers of key group kg, appended to out; none at all when it has
 * none (not a count of 0), so that with the keyed state of an empty key
 * group the snapshot leaves the key group out (checkpoint.h).
 */
static int snapshot_timers(const weir__timers *ts, uint32_t kg, weir_buf *out)
{
    size_t at = out->len;
    int rc = weir__timers_snapshot_kg(ts, kg, out);
    if (!rc && out->len == at + 1 && out->data[at] == 0)
        out->len = at;
    return rc;
}

/*
 * The synchronous part of the chain's snapshot (format: checkpoint.h;
 * runtime.h has the split): the operators' snapshot hooks, the timers and
 * the source positions are written now, the keyed state is pinned for the
 * asynchronous part.
 */
static int snapshot_begin(weir__subtask *st, uint64_t id, bool native,
                          weir__async_snap **out)
{
    *out = NULL;
    weir__async_snap *a = weir_calloc(1, sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    a->id = id;
    weir_buf_init(&a->head);
    weir_buf_init(&a->timers);
    weir_buf_init(&a->tail);
    weir_buf_init(&a->inflight);
    weir_buf *out_b = &a->head;
    weir_buf tmp;
    weir_buf_init(&tmp);
    int rc = weir_buf_put_u32(out_b, WEIR__SNAPSHOT_MAGIC);
    if (!rc)
        rc = weir_buf_put_u8(out_b, 1);
    if (!rc)
        rc = weir_buf_put_varint(out_b, (uint64_t)st->task->id);
    if (!rc)
        rc = weir_buf_put_varint(out_b, st->index);
    if (!rc)
        rc = weir_buf_put_varint(out_b, st->task->parallelism);
    uint32_t n_ops = 0;
    for (uint32_t i = 0; i < st->n_ops; i++)
        if (st->ops[i].cls)
            n_ops++;
    if (!rc)
        rc = weir_buf_put_varint(out_b, n_ops);
    if (!rc && n_ops && !(a->ops = weir_calloc(n_ops, sizeof *a->ops)))
        rc = WEIR_ENOMEM;
    for (uint32_t i = 0; i < st->n_ops && !rc; i++) {
        weir_op_ctx *c = &st->ops[i];
        if (!c->cls)
            continue;
        weir__async_op *op = &a->ops[a->n_ops++];
        rc = weir_buf_put_varint(out_b, (uint64_t)c->node->id);
        if (!rc)
            rc = weir_buf_put_str(out_b, c->node->name);
        weir_buf_clear(&tmp);
        /* The window operator's flush of changed keys: batched writes. */
        if (!rc && c->be && c->cls->snapshot)
            weir__backend_write_batch(c->be, true);
        if (!rc && c->cls->snapshot &&
            (rc = c->cls->snapshot(c->op, c, id, &tmp)))
            rc = op_failed(c, rc, "snapshot");
        if (c->be && c->cls->snapshot) {
            int brc = weir__backend_write_batch(c->be, false);
            if (brc) {
                /* Writes the operator was told had succeeded are lost: the
                 * state is no longer trustworthy, the job fails. */
                weir__subtask_fail(st, brc,
                                   "%s[%u]: writing its state failed: %s",
                                   c->node->name, st->index,
                                   weir_strerror(brc));
                weir_buf_fini(&tmp);
                weir__async_snap_free(a);
                return WEIR_ECANCELED;
            }
        }
        if (!rc)
            rc = weir_buf_put_bytes(out_b, tmp.data, tmp.len);
        op->has_kg = c->be || c->timers;
        op->kg_lo = c->kg_lo;
        op->kg_hi = c->kg_hi;
        /* n_kg follows: the second part writes it, when it knows which key
         * groups are not empty. */
        op->head_end = out_b->len;
        op->tmr_start = a->timers.len;
        if (!rc && op->has_kg && c->kg_hi > c->kg_lo &&
            !(op->tmr_end = weir_calloc(c->kg_hi - c->kg_lo,
                                        sizeof *op->tmr_end)))
            rc = WEIR_ENOMEM;
        bool any_timer = c->timers && weir__timers_count(c->timers) > 0;
        for (uint32_t kg = c->kg_lo; op->has_kg && kg < c->kg_hi && !rc;
             kg++) {
            if (any_timer)
                rc = snapshot_timers(c->timers, kg, &a->timers);
            op->tmr_end[kg - c->kg_lo] = a->timers.len;
        }
        op->node = (uint32_t)c->node->id;
        if (!rc && c->be)
            rc = native && weir__backend_is_rocksdb(c->be)
                     ? weir__rocksdb_snapshot_native(c->be, id, &op->native_dir)
                     : weir__backend_snapshot_begin(c->be, &op->bs);

    }
    if (!rc)
        rc = weir_buf_put_u8(&a->tail, st->src ? 1 : 0);
    if (!rc && st->src)
        rc = weir__source_snapshot(st, id, &a->tail);
    weir_buf_fini(&tmp);
    if (rc) {
        weir__async_snap_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

/* The whole snapshot of the chain, on the subtask's thread (final snapshots). */
static int snapshot_chain(weir__subtask *st, uint64_t id, weir_buf *out)
{
    weir__async_snap *a;
    int rc = snapshot_begin(st, id, false, &a);
    if (!rc)
        rc = weir__async_snap_write(a, out, NULL, st->task->id, st->index);
    weir__async_snap_free(a);
    return rc;
}

/*
 * The synchronous part of checkpoint id's snapshot, into *out; NULL there
 * when there are no checkpoint hooks or the snapshot failed (then the
 * checkpoint is declined, not the job failed).
 */
static int take_snapshot(weir__subtask *st, uint64_t id,
                         weir__async_snap **out)
{
    weir_job *job = st->job;
    *out = NULL;
    if (!job->has_hooks)
        return 0;
    int64_t t0 = weir_monotonic_ns();
    weir__async_snap *a;
    /* Incremental checkpoints: RocksDB state as a native checkpoint. */
    bool native =
        job->hooks.native_ok && job->hooks.native_ok(job->hooks.ud, id);
    int rc = snapshot_begin(st, id, native, &a);
    if (rc) {
        if (rc == WEIR_ECANCELED)
            return rc;
        /* A failed snapshot fails the checkpoint, not the job. */
        decline(st, id, rc,
                st->err.code ? st->err.message : weir_strerror(rc));
        weir_error_clear(&st->err);
        return 0;
    }
    a->t0_ns = t0;
    a->sync_ns = weir_monotonic_ns() - t0;
    *out = a;
    return 0;
}

static int barrier_unaligned_out(weir__subtask *st, uint64_t id)
{
    for (uint32_t i = 0; i < st->n_writers; i++) {
        int rc = weir__writer_barrier_unaligned(st->writers[i], id);
        if (rc)
            return rc;
    }
    return 0;
}

/* An aligned barrier, or (timeout_at_ms) one that may turn unaligned. */
static int chain_barrier(weir__subtask *st, uint64_t id, bool unaligned,
                         int64_t timeout_at_ms)
{
    st->last_barrier = id;
    weir__async_snap *a;
    int rc = take_snapshot(st, id, &a);
    if (rc)
        return rc;
    /* The keyed state is serialized while the subtask goes on. */
    if (a)
        weir__snapshot_submit(st, a);
    if (unaligned)
        return barrier_unaligned_out(st, id);
    weir__msg m = {.type = WEIR__MSG_BARRIER,
                   .ckpt_id = id,
                   .timeout_at_ms = timeout_at_ms};
    return all_writers(st, &m);
}

int weir__chain_barrier(weir__subtask *st, uint64_t id)
{
    weir_job *job = st->job;
    /* A source decides the barrier's kind; downstream follows it. */
    bool unaligned = st->task->is_source && job->has_hooks &&
                     job->hooks.unaligned_ok &&
                     job->hooks.unaligned_ok(job->hooks.ud, id);
    int64_t timeout_at = 0;
    if (unaligned && job->hooks.aligned_timeout_ms > 0) {
        /* Aligned first; unaligned where it is still on its way then. */
        timeout_at = weir_clock_now(&job->cfg.clock) +
                     job->hooks.aligned_timeout_ms;
        unaligned = false;
    }
    return chain_barrier(st, id, unaligned, timeout_at);
}

int weir__subtask_commands(weir__subtask *st, uint64_t *checkpoint)
{
    if (checkpoint)
        *checkpoint = 0;
    if (atomic_load_explicit(&st->gate.pending_cmds, memory_order_acquire) == 0)
        return 0;
    for (;;) {
        weir__cmd cmds[16];
        uint32_t n = 0;
        pthread_mutex_lock(&st->gate.mu);
        while (n < 16 && st->gate.n_cmds > 0) {
            cmds[n++] = st->gate.cmds[0];
            memmove(st->gate.cmds, st->gate.cmds + 1,
                    (st->gate.n_cmds - 1) * sizeof *cmds);
            st->gate.n_cmds--;
        }
        atomic_store(&st->gate.pending_cmds, st->gate.n_cmds);
        pthread_mutex_unlock(&st->gate.mu);
        if (n == 0)
            return 0;
        for (uint32_t i = 0; i < n; i++) {
            if (cmds[i].type == WEIR__CMD_CHECKPOINT) {
                if (cmds[i].id > st->max_triggered)
                    st->max_triggered = cmds[i].id;
                if (checkpoint && cmds[i].id > *checkpoint &&
                    cmds[i].id > st->last_barrier)
                    *checkpoint = cmds[i].id;
            } else if (cmds[i].type == WEIR__CMD_COMPLETE) {
                for (uint32_t o = 0; o < st->n_ops; o++) {
                    weir_op_ctx *c = &st->ops[o];
                    if (c->cls && c->cls->checkpoint_complete) {
                        int rc =
                            c->cls->checkpoint_complete(c->op, c, cmds[i].id);
                        if (rc)
                            return op_failed(c, rc, "checkpoint_complete");
                    }
                }
                if (st->src) {
                    int rc =
                        weir__source_checkpoint_complete(st, cmds[i].id);
                    if (rc)
                        return rc;
                }
            }
        }
    }
}

void weir__subtask_mark_finished(weir__subtask *st)
{
    pthread_mutex_lock(&st->gate.mu);
    st->finished = true;
    for (uint32_t i = 0; i < st->gate.n_cmds; i++)
        if (st->gate.cmds[i].type == WEIR__CMD_CHECKPOINT &&
            st->gate.cmds[i].id > st->max_triggered)
            st->max_triggered = st->gate.cmds[i].id;
    st->gate.n_cmds = 0;
    pthread_mutex_unlock(&st->gate.mu);
    /* Checkpoints this subtask heard of but will never see a barrier of. */
    if (st->max_triggered > st->last_barrier && !canceled(st))
        ack(st, st->max_triggered, true, NULL);
}

/* ---- the channel-reading loop ---- */

static int handle_flags(weir__subtask *st, int flags)
{
    int rc = 0;
    if (!st->all_started)
        return 0;
    if (flags & WEIR__WM_BECAME_ACTIVE)
        rc = weir__chain_status(st, false);
    if (!rc && (flags & WEIR__WM_ADVANCED))
        rc = weir__chain_watermark(st, st->valve.out);
    if (!rc && (flags & WEIR__WM_BECAME_IDLE))
        rc = weir__chain_status(st, true);
    return rc;
}

static void unblock_all(weir__subtask *st)
{
    for (uint32_t i = 0; i < st->n_in; i++)
        st->in[i].blocked = false;
    st->pending_barrier = 0;
    st->n_aligned = 0;
    st->align_timeout_at_ms = 0;
}

static int check_alignment(weir__subtask *st)
{
    if (!st->pending_barrier)
        return 0;
    uint32_t open = 0;
    for (uint32_t i = 0; i < st->n_in; i++)
        if (!st->in[i].ended)
            open++;
    if (st->n_aligned < open)
        return 0;
    uint64_t id = st->pending_barrier;
    int64_t timeout_at = st->align_timeout_at_ms;
    unblock_all(st);
    return chain_barrier(st, id, false, timeout_at);
}

static int on_barrier(weir__subtask *st, weir__inchan *in, uint64_t id,
                      int64_t timeout_at_ms)
{
    if (id <= st->last_barrier) {
        /* From a checkpoint this subtask gave up, or one an unaligned
         * barrier overtook before this subtask heard of it: either way it
         * has none of its snapshot. */
        decline(st, id, WEIR_ECANCELED, "overtaken by a newer checkpoint");
        return 0;
    }
    if (st->pending_barrier && id > st->pending_barrier) {
        /* A newer checkpoint overtook the one being aligned: give the old one
         * up. */
        decline(st, st->pending_barrier, WEIR_ECANCELED,
                "overtaken by a newer checkpoint");
        st->last_barrier = st->pending_barrier;
        unblock_all(st);
    }
    if (!st->pending_barrier) {
        st->pending_barrier = id;
        st->n_aligned = 0;
        st->align_timeout_at_ms = timeout_at_ms;
    }
    if (id == st->pending_barrier && !in->blocked) {
        in->blocked = true;
        st->n_aligned++;
    }
    return check_alignment(st);
}

/* ---- unaligned checkpoints (checkpoint.h) ---- */

/* Gives up the unaligned checkpoint in progress (a newer one overtook it,
 * or the subtask ends); why NULL: silently (the job is going away). */
static void ua_abort(weir__subtask *st, const char *why)
{
    if (!st->ua_id)
        return;
    if (why)
        decline(st, st->ua_id, WEIR_ECANCELED, why);
    weir__async_snap_free(st->ua_snap);
    st->ua_snap = NULL;
    st->ua_id = 0;
}

static void ua_free(weir__subtask *st)
{
    ua_abort(st, NULL);
    for (uint32_t i = 0; st->ua_rec && i < st->n_in; i++)
        weir_buf_fini(&st->ua_rec[i]);
    weir_free(st->ua_rec);
    weir_free(st->ua_wait);
    weir_free(st->ua_nmsg);
    weir_free(st->ua_tmp);
    st->ua_rec = NULL;
    st->ua_wait = NULL;
    st->ua_nmsg = NULL;
    st->ua_tmp = NULL;
}

/* Stores one message taken from (or overtaken in) channel i. */
static int ua_record(weir__subtask *st, uint32_t i, const weir__msg *m)
{
    int rc = weir__inflight_put_msg(&st->ua_rec[i], m);
    if (!rc)
        st->ua_nmsg[i]++;
    return rc;
}

/* Every channel delivered the barrier: the in-flight section goes into the
 * snapshot, whose asynchronous part then runs and acks. */
static int ua_complete(weir__subtask *st)
{
    weir__async_snap *a = st->ua_snap;
    uint32_t n_entries = 0;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < st->n_in; i++)
        if (st->ua_nmsg[i]) {
            n_entries++;
            bytes += st->ua_rec[i].len;
        }
    int rc = 0;
    if (n_entries) {
        weir_buf *o = &a->inflight;
        rc = weir_buf_put_varint(o, st->n_in);
        if (!rc)
            rc = weir_buf_put_varint(o, n_entries);
        for (uint32_t i = 0; i < st->n_in && !rc; i++) {
            if (!st->ua_nmsg[i])
                continue;
            if (!(rc = weir_buf_put_varint(o, i)) &&
                !(rc = weir_buf_put_varint(o, st->ua_nmsg[i])))
                rc = weir_buf_put_bytes(o, st->ua_rec[i].data,
                                        st->ua_rec[i].len);
        }
        a->inflight_bytes = bytes;
    }
    st->ua_snap = NULL;
    uint64_t id = st->ua_id;
    st->ua_id = 0;
    if (rc) {
        decline(st, id, rc, "storing the in-flight data failed");
        weir__async_snap_free(a);
        return 0;
    }
    return weir__snapshot_submit(st, a);
}

/* Channel i will deliver no (more) in-flight data for the checkpoint. */
static int ua_channel_done(weir__subtask *st, uint32_t i)
{
    if (!st->ua_id || !st->ua_wait[i])
        return 0;
    st->ua_wait[i] = 0;
    if (--st->ua_n_wait == 0)
        return ua_complete(st);
    return 0;
}

/* Barrier ua_id arrived on channel i: the messages it overtook (right
 * behind it in the channel) are in flight; they are stored now, without
 * waiting for the subtask to get to them. */
static int ua_arrived(weir__subtask *st, uint32_t i, const weir__msg *m)
{
    if (!st->ua_wait[i])
        return 0;
    uint32_t k = m->overtaken;
    if (k > st->ua_tmp_cap) {
        weir__msg *t = weir_realloc(st->ua_tmp, (size_t)k * sizeof *t);
        if (!t)
            return WEIR_ENOMEM;
        st->ua_tmp = t;
        st->ua_tmp_cap = k;
    }
    /* The ring may be rebuilt by a producer: copy the messages out. Their
     * batches stay put until this thread takes and releases them, and a
     * producer never changes a pinned message. */
    pthread_mutex_lock(&st->gate.mu);
    uint32_t n = 0;
    for (; n < k; n++) {
        const weir__msg *q = weir__channel_peek_locked(st->in[i].ch, n);
        if (!q)
            break;
        st->ua_tmp[n] = *q;
    }
    pthread_mutex_unlock(&st->gate.mu);
    int rc = 0;
    for (uint32_t j = 0; j < n && !rc; j++)
        if (st->ua_tmp[j].type != WEIR__MSG_BARRIER &&
            st->ua_tmp[j].type != WEIR__MSG_END)
            rc = ua_record(st, i, &st->ua_tmp[j]);
    if (rc) {
        ua_abort(st, "storing the in-flight data failed: out of memory");
        return 0;
    }
    return ua_channel_done(st, i);
}

/* delivered (may be NULL): per channel, whether it delivered barrier id
 * already (an alignment that timed out): nothing of it is in flight. */
static int ua_start(weir__subtask *st, uint64_t id, const bool *delivered)
{
    st->last_barrier = id;
    weir__async_snap *a;
    int rc = take_snapshot(st, id, &a);
    if (!rc)
        rc = barrier_unaligned_out(st, id);
    if (rc || !a) {
        weir__async_snap_free(a);
        return rc;
    }
    if (!st->ua_wait) {
        st->ua_wait = weir_calloc(st->n_in, 1);
        st->ua_nmsg = weir_calloc(st->n_in, sizeof *st->ua_nmsg);
        st->ua_rec = weir_calloc(st->n_in, sizeof *st->ua_rec);
        if (!st->ua_wait || !st->ua_nmsg || !st->ua_rec) {
            decline(st, id, WEIR_ENOMEM, "out of memory");
            weir__async_snap_free(a);
            ua_free(st);
            return 0;
        }
        for (uint32_t i = 0; i < st->n_in; i++)
            weir_buf_init(&st->ua_rec[i]);
    }
    st->ua_id = id;
    st->ua_snap = a;
    st->ua_n_wait = 0;
    for (uint32_t i = 0; i < st->n_in; i++) {
        weir_buf_clear(&st->ua_rec[i]);
        st->ua_nmsg[i] = 0;
        st->ua_wait[i] = !st->in[i].ended && !(delivered && delivered[i]);
        st->ua_n_wait += st->ua_wait[i];
    }
    return 0;
}

static int ua_switch(weir__subtask *st);

static int on_unaligned_barrier(weir__subtask *st, uint32_t i,
                                const weir__msg *m)
{
    uint64_t id = m->ckpt_id;
    if (st->ua_id == id)
        return ua_arrived(st, i, m);
    if (id <= st->last_barrier) {
        /* Of a checkpoint this subtask gave up or never took. */
        decline(st, id, WEIR_ECANCELED, "overtaken by a newer checkpoint");
        return 0;
    }
    if (st->pending_barrier == id) {
        /* Its alignment timed out upstream: switch over here too. */
        int rc = ua_switch(st);
        if (rc || st->ua_id != id)
            return rc;
        return ua_arrived(st, i, m);
    }
    if (st->pending_barrier) {
        decline(st, st->pending_barrier, WEIR_ECANCELED,
                "overtaken by a newer checkpoint");
        unblock_all(st);
    }
    ua_abort(st, "overtaken by a newer checkpoint");
    int rc = ua_start(st, id, NULL);
    if (rc || !st->ua_id)
        return rc;
    return ua_arrived(st, i, m);
}

/*
 * The alignment of checkpoint pending_barrier timed out (or an upstream's
 * did): the checkpoint turns unaligned here. The channels that delivered
 * the barrier hold nothing in flight; the others store what they deliver
 * until their barrier comes (in order, or taken out of the queue).
 */
static int ua_switch(weir__subtask *st)
{
    uint64_t id = st->pending_barrier;
    /* Once per checkpoint that times out, not per record. */
    bool *delivered = weir_calloc(st->n_in, sizeof *delivered);
    if (!delivered)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < st->n_in; i++)
        delivered[i] = st->in[i].blocked;
    unblock_all(st);
    int rc = ua_start(st, id, delivered);
    weir_free(delivered);
    /* Every open channel had delivered it already: done at once. */
    if (!rc && st->ua_id == id && st->ua_n_wait == 0)
        rc = ua_complete(st);
    return rc;
}

/*
 * Aligned barriers that may turn unaligned: once the job's clock passed
 * their time, those still queued behind data are taken out of their
 * channel and handled as unaligned barriers that overtook that data, and an
 * alignment in progress switches over. Called from the loop.
 */
static int check_barrier_timeouts(weir__subtask *st)
{
    if (!st->align_timeout_at_ms &&
        !__atomic_load_n(&st->gate.barrier_timeout_at_ms, __ATOMIC_RELAXED))
        return 0;
    int64_t now = weir_clock_now(&st->job->cfg.clock);
    int rc = 0;
    if (st->pending_barrier && st->align_timeout_at_ms &&
        now >= st->align_timeout_at_ms)
        rc = ua_switch(st);
    for (;;) {
        weir__msg m;
        bool got = false;
        uint32_t from = 0;
        pthread_mutex_lock(&st->gate.mu);
        int64_t t = st->gate.barrier_timeout_at_ms;
        if (t && now >= t) {
            for (uint32_t i = 0; i < st->n_in && !got; i++)
                if (weir__channel_take_timed_out_barrier_locked(st->in[i].ch,
                                                                now, &m)) {
                    got = true;
                    from = i;
                }
            /* What is left queued decides the next time to look. */
            int64_t next = 0;
            for (uint32_t i = 0; i < st->n_in; i++) {
                int64_t c = weir__channel_barrier_timeout_locked(st->in[i].ch);
                if (c && (!next || c < next))
                    next = c;
            }
            __atomic_store_n(&st->gate.barrier_timeout_at_ms, next,
                             __ATOMIC_RELAXED);
        }
        pthread_mutex_unlock(&st->gate.mu);
        if (!got || rc)
            return rc;
        m.unaligned = true;
        m.timeout_at_ms = 0;
        rc = on_unaligned_barrier(st, from, &m);
    }
}

/*
 * Restore: the in-flight messages the checkpoint stored for this subtask,
 * replayed channel by channel in their order right after the handshake,
 * before any new input. The producers restarted from their own snapshots,
 * taken just after they sent these messages, so nothing is lost or seen
 * twice. The status each channel announced in the handshake is the
 * producer's current one; it is applied again after the replay.
 */
static int replay_inflight(weir__subtask *st);

static int handle_message(weir__subtask *st, uint32_t i, weir__msg *m)
{
    weir__inchan *in = &st->in[i];
    int rc = 0;
    bool handshake_done = false;
    if (!in->started) {
        in->started = true;
        in->first_idle = m->type == WEIR__MSG_IDLE;
        bool all = true;
        for (uint32_t k = 0; k < st->n_in; k++)
            all = all && st->in[k].started;
        /* Set after this message is applied, so that it counts in the initial
         * status. */
        handshake_done = all;
    }
    switch (m->type) {
    case WEIR__MSG_BATCH:
        rc = weir__op_process(&st->ops[0], (int)in->input, m->batch);
        if (rc)
            rc = op_failed(&st->ops[0], rc, "process");
        else if (m->wm != WEIR_TS_MIN)
            rc = handle_flags(st,
                              weir__wm_valve_watermark(&st->valve, i, m->wm));
        break;
    case WEIR__MSG_WATERMARK:
        rc = handle_flags(st, weir__wm_valve_watermark(&st->valve, i, m->wm));
        break;
    case WEIR__MSG_IDLE:
        rc = handle_flags(st, weir__wm_valve_set_idle(&st->valve, i, true));
        break;
    case WEIR__MSG_ACTIVE:
        rc = handle_flags(st, weir__wm_valve_set_idle(&st->valve, i, false));
        break;
    case WEIR__MSG_BARRIER:
        if (!m->unaligned && st->ua_id && m->ckpt_id == st->ua_id) {
            /* In order, after this subtask turned the checkpoint unaligned
             * (its alignment timed out): nothing was overtaken here. */
            m->overtaken = 0;
            rc = ua_arrived(st, i, m);
        } else if (m->unaligned) {
            rc = on_unaligned_barrier(st, i, m);
        } else {
            /* An aligned barrier (a savepoint) newer than the unaligned
             * checkpoint in progress overtakes it. */
            if (st->ua_id && m->ckpt_id > st->ua_id)
                ua_abort(st, "overtaken by a newer checkpoint");
            rc = on_barrier(st, in, m->ckpt_id, m->timeout_at_ms);
        }
        break;
    case WEIR__MSG_END:
        in->ended = true;
        if (!m->drained)
            st->undrained = true;
        /*
         * An input stopped without a drain keeps its last watermark in the
         * minimum, as in Flink, where such a stop sends no final watermark:
         * leaving it out would let the other inputs' watermark fire windows
         * and timers that the stop must leave to the restored job (and a
         * long firing would then outlast the stop's grace and cancel a stop
         * with a savepoint).
         */
        if (m->drained)
            rc = handle_flags(st, weir__wm_valve_end(&st->valve, i));
        if (!rc)
            rc = check_alignment(st);
        if (!rc)
            rc = ua_channel_done(st, i);
        break;
    default:
        rc = weir__subtask_fail(st, WEIR_ECORRUPT, "unknown channel message %d",
                                m->type);
    }
    /* Mirrored for readers on other threads (runtime/inspect.h). */
    if (m->type == WEIR__MSG_BATCH)
        WEIR__SET(&in->last_data_ms_metric,
                  weir_clock_now(&st->job->cfg.clock));
    WEIR__SET(&in->wm_metric, st->valve.in[i].wm);
    WEIR__SET(&in->status_metric,
              in->ended                 ? WEIR__CHAN_ENDED
              : st->valve.in[i].idle ? WEIR__CHAN_IDLE
                                        : WEIR__CHAN_ACTIVE);
    if (handshake_done)
        st->all_started = true;
    if (!rc && st->all_started && !st->status_sent) {
        /* The handshake completed: tell downstream where this subtask stands.
         */
        rc = weir__chain_status(st, st->valve.idle);
        if (!rc && st->valve.out > st->ops[0].in_wm)
            rc = weir__chain_watermark(st, st->valve.out);
        if (!rc && st->replay)
            rc = replay_inflight(st);
    }
    return rc;
}

static int replay_inflight(weir__subtask *st)
{
    weir_cursor c;
    weir_cursor_init(&c, st->replay, st->replay_len);
    st->replay = NULL;
    uint64_t n_in = 0, n_entries = 0;
    int rc = weir_cursor_get_varint(&c, &n_in);
    if (!rc)
        rc = weir_cursor_get_varint(&c, &n_entries);
    if (!rc && n_in != st->n_in)
        return weir__subtask_fail(
            st, WEIR_EUNSUPPORTED,
            "task %d subtask %u: the checkpoint's in-flight data is for %llu "
            "input channels, the job has %u: an unaligned checkpoint restores "
            "only into the same job at the same parallelism",
            st->task->id, st->index, (unsigned long long)n_in, st->n_in);
    weir_batch *b = NULL;
    for (uint64_t e = 0; e < n_entries && !rc; e++) {
        uint64_t chan = 0, n = 0;
        const void *p;
        size_t len;
        if ((rc = weir_cursor_get_varint(&c, &chan)) ||
            (rc = weir_cursor_get_varint(&c, &n)) ||
            (rc = weir_cursor_get_bytes(&c, &p, &len)))
            break;
        if (chan >= st->n_in) {
            rc = WEIR_ECORRUPT;
            break;
        }
        uint32_t i = (uint32_t)chan;
        weir__inchan *in = &st->in[i];
        weir_batch_destroy(b);
        uint32_t cap = in->ch->batch_size ? in->ch->batch_size : 1;
        weir_cursor m;
        weir_cursor_init(&m, p, len);
        /* Room for the largest batch of the channel (rows counted first). */
        for (uint64_t k = 0; k < n && !rc; k++) {
            weir_cursor peek = m;
            weir__msg msg;
            rc = weir__inflight_get_msg(&peek, &msg, NULL);
            if (!rc && msg.type == WEIR__MSG_BATCH) {
                weir_cursor q = m;
                uint8_t t;
                int64_t w;
                uint64_t rows = 0;
                weir_cursor_get_u8(&q, &t);
                weir_cursor_get_i64(&q, &w);
                weir_cursor_get_varint(&q, &rows);
                if (rows > cap && rows <= UINT32_MAX)
                    cap = (uint32_t)rows;
            }
            m = peek;
        }
        if (rc)
            break;
        weir_cursor_init(&m, p, len);
        if (!(b = weir_batch_create(in->ch->schema, cap))) {
            rc = WEIR_ENOMEM;
            break;
        }
        for (uint64_t k = 0; k < n && !rc; k++) {
            weir__msg msg;
            if ((rc = weir__inflight_get_msg(&m, &msg, b)))
                break;
            switch (msg.type) {
            case WEIR__MSG_BATCH:
                rc = weir__op_process(&st->ops[0], (int)in->input, b);
                if (rc)
                    rc = op_failed(&st->ops[0], rc, "process");
                else if (msg.wm != WEIR_TS_MIN)
                    rc = handle_flags(
                        st, weir__wm_valve_watermark(&st->valve, i, msg.wm));
                break;
            case WEIR__MSG_WATERMARK:
                rc = handle_flags(
                    st, weir__wm_valve_watermark(&st->valve, i, msg.wm));
                break;
            default:
                rc = handle_flags(
                    st, weir__wm_valve_set_idle(&st->valve, i,
                                                msg.type == WEIR__MSG_IDLE));
            }
        }
        if (!rc && !in->ended)
            rc = handle_flags(
                st, weir__wm_valve_set_idle(&st->valve, i, in->first_idle));
    }
    weir_batch_destroy(b);
    if (rc == WEIR_ECORRUPT && !st->err.code)
        weir__subtask_fail(st, rc,
                           "task %d subtask %u: the checkpoint's in-flight "
                           "data is corrupt",
                           st->task->id, st->index);
    return rc;
}

/* Restore: finds this subtask's in-flight data, after checking that the
 * job has the checkpoint's parallelism everywhere (channels are matched by
 * position). */
static int load_inflight(weir__subtask *st)
{
    weir_job *job = st->job;
    if (!job->has_restore || !job->restore.inflight)
        return 0;
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        const weir__task *task = &job->tasks[t];
        uint32_t old = job->restore.task_parallelism
                           ? job->restore.task_parallelism(job->restore.ud,
                                                           task->id)
                           : 0;
        if (old && old != task->parallelism)
            return weir__subtask_fail(
                st, WEIR_EUNSUPPORTED,
                "cannot restore an unaligned checkpoint that holds in-flight "
                "data at another parallelism: task %d (%s) had parallelism "
                "%u, now %u (restore it at the old parallelism and take a "
                "savepoint, which is always aligned, to rescale)",
                task->id, job->nodes[task->nodes[0]].name, old,
                task->parallelism);
    }
    if (job->restore.inflight_unplaced) {
        int *node_task =
            weir_calloc(job->n_nodes ? job->n_nodes : 1, sizeof *node_task);
        if (!node_task)
            return WEIR_ENOMEM;
        for (uint32_t n = 0; n < job->n_nodes; n++)
            node_task[n] = job->nodes[n].task;
        int node = -1;
        int t = job->restore.inflight_unplaced(job->restore.ud, node_task,
                                               job->n_nodes, &node);
        weir_free(node_task);
        const char *name = weir__job_node_name(job, node);
        if (t >= 0)
            return weir__subtask_fail(
                st, WEIR_EUNSUPPORTED,
                "the checkpoint's in-flight data of its task %d (with %s) "
                "has no such task in this job: an unaligned checkpoint "
                "restores only into the same job graph (the query changed, "
                "or this weir chains an exchange that the one that took it "
                "did not); restore it with the job and weir that took it and "
                "take a savepoint (aligned), or run with --fresh",
                t, name ? name : "?");
    }
    return job->restore.inflight(job->restore.ud, st->task->id, st->index,
                                 &st->replay, &st->replay_len);
}

static struct timespec deadline_in(int64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

int weir__run_consumer(weir__subtask *st)
{
    weir_job *job = st->job;
    weir__channel *release_ch = NULL;
    weir_batch *release_b = NULL;
    int rc = 0;
    uint32_t open = st->n_in;
    if ((rc = load_inflight(st)))
        return rc;
    while (open > 0) {
        if (canceled(st)) {
            rc = WEIR_ECANCELED;
            break;
        }
        /* Timers (restored ones too) fire only once downstream knows our
         * status. */
        if ((rc = weir__subtask_commands(st, NULL)) ||
            (st->status_sent && (rc = weir__fire_processing_timers(st))) ||
            (st->all_started && (rc = check_barrier_timeouts(st))))
            break;
        weir__msg m;
        uint32_t from = 0;
        bool got = false;
        pthread_mutex_lock(&st->gate.mu);
        if (release_b) {
            weir__channel_release_locked(release_ch, release_b);
            release_b = NULL;
        }
        for (uint32_t k = 0; k < st->n_in && !got; k++) {
            uint32_t i = (st->rr + k) % st->n_in;
            weir__inchan *in = &st->in[i];
            if (in->ended || in->blocked || (!st->all_started && in->started))
                continue;
            if (weir__channel_pop_locked(in->ch, &m)) {
                got = true;
                from = i;
            }
        }
        if (!got) {
            if (st->gate.n_cmds == 0 && !st->wake_pending && !has_staged(st)) {
                weir_ts next = next_processing_timer(st);
                int64_t wait = MAX_WAIT_MS;
                if (next != WEIR_TS_MAX) {
                    int64_t d = next - weir_clock_now(&job->cfg.clock);
                    wait = d < 1 ? 1 : (d < MAX_WAIT_MS ? d : MAX_WAIT_MS);
                }
                struct timespec dl = deadline_in(wait);
                st->gate.waiting = true;
                int64_t t0 = weir_monotonic_ns();
                WEIR__SET(&st->idle_since_ns, t0);
                pthread_cond_timedwait(&st->gate.cv, &st->gate.mu, &dl);
                WEIR__ADD(&st->idle_ns, weir_monotonic_ns() - t0);
                WEIR__SET(&st->idle_since_ns, 0);
                st->gate.waiting = false;
                pthread_mutex_unlock(&st->gate.mu);
            } else {
                pthread_mutex_unlock(&st->gate.mu);
                /* Nothing to read: send what is staged rather than let it wait
                 * for a full batch. */
                if ((rc = weir__chain_flush(st)))
                    break;
            }
            continue;
        }
        pthread_mutex_unlock(&st->gate.mu);
        st->rr = from + 1;
        /* Taken from a channel whose unaligned barrier is still to come: in
         * flight for the checkpoint this subtask already snapshotted. */
        if (st->ua_id && st->ua_wait[from] && m.type != WEIR__MSG_BARRIER &&
            m.type != WEIR__MSG_END && (rc = ua_record(st, from, &m))) {
            ua_abort(st, "storing the in-flight data failed: out of memory");
            rc = 0;
        }
        rc = handle_message(st, from, &m);
        if (m.type == WEIR__MSG_BATCH) {
            release_ch = st->in[from].ch;
            release_b = m.batch;
        }
        if (m.type == WEIR__MSG_END)
            open--;
        if (rc)
            break;
    }
    if (release_b) {
        pthread_mutex_lock(&st->gate.mu);
        weir__channel_release_locked(release_ch, release_b);
        pthread_mutex_unlock(&st->gate.mu);
    }
    if (rc)
        return rc;
    /*
     * Every input ended. After a normal end every channel delivered the final
     * watermark already; make sure of it (a producer with nothing to say may
     * have ended right away), unless the job was stopped.
     */
    st->ending = true;
    if (!st->undrained && st->ops[0].in_wm < WEIR_TS_MAX &&
        (rc = weir__chain_watermark(st, WEIR_TS_MAX)))
        return rc;
    uint64_t ck = 0;
    if ((rc = weir__subtask_commands(st, &ck)))
        return rc;
    /* After a stop the input did not end: stop hooks, not finish (windows
     * that have not fired must not fire). */
    if ((rc = st->undrained ? weir__chain_stop(st) : weir__chain_finish(st)))
        return rc;
    return weir__chain_end(st, !st->undrained);
}

/* ---- the final checkpoint (checkpoint.h) ---- */

static int complete_chain(weir__subtask *st, uint64_t id)
{
    for (uint32_t o = 0; o < st->n_ops; o++) {
        weir_op_ctx *c = &st->ops[o];
        if (c->cls && c->cls->checkpoint_complete) {
            int rc = c->cls->checkpoint_complete(c->op, c, id);
            if (rc)
                return op_failed(c, rc, "checkpoint_complete");
        }
    }
    return st->src ? weir__source_checkpoint_complete(st, id) : 0;
}

int weir__subtask_await_final(weir__subtask *st)
{
    weir_job *job = st->job;
    uint64_t ck = 0;
    int rc = weir__subtask_commands(st, &ck);
    if (rc)
        return rc;
    /*
     * The first checkpoint this snapshot can belong to: one triggered but
     * never seen as a barrier (the inputs ended first), else the one after
     * the last barrier. A barrier can arrive through a channel before the
     * coordinator's trigger command reaches this subtask's mailbox (the
     * trigger is posted to the subtasks one by one): then max_triggered is
     * behind last_barrier, and the checkpoint of that barrier, which holds
     * this subtask's state of before its end, must not count as final.
     * Operators tag what they pre-commit with it, and every checkpoint that
     * completes from now on has an id >= it.
     */
    uint64_t first = st->max_triggered > st->last_barrier
                         ? st->max_triggered
                         : st->last_barrier + 1;
    /* In a restored run that ends before its first checkpoint both are 0:
     * the ids of this run start above the restored one. */
    if (job->has_hooks && first < job->hooks.first_id)
        first = job->hooks.first_id;
    weir_buf snap;
    weir_buf_init(&snap);
    rc = snapshot_chain(st, first, &snap);
    if (rc) {
        weir_buf_fini(&snap);
        if (rc != WEIR_ECANCELED && st->err.code == 0)
            weir__subtask_fail(st, rc,
                               "task %d subtask %u: final snapshot failed: %s",
                               st->task->id, st->index, weir_strerror(rc));
        return rc;
    }
    weir__task_snapshot fs = {.task = st->task->id,
                              .subtask = st->index,
                              .parallelism = st->task->parallelism,
                              .final = true,
                              .data = snap.data,
                              .len = snap.len};
    uint64_t acked = 0;
    if (job->hooks.final_ready)
        job->hooks.final_ready(job->hooks.ud, st->task->id, st->index);
    if (st->max_triggered >= first && job->hooks.ack) {
        fs.ckpt_id = acked = st->max_triggered;
        job->hooks.ack(job->hooks.ud, &fs);
    }
    bool done = false;
    while (!done && !rc) {
        if (canceled(st)) {
            rc = WEIR_ECANCELED;
            break;
        }
        weir__cmd cmds[16];
        uint32_t n = 0;
        pthread_mutex_lock(&st->gate.mu);
        while (n < 16 && st->gate.n_cmds > 0) {
            cmds[n++] = st->gate.cmds[0];
            memmove(st->gate.cmds, st->gate.cmds + 1,
                    (st->gate.n_cmds - 1) * sizeof *cmds);
            st->gate.n_cmds--;
        }
        atomic_store(&st->gate.pending_cmds, st->gate.n_cmds);
        if (n == 0 && !canceled(st)) {
            struct timespec dl = deadline_in(MAX_WAIT_MS);
            st->gate.waiting = true;
            pthread_cond_timedwait(&st->gate.cv, &st->gate.mu, &dl);
            st->gate.waiting = false;
        }
        pthread_mutex_unlock(&st->gate.mu);
        for (uint32_t i = 0; i < n && !rc; i++) {
            uint64_t id = cmds[i].id;
            if (cmds[i].type == WEIR__CMD_CHECKPOINT) {
                if (id > st->max_triggered)
                    st->max_triggered = id;
                if (id > acked && id >= first && job->hooks.ack) {
                    fs.ckpt_id = acked = id;
                    job->hooks.ack(job->hooks.ud, &fs);
                }
            } else if (cmds[i].type == WEIR__CMD_COMPLETE) {
                rc = complete_chain(st, id);
                done = id >= first;
            }
        }
    }
    /* Every checkpoint heard of is answered: mark_finished must not ack again.
     */
    if (st->max_triggered > st->last_barrier)
        st->last_barrier = st->max_triggered;
    weir_buf_fini(&snap);
    return rc;
}

/* ---- the thread ---- */

void *weir__subtask_main(void *arg)
{
    weir__subtask *st = arg;
    weir_job *job = st->job;
    int rc = 0;
    WEIR__SET(&st->start_ns, weir_monotonic_ns());
    if (st->task->is_source)
        rc = weir__source_open(st);
    for (uint32_t i = 0; i < st->n_ops && !rc; i++)
        rc = weir__op_open(&st->ops[i]);
    if (!rc)
        rc =
            st->task->is_source ? weir__run_source(st) : weir__run_consumer(st);
    if (!rc && weir__final_checkpoints(job))
        rc = weir__subtask_await_final(st);
    /* Pinned snapshots must be released before the backends go. */
    ua_free(st);
    weir__snapshot_thread_stop(st);
    if (st->task->is_source)
        weir__source_close(st);
    for (uint32_t i = 0; i < st->n_ops; i++)
        weir__op_close(&st->ops[i]);
    if (rc && !(rc == WEIR_ECANCELED && canceled(st))) {
        if (st->err.code == 0)
            weir__subtask_fail(st, rc, "task %d subtask %u failed: %s",
                               st->task->id, st->index, weir_strerror(rc));
        weir__job_fail(job, st->err.code, "%s", st->err.message);
        weir__job_cancel(job);
    }
    WEIR__SET(&st->end_ns, weir_monotonic_ns());
    weir__subtask_mark_finished(st);
    return NULL;
}
