/*
 * planner/hints.c - SQL hints, with Flink's meaning.
 *
 * Table hints: an OPTIONS('k' = 'v', ...) hint after a table's name (in
 * FROM, or the target of INSERT INTO) adds options to the table's WITH
 * options or replaces those of the same key, for that reference only; the
 * result is validated as WITH options are, and an error in a hinted option
 * points at the hint. `table.dynamic-table-options.enabled = false` refuses
 * them. A view takes no options.
 *
 * Query hints, after SELECT, apply to the joins and the aggregation of that
 * SELECT (its query block; a subquery or view is a block of its own):
 * - STATE_TTL('t' = '1d', ...): the state TTL of a regular join's input
 *   named t, or of a group aggregation whose input is t, instead of
 *   table.exec.state.ttl.
 * - LOOKUP('table' = 't', ...): checked as Flink checks it; the async
 *   options do not change the result of weir's lookup join (it answers in
 *   order), a retry on a miss does nothing for a table read whole (as
 *   Flink's full cache) and is refused for a table queried by key.
 * - BROADCAST, SHUFFLE_HASH, SHUFFLE_MERGE, NEST_LOOP: join strategies of
 *   Flink's batch mode, without effect in streaming; the tables they name
 *   must be inputs of a join of the block.
 * Any other hint name is an error, as in Flink.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "planner/planner.h"

weir_sql_loc plan_option_loc(const cat_table *t, int i)
{
    if (i < 0 || (size_t)i >= t->n_opts)
        return t->ddl->name.loc;
    if (t->opt_src)
        return t->opt_src[i] ? t->opt_src[i]->loc : t->ddl->name.loc;
    return (uint32_t)i < t->ddl->n_options ? t->ddl->options[i].loc : t->ddl->name.loc;
}

weir_sql_loc plan_option_value_loc(const cat_table *t, size_t i)
{
    if (i >= t->n_opts)
        return t->ddl->name.loc;
    if (t->opt_src)
        return t->opt_src[i] ? t->opt_src[i]->value_loc : t->ddl->name.loc;
    return i < t->ddl->n_options ? t->ddl->options[i].value_loc : t->ddl->name.loc;
}

static bool hint_is(const weir_sql_hint *h, const char *name)
{
    return strcasecmp(h->name.name, name) == 0;
}

static const char *const JOIN_HINTS[] = {"BROADCAST", "SHUFFLE_HASH", "SHUFFLE_MERGE", "NEST_LOOP", NULL};

static bool is_join_hint(const weir_sql_hint *h)
{
    for (size_t i = 0; JOIN_HINTS[i]; i++)
        if (hint_is(h, JOIN_HINTS[i]))
            return true;
    return false;
}

static int unknown_hint(plan_ctx *pc, const weir_sql_hint *h)
{
    static const char *const known[] = {"OPTIONS", "STATE_TTL", "LOOKUP", "BROADCAST", "SHUFFLE_HASH",
                                        "SHUFFLE_MERGE", "NEST_LOOP", NULL};
    const char *best = NULL;
    int best_d = 3; /* a near miss: at most 2 edits */
    for (size_t i = 0; known[i]; i++) {
        int d = weir__sql_edit_distance(h->name.name, h->name.len, known[i], strlen(known[i]), best_d);
        if (d < best_d) {
            best_d = d;
            best = known[i];
        }
    }
    char mean[64] = "";
    if (best)
        snprintf(mean, sizeof mean, "did you mean %s? ", best);
    return plan_error(pc, h->name.loc, WEIR_EUNSUPPORTED,
                      "unknown hint '%s' (%sOPTIONS follows a table's name; STATE_TTL, LOOKUP, BROADCAST, "
                      "SHUFFLE_HASH, SHUFFLE_MERGE and NEST_LOOP follow SELECT)",
                      h->name.name, mean);
}

static int dynamic_options_enabled(plan_ctx *pc, const weir_sql_hint *h)
{
    const char *key = "table.dynamic-table-options.enabled";
    const char *v = plan_config(pc, key);
    bool on = true;
    if (v && weir_option_parse_bool(v, &on))
        return plan_error(pc, plan_config_at(pc, key, h->loc), WEIR_EINVAL, "%s: expected 'true' or 'false', got '%s'",
                          key, v);
    if (!on)
        return plan_error(pc, h->name.loc, WEIR_EPLAN,
                          "the OPTIONS hint is allowed only when '%s' is 'true' (it is 'false')", key);
    return 0;
}

/* A hint after a table's or view's name must be OPTIONS. */
static int table_hint_name(plan_ctx *pc, const weir_sql_hint *h)
{
    if (hint_is(h, "OPTIONS"))
        return 0;
    if (is_join_hint(h) || hint_is(h, "STATE_TTL") || hint_is(h, "LOOKUP"))
        return plan_error(pc, h->name.loc, WEIR_EPLAN,
                          "%s is a query hint: it follows SELECT (SELECT /*+ %s(...) */ ...); a table takes only "
                          "OPTIONS",
                          h->name.name, h->name.name);
    return unknown_hint(pc, h);
}

int plan_hinted_table(plan_ctx *pc, cat_table *t, const weir_sql_hint *hints, uint32_t n_hints, cat_table **out)
{
    *out = t;
    if (!n_hints)
        return 0;
    size_t extra = 0;
    for (uint32_t k = 0; k < n_hints; k++) {
        const weir_sql_hint *h = &hints[k];
        int rc = table_hint_name(pc, h);
        if (rc)
            return rc;
        if (h->n_args || !h->n_options)
            return plan_error(pc, h->loc, WEIR_EPLAN,
                              "OPTIONS takes quoted 'key' = 'value' pairs, as OPTIONS('k' = 'v')");
        if ((rc = dynamic_options_enabled(pc, h)))
            return rc;
        extra += h->n_options;
    }
    cat_table *c = plan_alloc(pc, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    *c = *t;
    c->opts = plan_alloc(pc, (t->n_opts + extra + 1) * sizeof *c->opts);
    c->opt_src = plan_alloc(pc, (t->n_opts + extra + 1) * sizeof *c->opt_src);
    if (!c->opts || !c->opt_src)
        return WEIR_ENOMEM;
    for (size_t i = 0; i < t->n_opts; i++) {
        c->opts[i] = t->opts[i];
        c->opt_src[i] = t->opt_src ? t->opt_src[i] : i < t->ddl->n_options ? &t->ddl->options[i] : NULL;
    }
    for (uint32_t k = 0; k < n_hints; k++) {
        for (uint32_t i = 0; i < hints[k].n_options; i++) {
            const weir_sql_option *o = &hints[k].options[i];
            size_t at = 0;
            while (at < c->n_opts && strcmp(c->opts[at].key, o->key) != 0)
                at++;
            if (at == c->n_opts)
                c->n_opts++;
            c->opts[at] = (weir_option){o->key, o->value};
            c->opt_src[at] = o;
        }
    }
    *out = c;
    return 0;
}

int plan_view_hints(plan_ctx *pc, const char *view, const weir_sql_hint *hints, uint32_t n_hints)
{
    for (uint32_t k = 0; k < n_hints; k++) {
        int rc = table_hint_name(pc, &hints[k]);
        if (rc)
            return rc;
    }
    if (!n_hints)
        return 0;
    return plan_error(pc, hints[0].name.loc, WEIR_EPLAN,
                      "view '%s' cannot take an OPTIONS hint: options apply to tables (hint the tables in the "
                      "view's query)",
                      view);
}

/* ------------------------------------------------------------ query hints */

/* The name a FROM item goes by in hints: its alias, else a table's or view's name; NULL for a join. */
static const char *input_name(const weir_sql_table_ref *r)
{
    if (!r)
        return NULL;
    if (r->alias)
        return r->alias->name;
    if (r->kind == WEIR_SQL_FROM_TABLE)
        return r->u.table.name.parts[r->u.table.name.n_parts - 1].name;
    return NULL;
}

/*
 * Whether `name` is an input of a join in the FROM tree f, or (single) f
 * itself when it is the block's one FROM item (a group aggregation's input).
 */
static bool names_input(const weir_sql_table_ref *f, const char *name, bool single)
{
    if (!f)
        return false;
    if (f->kind == WEIR_SQL_FROM_JOIN)
        return names_input(f->u.join.left, name, true) || names_input(f->u.join.right, name, true);
    const char *n = single ? input_name(f) : NULL;
    return n && strcasecmp(n, name) == 0;
}

static int no_match(plan_ctx *pc, weir_sql_loc at, const char *hint, const char *name)
{
    return plan_error(pc, at, WEIR_EPLAN,
                      "%s names '%s', which is not an input table or view of a join%s of this SELECT", hint, name,
                      strcasecmp(hint, "STATE_TTL") ? "" : " or aggregation");
}

static int check_join_hint(plan_ctx *pc, const weir_sql_select *sel, const weir_sql_hint *h)
{
    if (h->n_options || !h->n_args)
        return plan_error(pc, h->loc, WEIR_EPLAN, "%s names the tables it applies to, as %s(t1, t2)", h->name.name,
                          h->name.name);
    for (uint32_t i = 0; i < h->n_args; i++) {
        const weir_sql_expr *a = h->args[i];
        const char *name = NULL;
        if (a->kind == WEIR_SQL_EXPR_COLUMN && a->u.column.n_parts == 1)
            name = a->u.column.parts[0].name;
        else if (a->kind == WEIR_SQL_EXPR_LITERAL && a->u.lit.kind == WEIR_SQL_LIT_STRING)
            name = a->u.lit.text;
        if (!name)
            return plan_error(pc, a->loc, WEIR_EPLAN, "%s takes table names, as %s(t1, t2)", h->name.name,
                              h->name.name);
        bool join = sel->from && sel->from->kind == WEIR_SQL_FROM_JOIN;
        if (!join || !names_input(sel->from, name, false))
            return no_match(pc, a->loc, h->name.name, name);
    }
    return 0;
}

static int check_state_ttl(plan_ctx *pc, const weir_sql_select *sel, const weir_sql_hint *h)
{
    if (h->n_args || !h->n_options)
        return plan_error(pc, h->loc, WEIR_EPLAN, "STATE_TTL takes 'table' = 'duration' pairs, as STATE_TTL('o' = '1d')");
    for (uint32_t i = 0; i < h->n_options; i++) {
        const weir_sql_option *o = &h->options[i];
        int64_t ms;
        if (weir_option_parse_duration(o->value, &ms) || ms < 0)
            return plan_error(pc, o->value_loc, WEIR_EINVAL, "STATE_TTL: invalid duration '%s' (such as '1d', '12h')",
                              o->value);
        if (!names_input(sel->from, o->key, true))
            return no_match(pc, o->loc, "STATE_TTL", o->key);
    }
    return 0;
}

static const weir_sql_option *hint_option(const weir_sql_hint *h, const char *key)
{
    for (uint32_t i = 0; i < h->n_options; i++)
        if (strcmp(h->options[i].key, key) == 0)
            return &h->options[i];
    return NULL;
}

static bool positive_int(const char *v)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    return end != v && !*end && n > 0 && n <= INT32_MAX;
}

static int check_lookup(plan_ctx *pc, const weir_sql_select *sel, const weir_sql_hint *h)
{
    if (h->n_args)
        return plan_error(pc, h->args[0]->loc, WEIR_EPLAN, "LOOKUP takes quoted 'key' = 'value' pairs");
    const weir_sql_option *tab = hint_option(h, "table");
    if (!tab)
        return plan_error(pc, h->loc, WEIR_EPLAN, "LOOKUP needs the option 'table' (the lookup table's name)");
    if (!sel->from || sel->from->kind != WEIR_SQL_FROM_JOIN || !names_input(sel->from, tab->value, false))
        return no_match(pc, tab->value_loc, "LOOKUP", tab->value);
    unsigned retry = 0; /* how many of the four retry options are given */
    for (uint32_t i = 0; i < h->n_options; i++) {
        const weir_sql_option *o = &h->options[i];
        const char *k = o->key, *v = o->value;
        int64_t n;
        bool b;
        bool ok = true;
        if (!strcmp(k, "table"))
            continue;
        else if (!strcmp(k, "async"))
            ok = !weir_option_parse_bool(v, &b);
        else if (!strcmp(k, "output-mode"))
            ok = !strcasecmp(v, "ordered") || !strcasecmp(v, "allow_unordered");
        else if (!strcmp(k, "capacity"))
            ok = positive_int(v);
        else if (!strcmp(k, "timeout"))
            ok = !weir_option_parse_duration(v, &n) && n > 0;
        else if (!strcmp(k, "retry-predicate"))
            ok = !strcasecmp(v, "lookup_miss");
        else if (!strcmp(k, "retry-strategy"))
            ok = !strcasecmp(v, "fixed_delay");
        else if (!strcmp(k, "fixed-delay"))
            ok = !weir_option_parse_duration(v, &n) && n > 0;
        else if (!strcmp(k, "max-attempts"))
            ok = positive_int(v);
        else
            return plan_error(pc, o->loc, WEIR_EPLAN,
                              "unknown LOOKUP option '%s' (table, async, output-mode, capacity, timeout, "
                              "retry-predicate, retry-strategy, fixed-delay, max-attempts)",
                              k);
        if (!ok)
            return plan_error(pc, o->value_loc, WEIR_EINVAL, "LOOKUP option '%s': invalid value '%s'", k, v);
        retry += !strncmp(k, "retry-", 6) || !strcmp(k, "fixed-delay") || !strcmp(k, "max-attempts");
    }
    if (retry && retry != 4)
        return plan_error(pc, h->loc, WEIR_EPLAN,
                          "a LOOKUP retry needs all of 'retry-predicate', 'retry-strategy', 'fixed-delay' and "
                          "'max-attempts'");
    return 0;
}

int plan_query_hints_enter(plan_ctx *pc, const weir_sql_select *sel)
{
    pc->qhints = sel->hints;
    pc->n_qhints = sel->n_hints;
    for (uint32_t k = 0; k < sel->n_hints; k++) {
        const weir_sql_hint *h = &sel->hints[k];
        int rc;
        if (is_join_hint(h))
            rc = check_join_hint(pc, sel, h);
        else if (hint_is(h, "STATE_TTL"))
            rc = check_state_ttl(pc, sel, h);
        else if (hint_is(h, "LOOKUP"))
            rc = check_lookup(pc, sel, h);
        else if (hint_is(h, "OPTIONS"))
            rc = plan_error(pc, h->name.loc, WEIR_EPLAN,
                            "OPTIONS is a table hint: it follows a table's name (FROM t /*+ OPTIONS('k' = 'v') */)");
        else
            rc = unknown_hint(pc, h);
        if (rc)
            return rc;
    }
    return 0;
}

int plan_hint_state_ttl(plan_ctx *pc, const weir_sql_table_ref *in, int64_t *ttl_ms)
{
    const char *name = input_name(in);
    if (!name)
        return 0;
    for (uint32_t k = 0; k < pc->n_qhints; k++) {
        const weir_sql_hint *h = &pc->qhints[k];
        if (!hint_is(h, "STATE_TTL"))
            continue;
        for (uint32_t i = 0; i < h->n_options; i++)
            if (!strcasecmp(h->options[i].key, name)) {
                if (weir_option_parse_duration(h->options[i].value, ttl_ms))
                    return plan_error(pc, h->options[i].value_loc, WEIR_EINVAL, "STATE_TTL: invalid duration '%s'",
                                      h->options[i].value);
                return 0; /* the first that names it */
            }
    }
    return 0;
}

int plan_hint_lookup(plan_ctx *pc, const weir_sql_table_ref *in, const cat_table *t, bool keyed)
{
    for (uint32_t k = 0; k < pc->n_qhints; k++) {
        const weir_sql_hint *h = &pc->qhints[k];
        if (!hint_is(h, "LOOKUP"))
            continue;
        const weir_sql_option *tab = hint_option(h, "table");
        const char *alias = input_name(in);
        if (!tab || (strcasecmp(tab->value, t->name) && !(alias && !strcasecmp(tab->value, alias))))
            continue;
        const weir_sql_option *retry = hint_option(h, "retry-predicate");
        if (retry && keyed)
            return plan_error(pc, retry->loc, WEIR_EUNSUPPORTED,
                              "LOOKUP: a retry on a miss ('retry-predicate') is not supported yet for table '%s', "
                              "which is queried by key",
                              t->name);
        return 0;
    }
    return 0;
}
