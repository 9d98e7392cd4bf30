/*
 * time/watermark.c - per-split watermark generators and the min-merging
 * valve (maximum when every open input is idle). See watermark.h for the rules;
 * this file keeps two invariants: a generator's watermark and a valve's output
 * never decrease.
 */
#include "time/watermark.h"

void weir__wm_gen_init(weir__wm_gen *g, const weir_watermark_spec *spec)
{
    g->kind = spec ? spec->kind : WEIR_WATERMARK_NONE;
    g->delay_ms = spec && spec->delay_ms > 0 ? spec->delay_ms : 0;
    g->max_ts = WEIR_TS_MIN;
}

static weir_ts wm_of(const weir__wm_gen *g, weir_ts max_ts)
{
    if (g->kind == WEIR_WATERMARK_NONE || max_ts == WEIR_TS_MIN)
        return WEIR_TS_MIN;
    if (max_ts < WEIR_TS_MIN + g->delay_ms)
        return WEIR_TS_MIN; /* saturate instead of wrapping */
    return max_ts - g->delay_ms;
}

weir_ts weir__wm_gen_after(const weir__wm_gen *g, weir_ts ts)
{
    return wm_of(g, ts > g->max_ts ? ts : g->max_ts);
}

int weir__wm_valve_init(weir__wm_valve *v, uint32_t n)
{
    v->in = NULL;
    v->n = 0;
    v->cap = 0;
    v->out = WEIR_TS_MIN;
    v->idle = false;
    for (uint32_t i = 0; i < n; i++)
        if (weir__wm_valve_add(v) < 0) {
            weir__wm_valve_fini(v);
            return WEIR_ENOMEM;
        }
    /* A valve with no inputs at all is idle: it must not hold anyone back. */
    v->idle = n == 0;
    return 0;
}

void weir__wm_valve_fini(weir__wm_valve *v)
{
    weir_free(v->in);
    v->in = NULL;
    v->n = v->cap = 0;
}

int weir__wm_valve_add(weir__wm_valve *v)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 4;
        weir__wm_input *in = weir_realloc(v->in, cap * sizeof *in);
        if (!in)
            return WEIR_ENOMEM;
        v->in = in;
        v->cap = cap;
    }
    v->in[v->n] = (weir__wm_input){.wm = WEIR_TS_MIN,
                                   .idle_wm = WEIR_TS_MIN,
                                   .idle = false,
                                   .ended = false};
    return (int)v->n++;
}

weir_ts weir__wm_valve_min_excluding(const weir__wm_valve *v, uint32_t skip)
{
    weir_ts m = WEIR_TS_MAX;
    for (uint32_t i = 0; i < v->n; i++)
        if (i != skip && !v->in[i].idle && !v->in[i].ended && v->in[i].wm < m)
            m = v->in[i].wm;
    return m;
}

bool weir__wm_valve_all_ended(const weir__wm_valve *v)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (!v->in[i].ended)
            return false;
    return true;
}

/* Recomputes status and output after an input changed. */
static int recompute(weir__wm_valve *v)
{
    int flags = 0;
    bool any_active = false;
    for (uint32_t i = 0; i < v->n; i++)
        if (!v->in[i].idle && !v->in[i].ended)
            any_active = true;
    bool all_ended = weir__wm_valve_all_ended(v);
    /*
     * All inputs ended is not a change of idleness: it is the end, handled
     * by the caller, and the status stays what it was. (Announcing ACTIVE at
     * the end made downstream hold its watermark at this channel's last one
     * until the final watermark followed - a window that a record of another
     * channel arrived at in between took it as on time or late depending on
     * thread timing. Rows an idle subtask emits at its end are preceded by
     * ACTIVE by the runtime.) No inputs at all (a source subtask without
     * splits) is idleness.
     */
    bool idle = v->n == 0 || (!any_active && !all_ended);
    if (all_ended && v->n > 0)
        idle = v->idle;
    if (idle != v->idle) {
        v->idle = idle;
        flags |= idle ? WEIR__WM_BECAME_IDLE : WEIR__WM_BECAME_ACTIVE;
    }
    weir_ts m = WEIR_TS_MIN;
    if (any_active) {
        m = weir__wm_valve_min_excluding(v, UINT32_MAX);
    } else if (!all_ended) {
        /* Every open input is idle: nothing will hold the output back any
         * more, so it moves up to the furthest of them. */
        for (uint32_t i = 0; i < v->n; i++)
            if (!v->in[i].ended && v->in[i].idle_wm > m)
                m = v->in[i].idle_wm;
    }
    if (m > v->out) {
        v->out = m;
        flags |= WEIR__WM_ADVANCED;
    }
    return flags;
}

int weir__wm_valve_watermark(weir__wm_valve *v, uint32_t i, weir_ts wm)
{
    if (i >= v->n || wm <= v->in[i].wm)
        return 0;
    v->in[i].wm = wm;
    if (v->in[i].idle || v->in[i].ended)
        return 0;
    return recompute(v);
}

int weir__wm_valve_set_idle(weir__wm_valve *v, uint32_t i, bool idle)
{
    if (i >= v->n || v->in[i].idle == idle)
        return 0;
    v->in[i].idle = idle;
    if (idle)
        v->in[i].idle_wm = v->in[i].wm;
    return recompute(v);
}

int weir__wm_valve_end(weir__wm_valve *v, uint32_t i)
{
    if (i >= v->n || v->in[i].ended)
        return 0;
    v->in[i].ended = true;
    return recompute(v);
}

int weir__wm_valve_refresh(weir__wm_valve *v)
{
    return recompute(v);
}
