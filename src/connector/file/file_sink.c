/*
 * connector/file/file_sink.c - rows to part files in a directory, as JSON
 * lines, CSV or a debezium-json changelog.
 *
 * Each subtask writes its own part files, "part-<subtask>-<n>.<ext>", n
 * counting up from 0 (or past the highest n already in the directory, so a
 * new run never overwrites an earlier one). A file being written is hidden:
 * ".part-<subtask>-<n>.<ext>.inprogress". Its life:
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
 * hidden files written after it. The part counter is part of the snapshot,
 * so a replay writes the same file names again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "connector/connector_internal.h"
#include "connector/file/fileio.h"
#include "runtime/checkpoint.h"

#define DEFAULT_ROLL_SIZE (UINT64_C(128) << 20)
#define DEFAULT_ROLLOVER_MS (30 * 60 * 1000)
#define WRITE_CHUNK (256u << 10)
/* 2 adds the subtask index: after a scale-down a subtask adopts others' files.
 */
#define SNAPSHOT_VERSION 2

typedef struct fsink_arg {
    weir_file_sink_config cfg;
    char *path;
    char *null_literal;
} fsink_arg;

typedef struct pending_file {
    char *name; /* visible name, "part-0-3.json"; the hidden one is derived */
    uint64_t ckpt; /* checkpoint that covers it, if tagged */
    bool tagged;
} pending_file;

typedef struct file_sink {
    weir_error err; /* first member: see weir__sink_last_error */
    const fsink_arg *arg;
    uint32_t subtask;
    weir_encoder *enc;
    weir_clock clock;
    uint64_t roll_size;
    int64_t rollover_ms;
    int fd;         /* the in-progress file, or -1 */
    char *cur_name; /* its visible name */
    uint64_t cur_bytes;
    int64_t cur_opened_ms;
    uint64_t next_part;
    weir_buf buf; /* encoded bytes not yet written */
    pending_file *pending;
    uint32_t n_pending, cap_pending;
    uint64_t rows;
    uint64_t committed; /* files made visible */
    bool restored;      /* restore() ran: it dealt with the hidden files */
    bool swept;         /* hidden files of a crashed earlier run removed */
} file_sink;

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

static int fail_errno(file_sink *s, const char *what, const char *name, int e)
{
    return weir_error_set(&s->err, weir__fio_errno_code(e),
                          "%s/%s: error: cannot %s: %s", s->arg->path, name,
                          what, strerror(e < 0 ? -e : e));
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

static int fsink_create(void *argp, const weir_op_info *info, void **out)
{
    const fsink_arg *a = argp;
    if (!info || info->n_inputs < 1 || !info->input_schemas ||
        !info->input_schemas[0])
        return WEIR_EINVAL;
    file_sink *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->arg = a;
    s->subtask = info->subtask;
    s->fd = -1;
    s->clock = a->cfg.clock.now_ms ? a->cfg.clock : weir_clock_system();
    s->roll_size =
        a->cfg.rolling_file_size ? a->cfg.rolling_file_size : DEFAULT_ROLL_SIZE;
    s->rollover_ms = a->cfg.rollover_interval_ms ? a->cfg.rollover_interval_ms
                                                 : DEFAULT_ROLLOVER_MS;
    weir_buf_init(&s->buf);
    int rc = weir_encoder_create(&a->cfg.format, info->input_schemas[0],
                                 &s->enc, &s->err);
    if (rc) {
        weir_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* Parses "part-<subtask>-<n>." (after an optional '.'); returns n or -1. */
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

static int fsink_open_impl(void *op, weir_op_ctx *ctx)
{
    file_sink *s = op;
    int rc = weir__fio_mkdirs(s->arg->path);
    if (rc)
        return weir_error_set(&s->err, weir__fio_errno_code(rc),
                              "%s: error: cannot create directory: %s",
                              s->arg->path, strerror(-rc));
    /* Continue after the highest part number of this subtask already there. */
    DIR *d = opendir(s->arg->path);
    if (!d)
        return weir_error_set(&s->err, weir__fio_errno_code(errno),
                              "%s: error: cannot list directory: %s",
                              s->arg->path, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int64_t n = part_number(e->d_name, s->subtask);
        if (n >= 0 && (uint64_t)n + 1 > s->next_part)
            s->next_part = (uint64_t)n + 1;
    }
    closedir(d);
    return 0;
}

static int write_out(file_sink *s)
{
    if (s->buf.len == 0)
        return 0;
    int rc = weir__fio_write_all(s->fd, s->buf.data, s->buf.len);
    if (rc)
        return fail_errno(s, "write", s->cur_name, rc);
    weir_buf_clear(&s->buf);
    return 0;
}

static int abort_uncovered(file_sink *s, uint32_t idx);

/*
 * A start without restored state: hidden files of this subtask index are
 * left over from a run that crashed before any checkpoint covered them (or
 * that ran without checkpoints). No checkpoint will ever commit them, so
 * they go, once, before this run writes its first file.
 */
static int sweep_if_fresh(file_sink *s)
{
    if (s->restored || s->swept)
        return 0;
    s->swept = true;
    return abort_uncovered(s, s->subtask);
}

static int open_part(file_sink *s)
{
    int src = sweep_if_fresh(s);
    if (src)
        return src;
    char name[128];
    snprintf(name, sizeof name, "part-%u-%" PRIu64 ".%s", s->subtask,
             s->next_part, weir_format_extension(s->arg->cfg.format.kind));
    char *hidden = make_path(s->arg->path, ".", name, ".inprogress");
    s->cur_name = weir_strdup(name);
    if (!hidden || !s->cur_name) {
        weir_free(hidden);
        weir_free(s->cur_name);
        s->cur_name = NULL;
        return weir_error_set(&s->err, WEIR_ENOMEM, "out of memory");
    }
    s->fd = weir__fio->open(hidden, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int e = errno;
    weir_free(hidden);
    if (s->fd < 0) {
        int rc = fail_errno(s, "create", name, e);
        weir_free(s->cur_name);
        s->cur_name = NULL;
        return rc;
    }
    s->next_part++;
    s->cur_bytes = 0;
    s->cur_opened_ms = weir_clock_now(&s->clock);
    size_t before = s->buf.len;
    if (weir_encoder_header(s->enc, &s->buf))
        return weir_error_set(&s->err, WEIR_ENOMEM, "out of memory");
    s->cur_bytes += s->buf.len - before;
    return 0;
}

static int commit_one(file_sink *s, const char *name)
{
    char *hidden = make_path(s->arg->path, ".", name, ".inprogress");
    char *visible = make_path(s->arg->path, "", name, "");
    int rc = 0;
    if (!hidden || !visible) {
        rc = weir_error_set(&s->err, WEIR_ENOMEM, "out of memory");
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

/*
 * Commits pending files: all of them (all = true) or those tagged with a
 * checkpoint <= upto. Renames, then makes the renames durable.
 */
static int commit_pending(file_sink *s, bool all, uint64_t upto)
{
    uint32_t kept = 0;
    int rc = 0;
    bool any = false;
    for (uint32_t i = 0; i < s->n_pending; i++) {
        pending_file *p = &s->pending[i];
        if (!rc && (all || (p->tagged && p->ckpt <= upto))) {
            rc = commit_one(s, p->name);
            if (!rc) {
                any = true;
                weir_free(p->name);
                continue;
            }
        }
        s->pending[kept++] = *p;
    }
    s->n_pending = kept;
    if (any && !rc) {
        int frc = weir__fio_fsync_dir(s->arg->path);
        if (frc)
            rc = fail_errno(s, "sync directory", "", frc);
    }
    return rc;
}

static int add_pending(file_sink *s, char *name, bool tagged, uint64_t ckpt)
{
    if (s->n_pending == s->cap_pending) {
        uint32_t cap = s->cap_pending ? s->cap_pending * 2 : 8;
        pending_file *v = weir_realloc(s->pending, cap * sizeof *v);
        if (!v) {
            weir_free(name);
            return weir_error_set(&s->err, WEIR_ENOMEM, "out of memory");
        }
        s->pending = v;
        s->cap_pending = cap;
    }
    s->pending[s->n_pending++] = (pending_file){name, ckpt, tagged};
    return 0;
}

/* Closes the in-progress file (flushed and synced) and makes it pending. */
static int roll(file_sink *s)
{
    if (s->fd < 0)
        return 0;
    int rc = write_out(s);
    if (!rc && weir__fio->fsync(s->fd) != 0)
        rc = fail_errno(s, "sync", s->cur_name, errno);
    if (weir__fio->close(s->fd) != 0 && !rc)
        rc = fail_errno(s, "close", s->cur_name, errno);
    s->fd = -1;
    char *name = s->cur_name;
    s->cur_name = NULL;
    if (rc) {
        weir_free(name);
        return rc;
    }
    if ((rc = add_pending(s, name, false, 0)))
        return rc;
    if (!s->arg->cfg.commit_on_checkpoint)
        return commit_pending(s, true, 0);
    return 0;
}

static int fsink_process_impl(void *op, weir_op_ctx *ctx, int input,
                              const weir_batch *b)
{
    file_sink *s = op;
    int rc;
    if (s->fd >= 0 && s->rollover_ms > 0 &&
        weir_clock_now(&s->clock) - s->cur_opened_ms >= s->rollover_ms &&
        (rc = roll(s)))
        return rc;
    for (uint32_t r = 0; r < b->n_rows; r++) {
        if (s->fd < 0 && (rc = open_part(s)))
            return rc;
        size_t before = s->buf.len;
        if ((rc = weir_encoder_encode(s->enc, b, r, &s->buf, &s->err)))
            return rc;
        s->cur_bytes += s->buf.len - before;
        if (s->cur_bytes >= s->roll_size) {
            if ((rc = roll(s)))
                return rc;
        } else if (s->buf.len >= WRITE_CHUNK && (rc = write_out(s))) {
            return rc;
        }
    }
    s->rows += b->n_rows;
    return 0;
}

static int fsink_finish_impl(void *op, weir_op_ctx *ctx)
{
    file_sink *s = op;
    int rc = sweep_if_fresh(s);
    if (!rc)
        rc = roll(s);
    /*
     * End of input: everything written is final. With checkpoints the
     * job's final checkpoint commits it (a crash before that checkpoint
     * completes must not leave it visible); without, commit now.
     */
    if (rc ||
        (s->arg->cfg.commit_on_checkpoint && weir__op_final_checkpoint(ctx)))
        return rc;
    return commit_pending(s, true, 0);
}

static int fsink_snapshot_impl(void *op, weir_op_ctx *ctx, uint64_t ckpt_id,
                               weir_buf *out)
{
    file_sink *s = op;
    int rc;
    if (s->arg->cfg.commit_on_checkpoint) {
        if ((rc = roll(s)))
            return rc;
        for (uint32_t i = 0; i < s->n_pending; i++) {
            if (!s->pending[i].tagged) {
                s->pending[i].tagged = true;
                s->pending[i].ckpt = ckpt_id;
            }
        }
    } else if (s->fd >= 0 && (rc = write_out(s))) {
        return rc;
    }
    rc = weir_buf_put_u32(out, SNAPSHOT_VERSION);
    if (!rc)
        rc = weir_buf_put_u32(out, s->subtask);
    if (!rc)
        rc = weir_buf_put_u64(out, s->next_part);
    if (!rc)
        rc = weir_buf_put_u32(out, s->n_pending);
    for (uint32_t i = 0; i < s->n_pending && !rc; i++) {
        rc = weir_buf_put_u64(out, s->pending[i].ckpt);
        if (!rc)
            rc = weir_buf_put_str(out, s->pending[i].name);
    }
    return rc ? weir_error_set(&s->err, rc, "out of memory") : 0;
}

static int fsink_checkpoint_complete_impl(void *op, weir_op_ctx *ctx,
                                          uint64_t ckpt_id)
{
    return commit_pending(op, false, ckpt_id);
}

/* Deletes the hidden files of subtask index idx that no restored checkpoint
 * covers. */
static int abort_uncovered(file_sink *s, uint32_t idx)
{
    DIR *d = opendir(s->arg->path);
    if (!d)
        return fail_errno(s, "list", "", errno);
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.' || part_number(e->d_name, idx) < 0)
            continue;
        size_t n = strlen(e->d_name);
        if (n < 11 || strcmp(e->d_name + n - 11, ".inprogress") != 0)
            continue;
        char *p = make_path(s->arg->path, "", e->d_name, "");
        if (!p) {
            rc = weir_error_set(&s->err, WEIR_ENOMEM, "out of memory");
            break;
        }
        if (weir__fio->unlink(p) != 0 && errno != ENOENT)
            rc = fail_errno(s, "delete aborted file", e->d_name, errno);
        weir_free(p);
    }
    closedir(d);
    return rc;
}

static int fsink_restore_impl(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    file_sink *s = op;
    s->restored = true;
    uint32_t version, n, idx = s->subtask;
    uint64_t next_part;
    if (weir_cursor_get_u32(in, &version) ||
        (version != 1 && version != SNAPSHOT_VERSION) ||
        (version >= 2 && weir_cursor_get_u32(in, &idx)) ||
        weir_cursor_get_u64(in, &next_part) || weir_cursor_get_u32(in, &n))
        return weir_error_set(&s->err, WEIR_ECORRUPT,
                              "%s: error: file sink snapshot is corrupt",
                              s->arg->path);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ckpt;
        char *name = NULL;
        if (weir_cursor_get_u64(in, &ckpt) || weir_cursor_get_str(in, &name) ||
            !name || strchr(name, '/')) {
            weir_free(name);
            return weir_error_set(&s->err, WEIR_ECORRUPT,
                                  "%s: error: file sink snapshot is corrupt",
                                  s->arg->path);
        }
        int rc = add_pending(s, name, true, ckpt);
        if (rc)
            return rc;
    }
    /*
     * The restored checkpoint completed: what it covers is committed now,
     * the rest of that subtask's hidden files deleted. After a scale-down
     * the state may be an old subtask's that no longer runs: its files are
     * adopted, its part numbers are not.
     */
    int rc = commit_pending(s, true, 0);
    if (!rc)
        rc = abort_uncovered(s, idx);
    if (idx == s->subtask)
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

static int fsink_finish(void *op, weir_op_ctx *ctx)
{
    return report(ctx, op, fsink_finish_impl(op, ctx));
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

static void fsink_close(void *op)
{
    file_sink *s = op;
    if (!s)
        return;
    if (s->fd >= 0)
        weir__fio->close(s->fd); /* left hidden: aborted output */
    weir_free(s->cur_name);
    for (uint32_t i = 0; i < s->n_pending; i++)
        weir_free(s->pending[i].name);
    weir_free(s->pending);
    weir_buf_fini(&s->buf);
    weir_encoder_destroy(s->enc);
    weir_free(s);
}

const weir_operator_class weir__file_sink_class = {
    .name = "filesystem",
    .open = fsink_open,
    .process = fsink_process,
    .snapshot = fsink_snapshot,
    .restore = fsink_restore,
    .checkpoint_complete = fsink_checkpoint_complete,
    .finish = fsink_finish,
    .close = fsink_close,
};

int weir_file_sink_spec(const weir_file_sink_config *cfg,
                        weir_operator_spec *out, weir_error *err)
{
    memset(out, 0, sizeof *out);
    if (!cfg || !cfg->path || !*cfg->path)
        return weir_error_set(err, WEIR_EINVAL,
                              "filesystem sink: 'path' is required");
    fsink_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    a->cfg = *cfg;
    a->path = weir_strdup(cfg->path);
    if (cfg->format.csv_null_literal)
        a->null_literal = weir_strdup(cfg->format.csv_null_literal);
    if (!a->path || (cfg->format.csv_null_literal && !a->null_literal)) {
        fsink_arg_free(a);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    size_t n = strlen(a->path);
    while (n > 1 && a->path[n - 1] == '/')
        a->path[--n] = '\0';
    a->cfg.path = a->path;
    a->cfg.format.csv_null_literal = a->null_literal;
    out->name = "filesystem";
    out->cls = &weir__file_sink_class;
    out->create = fsink_create;
    out->arg = a;
    out->free_arg = fsink_arg_free;
    return 0;
}

static const char *const file_sink_known[] = {
    "path",
    "format",
    "sink.rolling-policy.file-size",
    "sink.rolling-policy.rollover-interval",
    "sink.rolling-policy.check-interval",
    "sink.commit-on-checkpoint",
    "json.encode.ignore-null-fields",
    "json.timestamp-format.standard",
    "csv.field-delimiter",
    "csv.quote-character",
    "csv.disable-quote-character",
    "csv.null-literal",
    "csv.header",
    NULL};

int weir_file_sink_spec_opts(const weir_option *opts, size_t n_opts,
                             const weir_schema *schema,
                             const weir_connector_env *env,
                             weir_operator_spec *out, weir_error *err)
{
    weir__optset o;
    weir_file_sink_config cfg;
    weir_file_sink_config_init(&cfg);
    memset(out, 0, sizeof *out);
    bool ignore_errors = false;
    int rc = weir__optset_init(&o, "filesystem", opts, n_opts, env, err);
    if (rc)
        goto done;
    cfg.path = weir__opt_get(&o, "path");
    if (!cfg.path) {
        rc = weir_error_set(err, WEIR_EINVAL,
                            "connector 'filesystem' needs option 'path'");
        goto done;
    }
    if ((rc = weir__opt_format(&o, true, &cfg.format, &ignore_errors)))
        goto done;
    if ((rc = weir__opt_size(&o, "sink.rolling-policy.file-size",
                             &cfg.rolling_file_size)))
        goto done;
    if ((rc = weir__opt_duration(&o, "sink.rolling-policy.rollover-interval",
                                 &cfg.rollover_interval_ms)))
        goto done;
    int64_t check_ms =
        0; /* Flink's timer granularity; weir checks on every batch */
    if ((rc = weir__opt_duration(&o, "sink.rolling-policy.check-interval",
                                 &check_ms)))
        goto done;
    if ((rc = weir__opt_bool(&o, "sink.commit-on-checkpoint",
                             &cfg.commit_on_checkpoint)))
        goto done;
    if (cfg.rolling_file_size == 0 &&
        weir__opt_index(&o, "sink.rolling-policy.file-size") >= 0) {
        rc = weir__opt_fail(
            &o, (size_t)weir__opt_index(&o, "sink.rolling-policy.file-size"),
            WEIR_EINVAL,
            "option 'sink.rolling-policy.file-size' must be at least 1 byte");
        goto done;
    }
    static const char *const source_side[] = {
        "source.monitor-interval",   "source.split-size",
        "source.bad-input",          "source.dead-letter.path",
        "source.path.regex-pattern", NULL};
    weir__opt_accept(&o, source_side);
    if (env)
        cfg.clock = env->clock;
    if ((rc = weir__opt_finish(&o, file_sink_known)))
        goto done;
    if (schema) {
        weir_encoder *probe; /* check the format against the schema now */
        if ((rc = weir_encoder_create(&cfg.format, schema, &probe, err)))
            goto done;
        weir_encoder_destroy(probe);
    }
    rc = weir_file_sink_spec(&cfg, out, err);
done:
    weir__optset_fini(&o);
    return rc;
}

const weir_error *weir__sink_last_error(const void *op)
{
    return (const weir_error *)op;
}
