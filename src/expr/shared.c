/*
 * expr/shared.c - common subexpressions of a calc (a filter and its
 * projections) computed once per batch.
 *
 * Two subtrees are the same subexpression when their digests
 * (weir_expr_digest: the readable form plus every parameter a function
 * keeps beside its arguments) and their result types are equal: over one
 * input they compute the same values, the contract sub-plan reuse relies
 * on as well. Column references and literals are never shared (loading
 * them costs less than a slot), nor are two subtrees that call something
 * volatile (RAND, a UDF not marked deterministic) or read the session
 * (clock, watermark, time zone): two occurrences of RAND() are two random
 * numbers. One such node placed at two points of the trees (an operand of
 * an expanded row comparison) is one value, computed once.
 *
 * The rewrite copies the path from each root down to the shared subtrees
 * and leaves every other node (and so the caller's trees) as it was. Every
 * occurrence of a shared subexpression becomes the same N_SHARED node over
 * one copy of it; eval.c keeps its value per evaluation in the slot p0.
 * A subexpression counts as repeated only where its occurrences survive
 * the sharing of the larger ones around them: f(g(x)) twice shares f(g(x))
 * alone, not g(x) as well.
 */
#include <stdio.h>

#include "expr/expr_internal.h"

#define DIGEST_CAP 4096

/* One distinct subexpression (a class of equal subtrees). */
typedef struct sclass {
    uint64_t hash;
    char *digest;
    weir_type type;
    uint8_t iv;
    uint32_t total;   /* occurrences in the trees */
    uint32_t seen;    /* occurrences left once larger shared subtrees are one */
    bool visited;
    weir_expr *node;  /* its N_SHARED node, once made */
} sclass;

/* Node pointer -> class index (-1: never shared). */
typedef struct sentry {
    const weir_expr *e;
    int32_t cls;
} sentry;

typedef struct sctx {
    weir_expr_arena *a;
    sentry *map;      /* open addressing, cap_map a power of two */
    uint32_t cap_map, n_map;
    sclass *cls;
    uint32_t n_cls, cap_cls;
    char *buf;        /* DIGEST_CAP */
    uint32_t n_slots;
    bool oom;
} sctx;

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

static uint32_t ptr_slot(const sctx *c, const weir_expr *e)
{
    uint64_t h = (uint64_t)(uintptr_t)e * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (c->cap_map - 1);
}

static sentry *map_find(sctx *c, const weir_expr *e)
{
    uint32_t i = ptr_slot(c, e);
    while (c->map[i].e && c->map[i].e != e)
        i = (i + 1) & (c->cap_map - 1);
    return &c->map[i];
}

static bool map_grow(sctx *c)
{
    uint32_t cap = c->cap_map ? c->cap_map * 2 : 64;
    sentry *old = c->map;
    uint32_t old_cap = c->cap_map;
    c->map = weir_calloc(cap, sizeof *c->map);
    if (!c->map) {
        c->map = old;
        return false;
    }
    c->cap_map = cap;
    for (uint32_t i = 0; i < old_cap; i++)
        if (old[i].e)
            *map_find(c, old[i].e) = old[i];
    weir_free(old);
    return true;
}

bool weir__has_volatile_or_session(const weir_expr *e)
{
    if (e->flags & (F_VOLATILE | F_SESSION))
        return true;
    for (uint32_t i = 0; i < e->n_args; i++)
        if (weir__has_volatile_or_session(e->args[i]))
            return true;
    return false;
}

/*
 * The class of subtree e (registering it), or -1 when e is not shareable.
 * A volatile or session-reading subtree is a class of its own node: only
 * the same node placed twice (the planner binds an operand of an expanded
 * row comparison once) is shared, never two calls that read alike.
 */
static int32_t classify(sctx *c, const weir_expr *e)
{
    if (e->kind == N_COLUMN || e->kind == N_LITERAL || e->kind == N_SHARED)
        return -1;
    bool by_node = weir__has_volatile_or_session(e);
    size_t len = by_node ? (size_t)snprintf(c->buf, DIGEST_CAP, "node %p", (const void *)e)
                         : weir_expr_digest(e, c->buf, DIGEST_CAP);
    if (len + 1 >= DIGEST_CAP)
        return -1; /* too long to compare safely: computed where it stands */
    uint64_t h = hash_bytes(c->buf, len);
    for (uint32_t k = 0; k < c->n_cls; k++) {
        sclass *s = &c->cls[k];
        if (s->hash == h && s->iv == e->iv && weir_type_same(s->type, e->type) && s->type.nullable == e->type.nullable &&
            !strcmp(s->digest, c->buf))
            return (int32_t)k;
    }
    if (c->n_cls == c->cap_cls) {
        uint32_t cap = c->cap_cls ? c->cap_cls * 2 : 16;
        sclass *n = weir_realloc(c->cls, cap * sizeof *n);
        if (!n) {
            c->oom = true;
            return -1;
        }
        c->cls = n;
        c->cap_cls = cap;
    }
    char *d = weir_malloc(len + 1);
    if (!d) {
        c->oom = true;
        return -1;
    }
    memcpy(d, c->buf, len + 1);
    c->cls[c->n_cls] = (sclass){.hash = h, .digest = d, .type = e->type, .iv = e->iv};
    return (int32_t)c->n_cls++;
}

/* Counts every occurrence of every subtree under e. */
static void count_all(sctx *c, const weir_expr *e)
{
    if (c->oom)
        return;
    if ((c->n_map + 1) * 2 > c->cap_map && !map_grow(c)) {
        c->oom = true;
        return;
    }
    sentry *m = map_find(c, e);
    if (!m->e) {
        m->e = e;
        m->cls = classify(c, e);
        c->n_map++;
    }
    if (m->cls >= 0)
        c->cls[m->cls].total++;
    for (uint32_t i = 0; i < e->n_args; i++)
        count_all(c, e->args[i]);
}

static int32_t class_of(sctx *c, const weir_expr *e) { return map_find(c, e)->cls; }

/* Counts the occurrences that remain when every repeated subtree is walked once. */
static void count_seen(sctx *c, const weir_expr *e)
{
    int32_t k = class_of(c, e);
    if (k >= 0) {
        sclass *s = &c->cls[k];
        s->seen++;
        if (s->total >= 2) {
            if (s->visited)
                return;
            s->visited = true;
        }
    }
    for (uint32_t i = 0; i < e->n_args; i++)
        count_seen(c, e->args[i]);
}

static weir_expr *rewrite(sctx *c, weir_expr *e);

/* e with its arguments rewritten: e itself when none changed, else a copy. */
static weir_expr *rewrite_args(sctx *c, weir_expr *e)
{
    weir_expr *copy = NULL;
    for (uint32_t i = 0; i < e->n_args; i++) {
        weir_expr *r = rewrite(c, e->args[i]);
        if (!r)
            return NULL;
        if (r == e->args[i] && !copy)
            continue;
        if (!copy) {
            copy = weir__node(c->a, e->kind, e->type, e->n_args);
            if (!copy)
                return NULL;
            weir_expr **args = copy->args;
            *copy = *e;
            copy->args = args;
            memcpy(args, e->args, e->n_args * sizeof *args);
        }
        copy->args[i] = r;
    }
    return copy ? copy : e;
}

static weir_expr *rewrite(sctx *c, weir_expr *e)
{
    int32_t k = class_of(c, e);
    if (k < 0 || c->cls[k].seen < 2)
        return rewrite_args(c, e);
    sclass *s = &c->cls[k];
    if (s->node)
        return s->node;
    weir_expr *sh = weir__node(c->a, N_SHARED, e->type, 1);
    if (!sh)
        return NULL;
    sh->iv = e->iv;
    sh->tz = e->tz;
    sh->p0 = c->n_slots++;
    s->node = sh;
    if (!(sh->args[0] = rewrite_args(c, e)))
        return NULL;
    return sh;
}

int32_t weir__share_subexprs(weir_expr_arena *a, weir_expr **roots, uint32_t n)
{
    sctx c = {.a = a};
    c.buf = weir_malloc(DIGEST_CAP);
    int32_t rc = -1;
    if (!c.buf)
        goto done;
    for (uint32_t i = 0; i < n; i++)
        if (roots[i])
            count_all(&c, roots[i]);
    if (c.oom)
        goto done;
    for (uint32_t i = 0; i < n; i++)
        if (roots[i])
            count_seen(&c, roots[i]);
    for (uint32_t i = 0; i < n; i++)
        if (roots[i] && !(roots[i] = rewrite(&c, roots[i])))
            goto done;
    rc = (int32_t)c.n_slots;
done:
    for (uint32_t k = 0; k < c.n_cls; k++)
        weir_free(c.cls[k].digest);
    weir_free(c.cls);
    weir_free(c.map);
    weir_free(c.buf);
    return rc;
}

int weir_expr_calc_create(weir_expr_arena *a, weir_expr *filter, weir_expr *const *exprs, uint32_t n,
                          weir_expr_calc **out, weir_error *err)
{
    if (!a || !out || (!filter && !exprs) || (n && !exprs))
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_calc_create: invalid argument");
    if (filter && filter->type.id != WEIR_TYPE_BOOLEAN && filter->type.id != WEIR_TYPE_NULL)
        return weir_error_set(err, WEIR_EINVAL, "a filter condition must be BOOLEAN, not %s",
                              weir_type_name(filter->type.id));
    weir_expr_calc *c = weir__arena_alloc(a, sizeof *c);
    weir_expr **roots = weir__arena_alloc(a, (n + 1) * sizeof *roots);
    if (!c || !roots)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    roots[0] = filter;
    for (uint32_t i = 0; i < n; i++)
        roots[1 + i] = exprs[i];
    int32_t slots = weir__share_subexprs(a, roots, n + 1);
    if (slots < 0 || weir__order_conditions(a, roots, n + 1))
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    c->filter = roots[0];
    c->exprs = exprs ? roots + 1 : NULL;
    c->n = n;
    c->n_shared = (uint32_t)slots;
    *out = c;
    return 0;
}
