/*
 * window/window_op.c - the window operator: the window engine (wcore.c)
 * behind the runtime's operator interface.
 *
 * State: the engine keeps the live windows of its keys in memory and writes
 * every key whose windows changed since the previous checkpoint into keyed
 * state (value state "windows", the key's serialised windows, wstore.c)
 * when a checkpoint's snapshot starts - the runtime snapshots keyed state
 * right after; unchanged keys keep what was written for them before. On
 * restore (and after rescaling, which moves whole key groups) the engine
 * loads every key of its key groups back from keyed state before it
 * processes anything, and the watermark (below).
 * Processing-time firings use the runtime's timers (per key, deduplicated);
 * event-time firings use the engine's own wheel of keys by next firing
 * time, rebuilt from the loaded windows.
 */
#include <stdio.h>
#include <strings.h>

#include "runtime/checkpoint.h"
#include "time/tz.h"
#include "weir/state.h"
#include "window/window_internal.h"

typedef struct wop_arg {
    weir_window_spec spec;
    weir_agg *aggs;
    char **names;
    const weir_schema *in;
    weir_schema *out, *late;
    char *time_zone; /* spec.time_zone, copied (NULL = UTC) */
} wop_arg;

/*
 * The restored watermark. A key is written only when its windows changed,
 * so its floor (the watermark of the write) may be older than the
 * checkpoint's, and the smallest floor is no longer the checkpoint's
 * watermark. So every subtask records its watermark in its operator state,
 * and a restore takes the smallest watermark of the old subtasks that owned
 * any of its key groups: it reads every old subtask's (union state,
 * restore_union), so a subtask that a scale-up added, which has no operator
 * state of its own, learns it too. With aligned barriers every subtask
 * passes a barrier at the same watermark; they differ only by in-flight
 * data (restored at the same parallelism only) and in processing time.
 *
 * Checkpoints of an earlier weir keep the watermark in keyed state instead:
 * value state "watermark", under one anchor key per key group (0xff 'w' 'm'
 * and a u32). Those are read (their smallest) and deleted after the
 * restore: an anchor in every key group made every key group of the
 * operator cost bytes in each checkpoint, empty or not.
 */
typedef struct wop {
    const wop_arg *arg;
    weir_op_ctx *ctx;
    weir__wcore *core;
    weir_state *st;
    weir_state *wmst;     /* "watermark": the anchors of earlier checkpoints */
    uint64_t *n_routed;   /* "late_records_routed": of late_records, those sent to the late output */
    uint32_t batch_size;
    uint32_t kg_lo, kg_hi, max_par;
    bool cluster;         /* weir.cluster: old key groups were dealt out by process too (weir_op_info) */
    bool loaded;
    /* The restored watermarks, each the smallest of its kind seen: */
    bool have_anchor_wm;  /* anchors of an earlier weir (keyed state) */
    weir_ts anchor_wm;
    bool have_union_wm;   /* old subtasks that owned some of its key groups (restore_union) */
    weir_ts union_wm;
    bool have_own_wm;     /* the operator state it restored itself (restore) */
    weir_ts own_wm;
    weir_buf anchors;     /* the anchor keys read, to delete (bytes each) */
    /*
     * Windows of local wall time (spec.time_zone): the engine sees every
     * row time and watermark shifted to local time (the watermark by
     * weir__tz_local_floor, which stays monotonic across a fall-back), and
     * the rows it emits get their instants back. Processing-time windows
     * alike: a row is assigned by the local time of its arrival, the
     * engine's clock is the local floor of the job's clock, and a window's
     * timer is the first instant from which that floor reaches its end.
     * NULL: no shift.
     */
    weir__tz *tz;
    weir_ts *lts[2];      /* scratch for shifted row times: [0] the input's, [1] emitted rows' */
    uint32_t cap_lts[2];
} wop;

/* Lowers *wm to ts (or sets it: the first one). */
static void take_min(bool *have, weir_ts *wm, weir_ts ts)
{
    if (!*have || ts < *wm)
        *wm = ts;
    *have = true;
}

static int load_wm(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    wop *op = ud;
    int rc = weir_buf_put_bytes(&op->anchors, key, klen);
    if (rc)
        return rc;
    const void *val;
    size_t len;
    rc = weir_value_get(op->wmst, ns, ns_len, &val, &len);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    if (rc)
        return rc;
    if (len != 8)
        return weir_op_fail(op->ctx, WEIR_ECORRUPT, "window: a restored watermark has %zu bytes, not 8", len);
    const uint8_t *b = val;
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = u << 8 | b[i];
    take_min(&op->have_anchor_wm, &op->anchor_wm, (weir_ts)u);
    return 0;
}

/* Deletes the anchors load_wm read: the watermark is in operator state now. */
static int drop_anchors(wop *op)
{
    weir_cursor c;
    weir_cursor_init(&c, op->anchors.data, op->anchors.len);
    int rc = 0;
    while (!rc && weir_cursor_left(&c)) {
        const void *k;
        size_t klen;
        if (!(rc = weir_cursor_get_bytes(&c, &k, &klen)) &&
            !(rc = weir_op_set_key_hashed(op->ctx, k, klen, weir_key_hash(k, klen))))
            rc = weir_state_clear(op->wmst, NULL, 0);
    }
    weir_buf_fini(&op->anchors);
    return rc;
}

/* The watermark to restore, if any: see "The restored watermark" above. */
static bool restored_wm(const wop *op, weir_ts *wm)
{
    if (op->have_anchor_wm)
        *wm = op->anchor_wm;
    else if (op->have_union_wm)
        *wm = op->union_wm;
    else if (op->have_own_wm)
        *wm = op->own_wm;
    return op->have_anchor_wm || op->have_union_wm || op->have_own_wm;
}

static int grow_lts(wop *op, int k, uint32_t n)
{
    if (n <= op->cap_lts[k])
        return 0;
    weir_ts *p = weir_realloc(op->lts[k], (size_t)n * sizeof *p);
    if (!p)
        return WEIR_ENOMEM;
    op->lts[k] = p;
    op->cap_lts[k] = n;
    return 0;
}

static weir_ts to_local(const wop *op, weir_ts t)
{
    return t == WEIR_TS_MIN || t == WEIR_TS_MAX ? t : t + weir__tz_offset(op->tz, t);
}

/* The watermark of local time: the smallest local time any instant from wm on shows. */
static weir_ts wm_to_local(const wop *op, weir_ts wm)
{
    if (!op->tz || wm == WEIR_TS_MIN || wm == WEIR_TS_MAX)
        return wm;
    return weir__tz_local_floor(op->tz, wm);
}

/*
 * b with its row times moved between local wall time and instants (into
 * op->lts[to_utc]: emitted rows may be late rows sent while the engine still
 * reads the shifted input; *view shares everything else with b). Local to instant reads a
 * time in an overlap as the earlier instant and one in a gap as after it,
 * as Flink converts window_time.
 */
static const weir_batch *shifted(wop *op, const weir_batch *b, bool to_utc, weir_batch *view)
{
    if (!op->tz || b->n_rows == 0)
        return b;
    if (grow_lts(op, to_utc, b->n_rows))
        return NULL;
    weir_ts *lts = op->lts[to_utc];
    for (uint32_t r = 0; r < b->n_rows; r++) {
        weir_ts t = b->ts[r];
        lts[r] = !to_utc ? to_local(op, t) : t == WEIR_TS_MIN || t == WEIR_TS_MAX ? t : weir__tz_to_utc(op->tz, t);
    }
    *view = *b;
    view->ts = lts;
    return view;
}

/*
 * Local processing-time windows: b with every row's time the local wall
 * time of now (the rows' arrival), which the engine assigns them by.
 */
static const weir_batch *arrival(wop *op, const weir_batch *b, int64_t now, weir_batch *view)
{
    if (b->n_rows == 0)
        return b;
    if (grow_lts(op, 0, b->n_rows))
        return NULL;
    weir_ts t = to_local(op, now);
    for (uint32_t r = 0; r < b->n_rows; r++)
        op->lts[0][r] = t;
    *view = *b;
    view->ts = op->lts[0];
    return view;
}

static int io_emit(void *ud, const weir_batch *b)
{
    wop *op = ud;
    weir_batch view;
    const weir_batch *o = shifted(op, b, true, &view);
    return o ? weir_op_emit(op->ctx, o) : WEIR_ENOMEM;
}

static int io_emit_late(void *ud, const weir_batch *b)
{
    wop *op = ud;
    weir_batch view;
    b = shifted(op, b, true, &view);
    if (!b)
        return WEIR_ENOMEM;
    int rc = weir_op_emit_side(op->ctx, WEIR_WINDOW_LATE_TAG, b);
    if (!rc && op->n_routed)
        weir_op_counter_add(op->n_routed, b->n_rows);
    return rc;
}

static bool local_proc(const wop *op) { return op->tz && op->arg->spec.time_domain == WEIR_TIME_PROCESSING; }

/* The engine's processing time: the job's clock, or its local floor for local processing-time windows. */
static int64_t engine_now(const wop *op, weir_op_ctx *ctx)
{
    int64_t now = weir_op_now_ms(ctx);
    return local_proc(op) ? weir__tz_local_floor(op->tz, now) : now;
}

static int io_proc_timer(void *ud, const uint8_t *key, size_t len, uint64_t hash, int64_t t)
{
    wop *op = ud;
    /* a local window end (early and late firings of event-time windows are instants already) */
    if (local_proc(op) && t != WEIR_TS_MIN && t != WEIR_TS_MAX)
        t = weir__tz_fire_instant(op->tz, t);
    int rc = weir_op_set_key_hashed(op->ctx, key, len, hash);
    return rc ? rc : weir_op_timer_register(op->ctx, WEIR_TIME_PROCESSING, t, 0);
}

static int load_key(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    wop *op = ud;
    const void *val;
    size_t len;
    int rc = weir_value_get(op->st, ns, ns_len, &val, &len);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    if (rc)
        return rc;
    rc = weir__wcore_load_entry(op->core, key, klen, weir_key_hash(key, klen), val, len, WEIR_TS_MIN);
    if (rc)
        return weir_op_fail(op->ctx, rc, "window: cannot restore the windows of a key: %s", weir_strerror(rc));
    return 0;
}

/*
 * Loads the windows of every key of this subtask from keyed state, once,
 * then the watermark (see "The restored watermark" above). State written
 * with none gives the smallest floor of the keys. Processing-time windows
 * with no key restored start from the new job's clock (their watermark is
 * the clock: an old one would make records late). Called first by whatever
 * the runtime calls after the restore, so that every old subtask's
 * operator state was seen.
 */
static int ensure_loaded(wop *op, weir_op_ctx *ctx)
{
    op->ctx = ctx;
    if (op->loaded)
        return 0;
    op->loaded = true;
    int rc = weir_state_keys(op->st, load_key, op);
    rc = rc ? rc : weir_state_keys(op->wmst, load_wm, op);
    rc = rc ? rc : drop_anchors(op);
    weir_ts wm;
    if (!rc && restored_wm(op, &wm) &&
        (op->arg->spec.time_domain != WEIR_TIME_PROCESSING ||
         weir__wcore_loaded_floor_max(op->core) != WEIR_TS_MIN))
        weir__wcore_restore_watermark(op->core, wm);
    return rc;
}

static int op_create(void *argp, const weir_op_info *info, void **out)
{
    wop *op = weir_calloc(1, sizeof *op);
    if (!op)
        return WEIR_ENOMEM;
    op->arg = argp;
    op->batch_size = info->batch_size;
    op->max_par = info->max_parallelism ? info->max_parallelism : 1;
    weir_key_group_range(info->subtask, info->parallelism, op->max_par, &op->kg_lo, &op->kg_hi);
    op->cluster = info->cluster;
    weir_buf_init(&op->anchors);
    *out = op;
    return 0;
}

static int io_interrupted(void *ud)
{
    wop *op = ud;
    return weir_op_interrupted(op->ctx);
}

static int op_open(void *p, weir_op_ctx *ctx)
{
    wop *op = p;
    const wop_arg *a = op->arg;
    op->ctx = ctx;
    weir_state_desc d = {.name = "windows", .kind = WEIR_STATE_VALUE};
    int rc = weir_op_get_state(ctx, &d, &op->st);
    if (rc)
        return weir_op_fail(ctx, rc, "window: cannot register its keyed state: %s", weir_strerror(rc));
    weir_state_desc dw = {.name = "watermark", .kind = WEIR_STATE_VALUE};
    if ((rc = weir_op_get_state(ctx, &dw, &op->wmst)))
        return weir_op_fail(ctx, rc, "window: cannot register its keyed state: %s", weir_strerror(rc));
    if (weir_op_has_side_output(ctx, WEIR_WINDOW_LATE_TAG))
        op->n_routed = weir_op_counter(ctx, "late_records_routed");
    weir__wcore_io io = {
        .emit = io_emit,
        .emit_late = weir_op_has_side_output(ctx, WEIR_WINDOW_LATE_TAG) ? io_emit_late : NULL,
        .proc_timer = io_proc_timer,
        .late_counter = weir_op_counter(ctx, "late_records"),
        .interrupted = io_interrupted,
        .ud = op,
    };
    weir_error err = {0};
    if (a->time_zone && (rc = weir__tz_load(a->time_zone, &op->tz, &err)))
        return weir_op_fail(ctx, rc, "window: %s", err.message);
    rc = weir__wcore_create(&a->spec, a->in, a->out, a->late, op->batch_size, &io, &op->core, &err);
    if (rc)
        return weir_op_fail(ctx, rc, "%s", err.message);
    if (local_proc(op))
        weir__wcore_set_proc_row_ts(op->core);
    return 0;
}

static int finish_call(wop *op, int rc)
{
    int rc2 = weir__wcore_flush(op->core);
    if (rc == WEIR_EUNSUPPORTED)
        return weir_op_fail(op->ctx, rc,
                            "window: a retraction (-U/-D row) reached an aggregate that cannot retract; "
                            "use retractable aggregates (e.g. MAX_RETRACT) over changelog input");
    if (rc == WEIR_ESTATE)
        return weir_op_fail(op->ctx, rc,
                            "window: a retraction (-U/-D row) for a value the window's aggregate does not hold "
                            "(in discarding mode a fired window keeps only what arrived since its last firing)");
    /* SINGLE_VALUE's second row: the message names the scalar subquery, as a group aggregation's does */
    const char *label = rc == WEIR_EINVAL ? weir__wcore_fail_label(op->core) : NULL;
    if (label)
        return weir_op_fail(op->ctx, rc, "%s", label);
    if (rc)
        return weir_op_fail(op->ctx, rc, "window: %s", weir_strerror(rc));
    return rc2;
}

static int op_process(void *p, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    wop *op = p;
    (void)input;
    int rc = ensure_loaded(op, ctx);
    weir_batch view;
    const weir_batch *lb = local_proc(op) ? arrival(op, b, weir_op_now_ms(ctx), &view) : shifted(op, b, false, &view);
    if (!lb)
        rc = rc ? rc : WEIR_ENOMEM;
    if (!rc)
        rc = weir__wcore_process(op->core, lb, wm_to_local(op, weir_op_watermark(ctx)), engine_now(op, ctx));
    return finish_call(op, rc);
}

static int op_watermark(void *p, weir_op_ctx *ctx, weir_ts wm)
{
    wop *op = p;
    int rc = ensure_loaded(op, ctx);
    if (!rc)
        rc = weir__wcore_advance(op->core, wm_to_local(op, wm), engine_now(op, ctx));
    return finish_call(op, rc);
}

static int op_timer(void *p, weir_op_ctx *ctx, const weir_timer *t)
{
    wop *op = p;
    int rc = ensure_loaded(op, ctx);
    if (!rc && t->domain == WEIR_TIME_PROCESSING)
        rc = weir__wcore_proc_timer(op->core, t->key, t->key_len, weir_key_hash(t->key, t->key_len),
                                    local_proc(op) ? weir__tz_local_floor(op->tz, t->ts) : t->ts,
                                    engine_now(op, ctx));
    return finish_call(op, rc);
}

static int save_key(void *ud, const uint8_t *key, size_t len, uint64_t hash, const void *val, size_t vlen,
                    bool removed)
{
    wop *op = ud;
    int rc = weir_op_set_key_hashed(op->ctx, key, len, hash);
    if (rc)
        return rc;
    if (removed)
        return weir_state_clear(op->st, NULL, 0);
    return weir_value_put(op->st, NULL, 0, val, vlen);
}

static int op_snapshot(void *p, weir_op_ctx *ctx, uint64_t ckpt_id, weir_buf *out)
{
    wop *op = p;
    (void)ckpt_id;
    int rc = ensure_loaded(op, ctx);
    if (!rc)
        rc = weir__wcore_drain_changes(op->core, save_key, op);
    /* A marker, so restore runs (the windows themselves are keyed state). */
    if (!rc)
        rc = weir_buf_put_u8(out, 1);
    if (!rc)
        rc = weir_buf_put_i64(out, weir__wcore_watermark(op->core));
    return rc;
}

/* The watermark an old subtask's operator state holds. */
static int read_wm(weir_op_ctx *ctx, weir_cursor *in, weir_ts *wm)
{
    uint8_t ver;
    int rc = weir_cursor_get_u8(in, &ver);
    if (!rc && ver != 1)
        rc = WEIR_ECORRUPT;
    if (!rc)
        rc = weir_cursor_get_i64(in, wm);
    if (rc)
        return weir_op_fail(ctx, rc, "window: cannot read its operator state: %s", weir_strerror(rc));
    return 0;
}

/* Own state, and that of old subtasks a scale-down folded into it. */
static int op_restore(void *p, weir_op_ctx *ctx, weir_cursor *in)
{
    wop *op = p;
    weir_ts wm;
    int rc = read_wm(ctx, in, &wm);
    if (!rc)
        take_min(&op->have_own_wm, &op->own_wm, wm);
    return rc;
}

/*
 * Every old subtask's state: the smallest watermark of those that owned a
 * key group it owns now. A job run by several processes deals key groups
 * out by process first, which the ranges do not show, so a cluster job
 * takes them all - also one restored by one process, whose checkpoint may
 * be of several: there the ranges picked old subtasks of a process that
 * read no partition of those key groups (at watermark +infinity, its input
 * ended), and every row came late.
 */
static int op_restore_union(void *p, weir_op_ctx *ctx, weir_cursor *states, uint32_t n)
{
    wop *op = p;
    for (uint32_t i = 0; i < n; i++) {
        weir_ts wm;
        int rc = read_wm(ctx, &states[i], &wm);
        if (rc)
            return rc;
        uint32_t lo, hi;
        weir_key_group_range(i, n, op->max_par, &lo, &hi);
        if (op->cluster || (lo < op->kg_hi && op->kg_lo < hi))
            take_min(&op->have_union_wm, &op->union_wm, wm);
    }
    return 0;
}

static int op_finish(void *p, weir_op_ctx *ctx)
{
    wop *op = p;
    int rc = ensure_loaded(op, ctx);
    if (!rc)
        rc = weir__wcore_finish(op->core, engine_now(op, ctx));
    return finish_call(op, rc);
}

static void op_close(void *p)
{
    wop *op = p;
    if (!op)
        return;
    weir__wcore_destroy(op->core);
    weir__tz_free(op->tz);
    weir_free(op->lts[0]);
    weir_free(op->lts[1]);
    weir_buf_fini(&op->anchors);
    weir_free(op);
}

static const weir_operator_class window_class = {
    .name = "window",
    .open = op_open,
    .process = op_process,
    .watermark = op_watermark,
    .timer = op_timer,
    .snapshot = op_snapshot,
    .restore = op_restore,
    .restore_union = op_restore_union,
    .finish = op_finish,
    .close = op_close,
};

static void arg_free(void *p)
{
    wop_arg *a = p;
    if (!a)
        return;
    weir_free(a->time_zone);
    if (a->names) {
        for (uint32_t i = 0; i < a->spec.n_aggs; i++)
            weir_free(a->names[i]);
        weir_free(a->names);
    }
    weir_free(a->aggs);
    weir_schema_destroy(a->out);
    weir_schema_destroy(a->late);
    weir_free(a);
}

static const char *kind_name(weir_window_kind k)
{
    static const char *n[] = {"tumbling window", "hopping window", "cumulating window", "session window",
                              "global window"};
    return (unsigned)k <= WEIR_WINDOW_GLOBAL ? n[k] : "window";
}

int weir_window_operator_spec(const weir_window_spec *spec, const weir_schema *in, weir_operator_spec *out,
                              const weir_schema **out_schema, weir_error *err)
{
    memset(out, 0, sizeof *out);
    if (out_schema)
        *out_schema = NULL;
    int rc = weir_window_spec_check(spec, in, err);
    if (rc)
        return rc;
    wop_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
    a->spec = *spec;
    a->in = in;
    if (spec->n_aggs) {
        a->aggs = weir_malloc(spec->n_aggs * sizeof *a->aggs);
        if (!a->aggs) {
            arg_free(a);
            return weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
        }
        memcpy(a->aggs, spec->aggs, spec->n_aggs * sizeof *a->aggs);
    }
    a->spec.aggs = a->aggs;
    a->spec.time_zone = NULL;
    if (spec->time_zone && spec->assigner.kind != WEIR_WINDOW_GLOBAL) {
        weir__tz *z = NULL;
        if ((rc = weir__tz_load(spec->time_zone, &z, err))) {
            arg_free(a);
            return rc;
        }
        if (z) {
            /* UTC needs no shift */
            weir__tz_free(z);
            if (!(a->time_zone = weir_strdup(spec->time_zone))) {
                arg_free(a);
                return weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
            }
            a->spec.time_zone = a->time_zone;
        }
    }
    if (spec->agg_names) {
        a->names = weir_calloc(spec->n_aggs ? spec->n_aggs : 1, sizeof *a->names);
        for (uint32_t i = 0; a->names && i < spec->n_aggs; i++)
            if (spec->agg_names[i] && !(a->names[i] = weir_strdup(spec->agg_names[i]))) {
                arg_free(a);
                return weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
            }
        if (!a->names) {
            arg_free(a);
            return weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
        }
        a->spec.agg_names = (const char *const *)a->names;
    }
    if ((rc = weir_window_output_schema(&a->spec, in, &a->out, err))) {
        arg_free(a);
        return rc;
    }
    if ((rc = weir_window_late_schema(in, &a->late))) {
        arg_free(a);
        return weir_error_set(err, rc, "window: cannot build the late-record schema");
    }
    out->name = kind_name(spec->assigner.kind);
    out->cls = &window_class;
    out->create = op_create;
    out->arg = a;
    out->free_arg = arg_free;
    if (out_schema)
        *out_schema = a->out;
    return 0;
}

/*
 * Restore compatibility: what the windows' state means (the kind is in the
 * operator's name). A checkpoint taken with other sizes or aggregates is
 * refused rather than read as these windows.
 */
static int describe_state(weir_job *job, weir_stream s, const weir_window_spec *spec)
{
    const weir_window_assigner *a = &spec->assigner;
    char v[64];
    int rc = 0;
#define FIELD(name, ...) \
    (snprintf(v, sizeof v, __VA_ARGS__), rc = rc ? rc : weir_job_describe_state(job, s, name, v))
    switch (a->kind) {
    case WEIR_WINDOW_SESSION:
        FIELD("gap", "%lld ms", (long long)a->gap_ms);
        FIELD("max length", "%lld ms", (long long)a->max_length_ms);
        break;
    case WEIR_WINDOW_GLOBAL:
        break;
    default:
        FIELD("size", "%lld ms", (long long)a->size_ms);
        if (a->kind == WEIR_WINDOW_HOPPING)
            FIELD("slide", "%lld ms", (long long)a->slide_ms);
        if (a->kind == WEIR_WINDOW_CUMULATING)
            FIELD("step", "%lld ms", (long long)a->slide_ms);
        FIELD("offset", "%lld ms", (long long)a->offset_ms);
        break;
    }
    FIELD("time", "%s", spec->time_domain == WEIR_TIME_PROCESSING ? "processing" : "event");
    /* Windows of another zone's days are other windows; UTC ones keep their old description. */
    if (a->kind != WEIR_WINDOW_GLOBAL && spec->time_zone && strcasecmp(spec->time_zone, "UTC"))
        FIELD("time zone", "%s", spec->time_zone);
#undef FIELD
    if (!rc)
        rc = weir__job_describe_aggs(job, s, spec->aggs, spec->n_aggs);
    return rc;
}

int weir_job_window(weir_job *job, weir_stream in, const weir_schema *in_schema, const weir_window_spec *spec,
                    uint32_t parallelism, weir_stream *out, weir_error *err)
{
    weir_operator_spec os;
    const weir_schema *outs;
    int rc = weir_window_operator_spec(spec, in_schema, &os, &outs, err);
    if (rc)
        return rc;
    const wop_arg *a = os.arg;
    const weir_schema *late = a->late;
    weir_stream keyed = weir_stream_key_by(in, spec->key.cols, spec->key.n);
    rc = weir_job_operator(job, &keyed, 1, &os, outs, parallelism, out);
    if (rc) {
        /* weir_job_operator releases the arg itself only when it fails to add the node. */
        if (rc != WEIR_ENOMEM)
            arg_free(os.arg);
        return weir_error_set(err, rc, "window: cannot add the operator: %s", weir_job_error(job));
    }
    rc = weir_job_set_side_schema(job, *out, WEIR_WINDOW_LATE_TAG, late);
    if (rc)
        return weir_error_set(err, rc, "window: cannot declare the late-record output: %s", weir_job_error(job));
    if ((rc = describe_state(job, *out, spec)))
        return weir_error_set(err, rc, "window: out of memory");
    return 0;
}
