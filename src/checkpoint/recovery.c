/*
 * checkpoint/recovery.c - choosing and loading the checkpoint a job resumes
 * from.
 *
 * The newest checkpoint whose _metadata and state files verify wins. One
 * that fails verification (truncated, bit flips, a missing file) is
 * reported and skipped for the one before it; one without _metadata never
 * completed and is skipped silently. A checkpoint that verifies but does not
 * fit the job (an operator id whose name differs, another max parallelism)
 * stops recovery with an error instead: falling back to an older checkpoint
 * of the same wrong job would not help, and silently starting over would
 * throw the state away.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint/coordinator.h"
#include "util/io.h"

/* An operator a state file holds state of (for checkpoints without an
 * operator list). */
typedef struct seen_op {
    uint32_t node;
    char *name;
} seen_op;

typedef struct load_ctx {
    weir_job *job;
    weir__snapshot_set *set;
    const char *shown; /* the checkpoint as users name it */
    weir_error *err;
    seen_op *seen;
    uint32_t n_seen;
} load_ctx;

/*
 * Checkpoints written before restore compatibility (metadata versions 2
 * and 3) list no operators: their state is matched by node id and name,
 * as it always was.
 */
static int check_op(load_ctx *lc, uint32_t node, const char *name)
{
    const char *have = weir__job_node_name(lc->job, (int)node);
    if (have && name && strcmp(have, name) == 0)
        return 0;
    if (have)
        return weir_error_set(lc->err, WEIR_EINVAL,
                              "%s does not fit this job: it holds state of "
                              "operator %u '%s', and the job's operator "
                              "%u is '%s' (a changed query needs --fresh or a "
                              "compatible savepoint)",
                              lc->shown, node, name ? name : "?", node, have);
    return weir_error_set(lc->err, WEIR_EINVAL,
                          "%s does not fit this job: it holds state of "
                          "operator %u '%s', which the job does not have",
                          lc->shown, node, name ? name : "?");
}

static int on_file(void *ud, const weir__ckpt_file *f, const uint8_t *data,
                   size_t len)
{
    load_ctx *lc = ud;
    /* A stop while a large checkpoint loads: the job does not start. */
    if (weir__job_interrupted(lc->job))
        return weir_error_set(lc->err, WEIR_ECANCELED,
                              "%s: stopped while loading it; nothing changed",
                              lc->shown);
    weir__snap_view v;
    weir_error e;
    if (weir__snap_view_decode(data, len, &v, &e) != 0)
        return weir_error_set(lc->err, WEIR_ECORRUPT, "%s/%s: %s", lc->shown,
                              f->file, e.message);
    int rc = 0;
    for (uint32_t i = 0; i < v.n_ops && !rc; i++) {
        seen_op *s =
            weir_realloc(lc->seen, (lc->n_seen + 1) * sizeof *lc->seen);
        if (!s || !(s[lc->n_seen].name = weir_strdup(v.ops[i].name ? v.ops[i].name : "?"))) {
            if (s)
                lc->seen = s;
            rc = weir_error_set(lc->err, WEIR_ENOMEM, "out of memory");
            break;
        }
        lc->seen = s;
        s[lc->n_seen++].node = v.ops[i].node;
    }
    weir__snap_view_fini(&v);
    if (rc)
        return rc;
    rc = weir__snapshot_set_add(lc->set, data, len);
    if (rc)
        return weir_error_set(lc->err, rc, "%s/%s: %s", lc->shown, f->file,
                              rc == WEIR_ENOMEM ? "out of memory"
                                                : "malformed subtask snapshot");
    return 0;
}

static int fetch_shared(void *ud, const char *name, const char *path,
                        uint64_t *size, uint32_t *crc)
{
    return weir__storage_get_file(ud, name, path, size, crc);
}

/* Restore folders a killed earlier run left in the state folder. */
static void remove_stale_restores(const char *state_dir)
{
    DIR *d = opendir(state_dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "restore-", 8) == 0) {
            snprintf(path, sizeof path, "%s/%s", state_dir, e->d_name);
            weir__io_remove_tree(path);
        }
    closedir(d);
}

/*
 * Incremental checkpoints: the native parts' files go to a local folder
 * (the job's state folder, else a temporary one), from where RocksDB
 * backends open them.
 */
static int materialize(weir_job *job, weir__storage *s, uint64_t id,
                       const char *shown, weir__snapshot_set *set,
                       weir_error *err)
{
    if (!weir__snapshot_set_has_native(set))
        return 0;
    const weir_job_config *jc = weir__job_config(job);
    char scratch[1024];
    int owner = -1;
    if (jc->state_dir && *jc->state_dir) {
        remove_stale_restores(jc->state_dir);
        snprintf(scratch, sizeof scratch, "%s/restore-%" PRIu64, jc->state_dir,
                 id);
    } else {
        /* Its owner file lets the next job remove it when this process is
         * killed during the restore. */
        if (weir__io_temp_dir_owned("weir-restore", scratch, sizeof scratch,
                                    &owner))
            return weir_error_set(err, WEIR_EIO,
                                  "%s: cannot create a folder to restore "
                                  "RocksDB checkpoints in: %s",
                                  shown, scratch);
    }
    char why[600];
    int rc = weir__snapshot_set_materialize(set, scratch, owner,
                                            jc->max_parallelism,
                                            fetch_shared, s, why, sizeof why);
    if (rc == WEIR_ECORRUPT && why[0])
        return weir_error_set(err, rc, "%s: %s", shown, why);
    if (rc)
        return weir_error_set(err, rc == WEIR_ENOMEM ? rc : WEIR_ECORRUPT,
                              "%s: cannot restore its RocksDB files into %s: "
                              "%s",
                              shown, scratch, weir_strerror(rc));
    return 0;
}

/* Loads checkpoint folder `name` of s into a new snapshot set; rec's
 * left_out says which operator not in the job it left out. */
static int load(weir_job *job, const weir_checkpoint_config *cfg,
                weir__storage *s, const char *name, const char *shown,
                weir__ckpt_meta *meta, weir__snapshot_set **out,
                weir__recovered *rec, weir_error *err)
{
    rec->left_out[0] = '\0';
    weir__snapshot_set *set;
    if (weir__snapshot_set_create(&set))
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    load_ctx lc = {job, set, shown, err, NULL, 0};
    /* Shared files are checked once, as materialize fetches them. */
    int rc = weir__ckpt_load_state_files(s, name, meta, on_file, &lc, err);
    if (!rc) {
        if (meta->has_ops) {
            rc = weir__ckpt_compat_apply(job, cfg, shown, meta, set,
                                         rec->left_out, sizeof rec->left_out,
                                         err);
        } else {
            for (uint32_t i = 0; i < lc.n_seen && !rc; i++)
                rc = check_op(&lc, lc.seen[i].node, lc.seen[i].name);
            if (!rc && (rc = weir__ckpt_compat_canonical_rows(job)))
                rc = weir_error_set(err, rc, "out of memory");
            if (!rc)
                weir__ckpt_log(cfg,
                               "%s was written by an older weir and records "
                               "no operator fingerprints: its state is "
                               "matched by operator position and name only, "
                               "so a changed window size or aggregate is not "
                               "detected (run with --fresh if the query "
                               "changed)",
                               shown);
        }
        if (rc)
            weir__ckpt_meta_fini(meta);
    }
    for (uint32_t i = 0; i < lc.n_seen; i++)
        weir_free(lc.seen[i].name);
    weir_free(lc.seen);
    uint32_t max_par = weir__job_config(job)->max_parallelism;
    if (!rc && meta->max_parallelism != max_par) {
        rc = weir_error_set(err, WEIR_EINVAL,
                            "%s was taken with max parallelism %u (key groups) "
                            "and the job has %u: its keyed state "
                            "cannot be mapped (set the same max parallelism, "
                            "or start with --fresh)",
                            shown, meta->max_parallelism, max_par);
        weir__ckpt_meta_fini(meta);
    }
    if (!rc && (rc = materialize(job, s, meta->id, shown, set, err)))
        weir__ckpt_meta_fini(meta);
    if (rc) {
        weir__snapshot_set_destroy(set);
        return rc;
    }
    *out = set;
    return 0;
}

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}

/* Largest checkpoint or savepoint id in s (0 if none). */
static uint64_t max_id(weir__storage *s)
{
    char **names;
    size_t n;
    uint64_t m = 0;
    if (!s || s->ops->list(s, "", &names, &n) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        bool sp;
        if (weir__ckpt_parse_name(names[i], &id, &sp) && id > m)
            m = id;
    }
    weir__storage_free_names(names, n);
    return m;
}

static void describe(const weir_checkpoint_config *cfg, const char *shown,
                     const weir__ckpt_meta *m)
{
    char when[32];
    uint64_t size = weir__ckpt_meta_size(m);
    weir__ckpt_format_time(m->time_ms, when, sizeof when);
    weir__ckpt_log(
        cfg,
        "restoring from %s %s (taken %s UTC, %u state files, %" PRIu64
        " bytes)%s",
        m->is_savepoint ? "savepoint" : "checkpoint", shown, when, m->n_files,
        size,
        m->is_final ? "; the job had ended there: nothing is left to do "
                      "(--fresh starts over)"
                    : "");
}

/*
 * The newest usable checkpoint (not savepoint) of s, falling back past
 * corrupt ones. dir_shown prefixes names in messages ("" for none).
 * WEIR_ENOTFOUND: there is none.
 */
static int latest_in(weir_job *job, const weir_checkpoint_config *cfg,
                     weir__storage *s, const char *dir_shown,
                     weir__recovered *rec, weir_error *err)
{
    char **names;
    size_t n;
    int rc = s->ops->list(s, "", &names, &n);
    if (rc == WEIR_ENOTFOUND)
        return WEIR_ENOTFOUND;
    if (rc)
        return weir_error_set(err, rc, "%s: cannot list checkpoints: %s",
                              dir_shown, weir_strerror(rc));
    uint64_t *ids = weir_calloc(n ? n : 1, sizeof *ids);
    size_t k = 0;
    for (size_t i = 0; ids && i < n; i++) {
        uint64_t id;
        bool sp;
        if (weir__ckpt_parse_name(names[i], &id, &sp) && !sp)
            ids[k++] = id;
    }
    weir__storage_free_names(names, n);
    if (!ids)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    if (k > 1)
        qsort(ids, k, sizeof *ids, cmp_desc);
    rc = WEIR_ENOTFOUND;
    /* Why each checkpoint that completed could not be used. */
    weir_buf why;
    weir_buf_init(&why);
    size_t n_unusable = 0;
    for (size_t i = 0; i < k; i++) {
        char name[64], shown[600];
        weir__ckpt_name(ids[i], false, name, sizeof name);
        snprintf(shown, sizeof shown, "%s%s%s", dir_shown,
                 *dir_shown ? "/" : "", name);
        weir__ckpt_meta meta;
        weir_error e;
        weir__snapshot_set *set = NULL;
        int lr = load(job, cfg, s, name, shown, &meta, &set, rec, &e);
        if (lr == 0) {
            describe(cfg, cfg->restore == WEIR_RESTORE_PATH ? shown : name,
                     &meta);
            rec->set = set;
            rec->id = meta.id;
            rec->is_final = meta.is_final;
            snprintf(rec->name, sizeof rec->name, "%s", shown);
            weir__ckpt_meta_fini(&meta);
            rc = 0;
            break;
        }
        if (lr == WEIR_ENOTFOUND)
            continue; /* never completed */
        /* Only a checkpoint known to be bad is passed over. One that could
         * not be read (an I/O error, no memory) may be intact: falling back
         * past it - or starting fresh when it is the only one - would
         * replay input whose output is already committed. The start fails
         * instead, and a restart tries it again. */
        if (lr == WEIR_EINVAL || lr == WEIR_ENOMEM || lr == WEIR_EIO ||
            lr == WEIR_ENOSPC || lr == WEIR_ECANCELED) {
            rc = weir_error_set(err, lr, "%s", e.message);
            break;
        }
        n_unusable++;
        weir_buf_printf(&why, "%s%s: %s", n_unusable > 1 ? "; " : "", name,
                        e.message);
        weir__ckpt_log(cfg, "checkpoint %s is unusable: %s%s", name,
                       e.message,
                       i + 1 < k ? "; falling back to the one before it" : "");
    }
    weir_free(ids);
    if (rc == WEIR_ENOTFOUND && n_unusable) {
        /*
         * Checkpoints completed, so sinks committed output under them:
         * starting over on our own would write that output again. Only
         * the user can choose that (--fresh).
         */
        weir_buf_put_u8(&why, 0);
        rc = weir_error_set(
            err, WEIR_ECORRUPT,
            "%s: no usable checkpoint (output was committed under the "
            "ones there, and a fresh start would write it again: run with "
            "--fresh to start over anyway, or --from a savepoint): %s",
            dir_shown, why.data ? (const char *)why.data : "out of memory");
    }
    weir_buf_fini(&why);
    return rc;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* --from PATH: a checkpoint or savepoint folder, or a folder of checkpoints. */
/*
 * --from s3://bucket/prefix/chk-7 (a checkpoint or savepoint: it has a
 * _metadata) or s3://bucket/prefix (its newest complete one).
 */
static int from_remote(weir_job *job, const weir_checkpoint_config *cfg,
                       weir__recovered *rec, uint64_t *max, const char *path,
                       weir_error *err)
{
    char parent[512];
    const char *slash = strrchr(path, '/');
    const char *base = slash + 1;
    /* "s3://bucket" alone has no folder to split off */
    bool has_base = slash > strstr(path, "://") + 2 && *base;
    weir__storage *s = NULL;
    int rc = 0;
    if (has_base) {
        snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
        if ((rc = weir__storage_open(parent, cfg, &s, err)))
            return rc;
        char meta_path[600];
        snprintf(meta_path, sizeof meta_path, "%s/_metadata", base);
        uint8_t *data = NULL;
        size_t len = 0;
        rc = s->ops->get(s, meta_path, &data, &len);
        weir_free(data);
        if (rc && rc != WEIR_ENOTFOUND) {
            weir__storage_destroy(s);
            return weir_error_set(err, rc, "%s: cannot read: %s", path,
                                  weir_strerror(rc));
        }
        if (rc) {
            weir__storage_destroy(s);
            s = NULL;
        }
    }
    if (s) {
        weir__ckpt_meta meta;
        weir__snapshot_set *set = NULL;
        rc = load(job, cfg, s, base, path, &meta, &set, rec, err);
        if (!rc) {
            describe(cfg, path, &meta);
            rec->set = set;
            rec->id = meta.id;
            rec->is_final = meta.is_final;
            snprintf(rec->name, sizeof rec->name, "%s", path);
            weir__ckpt_meta_fini(&meta);
        }
    } else {
        if ((rc = weir__storage_open(path, cfg, &s, err)))
            return rc;
        rc = latest_in(job, cfg, s, path, rec, err);
        if (rc == WEIR_ENOTFOUND)
            weir_error_set(
                err, rc, "%s: no complete checkpoint or savepoint there", path);
    }
    if (!rc && rec->id > *max)
        *max = rec->id;
    weir__storage_destroy(s);
    return rc;
}

static int from_path(weir_job *job, const weir_checkpoint_config *cfg,
                     weir__recovered *rec, uint64_t *max, weir_error *err)
{
    char path[512], parent[512], base[512];
    if (strlen(cfg->restore_path) >= sizeof path)
        return weir_error_set(err, WEIR_EINVAL,
                              "restore path too long (%zu bytes)",
                              strlen(cfg->restore_path));
    snprintf(path, sizeof path, "%s", cfg->restore_path);
    size_t l = strlen(path);
    while (l > 1 && path[l - 1] == '/')
        path[--l] = '\0';
    if (weir__storage_is_remote(path))
        return from_remote(job, cfg, rec, max, path, err);
    if (!is_dir(path))
        return weir_error_set(err, WEIR_ENOTFOUND,
                              "%s: no such checkpoint or savepoint", path);
    char meta_path[600];
    snprintf(meta_path, sizeof meta_path, "%s/_metadata", path);
    struct stat st;
    weir__storage *s = NULL;
    int rc;
    if (stat(meta_path, &st) == 0) {
        char *slash = strrchr(path, '/');
        if (slash) {
            snprintf(base, sizeof base, "%s", slash + 1);
            snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
            if (!*parent)
                strcpy(parent, "/");
        } else {
            snprintf(base, sizeof base, "%s", path);
            strcpy(parent, ".");
        }
        if ((rc = weir__storage_local_create(parent, &s)))
            return weir_error_set(err, rc, "%s: %s", parent, weir_strerror(rc));
        weir__ckpt_meta meta;
        weir__snapshot_set *set = NULL;
        rc = load(job, cfg, s, base, path, &meta, &set, rec, err);
        if (rc == WEIR_ENOTFOUND)
            weir_error_set(err, rc,
                           "%s: no _metadata: the checkpoint never completed",
                           path);
        if (!rc) {
            describe(cfg, path, &meta);
            rec->set = set;
            rec->id = meta.id;
            rec->is_final = meta.is_final;
            snprintf(rec->name, sizeof rec->name, "%s", path);
            weir__ckpt_meta_fini(&meta);
        }
    } else {
        /* One process's parts of a savepoint of a job run by several
         * (docs/cluster.md): only such a job deals them out again. */
        snprintf(meta_path, sizeof meta_path, "%s/_cluster", path);
        if (stat(meta_path, &st) == 0)
            return weir_error_set(
                err, WEIR_EUNSUPPORTED,
                "%s: a savepoint of a job run by several processes: restore "
                "it with weir.cluster.bootstrap-servers set (on any number "
                "of processes); one process alone does not restore it",
                path);
        if ((rc = weir__storage_local_create(path, &s)))
            return weir_error_set(err, rc, "%s: %s", path, weir_strerror(rc));
        rc = latest_in(job, cfg, s, path, rec, err);
        if (rc == WEIR_ENOTFOUND)
            weir_error_set(
                err, rc, "%s: no complete checkpoint or savepoint there", path);
    }
    if (!rc && rec->id > *max)
        *max = rec->id;
    weir__storage_destroy(s);
    return rc;
}

int weir__recovery_find(weir_job *job, const weir_checkpoint_config *cfg,
                        weir__storage *storage, weir__recovered *rec,
                        uint64_t *next_id, weir_error *err)
{
    memset(rec, 0, sizeof *rec);
    uint64_t max = max_id(storage);
    if (cfg->savepoint_dir && (weir__storage_is_remote(cfg->savepoint_dir) ||
                               is_dir(cfg->savepoint_dir))) {
        weir__storage *sp;
        weir_error e;
        if (weir__storage_open(cfg->savepoint_dir, cfg, &sp, &e) == 0) {
            uint64_t m = max_id(sp);
            max = m > max ? m : max;
            weir__storage_destroy(sp);
        }
    }
    int rc = 0;
    switch (cfg->restore) {
    case WEIR_RESTORE_FRESH:
        if (max)
            weir__ckpt_log(cfg,
                           "starting fresh: the checkpoints in %s are ignored",
                           cfg->dir);
        break;
    case WEIR_RESTORE_PATH:
        rc = from_path(job, cfg, rec, &max, err);
        break;
    case WEIR_RESTORE_LATEST:
        rc = latest_in(job, cfg, storage, cfg->dir, rec, err);
        if (rc == WEIR_ENOTFOUND) {
            if (max)
                weir__ckpt_log(cfg,
                               "no usable checkpoint in %s: starting fresh",
                               cfg->dir);
            rc = 0;
        }
        break;
    default:
        rc = weir_error_set(err, WEIR_EINVAL, "unknown restore mode %d",
                            (int)cfg->restore);
    }
    *next_id = max + 1;
    return rc;
}
