/*
 * planner/computed_source.c - a source that adds computed columns.
 *
 * CREATE TABLE t (ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR
 * ts ...) needs `ts` before the runtime reads event time from it, inside the
 * source task, split by split. This wrapper reads the connector's physical
 * rows into a scratch batch and evaluates the full row (physical columns,
 * then computed ones) into the caller's batch. Splits, positions and
 * discovery are the inner source's, untouched, so checkpoints and replay
 * see exactly what the connector sees.
 */
#include <string.h>

#include "planner/planner.h"

typedef struct cs_conf {
    weir_source_spec inner;
    const weir_schema *full;
    weir_expr **exprs; /* one per column of full */
    uint32_t n;
} cs_conf;

typedef struct cs_reader cs_reader;

typedef struct cs_src {
    const cs_conf *conf;
    void *inner;
    uint32_t batch_size;
    /* the batches and environment of the last split closed, for the next one (a subtask reading many byte
     * ranges of a file one after the other), or NULL */
    cs_reader *spare;
} cs_src;

struct cs_reader {
    cs_src *src;
    void *inner;
    weir_batch *scratch; /* physical rows */
    weir_batch *full;    /* evaluated rows */
    weir_expr_env *env;
    uint32_t *rows;
};

static void reader_free(cs_reader *r)
{
    if (!r)
        return;
    weir_batch_destroy(r->scratch);
    weir_batch_destroy(r->full);
    weir_expr_env_destroy(r->env);
    weir_free(r->rows);
    weir_free(r);
}

static int cs_create(void *arg, const weir_source_info *info, void **out_src, weir_error *err)
{
    const cs_conf *c = arg;
    cs_src *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->conf = c;
    s->batch_size = info->batch_size ? info->batch_size : 1024;
    weir_source_info ii = *info;
    ii.schema = c->inner.schema;
    int rc = c->inner.cls->create(c->inner.arg, &ii, &s->inner, err);
    if (rc) {
        weir_free(s);
        return rc;
    }
    *out_src = s;
    return 0;
}

static int cs_discover(void *src, const char ***ids, uint32_t *n_ids, bool *done, weir_error *err)
{
    cs_src *s = src;
    return s->conf->inner.cls->discover(s->inner, ids, n_ids, done, err);
}

static void cs_close_split(void *reader)
{
    cs_reader *r = reader;
    if (!r)
        return;
    if (r->inner)
        r->src->conf->inner.cls->close_split(r->inner);
    r->inner = NULL;
    if (!r->src->spare && r->scratch && r->full && r->env && r->rows) {
        r->src->spare = r;
        return;
    }
    reader_free(r);
}

static int cs_open_split(void *src, const char *id, const void *pos, size_t pos_len, void **out_reader,
                         weir_error *err)
{
    cs_src *s = src;
    cs_reader *r = s->spare; /* the batches of the split closed last, when there is one */
    s->spare = NULL;
    if (!r) {
        if (!(r = weir_calloc(1, sizeof *r)))
            return WEIR_ENOMEM;
        r->src = s;
        r->scratch = weir_batch_create(s->conf->inner.schema, s->batch_size);
        r->full = weir_batch_create(s->conf->full, s->batch_size);
        r->env = weir_expr_env_create();
        r->rows = weir_malloc(s->batch_size * sizeof *r->rows);
        if (!r->scratch || !r->full || !r->env || !r->rows) {
            cs_close_split(r);
            return WEIR_ENOMEM;
        }
        for (uint32_t i = 0; i < s->batch_size; i++)
            r->rows[i] = i;
    }
    int rc = s->conf->inner.cls->open_split(s->inner, id, pos, pos_len, &r->inner, err);
    if (rc) {
        r->inner = NULL;
        cs_close_split(r);
        return rc;
    }
    *out_reader = r;
    return 0;
}

static int cs_read(void *reader, weir_batch *out, uint32_t max_rows, weir_error *err)
{
    cs_reader *r = reader;
    const cs_conf *c = r->src->conf;
    uint32_t room = out->capacity - out->n_rows;
    if (max_rows > room)
        max_rows = room;
    if (max_rows > r->scratch->capacity)
        max_rows = r->scratch->capacity;
    weir_batch_reset(r->scratch);
    int n = c->inner.cls->read(r->inner, r->scratch, max_rows, err);
    if (n <= 0)
        return n;
    int rc = weir_expr_project(c->exprs, c->n, r->scratch, r->env, r->full, err);
    if (rc)
        return rc;
    rc = weir_batch_gather(out, r->full, r->rows, r->full->n_rows);
    return rc ? rc : n;
}

static int cs_position(void *reader, weir_buf *out)
{
    cs_reader *r = reader;
    return r->src->conf->inner.cls->position(r->inner, out);
}

static void cs_destroy(void *src)
{
    cs_src *s = src;
    if (!s)
        return;
    reader_free(s->spare);
    s->conf->inner.cls->destroy(s->inner);
    weir_free(s);
}

static int cs_metrics(void *src, void (*emit)(void *ud, const char *name, uint64_t v), void *ud)
{
    cs_src *s = src;
    return s->conf->inner.cls->metrics ? s->conf->inner.cls->metrics(s->inner, emit, ud) : 0;
}

/* The optional hooks reach the inner source as they are. */
static bool cs_has_backlog(void *reader)
{
    cs_reader *r = reader;
    const weir_source_class *ic = r->src->conf->inner.cls;
    return ic->has_backlog && ic->has_backlog(r->inner);
}

static int cs_checkpoint_taken(void *src, uint64_t ckpt_id, weir_error *err)
{
    cs_src *s = src;
    return s->conf->inner.cls->checkpoint_taken
               ? s->conf->inner.cls->checkpoint_taken(s->inner, ckpt_id, err)
               : 0;
}

static int cs_checkpoint_complete(void *src, uint64_t ckpt_id, weir_error *err)
{
    cs_src *s = src;
    return s->conf->inner.cls->checkpoint_complete
               ? s->conf->inner.cls->checkpoint_complete(s->inner, ckpt_id, err)
               : 0;
}

static bool cs_continues(void *src, const char *prev, const char *id)
{
    cs_src *s = src;
    const weir_source_class *ic = s->conf->inner.cls;
    return ic->continues && ic->continues(s->inner, prev, id);
}

#define CS_CLASS(lock)                                                         \
    {                                                                          \
        .name = "computed", .create = cs_create, .discover = cs_discover,      \
        .open_split = cs_open_split, .read = cs_read,                          \
        .position = cs_position, .close_split = cs_close_split,                \
        .destroy = cs_destroy, .metrics = cs_metrics,                          \
        .has_backlog = cs_has_backlog,                                         \
        .checkpoint_taken = cs_checkpoint_taken,                               \
        .checkpoint_complete = cs_checkpoint_complete, .lockstep = (lock),     \
        .continues = cs_continues,                                             \
    }
/* the inner source's lockstep (a class-wide flag) carries over */
static const weir_source_class cs_class = CS_CLASS(false);
static const weir_source_class cs_class_lockstep = CS_CLASS(true);

static void cs_conf_free(void *arg)
{
    cs_conf *c = arg;
    if (!c)
        return;
    if (c->inner.free_arg)
        c->inner.free_arg(c->inner.arg);
    weir_free(c->exprs);
    weir_free(c);
}

int weir__computed_source_spec(const weir_source_spec *inner, const weir_schema *full, weir_expr *const *exprs,
                               weir_source_spec *out)
{
    cs_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    c->inner = *inner;
    c->full = full;
    c->n = full->n_fields;
    c->exprs = weir_calloc(c->n, sizeof *c->exprs);
    if (!c->exprs) {
        weir_free(c);
        return WEIR_ENOMEM;
    }
    memcpy(c->exprs, exprs, c->n * sizeof *exprs);
    *out = (weir_source_spec){inner->name, inner->cls->lockstep ? &cs_class_lockstep : &cs_class, c, cs_conf_free,
                              full, inner->changelog};
    return 0;
}
