/*
 * expr/arena.c - the expression arena (nodes, literal bytes, compiled
 * patterns; freed all at once) and the evaluation environment with its
 * chunked scratch allocator (reset per evaluation, chunks kept, so steady
 * state allocates nothing).
 */
#include <stdarg.h>
#include <stdio.h>

#include "expr/expr_internal.h"

typedef struct ablock {
    struct ablock *next;
    size_t cap, used;
    _Alignas(16) char data[]; /* allocations are 16-byte aligned: a 128-bit DECIMAL may live there */
} ablock;

typedef struct adtor {
    struct adtor *next;
    void (*fn)(void *);
    void *p;
} adtor;

struct weir_expr_arena {
    ablock *blocks;
    adtor *dtors;
    weir__tz *tz; /* session zone of the nodes built from now on; NULL = UTC */
};

weir_expr_arena *weir_expr_arena_create(void) { return weir_calloc(1, sizeof(weir_expr_arena)); }

void weir_expr_arena_destroy(weir_expr_arena *a)
{
    if (!a)
        return;
    weir__tz_free(a->tz);
    for (adtor *d = a->dtors; d;) {
        adtor *next = d->next;
        d->fn(d->p);
        d = next;
    }
    for (ablock *b = a->blocks; b;) {
        ablock *next = b->next;
        weir_free(b);
        b = next;
    }
    weir_free(a);
}

void *weir__arena_alloc(weir_expr_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    ablock *b = a->blocks;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > 8192 ? size : 8192;
        b = weir_malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        /* Keep the fuller block behind the new one only if the new one is the big one. */
        b->next = a->blocks;
        a->blocks = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *weir__arena_strdup(weir_expr_arena *a, const char *s, size_t len)
{
    char *p = weir__arena_alloc(a, len + 1);
    if (p && len)
        memcpy(p, s, len);
    return p;
}

int weir__arena_on_destroy(weir_expr_arena *a, void (*fn)(void *), void *p)
{
    adtor *d = weir__arena_alloc(a, sizeof *d);
    if (!d)
        return WEIR_ENOMEM;
    d->fn = fn;
    d->p = p;
    /* Destructors run from the arena's list; the node memory outlives them. */
    d->next = a->dtors;
    a->dtors = d;
    return 0;
}

weir_expr *weir__node(weir_expr_arena *a, int kind, weir_type type, uint32_t n_args)
{
    weir_expr *e = weir__arena_alloc(a, sizeof *e);
    if (!e)
        return NULL;
    e->kind = (uint8_t)kind;
    e->type = type;
    e->tz = a->tz;
    e->col = -1;
    e->n_args = n_args;
    if (n_args) {
        e->args = weir__arena_alloc(a, n_args * sizeof *e->args);
        if (!e->args)
            return NULL;
    }
    return e;
}

/* ---- environment ---- */

weir_expr_env *weir_expr_env_create(void)
{
    weir_expr_env *env = weir_calloc(1, sizeof *env);
    if (!env)
        return NULL;
    env->watermark = WEIR_TS_MIN;
    env->clock = weir_clock_system();
    return env;
}

void weir_expr_env_destroy(weir_expr_env *env)
{
    if (!env)
        return;
    for (xchunk *c = env->chunks; c;) {
        xchunk *next = c->next;
        weir_free(c->data);
        weir_free(c);
        c = next;
    }
    weir__tz_free(env->tz);
    weir_free(env->rng);
    weir_free(env);
}

void weir_expr_env_set_watermark(weir_expr_env *env, weir_ts watermark) { env->watermark = watermark; }

void weir_expr_env_set_clock(weir_expr_env *env, const weir_clock *clock)
{
    env->clock = clock ? *clock : weir_clock_system();
}

static void tz_free_cb(void *p) { weir__tz_free(p); }

int weir_expr_arena_set_time_zone(weir_expr_arena *a, const char *tz, weir_error *err)
{
    weir__tz *z = NULL;
    int rc = weir__tz_load(tz, &z, err);
    if (rc)
        return rc;
    /* Nodes built earlier keep pointing at the old zone: keep it until the arena goes. */
    if (a->tz && weir__arena_on_destroy(a, tz_free_cb, a->tz)) {
        weir__tz_free(z);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    a->tz = z;
    return 0;
}

int weir_expr_env_set_time_zone(weir_expr_env *env, const char *tz, weir_error *err)
{
    weir__tz *z = NULL;
    int rc = weir__tz_load(tz, &z, err);
    if (rc)
        return rc;
    weir__tz_free(env->tz);
    env->tz = z;
    return 0;
}

void weir__x_reset(weir_expr_env *env)
{
    for (xchunk *c = env->chunks; c; c = c->next)
        c->used = 0;
    env->cur = env->chunks;
}

void *weir__x_alloc_chunk(ecx *cx, size_t size)
{
    weir_expr_env *env = cx->env;
    xchunk *c = env->cur;
    while (c && c->cap - c->used < size)
        c = c->next;
    if (!c) {
        size_t cap = 1 << 16;
        for (xchunk *k = env->chunks; k; k = k->next)
            if (k->cap * 2 > cap)
                cap = k->cap * 2;
        while (cap < size)
            cap *= 2;
        c = weir_calloc(1, sizeof *c);
        char *data = c ? weir_calloc(1, cap) : NULL;
        if (!data) {
            weir_free(c);
            return NULL;
        }
        c->data = data;
        c->cap = cap;
        /* Append so that the order of reuse stays stable. */
        xchunk **pp = &env->chunks;
        while (*pp)
            pp = &(*pp)->next;
        *pp = c;
    }
    env->cur = c;
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

char *weir_udf_alloc(weir_udf_ctx *cx, size_t len) { return weir__x_alloc(&cx->cx, len ? len : 1); }

int weir__x_fail(ecx *cx, uint32_t row, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return weir_error_set(cx->err, WEIR_EINVAL, "%s (row %u)", msg, row);
}

int64_t weir__x_now(ecx *cx)
{
    if (!cx->have_now) {
        cx->now_ms = weir_clock_now(&cx->env->clock);
        cx->have_now = true;
    }
    return cx->now_ms;
}

const int64_t *weir__x_now_rows(ecx *cx)
{
    if (cx->now_rows)
        return cx->now_rows;
    uint32_t n = cx->in && cx->in->n_rows > cx->n ? cx->in->n_rows : cx->n;
    int64_t *t = weir__x_alloc(cx, (n ? n : 1) * sizeof *t);
    if (!t)
        return NULL;
    for (uint32_t r = 0; r < n; r++)
        t[r] = weir_clock_now(&cx->env->clock);
    return cx->now_rows = t;
}
