/*
 * checkpoint/compat.c - restore compatibility: does a checkpoint's state
 * mean the same thing in the job being started?
 *
 * A checkpoint (metadata version 4) lists the stateful operators of the job
 * that took it, each with its stable id and its fingerprint ("field: value"
 * lines: window kind and size, aggregates, key and state schemas, a
 * source's path and format ...; runtime/stateid.c). Each is matched to the
 * job's operator of the same id:
 *   - same fingerprint: its state moves to that operator (whatever node id
 *     the operator has now: stateless operators may come and go);
 *   - no operator with that id, but the checkpoint holds nothing of it (no
 *     operator or keyed state, timer or split: a union, which keeps none),
 *     nothing is lost: it is left out, with a line saying so;
 *   - a different fingerprint, or no operator with that id: the checkpoint
 *     is refused, naming the operator and each field that changed, unless
 *     the user allowed dropping unmatched state (--allow-non-restored-state),
 *     in which case that operator's state is dropped, with a line saying so.
 * Operators of the job that the checkpoint does not have start empty (a
 * line says so too). One field may be missing from the checkpoint's
 * fingerprint: "row format" of a join or Top-N, in a checkpoint written
 * before their compact row encoding; its rows are re-encoded after the
 * restore (weir__op_on_canonical_rows). Another, "row log" of a join, in
 * a checkpoint written before joins kept an insert-only side's rows in a
 * log: its rows are in map entries, which the join moves into its logs
 * after the restore (weir__op_on_restored); one whose row logs are of the
 * first element format ("row log: 1 ...", now "2 ...") is re-encoded
 * after the restore too. Another, "rank rows" of a
 * Top-N or deduplication, in a checkpoint written while they kept each
 * row whole: they re-encode them after the restore (weir__op_on_restored).
 * Another, "top1 skip" of a join, in a checkpoint of a join that stored
 * every row (no Top-1 linked, or 'weir.join.top1-skip' off): a superset
 * of what the linked join keeps. The reverse is refused: a join that did
 * not store the rows below its Top-1's kept row restores only into a join
 * linked the same way (the same side, columns and order).
 * Another, "partial rows" of the
 * global phase of a two-phase aggregation, in a checkpoint written while
 * the local phase serialised every partial accumulator: its state is the
 * same, but partial rows it holds in flight (an unaligned checkpoint) are
 * in that serialised form, so such a checkpoint is refused by name.
 * Others, in a checkpoint written before weir recorded them: "key
 * columns" (the positions of a keyed input's key), "columns" (an input's
 * column names), a join's "join", "join bounds" and "null-safe keys", a
 * Top-N's "ranks", a window Top-N's, window deduplication's or window
 * join's "windows", "aggregate columns", an OVER aggregation's "frame", a
 * MATCH_RECOGNIZE's "pattern", "running values" and "merged partial
 * matches", an input's "column
 * origins"; the rest is compared then. Where both have an input's column
 * origins, its column names ("columns") are not compared: an alias on the
 * way renames a column without changing what it holds. One field may
 * differ: a MATCH_RECOGNIZE's "merged partial matches", where the job
 * merges from the checkpoint's term or earlier (merged_within). Nothing of a checkpoint is ever
 * restored into an operator whose fingerprint differs otherwise: a changed
 * query never silently runs on state it no longer understands.
 */
#include <stdio.h>
#include <string.h>

#include "checkpoint/coordinator.h"

/* The value of `field` in fingerprint fp (a pointer into fp), or NULL. */
static const char *fp_value(const char *fp, const char *field, size_t *len)
{
    size_t fl = strlen(field);
    for (const char *p = fp; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t ll = nl ? (size_t)(nl - p) : strlen(p);
        if (ll >= fl + 2 && !memcmp(p, field, fl) && !memcmp(p + fl, ": ", 2)) {
            *len = ll - fl - 2;
            return p + fl + 2;
        }
        p = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/*
 * Whether field (value v of vl bytes) in the job's fingerprint, missing
 * from the checkpoint's, is the compact row encoding (ops/rowcodec.h): a
 * checkpoint of a weir before it, whose rows are in the canonical encoding.
 * Not a mismatch: the operator re-encodes them after the restore.
 */
static bool canonical_rows(const char *field, const char *v, size_t vl)
{
    return strcmp(field, WEIR__ROW_FORMAT_FIELD) == 0 && vl == strlen(WEIR__ROW_FORMAT) &&
           memcmp(v, WEIR__ROW_FORMAT, vl) == 0;
}

/* Whether field, in the job's fingerprint and missing from the
 * checkpoint's, is a join's row logs: a checkpoint of a weir before them,
 * whose rows are in map entries. Not a mismatch: the join moves them. */
static bool map_rows(const char *field)
{
    return strcmp(field, WEIR__ROW_LOG_FIELD) == 0;
}

/* The next side named by a "row log" value at *p (before end): its name
 * without the format's marks after it ("left+time" is "left"), *p past it;
 * *timed: the marks hold "+time". */
static size_t row_log_side(const char **p, const char *end, const char **name, bool *timed)
{
    while (*p < end && **p == ' ')
        (*p)++;
    *name = *p;
    size_t n = 0;
    while (*p + n < end && (*p)[n] != ' ' && (*p)[n] != '+' && (*p)[n] != '-')
        n++;
    *p += n;
    const char *marks = *p;
    while (*p < end && **p != ' ')
        (*p)++;
    *timed = memmem(marks, (size_t)(*p - marks), "+time", 5) != NULL;
    return n;
}

/* Whether "row log" value ck (of the checkpoint) is of the first element
 * format and now (the job's) of the current one, both naming the same
 * sides: the join re-encodes the logs after the restore. timed (NULL: not
 * wanted): whether the checkpoint's elements of each side begin with the
 * row's time, which a side bounded in the checkpoint and not now, or the
 * reverse, does not show in now. */
static bool row_log_1(const char *ck, size_t cl, const char *now, size_t nl, bool timed[2])
{
    size_t vl = strlen(WEIR__ROW_LOG);
    if (cl < 2 || memcmp(ck, "1 ", 2) || nl <= vl || memcmp(now, WEIR__ROW_LOG, vl) || now[vl] != ' ')
        return false;
    const char *a = ck + 1, *ae = ck + cl, *b = now + vl, *be = now + nl;
    while (a < ae || b < be) {
        const char *an, *bn;
        bool at, bt;
        size_t al = row_log_side(&a, ae, &an, &at), bl = row_log_side(&b, be, &bn, &bt);
        if (al != bl || memcmp(an, bn, al))
            return false;
        if (timed)
            timed[al == 5 && !memcmp(an, "right", 5)] = at;
    }
    return true;
}

/* Whether field, in the job's fingerprint and missing from the
 * checkpoint's, is a join's "top1 skip": the checkpoint's join stored
 * every row, a superset of what this one keeps. Not a mismatch. */
static bool all_rows_stored(const char *field)
{
    return strcmp(field, WEIR__TOP1_SKIP_FIELD) == 0;
}

/* Whether field is name or "name of input N". */
static bool is_field(const char *field, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(field, name, n) && (!field[n] || !strncmp(field + n, " of input ", 10));
}

/* Whether field, in the job's fingerprint and missing from the
 * checkpoint's, is one that a weir before it did not record (key column
 * positions, column names, a join's type and bounds, a Top-N's ranks,
 * aggregates' columns, an OVER frame, a MATCH_RECOGNIZE pattern, running
 * values and merged partial matches, column origins).
 * Not a mismatch: the rest is still compared; it cannot be checked. */
static bool unrecorded(const char *field)
{
    static const char *const later[] = {WEIR__KEY_COLUMNS_FIELD, WEIR__COLUMNS_FIELD, WEIR__JOIN_FIELD,
                                        WEIR__JOIN_BOUNDS_FIELD, WEIR__NULL_SAFE_KEYS_FIELD, WEIR__RANKS_FIELD,
                                        WEIR__AGGREGATE_COLUMNS_FIELD, WEIR__FRAME_FIELD, WEIR__PATTERN_FIELD,
                                        WEIR__RUNNING_VALUES_FIELD, WEIR__ORIGINS_FIELD, WEIR__WINDOWS_FIELD,
                                        WEIR__MERGED_FIELD};
    for (size_t i = 0; i < sizeof later / sizeof *later; i++)
        if (is_field(field, later[i]))
            return true;
    return false;
}

/*
 * Whether field is an input's column names ("columns", "columns of input
 * 1") and both fingerprints have that input's column origins: those are
 * compared instead, so that a column renamed on the way (a view's alias)
 * still restores. A checkpoint without origins compares the names.
 */
static bool names_by_origins(const char *field, const char *a, const char *b)
{
    size_t n = strlen(WEIR__COLUMNS_FIELD), la, lb;
    if (!is_field(field, WEIR__COLUMNS_FIELD))
        return false;
    char origins[300];
    snprintf(origins, sizeof origins, "%s%s", WEIR__ORIGINS_FIELD, field + n);
    return fp_value(a, origins, &la) && fp_value(b, origins, &lb);
}

/* Whether field, in the job's fingerprint and missing from the
 * checkpoint's, is the layout of Top-N rows: a checkpoint of a weir that
 * kept them whole. Not a mismatch: the operator re-encodes them. */
static bool whole_rank_rows(const char *field)
{
    return strcmp(field, WEIR__RANK_ROWS_FIELD) == 0;
}

/*
 * Whether field (value v of vl bytes) in the job's fingerprint, missing
 * from the checkpoint's, is the form of a two-phase aggregation's partial
 * rows (runtime/checkpoint.h): a checkpoint of a weir that serialised them
 * all. Not a mismatch of the state; in-flight data is checked apart.
 */
static bool serialised_partials(const char *field, const char *v, size_t vl)
{
    return strcmp(field, WEIR__PARTIAL_ROWS_FIELD) == 0 && vl == strlen(WEIR__PARTIAL_ROWS) &&
           memcmp(v, WEIR__PARTIAL_ROWS, vl) == 0;
}

/* The first merged term of a "merged partial matches" value: "from term
 * n" gives n, "none" (nothing merged) UINT32_MAX. */
static uint32_t merged_term(const char *v, size_t vl)
{
    char b[32];
    unsigned t;
    snprintf(b, sizeof b, "%.*s", (int)(vl < sizeof b ? vl : sizeof b - 1), v);
    return sscanf(b, "from term %u", &t) == 1 ? t : UINT32_MAX;
}

/*
 * Whether field, valued v in the checkpoint and o now, is a
 * MATCH_RECOGNIZE's "merged partial matches" that the job merges from
 * the checkpoint's term or earlier: the partial matches the checkpoint
 * dropped the job would have dropped too. The other way round, the
 * restored state lacks partial matches that the job's conditions could
 * let win.
 */
static bool merged_within(const char *field, const char *v, size_t vl, const char *o, size_t ol)
{
    return !strcmp(field, WEIR__MERGED_FIELD) && merged_term(o, ol) <= merged_term(v, vl);
}

/*
 * Appends "field A in the checkpoint, B now" for every field of `from`
 * whose value in `to` differs or is missing. Called both ways round: from
 * the checkpoint's side it reports changed and removed fields, from the
 * job's side only the added ones (a changed field is reported once).
 */
static void diff_fields(const char *from, const char *to, bool from_is_ckpt,
                        weir_buf *out)
{
    for (const char *p = from; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t ll = nl ? (size_t)(nl - p) : strlen(p);
        const char *sep = memchr(p, ':', ll);
        if (sep && (size_t)(sep - p) + 2 <= ll) {
            char field[256];
            snprintf(field, sizeof field, "%.*s", (int)(sep - p), p);
            const char *v = sep + 2;
            size_t vl = ll - (size_t)(v - p), ol = 0;
            const char *o = fp_value(to, field, &ol);
            bool same = names_by_origins(field, from, to) || (o && ol == vl && memcmp(o, v, vl) == 0) ||
                        (o && from_is_ckpt && !strcmp(field, WEIR__ROW_LOG_FIELD) && row_log_1(v, vl, o, ol, NULL)) ||
                        (o && from_is_ckpt && merged_within(field, v, vl, o, ol));
            const char *sp = memchr(v, ' ', vl); /* "top1 skip": the side first */
            if (from_is_ckpt && !same && all_rows_stored(field))
                weir_buf_printf(out,
                                "%sits %.*s rows below the kept row of the Top-1 after it were not stored "
                                "(%s %.*s in the checkpoint, %s%.*s now): this job does not rank them the same way",
                                out->len ? ", " : "", sp ? (int)(sp - v) : (int)vl, v, field, (int)vl, v,
                                o ? "" : "none", o ? (int)ol : 0, o ? o : "");
            else if (from_is_ckpt && !same)
                weir_buf_printf(out, "%s%s %.*s in the checkpoint, %s%.*s now",
                                out->len ? ", " : "", field, (int)vl, v,
                                o ? "" : "none", o ? (int)ol : 0, o ? o : "");
            else if (!from_is_ckpt && !o && !canonical_rows(field, v, vl) && !map_rows(field) && !whole_rank_rows(field) &&
                     !all_rows_stored(field) && !serialised_partials(field, v, vl) && !unrecorded(field))
                weir_buf_printf(out, "%s%s none in the checkpoint, %.*s now",
                                out->len ? ", " : "", field, (int)vl, v);
        }
        p = nl ? nl + 1 : NULL;
    }
}

static const weir__state_op *find_uid(const weir__state_op *ops, uint32_t n,
                                      const char *uid)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(ops[i].uid, uid) == 0)
            return &ops[i];
    return NULL;
}

int weir__ckpt_compat_apply(weir_job *job, const weir_checkpoint_config *cfg,
                            const char *shown, const weir__ckpt_meta *meta,
                            weir__snapshot_set *set, char *left_out,
                            size_t left_cap, weir_error *err)
{
    if (left_cap)
        left_out[0] = '\0';
    weir__state_op *ops;
    uint32_t n_ops;
    int rc = weir__job_state_ops(job, &ops, &n_ops);
    if (rc)
        return weir_error_set(err, rc, "out of memory");
    uint32_t n_map = 0;
    for (uint32_t i = 0; i < meta->n_ops; i++)
        if (meta->ops[i].node + 1 > n_map)
            n_map = meta->ops[i].node + 1;
    int *map = weir_calloc(n_map ? n_map : 1, sizeof *map);
    const char **names = weir_calloc(n_map ? n_map : 1, sizeof *names);
    bool *claimed = weir_calloc(n_ops ? n_ops : 1, sizeof *claimed);
    weir_buf why, all;
    weir_buf_init(&why);
    weir_buf_init(&all);
    if (!map || !names || !claimed) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < n_map; i++)
        map[i] = -1;
    uint32_t n_bad = 0;
    bool moved = false;
    char first[300] = "";    /* the first mismatch */
    char partials[300] = ""; /* the first operator whose partial rows in flight would be serialised */
    for (uint32_t i = 0; i < meta->n_ops; i++) {
        const weir__ckpt_op *c = &meta->ops[i];
        const weir__state_op *j = find_uid(ops, n_ops, c->uid);
        weir_buf_clear(&why);
        if (!j && weir__snapshot_set_node_empty(set, (int)c->node)) {
            /* Nothing to lose: no state, timer or split of it was kept. */
            weir__ckpt_log(cfg, "%s of %s is not in the job; it holds no state",
                           c->uid, shown);
            if (left_cap && !left_out[0])
                snprintf(left_out, left_cap, "%s", c->uid);
            moved = true; /* the graph changed: in-flight data would not
                             find its channels (refused below) */
            continue;
        }
        if (!j) {
            weir_buf_printf(&why, "in the checkpoint, not in the job");
        } else {
            if (strcmp(c->name, j->name) != 0)
                weir_buf_printf(&why,
                                "operator '%s' in the checkpoint, '%s' now",
                                c->name, j->name);
            diff_fields(c->fp, j->fp, true, &why);
            diff_fields(j->fp, c->fp, false, &why);
            claimed[j - ops] = true;
        }
        if (!why.len) {
            size_t l;
            const char *now = fp_value(j->fp, WEIR__ROW_FORMAT_FIELD, &l);
            bool canonical = now && canonical_rows(WEIR__ROW_FORMAT_FIELD, now, l) &&
                             !fp_value(c->fp, WEIR__ROW_FORMAT_FIELD, &l);
            weir__job_restore_canonical_rows(job, (int)j->node, canonical);
            const char *form = fp_value(j->fp, WEIR__PARTIAL_ROWS_FIELD, &l);
            if (!partials[0] && form && serialised_partials(WEIR__PARTIAL_ROWS_FIELD, form, l) &&
                !fp_value(c->fp, WEIR__PARTIAL_ROWS_FIELD, &l))
                snprintf(partials, sizeof partials, "%s", c->uid);
            if (canonical)
                weir__ckpt_log(cfg,
                               "%s of %s keeps its rows in the canonical encoding (an earlier weir): "
                               "they are re-encoded into the compact one (%s) as it restores",
                               c->uid, shown, WEIR__ROW_FORMAT);
            if (fp_value(j->fp, WEIR__ROW_LOG_FIELD, &l) && !fp_value(c->fp, WEIR__ROW_LOG_FIELD, &l))
                weir__ckpt_log(cfg,
                               "%s of %s keeps every row in a map entry (an earlier weir, or a TTL): the rows of its "
                               "insert-only sides move into their row logs as it restores",
                               c->uid, shown);
            size_t cl;
            const char *log_now = fp_value(j->fp, WEIR__ROW_LOG_FIELD, &l), *log_ck = fp_value(c->fp, WEIR__ROW_LOG_FIELD, &cl);
            bool timed[2] = {false, false};
            bool log_1 = log_now && log_ck && row_log_1(log_ck, cl, log_now, l, timed);
            weir__job_restore_row_log_1(job, (int)j->node, log_1, timed);
            if (log_1)
                weir__ckpt_log(cfg,
                               "%s of %s keeps its row logs in the first element format (an earlier weir): they "
                               "are re-encoded into format %s (no time or join key stored twice) as it restores",
                               c->uid, shown, WEIR__ROW_LOG);
            bool whole = fp_value(j->fp, WEIR__RANK_ROWS_FIELD, &l) && !fp_value(c->fp, WEIR__RANK_ROWS_FIELD, &l);
            weir__job_restore_whole_rank_rows(job, (int)j->node, whole);
            if (whole)
                weir__ckpt_log(cfg,
                               "%s of %s keeps its Top-N rows whole (an earlier weir): they are re-encoded "
                               "without the columns their keys hold (rank rows %s) as it restores",
                               c->uid, shown, WEIR__RANK_ROWS);
            map[c->node] = (int)j->node;
            names[c->node] = j->name;
            moved |= j->node != c->node;
            continue;
        }
        n_bad++;
        weir_buf_put_u8(&why, 0);
        if (cfg->allow_non_restored_state) {
            weir__ckpt_log(cfg,
                           "dropping the state of %s from %s "
                           "(--allow-non-restored-state): %s",
                           c->uid, shown, (const char *)why.data);
        } else {
            if (!first[0])
                snprintf(first, sizeof first, "%s: %s", c->uid,
                         (const char *)why.data);
            weir_buf_printf(&all, "%s%s: %s", all.len ? "; " : "", c->uid,
                            (const char *)why.data);
        }
    }
    if (n_bad && !cfg->allow_non_restored_state) {
        weir_buf_put_u8(&all, 0);
        const char *list = all.data ? (const char *)all.data : first;
        if (strlen(list) + strlen(shown) > sizeof err->message - 120) {
            /* Too long for one message: every change on its own line. */
            weir__ckpt_log(cfg, "%s does not fit this job: %s", shown, list);
            rc = weir_error_set(err, WEIR_EINVAL,
                                "%s does not fit this job: %.200s (and more, "
                                "listed above); run with --fresh, or "
                                "--allow-non-restored-state to drop it",
                                shown, first);
        } else {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "%s does not fit this job: %s; run with "
                                "--fresh, or --allow-non-restored-state to "
                                "drop it",
                                shown, list);
        }
        goto out;
    }
    if (partials[0] && weir__snapshot_set_has_inflight(set)) {
        rc = weir_error_set(
            err, WEIR_EINVAL,
            "%s holds in-flight data (an unaligned checkpoint) of an earlier weir, whose two-phase "
            "aggregation %.200s received its partial accumulators serialised; this weir sends COUNT, SUM, "
            "AVG, MIN and MAX as columns and cannot read those rows. Restore it with that weir and take a "
            "savepoint (aligned), which restores here, or run with --fresh",
            shown, partials);
        goto out;
    }
    if ((moved || n_bad) && weir__snapshot_set_has_inflight(set)) {
        rc = weir_error_set(
            err, WEIR_EINVAL,
            "%s holds in-flight data (an unaligned checkpoint), which "
            "restores only into the same job graph; the job's operators "
            "moved or lost state. Restore it into the unchanged job and take "
            "a savepoint (aligned), or run with --fresh",
            shown);
        goto out;
    }
    for (uint32_t i = 0; i < n_ops; i++)
        if (!claimed[i])
            weir__ckpt_log(cfg, "%s is not in %s: it starts with empty state",
                           ops[i].uid, shown);
    if ((rc = weir__snapshot_set_remap(set, map, names, n_map)))
        rc = weir_error_set(err, rc, "out of memory");
out:
    weir_buf_fini(&why);
    weir_buf_fini(&all);
    weir_free(map);
    weir_free(names);
    weir_free(claimed);
    weir__state_ops_free(ops, n_ops);
    return rc;
}

int weir__ckpt_compat_canonical_rows(weir_job *job)
{
    weir__state_op *ops;
    uint32_t n_ops;
    int rc = weir__job_state_ops(job, &ops, &n_ops);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < n_ops; i++) {
        size_t l;
        const char *now = fp_value(ops[i].fp, WEIR__ROW_FORMAT_FIELD, &l);
        weir__job_restore_canonical_rows(job, (int)ops[i].node, now && canonical_rows(WEIR__ROW_FORMAT_FIELD, now, l));
    }
    weir__state_ops_free(ops, n_ops);
    return 0;
}
