/*
 * runtime/builtin.c - the row-level operators of the C API: filter, map,
 * flat map and the keyed process function, built on weir_job_operator.
 *
 * Each instance owns one output batch, reused for every input batch. A
 * filter that keeps every row forwards its input batch untouched.
 */
#include <string.h>

#include "runtime/runtime.h"

/* ---- filter ---- */

typedef struct filter_arg {
    weir_filter_fn fn;
    void *ud;
} filter_arg;

typedef struct filter_op {
    filter_arg *arg;
    weir_batch *out;
    uint32_t *idx;
    uint32_t idx_cap;
} filter_op;

static int filter_create(void *arg, const weir_op_info *info, void **out)
{
    filter_op *f = weir_calloc(1, sizeof *f);
    if (!f)
        return WEIR_ENOMEM;
    f->arg = arg;
    f->out = weir_batch_create(info->input_schemas[0], info->batch_size);
    if (!f->out) {
        weir_free(f);
        return WEIR_ENOMEM;
    }
    *out = f;
    return 0;
}

static int filter_process(void *op, weir_op_ctx *ctx, int input,
                          const weir_batch *b)
{
    (void)input;
    filter_op *f = op;
    uint32_t n = b->n_rows;
    if (n > f->idx_cap) {
        uint32_t *x = weir_realloc(f->idx, n * sizeof *x);
        if (!x)
            return WEIR_ENOMEM;
        f->idx = x;
        f->idx_cap = n;
    }
    uint32_t k = 0;
    weir_filter_fn fn = f->arg->fn;
    void *ud = f->arg->ud;
    for (uint32_t r = 0; r < n; r++) {
        f->idx[k] = r;
        k += fn(ud, b, r) ? 1 : 0;
    }
    if (k == n)
        return weir_op_emit(ctx, b);
    uint32_t done = 0;
    while (done < k) {
        weir_batch_reset(f->out);
        uint32_t m = k - done < f->out->capacity ? k - done : f->out->capacity;
        int rc = weir_batch_gather(f->out, b, f->idx + done, m);
        if (!rc)
            rc = weir_op_emit(ctx, f->out);
        if (rc)
            return rc;
        done += m;
    }
    return 0;
}

static void filter_close(void *op)
{
    filter_op *f = op;
    if (!f)
        return;
    weir_batch_destroy(f->out);
    weir_free(f->idx);
    weir_free(f);
}

static const weir_operator_class filter_cls = {
    .name = "filter",
    .process = filter_process,
    .close = filter_close,
};

static void free_plain(void *arg)
{
    weir_free(arg);
}

int weir_job_filter(weir_job *job, weir_stream in, weir_filter_fn fn, void *ud,
                    weir_stream *out)
{
    if (!job || !fn)
        return WEIR_EINVAL;
    filter_arg *a = weir_malloc(sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    *a = (filter_arg){fn, ud};
    weir_operator_spec spec = {.name = "filter",
                               .cls = &filter_cls,
                               .create = filter_create,
                               .arg = a,
                               .free_arg = free_plain};
    const weir__node *up = weir__job_node(job, in.node);
    /* A filter keeps its input's schema. */
    const weir_schema *schema = up ? up->out_schema : NULL;
    if (up && in.side_tag) {
        schema = NULL;
        for (uint32_t i = 0; i < up->n_sides; i++)
            if (up->sides[i].tag == in.side_tag)
                schema = up->sides[i].schema;
        if (!schema && up->n_in)
            schema = weir__job_node(job, job->edges[up->in_edges[0]].from)
                         ->out_schema;
    }
    return weir_job_operator(job, &in, 1, &spec, schema, 0, out);
}

/* ---- map and flat map ---- */

typedef struct map_arg {
    weir_map_fn map;
    weir_flat_map_fn flat;
    void *ud;
} map_arg;

typedef struct map_op {
    map_arg *arg;
    const weir_schema *schema;
    weir_batch *out;
} map_op;

static int map_create(void *arg, const weir_op_info *info, void **out)
{
    map_op *m = weir_calloc(1, sizeof *m);
    if (!m)
        return WEIR_ENOMEM;
    m->arg = arg;
    m->schema = info->output_schema;
    m->out = weir_batch_create(info->output_schema, info->batch_size);
    if (!m->out) {
        weir_free(m);
        return WEIR_ENOMEM;
    }
    *out = m;
    return 0;
}

static int map_process(void *op, weir_op_ctx *ctx, int input,
                       const weir_batch *b)
{
    (void)input;
    map_op *m = op;
    if (b->n_rows > m->out->capacity) {
        /* The contract gives fn room for every input row. */
        weir_batch *nb = weir_batch_create(m->schema, b->n_rows);
        if (!nb)
            return WEIR_ENOMEM;
        weir_batch_destroy(m->out);
        m->out = nb;
    }
    weir_batch_reset(m->out);
    int rc = m->arg->map(m->arg->ud, b, m->out);
    if (rc)
        return rc < 0 ? rc : WEIR_EUSER;
    return weir_op_emit(ctx, m->out);
}

static int flat_map_process(void *op, weir_op_ctx *ctx, int input,
                            const weir_batch *b)
{
    (void)input;
    map_op *m = op;
    weir_batch_reset(m->out);
    int rc = m->arg->flat(m->arg->ud, ctx, b, m->out);
    if (rc)
        return rc < 0 ? rc : WEIR_EUSER;
    rc = weir_op_emit(ctx, m->out);
    weir_batch_reset(m->out);
    return rc;
}

static void map_close(void *op)
{
    map_op *m = op;
    if (!m)
        return;
    weir_batch_destroy(m->out);
    weir_free(m);
}

static const weir_operator_class map_cls = {
    .name = "map", .process = map_process, .close = map_close};
static const weir_operator_class flat_map_cls = {
    .name = "flat_map", .process = flat_map_process, .close = map_close};

int weir_job_map(weir_job *job, weir_stream in, const weir_schema *out_schema,
                 weir_map_fn fn, void *ud, weir_stream *out)
{
    if (!job || !fn || !out_schema)
        return WEIR_EINVAL;
    map_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    a->map = fn;
    a->ud = ud;
    weir_operator_spec spec = {.name = "map",
                               .cls = &map_cls,
                               .create = map_create,
                               .arg = a,
                               .free_arg = free_plain};
    return weir_job_operator(job, &in, 1, &spec, out_schema, 0, out);
}

int weir_job_flat_map(weir_job *job, weir_stream in,
                      const weir_schema *out_schema, weir_flat_map_fn fn,
                      void *ud, weir_stream *out)
{
    if (!job || !fn || !out_schema)
        return WEIR_EINVAL;
    map_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    a->flat = fn;
    a->ud = ud;
    weir_operator_spec spec = {.name = "flat_map",
                               .cls = &flat_map_cls,
                               .create = map_create,
                               .arg = a,
                               .free_arg = free_plain};
    return weir_job_operator(job, &in, 1, &spec, out_schema, 0, out);
}

/* ---- keyed process function ---- */

typedef struct process_arg {
    weir_process_fn fn;
} process_arg;

typedef struct process_op {
    process_arg *arg;
    void *inst;
    bool opened;
    weir_batch *out; /* NULL when the function has no output */
    weir_keyspec key;
    weir_buf bigkey;
} process_op;

static int process_create(void *arg, const weir_op_info *info, void **out)
{
    process_op *p = weir_calloc(1, sizeof *p);
    if (!p)
        return WEIR_ENOMEM;
    p->arg = arg;
    p->key = info->input_keys[0];
    weir_buf_init(&p->bigkey);
    if (info->output_schema) {
        p->out = weir_batch_create(info->output_schema, info->batch_size);
        if (!p->out) {
            weir_free(p);
            return WEIR_ENOMEM;
        }
    }
    *out = p;
    return 0;
}

static int process_open(void *op, weir_op_ctx *ctx)
{
    process_op *p = op;
    if (p->arg->fn.open) {
        int rc = p->arg->fn.open(p->arg->fn.ud, ctx, &p->inst);
        if (rc)
            return rc < 0 ? rc : WEIR_EUSER;
    }
    p->opened = true;
    return 0;
}

static int flush_out(process_op *p, weir_op_ctx *ctx)
{
    if (!p->out || p->out->n_rows == 0)
        return 0;
    int rc = weir_op_emit(ctx, p->out);
    weir_batch_reset(p->out);
    return rc;
}

static int process_process(void *op, weir_op_ctx *ctx, int input,
                           const weir_batch *b)
{
    (void)input;
    process_op *p = op;
    uint8_t buf[256];
    int rc = 0;
    for (uint32_t r = 0; r < b->n_rows && !rc; r++) {
        const uint8_t *k = buf;
        size_t len = weir_key_encode(b, &p->key, r, buf, sizeof buf);
        if (len > sizeof buf) {
            weir_buf_clear(&p->bigkey);
            if ((rc = weir_buf_reserve(&p->bigkey, len)))
                break;
            weir_key_encode(b, &p->key, r, p->bigkey.data, len);
            k = p->bigkey.data;
        }
        if ((rc = weir_op_set_key(ctx, k, len)))
            break;
        if (p->out && weir_batch_full(p->out) && (rc = flush_out(p, ctx)))
            break;
        rc = p->arg->fn.process(p->inst, ctx, b, r, p->out);
        if (rc > 0)
            rc = WEIR_EUSER;
    }
    if (!rc)
        rc = flush_out(p, ctx);
    return rc;
}

static int process_timer(void *op, weir_op_ctx *ctx, const weir_timer *t)
{
    process_op *p = op;
    if (!p->arg->fn.timer)
        return 0;
    int rc = 0;
    if (p->out && weir_batch_full(p->out) && (rc = flush_out(p, ctx)))
        return rc;
    rc = p->arg->fn.timer(p->inst, ctx, t, p->out);
    if (rc)
        return rc < 0 ? rc : WEIR_EUSER;
    /* Event-time output goes out before the watermark (process_watermark);
     * processing time now. */
    return t->domain == WEIR_TIME_PROCESSING ? flush_out(p, ctx) : 0;
}

static int process_watermark(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    (void)wm;
    return flush_out(op, ctx);
}

static int process_finish(void *op, weir_op_ctx *ctx)
{
    return flush_out(op, ctx);
}

static void process_close(void *op)
{
    process_op *p = op;
    if (!p)
        return;
    if (p->opened && p->arg->fn.close)
        p->arg->fn.close(p->inst);
    weir_batch_destroy(p->out);
    weir_buf_fini(&p->bigkey);
    weir_free(p);
}

static const weir_operator_class process_cls = {
    .name = "process",
    .open = process_open,
    .process = process_process,
    .watermark = process_watermark,
    .timer = process_timer,
    .finish = process_finish,
    .stop = process_finish, /* rows the function emitted are sent */
    .close = process_close,
};

int weir_job_process(weir_job *job, weir_stream keyed_in,
                     const weir_schema *out_schema, const weir_process_fn *fn,
                     weir_stream *out)
{
    if (!job || !fn || !fn->process)
        return WEIR_EINVAL;
    if (keyed_in.part != WEIR_PART_KEYED)
        return weir__job_build_error(
            job, WEIR_EINVAL,
            "weir_job_process needs a keyed stream (weir_stream_key_by)");
    process_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    a->fn = *fn;
    weir_operator_spec spec = {.name = fn->name ? fn->name : "process",
                               .cls = &process_cls,
                               .create = process_create,
                               .arg = a,
                               .free_arg = free_plain};
    return weir_job_operator(job, &keyed_in, 1, &spec, out_schema, 0, out);
}
