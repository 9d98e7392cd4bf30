/*
 * connector/blackhole/blackhole_sink.c - a sink that discards everything
 * and counts rows, for benchmarks (Flink's 'blackhole').
 */
#include <string.h>

#include "connector/connector_internal.h"

typedef struct blackhole_arg {
    uint64_t *row_counter;
} blackhole_arg;

typedef struct blackhole_sink {
    const blackhole_arg *arg;
    uint64_t rows;
} blackhole_sink;

static int bh_create(void *argp, const weir_op_info *info, void **out)
{
    blackhole_sink *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->arg = argp;
    *out = s;
    return 0;
}

static int bh_open(void *op, weir_op_ctx *ctx)
{
    return 0;
}

static int bh_process(void *op, weir_op_ctx *ctx, int input,
                      const weir_batch *b)
{
    blackhole_sink *s = op;
    s->rows += b->n_rows;
    if (s->arg->row_counter)
        __atomic_fetch_add(s->arg->row_counter, b->n_rows, __ATOMIC_RELAXED);
    return 0;
}

static void bh_close(void *op)
{
    weir_free(op);
}

const weir_operator_class weir__blackhole_sink_class = {
    .name = "blackhole",
    .open = bh_open,
    .process = bh_process,
    .close = bh_close,
};

static void bh_arg_free(void *p)
{
    weir_free(p);
}

int weir_blackhole_sink_spec(const weir_blackhole_sink_config *cfg,
                             weir_operator_spec *out, weir_error *err)
{
    memset(out, 0, sizeof *out);
    blackhole_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    a->row_counter = cfg ? cfg->row_counter : NULL;
    out->name = "blackhole";
    out->cls = &weir__blackhole_sink_class;
    out->create = bh_create;
    out->arg = a;
    out->free_arg = bh_arg_free;
    return 0;
}

int weir_blackhole_sink_spec_opts(const weir_option *opts, size_t n_opts,
                                  const weir_schema *schema,
                                  const weir_connector_env *env,
                                  weir_operator_spec *out, weir_error *err)
{
    static const char *const known[] = {NULL};
    weir__optset o;
    memset(out, 0, sizeof *out);
    int rc = weir__optset_init(&o, "blackhole", opts, n_opts, env, err);
    if (!rc)
        rc = weir__opt_finish(&o, known);
    if (!rc)
        rc = weir_blackhole_sink_spec(NULL, out, err);
    weir__optset_fini(&o);
    return rc;
}
