/*
 * connector/file/file_sink.c - rows to part files in a directory, as JSON
 * lines, CSV or a debezium-json changelog.
 *
 * Each subtask writes its own part files,
 * "part-<writer>-<run>-<subtask>-<n>.<ext>": <writer> (8 hex digits) is a
 * hash of the job's id and the sink's node id, the same in every run of the
 * job (without a job id: drawn from the first run's id, and carried on by
 * restores through the snapshot); <run> (16 hex digits) is new in every
 * run (every spec); n counts up
 * from 0. So two sinks writing one folder (two INSERTs into one table, two
 * late-row outputs) and two runs never name a file alike, and the files of
 * one writer of one job are known by their name. Opening never overwrites:
 * a name already taken (visible or hidden) is skipped. A file being written
 * is hidden: ".part-<writer>-<run>-<subtask>-<n>.<ext>.inprogress". Its
 * life:
 *
 *   in-progress --roll--> pending --commit--> visible (renamed)
 *
 * A file rolls when it reaches the rolling size, when it has been open for
 * the rollover interval, at the end of input, and (with commit on
 * checkpoint) at every checkpoint. Commit is a rename, done by
 * commit_pending(): right after the roll by default; with
 * commit_on_checkpoint only when the checkpoint that covers the file
 * completes (checkpoint_complete), which is the two-phase commit of
 * DESIGN.md: snapshot() pre-commits (flush, fsync, close, remember the
 * file as pending for that checkpoint), checkpoint_complete() commits, and
 * restore() commits what the restored checkpoint covers and deletes the
 * hidden files written after it. The snapshot names every pending file in
 * full and the writer and run that wrote them, so a restore in a later run
 * (another <run>) commits exactly those names, then deletes that subtask
 * index's hidden files of the run that took the checkpoint and of every
 * other earlier run of the same writer - never a file of another writer. A
 * fresh start (no restored state) deletes this writer's earlier runs'
 * hidden files the same way when the job's id is known. The snapshot also
 * carries the history of its runs (run id, files opened by then): a
 * restore of an older checkpoint deletes the writer's visible files that
 * history does not cover (committed by a later checkpoint of a run that
 * went on past it), since a new run's names never overwrite them. A
 * subtask index without restored state (a scale-up) reads the runs of every
 * restored state (union state, restore_union) and deletes its visible files
 * of runs not among them: a run that restored the same savepoint before.
 * Commit checks every file it is about to rename first, so a commit that
 * must fail (a file missing) makes none of that checkpoint's files visible.
 *
 * Partitioned (PARTITIONED BY): each row goes to the folder
 * path/<key>=<value>/... of its partition values, without the key columns.
 * Every folder in use is a bucket with its own in-progress file; pending
 * files of all buckets are in the one pending list, named relative to the
 * path, so the commit protocol above is the same. With the success-file
 * policy a bucket also remembers that its partition is to be committed:
 * once its trigger fired (watermark past the partition time + delay, or
 * clock past its creation + delay) and it has no open or pending file, an
 * empty success file is written into its folder. Idle buckets are dropped.
 *
 * Object storage (path s3://bucket/prefix, util/s3.h): S3 has no rename,
 * but a multipart upload is invisible until completed, which is the same
 * life. An in-progress file is a multipart upload of its key (the visible
 * name): encoded bytes are buffered and go up as a part whenever a part's
 * size (s3.upload.min.part.size, 8 MiB) has gathered; a roll uploads the
 * rest as the last part (S3 lets the last part be short), so a pending
 * file is an upload id and the ETags of its parts, which the snapshot
 * holds; commit completes the upload. A restore completes the uploads of
 * the pending files it lists (an upload already completed is found by its
 * object), and aborts this writer's other uploads (ListMultipartUploads;
 * a server that cannot list uploads keeps them until a bucket lifecycle
 * rule removes them) and deletes its uncovered objects, as above. There is
 * no folder lock on object storage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "connector/connector_internal.h"
#include "connector/file/fileio.h"
#include "format/convert.h"
#include "weir/expr.h"
#include "runtime/checkpoint.h"
#include "time/timefmt.h"
#include "util/dirlock.h"
#include "util/hex.h"
#include "util/s3.h"

#define DEFAULT_ROLL_SIZE (UINT64_C(128) << 20)
#define DEFAULT_ROLLOVER_MS (30 * 60 * 1000)
#define WRITE_CHUNK (256u << 10)
#define DEFAULT_PARTITION_NAME "__DEFAULT_PARTITION__"
#define DEFAULT_SUCCESS_NAME "_SUCCESS"
/* 2 adds the subtask index: after a scale-down a subtask adopts others' files.
 * 3 adds partition folders to pending names and the uncommitted partitions.
 * 4 adds the writer and run of the file names (part-<writer>-<run>-...)
 * and the history of runs: u32 n, n x (u64 run, u64 next part number).
 * 5 adds to each pending file its multipart upload on object storage: str
 * upload id ("" for a local file), u32 n, n x str ETag of parts 1..n.
 * 6 adds to each pending file u64 the bytes of its parts (object storage:
 * a completed object must hold them all).
 * 7 adds after the history the runs known to come before the checkpoint
 * (any subtask index): u32 n, n x u64 run. */
#define SNAPSHOT_VERSION 7
/* A pending file's size when the snapshot did not say (version 5). */
#define SIZE_UNKNOWN UINT64_MAX
/* The descriptor of an in-progress file on object storage (an upload). */
#define S3_FD INT32_MAX
/* Bytes an in-progress upload may hold back while its parts fail. */
#define S3_MAX_BUFFERED (UINT64_C(256) << 20)

typedef struct fsink_arg {
    weir_file_sink_config cfg;
    char *path;
    char *null_literal;
    char **keys;
    char *default_name;
    char *success_name;
    char *time_pattern;
    char *job_id; /* NULL: unknown, no clean-up of earlier runs' files */
    uint64_t run; /* this run's <run> in file names */
} fsink_arg;

typedef struct pending_file {
    char *name;    /* visible name relative to the path, "dt=x/part-0-3.json" */
    uint64_t ckpt; /* checkpoint that covers it, if tagged */
    bool tagged;
    bool done; /* committed, to be forgotten */
    bool restored; /* from a restored snapshot: may be committed already */
    char *upload;  /* object storage: the multipart upload, else NULL */
    char **etags;  /* its parts' ETags */
    uint32_t n_etags;
    uint64_t size; /* the bytes of its parts, or SIZE_UNKNOWN */
} pending_file;

/*
 * One output folder: the table's path itself, or one partition under it.
 * It holds at most one in-progress file. A bucket lives while it has an
 * open file, pending files, or (with a commit policy) a partition commit
 * still to do; then it is dropped, so idle partitions cost nothing.
 */
typedef struct bucket {
    char *rel; /* "" or "dt=2024-01-01/hm=10%3A00" */
    char *dir; /* path or path/rel */
    uint64_t hash;
    int fd;         /* the in-progress file (S3_FD: an upload), or -1 */
    char *upload;   /* object storage: the upload's id */
    char **etags;   /* and its parts uploaded so far */
    uint32_t n_etags, cap_etags;
    uint64_t up_bytes; /* the bytes of those parts */
    char *cur_name; /* its visible name, relative to path */
    uint64_t cur_bytes;
    int64_t cur_opened_ms;
    weir_buf buf;       /* encoded bytes not yet written */
    uint32_t n_pending; /* pending files in this folder */
    int64_t created_ms; /* processing time it was first written */
    int64_t part_time;  /* extracted partition time (partition-time) */
    bool to_commit;     /* data written since its last partition commit */
    bool dir_made;
} bucket;

/* One run in the history of a subtask's state: its files numbered below
 * next_part were opened before the checkpoint that holds this entry. */
typedef struct run_mark {
    uint64_t run;
    uint64_t next_part;
} run_mark;

typedef struct wm_mark {
    uint64_t ckpt;
    weir_ts wm;
} wm_mark;

typedef struct file_sink {
    weir_error err; /* first member: see weir__sink_last_error */
    const fsink_arg *arg;
    uint32_t subtask;
    uint32_t par;    /* the number of subtasks (of every process) */
    uint32_t writer; /* <writer> in file names: job id and node id */
    weir_encoder *enc;
    weir_schema *data_schema; /* the columns written (no partition keys) */
    int32_t *data_cols;       /* their indexes in the input */
    int32_t *key_cols;        /* partition key indexes in the input */
    weir_column *view_cols;
    weir_clock clock;
    uint64_t roll_size;
    int64_t rollover_ms;
    uint64_t next_part;
    bucket **buckets;
    uint32_t n_buckets, cap_buckets;
    bucket *last;
    weir_buf key; /* scratch: the partition folder of the current row */
    pending_file *pending;
    uint32_t n_pending, cap_pending;
    wm_mark *marks; /* watermark at each snapshot not yet completed */
    uint32_t n_marks, cap_marks;
    weir_ts wm;
    uint64_t rows;
    uint64_t committed; /* files made visible */
    uint64_t partitions_committed;
    run_mark *runs; /* the runs before this one in this state's history */
    uint32_t n_runs;
    /* Runs of this writer known to come before this run's checkpoints, of
     * any subtask index: the union of the restored checkpoint's histories,
     * or, at a fresh start, the runs of the files already visible. */
    uint64_t *known;
    uint32_t n_known, cap_known;
    bool unioned; /* restore_union ran: the job restores a checkpoint */
    bool restored; /* restore() ran: it dealt with the hidden files */
    bool swept;    /* hidden files of a crashed earlier run removed */
    bool noted;    /* note_visible ran: earlier runs' files in the history */
    bool departed_swept; /* and again at the first checkpoint completed */
    /* Subtask indexes whose state this one adopted (a scale-down), with
     * their writer: their hidden files are deleted again at the first
     * checkpoint completed after the restore, since a process leaving the
     * job may have opened one after the restore deleted them. */
    struct adopted {
        uint32_t idx, writer;
    } *adopted;
    uint32_t n_adopted;
    bool ended;    /* input ended: every partition may commit */
    weir__dirlock *lock; /* on the table's folder: one process commits */
    bool shared;         /* one of several processes of a job: no lock */
    weir__s3 *s3;        /* the path is on object storage */
    /*
     * A write or sync failed at a checkpoint barrier. The runtime declines
     * that checkpoint and goes on, but the part file's data is lost or in
     * doubt, so every later call fails with this code (s->err keeps the
     * message): the job fails and its restart replays from the last
     * checkpoint, instead of going on without those rows.
     */
    int broken;
} file_sink;

/* Object storage (the path is s3://...): below, after abort_uncovered. */
typedef struct abort_ctx abort_ctx;
static int s3s_open(file_sink *s);
static int s3s_exists(file_sink *s, const char *rel, bool *yes);
static int s3s_start(file_sink *s, bucket *b);
static int s3s_write(file_sink *s, bucket *b, bool last);
static int s3s_commit(file_sink *s, const pending_file *p);
static void s3s_drop(file_sink *s, bucket *b);
static int s3s_success(file_sink *s, bucket *b);
static int s3s_abort_uncovered(file_sink *s, abort_ctx *ac);
static void s3s_deferred(file_sink *s, const char *again);
static void s3s_start_later(file_sink *s);

static void free_etags(char **etags, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        weir_free(etags[i]);
    weir_free(etags);
}

static void pending_fini(pending_file *p)
{
    weir_free(p->name);
    weir_free(p->upload);
    free_etags(p->etags, p->n_etags);
}

void weir_file_sink_config_init(weir_file_sink_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    weir_format_options_init(&cfg->format, WEIR_FORMAT_JSON);
}

static void fsink_arg_free(void *p)
{
    fsink_arg *a = p;
    if (a) {
        weir_free(a->path);
        weir_free(a->null_literal);
        for (uint32_t i = 0; a->keys && i < a->cfg.n_partition_keys; i++)
            weir_free(a->keys[i]);
        weir_free(a->keys);
        weir_free(a->default_name);
        weir_free(a->success_name);
        weir_free(a->time_pattern);
        weir_free(a->job_id);
        weir_free(a);
    }
}

weir_format_kind weir__file_sink_format(const weir_operator_spec *spec)
{
    return ((const fsink_arg *)spec->arg)->cfg.format.kind;
}

/* dir + "/" + prefix + name + suffix, in a fresh allocation. */
static char *make_path(const char *dir, const char *prefix, const char *name,
                       const char *suffix)
{
    size_t n = strlen(dir) + strlen(prefix) + strlen(name) + strlen(suffix) + 2;
    char *p = weir_malloc(n);
    if (p)
        snprintf(p, n, "%s/%s%s%s", dir, prefix, name, suffix);
    return p;
}

/* path/<folder of rel>/<prefix><base of rel><suffix>: the hidden or visible
 * name of a file named relative to the table's path. */
static char *make_rel_path(const char *path, const char *rel,
                           const char *prefix, const char *suffix)
{
    const char *slash = strrchr(rel, '/');
    size_t dl = slash ? (size_t)(slash - rel) : 0;
    const char *base = slash ? slash + 1 : rel;
    size_t n =
        strlen(path) + dl + strlen(prefix) + strlen(base) + strlen(suffix) + 3;
    char *p = weir_malloc(n);
    if (p)
        snprintf(p, n, "%s%s%.*s/%s%s%s", path, dl ? "/" : "", (int)dl, rel,
                 prefix, base, suffix);
    return p;
}

static int fail_errno(file_sink *s, const char *what, const char *name, int e)
{
    return weir_error_set(&s->err, weir__fio_errno_code(e),
                          "%s/%s: error: cannot %s: %s", s->arg->path, name,
                          what, strerror(e < 0 ? -e : e));
}

static int oom(file_sink *s)
{
    return weir_error_set(&s->err, WEIR_ENOMEM, "out of memory");
}

/* Hands the instance's error to the runtime (ctx is NULL in unit tests). */
static int report(weir_op_ctx *ctx, file_sink *s, int rc)
{
    if (rc && ctx)
        return weir_op_fail(ctx, rc, "%s",
                            s->err.message[0] ? s->err.message
                                              : weir_strerror(rc));
    return rc;
}

static bool is_key(const fsink_arg *a, const char *name)
{
    for (uint32_t i = 0; i < a->cfg.n_partition_keys; i++)
        if (strcmp(a->keys[i], name) == 0)
            return true;
    return false;
}

static void fsink_close(void *op);

static uint64_t hash_str(const char *p, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)p[i]) * UINT64_C(1099511628211);
    return h;
}

/* <writer>: the job's id (unknown: this run's id) and the sink's node id,
 * folded to 32 bits. */
static uint32_t writer_of(const char *job_id, uint64_t run, uint32_t node_id)
{
    uint64_t h = job_id ? hash_str(job_id, strlen(job_id))
                        : hash_str((const char *)&run, sizeof run);
    h ^= (uint64_t)node_id + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    return (uint32_t)(h ^ (h >> 32));
}

static int fsink_create(void *argp, const weir_op_info *info, void **out)
{
    const fsink_arg *a = argp;
    if (!info || info->n_inputs < 1 || !info->input_schemas ||
        !info->input_schemas[0])
        return WEIR_EINVAL;
    const weir_schema *in = info->input_schemas[0];
    file_sink *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->arg = a;
    /* Among every process's subtasks when several run the job (they may
     * share the folder): names and clean-ups stay apart. */
    s->subtask = info->job_parallelism ? info->job_subtask : info->subtask;
    s->par = info->job_parallelism ? info->job_parallelism : info->parallelism;
    s->shared = info->processes > 1;
    s->writer = writer_of(a->job_id, a->run, info->node_id);
    s->wm = WEIR_TS_MIN;
    s->clock = a->cfg.clock.now_ms ? a->cfg.clock : weir_clock_system();
    s->roll_size =
        a->cfg.rolling_file_size ? a->cfg.rolling_file_size : DEFAULT_ROLL_SIZE;
    s->rollover_ms = a->cfg.rollover_interval_ms ? a->cfg.rollover_interval_ms
                                                 : DEFAULT_ROLLOVER_MS;
    weir_buf_init(&s->key);
    uint32_t nk = a->cfg.n_partition_keys;
    const weir_schema *enc_schema = in;
    int rc = 0;
    if (nk) {
        s->data_schema = weir_schema_create();
        s->data_cols = weir_calloc(in->n_fields + 1, sizeof *s->data_cols);
        s->key_cols = weir_calloc(nk, sizeof *s->key_cols);
        s->view_cols = weir_calloc(in->n_fields + 1, sizeof *s->view_cols);
        if (!s->data_schema || !s->data_cols || !s->key_cols || !s->view_cols) {
            fsink_close(s);
            return WEIR_ENOMEM;
        }
        for (uint32_t k = 0; k < nk; k++) {
            s->key_cols[k] = weir_schema_find(in, a->keys[k]);
            if (s->key_cols[k] < 0) {
                rc = weir_error_set(&s->err, WEIR_EINVAL,
                                    "filesystem sink: partition column '%s' is "
                                    "not a column of the table",
                                    a->keys[k]);
                fsink_close(s);
                return rc;
            }
            weir_type kt = in->fields[s->key_cols[k]].type;
            if (weir_type_nested_id(kt)) {
                /* (the SQL planner refuses it first) */
                char tb[64];
                rc = weir_error_set(
                    &s->err, WEIR_EUNSUPPORTED,
                    "filesystem sink: partition column '%s' has type %s; a "
                    "partition folder names a scalar value",
                    a->keys[k], weir_expr_type_name(kt, 0, tb, sizeof tb));
                fsink_close(s);
                return rc;
            }
        }
        uint32_t nd = 0;
        for (uint32_t i = 0; i < in->n_fields; i++) {
            if (is_key(a, in->fields[i].name))
                continue;
            if (weir_schema_add(s->data_schema, in->fields[i].name,
                                in->fields[i].type) < 0) {
                fsink_close(s);
                return WEIR_ENOMEM;
            }
            s->data_cols[nd++] = (int32_t)i;
        }
        s->data_schema->rowtime = -1;
        enc_schema = s->data_schema;
    }
    rc = weir_encoder_create(&a->cfg.format, enc_schema, &s->enc, &s->err);
    if (rc) {
        fsink_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* Parses the names of snapshot versions 1 to 3, "part-<subtask>-<n>."
 * (after an optional '.'); returns n or -1. */
static int64_t part_number(const char *name, uint32_t subtask)
{
    if (*name == '.')
        name++;
    char prefix[32];
    int pn = snprintf(prefix, sizeof prefix, "part-%u-", subtask);
    if (strncmp(name, prefix, (size_t)pn) != 0)
        return -1;
    const char *p = name + pn;
    if (*p < '0' || *p > '9')
        return -1;
    char *end;
    unsigned long long n = strtoull(p, &end, 10);
    return *end == '.' ? (int64_t)n : -1;
}

/*
 * Calls fn for every file of the table: those in path and, partitioned, in
 * the partition folders (n_keys levels of "key=value" folders below it).
 */
typedef int (*file_fn)(file_sink *s, const char *dir, const char *name,
                       void *ud);
static int s3s_each_object(file_sink *s, file_fn fn, void *ud);

static int walk(file_sink *s, const char *dir, uint32_t depth, file_fn fn,
                void *ud)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (depth > 0 && (errno == ENOENT || errno == ENOTDIR))
            return 0;
        return weir_error_set(&s->err, weir__fio_errno_code(errno),
                              "%s: error: cannot list directory: %s", dir,
                              strerror(errno));
    }
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d)) != NULL) {
        if (depth < s->arg->cfg.n_partition_keys) {
            if (e->d_name[0] == '.' || !strchr(e->d_name, '='))
                continue;
            char *sub = make_path(dir, "", e->d_name, "");
            if (!sub) {
                rc = oom(s);
                break;
            }
            struct stat st;
            if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                rc = walk(s, sub, depth + 1, fn, ud);
            weir_free(sub);
        } else {
            rc = fn(s, dir, e->d_name, ud);
        }
    }
    closedir(d);
    return rc;
}

/* Reads exactly `digits` hex digits (0: one or more decimal digits) at *p,
 * moving *p past them. */
static bool get_num(const char **p, int digits, uint64_t *out)
{
    uint64_t v = 0;
    int n = 0;
    for (const char *q = *p;; q++, n++) {
        int d = digits                     ? weir__hex_value(*q)
                : (*q >= '0' && *q <= '9') ? *q - '0'
                                           : -1;
        if (d < 0 || (digits && n == digits)) {
            if (n == 0 || (digits && n != digits))
                return false;
            *p = q;
            *out = v;
            return true;
        }
        if (!digits && v > (UINT64_MAX - (uint64_t)d) / 10)
            return false;
        v = v * (digits ? 16 : 10) + (uint64_t)d;
    }
}

typedef struct part_name {
    uint32_t writer;
    uint64_t run;
    uint32_t subtask;
    uint64_t n;
} part_name;

/* Parses "part-<writer>-<run>-<subtask>-<n>." after an optional '.'. */
static bool parse_part(const char *name, part_name *out)
{
    const char *p = name + (*name == '.');
    uint64_t w, r, st, n;
    if (strncmp(p, "part-", 5) != 0)
        return false;
    p += 5;
    if (!get_num(&p, 8, &w) || *p++ != '-' || !get_num(&p, 16, &r) ||
        *p++ != '-' || !get_num(&p, 0, &st) || st > UINT32_MAX || *p++ != '-' ||
        !get_num(&p, 0, &n) || *p != '.')
        return false;
    *out = (part_name){(uint32_t)w, r, (uint32_t)st, n};
    return true;
}

static int fsink_open_impl(void *op, weir_op_ctx *ctx)
{
    (void)ctx;
    file_sink *s = op;
    if (weir__fio_is_s3(s->arg->path))
        return s3s_open(s);
    int rc = weir__fio_mkdirs(s->arg->path);
    if (rc)
        return weir_error_set(&s->err, weir__fio_errno_code(rc),
                              "%s: error: cannot create directory: %s",
                              s->arg->path, strerror(-rc));
    /*
     * A second process committing into this folder would interleave its
     * part files and commits with ours (and sweep our hidden files).
     */
    /* The processes of one job may share it: their subtask indexes keep
     * them apart, and their commits follow the job's checkpoints. */
    if (!s->shared && (rc = weir__dirlock_acquire(s->arg->path, "sink folder",
                                                  &s->lock, &s->err)))
        return rc;
    return 0;
}

static int write_out(file_sink *s, bucket *b)
{
    if (b->fd == S3_FD) {
        /* A part that does not go up stays buffered, to be sent again with
         * the next one (the server may be back), up to a bound. */
        int rc = s3s_write(s, b, false);
        return rc == WEIR_EIO && b->buf.len < S3_MAX_BUFFERED ? 0 : rc;
    }
    if (b->buf.len == 0)
        return 0;
    int rc = weir__fio_write_all(b->fd, b->buf.data, b->buf.len);
    if (rc)
        return fail_errno(s, "write", b->cur_name, rc);
    weir_buf_clear(&b->buf);
    return 0;
}

/*
 * Which files abort_uncovered deletes, of subtask index idx: hidden ones
 * with old-style names (old), of the run that took the restored checkpoint
 * (has_run: writer and run), or of any run of writer any_writer (has_any:
 * this job's earlier runs); and with `marks` (the restored state's history,
 * any_writer being its writer) also visible files of any_writer that the
 * history does not cover: output committed after the restored checkpoint,
 * by a run that went on past it.
 */
struct abort_ctx {
    uint32_t idx;
    bool old;
    bool has_run;
    uint32_t writer;
    uint64_t run;
    bool has_any;
    uint32_t any_writer;
    const run_mark *marks;
    uint32_t n_marks;
    /* With has_any, par (the number of subtasks now): also the hidden files
     * of any_writer with an index >= par that is idx modulo par - of a
     * subtask no process runs any more, dealt out as its state would be
     * (departed_only: those alone). */
    uint32_t par;
    bool departed_only;
    /* With known (the union of the restored histories, n_old the number of
     * subtasks that took the checkpoint): visible files of any_writer alone,
     * of the indexes >= n_old (no restored state) that subtask idx stands
     * for (its own; those >= par dealt out modulo par), whose run is
     * neither known nor this one (now): committed by a run that went on
     * past the restored checkpoint, or restored it before. */
    const uint64_t *known;
    uint32_t n_known, n_old;
    uint64_t now;
};
static int abort_uncovered(file_sink *s, abort_ctx *ac);

/* The subtask (of par) that cleans up after subtask index idx: itself, or
 * for an index no subtask runs any more, idx mod par. */
static uint32_t owner_of(uint32_t idx, uint32_t par)
{
    return idx < par ? idx : idx % par;
}

/*
 * A start without restored state: hidden files of this writer (this job's
 * sink, known by the job's id) and subtask index are left over from a run
 * that crashed before any checkpoint covered them (or that ran without
 * checkpoints). No checkpoint will ever commit them, so they go, once,
 * before this run writes its first file. Other writers' files stay.
 *
 * Restored or not, so do this writer's hidden files of subtask indexes
 * this run does not have (>= the number of subtasks): an earlier run on
 * more subtasks (more processes) left them - in progress when it stopped,
 * or pending for a checkpoint that never completed - and the restored
 * state, taken on fewer subtasks or absent, does not name them. Subtask g
 * takes the indexes g + n, g + 2n, ... (n subtasks), as it would take
 * their state. A process that is no longer a member may still write such
 * files until it sees that: they go again at the first checkpoint
 * completed (every member of it runs the new epoch by then).
 */
static int sweep_departed(file_sink *s)
{
    abort_ctx ac = {.idx = s->subtask,
                    .has_any = s->arg->job_id != NULL,
                    .any_writer = s->writer,
                    .par = s->par,
                    .departed_only = true};
    return abort_uncovered(s, &ac);
}

static int note_visible(file_sink *s);

static int sweep_if_fresh(file_sink *s)
{
    if (s->swept)
        return 0;
    s->swept = true;
    if (s->restored)
        return sweep_departed(s);
    /* Without a job id this writer is new (drawn from the run id): nothing
     * of it is on disk yet. */
    abort_ctx ac = {.idx = s->subtask,
                    .has_any = s->arg->job_id != NULL,
                    .any_writer = s->writer,
                    .par = s->par};
    int rc = abort_uncovered(s, &ac);
    return rc ? rc : note_visible(s);
}

/*
 * A subtask without restored state (a fresh start, or an index that a
 * scale-up added) takes into its history every earlier run whose visible
 * files of its index this writer left: output committed before this run
 * started, which no restore of this run's checkpoints (or of later ones)
 * goes back before. Without them, an index that a scale-down took away and
 * a scale-up brought back (parallelism 2 -> 1 -> 4) would have a history of
 * this run alone, and the next restore - the newest checkpoint's too -
 * would delete the files that index committed before the scale-down.
 */
static int add_known(file_sink *s, uint64_t run);

static int note_run(file_sink *s, const char *name)
{
    part_name pn;
    if (name[0] == '.' || !parse_part(name, &pn) || pn.writer != s->writer ||
        pn.run == s->arg->run)
        return 0;
    /* A fresh start (the job restores nothing): every run whose files are
     * visible came before this one, whatever its subtask index. */
    int rc = s->unioned ? 0 : add_known(s, pn.run);
    if (rc || pn.subtask != s->subtask)
        return rc;
    for (uint32_t i = 0; i < s->n_runs; i++) {
        if (s->runs[i].run == pn.run) {
            if (pn.n >= s->runs[i].next_part)
                s->runs[i].next_part = pn.n + 1;
            return 0;
        }
    }
    run_mark *r = weir_realloc(s->runs, (s->n_runs + 1) * sizeof *r);
    if (!r)
        return oom(s);
    s->runs = r;
    s->runs[s->n_runs++] = (run_mark){pn.run, pn.n + 1};
    return 0;
}

/* Adds run to the runs known to come before this run's checkpoints. */
static int add_known(file_sink *s, uint64_t run)
{
    for (uint32_t i = 0; i < s->n_known; i++)
        if (s->known[i] == run)
            return 0;
    if (s->n_known == s->cap_known) {
        uint32_t cap = s->cap_known ? s->cap_known * 2 : 8;
        uint64_t *v = weir_realloc(s->known, cap * sizeof *v);
        if (!v)
            return oom(s);
        s->known = v;
        s->cap_known = cap;
    }
    s->known[s->n_known++] = run;
    return 0;
}

static bucket *find_bucket(file_sink *s, const char *rel, size_t len,
                           uint64_t h)
{
    if (s->last && s->last->hash == h && strlen(s->last->rel) == len &&
        memcmp(s->last->rel, rel, len) == 0)
        return s->last;
    for (uint32_t i = 0; i < s->n_buckets; i++) {
        bucket *b = s->buckets[i];
        if (b->hash == h && strlen(b->rel) == len &&
            memcmp(b->rel, rel, len) == 0)
            return s->last = b;
    }
    return NULL;
}

static void bucket_free(bucket *b)
{
    if (!b)
        return;
    if (b->fd >= 0 && b->fd != S3_FD)
        weir__fio->close(b->fd); /* left hidden: aborted output */
    weir_free(b->upload);
    free_etags(b->etags, b->n_etags);
    weir_free(b->rel);
    weir_free(b->dir);
    weir_free(b->cur_name);
    weir_buf_fini(&b->buf);
    weir_free(b);
}

static int extract_time(file_sink *s, const char *rel, int64_t *out);

static int new_bucket(file_sink *s, const char *rel, size_t len, uint64_t h,
                      bucket **out)
{
    if (s->n_buckets == s->cap_buckets) {
        uint32_t cap = s->cap_buckets ? s->cap_buckets * 2 : 4;
        bucket **v = weir_realloc(s->buckets, cap * sizeof *v);
        if (!v)
            return oom(s);
        s->buckets = v;
        s->cap_buckets = cap;
    }
    bucket *b = weir_calloc(1, sizeof *b);
    if (!b)
        return oom(s);
    b->fd = -1;
    b->hash = h;
    weir_buf_init(&b->buf);
    b->rel = weir_malloc(len + 1);
    if (b->rel) {
        memcpy(b->rel, rel, len);
        b->rel[len] = '\0';
    }
    b->dir = len ? make_path(s->arg->path, "", b->rel ? b->rel : "", "")
                 : weir_strdup(s->arg->path);
    if (!b->rel || !b->dir) {
        bucket_free(b);
        return oom(s);
    }
    b->created_ms = weir_clock_now(&s->clock);
    if (s->arg->cfg.success_file && s->arg->cfg.partition_trigger ==
                                        WEIR_PARTITION_TRIGGER_PARTITION_TIME) {
        int rc = extract_time(s, b->rel, &b->part_time);
        if (rc) {
            bucket_free(b);
            return rc;
        }
    }
    s->buckets[s->n_buckets++] = b;
    *out = s->last = b;
    return 0;
}

static void drop_bucket(file_sink *s, uint32_t i)
{
    bucket *b = s->buckets[i];
    if (s->last == b)
        s->last = NULL;
    bucket_free(b);
    s->buckets[i] = s->buckets[--s->n_buckets];
}

static int open_part(file_sink *s, bucket *b)
{
    int src = sweep_if_fresh(s);
    if (src)
        return src;
    if (!b->dir_made && !s->s3) {
        int rc = weir__fio_mkdirs(b->dir);
        if (rc)
            return weir_error_set(&s->err, weir__fio_errno_code(rc),
                                  "%s: error: cannot create directory: %s",
                                  b->dir, strerror(-rc));
        b->dir_made = true;
    }
    /* A name is never reused: one taken, visible or hidden (a restored run
     * of the same run id, or a run id drawn twice), is skipped. */
    for (;;) {
        char name[128];
        snprintf(name, sizeof name,
                 "part-%08" PRIx32 "-%016" PRIx64 "-%" PRIu32 "-%" PRIu64 ".%s",
                 s->writer, s->arg->run, s->subtask, s->next_part,
                 weir_format_extension(s->arg->cfg.format.kind));
        char *hidden = make_path(b->dir, ".", name, ".inprogress");
        char *visible = make_path(b->dir, "", name, "");
        b->cur_name =
            *b->rel ? make_path(b->rel, "", name, "") : weir_strdup(name);
        if (!hidden || !visible || !b->cur_name) {
            weir_free(hidden);
            weir_free(visible);
            weir_free(b->cur_name);
            b->cur_name = NULL;
            return oom(s);
        }
        int e = EEXIST;
        b->fd = -1;
        if (s->s3) {
            bool taken = false;
            int rc = s3s_exists(s, b->cur_name, &taken);
            if (!rc && !taken)
                rc = s3s_start(s, b);
            if (rc == WEIR_EIO) {
                /* The server cannot be reached now: the rows are buffered
                 * and the upload starts with the first part sent (s3s_write),
                 * as a failed part upload is sent again. */
                s3s_start_later(s);
                b->fd = S3_FD;
                b->n_etags = 0;
                b->up_bytes = 0;
                rc = 0;
            }
            if (rc) {
                weir_free(hidden);
                weir_free(visible);
                weir_free(b->cur_name);
                b->cur_name = NULL;
                return rc;
            }
        } else if (access(visible, F_OK) != 0) {
            b->fd = weir__fio->open(hidden, O_WRONLY | O_CREAT | O_EXCL, 0666);
            e = errno;
        }
        weir_free(hidden);
        weir_free(visible);
        if (b->fd >= 0)
            break;
        if (e != EEXIST) {
            int rc = fail_errno(s, "create", b->cur_name, e);
            weir_free(b->cur_name);
            b->cur_name = NULL;
            return rc;
        }
        weir_free(b->cur_name);
        b->cur_name = NULL;
        s->next_part++;
    }
    s->next_part++;
    b->cur_bytes = 0;
    b->cur_opened_ms = weir_clock_now(&s->clock);
    b->to_commit = true;
    size_t before = b->buf.len;
    if (weir_encoder_header(s->enc, &b->buf))
        return oom(s);
    b->cur_bytes += b->buf.len - before;
    return 0;
}

/* The bucket holding the file rel (a name relative to path), if open. */
static bucket *bucket_of_file(file_sink *s, const char *rel)
{
    const char *slash = strrchr(rel, '/');
    size_t len = slash ? (size_t)(slash - rel) : 0;
    return find_bucket(s, rel, len, hash_str(rel, len));
}

static int commit_one(file_sink *s, const char *name)
{
    char *hidden = make_rel_path(s->arg->path, name, ".", ".inprogress");
    char *visible = make_rel_path(s->arg->path, name, "", "");
    int rc = 0;
    if (!hidden || !visible) {
        rc = oom(s);
    } else if (weir__fio->rename(hidden, visible) != 0) {
        /* Committing twice (a restore after a commit) finds the file already
         * visible. */
        if (errno != ENOENT || access(visible, F_OK) != 0)
            rc = fail_errno(s, "commit (rename)", name, errno);
    } else {
        s->committed++;
    }
    weir_free(hidden);
    weir_free(visible);
    return rc;
}

/* fsync of the folder of the file rel, so its rename is durable. */
static int sync_folder(file_sink *s, const char *rel)
{
    if (s->s3)
        return 0;
    const char *slash = strrchr(rel, '/');
    char *dir = slash ? make_rel_path(s->arg->path, rel, "", "")
                      : weir_strdup(s->arg->path);
    if (!dir)
        return oom(s);
    if (slash)
        *strrchr(dir, '/') = '\0';
    int frc = weir__fio_fsync_dir(dir);
    weir_free(dir);
    return frc ? fail_errno(s, "sync directory", rel, frc) : 0;
}

static bool same_folder(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t la = sa ? (size_t)(sa - a) : 0, lb = sb ? (size_t)(sb - b) : 0;
    return la == lb && memcmp(a, b, la) == 0;
}

/*
 * Commits pending files: all of them (all = true) or those tagged with a
 * checkpoint <= upto. Renames, then makes the renames durable (one fsync
 * per folder touched).
 */
/* Whether the pending file rel can be committed: hidden and complete, or
 * visible already (committed before a restore). */
static int check_committable(file_sink *s, const char *rel)
{
    if (s->s3)
        return 0; /* an upload shows whether it is whole only by completing */
    char *hidden = make_rel_path(s->arg->path, rel, ".", ".inprogress");
    char *visible = make_rel_path(s->arg->path, rel, "", "");
    int rc = 0;
    if (!hidden || !visible)
        rc = oom(s);
    else if (access(hidden, F_OK) != 0 && access(visible, F_OK) != 0)
        rc = weir_error_set(&s->err, WEIR_ENOTFOUND,
                            "%s/%s: error: cannot commit: the pending file "
                            "is gone (no .%s.inprogress): nothing of this "
                            "commit was made visible",
                            s->arg->path, rel,
                            strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel);
    weir_free(hidden);
    weir_free(visible);
    return rc;
}

static int commit_pending(file_sink *s, bool all, uint64_t upto)
{
    int rc = 0;
    /* All or nothing as far as this writer can tell: every file is checked
     * before the first rename. */
    for (uint32_t i = 0; i < s->n_pending && !rc; i++) {
        const pending_file *p = &s->pending[i];
        if (all || (p->tagged && p->ckpt <= upto))
            rc = check_committable(s, p->name);
    }
    for (uint32_t i = 0; i < s->n_pending && !rc; i++) {
        pending_file *p = &s->pending[i];
        if (!(all || (p->tagged && p->ckpt <= upto)))
            continue;
        rc = s->s3 ? s3s_commit(s, p) : commit_one(s, p->name);
        if (rc && s->s3 && !s->ended) {
            /* The server failed to complete the upload while the job runs
             * on: the file stays pending (in every later snapshot) and the
             * next completed checkpoint commits it again. At the end of
             * input there is no next one: that fails the job. */
            s3s_deferred(s, "committed");
            rc = 0;
            continue;
        }
        if (rc)
            break;
        bucket *b = bucket_of_file(s, p->name);
        if (b && b->n_pending)
            b->n_pending--;
        p->done = true;
    }
    /* Sync each folder a rename happened in, once; then forget the done. */
    for (uint32_t i = 0; i < s->n_pending && !rc; i++) {
        if (!s->pending[i].done)
            continue;
        bool synced = false;
        for (uint32_t j = 0; j < i && !synced; j++)
            synced = s->pending[j].done &&
                     same_folder(s->pending[j].name, s->pending[i].name);
        if (!synced)
            rc = sync_folder(s, s->pending[i].name);
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n_pending; i++) {
        if (s->pending[i].done)
            pending_fini(&s->pending[i]);
        else
            s->pending[kept++] = s->pending[i];
    }
    s->n_pending = kept;
    return rc;
}

static int add_pending(file_sink *s, char *name, bool tagged, uint64_t ckpt)
{
    if (s->n_pending == s->cap_pending) {
        uint32_t cap = s->cap_pending ? s->cap_pending * 2 : 8;
        pending_file *v = weir_realloc(s->pending, cap * sizeof *v);
        if (!v) {
            weir_free(name);
            return oom(s);
        }
        s->pending = v;
        s->cap_pending = cap;
    }
    s->pending[s->n_pending++] =
        (pending_file){name, ckpt, tagged, false, false, NULL, NULL, 0, 0};
    bucket *b = bucket_of_file(s, name);
    if (b)
        b->n_pending++;
    return 0;
}

/* Closes the bucket's in-progress file (flushed and synced) and makes it
 * pending. */
static int roll(file_sink *s, bucket *b)
{
    if (b->fd < 0)
        return 0;
    int rc;
    if (b->fd == S3_FD) {
        /* What failed to go up is still buffered and the parts sent so far
         * are kept: the file stays in progress, and the next roll (the
         * next checkpoint) sends the rest. */
        if ((rc = s3s_write(s, b, true)))
            return rc;
    } else {
        rc = write_out(s, b);
        if (!rc && weir__fio->fsync(b->fd) != 0)
            rc = fail_errno(s, "sync", b->cur_name, errno);
        if (weir__fio->close(b->fd) != 0 && !rc)
            rc = fail_errno(s, "close", b->cur_name, errno);
    }
    b->fd = -1;
    char *name = b->cur_name;
    b->cur_name = NULL;
    if (rc) {
        weir_free(name);
        return rc;
    }
    if ((rc = add_pending(s, name, false, 0)))
        return rc;
    if (b->upload) {
        /* the upload, to be completed by the commit */
        pending_file *p = &s->pending[s->n_pending - 1];
        p->upload = b->upload;
        p->etags = b->etags;
        p->n_etags = b->n_etags;
        p->size = b->up_bytes;
        b->upload = NULL;
        b->etags = NULL;
        b->n_etags = b->cap_etags = 0;
        b->up_bytes = 0;
    }
    if (!s->arg->cfg.commit_on_checkpoint)
        return commit_pending(s, true, 0);
    return 0;
}

static int roll_all(file_sink *s)
{
    int rc = 0;
    for (uint32_t i = 0; i < s->n_buckets && !rc; i++)
        rc = roll(s, s->buckets[i]);
    return rc;
}

/* ---- partition folders and partition time ---- */

/* Flink's escaping of partition names and values in paths. */
static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == 0x7f || strchr("\"#%'*/:=?\\{[]^", c) != NULL;
}

static int put_escaped(weir_buf *o, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        int rc = needs_escape(c) ? weir_buf_printf(o, "%%%02X", c)
                                 : weir_buf_put(o, &p[i], 1);
        if (rc)
            return rc;
    }
    return 0;
}

/* The partition folder of input row r into s->key (not NUL-terminated). */
static int row_partition(file_sink *s, const weir_batch *b, uint32_t r)
{
    const fsink_arg *a = s->arg;
    weir_buf_clear(&s->key);
    int rc = 0;
    for (uint32_t k = 0; k < a->cfg.n_partition_keys && !rc; k++) {
        uint32_t c = (uint32_t)s->key_cols[k];
        if (k && (rc = weir_buf_put(&s->key, "/", 1)))
            break;
        if ((rc = put_escaped(&s->key, a->keys[k], strlen(a->keys[k]))) ||
            (rc = weir_buf_put(&s->key, "=", 1)))
            break;
        const char *v;
        uint32_t len = 0;
        char tmp[128];
        if (weir_batch_is_null(b, c, r)) {
            v = NULL;
        } else if (b->cols[c].type.id == WEIR_TYPE_STRING ||
                   b->cols[c].type.id == WEIR_TYPE_BYTES) {
            v = weir_batch_str(b, c, r, &len);
        } else if (b->cols[c].type.id == WEIR_TYPE_DOUBLE) {
            /* as Flink names it (Double.toString: 0.1, 1.0E22, -0.0, NaN), and as the print sink
             * writes it; it reads back as the same double */
            len = (uint32_t)weir__fmt_format_f64_java(WEIR_COL_F64(b, c)[r], tmp);
            v = tmp;
        } else {
            len = (uint32_t)weir_batch_format_value(b, c, r, tmp, sizeof tmp);
            v = tmp;
        }
        if (!v || len == 0) {
            const char *d = a->default_name;
            rc = weir_buf_put(&s->key, d, strlen(d));
        } else {
            rc = put_escaped(&s->key, v, len);
        }
    }
    return rc ? oom(s) : 0;
}

/* The unescaped value of partition key k in the folder rel, into o. */
static int key_value(const char *rel, uint32_t k, weir_buf *o)
{
    const char *p = rel;
    for (uint32_t i = 0; i < k && p; i++) {
        p = strchr(p, '/');
        if (p)
            p++;
    }
    if (!p || !(p = strchr(p, '=')))
        return WEIR_EINVAL;
    p++;
    return weir__fio_put_unescaped(o, p, strcspn(p, "/"));
}

/*
 * The partition's time: the timestamp pattern with each $key replaced by
 * the key's value (no pattern: the first key's value), read as
 * "yyyy-MM-dd[ HH:mm:ss]" (UTC).
 */
static int extract_time(file_sink *s, const char *rel, int64_t *out)
{
    const fsink_arg *a = s->arg;
    weir_buf t;
    weir_buf_init(&t);
    int rc = 0;
    const char *pat = a->time_pattern;
    if (!pat) {
        rc = key_value(rel, 0, &t);
    } else {
        for (const char *p = pat; *p && !rc;) {
            uint32_t best = UINT32_MAX;
            size_t best_len = 0;
            if (*p == '$') {
                for (uint32_t k = 0; k < a->cfg.n_partition_keys; k++) {
                    size_t kl = strlen(a->keys[k]);
                    if (kl > best_len && strncmp(p + 1, a->keys[k], kl) == 0) {
                        best = k;
                        best_len = kl;
                    }
                }
            }
            if (best != UINT32_MAX) {
                rc = key_value(rel, best, &t);
                p += 1 + best_len;
            } else {
                rc = weir_buf_put(&t, p++, 1);
            }
        }
    }
    size_t bad = 0;
    if (!rc)
        rc = weir__parse_ts((const char *)t.data, t.len, out, &bad);
    if (rc && rc != WEIR_ENOMEM)
        rc = weir_error_set(
            &s->err, WEIR_EINVAL,
            "%s/%s: error: cannot extract the partition time: '%.*s' (from "
            "'partition.time-extractor.timestamp-pattern' %s) is not a "
            "timestamp 'yyyy-MM-dd HH:mm:ss'",
            a->path, rel, (int)t.len, t.data ? (const char *)t.data : "",
            pat ? pat : "(unset: the first partition value)");
    else if (rc)
        rc = oom(s);
    weir_buf_fini(&t);
    return rc;
}

/* Whether the commit trigger has fired for b, with watermark wm. */
static bool trigger_fired(file_sink *s, const bucket *b, weir_ts wm)
{
    const weir_file_sink_config *c = &s->arg->cfg;
    if (s->ended)
        return true;
    if (c->partition_trigger == WEIR_PARTITION_TRIGGER_PARTITION_TIME)
        return wm != WEIR_TS_MIN &&
               wm > b->part_time + c->partition_commit_delay_ms;
    return weir_clock_now(&s->clock) >=
           b->created_ms + c->partition_commit_delay_ms;
}

static int write_success(file_sink *s, bucket *b)
{
    if (s->s3)
        return s3s_success(s, b);
    char *p = make_path(b->dir, "", s->arg->success_name, "");
    if (!p)
        return oom(s);
    int fd = weir__fio->open(p, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int e = errno;
    weir_free(p);
    if (fd < 0)
        return fail_errno(s, "write the success file in", b->rel, e);
    int rc = 0;
    if (weir__fio->fsync(fd) != 0)
        rc = fail_errno(s, "sync the success file in", b->rel, errno);
    weir__fio->close(fd);
    if (!rc && weir__fio_fsync_dir(b->dir) != 0)
        rc = fail_errno(s, "sync directory", b->rel, errno);
    if (!rc)
        s->partitions_committed++;
    return rc;
}

/*
 * Partition commit and idle buckets. A partition whose trigger fired is
 * committed once all its files are visible: right away without commit on
 * checkpoint (its open file is rolled, which commits it), otherwise when it
 * has no open or pending file (at a completed checkpoint). A bucket with
 * nothing left to do is dropped.
 */
static int commit_partitions(file_sink *s, weir_ts wm, bool may_roll)
{
    int rc = 0;
    for (uint32_t i = 0; i < s->n_buckets && !rc;) {
        bucket *b = s->buckets[i];
        if (s->arg->cfg.success_file && b->to_commit &&
            trigger_fired(s, b, wm)) {
            if (may_roll && !s->arg->cfg.commit_on_checkpoint &&
                (rc = roll(s, b)))
                break;
            if (b->fd < 0 && b->n_pending == 0) {
                if ((rc = write_success(s, b)))
                    break;
                b->to_commit = false;
            }
        }
        if (b->fd < 0 && b->n_pending == 0 &&
            !(s->arg->cfg.success_file && b->to_commit)) {
            drop_bucket(s, i);
            continue;
        }
        i++;
    }
    return rc;
}

/* ---- the operator ---- */

static int check_rollover(file_sink *s)
{
    if (s->rollover_ms <= 0)
        return 0;
    int64_t now = weir_clock_now(&s->clock);
    int rc = 0;
    for (uint32_t i = 0; i < s->n_buckets && !rc; i++) {
        bucket *b = s->buckets[i];
        if (b->fd >= 0 && now - b->cur_opened_ms >= s->rollover_ms)
            rc = roll(s, b);
    }
    return rc;
}

static int fsink_process_impl(void *op, weir_op_ctx *ctx, int input,
                              const weir_batch *b)
{
    (void)ctx;
    (void)input;
    file_sink *s = op;
    int rc;
    if (s->broken)
        return s->broken;
    if ((rc = check_rollover(s)))
        return rc;
    uint32_t nk = s->arg->cfg.n_partition_keys;
    weir_batch view;
    const weir_batch *data = b;
    if (nk) {
        /* The columns written, as a batch sharing b's buffers. */
        view = *b;
        view.schema = s->data_schema;
        view.key_hash_of = NULL;
        for (uint32_t i = 0; i < s->data_schema->n_fields; i++)
            s->view_cols[i] = b->cols[s->data_cols[i]];
        view.cols = s->view_cols;
        data = &view;
    }
    bucket *bk = NULL;
    for (uint32_t r = 0; r < b->n_rows; r++) {
        if (nk) {
            if ((rc = row_partition(s, b, r)))
                return rc;
            uint64_t h = hash_str((const char *)s->key.data, s->key.len);
            bk = find_bucket(s, (const char *)s->key.data, s->key.len, h);
            if (!bk && (rc = new_bucket(s, (const char *)s->key.data,
                                        s->key.len, h, &bk)))
                return rc;
        } else if (!bk) {
            bk = s->n_buckets ? s->buckets[0] : NULL;
            if (!bk && (rc = new_bucket(s, "", 0, hash_str("", 0), &bk)))
                return rc;
        }
        if (bk->fd < 0 && (rc = open_part(s, bk)))
            return rc;
        bk->to_commit = true;
        size_t before = bk->buf.len;
        if ((rc = weir_encoder_encode(s->enc, data, r, &bk->buf, &s->err)))
            return rc;
        bk->cur_bytes += bk->buf.len - before;
        if (bk->cur_bytes >= s->roll_size) {
            if ((rc = roll(s, bk)))
                return rc;
        } else if (bk->buf.len >= WRITE_CHUNK && (rc = write_out(s, bk))) {
            return rc;
        }
    }
    s->rows += b->n_rows;
    /* Without commit on checkpoint, partitions commit (and idle folders
     * close) as soon as they may. */
    if (nk && !s->arg->cfg.commit_on_checkpoint)
        return commit_partitions(s, s->wm, true);
    return 0;
}

static int fsink_watermark_impl(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    (void)ctx;
    file_sink *s = op;
    if (s->broken)
        return s->broken;
    if (wm > s->wm)
        s->wm = wm;
    int rc = check_rollover(s);
    if (!rc && !s->arg->cfg.commit_on_checkpoint)
        rc = commit_partitions(s, s->wm, true);
    return rc;
}

static int fsink_finish_impl(void *op, weir_op_ctx *ctx)
{
    file_sink *s = op;
    if (s->broken)
        return s->broken;
    int rc = sweep_if_fresh(s);
    if (!rc)
        rc = roll_all(s);
    s->ended = true;
    /*
     * End of input: everything written is final, and so is every
     * partition. With checkpoints the job's final checkpoint commits it (a
     * crash before that checkpoint completes must not leave it visible);
     * without, commit now.
     */
    if (rc ||
        (s->arg->cfg.commit_on_checkpoint && weir__op_final_checkpoint(ctx)))
        return rc;
    rc = commit_pending(s, true, 0);
    if (!rc)
        rc = commit_partitions(s, WEIR_TS_MAX, false);
    return rc;
}

/*
 * The job stopped without a drain. The rows received so far are final (a
 * window that had not fired emitted nothing), but the input did not end, so
 * a partition is committed only if the watermark says so. With a final
 * checkpoint that checkpoint rolls and commits them (the two-phase commit);
 * without one they are committed now, as at the end of input.
 */
static int fsink_stop_impl(void *op, weir_op_ctx *ctx)
{
    file_sink *s = op;
    if (s->arg->cfg.commit_on_checkpoint && weir__op_final_checkpoint(ctx))
        return 0;
    int rc = sweep_if_fresh(s);
    if (!rc)
        rc = roll_all(s);
    if (!rc)
        rc = commit_pending(s, true, 0);
    if (!rc)
        rc = commit_partitions(s, s->wm, false);
    return rc;
}

static int put_mark(file_sink *s, uint64_t ckpt, weir_ts wm)
{
    if (s->n_marks == s->cap_marks) {
        uint32_t cap = s->cap_marks ? s->cap_marks * 2 : 4;
        wm_mark *v = weir_realloc(s->marks, cap * sizeof *v);
        if (!v)
            return oom(s);
        s->marks = v;
        s->cap_marks = cap;
    }
    s->marks[s->n_marks++] = (wm_mark){ckpt, wm};
    return 0;
}

static int fsink_snapshot_impl(void *op, weir_op_ctx *ctx, uint64_t ckpt_id,
                               weir_buf *out)
{
    (void)ctx;
    file_sink *s = op;
    int rc;
    if (s->broken)
        return s->broken;
    /* A subtask without restored state that wrote nothing yet: its history
     * still names the runs of the files its index committed before. */
    if ((rc = note_visible(s)))
        return rc;
    if (s->arg->cfg.commit_on_checkpoint) {
        /* On object storage nothing is lost when an upload fails: this
         * checkpoint fails, the next one uploads again. */
        if ((rc = roll_all(s)))
            return s->s3 ? rc : (s->broken = rc);
        for (uint32_t i = 0; i < s->n_pending; i++) {
            if (!s->pending[i].tagged) {
                s->pending[i].tagged = true;
                s->pending[i].ckpt = ckpt_id;
            }
        }
        /* What the partition-time trigger sees when this checkpoint
         * completes: the watermark its files were written under. */
        if (s->arg->cfg.success_file && (rc = put_mark(s, ckpt_id, s->wm)))
            return rc;
    } else {
        for (uint32_t i = 0; i < s->n_buckets; i++)
            if (s->buckets[i]->fd >= 0 && (rc = write_out(s, s->buckets[i])))
                return s->broken = rc;
    }
    uint32_t n_parts = 0;
    for (uint32_t i = 0; i < s->n_buckets; i++)
        n_parts += s->arg->cfg.success_file && s->buckets[i]->to_commit;
    rc = weir_buf_put_u32(out, SNAPSHOT_VERSION);
    if (!rc)
        rc = weir_buf_put_u32(out, s->subtask);
    if (!rc)
        rc = weir_buf_put_u32(out, s->writer);
    if (!rc)
        rc = weir_buf_put_u64(out, s->arg->run);
    if (!rc)
        rc = weir_buf_put_u64(out, s->next_part);
    /* The history: earlier runs of this state, then this one. */
    uint32_t n_runs = 1;
    for (uint32_t i = 0; i < s->n_runs; i++)
        n_runs += s->runs[i].run != s->arg->run;
    if (!rc)
        rc = weir_buf_put_u32(out, n_runs);
    for (uint32_t i = 0; i < s->n_runs && !rc; i++) {
        if (s->runs[i].run == s->arg->run)
            continue;
        rc = weir_buf_put_u64(out, s->runs[i].run);
        if (!rc)
            rc = weir_buf_put_u64(out, s->runs[i].next_part);
    }
    if (!rc)
        rc = weir_buf_put_u64(out, s->arg->run);
    if (!rc)
        rc = weir_buf_put_u64(out, s->next_part);
    /* Runs known to come first, for every subtask of a restore (union). */
    if (!rc)
        rc = weir_buf_put_u32(out, s->n_known);
    for (uint32_t i = 0; i < s->n_known && !rc; i++)
        rc = weir_buf_put_u64(out, s->known[i]);
    if (!rc)
        rc = weir_buf_put_u32(out, s->n_pending);
    for (uint32_t i = 0; i < s->n_pending && !rc; i++) {
        const pending_file *p = &s->pending[i];
        rc = weir_buf_put_u64(out, p->ckpt);
        if (!rc)
            rc = weir_buf_put_str(out, p->name);
        if (!rc)
            rc = weir_buf_put_str(out, p->upload ? p->upload : "");
        if (!rc)
            rc = weir_buf_put_u32(out, p->n_etags);
        for (uint32_t e = 0; e < p->n_etags && !rc; e++)
            rc = weir_buf_put_str(out, p->etags[e]);
        if (!rc)
            rc = weir_buf_put_u64(out, p->size);
    }
    /* Partitions whose commit is still to come, with their creation time. */
    if (!rc)
        rc = weir_buf_put_u32(out, n_parts);
    for (uint32_t i = 0; i < s->n_buckets && !rc; i++) {
        const bucket *b = s->buckets[i];
        if (!(s->arg->cfg.success_file && b->to_commit))
            continue;
        rc = weir_buf_put_str(out, b->rel);
        if (!rc)
            rc = weir_buf_put_i64(out, b->created_ms);
    }
    return rc ? oom(s) : 0;
}

/*
 * At a completed checkpoint: what the adopted subtask indexes left in
 * progress goes, then (at the first) the departed indexes' files. These are
 * hidden and no checkpoint commits them, so on object storage an outage
 * while the job runs (the server down at that moment; a refusal still
 * fails the job, see s3_fail) leaves them for the next completed
 * checkpoint instead of failing the job.
 */
static int sweep_after_complete(file_sink *s)
{
    int rc = 0;
    uint32_t done = 0;
    for (; done < s->n_adopted; done++) {
        abort_ctx ac = {.idx = s->adopted[done].idx,
                        .has_any = true,
                        .any_writer = s->adopted[done].writer};
        if ((rc = abort_uncovered(s, &ac)))
            break;
    }
    if (done) {
        s->n_adopted -= done;
        memmove(s->adopted, s->adopted + done,
                s->n_adopted * sizeof *s->adopted);
    }
    if (!rc && !s->departed_swept) {
        rc = sweep_departed(s);
        s->departed_swept = rc == 0;
    }
    if (rc == WEIR_EIO && s->s3 && !s->ended) {
        s3s_deferred(s, "swept");
        rc = 0;
    }
    return rc;
}

static int fsink_checkpoint_complete_impl(void *op, weir_op_ctx *ctx,
                                          uint64_t ckpt_id)
{
    (void)ctx;
    file_sink *s = op;
    int rc = commit_pending(s, false, ckpt_id);
    if (!rc)
        rc = sweep_after_complete(s);
    if (rc || !s->arg->cfg.commit_on_checkpoint)
        return rc;
    weir_ts wm = WEIR_TS_MIN;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n_marks; i++) {
        if (s->marks[i].ckpt <= ckpt_id) {
            if (s->marks[i].wm > wm)
                wm = s->marks[i].wm;
        } else {
            s->marks[kept++] = s->marks[i];
        }
    }
    s->n_marks = kept;
    return commit_partitions(s, wm, false);
}

static bool covered(const abort_ctx *ac, const part_name *pn)
{
    for (uint32_t i = 0; i < ac->n_marks; i++)
        if (ac->marks[i].run == pn->run)
            return pn->n < ac->marks[i].next_part;
    return false;
}

static bool to_abort(const abort_ctx *ac, const char *name, bool hidden)
{
    if (hidden && ac->old && part_number(name, ac->idx) >= 0)
        return true;
    part_name pn;
    if (!parse_part(name, &pn))
        return false;
    if (ac->known) {
        if (hidden || pn.writer != ac->any_writer || pn.subtask < ac->n_old ||
            owner_of(pn.subtask, ac->par) != ac->idx || pn.run == ac->now)
            return false;
        for (uint32_t i = 0; i < ac->n_known; i++)
            if (ac->known[i] == pn.run)
                return false;
        return true;
    }
    if (ac->par && pn.subtask >= ac->par)
        return hidden && ac->has_any && pn.writer == ac->any_writer &&
               pn.subtask % ac->par == ac->idx;
    if (pn.subtask != ac->idx || ac->departed_only)
        return false;
    /* No other subtask of this run has index idx, and this one has not
     * written yet (restore and the fresh sweep come first): a file of this
     * run id is an earlier incarnation's (a run id given twice). A hidden
     * file the checkpoint lists is visible by now (committed first). */
    if (!hidden)
        return ac->marks && pn.writer == ac->any_writer && !covered(ac, &pn);
    return (ac->has_run && pn.writer == ac->writer && pn.run == ac->run) ||
           (ac->has_any && pn.writer == ac->any_writer);
}

static int abort_one(file_sink *s, const char *dir, const char *name, void *ud)
{
    const abort_ctx *ac = ud;
    size_t n = strlen(name);
    bool hidden = name[0] == '.';
    if (hidden && (n < 11 || strcmp(name + n - 11, ".inprogress") != 0))
        return 0;
    if (!to_abort(ac, name, hidden))
        return 0;
    char *p = make_path(dir, "", name, "");
    if (!p)
        return oom(s);
    int rc = 0;
    if (weir__fio->unlink(p) != 0 && errno != ENOENT)
        rc = fail_errno(s, "delete aborted file", name, errno);
    weir_free(p);
    return rc;
}

/* Deletes the files ac selects (those no restored checkpoint covers), in
 * the path and every partition folder. */
static int abort_uncovered(file_sink *s, abort_ctx *ac)
{
    if (!ac->old && !ac->has_run && !ac->has_any)
        return 0;
    if (s->s3)
        return s3s_abort_uncovered(s, ac);
    return walk(s, s->arg->path, 0, abort_one, ac);
}

/* fn on every file of the table (object storage: every object, dir NULL). */
static int each_file(file_sink *s, file_fn fn, void *ud)
{
    return s->s3 ? s3s_each_object(s, fn, ud) : walk(s, s->arg->path, 0, fn, ud);
}

static int note_one(file_sink *s, const char *dir, const char *name, void *ud)
{
    (void)dir;
    (void)ud;
    return note_run(s, name);
}

static int note_visible(file_sink *s)
{
    if (s->noted || s->restored || !s->arg->job_id)
        return 0;
    int rc = each_file(s, note_one, NULL);
    s->noted = rc == 0; /* a failed listing is tried again */
    return rc;
}

/* ---- object storage ---- */

#if defined(WEIR_HAVE_CURL)

/*
 * A refusal (HTTP 400/403: credentials, permissions, the request) or a
 * missing bucket or upload (404) does not pass by trying again: it keeps its
 * code and fails the job now. Anything else (the server unreachable, 5xx
 * after the client's retries) is an I/O error the sink rides out while it
 * can (write_out, open_part).
 */
static int s3_fail(file_sink *s, const char *what, const char *name, int rc)
{
    const char *why = rc == WEIR_EINVAL      ? "refused by the server (HTTP 400 or 403: credentials, "
                                               "permissions or the request)"
                      : rc == WEIR_ENOTFOUND ? "not found (the bucket, or an upload the server no longer has)"
                                             : weir_strerror(rc);
    bool keep = rc == WEIR_ENOMEM || rc == WEIR_EINVAL || rc == WEIR_ENOTFOUND;
    return weir_error_set(&s->err, keep ? rc : WEIR_EIO, "%s/%s: error: cannot %s: %s", s->arg->path, name,
                          what, why);
}

static int s3s_open(file_sink *s)
{
    return weir__s3_create(s->arg->path, NULL, &s->s3, &s->err);
}

static void s3s_start_later(file_sink *s)
{
    weir__s3_log(s->s3, "%s (the rows are kept; the upload starts with the next part sent)", s->err.message);
}

static void s3s_deferred(file_sink *s, const char *again)
{
    weir__s3_log(s->s3, "%s (%s again at the next checkpoint)",
                 s->err.message, again);
}

static int s3s_exists(file_sink *s, const char *rel, bool *yes)
{
    char *key = weir__s3_key(s->s3, rel);
    if (!key)
        return oom(s);
    uint64_t size;
    int rc = weir__s3_head(s->s3, key, &size);
    weir_free(key);
    *yes = rc == 0;
    return rc == 0 || rc == WEIR_ENOTFOUND ? 0
                                           : s3_fail(s, "look up", rel, rc);
}

static int s3s_start(file_sink *s, bucket *b)
{
    char *key = weir__s3_key(s->s3, b->cur_name);
    if (!key)
        return oom(s);
    int rc = weir__s3_upload_start(s->s3, key, &b->upload);
    weir_free(key);
    if (rc)
        return s3_fail(s, "start the upload of", b->cur_name, rc);
    b->fd = S3_FD;
    b->n_etags = 0;
    b->up_bytes = 0;
    return 0;
}

/* Starts the upload of b's file, whose start failed when it was opened
 * (open_part): its name is checked again, as there. */
static int s3s_begin(file_sink *s, bucket *b)
{
    bool taken = false;
    int rc = s3s_exists(s, b->cur_name, &taken);
    if (!rc && taken)
        return weir_error_set(&s->err, WEIR_EEXIST,
                              "%s: error: the name of a part file whose upload could not start was taken meanwhile",
                              b->cur_name);
    return rc ? rc : s3s_start(s, b);
}

/* Uploads whole parts of b's buffer; with last, the rest too (at least one
 * part: an upload needs one). */
static int s3s_write(file_sink *s, bucket *b, bool last)
{
    size_t part = weir__s3_part_size(s->s3), done = 0;
    char *key = NULL;
    int rc = 0;
    while (!rc && (b->buf.len - done >= part ||
                   (last && (b->buf.len > done || b->n_etags == 0)))) {
        if (!b->upload && (rc = s3s_begin(s, b)))
            break;
        size_t n = b->buf.len - done < part ? b->buf.len - done : part;
        if (!key && !(key = weir__s3_key(s->s3, b->cur_name)))
            return oom(s);
        if (b->n_etags == b->cap_etags) {
            uint32_t cap = b->cap_etags ? b->cap_etags * 2 : 4;
            char **v = weir_realloc(b->etags, cap * sizeof *v);
            if (!v) {
                rc = oom(s);
                break;
            }
            b->etags = v;
            b->cap_etags = cap;
        }
        char etag[128];
        rc = weir__s3_upload_part(s->s3, key, b->upload, b->n_etags + 1,
                                  b->buf.data + done, -1, 0, n, etag);
        if (rc) {
            rc = s3_fail(s, "upload a part of", b->cur_name, rc);
            break;
        }
        if (!(b->etags[b->n_etags] = weir_strdup(etag))) {
            rc = oom(s);
            break;
        }
        b->n_etags++;
        b->up_bytes += n;
        done += n;
    }
    weir_free(key);
    if (done) {
        memmove(b->buf.data, b->buf.data + done, b->buf.len - done);
        b->buf.len -= done;
    }
    return rc;
}

/* Whether an object of size bytes holds all of p's parts. */
static bool s3s_whole(const pending_file *p, uint64_t size)
{
    return p->size == SIZE_UNKNOWN || size == p->size;
}

/*
 * Completes p's upload. The object must then hold every byte of the parts:
 * a server that assembles a completed object in place (not atomically) and
 * dies meanwhile leaves a short one - and whether the completion's reply
 * was lost or the server stopped before it replied, the object may be
 * there. Completing again repairs a short object while the server still
 * has the upload; a short object whose upload is gone fails the commit
 * (the rows of the missing bytes are lost on the server and no checkpoint
 * holds them): it is never taken as committed.
 */
static int s3s_commit(file_sink *s, const pending_file *p)
{
    char *key = weir__s3_key(s->s3, p->name);
    if (!key)
        return oom(s);
    /* A restored pending file may have been committed before the crash:
     * then its object is there (names are never reused) and its upload is
     * gone, which servers report differently (404, or 500 after retries). */
    uint64_t size;
    if (p->restored && weir__s3_head(s->s3, key, &size) == 0 &&
        s3s_whole(p, size)) {
        weir_free(key);
        return 0;
    }
    int rc = weir__s3_upload_complete(s->s3, key, p->upload, p->etags,
                                      p->n_etags);
    int hrc = weir__s3_head(s->s3, key, &size);
    if (hrc == 0 && !s3s_whole(p, size)) {
        int crc = weir__s3_upload_complete(s->s3, key, p->upload, p->etags,
                                           p->n_etags);
        hrc = weir__s3_head(s->s3, key, &size);
        if (hrc == 0 && !s3s_whole(p, size)) {
            weir_free(key);
            return weir_error_set(
                &s->err, WEIR_EIO,
                "%s/%s: error: cannot commit: the completed object has %" PRIu64
                " bytes, its parts %" PRIu64 " (the server lost part of the "
                "upload%s)",
                s->arg->path, p->name, size, p->size,
                crc ? "; completing it again failed" : "");
        }
        if (!crc)
            rc = 0;
    }
    /* Failed, but completed by an attempt whose reply was lost: the upload
     * is gone and the object is there, whole. (Succeeded, and not there
     * yet: a server that shows new objects late.) */
    if (rc && hrc == 0)
        rc = 0;
    weir_free(key);
    if (rc)
        return s3_fail(s, "commit (complete the upload of)", p->name, rc);
    s->committed++;
    return 0;
}

/* An in-progress upload no checkpoint covers: aborted. */
static void s3s_drop(file_sink *s, bucket *b)
{
    if (!b->upload || !b->cur_name)
        return;
    char *key = weir__s3_key(s->s3, b->cur_name);
    if (key)
        weir__s3_upload_abort(s->s3, key, b->upload);
    weir_free(key);
    weir_free(b->upload);
    b->upload = NULL;
    free_etags(b->etags, b->n_etags);
    b->etags = NULL;
    b->n_etags = b->cap_etags = 0;
    b->up_bytes = 0;
}

static int s3s_success(file_sink *s, bucket *b)
{
    char *rel = *b->rel ? make_path(b->rel, "", s->arg->success_name, "")
                        : weir_strdup(s->arg->success_name);
    char *key = rel ? weir__s3_key(s->s3, rel) : NULL;
    int rc = key ? weir__s3_put(s->s3, key, "", -1, 0) : WEIR_ENOMEM;
    if (rc)
        rc = s3_fail(s, "write the success file in", b->rel, rc);
    else
        s->partitions_committed++;
    weir_free(rel);
    weir_free(key);
    return rc;
}

/* The name of key as a file of the table (n_partition_keys "k=v" folders
 * below the path, then the file), or NULL. */
static const char *table_file(file_sink *s, const char *key, size_t pl)
{
    if (strncmp(key, weir__s3_prefix(s->s3), pl) || (pl && key[pl] != '/'))
        return NULL;
    const char *rel = key + pl + (pl ? 1 : 0), *p = rel;
    for (uint32_t d = 0; d < s->arg->cfg.n_partition_keys; d++) {
        const char *slash = strchr(p, '/');
        const char *eq = strchr(p, '=');
        if (!slash || !eq || eq > slash || *p == '.')
            return NULL;
        p = slash + 1;
    }
    return strchr(p, '/') ? NULL : p;
}

/* Whether name (a file's name, no folder) is a pending file's: its upload
 * waits for a commit that failed (the server was down), never aborted. */
static bool s3s_pending(const file_sink *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_pending; i++) {
        const char *slash = strrchr(s->pending[i].name, '/');
        if (!strcmp(slash ? slash + 1 : s->pending[i].name, name))
            return true;
    }
    return false;
}

/* The table's key prefix on object storage ("prefix/", or "" at the
 * bucket's root), allocated; its length without the slash in *pl. */
static char *s3s_key_prefix(const file_sink *s, size_t *pl)
{
    const char *prefix = weir__s3_prefix(s->s3);
    *pl = strlen(prefix);
    char *kp = weir_malloc(*pl + 2);
    if (kp)
        snprintf(kp, *pl + 2, "%s%s", prefix, *pl ? "/" : "");
    return kp;
}

static int s3s_abort_uncovered(file_sink *s, abort_ctx *ac)
{
    size_t pl;
    char *kp = s3s_key_prefix(s, &pl);
    if (!kp)
        return oom(s);
    char **keys = NULL, **ids = NULL;
    size_t n = 0;
    int rc = 0;
    /* Uploads in progress (hidden files). */
    int lrc = weir__s3_list_uploads(s->s3, kp, &keys, &ids, &n);
    if (lrc && lrc != WEIR_EUNSUPPORTED)
        rc = s3_fail(s, "list the uploads in progress in", "", lrc);
    for (size_t i = 0; i < n; i++) {
        const char *name = table_file(s, keys[i], pl);
        if (name && to_abort(ac, name, true) && !s3s_pending(s, name))
            weir__s3_upload_abort(s->s3, keys[i], ids[i]);
    }
    weir__s3_free_names(keys, n);
    weir__s3_free_names(ids, n);
    /* Visible files no checkpoint in the restored history covers. */
    if (!rc && (ac->marks || ac->known)) {
        lrc = weir__s3_list(s->s3, kp, false, &keys, NULL, &n);
        if (lrc)
            rc = s3_fail(s, "list", "", lrc);
        for (size_t i = 0; !rc && i < n; i++) {
            const char *name = table_file(s, keys[i], pl);
            if (name && to_abort(ac, name, false) &&
                (lrc = weir__s3_delete(s->s3, keys[i])))
                rc = s3_fail(s, "delete aborted file", name, lrc);
        }
        weir__s3_free_names(keys, n);
    }
    weir_free(kp);
    return rc;
}

/* fn on each of the table's objects (dir NULL). */
static int s3s_each_object(file_sink *s, file_fn fn, void *ud)
{
    size_t pl;
    char *kp = s3s_key_prefix(s, &pl);
    if (!kp)
        return oom(s);
    char **keys = NULL;
    size_t n = 0;
    int rc = 0;
    int lrc = weir__s3_list(s->s3, kp, false, &keys, NULL, &n);
    if (lrc)
        rc = s3_fail(s, "list", "", lrc);
    for (size_t i = 0; !rc && i < n; i++) {
        const char *name = table_file(s, keys[i], pl);
        if (name)
            rc = fn(s, NULL, name, ud);
    }
    weir__s3_free_names(keys, n);
    weir_free(kp);
    return rc;
}

#else /* no object storage */

static int s3s_open(file_sink *s)
{
    return weir_error_set(&s->err, WEIR_EUNSUPPORTED,
                          "%s: error: object storage is not built into this "
                          "weir (it needs libcurl)",
                          s->arg->path);
}
static int s3s_exists(file_sink *s, const char *rel, bool *yes)
{
    (void)rel;
    *yes = false;
    return s3s_open(s);
}
static int s3s_start(file_sink *s, bucket *b)
{
    (void)b;
    return s3s_open(s);
}
static int s3s_write(file_sink *s, bucket *b, bool last)
{
    (void)b;
    (void)last;
    return s3s_open(s);
}
static int s3s_commit(file_sink *s, const pending_file *p)
{
    (void)p;
    return s3s_open(s);
}
static void s3s_drop(file_sink *s, bucket *b)
{
    (void)s;
    (void)b;
}
static void s3s_deferred(file_sink *s, const char *again)
{
    (void)s;
    (void)again;
}
static void s3s_start_later(file_sink *s) { (void)s; }
static int s3s_success(file_sink *s, bucket *b)
{
    (void)b;
    return s3s_open(s);
}
static int s3s_abort_uncovered(file_sink *s, abort_ctx *ac)
{
    (void)ac;
    return s3s_open(s);
}
static int s3s_each_object(file_sink *s, file_fn fn, void *ud)
{
    (void)fn;
    (void)ud;
    return s3s_open(s);
}

#endif

/* A name from a snapshot stays inside the table's folder. */
static bool safe_rel(const char *name, bool file)
{
    if (!file && !*name)
        return true;
    if (!*name || name[0] == '/')
        return false;
    for (const char *p = name; p; p = strchr(p, '/')) {
        if (*p == '/')
            p++;
        if (*p == '/' || *p == '\0' || (p[0] == '.' && p[1] == '.'))
            return false;
    }
    return true;
}

static int corrupt(file_sink *s)
{
    return weir_error_set(&s->err, WEIR_ECORRUPT,
                          "%s: error: file sink snapshot is corrupt",
                          s->arg->path);
}

static int restore_files(file_sink *s, weir_cursor *in, uint32_t version,
                         uint32_t idx, uint32_t writer, uint64_t run,
                         uint64_t next_part, const run_mark *marks,
                         uint32_t n_marks);

/* The ctx of keep_one: which files' runs a restore of an earlier weir's
 * checkpoint takes for known. */
struct keep_ctx {
    uint32_t writer, n_old;
};

static int keep_one(file_sink *s, const char *dir, const char *name, void *ud)
{
    (void)dir;
    const struct keep_ctx *k = ud;
    part_name pn;
    if (name[0] == '.' || !parse_part(name, &pn) || pn.writer != k->writer ||
        pn.subtask < k->n_old || pn.run == s->arg->run)
        return 0;
    return owner_of(pn.subtask, s->par) == s->subtask ? add_known(s, pn.run)
                                                       : 0;
}

/*
 * Every subtask of a restore reads the state of every subtask that took the
 * checkpoint (restore_union): the runs of all their histories (and the
 * runs they knew before) are the runs whose output the checkpoint holds.
 * A subtask index without restored state (the parallelism went up) cannot
 * tell from its own state which of its visible files came after the
 * checkpoint - a run that restored the same savepoint before, at this
 * parallelism, and committed - so this subtask deletes the visible files
 * of such indexes it stands for (its own; departed ones modulo the
 * parallelism) whose run is not among them. Files of runs before the
 * checkpoint stay, also those of an index a scale-down took away and this
 * scale-up brought back (parallelism 2 -> 1 -> 4). A checkpoint of an
 * earlier weir (version < 7: its states know no earlier runs of other
 * indexes) restores as before, deleting nothing here: the runs of those
 * files are taken for known instead, so later restores keep them too. One
 * of another writer (another job's savepoint) deletes nothing here.
 */
static int fsink_restore_union_impl(void *op, weir_op_ctx *ctx,
                                    weir_cursor *states, uint32_t n)
{
    (void)ctx;
    file_sink *s = op;
    s->unioned = true;
    uint32_t writer = 0, oldest = SNAPSHOT_VERSION;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        weir_cursor *in = &states[i];
        uint32_t version, idx, w, nr, nk = 0;
        uint64_t run, next_part, r, np;
        if (weir_cursor_get_u32(in, &version) || version < 1 ||
            version > SNAPSHOT_VERSION)
            return corrupt(s);
        if (version < oldest)
            oldest = version;
        if (version < 4)
            continue; /* no writer, no history */
        if (weir_cursor_get_u32(in, &idx) || weir_cursor_get_u32(in, &w) ||
            weir_cursor_get_u64(in, &run) ||
            weir_cursor_get_u64(in, &next_part) ||
            weir_cursor_get_u32(in, &nr) || nr > weir_cursor_left(in) / 16)
            return corrupt(s);
        if (i > 0 && w != writer)
            oldest = 0; /* states of two writers: not one job's */
        writer = w;
        for (uint32_t j = 0; j < nr && !rc; j++)
            rc = weir_cursor_get_u64(in, &r) || weir_cursor_get_u64(in, &np)
                     ? corrupt(s)
                     : add_known(s, r);
        if (!rc && version >= 7 &&
            (weir_cursor_get_u32(in, &nk) || nk > weir_cursor_left(in) / 8))
            rc = corrupt(s);
        for (uint32_t j = 0; j < nk && !rc; j++)
            rc = weir_cursor_get_u64(in, &r) ? corrupt(s) : add_known(s, r);
    }
    if (rc)
        return rc;
    if (oldest < 4 || (s->arg->job_id && writer != s->writer)) {
        s->n_known = 0; /* nothing of this job's sink */
        return 0;
    }
    /* Without a job id, the checkpoint's writer is the job's (restore_files
     * takes it on for a subtask with state; this one takes it here). */
    s->writer = writer;
    if (oldest < 7) {
        /* An earlier weir's states list no runs of other indexes: the
         * visible files of the indexes without state stay, as they did,
         * and their runs are known from now on. */
        struct keep_ctx k = {writer, n};
        return each_file(s, keep_one, &k);
    }
    abort_ctx ac = {.idx = s->subtask,
                    .has_any = true,
                    .any_writer = s->writer,
                    .par = s->par,
                    .known = s->known,
                    .n_known = s->n_known,
                    .n_old = n,
                    .now = s->arg->run};
    return abort_uncovered(s, &ac);
}

static int fsink_restore_impl(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    (void)ctx;
    file_sink *s = op;
    s->restored = true;
    uint32_t version, idx = s->subtask, writer = 0;
    uint64_t next_part, run = 0;
    if (weir_cursor_get_u32(in, &version) || version < 1 ||
        version > SNAPSHOT_VERSION ||
        (version >= 2 && weir_cursor_get_u32(in, &idx)) ||
        (version >= 4 &&
         (weir_cursor_get_u32(in, &writer) || weir_cursor_get_u64(in, &run))) ||
        weir_cursor_get_u64(in, &next_part))
        return corrupt(s);
    uint32_t n_marks = 0;
    run_mark *marks = NULL;
    if (version >= 4) {
        if (weir_cursor_get_u32(in, &n_marks) ||
            n_marks > weir_cursor_left(in) / 16)
            return corrupt(s);
        marks = weir_calloc(n_marks + 1, sizeof *marks);
        if (!marks)
            return oom(s);
        for (uint32_t i = 0; i < n_marks; i++) {
            if (weir_cursor_get_u64(in, &marks[i].run) ||
                weir_cursor_get_u64(in, &marks[i].next_part)) {
                weir_free(marks);
                return corrupt(s);
            }
        }
    }
    /* The runs known before it go on in this subtask's snapshots (a state
     * of another writer's: nothing of this job). */
    if (version >= 7) {
        uint32_t nk;
        int rc = weir_cursor_get_u32(in, &nk) ||
                         nk > weir_cursor_left(in) / 8
                     ? corrupt(s)
                     : 0;
        for (uint32_t i = 0; i < nk && !rc; i++) {
            uint64_t r;
            rc = weir_cursor_get_u64(in, &r) ? corrupt(s)
                 : writer == s->writer || !s->arg->job_id ? add_known(s, r)
                                                          : 0;
        }
        if (rc) {
            weir_free(marks);
            return rc;
        }
    }
    int rc = restore_files(s, in, version, idx, writer, run, next_part, marks,
                           n_marks);
    if (rc || idx != s->subtask || s->writer != writer || s->runs) {
        weir_free(marks);
        return rc;
    }
    /* This subtask's own state: its history goes on in its snapshots. */
    s->runs = marks;
    s->n_runs = n_marks;
    return 0;
}

/* The rest of restore(): pending files and partitions, commit and clean-up. */
static int restore_files(file_sink *s, weir_cursor *in, uint32_t version,
                         uint32_t idx, uint32_t writer, uint64_t run,
                         uint64_t next_part, const run_mark *marks,
                         uint32_t n_marks)
{
    uint32_t n;
    if (weir_cursor_get_u32(in, &n))
        return corrupt(s);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ckpt;
        char *name = NULL;
        if (weir_cursor_get_u64(in, &ckpt) || weir_cursor_get_str(in, &name) ||
            !name || !safe_rel(name, true) ||
            (version < 3 && strchr(name, '/'))) {
            weir_free(name);
            return corrupt(s);
        }
        int rc = add_pending(s, name, true, ckpt);
        if (rc)
            return rc;
        if (version >= 5) {
            pending_file *p = &s->pending[s->n_pending - 1];
            uint32_t ne;
            p->restored = true;
            if (weir_cursor_get_str(in, &p->upload) || !p->upload ||
                weir_cursor_get_u32(in, &ne) || ne > weir_cursor_left(in) / 4)
                return corrupt(s);
            if (!*p->upload) {
                weir_free(p->upload);
                p->upload = NULL;
            }
            if (ne && !(p->etags = weir_calloc(ne, sizeof *p->etags)))
                return oom(s);
            for (; p->n_etags < ne; p->n_etags++)
                if (weir_cursor_get_str(in, &p->etags[p->n_etags]) ||
                    !p->etags[p->n_etags])
                    return corrupt(s);
            p->size = SIZE_UNKNOWN;
            if (version >= 6 && weir_cursor_get_u64(in, &p->size))
                return corrupt(s);
            if (!p->upload != !s->s3)
                return weir_error_set(
                    &s->err, WEIR_EINVAL,
                    "%s: error: the restored file sink state was written to "
                    "%s: the path moved between local files and object "
                    "storage",
                    s->arg->path, p->upload ? "object storage" : "local files");
        }
    }
    uint32_t n_parts = 0;
    if (version >= 3 && weir_cursor_get_u32(in, &n_parts))
        return corrupt(s);
    for (uint32_t i = 0; i < n_parts; i++) {
        char *rel = NULL;
        int64_t created;
        if (weir_cursor_get_str(in, &rel) || !rel || !safe_rel(rel, false) ||
            weir_cursor_get_i64(in, &created)) {
            weir_free(rel);
            return corrupt(s);
        }
        size_t len = strlen(rel);
        uint64_t h = hash_str(rel, len);
        bucket *b = find_bucket(s, rel, len, h);
        int rc = b ? 0 : new_bucket(s, rel, len, h, &b);
        weir_free(rel);
        if (rc)
            return rc;
        b->created_ms = created;
        b->to_commit = true;
    }
    /*
     * The restored checkpoint completed: what it covers is committed now,
     * the rest of that subtask index's hidden files deleted (those of the
     * run that took the checkpoint, and of any other run of this job's
     * writer: a run that restored the same checkpoint and crashed before
     * the next), and so are visible files of this job's writer that the
     * state's history does not cover (committed by a later checkpoint of a
     * run that went on past the restored one: an older checkpoint or a
     * savepoint was restored), so the output is that of one run that
     * went through the restored checkpoint. After a scale-down the state may be
     * an old subtask's that no longer runs: its files are adopted, its part
     * numbers are not. Its uncommitted partitions are adopted too, to be
     * committed by this subtask. Names of this run are never reused (open_part
     * skips taken ones), so the part counter is only a hint.
     */
    int rc = commit_pending(s, true, 0);
    /* Without a job id, the checkpoint's writer is the job's: this subtask
     * carries it on, so the next restore finds every run's files by it. */
    if (!s->arg->job_id && version >= 4 && idx == s->subtask)
        s->writer = writer;
    /* Visible files go only for a state of this job's own writer: a
     * checkpoint of another job (a savepoint given with --from) never
     * deletes that job's output. */
    abort_ctx ac = {.idx = idx,
                    .old = version < 4,
                    .has_run = version >= 4,
                    .writer = writer,
                    .run = run,
                    .has_any = s->arg->job_id || version >= 4,
                    .any_writer = s->arg->job_id ? s->writer : writer,
                    .marks =
                        !s->arg->job_id || writer == s->writer ? marks : NULL,
                    .n_marks = n_marks};
    if (!rc)
        rc = abort_uncovered(s, &ac);
    if (!rc && idx != s->subtask && ac.has_any) {
        struct adopted *a =
            weir_realloc(s->adopted, (s->n_adopted + 1) * sizeof *a);
        if (!a)
            return oom(s);
        s->adopted = a;
        a[s->n_adopted++] = (struct adopted){idx, ac.any_writer};
    }
    if (idx == s->subtask && writer == s->writer && run == s->arg->run &&
        next_part > s->next_part)
        s->next_part = next_part;
    return rc;
}

static int fsink_open(void *op, weir_op_ctx *ctx)
{
    return report(ctx, op, fsink_open_impl(op, ctx));
}

static int fsink_process(void *op, weir_op_ctx *ctx, int input,
                         const weir_batch *b)
{
    return report(ctx, op, fsink_process_impl(op, ctx, input, b));
}

static int fsink_watermark(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    return report(ctx, op, fsink_watermark_impl(op, ctx, wm));
}

static int fsink_finish(void *op, weir_op_ctx *ctx)
{
    return report(ctx, op, fsink_finish_impl(op, ctx));
}

static int fsink_stop(void *op, weir_op_ctx *ctx)
{
    return report(ctx, op, fsink_stop_impl(op, ctx));
}

static int fsink_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id,
                          weir_buf *out)
{
    return report(ctx, op, fsink_snapshot_impl(op, ctx, ckpt_id, out));
}

static int fsink_checkpoint_complete(void *op, weir_op_ctx *ctx,
                                     uint64_t ckpt_id)
{
    return report(ctx, op, fsink_checkpoint_complete_impl(op, ctx, ckpt_id));
}

static int fsink_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    return report(ctx, op, fsink_restore_impl(op, ctx, in));
}

static int fsink_restore_union(void *op, weir_op_ctx *ctx,
                               weir_cursor *states, uint32_t n)
{
    return report(ctx, op, fsink_restore_union_impl(op, ctx, states, n));
}

static void fsink_close(void *op)
{
    file_sink *s = op;
    if (!s)
        return;
    /*
     * A file still open here was never pre-committed (a snapshot rolls the
     * open files first): the job was canceled or failed, and no checkpoint
     * and no later run will ever commit it. It goes now rather than at the
     * next start.
     */
    for (uint32_t i = 0; i < s->n_buckets; i++) {
        bucket *b = s->buckets[i];
        if (b->fd < 0 || !b->cur_name)
            continue;
        if (b->fd == S3_FD) {
            s3s_drop(s, b);
            b->fd = -1;
            continue;
        }
        weir__fio->close(b->fd);
        b->fd = -1;
        char *hidden = make_rel_path(s->arg->path, b->cur_name, ".",
                                     ".inprogress");
        if (hidden)
            weir__fio->unlink(hidden);
        weir_free(hidden);
    }
    for (uint32_t i = 0; i < s->n_buckets; i++)
        bucket_free(s->buckets[i]);
    weir_free(s->buckets);
    for (uint32_t i = 0; i < s->n_pending; i++)
        pending_fini(&s->pending[i]);
    weir_free(s->pending);
    weir_free(s->marks);
    weir_free(s->runs);
    weir_free(s->known);
    weir_free(s->adopted);
    weir_buf_fini(&s->key);
    weir_encoder_destroy(s->enc);
    if (s->data_schema)
        weir_schema_destroy(s->data_schema);
    weir_free(s->data_cols);
    weir_free(s->key_cols);
    weir_free(s->view_cols);
    weir__dirlock_release(s->lock);
#if defined(WEIR_HAVE_CURL)
    weir__s3_destroy(s->s3);
#endif
    weir_free(s);
}

const weir_operator_class weir__file_sink_class = {
    .name = "filesystem",
    .open = fsink_open,
    .process = fsink_process,
    .watermark = fsink_watermark,
    .snapshot = fsink_snapshot,
    .restore = fsink_restore,
    .restore_union = fsink_restore_union,
    .checkpoint_complete = fsink_checkpoint_complete,
    .finish = fsink_finish,
    .stop = fsink_stop,
    .close = fsink_close,
};

static char *dup_or_null(const char *s, bool *ok)
{
    if (!s)
        return NULL;
    char *d = weir_strdup(s);
    if (!d)
        *ok = false;
    return d;
}

bool weir__file_sink_plain_name(const char *name)
{
    if (!name || !*name)
        return false;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\')
            return false;
    return true;
}

/* A run id no earlier run drew: 64 random bits (never 0). */
static uint64_t new_run_id(void)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        static _Atomic uint64_t seq;
        r = hash_str((const char *)&ts, sizeof ts) ^
            ((uint64_t)getpid() << 32) ^ atomic_fetch_add(&seq, 1);
    }
    return r ? r : 1;
}

int weir_file_sink_spec(const weir_file_sink_config *cfg,
                        weir_operator_spec *out, weir_error *err)
{
    memset(out, 0, sizeof *out);
    if (!cfg || !cfg->path || !*cfg->path)
        return weir_error_set(err, WEIR_EINVAL,
                              "filesystem sink: 'path' is required");
    for (uint32_t i = 0; i < cfg->n_partition_keys; i++)
        if (!cfg->partition_keys || !cfg->partition_keys[i] ||
            !*cfg->partition_keys[i])
            return weir_error_set(err, WEIR_EINVAL,
                                  "filesystem sink: empty partition key");
    if (cfg->partition_default_name &&
        !weir__file_sink_plain_name(cfg->partition_default_name))
        return weir_error_set(err, WEIR_EINVAL,
                              "filesystem sink: the partition default name "
                              "must be a plain folder name (not empty, no "
                              "'/', '\\' or control characters), got '%s'",
                              cfg->partition_default_name);
    if (cfg->success_file && !cfg->n_partition_keys)
        return weir_error_set(err, WEIR_EINVAL,
                              "filesystem sink: a partition commit policy "
                              "needs a partitioned table (PARTITIONED BY)");
    fsink_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    a->cfg = *cfg;
    bool ok = true;
    a->path = dup_or_null(cfg->path, &ok);
    a->null_literal = dup_or_null(cfg->format.csv_null_literal, &ok);
    a->default_name =
        weir_strdup(cfg->partition_default_name ? cfg->partition_default_name
                                                : DEFAULT_PARTITION_NAME);
    a->success_name = weir_strdup(
        cfg->success_file_name ? cfg->success_file_name : DEFAULT_SUCCESS_NAME);
    a->time_pattern = dup_or_null(cfg->partition_time_pattern, &ok);
    a->job_id = dup_or_null(cfg->job_id, &ok);
    a->run = cfg->run_id ? cfg->run_id : new_run_id();
    if (cfg->n_partition_keys) {
        a->keys = weir_calloc(cfg->n_partition_keys, sizeof *a->keys);
        for (uint32_t i = 0; a->keys && i < cfg->n_partition_keys; i++)
            a->keys[i] = dup_or_null(cfg->partition_keys[i], &ok);
        ok &= a->keys != NULL;
    }
    if (!ok || !a->default_name || !a->success_name) {
        a->cfg.n_partition_keys = a->keys ? a->cfg.n_partition_keys : 0;
        fsink_arg_free(a);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    if (!*a->success_name || strchr(a->success_name, '/')) {
        fsink_arg_free(a);
        return weir_error_set(err, WEIR_EINVAL,
                              "filesystem sink: the success file name must be "
                              "a plain file name");
    }
    size_t n = strlen(a->path);
    while (n > 1 && a->path[n - 1] == '/')
        a->path[--n] = '\0';
    a->cfg.path = a->path;
    a->cfg.format.csv_null_literal = a->null_literal;
    a->cfg.partition_keys = (const char *const *)a->keys;
    a->cfg.partition_default_name = a->default_name;
    a->cfg.success_file_name = a->success_name;
    a->cfg.partition_time_pattern = a->time_pattern;
    a->cfg.job_id = a->job_id;
    a->cfg.run_id = a->run;
    out->name = "filesystem";
    out->cls = &weir__file_sink_class;
    out->create = fsink_create;
    out->arg = a;
    out->free_arg = fsink_arg_free;
    return 0;
}
