/*
 * connector/print/print_sink.c - the print sink: every row as a line in
 * Flink's print format, "+I[1, foo, 2.5]", on stdout (or stderr, a given
 * FILE* or file descriptor).
 *
 * Line prefix, as Flink's print connector: with parallelism > 1 each line
 * starts with "<identifier>:<subtask+1>> " ("1> " without an identifier);
 * with parallelism 1 with "<identifier>> ", or nothing.
 *
 * A batch is formatted into one reused buffer and written with one call
 * under a process-wide lock, so lines of parallel subtasks never interleave
 * inside a line. The sink flushes after every batch: print is for watching.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "connector/connector_internal.h"
#include "connector/file/fileio.h"

typedef struct print_arg {
    char *identifier;
    bool standard_error;
    FILE *out;
    int fd;
} print_arg;

typedef struct print_sink {
    weir_error err; /* first member: see weir__sink_last_error */
    const print_arg *arg;
    char *prefix;
    size_t prefix_len;
    weir_buf buf;
    uint64_t rows;
} print_sink;

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

void weir_print_sink_config_init(weir_print_sink_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->fd = -1;
}

static void print_arg_free(void *p)
{
    print_arg *a = p;
    if (a) {
        weir_free(a->identifier);
        weir_free(a);
    }
}

/* Hands the instance's error to the runtime (ctx is NULL in unit tests). */
static int report(weir_op_ctx *ctx, print_sink *s, int rc)
{
    if (rc && ctx)
        return weir_op_fail(ctx, rc, "%s",
                            s->err.message[0] ? s->err.message
                                              : weir_strerror(rc));
    return rc;
}

static int print_create(void *argp, const weir_op_info *info, void **out)
{
    const print_arg *a = argp;
    print_sink *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->arg = a;
    weir_buf_init(&s->buf);
    char prefix[256] = "";
    const char *id = a->identifier ? a->identifier : "";
    int n;
    if (info && info->parallelism > 1)
        n = snprintf(prefix, sizeof prefix, "%s%s%u> ", id, *id ? ":" : "",
                     info->subtask + 1);
    else
        n = snprintf(prefix, sizeof prefix, *id ? "%s> " : "%s", id);
    if (n < 0)
        n = 0;
    s->prefix = weir_strdup(prefix);
    if (!s->prefix) {
        weir_free(s);
        return WEIR_ENOMEM;
    }
    s->prefix_len = strlen(prefix);
    *out = s;
    return 0;
}

static int print_open(void *op, weir_op_ctx *ctx)
{
    return 0;
}

static int print_flush(print_sink *s)
{
    const print_arg *a = s->arg;
    if (s->buf.len == 0)
        return 0;
    int rc = 0;
    pthread_mutex_lock(&print_lock);
    if (a->out || a->fd < 0) {
        FILE *fp = a->out ? a->out : a->standard_error ? stderr : stdout;
        if (fwrite(s->buf.data, 1, s->buf.len, fp) != s->buf.len ||
            fflush(fp) != 0)
            rc =
                weir_error_set(&s->err, WEIR_EIO,
                               "print sink: cannot write: %s", strerror(errno));
    } else {
        int w = weir__fio_write_all(a->fd, s->buf.data, s->buf.len);
        if (w)
            rc = weir_error_set(&s->err, weir__fio_errno_code(w),
                                "print sink: cannot write: %s", strerror(-w));
    }
    pthread_mutex_unlock(&print_lock);
    weir_buf_clear(&s->buf);
    return rc;
}

static int print_process_impl(print_sink *s, const weir_batch *b)
{
    for (uint32_t r = 0; r < b->n_rows; r++) {
        int rc = weir_buf_put(&s->buf, s->prefix, s->prefix_len);
        if (!rc)
            rc = weir_format_print_row(b, r, &s->buf);
        if (!rc)
            rc = weir_buf_put_u8(&s->buf, '\n');
        if (rc)
            return weir_error_set(&s->err, rc, "print sink: out of memory");
    }
    s->rows += b->n_rows;
    return print_flush(s);
}

static int print_process(void *op, weir_op_ctx *ctx, int input,
                         const weir_batch *b)
{
    return report(ctx, op, print_process_impl(op, b));
}

static int print_finish(void *op, weir_op_ctx *ctx)
{
    return report(ctx, op, print_flush(op));
}

static void print_close(void *op)
{
    print_sink *s = op;
    if (!s)
        return;
    weir_buf_fini(&s->buf);
    weir_free(s->prefix);
    weir_free(s);
}

const weir_operator_class weir__print_sink_class = {
    .name = "print",
    .open = print_open,
    .process = print_process,
    .finish = print_finish,
    .stop = print_finish, /* what it received is final: print it */
    .close = print_close,
};

int weir_print_sink_spec(const weir_print_sink_config *cfg,
                         weir_operator_spec *out, weir_error *err)
{
    memset(out, 0, sizeof *out);
    weir_print_sink_config def;
    if (!cfg) {
        weir_print_sink_config_init(&def);
        cfg = &def;
    }
    print_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    a->standard_error = cfg->standard_error;
    a->out = cfg->out;
    a->fd = cfg->fd;
    if (cfg->identifier && !(a->identifier = weir_strdup(cfg->identifier))) {
        print_arg_free(a);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    out->name = "print";
    out->cls = &weir__print_sink_class;
    out->create = print_create;
    out->arg = a;
    out->free_arg = print_arg_free;
    return 0;
}

static const char *const print_known[] = {"print-identifier", "standard-error",
                                          NULL};

int weir_print_sink_spec_opts(const weir_option *opts, size_t n_opts,
                              const weir_schema *schema,
                              const weir_connector_env *env,
                              weir_operator_spec *out, weir_error *err)
{
    weir__optset o;
    weir_print_sink_config cfg;
    weir_print_sink_config_init(&cfg);
    memset(out, 0, sizeof *out);
    int rc = weir__optset_init(&o, "print", opts, n_opts, env, err);
    if (!rc) {
        cfg.identifier = weir__opt_get(&o, "print-identifier");
        rc = weir__opt_bool(&o, "standard-error", &cfg.standard_error);
    }
    if (!rc)
        rc = weir__opt_finish(&o, print_known);
    if (!rc) {
        if (env && env->print_out && !cfg.standard_error)
            cfg.out = env->print_out;
        rc = weir_print_sink_spec(&cfg, out, err);
    }
    weir__optset_fini(&o);
    return rc;
}
