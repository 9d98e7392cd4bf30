/*
 * planner/query.c - planning queries: FROM (tables, views, subqueries,
 * window table functions, joins: see join.c), WHERE, SELECT, GROUP BY (window aggregation and
 * updating group aggregation), HAVING, DISTINCT and UNION ALL.
 *
 * Map:
 *   rel helpers .............. rel_from_schema, plan_calc
 *   FROM ..................... plan_table, plan_window_tvf, plan_from
 *   aggregation .............. collect_aggs, plan_aggregate
 *   SELECT / set operations .. plan_select, plan_query
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "runtime/checkpoint.h"
#include "runtime/runtime.h"
#include "planner/query_internal.h"

/* ------------------------------------------------------------------ rels */

static int rel_quals(plan_ctx *pc, rel *r, const char *qual)
{
    r->quals = plan_alloc(pc, (r->schema->n_fields + 1) * sizeof(char *));
    if (!r->quals)
        return WEIR_ENOMEM;
    char *q = qual ? plan_strdup(pc, qual) : NULL;
    for (uint32_t i = 0; i < r->schema->n_fields; i++)
        r->quals[i] = q;
    r->hidden = NULL;
    r->n_hidden = 0;
    r->scope = NULL;
    r->n_scope = 0;
    return 0;
}

static void explain_line(plan_ctx *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void explain_line(plan_ctx *pc, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    weir_buf_printf(&pc->explain, "  %s\n", buf);
}

/*
 * The digest of a calc: its input stream, filter and projection (the
 * expressions' digests - their readable forms with every hidden parameter,
 * such as an IN list or a FLOOR unit - with the result types and names). A
 * form too long for the buffer, or an expression whose value differs per
 * call (RAND: two copies are two different columns, as in Flink, which does
 * not reuse non-deterministic calcs), gives an empty digest (no reuse).
 */
static int calc_digest(weir_stream in, weir_expr *filter, weir_expr *const *exprs, const char *const *names,
                       uint32_t n, weir_buf *dg)
{
    char buf[4096], tb[64];
    weir_buf_init(dg);
    int rc = weir_buf_printf(dg, "Calc|");
    if (!rc)
        rc = plan_reuse_stream(dg, in);
    bool cut = false;
    if (!rc && filter) {
        cut |= weir_expr_is_volatile(filter);
        cut |= weir_expr_digest(filter, buf, sizeof buf) >= sizeof buf - 1;
        rc = weir_buf_printf(dg, "|where %s", buf);
    }
    for (uint32_t i = 0; !rc && exprs && i < n; i++) {
        cut |= weir_expr_is_volatile(exprs[i]);
        cut |= weir_expr_digest(exprs[i], buf, sizeof buf) >= sizeof buf - 1;
        weir_type t = weir_expr_type(exprs[i]);
        weir_expr_type_name(t, weir_expr_interval(exprs[i]), tb, sizeof tb);
        /* the name with its length: a quoted alias may hold '|' and ' AS ' */
        rc = weir_buf_printf(dg, "|%s:%s%s AS %zu:%s", buf, tb, t.nullable ? "" : " NOT NULL", strlen(names[i]),
                             names[i]);
    }
    if (!rc && !exprs)
        rc = weir_buf_printf(dg, "|*");
    if (cut)
        dg->len = 0;
    return rc;
}

/* Which input column each output column of Calc `node` carries unchanged (all of them for a filter alone). */
static int calc_passes(plan_ctx *pc, int node, weir_expr *const *exprs, uint32_t n)
{
    int32_t *src = plan_alloc(pc, (n ? n : 1) * sizeof *src);
    if (!src)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        src[i] = exprs ? weir_expr_column_index(exprs[i]) : (int32_t)i;
    return weir__job_passes_columns(pc->job, node, src, n);
}

/*
 * plan_calc; ts_to >= 0 (with exprs) makes output column ts_to the event-time
 * attribute, re-stamping the rows with it (the old one becomes the second).
 */
static int calc_ts(plan_ctx *pc, rel *r, weir_expr *filter, weir_expr *const *exprs, const char *const *names,
                   uint32_t n, rel *out, const char *label, int ts_to)
{
    weir_schema *s = NULL;
    rel o = *r;
    int alt_in = plan_alt_time_of(pc, r), alt_out = exprs ? -1 : alt_in;
    int32_t ts_col = -1;
    if (exprs) {
        s = plan_new_schema(pc);
        if (!s)
            return WEIR_ENOMEM;
        o.rowtime = -1;
        o.has_proctime = false;
        for (uint32_t i = 0; i < n; i++) {
            weir_type t = weir_expr_type(exprs[i]);
            if (t.id == WEIR_TYPE_NULL)
                t = weir_type_make(WEIR_TYPE_STRING, true);
            if (weir_schema_add(s, names[i], t) < 0)
                return WEIR_ENOMEM;
            int32_t c = weir_expr_column_index(exprs[i]);
            if (c >= 0 && c == r->rowtime && o.rowtime < 0) {
                o.rowtime = (int)i;
                s->rowtime = (int32_t)i;
            }
            if (c >= 0 && r->has_proctime && (uint32_t)c == r->proctime && !o.has_proctime) {
                o.has_proctime = true;
                o.proctime = i;
            }
            if (c >= 0 && c == alt_in && alt_out < 0)
                alt_out = (int)i;
        }
        if (ts_to >= 0 || (o.rowtime < 0 && alt_out >= 0)) {
            /* the second attribute takes over: asked for, or the first one is projected away */
            int was = o.rowtime;
            ts_col = ts_to >= 0 ? ts_to : alt_out;
            o.rowtime = ts_col;
            s->rowtime = ts_col;
            alt_out = ts_to >= 0 ? was : -1;
        }
        o.schema = s;
        o.n_physical = n;
        o.win.present = false;
        /* Window properties survive a projection that keeps both bounds (under any name). */
        o.wprops.present = false;
        if (r->wprops.present) {
            int32_t ws = -1, we = -1, wt = -1;
            for (uint32_t i = 0; i < n; i++) {
                int32_t c = weir_expr_column_index(exprs[i]);
                if (c < 0)
                    continue;
                if (c == (int32_t)r->wprops.ws && ws < 0)
                    ws = (int32_t)i;
                if (c == (int32_t)r->wprops.we && we < 0)
                    we = (int32_t)i;
                if (c == r->wprops.wt && wt < 0)
                    wt = (int32_t)i;
            }
            if (ws >= 0 && we >= 0)
                o.wprops = (rel_wprops){true, r->wprops.assigner, (uint32_t)ws, (uint32_t)we, wt,
                                        r->wprops.local_tz};
        }
        if (rel_quals(pc, &o, NULL))
            return WEIR_ENOMEM;
    }
    /* The same calc over the same stream: one operator (reuse.c). */
    weir_buf dg;
    int rc = calc_digest(r->s, filter, exprs, names, n, &dg);
    if (!rc && ts_col >= 0)
        rc = weir_buf_printf(&dg, "|ts=%d", (int)ts_col);
    /* A column above the watermark stays so under any name (a filter keeps every column). */
    o.above_wm = false;
    if (r->above_wm && r->above_node == r->s.node) {
        for (uint32_t i = 0; exprs && i < n && !o.above_wm; i++)
            if (weir_expr_column_index(exprs[i]) == (int32_t)r->above_col) {
                o.above_wm = true;
                o.above_col = i;
            }
        o.above_wm |= !exprs;
    }
    const rel *same = rc ? NULL : plan_reuse_find(pc, PLAN_REUSE_OPERATOR, &dg);
    if (same) {
        weir_buf_fini(&dg);
        o.s = same->s;
        o.above_node = o.s.node;
        plan_ukey_calc(r, exprs, n, &o);
        explain_line(pc, "Reused[%d]: %s", o.s.node, label);
        *out = o;
        return 0;
    }
    /*
     * A filter alone emits the rows it reads: the stream's schema, which
     * under a pending window table function lacks the virtual window
     * columns of the rel's schema, and keeps its operator's names where
     * the rel's are column aliases (FROM (...) AS s(a, b): set_alias).
     */
    const weir_schema *os = exprs ? s : r->win.present ? r->win.stream_schema : r->schema;
    if (!exprs && !r->win.present && r->s.side_tag == 0) {
        const weir__node *up = weir__job_node(pc->job, r->s.node);
        if (up && up->out_schema && up->out_schema != os && up->out_schema->n_fields == os->n_fields)
            os = up->out_schema;
    }
    weir_operator_spec spec;
    if (!rc)
        rc = weir__calc_spec(pc->arena, filter, exprs, n, ts_col, os, pc->cenv.clock, &spec);
    if (!rc && (rc = weir_job_operator(pc->job, &r->s, 1, &spec, os, plan_forward_parallelism(pc, r->s), &o.s))) {
        if (spec.free_arg)
            spec.free_arg(spec.arg);
        weir_buf_fini(&dg);
        return plan_error(pc, r->loc, rc, "cannot add operator %s: %s", label, weir_job_error(pc->job));
    }
    o.above_node = o.s.node;
    if (!rc)
        rc = calc_passes(pc, o.s.node, exprs, exprs ? n : os->n_fields);
    /* what each column is computed from, for restore compatibility */
    if (!rc && exprs)
        rc = weir__job_column_exprs(pc->job, o.s.node, exprs, n);
    if (!rc && alt_out >= 0)
        rc = plan_alt_time_add(pc, o.s.node, (uint32_t)alt_out);
    if (!rc)
        rc = plan_reuse_add(pc, PLAN_REUSE_OPERATOR, &dg, &o);
    weir_buf_fini(&dg);
    if (rc)
        return rc;
    char buf[512];
    weir_buf fb;
    weir_buf_init(&fb);
    if (filter) {
        weir_expr_format(filter, buf, sizeof buf);
        weir_buf_printf(&fb, " where %s", buf);
    }
    if (exprs) {
        weir_buf_printf(&fb, " select ");
        for (uint32_t i = 0; i < n; i++) {
            weir_expr_format(exprs[i], buf, sizeof buf);
            weir_buf_printf(&fb, "%s%s AS %s", i ? ", " : "", buf, names[i]);
        }
    }
    if (ts_col >= 0)
        weir_buf_printf(&fb, " (event time: %s)", s->fields[ts_col].name);
    weir_buf_put_u8(&fb, 0);
    explain_line(pc, "%s[%d]:%s", label, o.s.node, (char *)fb.data);
    weir_buf_fini(&fb);
    plan_ukey_calc(r, exprs, n, &o);
    *out = o;
    return 0;
}

int plan_calc(plan_ctx *pc, rel *r, weir_expr *filter, weir_expr *const *exprs, const char *const *names,
              uint32_t n, rel *out, const char *label)
{
    return calc_ts(pc, r, filter, exprs, names, n, out, label, -1);
}

int plan_alt_time_add(plan_ctx *pc, int node, uint32_t col)
{
    if (plan_alt_time_of(pc, &(rel){.s = {.node = node}}) >= 0)
        return 0;
    if (pc->n_alt_times == pc->cap_alt_times) {
        uint32_t cap = pc->cap_alt_times ? pc->cap_alt_times * 2 : 8;
        plan_alt_time *v = plan_alloc(pc, cap * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        if (pc->n_alt_times)
            memcpy(v, pc->alt_times, pc->n_alt_times * sizeof *v);
        pc->alt_times = v;
        pc->cap_alt_times = cap;
    }
    pc->alt_times[pc->n_alt_times++] = (plan_alt_time){node, col};
    return 0;
}

int plan_alt_time_of(const plan_ctx *pc, const rel *r)
{
    for (uint32_t i = 0; r->s.side_tag == 0 && i < pc->n_alt_times; i++)
        if (pc->alt_times[i].node == r->s.node)
            return (int)pc->alt_times[i].col;
    return -1;
}

int plan_use_time_attr(plan_ctx *pc, rel *r, int idx)
{
    if (idx == r->rowtime)
        return 0;
    if (idx < 0 || plan_alt_time_of(pc, r) != idx || r->win.present)
        return 1;
    uint32_t n = r->n_physical;
    weir_expr **exprs = plan_alloc(pc, (n + 1) * sizeof *exprs);
    const char **names = plan_alloc(pc, (n + 1) * sizeof *names);
    if (!exprs || !names)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < n; c++) {
        weir_error err = {0};
        if (weir_expr_column(pc->arena, c, r->schema->fields[c].type, &exprs[c], &err))
            return WEIR_ENOMEM;
        names[c] = r->schema->fields[c].name;
    }
    rel o;
    int rc = calc_ts(pc, r, NULL, exprs, names, n, &o, "Calc", idx);
    if (!rc) {
        o.quals = r->quals; /* the same columns */
        o.hidden = r->hidden;
        o.n_hidden = r->n_hidden;
        *r = o;
    }
    return rc;
}

/* ----------------------------------------------------------------- FROM */

static int set_alias(plan_ctx *pc, rel *r, const weir_sql_table_ref *ref, const char *dflt)
{
    const char *q = ref && ref->alias ? ref->alias->name : dflt;
    if (rel_quals(pc, r, q))
        return WEIR_ENOMEM;
    if (ref && ref->n_column_aliases) {
        if (ref->n_column_aliases != r->n_physical)
            return plan_error(pc, ref->loc, WEIR_EINVAL, "%u column aliases given for %u columns",
                              ref->n_column_aliases, r->n_physical);
        weir_schema *s = weir_schema_copy(r->schema);
        if (!s)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < ref->n_column_aliases; i++) {
            weir_free(s->fields[i].name);
            s->fields[i].name = weir_strdup(ref->column_aliases[i].name);
        }
        int rc = plan_keep_schema(pc, s);
        if (rc)
            return rc;
        r->schema = s;
    }
    return 0;
}

/*
 * The digest of a source: its table (its DDL: name, options, computed columns), the columns it produces and the
 * partitions it reads (a pruned read lists fewer files than a whole one). A pruning predicate too long for the
 * buffer gives an empty digest (no reuse).
 */
static int source_digest(const cat_table *t, const plan_source_cols *cols, const plan_partitions *parts,
                         weir_buf *dg)
{
    weir_buf_init(dg);
    int rc = weir_buf_printf(dg, "Source|%s|%p|%d|", t->name, (const void *)t->ddl, cols->rowtime);
    for (uint32_t i = 0; !rc && i < cols->full->n_fields; i++)
        rc = weir_buf_printf(dg, "%zu:%s,", strlen(cols->full->fields[i].name), cols->full->fields[i].name);
    /* the options, which an OPTIONS hint may change for one reference */
    for (size_t i = 0; !rc && i < t->n_opts; i++)
        rc = weir_buf_printf(dg, "|%zu:%s=%zu:%s", strlen(t->opts[i].key), t->opts[i].key, strlen(t->opts[i].value),
                             t->opts[i].value);
    if (!rc && parts->filter) {
        char fb[4096];
        if (weir_expr_digest(parts->filter, fb, sizeof fb) >= sizeof fb - 1)
            dg->len = 0;
        else
            rc = weir_buf_printf(dg, "|partitions=%s", fb);
    }
    return rc;
}

/* The watermark options of source table t ('scan.watermark.*'). */
static int source_wm_options(plan_ctx *pc, cat_table *t, weir_watermark_spec *wm)
{
    for (size_t i = 0; i < t->n_opts; i++) {
        if (!strcasecmp(t->opts[i].key, "scan.watermark.idle-timeout")) {
            int64_t ms;
            if (weir_option_parse_duration(t->opts[i].value, &ms))
                return plan_error(pc, plan_option_value_loc(t, i), WEIR_EINVAL, "invalid duration '%s'",
                                  t->opts[i].value);
            wm->idle_timeout_ms = ms;
        } else if (!strcasecmp(t->opts[i].key, "scan.watermark.alignment.group")) {
            if (!t->opts[i].value[0] || strlen(t->opts[i].value) >= sizeof wm->align_group)
                return plan_error(pc, plan_option_value_loc(t, i), WEIR_EINVAL,
                                  "watermark alignment group '%s' must have 1 to %zu characters", t->opts[i].value,
                                  sizeof wm->align_group - 1);
            strcpy(wm->align_group, t->opts[i].value);
        } else if (!strcasecmp(t->opts[i].key, "scan.watermark.alignment.max-drift")) {
            int64_t ms;
            if (weir_option_parse_duration(t->opts[i].value, &ms) || ms <= 0)
                return plan_error(pc, plan_option_value_loc(t, i), WEIR_EINVAL,
                                  "invalid watermark alignment max-drift '%s' (a positive duration)",
                                  t->opts[i].value);
            wm->align_max_drift_ms = ms;
        }
    }
    if (wm->align_group[0] && (wm->align_max_drift_ms <= 0 || wm->kind == WEIR_WATERMARK_NONE))
        return plan_error(pc, t->ddl->name.loc, WEIR_EINVAL,
                          "table '%s': scan.watermark.alignment.group needs scan.watermark.alignment.max-drift and "
                          "a WATERMARK declaration",
                          t->name);
    if (!wm->align_group[0] && wm->align_max_drift_ms > 0)
        return plan_error(pc, t->ddl->name.loc, WEIR_EINVAL,
                          "table '%s': scan.watermark.alignment.max-drift needs scan.watermark.alignment.group",
                          t->name);
    return 0;
}

/*
 * The source's row in the table's declared order: physical and metadata
 * columns (the connector's, in their order) and computed ones interleaved
 * as CREATE TABLE wrote them, so that SELECT * lists them as Flink does.
 * The computed source evaluates one expression per column, so putting the
 * expressions in that order costs nothing. cols->full, *exprs and the time
 * attribute indices are replaced by the reordered ones.
 */
static int declared_order(plan_ctx *pc, const cat_table *t, plan_source_cols *cols, weir_expr ***exprs)
{
    const weir_schema *fs = cols->full;
    uint32_t n = fs->n_fields, k = 0;
    uint32_t *from = plan_alloc(pc, n * sizeof *from);
    if (!from)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < t->ddl->n_columns; i++) {
        int at = weir_schema_find(fs, t->ddl->columns[i].name.name);
        if (at >= 0 && k < n)
            from[k++] = (uint32_t)at;
    }
    bool same = k == n;
    for (uint32_t i = 0; same && i < n; i++)
        same = from[i] == i;
    if (k != n || same)
        return 0; /* already in order (or a column not declared: keep the source's order) */
    weir_schema *ds = plan_new_schema(pc);
    weir_expr **de = plan_alloc(pc, n * sizeof *de);
    if (!ds || !de)
        return WEIR_ENOMEM;
    ds->rowtime = -1;
    int rowtime = -1;
    uint32_t proctime = cols->proctime;
    for (uint32_t i = 0; i < n; i++) {
        const weir_field *f = &fs->fields[from[i]];
        if (weir_schema_add(ds, f->name, f->type) < 0)
            return WEIR_ENOMEM;
        de[i] = (*exprs)[from[i]];
        if ((int)from[i] == cols->rowtime)
            rowtime = (int)i;
        if (cols->has_proctime && from[i] == cols->proctime)
            proctime = i;
    }
    ds->rowtime = rowtime;
    cols->full = ds;
    cols->rowtime = rowtime;
    cols->proctime = proctime;
    *exprs = de;
    return 0;
}

/* The index of table t's option key (the last one given), or -1. */
static int option_index(const cat_table *t, const char *key)
{
    int at = -1;
    for (size_t i = 0; i < t->n_opts; i++)
        if (!strcasecmp(t->opts[i].key, key))
            at = (int)i;
    return at;
}

/* Whether table t reads files (the filesystem connector). */
static bool source_is_files(const cat_table *t)
{
    int i = option_index(t, "connector");
    return i >= 0 && !strcasecmp(t->opts[i].value, "filesystem");
}

static int plan_source(plan_ctx *pc, cat_table *t, const weir_sql_table_ref *ref, weir_sql_loc loc, rel *out)
{
    int rc = plan_ensure_job(pc);
    if (rc)
        return rc;
    plan_source_cols cols;
    if ((rc = plan_projection_apply(pc, t, ref, &cols)))
        return rc;
    /* PARTITIONED BY: the keys, and the WHERE's pruning when this SELECT reads the table alone (partition.c). */
    plan_partitions parts = {0};
    if (t->ddl->n_partitioned_by &&
        (rc = plan_partition_source(pc, t, &cols, ref, ref && ref == pc->prune_from ? pc->prune_where : NULL,
                                    &parts)))
        return rc;
    /* A table read twice with the same columns (and partitions): one source (reuse.c). */
    weir_buf dg;
    rc = source_digest(t, &cols, &parts, &dg);
    const rel *same = rc ? NULL : plan_reuse_find(pc, PLAN_REUSE_SOURCE, &dg);
    weir_buf_fini(&dg);
    if (same) {
        *out = *same;
        out->loc = loc;
        explain_line(pc, "Reused[%d]: source %s", out->s.node, t->name);
        return 0;
    }
    weir_error err = {0};
    uint32_t np = cols.physical->n_fields;
    weir_expr **exprs = NULL;
    if (cols.full->n_fields > np) {
        exprs = plan_alloc(pc, cols.full->n_fields * sizeof *exprs);
        if (!exprs)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < np; i++)
            if ((rc = weir_expr_column(pc->arena, i, cols.physical->fields[i].type, &exprs[i], &err)))
                return rc;
        rel phys = {.schema = (weir_schema *)cols.physical, .rowtime = -1, .n_physical = np};
        if (rel_quals(pc, &phys, NULL))
            return WEIR_ENOMEM;
        uint32_t k = np;
        for (uint32_t i = 0; i < t->ddl->n_columns; i++) {
            const weir_sql_column *c = &t->ddl->columns[i];
            if (c->kind == WEIR_SQL_COLUMN_COMPUTED && (rc = plan_bind_expr(pc, &phys, NULL, c->expr, &exprs[k++])))
                return rc;
        }
    }
    /* The physical columns the event time comes from: a record where one is NULL has no event time, a bad
     * record for the source's bad-input policy rather than a failed job. */
    uint32_t *et_cols = NULL, n_et = 0;
    if (cols.rowtime >= 0) {
        et_cols = plan_alloc(pc, (np ? np : 1) * sizeof *et_cols);
        if (!et_cols)
            return WEIR_ENOMEM;
        if ((uint32_t)cols.rowtime < np) {
            et_cols[n_et++] = (uint32_t)cols.rowtime;
        } else if (exprs) {
            n_et = weir_expr_strict_columns(exprs[cols.rowtime], et_cols, np);
        }
    }
    if (exprs && (rc = declared_order(pc, t, &cols, &exprs)))
        return rc;
    weir_source_spec spec = {0};
    int bad = -1, bad_meta = -1;
    pc->cenv.bad_option_index = &bad;
    pc->cenv.bad_metadata_index = &bad_meta;
    pc->cenv.event_time_fields = et_cols;
    pc->cenv.n_event_time_fields = n_et;
    pc->cenv.event_time = cols.rowtime >= 0 ? cols.full->fields[cols.rowtime].name : NULL;
    pc->cenv.metadata_columns = t->meta;
    pc->cenv.n_metadata_columns = t->n_meta;
    /* The PRIMARY KEY: a source whose messages are upserts by key (upsert-kafka) needs it. */
    const weir_sql_primary_key *pkd = t->ddl->primary_key;
    const char **pk = NULL;
    if (pkd && pkd->n_columns) {
        if (!(pk = plan_alloc(pc, pkd->n_columns * sizeof *pk)))
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < pkd->n_columns; i++)
            pk[i] = pkd->columns[i].name;
    }
    pc->cenv.primary_keys = pk;
    pc->cenv.n_primary_keys = pk ? pkd->n_columns : 0;
    pc->cenv.partition_keys = parts.keys;
    pc->cenv.n_partition_keys = parts.n_keys;
    pc->cenv.partition_filter = parts.filter;
    rc = weir_connector_source_spec(NULL, t->opts, t->n_opts, cols.physical, &pc->cenv, &spec, &err);
    pc->cenv.partition_keys = NULL;
    pc->cenv.n_partition_keys = 0;
    pc->cenv.partition_filter = NULL;
    pc->cenv.primary_keys = NULL;
    pc->cenv.n_primary_keys = 0;
    pc->cenv.metadata_columns = NULL;
    pc->cenv.n_metadata_columns = 0;
    pc->cenv.bad_option_index = NULL;
    pc->cenv.bad_metadata_index = NULL;
    pc->cenv.event_time_fields = NULL;
    pc->cenv.n_event_time_fields = 0;
    pc->cenv.event_time = NULL;
    if (rc) {
        /* a METADATA column its connector lacks cannot exist at all: that
         * fails a CREATE VIEW that reads the table too (as in Flink), where
         * bad options wait for the view's use */
        pc->source_failed = rc != WEIR_ENOMEM && pc->recording && bad_meta < 0;
        weir_sql_loc at = plan_option_loc(t, bad);
        /* an error about a METADATA column points at the column */
        for (uint32_t i = 0; bad_meta >= 0 && (uint32_t)bad_meta < t->n_meta && i < t->ddl->n_columns; i++)
            if (!strcasecmp(t->ddl->columns[i].name.name, t->meta[bad_meta].key))
                at = t->ddl->columns[i].name.loc;
        return plan_error(pc, at, rc, "table '%s': %s", t->name, err.message);
    }
    const bool changelog = spec.changelog;
    if (exprs) {
        weir_source_spec wrapped;
        if ((rc = weir__computed_source_spec(&spec, cols.full, exprs, &wrapped))) {
            weir_source_spec_release(&spec);
            return rc;
        }
        spec = wrapped;
    } else {
        spec.schema = cols.full;
    }
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_NONE};
    if (cols.rowtime >= 0) {
        wm.kind = WEIR_WATERMARK_BOUNDED;
        wm.delay_ms = t->watermark_delay_ms;
    }
    if ((rc = source_wm_options(pc, t, &wm))) {
        if (spec.free_arg)
            spec.free_arg(spec.arg);
        return rc;
    }
    uint32_t par;
    if ((rc = plan_table_parallelism(pc, t, "scan.parallelism", &par))) {
        if (spec.free_arg)
            spec.free_arg(spec.arg);
        return rc;
    }
    /* A changelog in files is one history in the files' order (and in each
     * file's), and split i goes to subtask i % p: read at p > 1, a row's -D
     * could overtake its +I from another split. One subtask reads it all. */
    if (changelog && source_is_files(t)) {
        if (par > 1) {
            if (spec.free_arg)
                spec.free_arg(spec.arg);
            return plan_error(pc, plan_option_value_loc(t, (size_t)option_index(t, "scan.parallelism")), WEIR_EPLAN,
                              "table '%s': 'scan.parallelism' = %u: a changelog read from files is one history, "
                              "read in order by one subtask (its changes of one row must not overtake each "
                              "other); drop the option",
                              t->name, par);
        }
        par = 1;
    }
    memset(out, 0, sizeof *out); /* every field not set below is a rel's default (one scope, no keys) */
    rc = weir_job_source(pc->job, &spec, &wm, par, &out->s);
    if (rc) {
        if (spec.free_arg)
            spec.free_arg(spec.arg);
        return plan_error(pc, loc, rc, "cannot add source '%s': %s", t->name, weir_job_error(pc->job));
    }
    if ((rc = plan_describe_table(pc, out->s, t)))
        return rc;
    /* what each computed column is computed from, for restore compatibility */
    if (exprs && (rc = weir__job_source_column_exprs(pc->job, out->s.node, exprs, cols.full->n_fields, cols.physical)))
        return rc;
    out->schema = (weir_schema *)cols.full;
    out->rowtime = cols.rowtime;
    out->has_proctime = cols.has_proctime;
    out->proctime = cols.proctime;
    /* A changelog source (rows with kinds) makes the scan updating: what
     * refuses an updating input refuses it, group aggregates retract. */
    out->updating = changelog;
    out->n_physical = cols.full->n_fields;
    out->n_ukeys = 0;
    if (changelog && pkd && pkd->n_columns && pkd->n_columns <= WEIR_KEY_MAX_COLS) {
        /* a changelog with a PRIMARY KEY: each key's changes come in order (files: read in order by one subtask) */
        uint32_t kcols[WEIR_KEY_MAX_COLS];
        bool all = true;
        for (uint32_t i = 0; i < pkd->n_columns && all; i++) {
            int c = weir_schema_find(cols.full, pkd->columns[i].name);
            all = c >= 0;
            kcols[i] = (uint32_t)c;
        }
        if (all)
            plan_ukey_set(out, kcols, pkd->n_columns);
    }
    out->win.present = false;
    out->wprops.present = false;
    out->above_wm = false;
    out->loc = loc;
    char colbuf[768] = "";
    size_t k = 0;
    if (cols.pruned) {
        k = (size_t)snprintf(colbuf, sizeof colbuf, " columns=");
        for (uint32_t i = 0; i < cols.physical->n_fields && k < sizeof colbuf; i++)
            k += (size_t)snprintf(colbuf + k, sizeof colbuf - k, "%s%s", i ? "," : "", cols.physical->fields[i].name);
    }
    for (uint32_t i = 0; i < parts.n_keys && k < sizeof colbuf; i++)
        k += (size_t)snprintf(colbuf + k, sizeof colbuf - k, "%s%s", i ? "," : " partitions=", parts.keys[i]);
    if (parts.filter_sql && k < sizeof colbuf)
        snprintf(colbuf + k, sizeof colbuf - k, " partition-filter=[%s]", parts.filter_sql);
    if (cols.rowtime >= 0)
        explain_line(pc, "Source[%d]: %s (watermark %s - %lld ms)%s", out->s.node, t->name,
                     cols.full->fields[cols.rowtime].name, (long long)t->watermark_delay_ms, colbuf);
    else
        explain_line(pc, "Source[%d]: %s%s", out->s.node, t->name, colbuf);
    out->quals = NULL; /* set by the caller, per use */
    if (!(rc = source_digest(t, &cols, &parts, &dg)))
        rc = plan_reuse_add(pc, PLAN_REUSE_SOURCE, &dg, out);
    weir_buf_fini(&dg);
    return rc;
}

int plan_note_from(plan_ctx *pc, const weir_sql_name *name, const char *qual, const weir_sql_ident *alias,
                   const cat_path *path, const weir_schema *cols)
{
    if (pc->recording && pc->view_depth == pc->rec_depth) {
        if (pc->n_rec == pc->cap_rec) {
            uint32_t cap = pc->cap_rec ? 2 * pc->cap_rec : 8;
            const weir_sql_name **nn = plan_alloc(pc, cap * sizeof *nn);
            cat_path *np = plan_alloc(pc, cap * sizeof *np);
            const weir_schema **nc = plan_alloc(pc, cap * sizeof *nc);
            if (!nn || !np || !nc)
                return WEIR_ENOMEM;
            if (pc->n_rec) {
                memcpy(nn, pc->rec_names, pc->n_rec * sizeof *nn);
                memcpy(np, pc->rec_paths, pc->n_rec * sizeof *np);
                memcpy(nc, pc->rec_cols, pc->n_rec * sizeof *nc);
            }
            pc->rec_names = nn;
            pc->rec_paths = np;
            pc->rec_cols = nc;
            pc->cap_rec = cap;
        }
        /* a copy: ALTER TABLE replaces the table's schema */
        weir_schema *c = cols ? weir_schema_copy(cols) : NULL;
        if (cols && (!c || plan_keep_schema(pc, c)))
            return WEIR_ENOMEM;
        pc->rec_names[pc->n_rec] = name;
        pc->rec_cols[pc->n_rec] = c;
        pc->rec_paths[pc->n_rec++] = *path;
    }
    if (!qual || (alias && strcasecmp(alias->name, name->parts[name->n_parts - 1].name) != 0))
        return 0;
    plan_qual_path *p = plan_alloc(pc, sizeof *p);
    if (!p)
        return WEIR_ENOMEM;
    *p = (plan_qual_path){qual, *path, pc->qual_paths};
    pc->qual_paths = p;
    return 0;
}

/*
 * Inside a view's query (pc->expanding), FROM item name reads the columns
 * the object it names had where the view was created, in that order, as
 * Flink's view keeps its query expanded: a column added since (ALTER
 * TABLE ADD, an inner view re-created wider) is not seen, not even by
 * `*`. One gone since is left out: the query fails where it names it, and
 * a `*` that meant it leaves the view short of a column, which
 * view_types_as_created reports naming it (pc->view_gone). now: the
 * object's columns today.
 */
static int view_columns_as_created(plan_ctx *pc, const weir_sql_name *name, const weir_schema *now, rel *out)
{
    const cat_view *v = pc->expanding;
    const weir_schema *was = NULL;
    for (uint32_t i = 0; v && v->res_cols && i < v->n_res && !was; i++)
        if (v->res_names[i] == name)
            was = v->res_cols[i];
    if (!was || out->win.present)
        return 0;
    const char *obj = name->parts[name->n_parts - 1].name;
    for (uint32_t k = 0; k < was->n_fields && !pc->view_gone.column; k++) {
        bool found = false;
        for (uint32_t i = 0; now && i < now->n_fields && !found; i++)
            found = !strcmp(now->fields[i].name, was->fields[k].name);
        if (!found)
            pc->view_gone = (plan_view_gone){v->name, was->fields[k].name, obj};
    }
    uint32_t n = out->n_physical, keep = 0;
    uint32_t *cols = plan_alloc(pc, (was->n_fields + 1) * sizeof *cols);
    if (!cols)
        return WEIR_ENOMEM;
    bool same = true;
    for (uint32_t k = 0; k < was->n_fields; k++)
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(out->schema->fields[i].name, was->fields[k].name)) {
                same &= i == keep;
                cols[keep++] = i;
                break;
            }
    if (same && keep == n)
        return 0;
    if (!keep) /* every column it read is gone */
        return plan_error(pc, name->loc, WEIR_EPLAN,
                          "view '%s' reads column '%s' of '%s', which '%s' no longer has (a view keeps the columns "
                          "its query read where it was created)",
                          pc->view_gone.view, pc->view_gone.column, pc->view_gone.object, pc->view_gone.object);
    return plan_keep_columns(pc, out, cols, keep);
}

/* A view's columns where it is used are those it had where it was created: a type changed since
 * (an inner view re-created) is an error naming the view and the column. */
static int view_types_as_created(plan_ctx *pc, const cat_view *v, const rel *r, weir_sql_loc at)
{
    const weir_schema *was = v->schema;
    if (!was)
        return 0;
    if (was->n_fields != r->n_physical && pc->view_gone.column)
        return plan_error(pc, at, WEIR_EPLAN,
                          "view '%s' reads column '%s' of '%s', which '%s' no longer has (a view keeps the "
                          "columns its query read where it was created)",
                          pc->view_gone.view, pc->view_gone.column, pc->view_gone.object, pc->view_gone.object);
    if (was->n_fields != r->n_physical)
        return plan_error(pc, at, WEIR_EPLAN, "view '%s' had %u columns where it was created and has %u now",
                          v->name, was->n_fields, r->n_physical);
    for (uint32_t i = 0; i < was->n_fields; i++) {
        weir_type a = was->fields[i].type, b = r->schema->fields[i].type;
        if (weir_type_same(a, b))
            continue;
        a.nullable = b.nullable = true;
        char ta[128], tb[128];
        weir_type_format(a, ta, sizeof ta);
        weir_type_format(b, tb, sizeof tb);
        return plan_error(pc, at, WEIR_EPLAN,
                              "view '%s': column '%s' was %s where the view was created and is %s now", v->name,
                              was->fields[i].name, ta, tb);
    }
    return 0;
}

static int plan_named(plan_ctx *pc, const weir_sql_name *name, const weir_sql_table_ref *ref, rel *out)
{
    const char *n = name->parts[name->n_parts - 1].name;
    cat_view *v = plan_find_view(pc, name);
    const weir_sql_hint *hints = ref && ref->kind == WEIR_SQL_FROM_TABLE ? ref->u.table.hints : NULL;
    uint32_t n_hints = hints ? ref->u.table.n_hints : 0;
    if (v) {
        int hrc = plan_view_hints(pc, n, hints, n_hints);
        if (hrc)
            return hrc;
        cat_path path = {v->catalog, v->database, v->name}; /* v may move while its query is planned */
        /* a WITH query's body is part of the query that names it: what it reads is recorded too */
        bool with_body = !path.catalog && pc->recording && pc->rec_depth == pc->view_depth;
        pc->rec_depth += with_body;
        if (++pc->view_depth > 32)
            return plan_error(pc, name->loc, WEIR_EPLAN, "views nest too deeply (a view refers to itself?)");
        const cat_view copy = *v; /* v may move */
        const cat_view *outer = pc->expanding;
        plan_view_gone gone = pc->view_gone; /* a view's own, while its query is planned */
        if (path.catalog)
            pc->view_gone = (plan_view_gone){0};
        if (path.catalog)
            pc->expanding = &copy; /* a WITH query's body is part of the query around it */
        plan_home home;
        plan_view_enter(pc, v, &home);
        int rc = plan_query(pc, copy.query, out);
        plan_view_leave(pc, &home);
        pc->expanding = outer;
        pc->view_depth--;
        pc->rec_depth -= with_body;
        if (rc) {
            if (path.catalog)
                pc->view_gone = gone;
            return rc;
        }
        if (copy.n_columns) {
            weir_sql_table_ref fake = {.n_column_aliases = copy.n_columns,
                                       .column_aliases = (weir_sql_ident *)copy.columns,
                                       .loc = name->loc};
            if ((rc = set_alias(pc, out, &fake, n)))
                return rc;
        }
        if (path.catalog && (rc = view_types_as_created(pc, &copy, out, name->loc)))
            return rc;
        if (path.catalog)
            pc->view_gone = gone;
        if (path.catalog && (rc = view_columns_as_created(pc, name, copy.schema ? copy.schema : out->schema, out)))
            return rc;
        const weir_schema *read = out->schema;
        if ((rc = set_alias(pc, out, ref, n)) || !path.catalog) /* a WITH query: db.w.c names nothing */
            return rc;
        return plan_note_from(pc, name, out->quals ? out->quals[0] : NULL, ref ? ref->alias : NULL, &path, read);
    }
    cat_table *t = plan_find_table(pc, name);
    if (!t)
        return plan_missing(pc, name, "table", true);
    cat_path path = {t->catalog, t->database, t->name};
    int rc = plan_hinted_table(pc, t, hints, n_hints, &t);
    if (rc)
        return rc;
    const weir_schema *now = t->full;
    rc = plan_source(pc, t, ref, name->loc, out);
    if (!rc)
        rc = view_columns_as_created(pc, name, now, out);
    /* what the view reads of it: the columns its source produces here, in their order */
    const weir_schema *read = out->schema;
    if (!rc && !(rc = set_alias(pc, out, ref, n)))
        rc = plan_note_from(pc, name, out->quals ? out->quals[0] : NULL, ref ? ref->alias : NULL, &path, read);
    return rc;
}

/* Argument i of a table function call, positional or by name. */
static const weir_sql_expr *tvf_arg(const weir_sql_expr *call, uint32_t i, const char *name)
{
    for (uint32_t k = 0; k < call->u.call.n_args; k++) {
        const weir_sql_expr *a = call->u.call.args[k];
        if (a->kind == WEIR_SQL_EXPR_NAMED_ARG && !strcasecmp(a->u.named_arg.name.name, name))
            return a->u.named_arg.value;
    }
    if (i < call->u.call.n_args && call->u.call.args[i]->kind != WEIR_SQL_EXPR_NAMED_ARG)
        return call->u.call.args[i];
    return NULL;
}

static bool is_window_column_name(const char *name)
{
    return !strcasecmp(name, "window_start") || !strcasecmp(name, "window_end") || !strcasecmp(name, "window_time");
}

/*
 * The virtual columns window_start, window_end and window_time after r's
 * columns. Input columns of those names (a window aggregation's output
 * under a second window table function, as Flink's cascading example
 * writes it) are shadowed: the names mean the new window's columns.
 */
static int add_window_columns(plan_ctx *pc, rel *r)
{
    r->win.stream_schema = r->schema;
    weir_schema *s = weir_schema_create();
    if (!s)
        return WEIR_ENOMEM;
    s->rowtime = r->schema->rowtime;
    for (uint32_t i = 0; i < r->schema->n_fields; i++) {
        const weir_field *f = &r->schema->fields[i];
        char hidden[160];
        const char *nm = f->name;
        if (is_window_column_name(nm)) {
            snprintf(hidden, sizeof hidden, "$input_%s", nm);
            nm = hidden;
        }
        if (weir_schema_add(s, nm, f->type) < 0) {
            weir_schema_destroy(s);
            return WEIR_ENOMEM;
        }
    }
    int rc = plan_keep_schema(pc, s);
    if (rc)
        return rc;
    weir_type ts = weir_type_make(WEIR_TYPE_TIMESTAMP, false);
    r->win.ws_col = (uint32_t)weir_schema_add(s, "window_start", ts);
    r->win.we_col = (uint32_t)weir_schema_add(s, "window_end", ts);
    r->win.wt_col = (uint32_t)weir_schema_add(s, "window_time", ts);
    char **q = plan_alloc(pc, (s->n_fields + 1) * sizeof *q);
    if (!q)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < r->schema->n_fields; i++)
        q[i] = r->quals[i];
    r->quals = q;
    r->schema = s;
    return 0;
}

/*
 * Whether a window aggregation over SESSION(TABLE t PARTITION BY ...) groups by exactly those columns (in any
 * order): sessions are formed per group, which are then the partitions' sessions.
 */
static bool session_part_key(const rel *in, const agg_scope *as, uint32_t j, uint32_t i)
{
    int32_t c = in->win.part_col[j];
    return c >= 0 ? as->key_in_col[i] == c
                  : as->key_in_col[i] < 0 && as->key_text[i] && !strcmp(as->key_text[i], in->win.part_text[j]);
}

static bool session_part_is_keys(const rel *in, const agg_scope *as)
{
    for (uint32_t i = 0; i < as->n_keys; i++) {
        bool found = false;
        for (uint32_t j = 0; j < in->win.n_part && !found; j++)
            found = session_part_key(in, as, j, i);
        if (!found)
            return false;
    }
    for (uint32_t j = 0; j < in->win.n_part; j++) {
        bool found = false;
        for (uint32_t i = 0; i < as->n_keys && !found; i++)
            found = session_part_key(in, as, j, i);
        if (!found)
            return false;
    }
    return true;
}

/* TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size [, offset])) and HOP, CUMULATE, SESSION. */
static int plan_window_tvf(plan_ctx *pc, const weir_sql_table_ref *ref, rel *out)
{
    const weir_sql_expr *call = ref->u.function.call;
    const char *fn = call->u.call.name.parts[call->u.call.name.n_parts - 1].name;
    bool tumble = !strcasecmp(fn, "TUMBLE"), hop = !strcasecmp(fn, "HOP"), cum = !strcasecmp(fn, "CUMULATE"),
         session = !strcasecmp(fn, "SESSION");
    if (!tumble && !hop && !cum && !session)
        return plan_error(pc, call->loc, WEIR_EUNSUPPORTED,
                          "table function %s is not supported (window table functions: TUMBLE, HOP, CUMULATE, SESSION)",
                          fn);
    const weir_sql_expr *data = tvf_arg(call, 0, "DATA"), *timecol = tvf_arg(call, 1, "TIMECOL");
    if (!data || data->kind != WEIR_SQL_EXPR_TABLE_ARG)
        return plan_error(pc, call->loc, WEIR_EINVAL, "%s expects TABLE name as its first argument", fn);
    if (!timecol || timecol->kind != WEIR_SQL_EXPR_DESCRIPTOR || timecol->u.descriptor.n_columns != 1)
        return plan_error(pc, call->loc, WEIR_EINVAL, "%s expects DESCRIPTOR(time_column) as its second argument", fn);
    int rc = plan_named(pc, &data->u.table_arg.table, NULL, out);
    if (rc)
        return rc;
    const weir_sql_ident *tc = &timecol->u.descriptor.columns[0];
    int idx = weir_schema_find(out->schema, tc->name);
    if (idx < 0)
        return plan_error(pc, tc->loc, WEIR_ENOTFOUND, "unknown column '%s' in DESCRIPTOR", tc->name);
    bool proctime = out->has_proctime && (uint32_t)idx == out->proctime;
    if (!proctime && (rc = plan_use_time_attr(pc, out, idx)) < 0)
        return rc;
    if (idx != out->rowtime && !proctime)
        return plan_error(pc, tc->loc, WEIR_EPLAN,
                          "column '%s' is not a time attribute: declare WATERMARK FOR %s in its table, use the "
                          "table's rowtime column, or a processing-time attribute (PROCTIME())",
                          tc->name, tc->name);
    if (out->updating)
        return plan_error(pc, call->loc, WEIR_EUNSUPPORTED, "%s over an updating (changelog) input is not supported", fn);
    weir_window_assigner a;
    int64_t x = 0, y = 0, off = 0;
    if (session) {
        const weir_sql_expr *gap = tvf_arg(call, 2, "GAP");
        if (!gap || (rc = plan_const_interval_ms(pc, gap, &x)))
            return rc ? rc : plan_error(pc, call->loc, WEIR_EINVAL, "SESSION expects a gap INTERVAL");
        /* weir extension: a fourth argument caps the length of a session */
        const weir_sql_expr *maxlen = tvf_arg(call, 3, "MAX_LENGTH");
        if (maxlen && (rc = plan_const_interval_ms(pc, maxlen, &y)))
            return rc;
        a = weir_window_session(x, y);
    } else {
        const weir_sql_expr *e1 = tvf_arg(call, 2, tumble ? "SIZE" : hop ? "SLIDE" : "STEP");
        const weir_sql_expr *e2 = tumble ? NULL : tvf_arg(call, 3, "SIZE");
        const weir_sql_expr *eo = tvf_arg(call, tumble ? 3 : 4, "OFFSET");
        if (!e1 || (!tumble && !e2))
            return plan_error(pc, call->loc, WEIR_EINVAL, "%s expects %s", fn,
                              tumble ? "a size INTERVAL" : hop ? "slide and size INTERVALs" : "step and size INTERVALs");
        if ((rc = plan_const_interval_ms(pc, e1, &x)) || (e2 && (rc = plan_const_interval_ms(pc, e2, &y))) ||
            (eo && (rc = plan_const_interval_ms(pc, eo, &off))))
            return rc;
        a = tumble ? weir_window_tumbling(x, off) : hop ? weir_window_hopping(x, y, off) : weir_window_cumulating(x, y, off);
    }
    weir_error err = {0};
    if (weir_window_assigner_check(&a, &err))
        return plan_error(pc, call->loc, WEIR_EINVAL, "%s", err.message);
    uint32_t n_part = data->u.table_arg.n_partition_by;
    int32_t part[WEIR_KEY_MAX_COLS];
    const char *part_text[WEIR_KEY_MAX_COLS];
    if (n_part && !session)
        return plan_error(pc, data->u.table_arg.partition_by[0]->loc, WEIR_EPLAN,
                          "%s takes no PARTITION BY (only SESSION does)", fn);
    if (n_part > WEIR_KEY_MAX_COLS)
        return plan_error(pc, data->u.table_arg.partition_by[0]->loc, WEIR_EUNSUPPORTED,
                          "SESSION: at most %d PARTITION BY columns", WEIR_KEY_MAX_COLS);
    for (uint32_t i = 0; i < n_part; i++) {
        const weir_sql_expr *k = data->u.table_arg.partition_by[i];
        uint32_t pidx;
        part[i] = -1;
        if (k->kind == WEIR_SQL_EXPR_COLUMN) {
            if ((rc = plan_resolve_column(pc, out, &k->u.column, &pidx)))
                return rc;
            part[i] = (int32_t)pidx;
        }
        weir_buf b; /* an expression is matched with the GROUP BY keys by its text */
        weir_buf_init(&b);
        if (weir__sql_format_expr(k, &b) || weir_buf_put_u8(&b, 0)) {
            weir_buf_fini(&b);
            return WEIR_ENOMEM;
        }
        part_text[i] = plan_strdup(pc, (char *)b.data);
        weir_buf_fini(&b);
        if (!part_text[i])
            return WEIR_ENOMEM;
    }
    out->n_physical = out->schema->n_fields;
    if ((rc = add_window_columns(pc, out)))
        return rc;
    out->win.n_part = n_part;
    memcpy(out->win.part_col, part, n_part * sizeof *part);
    memcpy(out->win.part_text, part_text, n_part * sizeof *part_text);
    if (n_part)
        out->win.part_loc = data->u.table_arg.partition_by[0]->loc;
    out->win.present = true;
    out->win.assigner = a;
    out->win.proctime = proctime;
    out->win.loc = call->loc;
    return set_alias(pc, out, ref, NULL) ? WEIR_ENOMEM : 0;
}

static int window_assign(plan_ctx *pc, rel *r, const char *what, bool as_table);

/*
 * Whether r's time attribute is an instant shown in the session zone: a
 * TIMESTAMP_LTZ column, or the window_time of windows of local time (as
 * Flink types it TIMESTAMP_LTZ; weir shows it as local TIMESTAMP).
 */
static bool rowtime_is_ltz(const rel *r)
{
    if (r->rowtime < 0)
        return false;
    if (r->schema->fields[r->rowtime].type.id == WEIR_TYPE_TIMESTAMP_LTZ)
        return true;
    return r->wprops.present && r->wprops.local_tz && r->wprops.wt == r->rowtime;
}

int plan_window_assign(plan_ctx *pc, rel *r, const char *what) { return window_assign(pc, r, what, false); }

/*
 * as_table: a window table function read as a table. As in Flink,
 * window_time is then the rows' time attribute (the time column becomes a
 * plain timestamp): each row carries time end - 1 of its window, so a
 * GROUP BY window_start, window_end over these rows aggregates each window
 * on its own, as over a window aggregation's result.
 */
static int window_assign(plan_ctx *pc, rel *r, const char *what, bool as_table)
{
    static const char *kinds[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION", "GLOBAL"};
    const weir_window_assigner *a = &r->win.assigner;
    if (a->kind == WEIR_WINDOW_SESSION || a->kind == WEIR_WINDOW_GLOBAL || r->win.proctime)
        return plan_error(pc, r->win.loc, WEIR_EUNSUPPORTED,
                          "%s over %s%s windows directly is not supported (as in Flink); aggregate the window table "
                          "function with GROUP BY window_start, window_end first",
                          what, r->win.proctime ? "processing-time " : "", kinds[a->kind]);
    bool ltz = rowtime_is_ltz(r);
    weir_window_assign_config wc = {.assigner = *a, .out_schema = r->schema, .window_time_ts = as_table,
                                    .time_zone = ltz ? pc->time_zone : NULL};
    weir_operator_spec spec;
    int rc = weir_window_assign_spec(&wc, &spec);
    if (rc)
        return rc;
    weir_stream s;
    if ((rc = weir_job_operator(pc->job, &r->s, 1, &spec, r->schema, plan_forward_parallelism(pc, r->s), &s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, r->win.loc, rc, "cannot add the window assignment: %s", weir_job_error(pc->job));
    }
    explain_line(pc, "WindowAssign[%d]: %s size=%lld slide=%lld", s.node, kinds[a->kind], (long long)a->size_ms,
                 (long long)a->slide_ms);
    r->s = s;
    r->n_physical = r->schema->n_fields;
    r->win.present = false;
    r->wprops = (rel_wprops){true, *a, r->win.ws_col, r->win.we_col, (int32_t)r->win.wt_col, wc.time_zone != NULL};
    if (as_table)
        r->rowtime = (int)r->win.wt_col;
    return 0;
}

int plan_from(plan_ctx *pc, const weir_sql_table_ref *ref, rel *out)
{
    if (ref == pc->preplanned_ref) {
        *out = pc->preplanned; /* planned before (subquery.c) */
        return 0;
    }
    switch (ref->kind) {
    case WEIR_SQL_FROM_TABLE:
        if (ref->u.table.system_time) {
            /* Flink's time travel: the table as its catalog kept it at that time. weir's catalogs keep
             * the current definition of a table only (and its rows are the connector's, not versioned). */
            const weir_sql_name *n = &ref->u.table.name;
            const cat_table *t = plan_find_table(pc, n);
            return plan_error(pc, ref->u.table.system_time->loc, WEIR_EUNSUPPORTED,
                              "FOR SYSTEM_TIME AS OF outside a join is time travel (reading '%s' as it was at that "
                              "time), which needs a catalog that keeps versions of its tables; catalog '%s' keeps "
                              "none. On the right side of a JOIN, FOR SYSTEM_TIME AS OF a time attribute of the "
                              "left side is a temporal or lookup join",
                              n->parts[n->n_parts - 1].name, t ? t->catalog : pc->cur_catalog);
        }
        return plan_named(pc, &ref->u.table.name, ref, out);
    case WEIR_SQL_FROM_SUBQUERY: {
        int rc = plan_query(pc, ref->u.subquery.query, out);
        /* its names of the FROM items before it are unknown inside it */
        if (rc == WEIR_ENOTFOUND && ref->u.subquery.lateral && pc->err &&
            strstr(pc->err->message, "unknown table or alias"))
            return plan_error(pc, ref->loc, WEIR_EUNSUPPORTED,
                              "a LATERAL derived table over a join or a subquery reads the FROM items before it "
                              "by qualified names (c.k), over joins with ON, USING or NATURAL (not a comma or "
                              "CROSS join)");
        return rc ? rc : set_alias(pc, out, ref, NULL);
    }
    case WEIR_SQL_FROM_FUNCTION: {
        const weir_sql_expr *call = ref->u.function.call;
        weir_udtf fn;
        if (ref->u.function.lateral || !weir_expr_udtf_lookup(call->u.call.name.parts[call->u.call.name.n_parts - 1].name, &fn)) {
            return plan_udtf_alone(pc, ref, out); /* its rows, once (refused when f is no table function) */
        }
        int rc = plan_window_tvf(pc, ref, out);
        if (!rc && ref->alias)
            rc = set_alias(pc, out, ref, NULL);
        return rc;
    }
    case WEIR_SQL_FROM_JOIN:
        return plan_join(pc, ref, NULL, out);
    case WEIR_SQL_FROM_MATCH: {
        int rc = plan_match(pc, ref, out);
        return rc ? rc : set_alias(pc, out, ref, NULL);
    }
    case WEIR_SQL_FROM_UNNEST:
        return plan_error(pc, ref->loc, WEIR_EUNSUPPORTED,
                          "UNNEST is supported joined to a table: FROM t CROSS JOIN UNNEST(t.arr) AS u(x)");
    default:
        return plan_error(pc, ref->loc, WEIR_EUNSUPPORTED, "this kind of FROM item is not supported yet");
    }
}

/* ---------------------------------------------------------- aggregation */

static bool has_agg(const weir_sql_expr *e);

static bool any_has_agg(weir_sql_expr *const *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] && has_agg(v[i]))
            return true;
    return false;
}

static bool has_agg(const weir_sql_expr *e)
{
    switch (e->kind) {
    case WEIR_SQL_EXPR_CALL: {
        const char *n = e->u.call.name.parts[e->u.call.name.n_parts - 1].name;
        if (!e->u.call.over && (plan_is_agg_name(n) || plan_is_window_prop(n)))
            return true;
        return any_has_agg(e->u.call.args, e->u.call.n_args);
    }
    case WEIR_SQL_EXPR_UNARY: return has_agg(e->u.unary.operand);
    case WEIR_SQL_EXPR_BINARY: return has_agg(e->u.binary.left) || has_agg(e->u.binary.right);
    case WEIR_SQL_EXPR_IS: return has_agg(e->u.is.operand) || (e->u.is.other && has_agg(e->u.is.other));
    case WEIR_SQL_EXPR_BETWEEN:
        return has_agg(e->u.between.operand) || has_agg(e->u.between.low) || has_agg(e->u.between.high);
    case WEIR_SQL_EXPR_IN_LIST: return has_agg(e->u.in_list.operand) || any_has_agg(e->u.in_list.items, e->u.in_list.n_items);
    case WEIR_SQL_EXPR_LIKE: return has_agg(e->u.like.operand) || has_agg(e->u.like.pattern);
    case WEIR_SQL_EXPR_CAST: return has_agg(e->u.cast.operand);
    case WEIR_SQL_EXPR_EXTRACT: return has_agg(e->u.extract.operand);
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP: return any_has_agg(e->u.list.items, e->u.list.n_items);
    case WEIR_SQL_EXPR_ITEM: return has_agg(e->u.item.operand) || has_agg(e->u.item.index);
    case WEIR_SQL_EXPR_CASE:
        if (e->u.case_.operand && has_agg(e->u.case_.operand))
            return true;
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++)
            if (has_agg(e->u.case_.whens[i].when) || has_agg(e->u.case_.whens[i].then))
                return true;
        return e->u.case_.else_ && has_agg(e->u.case_.else_);
    default: return false;
    }
}

bool plan_has_agg(const weir_sql_expr *e) { return has_agg(e); }

static int collect_aggs(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e);

static int collect_list(plan_ctx *pc, agg_scope *as, weir_sql_expr *const *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        int rc = v[i] ? collect_aggs(pc, as, v[i]) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * The pre-projection column of call c's FILTER (WHERE cond): a BOOLEAN;
 * the aggregate sees only the rows where it is TRUE. The updating group
 * aggregation applies it as a column; a window aggregation folds it into
 * the argument (see plan_aggregate).
 */
static int plan_agg_filter(plan_ctx *pc, const rel *in, const agg_scope *as, agg_call *c, weir_expr **e,
                           const char **name)
{
    const weir_sql_expr *f = c->call->u.call.filter;
    if (has_agg(f))
        return plan_error(pc, f->loc, WEIR_EPLAN, "aggregate functions are not allowed in FILTER (WHERE ...)");
    int rc = plan_bind_expr(pc, in, NULL, f, e);
    if (rc)
        return rc;
    weir_type t = weir_expr_type(*e);
    if (t.id != WEIR_TYPE_BOOLEAN && t.id != WEIR_TYPE_NULL)
        return plan_error(pc, f->loc, WEIR_EPLAN, "FILTER (WHERE ...) must be a BOOLEAN condition, not %s",
                          weir_type_name(t.id));
    char nm[32];
    snprintf(nm, sizeof nm, "$filter%u", (unsigned)(c - as->calls));
    *name = plan_strdup(pc, nm);
    return *name ? 0 : WEIR_ENOMEM;
}

/* A numeric literal's value into *out; false for anything else. */
static bool numeric_literal(const weir_sql_expr *e, double *out)
{
    if (e->kind != WEIR_SQL_EXPR_LITERAL ||
        (e->u.lit.kind != WEIR_SQL_LIT_INTEGER && e->u.lit.kind != WEIR_SQL_LIT_DECIMAL &&
         e->u.lit.kind != WEIR_SQL_LIT_DOUBLE))
        return false;
    *out = e->u.lit.kind == WEIR_SQL_LIT_INTEGER ? (double)e->u.lit.i64 : e->u.lit.f64;
    return true;
}

/*
 * PERCENTILE(value, percentage [, frequency]) (Flink 2): the percentage a
 * numeric literal (c->param) or an ARRAY of them (c->params; the function
 * becomes PERCENTILES, an ARRAY<DOUBLE> result); a frequency makes the
 * argument ROW(value, frequency) and the function PERCENTILE_FREQ (or
 * PERCENTILES_FREQ), which counts the value frequency times.
 */
static int percentile_args(plan_ctx *pc, agg_call *c)
{
    const weir_sql_expr *call = c->call;
    uint32_t n = call->u.call.n_args;
    if (n != 2 && n != 3)
        return plan_error(pc, call->loc, WEIR_EINVAL, "PERCENTILE(value, percentage [, frequency]) takes two or three "
                                                      "arguments");
    if (strstr(c->fn, "_FREQ") || !strncmp(c->fn, "PERCENTILES", 11))
        return 0; /* rewritten already */
    bool distinct = !strcmp(c->fn, "PERCENTILE_DISTINCT");
    const weir_sql_expr *pa = call->u.call.args[1];
    if (pa->kind == WEIR_SQL_EXPR_ARRAY) {
        uint32_t k = pa->u.list.n_items;
        double *ps = plan_alloc(pc, (k ? k : 1) * sizeof *ps);
        if (!ps)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < k; i++)
            if (!numeric_literal(pa->u.list.items[i], &ps[i]))
                return plan_error(pc, pa->u.list.items[i]->loc, WEIR_EUNSUPPORTED,
                                  "PERCENTILE's ARRAY of percentages must hold numeric literals");
        for (uint32_t i = 0; i < k; i++)
            if (!(ps[i] >= 0 && ps[i] <= 1))
                return plan_error(pc, pa->u.list.items[i]->loc, WEIR_EINVAL,
                                  "PERCENTILE: percentage %g is not in [0, 1]", ps[i]);
        if (k == 0)
            return plan_error(pc, pa->loc, WEIR_EINVAL, "PERCENTILE's ARRAY of percentages is empty");
        c->params = ps;
        c->n_params = k;
        snprintf(c->fn, sizeof c->fn, "PERCENTILES%s", distinct ? "_DISTINCT" : "");
    } else if (!numeric_literal(pa, &c->param)) {
        return plan_error(pc, pa->loc, WEIR_EUNSUPPORTED,
                          "PERCENTILE's percentage must be a numeric literal or an ARRAY of them");
    }
    if (n == 2)
        return 0;
    if (distinct)
        return plan_error(pc, call->u.call.args[2]->loc, WEIR_EUNSUPPORTED,
                          "PERCENTILE(DISTINCT ...) with a frequency argument is not supported");
    /* ROW(value, frequency) as the one argument the aggregate reads */
    weir_sql_expr *row = plan_alloc(pc, sizeof *row), *cp = plan_alloc(pc, sizeof *cp);
    weir_sql_expr **ra = plan_alloc(pc, 2 * sizeof *ra), **ca = plan_alloc(pc, 2 * sizeof *ca);
    weir_sql_ident *id = plan_alloc(pc, sizeof *id);
    if (!row || !cp || !ra || !ca || !id)
        return WEIR_ENOMEM;
    *id = (weir_sql_ident){.name = "ROW", .len = 3, .loc = call->loc};
    ra[0] = call->u.call.args[0];
    ra[1] = call->u.call.args[2];
    *row = *call->u.call.args[0];
    row->kind = WEIR_SQL_EXPR_CALL;
    memset(&row->u, 0, sizeof row->u);
    row->u.call.name = (weir_sql_name){.parts = id, .n_parts = 1, .loc = call->loc};
    row->u.call.args = ra;
    row->u.call.n_args = 2;
    *cp = *call;
    ca[0] = row;
    ca[1] = call->u.call.args[1];
    cp->u.call.args = ca;
    cp->u.call.n_args = 2;
    c->call = cp;
    size_t l = strlen(c->fn);
    snprintf(c->fn + l, sizeof c->fn - l, "_FREQ");
    char m[160];
    snprintf(m, sizeof m, "PERCENTILE's frequency at line %u, column %u is negative", call->u.call.args[2]->loc.line,
             call->u.call.args[2]->loc.col);
    return (c->label = plan_strdup(pc, m)) ? 0 : WEIR_ENOMEM;
}

/*
 * COUNT(DISTINCT a, b, ...) counts the distinct tuples of rows where no
 * argument is NULL, as Flink (SQL's COUNT of several values): its one
 * argument becomes $DISTINCT_TUPLE(a, b, ...), a ROW that is NULL when
 * any of them is and whose DOUBLEs are compared as COUNT(DISTINCT) of one
 * column compares them (expr/f_nested.c). c->call is rewritten, as
 * PERCENTILE's frequency is.
 */
static int distinct_tuple_arg(plan_ctx *pc, agg_call *c)
{
    const weir_sql_expr *call = c->call;
    if (call->u.call.n_args > 64)
        return plan_error(pc, call->loc, WEIR_EUNSUPPORTED, "COUNT(DISTINCT ...) of more than 64 values is not supported");
    weir_sql_expr *tup = plan_alloc(pc, sizeof *tup), *cp = plan_alloc(pc, sizeof *cp);
    weir_sql_expr **ca = plan_alloc(pc, sizeof *ca);
    weir_sql_ident *id = plan_alloc(pc, sizeof *id);
    if (!tup || !cp || !ca || !id)
        return WEIR_ENOMEM;
    *id = (weir_sql_ident){.name = "$DISTINCT_TUPLE", .len = sizeof "$DISTINCT_TUPLE" - 1, .loc = call->loc};
    *tup = *call->u.call.args[0];
    tup->kind = WEIR_SQL_EXPR_CALL;
    memset(&tup->u, 0, sizeof tup->u);
    tup->u.call.name = (weir_sql_name){.parts = id, .n_parts = 1, .loc = call->loc};
    tup->u.call.args = call->u.call.args;
    tup->u.call.n_args = call->u.call.n_args;
    *cp = *call;
    ca[0] = tup;
    cp->u.call.args = ca;
    cp->u.call.n_args = 1;
    c->call = cp;
    return 0;
}

/*
 * The argument count of aggregate call c: none only for COUNT (COUNT(*)),
 * two for APPROX_PERCENTILE (value, literal fraction: c->param), else one.
 * *has_arg: whether args[0] is the value to aggregate.
 */
int plan_agg_call_args(plan_ctx *pc, agg_call *c, bool *has_arg)
{
    const weir_sql_expr *call = c->call;
    *has_arg = call->u.call.n_args > 0;
    bool array_agg = !strcmp(c->fn, "ARRAY_AGG") || !strcmp(c->fn, "ARRAY_AGG_DISTINCT");
    if (call->u.call.nulls && !array_agg)
        return plan_error(pc, call->loc, WEIR_EUNSUPPORTED, "%s NULLS is taken only by ARRAY_AGG, not by %s",
                          call->u.call.nulls == 2 ? "IGNORE" : "RESPECT", c->fn);
    if (array_agg)
        c->param = call->u.call.nulls == 2; /* 1: IGNORE NULLS (the default respects them) */
    if (call->u.call.n_args == 0) {
        if (!call->u.call.star && strcmp(c->fn, "COUNT"))
            return plan_error(pc, call->loc, WEIR_EINVAL, "%s needs an argument", c->fn);
        return 0;
    }
    if (!strncmp(c->fn, "PERCENTILE", 10)) { /* also PERCENTILE_DISTINCT */
        int rc = percentile_args(pc, c);
        if (rc)
            return rc;
    } else if (!strncmp(c->fn, "APPROX_PERCENTILE", 17)) { /* also APPROX_PERCENTILE_DISTINCT */
        if (call->u.call.n_args != 2 || call->u.call.args[1]->kind != WEIR_SQL_EXPR_LITERAL)
            return plan_error(pc, call->loc, WEIR_EINVAL, "APPROX_PERCENTILE(value, fraction) needs a literal fraction");
        c->param = call->u.call.args[1]->u.lit.f64 ? call->u.call.args[1]->u.lit.f64
                                                   : (double)call->u.call.args[1]->u.lit.i64;
    } else if (!strcmp(c->fn, "LAG") || !strcmp(c->fn, "LAG_PRESENT")) {
        if (call->u.call.n_args > 3)
            return plan_error(pc, call->loc, WEIR_EINVAL, "LAG(value [, offset [, default]]) takes one to three arguments");
        c->param = 1;
        if (call->u.call.n_args >= 2) {
            const weir_sql_expr *off = call->u.call.args[1];
            if (off->kind != WEIR_SQL_EXPR_LITERAL || off->u.lit.kind != WEIR_SQL_LIT_INTEGER || off->u.lit.overflow ||
                off->u.lit.i64 < 0 || off->u.lit.i64 > WEIR_AGG_LAG_MAX)
                return plan_error(pc, off->loc, WEIR_EINVAL, "LAG's offset must be an integer literal in 0..%d",
                                  WEIR_AGG_LAG_MAX);
            c->param = (double)off->u.lit.i64;
        }
    } else if (!strcmp(c->fn, "LISTAGG")) {
        if (call->u.call.n_args > 2)
            return plan_error(pc, call->loc, WEIR_EINVAL, "LISTAGG(value [, separator]) takes one or two arguments");
        if (call->u.call.n_args == 2) {
            const weir_sql_expr *sep = call->u.call.args[1];
            if (sep->kind != WEIR_SQL_EXPR_LITERAL || sep->u.lit.kind != WEIR_SQL_LIT_STRING)
                return plan_error(pc, sep->loc, WEIR_EINVAL, "LISTAGG's separator must be a string literal");
            if (memchr(sep->u.lit.text, 0, sep->u.lit.len))
                return plan_error(pc, sep->loc, WEIR_EINVAL, "LISTAGG's separator cannot hold a NUL character");
            char *t = plan_alloc(pc, sep->u.lit.len + 1);
            if (!t)
                return WEIR_ENOMEM;
            memcpy(t, sep->u.lit.text, sep->u.lit.len);
            t[sep->u.lit.len] = 0;
            c->sep = t;
        }
    } else if (!strcmp(c->fn, "COUNT_DISTINCT") && call->u.call.n_args > 1) {
        int rc = distinct_tuple_arg(pc, c);
        if (rc)
            return rc;
    } else if (call->u.call.n_args != 1) {
        if (!strcmp(c->fn, "COUNT"))
            return plan_error(pc, call->loc, WEIR_EINVAL,
                              "COUNT takes one argument (several only with DISTINCT: COUNT(DISTINCT a, b))");
        return plan_error(pc, call->loc, WEIR_EINVAL, "%s takes one argument", c->fn);
    }
    if (!strcmp(c->fn, "SINGLE_VALUE") && !(c->label = plan_single_value_error(pc, call)))
        return WEIR_ENOMEM;
    return 0;
}

/*
 * F(DISTINCT x): COUNT_DISTINCT for COUNT; MIN and MAX of the distinct
 * values are those of all values; APPROX_COUNT_DISTINCT counts distinct
 * values anyway; every function that can take a value back runs over the
 * distinct values (F_DISTINCT, agg/agg_distinct_of.c); ARRAY_AGG keeps the
 * distinct values in first-arrival order (agg/agg_arrayagg.c). FIRST_VALUE,
 * LAST_VALUE and LISTAGG depend on arrival order, which a set of distinct
 * values does not keep: refused.
 */
int plan_agg_distinct_name(plan_ctx *pc, const weir_sql_expr *call, char *fn, size_t fn_size)
{
    static const char *const over_distinct[] = {"SUM",        "SUM0",     "AVG",         "VAR_POP",
                                                "VAR_SAMP",   "VARIANCE", "STDDEV_POP",  "STDDEV_SAMP",
                                                "STDDEV",     "APPROX_PERCENTILE", "COLLECT", "PERCENTILE", "ARRAY_AGG", NULL};
    if (!strcmp(fn, "COUNT")) {
        snprintf(fn, fn_size, "COUNT_DISTINCT");
        return 0;
    }
    if (!strcmp(fn, "MIN") || !strcmp(fn, "MAX") || !strcmp(fn, "APPROX_COUNT_DISTINCT"))
        return 0;
    for (int i = 0; over_distinct[i]; i++)
        if (!strcmp(fn, over_distinct[i])) {
            size_t n = strlen(fn);
            if (n + sizeof "_DISTINCT" > fn_size)
                break;
            memcpy(fn + n, "_DISTINCT", sizeof "_DISTINCT");
            return 0;
        }
    return plan_error(pc, call->loc, WEIR_EUNSUPPORTED,
                      "%s(DISTINCT ...) is not supported (it depends on the order rows arrive in, which the "
                      "distinct values do not keep)",
                      fn);
}

/* Records each aggregate call once (by its canonical text). */
static int collect_aggs(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e)
{
    int rc = 0;
    switch (e->kind) {
    case WEIR_SQL_EXPR_CALL: {
        const char *n = e->u.call.name.parts[e->u.call.name.n_parts - 1].name;
        if (e->u.call.over || !plan_is_agg_name(n))
            return collect_list(pc, as, e->u.call.args, e->u.call.n_args);
        if (any_has_agg(e->u.call.args, e->u.call.n_args))
            return plan_error(pc, e->loc, WEIR_EPLAN, "aggregate function calls cannot be nested");
        weir_buf b;
        weir_buf_init(&b);
        if (weir__sql_format_expr(e, &b) || weir_buf_put_u8(&b, 0)) {
            weir_buf_fini(&b);
            return WEIR_ENOMEM;
        }
        for (uint32_t i = 0; i < as->n_calls; i++)
            if (!strcmp(as->calls[i].text, (char *)b.data)) {
                weir_buf_fini(&b);
                return 0;
            }
        agg_call *nc = weir_realloc(as->calls, (as->n_calls + 1) * sizeof *nc);
        if (!nc) {
            weir_buf_fini(&b);
            return WEIR_ENOMEM;
        }
        as->calls = nc;
        agg_call *c = &as->calls[as->n_calls++];
        memset(c, 0, sizeof *c);
        c->call = e;
        c->text = plan_strdup(pc, (char *)b.data);
        weir_buf_fini(&b);
        if (!c->text)
            return WEIR_ENOMEM;
        snprintf(c->fn, sizeof c->fn, "%s", n);
        for (char *p = c->fn; *p; p++)
            *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
        if (e->u.call.distinct && (rc = plan_agg_distinct_name(pc, e, c->fn, sizeof c->fn)))
            return rc;
        c->pre_col = -1;
        c->filter_col = -1;
        return 0;
    }
    case WEIR_SQL_EXPR_UNARY: return collect_aggs(pc, as, e->u.unary.operand);
    case WEIR_SQL_EXPR_BINARY:
        return (rc = collect_aggs(pc, as, e->u.binary.left)) ? rc : collect_aggs(pc, as, e->u.binary.right);
    case WEIR_SQL_EXPR_IS:
        return (rc = collect_aggs(pc, as, e->u.is.operand)) ? rc : e->u.is.other ? collect_aggs(pc, as, e->u.is.other) : 0;
    case WEIR_SQL_EXPR_BETWEEN:
        if ((rc = collect_aggs(pc, as, e->u.between.operand)) || (rc = collect_aggs(pc, as, e->u.between.low)))
            return rc;
        return collect_aggs(pc, as, e->u.between.high);
    case WEIR_SQL_EXPR_IN_LIST:
        return (rc = collect_aggs(pc, as, e->u.in_list.operand)) ? rc
                                                                  : collect_list(pc, as, e->u.in_list.items, e->u.in_list.n_items);
    case WEIR_SQL_EXPR_LIKE:
        return (rc = collect_aggs(pc, as, e->u.like.operand)) ? rc : collect_aggs(pc, as, e->u.like.pattern);
    case WEIR_SQL_EXPR_CAST: return collect_aggs(pc, as, e->u.cast.operand);
    case WEIR_SQL_EXPR_EXTRACT: return collect_aggs(pc, as, e->u.extract.operand);
    /* x IN (SELECT ...) over the groups: x may read them (its subquery's own aggregates are its own) */
    case WEIR_SQL_EXPR_IN_QUERY: return collect_aggs(pc, as, e->u.in_query.operand);
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP: return collect_list(pc, as, e->u.list.items, e->u.list.n_items);
    case WEIR_SQL_EXPR_ITEM:
        return (rc = collect_aggs(pc, as, e->u.item.operand)) ? rc : collect_aggs(pc, as, e->u.item.index);
    case WEIR_SQL_EXPR_CASE:
        if (e->u.case_.operand && (rc = collect_aggs(pc, as, e->u.case_.operand)))
            return rc;
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++)
            if ((rc = collect_aggs(pc, as, e->u.case_.whens[i].when)) || (rc = collect_aggs(pc, as, e->u.case_.whens[i].then)))
                return rc;
        return e->u.case_.else_ ? collect_aggs(pc, as, e->u.case_.else_) : 0;
    default: return 0;
    }
}

/* A legacy group window in GROUP BY: TUMBLE(ts, size), HOP(ts, slide, size), SESSION(ts, gap). */
static int legacy_window(plan_ctx *pc, const rel *in, const weir_sql_expr *e, weir_window_assigner *a, bool *is,
                         bool *proctime)
{
    *is = false;
    if (e->kind != WEIR_SQL_EXPR_CALL)
        return 0;
    const char *fn = e->u.call.name.parts[e->u.call.name.n_parts - 1].name;
    bool tumble = !strcasecmp(fn, "TUMBLE"), hop = !strcasecmp(fn, "HOP"), session = !strcasecmp(fn, "SESSION");
    if (!tumble && !hop && !session)
        return 0;
    *is = true;
    uint32_t need = hop ? 3 : 2;
    if (e->u.call.n_args < need)
        return plan_error(pc, e->loc, WEIR_EINVAL, "%s(time_attr, %s) expects %u arguments", fn,
                          hop ? "slide, size" : session ? "gap" : "size", need);
    const weir_sql_expr *t = e->u.call.args[0];
    uint32_t idx;
    int rc;
    if (t->kind != WEIR_SQL_EXPR_COLUMN)
        return plan_error(pc, t->loc, WEIR_EPLAN, "the first argument of %s must be a time attribute column", fn);
    if ((rc = plan_resolve_column(pc, in, &t->u.column, &idx)))
        return rc;
    *proctime = in->has_proctime && idx == in->proctime;
    if ((int)idx != in->rowtime && !*proctime)
        return plan_error(pc, t->loc, WEIR_EPLAN,
                          "column '%s' is not a time attribute: declare a WATERMARK for it, or use a "
                          "processing-time attribute (PROCTIME())",
                          in->schema->fields[idx].name);
    int64_t x, y = 0, off = 0;
    if ((rc = plan_const_interval_ms(pc, e->u.call.args[1], &x)) || (hop && (rc = plan_const_interval_ms(pc, e->u.call.args[2], &y))))
        return rc;
    if (!hop && e->u.call.n_args > 2 && (rc = plan_const_interval_ms(pc, e->u.call.args[2], &off)))
        return rc;
    *a = tumble ? weir_window_tumbling(x, off) : hop ? weir_window_hopping(x, y, 0) : weir_window_session(x, 0);
    weir_error err = {0};
    if (weir_window_assigner_check(a, &err))
        return plan_error(pc, e->loc, WEIR_EINVAL, "%s", err.message);
    return 0;
}

/* A boolean emit option: *on is false when unset; a value that is not a boolean is its SET's error. */
static int emit_enabled(plan_ctx *pc, const char *key, weir_sql_loc loc, bool *on)
{
    const char *v = plan_config(pc, key);
    *on = false;
    if (v && weir_option_parse_bool(v, on))
        return plan_error(pc, plan_config_at(pc, key, loc), WEIR_EINVAL, "%s: expected 'true' or 'false', got '%s'",
                          key, v);
    return 0;
}

/* Emit options of Flink SQL (table.exec.emit.*) applied to a window spec. */
static int emit_options(plan_ctx *pc, weir_window_spec *ws, weir_sql_loc loc)
{
    const char *v;
    bool on = false;
    int64_t ms;
    int rc;
    if ((v = plan_config(pc, "table.exec.emit.allow-lateness"))) {
        if (weir_option_parse_duration(v, &ms))
            return plan_error(pc, plan_config_at(pc, "table.exec.emit.allow-lateness", loc), WEIR_EINVAL, "table.exec.emit.allow-lateness: invalid duration '%s'", v);
        ws->allowed_lateness_ms = ms;
    }
    if ((rc = emit_enabled(pc, "table.exec.emit.early-fire.enabled", loc, &on)))
        return rc;
    if (on) {
        /* a missing delay is the fault of the SET that enabled early firings, a bad one of its own SET */
        if (!(v = plan_config(pc, "table.exec.emit.early-fire.delay")))
            return plan_error(pc, plan_config_at(pc, "table.exec.emit.early-fire.enabled", loc), WEIR_EINVAL,
                              "table.exec.emit.early-fire.delay must be set to a duration");
        if (weir_option_parse_duration(v, &ms))
            return plan_error(pc, plan_config_at(pc, "table.exec.emit.early-fire.delay", loc), WEIR_EINVAL,
                              "table.exec.emit.early-fire.delay: invalid duration '%s'", v);
        /* as in Flink, a delay of 0 fires on every record */
        if (ms > 0)
            ws->trigger.early_interval_ms = ms;
        else
            ws->trigger.early_count = 1;
        ws->accumulation = WEIR_ACC_RETRACTING;
    }
    if ((rc = emit_enabled(pc, "table.exec.emit.late-fire.enabled", loc, &on)))
        return rc;
    if (on) {
        v = plan_config(pc, "table.exec.emit.late-fire.delay");
        if (v && weir_option_parse_duration(v, &ms))
            return plan_error(pc, plan_config_at(pc, "table.exec.emit.late-fire.delay", loc), WEIR_EINVAL, "table.exec.emit.late-fire.delay: invalid duration '%s'", v);
        ws->trigger.late_interval_ms = v ? ms : 0;
        ws->accumulation = WEIR_ACC_RETRACTING;
    }
    if (ws->allowed_lateness_ms > 0 && ws->accumulation != WEIR_ACC_RETRACTING)
        ws->accumulation = WEIR_ACC_RETRACTING; /* late firings update earlier results */
    return 0;
}

static int plan_late_output(plan_ctx *pc, weir_stream win, const weir_schema *pre, const rel *in, weir_sql_loc loc);

/* Whether name is among names[0..n), as the window's output compares them (without case). */
static bool named_before(const char *const *names, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcasecmp(names[i], name))
            return true;
    return false;
}

static bool is_late_meta_column(const char *name)
{
    return !strcasecmp(name, "watermark") || !strcasecmp(name, "lateness_ms");
}

/*
 * GROUP BY / aggregates / DISTINCT over `in`. On return *out is the
 * aggregation output and *as is ready for phase BIND.
 */
static int agg_plan(plan_ctx *pc, const weir_sql_select *sel, rel *in, agg_scope *as, rel *pr_, weir_agg *aggs,
                    bool have_legacy, const weir_window_assigner *legacy_, bool legacy_proctime, weir_buf *dg,
                    rel *out);

static int plan_aggregate(plan_ctx *pc, const weir_sql_select *sel, rel *in, agg_scope *as, rel *out)
{
    int rc;
    weir_window_assigner legacy;
    bool have_legacy = false, legacy_proctime = false;
    agg_scope gs = *as; /* the grouping set this SELECT is planned for, if any */
    memset(as, 0, sizeof *as);
    as->gs_expr = gs.gs_expr;
    as->gs_text = gs.gs_text;
    as->gs_in = gs.gs_in;
    as->gs_group_id = gs.gs_group_id;
    as->n_gs = gs.n_gs;
    as->gs_force = gs.gs_force;
    as->in = in;
    as->ws_in = as->we_in = as->wt_in = -1;
    uint32_t ng = sel->n_group_by;
    const weir_sql_expr **group = (const weir_sql_expr **)sel->group_by;
    weir_sql_expr **distinct_keys = NULL;
    if (sel->distinct && ng == 0) {
        /* SELECT DISTINCT a, b  ==  SELECT a, b ... GROUP BY a, b */
        distinct_keys = plan_alloc(pc, (sel->n_items + 1) * sizeof *distinct_keys);
        if (!distinct_keys)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < sel->n_items; i++) {
            distinct_keys[i] = sel->items[i].expr; /* a star is written out already (distinct_star) */
        }
        group = (const weir_sql_expr **)distinct_keys;
        ng = sel->n_items;
    }
    as->keys = plan_alloc(pc, (ng + 1) * sizeof *as->keys);
    as->key_text = plan_alloc(pc, (ng + 1) * sizeof *as->key_text);
    as->key_in_col = plan_alloc(pc, (ng + 1) * sizeof *as->key_in_col);
    if (!as->keys || !as->key_text || !as->key_in_col)
        return WEIR_ENOMEM;
    bool saw_ws = false, saw_we = false;
    /*
     * GROUP BY both bounds of a windowed input (a window aggregation's
     * output, renamed or not): a window aggregation on the input's windows,
     * as Flink's cascading window aggregation. Fixed windows only: the
     * window engine finds the window again from the row's time (end - 1);
     * session windows keep a regular GROUP BY.
     */
    if (!in->win.present && in->wprops.present && !in->updating && sel->n_group_by > 0 &&
        in->wprops.assigner.kind != WEIR_WINDOW_SESSION && in->wprops.assigner.kind != WEIR_WINDOW_GLOBAL) {
        bool has_ws = false, has_we = false;
        for (uint32_t i = 0; i < ng; i++) {
            if (group[i]->kind != WEIR_SQL_EXPR_COLUMN)
                continue;
            int c = plan_find_column(pc, in, &group[i]->u.column);
            has_ws |= c >= 0 && (uint32_t)c == in->wprops.ws;
            has_we |= c >= 0 && (uint32_t)c == in->wprops.we;
        }
        as->cascade = has_ws && has_we;
    }
    for (uint32_t i = 0; i < ng; i++) {
        const weir_sql_expr *g = group[i];
        bool is_win;
        bool pt = false;
        if ((rc = legacy_window(pc, in, g, &legacy, &is_win, &pt)))
            return rc;
        if (is_win) {
            if (have_legacy || in->win.present)
                return plan_error(pc, g->loc, WEIR_EPLAN, "only one group window is allowed");
            have_legacy = true;
            legacy_proctime = pt;
            continue;
        }
        if (g->kind == WEIR_SQL_EXPR_COLUMN && !plan_is_field_path(pc, in, g)) {
            uint32_t idx;
            if ((rc = plan_resolve_column(pc, in, &g->u.column, &idx)))
                return rc;
            if (in->win.present && idx == in->win.ws_col) {
                saw_ws = true;
                continue;
            }
            if (in->win.present && idx == in->win.we_col) {
                saw_we = true;
                continue;
            }
            /* window_time is end - 1: grouping by it as well changes nothing (Flink's way to keep it) */
            if (in->win.present && idx == in->win.wt_col)
                continue;
            if (as->cascade && (int32_t)idx == in->wprops.wt)
                continue;
            if (as->cascade && idx == in->wprops.we) {
                saw_we = true;
                continue;
            }
            if (as->cascade && idx == in->wprops.ws && !saw_ws) {
                saw_ws = true;
                as->cascade_ws_key = as->n_keys;
            }
            as->key_in_col[as->n_keys] = (int32_t)idx;
        } else {
            as->key_in_col[as->n_keys] = -1;
        }
        weir_buf b;
        weir_buf_init(&b);
        if (weir__sql_format_expr(g, &b) || weir_buf_put_u8(&b, 0)) {
            weir_buf_fini(&b);
            return WEIR_ENOMEM;
        }
        as->key_text[as->n_keys] = plan_strdup(pc, (char *)b.data);
        weir_buf_fini(&b);
        as->keys[as->n_keys++] = g;
    }
    if (in->win.present) {
        if (!saw_ws || !saw_we)
            return plan_error(pc, sel->loc, WEIR_EPLAN,
                              "a window table function must be aggregated with GROUP BY window_start, window_end, ...");
        if (in->win.n_part && !session_part_is_keys(in, as))
            return plan_error(pc, in->win.part_loc, WEIR_EUNSUPPORTED,
                              "SESSION(TABLE ... PARTITION BY ...) aggregated by other keys is not supported: weir forms "
                              "sessions per group, so PARTITION BY must name exactly the GROUP BY columns besides "
                              "window_start and window_end (or leave PARTITION BY out)");
        as->windowed = true;
        as->ws_in = (int32_t)in->win.ws_col;
        as->we_in = (int32_t)in->win.we_col;
        as->wt_in = (int32_t)in->win.wt_col;
    }
    if (as->cascade && have_legacy)
        return plan_error(pc, sel->loc, WEIR_EPLAN,
                          "only one group window is allowed: this GROUP BY names the input's window bounds and a "
                          "group window function");
    if (as->cascade) {
        as->windowed = true;
        as->we_in = (int32_t)in->wprops.we;
        as->wt_in = in->wprops.wt;
    }
    as->windowed |= have_legacy;
    /* aggregate calls */
    as->phase = AGG_COLLECT;
    for (uint32_t i = 0; i < sel->n_items; i++)
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR && (rc = collect_aggs(pc, as, sel->items[i].expr)))
            return rc;
    if (sel->having && (rc = collect_aggs(pc, as, sel->having)))
        return rc;
    /* pre-projection: keys, then aggregate arguments */
    uint32_t npre = as->n_keys;
    for (uint32_t i = 0; i < as->n_calls; i++)
        npre += (as->calls[i].call->u.call.n_args > 0) + (as->calls[i].call->u.call.filter != NULL);
    /* A window aggregation's late rows carry the input columns the late-records table names. */
    cat_table *lt = NULL;
    if (as->windowed && !as->cascade && (rc = plan_late_table(pc, sel->loc, false, &lt)))
        return rc;
    if (lt)
        npre += lt->physical->n_fields;
    weir_expr **pre = plan_alloc(pc, (npre + 1) * sizeof *pre);
    const char **names = plan_alloc(pc, (npre + 1) * sizeof *names);
    if (!pre || !names)
        return WEIR_ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < as->n_keys; i++) {
        if ((rc = plan_bind_expr(pc, in, NULL, as->keys[i], &pre[k])))
            return rc;
        char nm[32];
        /* A key named like a window column (a cascade's window_start) or like an earlier key (GROUP BY k,
         * k; SELECT DISTINCT k, *) would clash with the window's own output columns; it is reached through
         * the scope, not by name. */
        if (as->keys[i]->kind == WEIR_SQL_EXPR_COLUMN && as->key_in_col[i] >= 0 &&
            !(as->windowed && (is_window_column_name(in->schema->fields[as->key_in_col[i]].name) ||
                               named_before(names, k, in->schema->fields[as->key_in_col[i]].name))))
            names[k] = in->schema->fields[as->key_in_col[i]].name;
        else {
            snprintf(nm, sizeof nm, "$key%u", i);
            names[k] = plan_strdup(pc, nm);
        }
        k++;
    }
    for (uint32_t i = 0; i < as->n_calls; i++) {
        agg_call *c = &as->calls[i];
        const weir_sql_expr *call = c->call;
        weir_expr *fe = NULL; /* a window aggregation's FILTER condition */
        if (call->u.call.filter && (rc = plan_agg_filter(pc, in, as, c, as->windowed ? &fe : &pre[k], &names[k])))
            return rc;
        if (call->u.call.filter && !as->windowed)
            c->filter_col = (int32_t)k++;
        bool has_arg;
        if ((rc = plan_agg_call_args(pc, c, &has_arg)))
            return rc;
        call = c->call; /* PERCENTILE with a frequency rewrites its arguments */
        /* The rewrite below relies on the aggregate skipping NULLs, which
         * ARRAY_AGG without IGNORE NULLS does not: the rows FILTER drops
         * would become NULL elements. */
        if (fe && !strncmp(c->fn, "ARRAY_AGG", 9) && !c->param)
            return plan_error(pc, call->u.call.filter->loc, WEIR_EUNSUPPORTED,
                              "FILTER on ARRAY_AGG without IGNORE NULLS is not supported in a window aggregation "
                              "(add IGNORE NULLS, or move the condition to WHERE)");
        if (!has_arg && !fe)
            continue;
        if (has_arg && (rc = plan_bind_expr(pc, in, NULL, call->u.call.args[0], &pre[k])))
            return rc;
        if (fe) {
            /*
             * f(x) FILTER (WHERE cond) in a window: f(CASE WHEN cond THEN x
             * END). Every aggregate skips NULL arguments, and a row the
             * condition drops is then never seen; COUNT(*) counts the rows
             * where it holds: COUNT(CASE WHEN cond THEN 1 END).
             */
            weir_expr *val = has_arg ? pre[k] : weir_expr_lit_int(pc->arena, 1);
            weir_error err = {0};
            if (!val)
                return WEIR_ENOMEM;
            if ((rc = weir_expr_case(pc->arena, &fe, &val, 1, NULL, &pre[k], &err)))
                return rc == WEIR_ENOMEM ? rc : plan_error(pc, call->u.call.filter->loc, rc, "%s", err.message);
            char nm[32];
            snprintf(nm, sizeof nm, "$arg%u", i);
            names[k] = plan_strdup(pc, nm);
            c->pre_col = (int32_t)k++;
            continue;
        }
        /* A plain column keeps its name, so late records keep their column names. */
        const weir_sql_expr *arg = call->u.call.args[0];
        int32_t src_col = weir_expr_column_index(pre[k]);
        /* An input column an earlier call already takes as its argument is not projected twice:
         * the calls read one pre column (and the COUNT(DISTINCT)s of one column then share one
         * view of its values: ops/group_agg.c). */
        int32_t same = -1;
        for (uint32_t j = 0; j < i && src_col >= 0 && same < 0; j++)
            if (as->calls[j].pre_col >= 0 && weir_expr_column_index(pre[as->calls[j].pre_col]) == src_col)
                same = as->calls[j].pre_col;
        if (same >= 0) {
            c->pre_col = same;
            continue;
        }
        bool taken = false;
        for (uint32_t j = 0; j < k && src_col >= 0; j++)
            taken |= !strcasecmp(names[j], in->schema->fields[src_col].name);
        if (arg->kind == WEIR_SQL_EXPR_COLUMN && src_col >= 0 && !taken) {
            names[k] = in->schema->fields[src_col].name;
        } else {
            char nm[32];
            snprintf(nm, sizeof nm, "$arg%u", i);
            names[k] = plan_strdup(pc, nm);
        }
        c->pre_col = (int32_t)k++;
    }
    /*
     * The late-records table's columns that are input columns but not yet
     * carried (a column read only inside a CASE, the event time itself):
     * the window operator ignores them, its late output carries them. A
     * column the pre-projection has by name is that input column (other
     * pre columns are named $key / $arg).
     */
    for (uint32_t i = 0; lt && i < lt->physical->n_fields; i++) {
        const char *want = lt->physical->fields[i].name;
        bool have = false;
        for (uint32_t j = 0; j < k && !have; j++)
            have = !strcasecmp(names[j], want);
        int c = weir_schema_find(in->schema, want);
        if (have || c < 0 || (uint32_t)c >= in->n_physical || is_late_meta_column(want))
            continue;
        weir_error err = {0};
        if ((rc = weir_expr_column(pc->arena, (uint32_t)c, in->schema->fields[c].type, &pre[k], &err)))
            return rc;
        names[k++] = in->schema->fields[c].name;
    }
    rel pr;
    if ((rc = plan_calc(pc, in, NULL, pre, names, k, &pr, "Calc")))
        return rc;
    /* aggregates bound to pre columns */
    weir_agg *aggs = plan_alloc(pc, (as->n_calls + 1) * sizeof *aggs);
    if (!aggs)
        return WEIR_ENOMEM;
    /* the digest of the aggregation (reuse.c): input, keys, aggregates, then the operator's options */
    weir_buf dg;
    weir_buf_init(&dg);
    rc = weir_buf_printf(&dg, "%s|", as->windowed ? "Window" : "Group");
    if (!rc)
        rc = plan_reuse_stream(&dg, pr.s);
    if (!rc)
        rc = weir_buf_printf(&dg, "|keys=%u", as->n_keys);
    for (uint32_t i = 0; !rc && i < as->n_calls; i++) {
        agg_call *c = &as->calls[i];
        char fn[48];
        snprintf(fn, sizeof fn, "%s", c->fn);
        if (in->updating && (!strcmp(fn, "MIN") || !strcmp(fn, "MAX") || !strcmp(fn, "FIRST_VALUE") || !strcmp(fn, "LAST_VALUE")))
            snprintf(fn, sizeof fn, "%s_RETRACT", c->fn);
        weir_error err = {0};
        if ((rc = weir_agg_bind(fn, pr.schema, c->pre_col, c->param, &aggs[i], &err))) {
            weir_buf_fini(&dg);
            return plan_error(pc, c->call->loc, rc, "%s", err.message);
        }
        /* over an updating input every row may be retracted: refuse, as
         * Flink's planner does, a function that cannot forget a row, rather
         * than fail the job at the first -U/-D (a window aggregation refuses
         * the updating input itself below) */
        if (in->updating && !as->windowed && !aggs[i].cls->retract) {
            weir_buf_fini(&dg);
            return plan_error(pc, c->call->loc, WEIR_EUNSUPPORTED,
                              "%s over an updating (changelog) input is not supported: it cannot retract a row",
                              c->fn);
        }
        aggs[i].sep = c->sep;
        aggs[i].label = c->label;
        aggs[i].params = c->params;
        aggs[i].n_params = c->n_params;
        rc = weir_buf_printf(&dg, "|%s(%d,%.17g)f%d", fn, c->pre_col, c->param, c->filter_col);
        if (!rc && c->sep) /* with its length: a separator may hold anything */
            rc = weir_buf_printf(&dg, "sep%zu:%s", strlen(c->sep), c->sep);
        for (uint32_t j = 0; !rc && j < c->n_params; j++)
            rc = weir_buf_printf(&dg, "p%.17g", c->params[j]);
    }
    if (rc) {
        weir_buf_fini(&dg);
        return rc;
    }
    rc = agg_plan(pc, sel, in, as, &pr, aggs, have_legacy, &legacy, legacy_proctime, &dg, out);
    weir_buf_fini(&dg);
    return rc;
}

/* The aggregation operator of plan_aggregate over its pre-projection pr; dg holds its digest so far. */
static int agg_plan(plan_ctx *pc, const weir_sql_select *sel, rel *in, agg_scope *as, rel *pr_, weir_agg *aggs,
                    bool have_legacy, const weir_window_assigner *legacy_, bool legacy_proctime, weir_buf *dg,
                    rel *out)
{
    int rc;
    rel pr = *pr_;
    weir_window_assigner legacy = *legacy_;
    weir_keyspec ks = {.n = as->n_keys};
    if (as->n_keys > WEIR_KEY_MAX_COLS)
        return plan_error(pc, sel->loc, WEIR_EUNSUPPORTED, "at most %d GROUP BY keys", WEIR_KEY_MAX_COLS);
    for (uint32_t i = 0; i < as->n_keys; i++)
        ks.cols[i] = i;
    memset(out, 0, sizeof *out);
    out->loc = sel->loc;
    out->rowtime = -1;
    if (as->windowed) {
        if (in->updating)
            return plan_error(pc, sel->loc, WEIR_EUNSUPPORTED, "window aggregation over an updating input is not supported");
        weir_window_spec ws;
        weir_window_spec_init(&ws);
        ws.assigner = have_legacy ? legacy : in->win.assigner;
        if (as->cascade) {
            /*
             * Each input row belongs to the window [start, end) named by its
             * columns and carries time end - 1. The tumbling windows of the
             * input's step that end where its windows end give every input
             * window its own end; window_start is a key. So the window
             * fires when W >= end, as the input's window did.
             */
            const weir_window_assigner *ia = &in->wprops.assigner;
            int64_t step = ia->kind == WEIR_WINDOW_TUMBLING ? ia->size_ms : ia->slide_ms;
            int64_t off = (ia->offset_ms + ia->size_ms) % step;
            ws.assigner = weir_window_tumbling(step, off < 0 ? off + step : off);
        }
        ws.key = ks;
        ws.aggs = aggs;
        ws.n_aggs = as->n_calls;
        ws.window_time = true;
        /* As in Flink, a processing-time window takes the time of the record's arrival at the
         * window, not the attribute's value (which was the time at an earlier operator). */
        bool proctime = have_legacy ? legacy_proctime : as->cascade ? false : in->win.proctime;
        if (proctime)
            ws.time_domain = WEIR_TIME_PROCESSING;
        /*
         * Over a TIMESTAMP_LTZ attribute, windows align to the session zone's wall time, as in Flink:
         * sessions too (merged by gaps of local time), and processing-time windows (PROCTIME() is a
         * TIMESTAMP_LTZ).
         */
        bool ltz = proctime || (as->cascade ? in->wprops.local_tz : rowtime_is_ltz(in));
        if (ltz && ws.assigner.kind != WEIR_WINDOW_GLOBAL)
            ws.time_zone = pc->time_zone;
        if ((rc = emit_options(pc, &ws, sel->loc)))
            return rc;
        const weir_window_assigner *wa = &ws.assigner;
        const weir_window_trigger *wt = &ws.trigger;
        if ((rc = weir_buf_printf(dg, "|w%d,%lld,%lld,%lld,%lld,%lld|t%d,%llu,%lld,%llu,%lld,%d|d%d|l%lld|a%d|wt%d",
                                  (int)wa->kind, (long long)wa->size_ms, (long long)wa->slide_ms,
                                  (long long)wa->offset_ms, (long long)wa->gap_ms, (long long)wa->max_length_ms,
                                  (int)wt->kind, (unsigned long long)wt->count, (long long)wt->early_interval_ms,
                                  (unsigned long long)wt->early_count, (long long)wt->late_interval_ms,
                                  (int)wt->purging, (int)ws.time_domain, (long long)ws.allowed_lateness_ms,
                                  (int)ws.accumulation, (int)ws.window_time)))
            return rc;
        if (as->cascade && (rc = weir_buf_printf(dg, "|cascade%u", as->cascade_ws_key)))
            return rc;
        const char *late = plan_config(pc, "weir.late-records.table");
        if (late && (rc = weir_buf_printf(dg, "|late %s", late)))
            return rc;
        /*
         * Two phases (twophase.c) where the local phase's partial rows stand for their rows exactly: windows of
         * fixed slices of event time (UTC), fired once by the watermark, no lateness (a late partial row could
         * not be sent to a late-records table as the rows it stands for), nor counting triggers.
         */
        bool two = false;
        bool sliced = wa->kind == WEIR_WINDOW_TUMBLING || wa->kind == WEIR_WINDOW_HOPPING ||
                      wa->kind == WEIR_WINDOW_CUMULATING;
        if (sliced && !proctime && !ws.time_zone && !as->cascade && !late && wt->kind == WEIR_TRIGGER_DEFAULT &&
            !wt->early_interval_ms && !wt->early_count && !wt->purging && ws.allowed_lateness_ms == 0 &&
            ws.accumulation == WEIR_ACC_ACCUMULATING &&
            (rc = plan_agg_phases(pc, pr.s, aggs, as->n_calls, sel->loc, &two)))
            return rc;
        if (two && (rc = weir_buf_printf(dg, "|two-phase")))
            return rc;
        /* Split distinct aggregation (splitdistinct.c) on the same terms: a partial window aggregation by keys and
         * bucket, and a final one over its windows. */
        uint32_t buckets = 0;
        if (sliced && !two && !proctime && !ws.time_zone && !as->cascade && !late &&
            wt->kind == WEIR_TRIGGER_DEFAULT && !wt->early_interval_ms && !wt->early_count && !wt->purging &&
            ws.allowed_lateness_ms == 0 && ws.accumulation == WEIR_ACC_ACCUMULATING &&
            (rc = plan_split_distinct_buckets(pc, pr.schema, as->n_keys, aggs, as->n_calls, true, sel->loc,
                                              &buckets)))
            return rc;
        if (buckets && (rc = weir_buf_printf(dg, "|split%u", buckets)))
            return rc;
        if (ws.time_zone && (rc = weir_buf_printf(dg, "|tz %s", ws.time_zone)))
            return rc;
        const rel *same = plan_reuse_find(pc, PLAN_REUSE_OPERATOR, dg);
        weir_error err = {0};
        const weir_schema *os;
        if (same) {
            out->s = same->s;
            os = same->schema;
        } else {
            weir_stream win_in = pr.s;
            const weir_schema *win_schema = pr.schema;
            if (two) {
                weir_agg *global = plan_alloc(pc, (as->n_calls + 1) * sizeof *global);
                if (!global)
                    return WEIR_ENOMEM;
                int64_t slice, off;
                plan_window_slices(wa, &slice, &off);
                if ((rc = plan_local_agg(pc, pr.s, pr.schema, as->n_keys, aggs, NULL, as->n_calls, slice, off,
                                         sel->loc, &win_in, &win_schema, global)))
                    return rc;
                explain_line(pc, "LocalWindowAggregate[%d]: keys=%u aggs=%u slice=%lld", win_in.node, as->n_keys,
                             as->n_calls, (long long)slice);
                ws.aggs = global;
            }
            if (buckets) {
                int partial;
                if ((rc = plan_split_distinct_window(pc, &pr, as->n_keys, &ws, buckets, sel->loc, &partial, &out->s,
                                                     &os)))
                    return rc;
                explain_line(pc, "PartialWindowAggregate[%d]: keys=%u+bucket buckets=%u aggs=%u", partial,
                             as->n_keys, buckets, as->n_calls);
            } else {
                if ((rc = weir_job_window(pc->job, win_in, win_schema, &ws, 0, &out->s, &err)))
                    return plan_error(pc, sel->loc, rc, "%s", err.message);
                if (two && (rc = weir__job_describe_two_phase(pc->job, out->s, as->n_keys, as->n_calls)))
                    return rc;
                weir_schema *ws_out;
                if ((rc = weir_window_output_schema(&ws, win_schema, &ws_out, &err)))
                    return plan_error(pc, sel->loc, rc, "%s", err.message);
                if ((rc = plan_keep_schema(pc, ws_out)))
                    return rc;
                os = ws_out;
            }
        }
        out->schema = (weir_schema *)os;
        as->ws_out = as->n_keys;
        as->we_out = as->n_keys + 1;
        as->wt_out = as->n_keys + 2;
        for (uint32_t i = 0; i < as->n_calls; i++)
            as->calls[i].out_col = as->n_keys + 3 + i;
        /* window_time is a time attribute of the same kind as the window's */
        if (proctime) {
            out->has_proctime = true;
            out->proctime = as->wt_out;
        } else {
            out->rowtime = (int)as->wt_out;
        }
        out->updating = ws.accumulation == WEIR_ACC_RETRACTING;
        if (as->cascade)
            as->ws_out = as->cascade_ws_key;
        /* Event-time windows, one final row per window: the output keeps the window's properties. */
        if (!proctime && !out->updating)
            out->wprops = (rel_wprops){true, as->cascade ? in->wprops.assigner : ws.assigner, as->ws_out, as->we_out,
                                       (int32_t)as->wt_out, ws.time_zone != NULL};
        /* Fired once W >= end and never again: every later row ends after the watermark. */
        out->above_wm = !proctime && !out->updating && ws.allowed_lateness_ms == 0;
        out->above_col = as->we_out;
        out->above_node = out->s.node;
        static const char *kinds[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION", "GLOBAL"};
        if (same) {
            /* the first one sends the late records already */
            explain_line(pc, "Reused[%d]: WindowAggregate", out->s.node);
            goto done;
        }
        const weir_window_assigner *sa = as->cascade ? &in->wprops.assigner : &ws.assigner;
        /* split: the final operator is a tumbling window of the step over the partial windows' rows */
        char split_note[96] = "";
        if (buckets && sa->kind != WEIR_WINDOW_TUMBLING)
            snprintf(split_note, sizeof split_note, " (on the partial windows: TUMBLE size=%lld)",
                     (long long)sa->slide_ms);
        explain_line(pc, "%sWindowAggregate[%d]: %s size=%lld slide=%lld gap=%lld keys=%u aggs=%u lateness=%lld%s%s%s%s%s%s",
                     two ? "Global" : buckets ? "Final" : "", out->s.node, kinds[sa->kind], (long long)sa->size_ms, (long long)sa->slide_ms,
                     (long long)sa->gap_ms, as->n_keys, as->n_calls, (long long)ws.allowed_lateness_ms,
                     as->cascade ? " (on the input's windows)" : "", split_note, out->updating ? " (changelog)" : "",
                     proctime ? " (processing time)" : "", ws.time_zone ? " time-zone=" : "",
                     ws.time_zone ? ws.time_zone : "");
        /* A cascaded aggregation's rows come from windows that fired before the watermark passed them:
         * never late, so it has no late output. */
        if (!as->cascade && (rc = plan_late_output(pc, out->s, pr.schema, in, sel->loc)))
            return rc;
        out->n_physical = out->schema->n_fields;
        if ((rc = plan_reuse_add(pc, PLAN_REUSE_OPERATOR, dg, out)))
            return rc;
    } else {
        weir_schema *os = plan_new_schema(pc);
        if (!os)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < as->n_keys; i++)
            if (weir_schema_add(os, pr.schema->fields[i].name, pr.schema->fields[i].type) < 0)
                return WEIR_ENOMEM;
        for (uint32_t i = 0; i < as->n_calls; i++) {
            char nm[32];
            snprintf(nm, sizeof nm, "$agg%u", i);
            if (weir_schema_add(os, nm, aggs[i].result_type) < 0)
                return WEIR_ENOMEM;
            as->calls[i].out_col = as->n_keys + i;
        }
        int64_t ttl = 0;
        const char *v = plan_config(pc, "table.exec.state.ttl");
        if (v && weir_option_parse_duration(v, &ttl))
            return plan_error(pc, plan_config_at(pc, "table.exec.state.ttl", sel->loc), WEIR_EINVAL, "table.exec.state.ttl: invalid duration '%s'", v);
        if ((rc = plan_hint_state_ttl(pc, sel->from, &ttl)))
            return rc;
        bool mini = false;
        if ((v = plan_config(pc, "table.exec.mini-batch.enabled")) && weir_option_parse_bool(v, &mini))
            return plan_error(pc, plan_config_at(pc, "table.exec.mini-batch.enabled", sel->loc), WEIR_EINVAL, "table.exec.mini-batch.enabled: expected 'true' or 'false', got '%s'", v);
        uint64_t dcache = 0; /* the COUNT(DISTINCT) cache's bound; changes no result */
        if ((v = plan_config(pc, "weir.distinct-cache.size")) && (weir_option_parse_size(v, &dcache) || !dcache))
            return plan_error(pc, plan_config_at(pc, "weir.distinct-cache.size", sel->loc), WEIR_EINVAL, "weir.distinct-cache.size: expected a size such as '32 mb', got '%s'", v);
        if ((rc = weir_buf_printf(dg, "|ttl%lld|mb%d", (long long)ttl, (int)mini)))
            return rc;
        /* Two phases (twophase.c) as in Flink only with mini-batch, and over an insert-only input: the
         * local phase folds inserts only. */
        bool two = false;
        if (mini && !in->updating && (rc = plan_agg_phases(pc, pr.s, aggs, as->n_calls, sel->loc, &two)))
            return rc;
        if (two && (rc = weir_buf_printf(dg, "|two-phase")))
            return rc;
        /* Split distinct aggregation (splitdistinct.c): a partial aggregation by keys and bucket first. */
        uint32_t buckets = 0, n_final = 0;
        weir_schema *fs = NULL; /* the final aggregation's columns when an AVG was split */
        if (!two && (rc = plan_split_distinct_buckets(pc, pr.schema, as->n_keys, aggs, as->n_calls, false, sel->loc, &buckets)))
            return rc;
        if (buckets && (rc = weir_buf_printf(dg, "|split%u", buckets)))
            return rc;
        /* With no aggregate an insert-only input gives an insert-only DISTINCT. */
        out->updating = as->n_calls > 0 || in->updating;
        const rel *same = plan_reuse_find(pc, PLAN_REUSE_OPERATOR, dg);
        if (same) {
            out->s = same->s;
            out->schema = same->schema;
            explain_line(pc, "Reused[%d]: GroupAggregate", out->s.node);
            plan_ukey_set(out, ks.cols, ks.n); /* a group's changes come from its key's subtask */
            goto done;
        }
        int32_t *filters = plan_alloc(pc, (as->n_calls + 1) * sizeof *filters);
        if (!filters)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < as->n_calls; i++)
            filters[i] = as->calls[i].filter_col;
        weir_stream agg_in = pr.s;
        weir_group_agg_config gc = {.keys = ks, .n_aggs = as->n_calls, .aggs = aggs, .filter_cols = filters,
                                   .out_schema = os, .state_ttl_ms = ttl, .mini_batch = mini,
                                   .distinct_cache_bytes = dcache};
        if (two) {
            weir_agg *global = plan_alloc(pc, (as->n_calls + 1) * sizeof *global);
            const weir_schema *ls;
            if (!global)
                return WEIR_ENOMEM;
            if ((rc = plan_local_agg(pc, pr.s, pr.schema, as->n_keys, aggs, filters, as->n_calls, 0, 0, sel->loc,
                                     &agg_in, &ls, global)))
                return rc;
            explain_line(pc, "LocalGroupAggregate[%d]: keys=%u aggs=%u", agg_in.node, as->n_keys, as->n_calls);
            gc.aggs = global;
            gc.filter_cols = NULL;
        } else if (buckets) {
            weir_agg *final = plan_alloc(pc, (2 * as->n_calls + 1) * sizeof *final);
            const weir_schema *ps;
            if (!final)
                return WEIR_ENOMEM;
            if ((rc = plan_split_distinct(pc, &pr, as->n_keys, aggs, filters, as->n_calls, buckets, &gc, sel->loc,
                                          &agg_in, &ps, final, &n_final)))
                return rc;
            explain_line(pc, "PartialGroupAggregate[%d]: keys=%u+bucket buckets=%u aggs=%u (changelog)",
                         agg_in.node, as->n_keys, buckets, n_final);
            gc.aggs = final;
            gc.n_aggs = n_final;
            gc.filter_cols = NULL;
            /* an AVG's sum and count come out of the final aggregation apart: a Calc divides them below */
            if (n_final != as->n_calls &&
                (rc = plan_split_distinct_final_schema(pc, os, as->n_keys, final, n_final, &fs)))
                return rc;
            if (fs)
                gc.out_schema = fs;
        }
        weir_operator_spec spec;
        if ((rc = weir_group_agg_spec(&gc, &spec)))
            return rc;
        weir_stream keyed = weir_stream_key_by(agg_in, ks.cols, ks.n);
        if (ks.n == 0)
            keyed = weir_stream_partition(agg_in, WEIR_PART_GLOBAL);
        if ((rc = weir_job_operator(pc->job, &keyed, 1, &spec, fs ? fs : os, ks.n == 0 ? 1 : 0, &out->s))) {
            spec.free_arg(spec.arg);
            return plan_error(pc, sel->loc, rc, "cannot add the aggregation: %s", weir_job_error(pc->job));
        }
        if ((rc = weir__job_describe_aggs(pc->job, out->s, buckets ? gc.aggs : aggs, gc.n_aggs)))
            return rc;
        if (two && (rc = weir__job_describe_two_phase(pc->job, out->s, as->n_keys, as->n_calls)))
            return rc;
        out->schema = os;
        explain_line(pc, "%sGroupAggregate[%d]: keys=%u aggs=%u%s (changelog)",
                     two ? "Global" : buckets ? "Final" : "", out->s.node,
                     as->n_keys, gc.n_aggs,
                     mini ? " mini-batch" : "");
        if (fs) {
            rel fr = {.s = out->s, .schema = fs, .rowtime = -1, .updating = true, .n_physical = fs->n_fields,
                      .loc = sel->loc}, ar;
            if ((rc = plan_split_distinct_avg(pc, &fr, as->n_keys, aggs, as->n_calls, os, &ar)))
                return rc;
            out->s = ar.s;
            out->schema = ar.schema;
        }
        out->n_physical = out->schema->n_fields;
        /* a group's changes all come from its key's subtask, in order: the keys (the first columns) are an
         * upsert key */
        uint32_t kcols[WEIR_KEY_MAX_COLS];
        for (uint32_t i = 0; i < as->n_keys && i < WEIR_KEY_MAX_COLS; i++)
            kcols[i] = i;
        plan_ukey_set(out, kcols, as->n_keys);
        if ((rc = plan_reuse_add(pc, PLAN_REUSE_OPERATOR, dg, out)))
            return rc;
    }
done:
    out->n_physical = out->schema->n_fields;
    if (rel_quals(pc, out, NULL))
        return WEIR_ENOMEM;
    as->out = out;
    as->phase = AGG_BIND;
    return 0;
}

/*
 * The weir extension for late records: SET 'weir.late-records.table' = 't'
 * sends the late rows of every windowed aggregation to table t, columns
 * matched by name among the window's input columns (the pre-projection
 * carries every input column t names), `watermark` and `lateness_ms`. A
 * column of t that is none of these is refused here, by name: a late row
 * is never silently incomplete.
 */
static int plan_late_output(plan_ctx *pc, weir_stream win, const weir_schema *pre, const rel *in, weir_sql_loc loc)
{
    cat_table *t;
    int rc = plan_late_table(pc, loc, false, &t);
    if (rc || !t)
        return rc;
    const char *tn = t->name;
    weir_schema *ls;
    rc = weir_window_late_schema(pre, &ls);
    if (rc)
        return rc;
    if ((rc = plan_keep_schema(pc, ls)))
        return rc;
    rel lr = {.s = weir_stream_side(win, WEIR_WINDOW_LATE_TAG), .schema = ls, .rowtime = -1,
              .n_physical = ls->n_fields, .loc = loc};
    if ((rc = weir_job_set_side_schema(pc->job, win, WEIR_WINDOW_LATE_TAG, ls)))
        return plan_error(pc, loc, rc, "cannot route late records: %s", weir_job_error(pc->job));
    if ((rc = rel_quals(pc, &lr, NULL)))
        return rc;
    /* columns of the late table by name; missing ones are NULL */
    const weir_schema *ts = t->physical;
    weir_expr **exprs = plan_alloc(pc, (ts->n_fields + 1) * sizeof *exprs);
    const char **names = plan_alloc(pc, (ts->n_fields + 1) * sizeof *names);
    if (!exprs || !names)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < ts->n_fields; i++) {
        weir_error err = {0};
        int c = weir_schema_find(ls, ts->fields[i].name);
        weir_expr *e;
        if (c < 0 || (!is_late_meta_column(ts->fields[i].name) && pre->fields[c].name[0] == '$')) {
            weir_buf cols;
            weir_buf_init(&cols);
            for (uint32_t j = 0; j < in->n_physical; j++)
                if (in->schema->fields[j].name[0] != '$')
                    weir_buf_printf(&cols, "%s%s", cols.len ? ", " : "", in->schema->fields[j].name);
            weir_buf_put_u8(&cols, 0);
            rc = plan_error(pc, plan_config_at(pc, "weir.late-records.table", loc), WEIR_EPLAN,
                            "late-records table '%s': column '%s' cannot be filled: a late row has the window "
                            "aggregation's input columns (%s), `watermark` and `lateness_ms`",
                            tn, ts->fields[i].name, cols.data ? (char *)cols.data : "");
            weir_buf_fini(&cols);
            return rc;
        }
        if ((rc = weir_expr_column(pc->arena, (uint32_t)c, ls->fields[c].type, &e, &err)))
            return rc;
        weir_type want = ts->fields[i].type;
        want.nullable = true;
        weir_type have = weir_expr_type(e);
        if (have.id != want.id || have.precision != want.precision || have.scale != want.scale) {
            if ((rc = weir_expr_cast(pc->arena, e, want, false, &e, &err)))
                return plan_error(pc, loc, rc, "late-records table '%s', column '%s': %s", tn, ts->fields[i].name,
                                  err.message);
        }
        exprs[i] = e;
        names[i] = ts->fields[i].name;
    }
    rel cr;
    if ((rc = plan_calc(pc, &lr, NULL, exprs, names, ts->n_fields, &cr, "LateRecords")))
        return rc;
    return plan_sink_table(pc, t, &cr, loc);
}

/* --------------------------------------------------------------- SELECT */

/*
 * The distinct rows of r (UNION without ALL): a group aggregation keyed by
 * every column, with no aggregate. Its result is append-only when r is (a
 * row is emitted when its value is first seen), a changelog otherwise.
 */
int plan_distinct(plan_ctx *pc, rel *r, weir_sql_loc loc)
{
    if (r->n_physical > WEIR_KEY_MAX_COLS)
        return plan_error(pc, loc, WEIR_EUNSUPPORTED, "UNION of more than %d columns is not supported yet",
                          WEIR_KEY_MAX_COLS);
    int64_t ttl = 0;
    const char *v = plan_config(pc, "table.exec.state.ttl");
    if (v && weir_option_parse_duration(v, &ttl))
        return plan_error(pc, plan_config_at(pc, "table.exec.state.ttl", loc), WEIR_EINVAL,
                          "table.exec.state.ttl: invalid duration '%s'", v);
    weir_schema *os = plan_new_schema(pc);
    if (!os)
        return WEIR_ENOMEM;
    weir_keyspec ks = {.n = r->n_physical};
    for (uint32_t i = 0; i < r->n_physical; i++) {
        ks.cols[i] = i;
        if (weir_schema_add(os, r->schema->fields[i].name, r->schema->fields[i].type) < 0)
            return WEIR_ENOMEM;
    }
    weir_group_agg_config gc = {.keys = ks, .out_schema = os, .state_ttl_ms = ttl};
    weir_operator_spec spec;
    int rc = weir_group_agg_spec(&gc, &spec);
    if (rc)
        return rc;
    weir_stream keyed = weir_stream_key_by(r->s, ks.cols, ks.n);
    weir_stream s;
    if ((rc = weir_job_operator(pc->job, &keyed, 1, &spec, os, 0, &s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, loc, rc, "cannot add the distinct rows: %s", weir_job_error(pc->job));
    }
    explain_line(pc, "GroupAggregate[%d]: keys=%u aggs=0 (distinct rows%s)", s.node, ks.n,
                 r->updating ? ", changelog" : "");
    r->s = s;
    r->schema = os;
    r->rowtime = -1;
    r->has_proctime = false;
    r->wprops.present = false;
    r->above_wm = false;
    return 0;
}

/*
 * INTERSECT / EXCEPT [ALL] of two inputs already aligned to schema us: both
 * keyed by every column into one operator that counts each row value per
 * side (ops/setop.c). Append-only when both inputs are and the operation
 * is an INTERSECT (a row's multiplicity then only grows); a changelog
 * otherwise (a row of the right side retracts an EXCEPT's row).
 */
static int plan_setop(plan_ctx *pc, const weir_sql_query *q, const char *what, const rel *l, const rel *r,
                      weir_schema *us, rel *out)
{
    uint32_t n = l->n_physical;
    if (n > WEIR_KEY_MAX_COLS)
        return plan_error(pc, q->u.setop.op_loc, WEIR_EUNSUPPORTED, "%s of more than %d columns is not supported yet",
                          what, WEIR_KEY_MAX_COLS);
    int64_t ttl = 0;
    const char *v = plan_config(pc, "table.exec.state.ttl");
    if (v && weir_option_parse_duration(v, &ttl))
        return plan_error(pc, plan_config_at(pc, "table.exec.state.ttl", q->u.setop.op_loc), WEIR_EINVAL,
                          "table.exec.state.ttl: invalid duration '%s'", v);
    bool intersect = q->u.setop.op == WEIR_SQL_SETOP_INTERSECT;
    weir_setop_config sc = {.kind = intersect ? WEIR_SETOP_INTERSECT : WEIR_SETOP_EXCEPT,
                            .all = q->u.setop.all,
                            .n_cols = n,
                            .out_schema = us,
                            .state_ttl_ms = ttl};
    weir_operator_spec spec;
    int rc = weir_setop_spec(&sc, &spec);
    if (rc)
        return rc;
    uint32_t cols[WEIR_KEY_MAX_COLS];
    for (uint32_t i = 0; i < n; i++)
        cols[i] = i;
    weir_stream ins[2] = {weir_stream_key_by(l->s, cols, n), weir_stream_key_by(r->s, cols, n)};
    memset(out, 0, sizeof *out);
    if ((rc = weir_job_operator(pc->job, ins, 2, &spec, us, 0, &out->s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, q->u.setop.op_loc, rc, "cannot add %s: %s", what, weir_job_error(pc->job));
    }
    bool updating = l->updating || r->updating || !intersect;
    explain_line(pc, "SetOp[%d]: %s%s", out->s.node, what, updating ? " (changelog)" : "");
    us->rowtime = -1;
    out->schema = us;
    out->n_physical = n;
    out->rowtime = -1;
    out->has_proctime = false;
    out->updating = updating;
    out->win.present = false;
    out->wprops.present = false;
    out->above_wm = false;
    out->loc = q->loc;
    return rel_quals(pc, out, NULL);
}

/* An aggregation's WHERE is applied before it: a Calc that keeps the input's columns (*filter consumed). */
static int filter_first(plan_ctx *pc, rel *in, weir_expr **filter)
{
    if (!*filter)
        return 0;
    rel f;
    int rc = plan_calc(pc, in, *filter, NULL, NULL, 0, &f, "Calc");
    if (rc)
        return rc;
    f.schema = in->schema;
    f.quals = in->quals;
    f.hidden = in->hidden;
    f.n_hidden = in->n_hidden;
    f.n_physical = in->n_physical;
    f.win = in->win;
    f.rowtime = in->rowtime;
    *in = f;
    *filter = NULL;
    return 0;
}

/*
 * SELECT without FROM (SELECT 1, 'a'): one row, as Flink - the SELECT over
 * a one-row VALUES (0) whose column nothing reads.
 */
static int select_one_row(plan_ctx *pc, const weir_sql_select *sel, weir_sql_select *copy)
{
    weir_sql_expr *zero = plan_alloc(pc, sizeof *zero);
    weir_sql_expr **items = plan_alloc(pc, sizeof *items);
    weir_sql_expr_list *row = plan_alloc(pc, sizeof *row);
    weir_sql_query *q = plan_alloc(pc, sizeof *q);
    weir_sql_table_ref *from = plan_alloc(pc, sizeof *from);
    if (!zero || !items || !row || !q || !from)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < sel->n_items; i++)
        if (sel->items[i].expr->kind == WEIR_SQL_EXPR_STAR)
            return plan_error(pc, sel->items[i].expr->loc, WEIR_EPLAN, "SELECT * needs a FROM clause");
    memset(zero, 0, sizeof *zero);
    zero->kind = WEIR_SQL_EXPR_LITERAL;
    zero->loc = sel->loc;
    zero->height = 1;
    zero->u.lit.kind = WEIR_SQL_LIT_INTEGER;
    zero->u.lit.text = "0";
    zero->u.lit.len = 1;
    items[0] = zero;
    *row = (weir_sql_expr_list){items, 1, sel->loc};
    memset(q, 0, sizeof *q);
    q->kind = WEIR_SQL_QUERY_VALUES;
    q->loc = sel->loc;
    q->height = 2;
    q->u.values.rows = row;
    q->u.values.n_rows = 1;
    memset(from, 0, sizeof *from);
    from->kind = WEIR_SQL_FROM_SUBQUERY;
    from->loc = sel->loc;
    from->height = 3;
    from->u.subquery.query = q;
    *copy = *sel;
    copy->from = from;
    return 0;
}

/*
 * SELECT DISTINCT * (or t.*) without GROUP BY: each star written out as the
 * columns it stands for (as the SELECT list below expands it), each named
 * by its qualifier where it has one and by its position (columns of a
 * subquery's SELECT k, k or a LATERAL subquery's k beside the table's
 * share a name), so that they become the grouping keys as in SELECT
 * DISTINCT a, b. *copy is sel with the new items.
 */
static int distinct_star(plan_ctx *pc, const weir_sql_select *sel, const rel *in, weir_sql_select *copy)
{
    /* a window table function's columns are not carried yet (the window aggregation makes them) */
    uint32_t nc = in->win.present ? in->schema->n_fields : in->n_physical, n = 0;
    for (uint32_t i = 0; i < sel->n_items; i++)
        n += sel->items[i].expr->kind == WEIR_SQL_EXPR_STAR ? nc : 1;
    weir_sql_select_item *items = plan_alloc(pc, (n + 1) * sizeof *items);
    if (!items)
        return WEIR_ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < sel->n_items; i++) {
        const weir_sql_expr *e = sel->items[i].expr;
        if (e->kind != WEIR_SQL_EXPR_STAR) {
            items[k++] = sel->items[i];
            continue;
        }
        const weir_sql_name *q = &e->u.star.qualifier;
        bool any = false;
        for (uint32_t c = 0; c < nc; c++) {
            if (q->n_parts ? !plan_column_qualified(pc, in, c, q, q->n_parts) : plan_col_hidden(in, c))
                continue;
            if (plan_is_scalar_column(in->schema->fields[c].name))
                continue;
            const char *qual = in->quals ? in->quals[c] : NULL;
            weir_sql_expr *col = plan_alloc(pc, sizeof *col);
            weir_sql_ident *parts = plan_alloc(pc, 2 * sizeof *parts);
            if (!col || !parts)
                return WEIR_ENOMEM;
            uint32_t np = 0;
            if (qual)
                parts[np++] = (weir_sql_ident){.name = qual, .len = (uint32_t)strlen(qual), .quoted = true, .loc = e->loc};
            const char *nm = in->schema->fields[c].name;
            parts[np++] = (weir_sql_ident){
                .name = nm, .len = (uint32_t)strlen(nm), .quoted = true, .loc = e->loc, .ordinal = c + 1};
            memset(col, 0, sizeof *col);
            col->kind = WEIR_SQL_EXPR_COLUMN;
            col->loc = e->loc;
            col->height = 1;
            col->u.column = (weir_sql_name){.parts = parts, .n_parts = np, .loc = e->loc};
            items[k++] = (weir_sql_select_item){.expr = col, .alias = NULL};
            any = true;
        }
        if (q->n_parts && !any)
            return plan_error(pc, e->loc, WEIR_ENOTFOUND, "unknown table or alias '%s'", q->parts[q->n_parts - 1].name);
    }
    *copy = *sel;
    copy->items = items;
    copy->n_items = k;
    return 0;
}

static int plan_select_in(plan_ctx *pc, const weir_sql_select *sel, agg_scope *asp, rel *out)
{
    weir_sql_select one_row, on_moved;
    bool moved;
    int mrc = plan_on_subqueries(pc, sel, &on_moved, &moved);
    if (mrc)
        return mrc;
    if (moved)
        sel = &on_moved;
    if (!sel->from) {
        int rc = select_one_row(pc, sel, &one_row);
        if (rc)
            return rc;
        sel = &one_row;
    }
    rel in;
    int rc;
    bool where_done = false, ranked = false;
    const weir_sql_table_ref *fr = sel->from;
    const weir_sql_expr *where = sel->where;
    if ((rc = plan_rank(pc, sel, &in, &where, &ranked)))
        return rc;
    if (ranked) {
        /* Top-N: planned with its input; where holds the rest of the WHERE */
    } else if (sel->where && plan_join_takes_where(fr) && !has_agg(sel->where)) {
        /* FROM a, b WHERE a.k = b.k: the WHERE conjuncts of inner joins are join conditions. */
        join_conds *jc;
        if (!(rc = plan_projection_begin(pc, sel)) && !(rc = plan_join_conds_make(pc, sel->where, &jc)))
            rc = plan_join(pc, fr, jc, &in);
        plan_projection_end(pc);
        if (rc)
            return rc;
        where_done = plan_join_conds_all_used(jc);
    } else {
        rc = plan_projection_begin(pc, sel);
        const weir_sql_table_ref *pf = pc->prune_from;
        const weir_sql_expr *pw = pc->prune_where;
        pc->prune_from = fr && fr->kind == WEIR_SQL_FROM_TABLE ? fr : NULL;
        pc->prune_where = sel->where;
        if (!rc)
            rc = plan_from(pc, sel->from, &in);
        pc->prune_from = pf;
        pc->prune_where = pw;
        plan_projection_end(pc);
        if (rc)
            return rc;
    }
    weir_sql_select star_out;
    bool star = false;
    for (uint32_t i = 0; i < sel->n_items; i++)
        star |= sel->items[i].expr->kind == WEIR_SQL_EXPR_STAR;
    if (star && sel->distinct && sel->n_group_by == 0) {
        if ((rc = distinct_star(pc, sel, &in, &star_out)))
            return rc;
        sel = &star_out;
    }
    bool aggregating = sel->n_group_by > 0 || sel->distinct || sel->having || asp->gs_force;
    for (uint32_t i = 0; i < sel->n_items && !aggregating; i++)
        aggregating = sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR && has_agg(sel->items[i].expr);
    if (!aggregating && in.win.present && !plan_select_has_over(sel)) {
        /*
         * A window table function used as a table (no GROUP BY): its rows,
         * one per window with window_start, window_end and window_time, as
         * Flink's window TVF. A window Top-N's or a window join's input gets
         * its windows this way too, so a WHERE may read them.
         */
        bool topn = pc->window_assign_ok;
        pc->window_assign_ok = false; /* for this SELECT only, not for queries nested below */
        if ((rc = window_assign(pc, &in, topn ? "a window Top-N" : "a window table function used as a table", !topn)))
            return rc;
    }
    /* IN / EXISTS subqueries among the WHERE conjuncts: semi and anti joins of the input (subquery.c) */
    if (where && !where_done && (rc = plan_where_subqueries(pc, &in, where, &where)))
        return rc;
    /* scalar subqueries: joined as hidden columns (subquery.c) */
    if ((rc = plan_scalar_subqueries(pc, &in, sel, where_done ? NULL : where, aggregating)))
        return rc;
    weir_expr *filter = NULL;
    if (where && !where_done) {
        if (has_agg(where))
            return plan_error(pc, where->loc, WEIR_EPLAN, "aggregate functions are not allowed in WHERE");
        if ((rc = plan_bind_expr(pc, &in, NULL, where, &filter)))
            return rc;
        weir_type t = weir_expr_type(filter);
        if (t.id != WEIR_TYPE_BOOLEAN && t.id != WEIR_TYPE_NULL)
            return plan_error(pc, where->loc, WEIR_EPLAN, "WHERE must be a BOOLEAN condition, not %s",
                              weir_type_name(t.id));
    }
    agg_scope *as_ = asp;
    const rel *src = &in;
    rel agg;
    weir_expr *post_filter = NULL;
    bool over = false;
    if (aggregating && plan_select_has_over(sel))
        return plan_error(pc, sel->loc, WEIR_EUNSUPPORTED,
                          "OVER aggregates cannot be mixed with GROUP BY, DISTINCT or other aggregates in one "
                          "SELECT; aggregate in a subquery first");
    if (aggregating) {
        if ((rc = filter_first(pc, &in, &filter)))
            return rc;
        if ((rc = plan_aggregate(pc, sel, &in, as_, &agg)))
            return rc;
        /* scalar subqueries of the SELECT list and HAVING: joined to the groups (subquery.c) */
        if ((rc = plan_scalar_subqueries_agg(pc, &agg, sel, &in, as_)))
            return rc;
        src = &agg;
        if (sel->having && (rc = plan_bind_expr(pc, &agg, as_, sel->having, &post_filter)))
            return rc;
        weir_type ht = post_filter ? weir_expr_type(post_filter) : (weir_type){.id = WEIR_TYPE_BOOLEAN};
        if (ht.id != WEIR_TYPE_BOOLEAN && ht.id != WEIR_TYPE_NULL)
            return plan_error(pc, sel->having->loc, WEIR_EPLAN, "HAVING must be a BOOLEAN condition, not %s",
                              weir_type_name(ht.id));
    } else if (plan_select_has_over(sel)) {
        if ((rc = filter_first(pc, &in, &filter)))
            return rc;
        if ((rc = plan_over(pc, sel, &in, as_, &agg)))
            return rc;
        src = &agg;
        over = true;
    }
    /* SELECT list */
    uint32_t n = 0;
    for (uint32_t i = 0; i < sel->n_items; i++) {
        const weir_sql_expr *e = sel->items[i].expr;
        n += e->kind == WEIR_SQL_EXPR_STAR ? (aggregating ? 1 : in.n_physical) : 1;
    }
    weir_expr **exprs = plan_alloc(pc, (n + 1) * sizeof *exprs);
    const char **names = plan_alloc(pc, (n + 1) * sizeof *names);
    if (!exprs || !names)
        return WEIR_ENOMEM;
    uint32_t k = 0;
    int32_t proctime_item = -1; /* output column of the first PROCTIME() item */
    bool identity = !aggregating && !over && !filter;
    for (uint32_t i = 0; i < sel->n_items; i++) {
        const weir_sql_expr *e = sel->items[i].expr;
        if (e->kind == WEIR_SQL_EXPR_STAR) {
            if (aggregating)
                return plan_error(pc, e->loc, WEIR_EPLAN, "'*' cannot be used with GROUP BY or aggregates");
            const weir_sql_name *q = &e->u.star.qualifier;
            const char *qual = q->n_parts ? q->parts[q->n_parts - 1].name : NULL;
            bool any = false;
            for (uint32_t c = 0; c < in.n_physical; c++) {
                if (qual && !plan_column_qualified(pc, &in, c, q, q->n_parts))
                    continue;
                if (!qual && plan_col_hidden(&in, c))
                    continue; /* a NATURAL / USING input's copy: the common column stands for it */
                if (plan_is_scalar_column(in.schema->fields[c].name))
                    continue; /* a scalar subquery's value, hidden */
                weir_error err = {0};
                if (weir_expr_column(pc->arena, c, in.schema->fields[c].type, &exprs[k], &err))
                    return WEIR_ENOMEM;
                identity &= k == c;
                names[k++] = in.schema->fields[c].name;
                any = true;
            }
            if (qual && !any)
                return plan_error(pc, e->loc, WEIR_ENOTFOUND, "unknown table or alias '%s'", qual);
            continue;
        }
        if ((rc = plan_bind_expr(pc, src, aggregating || over ? as_ : NULL, e, &exprs[k])))
            return rc;
        if (proctime_item < 0 && plan_is_proctime_call(e))
            proctime_item = (int32_t)k;
        char nm[256];
        plan_item_name(&sel->items[i], i, nm, sizeof nm);
        names[k] = plan_strdup(pc, nm);
        identity &= weir_expr_column_index(exprs[k]) == (int32_t)k && !strcmp(nm, src->schema->fields[k].name);
        k++;
    }
    identity &= k == src->n_physical;
    rel res;
    if (identity) {
        res = in;
    } else if ((rc = plan_calc(pc, (rel *)src, aggregating ? post_filter : filter, exprs, names, k, &res, "Calc"))) {
        return rc;
    }
    if (proctime_item >= 0 && !res.has_proctime) {
        res.has_proctime = true;
        res.proctime = (uint32_t)proctime_item;
    }
    res.updating = src->updating;
    res.loc = sel->loc;
    *out = res;
    return 0;
}

static bool types_match(weir_type a, weir_type b)
{
    return a.id == b.id && a.precision == b.precision && a.scale == b.scale;
}

/*
 * A union's inputs must all emit its schema (names, types, nullability and
 * time attribute): a projection makes r's rows carry want when they do not.
 */
int plan_union_align(plan_ctx *pc, rel *r, weir_schema *want)
{
    if (weir_schema_equal(r->schema, want))
        return 0;
    uint32_t n = want->n_fields;
    weir_expr **ex = plan_alloc(pc, (n + 1) * sizeof *ex);
    const char **nm = plan_alloc(pc, (n + 1) * sizeof *nm);
    if (!ex || !nm)
        return WEIR_ENOMEM;
    bool widen = false;
    for (uint32_t i = 0; i < n; i++)
        widen |= !types_match(r->schema->fields[i].type, want->fields[i].type);
    int rc;
    if (widen) { /* numeric columns cast to the union's types first, then labelled with its nullability */
        for (uint32_t i = 0; i < n; i++) {
            weir_error err = {0};
            weir_type have = r->schema->fields[i].type;
            if ((rc = weir_expr_column(pc->arena, i, have, &ex[i], &err)))
                return rc;
            if (!types_match(have, want->fields[i].type) &&
                (rc = weir_expr_cast(pc->arena, ex[i], want->fields[i].type, false, &ex[i], &err)))
                return plan_error(pc, r->loc, rc, "%s", err.message);
            nm[i] = r->schema->fields[i].name;
        }
        rel c;
        if ((rc = plan_calc(pc, r, NULL, ex, nm, n, &c, "Calc")))
            return rc;
        *r = c;
        if (weir_schema_equal(r->schema, want))
            return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        weir_error err = {0};
        if ((rc = weir_expr_column(pc->arena, i, want->fields[i].type, &ex[i], &err)))
            return rc;
        nm[i] = want->fields[i].name;
    }
    rel o;
    rc = plan_calc(pc, r, NULL, ex, nm, n, &o, "Calc");
    if (rc)
        return rc;
    ((weir_schema *)o.schema)->rowtime = want->rowtime;
    o.rowtime = want->rowtime;
    *r = o;
    return 0;
}

/*
 * The stream a union at the job's default parallelism reads from r. An
 * updating input with other subtasks than the union's (the single subtask
 * of a global aggregation, the () grouping set) would be spread round-robin
 * over the union's subtasks, so that a key's -U could overtake its +U on
 * another subtask; it goes whole to the union's first subtask instead,
 * which keeps its order.
 */
weir_stream plan_union_input(const plan_ctx *pc, const rel *r)
{
    uint32_t p = plan_forward_parallelism(pc, r->s);
    uint32_t dflt = pc->jcfg.parallelism ? pc->jcfg.parallelism : 1;
    if (!r->updating || p == 0 || p == dflt)
        return r->s;
    return weir_stream_partition(r->s, WEIR_PART_GLOBAL);
}

/* The schema of a union of rels: the first one's, a column nullable where any input's is. */
weir_schema *plan_union_schema(plan_ctx *pc, const rel *rels, uint32_t n)
{
    weir_schema *schema = weir_schema_copy(rels[0].schema);
    if (!schema || plan_keep_schema(pc, schema))
        return NULL;
    for (uint32_t s = 1; s < n; s++) {
        for (uint32_t i = 0; i < schema->n_fields && i < rels[s].schema->n_fields; i++)
            schema->fields[i].type.nullable |= rels[s].schema->fields[i].type.nullable;
        if (rels[s].rowtime != rels[0].rowtime)
            schema->rowtime = -1;
    }
    return schema;
}

static bool uses_grouping(const weir_sql_select *sel)
{
    for (uint32_t i = 0; i < sel->n_group_by; i++)
        if (sel->group_by[i]->kind == WEIR_SQL_EXPR_GROUPING_SETS)
            return true;
    return false;
}

#define MAX_GROUPING_SETS 64
#define MAX_SET_ITEMS 32

typedef struct gset {
    const weir_sql_expr *items[MAX_SET_ITEMS];
    uint32_t n;
} gset;

static char *expr_text(plan_ctx *pc, const weir_sql_expr *e)
{
    weir_buf b;
    weir_buf_init(&b);
    if (weir__sql_format_expr(e, &b) || weir_buf_put_u8(&b, 0)) {
        weir_buf_fini(&b);
        return NULL;
    }
    char *t = plan_strdup(pc, (char *)b.data);
    weir_buf_fini(&b);
    return t;
}

/* Appends e to set s unless s has it (same SQL text). */
static int gset_add(plan_ctx *pc, gset *s, const weir_sql_expr *e, weir_sql_loc loc)
{
    char *t = expr_text(pc, e);
    if (!t)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < s->n; i++) {
        char *u = expr_text(pc, s->items[i]);
        if (!u)
            return WEIR_ENOMEM;
        if (!strcasecmp(t, u))
            return 0;
    }
    if (s->n >= MAX_SET_ITEMS)
        return plan_error(pc, loc, WEIR_EUNSUPPORTED, "a grouping set of more than %d expressions is not supported",
                          MAX_SET_ITEMS);
    s->items[s->n++] = e;
    return 0;
}

static int item_sets(plan_ctx *pc, const weir_sql_expr *g, gset *out, uint32_t *n_out);

/*
 * The grouping sets of a list of GROUP BY items (the GROUP BY itself, or
 * one set of GROUPING SETS): the cross product of the items' sets, where a
 * plain expression is one set of one. Up to MAX_GROUPING_SETS into out.
 */
static int list_sets(plan_ctx *pc, weir_sql_expr *const *items, uint32_t n_items, gset *out, uint32_t *n_out)
{
    gset *next = plan_alloc(pc, MAX_GROUPING_SETS * sizeof *next);
    gset *alts = plan_alloc(pc, MAX_GROUPING_SETS * sizeof *alts);
    if (!next || !alts)
        return WEIR_ENOMEM;
    uint32_t n = 1;
    memset(&out[0], 0, sizeof out[0]);
    for (uint32_t i = 0; i < n_items; i++) {
        const weir_sql_expr *g = items[i];
        uint32_t n_alts = 0;
        int rc = item_sets(pc, g, alts, &n_alts);
        if (rc)
            return rc;
        if ((uint64_t)n * n_alts > MAX_GROUPING_SETS)
            return plan_error(pc, g->loc, WEIR_EUNSUPPORTED, "more than %d grouping sets are not supported",
                              MAX_GROUPING_SETS);
        uint32_t nn = 0;
        for (uint32_t s = 0; s < n; s++) {
            for (uint32_t k = 0; k < n_alts; k++) {
                next[nn] = out[s];
                for (uint32_t j = 0; j < alts[k].n; j++) {
                    rc = gset_add(pc, &next[nn], alts[k].items[j], g->loc);
                    if (rc)
                        return rc;
                }
                nn++;
            }
        }
        memcpy(out, next, nn * sizeof *out);
        n = nn;
    }
    *n_out = n;
    return 0;
}

/*
 * The grouping sets one GROUP BY item stands for, as Calcite expands them:
 * a plain expression is the set of itself; GROUPING SETS (s1, s2, ...) the
 * sets of every si in turn (a set of several items is their cross
 * product, so GROUPING SETS (ROLLUP(a, b), c) is (a, b), (a), (), (c));
 * ROLLUP(e1, ..., em) the sets e1..em, e1..em-1, ..., () and CUBE(e1, ...,
 * em) every subset, where an element is an expression or a composite
 * (a, b) that comes and goes as one.
 */
static int item_sets(plan_ctx *pc, const weir_sql_expr *g, gset *out, uint32_t *n_out)
{
    if (g->kind != WEIR_SQL_EXPR_GROUPING_SETS) {
        out[0].n = 0;
        *n_out = 1;
        return gset_add(pc, &out[0], g, g->loc);
    }
    uint32_t m = g->u.grouping_sets.n_sets;
    const weir_sql_expr_list *el = g->u.grouping_sets.sets;
    uint32_t n = 0;
    if (g->u.grouping_sets.op == WEIR_SQL_GROUPING_SETS) {
        gset *part = plan_alloc(pc, MAX_GROUPING_SETS * sizeof *part);
        if (!part)
            return WEIR_ENOMEM;
        for (uint32_t k = 0; k < m; k++) {
            uint32_t np = 0;
            int rc = list_sets(pc, el[k].items, el[k].n_items, part, &np);
            if (rc)
                return rc;
            if (n + np > MAX_GROUPING_SETS)
                return plan_error(pc, el[k].loc, WEIR_EUNSUPPORTED, "more than %d grouping sets are not supported",
                                  MAX_GROUPING_SETS);
            memcpy(out + n, part, np * sizeof *out);
            n += np;
        }
        *n_out = n;
        return 0;
    }
    bool cube = g->u.grouping_sets.op == WEIR_SQL_GROUPING_CUBE;
    const char *what = cube ? "CUBE" : "ROLLUP";
    for (uint32_t k = 0; k < m; k++)
        for (uint32_t j = 0; j < el[k].n_items; j++)
            if (el[k].items[j]->kind == WEIR_SQL_EXPR_GROUPING_SETS)
                return plan_error(pc, el[k].items[j]->loc, WEIR_EUNSUPPORTED,
                                  "GROUPING SETS, ROLLUP or CUBE inside %s is not supported (Flink neither)", what);
    if (cube ? m > 6 : m + 1 > MAX_GROUPING_SETS)
        return plan_error(pc, g->loc, WEIR_EUNSUPPORTED, "%s of %u elements makes more than %d grouping sets", what, m,
                          MAX_GROUPING_SETS);
    uint32_t count = cube ? 1u << m : m + 1;
    for (uint32_t k = 0; k < count; k++) {
        gset *a = &out[n++];
        a->n = 0;
        for (uint32_t j = 0; j < m; j++) {
            /* ROLLUP: set k keeps the first m - k elements; CUBE: set k
             * drops the elements of k's bits (the first set keeps all). */
            bool keep = cube ? !(k & (1u << (m - 1 - j))) : j < m - k;
            for (uint32_t i = 0; keep && i < el[j].n_items; i++) {
                int rc = gset_add(pc, a, el[j].items[i], el[j].items[i]->loc);
                if (rc)
                    return rc;
            }
        }
    }
    *n_out = n;
    return 0;
}

/* The grouping sets of a GROUP BY with GROUPING SETS, ROLLUP or CUBE. */
static int expand_grouping_sets(plan_ctx *pc, const weir_sql_select *sel, gset **out, uint32_t *n_out)
{
    *out = plan_alloc(pc, MAX_GROUPING_SETS * sizeof **out);
    if (!*out)
        return WEIR_ENOMEM;
    return list_sets(pc, sel->group_by, sel->n_group_by, *out, n_out);
}

static int plan_select(plan_ctx *pc, const weir_sql_select *sel, rel *out);

/*
 * GROUP BY with GROUPING SETS, ROLLUP or CUBE: the SELECT planned once
 * per grouping set, as a plain GROUP BY of that set in which the other
 * sets' expressions read as NULL, and the results united (UNION ALL).
 * Each set's rows are exactly those of Flink's single aggregation over
 * the expanded input, whose key includes the set.
 */
static int plan_grouping_sets(plan_ctx *pc, const weir_sql_select *sel, rel *out)
{
    gset *sets = NULL;
    uint32_t n_sets = 0;
    int rc = expand_grouping_sets(pc, sel, &sets, &n_sets);
    if (rc)
        return rc;
    /* Every expression of any set, once. */
    const weir_sql_expr **gs_expr = plan_alloc(pc, MAX_GROUPING_SETS * MAX_SET_ITEMS * sizeof *gs_expr);
    char **gs_text = plan_alloc(pc, MAX_GROUPING_SETS * MAX_SET_ITEMS * sizeof *gs_text);
    bool *gs_in = plan_alloc(pc, MAX_GROUPING_SETS * MAX_SET_ITEMS * sizeof *gs_in);
    rel *rels = plan_alloc(pc, n_sets * sizeof *rels);
    if (!gs_expr || !gs_text || !gs_in || !rels)
        return WEIR_ENOMEM;
    uint32_t n_all = 0;
    for (uint32_t s = 0; s < n_sets; s++) {
        for (uint32_t j = 0; j < sets[s].n; j++) {
            char *t = expr_text(pc, sets[s].items[j]);
            if (!t)
                return WEIR_ENOMEM;
            bool have = false;
            for (uint32_t k = 0; k < n_all && !have; k++)
                have = !strcasecmp(gs_text[k], t);
            if (!have) {
                gs_text[n_all] = t;
                gs_expr[n_all++] = sets[s].items[j];
            }
        }
    }
    /* each set's membership, to number the repeats of a set (GROUP_ID()) */
    bool *seen = plan_alloc(pc, (size_t)n_sets * (n_all ? n_all : 1) * sizeof *seen);
    if (!seen)
        return WEIR_ENOMEM;
    for (uint32_t s = 0; s < n_sets; s++) {
        weir_sql_select b = *sel;
        b.group_by = plan_alloc(pc, (sets[s].n + 1) * sizeof *b.group_by);
        if (!b.group_by)
            return WEIR_ENOMEM;
        for (uint32_t j = 0; j < sets[s].n; j++)
            b.group_by[j] = (weir_sql_expr *)sets[s].items[j];
        b.n_group_by = sets[s].n;
        for (uint32_t k = 0; k < n_all; k++) {
            gs_in[k] = false;
            for (uint32_t j = 0; j < sets[s].n && !gs_in[k]; j++) {
                char *t = expr_text(pc, sets[s].items[j]);
                if (!t)
                    return WEIR_ENOMEM;
                gs_in[k] = !strcasecmp(gs_text[k], t);
            }
        }
        /* GROUP_ID(): how many earlier sets group the same expressions (Calcite's numbering of repeats) */
        int64_t group_id = 0;
        memcpy(seen + (size_t)s * n_all, gs_in, n_all * sizeof *seen);
        for (uint32_t t = 0; t < s; t++)
            group_id += !memcmp(seen + (size_t)t * n_all, gs_in, n_all * sizeof *seen);
        agg_scope as;
        memset(&as, 0, sizeof as);
        as.gs_expr = gs_expr;
        as.gs_text = gs_text;
        as.gs_in = gs_in;
        as.gs_group_id = group_id;
        as.n_gs = n_all;
        as.gs_force = true;
        rc = plan_select_in(pc, &b, &as, &rels[s]);
        weir_free(as.calls);
        if (rc)
            return rc;
    }
    if (n_sets == 1) {
        *out = rels[0];
        return 0;
    }
    /* UNION ALL of the sets; a column is nullable when it is in any set. */
    for (uint32_t s = 0; s < n_sets; s++)
        if (rels[s].n_physical != rels[0].n_physical || rels[s].schema->n_fields != rels[0].schema->n_fields)
            return plan_error(pc, sel->loc, WEIR_EPLAN, "internal error: grouping sets give different columns");
    weir_schema *schema = plan_union_schema(pc, rels, n_sets);
    if (!schema)
        return WEIR_ENOMEM;
    weir_stream *ins = plan_alloc(pc, n_sets * sizeof *ins);
    if (!ins)
        return WEIR_ENOMEM;
    bool updating = false;
    for (uint32_t s = 0; s < n_sets; s++) {
        if (rels[s].n_physical != rels[0].n_physical)
            return plan_error(pc, sel->loc, WEIR_EPLAN, "internal error: grouping sets give different columns");
        for (uint32_t i = 0; i < rels[0].n_physical; i++)
            if (!types_match(rels[s].schema->fields[i].type, schema->fields[i].type))
                return plan_error(pc, sel->loc, WEIR_EPLAN, "internal error: grouping sets give different types");
        if ((rc = plan_union_align(pc, &rels[s], schema)))
            return rc;
        ins[s] = plan_union_input(pc, &rels[s]);
        updating |= rels[s].updating;
    }
    weir_operator_spec spec;
    weir_union_spec(n_sets, &spec);
    weir_stream united;
    if ((rc = weir_job_operator(pc->job, ins, n_sets, &spec, schema, 0, &united)))
        return plan_error(pc, sel->loc, rc, "cannot unite the grouping sets: %s", weir_job_error(pc->job));
    explain_line(pc, "Union[%d] (%u grouping sets)", united.node, n_sets);
    int32_t rowtime = schema->rowtime;
    *out = rels[0];
    out->s = united;
    out->schema = schema;
    out->rowtime = rowtime;
    out->has_proctime = false;
    out->updating = updating;
    out->win.present = false;
    out->wprops.present = false;
    out->above_wm = false;
    out->loc = sel->loc;
    return rel_quals(pc, out, NULL);
}

/* The aggregation scope's list of calls is freed on every path. */
static int plan_select(plan_ctx *pc, const weir_sql_select *sel, rel *out)
{
    const weir_sql_hint *outer = pc->qhints;
    uint32_t n_outer = pc->n_qhints;
    int rc = plan_query_hints_enter(pc, sel);
    if (!rc && uses_grouping(sel)) {
        rc = plan_grouping_sets(pc, sel, out);
    } else if (!rc) {
        agg_scope as;
        memset(&as, 0, sizeof as);
        rc = plan_select_in(pc, sel, &as, out);
        weir_free(as.calls);
    }
    pc->qhints = outer;
    pc->n_qhints = n_outer;
    return rc;
}

static int plan_query_in(plan_ctx *pc, const weir_sql_query *q, rel *out);

/* The set operation q over its inputs, planned before (l, r): the left's column names. */
int plan_setop_rels(plan_ctx *pc, const weir_sql_query *q, const rel *l_in, const rel *r_in, rel *out)
{
    int rc;
    weir_sql_setop_kind sop = q->u.setop.op;
    const char *what = sop == WEIR_SQL_SETOP_INTERSECT ? (q->u.setop.all ? "INTERSECT ALL" : "INTERSECT")
                       : sop == WEIR_SQL_SETOP_EXCEPT  ? (q->u.setop.all ? "EXCEPT ALL" : "EXCEPT")
                       : q->u.setop.all                ? "UNION ALL"
                                                       : "UNION";
    rel l = *l_in, r = *r_in;
    if (l.n_physical != r.n_physical)
        return plan_error(pc, q->u.setop.op_loc, WEIR_EPLAN, "%s inputs have %u and %u columns", what, l.n_physical,
                          r.n_physical);
    /* Numeric columns of different types widen to the type both fit (INT and BIGINT to BIGINT), TIMEs of two
     * precisions to the finer one, as Flink's set operations do. */
    weir_type widened[l.n_physical ? l.n_physical : 1];
    for (uint32_t i = 0; i < l.n_physical; i++) {
        widened[i] = l.schema->fields[i].type;
        weir_type lt = l.schema->fields[i].type, rt = r.schema->fields[i].type;
        if (lt.id == WEIR_TYPE_TIME && rt.id == WEIR_TYPE_TIME) {
            if (rt.precision > lt.precision)
                widened[i] = rt;
            continue;
        }
        if (!types_match(lt, rt) && (weir_type_interval(lt) || weir_type_interval(rt) || /* intervals do not widen */
                                     !weir_type_numeric_common(lt, rt, &widened[i]))) {
            char a[64], b[64];
            return plan_error(pc, q->u.setop.op_loc, WEIR_EPLAN,
                              "%s column %u ('%s') has type %s on the left and %s on the right; add a CAST", what,
                              i + 1, l.schema->fields[i].name, weir_type_format(l.schema->fields[i].type, a, sizeof a),
                              weir_type_format(r.schema->fields[i].type, b, sizeof b));
        }
    }
    /* Both inputs emit the union's schema: the left's names, nullable where either is. */
    rel both[2] = {l, r};
    weir_schema *us = plan_union_schema(pc, both, 2);
    if (!us)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < l.n_physical; i++) {
        /* The widened type holds every value of both sides: the column is NOT NULL where both are. */
        bool nullable = us->fields[i].type.nullable;
        us->fields[i].type = widened[i];
        us->fields[i].type.nullable = nullable;
    }
    if ((rc = plan_union_align(pc, &l, us)) || (rc = plan_union_align(pc, &r, us)))
        return rc;
    if (sop != WEIR_SQL_SETOP_UNION)
        return plan_setop(pc, q, what, &l, &r, us, out);
    weir_operator_spec spec;
    weir_union_spec(2, &spec);
    weir_stream ins[2] = {plan_union_input(pc, &l), plan_union_input(pc, &r)};
    memset(out, 0, sizeof *out); /* no upsert key, scope or outer columns of the caller's stack */
    if ((rc = weir_job_operator(pc->job, ins, 2, &spec, us, 0, &out->s)))
        return plan_error(pc, q->u.setop.op_loc, rc, "cannot add UNION ALL: %s", weir_job_error(pc->job));
    explain_line(pc, "Union[%d]", out->s.node);
    out->schema = us;
    out->n_physical = l.n_physical;
    out->rowtime = us->rowtime;
    out->has_proctime = l.has_proctime && r.has_proctime && l.proctime == r.proctime;
    out->proctime = l.proctime;
    out->updating = l.updating || r.updating;
    out->win.present = false;
    out->wprops.present = false;
    out->above_wm = false;
    out->loc = q->loc;
    rc = rel_quals(pc, out, NULL);
    if (!rc && !q->u.setop.all)
        rc = plan_distinct(pc, out, q->u.setop.op_loc);
    return rc;
}

/* A nested query names its own columns: the enclosing SELECT's projection pushdown waits (prune.c). */
int plan_query(plan_ctx *pc, const weir_sql_query *q, rel *out)
{
    plan_projection_saved saved;
    plan_projection_save(pc, &saved);
    int rc = plan_query_in(pc, q, out);
    plan_projection_restore(pc, &saved);
    return rc;
}

static int plan_query_in(plan_ctx *pc, const weir_sql_query *q, rel *out)
{
    int rc;
    if (q->n_order_by || q->limit || q->offset)
        return plan_sort_limit(pc, q, out);
    size_t saved_views = pc->n_views;
    for (uint32_t i = 0; i < q->n_with; i++) {
        cat_view *nv = weir_realloc(pc->views, (pc->n_views + 1) * sizeof *nv);
        if (!nv)
            return WEIR_ENOMEM;
        pc->views = nv;
        pc->views[pc->n_views++] = (cat_view){.name = (char *)q->with[i].name.name,
                                              .query = q->with[i].query,
                                              .columns = q->with[i].columns,
                                              .n_columns = q->with[i].n_columns};
    }
    switch (q->kind) {
    case WEIR_SQL_QUERY_SELECT:
        rc = plan_select(pc, q->u.select, out);
        break;
    case WEIR_SQL_QUERY_SETOP: {
        rel l, r;
        if ((rc = plan_query(pc, q->u.setop.left, &l)) || (rc = plan_query(pc, q->u.setop.right, &r)))
            break;
        rc = plan_setop_rels(pc, q, &l, &r, out);
        break;
    }
    case WEIR_SQL_QUERY_VALUES:
        rc = plan_values(pc, q, out);
        break;
    default:
        rc = plan_error(pc, q->loc, WEIR_EUNSUPPORTED, "this kind of query is not supported yet");
    }
    pc->n_views = saved_views;
    return rc;
}

int plan_set_alias(plan_ctx *pc, rel *r, const weir_sql_table_ref *ref)
{
    return set_alias(pc, r, ref, NULL);
}
