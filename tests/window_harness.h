/*
 * tests/window_harness.h - drives the window engine directly (no runtime):
 * builds input batches of (k BIGINT, v BIGINT) rows with event times,
 * advances the watermark the way DESIGN.md defines it (W = max ts - delay,
 * after each record), and collects result and late rows.
 * Header-only so each window test file can include it.
 */
#ifndef WEIR_TEST_WINDOW_HARNESS_H
#define WEIR_TEST_WINDOW_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window/window_internal.h"

typedef struct hrow {
    int64_t key;
    bool key_null;
    int64_t ws, we;
    bool global;
    int kind;
    int64_t ts;
    int64_t v[4];
    bool null[4];
    double d[4];
} hrow;

typedef struct hlate {
    int64_t key, v, ts, wm, lateness;
} hlate;

typedef struct harness {
    weir_schema *in, *out, *late;
    weir__wcore *core;
    hrow *rows;
    size_t n, cap;
    hlate *lates;
    size_t n_late, cap_late;
    uint64_t late_counter;
    weir_ts wm;
    weir_ts max_ts;
    int64_t delay;
    int64_t now;
    /* processing-time timers requested: key, time */
    struct { int64_t key; int64_t t; } *timers;
    size_t n_timers, cap_timers;
    uint32_t n_aggs;
    weir_type agg_types[4];
} harness;

/* Stub classes: the fast path recognises them by name and never calls them. */
static const weir_agg_class h_count_cls = {.name = "COUNT"};
static const weir_agg_class h_sum_cls = {.name = "SUM"};

static inline weir_agg h_count_star(void)
{
    weir_agg a = {.cls = &h_count_cls, .input_col = -1};
    a.result_type = weir_type_make(WEIR_TYPE_BIGINT, false);
    return a;
}

static inline weir_agg h_sum(int32_t col)
{
    weir_agg a = {.cls = &h_sum_cls, .input_col = col};
    a.input_type = weir_type_make(WEIR_TYPE_BIGINT, true);
    a.result_type = weir_type_make(WEIR_TYPE_BIGINT, true);
    return a;
}

static inline weir_schema *h_input_schema(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "v", weir_type_make(WEIR_TYPE_BIGINT, true));
    return s;
}

static inline int h_emit(void *ud, const weir_batch *b)
{
    harness *h = ud;
    for (uint32_t r = 0; r < b->n_rows; r++) {
        if (h->n == h->cap) {
            h->cap = h->cap ? h->cap * 2 : 64;
            h->rows = realloc(h->rows, h->cap * sizeof *h->rows);
        }
        hrow *x = &h->rows[h->n++];
        memset(x, 0, sizeof *x);
        x->key_null = weir_batch_is_null(b, 0, r);
        x->key = WEIR_COL_I64(b, 0)[r];
        x->global = weir_batch_is_null(b, 1, r);
        x->ws = WEIR_COL_I64(b, 1)[r];
        x->we = WEIR_COL_I64(b, 2)[r];
        x->kind = b->kind[r];
        x->ts = b->ts[r];
        for (uint32_t i = 0; i < h->n_aggs; i++) {
            uint32_t col = 3 + i;
            x->null[i] = weir_batch_is_null(b, col, r);
            if (h->agg_types[i].id == WEIR_TYPE_DOUBLE)
                x->d[i] = WEIR_COL_F64(b, col)[r];
            else if (h->agg_types[i].id == WEIR_TYPE_INT)
                x->v[i] = WEIR_COL_I32(b, col)[r];
            else
                x->v[i] = WEIR_COL_I64(b, col)[r];
        }
    }
    return 0;
}

static inline int h_emit_late(void *ud, const weir_batch *b)
{
    harness *h = ud;
    for (uint32_t r = 0; r < b->n_rows; r++) {
        if (h->n_late == h->cap_late) {
            h->cap_late = h->cap_late ? h->cap_late * 2 : 16;
            h->lates = realloc(h->lates, h->cap_late * sizeof *h->lates);
        }
        hlate *x = &h->lates[h->n_late++];
        x->key = WEIR_COL_I64(b, 0)[r];
        x->v = WEIR_COL_I64(b, 1)[r];
        x->ts = b->ts[r];
        x->wm = WEIR_COL_I64(b, 2)[r];
        x->lateness = WEIR_COL_I64(b, 3)[r];
    }
    return 0;
}

static inline int h_proc_timer(void *ud, const uint8_t *key, size_t len, uint64_t hash, int64_t t)
{
    harness *h = ud;
    (void)hash;
    int64_t k = 0;
    if (len == 9)
        memcpy(&k, key + 1, 8);
    for (size_t i = 0; i < h->n_timers; i++)
        if (h->timers[i].key == k && h->timers[i].t == t)
            return 0; /* deduplicated, like the runtime's timer service */
    if (h->n_timers == h->cap_timers) {
        h->cap_timers = h->cap_timers ? h->cap_timers * 2 : 16;
        h->timers = realloc(h->timers, h->cap_timers * sizeof *h->timers);
    }
    h->timers[h->n_timers].key = k;
    h->timers[h->n_timers].t = t;
    h->n_timers++;
    return 0;
}

/* Creates the engine for spec (key = column 0 unless spec->key.n is set explicitly to 0 via nokey). */
static inline int h_init(harness *h, weir_window_spec *spec, int64_t delay, uint32_t batch_size)
{
    memset(h, 0, sizeof *h);
    h->in = h_input_schema();
    h->delay = delay;
    h->wm = WEIR_TS_MIN;
    h->max_ts = WEIR_TS_MIN;
    h->n_aggs = spec->n_aggs;
    for (uint32_t i = 0; i < spec->n_aggs; i++)
        h->agg_types[i] = spec->aggs[i].result_type;
    weir_error err = {0};
    int rc = weir_window_output_schema(spec, h->in, &h->out, &err);
    if (rc) {
        fprintf(stderr, "output schema: %s\n", err.message);
        return rc;
    }
    weir_window_late_schema(h->in, &h->late);
    weir__wcore_io io = {.emit = h_emit, .emit_late = h_emit_late, .proc_timer = h_proc_timer,
                         .late_counter = &h->late_counter, .ud = h};
    rc = weir__wcore_create(spec, h->in, h->out, h->late, batch_size, &io, &h->core, &err);
    if (rc)
        fprintf(stderr, "create: %s\n", err.message);
    return rc;
}

static inline void h_fini(harness *h)
{
    weir__wcore_destroy(h->core);
    weir_schema_destroy(h->in);
    weir_schema_destroy(h->out);
    weir_schema_destroy(h->late);
    free(h->rows);
    free(h->lates);
    free(h->timers);
}

/* One record (key, ts, value); then the watermark follows max(ts) - delay. */
static inline int h_push_kind(harness *h, int64_t key, int64_t ts, int64_t v, int kind)
{
    weir_batch *b = weir_batch_create(h->in, 1);
    int r = weir_batch_append_row(b);
    WEIR_COL_I64(b, 0)[r] = key;
    WEIR_COL_I64(b, 1)[r] = v;
    b->ts[r] = ts;
    b->kind[r] = (uint8_t)kind;
    int rc = weir__wcore_process(h->core, b, h->wm, h->now);
    weir_batch_destroy(b);
    if (rc)
        return rc;
    if (ts > h->max_ts)
        h->max_ts = ts;
    weir_ts w = h->max_ts - h->delay;
    if (w > h->wm) {
        h->wm = w;
        rc = weir__wcore_advance(h->core, w, h->now);
    }
    if (!rc)
        rc = weir__wcore_flush(h->core);
    return rc;
}

static inline int h_push(harness *h, int64_t key, int64_t ts, int64_t v)
{
    return h_push_kind(h, key, ts, v, WEIR_ROW_INSERT);
}

static inline int h_watermark(harness *h, weir_ts w)
{
    if (w > h->wm)
        h->wm = w;
    int rc = weir__wcore_advance(h->core, w, h->now);
    return rc ? rc : weir__wcore_flush(h->core);
}

static inline int h_end(harness *h)
{
    return h_watermark(h, WEIR_TS_MAX);
}

/* Moves the manual processing time to now and fires the due timers, in time order. */
static inline int h_set_time(harness *h, int64_t now)
{
    h->now = now;
    for (;;) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < h->n_timers; i++)
            if (h->timers[i].t <= now && (best == SIZE_MAX || h->timers[i].t < h->timers[best].t))
                best = i;
        if (best == SIZE_MAX)
            break;
        int64_t k = h->timers[best].key, t = h->timers[best].t;
        h->timers[best] = h->timers[--h->n_timers];
        uint8_t key[9] = {1};
        memcpy(key + 1, &k, 8);
        int rc = weir__wcore_proc_timer(h->core, key, 9, weir_key_hash(key, 9), t, now);
        if (rc)
            return rc;
    }
    return weir__wcore_flush(h->core);
}

/* Finds the i-th (0-based) result row for (key, ws, we) with kind, or NULL. */
static inline const hrow *h_find(const harness *h, int64_t key, int64_t ws, int64_t we, int nth)
{
    for (size_t i = 0; i < h->n; i++) {
        const hrow *x = &h->rows[i];
        if (x->key == key && x->ws == ws && x->we == we && nth-- == 0)
            return x;
    }
    return NULL;
}

static inline size_t h_count_window(const harness *h, int64_t key, int64_t ws, int64_t we)
{
    size_t n = 0;
    for (size_t i = 0; i < h->n; i++)
        if (h->rows[i].key == key && h->rows[i].ws == ws && h->rows[i].we == we)
            n++;
    return n;
}

#endif
