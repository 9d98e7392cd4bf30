/*
 * tests/test_timers.c - the timer service (dedup, firing order, deletion,
 * snapshots per key group) and the watermark building blocks (per-split
 * generator, the min-merging valve with idleness).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/timer_service.h"
#include "time/watermark.h"
#include "weir/key.h"

typedef struct fired {
    weir_timer t[64];
    char key[64][16];
    int n;
} fired;

static int record(void *ud, const weir_timer *t)
{
    fired *f = ud;
    f->t[f->n] = *t;
    memcpy(f->key[f->n], t->key, t->key_len);
    f->key[f->n][t->key_len] = 0;
    f->t[f->n].key = NULL;
    f->n++;
    return 0;
}

Test(timers, deduplicated_by_domain_key_ns_and_ts)
{
    weir__timers *ts;
    cr_assert_eq(weir__timers_create(&ts), 0);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(
            weir__timers_register(ts, WEIR_TIME_EVENT, 10, 0, "a", 1, 5), 0);
    cr_assert_eq(weir__timers_count(ts), 1);
    cr_assert_eq(weir__timers_register(ts, WEIR_TIME_EVENT, 10, 1, "a", 1, 5),
                 0); /* other ns */
    cr_assert_eq(weir__timers_register(ts, WEIR_TIME_EVENT, 10, 0, "b", 1, 7),
                 0); /* other key */
    cr_assert_eq(weir__timers_register(ts, WEIR_TIME_EVENT, 11, 0, "a", 1, 5),
                 0); /* other ts */
    cr_assert_eq(
        weir__timers_register(ts, WEIR_TIME_PROCESSING, 10, 0, "a", 1, 5),
        0); /* other domain */
    cr_assert_eq(weir__timers_count(ts), 5);
    fired f = {0};
    cr_assert_eq(weir__timers_advance(ts, WEIR_TIME_EVENT, 10, record, &f), 0);
    cr_assert_eq(f.n, 3, "three distinct event timers at 10");
    cr_assert_eq(weir__timers_next(ts, WEIR_TIME_EVENT), 11);
    cr_assert_eq(weir__timers_next(ts, WEIR_TIME_PROCESSING), 10);
    weir__timers_destroy(ts);
}

Test(timers, fire_in_ts_keygroup_key_ns_order_whatever_the_registration_order)
{
    weir__timers *ts;
    cr_assert_eq(weir__timers_create(&ts), 0);
    /* Registered in a scrambled order. */
    weir__timers_register(ts, WEIR_TIME_EVENT, 20, 0, "a", 1, 1);
    weir__timers_register(ts, WEIR_TIME_EVENT, 10, 2, "b", 1, 3);
    weir__timers_register(ts, WEIR_TIME_EVENT, 10, 1, "b", 1, 3);
    weir__timers_register(ts, WEIR_TIME_EVENT, 10, 0, "c", 1, 2);
    weir__timers_register(ts, WEIR_TIME_EVENT, 10, 0, "a", 1, 3);
    fired f = {0};
    cr_assert_eq(weir__timers_advance(ts, WEIR_TIME_EVENT, 100, record, &f), 0);
    cr_assert_eq(f.n, 5);
    const char *keys[] = {"c", "a", "b", "b", "a"};
    int64_t tss[] = {10, 10, 10, 10, 20}, nss[] = {0, 0, 1, 2, 0};
    for (int i = 0; i < 5; i++) {
        cr_assert_str_eq(f.key[i], keys[i], "position %d", i);
        cr_assert_eq(f.t[i].ts, tss[i]);
        cr_assert_eq(f.t[i].ns, nss[i]);
    }
    cr_assert_eq(weir__timers_count(ts), 0);
    weir__timers_destroy(ts);
}

Test(timers, delete_and_advance_limits)
{
    weir__timers *ts;
    cr_assert_eq(weir__timers_create(&ts), 0);
    for (int i = 0; i < 50; i++)
        weir__timers_register(ts, WEIR_TIME_EVENT, i, 0, "k", 1, 0);
    for (int i = 0; i < 50; i += 2)
        cr_assert_eq(weir__timers_delete(ts, WEIR_TIME_EVENT, i, 0, "k", 1, 0),
                     0);
    cr_assert_eq(weir__timers_delete(ts, WEIR_TIME_EVENT, 1000, 0, "k", 1, 0),
                 0, "absent: no error");
    cr_assert_eq(weir__timers_count(ts), 25);
    fired f = {0};
    cr_assert_eq(weir__timers_advance(ts, WEIR_TIME_EVENT, 20, record, &f), 0);
    cr_assert_eq(f.n, 10); /* 1, 3, ..., 19 */
    for (int i = 0; i < f.n; i++)
        cr_assert_eq(f.t[i].ts, 2 * i + 1);
    cr_assert_eq(weir__timers_next(ts, WEIR_TIME_EVENT), 21);
    weir__timers_destroy(ts);
}

typedef struct chain_ctx {
    weir__timers *ts;
    int n;
} chain_ctx;

static int register_more(void *ud, const weir_timer *t)
{
    chain_ctx *c = ud;
    c->n++;
    if (t->ts < 5)
        weir__timers_register(c->ts, WEIR_TIME_EVENT, t->ts + 1, 0, "x", 1, 0);
    return 0;
}

Test(timers, timers_registered_while_firing_fire_in_the_same_advance)
{
    chain_ctx c = {0};
    cr_assert_eq(weir__timers_create(&c.ts), 0);
    weir__timers_register(c.ts, WEIR_TIME_EVENT, 0, 0, "x", 1, 0);
    cr_assert_eq(
        weir__timers_advance(c.ts, WEIR_TIME_EVENT, 3, register_more, &c), 0);
    cr_assert_eq(c.n, 4); /* 0, 1, 2, 3; the one at 4 waits */
    cr_assert_eq(weir__timers_next(c.ts, WEIR_TIME_EVENT), 4);
    weir__timers_destroy(c.ts);
}

Test(timers, snapshot_and_restore_per_key_group)
{
    weir__timers *a, *b;
    cr_assert_eq(weir__timers_create(&a), 0);
    cr_assert_eq(weir__timers_create(&b), 0);
    srand(7);
    for (int i = 0; i < 500; i++) {
        char key[8];
        int k = rand() % 40;
        snprintf(key, sizeof key, "k%d", k);
        uint32_t kg = weir_key_group(weir_key_hash(key, strlen(key)), 128);
        weir__timers_register(
            a, rand() % 2 ? WEIR_TIME_EVENT : WEIR_TIME_PROCESSING,
            rand() % 100, rand() % 3, key, strlen(key), kg);
    }
    weir_buf buf;
    weir_buf_init(&buf);
    for (uint32_t kg = 0; kg < 128; kg++) {
        weir_buf_clear(&buf);
        cr_assert_eq(weir__timers_snapshot_kg(a, kg, &buf), 0);
        weir_cursor c;
        weir_cursor_init(&c, buf.data, buf.len);
        cr_assert_eq(weir__timers_restore_kg(b, kg, &c), 0);
        cr_assert_eq(weir_cursor_left(&c), 0);
    }
    cr_assert_eq(weir__timers_count(a), weir__timers_count(b));
    /* Same content, same canonical bytes. */
    for (uint32_t kg = 0; kg < 128; kg++) {
        weir_buf x, y;
        weir_buf_init(&x);
        weir_buf_init(&y);
        weir__timers_snapshot_kg(a, kg, &x);
        weir__timers_snapshot_kg(b, kg, &y);
        cr_assert_eq(x.len, y.len);
        cr_assert(x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
        weir_buf_fini(&x);
        weir_buf_fini(&y);
    }
    /* A truncated snapshot is rejected. */
    weir_buf_clear(&buf);
    uint32_t kg_full = 0;
    for (uint32_t kg = 0; kg < 128 && buf.len < 10; kg++) {
        weir_buf_clear(&buf);
        weir__timers_snapshot_kg(a, kg, &buf);
        kg_full = kg;
    }
    weir_cursor c;
    weir_cursor_init(&c, buf.data, buf.len - 1);
    weir__timers *d;
    weir__timers_create(&d);
    cr_assert_eq(weir__timers_restore_kg(d, kg_full, &c), WEIR_ECORRUPT);
    weir__timers_destroy(d);
    weir_buf_fini(&buf);
    weir__timers_destroy(a);
    weir__timers_destroy(b);
}

/* ---- watermark generator and valve ---- */

Test(watermark, bounded_out_of_orderness_generator)
{
    weir_watermark_spec spec = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 5};
    weir__wm_gen g;
    weir__wm_gen_init(&g, &spec);
    cr_assert_eq(weir__wm_gen_current(&g), WEIR_TS_MIN);
    weir__wm_gen_observe(&g, 100);
    cr_assert_eq(weir__wm_gen_current(&g), 95);
    weir__wm_gen_observe(&g, 50); /* out of order: never backwards */
    cr_assert_eq(weir__wm_gen_current(&g), 95);
    cr_assert_eq(weir__wm_gen_after(&g, 110), 105);
    weir__wm_gen_observe(&g, WEIR_TS_MIN + 2); /* no overflow near the bottom */
    cr_assert_eq(weir__wm_gen_current(&g), 95);
    spec.kind = WEIR_WATERMARK_NONE;
    weir__wm_gen_init(&g, &spec);
    weir__wm_gen_observe(&g, 100);
    cr_assert_eq(weir__wm_gen_current(&g), WEIR_TS_MIN);
}

Test(watermark, valve_min_over_active_inputs_never_backwards)
{
    weir__wm_valve v;
    cr_assert_eq(weir__wm_valve_init(&v, 3), 0);
    cr_assert_eq(weir__wm_valve_watermark(&v, 0, 10), 0);
    cr_assert_eq(weir__wm_valve_watermark(&v, 1, 20), 0);
    cr_assert_eq(weir__wm_valve_watermark(&v, 2, 5), WEIR__WM_ADVANCED);
    cr_assert_eq(v.out, 5);
    /* Input 2 idle: the minimum over 0 and 1 is 10. */
    cr_assert_eq(weir__wm_valve_set_idle(&v, 2, true), WEIR__WM_ADVANCED);
    cr_assert_eq(v.out, 10);
    /* Input 2 back at 5: it holds, the output does not go back. */
    cr_assert_eq(weir__wm_valve_set_idle(&v, 2, false), 0);
    cr_assert_eq(v.out, 10);
    cr_assert_eq(weir__wm_valve_watermark(&v, 0, 30), 0,
                 "input 2 at 5 still holds");
    cr_assert_eq(weir__wm_valve_watermark(&v, 2, 25), WEIR__WM_ADVANCED);
    cr_assert_eq(v.out, 20);
    /* All idle: the valve is idle; one back makes it active. */
    weir__wm_valve_set_idle(&v, 0, true);
    weir__wm_valve_set_idle(&v, 1, true);
    cr_assert(weir__wm_valve_set_idle(&v, 2, true) & WEIR__WM_BECAME_IDLE);
    cr_assert(v.idle);
    cr_assert(weir__wm_valve_set_idle(&v, 1, false) & WEIR__WM_BECAME_ACTIVE);
    /* Ended inputs do not count; all ended is not idleness. */
    weir__wm_valve_end(&v, 0);
    weir__wm_valve_end(&v, 2);
    cr_assert_eq(weir__wm_valve_min_excluding(&v, UINT32_MAX), 20);
    weir__wm_valve_end(&v, 1);
    cr_assert(weir__wm_valve_all_ended(&v));
    cr_assert_not(v.idle);
    weir__wm_valve_fini(&v);
    /*
     * An idle valve whose inputs end stays idle: announcing ACTIVE at the
     * end made downstream hold its watermark at this channel's (never sent)
     * one until the final watermark followed, so a record of another
     * channel arriving in between was late or not by thread timing.
     */
    cr_assert_eq(weir__wm_valve_init(&v, 2), 0);
    cr_assert(weir__wm_valve_set_idle(&v, 0, true) == 0);
    cr_assert(weir__wm_valve_set_idle(&v, 1, true) & WEIR__WM_BECAME_IDLE);
    cr_assert_eq(weir__wm_valve_watermark(&v, 1, WEIR_TS_MAX), 0, "a final watermark of an idle input moves nothing");
    cr_assert_eq(weir__wm_valve_end(&v, 0), 0);
    cr_assert_eq(weir__wm_valve_end(&v, 1), 0, "ending while idle changes no status");
    cr_assert(v.idle);
    weir__wm_valve_fini(&v);
    /* No inputs at all: idle (a source subtask without splits). */
    cr_assert_eq(weir__wm_valve_init(&v, 0), 0);
    cr_assert(v.idle);
    weir__wm_valve_add(&v);
    cr_assert(weir__wm_valve_refresh(&v) & WEIR__WM_BECAME_ACTIVE);
    weir__wm_valve_fini(&v);
}

Test(watermark, valve_all_idle_moves_to_the_maximum)
{
    weir__wm_valve v;
    cr_assert_eq(weir__wm_valve_init(&v, 3), 0);
    weir__wm_valve_watermark(&v, 0, 10);
    weir__wm_valve_watermark(&v, 1, 40);
    weir__wm_valve_watermark(&v, 2, 25);
    cr_assert_eq(v.out, 10);
    cr_assert_eq(weir__wm_valve_set_idle(&v, 1, true), 0);
    cr_assert_eq(weir__wm_valve_set_idle(&v, 2, true), 0);
    cr_assert_eq(v.out, 10, "input 0 still holds the minimum");
    /* The last open input goes idle: the output jumps to the maximum. */
    cr_assert_eq(weir__wm_valve_set_idle(&v, 0, true),
                 WEIR__WM_ADVANCED | WEIR__WM_BECAME_IDLE);
    cr_assert_eq(v.out, 40);
    cr_assert(v.idle);
    /* A watermark sent while idle (a final one) moves nothing now. */
    cr_assert_eq(weir__wm_valve_watermark(&v, 1, WEIR_TS_MAX), 0);
    cr_assert_eq(v.out, 40);
    /* Input 0 comes back behind the output: the output does not go back. */
    cr_assert_eq(weir__wm_valve_set_idle(&v, 0, false),
                 WEIR__WM_BECAME_ACTIVE);
    cr_assert_eq(v.out, 40);
    cr_assert_eq(weir__wm_valve_watermark(&v, 0, 30), 0);
    cr_assert_eq(v.out, 40);
    cr_assert_eq(weir__wm_valve_watermark(&v, 0, 50), WEIR__WM_ADVANCED);
    cr_assert_eq(v.out, 50);
    /* Idle again: the maximum (50; input 1 counts with the 40 it had when it
     * went idle, not its later WEIR_TS_MAX) is not above the output. */
    cr_assert_eq(weir__wm_valve_set_idle(&v, 0, true), WEIR__WM_BECAME_IDLE);
    cr_assert_eq(v.out, 50);
    /* Ended inputs take no part: ending input 0 moves nothing. */
    cr_assert_eq(weir__wm_valve_end(&v, 0), 0);
    cr_assert_eq(v.out, 50);
    weir__wm_valve_fini(&v);

    /* With an ended input and the rest idle, the idle ones decide. */
    cr_assert_eq(weir__wm_valve_init(&v, 2), 0);
    weir__wm_valve_watermark(&v, 0, 70);
    weir__wm_valve_watermark(&v, 1, 60);
    cr_assert_eq(v.out, 60);
    weir__wm_valve_watermark(&v, 0, WEIR_TS_MAX);
    weir__wm_valve_end(&v, 0);
    cr_assert_eq(v.out, 60);
    weir__wm_valve_watermark(&v, 1, 65);
    cr_assert_eq(v.out, 65);
    cr_assert_eq(weir__wm_valve_set_idle(&v, 1, true), WEIR__WM_BECAME_IDLE);
    cr_assert_eq(v.out, 65);
    weir__wm_valve_fini(&v);
}
