/*
 * fuzz/fuzz_ckpt.c - libFuzzer target for the checkpoint reader: the bytes
 * weir parses when it restores or inspects a checkpoint, which a torn write,
 * a bad disk or a hand-edited folder can make anything at all.
 *
 * The first byte picks the reader (low two bits) and whether to repair the
 * checksum first (bit 7), so that mutations reach the parser behind a
 * CRC instead of stopping at it:
 *   0: _metadata (weir__ckpt_meta_decode);
 *   1: a subtask state file, "WSNP" (weir__snap_view_decode for weir
 *      inspect, weir__snapshot_set_add for a restore);
 *   2: one key group's keyed state, "WSKG" (weir__backend_restore_kg into a
 *      memory backend);
 *   3: all three readers, each on the whole input.
 *
 * Properties checked on every input: no crash, no leak, no read out of
 * bounds, only the documented error codes; a _metadata that decodes encodes
 * to bytes that decode to the same content; a key group that restores
 * snapshots to canonical bytes that restore again and snapshot to the same
 * bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/format.h"
#include "runtime/checkpoint.h"
#include "state/backend.h"

#ifndef WEIR_FUZZ_ENTRY
#define WEIR_FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

#define CKPT_CHECK(cond)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__,     \
                    __LINE__, #cond);                                          \
            abort();                                                           \
        }                                                                      \
    } while (0)

#define CKPT_MAX_PAR 128u
#define WSKG_HEADER (4 + 1 + 4 + 4 + 8)

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static bool is_decode_error(int rc)
{
    return rc == WEIR_ECORRUPT || rc == WEIR_EUNSUPPORTED ||
           rc == WEIR_EPARSE || rc == WEIR_EINVAL;
}

static bool same_meta(const weir__ckpt_meta *a, const weir__ckpt_meta *b)
{
    if (a->id != b->id || a->time_ms != b->time_ms ||
        a->duration_ms != b->duration_ms ||
        a->is_savepoint != b->is_savepoint || a->is_final != b->is_final ||
        a->max_parallelism != b->max_parallelism || a->n_files != b->n_files ||
        a->n_shared != b->n_shared)
        return false;
    for (uint32_t i = 0; i < a->n_files; i++) {
        const weir__ckpt_file *x = &a->files[i], *y = &b->files[i];
        if (strcmp(x->task, y->task) || strcmp(x->file, y->file) ||
            x->task_id != y->task_id || x->subtask != y->subtask ||
            x->parallelism != y->parallelism || x->size != y->size ||
            x->crc != y->crc)
            return false;
    }
    for (uint32_t i = 0; i < a->n_shared; i++) {
        const weir__ckpt_shared *x = &a->shared[i], *y = &b->shared[i];
        if (strcmp(x->name, y->name) || x->task_id != y->task_id ||
            x->subtask != y->subtask || x->size != y->size || x->crc != y->crc)
            return false;
    }
    return true;
}

static void fuzz_meta(uint8_t *d, size_t n, bool fix)
{
    if (fix && n >= 4)
        put_le(d + n - 4, weir_crc32c(0, d, n - 4), 4);
    weir__ckpt_meta m;
    weir_error err;
    int rc = weir__ckpt_meta_decode(d, n, &m, &err);
    if (rc) {
        CKPT_CHECK(is_decode_error(rc));
        return;
    }
    weir_buf b;
    weir_buf_init(&b);
    CKPT_CHECK(weir__ckpt_meta_encode(&m, &b) == 0);
    weir__ckpt_meta m2;
    CKPT_CHECK(weir__ckpt_meta_decode(b.data, b.len, &m2, &err) == 0);
    CKPT_CHECK(same_meta(&m, &m2));
    weir__ckpt_meta_fini(&m2);
    weir_buf_fini(&b);
    weir__ckpt_meta_fini(&m);
}

static void fuzz_state_file(const uint8_t *d, size_t n)
{
    weir__snap_view v;
    weir_error err;
    int rc = weir__snap_view_decode(d, n, &v, &err);
    if (rc)
        CKPT_CHECK(is_decode_error(rc));
    else
        weir__snap_view_fini(&v);
    weir__snapshot_set *set;
    CKPT_CHECK(weir__snapshot_set_create(&set) == 0);
    rc = weir__snapshot_set_add(set, d, n);
    if (rc)
        CKPT_CHECK(is_decode_error(rc));
    weir__snapshot_set_destroy(set);
}

static int64_t fixed_now(void *ud)
{
    (void)ud;
    return 1700000000000;
}

static weir__backend *memory_backend(void)
{
    weir__backend_config cfg = {.kind = "memory",
                                .max_parallelism = CKPT_MAX_PAR,
                                .kg_lo = 0,
                                .kg_hi = CKPT_MAX_PAR,
                                .clock = {fixed_now, NULL}};
    weir__backend *be = NULL;
    CKPT_CHECK(weir__backend_create(&cfg, &be) == 0);
    return be;
}

static void fuzz_key_group(uint8_t *d, size_t n, bool fix)
{
    uint32_t kg = 0;
    if (n >= WSKG_HEADER + 4) {
        kg = (uint32_t)get_le(d + 5, 4) % CKPT_MAX_PAR;
        if (fix) {
            put_le(d + 5, kg, 4);
            put_le(d + 9, CKPT_MAX_PAR, 4);
            put_le(d + 13, n - WSKG_HEADER - 4, 8);
            put_le(d + n - 4, weir_crc32c(0, d, n - 4), 4);
        }
    }
    weir__backend *be = memory_backend();
    weir_cursor c;
    weir_cursor_init(&c, d, n);
    int rc = weir__backend_restore_kg(be, kg, &c);
    if (rc) {
        CKPT_CHECK(is_decode_error(rc));
        weir__backend_destroy(be);
        return;
    }
    /* What was restored snapshots to canonical bytes: restoring those and
     * snapshotting again gives the same bytes. */
    weir_buf a, b;
    weir_buf_init(&a);
    weir_buf_init(&b);
    CKPT_CHECK(weir__backend_snapshot_kg(be, kg, &a) == 0);
    weir__backend *be2 = memory_backend();
    weir_cursor_init(&c, a.data, a.len);
    CKPT_CHECK(weir__backend_restore_kg(be2, kg, &c) == 0);
    CKPT_CHECK(weir__backend_snapshot_kg(be2, kg, &b) == 0);
    CKPT_CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    weir_buf_fini(&a);
    weir_buf_fini(&b);
    weir__backend_destroy(be2);
    weir__backend_destroy(be);
}

int WEIR_FUZZ_ENTRY(const uint8_t *data, size_t size);

int WEIR_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t pick = data[0];
    size_t n = size - 1;
    /* A private copy: the checksum repair writes into it, and the readers
     * must not rely on bytes past the end. */
    uint8_t *d = malloc(n ? n : 1);
    if (!d)
        return 0;
    memcpy(d, data + 1, n);
    bool fix = (pick & 0x80) != 0;
    switch (pick & 3) {
    case 0:
        fuzz_meta(d, n, fix);
        break;
    case 1:
        fuzz_state_file(d, n);
        break;
    case 2:
        fuzz_key_group(d, n, fix);
        break;
    default:
        fuzz_meta(d, n, false);
        memcpy(d, data + 1, n);
        fuzz_state_file(d, n);
        fuzz_key_group(d, n, false);
        break;
    }
    free(d);
    return 0;
}
