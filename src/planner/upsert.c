/*
 * planner/upsert.c - upsert keys and the sink's upsert materializer
 * (table.exec.sink.upsert-materialize), as Flink plans them.
 *
 * An upsert key of a rel is a set of columns whose every value has all its
 * changes arrive in order from one subtask. A sink with a PRIMARY KEY is fed
 * through a shuffle by that key, so when an upsert key is contained in the
 * PRIMARY KEY each key value's changes still arrive in order; when none is,
 * a value's -D may overtake the +I of its new version from another subtask,
 * and an upsert sink (jdbc, upsert-kafka) ends with the row deleted. The
 * materializer (ops/sink_materialize.c) then puts the changes back in
 * order of what is live.
 *
 * Keys are known conservatively: a GROUP BY's keys, a changelog source's
 * PRIMARY KEY, a regular join's (plan_ukey_join), a Top-N's or a
 * deduplication's (plan_ukey_rank), carried through Calcs that keep their
 * columns as plain references. Every key crosses an exchange only when it
 * contains the exchange's hash columns (or the exchange leads to one
 * subtask): otherwise the -U and +U of one key value may take two paths and
 * be reordered. Anything else has none, and gets a materializer when the
 * sink needs one: a materializer too many costs state; one missing is a
 * wrong result.
 */
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "planner/planner.h"

bool plan_ukey_valid(const rel *r)
{
    return r->n_ukeys > 0 && r->ukey_node == r->s.node && r->s.side_tag == 0 && !r->win.present;
}

void plan_ukey_set(rel *r, const uint32_t *cols, uint32_t n)
{
    if (!plan_ukey_valid(r))
        r->n_ukeys = 0;
    r->ukey_node = r->s.node;
    if (n > WEIR_KEY_MAX_COLS || r->n_ukeys == sizeof r->ukeys / sizeof *r->ukeys)
        return;
    weir_keyspec *k = &r->ukeys[r->n_ukeys++];
    memset(k, 0, sizeof *k);
    k->n = n;
    if (n)
        memcpy(k->cols, cols, n * sizeof *cols);
}

/* Whether key k contains every column of h. */
static bool key_contains(const weir_keyspec *k, const weir_keyspec *h)
{
    for (uint32_t i = 0; i < h->n; i++) {
        bool found = false;
        for (uint32_t j = 0; j < k->n && !found; j++)
            found = k->cols[j] == h->cols[i];
        if (!found)
            return false;
    }
    return true;
}

/*
 * The keys of in that survive an exchange hashed by h (one_subtask: the
 * exchange leads to a single subtask, every key survives), into out[0, *n)
 * (at most cap).
 */
static uint32_t keys_across(const rel *in, const weir_keyspec *h, bool one_subtask, weir_keyspec *out, uint32_t cap)
{
    uint32_t n = 0;
    if (!plan_ukey_valid(in))
        return 0;
    for (uint32_t i = 0; i < in->n_ukeys && n < cap; i++)
        if (one_subtask || key_contains(&in->ukeys[i], h))
            out[n++] = in->ukeys[i];
    return n;
}

/* Whether the columns h hold a key of in (whatever the exchange: a key's rows meet on one subtask). */
static bool holds_key(const rel *in, const weir_keyspec *h)
{
    for (uint32_t i = 0; plan_ukey_valid(in) && i < in->n_ukeys; i++)
        if (key_contains(h, &in->ukeys[i]))
            return true;
    return false;
}

enum { KEYS_CAP = sizeof ((rel *)0)->ukeys / sizeof *((rel *)0)->ukeys };

void plan_ukey_join(const rel *l, const rel *r, const weir_keyspec hash[2], bool one_subtask, bool semi,
                    bool pads_left, bool pads_right, rel *out)
{
    weir_keyspec lk[KEYS_CAP], rk[KEYS_CAP];
    uint32_t nl = l->n_physical;
    uint32_t n_l = keys_across(l, &hash[0], one_subtask, lk, KEYS_CAP);
    out->n_ukeys = 0;
    if (semi) {
        /* the left rows alone, each from the subtask of its join key */
        for (uint32_t i = 0; i < n_l; i++)
            plan_ukey_set(out, lk[i].cols, lk[i].n);
        return;
    }
    uint32_t n_r = keys_across(r, &hash[1], one_subtask, rk, KEYS_CAP);
    for (uint32_t i = 0; i < n_r; i++)
        for (uint32_t c = 0; c < rk[i].n; c++)
            rk[i].cols[c] += nl;
    /* a row of the side whose join key holds one of its keys meets at most one row there: the other side's
     * keys stay unique, unless padding invents rows of NULLs for them (the outer side's keys) */
    bool l_unique = holds_key(l, &hash[0]), r_unique = holds_key(r, &hash[1]);
    if (r_unique && !pads_left)
        for (uint32_t i = 0; i < n_l; i++)
            plan_ukey_set(out, lk[i].cols, lk[i].n);
    if (l_unique && !pads_right)
        for (uint32_t i = 0; i < n_r; i++)
            plan_ukey_set(out, rk[i].cols, rk[i].n);
    /* a key of each side together: one pair of rows (or a row and its padding) */
    for (uint32_t i = 0; i < n_l; i++)
        for (uint32_t j = 0; j < n_r; j++) {
            if (lk[i].n + rk[j].n > WEIR_KEY_MAX_COLS)
                continue;
            uint32_t cols[WEIR_KEY_MAX_COLS];
            memcpy(cols, lk[i].cols, lk[i].n * sizeof *cols);
            memcpy(cols + lk[i].n, rk[j].cols, rk[j].n * sizeof *cols);
            plan_ukey_set(out, cols, lk[i].n + rk[j].n);
        }
}

void plan_ukey_rank(const rel *in, const weir_keyspec *partition, bool row_number, bool top1, int32_t rank_col,
                    bool from_first, rel *out)
{
    weir_keyspec ik[KEYS_CAP];
    uint32_t n_i = keys_across(in, partition, partition->n == 0, ik, KEYS_CAP);
    out->n_ukeys = 0;
    /* ROW_NUMBER() <= 1: one row per partition at a time, from its subtask */
    if (row_number && top1) {
        plan_ukey_set(out, partition->cols, partition->n);
        return;
    }
    uint32_t cols[WEIR_KEY_MAX_COLS];
    /* ROW_NUMBER() numbers the rows of a partition apart (RANK and DENSE_RANK give ties one number) */
    if (row_number && rank_col >= 0 && partition->n < WEIR_KEY_MAX_COLS) {
        memcpy(cols, partition->cols, partition->n * sizeof *cols);
        cols[partition->n] = (uint32_t)rank_col;
        plan_ukey_set(out, cols, partition->n + 1);
    }
    /* the rows kept are rows of the input: its keys that crossed the exchange, unless a row's output moves
     * (a rank number, or ranks from above 1: a climbing row's new place comes before its old one's retraction) */
    if (rank_col >= 0 || !from_first)
        return;
    for (uint32_t i = 0; i < n_i; i++)
        plan_ukey_set(out, ik[i].cols, ik[i].n);
}

void plan_ukey_calc(const rel *in, weir_expr *const *exprs, uint32_t n, rel *out)
{
    rel r = *in;
    bool valid = plan_ukey_valid(in);
    out->n_ukeys = 0;
    if (!valid)
        return;
    /* the exchange in front of the Calc, if any */
    if (in->s.part != WEIR_PART_FORWARD && in->s.part != WEIR_PART_GLOBAL && in->s.part != WEIR_PART_KEYED)
        return;
    for (uint32_t i = 0; i < r.n_ukeys; i++) {
        const weir_keyspec *k = &r.ukeys[i];
        if (in->s.part == WEIR_PART_KEYED && !key_contains(k, &in->s.key))
            continue;
        uint32_t cols[WEIR_KEY_MAX_COLS];
        bool all = true;
        for (uint32_t c = 0; c < k->n && all; c++) {
            if (!exprs) {
                cols[c] = k->cols[c];
                continue;
            }
            all = false;
            for (uint32_t e = 0; e < n && !all; e++)
                if (weir_expr_column_index(exprs[e]) == (int32_t)k->cols[c]) {
                    cols[c] = e;
                    all = true;
                }
        }
        if (all)
            plan_ukey_set(out, cols, k->n);
    }
}

typedef enum { MAT_NONE, MAT_AUTO, MAT_FORCE } mat_mode;

int plan_sink_materialize(plan_ctx *pc, const cat_table *t, const rel *w, const weir_operator_spec *spec,
                          const uint32_t *pk, uint32_t n_pk, uint32_t par, weir_sql_loc loc, weir_stream *s)
{
    static const char key[] = "table.exec.sink.upsert-materialize";
    const char *v = plan_config(pc, key);
    mat_mode mode = MAT_AUTO;
    if (v && !strcasecmp(v, "NONE"))
        mode = MAT_NONE;
    else if (v && !strcasecmp(v, "FORCE"))
        mode = MAT_FORCE;
    else if (v && strcasecmp(v, "AUTO"))
        return plan_error(pc, plan_config_at(pc, key, loc), WEIR_EINVAL,
                          "%s: expected 'NONE', 'AUTO' or 'FORCE', got '%s'", key, v);
    if (mode == MAT_NONE || !w->updating || n_pk == 0)
        return 0;
    weir_keyspec pks = {.n = n_pk};
    memcpy(pks.cols, pk, n_pk * sizeof *pk);
    /* the input's upsert keys: one contained in the PRIMARY KEY keeps each key value's changes in order */
    bool valid = plan_ukey_valid(w), in_pk = false;
    for (uint32_t i = 0; valid && i < w->n_ukeys && !in_pk; i++)
        in_pk = key_contains(&pks, &w->ukeys[i]);
    if (mode == MAT_AUTO && (in_pk || !weir_sink_spec_is_upsert(spec)))
        return 0;
    int64_t ttl = 0;
    const char *tv = plan_config(pc, "table.exec.state.ttl");
    if (tv && weir_option_parse_duration(tv, &ttl))
        return plan_error(pc, plan_config_at(pc, "table.exec.state.ttl", loc), WEIR_EINVAL,
                          "table.exec.state.ttl: invalid duration '%s'", tv);
    weir_upsert_materialize_config c = {.primary_key = pks, .schema = w->schema, .state_ttl_ms = ttl};
    if (valid) {
        c.has_upsert_key = true;
        c.upsert_key = w->ukeys[0];
    }
    weir_operator_spec ms;
    int rc = weir_upsert_materialize_spec(&c, &ms);
    if (rc)
        return rc;
    weir_stream out;
    if ((rc = weir_job_operator(pc->job, s, 1, &ms, w->schema, par, &out))) {
        ms.free_arg(ms.arg);
        return plan_error(pc, loc, rc, "cannot add the upsert materializer of table '%s': %s", t->name,
                          weir_job_error(pc->job));
    }
    /* the fingerprint (a restore into a changed key is refused) and the plan line */
    weir_buf pks_s, uks_s;
    weir_buf_init(&pks_s);
    weir_buf_init(&uks_s);
    for (uint32_t i = 0; !rc && i < n_pk; i++)
        rc = weir_buf_printf(&pks_s, "%s%s", i ? "," : "", w->schema->fields[pk[i]].name);
    if (!rc && !c.has_upsert_key)
        rc = weir_buf_printf(&uks_s, "none");
    for (uint32_t i = 0; !rc && c.has_upsert_key && i < c.upsert_key.n; i++)
        rc = weir_buf_printf(&uks_s, "%s%s", i ? "," : "", w->schema->fields[c.upsert_key.cols[i]].name);
    if (!rc)
        rc = weir_buf_put_u8(&pks_s, 0);
    if (!rc)
        rc = weir_buf_put_u8(&uks_s, 0);
    if (!rc)
        rc = weir_job_describe_state(pc->job, out, "primary-key", (const char *)pks_s.data);
    if (!rc)
        rc = weir_job_describe_state(pc->job, out, "upsert-key", (const char *)uks_s.data);
    if (!rc)
        rc = weir_buf_printf(&pc->explain, "  SinkMaterializer[%d]: primary-key=(%s) upsert-key=(%s) mode=%s\n",
                             out.node, (const char *)pks_s.data, (const char *)uks_s.data,
                             mode == MAT_FORCE ? "FORCE" : "AUTO");
    weir_buf_fini(&pks_s);
    weir_buf_fini(&uks_s);
    if (rc)
        return rc;
    *s = out;
    return 0;
}
