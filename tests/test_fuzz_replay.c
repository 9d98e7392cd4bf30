/*
 * tests/test_fuzz_replay.c - runs the fuzz targets (fuzz/fuzz_json.c,
 * fuzz/fuzz_csv.c, fuzz/fuzz_ckpt.c) as ordinary tests: over every seed
 * in fuzz/seeds/<target>/, then over
 * deterministic mutations of the seeds (byte flips, JSON/CSV punctuation
 * inserted, cuts, splices), so the properties the fuzzers check hold in
 * every build, with or without clang's libFuzzer. The mutation seed is
 * printed and can be set with WEIR_TEST_SEED.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WEIR_FUZZ_ENTRY fuzz_json_one
#include "../fuzz/fuzz_json.c"
#undef WEIR_FUZZ_ENTRY
#define WEIR_FUZZ_ENTRY fuzz_csv_one
#include "../fuzz/fuzz_csv.c"
#undef WEIR_FUZZ_ENTRY
#define WEIR_FUZZ_ENTRY fuzz_ckpt_one
#include "../fuzz/fuzz_ckpt.c"
#undef WEIR_FUZZ_ENTRY

typedef int (*fuzz_fn)(const uint8_t *, size_t);

typedef struct corpus {
    uint8_t *data[64];
    size_t len[64];
    int n;
} corpus;

static void load(corpus *c, const char *target)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fuzz/seeds/%s", WEIR_SOURCE_DIR, target);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    c->n = 0;
    while ((e = readdir(d)) && c->n < 64) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        c->data[c->n] = malloc((size_t)n + 1);
        cr_assert_eq(fread(c->data[c->n], 1, (size_t)n, f), (size_t)n);
        c->len[c->n++] = (size_t)n;
        fclose(f);
    }
    closedir(d);
    cr_assert_gt(c->n, 0, "no seeds in %s", dir);
}

static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state += UINT64_C(0x9E3779B97F4A7C15);
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void replay(const char *target, fuzz_fn fn, int mutants_per_seed)
{
    corpus c;
    load(&c, target);
    uint64_t seed = getenv("WEIR_TEST_SEED")
                        ? strtoull(getenv("WEIR_TEST_SEED"), NULL, 10)
                        : 20240601;
    fprintf(stderr,
            "%s: %d seeds, %d mutants each, seed %llu (WEIR_TEST_SEED)\n",
            target, c.n, mutants_per_seed, (unsigned long long)seed);
    rng_state = seed;
    static const char *const tokens[] = {
        "{",    "}",       "[",    "]",         "\"",
        "\\",   ",",       ":",    "\n",        "\r\n",
        "null", "true",    "-",    "1e309",     ".",
        "\\u",  "\\ud83d", "'",    ";",         "\t",
        "\xff", "\xc3",    "\"\"", "0",         "99999999999999999999",
        " ",    "#",       "\\N",  "2020-01-01"};
    uint8_t *buf = malloc(1 << 16);
    for (int i = 0; i < c.n; i++) {
        fn(c.data[i], c.len[i]);
        for (int m = 0; m < mutants_per_seed; m++) {
            size_t len = c.len[i];
            memcpy(buf, c.data[i], len);
            int edits = 1 + (int)(rng() % 4);
            for (int k = 0; k < edits; k++) {
                size_t at = len ? rng() % len : 0;
                switch (rng() % 5) {
                case 0: /* flip a byte */
                    if (len)
                        buf[at] ^= (uint8_t)(1u << (rng() % 8));
                    break;
                case 1: { /* insert a token */
                    const char *t =
                        tokens[rng() % (sizeof tokens / sizeof *tokens)];
                    size_t tl = strlen(t);
                    if (len + tl < (1 << 16)) {
                        memmove(buf + at + tl, buf + at, len - at);
                        memcpy(buf + at, t, tl);
                        len += tl;
                    }
                    break;
                }
                case 2: /* cut */
                    len = at;
                    break;
                case 3: /* delete a span */
                    if (len) {
                        size_t n = 1 + rng() % 8;
                        if (at + n > len)
                            n = len - at;
                        memmove(buf + at, buf + at + n, len - at - n);
                        len -= n;
                    }
                    break;
                default: { /* splice in part of another seed */
                    int j = (int)(rng() % (uint64_t)c.n);
                    size_t from = c.len[j] ? rng() % c.len[j] : 0,
                           n = rng() % 64;
                    if (from + n > c.len[j])
                        n = c.len[j] - from;
                    if (len + n < (1 << 16)) {
                        memmove(buf + at + n, buf + at, len - at);
                        memcpy(buf + at, c.data[j] + from, n);
                        len += n;
                    }
                }
                }
            }
            fn(buf, len);
        }
    }
    free(buf);
    for (int i = 0; i < c.n; i++)
        free(c.data[i]);
}

Test(fuzz_replay, json)
{
    replay("json", fuzz_json_one, 3000);
}
Test(fuzz_replay, csv)
{
    replay("csv", fuzz_csv_one, 3000);
}
Test(fuzz_replay, ckpt)
{
    replay("ckpt", fuzz_ckpt_one, 300);
}
