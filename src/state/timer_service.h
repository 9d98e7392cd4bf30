/*
 * state/timer_service.h - per-subtask event-time and processing-time timers
 * (internal-but-shared).
 *
 * Timers belong to a key (and key group) and are deduplicated by
 * (domain, key, ns, ts). They fire in (ts, key group, key bytes, ns) order,
 * which makes firing order independent of registration order, batching and
 * timing. Snapshotted per key group like keyed state.
 */
#ifndef WEIR_TIMER_SERVICE_H
#define WEIR_TIMER_SERVICE_H

#include "weir/operator.h"

typedef struct weir__timers weir__timers;

int weir__timers_create(weir__timers **out);
void weir__timers_destroy(weir__timers *ts);

/* Returns 0, also when the timer existed already (deduplicated). */
int weir__timers_register(weir__timers *ts, weir_time_domain d, weir_ts t, int64_t ns,
                          const void *key, size_t klen, uint32_t kg);
int weir__timers_delete(weir__timers *ts, weir_time_domain d, weir_ts t, int64_t ns,
                        const void *key, size_t klen, uint32_t kg);

/*
 * Removes and delivers, one at a time in firing order, every timer of domain
 * d with ts <= upto. fn may register new timers (those with ts <= upto fire
 * in the same call). A non-zero return from fn stops and is returned.
 */
typedef int (*weir__timer_fire_fn)(void *ud, const weir_timer *t);
int weir__timers_advance(weir__timers *ts, weir_time_domain d, weir_ts upto,
                         weir__timer_fire_fn fn, void *ud);

/* Earliest pending timer of domain d, or WEIR_TS_MAX if none. */
weir_ts weir__timers_next(const weir__timers *ts, weir_time_domain d);
size_t weir__timers_count(const weir__timers *ts);

/* Snapshot / restore the timers of one key group (canonical format). */
int weir__timers_snapshot_kg(const weir__timers *ts, uint32_t kg, weir_buf *out);
int weir__timers_restore_kg(weir__timers *ts, uint32_t kg, weir_cursor *in);

#endif
