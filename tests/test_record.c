/* tests/test_record.c - schemas, batches, keys, buffers and time formatting. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "time/timefmt.h"
#include "util/bigmem.h"
#include "util/hindex.h"
#include "weir/batch.h"
#include "weir/buf.h"
#include "weir/key.h"

static weir_schema *make_schema(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "id", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s, "name", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "price", weir_type_make(WEIR_TYPE_DOUBLE, true));
    return s;
}

Test(batch, append_null_and_strings)
{
    weir_schema *s = make_schema();
    weir_batch *b = weir_batch_create(s, 4);
    cr_assert_not_null(b);
    for (int i = 0; i < 4; i++) {
        int r = weir_batch_append_row(b);
        cr_assert_eq(r, i);
        WEIR_COL_I64(b, 0)[r] = i * 10;
        char name[16];
        int n = snprintf(name, sizeof name, "n%d", i);
        cr_assert_eq(weir_batch_set_str(b, 1, r, name, (size_t)n), 0);
        if (i == 2)
            weir_batch_set_null(b, 2, r);
        else
            WEIR_COL_F64(b, 2)[r] = i + 0.5;
    }
    cr_assert(weir_batch_full(b));
    cr_assert_lt(weir_batch_append_row(b), 0);
    cr_assert(weir_batch_is_null(b, 2, 2));
    cr_assert_not(weir_batch_is_null(b, 2, 1));
    char buf[64];
    weir_batch_format_value(b, 1, 3, buf, sizeof buf);
    cr_assert_str_eq(buf, "n3");
    weir_batch_format_value(b, 2, 2, buf, sizeof buf);
    cr_assert_str_eq(buf, "NULL");

    /* gather into another batch re-homes strings and keeps NULLs */
    weir_batch *c = weir_batch_create(s, 8);
    uint32_t rows[] = {3, 2};
    cr_assert_eq(weir_batch_gather(c, b, rows, 2), 0);
    cr_assert_eq(c->n_rows, 2);
    weir_batch_format_value(c, 1, 0, buf, sizeof buf);
    cr_assert_str_eq(buf, "n3");
    cr_assert(weir_batch_is_null(c, 2, 1));
    cr_assert_eq(WEIR_COL_I64(c, 0)[1], 20);

    uint8_t sel[4] = {1, 0, 0, 1};
    weir_batch_filter_inplace(b, sel);
    cr_assert_eq(b->n_rows, 2);
    cr_assert_eq(WEIR_COL_I64(b, 0)[1], 30);

    /* reset keeps buffers and clears NULL state */
    weir_batch_reset(b);
    cr_assert_eq(b->n_rows, 0);
    cr_assert(b->cols[2].all_valid);
    weir_batch_destroy(b);
    weir_batch_destroy(c);
    weir_schema_destroy(s);
}

/* Appends to dst the same first row in two batches: column 2 NULL, so their
 * bitmaps are in use. */
static void prime_row(weir_batch *dst)
{
    int r = weir_batch_append_row(dst);
    cr_assert_eq(r, 0);
    weir_batch_set_null(dst, 2, 0);
}

Test(batch, copy_row_copies_as_gather_does)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "flag", weir_type_make(WEIR_TYPE_BOOLEAN, true));
    weir_schema_add(s, "n", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(s, "id", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "amount", weir_type_decimal(30, 2, true));
    weir_schema_add(s, "name", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "blob", weir_type_make(WEIR_TYPE_BYTES, false));
    uint32_t nf = s->n_fields;
    weir_batch *src = weir_batch_create(s, 6);
    for (uint32_t i = 0; i < 6; i++) {
        int r = weir_batch_append_row(src);
        WEIR_COL_BOOL(src, 0)[r] = (uint8_t)(i & 1);
        WEIR_COL_I32(src, 1)[r] = (int32_t)i - 3;
        WEIR_COL_I64(src, 2)[r] = (int64_t)i << 40;
        memset((char *)src->cols[3].data + (size_t)r * 16,
               (int)(0x11 * (i + 1)), 16);
        char name[16];
        int n = snprintf(name, sizeof name, "name-%u", i);
        cr_assert_eq(weir_batch_set_str(src, 4, (uint32_t)r, name, (size_t)n),
                     0);
        cr_assert_eq(weir_batch_set_str(src, 5, (uint32_t)r, name, i),
                     0); /* row 0: empty */
        src->ts[r] = 1000 + i;
        src->kind[r] = (uint8_t)(i % 4);
        if (i % 3 ==
            1) /* rows 1 and 4: NULLs in every nullable column, of each width */
            for (uint32_t c = 0; c < 5; c++)
                weir_batch_set_null(src, c, (uint32_t)r);
    }
    /* dst a row by row with copy_row, dst b with gather; each primed with a
     * NULL */
    weir_batch *a = weir_batch_create(s, 7), *b = weir_batch_create(s, 7);
    prime_row(a);
    prime_row(b);
    uint32_t rows[] = {5, 1, 0, 2, 4, 3};
    for (uint32_t i = 0; i < 6; i++)
        cr_assert_eq(weir_batch_copy_row(a, src, rows[i]), 0);
    cr_assert_eq(weir_batch_gather(b, src, rows, 6), 0);
    cr_assert_lt(weir_batch_copy_row(a, src, 0), 0,
                 "a full batch takes no row");
    cr_assert_eq(a->n_rows, 7);
    cr_assert_eq(b->n_rows, 7);
    for (uint32_t r = 0; r < 7; r++) {
        cr_assert_eq(a->ts[r], b->ts[r]);
        cr_assert_eq(a->kind[r], b->kind[r]);
        for (uint32_t c = 0; c < nf; c++) {
            cr_assert_eq(weir_batch_is_null(a, c, r),
                         weir_batch_is_null(b, c, r), "row %u column %u", r, c);
            if (weir_type_is_varlen(s->fields[c].type.id)) {
                uint32_t la, lb;
                const char *sa = weir_batch_str(a, c, r, &la),
                           *sb = weir_batch_str(b, c, r, &lb);
                cr_assert(la == lb && !memcmp(sa, sb, la), "row %u column %u",
                          r, c);
                continue;
            }
            size_t w = weir_type_size(s->fields[c].type);
            cr_assert_eq(memcmp((char *)a->cols[c].data + r * w,
                                (char *)b->cols[c].data + r * w, w),
                         0, "row %u column %u", r, c);
        }
    }
    cr_assert_eq(WEIR_COL_I64(a, 2)[1], (int64_t)5 << 40);
    cr_assert(weir_batch_is_null(a, 3, 2));
    weir_batch_destroy(src);
    weir_batch_destroy(a);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* copy_value between columns of another place: a schema of the same columns in reverse order */
Test(batch, copy_value_copies_into_another_column)
{
    weir_schema *s = weir_schema_create(), *rs = weir_schema_create();
    weir_type t[] = {weir_type_make(WEIR_TYPE_BOOLEAN, true), weir_type_make(WEIR_TYPE_INT, true),
                     weir_type_make(WEIR_TYPE_BIGINT, true), weir_type_decimal(30, 2, true),
                     weir_type_make(WEIR_TYPE_STRING, true), weir_type_make(WEIR_TYPE_BYTES, false)};
    const char *names[] = {"flag", "n", "id", "amount", "name", "blob"};
    uint32_t nf = 6;
    for (uint32_t c = 0; c < nf; c++)
        weir_schema_add(s, names[c], t[c]);
    for (uint32_t c = 0; c < nf; c++)
        weir_schema_add(rs, names[nf - 1 - c], t[nf - 1 - c]);
    weir_batch *src = weir_batch_create(s, 2), *dst = weir_batch_create(rs, 3);
    for (uint32_t i = 0; i < 2; i++) {
        int r = weir_batch_append_row(src);
        WEIR_COL_BOOL(src, 0)[r] = 1;
        WEIR_COL_I32(src, 1)[r] = -7;
        WEIR_COL_I64(src, 2)[r] = (int64_t)1 << 50;
        memset((char *)src->cols[3].data + (size_t)r * 16, 0x5a, 16);
        cr_assert_eq(weir_batch_set_str(src, 4, (uint32_t)r, "channel", 7), 0);
        cr_assert_eq(weir_batch_set_str(src, 5, (uint32_t)r, "xy", 2), 0);
        if (i == 1)
            for (uint32_t c = 0; c < 5; c++)
                weir_batch_set_null(src, c, (uint32_t)r);
    }
    prime_row(dst); /* a NULL in its bitmap: copies into rows after it set their bits */
    for (uint32_t i = 0; i < 2; i++) {
        int r = weir_batch_append_row_to_fill(dst);
        for (uint32_t c = 0; c < nf; c++)
            cr_assert_eq(weir_batch_copy_value(dst, (uint32_t)r, nf - 1 - c, src, i, c), 0);
    }
    for (uint32_t i = 0; i < 2; i++) {
        uint32_t r = i + 1;
        for (uint32_t c = 0; c < nf; c++) {
            uint32_t dc = nf - 1 - c;
            cr_assert_eq(weir_batch_is_null(dst, dc, r), weir_batch_is_null(src, c, i), "row %u column %u", i, c);
            if (weir_batch_is_null(src, c, i))
                continue;
            if (weir_type_is_varlen(t[c].id)) {
                uint32_t la, lb;
                const char *sa = weir_batch_str(dst, dc, r, &la), *sb = weir_batch_str(src, c, i, &lb);
                cr_assert(la == lb && !memcmp(sa, sb, la), "row %u column %u", i, c);
                continue;
            }
            size_t w = weir_type_size(t[c]);
            cr_assert_eq(memcmp((char *)dst->cols[dc].data + r * w, (char *)src->cols[c].data + i * w, w), 0,
                         "row %u column %u", i, c);
        }
    }
    weir_batch_destroy(src);
    weir_batch_destroy(dst);
    weir_schema_destroy(s);
    weir_schema_destroy(rs);
}

Test(key, encoding_is_canonical_and_groups_are_ranges)
{
    weir_schema *s = make_schema();
    weir_batch *a = weir_batch_create(s, 4), *b = weir_batch_create(s, 4);
    weir_batch_append_row(a);
    weir_batch_append_row(b);
    weir_batch_append_row(b);
    weir_batch_set_str(a, 1, 0, "alice", 5);
    weir_batch_set_str(b, 1, 0, "zzzzzz", 6);
    weir_batch_set_str(b, 1, 1, "alice", 5);
    weir_keyspec ks = {.n = 1, .cols = {1}};
    uint8_t k1[64], k2[64];
    size_t n1 = weir_key_encode(a, &ks, 0, k1, sizeof k1);
    size_t n2 = weir_key_encode(b, &ks, 1, k2, sizeof k2);
    cr_assert_eq(n1, n2);
    cr_assert_eq(memcmp(k1, k2, n1), 0);
    cr_assert_eq(weir_key_hash(k1, n1), weir_key_hash(k2, n2));

    /* every key group has exactly one owner, consistent with the ranges */
    for (uint32_t p = 1; p <= 7; p++) {
        uint32_t covered = 0;
        for (uint32_t i = 0; i < p; i++) {
            uint32_t lo, hi;
            weir_key_group_range(i, p, 128, &lo, &hi);
            cr_assert_eq(lo, covered);
            for (uint32_t kg = lo; kg < hi; kg++)
                cr_assert_eq(weir_key_group_owner(kg, 128, p), i, "kg %u p %u", kg, p);
            covered = hi;
        }
        cr_assert_eq(covered, 128);
    }
    weir_batch_destroy(a);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* The longest run of occupied slots in an open-addressing index. */
static uint32_t longest_run(const uint32_t *slots, uint32_t n)
{
    uint32_t best = 0, run = 0;
    for (uint32_t pass = 0; pass < 2; pass++) /* twice round: a run may wrap */
        for (uint32_t i = 0; i < n; i++) {
            run = slots[i] ? run + 1 : 0;
            if (run > best)
                best = run;
        }
    return best < n ? best : n;
}

/*
 * The keys a subtask owns share the low bits of their hashes (the key group
 * is the hash modulo max parallelism, and a subtask owns a range of key
 * groups), so an index of a keyed operator must not take its slots from
 * those bits: with them, the keys of subtask 0 of 4 have only a quarter of
 * the home slots and linear probing runs through long clusters (the
 * longest run of occupied slots: 81 at parallelism 2 and 89 at 4 here;
 * 25 and 29 when the slots spread over the whole table).
 */
Test(key, index_of_one_subtasks_keys_spreads)
{
    for (uint32_t p = 2; p <= 4; p += 2) {
        uint32_t lo, hi;
        weir_key_group_range(0, p, WEIR_DEFAULT_MAX_PARALLELISM, &lo, &hi);
        uint64_t ents[4096];
        uint32_t n = 0;
        for (int64_t v = 0; n < 4096; v++) {
            uint8_t k[9] = {1};
            memcpy(k + 1, &v, 8);
            uint64_t h = weir_key_hash(k, sizeof k);
            uint32_t kg = weir_key_group(h, WEIR_DEFAULT_MAX_PARALLELISM);
            if (kg >= lo && kg < hi)
                ents[n++] = h;
        }
        /* one grow from n to 2n slots: half full, as its users keep it */
        uint32_t *slots = NULL, n_slots = n;
        cr_assert_eq(weir__hindex_grow(&slots, &n_slots, ents, sizeof *ents, n), 0);
        cr_assert_eq(n_slots, 2 * n);
        uint32_t run = longest_run(slots, n_slots);
        cr_assert_lt(run, 48, "p %u: a run of %u occupied slots", p, run);
        weir_free(slots);
    }
}

Test(buf, roundtrip_and_truncation)
{
    weir_buf b;
    weir_buf_init(&b);
    weir_buf_put_u32(&b, 0xdeadbeef);
    weir_buf_put_varint(&b, 300);
    weir_buf_put_str(&b, "hello");
    weir_buf_put_str(&b, NULL);
    weir_buf_put_i64(&b, -5);
    weir_cursor c;
    weir_cursor_init(&c, b.data, b.len);
    uint32_t u;
    uint64_t v;
    char *s;
    int64_t i;
    cr_assert_eq(weir_cursor_get_u32(&c, &u), 0);
    cr_assert_eq(u, 0xdeadbeef);
    cr_assert_eq(weir_cursor_get_varint(&c, &v), 0);
    cr_assert_eq(v, 300);
    cr_assert_eq(weir_cursor_get_str(&c, &s), 0);
    cr_assert_str_eq(s, "hello");
    weir_free(s);
    cr_assert_eq(weir_cursor_get_str(&c, &s), 0);
    cr_assert_null(s);
    cr_assert_eq(weir_cursor_get_i64(&c, &i), 0);
    cr_assert_eq(i, -5);
    cr_assert_eq(weir_cursor_get_u8(&c, (uint8_t *)&u), WEIR_ECORRUPT);
    /* a truncated string is detected */
    weir_cursor_init(&c, b.data, 8);
    cr_assert_eq(weir_cursor_get_u32(&c, &u), 0);
    cr_assert_eq(weir_cursor_get_varint(&c, &v), 0);
    cr_assert_eq(weir_cursor_get_str(&c, &s), WEIR_ECORRUPT);
    cr_assert_eq(weir_crc32c(0, "123456789", 9), 0xE3069283u);
    weir_buf_fini(&b);
}

/* Varints: the longest (ten bytes) reads back; more bytes, bits past 64 in
 * the tenth, or a cut one are refused. */
Test(buf, varint_bounds)
{
    weir_buf b = {0};
    weir_buf_put_varint(&b, UINT64_MAX);
    cr_assert_eq(b.len, 10);
    weir_cursor c;
    uint64_t v = 0;
    weir_cursor_init(&c, b.data, b.len);
    cr_assert_eq(weir_cursor_get_varint(&c, &v), 0);
    cr_assert_eq(v, UINT64_MAX);
    weir_cursor_init(&c, b.data, b.len - 1);
    cr_assert_eq(weir_cursor_get_varint(&c, &v), WEIR_ECORRUPT, "a cut varint read");
    b.data[9] = 0x02; /* bit 64 */
    weir_cursor_init(&c, b.data, b.len);
    cr_assert_eq(weir_cursor_get_varint(&c, &v), WEIR_ECORRUPT, "a varint past 64 bits read");
    const uint8_t eleven[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00};
    weir_cursor_init(&c, eleven, sizeof eleven);
    cr_assert_eq(weir_cursor_get_varint(&c, &v), WEIR_ECORRUPT, "a varint of eleven bytes read");
    weir_buf_fini(&b);
}

Test(timefmt, format_and_parse)
{
    char buf[32];
    weir__format_ts(0, buf, sizeof buf);
    cr_assert_str_eq(buf, "1970-01-01 00:00:00.000");
    weir__format_ts(-1, buf, sizeof buf);
    cr_assert_str_eq(buf, "1969-12-31 23:59:59.999");
    weir__format_ts(1700000000123, buf, sizeof buf);
    cr_assert_str_eq(buf, "2023-11-14 22:13:20.123");
    int64_t ms;
    cr_assert_eq(weir__parse_ts("2023-11-14 22:13:20.123", 23, &ms, NULL), 0);
    cr_assert_eq(ms, 1700000000123);
    cr_assert_eq(weir__parse_ts("2024-02-29T00:00:00Z", 20, &ms, NULL), 0);
    size_t bad;
    cr_assert_eq(weir__parse_ts("2023-02-29 00:00:00", 19, &ms, &bad), WEIR_EPARSE);
    cr_assert_eq(weir__parse_ts("2023-01-01 0x:00:00", 19, &ms, &bad), WEIR_EPARSE);
    cr_assert_eq(bad, 12);
}

Test(alloc, injected_failure)
{
    weir_alloc_fail_after(2);
    void *a = weir_malloc(8);
    void *b = weir_malloc(8);
    void *c = weir_malloc(8);
    cr_assert_not_null(a);
    cr_assert_null(b);
    cr_assert_not_null(c);
    weir_free(a);
    weir_free(c);
}

/* util/bigmem.h: blocks small and large are aligned, writable to their last byte and freed by their own call. */
Test(bigmem, aligned_blocks_of_every_size)
{
    static const size_t sizes[] = {1, 64, 4096, 100000, ((size_t)2 << 20) - 1, (size_t)2 << 20, ((size_t)5 << 20) + 3};
    static const size_t aligns[] = {1, 8, 64, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        for (size_t j = 0; j < sizeof aligns / sizeof *aligns; j++) {
            uint8_t *p = weir__bigmem_alloc(sizes[i], aligns[j]);
            cr_assert_not_null(p);
            size_t want = sizes[i] >= ((size_t)2 << 20) ? (size_t)2 << 20 : aligns[j] < 8 ? 8 : aligns[j];
            cr_assert_eq((uintptr_t)p % want, 0, "size %zu align %zu: %p", sizes[i], aligns[j], (void *)p);
            memset(p, 0xab, sizes[i]);
            cr_assert_eq(p[sizes[i] - 1], 0xab);
            weir__bigmem_free(p);
        }
        uint8_t *z = weir__bigmem_calloc(sizes[i], 64);
        cr_assert_not_null(z);
        size_t nz = 0;
        for (size_t k = 0; k < sizes[i]; k++)
            nz += z[k] != 0;
        cr_assert_eq(nz, 0);
        weir__bigmem_free(z);
    }
    weir__bigmem_free(NULL);
    /* the injectable allocator's failure reaches the caller */
    weir_alloc_fail_after(1);
    cr_assert_null(weir__bigmem_alloc((size_t)3 << 20, 64));
    weir_alloc_fail_after(0);
}
