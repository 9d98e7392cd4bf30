/*
 * time/watermark.h - watermark generation and merging (internal-but-shared).
 *
 * Two small pieces, used by the runtime and testable on their own:
 *
 * - weir__wm_gen: the watermark generator of one source split. Bounded
 *   out-of-orderness: W = max(timestamp seen) - delay (monotonic is delay 0);
 *   NONE never advances (only the end of input does). SOURCE: max_ts holds
 *   the watermark the split's reader reported (no delay). W never decreases.
 *
 * - weir__wm_valve: merges the watermarks of several inputs (the input
 *   channels of a subtask, or the splits of a source subtask). Its output is
 *   the minimum over the inputs that are active (neither idle nor ended),
 *   and never goes backwards: output = max(last output, minimum). When every
 *   input that has not ended is idle, the valve itself is idle and its output
 *   becomes the maximum of those inputs' watermarks (as Flink's watermark
 *   valve does), so a feed that stops entirely still closes its windows. An
 *   input that becomes active again takes part in the minimum again (it
 *   holds the output until it catches up, it does not pull it back; its
 *   records behind the output may be late).
 *
 *   The maximum is taken over the watermarks the inputs had when they went
 *   idle: a watermark an input sends while idle (a final WEIR_TS_MAX just
 *   before it ends, say) is kept for when it becomes active again but moves
 *   nothing now, as in Flink, where an idle channel's watermarks are ignored.
 */
#ifndef WEIR_TIME_WATERMARK_H
#define WEIR_TIME_WATERMARK_H

#include "weir/source.h"

typedef struct weir__wm_gen {
    weir_watermark_kind kind;
    int64_t delay_ms;
    weir_ts max_ts; /* WEIR_TS_MIN before the first record */
} weir__wm_gen;

void weir__wm_gen_init(weir__wm_gen *g, const weir_watermark_spec *spec);
static inline void weir__wm_gen_observe(weir__wm_gen *g, weir_ts ts)
{
    if (ts > g->max_ts)
        g->max_ts = ts;
}
/* The split's current watermark (WEIR_TS_MIN if none yet). */
static inline weir_ts weir__wm_gen_current(const weir__wm_gen *g)
{
    if (g->kind == WEIR_WATERMARK_NONE || g->max_ts == WEIR_TS_MIN)
        return WEIR_TS_MIN;
    if (g->max_ts < WEIR_TS_MIN + g->delay_ms)
        return WEIR_TS_MIN; /* saturate instead of wrapping */
    return g->max_ts - g->delay_ms;
}
/* The watermark the generator would have after observing ts. */
weir_ts weir__wm_gen_after(const weir__wm_gen *g, weir_ts ts);

/* Per-input state of a valve. */
typedef struct weir__wm_input {
    weir_ts wm;
    weir_ts idle_wm; /* wm when it last went idle (the all-idle maximum) */
    bool idle;
    bool ended;
} weir__wm_input;

typedef struct weir__wm_valve {
    weir__wm_input *in;
    uint32_t n, cap;
    weir_ts out; /* last output watermark */
    bool idle;   /* output status */
} weir__wm_valve;

/* What an input event changed at the output. */
enum {
    WEIR__WM_ADVANCED = 1, /* out increased */
    WEIR__WM_BECAME_IDLE = 2,
    WEIR__WM_BECAME_ACTIVE = 4,
};

int weir__wm_valve_init(weir__wm_valve *v, uint32_t n);
void weir__wm_valve_fini(weir__wm_valve *v);
/* Adds an input (a newly discovered split), active at WEIR_TS_MIN. Returns its
 * index or < 0. */
int weir__wm_valve_add(weir__wm_valve *v);

/* Each returns a mask of WEIR__WM_* flags. */
int weir__wm_valve_watermark(weir__wm_valve *v, uint32_t i, weir_ts wm);
int weir__wm_valve_set_idle(weir__wm_valve *v, uint32_t i, bool idle);
int weir__wm_valve_end(weir__wm_valve *v, uint32_t i);
/* Recomputes status and output (after weir__wm_valve_add). */
int weir__wm_valve_refresh(weir__wm_valve *v);

/* Minimum watermark over the active inputs other than `skip` (WEIR_TS_MAX if
 * none). */
weir_ts weir__wm_valve_min_excluding(const weir__wm_valve *v, uint32_t skip);
/* True when every input has ended (also for zero inputs). */
bool weir__wm_valve_all_ended(const weir__wm_valve *v);

#endif
