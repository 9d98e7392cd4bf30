/*
 * bench/state_bench.c - per-record cost of keyed state on each backend.
 *
 * For N distinct keys (8-byte integers, as a BIGINT key encodes) and one
 * 8-byte namespace (a window end), measures in random key order:
 *   put      set_key + value put of 8 bytes (overwrite after the first pass)
 *   get      set_key + value get (every key present)
 *   get-only value get on the current key (no set_key): the lookup alone
 *   add      set_key + reducing add (int64 sum)
 *   list     set_key + list add of 16 bytes
 *   map      set_key + map put of one of 4 map keys
 * and prints one markdown table row per (backend, N, operation) with wall
 * ns/op, the calling thread's CPU ns/op (robust on a shared, loaded
 * machine; RocksDB's background compaction threads are not in it) and
 * Mops/s by wall time, plus the backend's size afterwards.
 *
 * usage: bench_state_bench [--kinds memory,rocksdb] [--keys 10000,1000000]
 *                          [--ops N] [--dir DIR]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "state/backend.h"
#include "weir/key.h"

static int sum_reduce(void *ud, const void *a, size_t alen, const void *b,
                      size_t blen, weir_buf *out)
{
    (void)ud;
    (void)alen;
    (void)blen;
    int64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    x += y;
    return weir_buf_put(out, &x, 8);
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct keyset {
    uint64_t *keys;
    uint64_t *hashes;
    uint32_t *order; /* random access order, ops long */
    size_t n, ops;
} keyset;

static void die(const char *what, int rc)
{
    fprintf(stderr, "state_bench: %s: %s\n", what, weir_strerror(rc));
    exit(1);
}

static double now_s(void)
{
    return (double)weir_monotonic_ns() / 1e9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double g_cpu0;
static void cpu_start(void)
{
    g_cpu0 = cpu_s();
}

static void row(const char *kind, size_t n, const char *op, size_t ops,
                double secs)
{
    double cpu = cpu_s() - g_cpu0;
    printf("| %-7s | %9zu | %-8s | %9.1f | %9.1f | %7.2f |\n", kind, n, op,
           secs * 1e9 / (double)ops, cpu * 1e9 / (double)ops,
           (double)ops / secs / 1e6);
    fflush(stdout);
}

static void run(const char *kind, const keyset *ks, const char *dir)
{
    char path[512];
    weir__backend_config cfg = {
        .kind = kind, .max_parallelism = 128, .kg_lo = 0, .kg_hi = 128};
    if (strcmp(kind, "rocksdb") == 0) {
        snprintf(path, sizeof path, "%s/bench-%zu-%d", dir, ks->n,
                 (int)getpid());
        cfg.dir = path;
    }
    weir__backend *be;
    int rc = weir__backend_create(&cfg, &be);
    if (rc)
        die("create", rc);
    weir_state_desc dv = {.name = "v", .kind = WEIR_STATE_VALUE};
    weir_state_desc dr = {
        .name = "r", .kind = WEIR_STATE_REDUCING, .reduce = sum_reduce};
    weir_state_desc dl = {.name = "l", .kind = WEIR_STATE_LIST};
    weir_state_desc dm = {.name = "m", .kind = WEIR_STATE_MAP};
    weir_state *sv, *sr, *sl, *sm;
    if ((rc = weir__backend_register(be, &dv, &sv)) ||
        (rc = weir__backend_register(be, &dr, &sr)) ||
        (rc = weir__backend_register(be, &dl, &sl)) ||
        (rc = weir__backend_register(be, &dm, &sm)))
        die("register", rc);
    int64_t ns = 1700000000000;
    int64_t one = 1;
    uint8_t elem[16] = {0};

    /* Load every key once (not timed), so put below overwrites and get hits. */
    for (size_t i = 0; i < ks->n; i++) {
        if ((rc = weir__backend_set_key(be, &ks->keys[i], 8, ks->hashes[i])) ||
            (rc = weir_value_put(sv, &ns, 8, &ks->keys[i], 8)))
            die("load", rc);
    }

    cpu_start();
    double t = now_s();
    for (size_t i = 0; i < ks->ops; i++) {
        uint32_t k = ks->order[i];
        weir__backend_set_key(be, &ks->keys[k], 8, ks->hashes[k]);
        if ((rc = weir_value_put(sv, &ns, 8, &ks->keys[k], 8)))
            die("put", rc);
    }
    row(kind, ks->n, "put", ks->ops, now_s() - t);

    uint64_t check = 0;
    cpu_start();
    t = now_s();
    for (size_t i = 0; i < ks->ops; i++) {
        uint32_t k = ks->order[i];
        const void *v;
        size_t len;
        weir__backend_set_key(be, &ks->keys[k], 8, ks->hashes[k]);
        if ((rc = weir_value_get(sv, &ns, 8, &v, &len)))
            die("get", rc);
        check += *(const uint8_t *)v;
    }
    row(kind, ks->n, "get", ks->ops, now_s() - t);

    /* The lookup alone: a window operator reads several states per key. */
    size_t reps = ks->ops / ks->n ? ks->ops / ks->n : 1;
    size_t total = 0;
    double acc = 0;
    cpu_start(); /* includes the few set_key calls: noise against reps * 97 gets
                  */
    for (size_t i = 0; i < ks->n; i += 97) {
        weir__backend_set_key(be, &ks->keys[i], 8, ks->hashes[i]);
        t = now_s();
        for (size_t r = 0; r < reps * 97; r++) {
            const void *v;
            size_t len;
            weir_value_get(sv, &ns, 8, &v, &len);
            check += len;
        }
        acc += now_s() - t;
        total += reps * 97;
    }
    row(kind, ks->n, "get-only", total, acc);

    cpu_start();
    t = now_s();
    for (size_t i = 0; i < ks->ops; i++) {
        uint32_t k = ks->order[i];
        weir__backend_set_key(be, &ks->keys[k], 8, ks->hashes[k]);
        if ((rc = weir_state_add(sr, &ns, 8, &one, 8)))
            die("add", rc);
    }
    row(kind, ks->n, "add", ks->ops, now_s() - t);

    size_t list_ops =
        ks->ops < 4 * ks->n ? ks->ops : 4 * ks->n; /* bounded lists */
    cpu_start();
    t = now_s();
    for (size_t i = 0; i < list_ops; i++) {
        uint32_t k = ks->order[i];
        weir__backend_set_key(be, &ks->keys[k], 8, ks->hashes[k]);
        if ((rc = weir_list_add(sl, &ns, 8, elem, sizeof elem)))
            die("list add", rc);
    }
    row(kind, ks->n, "list", list_ops, now_s() - t);

    cpu_start();
    t = now_s();
    for (size_t i = 0; i < ks->ops; i++) {
        uint32_t k = ks->order[i];
        uint32_t mk = (uint32_t)(i & 3);
        weir__backend_set_key(be, &ks->keys[k], 8, ks->hashes[k]);
        if ((rc = weir_map_put(sm, &ns, 8, &mk, 4, &one, 8)))
            die("map put", rc);
    }
    row(kind, ks->n, "map", ks->ops, now_s() - t);

    printf("|         |           | size     | %9.1f MiB | (check %" PRIu64
           ") | |\n",
           (double)weir__backend_size_bytes(be) / (1024.0 * 1024.0),
           check % 10);
    weir__backend_destroy(be);
}

int main(int argc, char **argv)
{
    const char *kinds = "memory"
#ifdef WEIR_HAVE_ROCKSDB
                        ",rocksdb"
#endif
        ;
    const char *keys_arg = "10000,1000000";
    const char *dir = "/tmp";
    size_t ops_mem = 10000000, ops_rocks = 1000000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--kinds") == 0 && i + 1 < argc)
            kinds = argv[++i];
        else if (strcmp(argv[i], "--keys") == 0 && i + 1 < argc)
            keys_arg = argv[++i];
        else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc)
            ops_mem = ops_rocks = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr,
                    "usage: %s [--kinds memory,rocksdb] [--keys 10000,1000000] "
                    "[--ops N] [--dir DIR]\n",
                    argv[0]);
            return 2;
        }
    }
    printf("| backend | keys      | op       | wall ns/op | cpu ns/op | Mops/s "
           " |\n");
    printf("|---------|-----------|----------|-----------|-----------|---------"
           "|\n");
    char kbuf[256];
    snprintf(kbuf, sizeof kbuf, "%s", keys_arg);
    for (char *ksave = NULL, *kn = strtok_r(kbuf, ",", &ksave); kn;
         kn = strtok_r(NULL, ",", &ksave)) {
        keyset ks = {.n = strtoull(kn, NULL, 10)};
        if (ks.n == 0)
            continue;
        uint64_t seed = 42;
        ks.keys = malloc(ks.n * 8);
        ks.hashes = malloc(ks.n * 8);
        for (size_t i = 0; i < ks.n; i++) {
            ks.keys[i] = rng(&seed);
            ks.hashes[i] = weir_key_hash(&ks.keys[i], 8);
        }
        char kindbuf[128];
        snprintf(kindbuf, sizeof kindbuf, "%s", kinds);
        for (char *save = NULL, *kind = strtok_r(kindbuf, ",", &save); kind;
             kind = strtok_r(NULL, ",", &save)) {
            ks.ops = strcmp(kind, "rocksdb") == 0 ? ops_rocks : ops_mem;
            ks.order = malloc(ks.ops * sizeof *ks.order);
            for (size_t i = 0; i < ks.ops; i++)
                ks.order[i] = (uint32_t)(rng(&seed) % ks.n);
            run(kind, &ks, dir);
            free(ks.order);
        }
        free(ks.keys);
        free(ks.hashes);
    }
    return 0;
}
