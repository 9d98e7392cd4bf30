/*
 * expr/udf.c - user-defined functions registered through the C API: scalar
 * functions (weir_udf) and table functions (weir_udtf).
 *
 * The registry is process-wide and guarded by a mutex; scalar and table
 * functions share its one name space. A bound call node (or a planned
 * table function call) keeps a pointer to its registry entry, so an entry
 * is never freed: an unregistered one is kept aside, and expressions bound
 * before (a job planned from a script whose later DROP FUNCTION removed
 * the name) go on calling it.
 */
#include <pthread.h>
#include <stdio.h>
#include <strings.h>

#include "expr/expr_internal.h"

typedef struct udf_entry {
    bool table;  /* a table function: t, else u */
    weir_udf u;
    weir_udtf t;
    char *name;
    weir_type *arg_types;
    char **col_names;     /* table functions */
    weir_type *col_types; /* table functions */
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

static void entry_free(udf_entry *e)
{
    if (!e)
        return;
    if (e->col_names)
        for (uint32_t i = 0; i < e->t.n_cols; i++)
            weir_free(e->col_names[i]);
    weir_free(e->col_names);
    weir_free(e->col_types);
    weir_free(e->name);
    weir_free(e->arg_types);
    weir_free(e);
}

/* A new entry with copies of name and the argument types. */
static udf_entry *entry_new(const char *name, const weir_type *arg_types, uint32_t n_args)
{
    udf_entry *e = weir_calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->name = weir_strdup(name);
    e->arg_types = weir_malloc((n_args ? n_args : 1) * sizeof *e->arg_types);
    if (!e->name || !e->arg_types) {
        entry_free(e);
        return NULL;
    }
    if (n_args)
        memcpy(e->arg_types, arg_types, n_args * sizeof *e->arg_types);
    return e;
}

/* Links e into the registry unless its name is taken (then frees it). */
static int entry_link(udf_entry *e, weir_error *err)
{
    pthread_mutex_lock(&g_lock);
    if (find(e->name)) {
        pthread_mutex_unlock(&g_lock);
        int rc = weir_error_set(err, WEIR_EEXIST, "function %s is already registered", e->name);
        entry_free(e);
        return rc;
    }
    e->next = g_udfs;
    g_udfs = e;
    pthread_mutex_unlock(&g_lock);
    return 0;
}

int weir_expr_register_udf(const weir_udf *udf, weir_error *err)
{
    if (!udf || !udf->name || !*udf->name || (!udf->row_fn == !udf->vec_fn) || (udf->n_args && !udf->arg_types))
        return weir_error_set(err, WEIR_EINVAL, "a UDF needs a name, argument types and exactly one callback");
    if (weir__func_find(udf->name))
        return weir_error_set(err, WEIR_EEXIST, "%s is a built-in function", udf->name);
    udf_entry *e = entry_new(udf->name, udf->arg_types, udf->n_args);
    if (!e)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    e->u = *udf;
    e->u.name = e->name;
    e->u.arg_types = e->arg_types;
    return entry_link(e, err);
}

/*
 * Whether t is a type a table function may take or emit; why says what is
 * wrong. Nested values are refused as result columns: their encoding comes
 * from the function's own bytes, which weir could not trust.
 */
static bool udtf_type_ok(weir_type t, bool result, const char **why)
{
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN:
    case WEIR_TYPE_INT:
    case WEIR_TYPE_BIGINT:
    case WEIR_TYPE_DOUBLE:
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        return true;
    case WEIR_TYPE_TIME:
        *why = "a TIME precision above 3";
        return t.precision <= 3;
    case WEIR_TYPE_DECIMAL:
        *why = "a DECIMAL precision outside 1 to 38, or a scale above the precision";
        return t.precision >= 1 && t.precision <= 38 && t.scale <= t.precision;
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_MULTISET:
        *why = result ? "an ARRAY, MAP, ROW or MULTISET result column (not supported for table functions)"
                      : "a nested type without a descriptor (weir_type_nested)";
        return !result && weir_type_nested(t) != NULL;
    default:
        *why = "no SQL type (the NULL type or an unknown type id)";
        return false;
    }
}

int weir_expr_register_udtf(const weir_udtf *f, weir_error *err)
{
    if (!f || !f->name || !*f->name || !f->row_fn || (f->n_args && !f->arg_types) || !f->n_cols ||
        !f->col_names || !f->col_types)
        return weir_error_set(err, WEIR_EINVAL,
                              "a table function needs a name, argument types, at least one result column (names "
                              "and types) and a callback");
    for (uint32_t i = 0; i < f->n_cols; i++) {
        if (!f->col_names[i] || !*f->col_names[i])
            return weir_error_set(err, WEIR_EINVAL, "table function %s: result column %u has no name", f->name,
                                  i + 1);
        for (uint32_t j = 0; j < i; j++)
            if (!strcasecmp(f->col_names[i], f->col_names[j]))
                return weir_error_set(err, WEIR_EINVAL, "table function %s: two result columns are named '%s'",
                                      f->name, f->col_names[i]);
    }
    const char *why = "";
    for (uint32_t i = 0; i < f->n_args; i++)
        if (!udtf_type_ok(f->arg_types[i], false, &why))
            return weir_error_set(err, WEIR_EINVAL, "table function %s: argument %u has %s", f->name, i + 1, why);
    for (uint32_t i = 0; i < f->n_cols; i++)
        if (!udtf_type_ok(f->col_types[i], true, &why))
            return weir_error_set(err, WEIR_EINVAL, "table function %s: result column '%s' has %s", f->name,
                                  f->col_names[i], why);
    if (weir__func_find(f->name))
        return weir_error_set(err, WEIR_EEXIST, "%s is a built-in function", f->name);
    udf_entry *e = entry_new(f->name, f->arg_types, f->n_args);
    if (!e)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    e->table = true;
    e->t = *f;
    e->t.name = e->name;
    e->t.arg_types = e->arg_types;
    e->col_names = weir_calloc(f->n_cols, sizeof *e->col_names);
    e->col_types = weir_malloc(f->n_cols * sizeof *e->col_types);
    bool ok = e->col_names && e->col_types;
    for (uint32_t i = 0; ok && i < f->n_cols; i++)
        ok = (e->col_names[i] = weir_strdup(f->col_names[i])) != NULL;
    if (!ok) {
        entry_free(e);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    memcpy(e->col_types, f->col_types, f->n_cols * sizeof *e->col_types);
    for (uint32_t i = 0; i < f->n_cols; i++)
        e->col_types[i].nullable = true; /* a function may emit NULL in any column */
    e->t.col_names = (const char *const *)e->col_names;
    e->t.col_types = e->col_types;
    return entry_link(e, err);
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

int weir_expr_unregister_udtf(const char *name) { return weir_expr_unregister_udf(name); }

int weir_expr_udf_lookup(const char *name, weir_udf *out)
{
    pthread_mutex_lock(&g_lock);
    udf_entry *e = find(name);
    if (e && e->table)
        e = NULL;
    if (e)
        *out = e->u;
    pthread_mutex_unlock(&g_lock);
    return e ? 0 : WEIR_ENOTFOUND;
}

int weir_expr_udtf_lookup(const char *name, weir_udtf *out)
{
    pthread_mutex_lock(&g_lock);
    udf_entry *e = find(name);
    if (e && !e->table)
        e = NULL;
    if (e)
        *out = e->t;
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

uint32_t weir__udf_count(void)
{
    uint32_t n = 0;
    pthread_mutex_lock(&g_lock);
    for (udf_entry *e = g_udfs; e; e = e->next)
        n++;
    pthread_mutex_unlock(&g_lock);
    return n;
}

bool weir__udf_exists(const char *name)
{
    pthread_mutex_lock(&g_lock);
    bool found = find(name) != NULL;
    pthread_mutex_unlock(&g_lock);
    return found;
}

int weir_udtf_emit(weir_udtf_collector *out, const weir_value *row)
{
    if (!out || !out->emit || !row)
        return WEIR_EINVAL;
    return out->emit(out, row);
}

/*
 * weir_udf_init_table marks a weir_udf as a table function's: the name
 * points to this tag (weir sets the real name after the init function
 * returns) and ud to the description. The scalar layout of weir_udf, and
 * so WEIR_UDF_ABI_VERSION, stay as they were.
 */
static const char g_table_tag[] = "(a table function)";

int weir_udf_init_table(weir_udf *out, const weir_udtf *def)
{
    if (!out || !def)
        return WEIR_EINVAL;
    memset(out, 0, sizeof *out);
    out->name = g_table_tag;
    out->ud = (void *)(uintptr_t)def;
    return 0;
}

const weir_udtf *weir_udf_table(const weir_udf *u)
{
    return u && u->name == g_table_tag ? (const weir_udtf *)u->ud : NULL;
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

/* The xfunc of a call of u, for messages: its name and signature "f(INT, STRING)". */
static int call_sig(weir_expr_arena *a, const udf_entry *u, xfunc **out, weir_error *err)
{
    uint32_t n_args = u->table ? u->t.n_args : u->u.n_args;
    char sig[256];
    size_t off = (size_t)snprintf(sig, sizeof sig, "%s(", u->name);
    for (uint32_t k = 0; k < n_args && off < sizeof sig; k++) {
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
    memset(f, 0, sizeof *f);
    f->name = u->name;
    f->sig = sigc;
    *out = f;
    return 0;
}

/* Casts args[k] in place to types[k] (implicit casts only; nullability kept). */
static int coerce_args(weir_expr_arena *a, const xfunc *f, const weir_type *types, weir_expr **args, uint32_t n,
                       weir_error *err)
{
    for (uint32_t k = 0; k < n; k++) {
        if (!weir__implicit_ok(args[k], types[k]))
            return weir__bad_args(f, args, n, err);
        weir_type t = types[k];
        t.nullable = args[k]->type.nullable || args[k]->type.id == WEIR_TYPE_NULL;
        int rc = weir__coerce(a, &args[k], t, err);
        if (rc)
            return rc;
    }
    return 0;
}

int weir_expr_udtf_bind(weir_expr_arena *a, const char *name, weir_expr **args, uint32_t n_args, weir_udtf *out,
                        weir_error *err)
{
    pthread_mutex_lock(&g_lock);
    udf_entry *u = find(name);
    pthread_mutex_unlock(&g_lock);
    if (!u || !u->table)
        return WEIR_ENOTFOUND;
    for (uint32_t k = 0; k < n_args; k++)
        if (!args[k])
            return weir_error_set(err, WEIR_EINVAL, "argument %u of %s is NULL", k + 1, name);
    xfunc *f;
    int rc = call_sig(a, u, &f, err);
    if (rc)
        return rc;
    if (n_args != u->t.n_args)
        return weir__bad_args(f, args, n_args, err);
    if ((rc = coerce_args(a, f, u->arg_types, args, n_args, err)))
        return rc;
    *out = u->t;
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
    if (u->table)
        return weir_error_set(err, WEIR_EINVAL,
                              "%s is a table function, not a scalar one: call it in FROM, as "
                              "t, LATERAL TABLE(%s(...)) AS x(...)",
                              u->name, u->name);
    xfunc *f;
    int rc = call_sig(a, u, &f, err);
    if (rc)
        return rc;
    if (n != u->u.n_args)
        return weir__bad_args(f, args, n, err);
    if ((rc = coerce_args(a, f, u->arg_types, args, n, err)))
        return rc;
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
