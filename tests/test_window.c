/*
 * tests/test_window.c - window semantics, driven through the window engine
 * with a manual watermark and a manual processing-time clock: assigners,
 * the seed's worked examples, boundaries, sessions, lateness, triggers and
 * accumulation modes. Every expected number below follows DESIGN.md
 * section 1 by hand.
 */
#include <criterion/criterion.h>

#include "window_harness.h"

#define MIN_MS (60 * 1000)

static weir_agg g_aggs[2];

static void spec_for(weir_window_spec *s, weir_window_assigner a)
{
    weir_window_spec_init(s);
    s->assigner = a;
    s->key.n = 1;
    s->key.cols[0] = 0;
    g_aggs[0] = h_count_star();
    g_aggs[1] = h_sum(1);
    s->aggs = g_aggs;
    s->n_aggs = 2;
}

#define ROW_IS(x, k, s, e, cnt, sum)                                                      \
    do {                                                                                   \
        cr_assert_not_null(x, "missing row for key %d [%lld, %lld)", (int)(k), (long long)(s), \
                           (long long)(e));                                                \
        cr_assert_eq((x)->v[0], (cnt), "count %lld != %lld", (long long)(x)->v[0], (long long)(cnt)); \
        cr_assert_eq((x)->v[1], (sum), "sum %lld != %lld", (long long)(x)->v[1], (long long)(sum)); \
    } while (0)

/* ---- assigners ---- */

Test(window_assign, tumbling_floor_for_negative_timestamps)
{
    weir_window_assigner a = weir_window_tumbling(10, 0);
    weir_window w[4];
    cr_assert_eq(weir_window_assign(&a, -1, w, 4), 1);
    cr_assert_eq(w[0].start, -10);
    cr_assert_eq(w[0].end, 0);
    cr_assert_eq(weir_window_assign(&a, -10, w, 4), 1);
    cr_assert_eq(w[0].start, -10);
    cr_assert_eq(weir_window_assign(&a, -11, w, 4), 1);
    cr_assert_eq(w[0].start, -20);
    cr_assert_eq(weir_window_assign(&a, 0, w, 4), 1);
    cr_assert_eq(w[0].start, 0);
    cr_assert_eq(weir_window_assign(&a, 9, w, 4), 1);
    cr_assert_eq(w[0].end, 10);
    /* an offset moves the grid: starts at 3 + 10k */
    weir_window_assigner o = weir_window_tumbling(10, 3);
    cr_assert_eq(weir_window_assign(&o, 2, w, 4), 1);
    cr_assert_eq(w[0].start, -7);
    cr_assert_eq(w[0].end, 3);
    cr_assert_eq(weir_window_align(-1, 0, 10), -10);
    cr_assert_eq(weir_window_align(INT64_MIN + 5, 0, 10), WEIR_TS_MIN);
}

Test(window_assign, hopping_and_cumulating)
{
    weir_window_assigner h = weir_window_hopping(5, 10, 0); /* slide first */
    weir_window w[8];
    cr_assert_eq(weir_window_assign(&h, 7, w, 8), 2);
    cr_assert_eq(w[0].start, 0);
    cr_assert_eq(w[0].end, 10);
    cr_assert_eq(w[1].start, 5);
    cr_assert_eq(w[1].end, 15);
    cr_assert_eq(weir_window_assign(&h, -1, w, 8), 2);
    cr_assert_eq(w[0].start, -10);
    cr_assert_eq(w[1].start, -5);
    /* size not a multiple of slide: 10 / 4 -> windows starting at 0, 4, 8 contain 9 */
    weir_window_assigner h2 = weir_window_hopping(4, 10, 0);
    cr_assert_eq(weir_window_assign(&h2, 9, w, 8), 3);
    cr_assert_eq(w[0].start, 0);
    cr_assert_eq(w[2].start, 8);
    weir_window_assigner c = weir_window_cumulating(2, 6, 0);
    cr_assert_eq(weir_window_assign(&c, 3, w, 8), 2);
    cr_assert_eq(w[0].start, 0);
    cr_assert_eq(w[0].end, 4);
    cr_assert_eq(w[1].end, 6);
    cr_assert_eq(weir_window_assign(&c, 6, w, 8), 3);
    cr_assert_eq(w[0].start, 6);
    cr_assert_eq(w[0].end, 8);
    cr_assert_eq(w[2].end, 12);
    weir_window_assigner s = weir_window_session(10, 0);
    cr_assert_lt(weir_window_assign(&s, 3, w, 8), 0);
}

Test(window_assign, validation_messages)
{
    weir_error err = {0};
    weir_window_assigner a = weir_window_tumbling(0, 0);
    cr_assert_eq(weir_window_assigner_check(&a, &err), WEIR_EINVAL);
    cr_assert(strstr(err.message, "tumbling"));
    a = weir_window_hopping(20, 10, 0);
    cr_assert_eq(weir_window_assigner_check(&a, &err), WEIR_EINVAL);
    cr_assert(strstr(err.message, "slide"));
    a = weir_window_cumulating(3, 10, 0);
    cr_assert_eq(weir_window_assigner_check(&a, &err), WEIR_EINVAL);
    a = weir_window_session(0, 0);
    cr_assert_eq(weir_window_assigner_check(&a, &err), WEIR_EINVAL);
    a = weir_window_hopping(5, 10, 0);
    cr_assert_eq(weir_window_assigner_check(&a, &err), 0);

    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10, 0));
    weir_schema *in = h_input_schema();
    s.trigger.purging = true;
    s.accumulation = WEIR_ACC_RETRACTING;
    cr_assert_eq(weir_window_spec_check(&s, in, &err), WEIR_EINVAL);
    s.trigger.purging = false;
    s.allowed_lateness_ms = -1;
    cr_assert_eq(weir_window_spec_check(&s, in, &err), WEIR_EINVAL);
    s.allowed_lateness_ms = 0;
    s.key.cols[0] = 7;
    cr_assert_eq(weir_window_spec_check(&s, in, &err), WEIR_EINVAL);
    cr_assert(strstr(err.message, "key column"));
    weir_schema_destroy(in);
}

Test(window_assign, output_and_late_schemas)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10, 0));
    const char *names[] = {"cnt", "total"};
    s.agg_names = names;
    s.window_time = true;
    weir_schema *in = h_input_schema(), *out, *late;
    weir_error err;
    cr_assert_eq(weir_window_output_schema(&s, in, &out, &err), 0);
    cr_assert_eq(out->n_fields, 6);
    cr_assert_str_eq(out->fields[0].name, "k");
    cr_assert_str_eq(out->fields[1].name, "window_start");
    cr_assert_eq(out->fields[1].type.id, WEIR_TYPE_TIMESTAMP);
    cr_assert_eq(out->fields[1].type.precision, 3);
    cr_assert_str_eq(out->fields[3].name, "window_time");
    cr_assert_eq(out->rowtime, 3);
    cr_assert_str_eq(out->fields[5].name, "total");
    cr_assert_eq(weir_window_late_schema(in, &late), 0);
    cr_assert_eq(late->n_fields, 4);
    cr_assert_str_eq(late->fields[2].name, "watermark");
    cr_assert_str_eq(late->fields[3].name, "lateness_ms");
    weir_schema_destroy(out);
    weir_schema_destroy(late);
    weir_schema_destroy(in);
}

/* ---- the seed's worked examples ---- */

Test(window_seed, tumbling_10s_delay_3s)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10000, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 3000, 1024), 0);
    const int64_t ev[][2] = {{1000, 10}, {3000, 20}, {2000, 15}, {12000, 50}, {7000, 25}, {15000, 100}, {4000, 999}};
    for (int i = 0; i < 7; i++) {
        cr_assert_eq(h_push(&h, 1, ev[i][0], ev[i][1]), 0);
        if (i == 4)
            cr_assert_eq(h.n, 0, "nothing fires before W >= 10000");
        if (i == 5) {
            cr_assert_eq(h.n, 1, "[0,10000) fires when 15000 moves W to 12000");
            ROW_IS(h_find(&h, 1, 0, 10000, 0), 1, 0, 10000, 4, 70);
            cr_assert_eq(h.rows[0].ts, 9999, "result time is window_end - 1");
            cr_assert_eq(h.rows[0].kind, WEIR_ROW_INSERT);
        }
    }
    cr_assert_eq(h.late_counter, 1);
    cr_assert_eq(h.n_late, 1);
    cr_assert_eq(h.lates[0].ts, 4000);
    cr_assert_eq(h.lates[0].v, 999);
    cr_assert_eq(h.lates[0].wm, 12000);
    cr_assert_eq(h.lates[0].lateness, 8000);
    cr_assert_eq(h.n, 1, "[10000,20000) waits for the end of input");
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 2);
    ROW_IS(h_find(&h, 1, 10000, 20000, 0), 1, 10000, 20000, 2, 150);
    h_fini(&h);
}

Test(window_seed, ride_hailing_sessions_15_minute_gap)
{
    weir_window_spec s;
    spec_for(&s, weir_window_session(15 * MIN_MS, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    /* driver 7: pings at 0, then after a 14-minute pause (extends), then a 20-minute pause (closes) */
    cr_assert_eq(h_push(&h, 7, 0, 1), 0);
    cr_assert_eq(h_push(&h, 7, 14 * MIN_MS, 1), 0);
    cr_assert_eq(h.n, 0, "a 14-minute pause keeps the session open");
    cr_assert_eq(h_push(&h, 7, 34 * MIN_MS, 1), 0);
    cr_assert_eq(h.n, 1, "a 20-minute pause closes the session");
    ROW_IS(h_find(&h, 7, 0, 29 * MIN_MS, 0), 7, 0, 29 * MIN_MS, 2, 2);
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 2);
    ROW_IS(h_find(&h, 7, 34 * MIN_MS, 49 * MIN_MS, 0), 7, 34 * MIN_MS, 49 * MIN_MS, 1, 1);
    cr_assert_eq(h.late_counter, 0);
    h_fini(&h);
}

/* ---- boundaries ---- */

Test(window_boundary, records_at_end_minus_one_and_at_end)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 100, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 9, 1), 0);   /* last millisecond of [0,10) */
    cr_assert_eq(h_push(&h, 1, 10, 2), 0);  /* first of [10,20) */
    cr_assert_eq(h_push(&h, 1, 0, 4), 0);   /* first of [0,10) */
    cr_assert_eq(h_push(&h, 1, 19, 8), 0);
    cr_assert_eq(h_push(&h, 1, 20, 16), 0);
    cr_assert_eq(h_end(&h), 0);
    ROW_IS(h_find(&h, 1, 0, 10, 0), 1, 0, 10, 2, 5);
    ROW_IS(h_find(&h, 1, 10, 20, 0), 1, 10, 20, 2, 10);
    ROW_IS(h_find(&h, 1, 20, 30, 0), 1, 20, 30, 1, 16);
    cr_assert_eq(h.n, 3);
    h_fini(&h);
}

Test(window_boundary, watermark_exactly_at_end)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 5, 1), 0);
    cr_assert_eq(h_watermark(&h, 9), 0);
    cr_assert_eq(h.n, 0, "W = end - 1 does not fire");
    cr_assert_eq(h_push(&h, 1, 9, 2), 0); /* W = 9 < end: still accepted */
    cr_assert_eq(h.late_counter, 0);
    cr_assert_eq(h_watermark(&h, 10), 0);
    cr_assert_eq(h.n, 1, "W = end fires");
    ROW_IS(h_find(&h, 1, 0, 10, 0), 1, 0, 10, 2, 3);
    cr_assert_eq(h_push(&h, 1, 9, 4), 0); /* end + 0 > W is false: late */
    cr_assert_eq(h.late_counter, 1);
    cr_assert_eq(h.lates[0].lateness, 1);
    h_fini(&h);

    /* the same with allowed lateness 5: accepted until W = end + 5 */
    spec_for(&s, weir_window_tumbling(10, 0));
    s.allowed_lateness_ms = 5;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 5, 1), 0);
    cr_assert_eq(h_watermark(&h, 14), 0);
    cr_assert_eq(h_push(&h, 1, 6, 1), 0);
    cr_assert_eq(h.late_counter, 0);
    cr_assert_eq(h_watermark(&h, 15), 0);
    cr_assert_eq(h_push(&h, 1, 7, 1), 0);
    cr_assert_eq(h.late_counter, 1);
    h_fini(&h);
}

Test(window_boundary, negative_timestamps)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 1000, 1024), 0);
    cr_assert_eq(h_push(&h, 1, -1, 1), 0);
    cr_assert_eq(h_push(&h, 1, -10, 2), 0);
    cr_assert_eq(h_push(&h, 1, -11, 4), 0);
    cr_assert_eq(h_push(&h, 1, 0, 8), 0);
    cr_assert_eq(h_end(&h), 0);
    ROW_IS(h_find(&h, 1, -10, 0, 0), 1, -10, 0, 2, 3);
    ROW_IS(h_find(&h, 1, -20, -10, 0), 1, -20, -10, 1, 4);
    ROW_IS(h_find(&h, 1, 0, 10, 0), 1, 0, 10, 1, 8);
    cr_assert_eq(h.n, 3);
    h_fini(&h);

    spec_for(&s, weir_window_hopping(5, 10, 0));
    cr_assert_eq(h_init(&h, &s, 1000, 1024), 0);
    cr_assert_eq(h_push(&h, 1, -1, 1), 0);
    cr_assert_eq(h_end(&h), 0);
    ROW_IS(h_find(&h, 1, -10, 0, 0), 1, -10, 0, 1, 1);
    ROW_IS(h_find(&h, 1, -5, 5, 0), 1, -5, 5, 1, 1);
    cr_assert_eq(h.n, 2);
    h_fini(&h);
}

Test(window_boundary, empty_windows_never_emitted)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 5, 1), 0);
    cr_assert_eq(h_push(&h, 1, 35, 1), 0);
    cr_assert_eq(h_push(&h, 2, 75, 1), 0);
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 3, "only [0,10) and [30,40) of key 1 and [70,80) of key 2");
    cr_assert_not_null(h_find(&h, 1, 0, 10, 0));
    cr_assert_not_null(h_find(&h, 1, 30, 40, 0));
    cr_assert_not_null(h_find(&h, 2, 70, 80, 0));
    h_fini(&h);

    /* hopping 30 / 10: one record is in 3 windows, none of the others appear */
    spec_for(&s, weir_window_hopping(10, 30, 0));
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 5, 1), 0);
    cr_assert_eq(h_push(&h, 1, 105, 1), 0);
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 6);
    h_fini(&h);

    /* a window whose rows were all retracted is empty */
    spec_for(&s, weir_window_tumbling(10, 0));
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 5, 3), 0);
    cr_assert_eq(h_push_kind(&h, 1, 6, 3, WEIR_ROW_DELETE), 0);
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 0);
    h_fini(&h);
}

/* ---- sessions ---- */

Test(window_session, touching_sessions_merge)
{
    weir_window_spec s;
    spec_for(&s, weir_window_session(10, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 100, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 0, 1), 0);  /* [0,10) */
    cr_assert_eq(h_push(&h, 1, 10, 2), 0); /* [10,20) touches [0,10): one session [0,20) */
    cr_assert_eq(h_push(&h, 1, 31, 4), 0); /* [31,41): 20 < 31, separate */
    cr_assert_eq(h_push(&h, 1, 20, 8), 0); /* [20,30) touches [0,20) only: [0,30) */
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 2);
    ROW_IS(h_find(&h, 1, 0, 30, 0), 1, 0, 30, 3, 11);
    ROW_IS(h_find(&h, 1, 31, 41, 0), 1, 31, 41, 1, 4);
    h_fini(&h);
}

static void bridge_run(weir_window_accumulation m, harness *h)
{
    weir_window_spec s;
    spec_for(&s, weir_window_session(10, 0));
    s.allowed_lateness_ms = 100;
    s.accumulation = m;
    cr_assert_eq(h_init(h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(h, 1, 0, 1), 0);
    cr_assert_eq(h_push(h, 1, 20, 2), 0); /* W=20: [0,10) fires */
    cr_assert_eq(h_push(h, 1, 35, 4), 0); /* W=35: [20,30) fires */
    cr_assert_eq(h->n, 2);
    cr_assert_eq(h_push(h, 1, 10, 8), 0); /* late, bridges [0,10) and [20,30) into [0,30) */
}

Test(window_session, late_record_bridges_two_sessions)
{
    harness h;
    bridge_run(WEIR_ACC_ACCUMULATING, &h);
    cr_assert_eq(h.late_counter, 0, "a record that merges into a live session is never late");
    cr_assert_eq(h.n, 3);
    ROW_IS(h_find(&h, 1, 0, 30, 0), 1, 0, 30, 3, 11);
    cr_assert_eq(h.rows[2].kind, WEIR_ROW_INSERT);
    h_fini(&h);

    bridge_run(WEIR_ACC_RETRACTING, &h);
    cr_assert_eq(h.n, 5);
    int dels = 0;
    for (int i = 2; i < 4; i++) {
        cr_assert_eq(h.rows[i].kind, WEIR_ROW_DELETE);
        dels += (h.rows[i].ws == 0 && h.rows[i].we == 10 && h.rows[i].v[1] == 1) ||
                (h.rows[i].ws == 20 && h.rows[i].we == 30 && h.rows[i].v[1] == 2);
    }
    cr_assert_eq(dels, 2, "both earlier sessions are retracted with their old results");
    cr_assert_eq(h.rows[4].kind, WEIR_ROW_INSERT);
    ROW_IS(&h.rows[4], 1, 0, 30, 3, 11);
    h_fini(&h);

    bridge_run(WEIR_ACC_DISCARDING, &h);
    cr_assert_eq(h.n, 3);
    ROW_IS(&h.rows[2], 1, 0, 30, 1, 8); /* only the new record */
    h_fini(&h);

    /* without allowed lateness both sessions are gone, so the record is late */
    weir_window_spec s;
    spec_for(&s, weir_window_session(10, 0));
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 0, 1), 0);
    cr_assert_eq(h_push(&h, 1, 20, 2), 0);
    cr_assert_eq(h_push(&h, 1, 35, 4), 0);
    cr_assert_eq(h_push(&h, 1, 10, 8), 0);
    cr_assert_eq(h.late_counter, 1);
    h_fini(&h);
}

Test(window_session, merge_into_live_session_is_not_late)
{
    /* gap 10, W = 15: session [8,18) is live; a record at 3 (its own window [3,13) ends before W + 0?
       13 <= 15 would be late alone) merges into it and is accepted */
    weir_window_spec s;
    spec_for(&s, weir_window_session(10, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 8, 1), 0);
    cr_assert_eq(h_watermark(&h, 15), 0);
    cr_assert_eq(h_push(&h, 1, 3, 2), 0);
    cr_assert_eq(h.late_counter, 0);
    cr_assert_eq(h_end(&h), 0);
    ROW_IS(h_find(&h, 1, 3, 18, 0), 1, 3, 18, 2, 3);
    cr_assert_eq(h.n, 1);
    h_fini(&h);
}

Test(window_session, capped_by_maximum_length)
{
    weir_window_spec s;
    spec_for(&s, weir_window_session(10, 100));
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    for (int64_t t = 0; t <= 300; t += 5)
        cr_assert_eq(h_push(&h, 1, t, 1), 0);
    cr_assert_eq(h.n, 3, "a session that never pauses is closed every 100 ms");
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 4);
    ROW_IS(h_find(&h, 1, 0, 100, 0), 1, 0, 100, 20, 20);
    ROW_IS(h_find(&h, 1, 100, 200, 0), 1, 100, 200, 20, 20);
    ROW_IS(h_find(&h, 1, 200, 300, 0), 1, 200, 300, 20, 20);
    ROW_IS(h_find(&h, 1, 300, 310, 0), 1, 300, 310, 1, 1);
    weir__wcore_stats st;
    weir__wcore_stats_get(h.core, &st);
    cr_assert_eq(st.nodes, 0, "state is released");
    h_fini(&h);
}

/* ---- allowed lateness and late firings in each accumulation mode ---- */

typedef struct late_case {
    weir_window_assigner a;
    int64_t ws, we;   /* the window under test */
    int64_t ts_in, ts_fire, ts_late, ts_clean;
} late_case;

static void late_firings(const late_case *lc, weir_window_accumulation m, bool early)
{
    weir_window_spec s;
    spec_for(&s, lc->a);
    s.allowed_lateness_ms = 20;
    s.accumulation = m;
    if (early)
        s.trigger.early_count = 1000; /* per-window mode, never reached */
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, lc->ts_in, 1), 0);
    cr_assert_eq(h_push(&h, 2, lc->ts_fire, 100), 0); /* moves W past the window's end */
    cr_assert_eq(h_count_window(&h, 1, lc->ws, lc->we), 1);
    const hrow *first = h_find(&h, 1, lc->ws, lc->we, 0);
    ROW_IS(first, 1, lc->ws, lc->we, 1, 1);
    size_t before = h.n;
    cr_assert_eq(h_push(&h, 1, lc->ts_late, 2), 0); /* late but within allowed lateness */
    cr_assert_eq(h.late_counter, 0);
    if (m == WEIR_ACC_ACCUMULATING) {
        const hrow *x = h_find(&h, 1, lc->ws, lc->we, 1);
        ROW_IS(x, 1, lc->ws, lc->we, 2, 3);
        cr_assert_eq(x->kind, WEIR_ROW_INSERT);
    } else if (m == WEIR_ACC_DISCARDING) {
        const hrow *x = h_find(&h, 1, lc->ws, lc->we, 1);
        ROW_IS(x, 1, lc->ws, lc->we, 1, 2);
    } else {
        const hrow *a = h_find(&h, 1, lc->ws, lc->we, 1), *b = h_find(&h, 1, lc->ws, lc->we, 2);
        ROW_IS(a, 1, lc->ws, lc->we, 1, 1);
        cr_assert_eq(a->kind, WEIR_ROW_UPDATE_BEFORE);
        ROW_IS(b, 1, lc->ws, lc->we, 2, 3);
        cr_assert_eq(b->kind, WEIR_ROW_UPDATE_AFTER);
    }
    cr_assert_gt(h.n, before);
    /* past end + L the window is gone: the same record is now late */
    cr_assert_eq(h_push(&h, 2, lc->ts_clean, 100), 0);
    cr_assert_eq(h_push(&h, 1, lc->ts_late, 4), 0);
    cr_assert_eq(h.late_counter, 1);
    cr_assert_eq(h_end(&h), 0);
    h_fini(&h);
}

static const late_case k_cases[] = {
    {.a = {WEIR_WINDOW_TUMBLING, 10, 10, 0, 0, 0}, .ws = 0, .we = 10, .ts_in = 1, .ts_fire = 15, .ts_late = 2, .ts_clean = 30},
    {.a = {WEIR_WINDOW_HOPPING, 10, 5, 0, 0, 0}, .ws = -5, .we = 5, .ts_in = 1, .ts_fire = 7, .ts_late = 2, .ts_clean = 30},
    {.a = {WEIR_WINDOW_CUMULATING, 20, 5, 0, 0, 0}, .ws = 0, .we = 5, .ts_in = 1, .ts_fire = 7, .ts_late = 2, .ts_clean = 40},
    {.a = {WEIR_WINDOW_SESSION, 0, 0, 0, 10, 0}, .ws = 1, .we = 11, .ts_in = 1, .ts_fire = 15, .ts_late = 2, .ts_clean = 40},
};

Test(window_lateness, late_firings_accumulating)
{
    for (size_t i = 0; i < sizeof k_cases / sizeof *k_cases; i++) {
        if (k_cases[i].a.kind == WEIR_WINDOW_SESSION)
            continue; /* a late record changes a session's bounds; see the session tests */
        late_firings(&k_cases[i], WEIR_ACC_ACCUMULATING, false);
        late_firings(&k_cases[i], WEIR_ACC_ACCUMULATING, true);
    }
}

Test(window_lateness, late_firings_discarding)
{
    for (size_t i = 0; i < sizeof k_cases / sizeof *k_cases; i++) {
        if (k_cases[i].a.kind == WEIR_WINDOW_SESSION)
            continue;
        late_firings(&k_cases[i], WEIR_ACC_DISCARDING, false);
        late_firings(&k_cases[i], WEIR_ACC_DISCARDING, true);
    }
}

Test(window_lateness, late_firings_retracting)
{
    for (size_t i = 0; i < sizeof k_cases / sizeof *k_cases; i++) {
        if (k_cases[i].a.kind == WEIR_WINDOW_SESSION)
            continue;
        late_firings(&k_cases[i], WEIR_ACC_RETRACTING, false);
        late_firings(&k_cases[i], WEIR_ACC_RETRACTING, true);
    }
}

Test(window_lateness, session_late_firing_inside_bounds)
{
    /* session [1,11) fires at W=15; a late record at 5 keeps the bounds ([5,15) ends after 11
       so they grow to [1,15)); retracting: -D old, +I new */
    weir_window_spec s;
    spec_for(&s, weir_window_session(10, 0));
    s.allowed_lateness_ms = 20;
    s.accumulation = WEIR_ACC_RETRACTING;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 1, 1), 0);
    cr_assert_eq(h_push(&h, 2, 16, 0), 0);
    cr_assert_eq(h.n, 1);
    cr_assert_eq(h_push(&h, 1, 5, 2), 0);
    /* the merged session [1,15) ends at 15 <= W = 16: a late firing right away */
    cr_assert_eq(h.n, 3);
    cr_assert_eq(h.rows[1].kind, WEIR_ROW_DELETE);
    ROW_IS(&h.rows[1], 1, 1, 11, 1, 1);
    cr_assert_eq(h.rows[2].kind, WEIR_ROW_INSERT);
    ROW_IS(&h.rows[2], 1, 1, 15, 2, 3);
    /* a late record inside [1,15) keeps the bounds: -U / +U */
    cr_assert_eq(h_push(&h, 1, 4, 4), 0);
    cr_assert_eq(h.n, 5);
    cr_assert_eq(h.rows[3].kind, WEIR_ROW_UPDATE_BEFORE);
    cr_assert_eq(h.rows[4].kind, WEIR_ROW_UPDATE_AFTER);
    ROW_IS(&h.rows[4], 1, 1, 15, 3, 7);
    h_fini(&h);
}

Test(window_lateness, late_interval_fires_on_processing_time)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10, 0));
    s.allowed_lateness_ms = 100;
    s.trigger.late_interval_ms = 1000;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 1, 1), 0);
    cr_assert_eq(h_push(&h, 2, 20, 0), 0);
    cr_assert_eq(h.n, 1);
    h.now = 500;
    cr_assert_eq(h_push(&h, 1, 2, 2), 0);
    cr_assert_eq(h_push(&h, 1, 3, 4), 0);
    cr_assert_eq(h.n, 1, "late firings wait for the interval");
    cr_assert_eq(h_set_time(&h, 1499), 0);
    cr_assert_eq(h.n, 1);
    cr_assert_eq(h_set_time(&h, 1500), 0);
    cr_assert_eq(h.n, 2);
    ROW_IS(&h.rows[1], 1, 0, 10, 3, 7);
    /* late data still pending when the window is cleaned up fires then */
    cr_assert_eq(h_push(&h, 1, 4, 8), 0);
    cr_assert_eq(h_push(&h, 2, 200, 0), 0);
    cr_assert_eq(h_count_window(&h, 1, 0, 10), 3);
    ROW_IS(h_find(&h, 1, 0, 10, 2), 1, 0, 10, 4, 15);
    h_fini(&h);
}

/* ---- early firings and other triggers ---- */

Test(window_trigger, early_firings_by_processing_time)
{
    for (int m = 0; m < 3; m++) {
        weir_window_spec s;
        spec_for(&s, weir_window_tumbling(10000, 0));
        s.trigger.early_interval_ms = 1000;
        s.accumulation = (weir_window_accumulation)m;
        harness h;
        cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
        h.now = 0;
        cr_assert_eq(h_push(&h, 1, 1000, 1), 0);
        cr_assert_eq(h_set_time(&h, 999), 0);
        cr_assert_eq(h.n, 0);
        cr_assert_eq(h_set_time(&h, 1000), 0);
        cr_assert_eq(h.n, 1, "early firing 1000 ms after the first record");
        ROW_IS(&h.rows[0], 1, 0, 10000, 1, 1);
        cr_assert_eq(h_set_time(&h, 5000), 0);
        cr_assert_eq(h.n, 1, "no new data, no firing");
        cr_assert_eq(h_push(&h, 1, 2000, 2), 0);
        cr_assert_eq(h_set_time(&h, 6000), 0);
        if (m == WEIR_ACC_ACCUMULATING) {
            cr_assert_eq(h.n, 2);
            ROW_IS(&h.rows[1], 1, 0, 10000, 2, 3);
        } else if (m == WEIR_ACC_DISCARDING) {
            cr_assert_eq(h.n, 2);
            ROW_IS(&h.rows[1], 1, 0, 10000, 1, 2);
        } else {
            cr_assert_eq(h.n, 3);
            cr_assert_eq(h.rows[1].kind, WEIR_ROW_UPDATE_BEFORE);
            ROW_IS(&h.rows[1], 1, 0, 10000, 1, 1);
            cr_assert_eq(h.rows[2].kind, WEIR_ROW_UPDATE_AFTER);
            ROW_IS(&h.rows[2], 1, 0, 10000, 2, 3);
        }
        size_t n = h.n;
        cr_assert_eq(h_push(&h, 1, 3000, 4), 0);
        cr_assert_eq(h_watermark(&h, 10000), 0);
        cr_assert_eq(h.n, n + (m == WEIR_ACC_RETRACTING ? 2 : 1), "on-time firing with the new record");
        const hrow *last = &h.rows[h.n - 1];
        if (m == WEIR_ACC_DISCARDING)
            ROW_IS(last, 1, 0, 10000, 1, 4);
        else
            ROW_IS(last, 1, 0, 10000, 3, 7);
        cr_assert_eq(h_end(&h), 0);
        cr_assert_eq(h.n, n + (m == WEIR_ACC_RETRACTING ? 2 : 1), "nothing new at the end");
        h_fini(&h);
    }
}

Test(window_trigger, early_firings_by_count)
{
    weir_window_spec s;
    spec_for(&s, weir_window_hopping(5, 10, 0));
    s.trigger.early_count = 2;
    harness h;
    cr_assert_eq(h_init(&h, &s, 100, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 6, 1), 0); /* windows [0,10) and [5,15) */
    cr_assert_eq(h.n, 0);
    cr_assert_eq(h_push(&h, 1, 7, 2), 0);
    cr_assert_eq(h.n, 2, "both windows reach 2 records");
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 2, "nothing new for the on-time firings");
    cr_assert_eq(h_push(&h, 1, 8, 4), 0); /* after the end: everything is late now */
    cr_assert_eq(h.late_counter, 1);
    h_fini(&h);
}

Test(window_trigger, count_trigger_on_global_window)
{
    weir_window_spec s;
    spec_for(&s, weir_window_global());
    s.trigger.kind = WEIR_TRIGGER_COUNT;
    s.trigger.count = 3;
    s.trigger.purging = true;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    for (int i = 1; i <= 7; i++)
        cr_assert_eq(h_push(&h, 1, i * 10, i), 0);
    cr_assert_eq(h.n, 2);
    cr_assert(h.rows[0].global);
    cr_assert_eq(h.rows[0].v[0], 3);
    cr_assert_eq(h.rows[0].v[1], 6);
    cr_assert_eq(h.rows[0].ts, 30, "a global result's time is its latest record's");
    cr_assert_eq(h.rows[1].v[1], 15);
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 2, "a partial count never fires (as Flink's CountTrigger)");
    h_fini(&h);

    /* accumulating count trigger: running totals */
    spec_for(&s, weir_window_global());
    s.trigger.kind = WEIR_TRIGGER_COUNT;
    s.trigger.count = 2;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    for (int i = 1; i <= 4; i++)
        cr_assert_eq(h_push(&h, 1, i, i), 0);
    cr_assert_eq(h.n, 2);
    cr_assert_eq(h.rows[1].v[0], 4);
    cr_assert_eq(h.rows[1].v[1], 10);
    h_fini(&h);

    /* global window with the event-time trigger: one result at the end of input */
    spec_for(&s, weir_window_global());
    s.trigger.kind = WEIR_TRIGGER_EVENT_TIME;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    for (int i = 1; i <= 4; i++)
        cr_assert_eq(h_push(&h, 1, i * 1000, i), 0);
    cr_assert_eq(h.n, 0);
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 1);
    cr_assert_eq(h.rows[0].v[1], 10);
    h_fini(&h);

    /* global window, default trigger: never fires by itself */
    spec_for(&s, weir_window_global());
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 5, 1), 0);
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 0);
    h_fini(&h);
}

Test(window_trigger, count_trigger_on_tumbling_windows)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(100, 0));
    s.trigger.kind = WEIR_TRIGGER_COUNT;
    s.trigger.count = 2;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 1, 1), 0);
    cr_assert_eq(h_push(&h, 1, 2, 2), 0);
    cr_assert_eq(h.n, 1);
    cr_assert_eq(h_push(&h, 1, 3, 4), 0);
    cr_assert_eq(h_push(&h, 1, 150, 4), 0); /* W passes 100: no count firing, state dropped */
    cr_assert_eq(h.n, 1);
    h_fini(&h);
}

Test(window_trigger, processing_time_trigger)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(1000, 0));
    s.trigger.kind = WEIR_TRIGGER_PROCESSING_TIME;
    s.allowed_lateness_ms = 1000000;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push(&h, 1, 500, 1), 0);
    cr_assert_eq(h_push(&h, 1, 5000, 1), 0); /* event time passes the end: no firing */
    cr_assert_eq(h.n, 0);
    cr_assert_eq(h_set_time(&h, 999), 0);
    cr_assert_eq(h.n, 0);
    cr_assert_eq(h_set_time(&h, 1000), 0);
    cr_assert_eq(h.n, 1, "fires when processing time reaches the end");
    cr_assert_eq(h_push(&h, 1, 600, 2), 0); /* after the end in processing time: fires at once */
    cr_assert_eq(h.n, 2);
    cr_assert_eq(h.rows[1].v[1], 3);
    h_fini(&h);
}

Test(window_trigger, processing_time_windows)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(1000, 0));
    s.time_domain = WEIR_TIME_PROCESSING;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    h.now = 100;
    cr_assert_eq(h_push(&h, 1, 999999, 1), 0); /* event time is ignored */
    h.now = 900;
    cr_assert_eq(h_push(&h, 1, 5, 2), 0);
    cr_assert_eq(h.n, 0);
    cr_assert_eq(h_set_time(&h, 1000), 0);
    cr_assert_eq(h.n, 1);
    ROW_IS(&h.rows[0], 1, 0, 1000, 2, 3);
    h.now = 1500;
    cr_assert_eq(h_push(&h, 1, 5, 4), 0);
    cr_assert_eq(weir__wcore_finish(h.core, 1600), 0);
    cr_assert_eq(h.n, 2, "the end of input fires processing-time windows");
    ROW_IS(&h.rows[1], 1, 1000, 2000, 1, 4);
    cr_assert_eq(h.late_counter, 0);
    h_fini(&h);
}

/* ---- aggregates ---- */

Test(window_agg, sum_is_null_for_only_nulls_and_count_col_skips_nulls)
{
    static const weir_agg_class cnt = {.name = "COUNT"};
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10, 0));
    weir_agg aggs[2] = {{.cls = &cnt, .input_col = 1}, h_sum(1)};
    aggs[0].result_type = weir_type_make(WEIR_TYPE_BIGINT, false);
    s.aggs = aggs;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    weir_batch *b = weir_batch_create(h.in, 4);
    for (int i = 0; i < 3; i++) {
        int r = weir_batch_append_row(b);
        WEIR_COL_I64(b, 0)[r] = i < 2 ? 1 : 2;
        b->ts[r] = 5;
        if (i == 0 || i == 2)
            weir_batch_set_null(b, 1, r);
        else
            WEIR_COL_I64(b, 1)[r] = 7;
    }
    cr_assert_eq(weir__wcore_process(h.core, b, WEIR_TS_MIN, 0), 0);
    weir_batch_destroy(b);
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.n, 2);
    const hrow *k1 = h_find(&h, 1, 0, 10, 0), *k2 = h_find(&h, 2, 0, 10, 0);
    cr_assert_eq(k1->v[0], 1);
    cr_assert_eq(k1->v[1], 7);
    cr_assert_eq(k2->v[0], 0, "COUNT(v) of only NULLs is 0");
    cr_assert(k2->null[1], "SUM of only NULLs is NULL; the window still exists");
    h_fini(&h);
}

/* A user-style aggregate through the generic path: MAX over BIGINT. */
static size_t tmax_size(const weir_agg *a) { (void)a; return 16; }
static void tmax_init(const weir_agg *a, void *acc) { (void)a; memset(acc, 0, 16); }
static int tmax_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    int64_t *x = acc;
    if (weir_batch_is_null(b, (uint32_t)a->input_col, row))
        return 0;
    int64_t v = WEIR_COL_I64(b, a->input_col)[row];
    if (!x[1] || v > x[0])
        x[0] = v;
    x[1] = 1;
    return 0;
}
static int tmax_merge(const weir_agg *a, void *acc, const void *other)
{
    (void)a;
    int64_t *x = acc;
    const int64_t *y = other;
    if (y[1] && (!x[1] || y[0] > x[0]))
        x[0] = y[0];
    x[1] |= y[1];
    return 0;
}
static int tmax_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    (void)a;
    const int64_t *x = acc;
    if (!x[1])
        weir_batch_set_null(out, col, row);
    else
        WEIR_COL_I64(out, col)[row] = x[0];
    return 0;
}
static const weir_agg_class tmax_cls = {.name = "TMAX", .acc_size = tmax_size, .init = tmax_init,
                                        .add = tmax_add, .merge = tmax_merge, .result = tmax_result};

Test(window_agg, generic_aggregate_over_hopping_slices)
{
    weir_window_spec s;
    spec_for(&s, weir_window_hopping(10, 40, 0));
    weir_agg aggs[2] = {h_count_star(), {.cls = &tmax_cls, .input_col = 1}};
    aggs[1].result_type = weir_type_make(WEIR_TYPE_BIGINT, true);
    s.aggs = aggs;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    const int64_t vals[] = {5, 9, 2, 7, 1, 3, 8, 4};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(h_push(&h, 1, i * 10 + 5, vals[i]), 0);
    cr_assert_eq(h_end(&h), 0);
    /* window [s, s+40) holds records i with s <= 10i+5 < s+40 */
    for (int64_t st = -30; st <= 70; st += 10) {
        int64_t mx = INT64_MIN, cnt = 0;
        for (int i = 0; i < 8; i++)
            if (st <= i * 10 + 5 && i * 10 + 5 < st + 40) {
                cnt++;
                if (vals[i] > mx)
                    mx = vals[i];
            }
        const hrow *x = h_find(&h, 1, st, st + 40, 0);
        cr_assert_not_null(x);
        cr_assert_eq(x->v[0], cnt);
        cr_assert_eq(x->v[1], mx, "window %lld: max %lld, want %lld", (long long)st, (long long)x->v[1],
                     (long long)mx);
    }
    cr_assert_eq(h.n, 11);
    h_fini(&h);
}

/* (key, window start, count, sum), ordered by key then start */
typedef struct kwin {
    int64_t key, ws, cnt, sum;
} kwin;

static int cmp_kwin(const void *pa, const void *pb)
{
    const kwin *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->ws < b->ws ? -1 : a->ws > b->ws;
}

/*
 * Hopping COUNT/SUM keeps a running sum per key that adds the slice
 * entering a window and subtracts the one leaving it, removing keys whose
 * sum returns to zero. Thousands of keys churning through it (with
 * retractions) must give exactly the per-window sums.
 */
Test(window_agg, hopping_running_sum_many_keys)
{
    enum { N = 40000, KEYS = 3000, SLIDE = 100, SIZE = 400, DELAY = 25 };
    weir_window_spec s;
    spec_for(&s, weir_window_hopping(SLIDE, SIZE, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, DELAY, 1024), 0);
    int64_t *key = malloc(N * sizeof *key), *ts = malloc(N * sizeof *ts), *v = malloc(N * sizeof *v);
    uint8_t *kind = malloc(N);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        key[i] = (int64_t)(x % KEYS);
        ts[i] = i - (int64_t)((x >> 32) % 20);
        v[i] = (int64_t)((x >> 40) % 1000) - 300;
        kind[i] = WEIR_ROW_INSERT;
        if (i > 50 && (x >> 20) % 16 == 0) {
            /* retract a recent record of the same slice-ish time (never late: within the delay) */
            int j = i - 1 - (int)((x >> 8) % 5);
            key[i] = key[j], ts[i] = ts[j], v[i] = v[j], kind[i] = WEIR_ROW_DELETE;
        }
    }
    weir_batch *b = weir_batch_create(h.in, 64);
    for (int i0 = 0; i0 < N; i0 += 64) {
        weir_batch_reset(b);
        for (int i = i0; i < i0 + 64 && i < N; i++) {
            int r = weir_batch_append_row(b);
            WEIR_COL_I64(b, 0)[r] = key[i];
            WEIR_COL_I64(b, 1)[r] = v[i];
            b->ts[r] = ts[i];
            b->kind[r] = kind[i];
            if (ts[i] > h.max_ts)
                h.max_ts = ts[i];
        }
        cr_assert_eq(weir__wcore_process(h.core, b, h.wm, 0), 0);
        cr_assert_eq(h_watermark(&h, h.max_ts - DELAY), 0);
    }
    cr_assert_eq(h_end(&h), 0);
    weir_batch_destroy(b);
    cr_assert_eq(h.n_late, 0);
    /* the reference: every record in each of its SIZE/SLIDE windows */
    kwin *want = malloc((size_t)N * (SIZE / SLIDE) * sizeof *want);
    size_t nw = 0;
    for (int i = 0; i < N; i++) {
        int64_t sign = kind[i] == WEIR_ROW_INSERT ? 1 : -1;
        for (int64_t st = weir_window_align(ts[i], 0, SLIDE); st > ts[i] - SIZE; st -= SLIDE)
            want[nw++] = (kwin){key[i], st, sign, sign * v[i]};
    }
    qsort(want, nw, sizeof *want, cmp_kwin);
    size_t m = 0;
    for (size_t i = 0; i < nw;) {
        kwin acc = want[i++];
        while (i < nw && !cmp_kwin(&want[i], &acc)) {
            acc.cnt += want[i].cnt;
            acc.sum += want[i].sum;
            i++;
        }
        if (acc.cnt)
            want[m++] = acc;
    }
    kwin *got = malloc((h.n + 1) * sizeof *got);
    for (size_t i = 0; i < h.n; i++) {
        cr_assert_eq(h.rows[i].we - h.rows[i].ws, SIZE);
        got[i] = (kwin){h.rows[i].key, h.rows[i].ws, h.rows[i].v[0], h.rows[i].v[1]};
    }
    qsort(got, h.n, sizeof *got, cmp_kwin);
    cr_assert_eq(h.n, m, "%zu result rows, want %zu", h.n, m);
    for (size_t i = 0; i < m; i++)
        cr_assert(!cmp_kwin(&got[i], &want[i]) && got[i].cnt == want[i].cnt && got[i].sum == want[i].sum,
                  "row %zu: key %lld [%lld) count %lld sum %lld, want key %lld [%lld) count %lld sum %lld", i,
                  (long long)got[i].key, (long long)got[i].ws, (long long)got[i].cnt, (long long)got[i].sum,
                  (long long)want[i].key, (long long)want[i].ws, (long long)want[i].cnt, (long long)want[i].sum);
    weir__wcore_stats st;
    weir__wcore_stats_get(h.core, &st);
    cr_assert_eq(st.nodes, 0);
    free(want);
    free(got);
    free(key);
    free(ts);
    free(v);
    free(kind);
    h_fini(&h);
}

Test(window_agg, changelog_input_rejected_without_retract)
{
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(10, 0));
    weir_agg aggs[1] = {{.cls = &tmax_cls, .input_col = 1}};
    aggs[0].result_type = weir_type_make(WEIR_TYPE_BIGINT, true);
    s.aggs = aggs;
    s.n_aggs = 1;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    cr_assert_eq(h_push_kind(&h, 1, 5, 3, WEIR_ROW_DELETE), WEIR_EUNSUPPORTED);
    h_fini(&h);
}

/* ---- persistence ---- */

typedef struct saved {
    uint8_t key[16][16];
    size_t klen[16];
    uint64_t hash[16];
    uint8_t *val[16];
    size_t vlen[16];
    int n;
    int removed;
} saved;

static int save_fn(void *ud, const uint8_t *key, size_t len, uint64_t hash, const void *val, size_t vlen,
                   bool removed)
{
    saved *s = ud;
    if (removed) {
        s->removed++;
        return 0;
    }
    memcpy(s->key[s->n], key, len);
    s->klen[s->n] = len;
    s->hash[s->n] = hash;
    s->val[s->n] = malloc(vlen);
    memcpy(s->val[s->n], val, vlen);
    s->vlen[s->n] = vlen;
    s->n++;
    return 0;
}

static void restore_case(weir_window_assigner a, weir_window_accumulation m, int64_t L)
{
    /* run A: uninterrupted; run B: snapshot after 6 records, restore into a new engine */
    const int64_t ev[][3] = {{1, 1, 1}, {2, 3, 2}, {1, 12, 4}, {1, 7, 8}, {2, 25, 16}, {1, 18, 32},
                             {1, 9, 64}, {2, 31, 128}, {1, 40, 256}, {2, 22, 512}, {1, 61, 1024}};
    const int n = sizeof ev / sizeof *ev;
    weir_window_spec s;
    spec_for(&s, a);
    s.accumulation = m;
    s.allowed_lateness_ms = L;
    harness ha, hb, hc;
    cr_assert_eq(h_init(&ha, &s, 5, 1024), 0);
    for (int i = 0; i < n; i++)
        cr_assert_eq(h_push(&ha, ev[i][0], ev[i][1], ev[i][2]), 0);
    cr_assert_eq(h_end(&ha), 0);

    cr_assert_eq(h_init(&hb, &s, 5, 1024), 0);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(h_push(&hb, ev[i][0], ev[i][1], ev[i][2]), 0);
    saved sv = {0};
    cr_assert_eq(weir__wcore_drain_changes(hb.core, save_fn, &sv), 0);
    cr_assert_eq(h_init(&hc, &s, 5, 1024), 0);
    for (int i = 0; i < sv.n; i++) {
        cr_assert_eq(weir__wcore_load_entry(hc.core, sv.key[i], sv.klen[i], sv.hash[i], sv.val[i], sv.vlen[i], 0), 0);
        free(sv.val[i]);
    }
    cr_assert_eq(weir__wcore_watermark(hc.core), hb.wm, "the watermark comes back with the state");
    hc.max_ts = hb.max_ts;
    hc.wm = hb.wm;
    for (int i = 6; i < n; i++)
        cr_assert_eq(h_push(&hc, ev[i][0], ev[i][1], ev[i][2]), 0);
    cr_assert_eq(h_end(&hc), 0);
    /* B's rows before the snapshot plus C's rows equal A's rows, in order */
    cr_assert_eq(hb.n + hc.n, ha.n, "kind %d mode %d: %zu + %zu != %zu", (int)a.kind, (int)m, hb.n, hc.n, ha.n);
    for (size_t i = 0; i < ha.n; i++) {
        const hrow *x = i < hb.n ? &hb.rows[i] : &hc.rows[i - hb.n];
        cr_assert(x->key == ha.rows[i].key && x->ws == ha.rows[i].ws && x->we == ha.rows[i].we &&
                      x->kind == ha.rows[i].kind && x->v[0] == ha.rows[i].v[0] && x->v[1] == ha.rows[i].v[1],
                  "row %zu differs after restore", i);
    }
    cr_assert_eq(hc.late_counter + hb.late_counter, ha.late_counter);
    h_fini(&ha);
    h_fini(&hb);
    h_fini(&hc);
}

Test(window_state, restore_equals_uninterrupted_run)
{
    weir_window_assigner as[] = {weir_window_tumbling(10, 0), weir_window_hopping(5, 20, 0),
                                 weir_window_cumulating(5, 20, 0), weir_window_session(6, 0)};
    for (size_t i = 0; i < 4; i++)
        for (int m = 0; m < 3; m++) {
            restore_case(as[i], (weir_window_accumulation)m, 0);
            restore_case(as[i], (weir_window_accumulation)m, 15);
        }
}

Test(window_state, released_when_purged)
{
    weir_window_spec s;
    spec_for(&s, weir_window_hopping(1000, 10000, 0));
    s.allowed_lateness_ms = 5000;
    harness h;
    cr_assert_eq(h_init(&h, &s, 100, 1024), 0);
    for (int64_t t = 0; t < 60000; t += 7)
        cr_assert_eq(h_push(&h, t % 13, t, 1), 0);
    weir__wcore_stats st;
    weir__wcore_stats_get(h.core, &st);
    /* per key: at most ~11 live slices plus ~6 fired windows within lateness */
    cr_assert_lt(st.nodes, 13 * 20, "nodes %llu", (unsigned long long)st.nodes);
    cr_assert_eq(h_end(&h), 0);
    weir__wcore_stats_get(h.core, &st);
    cr_assert_eq(st.nodes, 0);
    cr_assert_eq(st.keys, 0);
    h_fini(&h);
}

Test(window_state, idle_keys_are_swept_and_come_back)
{
    /* 40,000 keys, one record each per window: after a window fires they hold nothing */
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(100, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    weir_batch *b = weir_batch_create(h.in, 1000);
    weir__wcore_stats st;
    for (int w = 0; w < 4; w++) {
        for (int k0 = 0; k0 < 40000; k0 += 1000) {
            weir_batch_reset(b);
            for (int k = k0; k < k0 + 1000; k++) {
                int r = weir_batch_append_row(b);
                WEIR_COL_I64(b, 0)[r] = w == 3 ? k + 100000 : k; /* the last window: other keys */
                WEIR_COL_I64(b, 1)[r] = w;
                b->ts[r] = w * 100 + k % 100;
            }
            cr_assert_eq(weir__wcore_process(h.core, b, h.wm, 0), 0);
        }
        cr_assert_eq(h_watermark(&h, (w + 1) * 100), 0);
        weir__wcore_stats_get(h.core, &st);
        cr_assert_eq(st.keys, 0, "every key fired and holds nothing");
        if (w < 2)
            cr_assert_eq(st.entries, 40000, "a key idle for one sweep stays (second chance)");
    }
    /* keys idle across two sweeps went; the 40,000 of the last window are new */
    cr_assert_eq(st.entries, 40000, "the keys idle across two sweeps were dropped");
    cr_assert_eq(h.n, 160000);
    for (size_t i = 0; i < h.n; i++)
        cr_assert(h.rows[i].v[0] == 1 && h.rows[i].we - h.rows[i].ws == 100 && h.rows[i].v[1] * 100 == h.rows[i].ws);
    weir_batch_destroy(b);
    h_fini(&h);
}
