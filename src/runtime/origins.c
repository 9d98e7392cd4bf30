/*
 * runtime/origins.c - where a stateful operator's input columns come from,
 * for its fingerprint ("column origins": runtime/stateid.c).
 *
 * State is laid out by an input's columns, so two queries whose inputs
 * have the same types can still keep state that means something else:
 * GROUP BY v + 1 against GROUP BY v + 2 (both keys are named $key0), or
 * GROUP BY v, SUM(ts) against GROUP BY ts, SUM(v). A column's origin is
 * the expression that computes it, written back through the Calcs above
 * it down to what no Calc computes: a source's column ("v", by its name),
 * a stateful operator's output ("GroupAggregate[0]".2, by its stable id
 * and position: its own fingerprint says what that column means), a
 * union's inputs' columns ("(UNION a b)"), or else the column's name. An
 * alias on the way changes no origin, so a column renamed by a view
 * restores; an expression changed under the same name does not.
 *
 * An origin is the expression's digest (weir_expr_digest: function
 * names with their parameters and result types, constants written
 * exactly) with each input column ($k) replaced by that column's origin;
 * a source's computed columns are written out with the names of the
 * physical columns they read, a two-phase aggregation's partial columns
 * as what they fold ("(SUM#0 $2)": word 0 of the partial SUM of column 2).
 */
#include <stdio.h>
#include <string.h>

#include "agg/merge.h"
#include "runtime/runtime.h"
#include "weir/agg.h"
#include "weir/key.h"

/* An origin longer than this is written as the hash of its text. */
#define ORIGIN_MAX 2048
/* Calcs above Calcs deeper than this end the walk: the field is left out. */
#define ORIGIN_DEPTH 256
/* Nor is a field longer than this written (a column read many times by
 * each of many Calcs multiplies its text). */
#define ORIGINS_MAX (1u << 20)

/* A name as a quoted identifier ("a""b"): no name reads like an expression. */
static int put_name(weir_buf *b, const char *name)
{
    int rc = weir_buf_put_u8(b, '"');
    for (const char *c = name; *c && !rc; c++)
        rc = *c == '"' ? weir_buf_printf(b, "\"\"") : weir_buf_put_u8(b, *c == '\n' ? ' ' : (uint8_t)*c);
    return rc ? rc : weir_buf_put_u8(b, '"');
}

/*
 * Whether tpl[i] begins a column reference: "$k" stands as an argument
 * (after a space) or alone, and ends at a space, a ')' or the end. A
 * function or type name never holds one there.
 */
static bool column_ref(const char *tpl, size_t i, uint32_t *col, size_t *len)
{
    if (tpl[i] != '$' || (i > 0 && tpl[i - 1] != ' ') || tpl[i + 1] < '0' || tpl[i + 1] > '9')
        return false;
    uint64_t k = 0;
    size_t j = i + 1;
    while (tpl[j] >= '0' && tpl[j] <= '9' && k <= UINT32_MAX)
        k = k * 10 + (uint64_t)(tpl[j++] - '0');
    if (k > UINT32_MAX || (tpl[j] && tpl[j] != ' ' && tpl[j] != ')'))
        return false;
    *col = (uint32_t)k;
    *len = j - i;
    return true;
}

static void free_exprs(char **v, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        weir_free(v[k]);
    weir_free(v);
}

/* Writes template tpl to b with each column reference "$k" replaced by what
 * put(ctx, k, b) writes. */
static int substitute(const char *tpl, weir_buf *b, int (*put)(void *ctx, uint32_t col, weir_buf *b), void *ctx)
{
    int rc = 0;
    for (size_t i = 0; tpl[i] && !rc;) {
        uint32_t col;
        size_t len;
        if (column_ref(tpl, i, &col, &len)) {
            rc = put(ctx, col, b);
            i += len;
        } else {
            rc = weir_buf_put_u8(b, (uint8_t)tpl[i++]);
        }
    }
    return rc;
}

/* A physical column's name, for a source's computed column. */
static int put_physical(void *ctx, uint32_t col, weir_buf *b)
{
    const weir_schema *physical = ctx;
    if (col >= physical->n_fields)
        return weir_buf_printf(b, "$%u", col);
    return put_name(b, physical->fields[col].name ? physical->fields[col].name : "");
}

/* Gives node `node` (of n output columns) the expressions v (taken over;
 * an entry may be NULL: that column is known by its name). */
static int set_exprs(weir_job *job, int node, char **v, uint32_t n)
{
    weir__node *nd = weir__job_node(job, node);
    if (!nd || !nd->out_schema || n != nd->out_schema->n_fields || nd->n_in != (nd->kind == WEIR__NODE_OPERATOR)) {
        free_exprs(v, n);
        return WEIR_EINVAL;
    }
    if (nd->col_exprs)
        free_exprs(nd->col_exprs, n);
    nd->col_exprs = v;
    return 0;
}

/*
 * The digest of e whole, allocated (weir_expr_digest writes what fits):
 * an origin longer than ORIGIN_MAX is its hash, not its column's name,
 * which the planner gives alike to other expressions ($arg0, $mrarg0).
 * NULL with *rc 0 for one longer than a field's limit, ORIGINS_MAX (its
 * column is then known by its name).
 */
static char *whole_digest(const weir_expr *e, int *rc)
{
    *rc = 0;
    for (size_t cap = ORIGIN_MAX; cap <= ORIGINS_MAX; cap *= 2) {
        char *buf = weir_malloc(cap);
        if (!buf) {
            *rc = WEIR_ENOMEM;
            return NULL;
        }
        if (weir_expr_digest(e, buf, cap) < cap - 1)
            return buf;
        weir_free(buf);
    }
    return NULL;
}

int weir__job_column_exprs(weir_job *job, int node, weir_expr *const *exprs, uint32_t n)
{
    char **v = weir_calloc(n ? n : 1, sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        int rc;
        if (!(v[i] = whole_digest(exprs[i], &rc)) && rc) {
            free_exprs(v, n);
            return rc;
        }
    }
    return set_exprs(job, node, v, n);
}

int weir__job_source_column_exprs(weir_job *job, int node, weir_expr *const *exprs, uint32_t n,
                                  const weir_schema *physical)
{
    char **v = weir_calloc(n ? n : 1, sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        char *d = whole_digest(exprs[i], &rc);
        if (!d)
            continue;
        weir_buf_clear(&b);
        rc = substitute(d, &b, put_physical, (void *)physical);
        weir_free(d);
        if (!rc)
            rc = (v[i] = weir_strndup((const char *)b.data, b.len)) ? 0 : WEIR_ENOMEM;
    }
    weir_buf_fini(&b);
    if (rc) {
        free_exprs(v, n);
        return rc;
    }
    return set_exprs(job, node, v, n);
}

int weir__job_local_agg_exprs(weir_job *job, int node, uint32_t n_keys, const weir_agg *aggs,
                              const int32_t *filters, uint32_t n_aggs)
{
    uint32_t n = n_keys;
    for (uint32_t i = 0; i < n_aggs; i++) {
        const char *const *words;
        uint32_t w = weir__agg_partial_cols(&aggs[i], &words);
        n += w ? w : 1;
    }
    char **v = weir_calloc(n ? n : 1, sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    uint32_t col = 0;
    for (; col < n_keys && !rc; col++) {
        char key[16];
        snprintf(key, sizeof key, "$%u", col); /* a key passes as it is */
        rc = (v[col] = weir_strdup(key)) ? 0 : WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < n_aggs && !rc; i++) {
        const char *const *words;
        uint32_t w = weir__agg_partial_cols(&aggs[i], &words);
        for (uint32_t k = 0; k < (w ? w : 1) && !rc; k++, col++) {
            /* "(SUM#0 $2)": word k of the partial SUM of column 2 */
            weir_buf_clear(&b);
            rc = weir_buf_printf(&b, "(%s#%u", aggs[i].cls && aggs[i].cls->name ? aggs[i].cls->name : "?", k);
            if (!rc && aggs[i].param != 0)
                rc = weir_buf_printf(&b, "[%g]", aggs[i].param);
            if (!rc)
                rc = aggs[i].input_col >= 0 ? weir_buf_printf(&b, " $%d", aggs[i].input_col) : weir_buf_printf(&b, " *");
            if (!rc && filters && filters[i] >= 0)
                rc = weir_buf_printf(&b, " FILTER $%d", filters[i]);
            if (!rc)
                rc = weir_buf_printf(&b, ")");
            if (!rc)
                rc = (v[col] = weir_strndup((const char *)b.data, b.len)) ? 0 : WEIR_ENOMEM;
        }
    }
    weir_buf_fini(&b);
    if (rc) {
        free_exprs(v, n);
        return rc;
    }
    return set_exprs(job, node, v, n);
}

static int origin(const weir_job *job, const weir__edge *e, uint32_t col, weir_buf *b, uint32_t depth);

struct expand_ctx {
    const weir_job *job;
    const weir__edge *in;
    uint32_t depth;
};

static int put_origin(void *ctx, uint32_t col, weir_buf *b)
{
    const struct expand_ctx *x = ctx;
    return origin(x->job, x->in, col, b, x->depth + 1);
}

/* A Calc's expression with each of its input's columns replaced by its origin. */
static int expand(const weir_job *job, const weir__node *calc, const char *tpl, weir_buf *b, uint32_t depth)
{
    struct expand_ctx x = {job, &job->edges[calc->in_edges[0]], depth};
    return substitute(tpl, b, put_origin, &x);
}

/* "(UNION a b)": column col of a union, from each of its inputs in order. */
static int union_origin(const weir_job *job, const weir__node *u, uint32_t col, weir_buf *b, uint32_t depth)
{
    int rc = weir_buf_printf(b, "(UNION");
    for (uint32_t i = 0; i < u->n_in && !rc; i++) {
        rc = weir_buf_put_u8(b, ' ');
        if (!rc)
            rc = origin(job, &job->edges[u->in_edges[i]], col, b, depth + 1);
    }
    return rc ? rc : weir_buf_put_u8(b, ')');
}

/* The origin of column col of the rows on edge e (see the top). */
static int origin(const weir_job *job, const weir__edge *e, uint32_t col, weir_buf *b, uint32_t depth)
{
    if (depth > ORIGIN_DEPTH || b->len > ORIGINS_MAX)
        return WEIR_EUNSUPPORTED;
    const weir__node *from = &job->nodes[e->from];
    const weir_schema *s = weir__edge_schema(job, e);
    size_t start = b->len;
    int rc;
    if (e->side_tag == 0 && from->col_exprs && col < from->out_schema->n_fields && from->col_exprs[col])
        /* a source's are written out already */
        rc = from->n_in == 1 ? expand(job, from, from->col_exprs[col], b, depth)
                             : weir_buf_printf(b, "%s", from->col_exprs[col]);
    else if (e->side_tag == 0 && from->passes && from->n_in == 1 && col < from->out_schema->n_fields &&
             from->passes[col] >= 0)
        return origin(job, &job->edges[from->in_edges[0]], (uint32_t)from->passes[col], b, depth + 1);
    else if (e->side_tag == 0 && from->op.cls && from->op.cls->keeps_no_state && from->n_in > 1)
        rc = union_origin(job, from, col, b, depth);
    else if (e->side_tag == 0 && from->kind == WEIR__NODE_OPERATOR && weir__node_stateful(job, from)) {
        char uid[600];
        weir__node_uid(job, (uint32_t)e->from, uid, sizeof uid);
        rc = put_name(b, uid);
        if (!rc)
            rc = weir_buf_printf(b, ".%u", col);
    } else if (s && col < s->n_fields && s->fields[col].name && *s->fields[col].name)
        rc = put_name(b, s->fields[col].name);
    else
        rc = weir_buf_printf(b, "$%u", col);
    if (!rc && b->len - start > ORIGIN_MAX) {
        uint64_t h = weir_key_hash(b->data + start, b->len - start);
        b->len = start;
        rc = weir_buf_printf(b, "#%016llx", (unsigned long long)h);
    }
    return rc;
}

int weir__edge_column_origins(const weir_job *job, const weir__edge *e, weir_buf *out)
{
    const weir_schema *s = weir__edge_schema(job, e);
    size_t start = out->len;
    int rc = 0;
    for (uint32_t k = 0; s && k < s->n_fields && !rc; k++) {
        rc = k ? weir_buf_printf(out, ", ") : 0;
        if (!rc)
            rc = origin(job, e, k, out, 0);
    }
    if (rc)
        out->len = start;
    return rc;
}
