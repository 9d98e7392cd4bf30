/* time/clock.c - the system clock and the manual clock used by tests. */
#include <stdatomic.h>
#include <time.h>

#include "weir/clock.h"

static int64_t system_now_ms(void *ud)
{
    (void)ud;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

weir_clock weir_clock_system(void) { return (weir_clock){system_now_ms, NULL}; }

int64_t weir_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct weir_manual_clock {
    _Atomic int64_t now_ms;
};

weir_manual_clock *weir_manual_clock_create(int64_t start_ms)
{
    weir_manual_clock *mc = weir_malloc(sizeof *mc);
    if (mc)
        atomic_init(&mc->now_ms, start_ms);
    return mc;
}

void weir_manual_clock_destroy(weir_manual_clock *mc) { weir_free(mc); }
void weir_manual_clock_set(weir_manual_clock *mc, int64_t now_ms) { atomic_store(&mc->now_ms, now_ms); }
void weir_manual_clock_advance(weir_manual_clock *mc, int64_t delta_ms) { atomic_fetch_add(&mc->now_ms, delta_ms); }

static int64_t manual_now_ms(void *ud) { return atomic_load(&((weir_manual_clock *)ud)->now_ms); }

weir_clock weir_manual_clock_get(weir_manual_clock *mc) { return (weir_clock){manual_now_ms, mc}; }
