/*
 * planner/planner.c - a SQL script to one job: configuration, statements,
 * INSERT INTO (sinks, changelog checks, implicit casts), bare SELECT
 * (printed), EXPLAIN, and the job configuration keys weir shares with Flink.
 *
 * Statements run in two passes: SET and RESET first (then the command
 * line's -D settings, which win), then DDL and INSERTs in script order. So a
 * SET anywhere in the script applies to the whole job; Flink's SQL client
 * applies a SET to the statements after it - docs/sql.md notes the
 * difference.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "planner/planner.h"
#include "runtime/checkpoint.h"

struct weir_sql_job {
    plan_ctx pc;
    weir_sql_script *script;
    weir_error err;
    char *explain_output;
};

/* ------------------------------------------------------------ bookkeeping */

int plan_error(plan_ctx *pc, weir_sql_loc loc, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return weir__sql_error_at(pc->err, pc->script, loc, code, "%s", msg);
}

weir_schema *plan_new_schema(plan_ctx *pc)
{
    weir_schema **ns = weir_realloc(pc->schemas, (pc->n_schemas + 1) * sizeof *ns);
    if (!ns)
        return NULL;
    pc->schemas = ns;
    weir_schema *s = weir_schema_create();
    if (s)
        pc->schemas[pc->n_schemas++] = s;
    return s;
}

int plan_keep_schema(plan_ctx *pc, weir_schema *s)
{
    weir_schema **ns = weir_realloc(pc->schemas, (pc->n_schemas + 1) * sizeof *ns);
    if (!ns) {
        weir_schema_destroy(s);
        return WEIR_ENOMEM;
    }
    pc->schemas = ns;
    pc->schemas[pc->n_schemas++] = s;
    return 0;
}

void *plan_alloc(plan_ctx *pc, size_t n)
{
    void **na = weir_realloc(pc->allocs, (pc->n_allocs + 1) * sizeof *na);
    if (!na)
        return NULL;
    pc->allocs = na;
    void *p = weir_calloc(1, n ? n : 1);
    if (p)
        pc->allocs[pc->n_allocs++] = p;
    return p;
}

char *plan_strdup(plan_ctx *pc, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = plan_alloc(pc, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* ---------------------------------------------------------- configuration */

const char *plan_config(const plan_ctx *pc, const char *key)
{
    for (size_t i = pc->n_cfg; i-- > 0;)
        if (!strcasecmp(pc->cfg_keys[i], key))
            return pc->cfg_vals[i];
    return NULL;
}

weir_sql_loc plan_config_loc(const plan_ctx *pc, const char *key)
{
    for (size_t i = pc->n_cfg; i-- > 0;)
        if (!strcasecmp(pc->cfg_keys[i], key))
            return pc->cfg_locs[i];
    return (weir_sql_loc){0};
}

weir_sql_loc plan_config_at(const plan_ctx *pc, const char *key, weir_sql_loc fallback)
{
    weir_sql_loc at = plan_config_loc(pc, key);
    return at.line ? at : fallback;
}

int plan_config_set(plan_ctx *pc, const char *key, const char *value, weir_sql_loc at)
{
    for (size_t i = 0; i < pc->n_cfg; i++) {
        if (!strcasecmp(pc->cfg_keys[i], key)) {
            char *v = weir_strdup(value);
            if (!v)
                return WEIR_ENOMEM;
            weir_free(pc->cfg_vals[i]);
            pc->cfg_vals[i] = v;
            pc->cfg_locs[i] = at;
            return 0;
        }
    }
    char **k = weir_realloc(pc->cfg_keys, (pc->n_cfg + 1) * sizeof *k);
    if (!k)
        return WEIR_ENOMEM;
    pc->cfg_keys = k;
    char **v = weir_realloc(pc->cfg_vals, (pc->n_cfg + 1) * sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    pc->cfg_vals = v;
    weir_sql_loc *l = weir_realloc(pc->cfg_locs, (pc->n_cfg + 1) * sizeof *l);
    if (!l)
        return WEIR_ENOMEM;
    pc->cfg_locs = l;
    pc->cfg_locs[pc->n_cfg] = at;
    pc->cfg_keys[pc->n_cfg] = weir_strdup(key);
    pc->cfg_vals[pc->n_cfg] = weir_strdup(value);
    if (!pc->cfg_keys[pc->n_cfg] || !pc->cfg_vals[pc->n_cfg]) {
        weir_free(pc->cfg_keys[pc->n_cfg]);
        weir_free(pc->cfg_vals[pc->n_cfg]);
        return WEIR_ENOMEM;
    }
    pc->n_cfg++;
    return 0;
}

/* Parallelism and max parallelism: at most Flink's upper bound for max parallelism. */
#define MAX_PARALLELISM 32768u

static int cfg_u32_max(plan_ctx *pc, const char *key, uint32_t max, uint32_t *out, weir_error *err)
{
    const char *v = plan_config(pc, key);
    if (!v)
        return 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *v == '-' || *end || x == 0 || x > max) {
        pc->cfg_bad = key;
        return weir_error_set(err, WEIR_EINVAL, "%s: expected an integer from 1 to %u, got '%s'", key, max, v);
    }
    *out = (uint32_t)x;
    return 0;
}

static int cfg_u32(plan_ctx *pc, const char *key, uint32_t *out, weir_error *err)
{
    return cfg_u32_max(pc, key, 1u << 20, out, err);
}

uint32_t plan_forward_parallelism(const plan_ctx *pc, weir_stream s)
{
    if (s.part != WEIR_PART_FORWARD || s.side_tag != 0)
        return 0;
    return weir__job_node_parallelism(pc->job, s.node);
}

int plan_table_parallelism(plan_ctx *pc, const cat_table *t, const char *key, uint32_t *out)
{
    *out = 0;
    for (size_t i = 0; i < t->n_opts; i++) {
        if (strcasecmp(t->opts[i].key, key))
            continue;
        const char *v = t->opts[i].value;
        uint32_t max = pc->jcfg.max_parallelism ? pc->jcfg.max_parallelism : WEIR_DEFAULT_MAX_PARALLELISM;
        char *end;
        unsigned long long x = strtoull(v, &end, 10);
        if (!*v || *v == '-' || *end || x == 0 || x > max)
            return plan_error(pc, plan_option_value_loc(t, i), WEIR_EINVAL,
                              "table '%s': option '%s': expected an integer from 1 to %u (the max parallelism, "
                              "pipeline.max-parallelism), got '%s'",
                              t->name, key, max, v);
        *out = (uint32_t)x;
    }
    return 0;
}

static int cfg_duration(plan_ctx *pc, const char *key, int64_t *out, weir_error *err)
{
    const char *v = plan_config(pc, key);
    if (!v)
        return 0;
    if (weir_option_parse_duration(v, out)) {
        pc->cfg_bad = key;
        return weir_error_set(err, WEIR_EINVAL, "%s: expected a duration such as '10 s', got '%s'", key, v);
    }
    return 0;
}

int plan_job_config(plan_ctx *pc, weir_job_config *cfg, weir_error *err)
{
    weir_job_config_init(cfg);
    if (pc->cenv.clock.now_ms)
        cfg->clock = pc->cenv.clock;
    int rc;
    if ((rc = cfg_u32_max(pc, "parallelism.default", MAX_PARALLELISM, &cfg->parallelism, err)) ||
        (rc = cfg_u32_max(pc, "pipeline.max-parallelism", MAX_PARALLELISM, &cfg->max_parallelism, err)) ||
        (rc = cfg_u32(pc, "weir.batch-size", &cfg->batch_size, err)) ||
        (rc = cfg_u32(pc, "weir.channel-capacity", &cfg->channel_capacity, err)) ||
        (rc = cfg_duration(pc, "table.exec.source.idle-timeout", &cfg->idle_timeout_ms, err)) ||
        (rc = cfg_duration(pc, "execution.checkpointing.interval", &cfg->checkpoint_interval_ms, err)))
        return rc;
    const char *v;
    if ((v = plan_config(pc, "state.backend.type")) || (v = plan_config(pc, "state.backend"))) {
        if (strcasecmp(v, "hashmap") == 0 || strcasecmp(v, "memory") == 0)
            cfg->state_backend = "memory";
        else if (strcasecmp(v, "rocksdb") == 0)
            cfg->state_backend = "rocksdb";
        else {
            pc->cfg_bad = plan_config(pc, "state.backend.type") ? "state.backend.type" : "state.backend";
            return weir_error_set(err, WEIR_EINVAL, "%s: expected 'hashmap' or 'rocksdb', got '%s'", pc->cfg_bad, v);
        }
    }
    /* (weir.join.top1-skip: read where a Top-1 is planned, checked here for every job) */
    static const char *const bools[] = {"table.optimizer.reuse-sub-plan-enabled", "table.optimizer.reuse-source-enabled",
                                        "weir.join.top1-skip"};
    for (size_t i = 0; i < sizeof bools / sizeof *bools; i++) {
        bool b;
        if ((v = plan_config(pc, bools[i])) && weir_option_parse_bool(v, &b)) {
            pc->cfg_bad = bools[i];
            return weir_error_set(err, WEIR_EINVAL, "%s: expected 'true' or 'false', got '%s'", bools[i], v);
        }
    }
    if (cfg->parallelism > cfg->max_parallelism) {
        pc->cfg_bad = "parallelism.default";
        return weir_error_set(err, WEIR_EINVAL,
                              "parallelism.default: %u exceeds the max parallelism (%u, pipeline.max-parallelism): a "
                              "keyed state is split into that many key groups, and every subtask needs at least one",
                              cfg->parallelism, cfg->max_parallelism);
    }
    if ((v = plan_config(pc, "state.checkpoints.dir")))
        cfg->checkpoint_dir = v;
    if ((v = plan_config(pc, "weir.state.dir")))
        cfg->state_dir = v;
    return 0;
}

/* Whether the job takes checkpoints or savepoints (then sinks commit exactly once). */
bool plan_checkpointing(const plan_ctx *pc)
{
    int64_t ms = 0;
    const char *v = plan_config(pc, "execution.checkpointing.interval");
    if (v && !weir_option_parse_duration(v, &ms) && ms > 0)
        return true;
    return plan_config(pc, "state.checkpoints.dir") || plan_config(pc, "state.savepoints.dir");
}

/*
 * table.local-time-zone: the session zone of every expression (the arena's)
 * and of windows over TIMESTAMP_LTZ attributes. Flink's value 'default'
 * (the machine's zone) reads $TZ; weir's default is UTC.
 */
static int plan_time_zone(plan_ctx *pc)
{
    const char *key = "table.local-time-zone";
    const char *v = plan_config(pc, key);
    if (!v)
        return 0;
    if (!strcasecmp(v, "default")) {
        const char *env = getenv("TZ");
        v = env && *env ? env + (*env == ':') : "UTC";
    }
    weir_error e = {0};
    int rc = weir_expr_arena_set_time_zone(pc->arena, v, &e);
    if (rc) {
        weir_sql_loc at = plan_config_loc(pc, key);
        if (at.line)
            return plan_error(pc, at, rc, "SET %s: %s", key, e.message);
        return weir_error_set(pc->err, rc, "%s: error: -D %s: %s", weir_sql_script_file(pc->script), key, e.message);
    }
    if (strcasecmp(v, "UTC") && strcasecmp(v, "GMT") && strcasecmp(v, "Z") && strcasecmp(v, "Etc/UTC") &&
        !(pc->time_zone = plan_strdup(pc, v)))
        return weir_error_set(pc->err, WEIR_ENOMEM, "out of memory");
    return 0;
}

int plan_ensure_job(plan_ctx *pc)
{
    if (pc->job)
        return 0;
    weir_error e = {0};
    pc->cfg_bad = NULL;
    int rc = plan_job_config(pc, &pc->jcfg, &e);
    if (rc) {
        weir_sql_loc at = pc->cfg_bad ? plan_config_loc(pc, pc->cfg_bad) : (weir_sql_loc){0};
        if (at.line)
            return plan_error(pc, at, rc, "SET %s", e.message);
        return weir_error_set(pc->err, rc, "%s: error: -D %s", weir_sql_script_file(pc->script), e.message);
    }
    rc = weir_job_create(&pc->jcfg, &pc->job);
    if (rc)
        return weir_error_set(pc->err, rc, "cannot create the job: %s", weir_strerror(rc));
    return 0;
}

/* ------------------------------------------------------------------ sinks */

/*
 * The job's name across its runs, for sinks that clean up what an earlier
 * run of the same job left behind: the checkpoint folder (a rerun resumes
 * from it), made absolute so that two jobs with the same relative folder in
 * different working directories stay apart. NULL without one.
 */
static const char *plan_job_id(const plan_ctx *pc, char *buf, size_t cap)
{
    const char *v = plan_config(pc, "state.checkpoints.dir");
    if (!v || !*v)
        return NULL;
    if (!strncmp(v, "file://", 7))
        v += 7;
    if (v[0] == '/')
        return v;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    int n = snprintf(buf, cap, "%s/%s", cwd, v);
    return n > 0 && (size_t)n < cap ? buf : NULL;
}

int plan_describe_table(plan_ctx *pc, weir_stream s, const cat_table *t)
{
    static const char *const keys[] = {"connector", "path", "format", "topic", NULL};
    int rc = weir_job_describe_state(pc->job, s, "table", t->label);
    for (size_t k = 0; !rc && keys[k]; k++)
        for (size_t i = 0; i < t->n_opts && !rc; i++)
            if (!strcasecmp(t->opts[i].key, keys[k]))
                rc = weir_job_describe_state(pc->job, s, keys[k], t->opts[i].value);
    return rc;
}

void plan_window_text(const weir_window_assigner *a, char *buf, size_t cap)
{
    static const char *kinds[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION", "GLOBAL"};
    switch (a->kind) {
    case WEIR_WINDOW_TUMBLING: snprintf(buf, cap, "TUMBLE size=%lld", (long long)a->size_ms); break;
    case WEIR_WINDOW_HOPPING:
        snprintf(buf, cap, "HOP size=%lld slide=%lld", (long long)a->size_ms, (long long)a->slide_ms);
        break;
    case WEIR_WINDOW_CUMULATING:
        snprintf(buf, cap, "CUMULATE size=%lld step=%lld", (long long)a->size_ms, (long long)a->slide_ms);
        break;
    case WEIR_WINDOW_SESSION: snprintf(buf, cap, "SESSION gap=%lld", (long long)a->gap_ms); break;
    default: snprintf(buf, cap, "%s", kinds[a->kind]); break;
    }
    if (a->offset_ms && a->kind != WEIR_WINDOW_SESSION) {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, " offset=%lld", (long long)a->offset_ms);
    }
}

int plan_describe_windows(plan_ctx *pc, weir_stream s, const weir_window_assigner *a)
{
    char v[128];
    plan_window_text(a, v, sizeof v);
    return weir_job_describe_state(pc->job, s, WEIR__WINDOWS_FIELD, v);
}

int plan_sink_table(plan_ctx *pc, cat_table *t, rel *r, weir_sql_loc loc)
{
    const weir_schema *ts = t->physical;
    int rc;
    if (r->n_physical != ts->n_fields)
        return plan_error(pc, loc, WEIR_EPLAN, "the query produces %u columns but table '%s' has %u", r->n_physical,
                          t->name, ts->n_fields);
    if (t->full->n_fields != ts->n_fields)
        return plan_error(pc, loc, WEIR_EUNSUPPORTED, "cannot write into table '%s': it has computed columns", t->name);
    if (t->n_meta)
        return plan_error(pc, loc, WEIR_EUNSUPPORTED,
                          "cannot write into table '%s': it has METADATA columns ('%s'), which weir's sinks do not "
                          "write yet",
                          t->name, t->meta[0].key);
    /* Cast or rename to the table's columns when they differ. */
    bool same = true;
    for (uint32_t i = 0; i < ts->n_fields; i++) {
        const weir_type *a = &r->schema->fields[i].type, *b = &ts->fields[i].type;
        same &= a->id == b->id && a->precision == b->precision && a->scale == b->scale &&
                !strcmp(r->schema->fields[i].name, ts->fields[i].name);
    }
    rel w = *r;
    if (!same) {
        weir_expr **exprs = plan_alloc(pc, (ts->n_fields + 1) * sizeof *exprs);
        const char **names = plan_alloc(pc, (ts->n_fields + 1) * sizeof *names);
        if (!exprs || !names)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < ts->n_fields; i++) {
            weir_error err = {0};
            weir_type have = r->schema->fields[i].type, want = ts->fields[i].type;
            if ((rc = weir_expr_column(pc->arena, i, have, &exprs[i], &err)))
                return rc;
            if (have.id != want.id || have.precision != want.precision || have.scale != want.scale) {
                weir_type cast_to = want;
                cast_to.nullable = true;
                if ((rc = weir_expr_cast(pc->arena, exprs[i], cast_to, false, &exprs[i], &err))) {
                    char a[256], b[256];
                    return plan_error(pc, loc, WEIR_EPLAN,
                                      "column %u ('%s') of the query has type %s, which cannot be written to column '%s' "
                                      "%s of table '%s'",
                                      i + 1, r->schema->fields[i].name, weir_type_format(have, a, sizeof a),
                                      ts->fields[i].name, weir_type_format(want, b, sizeof b), t->name);
                }
            }
            names[i] = ts->fields[i].name;
        }
        if ((rc = plan_calc(pc, r, NULL, exprs, names, ts->n_fields, &w, "Calc")))
            return rc;
        w.updating = r->updating;
    }
    weir_operator_spec spec;
    weir_error err = {0};
    int bad = -1;
    const char **keys = NULL;
    if (t->ddl->n_partitioned_by) {
        keys = plan_alloc(pc, t->ddl->n_partitioned_by * sizeof *keys);
        if (!keys)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < t->ddl->n_partitioned_by; i++) {
            keys[i] = t->ddl->partitioned_by[i].name;
            int col = weir_schema_find(ts, keys[i]);
            if (col < 0)
                return plan_error(pc, t->ddl->partitioned_by[i].loc, WEIR_ENOTFOUND,
                                  "partition column '%s' is not a column of table '%s'", keys[i], t->name);
            keys[i] = ts->fields[col].name;
        }
    }
    const char **pk = NULL;
    const weir_sql_primary_key *pkd = t->ddl->primary_key;
    if (pkd && pkd->n_columns) {
        pk = plan_alloc(pc, pkd->n_columns * sizeof *pk);
        if (!pk)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < pkd->n_columns; i++) {
            int col = weir_schema_find(ts, pkd->columns[i].name);
            if (col < 0)
                return plan_error(pc, pkd->columns[i].loc, WEIR_ENOTFOUND,
                                  "PRIMARY KEY column '%s' is not a column of table '%s'", pkd->columns[i].name,
                                  t->name);
            pk[i] = ts->fields[col].name;
        }
    }
    pc->cenv.primary_keys = pk;
    pc->cenv.n_primary_keys = pk ? pkd->n_columns : 0;
    pc->cenv.bad_option_index = &bad;
    pc->cenv.partition_keys = keys;
    pc->cenv.n_partition_keys = t->ddl->n_partitioned_by;
    pc->cenv.checkpointing = plan_checkpointing(pc);
    char job_id[4096 + 256];
    pc->cenv.job_id = plan_job_id(pc, job_id, sizeof job_id);
    rc = weir_connector_sink_spec(NULL, t->opts, t->n_opts, w.schema, &pc->cenv, &spec, &err);
    pc->cenv.job_id = NULL;
    pc->cenv.bad_option_index = NULL;
    pc->cenv.partition_keys = NULL;
    pc->cenv.n_partition_keys = 0;
    pc->cenv.primary_keys = NULL;
    pc->cenv.n_primary_keys = 0;
    if (rc) {
        weir_sql_loc at = plan_option_loc(t, bad);
        return plan_error(pc, at, rc, "table '%s': %s", t->name, err.message);
    }
    const char *why = NULL;
    if (w.updating && !weir_sink_spec_accepts_changelog(&spec, &why)) {
        weir_operator_spec_release(&spec);
        return plan_error(pc, loc, WEIR_EPLAN,
                          "table '%s' cannot take the result of this query: the query produces an updating result "
                          "(a changelog of +I/-U/+U/-D rows), and %s",
                          t->name, why ? why : "the sink is append-only");
    }
    uint32_t par;
    if ((rc = plan_table_parallelism(pc, t, "sink.parallelism", &par))) {
        weir_operator_spec_release(&spec);
        return rc;
    }
    /* An updating result into a table with a PRIMARY KEY: every change of
     * one key goes to the same sink subtask, in order (Flink's keyed
     * shuffle before an upsert sink). */
    if (w.updating && pk && pkd->n_columns <= WEIR_KEY_MAX_COLS) {
        uint32_t kc[WEIR_KEY_MAX_COLS];
        for (uint32_t i = 0; i < pkd->n_columns; i++)
            kc[i] = (uint32_t)weir_schema_find(ts, pk[i]); /* found above */
        weir_stream keyed = weir_stream_key_by(w.s, kc, pkd->n_columns);
        /* changes of one key from several subtasks: put back in order first (upsert.c) */
        if ((rc = plan_sink_materialize(pc, t, &w, &spec, kc, pkd->n_columns, par, loc, &keyed))) {
            weir_operator_spec_release(&spec);
            return rc;
        }
        w.s = keyed;
    } else if (par == 0) {
        par = plan_forward_parallelism(pc, w.s); /* the input's, as Flink */
    } else if (w.updating && par != plan_forward_parallelism(pc, w.s) && plan_forward_parallelism(pc, w.s)) {
        weir_operator_spec_release(&spec);
        return plan_error(pc, loc, WEIR_EPLAN,
                          "table '%s': sink.parallelism %u differs from its input's (%u), and the query produces "
                          "an updating result: its changes would reach the subtasks out of order; give the table "
                          "a PRIMARY KEY or drop sink.parallelism (as Flink)",
                          t->name, par, plan_forward_parallelism(pc, w.s));
    }
    if ((rc = weir_job_sink(pc->job, w.s, &spec, par))) {
        weir_operator_spec_release(&spec);
        return plan_error(pc, loc, rc, "cannot add sink '%s': %s", t->name, weir_job_error(pc->job));
    }
    weir_stream sink_s = {.node = (int)weir__job_node_count(pc->job) - 1};
    if ((rc = plan_describe_table(pc, sink_s, t)))
        return rc;
    weir_buf_printf(&pc->explain, "  Sink: %s%s\n", t->name, w.updating ? " (changelog)" : "");
    pc->n_sinks++;
    return 0;
}

/* Whether column `name` is one of table t's PRIMARY KEY columns. */
static bool plan_is_primary_key(const cat_table *t, const char *name)
{
    const weir_sql_primary_key *pk = t->ddl->primary_key;
    for (uint32_t i = 0; pk && i < pk->n_columns; i++)
        if (!strcasecmp(pk->columns[i].name, name))
            return true;
    return false;
}

/*
 * The INSERT's column list (c1, c2, ...): query column j goes to column cj;
 * exprs holds the static partition columns' literals already. Each listed
 * column is a physical column of t, listed once and not static; the query
 * has one column for each.
 */
static int plan_listed_columns(plan_ctx *pc, const weir_sql_insert *ins, cat_table *t, rel *r, weir_expr **exprs,
                               const char **names, rel *out)
{
    const weir_schema *ts = t->physical;
    for (uint32_t j = 0; j < ins->n_columns; j++) {
        const weir_sql_ident *c = &ins->columns[j];
        int col = weir_schema_find(ts, c->name);
        if (col < 0 && weir_schema_find(t->full, c->name) >= 0)
            return plan_error(pc, c->loc, WEIR_EPLAN, "column '%s' of table '%s' is a computed column and cannot be "
                              "written", c->name, t->name);
        if (col < 0)
            return plan_error(pc, c->loc, WEIR_ENOTFOUND, "table '%s' has no column '%s'", t->name, c->name);
        for (uint32_t k = 0; k < j; k++)
            if (weir_schema_find(ts, ins->columns[k].name) == col)
                return plan_error(pc, c->loc, WEIR_EEXIST, "column '%s' is listed twice in the INSERT column list",
                                  c->name);
        if (exprs[col])
            return plan_error(pc, c->loc, WEIR_EPLAN,
                              "column '%s' has a static value in PARTITION (...) and cannot be in the INSERT column "
                              "list too",
                              c->name);
    }
    if (r->n_physical != ins->n_columns)
        return plan_error(pc, ins->columns[0].loc, WEIR_EPLAN,
                          "the query produces %u columns but the INSERT column list of table '%s' names %u",
                          r->n_physical, t->name, ins->n_columns);
    for (uint32_t j = 0; j < ins->n_columns; j++) {
        int col = weir_schema_find(ts, ins->columns[j].name);
        weir_error err = {0};
        int rc = weir_expr_column(pc->arena, j, r->schema->fields[j].type, &exprs[col], &err);
        if (rc)
            return rc;
    }
    for (uint32_t i = 0; i < ts->n_fields; i++) {
        names[i] = ts->fields[i].name;
        if (exprs[i])
            continue;
        if (!ts->fields[i].type.nullable || plan_is_primary_key(t, ts->fields[i].name))
            return plan_error(pc, ins->columns[0].loc, WEIR_EPLAN,
                              "column '%s' of table '%s' is %s and has no default value: the INSERT column list "
                              "must name it",
                              ts->fields[i].name, t->name,
                              plan_is_primary_key(t, ts->fields[i].name) ? "a PRIMARY KEY column (NOT NULL)" : "NOT NULL");
        weir_type null_type = ts->fields[i].type;
        if (!(exprs[i] = weir_expr_lit_null(pc->arena, null_type)))
            return WEIR_ENOMEM;
    }
    int rc = plan_calc(pc, r, NULL, exprs, names, ts->n_fields, out, "Calc");
    if (!rc)
        out->updating = r->updating;
    return rc;
}

/*
 * The columns of INSERT INTO t PARTITION (k = 'v', ...) (c1, c2, ...) query,
 * as in Flink: each static partition column takes its literal; the query's
 * columns go by position to the listed columns, or without a list to the
 * table's other columns in order. A column neither static nor listed is
 * NULL, which a NOT NULL or PRIMARY KEY column refuses (it has no default
 * value). *out is r with the table's columns, in the table's order.
 */
static int plan_insert_columns(plan_ctx *pc, const weir_sql_insert *ins, cat_table *t, rel *r, rel *out)
{
    const weir_schema *ts = t->physical;
    weir_expr **exprs = plan_alloc(pc, (ts->n_fields + 1) * sizeof *exprs);
    const char **names = plan_alloc(pc, (ts->n_fields + 1) * sizeof *names);
    if (!exprs || !names)
        return WEIR_ENOMEM;
    memset(exprs, 0, (ts->n_fields + 1) * sizeof *exprs);
    for (uint32_t i = 0; i < ins->n_partition; i++) {
        const weir_sql_partition_value *pv = &ins->partition[i];
        bool key = false;
        for (uint32_t k = 0; k < t->ddl->n_partitioned_by && !key; k++)
            key = !strcasecmp(t->ddl->partitioned_by[k].name, pv->column.name);
        if (!key)
            return plan_error(pc, pv->column.loc, WEIR_EPLAN,
                              "static partition column '%s' is not a partition column of table '%s' (PARTITIONED BY)",
                              pv->column.name, t->name);
        int col = weir_schema_find(ts, pv->column.name);
        if (col < 0)
            return plan_error(pc, pv->column.loc, WEIR_ENOTFOUND, "table '%s' has no column '%s'", t->name,
                              pv->column.name);
        if (exprs[col])
            return plan_error(pc, pv->column.loc, WEIR_EEXIST, "static partition column '%s' is given twice",
                              pv->column.name);
        if (pv->value->kind != WEIR_SQL_EXPR_LITERAL)
            return plan_error(pc, pv->value->loc, WEIR_EPLAN, "the value of static partition column '%s' must be a literal",
                              pv->column.name);
        weir_expr *e;
        int rc = plan_bind_expr(pc, r, NULL, pv->value, &e);
        if (rc)
            return rc;
        weir_error err = {0};
        weir_type want = ts->fields[col].type;
        want.nullable = true;
        weir_type have = weir_expr_type(e);
        if (have.id != want.id || have.precision != want.precision || have.scale != want.scale) {
            if ((rc = weir_expr_cast(pc->arena, e, want, false, &e, &err))) {
                char tb[64];
                return plan_error(pc, pv->value->loc, WEIR_EPLAN,
                                  "the value of static partition column '%s' cannot be cast to its type %s: %s",
                                  pv->column.name, weir_type_format(ts->fields[col].type, tb, sizeof tb), err.message);
            }
        }
        exprs[col] = e;
    }
    if (ins->n_columns)
        return plan_listed_columns(pc, ins, t, r, exprs, names, out);
    uint32_t want = ts->n_fields - ins->n_partition;
    if (r->n_physical != want)
        return plan_error(pc, ins->table.loc, WEIR_EPLAN,
                          "the query produces %u columns but table '%s' has %u besides its %u static partition "
                          "column%s",
                          r->n_physical, t->name, want, ins->n_partition, ins->n_partition == 1 ? "" : "s");
    for (uint32_t i = 0, q = 0; i < ts->n_fields; i++) {
        names[i] = ts->fields[i].name;
        if (exprs[i])
            continue;
        weir_error err = {0};
        int rc = weir_expr_column(pc->arena, q, r->schema->fields[q].type, &exprs[i], &err);
        if (rc)
            return rc;
        q++;
    }
    int rc = plan_calc(pc, r, NULL, exprs, names, ts->n_fields, out, "Calc");
    if (!rc)
        out->updating = r->updating;
    return rc;
}

static int plan_insert(plan_ctx *pc, const weir_sql_stmt *st)
{
    const weir_sql_insert *ins = &st->u.insert;
    cat_table *t = plan_find_table(pc, &ins->table);
    const char *name = ins->table.parts[ins->table.n_parts - 1].name;
    if (!t) {
        if (plan_find_view(pc, &ins->table))
            return plan_error(pc, ins->table.loc, WEIR_EPLAN, "cannot INSERT INTO view '%s'", name);
        return plan_missing(pc, &ins->table, "table", true);
    }
    if (ins->overwrite)
        return plan_error(pc, st->loc, WEIR_EUNSUPPORTED, "INSERT OVERWRITE is not supported on a stream");
    int rc = plan_hinted_table(pc, t, ins->hints, ins->n_hints, &t);
    if (rc || (rc = plan_ensure_job(pc)))
        return rc;
    weir_buf_printf(&pc->explain, "INSERT INTO %s:\n", name);
    rel r;
    if ((rc = plan_query(pc, ins->query, &r)))
        return rc;
    if (ins->n_partition || ins->n_columns) {
        rel full;
        if ((rc = plan_insert_columns(pc, ins, t, &r, &full)))
            return rc;
        return plan_sink_table(pc, t, &full, ins->table.loc);
    }
    return plan_sink_table(pc, t, &r, ins->table.loc);
}

/* A bare SELECT prints its rows, like a print sink. */
static int plan_bare_query(plan_ctx *pc, const weir_sql_stmt *st)
{
    int rc = plan_ensure_job(pc);
    if (rc)
        return rc;
    weir_buf_printf(&pc->explain, "SELECT (printed):\n");
    rel r;
    if ((rc = plan_query(pc, st->u.query.query, &r)))
        return rc;
    weir_print_sink_config pcfg;
    weir_print_sink_config_init(&pcfg);
    pcfg.out = pc->cenv.print_out ? pc->cenv.print_out : stdout;
    weir_operator_spec spec;
    weir_error err = {0};
    if ((rc = weir_print_sink_spec(&pcfg, &spec, &err)))
        return plan_error(pc, st->loc, rc, "%s", err.message);
    if ((rc = weir_job_sink(pc->job, r.s, &spec, plan_forward_parallelism(pc, r.s)))) {
        weir_operator_spec_release(&spec);
        return plan_error(pc, st->loc, rc, "cannot add the print sink: %s", weir_job_error(pc->job));
    }
    weir_buf_printf(&pc->explain, "  Sink: print%s\n", r.updating ? " (changelog)" : "");
    pc->n_sinks++;
    return 0;
}

static int run_stmt(plan_ctx *pc, const weir_sql_stmt *st);

int plan_in_scratch_job(plan_ctx *pc, int (*fn)(plan_ctx *pc, void *ud), void *ud)
{
    /* Plan into a scratch job so that fn adds nothing to the real one. */
    weir_job *real = pc->job;
    weir_buf saved = pc->explain;
    int saved_sinks = pc->n_sinks;
    /* the real job's operators cannot be reused in the scratch one */
    plan_reuse_entry *saved_reuse = pc->reuse;
    size_t saved_n_reuse = pc->n_reuse;
    pc->reuse = NULL;
    pc->n_reuse = 0;
    weir_buf_init(&pc->explain);
    pc->job = NULL;
    int rc = fn(pc, ud);
    weir_job_destroy(pc->job);
    weir_buf_fini(&pc->explain);
    pc->explain = saved;
    pc->job = real;
    pc->n_sinks = saved_sinks;
    plan_reuse_free(pc);
    pc->reuse = saved_reuse;
    pc->n_reuse = saved_n_reuse;
    return rc;
}

static int explain_in_scratch(plan_ctx *pc, void *ud)
{
    int rc = run_stmt(pc, ud);
    if (!rc) {
        weir_buf_printf(&pc->explain_out, "== Logical plan ==\n%.*s== Job graph ==\n", (int)pc->explain.len,
                        pc->explain.data ? (char *)pc->explain.data : "");
        if (pc->job)
            weir_job_explain(pc->job, &pc->explain_out);
    }
    return rc;
}

static int plan_explain(plan_ctx *pc, const weir_sql_stmt *st)
{
    return plan_in_scratch_job(pc, explain_in_scratch, (void *)st->u.explain.stmt);
}

static int run_stmt(plan_ctx *pc, const weir_sql_stmt *st)
{
    switch (st->kind) {
    case WEIR_SQL_STMT_CREATE_TABLE: return plan_create_table(pc, &st->u.create_table, st->loc);
    case WEIR_SQL_STMT_CREATE_VIEW: return plan_create_view(pc, &st->u.create_view, st->loc);
    case WEIR_SQL_STMT_INSERT: return plan_insert(pc, st);
    case WEIR_SQL_STMT_STATEMENT_SET:
        for (uint32_t i = 0; i < st->u.statement_set.n_inserts; i++) {
            int rc = plan_insert(pc, st->u.statement_set.inserts[i]);
            if (rc)
                return rc;
        }
        return 0;
    case WEIR_SQL_STMT_QUERY: return plan_bare_query(pc, st);
    case WEIR_SQL_STMT_EXPLAIN: return plan_explain(pc, st);
    case WEIR_SQL_STMT_SET:
    case WEIR_SQL_STMT_RESET: return 0; /* first pass */
    case WEIR_SQL_STMT_CREATE_FUNCTION: return plan_create_function(pc, &st->u.create_function, st->loc);
    case WEIR_SQL_STMT_DROP:
        if (st->u.drop.object == WEIR_SQL_OBJECT_FUNCTION)
            return plan_drop_function(pc, &st->u.drop, st->loc);
        return plan_drop(pc, &st->u.drop, st->loc);
    case WEIR_SQL_STMT_ALTER: return plan_alter(pc, &st->u.alter, st->loc);
    case WEIR_SQL_STMT_SHOW: return plan_show(pc, st);
    case WEIR_SQL_STMT_DESCRIBE: return plan_describe(pc, st);
    case WEIR_SQL_STMT_USE: return plan_use(pc, st);
    case WEIR_SQL_STMT_STOP_JOB: return plan_stop_job(pc, st);
    case WEIR_SQL_STMT_CREATE_CATALOG:
    case WEIR_SQL_STMT_CREATE_DATABASE: return plan_create_space(pc, st);
    default:
        return plan_error(pc, st->loc, WEIR_EUNSUPPORTED, "%s statements are not supported by weir run",
                          weir_sql_stmt_kind_name(st->kind));
    }
}

/*
 * Every configuration key weir reads: the planner's, and the checkpoint and
 * restart keys `weir run` hands to the runtime (cli/checkpoints.c). A SET of
 * any other key is kept (RESET, weir_sql_job_config) but does nothing, so it
 * draws a warning with the closest of these: a misspelt key would otherwise
 * be ignored without a word.
 */
static const char *const KNOWN_KEYS[] = {
    "parallelism.default", "pipeline.max-parallelism", "weir.batch-size", "weir.channel-capacity",
    "table.exec.source.idle-timeout", "execution.checkpointing.interval", "state.backend", "state.backend.type",
    "table.optimizer.reuse-sub-plan-enabled", "table.optimizer.reuse-source-enabled", "state.checkpoints.dir",
    "weir.state.dir", "state.savepoints.dir", "weir.source.projection-pushdown", "table.exec.state.ttl",
    "table.exec.mini-batch.enabled", "table.exec.emit.allow-lateness", "table.exec.emit.early-fire.enabled",
    "table.exec.emit.early-fire.delay", "table.exec.emit.late-fire.enabled", "table.exec.emit.late-fire.delay",
    "weir.late-records.table", "table.local-time-zone", "table.exec.sink.upsert-materialize", "table.optimizer.agg-phase-strategy",
    "table.optimizer.distinct-agg.split.enabled", "table.optimizer.distinct-agg.split.bucket-num",
    "table.dynamic-table-options.enabled", "weir.distinct-cache.size", "weir.match.max-partial-matches", "weir.join.top1-skip",
    /* checkpoints and restarts */
    "execution.checkpointing.dir", "execution.checkpointing.timeout", "execution.checkpointing.min-pause",
    "execution.checkpointing.max-concurrent-checkpoints", "execution.checkpointing.tolerable-failed-checkpoints",
    "execution.checkpointing.mode", "execution.checkpointing.unaligned", "execution.checkpointing.unaligned.enabled",
    "execution.checkpointing.aligned-checkpoint-timeout", "execution.checkpointing.alignment-timeout",
    "state.checkpoints.num-retained", "execution.checkpointing.num-retained", "execution.checkpointing.savepoint-dir",
    "execution.savepoint.path", "execution.savepoint.ignore-unclaimed-state", "state.backend.async",
    "state.backend.incremental",
    "execution.checkpointing.incremental", "restart-strategy", "restart-strategy.type",
    "restart-strategy.fixed-delay.attempts", "restart-strategy.fixed-delay.delay",
    /* the HTTP endpoint of weir run (rest/rest.h) */
    "rest.enabled", "rest.address", "rest.bind-address", "rest.port", "rest.bind-port", "pipeline.name",
    "metrics.fetcher.update-interval", "weir.watermark.stall-warning",
    /* one job on several processes (cluster/cluster.h) */
    "weir.cluster.bootstrap-servers", "weir.cluster.processes", "weir.cluster.process-index",
    "weir.cluster.group-id", "weir.cluster.repartition-partitions", "weir.cluster.epoch",
    "weir.cluster.heartbeat-interval", "weir.cluster.session-timeout",
    /* object storage (s3:// paths) */
    "s3.endpoint", "s3.region", "s3.access-key", "s3.access.key", "s3.secret-key", "s3.secret.key",
    "s3.path.style.access", "s3.path-style-access", "s3.max-error-retries", "s3.upload.min.part.size",

    /* the weir command: logging */
    "log.format", "log.level", "log.progress.interval", NULL};

/*
 * Adds a warning if key is not one weir reads; at has no line for -D.
 * cfg_file: the key comes from that configuration file, at its line and column.
 */
static int warn_unknown_key(plan_ctx *pc, const char *key, weir_sql_loc at, const char *cfg_file)
{
    const char *best = NULL;
    size_t kl = strlen(key);
    int best_d = 4; /* suggest only a near miss: at most 3 edits */
    for (size_t i = 0; KNOWN_KEYS[i]; i++) {
        if (!strcasecmp(key, KNOWN_KEYS[i]))
            return 0;
        int d = weir__sql_edit_distance(key, kl, KNOWN_KEYS[i], strlen(KNOWN_KEYS[i]), best_d);
        if (d < best_d) {
            best_d = d;
            best = KNOWN_KEYS[i];
        }
    }
    const char *file = weir_sql_script_file(pc->script);
    int rc = cfg_file  ? weir_buf_printf(&pc->warnings, "%s:%u:%u: warning: key '%s'", cfg_file, at.line, at.col, key)
             : at.line ? weir_buf_printf(&pc->warnings, "%s:%u:%u: warning: SET '%s'", file, at.line, at.col, key)
                       : weir_buf_printf(&pc->warnings, "%s: warning: -D %s", file, key);
    if (!rc)
        rc = weir_buf_printf(&pc->warnings, ": unknown configuration key, ignored");
    if (!rc && best)
        rc = weir_buf_printf(&pc->warnings, " (did you mean '%s'?)", best);
    if (!rc)
        rc = weir_buf_put(&pc->warnings, "\n", 1);
    return rc;
}

static int apply_set(plan_ctx *pc, const weir_sql_stmt *st)
{
    if (st->kind == WEIR_SQL_STMT_SET) {
        if (!st->u.set.key)
            return 0;
        int rc = warn_unknown_key(pc, st->u.set.key, st->u.set.key_loc, NULL);
        return rc ? rc : plan_config_set(pc, st->u.set.key, st->u.set.value, st->u.set.value_loc);
    }
    if (st->kind == WEIR_SQL_STMT_RESET) {
        for (size_t i = 0; i < pc->n_cfg; i++) {
            if (!st->u.reset.key || !strcasecmp(pc->cfg_keys[i], st->u.reset.key)) {
                weir_free(pc->cfg_keys[i]);
                weir_free(pc->cfg_vals[i]);
                pc->cfg_keys[i] = pc->cfg_keys[pc->n_cfg - 1];
                pc->cfg_vals[i] = pc->cfg_vals[pc->n_cfg - 1];
                pc->cfg_locs[i] = pc->cfg_locs[pc->n_cfg - 1];
                pc->n_cfg--;
                i--;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------- public API */

int weir_sql_job_create(const char *file, const char *text, size_t len, const weir_sql_job_options *opt,
                        weir_sql_job **out, weir_error *err)
{
    *out = NULL;
    weir_sql_job *j = weir_calloc(1, sizeof *j);
    if (!j)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    plan_ctx *pc = &j->pc;
    pc->err = &j->err;
    weir_buf_init(&pc->explain);
    weir_buf_init(&pc->explain_out);
    weir_buf_init(&pc->warnings);
    if (opt) {
        pc->cenv.clock = opt->clock;
        pc->cenv.print_out = opt->print_out;
        pc->jobs = opt->jobs;
    }
    int rc = weir_sql_parse(file, text, len, &j->script, &j->err, NULL);
    if (rc)
        goto fail;
    pc->script = j->script;
    pc->arena = weir_expr_arena_create();
    if (!pc->arena) {
        rc = weir_error_set(&j->err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    /* Precedence: the configuration file, then the script's SET, then -D. */
    for (size_t i = 0; opt && i < opt->n_default; i++) {
        weir_sql_loc at = {.line = opt->default_lines ? opt->default_lines[i] : 0,
                           .col = opt->default_cols ? opt->default_cols[i] : 0};
        if ((rc = warn_unknown_key(pc, opt->default_keys[i], at, opt->defaults_file ? opt->defaults_file : "config")) ||
            (rc = plan_config_set(pc, opt->default_keys[i], opt->default_values[i], (weir_sql_loc){0})))
            goto fail;
    }
    size_t n = weir_sql_script_count(j->script);
    for (size_t i = 0; i < n; i++)
        if ((rc = apply_set(pc, weir_sql_script_stmt(j->script, i))))
            goto fail;
    for (size_t i = 0; opt && i < opt->n_set; i++)
        if ((rc = warn_unknown_key(pc, opt->set_keys[i], (weir_sql_loc){0}, NULL)) ||
            (rc = plan_config_set(pc, opt->set_keys[i], opt->set_values[i], (weir_sql_loc){0})))
            goto fail;
    if ((rc = plan_time_zone(pc)) || (rc = plan_catalogs_init(pc)))
        goto fail;
    for (size_t i = 0; i < n; i++)
        if ((rc = run_stmt(pc, weir_sql_script_stmt(j->script, i))))
            goto fail;
    *out = j;
    return 0;
fail:
    if (err)
        *err = j->err;
    if (err && !err->message[0])
        weir_error_set(err, rc, "%s", weir_strerror(rc));
    weir_sql_job_destroy(j);
    return rc;
}

void weir_sql_job_destroy(weir_sql_job *j)
{
    if (!j)
        return;
    plan_ctx *pc = &j->pc;
    weir_job_destroy(pc->job);
    for (size_t i = 0; i < pc->n_schemas; i++)
        weir_schema_destroy(pc->schemas[i]);
    weir_free(pc->schemas);
    for (size_t i = 0; i < pc->n_allocs; i++)
        weir_free(pc->allocs[i]);
    weir_free(pc->allocs);
    for (size_t i = 0; i < pc->n_cfg; i++) {
        weir_free(pc->cfg_keys[i]);
        weir_free(pc->cfg_vals[i]);
    }
    weir_free(pc->cfg_keys);
    weir_free(pc->cfg_vals);
    weir_free(pc->cfg_locs);
    weir_free(pc->tables);
    weir_free(pc->views);
    weir_expr_arena_destroy(pc->arena);
    weir_buf_fini(&pc->explain);
    weir_buf_fini(&pc->explain_out);
    weir_buf_fini(&pc->warnings);
    plan_reuse_free(pc);
    weir_free(j->explain_output);
    weir_sql_script_destroy(j->script);
    weir_free(j);
}

weir_job *weir_sql_job_graph(weir_sql_job *j) { return j->pc.n_sinks ? j->pc.job : NULL; }

int weir_sql_job_explain(weir_sql_job *j, weir_buf *out)
{
    int rc = weir_buf_printf(out, "== Logical plan ==\n%.*s== Job graph ==\n", (int)j->pc.explain.len,
                             j->pc.explain.data ? (char *)j->pc.explain.data : "");
    if (!rc && j->pc.job)
        rc = weir_job_explain(j->pc.job, out);
    return rc;
}

const char *weir_sql_job_warnings(const weir_sql_job *j)
{
    weir_sql_job *m = (weir_sql_job *)j;
    if (weir_buf_put_u8(&m->pc.warnings, 0))
        return "";
    m->pc.warnings.len--; /* NUL-terminated, not counted */
    return (const char *)m->pc.warnings.data;
}

const char *weir_sql_job_explain_output(const weir_sql_job *j)
{
    weir_sql_job *m = (weir_sql_job *)j;
    if (!m->explain_output)
        m->explain_output = weir_strndup(j->pc.explain_out.data ? (char *)j->pc.explain_out.data : "",
                                         j->pc.explain_out.len);
    return m->explain_output ? m->explain_output : "";
}

const char *weir_sql_job_config(const weir_sql_job *j, const char *key) { return plan_config(&j->pc, key); }
