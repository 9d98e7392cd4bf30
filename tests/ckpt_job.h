/*
 * tests/ckpt_job.h - the job the checkpoint and crash tests run, and the
 * helpers around it (header-only, shared by tests/test_checkpoint*.c and
 * tests/test_crash*.c).
 *
 * The job: a CSV file of (k STRING, v BIGINT, ts TIMESTAMP(3)) rows, read
 * as one split with a bounded-out-of-orderness watermark -> a keyed tumbling
 * window counting and summing v per key -> the file sink (JSON lines, part
 * files committed on checkpoints). Its visible output is a multiset of lines
 * that does not depend on parallelism, batch size or timing (DESIGN.md:
 * determinism with a single source split), so any run - killed, restored,
 * rescaled - must produce exactly the lines of an uninterrupted run.
 *
 * The input has a few late records (far behind the watermark) so that
 * late-data decisions after a restore are checked too: they must be dropped
 * exactly as in the uninterrupted run.
 */
#ifndef WEIR_TESTS_CKPT_JOB_H
#define WEIR_TESTS_CKPT_JOB_H

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "weir/checkpoint.h"
#include "weir/connector.h"
#include "weir/weir.h"
#include "weir/window.h"

#define CJ_WINDOW_MS 10000
#define CJ_JITTER_MS 300

typedef struct cj_gen cj_gen;

typedef struct cj_params {
    const char *input; /* a CSV file, or NULL to use gen */
    const cj_gen
        *gen; /* the generator source (borrowed; must outlive the job) */
    const char *out_dir;
    /* The file sink's job_id (NULL: state_dir): names the job across runs,
     * so a run cleans up what runs killed before a checkpoint left. */
    const char *job_id;
    const char *state_backend; /* "memory" or "rocksdb" */
    const char *state_dir;
    uint32_t parallelism;     /* of the window and the sink */
    uint32_t batch_size;      /* 0: 1024 */
    size_t read_buffer_bytes; /* 0: the source's default */
    /* The file read as byte ranges of this size (0: one split). The one
     * source subtask reads them one after the other as one sequence, so the
     * output is that of the file read whole. */
    uint64_t split_size;
    uint64_t roll_bytes;      /* 0: the sink's default */
    weir_clock clock;         /* now_ms NULL: system */
    /*
     * Failure injection: when fail_after_rows > 0, an identity map after the
     * source fails the job once (*failed_once records it) after that many
     * rows.
     */
    uint64_t fail_after_rows;
    _Atomic int *failed_once;
    /*
     * When set, the identity map holds each batch while *hold is non-zero
     * (it sets 1 to 2 once it holds one).
     */
    _Atomic int *hold;
    int64_t window_ms; /* 0: CJ_WINDOW_MS */
    uint32_t max_parallelism; /* key groups; 0: the default (128) */
    bool blackhole; /* a blackhole sink instead of the file sink (benchmarks) */
    uint64_t
        *blackhole_rows; /* with blackhole: rows it received are added here */
} cj_params;

typedef struct cj_fail {
    uint64_t after;
    _Atomic uint64_t seen;
    _Atomic int *failed_once;
    _Atomic int *hold;
} cj_fail;

static int cj_fail_map(void *ud, const weir_batch *in, weir_batch *out)
{
    cj_fail *f = ud;
    uint64_t seen = atomic_fetch_add(&f->seen, in->n_rows) + in->n_rows;
    if (f->failed_once && f->after && seen >= f->after &&
        atomic_exchange(f->failed_once, 1) == 0)
        return WEIR_EIO; /* an injected task failure, once */
    int one = 1;
    if (f->hold)
        atomic_compare_exchange_strong(f->hold, &one, 2); /* 2: holding now */
    while (f->hold && atomic_load(f->hold)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL); /* a slow or stuck operator: barriers wait */
    }
    return weir_batch_copy(out, in);
}

/* A built job and what must outlive it. */
typedef struct cj_job {
    weir_job *job;
    weir_schema *in;
    weir_agg aggs[2];
    cj_fail fail;
} cj_job;

/* Row i of the input: key, value and event time (~i ms, jittered; about 1 in
 * 1000 is late). */
static inline void cj_row(uint64_t seed, uint64_t i, uint32_t n_keys,
                          uint32_t *key, int64_t *v, int64_t *ts)
{
    uint64_t x =
        (seed + 1) * 0x9E3779B97F4A7C15ull ^ (i + 1) * 0xD1B54A32D192ED03ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    *key = (uint32_t)(x % n_keys);
    *v = (int64_t)((x >> 8) % 1000);
    *ts = 1000000 + (int64_t)i + (int64_t)((x >> 20) % CJ_JITTER_MS);
    if ((x >> 40) % 997 == 0)
        *ts -= 3 * CJ_WINDOW_MS; /* late: its window fired long ago */
}

/* Writes rows [0, n) as CSV lines "k<key>,<v>,<ts>". */
static inline int cj_generate(const char *path, uint64_t n, uint32_t n_keys,
                              uint64_t seed)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    char line[96];
    static char buf[1 << 16];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t key;
        int64_t v, ts;
        cj_row(seed, i, n_keys, &key, &v, &ts);
        int len = snprintf(line, sizeof line, "k%u,%lld,%lld\n", key,
                           (long long)v, (long long)ts);
        fwrite(line, 1, (size_t)len, f);
    }
    return fclose(f);
}

/*
 * A generator source with the same rows, one split, position = row index.
 * It produces rows only below *limit (when limit is set), returning "nothing
 * now" otherwise, so a test decides exactly where the input pauses; it
 * counts the rows it produced in *produced.
 */
struct cj_gen {
    uint64_t n, seed;
    uint32_t n_keys;
    bool sequential_keys; /* key = row index mod n_keys (every key early, once
                             per lap) */
    _Atomic uint64_t *limit;
    _Atomic uint64_t *produced;
};

typedef struct cj_gen_src {
    const cj_gen *g;
    bool own_split, discovered;
} cj_gen_src;

typedef struct cj_gen_reader {
    const cj_gen *g;
    uint64_t pos;
} cj_gen_reader;

static int cj_gen_create(void *arg, const weir_source_info *info, void **out,
                         weir_error *err)
{
    cj_gen_src *s = calloc(1, sizeof *s);
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    s->g = arg;
    s->own_split = info->subtask == 0;
    *out = s;
    return 0;
}

static int cj_gen_discover(void *src, const char ***ids, uint32_t *n,
                           bool *done, weir_error *err)
{
    static const char *split[] = {"gen"};
    cj_gen_src *s = src;
    *done = true;
    *n = 0;
    if (s->own_split && !s->discovered) {
        *ids = split;
        *n = 1;
    }
    s->discovered = true;
    return 0;
}

static int cj_gen_open(void *src, const char *id, const void *pos,
                       size_t pos_len, void **out, weir_error *err)
{
    cj_gen_reader *r = calloc(1, sizeof *r);
    if (!r)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    r->g = ((cj_gen_src *)src)->g;
    if (pos && pos_len == 8)
        memcpy(&r->pos, pos, 8);
    *out = r;
    return 0;
}

static int cj_gen_read(void *reader, weir_batch *out, uint32_t max_rows,
                       weir_error *err)
{
    cj_gen_reader *r = reader;
    const cj_gen *g = r->g;
    if (r->pos >= g->n)
        return WEIR_EOF;
    uint64_t end = g->n;
    if (g->limit && *g->limit < end)
        end = *g->limit;
    uint32_t k = 0;
    char kb[16];
    while (k < max_rows && r->pos < end) {
        uint32_t key;
        int64_t v, ts;
        cj_row(g->seed, r->pos, g->n_keys, &key, &v, &ts);
        if (g->sequential_keys)
            key = (uint32_t)(r->pos % g->n_keys);
        int row = weir_batch_append_row(out);
        if (row < 0)
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        int len = snprintf(kb, sizeof kb, "k%u", key);
        weir_batch_set_str(out, 0, (uint32_t)row, kb, (size_t)len);
        WEIR_COL_I64(out, 1)[row] = v;
        WEIR_COL_I64(out, 2)[row] = ts;
        r->pos++;
        k++;
    }
    if (g->produced)
        *g->produced += k;
    return (int)k;
}

static int cj_gen_position(void *reader, weir_buf *out)
{
    cj_gen_reader *r = reader;
    return weir_buf_put(out, &r->pos, 8);
}

static void cj_gen_close(void *reader)
{
    free(reader);
}
static void cj_gen_destroy(void *src)
{
    free(src);
}

static const weir_source_class cj_gen_class = {
    .name = "gen",
    .create = cj_gen_create,
    .discover = cj_gen_discover,
    .open_split = cj_gen_open,
    .read = cj_gen_read,
    .position = cj_gen_position,
    .close_split = cj_gen_close,
    .destroy = cj_gen_destroy,
};

static inline void cj_job_destroy(cj_job *j)
{
    if (!j)
        return;
    weir_job_destroy(j->job);
    weir_schema_destroy(j->in);
    free(j);
}

static inline int cj_job_build(const cj_params *p, cj_job **out,
                               weir_error *err)
{
    cj_job *j = calloc(1, sizeof *j);
    if (!j)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.parallelism = 1;
    jc.batch_size = p->batch_size ? p->batch_size : 1024;
    if (p->clock.now_ms)
        jc.clock = p->clock;
    jc.state_backend = p->state_backend ? p->state_backend : "memory";
    jc.state_dir = p->state_dir;
    if (p->max_parallelism)
        jc.max_parallelism = p->max_parallelism;
    int rc = weir_job_create(&jc, &j->job);
    if (rc) {
        free(j);
        return weir_error_set(err, rc, "cannot create the job");
    }
    j->in = weir_schema_create();
    weir_schema_add(j->in, "k", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(j->in, "v", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(j->in, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    j->in->rowtime = 2;

    weir_source_spec src = {.name = "gen",
                            .cls = &cj_gen_class,
                            .arg = (void *)p->gen,
                            .schema = j->in};
    if (p->input) {
        weir_file_source_config fc;
        weir_file_source_config_init(&fc);
        fc.path = p->input;
        weir_format_options_init(&fc.format, WEIR_FORMAT_CSV);
        fc.read_buffer_bytes = p->read_buffer_bytes;
        fc.split_size_bytes = p->split_size;
        if ((rc = weir_file_source_spec(&fc, j->in, &src, err)))
            goto fail;
    }
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED,
                              .delay_ms = CJ_JITTER_MS};
    weir_stream s, w;
    if ((rc = weir_job_source(j->job, &src, &wm, 1, &s)))
        goto fail_job;
    if (p->fail_after_rows || p->hold) {
        j->fail.after = p->fail_after_rows;
        j->fail.failed_once = p->failed_once;
        j->fail.hold = p->hold;
        if ((rc = weir_job_map(j->job, s, j->in, cj_fail_map, &j->fail, &s)))
            goto fail_job;
    }

    weir_window_spec ws;
    weir_window_spec_init(&ws);
    ws.assigner =
        weir_window_tumbling(p->window_ms ? p->window_ms : CJ_WINDOW_MS, 0);
    ws.key.n = 1;
    ws.key.cols[0] = 0;
    if ((rc = weir_agg_bind("COUNT", j->in, -1, 0, &j->aggs[0], err)) ||
        (rc = weir_agg_bind("SUM", j->in, 1, 0, &j->aggs[1], err)))
        goto fail;
    ws.aggs = j->aggs;
    ws.n_aggs = 2;
    static const char *const names[] = {"cnt", "total"};
    ws.agg_names = names;
    if ((rc = weir_job_window(j->job, s, j->in, &ws, p->parallelism, &w, err)))
        goto fail;

    weir_operator_spec sink;
    if (p->blackhole) {
        weir_blackhole_sink_config bc = {.row_counter = p->blackhole_rows};
        if ((rc = weir_blackhole_sink_spec(&bc, &sink, err)))
            goto fail;
    } else {
        weir_file_sink_config sc;
        weir_file_sink_config_init(&sc);
        sc.path = p->out_dir;
        sc.job_id = p->job_id ? p->job_id : p->state_dir;
        weir_format_options_init(&sc.format, WEIR_FORMAT_JSON);
        sc.commit_on_checkpoint = true;
        sc.rolling_file_size = p->roll_bytes;
        sc.rollover_interval_ms = -1;
        if ((rc = weir_file_sink_spec(&sc, &sink, err)))
            goto fail;
    }
    if ((rc = weir_job_sink(j->job, w, &sink, p->parallelism)))
        goto fail_job;
    *out = j;
    return 0;
fail_job:
    weir_error_set(err, rc, "%s", weir_job_error(j->job));
fail:
    cj_job_destroy(j);
    return rc;
}

/* ---- output ---- */

typedef struct cj_lines {
    char **v;
    size_t n, cap;
} cj_lines;

static inline void cj_lines_free(cj_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cj_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Reads every visible part file of dir (names not starting with '.') into
 * sorted lines. *hidden (if not NULL) gets the number of hidden part files.
 */
static inline int cj_read_output(const char *dir, cj_lines *out, size_t *hidden)
{
    memset(out, 0, sizeof *out);
    if (hidden)
        *hidden = 0;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    struct dirent *e;
    char path[4400], *line = NULL;
    size_t cap = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') {
            if (hidden && strncmp(e->d_name, ".part-", 6) == 0)
                (*hidden)++;
            continue;
        }
        snprintf(path, sizeof path, "%.4000s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        ssize_t n;
        while ((n = getline(&line, &cap, f)) > 0) {
            if (out->n == out->cap) {
                out->cap = out->cap ? out->cap * 2 : 1024;
                out->v = realloc(out->v, out->cap * sizeof *out->v);
            }
            out->v[out->n++] = strndup(line, (size_t)n);
        }
        fclose(f);
    }
    free(line);
    closedir(d);
    qsort(out->v, out->n, sizeof *out->v, cj_cmp_str);
    return 0;
}

/* 0 if a and b hold the same lines; else describes the first difference in why.
 */
static inline int cj_lines_diff(const cj_lines *a, const cj_lines *b, char *why,
                                size_t cap)
{
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int c = strcmp(a->v[i], b->v[j]);
        if (c == 0) {
            i++;
            j++;
            continue;
        }
        snprintf(why, cap, "%zu vs %zu lines; first difference: %s %s", a->n,
                 b->n,
                 c < 0 ? "missing:" : "extra:", c < 0 ? a->v[i] : b->v[j]);
        return 1;
    }
    if (i < a->n || j < b->n) {
        snprintf(
            why, cap, "%zu vs %zu lines; first difference: %s %s", a->n, b->n,
            i < a->n ? "missing:" : "extra:", i < a->n ? a->v[i] : b->v[j]);
        return 1;
    }
    return 0;
}

/* rm -r (test cleanup). */
static inline void cj_rmtree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    char child[4400];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(child, sizeof child, "%.4000s/%s", path, e->d_name);
        struct stat st;
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
            cj_rmtree(child);
        else
            unlink(child);
    }
    closedir(d);
    rmdir(path);
}

/*
 * Whether the committed output under dir holds exactly the lines of ref and
 * no hidden part file is left behind: 0, or 1 with why says what differs.
 */
static inline int cj_output_matches(const char *dir, const cj_lines *ref,
                                    char *why, size_t cap)
{
    cj_lines got;
    size_t hidden;
    if (cj_read_output(dir, &got, &hidden)) {
        snprintf(why, cap, "cannot read the output under %s", dir);
        return 1;
    }
    int d = cj_lines_diff(ref, &got, why, cap);
    cj_lines_free(&got);
    if (!d && hidden) {
        snprintf(why, cap, "%zu hidden part files left behind", hidden);
        d = 1;
    }
    return d;
}

/* Waits (real time; a guard, never a way to let time pass) until *produced
 * reaches n, at most timeout_ms (0: no limit). Whether it did. */
static inline bool cj_wait_produced(_Atomic uint64_t *produced, uint64_t n,
                                    int timeout_ms)
{
    for (int i = 0; atomic_load(produced) < n; i++) {
        if (timeout_ms && i >= timeout_ms)
            return false;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return true;
}

/* A checkpoint log kept in memory: weir_checkpoint_config.log = cj_log_line
 * with log_ud a cj_log (lines past its size are dropped). */
typedef struct cj_log {
    char text[16384];
    size_t len;
} cj_log;

static inline void cj_log_line(void *ud, const char *line)
{
    cj_log *l = ud;
    int n = snprintf(l->text + l->len, sizeof l->text - l->len, "%s\n", line);
    if (n > 0 && l->len + (size_t)n < sizeof l->text)
        l->len += (size_t)n;
}

static inline void cj_quiet_log(void *ud, const char *line)
{
    FILE *f = ud;
    if (f)
        fprintf(f, "%s\n", line);
}

#ifdef WEIR_BINARY_DIR
/*
 * Runs `weir ARGS` from the build folder (WEIR_BINARY_DIR) and collects its
 * stdout and stderr into out (NUL-terminated, cut at cap - 1 bytes).
 * Returns the exit status, or -1 if it could not run.
 */
static inline int cj_run_cli(const char *args, char *out, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/weir %s 2>&1", WEIR_BINARY_DIR, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return st == -1 ? -1 : WEXITSTATUS(st);
}
#endif

#endif
