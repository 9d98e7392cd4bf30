/*
 * bench/s3_bench.c - checkpoint upload and restore throughput to an S3
 * server through weir's object storage (src/checkpoint/storage_s3.c):
 *
 *   bench_s3_bench ENDPOINT s3://BUCKET/PREFIX FILE [REPS]
 *
 * Each rep stores FILE as a state file the way an incremental checkpoint
 * does (put_file: read from disk a part at a time, multipart above the part
 * size) and reads it back the way a restore does (get: ranged GETs), then
 * prints the MB/s of each and the medians. Keys S3RVER/S3RVER unless
 * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY are set. bench/s3_bench.sh
 * starts s3rver and runs curl on the same bytes for comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkpoint/storage.h"
#include "weir/checkpoint.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
#if defined(WEIR_HAVE_CURL)
    if (argc < 4) {
        fprintf(stderr, "usage: %s ENDPOINT s3://BUCKET/PREFIX FILE [REPS]\n",
                argv[0]);
        return 2;
    }
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    if (reps < 1 || reps > 100)
        reps = 3;
    weir_checkpoint_config cfg;
    weir_checkpoint_config_init(&cfg);
    cfg.s3_endpoint = argv[1];
    if (!getenv("AWS_ACCESS_KEY_ID")) {
        cfg.s3_access_key = "S3RVER";
        cfg.s3_secret_key = "S3RVER";
    }
    weir__storage *s;
    weir_error err = {0};
    if (weir__storage_open(argv[2], &cfg, &s, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    double up[100], down[100];
    uint64_t size = 0;
    for (int r = 0; r < reps; r++) {
        char name[64];
        snprintf(name, sizeof name, "shared/bench-%d.sst", r);
        uint32_t crc;
        double t0 = now_s();
        int rc = s->ops->put_file(s, name, argv[3], &size, &crc);
        double t1 = now_s();
        uint8_t *data = NULL;
        size_t len = 0;
        if (!rc)
            rc = s->ops->get(s, name, &data, &len);
        double t2 = now_s();
        if (rc || len != size || weir_crc32c(0, data, len) != crc) {
            fprintf(stderr, "rep %d failed: %s\n", r, weir_strerror(rc));
            weir_free(data);
            weir__storage_destroy(s);
            return 1;
        }
        weir_free(data);
        s->ops->remove(s, name);
        up[r] = (double)size / 1e6 / (t1 - t0);
        down[r] = (double)size / 1e6 / (t2 - t1);
        printf("rep %d: upload %.1f MB/s, restore %.1f MB/s\n", r, up[r],
               down[r]);
    }
    qsort(up, (size_t)reps, sizeof *up, cmp_d);
    qsort(down, (size_t)reps, sizeof *down, cmp_d);
    printf("weir %.1f MB: upload median %.1f MB/s, restore median %.1f MB/s\n",
           (double)size / 1e6, up[reps / 2], down[reps / 2]);
    weir__storage_destroy(s);
    return 0;
#else
    (void)argc;
    (void)argv;
    fprintf(stderr, "built without libcurl\n");
    return 2;
#endif
}
