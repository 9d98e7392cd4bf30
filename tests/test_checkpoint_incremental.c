/*
 * tests/test_checkpoint_incremental.c - RocksDB incremental checkpoints
 * (state.backend.incremental, docs/checkpoints.md) end to end.
 *
 * The job: the generator source of ckpt_job.h (keys k0..k<N_KEYS-1> in
 * turn, so the first N_KEYS rows create every key once and later rows touch
 * few keys) -> a keyed process function keeping a running count and sum
 * per key in a value state padded to PAD bytes (so that keyed state, not
 * metadata, dominates a checkpoint) and emitting one row per input row ->
 * the two-phase-commit file sink. A crashed and restored run must show
 * exactly the output of a run without failure.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint/catalog.h"
#include "checkpoint/format.h"
#include "ckpt_job.h"
#include "runtime/checkpoint.h"
#include "util/io.h"

#define N_ROWS 24000
#define N_KEYS 8000
#define PAD 96

static char g_dir[256], g_out[300], g_ckpt[300], g_sp[300], g_state[300],
    g_ref[300];
static _Atomic uint64_t g_limit, g_produced;
static cj_gen g_gen;
static cj_lines g_ref_lines;
static cj_log g_log;
static uint32_t g_retain = 1;

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-incr-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir));
    snprintf(g_out, sizeof g_out, "%s/out", g_dir);
    snprintf(g_ckpt, sizeof g_ckpt, "%s/ckpt", g_dir);
    snprintf(g_sp, sizeof g_sp, "%s/savepoints", g_dir);
    snprintf(g_state, sizeof g_state, "%s/state", g_dir);
    snprintf(g_ref, sizeof g_ref, "%s/ref", g_dir);
    g_gen = (cj_gen){.n = N_ROWS,
                     .seed = 11,
                     .n_keys = N_KEYS,
                     .sequential_keys = true,
                     .limit = &g_limit,
                     .produced = &g_produced};
    g_log.len = 0;
    g_log.text[0] = '\0';
    g_retain = 1;
}

static void teardown(void)
{
    weir__io_reset();
    cj_lines_free(&g_ref_lines);
    cj_rmtree(g_dir);
}

TestSuite(incremental, .init = setup, .fini = teardown, .timeout = 120);

/* ---- the job ---- */

typedef struct acc {
    int64_t cnt, total;
    uint8_t pad[PAD];
} acc;

static int cnt_open(void *ud, weir_op_ctx *ctx, void **instance)
{
    (void)ud;
    weir_state_desc d = {.name = "acc", .kind = WEIR_STATE_VALUE};
    return weir_op_get_state(ctx, &d, (weir_state **)instance);
}

static int cnt_process(void *instance, weir_op_ctx *ctx, const weir_batch *in,
                       uint32_t row, weir_batch *out)
{
    (void)ctx;
    weir_state *st = instance;
    acc a;
    memset(&a, 0, sizeof a);
    const void *v;
    size_t len;
    if (weir_value_get(st, NULL, 0, &v, &len) == 0 && len == sizeof a)
        memcpy(&a, v, sizeof a);
    a.cnt++;
    a.total += WEIR_COL_I64(in, 1)[row];
    /* Incompressible, as real state mostly is. */
    uint64_t x = (uint64_t)a.total * 0x9E3779B97F4A7C15ull + (uint64_t)a.cnt;
    for (size_t i = 0; i < sizeof a.pad; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        a.pad[i] = (uint8_t)x;
    }
    int rc = weir_value_put(st, NULL, 0, &a, sizeof a);
    if (rc)
        return rc;
    uint32_t kl;
    const char *k = weir_batch_str(in, 0, row, &kl);
    int r = weir_batch_append_row(out);
    if (r < 0)
        return WEIR_ENOMEM;
    weir_batch_set_str(out, 0, (uint32_t)r, k, kl);
    WEIR_COL_I64(out, 1)[r] = a.cnt;
    WEIR_COL_I64(out, 2)[r] = a.total;
    out->ts[r] = in->ts[row];
    return 0;
}

static void cnt_close(void *instance)
{
    (void)instance;
}

typedef struct ijob {
    weir_job *job;
    weir_schema *in, *out;
} ijob;

static void ijob_destroy(ijob *j)
{
    weir_job_destroy(j->job);
    weir_schema_destroy(j->in);
    weir_schema_destroy(j->out);
    free(j);
}

static ijob *build(uint32_t par, const char *backend, const char *out_dir)
{
    ijob *j = calloc(1, sizeof *j);
    cr_assert_not_null(j);
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.batch_size = 256;
    jc.state_backend = backend;
    jc.state_dir = g_state;
    cr_assert_eq(weir_job_create(&jc, &j->job), 0);
    j->in = weir_schema_create();
    weir_schema_add(j->in, "k", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(j->in, "v", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(j->in, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    j->in->rowtime = 2;
    j->out = weir_schema_create();
    weir_schema_add(j->out, "k", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(j->out, "cnt", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(j->out, "total", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_source_spec src = {
        .name = "gen", .cls = &cj_gen_class, .arg = &g_gen, .schema = j->in};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED,
                              .delay_ms = CJ_JITTER_MS};
    weir_stream s, p;
    cr_assert_eq(weir_job_source(j->job, &src, &wm, 1, &s), 0);
    uint32_t key = 0;
    weir_process_fn fn = {.open = cnt_open,
                          .process = cnt_process,
                          .close = cnt_close,
                          .name = "counter"};
    cr_assert_eq(weir_job_process(j->job, weir_stream_key_by(s, &key, 1),
                                  j->out, &fn, &p),
                 0, "%s", weir_job_error(j->job));
    cr_assert_eq(weir_job_set_parallelism(j->job, p, par), 0);
    weir_file_sink_config sc;
    weir_file_sink_config_init(&sc);
    sc.path = out_dir;
    weir_format_options_init(&sc.format, WEIR_FORMAT_JSON);
    sc.commit_on_checkpoint = true;
    sc.rollover_interval_ms = -1;
    weir_operator_spec sink;
    weir_error err;
    cr_assert_eq(weir_file_sink_spec(&sc, &sink, &err), 0, "%s", err.message);
    cr_assert_eq(weir_job_sink(j->job, p, &sink, par), 0);
    return j;
}

static void reference(void)
{
    atomic_store(&g_limit, UINT64_MAX);
    ijob *j = build(1, "memory", g_ref);
    cr_assert_eq(weir_job_run(j->job), 0, "%s", weir_job_error(j->job));
    ijob_destroy(j);
    cr_assert_eq(cj_read_output(g_ref, &g_ref_lines, NULL), 0);
    cr_assert_eq(g_ref_lines.n, N_ROWS);
}

static void check_output(void)
{
    char why[1024];
    cr_assert_eq(cj_output_matches(g_out, &g_ref_lines, why, sizeof why), 0,
                 "output differs from the uninterrupted run: %s\nlog:\n%s", why,
                 g_log.text);
}

static void wait_produced(uint64_t n)
{
    cr_assert(cj_wait_produced(&g_produced, n, 20000));
}

static ijob *start(uint32_t par, const char *backend, bool incremental,
                   uint64_t limit)
{
    atomic_store(&g_limit, limit);
    atomic_store(&g_produced, 0);
    ijob *j = build(par, backend, g_out);
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    c.dir = g_ckpt;
    c.savepoint_dir = g_sp;
    c.log = cj_log_line;
    c.log_ud = &g_log;
    c.num_retained = g_retain;
    weir_error err;
    cr_assert_eq(weir_checkpoint_config_set(&c, "state.backend.incremental",
                                            incremental ? "true" : "false",
                                            &err),
                 0, "%s", err.message);
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s",
                 err.message);
    cr_assert_eq(weir_job_start(j->job), 0, "%s", weir_job_error(j->job));
    return j;
}

/* Lets the input of a fresh run reach row upto. */
static void run_to(uint64_t upto)
{
    atomic_store(&g_limit, upto);
    wait_produced(upto);
}

static uint64_t checkpoint(ijob *j, int expect, weir_checkpoint_stats *st)
{
    uint64_t id;
    weir_error err = {0};
    cr_assert_eq(weir_job_trigger_checkpoint(j->job, &id), 0);
    int rc = weir_job_await_checkpoint(j->job, id, 30000, &err);
    cr_assert_eq(rc, expect, "checkpoint %llu: %s (expected %s)\n%s",
                 (unsigned long long)id, err.message, weir_strerror(expect),
                 g_log.text);
    if (st)
        cr_assert_eq(weir_job_checkpoint_stats(j->job, st), 0);
    return id;
}

static void finish(ijob *j)
{
    atomic_store(&g_limit, UINT64_MAX);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    ijob_destroy(j);
}

static weir__ckpt_meta read_meta(uint64_t id)
{
    weir__storage *s;
    cr_assert_eq(weir__storage_local_create(g_ckpt, &s), 0);
    char name[64];
    weir__ckpt_name(id, false, name, sizeof name);
    weir__ckpt_meta m;
    weir_error e;
    cr_assert_eq(weir__ckpt_verify(s, name, &m, &e), 0, "%s", e.message);
    weir__storage_destroy(s);
    return m;
}

/* Names in DIR/shared (sorted), and their count. */
static size_t list_shared(char ***names)
{
    weir__storage *s;
    cr_assert_eq(weir__storage_local_create(g_ckpt, &s), 0);
    size_t n = 0;
    *names = NULL;
    if (s->ops->list(s, "shared", names, &n) != 0)
        n = 0;
    weir__storage_destroy(s);
    return n;
}

static bool listed(const weir__ckpt_meta *m, const char *base)
{
    for (uint32_t i = 0; i < m->n_shared; i++)
        if (!strcmp(m->shared[i].name + 7, base))
            return true;
    return false;
}

/* SST files of the database in g_state/sub with more than one link. */
static int linked_ssts(const char *sub)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", g_state, sub);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".sst"))
            continue;
        char f[1000];
        snprintf(f, sizeof f, "%s/%s", path, e->d_name);
        struct stat st;
        if (stat(f, &st) == 0 && st.st_nlink > 1)
            n++;
    }
    closedir(d);
    return n;
}

/* ---- the tests ---- */

Test(incremental, a_small_change_uploads_far_less_and_restores_exactly)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    reference();
    ijob *j = start(2, "rocksdb", true, N_KEYS);
    wait_produced(N_KEYS); /* every key once */
    weir_checkpoint_stats a, b;
    uint64_t ida = checkpoint(j, 0, &a);
    run_to(N_KEYS + N_KEYS / 100); /* 1 % of the keys change */
    uint64_t idb = checkpoint(j, 0, &b);
    cr_assert_eq(a.last_checkpointed_bytes, a.last_size_bytes,
                 "the first checkpoint stores everything itself");
    cr_assert_gt(a.last_size_bytes, (uint64_t)N_KEYS * PAD / 2,
                 "the keyed state is in the checkpoint");
    cr_assert_lt(b.last_checkpointed_bytes * 5, a.last_checkpointed_bytes,
                 "the second checkpoint stored %llu bytes, the first %llu",
                 (unsigned long long)b.last_checkpointed_bytes,
                 (unsigned long long)a.last_checkpointed_bytes);
    cr_assert_geq(b.last_size_bytes * 10, a.last_size_bytes * 9,
                  "the second still needs the first one's files");
    /* The metadata lists the shared files; the state files stay small. */
    weir__ckpt_meta mb = read_meta(idb);
    cr_assert_geq(mb.n_shared, 2);
    for (uint32_t i = 0; i < mb.n_files; i++)
        cr_assert_lt(mb.files[i].size, (uint64_t)N_KEYS * PAD / 4);
    weir__ckpt_meta_fini(&mb);
    (void)ida;
    /* weir inspect shows the native parts and their shared files. */
    char out[65536], args[400];
    snprintf(args, sizeof args, "inspect %s/chk-%llu", g_ckpt,
             (unsigned long long)idb);
    cr_assert_eq(cj_run_cli(args, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "shared files"), "%s", out);
    cr_assert(strstr(out, "native RocksDB checkpoint, key groups [0, 63]"),
              "%s", out);
    cr_assert(strstr(out, "native RocksDB checkpoint, key groups [64, 127]"),
              "%s", out);
    cr_assert(strstr(out, ".sst -> shared/"), "%s", out);
    /* More output after the checkpoint, never committed: then a crash. */
    run_to(15000);
    ijob_destroy(j);

    j = start(2, "rocksdb", true, N_KEYS + 2 * (N_KEYS / 100));
    char want[64];
    snprintf(want, sizeof want, "restoring from checkpoint chk-%llu",
             (unsigned long long)idb);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    /*
     * At the same parallelism the restored databases are the checkpoint's
     * files, hard-linked from where they were fetched (no canonical
     * re-encoding, which would write new SST files).
     */
    wait_produced(N_KEYS / 100);
    weir_checkpoint_stats c;
    checkpoint(j, 0, &c);
    cr_assert_gt(linked_ssts("op1-0") + linked_ssts("op1-1"), 0,
                 "the restored databases do not share the fetched files");
    /* ... and its first checkpoint refers to the stored copies of the
     * restored files instead of storing them again. */
    cr_assert_lt(c.last_checkpointed_bytes * 5, c.last_size_bytes,
                 "the restored job stored %llu of %llu bytes again",
                 (unsigned long long)c.last_checkpointed_bytes,
                 (unsigned long long)c.last_size_bytes);
    finish(j);
    check_output();
}

Test(incremental, without_the_option_every_checkpoint_is_full)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    ijob *j = start(2, "rocksdb", false, N_KEYS);
    wait_produced(N_KEYS);
    weir_checkpoint_stats a, b;
    uint64_t id = checkpoint(j, 0, &a);
    run_to(N_KEYS + N_KEYS / 100);
    checkpoint(j, 0, &b);
    cr_assert_gt(b.last_checkpointed_bytes * 2, a.last_checkpointed_bytes);
    weir__ckpt_meta m = read_meta(id + 1);
    cr_assert_eq(m.n_shared, 0);
    weir__ckpt_meta_fini(&m);
    char **names;
    size_t n = list_shared(&names);
    weir__storage_free_names(names, n);
    cr_assert_eq(n, 0);
    finish(j);
}

/*
 * After every checkpoint, DIR/shared holds exactly the files the retained
 * checkpoints list: compactions make older files unreferenced, and they
 * must go; the restarted job must keep what the retained checkpoints of
 * the earlier run need, and nothing else.
 */
static bool shared_exact(const uint64_t *ids, size_t n_ids)
{
    weir__ckpt_meta m[4];
    for (size_t i = 0; i < n_ids; i++)
        m[i] = read_meta(ids[i]);
    char **names;
    size_t n = list_shared(&names);
    size_t want = 0;
    bool ok = true;
    for (size_t k = 0; k < n && ok; k++) {
        bool ref = false;
        for (size_t i = 0; i < n_ids && !ref; i++)
            ref = listed(&m[i], names[k]);
        ok = ref;
    }
    /* Distinct names the retained checkpoints list. */
    for (size_t i = 0; i < n_ids; i++)
        for (uint32_t f = 0; f < m[i].n_shared; f++) {
            bool dup = false;
            for (size_t p = 0; p < i && !dup; p++)
                dup = listed(&m[p], m[i].shared[f].name + 7);
            want += !dup;
        }
    for (size_t i = 0; i < n_ids; i++)
        weir__ckpt_meta_fini(&m[i]);
    weir__storage_free_names(names, n);
    return ok && n == want;
}

static void check_shared_exact(const uint64_t *ids, size_t n_ids, size_t *ever,
                               char ***seen, size_t *n_seen)
{
    /* Retention runs right after the completion is announced: give it a
     * moment (real time, bounded). */
    for (int i = 0; i < 10000 && !shared_exact(ids, n_ids); i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    weir__ckpt_meta m[4];
    for (size_t i = 0; i < n_ids; i++)
        m[i] = read_meta(ids[i]);
    char **names;
    size_t n = list_shared(&names);
    for (size_t k = 0; k < n; k++) {
        bool ref = false;
        for (size_t i = 0; i < n_ids && !ref; i++)
            ref = listed(&m[i], names[k]);
        if (!ref)
            for (size_t i = 0; i < n_ids; i++)
                for (uint32_t f = 0; f < m[i].n_shared; f++)
                    fprintf(stderr, "chk-%llu lists %s\n",
                            (unsigned long long)ids[i], m[i].shared[f].name);
        cr_assert(ref, "%s is in shared/ but no retained checkpoint lists it",
                  names[k]);
        bool known = false;
        for (size_t s = 0; s < *n_seen && !known; s++)
            known = !strcmp((*seen)[s], names[k]);
        if (!known) {
            *seen = realloc(*seen, (*n_seen + 1) * sizeof **seen);
            (*seen)[(*n_seen)++] = strdup(names[k]);
            (*ever)++;
        }
    }
    for (size_t i = 0; i < n_ids; i++) {
        for (uint32_t f = 0; f < m[i].n_shared; f++) {
            bool present = false;
            for (size_t k = 0; k < n && !present; k++)
                present = !strcmp(names[k], m[i].shared[f].name + 7);
            cr_assert(present, "%s is listed by chk-%llu but missing",
                      m[i].shared[f].name, (unsigned long long)ids[i]);
        }
        weir__ckpt_meta_fini(&m[i]);
    }
    weir__storage_free_names(names, n);
}

Test(incremental, retention_removes_exactly_the_unreferenced_shared_files)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    reference();
    g_retain = 2;
    ijob *j = start(1, "rocksdb", true, N_KEYS);
    wait_produced(N_KEYS);
    uint64_t ids[64];
    size_t ever = 0, n_seen = 0;
    char **seen = NULL;
    ids[0] = checkpoint(j, 0, NULL);
    check_shared_exact(ids, 1, &ever, &seen, &n_seen);
    /*
     * Each checkpoint flushes a new level-0 file; after a few RocksDB
     * compacts them (in the background), and the files it replaced drop
     * out. Go on until that was seen (a loaded machine compacts late).
     */
    uint64_t at = N_KEYS;
    size_t now = 0;
    uint64_t last = ids[0];
    for (int n = 1; n < 64 && at + 300 <= 20000; n++) {
        at += 300;
        run_to(at);
        last = ids[n] = checkpoint(j, 0, NULL);
        check_shared_exact(ids + n - 1, 2, &ever, &seen, &n_seen);
        char **names;
        now = list_shared(&names);
        weir__storage_free_names(names, now);
        if (n >= 8 && ever > now)
            break;
    }
    cr_assert_gt(ever, now,
                 "%zu shared files were written and %zu are left: retention "
                 "removed none",
                 ever, now);
    /* A restart: the retained checkpoints of the earlier run still count. */
    ijob_destroy(j);
    j = start(1, "rocksdb", true, UINT64_MAX);
    uint64_t next = checkpoint(j, 0, NULL);
    uint64_t pair[2] = {last, next};
    check_shared_exact(pair, 2, &ever, &seen, &n_seen);
    finish(j);
    check_output();
    for (size_t i = 0; i < n_seen; i++)
        free(seen[i]);
    free(seen);
}

Test(incremental, a_corrupt_shared_file_falls_back_to_the_previous_checkpoint)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    reference();
    g_retain = 2;
    ijob *j = start(2, "rocksdb", true, N_KEYS);
    wait_produced(N_KEYS);
    uint64_t a = checkpoint(j, 0, NULL);
    run_to(N_KEYS + 500);
    uint64_t b = checkpoint(j, 0, NULL);
    ijob_destroy(j);

    /* Flip a byte of a shared file that only B needs. */
    weir__ckpt_meta ma = read_meta(a), mb = read_meta(b);
    const char *victim = NULL;
    for (uint32_t i = 0; i < mb.n_shared && !victim; i++)
        if (!listed(&ma, mb.shared[i].name + 7))
            victim = mb.shared[i].name;
    cr_assert_not_null(victim, "B uploaded no file of its own");
    char path[700];
    snprintf(path, sizeof path, "%s/%s", g_ckpt, victim);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 100, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, 100, SEEK_SET);
    fputc(ch ^ 0x40, f);
    fclose(f);
    weir__ckpt_meta_fini(&ma);
    weir__ckpt_meta_fini(&mb);

    j = start(2, "rocksdb", true, UINT64_MAX);
    char want[128];
    snprintf(want, sizeof want, "checkpoint chk-%llu is unusable",
             (unsigned long long)b);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    cr_assert(strstr(g_log.text, "shared file"), "%s", g_log.text);
    snprintf(want, sizeof want, "restoring from checkpoint chk-%llu",
             (unsigned long long)a);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    finish(j);
    check_output();
}

Test(incremental, rescale_1_then_4_then_2)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    reference();
    ijob *j = start(1, "rocksdb", true, 9000);
    wait_produced(9000);
    uint64_t id = checkpoint(j, 0, NULL);
    ijob_destroy(j);
    weir__ckpt_meta m = read_meta(id);
    cr_assert_gt(m.n_shared, 0, "not an incremental checkpoint");
    weir__ckpt_meta_fini(&m);

    j = start(4, "rocksdb", true, 17000);
    wait_produced(17000 - 9000);
    id = checkpoint(j, 0, NULL);
    ijob_destroy(j);
    m = read_meta(id);
    cr_assert_gt(m.n_shared, 0);
    weir__ckpt_meta_fini(&m);

    j = start(2, "rocksdb", true, UINT64_MAX);
    finish(j);
    check_output();
}

Test(incremental, restore_into_the_memory_backend)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    reference();
    ijob *j = start(2, "rocksdb", true, 12000);
    wait_produced(12000);
    checkpoint(j, 0, NULL);
    ijob_destroy(j);
    j = start(3, "memory", true, UINT64_MAX);
    cr_assert(strstr(g_log.text, "restoring from checkpoint"), "%s",
              g_log.text);
    finish(j);
    check_output();
}

Test(incremental, savepoints_stay_canonical)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    reference();
    ijob *j = start(2, "rocksdb", true, 10000);
    wait_produced(10000);
    checkpoint(j, 0, NULL);
    char path[700];
    weir_error err;
    cr_assert_eq(weir_job_savepoint(j->job, NULL, path, sizeof path, &err), 0,
                 "%s", err.message);
    ijob_destroy(j);
    weir__storage *s;
    cr_assert_eq(weir__storage_local_create(g_sp, &s), 0);
    const char *base = strrchr(path, '/') + 1;
    weir__ckpt_meta m;
    weir_error e;
    cr_assert_eq(weir__ckpt_verify(s, base, &m, &e), 0, "%s", e.message);
    cr_assert_eq(m.n_shared, 0, "a savepoint refers to shared files");
    weir__ckpt_meta_fini(&m);
    weir__storage_destroy(s);
    /* It restores on its own, into the memory backend at parallelism 1. */
    cj_rmtree(g_ckpt);
    atomic_store(&g_limit, UINT64_MAX);
    atomic_store(&g_produced, 0);
    ijob *r = build(1, "memory", g_out);
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    c.dir = g_ckpt;
    c.log = cj_log_line;
    c.log_ud = &g_log;
    c.restore = WEIR_RESTORE_PATH;
    c.restore_path = path;
    cr_assert_eq(weir_job_enable_checkpoints(r->job, &c, &err), 0, "%s",
                 err.message);
    cr_assert_eq(weir_job_start(r->job), 0);
    finish(r);
    check_output();
}

static _Atomic int g_fail_writes;

/*
 * Which descriptors are checkpoint files: the injected ENOSPC is meant for
 * checkpoint storage, and the file sink's writes go through the same table.
 */
static _Atomic bool g_is_ckpt_fd[4096];

static int tracking_open(const char *path, int flags, int mode)
{
    int fd = open(path, flags | O_CLOEXEC, mode);
    if (fd < 0)
        return -errno;
    if (fd < 4096)
        atomic_store(&g_is_ckpt_fd[fd],
                     strncmp(path, g_ckpt, strlen(g_ckpt)) == 0);
    return fd;
}

static bool is_ckpt_fd(int fd)
{
    return fd >= 0 && fd < 4096 && atomic_load(&g_is_ckpt_fd[fd]);
}

static ssize_t enospc_write(int fd, const void *p, size_t n)
{
    if (is_ckpt_fd(fd) && atomic_load(&g_fail_writes) > 0) {
        atomic_fetch_sub(&g_fail_writes, 1);
        return -ENOSPC;
    }
    ssize_t w = write(fd, p, n);
    return w < 0 ? -errno : w;
}

Test(incremental, a_failed_upload_fails_that_checkpoint_only)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    reference();
    weir__io_ops.open = tracking_open;
    weir__io_ops.write = enospc_write;
    ijob *j = start(2, "rocksdb", true, N_KEYS);
    wait_produced(N_KEYS);
    checkpoint(j, 0, NULL);
    run_to(N_KEYS + 300);
    /* The first write of the next checkpoint is a shared file's upload. */
    atomic_store(&g_fail_writes, 1);
    uint64_t failed = checkpoint(j, WEIR_ENOSPC, NULL);
    run_to(N_KEYS + 600);
    uint64_t good = checkpoint(j, 0, NULL);
    cr_assert_gt(good, failed);
    ijob_destroy(j);
    j = start(2, "rocksdb", true, UINT64_MAX);
    char want[64];
    snprintf(want, sizeof want, "restoring from checkpoint chk-%llu",
             (unsigned long long)good);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    finish(j);
    check_output();
}

Test(incremental, metadata_with_shared_files_round_trips_and_detects_damage)
{
    weir__ckpt_meta m = {.id = 9, .time_ms = 5, .max_parallelism = 128};
    cr_assert_eq(weir__ckpt_meta_add(&m, "gen -> counter", 1, 0, 2,
                                     "t1-s0.snap", 1234, 0xabcdef01u),
                 0);
    cr_assert_eq(weir__ckpt_meta_add_shared(&m, "shared/r9-t1-s0-n1-000012.sst",
                                            1, 0, 4096, 0x12345678u),
                 0);
    cr_assert_eq(weir__ckpt_meta_add_shared(&m, "shared/r9-t1-s1-n1-000013.sst",
                                            1, 1, 8192, 0x9abcdef0u),
                 0);
    cr_assert_eq(weir__ckpt_meta_size(&m), 1234 + 4096 + 8192);
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir__ckpt_meta_encode(&m, &b), 0);
    weir__ckpt_meta d;
    weir_error e;
    cr_assert_eq(weir__ckpt_meta_decode(b.data, b.len, &d, &e), 0, "%s",
                 e.message);
    cr_assert_eq(d.n_shared, 2);
    cr_assert_str_eq(d.shared[1].name, "shared/r9-t1-s1-n1-000013.sst");
    cr_assert_eq(d.shared[1].subtask, 1);
    cr_assert_eq(d.shared[1].size, 8192);
    cr_assert_eq(d.shared[1].crc, 0x9abcdef0u);
    weir__ckpt_meta_fini(&d);
    /* Every flipped byte and every truncation is detected. */
    for (size_t i = 0; i < b.len; i++) {
        b.data[i] ^= 0x20;
        cr_assert_neq(weir__ckpt_meta_decode(b.data, b.len, &d, &e), 0,
                      "byte %zu", i);
        b.data[i] ^= 0x20;
    }
    for (size_t n = 0; n < b.len; n++)
        cr_assert_neq(weir__ckpt_meta_decode(b.data, n, &d, &e), 0);
    weir_buf_fini(&b);
    /* A shared name leading out of shared/ is refused, CRC or not. */
    weir__ckpt_meta_fini(&m);
    m = (weir__ckpt_meta){.id = 9, .max_parallelism = 128};
    cr_assert_eq(
        weir__ckpt_meta_add_shared(&m, "shared/../chk-3/_metadata", 1, 0, 1, 1),
        0);
    weir_buf_init(&b);
    cr_assert_eq(weir__ckpt_meta_encode(&m, &b), 0);
    cr_assert_eq(weir__ckpt_meta_decode(b.data, b.len, &d, &e), WEIR_ECORRUPT);
    weir_buf_fini(&b);
    weir__ckpt_meta_fini(&m);
    /* Without shared files the format stays version 2, readable as before. */
    m = (weir__ckpt_meta){.id = 9, .max_parallelism = 128};
    weir_buf_init(&b);
    cr_assert_eq(weir__ckpt_meta_encode(&m, &b), 0);
    cr_assert_eq(b.data[8], 2);
    weir_buf_fini(&b);
    weir__ckpt_meta_fini(&m);
}
