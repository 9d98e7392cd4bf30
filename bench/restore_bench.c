/*
 * bench/restore_bench.c - restoring canonical keyed-state snapshots into a
 * state backend, without a job around it.
 *
 *   bench_restore_bench [KEYS] [BACKEND]
 *       A memory backend owning 64 of 128 key groups gets KEYS keys (500 000)
 *       of one value state (8-byte keys, 8-byte namespace, 40-byte values);
 *       every key group is snapshotted (canonical format) and restored into
 *       a fresh BACKEND ("rocksdb", the default, or "memory"); then every
 *       key is read back through weir_state_keys and weir_value_get, as the
 *       window operator does after a restore. Prints both durations.
 * Results: bench/results/checkpoint.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/backend.h"
#include "weir/key.h"

#define KG_HI 64

static double now_s(void)
{
    return (double)weir_monotonic_ns() / 1e9;
}

static weir_state *g_st;
static uint64_t g_read;

static int read_back(void *ud, const uint8_t *key, size_t klen, const void *ns,
                     size_t nslen)
{
    (void)ud;
    (void)key;
    (void)klen;
    const void *v;
    size_t len;
    int rc = weir_value_get(g_st, ns, nslen, &v, &len);
    if (rc)
        return rc;
    g_read++;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t keys = argc > 1 ? strtoull(argv[1], NULL, 0) : 500000;
    const char *kind = argc > 2 ? argv[2] : "rocksdb";
    weir__backend_config src_cfg = {
        .kind = "memory", .max_parallelism = 128, .kg_lo = 0, .kg_hi = KG_HI};
    weir__backend *src;
    if (weir__backend_create(&src_cfg, &src)) {
        fprintf(stderr, "cannot create the memory backend\n");
        return 1;
    }
    weir_state_desc d = {.name = "w", .kind = WEIR_STATE_VALUE};
    weir_state *st;
    weir__backend_register(src, &d, &st);
    char v[40];
    memset(v, 'x', sizeof v);
    uint64_t n = 0;
    for (int64_t i = 0; n < keys; i++) {
        uint64_t h = weir_key_hash(&i, 8);
        if (weir_key_group(h, 128) >= KG_HI)
            continue;
        if (weir__backend_set_key(src, &i, 8, h) ||
            weir_value_put(st, "nsnsnsns", 8, v, sizeof v)) {
            fprintf(stderr, "cannot fill the memory backend\n");
            return 1;
        }
        n++;
    }
    weir_buf snaps[KG_HI];
    for (uint32_t kg = 0; kg < KG_HI; kg++) {
        weir_buf_init(&snaps[kg]);
        if (weir__backend_snapshot_kg(src, kg, &snaps[kg])) {
            fprintf(stderr, "cannot snapshot key group %u\n", kg);
            return 1;
        }
    }
    weir__backend_destroy(src);

    char dir[128];
    snprintf(dir, sizeof dir, "/tmp/weir-restore-bench-%ld", (long)getpid());
    weir__backend_config cfg = {.kind = kind,
                                .max_parallelism = 128,
                                .kg_lo = 0,
                                .kg_hi = KG_HI,
                                .dir = dir};
    weir__backend *be;
    if (weir__backend_create(&cfg, &be)) {
        fprintf(stderr, "cannot create the %s backend\n", kind);
        return 1;
    }
    double t0 = now_s();
    for (uint32_t kg = 0; kg < KG_HI; kg++) {
        weir_cursor c;
        weir_cursor_init(&c, snaps[kg].data, snaps[kg].len);
        int rc = weir__backend_restore_kg(be, kg, &c);
        if (rc) {
            fprintf(stderr, "restore of key group %u: %s\n", kg,
                    weir_strerror(rc));
            return 1;
        }
    }
    double t1 = now_s();
    weir__backend_register(be, &d, &g_st);
    int rc = weir_state_keys(g_st, read_back, NULL);
    double t2 = now_s();
    if (rc || g_read != keys) {
        fprintf(stderr, "read back %llu of %llu keys: %s\n",
                (unsigned long long)g_read, (unsigned long long)keys,
                weir_strerror(rc));
        return 1;
    }
    printf("%s: %llu keys restored in %.3f s, read back in %.3f s\n", kind,
           (unsigned long long)keys, t1 - t0, t2 - t1);
    for (uint32_t kg = 0; kg < KG_HI; kg++)
        weir_buf_fini(&snaps[kg]);
    weir__backend_destroy(be);
    return 0;
}
