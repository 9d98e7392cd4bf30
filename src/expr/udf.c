/*
 * expr/udf.c - scalar user-defined functions registered through the C API.
 *
 * The registry is process-wide and guarded by a mutex; a bound call node
 * keeps a pointer to its registry entry, so an entry is never freed: an
 * unregistered one is kept aside, and expressions bound before (a job
 * planned from a script whose later DROP FUNCTION removed the name) go on
 * calling it.
 */
#include <pthread.h>
#include <stdio.h>
#include <strings.h>

#include "expr/expr_internal.h"

typedef struct udf_entry {
    weir_udf u;
    char *name;
    weir_type *arg_types;
    struct udf_entry *next;
} udf_entry;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static udf_entry *g_udfs;
/* Unregistered entries: an expression bound before DROP FUNCTION (a job
 * planned from the statements above it) still calls through its entry. */
static udf_entry *g_retired;

static udf_entry *find(const char *name)
{
    for (udf_entry *e = g_udfs; e; e = e->next)
        if (!strcasecmp(e->name, name))
            return e;
    return NULL;
}

int weir_expr_register_udf(const weir_udf *udf, weir_error *err)
{
    if (!udf || !udf->name || !*udf->name || (!udf->row_fn == !udf->vec_fn) || (udf->n_args && !udf->arg_types))
        return weir_error_set(err, WEIR_EINVAL, "a UDF needs a name, argument types and exactly one callback");
    if (weir__func_find(udf->name))
        return weir_error_set(err, WEIR_EEXIST, "%s is a built-in function", udf->name);
    udf_entry *e = weir_calloc(1, sizeof *e);
    if (!e)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    e->u = *udf;
    e->name = weir_strdup(udf->name);
    e->arg_types = weir_malloc((udf->n_args ? udf->n_args : 1) * sizeof *e->arg_types);
    if (!e->name || !e->arg_types) {
        weir_free(e->name);
        weir_free(e->arg_types);
        weir_free(e);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    if (udf->n_args)
        memcpy(e->arg_types, udf->arg_types, udf->n_args * sizeof *e->arg_types);
    e->u.name = e->name;
    e->u.arg_types = e->arg_types;
    pthread_mutex_lock(&g_lock);
    if (find(udf->name)) {
        pthread_mutex_unlock(&g_lock);
        weir_free(e->name);
        weir_free(e->arg_types);
        weir_free(e);
        return weir_error_set(err, WEIR_EEXIST, "function %s is already registered", udf->name);
    }
    e->next = g_udfs;
    g_udfs = e;
    pthread_mutex_unlock(&g_lock);
    return 0;
}

int weir_expr_unregister_udf(const char *name)
{
    pthread_mutex_lock(&g_lock);
    for (udf_entry **pp = &g_udfs; *pp; pp = &(*pp)->next) {
        if (!strcasecmp((*pp)->name, name)) {
            udf_entry *e = *pp;
            *pp = e->next;
            e->next = g_retired;
            g_retired = e;
            pthread_mutex_unlock(&g_lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return WEIR_ENOTFOUND;
}

int weir_expr_udf_lookup(const char *name, weir_udf *out)
{
    pthread_mutex_lock(&g_lock);
    udf_entry *e = find(name);
    if (e)
        *out = e->u;
    pthread_mutex_unlock(&g_lock);
    return e ? 0 : WEIR_ENOTFOUND;
}

uint32_t weir__udf_names(const char **names, uint32_t cap)
{
    uint32_t n = 0;
    pthread_mutex_lock(&g_lock);
    for (udf_entry *e = g_udfs; e && n < cap; e = e->next)
        names[n++] = e->name;
    pthread_mutex_unlock(&g_lock);
    return n;
}

static size_t width(weir_type_id id)
{
    switch (id) {
    case WEIR_TYPE_BOOLEAN: return 1;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT: return 4;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW: return sizeof(xstr);
    default: return 8;
    }
}

static int udf_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    const weir_udf *u = e->aux;
    weir_udf_ctx *ucx = (weir_udf_ctx *)cx; /* ecx is the first and only member */
    if (u->vec_fn) {
        uint8_t *pre = out->nulls;
        xvec o = *out;
        o.nulls = weir__x_zalloc(cx, n ? n : 1);
        if (!o.nulls)
            return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
        int rc = u->vec_fn(u->ud, a, e->n_args, n, &o, ucx);
        if (rc)
            return weir_error_set(cx->err, rc < 0 ? rc : WEIR_EUSER, "function %s failed: %s", u->name,
                                  weir_strerror(rc < 0 ? rc : WEIR_EUSER));
        if (pre)
            for (uint32_t i = 0; i < n; i++)
                o.nulls[i] |= pre[i];
        out->nulls = o.nulls;
        return 0;
    }
    weir_value argv_small[8];
    weir_value *argv = argv_small;
    if (e->n_args > 8) {
        argv = weir__x_alloc(cx, e->n_args * sizeof *argv);
        if (!argv)
            return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    }
    size_t w = width(e->type.id);
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        for (uint32_t k = 0; k < e->n_args; k++) {
            weir_value *v = &argv[k];
            memset(v, 0, sizeof *v);
            v->type = a[k].type;
            v->is_null = a[k].nulls && a[k].nulls[i];
            memcpy(&v->v, (const char *)a[k].data + i * width(a[k].type.id), width(a[k].type.id));
        }
        weir_value r;
        memset(&r, 0, sizeof r);
        r.type = e->type;
        int rc = u->row_fn(u->ud, argv, e->n_args, &r, ucx);
        if (rc)
            return weir__x_fail(cx, i, "function %s failed: %s", u->name, weir_strerror(rc < 0 ? rc : WEIR_EUSER));
        if (r.is_null) {
            x_setnull(cx, out, i);
            continue;
        }
        if (w == sizeof(xstr)) {
            char *p = x_str(cx, r.v.s.len);
            if (!p)
                return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
            if (r.v.s.len)
                memcpy(p, r.v.s.ptr, r.v.s.len);
            ((xstr *)out->data)[i] = (xstr){p, r.v.s.len};
        } else {
            memcpy((char *)out->data + i * w, &r.v, w);
        }
    }
    return 0;
}

int weir__udf_bind(weir_expr_arena *a, const char *name, weir_expr **args, uint32_t n, weir_expr **out,
                   weir_error *err)
{
    pthread_mutex_lock(&g_lock);
    udf_entry *u = find(name);
    pthread_mutex_unlock(&g_lock);
    if (!u)
        return 0;
    char sig[256];
    size_t off = (size_t)snprintf(sig, sizeof sig, "%s(", u->name);
    for (uint32_t k = 0; k < u->u.n_args && off < sizeof sig; k++) {
        char tb[64];
        off += (size_t)snprintf(sig + off, sizeof sig - off, "%s%s", k ? ", " : "",
                                weir_expr_type_name(u->arg_types[k], WEIR_INTERVAL_NONE, tb, sizeof tb));
    }
    if (off < sizeof sig)
        snprintf(sig + off, sizeof sig - off, ")");
    char *sigc = weir__arena_strdup(a, sig, strlen(sig));
    xfunc *f = weir__arena_alloc(a, sizeof *f);
    if (!sigc || !f)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    f->name = u->name;
    f->sig = sigc;
    if (n != u->u.n_args)
        return weir__bad_args(f, args, n, err);
    for (uint32_t k = 0; k < n; k++) {
        if (!weir__implicit_ok(args[k], u->arg_types[k]))
            return weir__bad_args(f, args, n, err);
        weir_type t = u->arg_types[k];
        t.nullable = args[k]->type.nullable || args[k]->type.id == WEIR_TYPE_NULL;
        int rc = weir__coerce(a, &args[k], t, err);
        if (rc)
            return rc;
    }
    weir_type rt = u->u.result_type;
    rt.nullable = true;
    uint8_t flags = F_MAYNULL | (u->u.null_on_null ? F_STRICT : 0) | (u->u.deterministic ? 0 : F_VOLATILE);
    weir_expr *e = weir__call_node(a, f, args, n, rt, udf_kernel, flags);
    if (!e)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    e->name = u->name;
    e->aux = &u->u;
    *out = e;
    return 1;
}
