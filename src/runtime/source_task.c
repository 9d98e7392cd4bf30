/*
 * runtime/source_task.c - the loop of a source subtask.
 *
 * The subtask owns the splits its source instance discovers, reads each
 * through its own reader into a batch, stamps event time (from the schema's
 * rowtime column, or as the reader set it), runs one watermark generator per
 * split, and pushes the rows into its chain. Its watermark is the valve
 * over its splits: minimum over active splits, idle splits excluded, never
 * backwards; WEIR_TS_MAX once every split ended and no split can appear.
 *
 * Determinism: the watermark a record produces takes effect after that
 * record. A batch therefore cannot simply be emitted whole with the
 * watermark after it: a record that is behind the watermark produced by the
 * records before it in the same batch must see that watermark in force. So
 * while scanning a batch, when the next record's timestamp is <= the
 * watermark the records before it produce, and that watermark is above the
 * last one emitted, the batch is cut there: the rows before go out, then the
 * watermark, then scanning goes on. Records with larger timestamps cannot be
 * late for any window (a window that contains ts ends after ts), so they do
 * not need the exact watermark. "<=" rather than "<" because a record exactly
 * at the watermark can still touch a session window that the watermark
 * closes (touching sessions merge) or meet an event-time timer at W.
 *
 * Idleness: a split that delivers nothing for the idle timeout (processing
 * time, from the job's clock) becomes idle; its next row makes it active
 * again, and from then on it holds the watermark again (the watermark does
 * not go back, it waits for the split to catch up). A split that says it
 * has unread records (weir_source_class.has_backlog) is never idle: that
 * makes an idle one active again before its rows come. A split whose source
 * says when it is idle (weir_source_class.idle) is idle exactly then.
 *
 * Watermark alignment (scan.watermark.alignment.group / .max-drift, as in
 * Flink): the source subtasks of one group publish their watermark, and a
 * subtask whose watermark is more than max-drift ahead of the smallest one
 * published by the others stops reading (it still answers barriers and
 * fires processing-time timers) until they catch up. Idle and finished
 * subtasks hold no one back. Two independent sources joined downstream
 * otherwise drift apart without bound - nothing pushes back on the faster
 * one, because the join consumes both inputs - and the join holds the state
 * of every window the faster one read ahead.
 *
 * Lockstep (generators, file byte ranges: weir_source_class.lockstep): the
 * subtasks of one source publish the rows they read per sequence of splits,
 * and one that is more than LOCKSTEP_BATCHES batches per sequence ahead of
 * the slowest waits as an aligned one does. Their rows are one sequence
 * dealt out in stride with event time a function of the row number (or
 * ranges of files dealt out in stride), so equal row counts mean equal (or
 * close) event times. It only holds reading back: rows, watermarks and
 * results are the same with or without it.
 *
 * Sequences (weir_source_class.continues: byte ranges of one file): a split
 * that continues the one added before it waits, unopened and outside the
 * valve, until that one ends; then it takes over its watermark generator and
 * valve input. The subtask reads them as one split of their records.
 */
#include <string.h>
#include <time.h>

#include "runtime/runtime.h"

static bool canceled(const weir__subtask *st)
{
    return atomic_load_explicit(&st->job->cancel, memory_order_relaxed);
}
static bool stopping(const weir__subtask *st)
{
    uint64_t after = atomic_load_explicit(&st->job->stop_after_barrier,
                                          memory_order_relaxed);
    return atomic_load_explicit(&st->job->stop, memory_order_relaxed) ||
           (after && st->last_barrier >= after);
}

int weir__source_open(weir__subtask *st)
{
    weir_job *job = st->job;
    weir__node *node = &job->nodes[st->task->nodes[0]];
    weir__source_run *r = weir_calloc(1, sizeof *r);
    if (!r)
        return weir__subtask_fail(st, WEIR_ENOMEM, "%s: out of memory",
                                  node->name);
    st->src = r;
    r->cls = node->src.cls;
    weir_buf_init(&r->pos);
    if (weir__wm_valve_init(&r->valve, 0))
        return weir__subtask_fail(st, WEIR_ENOMEM, "%s: out of memory",
                                  node->name);
    int64_t idle = node->wm.idle_timeout_ms;
    r->idle_timeout_ms =
        idle == 0 ? job->cfg.idle_timeout_ms : (idle < 0 ? 0 : idle);
    uint32_t bs = job->cfg.batch_size;
    /* A record may decode to several rows (a debezium-json update: -U and
     * +U), which a reader appends together: the read batch holds at least
     * that many even at weir.batch-size 1 (emit_rows cuts it to bs). */
    uint32_t cap = bs < WEIR__SOURCE_MAX_ROWS_PER_RECORD ? WEIR__SOURCE_MAX_ROWS_PER_RECORD : bs;
    r->rb = weir_batch_create(node->src.schema, cap);
    r->seg = weir_batch_create(node->src.schema, bs);
    r->iota = weir_malloc(cap * sizeof *r->iota);
    if (!r->rb || !r->seg || !r->iota)
        return weir__subtask_fail(st, WEIR_ENOMEM, "%s: out of memory",
                                  node->name);
    for (uint32_t i = 0; i < cap; i++)
        r->iota[i] = i;
    /* One process of several running the job (cluster/): its subtasks are
     * a share of the job's, so the source's splits spread over all. */
    uint32_t procs = job->cluster_count > 1 ? job->cluster_count : 1;
    weir_source_info info = {
        .subtask = job->cluster_index * st->task->parallelism + st->index,
        .parallelism = procs * st->task->parallelism,
        .batch_size = bs,
        .schema = node->src.schema,
        /* the number of processes may change (a rescale): split ids must
         * not depend on it */
        .stable_splits =
            job->cluster_rescalable ? job->cfg.max_parallelism : 0,
        .restored_parallelism =
            job->has_restore && job->restore.task_parallelism
                ? job->restore.task_parallelism(job->restore.ud, st->task->id)
                : 0,
    };
    weir_error err;
    weir_error_clear(&err);
    int rc = r->cls->create(node->src.arg, &info, &r->src, &err);
    if (rc) {
        r->src = NULL;
        return weir__subtask_fail(st, rc, "%s: %s", node->name,
                                  err.message[0] ? err.message
                                                 : weir_strerror(rc));
    }
    return 0;
}

void weir__source_close(weir__subtask *st)
{
    weir__source_run *r = st->src;
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_splits; i++) {
        if (r->splits[i].reader)
            r->cls->close_split(r->splits[i].reader);
        weir_free(r->splits[i].id);
    }
    weir_free(r->splits);
    if (r->src)
        r->cls->destroy(r->src);
    weir__wm_valve_fini(&r->valve);
    weir_batch_destroy(r->rb);
    weir_batch_destroy(r->seg);
    weir_free(r->iota);
    weir_buf_fini(&r->pos);
    weir_free(r);
    st->src = NULL;
}

static weir__node *source_node(weir__subtask *st)
{
    return &st->job->nodes[st->task->nodes[0]];
}

static int handle_flags(weir__subtask *st, int flags)
{
    int rc = 0;
    weir__source_run *r = st->src;
    if (flags & WEIR__WM_BECAME_ACTIVE)
        rc = weir__chain_status(st, false);
    if (!rc && (flags & WEIR__WM_ADVANCED))
        rc = weir__chain_watermark(st, r->valve.out);
    if (!rc && (flags & WEIR__WM_BECAME_IDLE))
        rc = weir__chain_status(st, true);
    return rc;
}

/* A split's entry for readers on other threads (kept until the job goes). */
static weir__split_pub *publish_split(weir__subtask *st, const char *id)
{
    weir__split_pub *p = weir_calloc(1, sizeof *p);
    if (!p || !(p->id = weir_strdup(id))) {
        weir_free(p);
        return NULL;
    }
    p->wm = p->max_ts = WEIR_TS_MIN;
    pthread_mutex_lock(&st->pub_mu);
    if (st->n_split_pub == st->cap_split_pub) {
        uint32_t cap = st->cap_split_pub ? st->cap_split_pub * 2 : 4;
        weir__split_pub **a =
            weir_realloc(st->split_pub, cap * sizeof *a);
        if (!a) {
            pthread_mutex_unlock(&st->pub_mu);
            weir_free(p->id);
            weir_free(p);
            return NULL;
        }
        st->split_pub = a;
        st->cap_split_pub = cap;
    }
    st->split_pub[st->n_split_pub++] = p;
    pthread_mutex_unlock(&st->pub_mu);
    return p;
}

static void publish_split_state(weir__split *s)
{
    weir__split_pub *p = s->pub;
    WEIR__SET(&p->wm, weir__wm_gen_current(&s->gen));
    WEIR__SET(&p->max_ts, s->gen.max_ts);
    WEIR__SET(&p->last_data_ms, s->last_data_ms);
    WEIR__SET(&p->idle, s->idle ? 1 : 0);
    WEIR__SET(&p->finished, s->finished ? 1 : 0);
}

/* Opens the reader of split s (pos NULL, 0: from its beginning). */
static int open_reader(weir__subtask *st, weir__split *s, const void *pos,
                       size_t pos_len)
{
    weir__source_run *r = st->src;
    weir_error err;
    weir_error_clear(&err);
    int rc = r->cls->open_split(r->src, s->id, pos, pos_len, &s->reader, &err);
    if (rc) {
        s->reader = NULL;
        return weir__subtask_fail(st, rc, "%s: split %s: %s",
                                  source_node(st)->name, s->id,
                                  err.message[0] ? err.message
                                                 : weir_strerror(rc));
    }
    return 0;
}

/*
 * Adds split id. prev: the split added just before it when the source says
 * id continues it (weir_source_class.continues), else -1. A continuing split
 * that has no progress of its own to restore waits for prev to end
 * (queued): it is neither opened nor an input of the valve until then.
 */
static int add_split(weir__subtask *st, const char *id, int64_t prev)
{
    weir__source_run *r = st->src;
    weir_job *job = st->job;
    weir__node *node = source_node(st);
    if (r->n_splits == r->cap_splits) {
        uint32_t cap = r->cap_splits ? r->cap_splits * 2 : 4;
        weir__split *s = weir_realloc(r->splits, cap * sizeof *s);
        if (!s)
            return WEIR_ENOMEM;
        r->splits = s;
        r->cap_splits = cap;
    }
    weir__split *s = &r->splits[r->n_splits];
    memset(s, 0, sizeof *s);
    s->id = weir_strdup(id);
    if (!s->id)
        return WEIR_ENOMEM;
    weir__wm_gen_init(&s->gen, &node->wm);
    s->last_data_ms = weir_clock_now(&job->cfg.clock);
    r->last_data_ms = s->last_data_ms;
    if (!(s->pub = publish_split(st, id))) {
        weir_free(s->id);
        return WEIR_ENOMEM;
    }
    weir__restored_split rs = {0};
    bool restored = false;
    if (job->has_restore && job->restore.split) {
        int rc = job->restore.split(job->restore.ud, node->id, id, &rs);
        if (rc && rc != WEIR_ENOTFOUND) {
            weir_free(s->id);
            return weir__subtask_fail(st, rc, "%s: cannot restore split %s: %s",
                                      node->name, id, weir_strerror(rc));
        }
            restored = rc == 0;
    }
    bool progress = restored && (rs.finished || rs.pos_len > 0 ||
                                 rs.max_ts != WEIR_TS_MIN);
    if (prev >= 0 && !progress && !r->splits[prev].finished) {
        s->queued = true;
        r->splits[prev].next = r->n_splits++;
        publish_split_state(s);
        return 0;
    }
    r->n_seqs++;
    int idx = weir__wm_valve_add(&r->valve);
    if (idx < 0) {
        weir_free(s->id);
        return WEIR_ENOMEM;
    }
    s->valve_idx = (uint32_t)idx;
    r->n_splits++;
    if (restored) {
        /* Its watermark (or its end) reaches the valve in discover(), once
         * every split of this call is in: applied now, a restored split
         * added first would move the valve past the splits added after it,
         * and the valve never goes back. */
        s->gen.max_ts = rs.max_ts;
        if (rs.finished) {
            s->finished = true;
            publish_split_state(s);
            return 0;
        }
    }
    int rc = open_reader(st, s, restored ? rs.pos : NULL,
                         restored ? rs.pos_len : 0);
    if (rc)
        return rc;
    publish_split_state(s);
    return 0;
}

/*
 * The splits of a discovery, some restored as read to their ends: the
 * subtask is not idle, as one without splits is, but active at the
 * watermark those splits had reached, as in the run that wrote the
 * checkpoint. Its input then ends and its final watermark follows (a source
 * that will find no more splits), or it holds that watermark until a new
 * split comes or the idle timeout passes (idle_without_splits), as a
 * subtask whose splits ended in that run does (a watched folder). The new
 * splits count first (the valve turns active if it had none), and the
 * restored watermarks go in before the ends (the caller's loop), so that
 * the subtask announces where it stands. Announced idle, the operators
 * downstream would count it out: the watermark of its siblings (or of
 * another source of a union or join) would carry them past the rows of its
 * next split, and the final watermark of its siblings would carry a second
 * window level (a window over another's window_time, or the split of
 * DISTINCT aggregates) past the results its own first level still had to
 * fire; those rows would come late.
 */
static int restored_ended_watermarks(weir__source_run *r, uint32_t first)
{
    int f = weir__wm_valve_refresh(&r->valve);
    for (uint32_t i = first; i < r->n_splits; i++) {
        weir__split *s = &r->splits[i];
        if (s->finished && s->gen.max_ts != WEIR_TS_MIN)
            f |= weir__wm_valve_watermark(&r->valve, s->valve_idx,
                                          weir__wm_gen_current(&s->gen));
    }
    return f;
}

/* Asks the source for new splits; returns flags of the valve's change. */
static int discover(weir__subtask *st, int *flags)
{
    weir__source_run *r = st->src;
    const char **ids = NULL;
    uint32_t n = 0;
    bool done = false;
    weir_error err;
    weir_error_clear(&err);
    int rc = r->cls->discover(r->src, &ids, &n, &done, &err);
    if (rc)
        return weir__subtask_fail(st, rc, "%s: %s", source_node(st)->name,
                                  err.message[0] ? err.message
                                                 : weir_strerror(rc));
    uint32_t first = r->n_splits;
    for (uint32_t i = 0; i < n; i++) {
        int64_t prev = -1;
        if (r->cls->continues && r->n_splits > 0 &&
            r->cls->continues(r->src, r->splits[r->n_splits - 1].id, ids[i]))
            prev = (int64_t)r->n_splits - 1;
        if ((rc = add_split(st, ids[i], prev)))
            return rc;
    }
    /* Restored splits: their watermarks and ends, now that all are in. A
     * split that is not restored starts with no watermark (and one found in
     * a later call cannot pull back what the valve already passed). */
    int f = 0;
    if (first < r->n_splits)
        f = restored_ended_watermarks(r, first);
    for (uint32_t i = first; i < r->n_splits; i++) {
        weir__split *s = &r->splits[i];
        if (s->finished)
            f |= weir__wm_valve_end(&r->valve, s->valve_idx);
        else if (s->gen.max_ts != WEIR_TS_MIN)
            f |= weir__wm_valve_watermark(&r->valve, s->valve_idx,
                                          weir__wm_gen_current(&s->gen));
    }
    r->discovery_done = done;
    *flags = f | weir__wm_valve_refresh(&r->valve);
    return 0;
}

/* Emits rows [a, b) of the read batch, in batches of at most the job's batch size. */
static int emit_rows(weir__subtask *st, uint32_t a, uint32_t b)
{
    weir__source_run *r = st->src;
    weir_batch *rb = r->rb;
    if (a == b)
        return 0;
    uint32_t bs = st->job->cfg.batch_size;
    if (b - a > bs) {
        /* only at a batch size below the rows of one record */
        for (uint32_t i = a; i < b; i += bs) {
            weir_batch_reset(r->seg);
            uint32_t n = b - i < bs ? b - i : bs;
            int rc = weir_batch_gather(r->seg, rb, r->iota + i, n);
            if (!rc)
                rc = weir_op_emit(&st->ops[0], r->seg);
            if (rc)
                return rc;
        }
        return 0;
    }
    if (a == 0 && b == rb->n_rows) {
        /* the whole batch: handed to the exchange rather than copied when it
         * goes whole to one channel (r->rb may be a fresh batch afterwards) */
        return weir__op_emit_handoff(&st->ops[0], &r->rb);
    }
    if (a == 0) {
        uint32_t n = rb->n_rows;
        rb->n_rows =
            b; /* the rows after b stay in place for the next segment */
        int rc = weir_op_emit(&st->ops[0], rb);
        rb->n_rows = n;
        return rc;
    }
    weir_batch_reset(r->seg);
    int rc = weir_batch_gather(r->seg, rb, r->iota + a, b - a);
    if (!rc)
        rc = weir_op_emit(&st->ops[0], r->seg);
    return rc;
}

static int stamp_rowtime(weir__subtask *st, weir__split *s)
{
    weir_batch *b = st->src->rb;
    int32_t col = b->schema->rowtime;
    if (col < 0)
        return 0;
    const weir_column *c = &b->cols[col];
    for (uint32_t i = 0; i < b->n_rows; i++) {
        if (weir_batch_is_null(b, (uint32_t)col, i))
            return weir__subtask_fail(st, WEIR_EPARSE,
                                      "%s: split %s: the rowtime column %s is "
                                      "NULL (a row needs an event time)",
                                      source_node(st)->name, s->id,
                                      b->schema->fields[col].name);
        if (c->type.id == WEIR_TYPE_INT)
            b->ts[i] = ((const int32_t *)c->data)[i];
        else
            b->ts[i] = ((const int64_t *)c->data)[i];
    }
    return 0;
}

/* Pushes a freshly read batch of split s into the chain, cutting it where the
 * watermark must advance. */
static int process_rows(weir__subtask *st, weir__split *s)
{
    weir__source_run *r = st->src;
    weir_batch *rb = r->rb;
    int rc = stamp_rowtime(st, s);
    if (rc)
        return rc;
    /* The reader reports the watermark (read_split asks it after the rows). */
    if (s->gen.kind == WEIR_WATERMARK_SOURCE)
        return emit_rows(st, 0, rb->n_rows);
    weir_ts other = weir__wm_valve_min_excluding(&r->valve, s->valve_idx);
    weir_ts emitted = r->valve.out;
    uint32_t seg = 0, n = rb->n_rows;
    const weir_ts *ts = rb->ts;
    /* cur and cand change only when a row raises the split's maximum. */
    weir_ts cur = weir__wm_gen_current(&s->gen);
    weir_ts cand = cur < other ? cur : other;
    for (uint32_t i = 0; i < n; i++) {
        weir_ts t = ts[i];
        if (t <= cand && cand > emitted) {
            if ((rc = emit_rows(st, seg, i)))
                return rc;
            if ((rc = handle_flags(st, weir__wm_valve_watermark(
                                           &r->valve, s->valve_idx, cur))))
                return rc;
            emitted = r->valve.out;
            seg = i;
        }
        if (t > s->gen.max_ts) {
            s->gen.max_ts = t;
            cur = weir__wm_gen_current(&s->gen);
            cand = cur < other ? cur : other;
        }
    }
    if ((rc = emit_rows(st, seg, n)))
        return rc;
    if (s->gen.max_ts > WEIR__LOAD(&st->max_event_ts_metric))
        WEIR__SET(&st->max_event_ts_metric, s->gen.max_ts);
    return handle_flags(
        st, weir__wm_valve_watermark(&r->valve, s->valve_idx,
                                     weir__wm_gen_current(&s->gen)));
}

/*
 * Split s ended and split n continues it: n goes on as the same sequence,
 * with s's watermark generator and valve input (the watermark neither waits
 * for n's first rows nor restarts from nothing).
 */
static int hand_over(weir__subtask *st, weir__split *s, weir__split *n,
                     int64_t now)
{
    n->gen = s->gen;
    n->valve_idx = s->valve_idx;
    n->idle = s->idle;
    n->last_data_ms = now;
    n->queued = false;
    int rc = open_reader(st, n, NULL, 0);
    if (!rc)
        publish_split_state(n);
    return rc;
}

/* Reads one batch from split s. *progress is set when rows came. */
static int read_split(weir__subtask *st, weir__split *s, bool *progress)
{
    weir__source_run *r = st->src;
    weir_batch *rb = r->rb;
    weir_job *job = st->job;
    weir_batch_reset(rb);
    bool eof = false;
    int rc = 0;
    while (rb->n_rows < rb->capacity) {
        weir_error err;
        weir_error_clear(&err);
        rc = r->cls->read(s->reader, rb, rb->capacity - rb->n_rows, &err);
        if (rc == WEIR_EOF) {
            eof = true;
            rc = 0;
            break;
        }
        if (rc < 0)
            return weir__subtask_fail(
                st, rc, "%s: split %s: %s", source_node(st)->name, s->id,
                err.message[0] ? err.message : weir_strerror(rc));
        if (rc == 0)
            break;
    }
    int64_t now = weir_clock_now(&job->cfg.clock);
    /* process_rows may hand rb to the exchange: count its rows first */
    const bool got_rows = rb->n_rows > 0;
    if (got_rows) {
        *progress = true;
        r->rows += rb->n_rows;
        WEIR__ADD(&s->pub->rows, rb->n_rows);
        s->last_data_ms = now;
        r->last_data_ms = now;
        if (s->idle) {
            s->idle = false;
            if ((rc = handle_flags(st, weir__wm_valve_set_idle(
                                           &r->valve, s->valve_idx, false))))
                return rc;
        }
        if ((rc = process_rows(st, s)))
            return rc;
        publish_split_state(s);
    }
    if (s->gen.kind == WEIR_WATERMARK_SOURCE && r->cls->watermark) {
        weir_ts w = r->cls->watermark(s->reader);
        if (w > s->gen.max_ts) {
            *progress = true;
            s->gen.max_ts = w;
            publish_split_state(s);
            if ((rc = handle_flags(st, weir__wm_valve_watermark(
                                           &r->valve, s->valve_idx, w))))
                return rc;
        }
    }
    if (eof) {
        *progress = true;
        s->finished = true;
        publish_split_state(s);
        r->cls->close_split(s->reader);
        s->reader = NULL;
        if (s->next)
            return hand_over(st, s, &r->splits[s->next], now);
        /* The split's watermark holds no one back any more. */
        return handle_flags(st, weir__wm_valve_end(&r->valve, s->valve_idx));
    }
    /* A split that says when it is idle. */
    if (r->cls->idle) {
        bool idle = r->cls->idle(s->reader);
        if (idle == s->idle)
            return 0;
        s->idle = idle;
        publish_split_state(s);
        return handle_flags(
            st, weir__wm_valve_set_idle(&r->valve, s->valve_idx, idle));
    }
    /*
     * Lag-aware idleness: a split that knows it is behind is not silent.
     * One that was idle is active again at once, before its records come:
     * otherwise the other splits would carry the watermark past them.
     */
    if (!got_rows && r->cls->has_backlog && r->cls->has_backlog(s->reader)) {
        s->last_data_ms = now;
        if (!s->idle)
            return 0;
        s->idle = false;
        publish_split_state(s);
        return handle_flags(
            st, weir__wm_valve_set_idle(&r->valve, s->valve_idx, false));
    }
    if (!got_rows && !s->idle && r->idle_timeout_ms > 0 &&
        now - s->last_data_ms >= r->idle_timeout_ms) {
        s->idle = true;
        publish_split_state(s);
        return handle_flags(
            st, weir__wm_valve_set_idle(&r->valve, s->valve_idx, true));
    }
    return 0;
}

static void metric_emit(void *ud, const char *name, uint64_t v)
{
    uint64_t *c = weir_op_counter(ud, name);
    if (c)
        WEIR__SET(c, v);
}

static void poll_source_metrics(weir__subtask *st)
{
    weir__source_run *r = st->src;
    if (r->cls->metrics)
        r->cls->metrics(r->src, metric_emit, &st->ops[0]);
}

/*
 * A subtask of a source that watches for new splits (a monitored folder)
 * whose every split has ended has no split left to turn idle, yet holds its
 * watermark until a new split comes. With an idle timeout it turns idle
 * once it has read nothing for that long, as a silent split does; the next
 * split it finds makes it active again (the valve's refresh).
 */
static int idle_without_splits(weir__subtask *st)
{
    weir__source_run *r = st->src;
    if (r->idle_timeout_ms <= 0 || r->discovery_done || r->valve.idle ||
        r->n_splits == 0)
        return 0;
    for (uint32_t i = 0; i < r->n_splits; i++)
        if (!r->splits[i].finished)
            return 0;
    int64_t now = weir_clock_now(&st->job->cfg.clock);
    if (now - r->last_data_ms < r->idle_timeout_ms)
        return 0;
    r->valve.idle = true;
    return weir__chain_status(st, true);
}

static bool every_split_ended(const weir__source_run *r)
{
    for (uint32_t i = 0; i < r->n_splits; i++)
        if (!r->splits[i].finished)
            return false;
    return true;
}

static bool all_finished(const weir__source_run *r)
{
    for (uint32_t i = 0; i < r->n_splits; i++)
        if (!r->splits[i].finished)
            return false;
    return r->discovery_done;
}

/* The fewest rows per sequence read by a subtask of st's source other than
 * `skip` (UINT64_MAX: none left that holds anyone back). */
static uint64_t lock_min(const weir__subtask *st, const weir__subtask *skip)
{
    const weir__task *task = st->task;
    uint64_t min = UINT64_MAX;
    for (uint32_t i = 0; i < task->parallelism; i++) {
        const weir__subtask *o = task->subtasks[i];
        if (o == skip)
            continue;
        uint64_t v = atomic_load(&o->lock_rows);
        if (v < min)
            min = v;
    }
    return min;
}

/*
 * Sleeps on the subtask's gate for up to ms milliseconds, or until a
 * command comes. resume_at > 0 (a lockstep subtask that is ahead): or
 * until every sibling has read that many rows per sequence; the sibling
 * that gets there wakes it (lock_publish). The store of lock_resume_at and
 * the siblings' loads here, against their store of lock_rows and load of
 * lock_resume_at there, are sequentially consistent, so one of the two
 * sides sees the other: either this one does not sleep, or the sibling
 * signals it, under the gate's mutex, which this one holds until it waits.
 */
static void wait_a_little(weir__subtask *st, int64_t ms, uint64_t resume_at)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += (long)ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&st->gate.mu);
    if (resume_at)
        atomic_store(&st->lock_resume_at, resume_at);
    if (st->gate.n_cmds == 0 && !stopping(st) && !canceled(st) &&
        (!resume_at || lock_min(st, st) < resume_at)) {
        st->gate.waiting = true;
        int64_t t0 = weir_monotonic_ns();
        WEIR__SET(&st->idle_since_ns, t0);
        pthread_cond_timedwait(&st->gate.cv, &st->gate.mu, &ts);
        WEIR__ADD(&st->idle_ns, weir_monotonic_ns() - t0);
        WEIR__SET(&st->idle_since_ns, 0);
        st->gate.waiting = false;
    }
    if (resume_at)
        atomic_store(&st->lock_resume_at, 0);
    pthread_mutex_unlock(&st->gate.mu);
}

/* The watermark this subtask holds its alignment group to. */
static void align_publish(weir__subtask *st, bool ended)
{
    const weir__source_run *r = st->src;
    weir_ts v = ended || r->valve.idle ? WEIR_TS_MAX : r->valve.out;
    atomic_store_explicit(&st->align_wm, v, memory_order_relaxed);
}

/* Whether this subtask is more than max-drift ahead of its group. */
static bool align_ahead(weir__subtask *st)
{
    const weir__node *node = source_node(st);
    const weir_watermark_spec *wm = &node->wm;
    if (!wm->align_group[0] || wm->kind == WEIR_WATERMARK_NONE)
        return false;
    weir_ts own = st->src->valve.out;
    if (own == WEIR_TS_MIN || st->src->valve.idle)
        return false;
    weir_job *job = st->job;
    weir_ts min = WEIR_TS_MAX;
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        const weir__task *task = &job->tasks[t];
        if (!task->is_source)
            continue;
        const weir__node *n = &job->nodes[task->nodes[0]];
        if (n->wm.kind == WEIR_WATERMARK_NONE ||
            strcmp(n->wm.align_group, wm->align_group) != 0)
            continue;
        for (uint32_t i = 0; i < task->parallelism; i++) {
            const weir__subtask *o = task->subtasks[i];
            if (o == st)
                continue;
            weir_ts v =
                atomic_load_explicit(&o->align_wm, memory_order_relaxed);
            if (v < min)
                min = v;
        }
    }
    if (min == WEIR_TS_MAX)
        return false;
    int64_t drift = wm->align_max_drift_ms > 0 ? wm->align_max_drift_ms : 0;
    return min < WEIR_TS_MAX - drift && own > min + drift;
}

/* How far (batches per sequence) a lockstep subtask may run ahead; one
 * that had to wait reads again once it is no more than half as far ahead
 * (so that it waits once per few batches, not at every one). */
#define LOCKSTEP_BATCHES 4

static bool lockstep(const weir__subtask *st)
{
    return st->src->cls->lockstep && st->task->parallelism > 1;
}

/* The row count per sequence a waiting lockstep subtask resumes at. */
static uint64_t lock_resume_rows(const weir__subtask *st)
{
    uint64_t own = atomic_load_explicit(&st->lock_rows, memory_order_relaxed);
    uint64_t half = (uint64_t)LOCKSTEP_BATCHES / 2 * st->job->cfg.batch_size;
    return own > half ? own - half : 1;
}

/*
 * Publishes the rows read per sequence, and wakes a sibling that waits for
 * this count (wait_a_little) once no subtask holds it back any more.
 */
static void lock_publish(weir__subtask *st, bool ended)
{
    const weir__source_run *r = st->src;
    uint64_t v = ended ? UINT64_MAX : r->rows / (r->n_seqs ? r->n_seqs : 1);
    if (!lockstep(st)) {
        atomic_store_explicit(&st->lock_rows, v, memory_order_relaxed);
        return;
    }
    atomic_store(&st->lock_rows, v);
    const weir__task *task = st->task;
    for (uint32_t i = 0; i < task->parallelism; i++) {
        weir__subtask *o = task->subtasks[i];
        if (o == st)
            continue;
        uint64_t want = atomic_load(&o->lock_resume_at);
        if (!want || v < want || lock_min(o, o) < want ||
            !atomic_compare_exchange_strong(&o->lock_resume_at, &want, 0))
            continue;
        pthread_mutex_lock(&o->gate.mu);
        pthread_cond_signal(&o->gate.cv);
        pthread_mutex_unlock(&o->gate.mu);
    }
}

/* Whether this lockstep subtask is too far ahead of its slowest sibling
 * (after a wait: still more than half that far). */
static bool lock_ahead(weir__subtask *st)
{
    weir__source_run *r = st->src;
    if (!lockstep(st))
        return false;
    uint64_t own = atomic_load_explicit(&st->lock_rows, memory_order_relaxed);
    uint64_t min = lock_min(st, st);
    uint64_t lead = (uint64_t)LOCKSTEP_BATCHES * st->job->cfg.batch_size;
    if (r->lock_held)
        lead /= 2;
    r->lock_held = min != UINT64_MAX && own > min + lead;
    return r->lock_held;
}

/*
 * A source whose splits carry barriers (weir_source_class.barrier): the
 * barrier every open split has reached, if above the last one; 0 if none.
 * The triggers are only counted (max_triggered), so that a subtask that
 * ends without reaching one still answers it as finished.
 */
static uint64_t barrier_reached(const weir__subtask *st)
{
    const weir__source_run *r = st->src;
    uint64_t min = UINT64_MAX;
    for (uint32_t i = 0; i < r->n_splits; i++) {
        const weir__split *s = &r->splits[i];
        if (s->finished || !s->reader)
            continue;
        uint64_t b = r->cls->barrier(s->reader);
        if (b < min)
            min = b;
    }
    return min != UINT64_MAX && min > st->last_barrier ? min : 0;
}

static int inject_pending_barrier(weir__subtask *st)
{
    uint64_t ck = 0;
    int rc = weir__subtask_commands(st, &ck);
    if (!rc && st->src->cls->barrier)
        ck = barrier_reached(st);
    if (!rc && ck)
        rc = weir__chain_barrier(st, ck);
    return rc;
}

int weir__run_source(weir__subtask *st)
{
    weir__source_run *r = st->src;
    int flags = 0;
    int rc = discover(st, &flags);
    if (rc)
        return rc;
    /*
     * Restored splits that had all ended, of a source that finds more
     * splits later (a hybrid source's live part comes once its history has
     * ended): ask again before saying where this subtask stands, so that
     * it announces the next phase's restored watermarks with the others,
     * and a checkpoint taken before that phase's splits came would not
     * lose their restored positions. Stops when a call adds nothing.
     */
    while (!r->discovery_done && r->n_splits > 0 && every_split_ended(r)) {
        uint32_t before = r->n_splits;
        if ((rc = discover(st, &flags)))
            return rc;
        if (r->n_splits == before)
            break;
    }
    /* The first message of every channel: where this subtask stands. */
    if ((rc = weir__chain_status(st, r->valve.idle)))
        return rc;
    if (r->valve.out > WEIR_TS_MIN &&
        (rc = weir__chain_watermark(st, r->valve.out)))
        return rc;
    int quiet = 0;
    uint64_t batches = 0, busy_rounds = 0;
    bool drained = true;
    while (!all_finished(r)) {
        if (canceled(st))
            return WEIR_ECANCELED;
        if ((rc = inject_pending_barrier(st)))
            return rc;
        if (stopping(st)) {
            /* A drain makes the stop an end of input. */
            drained = atomic_load(&st->job->drain) != 0;
            break;
        }
        align_publish(st, false);
        lock_publish(st, false);
        bool aligned_ahead = align_ahead(st);
        if (aligned_ahead || lock_ahead(st)) {
            /* Ahead of the group: send what is staged and let it catch up. */
            if ((rc = weir__fire_processing_timers(st)) ||
                (rc = weir__chain_flush(st)))
                return rc;
            wait_a_little(st, 1, aligned_ahead ? 0 : lock_resume_rows(st));
            continue;
        }
        bool progress = false;
        for (uint32_t i = 0; i < r->n_splits; i++) {
            weir__split *s = &r->splits[i];
            if (s->finished || s->queued)
                continue;
            if ((rc = read_split(st, s, &progress)))
                return rc;
            if ((++batches & 63) == 0)
                poll_source_metrics(st);
        }
        if ((rc = weir__fire_processing_timers(st)))
            return rc;
        if (progress) {
            quiet = 0;
            /* A busy source still looks for new splits now and then (a
             * source that monitors checks its own interval). */
            if (!r->discovery_done && (++busy_rounds & 255) == 0 &&
                ((rc = discover(st, &flags)) || (rc = handle_flags(st, flags))))
                return rc;
            continue;
        }
        if (!r->discovery_done) {
            if ((rc = discover(st, &flags)) || (rc = handle_flags(st, flags)))
                return rc;
            if (all_finished(r))
                break;
            if ((rc = idle_without_splits(st)))
                return rc;
        }
        /* Nothing to read now: send what is staged, then look again a little
         * later. */
        if ((rc = weir__chain_flush(st)))
            return rc;
        wait_a_little(st, quiet < 4 ? 1 : 10, 0);
        quiet++;
    }
    align_publish(st, true);
    lock_publish(st, true);
    poll_source_metrics(st);
    /*
     * A checkpoint asked for by now is taken here, at the end of the input
     * but before the final watermark; one asked for later is answered by
     * weir__subtask_mark_finished ("finished").
     */
    if ((rc = inject_pending_barrier(st)))
        return rc;
    if (drained && (rc = weir__chain_watermark(st, WEIR_TS_MAX)))
        return rc;
    if ((rc = inject_pending_barrier(st)))
        return rc;
    /* After a stop the input did not end: stop hooks, not finish. */
    if ((rc = drained ? weir__chain_finish(st) : weir__chain_stop(st)))
        return rc;
    return weir__chain_end(st, drained);
}

int weir__source_snapshot(weir__subtask *st, uint64_t ckpt_id, weir_buf *out)
{
    weir__source_run *r = st->src;
    int rc = weir_buf_put_varint(out, (uint64_t)source_node(st)->id);
    if (!rc)
        rc = weir_buf_put_varint(out, r->n_splits);
    for (uint32_t i = 0; i < r->n_splits && !rc; i++) {
        weir__split *s = &r->splits[i];
        weir_buf_clear(&r->pos);
        if (!s->finished && s->reader && r->cls->position &&
            (rc = r->cls->position(s->reader, &r->pos)))
            return weir__subtask_fail(st, rc,
                                      "%s: split %s: cannot read its position",
                                      source_node(st)->name, s->id);
        if (!rc)
            rc = weir_buf_put_str(out, s->id);
        if (!rc)
            rc = weir_buf_put_u8(out, s->finished ? 1 : 0);
        if (!rc)
            rc = weir_buf_put_bytes(out, r->pos.data, r->pos.len);
        if (!rc)
            rc = weir_buf_put_i64(out, s->gen.max_ts);
    }
    if (!rc && r->cls->checkpoint_taken) {
        weir_error err;
        weir_error_clear(&err);
        if ((rc = r->cls->checkpoint_taken(r->src, ckpt_id, &err)))
            return weir__subtask_fail(st, rc, "%s: %s", source_node(st)->name,
                                      err.message[0] ? err.message
                                                     : weir_strerror(rc));
    }
    return rc;
}

int weir__source_checkpoint_complete(weir__subtask *st, uint64_t ckpt_id)
{
    weir__source_run *r = st->src;
    if (!r || !r->src || !r->cls->checkpoint_complete)
        return 0;
    weir_error err;
    weir_error_clear(&err);
    int rc = r->cls->checkpoint_complete(r->src, ckpt_id, &err);
    if (rc)
        return weir__subtask_fail(st, rc, "%s: checkpoint %llu: %s",
                                  source_node(st)->name,
                                  (unsigned long long)ckpt_id,
                                  err.message[0] ? err.message
                                                 : weir_strerror(rc));
    return 0;
}
