/*
 * runtime/stateid.c - what a checkpoint's state means: the stable ids and
 * fingerprints of a job's stateful nodes (weir_job_set_uid,
 * weir_job_describe_state, weir__job_state_ops), which the checkpoint
 * coordinator records in _metadata and recovery compares with the job it
 * restores into.
 *
 * A node is stateful when it is a source (split positions), has a keyed
 * or global input (keyed state, timers), has operator-state hooks
 * (snapshot/restore: a two-phase-commit sink), or was given an id; never when
 * its class keeps no state (keeps_no_state: a union). Its default
 * id is its name with its index among the stateful nodes of that name, in node
 * order ("tumbling window[0]"): stateless operators added or removed around it
 * do not change it.
 */
#include <stdio.h>
#include <string.h>

#include "agg/merge.h"
#include "runtime/checkpoint.h"
#include "runtime/runtime.h"
#include "weir/agg.h"

static weir__node *stream_node(weir_job *job, weir_stream s)
{
    return job ? weir__job_node(job, s.node) : NULL;
}

int weir_job_set_uid(weir_job *job, weir_stream s, const char *uid)
{
    weir__node *n = stream_node(job, s);
    if (!n || !uid || !*uid)
        return WEIR_EINVAL;
    for (uint32_t i = 0; i < job->n_nodes; i++)
        if (&job->nodes[i] != n && job->nodes[i].uid &&
            strcmp(job->nodes[i].uid, uid) == 0)
            return weir__job_build_error(job, WEIR_EEXIST,
                                         "operator id '%s' is used twice", uid);
    char *u = weir_strdup(uid);
    if (!u)
        return WEIR_ENOMEM;
    weir_free(n->uid);
    n->uid = u;
    return 0;
}

int weir_job_describe_state(weir_job *job, weir_stream s, const char *field,
                            const char *value)
{
    weir__node *n = stream_node(job, s);
    if (!n || !field || !*field || strchr(field, '\n') || strstr(field, ": "))
        return WEIR_EINVAL;
    /* One line per field: a value never spans lines. */
    int rc = weir_buf_printf(&n->state, "%s: ", field);
    for (const char *p = value ? value : ""; !rc && *p; p++)
        rc = weir_buf_put_u8(&n->state, *p == '\n' ? ' ' : (uint8_t)*p);
    return rc ? rc : weir_buf_put_u8(&n->state, '\n');
}

bool weir__node_stateful(const weir_job *job, const weir__node *n)
{
    /* Fingerprint fields alone do not make a node stateful: the planner
     * describes every sink's table, and a print sink has no state. */
    if (n->kind == WEIR__NODE_SOURCE || n->uid)
        return true;
    if (n->op.cls && n->op.cls->keeps_no_state)
        return false;
    if (n->op.cls && (n->op.cls->snapshot || n->op.cls->restore))
        return true;
    for (uint32_t i = 0; i < n->n_in; i++) {
        const weir__edge *e = &job->edges[n->in_edges[i]];
        /* A GLOBAL input (an aggregation without GROUP BY) keeps its
         * state as keyed state too, in one key group's range. */
        if (e->req_part == WEIR_PART_KEYED || e->part == WEIR_PART_KEYED ||
            e->req_part == WEIR_PART_GLOBAL)
            return true;
    }
    return false;
}

/*
 * "columns: k, v" (input < 0) or "columns of input 1: k, v": the names of
 * an input's columns. Two inputs of the same types whose columns are
 * other ones (GROUP BY v, SUM(ts) against GROUP BY ts, SUM(v): the key
 * comes first either way) keep state that means something else. Left out
 * where a column has no name (a C API schema may not give one).
 */
static int column_names(weir_buf *b, const weir_schema *s, int input)
{
    for (uint32_t k = 0; k < s->n_fields; k++)
        if (!s->fields[k].name || !*s->fields[k].name)
            return 0;
    int rc = input < 0 ? weir_buf_printf(b, WEIR__COLUMNS_FIELD ": ")
                       : weir_buf_printf(b, WEIR__COLUMNS_FIELD " of input %d: ", input);
    for (uint32_t k = 0; k < s->n_fields && !rc; k++) {
        rc = k ? weir_buf_printf(b, ", ") : 0;
        /* One line per field: a quoted name may hold a line break. */
        for (const char *c = s->fields[k].name; *c && !rc; c++)
            rc = weir_buf_put_u8(b, *c == '\n' ? ' ' : (uint8_t)*c);
    }
    return rc ? rc : weir_buf_put_u8(b, '\n');
}

/* "column origins: "v", (+:BIGINT "v" 1)" (or "... of input 1"): what an
 * input's columns are computed from (runtime/origins.c). Left out where
 * the walk gives up (too deep or too long). */
static int column_origins(const weir_job *job, const weir__edge *e, weir_buf *b, int input)
{
    size_t start = b->len;
    int rc = input < 0 ? weir_buf_printf(b, WEIR__ORIGINS_FIELD ": ")
                       : weir_buf_printf(b, WEIR__ORIGINS_FIELD " of input %d: ", input);
    if (!rc)
        rc = weir__edge_column_origins(job, e, b);
    if (rc == WEIR_EUNSUPPORTED) {
        b->len = start;
        return 0;
    }
    return rc ? rc : weir_buf_put_u8(b, '\n');
}

/*
 * "key: (STRING, BIGINT)" and "key columns: 2, 0" (their positions in
 * the input) per keyed input (how keyed state is addressed) and
 * "input: (...)" per input of an operator with an output.
 */
static int key_fields(const weir_job *job, const weir__node *n, weir_buf *b)
{
    int rc = 0;
    for (uint32_t i = 0; i < n->n_in && !rc; i++) {
        const weir__edge *e = &job->edges[n->in_edges[i]];
        if (e->part != WEIR_PART_KEYED && e->req_part != WEIR_PART_KEYED)
            continue;
        const weir_schema *s = weir__edge_schema(job, e);
        if (n->n_in > 1)
            rc = weir_buf_printf(b, "key of input %u: (", i);
        else
            rc = weir_buf_printf(b, "key: (");
        for (uint32_t k = 0; k < e->key.n && !rc; k++) {
            char t[64] = "?";
            if (s && e->key.cols[k] < s->n_fields) {
                weir_type ty = s->fields[e->key.cols[k]].type;
                ty.nullable = true; /* NOT NULL does not change the bytes */
                weir_type_format(ty, t, sizeof t);
            }
            rc = weir_buf_printf(b, "%s%s", k ? ", " : "", t);
        }
        if (!rc)
            rc = weir_buf_printf(b, ")\n");
        /* Which columns: two keys of the same types over the same input
         * (GROUP BY a against GROUP BY b) address different state. */
        if (!rc && n->n_in > 1)
            rc = weir_buf_printf(b, WEIR__KEY_COLUMNS_FIELD " of input %u: ", i);
        else if (!rc)
            rc = weir_buf_printf(b, WEIR__KEY_COLUMNS_FIELD ": ");
        for (uint32_t k = 0; k < e->key.n && !rc; k++)
            rc = weir_buf_printf(b, "%s%u", k ? ", " : "", e->key.cols[k]);
        if (!rc)
            rc = weir_buf_printf(b, "\n");
    }
    /*
     * The rows an operator may keep (a join's sides, OVER and Top-N rows,
     * window contents) are laid out as its input. A sink's state (pending
     * files) does not depend on the columns, so its input is left out.
     */
    for (uint32_t i = 0; i < n->n_in && !rc && n->out_schema; i++) {
        const weir_schema *s = weir__edge_schema(job, &job->edges[n->in_edges[i]]);
        if (!s)
            continue;
        if (n->fp_input && n->n_in == 1) {
            rc = weir_buf_printf(b, "input: %s\n", n->fp_input);
            if (!rc)
                rc = column_origins(job, &job->edges[n->in_edges[i]], b, -1);
            continue;
        }
        if (n->n_in > 1)
            rc = weir_buf_printf(b, "input %u: (", i);
        else
            rc = weir_buf_printf(b, "input: (");
        for (uint32_t k = 0; k < s->n_fields && !rc; k++) {
            char t[64];
            weir_type ty = s->fields[k].type;
            ty.nullable = true;
            rc = weir_buf_printf(b, "%s%s", k ? ", " : "",
                                 weir_type_format(ty, t, sizeof t));
        }
        if (!rc)
            rc = weir_buf_printf(b, ")\n");
        if (!rc)
            rc = column_names(b, s, n->n_in > 1 ? (int)i : -1);
        if (!rc)
            rc = column_origins(job, &job->edges[n->in_edges[i]], b, n->n_in > 1 ? (int)i : -1);
    }
    return rc;
}

void weir__node_uid(const weir_job *job, uint32_t node, char *buf, size_t cap)
{
    const weir__node *nd = &job->nodes[node];
    if (nd->uid) {
        snprintf(buf, cap, "%s", nd->uid);
        return;
    }
    uint32_t k = 0;
    for (uint32_t j = 0; j < node; j++)
        if (!job->nodes[j].uid && strcmp(job->nodes[j].name, nd->name) == 0 &&
            weir__node_stateful(job, &job->nodes[j]))
            k++;
    snprintf(buf, cap, "%s[%u]", nd->name, k);
}

void weir__state_ops_free(weir__state_op *ops, uint32_t n)
{
    for (uint32_t i = 0; ops && i < n; i++) {
        weir_free(ops[i].uid);
        weir_free(ops[i].name);
        weir_free(ops[i].fp);
    }
    weir_free(ops);
}

int weir__job_state_ops(const weir_job *job, weir__state_op **out,
                        uint32_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    weir__state_op *ops =
        weir_calloc(job->n_nodes ? job->n_nodes : 1, sizeof *ops);
    if (!ops)
        return WEIR_ENOMEM;
    uint32_t n = 0;
    int rc = 0;
    for (uint32_t i = 0; i < job->n_nodes && !rc; i++) {
        const weir__node *nd = &job->nodes[i];
        if (!weir__node_stateful(job, nd))
            continue;
        weir__state_op *o = &ops[n++];
        o->node = i;
        o->name = weir_strdup(nd->name);
        char uid[600];
        weir__node_uid(job, i, uid, sizeof uid);
        o->uid = weir_strdup(uid);
        weir_buf b;
        weir_buf_init(&b);
        rc = key_fields(job, nd, &b);
        if (!rc && nd->state.len)
            rc = weir_buf_put(&b, nd->state.data, nd->state.len);
        if (!rc)
            rc = weir_buf_put_u8(&b, 0);
        if (!rc) {
            o->fp = (char *)b.data; /* taken over */
            weir_buf_init(&b);
        }
        weir_buf_fini(&b);
        if (!rc && (!o->name || !o->uid))
            rc = WEIR_ENOMEM;
    }
    if (rc) {
        weir__state_ops_free(ops, n);
        return rc;
    }
    *out = ops;
    *n_out = n;
    return 0;
}

int weir__job_describe_two_phase(weir_job *job, weir_stream s, uint32_t n_keys, uint32_t n_aggs)
{
    weir__node *n = stream_node(job, s);
    if (!n || n->n_in != 1)
        return WEIR_EINVAL;
    const weir_schema *in = weir__edge_schema(job, &job->edges[n->in_edges[0]]);
    if (!in || in->n_fields < n_keys)
        return WEIR_EINVAL;
    weir_buf b;
    weir_buf_init(&b);
    int rc = weir_buf_printf(&b, "(");
    for (uint32_t k = 0; k < n_keys + n_aggs && !rc; k++) {
        char t[64] = "BYTES";
        if (k < n_keys) {
            weir_type ty = in->fields[k].type;
            ty.nullable = true;
            weir_type_format(ty, t, sizeof t);
        }
        rc = weir_buf_printf(&b, "%s%s", k ? ", " : "", t);
    }
    if (!rc)
        rc = weir_buf_printf(&b, ")");
    if (!rc)
        rc = weir_buf_put_u8(&b, 0);
    if (!rc) {
        weir_free(n->fp_input);
        n->fp_input = (char *)b.data; /* taken over */
        weir_buf_init(&b);
    }
    weir_buf_fini(&b);
    return rc ? rc : weir_job_describe_state(job, s, WEIR__PARTIAL_ROWS_FIELD, WEIR__PARTIAL_ROWS);
}

int weir__job_describe_aggs(weir_job *job, weir_stream s,
                            const struct weir_agg *aggs, uint32_t n)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        char t[64] = "*";
        /* The global phase of a two-phase aggregation keeps the state of the function it merges. */
        bool star = false;
        const weir_agg_class *cls = weir__agg_merge_inner(&aggs[i], &star);
        if (!cls)
            cls = aggs[i].cls;
        if (aggs[i].input_col >= 0 && !star) {
            weir_type ty = aggs[i].input_type;
            ty.nullable = true;
            weir_type_format(ty, t, sizeof t);
        }
        rc = weir_buf_printf(
            &b, "%s%s%s(%s)", i ? ", " : "",
            aggs[i].inner && aggs[i].inner->name ? aggs[i].inner->name
            : cls && cls->name                   ? cls->name
                                                 : "?",
            aggs[i].inner ? "_DISTINCT" : "", t);
        if (!rc && aggs[i].param != 0)
            rc = weir_buf_printf(&b, "[%g]", aggs[i].param);
    }
    if (!rc)
        rc = weir_buf_put_u8(&b, 0);
    if (!rc)
        rc = weir_job_describe_state(job, s, "aggregates",
                                     n ? (const char *)b.data : "none");
    /* Which column each folds: SUM(a), MAX(b) against SUM(b), MAX(a). */
    weir_buf_clear(&b);
    for (uint32_t i = 0; i < n && !rc; i++)
        rc = aggs[i].input_col >= 0 ? weir_buf_printf(&b, "%s%d", i ? ", " : "", aggs[i].input_col)
                                    : weir_buf_printf(&b, "%s*", i ? ", " : "");
    if (!rc && n)
        rc = weir_buf_put_u8(&b, 0);
    if (!rc && n)
        rc = weir_job_describe_state(job, s, WEIR__AGGREGATE_COLUMNS_FIELD, (const char *)b.data);
    weir_buf_fini(&b);
    return rc;
}
