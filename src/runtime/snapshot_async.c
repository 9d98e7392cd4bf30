/*
 * runtime/snapshot_async.c - the asynchronous part of subtask snapshots
 * (runtime.h, checkpoint.h).
 *
 * Each subtask that takes a snapshot gets one snapshot thread, started on
 * the first checkpoint: a FIFO of weir__async_snap, each serialized,
 * acknowledged and freed in barrier order. One thread per subtask (not one
 * per job) so that a large subtask does not hold up the others' snapshots,
 * and so that the thread's life is the subtask's: it ends, after finishing
 * (or, when the job was canceled, discarding) its queue, before the
 * subtask's operators close - a pinned snapshot must be released before its
 * backend is destroyed.
 *
 * A failure of the second part (out of memory, a RocksDB read error)
 * declines that checkpoint only; the job goes on.
 */
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"
#include "util/io.h"

typedef struct weir__snapper {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    weir__async_snap *head, *tail; /* the queue, oldest first */
    bool stop;
} weir__snapper;

static _Atomic(weir__snapshot_test_hook) g_test_hook;

void weir__set_snapshot_test_hook(weir__snapshot_test_hook fn)
{
    atomic_store(&g_test_hook, fn);
}

/* The native checkpoint's folder is scratch: its files are stored (or the
 * checkpoint failed) once the part is written. */
static void drop_native(weir__async_op *op)
{
    if (!op->native_dir)
        return;
    weir__io_remove_tree(op->native_dir);
    weir_free(op->native_dir);
    op->native_dir = NULL;
}

void weir__async_snap_free(weir__async_snap *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->n_ops; i++) {
        weir__backend_snap_release(a->ops[i].bs);
        drop_native(&a->ops[i]);
        weir_free(a->ops[i].tmr_end);
    }
    weir_free(a->ops);
    weir_buf_fini(&a->head);
    weir_buf_fini(&a->timers);
    weir_buf_fini(&a->tail);
    weir_buf_fini(&a->inflight);
    weir_free(a);
}

/* The native section (format: checkpoint.h): every native part's files,
 * stored through the hook. */
static int write_native(weir__async_snap *a, weir_buf *out,
                        const weir__ckpt_hooks *hooks, int task,
                        uint32_t subtask, uint32_t n_native)
{
    if (!hooks || !hooks->native_upload)
        return WEIR_ESTATE; /* a native part nobody can store */
    int rc = weir_buf_put_varint(out, n_native);
    for (uint32_t i = 0; i < a->n_ops && !rc; i++) {
        weir__async_op *op = &a->ops[i];
        if (!op->native_dir)
            continue;
        if (!(rc = weir_buf_put_varint(out, op->node)) &&
            !(rc = weir_buf_put_varint(out, op->kg_lo)) &&
            !(rc = weir_buf_put_varint(out, op->kg_hi)))
            rc = hooks->native_upload(hooks->ud, a->id, task, subtask,
                                      op->node, op->native_dir, out);
        drop_native(op);
    }
    return rc;
}

/* The width of a padded n_kg: a u32 in LEB128 takes at most 5 bytes. */
#define N_KG_WIDTH 5

/* Writes n at p as a LEB128 varint padded to N_KG_WIDTH bytes (continuation
 * bits on every byte but the last), which every varint reader takes. */
static void put_padded_count(uint8_t *p, uint32_t n)
{
    for (int i = 0; i < N_KG_WIDTH; i++, n >>= 7)
        p[i] = (uint8_t)((n & 0x7f) | (i < N_KG_WIDTH - 1 ? 0x80 : 0));
}

/*
 * One operator's key groups: n_kg and its entries. A key group without
 * keyed state and without timers is left out (a restore reads a missing
 * key group as empty), so key groups nobody's key falls into cost nothing.
 * n_kg is known only once the entries are written: it goes, padded, into
 * the room left for it (no copy of the entries to close a gap).
 */
static int write_kgs(const weir__async_snap *a, const weir__async_op *op,
                     weir_buf *ks, weir_buf *out)
{
    size_t at = out->len;
    uint8_t room[N_KG_WIDTH] = {0};
    int rc = weir_buf_put(out, room, sizeof room);
    uint32_t n = 0;
    for (uint32_t kg = op->kg_lo; op->has_kg && kg < op->kg_hi && !rc; kg++) {
        uint32_t k = kg - op->kg_lo;
        size_t t0 = k ? op->tmr_end[k - 1] : op->tmr_start;
        size_t t_len = op->tmr_end[k] - t0;
        weir_buf_clear(ks);
        if (op->bs)
            rc = weir__backend_snap_kg(op->bs, kg, ks);
        if (rc || (!t_len && weir__backend_kg_bytes_empty(ks->data, ks->len)))
            continue;
        if (!(rc = weir_buf_put_u32(out, kg)) &&
            !(rc = weir_buf_put_bytes(out, ks->data, ks->len)))
            rc = weir_buf_put_bytes(out, a->timers.data + t0, t_len);
        n++;
    }
    if (!rc)
        put_padded_count(out->data + at, n);
    return rc;
}

int weir__async_snap_write(weir__async_snap *a, weir_buf *out,
                           const weir__ckpt_hooks *hooks, int task,
                           uint32_t subtask)
{
    weir_buf ks;
    weir_buf_init(&ks);
    size_t head_at = 0, start = out->len;
    uint32_t n_native = 0;
    int rc = 0;
    for (uint32_t i = 0; i < a->n_ops; i++)
        n_native += a->ops[i].native_dir != NULL;
    /* The snapshot header is the head up to the first operator's header. */
    for (uint32_t i = 0; i < a->n_ops && !rc; i++) {
        const weir__async_op *op = &a->ops[i];
        rc = weir_buf_put(out, a->head.data + head_at, op->head_end - head_at);
        head_at = op->head_end;
        if (!rc)
            rc = write_kgs(a, op, &ks, out);
    }
    if (!rc && head_at < a->head.len)
        rc = weir_buf_put(out, a->head.data + head_at, a->head.len - head_at);
    if (!rc)
        rc = weir_buf_put(out, a->tail.data, a->tail.len);
    if (!rc && n_native) {
        /* Version 2: the header's version byte follows the u32 magic. */
        out->data[start + 4] = 2;
        rc = write_native(a, out, hooks, task, subtask, n_native);
    }
    if (!rc && a->inflight.len) {
        /* Version 3: the native section (maybe empty), then in-flight data. */
        out->data[start + 4] = 3;
        if (!n_native)
            rc = weir_buf_put_varint(out, 0);
        if (!rc)
            rc = weir_buf_put(out, a->inflight.data, a->inflight.len);
    }
    weir_buf_fini(&ks);
    return rc;
}

/* Serializes one snapshot and acknowledges (or declines) it. */
static void complete(weir__subtask *st, weir__async_snap *a)
{
    weir_job *job = st->job;
    weir__snapshot_test_hook hook = atomic_load(&g_test_hook);
    int rc = hook ? hook(a->id, st->task->id, st->index) : 0;
    weir_buf out;
    weir_buf_init(&out);
    if (!rc)
        rc = weir__async_snap_write(a, &out, &job->hooks, st->task->id,
                                    st->index);
    if (a->sync_ns < 0) /* synchronous: the subtask waited for all of it */
        a->sync_ns = weir_monotonic_ns() - a->t0_ns;
    /* Release the pinned state first: the backend copies less meanwhile. */
    for (uint32_t i = 0; i < a->n_ops; i++) {
        weir__backend_snap_release(a->ops[i].bs);
        a->ops[i].bs = NULL;
    }
    if (rc) {
        char why[128];
        snprintf(why, sizeof why, "serializing the keyed state failed: %s",
                 weir_strerror(rc));
        if (job->hooks.decline)
            job->hooks.decline(job->hooks.ud, a->id, st->task->id, st->index,
                               rc, why);
    } else if (job->hooks.ack) {
        weir__task_snapshot s = {
            .ckpt_id = a->id,
            .task = st->task->id,
            .subtask = st->index,
            .parallelism = st->task->parallelism,
            .data = out.data,
            .len = out.len,
            .buf = &out,
            .sync_ns = a->sync_ns,
            .inflight_bytes = a->inflight_bytes,
        };
        job->hooks.ack(job->hooks.ud, &s);
    }
    weir_buf_fini(&out);
    weir__async_snap_free(a);
}

static bool job_canceled(const weir__subtask *st)
{
    return atomic_load_explicit(&st->job->cancel, memory_order_relaxed);
}

static void *snapper_main(void *arg)
{
    weir__subtask *st = arg;
    weir__snapper *s = st->snapper;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->head && !s->stop)
            pthread_cond_wait(&s->cv, &s->mu);
        weir__async_snap *a = s->head;
        if (!a)
            break; /* stop, and nothing left */
        s->head = a->next;
        if (!s->head)
            s->tail = NULL;
        pthread_mutex_unlock(&s->mu);
        if (job_canceled(st))
            weir__async_snap_free(a); /* no one waits for it */
        else
            complete(st, a);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int weir__snapshot_submit(weir__subtask *st, weir__async_snap *a)
{
    a->next = NULL;
    if (st->job->hooks.sync_snapshots) {
        a->sync_ns = -1; /* measured at the ack */
        complete(st, a);
        return 0;
    }
    if (!st->snapper) {
        weir__snapper *s = weir_calloc(1, sizeof *s);
        if (!s) {
            complete(st, a); /* no thread: do it here */
            return 0;
        }
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv, NULL);
        st->snapper = s;
        if (pthread_create(&s->thread, NULL, snapper_main, st) != 0) {
            pthread_mutex_destroy(&s->mu);
            pthread_cond_destroy(&s->cv);
            weir_free(s);
            st->snapper = NULL;
            complete(st, a);
            return 0;
        }
    }
    weir__snapper *s = st->snapper;
    pthread_mutex_lock(&s->mu);
    if (s->tail)
        s->tail->next = a;
    else
        s->head = a;
    s->tail = a;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

void weir__snapshot_thread_stop(weir__subtask *st)
{
    weir__snapper *s = st->snapper;
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    weir_free(s);
    st->snapper = NULL;
}
