/*
 * planner/function.c - CREATE FUNCTION and DROP FUNCTION.
 *
 * weir runs scalar and table functions written in C. `CREATE [TEMPORARY
 * [SYSTEM]] FUNCTION [IF NOT EXISTS] f AS 'symbol' LANGUAGE C USING JAR
 * 'lib.so'` loads the shared library (dlopen; never unloaded, since
 * expressions bound to its code live as long as the process) and calls its
 * symbol, a weir_udf_init_fn (weir/expr.h), which describes the function (a
 * table function through weir_udf_init_table); weir registers it under the
 * name f through the registry of the C API (expr/udf.c). Without LANGUAGE C and a library, the identifier must name
 * a function registered already (through the C API, or by an earlier
 * CREATE FUNCTION): f becomes another name for it. A Java, Scala or Python
 * class is refused, naming it and its language.
 *
 * The registry is process-wide, so every function is a system function
 * whatever TEMPORARY says. A CREATE FUNCTION run again in the same process
 * with the same library and symbol (a script planned twice) finds its own
 * function and is a no-op; any other existing name is an error unless IF
 * NOT EXISTS. DROP FUNCTION removes the name for the statements after it;
 * a job planned from the statements before it keeps calling the function.
 *
 * SHOW FUNCTIONS lists the built-in functions (scalar, aggregate, window
 * and ranking functions, by the names a query calls them) and the user
 * ones; SHOW USER FUNCTIONS the user ones. Functions belong to no
 * database, so FROM db only checks that the database exists.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include "planner/query_internal.h"
#include "sql/ast.h"

/* What each CREATE FUNCTION of the process registered: name, library, symbol. */
typedef struct created_fn {
    char *name, *lib, *symbol;
    struct created_fn *next;
} created_fn;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static created_fn *g_created;

static const created_fn *created_find(const char *name)
{
    for (const created_fn *c = g_created; c; c = c->next)
        if (!strcasecmp(c->name, name))
            return c;
    return NULL;
}

static void created_add(const char *name, const char *lib, const char *symbol)
{
    created_fn *c = weir_calloc(1, sizeof *c);
    if (!c)
        return; /* only the no-op of a repeated CREATE is lost */
    c->name = weir_strdup(name);
    c->lib = weir_strdup(lib ? lib : "");
    c->symbol = weir_strdup(symbol);
    if (!c->name || !c->lib || !c->symbol) {
        weir_free(c->name);
        weir_free(c->lib);
        weir_free(c->symbol);
        weir_free(c);
        return;
    }
    c->next = g_created;
    g_created = c;
}

static void created_remove(const char *name)
{
    for (created_fn **pp = &g_created; *pp; pp = &(*pp)->next) {
        if (!strcasecmp((*pp)->name, name)) {
            created_fn *c = *pp;
            *pp = c->next;
            weir_free(c->name);
            weir_free(c->lib);
            weir_free(c->symbol);
            weir_free(c);
            return;
        }
    }
}

/* The function of a C library's symbol, described by the library. */
static int load_c_function(plan_ctx *pc, const weir_sql_create_function *cf, weir_sql_loc loc, const char *name,
                           weir_udf *u)
{
    const char *lib = cf->jars[0];
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return plan_error(pc, loc, WEIR_ENOTFOUND, "function '%s': cannot load the library '%s': %s", name, lib,
                          dlerror());
    dlerror();
    void *sym = dlsym(h, cf->class_name);
    if (!sym) {
        dlclose(h);
        return plan_error(pc, loc, WEIR_ENOTFOUND, "function '%s': the library '%s' has no symbol '%s'", name, lib,
                          cf->class_name);
    }
    weir_udf_init_fn init;
    memcpy(&init, &sym, sizeof init); /* a data pointer to a function pointer, as dlsym's users must */
    memset(u, 0, sizeof *u);
    weir_error err = {0};
    int rc = init(WEIR_UDF_ABI_VERSION, u, &err);
    if (rc) {
        dlclose(h);
        return plan_error(pc, loc, rc < 0 ? rc : WEIR_EINVAL, "function '%s': '%s' in '%s' failed: %s", name,
                          cf->class_name, lib, err.message[0] ? err.message : weir_strerror(rc));
    }
    return 0;
}

int plan_create_function(plan_ctx *pc, const weir_sql_create_function *cf, weir_sql_loc loc)
{
    const char *name = cf->name.parts[cf->name.n_parts - 1].name;
    const char *lang = cf->language ? cf->language->name : "JAVA"; /* Flink's default */
    bool c_lang = !strcasecmp(lang, "C");
    if (!c_lang && (cf->n_jars || !weir_expr_function_exists(cf->class_name) || strcasecmp(lang, "JAVA")))
        return plan_error(pc, cf->language ? cf->language->loc : loc, WEIR_EUNSUPPORTED,
                          "function '%s': '%s' is a %s class, which weir cannot run; weir runs functions written in "
                          "C: CREATE FUNCTION %s AS 'symbol' LANGUAGE C USING JAR '/path/lib.so' (docs/functions.md)",
                          name, cf->class_name, lang, name);
    if (c_lang && cf->n_jars != 1)
        return plan_error(pc, loc, WEIR_EINVAL,
                          "function '%s': LANGUAGE C takes one shared library: USING JAR '/path/lib.so'", name);
    const char *lib = c_lang ? cf->jars[0] : NULL;
    pthread_mutex_lock(&g_lock);
    const created_fn *same = created_find(name);
    bool again = same && !strcmp(same->lib, lib ? lib : "") && !strcmp(same->symbol, cf->class_name);
    pthread_mutex_unlock(&g_lock);
    if (again || (!strcasecmp(name, cf->class_name) && !c_lang))
        return 0; /* this very function (a script planned again), or an alias of itself */
    if (weir_expr_function_exists(name)) {
        if (cf->if_not_exists)
            return 0;
        return plan_error(pc, cf->name.loc, WEIR_EEXIST, "function '%s' already exists", name);
    }
    weir_udf u = {0};
    weir_udtf t = {0};
    bool table = false;
    int rc;
    if (c_lang) {
        if ((rc = load_c_function(pc, cf, loc, name, &u)))
            return rc;
        const weir_udtf *def = weir_udf_table(&u);
        if (def) {
            t = *def;
            table = true;
        }
    } else if (!weir_expr_udtf_lookup(cf->class_name, &t)) {
        table = true;
    } else if (weir_expr_udf_lookup(cf->class_name, &u)) {
        return plan_error(pc, loc, WEIR_EUNSUPPORTED,
                          "function '%s': '%s' is a built-in function; only a user function can be given another "
                          "name",
                          name, cf->class_name);
    }
    u.name = t.name = name;
    weir_error err = {0};
    if ((rc = table ? weir_expr_register_udtf(&t, &err) : weir_expr_register_udf(&u, &err)))
        return plan_error(pc, cf->name.loc, rc, "function '%s': %s", name, err.message);
    pthread_mutex_lock(&g_lock);
    created_remove(name);
    created_add(name, lib, cf->class_name);
    pthread_mutex_unlock(&g_lock);
    return 0;
}

int plan_drop_function(plan_ctx *pc, const weir_sql_drop *d, weir_sql_loc loc)
{
    const char *name = d->name.parts[d->name.n_parts - 1].name;
    weir_udf u = {0};
    weir_udtf t = {0};
    if (weir_expr_udf_lookup(name, &u) && weir_expr_udtf_lookup(name, &t)) {
        if (weir_expr_function_exists(name))
            return plan_error(pc, d->name.loc, WEIR_EUNSUPPORTED, "function '%s' is built in and cannot be dropped",
                              name);
        if (d->if_exists)
            return 0;
        return plan_error(pc, d->name.loc, WEIR_ENOTFOUND, "unknown function '%s'", name);
    }
    weir_expr_unregister_udf(name);
    pthread_mutex_lock(&g_lock);
    created_remove(name);
    pthread_mutex_unlock(&g_lock);
    (void)loc;
    return 0;
}

/* Functions the planner itself makes of a call (the expression and aggregate tables hold the rest). */
static const char *const planner_functions[] = {
    "CAST",      "TRY_CAST",  "ROW_NUMBER", "RANK",          "DENSE_RANK",     "LAG",          "GROUPING",
    "GROUPING_ID", "TUMBLE",  "HOP",        "SESSION",       "CUMULATE",       "JSON_OBJECTAGG", "JSON_ARRAYAGG",
    "TUMBLE_START", "TUMBLE_END", "TUMBLE_ROWTIME", "TUMBLE_PROCTIME", "HOP_START", "HOP_END", "HOP_ROWTIME",
    "HOP_PROCTIME", "SESSION_START", "SESSION_END", "SESSION_ROWTIME", "SESSION_PROCTIME", "CUMULATE_START",
    "CUMULATE_END", "CUMULATE_ROWTIME", NULL};

int plan_show_functions(plan_ctx *pc, const weir_sql_stmt *st)
{
    cat_path in = {0};
    int rc = plan_show_from(pc, &st->u.show.from, st->loc, &in);
    if (rc)
        return rc;
    size_t n_udf = weir_expr_udf_names(NULL, 0), n_fn = st->u.show.user ? 0 : weir_expr_builtin_names(NULL, 0);
    size_t n_agg = 0, n_pl = 0;
    const char *const *aggs = plan_agg_names();
    while (!st->u.show.user && aggs[n_agg])
        n_agg++;
    while (!st->u.show.user && planner_functions[n_pl])
        n_pl++;
    size_t cap = n_udf + n_fn + n_agg + n_pl + 1;
    const char **names = plan_alloc(pc, cap * sizeof *names);
    if (!names)
        return WEIR_ENOMEM;
    size_t n = weir_expr_udf_names(names, n_udf);
    if (n > n_udf)
        n = n_udf; /* registered since it was counted */
    if (!st->u.show.user) {
        size_t k = weir_expr_builtin_names(names + n, n_fn);
        n += k < n_fn ? k : n_fn;
        for (size_t i = 0; i < n_agg; i++)
            names[n++] = aggs[i];
        for (size_t i = 0; i < n_pl; i++)
            names[n++] = planner_functions[i];
    }
    return plan_print_names(pc, "function name", names, n, st->u.show.like, st->u.show.not_like, st->u.show.ilike);
}
