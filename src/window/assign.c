/*
 * window/assign.c - window assigners: alignment, the windows of a record,
 * and assigner validation. Pure functions with no state.
 *
 * Alignment uses floor semantics, so -1 belongs to [-size, 0) and not to
 * [0, size). Bounds that would leave the int64 range saturate at
 * WEIR_TS_MIN / WEIR_TS_MAX instead of wrapping.
 */
#include "window/window_internal.h"

weir_window_assigner weir_window_tumbling(int64_t size_ms, int64_t offset_ms)
{
    return (weir_window_assigner){.kind = WEIR_WINDOW_TUMBLING, .size_ms = size_ms,
                                  .slide_ms = size_ms, .offset_ms = offset_ms};
}

weir_window_assigner weir_window_hopping(int64_t slide_ms, int64_t size_ms, int64_t offset_ms)
{
    return (weir_window_assigner){.kind = WEIR_WINDOW_HOPPING, .size_ms = size_ms,
                                  .slide_ms = slide_ms, .offset_ms = offset_ms};
}

weir_window_assigner weir_window_cumulating(int64_t step_ms, int64_t size_ms, int64_t offset_ms)
{
    return (weir_window_assigner){.kind = WEIR_WINDOW_CUMULATING, .size_ms = size_ms,
                                  .slide_ms = step_ms, .offset_ms = offset_ms};
}

weir_window_assigner weir_window_session(int64_t gap_ms, int64_t max_length_ms)
{
    return (weir_window_assigner){.kind = WEIR_WINDOW_SESSION, .gap_ms = gap_ms,
                                  .max_length_ms = max_length_ms};
}

weir_window_assigner weir_window_global(void)
{
    return (weir_window_assigner){.kind = WEIR_WINDOW_GLOBAL};
}

int weir_window_assigner_check(const weir_window_assigner *a, weir_error *err)
{
    if (!a)
        return weir_error_set(err, WEIR_EINVAL, "window assigner: missing");
    switch (a->kind) {
    case WEIR_WINDOW_TUMBLING:
        if (a->size_ms <= 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "tumbling window: size must be positive (got %" PRId64 " ms)",
                                  a->size_ms);
        return 0;
    case WEIR_WINDOW_HOPPING:
        if (a->size_ms <= 0 || a->slide_ms <= 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "hopping window: size and slide must be positive (got size %" PRId64
                                  " ms, slide %" PRId64 " ms)",
                                  a->size_ms, a->slide_ms);
        if (a->slide_ms > a->size_ms)
            return weir_error_set(err, WEIR_EINVAL,
                                  "hopping window: slide (%" PRId64 " ms) larger than size (%" PRId64
                                  " ms) would leave records in no window",
                                  a->slide_ms, a->size_ms);
        return 0;
    case WEIR_WINDOW_CUMULATING:
        if (a->size_ms <= 0 || a->slide_ms <= 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "cumulating window: size and step must be positive (got size %" PRId64
                                  " ms, step %" PRId64 " ms)",
                                  a->size_ms, a->slide_ms);
        if (a->size_ms % a->slide_ms != 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "cumulating window: size (%" PRId64
                                  " ms) must be a whole multiple of the step (%" PRId64 " ms)",
                                  a->size_ms, a->slide_ms);
        return 0;
    case WEIR_WINDOW_SESSION:
        if (a->gap_ms <= 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "session window: gap must be positive (got %" PRId64 " ms)", a->gap_ms);
        if (a->max_length_ms < 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "session window: maximum length must be positive or 0 for none "
                                  "(got %" PRId64 " ms)",
                                  a->max_length_ms);
        return 0;
    case WEIR_WINDOW_GLOBAL:
        return 0;
    }
    return weir_error_set(err, WEIR_EINVAL, "window assigner: unknown kind %d", (int)a->kind);
}

weir_ts weir_window_align(weir_ts ts, int64_t offset_ms, int64_t step_ms)
{
    int64_t d;
    if (!__builtin_sub_overflow(ts, offset_ms, &d)) {
        int64_t m = d % step_ms;
        if (m < 0)
            m += step_ms;
        return ts >= WEIR_TS_MIN + m ? ts - m : WEIR_TS_MIN;
    }
    /* 128-bit arithmetic: ts - offset leaves the int64 range. */
    __int128 dd = (__int128)ts - offset_ms;
    __int128 mm = dd % step_ms;
    if (mm < 0)
        mm += step_ms;
    __int128 r = (__int128)ts - mm;
    return r < INT64_MIN ? WEIR_TS_MIN : (weir_ts)r;
}

int weir_window_assign(const weir_window_assigner *a, weir_ts ts, weir_window *out, uint32_t cap)
{
    uint32_t n = 0;
    switch (a->kind) {
    case WEIR_WINDOW_TUMBLING: {
        weir_ts s = weir_window_align(ts, a->offset_ms, a->size_ms);
        if (cap > 0)
            out[0] = (weir_window){s, weir__ts_add(s, a->size_ms)};
        return 1;
    }
    case WEIR_WINDOW_HOPPING: {
        /* Starts s on the slide grid with ts - size < s <= ts, oldest first. */
        weir_ts last = weir_window_align(ts, a->offset_ms, a->slide_ms);
        __int128 first = (__int128)last;
        while (first - a->slide_ms > (__int128)ts - a->size_ms)
            first -= a->slide_ms;
        for (__int128 s = first; s <= last; s += a->slide_ms, n++) {
            if (n < cap) {
                weir_ts st = s < INT64_MIN ? WEIR_TS_MIN : (weir_ts)s;
                out[n] = (weir_window){st, weir__ts_add(st, a->size_ms)};
            }
        }
        return (int)n;
    }
    case WEIR_WINDOW_CUMULATING: {
        weir_ts base = weir_window_align(ts, a->offset_ms, a->size_ms);
        weir_ts first_end = weir__ts_add(weir_window_align(ts, a->offset_ms, a->slide_ms), a->slide_ms);
        weir_ts last_end = weir__ts_add(base, a->size_ms);
        for (__int128 e = first_end; e <= last_end; e += a->slide_ms, n++) {
            if (n < cap)
                out[n] = (weir_window){base, (weir_ts)e};
            if (e == WEIR_TS_MAX)
                return (int)n + 1;
        }
        return (int)n;
    }
    case WEIR_WINDOW_SESSION:
    case WEIR_WINDOW_GLOBAL:
        return WEIR_EINVAL;
    }
    return WEIR_EINVAL;
}
