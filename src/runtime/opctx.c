/*
 * runtime/opctx.c - one operator instance inside a subtask, and the services
 * weir/operator.h offers it (emit, keys, state, timers, watermarks, metrics).
 *
 * Everything here runs on the subtask's thread, so nothing is locked except
 * the counter list (metric readers walk it from other threads).
 *
 * Keyed operators (an input arrives through a keyed exchange) get their
 * state backend and timer service at open, owning the key groups of their
 * subtask. Other operators get them when they first use state or timers;
 * they may use any key, so their backend spans all key groups.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

int weir__op_init(weir_op_ctx *c, weir__subtask *st, uint32_t pos,
                  weir__node *node)
{
    weir_job *job = st->job;
    c->st = st;
    c->pos = pos;
    c->node = node;
    c->cls = node->kind == WEIR__NODE_OPERATOR ? node->op.cls : NULL;
    c->in_wm = c->out_wm = WEIR_TS_MIN;
    c->in_wm_metric = c->out_wm_metric = WEIR_TS_MIN;
    c->hold = WEIR_TS_MAX;
    if (pthread_mutex_init(&c->counters_mu, NULL))
        return WEIR_ENOMEM;
    uint32_t n_in = node->n_in;
    if (n_in) {
        c->in_schemas = weir_calloc(n_in, sizeof *c->in_schemas);
        c->in_keys = weir_calloc(n_in, sizeof *c->in_keys);
        if (!c->in_schemas || !c->in_keys)
            return WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < n_in; i++) {
        const weir__edge *e = &job->edges[node->in_edges[i]];
        const weir__node *up = &job->nodes[e->from];
        const weir_schema *s = up->out_schema;
        if (e->side_tag) {
            s = NULL;
            for (uint32_t k = 0; k < up->n_sides; k++)
                if (up->sides[k].tag == e->side_tag)
                    s = up->sides[k].schema;
            if (!s && up->n_in)
                s = weir__job_node(job, job->edges[up->in_edges[0]].from)
                        ->out_schema;
        }
        c->in_schemas[i] = s;
        c->in_keys[i] = e->key;
        if (e->part == WEIR_PART_KEYED)
            c->keyed = true;
    }
    uint32_t p = st->task->parallelism, m = job->cfg.max_parallelism;
    if (c->keyed) {
        weir_key_group_range(st->index, p, m, &c->kg_lo, &c->kg_hi);
    } else {
        c->kg_lo = 0;
        c->kg_hi = m;
    }
    c->info = (weir_op_info){
        .subtask = st->index,
        .parallelism = p,
        .max_parallelism = m,
        .n_inputs = n_in,
        .input_schemas = c->in_schemas,
        .output_schema = node->out_schema,
        .batch_size = job->cfg.batch_size,
        .input_keys = c->in_keys,
        .node_id = (uint32_t)node->id,
        .processes = job->cluster_count > 1 ? job->cluster_count : 1,
        .job_subtask = job->cluster_index * p + st->index,
        .job_parallelism = (job->cluster_count > 1 ? job->cluster_count : 1) * p,
        .cluster = job->cluster_count > 0,
    };
    return 0;
}

/* Hands every old instance's operator state to restore_union; nothing when
 * one of them is not at hand. */
static int op_restore_union(weir_op_ctx *c, uint32_t old, uint32_t par)
{
    const weir__restore_source *rs = &c->st->job->restore;
    weir_buf *bufs = weir_calloc(old, sizeof *bufs);
    weir_cursor *curs = weir_calloc(old, sizeof *curs);
    int rc = bufs && curs ? 0 : WEIR_ENOMEM;
    uint32_t got = 0;
    bool all = true;
    while (!rc && all && got < old) {
        weir_buf_init(&bufs[got]);
        rc = rs->op_state(rs->ud, c->node->id, c->node->name, got, par,
                          &bufs[got]);
        all = bufs[got].len > 0;
        weir_cursor_init(&curs[got], bufs[got].data, bufs[got].len);
        got++;
    }
    if (!rc && all)
        rc = c->cls->restore_union(c->op, c, curs, old);
    for (uint32_t i = 0; bufs && i < got; i++)
        weir_buf_fini(&bufs[i]);
    weir_free(bufs);
    weir_free(curs);
    return rc;
}

typedef struct unclaimed_ctx {
    weir_op_ctx *c;
    const weir__restore_source *rs;
} unclaimed_ctx;

static void tell_unclaimed(void *ud, const char *state, uint32_t key_groups, uint64_t entries)
{
    unclaimed_ctx *u = ud;
    u->rs->unclaimed(u->rs->ud, u->c->node->id, u->c->info.job_subtask, state, key_groups, entries);
}

/*
 * After the restore, once open registered every state the operator uses:
 * keyed state of the checkpoint that it did not register stays in its
 * backend, unread, and would otherwise go unnoticed (a renamed state, an
 * operator that no longer keeps it); the restore source says so.
 */
static int report_unclaimed(weir_op_ctx *c)
{
    const weir__restore_source *rs = &c->st->job->restore;
    if (!c->be || !rs->unclaimed)
        return 0;
    unclaimed_ctx u = {c, rs};
    return weir__backend_unclaimed(c->be, tell_unclaimed, &u);
}

/* Restores operator state, keyed state and timers from the job's restore
 * source. */
static int op_restore(weir_op_ctx *c)
{
    weir_job *job = c->st->job;
    const weir__restore_source *rs = &job->restore;
    weir_buf a, b;
    weir_buf_init(&a);
    weir_buf_init(&b);
    int rc = 0;
    if (rs->kg_state) {
        for (uint32_t kg = c->kg_lo; kg < c->kg_hi && !rc; kg++) {
            /* A stop during a long restore: the job ends where it was. */
            if ((rc = weir__job_interrupted(job)))
                break;
            weir_buf_clear(&a);
            weir_buf_clear(&b);
            rc = rs->kg_state(rs->ud, c->node->id, c->node->name, kg, &a, &b);
            if (rc)
                break;
            if (a.len) {
                if ((rc = weir__op_ensure_backend(c)))
                    break;
                weir_cursor cur;
                weir_cursor_init(&cur, a.data, a.len);
                rc = weir__backend_restore_kg(c->be, kg, &cur);
            }
            if (!rc && b.len) {
                if ((rc = weir__op_ensure_timers(c)))
                    break;
                weir_cursor cur;
                weir_cursor_init(&cur, b.data, b.len);
                rc = weir__timers_restore_kg(c->timers, kg, &cur);
            }
        }
        if (!rc)
            rc = report_unclaimed(c);
        if (rc && !(rc == WEIR_ECANCELED && weir__job_canceled(job)))
            weir__subtask_fail(c->st, rc, "%s: cannot restore keyed state: %s",
                               c->node->name, weir_strerror(rc));
    }
    if (!rc && rs->op_state) {
        /*
         * Own state first, then that of the old instances a scale-down
         * left without an instance of their own (checkpoint.h).
         */
        /* One process of several (cluster/): subtask indexes are the
         * job's, process index * parallelism + subtask of all processes'. */
        uint32_t procs = job->cluster_count > 1 ? job->cluster_count : 1;
        uint32_t par = c->st->task->parallelism * procs;
        uint32_t self =
            job->cluster_index * c->st->task->parallelism + c->st->index;
        uint32_t old =
            rs->op_parallelism
                ? rs->op_parallelism(rs->ud, c->node->id, c->node->name)
                : 0;
        if (old && c->cls && c->cls->restore_union)
            rc = op_restore_union(c, old, par);
        for (uint32_t j = self; !rc && (j == self || j < old); j += par) {
            weir_buf_clear(&a);
            rc = rs->op_state(rs->ud, c->node->id, c->node->name, j, par, &a);
            if (!rc && a.len && c->cls && c->cls->restore) {
                weir_cursor cur;
                weir_cursor_init(&cur, a.data, a.len);
                rc = c->cls->restore(c->op, c, &cur);
            }
        }
        if (rc)
            weir__subtask_fail(c->st, rc,
                               "%s: cannot restore operator state: %s",
                               c->node->name, weir_strerror(rc));
    }
    weir_buf_fini(&a);
    weir_buf_fini(&b);
    return rc;
}

int weir__op_open(weir_op_ctx *c)
{
    if (!c->cls)
        return 0; /* the source position of a source task */
    const weir_operator_spec *spec = &c->node->op;
    int rc = spec->create(spec->arg, &c->info, &c->op);
    if (rc)
        return weir__subtask_fail(c->st, rc, "%s: cannot create operator: %s",
                                  c->node->name, weir_strerror(rc));
    c->created = true;
    if (c->keyed && !c->cls->keeps_no_state &&
        ((rc = weir__op_ensure_backend(c)) || (rc = weir__op_ensure_timers(c))))
        return weir__subtask_fail(c->st, rc,
                                  "%s: cannot create keyed state: %s",
                                  c->node->name, weir_strerror(rc));
    if (c->cls->open && (rc = c->cls->open(c->op, c)))
        return weir__subtask_fail(c->st, rc, "%s: open failed: %s",
                                  c->node->name, weir_strerror(rc));
    c->opened = true;
    if (c->st->job->has_restore && (rc = op_restore(c)))
        return rc;
    if (c->st->job->has_restore && c->node->restore_canonical_rows && c->canonical_rows_fn &&
        (rc = c->canonical_rows_fn(c->op, c)))
        return weir__subtask_fail(c->st, rc, "%s: cannot re-encode the restored rows: %s", c->node->name,
                                  weir_strerror(rc));
    if (c->st->job->has_restore && c->restored_fn && (rc = c->restored_fn(c->op, c)))
        return weir__subtask_fail(c->st, rc, "%s: cannot convert the restored state: %s", c->node->name,
                                  weir_strerror(rc));
    return 0;
}

void *weir__op_chain_shared(weir_op_ctx *ctx, const void *token, void *(*make)(void), void (*destroy)(void *obj))
{
    weir__subtask *st = ctx->st;
    for (uint32_t i = 0; i < st->n_shared; i++)
        if (st->shared[i].token == token)
            return st->shared[i].obj;
    if (st->n_shared == WEIR__CHAIN_SHARED)
        return NULL;
    void *obj = make();
    if (obj)
        st->shared[st->n_shared++] = (struct weir__chain_shared){token, obj, destroy};
    return obj;
}

void weir__op_close(weir_op_ctx *c)
{
    if (c->created && c->cls->close)
        c->cls->close(c->op);
    c->created = false;
    c->op = NULL;
    weir__timers_destroy(c->timers);
    c->timers = NULL;
    if (c->be)
        weir__backend_destroy(c->be);
    c->be = NULL;
}

int weir__op_ensure_backend(weir_op_ctx *c)
{
    if (c->be)
        return 0;
    /* Its state would be in no checkpoint's list of stateful operators. */
    if (c->cls && c->cls->keeps_no_state)
        return weir_op_fail(c, WEIR_EINVAL,
                            "keeps no state (keeps_no_state) but asked for keyed state");
    weir_job *job = c->st->job;
    char dir[1024];
    weir__backend_config cfg = {
        .kind = job->cfg.state_backend,
        .max_parallelism = job->cfg.max_parallelism,
        .kg_lo = c->kg_lo,
        .kg_hi = c->kg_hi,
        .clock = job->cfg.clock,
        .dir = NULL,
    };
    if (job->cfg.state_dir) {
        snprintf(dir, sizeof dir, "%s/op%d-%u", job->cfg.state_dir, c->node->id,
                 c->st->index);
        cfg.dir = dir;
    }
    int rc = 0;
    /* Restoring an incremental checkpoint: open its native files directly. */
    if (job->has_restore && job->restore.open_backend)
        rc = job->restore.open_backend(job->restore.ud, c->node->id,
                                       c->node->name, &cfg, &c->be);
    if (!rc && !c->be)
        rc = weir__backend_create(&cfg, &c->be);
    if (rc)
        return rc;
    if (c->has_key)
        rc = weir__backend_use_key(c->be, c->key, c->key_len, c->key_hash, c->kg);
    return rc;
}

int weir__op_ensure_timers(weir_op_ctx *c)
{
    if (c->cls && c->cls->keeps_no_state)
        return weir_op_fail(c, WEIR_EINVAL,
                            "keeps no state (keeps_no_state) but asked for timers");
    return c->timers ? 0 : weir__timers_create(&c->timers);
}

int weir__op_process(weir_op_ctx *c, int input, const weir_batch *b)
{
    /* counted once processed: whoever reads the metric to know that rows
     * were handled (tests on a manual clock, before they move it) sees
     * their effect too */
    size_t n = b->n_rows;
    int rc = c->cls->process(c->op, c, input, b);
    WEIR__ADD(&c->records_in, n);
    if (rc)
        return rc;
    return c->hold != WEIR_TS_MAX || c->out_wm < c->in_wm
               ? weir__op_check_hold(c)
               : 0;
}

/* ---- the services of weir/operator.h ---- */

const weir_op_info *weir_op_info_of(weir_op_ctx *ctx)
{
    return &ctx->info;
}

/*
 * Rows must have the schema their consumers were built for: a mismatch would
 * copy columns of the wrong width. Same pointer is the fast, usual case.
 */
static int check_schema(weir_op_ctx *ctx, const weir_schema *want,
                        const weir_batch *b, const char *what)
{
    if (b->schema == want)
        return 0;
    if (!want)
        return weir_op_fail(ctx, WEIR_EINVAL,
                            "emitted rows but has no output (a sink)");
    if (weir_schema_equal(want, b->schema))
        return 0;
    return weir_op_fail(
        ctx, WEIR_EINVAL,
        "emitted rows of another schema than its %s (%u fields, expected %u)",
        what, b->schema->n_fields, want->n_fields);
}

/*
 * A subtask that is idle downstream and emits rows while it ends (its final
 * watermark fires timers, finish flushes) becomes active first, so that
 * downstream holds its watermark for them until the final one follows.
 * (Ending by itself changes no status: see the valve.)
 */
static int active_for_rows(weir_op_ctx *ctx)
{
    weir__subtask *st = ctx->st;
    if (st->ending && st->status_sent && st->idle_out)
        return weir__chain_status(st, false);
    return 0;
}

int weir_op_emit(weir_op_ctx *ctx, const weir_batch *b)
{
    if (!b || b->n_rows == 0)
        return 0;
    int rc = check_schema(ctx, ctx->node->out_schema, b, "output");
    if (rc)
        return rc;
    if (!ctx->st->status_sent)
        return weir_op_fail(ctx, WEIR_ESTATE,
                            "emitted rows before the job started (from open?)");
    WEIR__ADD(&ctx->records_out, b->n_rows);
    if (ctx->next)
        return weir__op_process(ctx->next, 0, b);
    if ((rc = active_for_rows(ctx)))
        return rc;
    for (uint32_t i = 0; i < ctx->n_out && !rc; i++)
        rc = weir__writer_emit(ctx->out[i], b);
    return rc;
}

int weir_op_emit_reset(weir_op_ctx *ctx, weir_batch *b)
{
    if (!b || b->n_rows == 0)
        return 0;
    int rc = weir_op_emit(ctx, b);
    weir_batch_reset(b);
    return rc;
}

int weir__op_emit_handoff(weir_op_ctx *ctx, weir_batch **b)
{
    weir_batch *x = *b;
    if (ctx->next || ctx->n_out != 1 || !x || x->n_rows == 0)
        return weir_op_emit(ctx, x);
    int rc = check_schema(ctx, ctx->node->out_schema, x, "output");
    if (rc)
        return rc;
    if (!ctx->st->status_sent)
        return weir_op_emit(ctx, x); /* reports the error */
    if ((rc = active_for_rows(ctx)))
        return rc;
    WEIR__ADD(&ctx->records_out, x->n_rows);
    return weir__writer_emit_handoff(ctx->out[0], b);
}

int weir_op_emit_side(weir_op_ctx *ctx, int tag, const weir_batch *b)
{
    if (!b || b->n_rows == 0)
        return 0;
    for (uint32_t s = 0; s < ctx->n_sides; s++) {
        if (ctx->sides[s].tag != tag)
            continue;
        int rc = check_schema(ctx, ctx->sides[s].w[0]->ch[0]->schema, b,
                              "side output");
        if (!rc)
            rc = active_for_rows(ctx);
        if (rc)
            return rc;
        for (uint32_t i = 0; i < ctx->sides[s].n && !rc; i++)
            rc = weir__writer_emit(ctx->sides[s].w[i], b);
        if (rc)
            return rc;
    }
    return 0;
}

bool weir_op_has_side_output(weir_op_ctx *ctx, int tag)
{
    for (uint32_t s = 0; s < ctx->n_sides; s++)
        if (ctx->sides[s].tag == tag && ctx->sides[s].n > 0)
            return true;
    return false;
}

weir_ts weir_op_watermark(weir_op_ctx *ctx)
{
    return ctx->in_wm;
}

/*
 * The watermark of logical input k alone: the valve's rules applied to the
 * channels of that input only (minimum over the active ones; the maximum
 * when all of them are idle; WEIR_TS_MAX once all ended), never backwards.
 */
static weir_ts input_watermark(weir__subtask *st, uint32_t k)
{
    const weir__wm_valve *v = &st->valve;
    weir_ts min = WEIR_TS_MAX, idle_max = WEIR_TS_MIN;
    bool active = false, open = false;
    for (uint32_t i = 0; i < st->n_in && i < v->n; i++) {
        if (st->in[i].input != k || v->in[i].ended)
            continue;
        open = true;
        if (v->in[i].idle) {
            if (v->in[i].idle_wm > idle_max)
                idle_max = v->in[i].idle_wm;
        } else {
            active = true;
            if (v->in[i].wm < min)
                min = v->in[i].wm;
        }
    }
    weir_ts w = !open ? WEIR_TS_MAX : active ? min : idle_max;
    if (w > st->input_wm[k])
        st->input_wm[k] = w;
    return st->input_wm[k];
}

weir_ts weir_op_input_watermark(weir_op_ctx *ctx, int input)
{
    weir__subtask *st = ctx->st;
    weir_ts w = ctx->in_wm;
    /* Only the head operator of a subtask that reads several inputs has
     * inputs of its own; everything else sees one stream. */
    if (!st->input_wm || ctx != &st->ops[0] || input < 0 ||
        (uint32_t)input >= st->n_inputs)
        return w;
    weir_ts own = input_watermark(st, (uint32_t)input);
    return own > w ? own : w;
}

int64_t weir_op_now_ms(weir_op_ctx *ctx)
{
    return weir_clock_now(&ctx->st->job->cfg.clock);
}

int weir_op_interrupted(weir_op_ctx *ctx)
{
    return ctx ? weir__job_interrupted(ctx->st->job) : 0;
}

int weir__op_set_key_raw(weir_op_ctx *c, const void *key, size_t len,
                         uint64_t hash)
{
    /* Owned or not before anything changes: the backend borrows c->key,
     * which must not move unless the backend's key moves with it. */
    uint32_t kg = weir_key_group(hash, c->st->job->cfg.max_parallelism);
    if (kg < c->kg_lo || kg >= c->kg_hi)
        return weir_op_fail(
            c, WEIR_EINVAL,
            "key group %u is not owned by subtask %u (owns [%u, %u))", kg,
            c->st->index, c->kg_lo, c->kg_hi);
    if (len > c->key_cap) {
        size_t cap = c->key_cap ? c->key_cap : 32;
        while (cap < len)
            cap *= 2;
        uint8_t *k = weir_realloc(c->key, cap);
        if (!k)
            return WEIR_ENOMEM;
        c->key = k;
        c->key_cap = cap;
    }
    if (len)
        memcpy(c->key, key, len);
    c->key_len = len;
    c->key_hash = hash;
    c->kg = kg;
    c->has_key = true;
    if (c->be)
        return weir__backend_use_key(c->be, c->key, len, hash, kg);
    return 0;
}

int weir_op_set_key(weir_op_ctx *ctx, const void *key, size_t len)
{
    if (!ctx || (len && !key))
        return WEIR_EINVAL;
    return weir__op_set_key_raw(ctx, key, len, weir_key_hash(key, len));
}

int weir_op_set_key_hashed(weir_op_ctx *ctx, const void *key, size_t len,
                           uint64_t hash)
{
    if (!ctx || (len && !key))
        return WEIR_EINVAL;
    return weir__op_set_key_raw(ctx, key, len, hash);
}

const uint8_t *weir_op_key(weir_op_ctx *ctx, size_t *len, uint32_t *key_group)
{
    if (!ctx->has_key)
        return NULL;
    if (len)
        *len = ctx->key_len;
    if (key_group)
        *key_group = ctx->kg;
    return ctx->key ? ctx->key : (const uint8_t *)"";
}

/* Operators that never set a key use the empty key. */
static int ensure_key(weir_op_ctx *c)
{
    if (c->has_key)
        return 0;
    return weir__op_set_key_raw(c, NULL, 0, weir_key_hash("", 0));
}

int weir_op_timer_register(weir_op_ctx *ctx, weir_time_domain d, weir_ts ts,
                           int64_t ns)
{
    int rc = ensure_key(ctx);
    if (!rc)
        rc = weir__op_ensure_timers(ctx);
    if (rc)
        return rc;
    return weir__timers_register(ctx->timers, d, ts, ns, ctx->key, ctx->key_len,
                                 ctx->kg);
}

int weir_op_timer_delete(weir_op_ctx *ctx, weir_time_domain d, weir_ts ts,
                         int64_t ns)
{
    if (!ctx->timers)
        return 0;
    int rc = ensure_key(ctx);
    if (rc)
        return rc;
    return weir__timers_delete(ctx->timers, d, ts, ns, ctx->key, ctx->key_len,
                               ctx->kg);
}

void weir_op_hold_watermark(weir_op_ctx *ctx, weir_ts hold)
{
    ctx->hold = hold;
}

uint64_t *weir_op_counter(weir_op_ctx *ctx, const char *name)
{
    for (weir__counter *k = ctx->counters; k; k = k->next)
        if (strcmp(k->name, name) == 0)
            return &k->value;
    weir__counter *k = weir_calloc(1, sizeof *k);
    if (k && !(k->name = weir_strdup(name))) {
        weir_free(k);
        k = NULL;
    }
    if (!k)
        return &ctx->unlisted_counter; /* out of memory: counts, but no metric shows it */
    pthread_mutex_lock(&ctx->counters_mu);
    k->next = ctx->counters;
    ctx->counters = k;
    pthread_mutex_unlock(&ctx->counters_mu);
    return &k->value;
}

int weir_op_fail(weir_op_ctx *ctx, int code, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (code >= 0)
        code = WEIR_EUSER;
    weir__subtask_fail(ctx->st, code, "%s[%u]: %s", ctx->node->name,
                       ctx->st->index, msg);
    return code;
}

int weir_op_get_state(weir_op_ctx *ctx, const weir_state_desc *desc,
                      weir_state **out)
{
    if (!ctx || !desc || !desc->name || !out)
        return WEIR_EINVAL;
    int rc = weir__op_ensure_backend(ctx);
    if (rc)
        return rc;
    return weir__backend_register(ctx->be, desc, out);
}
