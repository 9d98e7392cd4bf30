/*
 * weir/clock.h - processing time behind an injectable clock.
 *
 * No module reads the wall clock directly: it asks the clock it was given.
 * Tests use a manual clock that only moves when the test moves it.
 */
#ifndef WEIR_CLOCK_H
#define WEIR_CLOCK_H

#include "weir/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_clock {
    int64_t (*now_ms)(void *ud); /* processing time, epoch ms */
    void *ud;
} weir_clock;

/* The system clock (CLOCK_REALTIME in ms). */
weir_clock weir_clock_system(void);
static inline int64_t weir_clock_now(const weir_clock *c) { return c->now_ms(c->ud); }
/* Monotonic nanoseconds, for measuring durations (metrics), never for semantics. */
int64_t weir_monotonic_ns(void);

/* A clock that moves only when told to. Thread-safe. */
typedef struct weir_manual_clock weir_manual_clock;
weir_manual_clock *weir_manual_clock_create(int64_t start_ms);
void weir_manual_clock_destroy(weir_manual_clock *mc);
void weir_manual_clock_set(weir_manual_clock *mc, int64_t now_ms);
void weir_manual_clock_advance(weir_manual_clock *mc, int64_t delta_ms);
/* A weir_clock view of mc, valid while mc lives. */
weir_clock weir_manual_clock_get(weir_manual_clock *mc);

#ifdef __cplusplus
}
#endif
#endif
