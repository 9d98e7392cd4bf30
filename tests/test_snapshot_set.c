/*
 * tests/test_snapshot_set.c - a set of subtask snapshots as a restore
 * source (runtime/checkpoint.h): key groups a snapshot does not list read
 * as empty, and looking up every key group of 32768 costs O(log n) each.
 *
 * The snapshots are written here byte by byte from the format in
 * runtime/checkpoint.h; keyed state and timers are opaque to the set, so
 * any bytes stand for them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "runtime/checkpoint.h"
#include "weir/key.h"

#define MAX_PAR 32768u

/* A version 1 snapshot of subtask `subtask` of `par`, one operator (node
 * 1, "op") listing key groups lo, lo + step, ... below hi, each with keyed
 * state "s<kg>" and timers "t". */
static void snapshot(weir_buf *b, uint32_t subtask, uint32_t par, uint32_t lo,
                     uint32_t hi, uint32_t step)
{
    weir_buf_init(b);
    uint32_t n = 0;
    for (uint32_t kg = lo; kg < hi; kg += step)
        n++;
    cr_assert_eq(weir_buf_put_u32(b, WEIR__SNAPSHOT_MAGIC), 0);
    cr_assert_eq(weir_buf_put_u8(b, 1), 0);
    cr_assert_eq(weir_buf_put_varint(b, 0), 0); /* task */
    cr_assert_eq(weir_buf_put_varint(b, subtask), 0);
    cr_assert_eq(weir_buf_put_varint(b, par), 0);
    cr_assert_eq(weir_buf_put_varint(b, 1), 0); /* one operator */
    cr_assert_eq(weir_buf_put_varint(b, 1), 0); /* its node */
    cr_assert_eq(weir_buf_put_str(b, "op"), 0);
    cr_assert_eq(weir_buf_put_bytes(b, "", 0), 0); /* no operator state */
    cr_assert_eq(weir_buf_put_varint(b, n), 0);
    for (uint32_t kg = lo; kg < hi; kg += step) {
        char st[16];
        int len = snprintf(st, sizeof st, "s%u", kg);
        cr_assert_eq(weir_buf_put_u32(b, kg), 0);
        cr_assert_eq(weir_buf_put_bytes(b, st, (size_t)len), 0);
        cr_assert_eq(weir_buf_put_bytes(b, "t", 1), 0);
    }
    cr_assert_eq(weir_buf_put_u8(b, 0), 0); /* no source */
}

static weir__snapshot_set *set_of(uint32_t par, uint32_t step)
{
    weir__snapshot_set *s;
    cr_assert_eq(weir__snapshot_set_create(&s), 0);
    for (uint32_t i = 0; i < par; i++) {
        uint32_t lo, hi;
        weir_key_group_range(i, par, MAX_PAR, &lo, &hi);
        weir_buf b;
        snapshot(&b, i, par, lo, hi, step);
        cr_assert_eq(weir__snapshot_set_add(s, b.data, b.len), 0);
        weir_buf_fini(&b);
    }
    return s;
}

/* Asks for key group kg of the operator; whether it was listed (its bytes
 * are then checked). */
static bool ask(weir__restore_source *rs, uint32_t kg)
{
    weir_buf st, tm;
    weir_buf_init(&st);
    weir_buf_init(&tm);
    cr_assert_eq(rs->kg_state(rs->ud, 1, "op", kg, &st, &tm), 0);
    bool listed = st.len > 0;
    if (listed) {
        char want[16];
        int len = snprintf(want, sizeof want, "s%u", kg);
        cr_assert_eq(st.len, (size_t)len);
        cr_assert(memcmp(st.data, want, st.len) == 0, "key group %u", kg);
        cr_assert_eq(tm.len, 1);
    } else {
        cr_assert_eq(tm.len, 0, "an unlisted key group has no timers");
    }
    weir_buf_fini(&st);
    weir_buf_fini(&tm);
    return listed;
}

Test(snapshot_set, unlisted_key_groups_read_empty)
{
    /* Two subtasks, every 7th key group listed: the rest are empty. */
    weir__snapshot_set *s = set_of(2, 7);
    weir__restore_source rs = weir__snapshot_set_source(s);
    for (uint32_t kg = 0; kg < MAX_PAR; kg += 5) {
        uint32_t lo, hi;
        weir_key_group_range(kg < MAX_PAR / 2 ? 0 : 1, 2, MAX_PAR, &lo, &hi);
        cr_assert_eq(ask(&rs, kg), (kg - lo) % 7 == 0, "key group %u", kg);
    }
    weir__snapshot_set_destroy(s);
}

Test(snapshot_set, every_key_group_looked_up_in_log_n)
{
    /* A restore at 32768 key groups: every one listed and asked for. A
     * scan per lookup compares ~n/2 entries each (5e8 in all); a binary
     * search at most ceil(log2(n + 1)) = 16. */
    weir__snapshot_set *s = set_of(3, 1);
    weir__restore_source rs = weir__snapshot_set_source(s);
    for (uint32_t kg = 0; kg < MAX_PAR; kg++)
        cr_assert(ask(&rs, kg), "key group %u", kg);
    uint64_t probes = weir__snapshot_set_kg_probes(s);
    cr_assert_leq(probes, (uint64_t)MAX_PAR * 16,
                  "%llu entries compared for %u lookups",
                  (unsigned long long)probes, MAX_PAR);
    cr_assert_gt(probes, 0);
    weir__snapshot_set_destroy(s);
}
