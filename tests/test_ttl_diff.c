/*
 * tests/test_ttl_diff.c - a randomized differential test of state
 * time-to-live (`table.exec.state.ttl`, or a STATE_TTL hint) on group
 * aggregations, joins, deduplication and Top-N, against a model written
 * here that shares no code with weir.
 *
 * TTL counts processing time, so the test drives the job's clock by hand:
 * a datagen source at R rows a second (its token bucket holds one second
 * of rows, full at the start) gives exactly R rows each time the clock
 * steps by a second or more: batch b is ids [b R, (b + 1) R), all read at
 * clock T_b. The test moves the clock to T_(b+1) only after the source
 * read batch b and the sinks wrote every row the model says it gives, so
 * each row of batch b is aggregated at T_b (a source subtask that is a
 * batch behind would stay behind: its bucket holds no more than a batch).
 * Nothing sleeps to wait for the state to expire.
 *
 * The query, drawn per case, over
 *
 *   t = SELECT id, v, k, PROCTIME() AS pt FROM src [WHERE MOD(id, m) <> r]
 *       -- v = MOD(id, 5) + 1, k = MOD(id * a + c, K), NULL when MOD(id, z) = 0
 *
 * is a group aggregation, SELECT k, COUNT(*), SUM(v), MAX(id) FROM t
 * GROUP BY k (the TTL from the SET or a STATE_TTL hint), or a deduplication
 * on processing time, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt ASC |
 * DESC) = 1 (the first or the last row of each key; the TTL from the SET),
 * or a regular join, SELECT l.id, r.id, l.k FROM t l JOIN t2 r ON l.k =
 * r.k, t2 a second such source with keys of its own (the TTL from the SET,
 * or a STATE_TTL hint with a TTL for each side), on the heap or RocksDB
 * backend, its sources at parallelism p = 1 or 2 (a key's rows then all
 * come from one source subtask, so their order is the file's), the rest of
 * the job at p too unless a restore rescales it (below), and steps between
 * batches drawn around the TTL: often exactly the TTL after a key's last write, where its
 * state has expired (an entry is gone once now >= its last write + TTL,
 * as in Flink's NeverReturnExpired with OnCreateAndWrite).
 *
 * The model: a key's state holds its aggregates (or its kept row) and the
 * clock of its last write. Group aggregation: a row whose key has live
 * state gives -U[old] and +U[new] (the values always change: v >= 1, ids
 * grow); one whose state is absent or expired starts over and gives
 * +I[new], as Flink's group aggregation does. First row: a row whose key
 * has live state is dropped and writes nothing (the state's clock stays at
 * the kept row's arrival); otherwise it is kept, +I. Last row: a row whose
 * key has live state replaces the kept one, -U[old] +U[new]; otherwise
 * +I[new]; either way it is written. Join: each row is stored at its
 * arrival and never written again (an inner join counts no matches), so a
 * row meets a stored row of the other side while the stored one lives (now
 * < its arrival + its side's TTL), and every row of its own batch: a pair
 * of rows that came at Tl and Tr joins iff Tl = Tr, or the later one came
 * before the earlier one's TTL ran out.
 *
 * Outer joins (LEFT, RIGHT or FULL; model_outer): a row of an outer side
 * is written again, and so stamped again, each time a row of the other
 * side matches it (its association count changes), as in Flink; its
 * NULL-padded row comes when it arrives unmatched and is retracted when its
 * first match comes. In each batch a key's rows come from one side only
 * (side_keeps), which side drawn per batch: two rows of one key in one
 * batch would make the padded rows depend on which input the join read
 * first. Top-N (ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) <= N, with
 * or without rn; model_top): a partition's kept rows are one state entry,
 * stamped when they change; a row that does not enter writes nothing, and
 * an expired partition starts again.
 *
 * An aggregation of an aggregation (model_agg2) reads a retracting input:
 * the inner, a = SELECT k, COUNT(*) AS cnt, SUM(v) AS s FROM t GROUP BY k
 * (its TTL from the SET or a hint), gives -U[old] +U[new] for a row whose
 * key lives there, +I[new] for one whose state expired; the outer, SELECT
 * k, COUNT(*), SUM(cnt), SUM(s) FROM a GROUP BY k, has a TTL of its own
 * (a STATE_TTL hint naming a), so either may expire first. The outer takes
 * an inner row's -U as a retraction: one that finds its key's state gone
 * (expired, or emptied) is dropped and writes nothing, as in Flink (and
 * docs/sql.md); one that empties the key gives -D[old] and the key is gone
 * (the +U after it then starts it again, +I); else -U[old] +U[new]. An
 * inner +I for a key whose outer state lives adds a second row there.
 *
 * A join of an aggregation (model_agg_join): a = SELECT k, COUNT(*) AS
 * cnt FROM tl GROUP BY k (its TTL from the SET) joined with tr (tl and tr
 * split the keys per batch as for outer joins), each side with its TTL
 * from a hint. The join forwards the input row's kind (an update of a
 * stays an update) and stores a's rows with a count of copies, stamped
 * when the count changes: a -U meets the other side's live rows even when
 * its own stored copy expired (docs/joins.md, as in Flink), and removes
 * nothing then; an old row of a whose key's aggregation expired (a +I, no
 * -U) stays stored beside the new one until its own TTL.
 *
 * Half the cases stop after a batch, with a savepoint or with a
 * checkpoint (on RocksDB maybe incremental) and a cancel, and go on in a
 * job restored from it, its clock at the next batch's: stamps are state,
 * so the model runs as if the job never stopped.
 *
 * Half of those restore at another parallelism: the job runs at 1, 2 or 3
 * before the stop and at another of them after it ('parallelism.default'),
 * so key groups move between the stateful operator's subtasks, and their
 * stamps must move with them (a stamp lost or reset there lets state live
 * too long or expire too early). The sources stay at p ('scan.parallelism'
 * = p in both jobs): a datagen source deals row g to its subtask g mod p,
 * and the ids of its splits name p, so it refuses a restore at another
 * parallelism rather than read rows twice or never. A key's rows so still
 * come from one source subtask, through one keyed channel to whichever
 * subtask owns the key now, in the file's order, and each source subtask's
 * bucket still gives its share of a batch per step: the model holds
 * exactly across a rescale, unchanged.
 *
 * WEIR_SEED replays a run (the seed is printed); WEIR_TTL_CASES sets the
 * number of cases (default 60), WEIR_TTL_CASE=i runs case i alone. A run
 * ends by saying how many cases rescaled and how many retractions found
 * their state expired, so that it shows those were drawn.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/harness.h"
#include "weir/checkpoint.h"
#include "weir/clock.h"
#include "weir/planner.h"
#include "weir/weir.h"

#define GUARD_MS 20000
#define MAX_BATCHES 10
#define MAX_KEYS 16

typedef struct ttl_case {
    uint32_t rate;      /* rows a second: one batch */
    uint32_t n_batches; /* the input is n_batches * rate rows */
    uint32_t par;       /* the sources' parallelism ('scan.parallelism') */
    uint32_t job_par[2]; /* the job's ('parallelism.default') before the stop and after the restore */
    int64_t ttl_ms;
    int64_t clock[MAX_BATCHES]; /* T_b */
    uint32_t mul, add, n_keys, null_mod; /* k = MOD(id * mul + add, n_keys), NULL when MOD(id, null_mod) = 0 */
    uint32_t skip_mod, skip_rem;         /* WHERE MOD(id, skip_mod) <> skip_rem; skip_mod 0: no WHERE */
    bool rocksdb, hint;
    enum { GROUP_AGG, FIRST_ROW, LAST_ROW, JOIN, OUTER_JOIN, TOP_N, AGG_OF_AGG, JOIN_OF_AGG } kind;
    int64_t ttl_right_ms;      /* join: the right side's TTL (a hint may give each its own); AGG_OF_AGG: the outer's */
    int64_t ttl_agg_ms;        /* JOIN_OF_AGG: the aggregation's TTL (the join's sides': ttl_ms, ttl_right_ms) */
    uint32_t mul_right, add_right; /* join: the right side's k = MOD(id * mul_right + add_right, n_keys) */
    bool outer[2];             /* outer join: LEFT (outer[0]), RIGHT (outer[1]) or FULL (both) */
    uint32_t flip;             /* outer join: bit b says which keys are each side's in batch b (side_keeps) */
    uint32_t top_n;            /* Top-N: rn <= top_n */
    bool top_desc, top_rn;     /* Top-N: ORDER BY v DESC (else ASC); rn in the output */
    int32_t stop_after;        /* restore: the job stops after this batch (-1: it never does) */
    enum { SAVEPOINT, CHECKPOINT, INCREMENTAL } stop_how; /* stop with a savepoint, or a checkpoint and cancel */
} ttl_case;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

/* ---- the model ---- */

/* Retractions that found their state expired in the model (an outer
 * aggregation drops them; a join removes nothing), over the run: the
 * summary says such cases were drawn. */
static uint32_t dropped_retractions;


typedef struct model_key {
    bool live;
    int64_t written; /* clock of the last write */
    int64_t count, sum, max; /* group aggregation */
    int64_t id, v;           /* deduplication: the kept row */
} model_key;

static bool row_kept(const ttl_case *c, int64_t id)
{
    return !c->skip_mod || id % c->skip_mod != c->skip_rem;
}

/* The key's slot: 0..n_keys-1, n_keys for NULL. */
static uint32_t key_of(const ttl_case *c, int64_t id)
{
    if (c->null_mod && id % c->null_mod == 0)
        return c->n_keys;
    return (uint32_t)((id * c->mul + c->add) % c->n_keys);
}

/* The right side's key (join): its slot, n_keys for NULL. */
static uint32_t key_right(const ttl_case *c, int64_t id)
{
    if (c->null_mod && id % c->null_mod == 0)
        return c->n_keys;
    return (uint32_t)((id * c->mul_right + c->add_right) % c->n_keys);
}

/* Outer join: whether side s's view keeps row id. In batch b a key is
 * one side's only: the left's when k + bit b of c->flip is even (a key
 * stays on one side while the bit does), so that no two rows of one key
 * meet in one batch, where the padded rows would depend on which side the
 * join read first. NULL keys are on both. */
static bool side_keeps(const ttl_case *c, int s, int64_t id)
{
    uint32_t k = s ? key_right(c, id) : key_of(c, id), b = (uint32_t)(id / c->rate);
    if (s == 0 && !row_kept(c, id))
        return false;
    return k == c->n_keys || (k + (c->flip >> b & 1)) % 2 == (uint32_t)s;
}

static void key_text(const ttl_case *c, uint32_t k, char *out, size_t cap)
{
    if (k == c->n_keys)
        snprintf(out, cap, "null");
    else
        snprintf(out, cap, "%u", k);
}

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static void lines_add(lines *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        cr_assert(l->v);
    }
    l->v[l->n] = strdup(s);
    cr_assert(l->v[l->n]);
    l->n++;
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static void add_row(lines *out, const ttl_case *c, const char *kind, const char *k, const model_key *s)
{
    char line[128];
    if (c->kind == GROUP_AGG)
        snprintf(line, sizeof line, "%s[%s, %" PRId64 ", %" PRId64 ", %" PRId64 "]", kind, k, s->count, s->sum,
                 s->max);
    else
        snprintf(line, sizeof line, "%s[%s, %" PRId64 ", %" PRId64 "]", kind, k, s->id, s->v);
    lines_add(out, line);
}

/* The join's rows (see the top), as model() gives them. */
static void model_join(const ttl_case *c, lines *out, size_t *after, size_t *kept)
{
    size_t n_kept = 0;
    for (uint32_t b = 0; b < c->n_batches; b++) {
        int64_t now = c->clock[b];
        /* Pairs with a row of batch b, the other from batch a <= b. */
        for (uint32_t a = 0; a <= b; a++)
            for (int64_t x = (int64_t)a * c->rate; x < (int64_t)(a + 1) * c->rate; x++)
                for (int64_t y = (int64_t)b * c->rate; y < (int64_t)(b + 1) * c->rate; y++)
                    for (int side = 0; side < 2; side++) {
                        /* side 0: l from batch a, r from b; side 1: r from a, l from b */
                        if (a == b && side == 1)
                            continue;
                        int64_t lid = side ? y : x, rid = side ? x : y;
                        uint32_t kl = key_of(c, lid);
                        uint32_t kr = key_right(c, rid);
                        if (!row_kept(c, lid) || kl == c->n_keys || kl != kr)
                            continue;
                        int64_t stored_ttl = side ? c->ttl_right_ms : c->ttl_ms;
                        if (a < b && now >= c->clock[a] + stored_ttl)
                            continue;
                        char line[96];
                        snprintf(line, sizeof line, "+I[%" PRId64 ", %" PRId64 ", %u]", lid, rid, kl);
                        lines_add(out, line);
                    }
        for (int64_t id = (int64_t)b * c->rate; id < (int64_t)(b + 1) * c->rate; id++)
            n_kept += row_kept(c, id) + 1u;
        after[b] = out->n;
        kept[b] = n_kept;
    }
}

/* A join's stored row: its id, key, TTL stamp and associations (outer joins). */
typedef struct stored_row {
    int64_t id, stamp, assoc;
    uint32_t k;
} stored_row;

/* An outer join's row: side s's row id with the other side's other (-1: NULL-padded). */
static void add_pair(lines *out, const ttl_case *c, const char *kind, int s, int64_t id, int64_t other)
{
    char line[128], ids[2][24], keys[2][16];
    int64_t lid = s ? other : id, rid = s ? id : other;
    for (int i = 0; i < 2; i++) {
        int64_t x = i ? rid : lid;
        if (x < 0) {
            snprintf(ids[i], sizeof ids[i], "null");
            snprintf(keys[i], sizeof keys[i], "null");
        } else {
            snprintf(ids[i], sizeof ids[i], "%" PRId64, x);
            key_text(c, i ? key_right(c, x) : key_of(c, x), keys[i], sizeof keys[i]);
        }
    }
    snprintf(line, sizeof line, "%s[%s, %s, %s, %s]", kind, ids[0], ids[1], keys[0], keys[1]);
    lines_add(out, line);
}

/*
 * The outer join's rows. Each row is stored at its arrival, stamped then,
 * with its associations (the rows of the other side it matched); a row of
 * an outer side is written again, and so stamped again, each time a row of
 * the other side matches it (its association count changes), as Flink's
 * join writes the outer side's record and count. A row matches the stored
 * rows of the other side that live (now < stamp + that side's TTL); an
 * outer side's row with no match is emitted NULL-padded (+I), and that
 * padded row is retracted (-D) when its first match comes. A NULL key
 * matches nothing and is not stored: padded on an outer side, else dropped.
 * No two rows of one key come in one batch (side_keeps), so the order in
 * which the join reads the sides within a batch does not matter.
 */
static void model_outer(const ttl_case *c, lines *out, size_t *after, size_t *kept)
{
    size_t n_kept = 0, n[2] = {0, 0}, cap = (size_t)c->rate * c->n_batches;
    stored_row *st[2] = {calloc(cap, sizeof(stored_row)), calloc(cap, sizeof(stored_row))};
    cr_assert(st[0] && st[1]);
    int64_t ttl[2] = {c->ttl_ms, c->ttl_right_ms};
    for (uint32_t b = 0; b < c->n_batches; b++) {
        int64_t now = c->clock[b];
        for (int s = 0; s < 2; s++)
            for (int64_t id = (int64_t)b * c->rate; id < (int64_t)(b + 1) * c->rate; id++) {
                if (!side_keeps(c, s, id))
                    continue;
                n_kept++;
                uint32_t k = s ? key_right(c, id) : key_of(c, id);
                if (k == c->n_keys) {
                    if (c->outer[s])
                        add_pair(out, c, "+I", s, id, -1);
                    continue;
                }
                int o = 1 - s;
                int64_t matched = 0;
                for (size_t i = 0; i < n[o]; i++) {
                    stored_row *m = &st[o][i];
                    if (m->k != k || now >= m->stamp + ttl[o])
                        continue;
                    matched++;
                    if (c->outer[o] && m->assoc == 0)
                        add_pair(out, c, "-D", o, m->id, -1);
                    add_pair(out, c, "+I", s, id, m->id);
                    if (c->outer[o]) {
                        m->assoc++;
                        m->stamp = now;
                    }
                }
                if (!matched && c->outer[s])
                    add_pair(out, c, "+I", s, id, -1);
                st[s][n[s]++] = (stored_row){.id = id, .stamp = now, .assoc = matched, .k = k};
            }
        after[b] = out->n;
        kept[b] = n_kept;
    }
    free(st[0]);
    free(st[1]);
}

#define MAX_TOP 4

/* A Top-N partition: its kept rows' ids in rank order, and its stamp. */
typedef struct top_part {
    int64_t id[MAX_TOP + 1], stamp;
    uint32_t n;
} top_part;

static void add_ranked(lines *out, const ttl_case *c, const char *kind, const char *k, int64_t id, uint32_t rn)
{
    char line[128];
    if (c->top_rn)
        snprintf(line, sizeof line, "%s[%s, %" PRId64 ", %" PRId64 ", %u]", kind, k, id, id % 5 + 1, rn);
    else
        snprintf(line, sizeof line, "%s[%s, %" PRId64 ", %" PRId64 "]", kind, k, id, id % 5 + 1);
    lines_add(out, line);
}

/*
 * Top-N: a partition's state is its best top_n rows (ORDER BY v, equal v
 * in arrival order), stamped when written. A row that ranks below top_n
 * changes nothing and writes nothing; one that enters is inserted (the row
 * pushed past top_n leaves) and the partition is written. Once now >=
 * stamp + TTL the partition is empty: the next row ranks first. Output
 * with rn: each rank whose row changed, -U[old] +U[new], +I for a rank
 * that was empty; without it: +I[the row that entered], -D[the row that
 * left].
 */
static void model_top(const ttl_case *c, lines *out, size_t *after, size_t *kept)
{
    top_part part[MAX_KEYS + 1];
    memset(part, 0, sizeof part);
    size_t n_kept = 0;
    for (uint32_t b = 0; b < c->n_batches; b++) {
        int64_t now = c->clock[b];
        for (int64_t id = (int64_t)b * c->rate; id < (int64_t)(b + 1) * c->rate; id++) {
            if (!row_kept(c, id))
                continue;
            n_kept++;
            uint32_t k = key_of(c, id), p = 0;
            char kt[16];
            key_text(c, k, kt, sizeof kt);
            top_part *s = &part[k];
            if (now >= s->stamp + c->ttl_ms)
                s->n = 0;
            int64_t v = id % 5 + 1;
            while (p < s->n && (c->top_desc ? s->id[p] % 5 + 1 >= v : s->id[p] % 5 + 1 <= v))
                p++;
            if (p >= c->top_n)
                continue;
            int64_t old[MAX_TOP + 1];
            uint32_t old_n = s->n;
            memcpy(old, s->id, sizeof old);
            memmove(&s->id[p + 1], &s->id[p], (s->n - p) * sizeof s->id[0]);
            s->id[p] = id;
            if (++s->n > c->top_n)
                s->n = c->top_n;
            if (c->top_rn)
                for (uint32_t i = p; i < s->n; i++) {
                    if (i < old_n)
                        add_ranked(out, c, "-U", kt, old[i], i + 1);
                    add_ranked(out, c, i < old_n ? "+U" : "+I", kt, s->id[i], i + 1);
                }
            else {
                add_ranked(out, c, "+I", kt, id, 0);
                if (old_n == c->top_n)
                    add_ranked(out, c, "-D", kt, old[c->top_n - 1], 0);
            }
            s->stamp = now;
        }
        after[b] = out->n;
        kept[b] = n_kept;
    }
}

/* An aggregation's row: kind[k, a, b, c]. */
static void add_agg(lines *out, const char *kind, const char *k, int64_t a, int64_t b, int64_t c)
{
    char line[128];
    snprintf(line, sizeof line, "%s[%s, %" PRId64 ", %" PRId64 ", %" PRId64 "]", kind, k, a, b, c);
    lines_add(out, line);
}

/* The outer aggregation of model_agg2: its state of one key. */
typedef struct outer_key {
    bool live;
    int64_t written, n, cnt, s; /* COUNT(*), SUM(cnt), SUM(s) */
} outer_key;

/* The outer aggregation reads the inner's row (cnt, s) at now: an
 * accumulation (+I, +U) when sign > 0, else a retraction (-U). */
static void outer_feed(const ttl_case *c, lines *out, outer_key *o, const char *kt, int64_t now, int sign,
                       int64_t cnt, int64_t s)
{
    bool live = o->live && now < o->written + c->ttl_right_ms;
    if (!live)
        o->live = false; /* expired: gone */
    if (sign < 0 && !live) {
        dropped_retractions++;
        return; /* a retraction that finds no state: dropped, nothing written */
    }
    outer_key prev = *o;
    if (!live)
        *o = (outer_key){.live = true};
    o->n += sign;
    o->cnt += sign * cnt;
    o->s += sign * s;
    o->written = now;
    if (o->n == 0) { /* its last row retracted: the key is gone */
        add_agg(out, "-D", kt, prev.n, prev.cnt, prev.s);
        o->live = false;
        return;
    }
    if (live)
        add_agg(out, "-U", kt, prev.n, prev.cnt, prev.s);
    add_agg(out, live ? "+U" : "+I", kt, o->n, o->cnt, o->s);
}

/*
 * An aggregation over an aggregation's changelog (see the top): the inner,
 * SELECT k, COUNT(*) AS cnt, SUM(v) AS s FROM t GROUP BY k under ttl_ms,
 * gives per row -U[old] +U[new] (its key's state lives) or +I[new] (it
 * expired); the outer, SELECT k, COUNT(*), SUM(cnt), SUM(s) FROM a GROUP
 * BY k under ttl_right_ms, reads them in that order (one keyed channel per
 * key) and accumulates or retracts each (outer_feed).
 */
static void model_agg2(const ttl_case *c, lines *out, size_t *after, size_t *kept)
{
    model_key in[MAX_KEYS + 1];
    outer_key o[MAX_KEYS + 1];
    memset(in, 0, sizeof in);
    memset(o, 0, sizeof o);
    size_t n_kept = 0;
    for (uint32_t b = 0; b < c->n_batches; b++) {
        int64_t now = c->clock[b];
        for (int64_t id = (int64_t)b * c->rate; id < (int64_t)(b + 1) * c->rate; id++) {
            if (!row_kept(c, id))
                continue;
            uint32_t k = key_of(c, id);
            char kt[16];
            key_text(c, k, kt, sizeof kt);
            model_key *s = &in[k];
            bool live = s->live && now < s->written + c->ttl_ms;
            n_kept += live ? 3 : 2; /* the row into the inner, its rows into the outer */
            if (live)
                outer_feed(c, out, &o[k], kt, now, -1, s->count, s->sum);
            else
                *s = (model_key){.live = true};
            s->count++;
            s->sum += id % 5 + 1;
            s->written = now;
            outer_feed(c, out, &o[k], kt, now, 1, s->count, s->sum);
        }
        after[b] = out->n;
        kept[b] = n_kept;
    }
}

/* A row of the aggregation that model_agg_join's join stores: its cnt,
 * copies and stamp. */
typedef struct left_row {
    int64_t cnt, copies, stamp;
    uint32_t k;
} left_row;

/* The join of model_agg_join reads the aggregation's row (k, cnt) of kind
 * kind at now: joined with every live right row of k (the kind
 * forwarded), then stored, or one copy of it removed. */
static void join_left(const ttl_case *c, lines *out, left_row *ls, size_t *n_ls, const stored_row *rs, size_t n_rs,
                      int64_t now, const char *kind, uint32_t k, int64_t cnt)
{
    if (k == c->n_keys)
        return; /* a NULL key matches nothing and is not stored */
    bool retract = kind[0] == '-';
    for (size_t i = 0; i < n_rs; i++)
        if (rs[i].k == k && now < rs[i].stamp + c->ttl_right_ms) {
            char line[96];
            snprintf(line, sizeof line, "%s[%u, %" PRId64 ", %" PRId64 "]", kind, k, cnt, rs[i].id);
            lines_add(out, line);
        }
    left_row *e = NULL;
    for (size_t i = 0; i < *n_ls && !e; i++)
        if (ls[i].k == k && ls[i].cnt == cnt && ls[i].copies && now < ls[i].stamp + c->ttl_ms)
            e = &ls[i];
    if (retract) { /* one copy fewer; none found (expired): nothing */
        if (e) {
            e->copies--;
            e->stamp = now;
        } else
            dropped_retractions++;
    } else if (e) {
        e->copies++;
        e->stamp = now;
    } else
        ls[(*n_ls)++] = (left_row){.cnt = cnt, .copies = 1, .stamp = now, .k = k};
}

/*
 * A join over an aggregation's changelog (see the top): the aggregation,
 * a = SELECT k, COUNT(*) AS cnt FROM tl GROUP BY k under ttl_agg_ms, gives
 * -U[old] +U[new] or +I[new] per row (as in model_agg2); the inner join of
 * a with tr, its sides under ttl_ms and ttl_right_ms, stores each row of a
 * with a count of its copies (stamped when the count changes), and each
 * row of tr at its arrival. A row of either side meets the other side's
 * live rows; a retraction meets them too even when its own stored copy
 * expired (it removes nothing then). In batch b a key is one side's only
 * (side_keeps), so the order in which the join reads the sides does not
 * matter.
 */
static void model_agg_join(const ttl_case *c, lines *out, size_t *after, size_t *kept)
{
    size_t n_kept = 0, n_ls = 0, n_rs = 0, cap = (size_t)c->rate * c->n_batches;
    left_row *ls = calloc(2 * cap, sizeof *ls);
    stored_row *rs = calloc(cap, sizeof *rs);
    cr_assert(ls && rs);
    model_key agg[MAX_KEYS + 1];
    memset(agg, 0, sizeof agg);
    for (uint32_t b = 0; b < c->n_batches; b++) {
        int64_t now = c->clock[b];
        for (int64_t id = (int64_t)b * c->rate; id < (int64_t)(b + 1) * c->rate; id++) {
            if (side_keeps(c, 0, id)) {
                uint32_t k = key_of(c, id);
                model_key *s = &agg[k];
                bool live = s->live && now < s->written + c->ttl_agg_ms;
                n_kept += live ? 3 : 2; /* the row into the aggregation, its rows into the join */
                if (live)
                    join_left(c, out, ls, &n_ls, rs, n_rs, now, "-U", k, s->count);
                else
                    *s = (model_key){.live = true};
                s->count++;
                s->written = now;
                join_left(c, out, ls, &n_ls, rs, n_rs, now, live ? "+U" : "+I", k, s->count);
            }
            if (side_keeps(c, 1, id)) {
                uint32_t k = key_right(c, id);
                n_kept++;
                if (k == c->n_keys)
                    continue;
                for (size_t i = 0; i < n_ls; i++)
                    if (ls[i].k == k && now < ls[i].stamp + c->ttl_ms)
                        for (int64_t j = 0; j < ls[i].copies; j++) {
                            char line[96];
                            snprintf(line, sizeof line, "+I[%u, %" PRId64 ", %" PRId64 "]", k, ls[i].cnt, id);
                            lines_add(out, line);
                        }
                rs[n_rs++] = (stored_row){.id = id, .stamp = now, .k = k};
            }
        }
        after[b] = out->n;
        kept[b] = n_kept;
    }
    free(ls);
    free(rs);
}

/* The rows the job writes, batch after batch; after[b]: how many once
 * batch b is aggregated, kept[b]: how many rows of batches 0..b the
 * stateful operator processes (those that pass the WHERE). */
static void model(const ttl_case *c, lines *out, size_t *after, size_t *kept)
{
    if (c->kind != GROUP_AGG && c->kind != FIRST_ROW && c->kind != LAST_ROW) {
        (c->kind == JOIN         ? model_join
         : c->kind == OUTER_JOIN ? model_outer
         : c->kind == TOP_N      ? model_top
         : c->kind == AGG_OF_AGG ? model_agg2
                                 : model_agg_join)(c, out, after, kept);
        return;
    }
    size_t n_kept = 0;
    model_key keys[MAX_KEYS + 1] = {{0}};
    for (uint32_t b = 0; b < c->n_batches; b++) {
        int64_t now = c->clock[b];
        for (int64_t id = (int64_t)b * c->rate; id < (int64_t)(b + 1) * c->rate; id++) {
            if (!row_kept(c, id))
                continue;
            n_kept++;
            uint32_t k = key_of(c, id);
            model_key *s = &keys[k];
            char kt[16];
            key_text(c, k, kt, sizeof kt);
            bool live = s->live && now < s->written + c->ttl_ms;
            if (live && c->kind == FIRST_ROW)
                continue;
            if (live)
                add_row(out, c, "-U", kt, s);
            if (!live)
                *s = (model_key){.live = true};
            s->count++;
            s->sum += id % 5 + 1;
            s->max = id;
            s->id = id;
            s->v = id % 5 + 1;
            add_row(out, c, live ? "+U" : "+I", kt, s);
            s->written = now;
        }
        after[b] = out->n;
        kept[b] = n_kept;
    }
}

/* ---- the draw ---- */

static void draw(ttl_case *c, uint64_t *rng)
{
    memset(c, 0, sizeof *c);
    c->par = 1 + rng_below(rng, 2);
    c->rate = c->par * (3 + rng_below(rng, 10));
    c->n_batches = 4 + rng_below(rng, MAX_BATCHES - 3);
    c->ttl_ms = 1000 + 500 * (int64_t)rng_below(rng, 15);
    /* Keys of one parity come from one source subtask at parallelism 2. */
    c->n_keys = c->par * (1 + rng_below(rng, MAX_KEYS / 2));
    c->mul = 2 * rng_below(rng, 50) + 1;
    c->add = c->par == 2 ? 2 * rng_below(rng, 20) : rng_below(rng, 40);
    c->null_mod = rng_below(rng, 3) ? 0 : c->par * (2 + rng_below(rng, 4));
    if (rng_below(rng, 2)) {
        c->skip_mod = 2 + rng_below(rng, 5);
        c->skip_rem = rng_below(rng, c->skip_mod);
    }
    c->rocksdb = rng_below(rng, 3) == 0;
    uint32_t k = rng_below(rng, 12);
    c->kind = k < 2    ? GROUP_AGG
              : k < 4  ? JOIN
              : k == 4 ? FIRST_ROW
              : k == 5 ? LAST_ROW
              : k < 8  ? OUTER_JOIN
              : k < 10 ? TOP_N
              : k < 11 ? AGG_OF_AGG
                       : JOIN_OF_AGG;
    bool join = c->kind == JOIN || c->kind == OUTER_JOIN;
    /* a STATE_TTL hint is for joins and aggregations; a join's gives each
     * side its own; the outer of two aggregations always has its own */
    c->hint = (c->kind == GROUP_AGG || c->kind == AGG_OF_AGG || join) && rng_below(rng, 2);
    c->ttl_right_ms = (c->hint && join) || c->kind == AGG_OF_AGG || c->kind == JOIN_OF_AGG
                          ? 1000 + 500 * (int64_t)rng_below(rng, 15)
                          : c->ttl_ms;
    if (c->kind == JOIN_OF_AGG) {
        c->hint = false; /* the join's TTLs from a hint, the aggregation's from the SET */
        c->ttl_agg_ms = 1000 + 500 * (int64_t)rng_below(rng, 15);
    }
    uint32_t o = rng_below(rng, 3); /* LEFT, RIGHT, FULL */
    c->outer[0] = c->kind == OUTER_JOIN && o != 1;
    c->outer[1] = c->kind == OUTER_JOIN && o != 0;
    c->flip = (uint32_t)rng_next(rng);
    c->top_n = 1 + rng_below(rng, MAX_TOP);
    c->top_desc = rng_below(rng, 2);
    c->top_rn = rng_below(rng, 2);
    /* half the cases stop after a batch and go on from its savepoint or checkpoint */
    c->stop_after = rng_below(rng, 2) ? -1 : (int32_t)rng_below(rng, c->n_batches - 1);
    c->stop_how = (int)rng_below(rng, c->rocksdb ? 3 : 2); /* INCREMENTAL on RocksDB only */
    c->mul_right = 2 * rng_below(rng, 50) + 1;
    c->add_right = c->par == 2 ? 2 * rng_below(rng, 20) : rng_below(rng, 40);
    /* Steps: at least a second (a full bucket); often exactly the TTL, or
     * a millisecond either side of it, so that the boundary is crossed. */
    c->clock[0] = 1000;
    for (uint32_t b = 1; b < c->n_batches; b++) {
        int64_t step;
        int64_t ttl = rng_below(rng, 2) ? c->ttl_ms : c->ttl_right_ms;
        if (c->kind == JOIN_OF_AGG && rng_below(rng, 3) == 0)
            ttl = c->ttl_agg_ms;
        switch (rng_below(rng, 5)) {
        case 0: step = ttl; break;
        case 1: step = ttl - 1; break;
        case 2: step = ttl + 1; break;
        case 3: step = 1000 + (int64_t)rng_below(rng, 3) * 500; break;
        default: step = 1000 + (int64_t)rng_below(rng, (uint32_t)(2 * ttl)); break;
        }
        c->clock[b] = c->clock[b - 1] + (step < 1000 ? 1000 : step);
    }
    /* Half the restores rescale: the job runs at 1, 2 or 3 before the
     * stop and at another of them after it (key groups move between
     * subtasks), its sources at c->par throughout (see the top). Drawn
     * last, so that a seed draws the rest of a case as before. */
    c->job_par[0] = c->job_par[1] = c->par;
    if (c->stop_after >= 0 && rng_below(rng, 2)) {
        c->job_par[0] = 1 + rng_below(rng, 3);
        c->job_par[1] = 1 + (c->job_par[0] + rng_below(rng, 2)) % 3;
    }
}

static void case_sql(const ttl_case *c, const char *state_dir, char *sql, size_t cap)
{
    char where[64] = "", keyexpr[160], keyright[160], ttl[64] = "", hint[128] = "", backend[1200] = "";
    if (c->skip_mod)
        snprintf(where, sizeof where, " WHERE MOD(id, %u) <> %u", c->skip_mod, c->skip_rem);
    if (c->null_mod)
        snprintf(keyexpr, sizeof keyexpr, "CASE WHEN MOD(id, %u) = 0 THEN NULL ELSE MOD(id * %u + %u, %u) END",
                 c->null_mod, c->mul, c->add, c->n_keys);
    else
        snprintf(keyexpr, sizeof keyexpr, "MOD(id * %u + %u, %u)", c->mul, c->add, c->n_keys);
    if (c->null_mod)
        snprintf(keyright, sizeof keyright, "CASE WHEN MOD(id, %u) = 0 THEN NULL ELSE MOD(id * %u + %u, %u) END",
                 c->null_mod, c->mul_right, c->add_right, c->n_keys);
    else
        snprintf(keyright, sizeof keyright, "MOD(id * %u + %u, %u)", c->mul_right, c->add_right, c->n_keys);
    if (c->hint && (c->kind == JOIN || c->kind == OUTER_JOIN))
        snprintf(hint, sizeof hint, "/*+ STATE_TTL('l' = '%" PRId64 " ms', 'r' = '%" PRId64 " ms') */ ", c->ttl_ms,
                 c->ttl_right_ms);
    else if (c->hint)
        snprintf(hint, sizeof hint, "/*+ STATE_TTL('t' = '%" PRId64 " ms') */ ", c->ttl_ms);
    else
        snprintf(ttl, sizeof ttl, "SET 'table.exec.state.ttl' = '%" PRId64 " ms';\n",
                 c->kind == JOIN_OF_AGG ? c->ttl_agg_ms : c->ttl_ms);
    if (c->rocksdb)
        snprintf(backend, sizeof backend, "SET 'state.backend.type' = 'rocksdb';\nSET 'weir.state.dir' = '%s';\n",
                 state_dir);
    uint64_t rows = (uint64_t)c->rate * c->n_batches;
    snprintf(sql, cap,
             "%s%s"
             "CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '%u',\n"
             "  'scan.parallelism' = '%u',\n"
             "  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '%" PRIu64 "');\n"
             "CREATE VIEW t AS SELECT id, MOD(id, 5) + 1 AS v, %s AS k, PROCTIME() AS pt FROM src%s;\n",
             ttl, backend, c->rate, c->par, rows - 1, keyexpr, where);
    size_t n = strlen(sql);
    if (c->kind == JOIN || c->kind == OUTER_JOIN || c->kind == JOIN_OF_AGG) {
        snprintf(sql + n, cap - n,
                 "CREATE TABLE src2 (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '%u',\n"
                 "  'scan.parallelism' = '%u',\n"
                 "  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '%" PRIu64 "');\n"
                 "CREATE VIEW t2 AS SELECT id, %s AS k FROM src2;\n",
                 c->rate, c->par, rows - 1, keyright);
        n = strlen(sql);
    }
    /* bit b of c->flip for a row of batch b (side_keeps) */
    char flip[40 * MAX_BATCHES] = "CASE";
    for (uint32_t b = 0; b + 1 < c->n_batches; b++)
        snprintf(flip + strlen(flip), sizeof flip - strlen(flip), " WHEN id < %u THEN %u", (b + 1) * c->rate,
                 c->flip >> b & 1);
    snprintf(flip + strlen(flip), sizeof flip - strlen(flip), " ELSE %u END", c->flip >> (c->n_batches - 1) & 1);
    if (c->kind == JOIN)
        snprintf(sql + n, cap - n, "SELECT %sl.id, r.id, l.k FROM t l JOIN t2 r ON l.k = r.k;\n", hint);
    else if (c->kind == OUTER_JOIN)
        snprintf(sql + n, cap - n,
                 "CREATE VIEW tl AS SELECT * FROM t WHERE k IS NULL OR MOD(k + %s, 2) = 0;\n"
                 "CREATE VIEW tr AS SELECT * FROM t2 WHERE k IS NULL OR MOD(k + %s, 2) = 1;\n"
                 "SELECT %sl.id, r.id, l.k, r.k FROM tl l %s JOIN tr r ON l.k = r.k;\n",
                 flip, flip, hint, !c->outer[1] ? "LEFT" : !c->outer[0] ? "RIGHT" : "FULL");
    else if (c->kind == TOP_N)
        snprintf(sql + n, cap - n,
                 "SELECT k, id, v%s FROM (SELECT k, id, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v %s) AS rn "
                 "FROM t) WHERE rn <= %u;\n",
                 c->top_rn ? ", rn" : "", c->top_desc ? "DESC" : "ASC", c->top_n);
    else if (c->kind == GROUP_AGG)
        snprintf(sql + n, cap - n, "SELECT %sk, COUNT(*), SUM(v), MAX(id) FROM t GROUP BY k;\n", hint);
    else if (c->kind == JOIN_OF_AGG)
        snprintf(sql + n, cap - n,
                 "CREATE VIEW tl AS SELECT * FROM t WHERE k IS NULL OR MOD(k + %s, 2) = 0;\n"
                 "CREATE VIEW tr AS SELECT * FROM t2 WHERE k IS NULL OR MOD(k + %s, 2) = 1;\n"
                 "CREATE VIEW a AS SELECT k, COUNT(*) AS cnt FROM tl GROUP BY k;\n"
                 "SELECT /*+ STATE_TTL('a' = '%" PRId64 " ms', 'r' = '%" PRId64 " ms') */ a.k, a.cnt, r.id "
                 "FROM a JOIN tr r ON a.k = r.k;\n",
                 flip, flip, c->ttl_ms, c->ttl_right_ms);
    else if (c->kind == AGG_OF_AGG)
        snprintf(sql + n, cap - n,
                 "CREATE VIEW a AS SELECT %sk, COUNT(*) AS cnt, SUM(v) AS s FROM t GROUP BY k;\n"
                 "SELECT /*+ STATE_TTL('a' = '%" PRId64 " ms') */ k, COUNT(*), SUM(cnt), SUM(s) FROM a GROUP BY k;\n",
                 hint, c->ttl_right_ms);
    else
        snprintf(sql + n, cap - n,
                 "SELECT k, id, v FROM (SELECT k, id, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt %s) AS rn "
                 "FROM t) WHERE rn = 1;\n",
                 c->kind == FIRST_ROW ? "ASC" : "DESC");
}

/* ---- the run ---- */

typedef struct counts {
    double read, written; /* rows out of the source, into the sink */
    double stateful;      /* rows the stateful operator processed */
} counts;

static counts job_counts(weir_job *job)
{
    /* an operator counts a batch's rows once it processed them */
    return (counts){.read = th_metric(job, "job.records_read"),
                    .written = th_metric(job, "job.records_written"),
                    .stateful = th_metric(job, "task*.GroupAggregate.*.records_in") +
                                th_metric(job, "task*.Deduplicate.*.records_in") +
                                th_metric(job, "task*.Rank.*.records_in") +
                                th_metric(job, "task*.Join.*.records_in")};
}

/* Polls until the source read `read` rows, the stateful operator processed
 * `kept` (a row is counted once processed) and the sinks wrote `written`:
 * all three, since a subtask whose rows the WHERE removes, or a row that
 * deduplication drops, writes nothing. */
static bool wait_counts(weir_job *job, double read, double kept, double written)
{
    for (int i = 0; i < GUARD_MS; i++) {
        counts c = job_counts(job);
        if (c.read >= read && c.stateful >= kept && c.written >= written)
            return true;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Plans sql and starts it at the clock mc, at parallelism par; restored
 * from dir/chk's newest checkpoint, or the savepoint sp (NULL: neither),
 * when the case stops. */
static weir_sql_job *start_job(const ttl_case *c, const char *sql, uint32_t par, weir_manual_clock *mc, FILE *mem,
                               const char *dir, bool latest, const char *sp, const char *what)
{
    char p[16], chk[96], sps[96];
    snprintf(p, sizeof p, "%u", par);
    const char *keys[] = {"parallelism.default"}, *vals[] = {p};
    weir_sql_job_options opt = {.set_keys = keys,
                                .set_values = vals,
                                .n_set = 1,
                                .clock = weir_manual_clock_get(mc),
                                .print_out = mem};
    weir_sql_job *sj = NULL;
    weir_error err = {0};
    int rc = weir_sql_job_create("ttl.sql", sql, strlen(sql), &opt, &sj, &err);
    cr_assert_eq(rc, 0, "%s: does not plan: %s\n%s", what, err.message, sql);
    weir_job *job = weir_sql_job_graph(sj);
    if (c->stop_after >= 0) {
        snprintf(chk, sizeof chk, "%s/chk", dir);
        snprintf(sps, sizeof sps, "%s/sp", dir);
        weir_checkpoint_config cfg;
        weir_checkpoint_config_init(&cfg);
        cfg.dir = chk;
        cfg.savepoint_dir = sps;
        cfg.interval_ms = 0; /* the test takes its one checkpoint itself */
        cfg.incremental = c->stop_how == INCREMENTAL;
        cfg.restore = sp ? WEIR_RESTORE_PATH : latest ? WEIR_RESTORE_LATEST : WEIR_RESTORE_FRESH;
        cfg.restore_path = sp;
        cr_assert_eq(weir_job_enable_checkpoints(job, &cfg, &err), 0, "%s: %s", what, err.message);
    }
    cr_assert_eq(weir_job_start(job), 0, "%s", what);
    return sj;
}

/* Stops the job after batch c->stop_after: with a savepoint (its folder
 * into sp), or a checkpoint and then a cancel. */
static void stop_job(const ttl_case *c, weir_sql_job *sj, char *sp, size_t cap, const char *what)
{
    weir_job *job = weir_sql_job_graph(sj);
    weir_error err = {0};
    if (c->stop_how == SAVEPOINT) {
        cr_assert_eq(weir_job_stop_with_savepoint(job, NULL, sp, cap, &err), 0, "%s: savepoint: %s", what,
                     err.message);
        cr_assert_eq(weir_job_wait(job), 0, "%s: the job failed: %s", what, weir_job_error(job));
    } else {
        uint64_t id = 0;
        cr_assert_eq(weir_job_trigger_checkpoint(job, &id), 0, "%s", what);
        cr_assert_eq(weir_job_await_checkpoint(job, id, GUARD_MS, &err), 0, "%s: checkpoint: %s", what,
                     err.message);
        weir_job_cancel(job);
        weir_job_wait(job); /* cancelled: its status says so */
    }
    weir_sql_job_destroy(sj);
}

/* Runs case c; its rows (without the subtask prefix) into got. A case
 * that stops after batch c->stop_after goes on in a job restored from
 * there, at the next batch's clock: its counts start again at 0. */
static void run(const ttl_case *c, const size_t *after, const size_t *kept, const char *sql, const char *dir,
                lines *got, const char *what)
{
    char *buf = NULL, sp[512] = "";
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cr_assert(mem);
    weir_manual_clock *mc = weir_manual_clock_create(c->clock[0]);
    weir_sql_job *sj = start_job(c, sql, c->job_par[0], mc, mem, dir, false, NULL, what);
    counts base = {0};
    /* A batch that gives fewer rows than the model's is reported, and the
     * run goes on: the rows compared below say which differ. */
    for (uint32_t b = 0; b < c->n_batches; b++) {
        if (b)
            weir_manual_clock_set(mc, c->clock[b]);
        if (b && (int32_t)b == c->stop_after + 1)
            sj = start_job(c, sql, c->job_par[1], mc, mem, dir, c->stop_how != SAVEPOINT,
                           c->stop_how == SAVEPOINT ? sp : NULL, what);
        weir_job *job = weir_sql_job_graph(sj);
        uint32_t read =
            (b + 1) * c->rate * (c->kind == JOIN || c->kind == OUTER_JOIN || c->kind == JOIN_OF_AGG ? 2 : 1);
        bool reached = wait_counts(job, read - base.read, (double)kept[b] - base.stateful,
                                   (double)after[b] - base.written);
        counts n = job_counts(job);
        n.read += base.read;
        n.stateful += base.stateful;
        n.written += base.written;
        if (!reached || n.written != (double)after[b])
            fprintf(stderr,
                    "%s: batch %u (clock %" PRId64 "): %.0f rows read, %.0f processed, %.0f written; %u, %zu and "
                    "%zu expected\n",
                    what, b, c->clock[b], n.read, n.stateful, n.written, read, kept[b], after[b]);
        if ((int32_t)b == c->stop_after) {
            stop_job(c, sj, sp, sizeof sp, what);
            base = n;
        }
    }
    weir_job *job = weir_sql_job_graph(sj);
    cr_assert_eq(weir_job_wait(job), 0, "%s: the job failed: %s", what, weir_job_error(job));
    weir_sql_job_destroy(sj);
    weir_manual_clock_destroy(mc);
    fclose(mem);
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        lines_add(got, th_print_row(line));
    }
    free(buf);
}

/* Runs case i of seed; true when it restored at another parallelism. */
static bool check_case(uint64_t seed, uint32_t i)
{
    uint64_t rng = seed ^ (0x5851F42D4C957F2Dull * (i + 1));
    ttl_case c;
    draw(&c, &rng);
    char dir[] = "/tmp/weir-ttl-diff-XXXXXX", sql[4096], what[300];
    cr_assert(mkdtemp(dir));
    case_sql(&c, dir, sql, sizeof sql);
    snprintf(what, sizeof what,
             "WEIR_SEED=%" PRIu64 " case %u (%s, ttl %" PRId64 " ms, right %" PRId64
             " ms, %u batches of %u, p %u (job %u -> %u), %s, stops after batch %d%s)",
             seed, i,
             c.kind == GROUP_AGG    ? "group aggregation"
             : c.kind == JOIN       ? "join"
             : c.kind == OUTER_JOIN ? "outer join"
             : c.kind == TOP_N      ? "top-n"
             : c.kind == AGG_OF_AGG ? "aggregation of an aggregation"
             : c.kind == JOIN_OF_AGG ? "join of an aggregation"
             : c.kind == FIRST_ROW  ? "first row"
                                    : "last row",
             c.ttl_ms, c.ttl_right_ms, c.n_batches, c.rate, c.par, c.job_par[0], c.job_par[1], c.rocksdb ? "rocksdb" : "heap", c.stop_after,
             c.stop_after < 0               ? ""
             : c.stop_how == SAVEPOINT      ? " (savepoint)"
             : c.stop_how == CHECKPOINT     ? " (checkpoint)"
                                            : " (incremental checkpoint)");
    lines want = {0}, got = {0};
    size_t after[MAX_BATCHES], kept[MAX_BATCHES];
    model(&c, &want, after, kept);
    run(&c, after, kept, sql, dir, &got, what);
    if (want.n) /* a case may give no row at all: qsort takes no NULL */
        qsort(want.v, want.n, sizeof *want.v, cmp_str);
    if (got.n)
        qsort(got.v, got.n, sizeof *got.v, cmp_str);
    size_t n = want.n < got.n ? want.n : got.n, d = 0;
    while (d < n && !strcmp(want.v[d], got.v[d]))
        d++;
    cr_assert(d == want.n && d == got.n,
              "%s: %zu rows, %zu expected; first difference (sorted) at %zu: got %s, expected %s\n%s", what, got.n,
              want.n, d, d < got.n ? got.v[d] : "(none)", d < want.n ? want.v[d] : "(none)", sql);
    lines_free(&want);
    lines_free(&got);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    cr_assert_eq(system(rm), 0);
    return c.job_par[0] != c.job_par[1];
}

Test(ttl_diff, state_expires_exactly_at_its_ttl, .timeout = 600)
{
    const char *s = getenv("WEIR_SEED"), *n = getenv("WEIR_TTL_CASES"), *one = getenv("WEIR_TTL_CASE");
    uint64_t seed = s && *s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    uint32_t cases = n && *n ? (uint32_t)strtoul(n, NULL, 0) : 60;
    fprintf(stderr, "ttl_diff: WEIR_SEED=%" PRIu64 ", %u cases (WEIR_TTL_CASE=i runs one)\n", seed, cases);
    uint32_t rescaled = 0;
    for (uint32_t i = 0; i < cases; i++)
        if (!one || !*one || strtoul(one, NULL, 0) == i)
            rescaled += check_case(seed, i);
    fprintf(stderr, "ttl_diff: %u cases restored at another parallelism, %u retractions found expired state\n",
            rescaled, dropped_retractions);
}
