/*
 * runtime/checkpoint.c - triggering checkpoints, notifying their completion,
 * and restoring from subtask snapshots (see checkpoint.h for the protocol
 * and the snapshot format).
 *
 * A trigger and a subtask's end race: the subtask marks itself finished
 * and drains its mailbox under its gate's mutex, and the trigger checks
 * that flag and posts to the mailbox in one step under the same mutex, so
 * every subtask either receives the trigger in its mailbox (and acks, or
 * acks "finished" when it ends without seeing the barrier) or is acked
 * "finished" by the trigger itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "state/rocksdb_backend.h"
#include "util/io.h"

int weir__job_set_ckpt_hooks(weir_job *job, const weir__ckpt_hooks *hooks)
{
    if (!job || !hooks)
        return WEIR_EINVAL;
    if (job->phase != 0)
        return WEIR_ESTATE;
    job->hooks = *hooks;
    job->has_hooks = true;
    return 0;
}

int weir__job_set_restore(weir_job *job, const weir__restore_source *rs)
{
    if (!job || !rs)
        return WEIR_EINVAL;
    if (job->phase != 0)
        return WEIR_ESTATE;
    job->restore = *rs;
    job->has_restore = true;
    return 0;
}

bool weir__final_checkpoints(const weir_job *job)
{
    return job->has_hooks && job->hooks.final_checkpoint;
}

bool weir__op_final_checkpoint(weir_op_ctx *ctx)
{
    return ctx && weir__final_checkpoints(ctx->st->job);
}

void weir__op_instance(weir_op_ctx *ctx, uint32_t *subtask,
                       uint32_t *parallelism, uint64_t *last_id,
                       uint64_t *restored_id)
{
    const weir_job *job = ctx->st->job;
    /* the numbering weir_op_info gives every operator (runtime/opctx.c) */
    *subtask = ctx->info.job_subtask;
    *parallelism = ctx->info.job_parallelism;
    *last_id = job->has_gate ? job->gate.first_id : 0;
    if (restored_id)
        *restored_id = job->has_gate ? job->gate.restored_id : 0;
}

void weir__op_on_status(weir_op_ctx *ctx, weir__op_status_fn fn)
{
    ctx->status_fn = fn;
}

void weir__op_on_canonical_rows(weir_op_ctx *ctx, weir__op_canonical_rows_fn fn)
{
    ctx->canonical_rows_fn = fn;
}

void weir__op_on_restored(weir_op_ctx *ctx, weir__op_restored_fn fn)
{
    ctx->restored_fn = fn;
}

void weir__job_restore_canonical_rows(weir_job *job, int node, bool canonical)
{
    weir__node *n = job ? weir__job_node(job, node) : NULL;
    if (n)
        n->restore_canonical_rows = canonical;
}

void weir__job_restore_whole_rank_rows(weir_job *job, int node, bool whole)
{
    weir__node *n = job ? weir__job_node(job, node) : NULL;
    if (n)
        n->restore_whole_rank_rows = whole;
}

bool weir__op_restores_whole_rank_rows(const weir_op_ctx *ctx) { return ctx->node->restore_whole_rank_rows; }

void weir__job_restore_row_log_1(weir_job *job, int node, bool first, const bool timed[2])
{
    weir__node *n = job ? weir__job_node(job, node) : NULL;
    if (!n)
        return;
    n->restore_row_log_1 = first;
    for (int s = 0; s < 2; s++)
        n->restore_row_log_1_timed[s] = first && timed[s];
}

bool weir__op_restores_row_log_1(const weir_op_ctx *ctx, bool timed[2])
{
    for (int s = 0; s < 2; s++)
        timed[s] = ctx->node->restore_row_log_1_timed[s];
    return ctx->node->restore_row_log_1;
}

const char *weir__job_node_name(const weir_job *job, int node)
{
    const weir__node *n = job ? weir__job_node(job, node) : NULL;
    return n ? n->name : NULL;
}

uint32_t weir__job_node_count(const weir_job *job)
{
    return job ? job->n_nodes : 0;
}

uint32_t weir__job_node_parallelism(const weir_job *job, int node)
{
    return job && node >= 0 && (uint32_t)node < job->n_nodes ? job->nodes[node].parallelism : 0;
}

const weir_job_config *weir__job_config(const weir_job *job)
{
    return &job->cfg;
}

void weir__job_abort(weir_job *job, int code, const char *msg)
{
    weir__job_fail(job, code, "%s", msg);
    if (job->phase == 1)
        weir__job_cancel(job);
}

int weir__job_set_companion(weir_job *job, const weir__job_companion *c)
{
    if (!job || !c || !c->ud)
        return WEIR_EINVAL;
    if (job->phase != 0 || job->companion.ud)
        return WEIR_ESTATE;
    job->companion = *c;
    return 0;
}

int weir__job_set_ckpt_gate(weir_job *job, const weir__ckpt_gate *gate)
{
    if (!job || !gate)
        return WEIR_EINVAL;
    if (job->phase != 0 || job->has_gate)
        return WEIR_ESTATE;
    job->gate = *gate;
    job->has_gate = true;
    return 0;
}

const weir__ckpt_gate *weir__job_ckpt_gate(const weir_job *job)
{
    return job && job->has_gate ? &job->gate : NULL;
}

void *weir__job_companion_ud(const weir_job *job)
{
    return job ? job->companion.ud : NULL;
}

static _Atomic(weir__trigger_test_hook) g_trigger_hook;

void weir__set_trigger_test_hook(weir__trigger_test_hook fn)
{
    atomic_store(&g_trigger_hook, fn);
}

static int post_all(weir_job *job, weir__cmd_type type, uint64_t id)
{
    if (job->phase != 1)
        return WEIR_ESTATE;
    weir__trigger_test_hook hook =
        type == WEIR__CMD_CHECKPOINT ? atomic_load(&g_trigger_hook) : NULL;
    for (uint32_t t = 0; t < job->n_tasks; t++) {
        weir__task *task = &job->tasks[t];
        for (uint32_t s = 0; s < task->parallelism; s++) {
            weir__subtask *st = task->subtasks[s];
            weir__gate *g = &st->gate;
            if (hook)
                hook(id, task->id, s);
            /* One step under the gate's mutex, which mark_finished holds
             * while it marks the subtask and drains its mailbox: the
             * command is either in the mailbox before that (and answered
             * there) or this sees the subtask finished and answers for
             * it. */
            pthread_mutex_lock(&g->mu);
            bool finished = st->finished;
            int rc = finished ? 0 : weir__gate_post_locked(g, type, id);
            pthread_mutex_unlock(&g->mu);
            if (rc)
                return rc;
            if (finished && type == WEIR__CMD_CHECKPOINT && job->has_hooks &&
                job->hooks.ack) {
                weir__task_snapshot snap = {.ckpt_id = id,
                                            .task = task->id,
                                            .subtask = s,
                                            .parallelism = task->parallelism,
                                            .finished = true};
                job->hooks.ack(job->hooks.ud, &snap);
            }
        }
    }
    return 0;
}

int weir__job_trigger_checkpoint(weir_job *job, uint64_t id)
{
    if (!job || id == 0)
        return WEIR_EINVAL;
    return post_all(job, WEIR__CMD_CHECKPOINT, id);
}

int weir__job_notify_checkpoint_complete(weir_job *job, uint64_t id)
{
    if (!job || id == 0)
        return WEIR_EINVAL;
    return post_all(job, WEIR__CMD_COMPLETE, id);
}

/* ---- a set of snapshots as a restore source ---- */

typedef struct snap_op {
    int node;
    char *name;
    uint32_t subtask;
    uint32_t parallelism;
    const uint8_t *state;
    size_t state_len;
} snap_op;

typedef struct snap_kg {
    int node;
    const char *name; /* borrowed from its snap_op */
    uint32_t kg;
    uint32_t seq; /* its place in the snapshot: the order of equal (node, kg) */
    const uint8_t *state, *timers;
    size_t state_len, timers_len;
} snap_kg;

typedef struct snap_split {
    int node;
    char *id;
    bool finished;
    const uint8_t *pos;
    size_t pos_len;
    weir_ts max_ts;
} snap_split;

/* One subtask of a source: its parallelism, with or without splits. */
typedef struct snap_source {
    int node;
    uint32_t parallelism;
} snap_source;

/* A native RocksDB checkpoint of one old subtask's operator. */
typedef struct snap_native {
    uint32_t task, subtask;
    int node;
    const char *name; /* borrowed from its snap_op */
    weir__native_part part;
    char *dir;            /* materialized here */
    uint64_t *dev, *ino;  /* per file: the materialized copy's identity */
    weir__backend *canon; /* opened for canonical reads (kg_state), lazily */
    uint8_t *served;      /* per key group: a new subtask opened it natively */
} snap_native;

/* Per subtask snapshot: where it came from, and its in-flight section. */
typedef struct snap_blob_info {
    uint32_t task, subtask, parallelism;
    const uint8_t *inflight;
    size_t inflight_len;
    uint64_t inflight_msgs;
    uint32_t head_op; /* in ops: the first operator the task listed (UINT32_MAX: none) */
} snap_blob_info;

struct weir__snapshot_set {
    snap_blob_info *info; /* one per blob */
    bool any_inflight;
    pthread_mutex_t mu; /* native parts: restoring subtasks run in parallel */
    snap_native *natives;
    uint32_t n_natives, cap_natives;
    char *scratch;
    int scratch_owner; /* the lock on its owner file (-1: none) */
    uint32_t max_par;
    uint8_t **blobs;
    uint32_t n_blobs;
    snap_op *ops;
    uint32_t n_ops, cap_ops;
    snap_kg *kgs;
    uint32_t n_kgs, cap_kgs;
    bool kgs_sorted; /* by (node, kg, seq): set at the first lookup, under mu */
    _Atomic uint64_t kg_probes; /* entries key-group lookups compared */
    snap_split *splits;
    uint32_t n_splits, cap_splits;
    snap_source *sources;
    uint32_t n_sources, cap_sources;
};

int weir__snapshot_set_create(weir__snapshot_set **out)
{
    *out = weir_calloc(1, sizeof **out);
    if (!*out)
        return WEIR_ENOMEM;
    pthread_mutex_init(&(*out)->mu, NULL);
    (*out)->scratch_owner = -1;
    return 0;
}

void weir__snapshot_set_destroy(weir__snapshot_set *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_natives; i++) {
        snap_native *n = &s->natives[i];
        if (n->canon)
            weir__backend_destroy(n->canon);
        weir__native_parts_free(&n->part, 1);
        weir_free(n->dir);
        weir_free(n->dev);
        weir_free(n->ino);
        weir_free(n->served);
    }
    weir_free(s->natives);
    if (s->scratch && s->scratch_owner >= 0)
        weir__io_temp_dir_release(s->scratch, s->scratch_owner);
    else if (s->scratch)
        weir__io_remove_tree(s->scratch);
    weir_free(s->scratch);
    pthread_mutex_destroy(&s->mu);
    for (uint32_t i = 0; i < s->n_blobs; i++)
        weir_free(s->blobs[i]);
    for (uint32_t i = 0; i < s->n_ops; i++)
        weir_free(s->ops[i].name);
    for (uint32_t i = 0; i < s->n_splits; i++)
        weir_free(s->splits[i].id);
    weir_free(s->blobs);
    weir_free(s->info);
    weir_free(s->ops);
    weir_free(s->kgs);
    weir_free(s->splits);
    weir_free(s->sources);
    weir_free(s);
}

static int grow(void **a, uint32_t *cap, uint32_t n, size_t size)
{
    if (n < *cap)
        return 0;
    uint32_t c = *cap ? *cap * 2 : 16;
    void *p = weir_realloc(*a, c * size);
    if (!p)
        return WEIR_ENOMEM;
    *a = p;
    *cap = c;
    return 0;
}

static int get_small(weir_cursor *c, uint32_t *v)
{
    uint64_t x;
    int rc = weir_cursor_get_varint(c, &x);
    if (rc)
        return rc;
    if (x > UINT32_MAX)
        return WEIR_ECORRUPT;
    *v = (uint32_t)x;
    return 0;
}

static int get_bytes(weir_cursor *c, const uint8_t **p, size_t *n)
{
    const void *v;
    int rc = weir_cursor_get_bytes(c, &v, n);
    *p = v;
    return rc;
}

void weir__native_parts_free(weir__native_part *parts, uint32_t n)
{
    for (uint32_t i = 0; parts && i < n; i++) {
        for (uint32_t f = 0; f < parts[i].n_files; f++) {
            weir_free(parts[i].files[f].name);
            weir_free(parts[i].files[f].shared);
        }
        weir_free(parts[i].files);
        parts[i].files = NULL;
        parts[i].n_files = 0;
    }
}

/* A file name inside a native checkpoint folder: no path. */
static bool plain_name(const char *n)
{
    return n && *n && !strchr(n, '/') && strcmp(n, ".") && strcmp(n, "..");
}

static int read_part(weir_cursor *c, weir__native_part *p)
{
    int rc;
    uint32_t n;
    /* p->n_files counts the entries of p->files only: the count read stays
     * local until the array exists (weir__native_parts_free walks it). */
    if ((rc = get_small(c, &p->node)) || (rc = get_small(c, &p->kg_lo)) ||
        (rc = get_small(c, &p->kg_hi)) || (rc = get_small(c, &n)))
        return rc;
    if (p->kg_lo > p->kg_hi || n > weir_cursor_left(c))
        return WEIR_ECORRUPT;
    if (!(p->files = weir_calloc(n ? n : 1, sizeof *p->files)))
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        weir__native_file *f = &p->files[p->n_files++];
        uint8_t where;
        if ((rc = weir_cursor_get_str(c, &f->name)) ||
            (rc = weir_cursor_get_u8(c, &where)))
            return rc;
        if (!plain_name(f->name))
            return WEIR_ECORRUPT;
        if (where == 0) {
            if ((rc = get_bytes(c, &f->data, &f->len)))
                return rc;
            f->size = f->len;
        } else if (where == 1) {
            if ((rc = weir_cursor_get_str(c, &f->shared)) ||
                (rc = weir_cursor_get_u64(c, &f->size)) ||
                (rc = weir_cursor_get_u32(c, &f->crc)))
                return rc;
            /* Shared files live in the storage's shared/ folder only (an
             * empty name reads as NULL). */
            if (!f->shared || strncmp(f->shared, "shared/", 7) ||
                !plain_name(f->shared + 7))
                return WEIR_ECORRUPT;
        } else {
            return WEIR_ECORRUPT;
        }
    }
    return 0;
}

int weir__snapshot_read_native(weir_cursor *c, weir__native_part **parts,
                               uint32_t *n)
{
    *parts = NULL;
    *n = 0;
    uint32_t cnt;
    int rc = get_small(c, &cnt);
    if (rc)
        return rc;
    if (cnt > weir_cursor_left(c))
        return WEIR_ECORRUPT;
    weir__native_part *p = weir_calloc(cnt ? cnt : 1, sizeof *p);
    if (!p)
        return WEIR_ENOMEM;
    uint32_t k = 0;
    while (k < cnt && !rc)
        rc = read_part(c, &p[k++]);
    if (rc) {
        weir__native_parts_free(p, k);
        weir_free(p);
        return rc;
    }
    *parts = p;
    *n = cnt;
    return 0;
}

bool weir__snapshot_set_has_inflight(const weir__snapshot_set *s)
{
    return s->any_inflight;
}

bool weir__snapshot_set_node_empty(const weir__snapshot_set *s, int node)
{
    for (uint32_t i = 0; i < s->n_ops; i++)
        if (s->ops[i].node == node && s->ops[i].state_len)
            return false;
    for (uint32_t i = 0; i < s->n_kgs; i++) {
        const snap_kg *k = &s->kgs[i];
        if (k->node != node)
            continue;
        /* A timer section is its varint count first: 0 is none. */
        if (!weir__backend_kg_bytes_empty(k->state, k->state_len) ||
            !(k->timers_len == 0 || (k->timers_len == 1 && k->timers[0] == 0)))
            return false;
    }
    for (uint32_t i = 0; i < s->n_natives; i++)
        if (s->natives[i].node == node)
            return false;
    for (uint32_t i = 0; i < s->n_splits; i++)
        if (s->splits[i].node == node)
            return false;
    return true;
}

/* The job node old node `node` maps to, or -1. */
static int remapped(const int *map, uint32_t n_map, int node)
{
    return node >= 0 && (uint32_t)node < n_map ? map[node] : -1;
}

/* Moves a key group or native part to its operator's new node and name
 * (nn: the operators' new names), or to no node when its operator has none. */
static void remap_part(const weir__snapshot_set *s, char *const *nn,
                       const int *map, uint32_t n_map, int *node,
                       const char **name)
{
    const char *to = NULL;
    for (uint32_t i = 0; i < s->n_ops && !to; i++)
        if (s->ops[i].name == *name)
            to = nn[i];
    *node = to ? remapped(map, n_map, *node) : -1;
    *name = to ? to : "";
}

int weir__snapshot_set_remap(weir__snapshot_set *s, const int *map,
                             const char *const *names, uint32_t n_map)
{
    /* New names first (all or nothing), then everything moves at once. */
    char **nn = weir_calloc(s->n_ops ? s->n_ops : 1, sizeof *nn);
    if (!nn)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < s->n_ops; i++) {
        int to = remapped(map, n_map, s->ops[i].node);
        if (to >= 0 && !(nn[i] = weir_strdup(names[s->ops[i].node]))) {
            for (uint32_t j = 0; j < i; j++)
                weir_free(nn[j]);
            weir_free(nn);
            return WEIR_ENOMEM;
        }
    }
    /* Key groups and native parts borrow their operator's name. */
    for (uint32_t k = 0; k < s->n_kgs; k++)
        remap_part(s, nn, map, n_map, &s->kgs[k].node, &s->kgs[k].name);
    s->kgs_sorted = false;
    for (uint32_t k = 0; k < s->n_natives; k++)
        remap_part(s, nn, map, n_map, &s->natives[k].node,
                   &s->natives[k].name);
    for (uint32_t k = 0; k < s->n_splits; k++)
        s->splits[k].node = remapped(map, n_map, s->splits[k].node);
    for (uint32_t k = 0; k < s->n_sources; k++)
        s->sources[k].node = remapped(map, n_map, s->sources[k].node);
    for (uint32_t i = 0; i < s->n_ops; i++) {
        if (!nn[i]) { /* dropped: no job node asks for -1 */
            s->ops[i].node = -1;
            continue;
        }
        weir_free(s->ops[i].name);
        s->ops[i].name = nn[i];
        s->ops[i].node = remapped(map, n_map, s->ops[i].node);
    }
    weir_free(nn);
    return 0;
}

bool weir__snapshot_set_has_native(const weir__snapshot_set *s)
{
    return s && s->n_natives > 0;
}

int weir__snapshot_set_add(weir__snapshot_set *s, const uint8_t *data,
                           size_t len)
{
    uint32_t first_op = s->n_ops;
    uint8_t *blob = weir_malloc(len ? len : 1);
    uint8_t **blobs = weir_realloc(s->blobs, (s->n_blobs + 1) * sizeof *blobs);
    if (!blob || !blobs) {
        weir_free(blob);
        if (blobs)
            s->blobs = blobs;
        return WEIR_ENOMEM;
    }
    memcpy(blob, data, len);
    s->blobs = blobs;
    snap_blob_info *info =
        weir_realloc(s->info, (s->n_blobs + 1) * sizeof *info);
    if (!info) {
        weir_free(blob);
        return WEIR_ENOMEM;
    }
    s->info = info;
    info = &s->info[s->n_blobs];
    memset(info, 0, sizeof *info);
    s->blobs[s->n_blobs++] = blob;
    weir_cursor c;
    weir_cursor_init(&c, blob, len);
    uint32_t magic = 0, task = 0, subtask = 0, par = 0, n_ops = 0;
    uint8_t version;
    int rc = weir_cursor_get_u32(&c, &magic);
    if (!rc && magic != WEIR__SNAPSHOT_MAGIC)
        rc = WEIR_ECORRUPT;
    if (!rc)
        rc = weir_cursor_get_u8(&c, &version);
    if (!rc && (version < 1 || version > 3))
        rc = WEIR_EUNSUPPORTED;
    if (!rc)
        rc = get_small(&c, &task);
    if (!rc)
        rc = get_small(&c, &subtask);
    if (!rc)
        rc = get_small(&c, &par);
    info->task = task;
    info->subtask = subtask;
    info->parallelism = par;
    if (!rc)
        rc = get_small(&c, &n_ops);
    /* the first operator the task listed (none: it named none) */
    info->head_op = n_ops ? first_op : UINT32_MAX;
    for (uint32_t i = 0; i < n_ops && !rc; i++) {
        uint32_t node, n_kg;
        char *name = NULL;
        const uint8_t *st;
        size_t st_len;
        if ((rc = get_small(&c, &node)) ||
            (rc = weir_cursor_get_str(&c, &name)))
            break;
        if ((rc = get_bytes(&c, &st, &st_len)) ||
            (rc = grow((void **)&s->ops, &s->cap_ops, s->n_ops,
                       sizeof *s->ops))) {
            weir_free(name);
            break;
        }
        s->ops[s->n_ops++] = (snap_op){.node = (int)node,
                                       .name = name,
                                       .subtask = subtask,
                                       .parallelism = par,
                                       .state = st,
                                       .state_len = st_len};
        if ((rc = get_small(&c, &n_kg)))
            break;
        for (uint32_t k = 0; k < n_kg && !rc; k++) {
            snap_kg e = {.node = (int)node, .name = name, .seq = s->n_kgs};
            if ((rc = weir_cursor_get_u32(&c, &e.kg)) ||
                (rc = get_bytes(&c, &e.state, &e.state_len)) ||
                (rc = get_bytes(&c, &e.timers, &e.timers_len)) ||
                (rc = grow((void **)&s->kgs, &s->cap_kgs, s->n_kgs,
                           sizeof *s->kgs)))
                break;
            s->kgs[s->n_kgs++] = e;
        }
    }
    uint8_t has_src = 0;
    if (!rc)
        rc = weir_cursor_get_u8(&c, &has_src);
    if (!rc && has_src) {
        uint32_t node = 0, n = 0;
        rc = get_small(&c, &node);
        if (!rc)
            rc = get_small(&c, &n);
        /* Every source subtask has this record, splits or none. */
        if (!rc && !(rc = grow((void **)&s->sources, &s->cap_sources,
                               s->n_sources, sizeof *s->sources)))
            s->sources[s->n_sources++] =
                (snap_source){.node = (int)node, .parallelism = par};
        for (uint32_t i = 0; i < n && !rc; i++) {
            snap_split sp = {.node = (int)node};
            uint8_t fin;
            if ((rc = weir_cursor_get_str(&c, &sp.id)))
                break;
            if ((rc = weir_cursor_get_u8(&c, &fin)) ||
                (rc = get_bytes(&c, &sp.pos, &sp.pos_len)) ||
                (rc = weir_cursor_get_i64(&c, &sp.max_ts)) ||
                (rc = grow((void **)&s->splits, &s->cap_splits, s->n_splits,
                           sizeof *s->splits))) {
                weir_free(sp.id);
                break;
            }
            sp.finished = fin != 0;
            s->splits[s->n_splits++] = sp;
        }
    }
    if (!rc && version >= 2) {
        weir__native_part *parts;
        uint32_t n;
        rc = weir__snapshot_read_native(&c, &parts, &n);
        for (uint32_t i = 0; i < n && !rc; i++) {
            snap_native e = {.task = task,
                             .subtask = subtask,
                             .node = (int)parts[i].node,
                             .part = parts[i]};
            for (uint32_t o = first_op; o < s->n_ops && !e.name; o++)
                if (s->ops[o].node == e.node)
                    e.name = s->ops[o].name;
            if (!e.name || e.part.kg_hi > 65536)
                rc = WEIR_ECORRUPT;
            else if (!(rc = grow((void **)&s->natives, &s->cap_natives,
                                 s->n_natives, sizeof *s->natives))) {
                s->natives[s->n_natives++] = e;
                parts[i].files = NULL; /* moved */
                parts[i].n_files = 0;
            }
        }
        weir__native_parts_free(parts, n);
        weir_free(parts);
    }
    if (!rc && version == 3) {
        uint64_t n_msgs;
        rc = weir__snapshot_read_inflight(&c, &info->inflight,
                                          &info->inflight_len, &n_msgs);
        info->inflight_msgs = n_msgs;
        if (!rc && n_msgs)
            s->any_inflight = true;
    }
    if (!rc && weir_cursor_left(&c) != 0)
        rc = WEIR_ECORRUPT;
    return rc;
}

/* ---- native parts: materialized, opened natively or read canonically ---- */

static int write_plain(const char *path, const uint8_t *data, size_t len)
{
    int fd = weir__io_ops.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return fd == -ENOSPC ? WEIR_ENOSPC : WEIR_EIO;
    int rc = weir__io_write_all(fd, data, len);
    if (weir__io_ops.close(fd) != 0 && !rc)
        rc = WEIR_EIO;
    return rc;
}

int weir__snapshot_set_materialize(weir__snapshot_set *s, const char *scratch,
                                   int scratch_owner, uint32_t max_parallelism,
                                   weir__native_fetch_fn fetch, void *ud,
                                   char *why, size_t why_cap)
{
    snprintf(why, why_cap, "%s", "");
    if (!s->n_natives || !(s->scratch = weir_strdup(scratch))) {
        if (scratch_owner >= 0)
            weir__io_temp_dir_release(scratch, scratch_owner);
        return s->n_natives ? WEIR_ENOMEM : 0;
    }
    s->scratch_owner = scratch_owner;
    s->max_par = max_parallelism;
    weir__io_remove_tree(scratch); /* an earlier run's leftover */
    int rc = weir__io_mkdirs(scratch, 0755);
    char path[4096];
    for (uint32_t i = 0; i < s->n_natives && !rc; i++) {
        snap_native *n = &s->natives[i];
        snprintf(path, sizeof path, "%s/t%u-s%u-n%d", scratch, n->task,
                 n->subtask, n->node);
        if (!(n->dir = weir_strdup(path)) ||
            !(n->served = weir_calloc(n->part.kg_hi - n->part.kg_lo + 1, 1))) {
            rc = WEIR_ENOMEM;
            break;
        }
        if (!(n->dev = weir_calloc(n->part.n_files + 1, sizeof *n->dev)) ||
            !(n->ino = weir_calloc(n->part.n_files + 1, sizeof *n->ino))) {
            rc = WEIR_ENOMEM;
            break;
        }
        if ((rc = weir__io_mkdirs(n->dir, 0755)))
            break;
        for (uint32_t f = 0; f < n->part.n_files && !rc; f++) {
            const weir__native_file *nf = &n->part.files[f];
            if ((size_t)snprintf(path, sizeof path, "%s/%s", n->dir,
                                 nf->name) >= sizeof path) {
                rc = WEIR_EINVAL;
                break;
            }
            if (!nf->shared) {
                rc = write_plain(path, nf->data, nf->len);
                continue;
            }
            uint64_t len = 0;
            uint32_t crc = 0;
            if ((rc = fetch(ud, nf->shared, path, &len, &crc))) {
                snprintf(why, why_cap, "shared file %s missing or unreadable: %s",
                         nf->shared, weir_strerror(rc));
                if (rc != WEIR_ENOMEM)
                    rc = WEIR_ECORRUPT;
                break;
            }
            if (len != nf->size || crc != nf->crc) {
                snprintf(why, why_cap,
                         "shared file %s: checksum or size mismatch (size "
                         "%llu, expected %llu): corrupt or truncated",
                         nf->shared, (unsigned long long)len,
                         (unsigned long long)nf->size);
                rc = WEIR_ECORRUPT;
            }
            struct stat st;
            if (!rc && stat(path, &st) == 0) {
                n->dev[f] = (uint64_t)st.st_dev;
                n->ino[f] = (uint64_t)st.st_ino;
            }
        }
    }
    return rc;
}

bool weir__snapshot_set_shared_file(const weir__snapshot_set *s, uint64_t dev,
                                    uint64_t ino, const char **shared,
                                    uint64_t *size, uint32_t *crc)
{
    for (uint32_t i = 0; s && i < s->n_natives; i++) {
        const snap_native *n = &s->natives[i];
        for (uint32_t f = 0; n->ino && f < n->part.n_files; f++) {
            const weir__native_file *nf = &n->part.files[f];
            if (nf->shared && n->ino[f] == ino && n->dev[f] == dev &&
                ino != 0) {
                *shared = nf->shared;
                *size = nf->size;
                *crc = nf->crc;
                return true;
            }
        }
    }
    return false;
}

static bool is_rocksdb_kind(const weir__backend_config *cfg)
{
    return cfg->kind && strcmp(cfg->kind, "rocksdb") == 0;
}

static int set_open_backend(void *ud, int node, const char *name,
                            const weir__backend_config *cfg,
                            weir__backend **out)
{
    weir__snapshot_set *s = ud;
    *out = NULL;
    if (!is_rocksdb_kind(cfg) || cfg->max_parallelism != s->max_par)
        return 0;
    /*
     * The old subtask that holds most of the new one's key groups is
     * opened natively (restricted to the new range); key groups of other
     * old subtasks (a scale-down) come canonically through kg_state.
     */
    snap_native *best = NULL;
    uint32_t best_n = 0;
    for (uint32_t i = 0; i < s->n_natives; i++) {
        snap_native *n = &s->natives[i];
        uint32_t lo = n->part.kg_lo > cfg->kg_lo ? n->part.kg_lo : cfg->kg_lo;
        uint32_t hi = n->part.kg_hi < cfg->kg_hi ? n->part.kg_hi : cfg->kg_hi;
        if (n->node == node && n->dir && strcmp(n->name, name) == 0 &&
            hi > lo && hi - lo > best_n) {
            best = n;
            best_n = hi - lo;
        }
    }
    if (!best)
        return 0;
    pthread_mutex_lock(&s->mu);
    int rc = weir__rocksdb_open_checkpoint(cfg, best->dir, out);
    if (!rc)
        for (uint32_t kg = cfg->kg_lo; kg < cfg->kg_hi; kg++)
            if (kg >= best->part.kg_lo && kg < best->part.kg_hi)
                best->served[kg - best->part.kg_lo] = 1;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* Key group kg of a native part, canonically (mutex held). */
static int native_kg(weir__snapshot_set *s, snap_native *n, uint32_t kg,
                     weir_buf *state)
{
    if (n->served[kg - n->part.kg_lo])
        return 0; /* a new subtask has it natively already */
    if (!n->canon) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s.canon", n->dir);
        weir__backend_config cfg = {.kind = "rocksdb",
                                    .max_parallelism = s->max_par,
                                    .kg_lo = n->part.kg_lo,
                                    .kg_hi = n->part.kg_hi,
                                    .dir = dir};
        int rc = weir__rocksdb_open_checkpoint(&cfg, n->dir, &n->canon);
        if (rc)
            return rc;
    }
    return weir__backend_snapshot_kg(n->canon, kg, state);
}

/*
 * A source keeps no operator state: its parallelism is that of its
 * subtasks, each of which records it even when it held no split (a
 * process whose part holds none of a source's splits still sees its
 * parallelism change). A source has no name here; its node is the job's
 * (weir__snapshot_set_remap, or the same graph), and no node is both a
 * source and an operator.
 */
static uint32_t set_op_parallelism(void *ud, int node, const char *name)
{
    weir__snapshot_set *s = ud;
    for (uint32_t i = 0; i < s->n_ops; i++)
        if (s->ops[i].node == node && strcmp(s->ops[i].name, name) == 0)
            return s->ops[i].parallelism;
    for (uint32_t i = 0; i < s->n_sources; i++)
        if (s->sources[i].node == node)
            return s->sources[i].parallelism;
    return 0;
}

static int set_op_state(void *ud, int node, const char *name, uint32_t subtask,
                        uint32_t parallelism, weir_buf *out)
{
    (void)parallelism;
    weir__snapshot_set *s = ud;
    for (uint32_t i = 0; i < s->n_ops; i++) {
        const snap_op *o = &s->ops[i];
        if (o->node == node && o->subtask == subtask &&
            strcmp(o->name, name) == 0)
            return weir_buf_put(out, o->state, o->state_len);
    }
    return 0;
}

static int kg_cmp(const void *pa, const void *pb)
{
    const snap_kg *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    if (a->kg != b->kg)
        return a->kg < b->kg ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * The first key group of (node, kg) in the sorted key groups, or n_kgs.
 * A restore asks once per key group of every keyed operator subtask, so
 * a scan per ask was quadratic: with pipeline.max-parallelism at 32768 a
 * small job took minutes to restore. The key groups are sorted once, at
 * the first ask (restoring subtasks ask in parallel), after any remap.
 */
static uint32_t kg_first(weir__snapshot_set *s, int node, uint32_t kg)
{
    pthread_mutex_lock(&s->mu);
    if (!s->kgs_sorted) {
        if (s->n_kgs)
            qsort(s->kgs, s->n_kgs, sizeof *s->kgs, kg_cmp);
        s->kgs_sorted = true;
    }
    pthread_mutex_unlock(&s->mu);
    snap_kg want = {.node = node, .kg = kg, .seq = 0};
    uint32_t lo = 0, hi = s->n_kgs, probes = 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        probes++;
        if (kg_cmp(&s->kgs[mid], &want) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    atomic_fetch_add_explicit(&s->kg_probes, probes, memory_order_relaxed);
    return lo;
}

uint64_t weir__snapshot_set_kg_probes(const weir__snapshot_set *s)
{
    return atomic_load_explicit(&s->kg_probes, memory_order_relaxed);
}

static int set_kg_state(void *ud, int node, const char *name, uint32_t kg,
                        weir_buf *state, weir_buf *timers)
{
    weir__snapshot_set *s = ud;
    for (uint32_t i = kg_first(s, node, kg);
         i < s->n_kgs && s->kgs[i].node == node && s->kgs[i].kg == kg; i++) {
        const snap_kg *k = &s->kgs[i];
        if (strcmp(k->name, name) == 0) {
            int rc = weir_buf_put(state, k->state, k->state_len);
            if (!rc)
                rc = weir_buf_put(timers, k->timers, k->timers_len);
            if (rc || k->state_len)
                return rc;
            break; /* its keyed state may be in a native part */
        }
    }
    int rc = 0;
    for (uint32_t i = 0; i < s->n_natives && !rc; i++) {
        snap_native *n = &s->natives[i];
        if (n->node != node || kg < n->part.kg_lo || kg >= n->part.kg_hi ||
            strcmp(n->name, name) != 0)
            continue;
        if (!n->dir)
            return WEIR_ESTATE; /* not materialized */
        pthread_mutex_lock(&s->mu);
        rc = native_kg(s, n, kg, state);
        pthread_mutex_unlock(&s->mu);
        break;
    }
    return rc;
}

static int set_split(void *ud, int node, const char *id,
                     weir__restored_split *out)
{
    weir__snapshot_set *s = ud;
    for (uint32_t i = 0; i < s->n_splits; i++) {
        const snap_split *sp = &s->splits[i];
        if (sp->node == node && strcmp(sp->id, id) == 0) {
            *out = (weir__restored_split){.id = sp->id,
                                          .finished = sp->finished,
                                          .pos = sp->pos,
                                          .pos_len = sp->pos_len,
                                          .max_ts = sp->max_ts};
            return 0;
        }
    }
    return WEIR_ENOTFOUND;
}

static int set_inflight(void *ud, int task, uint32_t subtask,
                        const uint8_t **data, size_t *len)
{
    weir__snapshot_set *s = ud;
    *data = NULL;
    *len = 0;
    for (uint32_t i = 0; i < s->n_blobs; i++)
        if ((int)s->info[i].task == task && s->info[i].subtask == subtask &&
            s->info[i].inflight) {
            *data = s->info[i].inflight;
            *len = s->info[i].inflight_len;
            break;
        }
    return 0;
}

/* In-flight data is read into the task of the same id: a task whose
 * operators moved to another task (the graph changed) cannot take it. The
 * blob's first listed operator stands for its task (a task that listed none,
 * or one this job does not have, is not checked). */
static int set_inflight_unplaced(void *ud, const int *node_task,
                                 uint32_t n_nodes, int *node)
{
    weir__snapshot_set *s = ud;
    for (uint32_t i = 0; i < s->n_blobs; i++) {
        const snap_blob_info *b = &s->info[i];
        if (!b->inflight_msgs || b->head_op >= s->n_ops)
            continue;
        int h = s->ops[b->head_op].node;
        if (h < 0 || (uint32_t)h >= n_nodes)
            continue; /* an operator this job does not know: not checked here */
        if (node_task[h] != (int)b->task) {
            *node = h;
            return (int)b->task;
        }
    }
    return -1;
}

static uint32_t set_task_parallelism(void *ud, int task)
{
    weir__snapshot_set *s = ud;
    for (uint32_t i = 0; i < s->n_blobs; i++)
        if ((int)s->info[i].task == task)
            return s->info[i].parallelism;
    return 0;
}

weir__restore_source weir__snapshot_set_source(weir__snapshot_set *s)
{
    return (weir__restore_source){.op_state = set_op_state,
                                  .op_parallelism = set_op_parallelism,
                                  .kg_state = set_kg_state,
                                  .split = set_split,
                                  .open_backend = s->n_natives
                                                      ? set_open_backend
                                                      : NULL,
                                  .inflight = s->any_inflight ? set_inflight
                                                              : NULL,
                                  .task_parallelism = set_task_parallelism,
                                  .inflight_unplaced =
                                      s->any_inflight ? set_inflight_unplaced
                                                      : NULL,
                                  .ud = s};
}

/* ---- in-flight data of unaligned checkpoints (format: checkpoint.h) ---- */

int weir__inflight_put_msg(weir_buf *out, const weir__msg *m)
{
    int rc = weir_buf_put_u8(out, m->type);
    if (rc || (m->type != WEIR__MSG_BATCH && m->type != WEIR__MSG_WATERMARK))
        return rc;
    if ((rc = weir_buf_put_i64(out, m->wm)) || m->type != WEIR__MSG_BATCH)
        return rc;
    const weir_batch *b = m->batch;
    uint32_t n = b->n_rows, nc = b->schema->n_fields;
    if ((rc = weir_buf_put_varint(out, n)) ||
        (rc = weir_buf_put_varint(out, nc)) ||
        (rc = weir_buf_put(out, b->ts, (size_t)n * sizeof *b->ts)) ||
        (rc = weir_buf_put(out, b->kind, n)))
        return rc;
    for (uint32_t c = 0; c < nc && !rc; c++) {
        const weir_column *col = &b->cols[c];
        bool all = col->all_valid;
        /* The high bit marks a 128-bit DECIMAL column (16 bytes a value). */
        uint8_t tag = (uint8_t)(col->type.id | (weir_type_is_wide(col->type) ? 0x80 : 0));
        if ((rc = weir_buf_put_u8(out, tag)) ||
            (rc = weir_buf_put_u8(out, all)) ||
            (!all && (rc = weir_buf_put(out, col->valid, (n + 7) / 8))))
            break;
        if (weir_type_is_varlen(col->type.id)) {
            for (uint32_t r = 0; r < n && !rc; r++) {
                uint32_t len = 0;
                const char *s = weir_batch_str(b, c, r, &len);
                rc = weir_buf_put_bytes(out, s, len);
            }
        } else {
            rc = weir_buf_put(out, col->data,
                              (size_t)n * weir_type_size(col->type));
        }
    }
    return rc;
}

/* weir_cursor_get, or a skip when out is NULL. */
static int take(weir_cursor *c, void *out, size_t n)
{
    if (weir_cursor_left(c) < n)
        return WEIR_ECORRUPT;
    if (n && out)
        memcpy(out, c->p, n);
    c->p += n;
    return 0;
}

/*
 * Reads one message. With a batch (the channel's schema, capacity at least
 * the rows) a batch message is decoded into it (reset first); without one
 * it is only checked and skipped.
 */
int weir__inflight_get_msg(weir_cursor *c, weir__msg *m, weir_batch *b)
{
    memset(m, 0, sizeof *m);
    m->wm = WEIR_TS_MIN;
    int rc = weir_cursor_get_u8(c, &m->type);
    if (rc)
        return rc;
    if (m->type == WEIR__MSG_IDLE || m->type == WEIR__MSG_ACTIVE)
        return 0;
    if (m->type != WEIR__MSG_BATCH && m->type != WEIR__MSG_WATERMARK)
        return WEIR_ECORRUPT;
    if ((rc = weir_cursor_get_i64(c, &m->wm)) || m->type != WEIR__MSG_BATCH)
        return rc;
    uint32_t n, nc;
    if ((rc = get_small(c, &n)) || (rc = get_small(c, &nc)))
        return rc;
    if ((size_t)n * 9 > weir_cursor_left(c) || nc > weir_cursor_left(c))
        return WEIR_ECORRUPT;
    if (b) {
        if (nc != b->schema->n_fields || n > b->capacity)
            return WEIR_ECORRUPT;
        weir_batch_reset(b);
    }
    if ((rc = take(c, b ? (void *)b->ts : NULL,
                              (size_t)n * sizeof *b->ts)) ||
        (rc = take(c, b ? b->kind : NULL, n)))
        return rc;
    for (uint32_t k = 0; k < nc && !rc; k++) {
        uint8_t type, all;
        if ((rc = weir_cursor_get_u8(c, &type)) ||
            (rc = weir_cursor_get_u8(c, &all)))
            break;
        bool wide = type & 0x80;
        type &= 0x7f;
        if (type > WEIR__TYPE_ID_LAST || all > 1)
            return WEIR_ECORRUPT;
        weir_column *col = b ? &b->cols[k] : NULL;
        if (col && (col->type.id != (weir_type_id)type || weir_type_is_wide(col->type) != wide))
            return WEIR_ECORRUPT;
        if (col)
            col->all_valid = all;
        if (!all &&
            (rc = take(c, col ? col->valid : NULL, (n + 7) / 8)))
            break;
        if (weir_type_is_varlen((weir_type_id)type)) {
            for (uint32_t r = 0; r < n && !rc; r++) {
                const void *p;
                size_t len;
                if ((rc = weir_cursor_get_bytes(c, &p, &len)))
                    break;
                if (b && len > UINT32_MAX)
                    return WEIR_ECORRUPT;
                if (b)
                    rc = weir_batch_set_str(b, k, r, p, len);
            }
        } else {
            size_t w = wide ? 16 : weir_type_width((weir_type_id)type);
            if (n && w > weir_cursor_left(c) / n)
                return WEIR_ECORRUPT;
            rc = take(c, col ? col->data : NULL, (size_t)n * w);
        }
    }
    if (!rc && b)
        b->n_rows = n;
    m->batch = b;
    return rc;
}

int weir__snapshot_read_inflight(weir_cursor *c, const uint8_t **section,
                                 size_t *section_len, uint64_t *n_msgs)
{
    const uint8_t *start = c->p;
    *n_msgs = 0;
    uint32_t n_in = 0, n_entries = 0;
    int rc = get_small(c, &n_in);
    if (!rc)
        rc = get_small(c, &n_entries);
    if (!rc && n_entries > n_in)
        rc = WEIR_ECORRUPT;
    uint32_t prev = 0;
    for (uint32_t e = 0; e < n_entries && !rc; e++) {
        uint32_t chan, n;
        const uint8_t *p;
        size_t len;
        if ((rc = get_small(c, &chan)) || (rc = get_small(c, &n)) ||
            (rc = get_bytes(c, &p, &len)))
            break;
        /* Channels in increasing order, each once. */
        if (chan >= n_in || (e > 0 && chan <= prev)) {
            rc = WEIR_ECORRUPT;
            break;
        }
        prev = chan;
        weir_cursor m;
        weir_cursor_init(&m, p, len);
        for (uint32_t k = 0; k < n && !rc; k++) {
            weir__msg msg;
            rc = weir__inflight_get_msg(&m, &msg, NULL);
        }
        if (!rc && weir_cursor_left(&m) != 0)
            rc = WEIR_ECORRUPT;
        *n_msgs += n;
    }
    if (rc)
        return rc == WEIR_ENOMEM ? rc : WEIR_ECORRUPT;
    *section = start;
    *section_len = (size_t)(c->p - start);
    return 0;
}
