/*
 * ops/join.c - regular streaming equi-join (Flink's streaming join).
 *
 * State: for each side one map state per join key, "join-left" and
 * "join-right". Map key: the row (its output columns in the compact
 * encoding, weir__crow_encode in ops/rowcodec.h; the planner names it in
 * the join's fingerprint, and the rows of a checkpoint of the canonical
 * encoding that weir kept before are re-encoded after its restore,
 * join_recode). Map value: three i64: the number of times the
 * row is present (duplicates are counted, not repeated); for the rows of
 * an outer side, how many rows of the other side currently match it
 * ("associations"; a regular join's outer row with none has its
 * NULL-padded row in the output); and the row's time (interval joins,
 * else WEIR_TS_MIN). The value is written short when it is the common one
 * (put_entry): a row present once with no association is stored with an
 * empty value (no time) or its time alone (8 bytes), so a regular join
 * that keeps every row spends no bytes on the value; a 24-byte value (all
 * a checkpoint of an earlier version holds) reads as before. Everything
 * lives in the state backend, so checkpoints, restores at another
 * parallelism and TTL come from it.
 * Row logs: a side whose input is insert-only and that counts no
 * associations (weir_join_row_log: not outer, not semi or anti, not an
 * interval join's side, no TTL) keeps its rows in a list state per join
 * key instead, "join-left-log" or "join-right-log": one element per row
 * (a duplicate is another element), appended without looking anything
 * up, and scanned in arrival order. Element format 2 (log_form): the
 * row's compact encoding without the key columns the key holds
 * (log_drops_key; they are copied from the probing row, whose key is
 * equal bytes), after its time as an i64 only on a bounded side whose
 * time is not a column the element holds (else the expiry reads it from
 * the row). A
 * bounded side's expiry rewrites a key's log without the rows it drops
 * (expire_rows). The fingerprint names the format and these sides ("row
 * log: 2 ..."); the rows of a checkpoint that kept them in map entries (an
 * earlier weir) are moved into the logs after its restore (join_unmap),
 * the map state staying registered for that, and logs of format 1 (the
 * whole row, after its time on a bounded side) are rewritten (join_relog).
 *
 * Per input row (the key is set first): the rows of the other side under
 * the same key are read (their encoded bytes copied out of the state), the
 * residual condition filters them - evaluated over a candidate batch that
 * holds only the columns it reads - and then, with M the matching rows:
 *   accumulate (+I/+U): store the row; for each m in M whose side is outer
 *     and has no association yet, retract its padded row (-D); emit the
 *     joined rows; if M is empty and this side is outer, emit the padded
 *     row; associations are updated on both sides.
 *   retract (-U/-D): remove one occurrence; emit the joined rows as
 *     retractions; for each m whose side is outer and loses its last
 *     association, emit its padded row again (+I); if M is empty and this
 *     side is outer, retract the padded row.
 * Interval joins (append-only inputs, bounds on left.time - right.time)
 * keep the same state and add an event-time timer per stored row at the
 * first watermark under which no future row of the other side can match
 * it (left: time - lo + 1, right: time + hi + 1); the timer removes it. A row
 * whose time is behind the watermark of its own side (time < W, as in
 * Flink) is late: counted as late_rows, neither joined nor stored. Its own
 * side's watermark, not the join's, so that the decision does not depend
 * on how far the other side got (or whether it ended) when the row came;
 * and an on-time row finds every on-time match of the other side still
 * stored: a stored left row l goes at W >= l.time - lo + 1, and a right
 * row that matches it has time <= l.time - lo while W <= its time. An
 * outer interval join emits a row of its outer side padded only when the
 * row expires unmatched, never retracting: its output is append-only, as
 * Flink's.
 * Bounded regular joins (inner, append-only inputs; cfg.bounded[s]): the
 * other side only sends rows whose time is above its watermark (a window
 * aggregation's window_end), and the condition caps the time of a row of
 * side s can match at t + bound_off[s]; so once the watermark reaches that,
 * nothing still to come can match the row, and it is dropped. No row is
 * late (every row is joined with what is stored, as in the regular join);
 * a row already past its bound when it arrives is joined but not stored.
 * The third i64 of the map value holds t (WEIR_TS_MIN: never dropped).
 * The drops are not keyed timers (one per stored row when the keys are
 * distinct, as q7's prices: most of the operator's time went to the timer
 * service) but per-subtask expiry buckets: per side, the keys whose rows
 * expire by the multiple of bound_step_ms a bucket stands for, appended
 * once per stored row (no lookup per row) and made unique when the bucket
 * is drained (a price shared by thousands of bids is scanned once a step).
 * When the watermark reaches a bucket's time the rows of its keys expired
 * by then are dropped, before the watermark goes on: exactly what the
 * timers did. Buckets are not checkpointed: a restore (at any parallelism, the
 * rows come by key group) rebuilds them from the stored rows, whose time
 * the map value holds.
 * Per batch the join encodes and hashes every row's key first (once: the
 * row takes its key from there) and, a few rows ahead of
 * the row at hand, hints the state backend to load the table slot and then
 * the record of that row's key (weir__state_prefetch): with many keys every
 * lookup is a cache miss, and these overlap. The residual's columns of
 * the other side's rows are decoded straight from the state into the
 * candidates during the scan; an output row is built once, from the input
 * row and the other row's stored bytes, and only for a row emitted; a
 * stored row that an earlier row of the same output batch decoded is
 * taken from there (out_stored_again: q9's bids and their hot auctions). An
 * inner join's candidates are its output rows themselves, each stored row
 * decoded once: the residual runs over the output batch when it is full
 * (and at the batch's end), and the rows it rejects are taken out before
 * the batch goes (batched(), settle).
 * Kinds: an inner join keeps the input row's kind (+I/+U/-U/-D); outer
 * joins emit +I and -D only, as Flink does. Each row's whole change is
 * emitted before the next row is read, so the output for one order of
 * arrival does not depend on batching.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ops/held_wm.h"
#include "ops/join_core.h"
#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "ops/top1_hint.h"
#include "runtime/checkpoint.h"
#include "state/backend.h"
#include "util/bigmem.h"
#include "weir/state.h"

/* Prefetch distances in rows of a batch: the table slot of row r + PF_SLOT's
 * key, then the record of row r + PF_REC's (the state lookups of a join
 * with many keys are cache misses, one after another otherwise). */
#define PF_SLOT 8
#define PF_REC 4

typedef struct join_conf {
    weir_join_config cfg;
    bool outer[2]; /* side i keeps unmatched rows (NULL-padded in the output) */
    bool log[2];   /* side i keeps its rows in a row log (weir_join_row_log) */
    /* the Top-1 chained after it whose hint lets it skip rows of side top1->side (ops/top1_hint.h), or NULL */
    weir__top1_link *top1;
} join_conf;

/* One row of the other side met in a scan of the state. */
typedef struct cand_ref {
    size_t off;    /* its encoded row in the scan buffer (when copied there) */
    size_t len;
    int64_t count; /* occurrences */
    int64_t assoc; /* associations (outer side only) */
    int64_t ts;    /* row time (interval joins) */
    const void *at; /* where the row lay in the state when read (gather), else NULL */
} cand_ref;

/*
 * A stored row decoded into an output row of the batch being filled
 * (out_side): a later output row with a row of the same bytes
 * takes that output row's columns, strings shared, instead of decoding
 * again - in Nexmark q9 most bids of a batch join one of a few hot
 * auctions, and the auction's ~500 bytes were decoded and copied per bid.
 * Found by where the row lay in the state (a hint: a block freed and
 * reused holds other bytes there), known by its bytes.
 */
#define DECODED_BITS 6
#define DECODED_SLOTS (1u << DECODED_BITS)
typedef struct decoded {
    uint64_t gen;  /* core.out_gen + 1 of the output batch it went into; 0: none */
    size_t boff;   /* its bytes in join_op.dec_bytes */
    uint32_t len;  /* their length */
    uint32_t row;  /* the output row */
    int side;
} decoded;

/* Keys of one side whose rows expire by `ts` (bounded joins). keys: per
 * listing, the key's length (LEB128, one or two bytes) and its bytes,
 * appended as rows are stored: a key is listed once per stored row (only
 * a repeat of the last listing is skipped), so listing one costs no
 * lookup; the listings are made unique when the bucket is drained
 * (drain_keys), which hashes them again. A listing holds no hash: at the
 * reference rate a bucket lists every row of the run (q7: 1.8 M at 2 M
 * events), and listings of a u64 hash, a u32 length and the key (21 bytes
 * for q7's prices, 10 now) were an eighth of the job's memory. They live
 * in a util/bigmem block: huge pages once it is large, one page fault per
 * 2 MiB; in 4 KiB pages they took three quarters of q7's page faults. */
typedef struct exp_bucket {
    weir_ts ts;
    uint8_t *keys; /* weir__bigmem block */
    size_t len, cap;
    size_t last;        /* offset of the last listing + 1; 0: none */
    uint64_t last_hash; /* its key's hash (a repeat is told from others without a compare) */
} exp_bucket;

/* A drained bucket's block is kept for the next bucket (spare): past the
 * first bound, a bucket drains about as often as one opens, and each
 * fresh block was pages to fault in and zero again. */
typedef struct exp_queue {
    exp_bucket *b; /* ascending ts */
    uint32_t n, cap;
    uint8_t *spare; /* weir__bigmem block of spare_cap bytes, or NULL */
    size_t spare_cap;
} exp_queue;

/* How a side's row log stores its rows (format 2, "row log: 2 ..."; see
 * log_form_init). */
typedef struct log_form {
    /* per stored column: left out of the element, the join key holding it
     * (NULL: none is) */
    bool *drop;
    /* the columns left out: column col of the row, the probing row's column
     * src (the other side's key column); w: the value's bytes, 0 for a string */
    struct key_fill {
        uint32_t col, src, w;
    } fill[WEIR_KEY_MAX_COLS];
    uint32_t n_fill;
    bool time_first;  /* the row's time, an i64, before the row: a bounded side whose time is no stored column */
    bool time_in_row; /* a bounded side's time is its stored column bound_col */
} log_form;

/* The join key of a row of the batch at hand (batch_keys): its hash, and
 * its len bytes at off in join_op.keys (len over sizeof the core's key:
 * too long, not written, hash 0; its length, or UINT32_MAX for more). */
typedef struct row_key {
    uint64_t hash;
    size_t off;
    uint32_t len;
} row_key;

/* Where a batched join's output row came from (see batched()): the input
 * row, and its place i among the n rows of the other side under the key. */
typedef struct pair_from {
    uint32_t row, i, n;
} pair_from;

typedef struct join_op {
    const join_conf *conf;
    /* each side's map state: where its rows live (core.st[s] is the same),
     * or, for a side with a row log (core.st[s]), where a restore of an
     * earlier weir's checkpoint puts them until join_unmap moves them */
    weir_state *map[2];
    exp_queue expq[2];  /* bounded joins: per side */
    bool expq_built;    /* rebuilt from the rows (after a restore) */
    weir_join_core core; /* cand: the columns of the input row joined with
                            each match that the residual reads */
    bool *reads;         /* per candidate column: the residual reads it */
    uint32_t *rcols;     /* the columns it reads */
    uint32_t n_rcols;
    /* the candidates' schema: the residual's columns as cand_schema has
     * them, every other one a BOOLEAN that nothing writes or reads */
    weir_schema *cand_schema;
    /* the input row at hand (gather): emitted rows take its columns from it */
    const weir_batch *in;
    uint32_t in_row;
    int in_side;
    /* batched residual (see batched()): the output rows are the candidates,
     * from[r] says whose output row r is */
    bool batched;
    pair_from *from;
    cand_ref *refs;
    uint32_t refs_cap, n_refs;
    /* per side, its stored rows' columns in the output (out_side): none for
     * a semi or anti join's right side, never in the output */
    weir__crow_plan plan[2];
    log_form form[2];    /* a row log's elements, per side */
    int scan_s;          /* the side scan_side reads */
    weir_buf scan;       /* encoded rows of the other side */
    decoded dec[DECODED_SLOTS]; /* stored rows decoded into the output batch */
    uint8_t *out_w;      /* each output column's bytes a value (weir_type_size) */
    weir_buf dec_bytes;  /* their bytes (for the output batch dec_gen - 1) */
    uint64_t dec_gen;
    weir_buf row;        /* encoded input row */
    weir_buf val;        /* a map value being written */
    row_key *rkeys;   /* the join key of each row of the batch at hand */
    uint32_t *live;   /* the rows of the batch its Top-1 does not drop (join_process) */
    uint32_t rkeys_cap;
    weir_buf keys;    /* their bytes */
    uint64_t *n_expired;
    weir_ts in_wm; /* the watermark the rows of the batch at hand are judged
                      against (their input's, held across a restore): an
                      interval join's rows with a time below it are late */
    weir__held_wm held; /* an interval join's: each side's watermark, its operator state */
    /* the hint of the Top-1 chained after it (conf->top1), shared in the subtask; its scratch sort key */
    weir__top1_hint *hint;
    weir_buf hint_sk;
    uint64_t *n_skipped;
} join_op;

const char *weir_join_type_name(weir_join_type t)
{
    switch (t) {
    case WEIR_JOIN_INNER: return "INNER";
    case WEIR_JOIN_LEFT: return "LEFT";
    case WEIR_JOIN_RIGHT: return "RIGHT";
    case WEIR_JOIN_FULL: return "FULL";
    case WEIR_JOIN_SEMI: return "SEMI";
    case WEIR_JOIN_ANTI: return "ANTI";
    }
    return "?";
}

/* The joined row the residual sees (a semi or anti join outputs the left row alone). */
static const weir_schema *cand_schema(const weir_join_config *c)
{
    return c->cand_schema ? c->cand_schema : c->out_schema;
}

static bool is_semi_anti(weir_join_type t) { return t == WEIR_JOIN_SEMI || t == WEIR_JOIN_ANTI; }

bool weir_join_row_log(const weir_join_config *c, int s)
{
    bool outer = s == 0 ? c->type == WEIR_JOIN_LEFT || c->type == WEIR_JOIN_FULL
                        : c->type == WEIR_JOIN_RIGHT || c->type == WEIR_JOIN_FULL;
    int64_t ttl = s == 1 && c->right_ttl ? c->right_state_ttl_ms : c->state_ttl_ms;
    return c->insert_only[s] && !outer && !is_semi_anti(c->type) && !c->interval && ttl == 0;
}

/* Side s's stored column `col`'s type (s's output columns). */
static weir_type side_type(const weir_join_config *c, int s, uint32_t col)
{
    return c->out_schema->fields[(s == 0 ? 0 : c->n_out[0]) + col].type;
}

/*
 * Whether side s's row log leaves out its key column k: a stored column of
 * a scalar type that the other side's key column k, stored too, has as
 * well. A row is only ever read when a row of the other side with the same
 * key probes it, and equal keys are equal bytes: the value is that row's
 * column. Whether the side is bounded plays no part (a bounded side whose
 * time is such a column keeps the time before the row, "+time"): the
 * fingerprint's marks then tell every element layout apart, a checkpoint
 * of the side bounded restoring into the side unbounded or the reverse.
 */
static bool log_drops_key(const weir_join_config *c, int s, uint32_t k)
{
    uint32_t a = c->keys[s].cols[k], b = c->keys[1 - s].cols[k];
    if (!weir_join_row_log(c, s) || a >= c->n_out[s] || b >= c->n_out[1 - s])
        return false;
    weir_type x = side_type(c, s, a), y = side_type(c, 1 - s, b);
    return x.id == y.id && x.precision == y.precision && x.scale == y.scale && !weir_type_nested_id(x) &&
           x.id != WEIR_TYPE_NULL;
}

/* Whether bounded side s's row log reads each row's time from the row (its
 * column bound_col, stored as a varint), not from an i64 before it. */
static bool log_time_in_row(const weir_join_config *c, int s)
{
    if (!c->bounded[s] || !weir_join_row_log(c, s) || c->bound_col[s] >= c->n_out[s])
        return false;
    for (uint32_t k = 0; k < c->keys[s].n; k++)
        if (c->keys[s].cols[k] == c->bound_col[s] && log_drops_key(c, s, k))
            return false; /* left out of the row */
    weir_type_id t = side_type(c, s, c->bound_col[s]).id;
    return t == WEIR_TYPE_BIGINT || t == WEIR_TYPE_TIMESTAMP || t == WEIR_TYPE_TIMESTAMP_LTZ;
}

/* A side's log name in the fingerprint: "+time" when its elements begin with the row's time,
 * "-key" when they leave out key columns. */
static void log_side_name(const weir_join_config *c, int s, char *out, size_t cap)
{
    bool keys = false;
    for (uint32_t k = 0; k < c->keys[s].n; k++)
        keys |= log_drops_key(c, s, k);
    snprintf(out, cap, " %s%s%s", s == 0 ? "left" : "right", c->bounded[s] && !log_time_in_row(c, s) ? "+time" : "",
             keys ? "-key" : "");
}

/* "row log: 2 left right-key" (nothing when neither side logs). */
static int describe_row_log(weir_job *job, weir_stream s, const weir_join_config *cfg)
{
    char v[64] = WEIR__ROW_LOG, side[24];
    for (int i = 0; i < 2; i++) {
        if (!weir_join_row_log(cfg, i))
            continue;
        log_side_name(cfg, i, side, sizeof side);
        strcat(v, side);
    }
    return strlen(v) == strlen(WEIR__ROW_LOG) ? 0 : weir_job_describe_state(job, s, WEIR__ROW_LOG_FIELD, v);
}

/*
 * "join bounds": when the stored rows of each side are dropped. Rows kept
 * under other bounds (an interval widened after the restore) would be
 * gone where the changed query still needs them.
 */
static void describe_bounds(const weir_join_config *c, char *v, size_t cap)
{
    if (c->interval) {
        snprintf(v, cap, "interval [%" PRId64 ", %" PRId64 "] ms", c->lo_ms, c->hi_ms);
        return;
    }
    char side[2][40];
    for (int i = 0; i < 2; i++)
        if (c->bounded[i])
            snprintf(side[i], sizeof side[i], "$%u + %" PRId64 " ms", c->bound_col[i], c->bound_off[i]);
        else
            snprintf(side[i], sizeof side[i], "none");
    snprintf(v, cap, "left %s, right %s", side[0], side[1]);
}

int weir__describe_join(weir_job *job, weir_stream s, const weir_join_config *cfg)
{
    /* An outer or semi side counts each row's matches; an inner one stores none. */
    int rc = weir_job_describe_state(job, s, WEIR__JOIN_FIELD, weir_join_type_name(cfg->type));
    char v[128];
    describe_bounds(cfg, v, sizeof v);
    if (!rc)
        rc = weir_job_describe_state(job, s, WEIR__JOIN_BOUNDS_FIELD, v);
    /* A key compared with = never stores a row whose key is NULL; IS NOT DISTINCT FROM does. */
    size_t n = 0;
    for (uint32_t k = 0; k < cfg->keys[0].n && n < sizeof v - 16; k++)
        if (cfg->null_safe[k])
            n += (size_t)snprintf(v + n, sizeof v - n, "%s%u", n ? ", " : "", k);
    if (!rc)
        rc = weir_job_describe_state(job, s, WEIR__NULL_SAFE_KEYS_FIELD, n ? v : "none");
    return rc ? rc : describe_row_log(job, s, cfg);
}

/* Side s's row-log form (format 2): the key columns it leaves out, where its time is. */
static int log_form_init(log_form *f, const weir_join_config *c, int s)
{
    f->time_in_row = log_time_in_row(c, s);
    f->time_first = c->bounded[s] && !f->time_in_row;
    for (uint32_t k = 0; k < c->keys[s].n; k++) {
        if (!log_drops_key(c, s, k))
            continue;
        if (!f->drop && !(f->drop = weir_calloc(c->n_out[s], sizeof *f->drop)))
            return WEIR_ENOMEM;
        uint32_t col = c->keys[s].cols[k];
        weir_type t = side_type(c, s, col);
        f->drop[col] = true;
        f->fill[f->n_fill++] =
            (struct key_fill){col, c->keys[1 - s].cols[k], weir_type_is_varlen(t.id) ? 0 : (uint32_t)weir_type_size(t)};
    }
    return 0;
}

/*
 * Whether the residual of side s's rows can wait for a batch of them: an
 * inner join's row changes only its own side's state, and then not by
 * what matched it, while its candidates come from the other side; so each
 * row's pairs can be written to the output first, in the rows' order, and
 * the residual evaluated over a whole output batch of them at once (not
 * over each row's one or two), the pairs it rejects then taken out. A
 * stored row is so decoded once, for the residual and the output alike
 * (most pairs of a join on a key and a time range pass). Not for a
 * residual that reads the clock or differs per call, and not for interval
 * joins (timers and late rows) or outer, semi and anti joins (which count
 * associations).
 */
static bool batched(const weir_join_config *c)
{
    return c->type == WEIR_JOIN_INNER && !c->interval && c->residual && !weir_expr_is_volatile(c->residual) &&
           !weir_expr_reads_session(c->residual);
}

/* ------------------------------------------------------------ lifecycle */

static int join_create(void *arg, const weir_op_info *info, void **out_op)
{
    const join_conf *c = arg;
    join_op *j = weir_calloc(1, sizeof *j);
    *out_op = j;
    if (!j)
        return WEIR_ENOMEM;
    j->conf = c;
    weir__held_wm_init(&j->held, 2);
    weir_buf_init(&j->scan);
    weir_buf_init(&j->dec_bytes);
    weir_buf_init(&j->row);
    weir_buf_init(&j->val);
    weir_buf_init(&j->keys);
    weir_buf_init(&j->hint_sk);
    const weir_schema *cs = cand_schema(&c->cfg);
    uint32_t n = cs->n_fields;
    if (!(j->reads = weir_calloc(n ? n : 1, sizeof *j->reads)) || !(j->rcols = weir_calloc(n ? n : 1, sizeof *j->rcols)) ||
        !(j->cand_schema = weir_schema_create()))
        return WEIR_ENOMEM;
    /* A column past the candidate's (none should be): every column decoded. */
    if (c->cfg.residual && !weir_expr_columns(c->cfg.residual, j->reads, n))
        memset(j->reads, 1, n * sizeof *j->reads);
    for (uint32_t k = 0; k < n; k++) {
        if (j->reads[k])
            j->rcols[j->n_rcols++] = k;
        if (weir_schema_add(j->cand_schema, cs->fields[k].name,
                            j->reads[k] ? cs->fields[k].type : weir_type_make(WEIR_TYPE_BOOLEAN, true)) < 0)
            return WEIR_ENOMEM;
    }
    const weir_schema *os = c->cfg.out_schema;
    for (int side = 0; side < 2; side++) {
        uint32_t off = side == 0 ? 0 : c->cfg.n_out[0];
        if (c->log[side] && log_form_init(&j->form[side], &c->cfg, side))
            return WEIR_ENOMEM;
        if (off + c->cfg.n_out[side] <= os->n_fields &&
            weir__crow_plan_init_at(&j->plan[side], os, off, c->cfg.n_out[side], j->form[side].drop))
            return WEIR_ENOMEM;
    }
    j->batched = batched(&c->cfg);
    /* Batched: the residual's results are those of the output rows, a batch of them. */
    int rc = weir__join_core_init(&j->core, "join", info, c->cfg.out_schema, j->cand_schema, j->batched ? 0 : 16,
                                  &c->cfg.clock);
    if (!rc && j->batched && !(j->from = weir_calloc(j->core.batch_size, sizeof *j->from)))
        rc = WEIR_ENOMEM;
    if (!rc && !(j->out_w = weir_calloc(os->n_fields ? os->n_fields : 1, 1)))
        rc = WEIR_ENOMEM;
    for (uint32_t k = 0; !rc && k < os->n_fields; k++)
        j->out_w[k] = (uint8_t)weir_type_size(os->fields[k].type);
    return rc;
}

/* ----------------------------- a checkpoint of the canonical row encoding */

/* The stored rows of one side being re-encoded, key by key. */
typedef struct recode_ctx {
    weir_op_ctx *ctx;
    weir_state *st;
    weir_batch *scratch; /* the side's input schema */
    uint32_t n;          /* the stored columns */
    uint64_t keys;
    weir_buf ents; /* the key's entries: bytes row, bytes value */
    weir_buf stamps; /* per entry: u8 live, i64 its TTL stamp */
    weir_buf row;
} recode_ctx;

/* Appends a map entry to the weir_buf ud: bytes key, bytes value. */
static int collect_entry(void *ud, const void *k, size_t klen, const void *v, size_t vlen)
{
    weir_buf *ents = ud;
    int rc = weir_buf_put_bytes(ents, k, klen);
    return rc ? rc : weir_buf_put_bytes(ents, v, vlen);
}

/* A visit of one key of a restore's rewrite (join_recode, join_unmap):
 * the job's stop checked every 1024 keys, then the key's map entries of st
 * collected into ents (collect_entry) before the map is changed. */
static int key_entries(weir_op_ctx *ctx, uint64_t *keys, weir_state *st, const void *ns, size_t ns_len,
                       weir_buf *ents)
{
    int rc;
    if (++*keys % 1024 == 0 && (rc = weir_op_interrupted(ctx)))
        return rc;
    weir_buf_clear(ents);
    return weir_map_iterate(st, ns, ns_len, collect_entry, ents);
}

/*
 * Every entry of the current key: all old ones removed first, then the
 * re-encoded ones put (an old map key may equal another row's new one).
 * The values (counts) and their TTL stamps stay as they were; an entry
 * that expired since it was listed is left out.
 */
static int recode_key(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    (void)key;
    (void)klen;
    recode_ctx *r = ud;
    int rc = key_entries(r->ctx, &r->keys, r->st, ns, ns_len, &r->ents);
    if (rc)
        return rc;
    weir_buf_clear(&r->stamps);
    weir_cursor sc;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        weir_cursor cur;
        weir_cursor_init(&cur, r->ents.data, r->ents.len);
        weir_cursor_init(&sc, r->stamps.data, r->stamps.len);
        while (!rc && weir_cursor_left(&cur) > 0) {
            const void *k, *v;
            size_t kl, vl;
            int64_t stamp = 0;
            uint8_t live;
            if (weir_cursor_get_bytes(&cur, &k, &kl) || weir_cursor_get_bytes(&cur, &v, &vl))
                return WEIR_ECORRUPT;
            if (pass == 0) {
                int src = weir__state_stamp(r->st, ns, ns_len, k, kl, &stamp);
                if (src && src != WEIR_ENOTFOUND)
                    return src;
                if (!(rc = weir_buf_put_u8(&r->stamps, !src)) && !(rc = weir_buf_put_i64(&r->stamps, stamp)))
                    rc = weir_map_remove(r->st, ns, ns_len, k, kl);
            } else if (weir_cursor_get_u8(&sc, &live) || weir_cursor_get_i64(&sc, &stamp)) {
                return WEIR_ECORRUPT;
            } else if (live && !(rc = weir__crow_recode(k, kl, r->scratch, r->n, &r->row))) {
                rc = weir__map_put_stamped(r->st, ns, ns_len, r->row.data, r->row.len, stamp, v, vl);
            }
        }
    }
    return rc;
}

/* The restored rows of both sides, in the canonical encoding, into the compact one. */
static int join_recode(void *op, weir_op_ctx *ctx)
{
    join_op *j = op;
    const weir_op_info *info = weir_op_info_of(ctx);
    int rc = 0;
    for (int s = 0; s < 2 && !rc; s++) {
        recode_ctx r = {.ctx = ctx, .st = j->map[s], .n = j->conf->cfg.n_out[s]};
        weir_buf_init(&r.ents);
        weir_buf_init(&r.stamps);
        weir_buf_init(&r.row);
        if (!(r.scratch = weir_batch_create(info->input_schemas[s], 1)))
            rc = WEIR_ENOMEM;
        if (!rc)
            rc = weir_state_keys(r.st, recode_key, &r);
        weir_batch_destroy(r.scratch);
        weir_buf_fini(&r.ents);
        weir_buf_fini(&r.stamps);
        weir_buf_fini(&r.row);
    }
    return rc;
}

static int value_read(const void *v, size_t vlen, int64_t *count, int64_t *assoc, int64_t *ts);

/* Appends a row (len bytes, as the log stores it) to a log: after its time
 * t when the log is timed (the form's time_first; t WEIR_TS_MIN: never
 * dropped), built in buf. */
static int log_put(weir_state *log, bool timed, int64_t t, const void *row, size_t len, weir_buf *buf)
{
    if (!timed)
        return weir_list_add(log, NULL, 0, row, len);
    weir_buf_clear(buf);
    if (weir_buf_put(buf, &t, 8) || weir_buf_put(buf, row, len))
        return WEIR_ENOMEM;
    return weir_list_add(log, NULL, 0, buf->data, buf->len);
}

/* Row r of in into side s's row log, as log_put stores it: encoded (without
 * the key columns the form leaves out) straight after its time when the
 * log is timed (not encoded, then copied). */
static int log_encode_to(join_op *j, int s, weir_state *log, int64_t t, const weir_batch *in, uint32_t r, weir_buf *b)
{
    const log_form *f = &j->form[s];
    weir_buf_clear(b);
    int rc = f->time_first ? weir_buf_put(b, &t, 8) : 0;
    if (rc || (rc = weir__crow_encode_append_skip(in, r, j->conf->cfg.n_out[s], f->drop, b)))
        return rc;
    return weir_list_add(log, NULL, 0, b->data, b->len);
}

static int log_encode(join_op *j, int s, int64_t t, const weir_batch *in, uint32_t r)
{
    return log_encode_to(j, s, j->core.st[s], t, in, r, j->form[s].time_first ? &j->val : &j->row);
}

/*
 * A whole compact row of side s (a map entry of an earlier weir's
 * checkpoint, or an element of the first row-log format; its time t) into
 * side s's row log as format 2 stores it: through row 0 of scratch (side
 * s's input schema) when the form leaves key columns out.
 */
static int log_put_whole(join_op *j, int s, weir_state *log, weir_batch *scratch, int64_t t, const void *row,
                         size_t len, weir_buf *buf)
{
    if (!j->form[s].drop)
        return log_put(log, j->form[s].time_first, t, row, len, buf);
    weir_batch_reset(scratch);
    int r = weir_batch_append_row(scratch);
    if (r < 0)
        return r;
    int rc = weir__crow_decode(row, len, scratch, (uint32_t)r, 0, j->conf->cfg.n_out[s]);
    return rc ? rc : log_encode_to(j, s, log, t, scratch, (uint32_t)r, buf);
}

/* One key's map entries of a side with a row log: each row appended to
 * the log as many times as it was present, then the map removed. */
typedef struct unmap_ctx {
    join_op *j;
    int s;
    weir_op_ctx *ctx;
    weir_state *map, *log;
    weir_batch *scratch; /* side s's input schema (log_put_whole) */
    bool timed;          /* relog_key: the first format's elements begin with the row's time */
    uint64_t keys;
    weir_buf ents; /* the key's entries: bytes row, bytes value */
    weir_buf elem;
} unmap_ctx;

static int unmap_key(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    (void)key;
    (void)klen;
    unmap_ctx *u = ud;
    int rc = key_entries(u->ctx, &u->keys, u->map, ns, ns_len, &u->ents);
    if (rc)
        return rc;
    weir_cursor cur;
    weir_cursor_init(&cur, u->ents.data, u->ents.len);
    while (!rc && weir_cursor_left(&cur) > 0) {
        const void *k, *v;
        size_t kl, vl;
        int64_t count, assoc, ts;
        if (weir_cursor_get_bytes(&cur, &k, &kl) || weir_cursor_get_bytes(&cur, &v, &vl) ||
            value_read(v, vl, &count, &assoc, &ts))
            return WEIR_ECORRUPT;
        for (int64_t i = 0; i < count && !rc; i++)
            rc = log_put_whole(u->j, u->s, u->log, u->scratch, ts, k, kl, &u->elem);
    }
    return rc ? rc : weir_state_clear(u->map, ns, ns_len);
}

/* After a restore: the rows a checkpoint of an earlier weir kept in map
 * entries on a side that now has a row log go into the log (the order of
 * a key's rows is then the map's; all later ones come after them). */
/* fn(u) for each key of st, with u's buffers and scratch row (side u->s) set up and freed after. */
static int visit_side_keys(unmap_ctx *u, weir_state *st, weir_state_key_visit_fn fn)
{
    weir_buf_init(&u->ents);
    weir_buf_init(&u->elem);
    u->scratch = weir_batch_create(weir_op_info_of(u->ctx)->input_schemas[u->s], 1);
    int rc = u->scratch ? weir_state_keys(st, fn, u) : WEIR_ENOMEM;
    weir_batch_destroy(u->scratch);
    weir_buf_fini(&u->ents);
    weir_buf_fini(&u->elem);
    return rc;
}

static int join_unmap(join_op *j, weir_op_ctx *ctx)
{
    int rc = 0;
    for (int s = 0; s < 2 && !rc; s++) {
        if (!j->conf->log[s])
            continue;
        unmap_ctx u = {.j = j, .s = s, .ctx = ctx, .map = j->map[s], .log = j->core.st[s]};
        rc = visit_side_keys(&u, u.map, unmap_key);
    }
    return rc;
}

/* Appends a list element to the weir_buf ud: bytes element. */
static int collect_elem(void *ud, const void *e, size_t len)
{
    return weir_buf_put_bytes(ud, e, len);
}

/* One key's row log of the first format (the whole row, after its time on
 * a bounded side), rewritten in format 2 in the same order. */
static int relog_key(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    (void)key;
    (void)klen;
    unmap_ctx *u = ud;
    int rc;
    if (++u->keys % 1024 == 0 && (rc = weir_op_interrupted(u->ctx)))
        return rc;
    weir_buf_clear(&u->ents);
    if ((rc = weir_list_get(u->log, ns, ns_len, collect_elem, &u->ents)) ||
        (rc = weir_state_clear(u->log, ns, ns_len)))
        return rc;
    bool timed = u->timed;
    weir_cursor cur;
    weir_cursor_init(&cur, u->ents.data, u->ents.len);
    while (!rc && weir_cursor_left(&cur) > 0) {
        const void *ev;
        size_t len;
        int64_t t = WEIR_TS_MIN;
        if (weir_cursor_get_bytes(&cur, &ev, &len) || (timed && len < 8))
            return WEIR_ECORRUPT;
        const uint8_t *e = ev;
        if (timed) {
            memcpy(&t, e, 8);
            e += 8;
            len -= 8;
        }
        rc = log_put_whole(u->j, u->s, u->log, u->scratch, t, e, len, &u->elem);
    }
    return rc;
}

/* After a restore of a checkpoint whose row logs are of the first format
 * (checkpoint/compat.c says so; timed: its sides whose elements begin with
 * the row's time, bounded then, bounded or not now): the logs of the sides
 * whose elements changed (key columns left out, the time read from the row,
 * or the time there and not now or the reverse) rewritten. A row that had
 * no time and has one before it now gets WEIR_TS_MIN: it is never dropped,
 * as a row of a side not bounded, and the results are the same. */
static int join_relog(join_op *j, weir_op_ctx *ctx, const bool timed[2])
{
    int rc = 0;
    for (int s = 0; s < 2 && !rc; s++) {
        const log_form *f = &j->form[s];
        if (!j->conf->log[s] || (!f->drop && !f->time_in_row && timed[s] == f->time_first))
            continue;
        unmap_ctx u = {.j = j, .s = s, .ctx = ctx, .log = j->core.st[s], .timed = timed[s]};
        rc = visit_side_keys(&u, u.log, relog_key);
    }
    return rc;
}

/* After every restore: row logs of the first format re-encoded, then the
 * rows of map entries (a checkpoint before row logs) moved into the logs. */
static int join_restored(void *op, weir_op_ctx *ctx)
{
    join_op *j = op;
    bool timed[2];
    int rc = weir__op_restores_row_log_1(ctx, timed) ? join_relog(j, ctx, timed) : 0;
    return rc ? rc : join_unmap(j, ctx);
}

static int join_open(void *op, weir_op_ctx *ctx)
{
    join_op *j = op;
    const join_conf *jc = j->conf;
    const weir_join_config *c = &jc->cfg;
    const weir_state_desc maps[2] = {
        {.name = "join-left", .kind = WEIR_STATE_MAP, .ttl_ms = c->state_ttl_ms},
        {.name = "join-right", .kind = WEIR_STATE_MAP, .ttl_ms = c->right_ttl ? c->right_state_ttl_ms : c->state_ttl_ms}};
    const weir_state_desc logs[2] = {{.name = "join-left-log", .kind = WEIR_STATE_LIST},
                                     {.name = "join-right-log", .kind = WEIR_STATE_LIST}};
    const weir_state_desc desc[2] = {jc->log[0] ? logs[0] : maps[0], jc->log[1] ? logs[1] : maps[1]};
    int rc = weir__join_core_open(&j->core, ctx, c->n_out, desc);
    for (int s = 0; s < 2 && !rc; s++)
        rc = jc->log[s] ? weir_op_get_state(ctx, &maps[s], &j->map[s]) : (j->map[s] = j->core.st[s], 0);
    if (rc)
        return rc;
    j->n_expired = weir_op_counter(ctx, "expired_rows");
    if (jc->top1) { /* without the hint (no memory, no room) nothing is skipped */
        j->hint = weir__top1_hint_of(ctx, jc->top1);
        j->n_skipped = weir_op_counter(ctx, "rows_skipped_for_top1");
    }
    weir__op_on_canonical_rows(ctx, join_recode);
    if (jc->log[0] || jc->log[1])
        weir__op_on_restored(ctx, join_restored);
    return 0;
}

static void join_close(void *op)
{
    join_op *j = op;
    if (!j)
        return;
    weir__join_core_fini(&j->core);
    weir_free(j->reads);
    weir_free(j->rcols);
    weir_schema_destroy(j->cand_schema);
    weir_free(j->from);
    weir_free(j->refs);
    weir_free(j->rkeys);
    weir_free(j->live);
    weir_buf_fini(&j->keys);
    weir_buf_fini(&j->hint_sk);
    for (int s = 0; s < 2; s++) {
        weir__crow_plan_fini(&j->plan[s]);
        weir_free(j->form[s].drop);
    }
    weir_buf_fini(&j->scan);
    weir_buf_fini(&j->dec_bytes);
    weir_free(j->out_w);
    weir_buf_fini(&j->row);
    weir_buf_fini(&j->val);
    for (int s = 0; s < 2; s++) {
        for (uint32_t i = 0; i < j->expq[s].n; i++)
            weir__bigmem_free(j->expq[s].b[i].keys);
        weir__bigmem_free(j->expq[s].spare);
        weir_free(j->expq[s].b);
    }
    weir_free(j);
}

/* ------------------------------------------------------------ processing */

/* t rounded up to a multiple of step (the bounded join's timers). */
static weir_ts round_up(weir_ts t, int64_t step)
{
    if (step <= 1 || t > WEIR_TS_MAX - step)
        return t;
    int64_t r = t % step;
    if (r < 0)
        r += step;
    return r ? t - r + step : t;
}

/*
 * The watermark at which a stored row of side s with time t can match
 * nothing still to come (its timer). Interval join: the watermark passed
 * the other side's last time that can match (left t - lo, right t + hi).
 * Bounded join: the other side's rows to come are above the watermark, so
 * W >= t + bound_off suffices; WEIR_TS_MAX (the end) for a row with no time.
 */
static weir_ts row_expiry(const weir_join_config *c, int s, int64_t t)
{
    if (c->interval)
        return s == 0 ? t - c->lo_ms + 1 : t + c->hi_ms + 1;
    int64_t off = c->bound_off[s];
    if (t == WEIR_TS_MIN || (off > 0 && t > WEIR_TS_MAX - off))
        return WEIR_TS_MAX;
    if (off < 0 && t < WEIR_TS_MIN + 1 - off)
        return WEIR_TS_MIN + 1;
    return t + off;
}

/* A listing's length fits two LEB128 bytes: a join key is at most the core's key buffer. */
_Static_assert(sizeof(((weir_join_core *)0)->key) < (1u << 14), "a listing's key length takes at most two bytes");

/* Reads the listing at p: its key's length into *klen; returns the length's size in bytes. */
static inline size_t listing_len(const uint8_t *p, uint32_t *klen)
{
    if (p[0] < 0x80) {
        *klen = p[0];
        return 1;
    }
    *klen = (uint32_t)(p[0] & 0x7f) | (uint32_t)p[1] << 7;
    return 2;
}

/* Room for extra more bytes of listings in bucket b (from q's spare block first). */
static int bucket_reserve(exp_queue *q, exp_bucket *b, size_t extra)
{
    if (b->cap - b->len >= extra)
        return 0;
    if (!b->keys && q->spare && q->spare_cap >= extra) {
        b->keys = q->spare;
        b->cap = q->spare_cap;
        q->spare = NULL;
        q->spare_cap = 0;
        return 0;
    }
    size_t cap = b->cap ? 2 * b->cap : 4096;
    while (cap - b->len < extra)
        cap *= 2;
    uint8_t *k = b->keys ? weir__bigmem_grow(b->keys, b->len, cap) : weir__bigmem_alloc(cap, 64);
    if (!k)
        return WEIR_ENOMEM;
    b->keys = k;
    b->cap = cap;
    return 0;
}

/* Bucket b's block once it is drained: q's spare when larger than the one it has. */
static void bucket_release(exp_queue *q, exp_bucket *b)
{
    if (b->cap > q->spare_cap) {
        weir__bigmem_free(q->spare);
        q->spare = b->keys;
        q->spare_cap = b->cap;
    } else {
        weir__bigmem_free(b->keys);
    }
    b->keys = NULL;
    b->cap = b->len = 0;
}

/*
 * Lists the key in side s's bucket of time ts. Listings are appended, one
 * per stored row (a repeat of the bucket's last listing is skipped): a set
 * of the keys listed so far made every listing a cache miss when the keys
 * are many (q7's prices), and most buckets of a run at the reference rate
 * are never drained (the end of the input drops no row).
 */
static int expq_add(join_op *j, int s, weir_ts ts, const void *key, uint32_t klen, uint64_t hash)
{
    exp_queue *q = &j->expq[s];
    uint32_t i = q->n;
    while (i > 0 && q->b[i - 1].ts > ts)
        i--;
    exp_bucket *b;
    if (i > 0 && q->b[i - 1].ts == ts) {
        b = &q->b[i - 1];
    } else {
        if (q->n == q->cap) {
            uint32_t cap = q->cap ? q->cap * 2 : 8;
            exp_bucket *nb = weir_realloc(q->b, cap * sizeof *nb);
            if (!nb)
                return WEIR_ENOMEM;
            q->b = nb;
            q->cap = cap;
        }
        memmove(&q->b[i + 1], &q->b[i], (q->n - i) * sizeof *q->b);
        q->n++;
        b = &q->b[i];
        *b = (exp_bucket){.ts = ts};
    }
    if (b->last && b->last_hash == hash) {
        const uint8_t *e = b->keys + b->last - 1;
        uint32_t el;
        size_t hs = listing_len(e, &el);
        if (el == klen && !memcmp(e + hs, key, klen))
            return 0;
    }
    if (bucket_reserve(q, b, 2 + (size_t)klen))
        return WEIR_ENOMEM;
    size_t at = b->len;
    uint8_t *e = b->keys + at;
    size_t hs = 1;
    if (klen < 0x80) {
        e[0] = (uint8_t)klen;
    } else {
        e[0] = (uint8_t)(klen | 0x80);
        e[1] = (uint8_t)(klen >> 7);
        hs = 2;
    }
    memcpy(e + hs, key, klen);
    b->len += hs + (size_t)klen;
    b->last = at + 1;
    b->last_hash = hash;
    return 0;
}

/* A listing of a bucket being drained: its key's hash and offset. */
typedef struct listing {
    uint64_t hash;
    size_t off;
} listing;

/* The key of the listing at off of bucket b: its bytes, and its length in *klen. */
static inline const uint8_t *listing_key(const exp_bucket *b, size_t off, uint32_t *klen)
{
    return b->keys + off + listing_len(b->keys + off, klen);
}

/*
 * Sorts n listings by the high 32 bits of their hash (four passes of a
 * byte radix sort through tmp): the listings of one key become adjacent,
 * with at most the rare keys of the same 32 bits between them.
 */
static void sort_listings(listing *v, listing *tmp, size_t n)
{
    for (int shift = 32; shift < 64; shift += 8) {
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((v[i].hash >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++)
            tmp[cnt[(v[i].hash >> shift) & 0xff]++] = v[i];
        memcpy(v, tmp, n * sizeof *v);
    }
}

/* Whether the listings x and y of bucket b name the same key. */
static bool same_listing(const exp_bucket *b, const listing *x, const listing *y)
{
    uint32_t xl, yl;
    const uint8_t *xk = listing_key(b, x->off, &xl), *yk = listing_key(b, y->off, &yl);
    return x->hash == y->hash && xl == yl && !memcmp(xk, yk, xl);
}

/*
 * The keys of bucket b, each once, into *out (listings, ascending by the
 * high bits of their hash): sorted, then each listing kept unless an
 * earlier one of its run of equal high bits names the same key.
 */
static int drain_keys(const exp_bucket *b, listing **out, size_t *n_out)
{
    size_t n = 0;
    for (size_t off = 0; off < b->len; n++) {
        uint32_t klen;
        off += listing_len(b->keys + off, &klen) + (size_t)klen;
    }
    *out = NULL;
    *n_out = 0;
    if (!n)
        return 0;
    listing *v = weir_malloc(2 * n * sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    size_t i = 0;
    for (size_t off = 0; off < b->len; i++) {
        uint32_t klen;
        const uint8_t *key = listing_key(b, off, &klen);
        v[i] = (listing){weir_key_hash(key, klen), off};
        off = (size_t)(key - b->keys) + klen;
    }
    sort_listings(v, v + n, n);
    size_t kept = 0;
    for (size_t run = 0; run < n;) {
        size_t end = run + 1;
        while (end < n && (v[end].hash >> 32) == (v[run].hash >> 32))
            end++;
        size_t first = kept;
        for (size_t x = run; x < end; x++) {
            bool seen = false;
            for (size_t y = first; y < kept && !seen; y++)
                seen = same_listing(b, &v[y], &v[x]);
            if (!seen)
                v[kept++] = v[x];
        }
        run = end;
    }
    *out = v;
    *n_out = kept;
    return 0;
}

/*
 * Writes side `side`'s columns of output row r: the input row's (gather's)
 * when it is the input side, else those of the other side's row i,
 * decoded from its stored bytes in j->scan. An output row is built once,
 * from where its values lie, not copied from a candidate.
 */
/*
 * The key columns a stored row of log side o leaves out, into row `row` of
 * dst (side o's columns at off; want: only those columns, NULL: all): from
 * the input row at hand (in, r), whose key is the stored row's. A value
 * marks its column valid: the row may hold a NULL there, taken with the
 * rest of an earlier output row that decoded a stored row of the same bytes
 * under another key (share_cols: a NULL key under IS NOT DISTINCT FROM).
 */
static inline int fill_keys(const join_op *j, int o, weir_batch *dst, uint32_t row, uint32_t off, const bool *want,
                            const weir_batch *in, uint32_t r)
{
    const log_form *f = &j->form[o];
    for (uint32_t i = 0; i < f->n_fill; i++) {
        const struct key_fill *x = &f->fill[i];
        if (want && !want[x->col])
            continue;
        weir_column *d = &dst->cols[off + x->col];
        if (!weir_batch_is_null(in, x->src, r)) {
            if (!d->all_valid)
                d->valid[row >> 3] |= (uint8_t)(1u << (row & 7));
            if (x->w == 8) { /* most keys: one move, not a call */
                memcpy((char *)d->data + (size_t)row * 8, (const char *)in->cols[x->src].data + (size_t)r * 8, 8);
                continue;
            }
        }
        int rc = weir__row_copy_cols(dst, row, off + x->col, in, r, x->src, 1);
        if (rc)
            return rc;
    }
    return 0;
}

/* The slot of j->dec for a stored row that lay at `at`. */
static inline decoded *dec_slot(join_op *j, const void *at)
{
    uint64_t h = (uint64_t)(uintptr_t)at * UINT64_C(0x9e3779b97f4a7c15);
    return &j->dec[h >> (64 - DECODED_BITS)];
}

/* Columns [off, off + n) of output row src into output row dst, NULLs too;
 * strings shared, not copied: both rows refer to the same heap bytes. */
static void share_cols(join_op *j, uint32_t dst, uint32_t src, uint32_t off, uint32_t n)
{
    weir_batch *b = j->core.out;
    for (uint32_t c = off; c < off + n; c++) {
        weir_column *col = &b->cols[c];
        if (!col->all_valid) {
            if (!(col->valid[src >> 3] & (1u << (src & 7)))) {
                weir_batch_set_null(b, c, dst);
                continue;
            }
            col->valid[dst >> 3] |= (uint8_t)(1u << (dst & 7));
        }
        char *d = col->data;
        size_t w = j->out_w[c];
        if (w == 8) /* BIGINT, timestamps, strings (heap references): most columns */
            memcpy(d + (size_t)dst * 8, d + (size_t)src * 8, 8);
        else
            memcpy(d + (size_t)dst * w, d + (size_t)src * w, w);
    }
}

/*
 * Side `side`'s columns of output row r from stored row cr: from an
 * earlier output row of this batch that decoded the same bytes, when dec
 * has one (0: written); else 1, and row r is remembered for them: the
 * caller decodes them into it. The output batch is known by core.out_gen,
 * which every emission of it counts: its rows stay as written until then
 * (a batched join's residual filters them only as it emits them).
 */
static int out_stored_again(join_op *j, uint32_t r, int side, const cand_ref *cr, uint32_t off, uint32_t n)
{
    uint64_t gen = j->core.out_gen + 1;
    decoded *d = dec_slot(j, cr->at);
    const uint8_t *bytes = j->scan.data + cr->off;
    if (d->gen == gen && d->side == side && d->len == cr->len && d->row < j->core.out->n_rows &&
        memcmp(j->dec_bytes.data + d->boff, bytes, cr->len) == 0) {
        share_cols(j, r, d->row, off, n);
        return 0;
    }
    if (j->dec_gen != gen) { /* a new output batch: what dec held is gone */
        weir_buf_clear(&j->dec_bytes);
        j->dec_gen = gen;
    }
    if (cr->len <= UINT32_MAX && !weir_buf_put(&j->dec_bytes, bytes, cr->len))
        *d = (decoded){gen, j->dec_bytes.len - cr->len, (uint32_t)cr->len, r, side};
    return 1;
}

static int out_side(join_op *j, weir_op_ctx *ctx, uint32_t r, int side, uint32_t i)
{
    const weir_join_config *c = &j->conf->cfg;
    uint32_t off = side == 0 ? 0 : c->n_out[0];
    if (side == j->in_side)
        return weir__row_copy_cols(j->core.out, r, off, j->in, j->in_row, 0, c->n_out[side]);
    const cand_ref *cr = &j->refs[i];
    if (out_stored_again(j, r, side, cr, off, c->n_out[side])) {
        int rc = weir__crow_plan_decode(&j->plan[side], j->scan.data + cr->off, cr->len, j->core.out, r);
        if (rc)
            return weir_op_fail(ctx, rc, "join state holds a row that does not decode");
    }
    return j->form[side].n_fill ? fill_keys(j, side, j->core.out, r, off, NULL, j->in, j->in_row) : 0;
}

static int residual(join_op *j, weir_op_ctx *ctx, const weir_batch *cand);

/* Batched: the residual over the output rows, the rows it rejects taken
 * out, the others emitted. */
static int settle(join_op *j, weir_op_ctx *ctx)
{
    weir_batch *out = j->core.out;
    if (out->n_rows) {
        int rc = residual(j, ctx, out);
        if (rc)
            return rc;
        weir_batch_filter_inplace(out, j->core.sel);
    }
    return weir__join_core_flush(&j->core, ctx);
}

/* Emits the input row joined with the other side's row i, `times` times
 * (batched: writes them, the residual still to pass them). */
static int emit_pair(join_op *j, weir_op_ctx *ctx, uint32_t i, int64_t times, weir_row_kind kind, weir_ts ts)
{
    for (int64_t t = 0; t < times; t++) {
        uint32_t r;
        int rc = j->batched && weir_batch_full(j->core.out) ? settle(j, ctx) : 0;
        if (!rc)
            rc = weir__join_core_out_row_to_fill(&j->core, ctx, kind, ts, &r);
        if (!rc && !(rc = out_side(j, ctx, r, 0, i)))
            rc = out_side(j, ctx, r, 1, i);
        if (rc)
            return rc;
        if (j->batched)
            j->from[r] = (pair_from){j->in_row, i, j->n_refs};
    }
    return 0;
}

/* Emits side s's row (the input row, or the other side's row i) with the other side NULL, `times` times. */
static int emit_padded(join_op *j, weir_op_ctx *ctx, int s, uint32_t i, int64_t times, weir_row_kind kind, weir_ts ts)
{
    const weir_join_config *c = &j->conf->cfg;
    uint32_t ooff = s == 0 ? c->n_out[0] : 0, on = c->n_out[1 - s];
    for (int64_t t = 0; t < times; t++) {
        uint32_t r;
        int rc = weir__join_core_out_row_to_fill(&j->core, ctx, kind, ts, &r);
        if (!rc)
            rc = out_side(j, ctx, r, s, i);
        if (rc)
            return rc;
        for (uint32_t k = 0; k < on; k++)
            weir_batch_set_null(j->core.out, ooff + k, r);
    }
    return 0;
}

/*
 * A stored row's map value: (count, assoc, ts) as three i64 (24 bytes),
 * or, for a row present once with no association, its time alone (8
 * bytes) or nothing at all (no time). Non-zero for any other length.
 */
static int value_read(const void *v, size_t vlen, int64_t *count, int64_t *assoc, int64_t *ts)
{
    *count = 1;
    *assoc = 0;
    *ts = WEIR_TS_MIN;
    switch (vlen) {
    case 0:
        return 0;
    case 8:
        memcpy(ts, v, 8);
        return 0;
    case 24:
        memcpy(count, v, 8);
        memcpy(assoc, (const char *)v + 8, 8);
        memcpy(ts, (const char *)v + 16, 8);
        return 0;
    default:
        return WEIR_ECORRUPT;
    }
}

/* A new candidate reference for the entry (value v: count, assoc, ts) whose
 * encoded row is klen bytes at j->scan's end (when copied there). */
static int add_ref(join_op *j, size_t klen, const void *v, size_t vlen)
{
    int64_t count, assoc, ts;
    if (value_read(v, vlen, &count, &assoc, &ts))
        return WEIR_ECORRUPT;
    if (j->n_refs == j->refs_cap) {
        uint32_t cap = j->refs_cap ? j->refs_cap * 2 : 16;
        cand_ref *nr = weir_realloc(j->refs, cap * sizeof *nr);
        if (!nr)
            return WEIR_ENOMEM;
        j->refs = nr;
        j->refs_cap = cap;
    }
    cand_ref *r = &j->refs[j->n_refs++];
    r->off = j->scan.len;
    r->len = klen;
    r->count = count;
    r->assoc = assoc;
    r->ts = ts;
    r->at = NULL;
    return 0;
}

/* Copies the current key's entries out of the state (the scans that then
 * write the state: expiry, rebuilding the buckets). */
static int scan_visit(void *ud, const void *k, size_t klen, const void *v, size_t vlen)
{
    join_op *j = ud;
    int rc = add_ref(j, klen, v, vlen);
    return rc ? rc : weir_buf_put(&j->scan, k, klen) ? WEIR_ENOMEM : 0;
}

/* The same for an element of a timed row log (a bounded side's). */
static int scan_timed(void *ud, const void *e, size_t len)
{
    return len < 8 ? WEIR_ECORRUPT : scan_visit(ud, (const uint8_t *)e + 8, len - 8, e, 8);
}

/* The same for an element of a row log whose time is the row's column bound_col (NULL: WEIR_TS_MIN). */
static int scan_row_time(void *ud, const void *e, size_t len)
{
    join_op *j = ud;
    int s = j->scan_s;
    int64_t t = WEIR_TS_MIN;
    int rc = weir__crow_plan_get_i64(&j->plan[s], e, len, j->conf->cfg.bound_col[s], &t);
    if (rc < 0)
        return rc;
    if (rc == 1)
        t = WEIR_TS_MIN;
    return scan_visit(ud, e, len, &t, 8);
}

/* Copies side s's rows of the current key into j->refs and j->scan; s is
 * a bounded side (a log side's elements are read with their times). */
static int scan_side(join_op *j, int s)
{
    j->n_refs = 0;
    j->scan_s = s;
    weir_buf_clear(&j->scan);
    if (j->conf->log[s])
        return weir_list_get(j->core.st[s], NULL, 0, j->form[s].time_first ? scan_timed : scan_row_time, j);
    return weir_map_iterate(j->core.st[s], NULL, 0, scan_visit, j);
}

/* gather's scan: the input row (in, r) and where each side's columns go. */
typedef struct gather_scan {
    join_op *j;
    const weir_batch *in;
    uint32_t r;
    int s;
    bool bad_row;  /* a stored row did not decode */
} gather_scan;

/*
 * Appends a candidate row: the input row's columns that the residual
 * reads, the other side's still to be written. Only the residual's
 * columns are marked valid, and they are all written then (a value or a
 * NULL): the others are BOOLEANs nothing reads (j->cand_schema), so the
 * row is not cleared column by column.
 */
static int cand_append(join_op *j, int s, const weir_batch *in, uint32_t r, int *row)
{
    const weir_join_config *c = &j->conf->cfg;
    weir_batch *b = j->core.cand;
    if (b->n_rows >= b->capacity)
        return WEIR_EINVAL;
    *row = (int)b->n_rows++;
    b->key_hash_of = NULL;
    for (uint32_t k = 0; k < j->n_rcols; k++)
        weir_batch_set_valid(b, j->rcols[k], (uint32_t)*row);
    uint32_t off = s == 0 ? 0 : c->n_out[0];
    for (uint32_t k = 0; k < c->n_out[s]; k++) {
        if (!j->reads[off + k])
            continue;
        int rc = weir__row_copy_cols(j->core.cand, (uint32_t)*row, off + k, in, r, k, 1);
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * One row of the other side: its bytes copied into j->scan (the output
 * rows are decoded from there, and an outer side's entry is written back
 * from there) and, with a residual not batched, a candidate of the columns
 * it reads (decoded straight from the state; the others are not written).
 */
static int gather_visit(void *ud, const void *k, size_t klen, const void *v, size_t vlen)
{
    gather_scan *g = ud;
    join_op *j = g->j;
    const weir_join_config *c = &j->conf->cfg;
    int o = 1 - g->s, row;
    int rc = add_ref(j, klen, v, vlen);
    if (!rc)
        j->refs[j->n_refs - 1].at = k;
    if (!rc && weir_buf_put(&j->scan, k, klen))
        rc = WEIR_ENOMEM;
    /* room for the residual's result too, when there is none to evaluate */
    if (!rc && !j->batched)
        rc = weir__join_core_grow(&j->core, j->cand_schema, j->n_refs);
    if (rc || !c->residual || j->batched)
        return rc;
    uint32_t off = o == 0 ? 0 : c->n_out[0];
    rc = cand_append(j, g->s, g->in, g->r, &row);
    if (!rc && (rc = weir__crow_decode_some(k, klen, j->core.cand, (uint32_t)row, off, c->n_out[o], j->form[o].drop,
                                            j->reads + off, cand_schema(c))))
        g->bad_row = true;
    if (!rc && j->form[o].n_fill)
        rc = fill_keys(j, o, j->core.cand, (uint32_t)row, off, j->reads + off, g->in, g->r);
    return rc;
}

/* One element of a row log: a row present once (a time in the row is not read: a match needs none). */
static int gather_elem(void *ud, const void *row, size_t len)
{
    return gather_visit(ud, row, len, NULL, 0);
}

/* One element of a timed row log: the row's time (read as an 8-byte map value), then the row. */
static int gather_timed(void *ud, const void *e, size_t len)
{
    return len < 8 ? WEIR_ECORRUPT : gather_visit(ud, (const uint8_t *)e + 8, len - 8, e, 8);
}


/* No rows of the other side, no candidates. (The candidate batch is
 * written only by cand_append, which adds a row: one without rows needs
 * no reset, and a join without a residual never has any.) */
static void cands_reset(join_op *j)
{
    j->n_refs = 0;
    weir_buf_clear(&j->scan);
    if (j->core.cand->n_rows)
        weir_batch_reset(j->core.cand);
}

/*
 * Reads the other side's rows of the current key (none when null_key) into
 * j->refs [0, n_refs) and their bytes into j->scan, and evaluates the
 * residual over candidates [0, n_refs): the input row joined with each,
 * of the columns the residual reads. The input row is remembered: the
 * rows emitted then take its columns from it, and the other side's from
 * the stored bytes, decoded only for rows that are emitted. Batched
 * (j->batched): no candidates, the row's pairs are written to the output
 * at once and the residual waits for them there (settle).
 */
static int gather(join_op *j, weir_op_ctx *ctx, int s, const weir_batch *in, uint32_t r, bool null_key)
{
    int o = 1 - s;
    j->in = in;
    j->in_row = r;
    j->in_side = s;
    cands_reset(j);
    gather_scan g = {j, in, r, s, false};
    int rc = null_key         ? 0
             : j->conf->log[o] ? weir_list_get(j->core.st[o], NULL, 0, j->form[o].time_first ? gather_timed : gather_elem, &g)
                               : weir_map_iterate(j->core.st[o], NULL, 0, gather_visit, &g);
    if (g.bad_row)
        return weir_op_fail(ctx, rc, "join state holds a row that does not decode");
    if (rc || !j->n_refs)
        return rc;
    if (!j->batched)
        return residual(j, ctx, j->core.cand);
    weir_row_kind kind = (weir_row_kind)in->kind[r];
    for (uint32_t i = 0; i < j->n_refs && !rc; i++)
        rc = emit_pair(j, ctx, i, j->refs[i].count, kind, in->ts[r]);
    return rc;
}

/*
 * An error of the residual names candidate i ("... (row i)"): it becomes the
 * input row whose candidate it is and the candidate's place among that
 * row's (the other input's rows under its key), both from 0 as rows are.
 */
static void name_input_row(const join_op *j, weir_error *err)
{
    uint32_t i;
    if (!weir__join_error_candidate(err, &i))
        return;
    pair_from f = j->batched ? j->from[i] : (pair_from){j->in_row, i, j->n_refs};
    char msg[sizeof err->message];
    snprintf(msg, sizeof msg, "%.400s (row %u, with the other input's row %u of the %u under its key)", err->message,
             f.row, f.i, f.n);
    memcpy(err->message, msg, sizeof msg);
}

/* The residual over the candidates cand (j->core.cand, or batched the output
 * rows) into j->core.sel; all of [0, n_refs) selected without one. */
static int residual(join_op *j, weir_op_ctx *ctx, const weir_batch *cand)
{
    const weir_join_config *c = &j->conf->cfg;
    if (!c->residual) {
        memset(j->core.sel, 1, j->n_refs);
        return 0;
    }
    weir_error err = {0};
    weir_expr_env_set_watermark(j->core.env, weir_op_watermark(ctx));
    if (weir_expr_filter(c->residual, cand, j->core.env, j->core.sel, &err)) {
        name_input_row(j, &err);
        return weir_op_fail(ctx, err.code ? err.code : WEIR_EINVAL, "join condition: %s", err.message);
    }
    return 0;
}

/* A stored row's map value (count > 0) into j->val: see value_read. */
static int value_write(join_op *j, int64_t count, int64_t assoc, int64_t ts)
{
    weir_buf_clear(&j->val);
    /* The common value short (value_read): the bytes of the rows a
     * regular join keeps are mostly the rows themselves. */
    if (count == 1 && assoc == 0) {
        if (ts != WEIR_TS_MIN && weir_buf_put(&j->val, &ts, 8))
            return WEIR_ENOMEM;
    } else if (weir_buf_put(&j->val, &count, 8) || weir_buf_put(&j->val, &assoc, 8) ||
               weir_buf_put(&j->val, &ts, 8)) {
        return WEIR_ENOMEM;
    }
    return 0;
}

static int put_entry(join_op *j, int side, const void *k, size_t klen, int64_t count, int64_t assoc, int64_t ts)
{
    if (count <= 0)
        return weir_map_remove(j->core.st[side], NULL, 0, k, klen);
    int rc = value_write(j, count, assoc, ts);
    return rc ? rc : weir_map_put(j->core.st[side], NULL, 0, k, klen, j->val.data, j->val.len);
}

/* The input row's own entry, rewritten in one lookup (weir_map_rewrite):
 * its count changed by delta, its associations and time set. */
typedef struct own_entry {
    join_op *j;
    int64_t delta, assoc, ts;
    int64_t count;    /* out: the count now (0: the entry is gone) */
    size_t bad_len;   /* out: the length of a stored value that did not read, + 1 */
} own_entry;

static int own_rewrite(void *ud, const void *old, size_t oldlen, const void **nv, size_t *nvlen)
{
    own_entry *o = ud;
    int64_t count = 0, a, t0;
    if (old && value_read(old, oldlen, &count, &a, &t0)) {
        o->bad_len = oldlen + 1;
        return WEIR_ECORRUPT;
    }
    o->count = count + o->delta;
    if (o->count <= 0)
        return 0;
    int rc = value_write(o->j, o->count, o->assoc, o->ts);
    if (rc)
        return rc;
    *nv = o->j->val.data;
    *nvlen = o->j->val.len;
    return 1;
}

/* Emits the left row (the input row, or the other side's row i: a semi or anti join's output row), `times` times. */
static int emit_left(join_op *j, weir_op_ctx *ctx, uint32_t i, int64_t times, weir_row_kind kind, weir_ts ts)
{
    for (int64_t t = 0; t < times; t++) {
        uint32_t r;
        int rc = weir__join_core_out_row_to_fill(&j->core, ctx, kind, ts, &r);
        if (!rc)
            rc = out_side(j, ctx, r, 0, i);
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * Whether row r's key column col is a DOUBLE NaN. Under IS NOT DISTINCT
 * FROM a NaN is distinct from everything, NaN included, so such a key,
 * like a NULL one under '=', can never match: taken as a NULL key, its row
 * needs no state and probes nothing. (Stored under its NaN key, every NaN
 * row of one side was a candidate of every one of the other, each rejected
 * by the condition: quadratic in the NaN rows.)
 */
static inline bool nan_key(const weir_batch *in, uint32_t col, uint32_t r)
{
    if (in->cols[col].type.id != WEIR_TYPE_DOUBLE || weir_batch_is_null(in, col, r))
        return false;
    double d = WEIR_COL(in, col, double)[r];
    return d != d;
}

/*
 * A semi or anti join's row (Flink's StreamingSemiAntiJoinOperator). The
 * left side keeps, per stored row, how many right rows match it now
 * (`assoc`, counted with duplicates). A left row is emitted, with its own
 * kind, when it has a match (SEMI) or none (ANTI). A right row that gives
 * a left row its first match emits it (SEMI: with the right row's kind,
 * +I or +U) or retracts it (ANTI: -D); one that takes its last match away
 * retracts it (SEMI: the right row's kind, -U or -D) or emits it again
 * (ANTI: +I). A key with a NULL column matches nothing: a left row there
 * is emitted by ANTI only and kept nowhere, a right row is dropped.
 */
static int apply_semi_anti(join_op *j, weir_op_ctx *ctx, int s, const weir_batch *in, uint32_t r, bool null_key,
                           const void *key, size_t klen, uint64_t khash)
{
    const weir_join_config *c = &j->conf->cfg;
    bool anti = c->type == WEIR_JOIN_ANTI;
    weir_row_kind kind = (weir_row_kind)in->kind[r];
    bool accumulate = kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER;
    weir_ts ts = in->ts[r];
    int rc;
    if (null_key) {
        if (s == 1 || !anti)
            return 0;
        if ((rc = gather(j, ctx, s, in, r, true)))
            return rc;
        return emit_left(j, ctx, 0, 1, kind, ts);
    }
    if ((rc = weir_op_set_key_hashed(ctx, key, klen, khash)) || (rc = gather(j, ctx, s, in, r, false)))
        return rc;
    int64_t matched = 0;
    for (uint32_t i = 0; i < j->n_refs; i++)
        if (j->core.sel[i])
            matched += j->refs[i].count;
    if ((rc = weir__crow_encode(in, r, c->n_out[s], &j->row)))
        return rc;
    const void *v;
    size_t vlen;
    int64_t count = 0;
    rc = weir_map_get(j->core.st[s], NULL, 0, j->row.data, j->row.len, &v,
                      &vlen);
    if (rc == 0) {
        int64_t a, t0;
        if (value_read(v, vlen, &count, &a, &t0))
            return weir_op_fail(ctx, WEIR_ECORRUPT, "join state holds a value of %zu bytes", vlen);
    } else if (rc != WEIR_ENOTFOUND) {
        return rc;
    }
    count += accumulate ? 1 : -1;
    if ((rc = put_entry(j, s, j->row.data, j->row.len, count, s == 0 ? matched : 0, WEIR_TS_MIN)))
        return rc;
    if (s == 0)
        return (matched > 0) != anti ? emit_left(j, ctx, 0, 1, kind, ts) : 0;
    for (uint32_t i = 0; i < j->n_refs; i++) {
        if (!j->core.sel[i])
            continue;
        cand_ref *cr = &j->refs[i];
        if (accumulate && cr->assoc == 0)
            rc = emit_left(j, ctx, i, cr->count, anti ? WEIR_ROW_DELETE : kind, ts);
        else if (!accumulate && cr->assoc == 1)
            rc = emit_left(j, ctx, i, cr->count, anti ? WEIR_ROW_INSERT : kind, ts);
        int64_t na = cr->assoc + (accumulate ? 1 : -1);
        if (!rc)
            rc = put_entry(j, 0, j->scan.data + cr->off, cr->len, cr->count, na < 0 ? 0 : na, cr->ts);
        if (rc)
            return rc;
    }
    return 0;
}

/* Whether row r of side s is strictly worse than what the Top-1 after the join keeps for its key
 * (ops/top1_hint.h; the link allows only insert-only row-log sides): counted. Out of line: most
 * joins have no Top-1 to ask. */
static __attribute__((noinline)) bool top1_drops(join_op *j, int s, weir_row_kind kind, uint64_t khash,
                                                 const uint8_t *key, size_t klen, const weir_batch *in, uint32_t r)
{
    const weir__top1_link *l = j->conf->top1;
    if (s != l->side || kind != WEIR_ROW_INSERT ||
        !weir__top1_hint_worse(j->hint, l, khash, key, klen, in, r, &j->hint_sk))
        return false;
    weir_op_counter_add(j->n_skipped, 1);
    return true;
}

static int apply_row(join_op *j, weir_op_ctx *ctx, int s, const weir_batch *in, uint32_t r)
{
    const join_conf *jc = j->conf;
    const weir_join_config *c = &jc->cfg;
    int o = 1 - s;
    const weir_keyspec *ks = &c->keys[s];
    if (c->interval && WEIR_COL_I64(in, c->time_col[s])[r] < j->in_wm) {
        /* Behind its own side's watermark: late, joined with nothing (what
         * of the other side is still stored depends on how far the join's
         * watermark got, which is thread timing), kept nowhere. */
        weir_op_counter_add(j->core.n_late, 1);
        return 0;
    }
    bool null_key = false;
    for (uint32_t k = 0; k < ks->n; k++)
        null_key |= !c->null_safe[k] ? weir_batch_is_null(in, ks->cols[k], r) : nan_key(in, ks->cols[k], r);
    const row_key *rk = &j->rkeys[r];
    size_t klen = rk->len;
    uint64_t khash = rk->hash;
    int rc = weir__join_core_key_fits(&j->core, ctx, klen);
    if (rc)
        return rc;
    const uint8_t *key = j->keys.data + rk->off;
    if (is_semi_anti(c->type))
        return apply_semi_anti(j, ctx, s, in, r, null_key, key, klen, khash);
    weir_row_kind kind = (weir_row_kind)in->kind[r];
    bool accumulate = kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER;
    if (null_key) {
        /* It can never match, so it needs no state: an outer side pads it (and retracts the padding). */
        if (!jc->outer[s])
            return 0;
        if ((rc = gather(j, ctx, s, in, r, true)))
            return rc;
        return emit_padded(j, ctx, s, 0, 1, accumulate ? WEIR_ROW_INSERT : WEIR_ROW_DELETE, in->ts[r]);
    }
    rc = weir_op_set_key_hashed(ctx, key, klen, khash);
    if (rc || (rc = gather(j, ctx, s, in, r, false)))
        return rc;
    bool inner = c->type == WEIR_JOIN_INNER;
    weir_ts ts = in->ts[r];
    /* (Batched: not known yet, and needed only for an outer side's associations;
     * an inner join's row stores what it stores whatever its matches.) */
    int64_t matched = 0;
    for (uint32_t i = 0; i < j->n_refs && !j->batched; i++)
        if (j->core.sel[i])
            matched += j->refs[i].count;
    /* this row's own entry: its time first (whether it is stored at all) */
    int64_t t = WEIR_TS_MIN;
    bool store = true, bounded = false;
    weir_ts expiry = WEIR_TS_MAX;
    if (c->interval) {
        t = WEIR_COL_I64(in, c->time_col[s])[r];
    } else if (c->bounded[s] && accumulate && !weir_batch_is_null(in, c->bound_col[s], r)) {
        t = WEIR_COL_I64(in, c->bound_col[s])[r];
        expiry = row_expiry(c, s, t);
        bounded = true;
        if (expiry <= weir_op_watermark(ctx)) {
            store = false; /* no row still to come can match it: joined below, kept nowhere */
            weir_op_counter_add(j->n_expired, 1);
        }
    }
    /* Associations are recomputed: an entry's matches are those just found. */
    own_entry own = {.j = j, .delta = accumulate ? 1 : -1, .assoc = jc->outer[s] ? matched : 0, .ts = t};
    if (jc->log[s]) {
        /* The row log: appended, nothing looked up (no count; the time on a bounded side). */
        if (kind != WEIR_ROW_INSERT)
            return weir_op_fail(ctx, WEIR_EINVAL, "join: a %s row reached the insert-only %s input",
                                weir_row_kind_name(kind), s == 0 ? "left" : "right");
        if (store && (rc = log_encode(j, s, t, in, r)))
            return rc;
        own.count = 1; /* an element of its own: listed in its expiry bucket */
    } else if (store) {
        if ((rc = weir__crow_encode(in, r, c->n_out[s], &j->row)))
            return rc;
        rc = weir_map_rewrite(j->core.st[s], NULL, 0, j->row.data, j->row.len, own_rewrite, &own);
        if (own.bad_len)
            return weir_op_fail(ctx, WEIR_ECORRUPT, "join state holds a value of %zu bytes", own.bad_len - 1);
        if (rc)
            return rc;
    }
    /* On time (t >= W), so an interval join's expiry > W: stored until then. */
    if (c->interval && accumulate && own.count == 1 &&
        (rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, row_expiry(c, s, t), s)))
        return rc;
    if (bounded && store && own.count == 1 &&
        (rc = expq_add(j, s, round_up(expiry, c->bound_step_ms), key, (uint32_t)klen, khash)))
        return rc;
    if (j->batched)
        return 0;
    if (matched == 0) {
        /* An interval join pads a row only when it expires unmatched (append-only output). */
        if (jc->outer[s] && !c->interval)
            return emit_padded(j, ctx, s, 0, 1, accumulate ? WEIR_ROW_INSERT : WEIR_ROW_DELETE, ts);
        return 0;
    }
    weir_row_kind pair_kind = inner ? kind : accumulate ? WEIR_ROW_INSERT : WEIR_ROW_DELETE;
    for (uint32_t i = 0; i < j->n_refs; i++) {
        if (!j->core.sel[i])
            continue;
        cand_ref *cr = &j->refs[i];
        /* An inner interval join's rows carry the left time (its time attribute); an outer one's the later time. */
        if (c->interval)
            ts = inner ? (s == 0 ? t : cr->ts) : (t > cr->ts ? t : cr->ts);
        if (jc->outer[o]) {
            if (accumulate && cr->assoc == 0 && !c->interval &&
                (rc = emit_padded(j, ctx, o, i, cr->count, WEIR_ROW_DELETE, ts)))
                return rc;
            if ((rc = emit_pair(j, ctx, i, cr->count, pair_kind, ts)))
                return rc;
            if (!accumulate && cr->assoc == 1 && (rc = emit_padded(j, ctx, o, i, cr->count, WEIR_ROW_INSERT, ts)))
                return rc;
            int64_t na = cr->assoc + (accumulate ? 1 : -1);
            if (na < 0)
                na = 0;
            rc = put_entry(j, o, j->scan.data + cr->off, cr->len, cr->count, na, cr->ts);
        } else {
            rc = emit_pair(j, ctx, i, cr->count, pair_kind, ts);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* An outer interval join's row that expired without a match: emitted padded, at its own time. */
static int emit_expired(join_op *j, weir_op_ctx *ctx, int s, const cand_ref *cr)
{
    const weir_join_config *c = &j->conf->cfg;
    uint32_t off = s == 0 ? 0 : c->n_out[0], ooff = s == 0 ? c->n_out[0] : 0;
    for (int64_t t = 0; t < cr->count; t++) {
        uint32_t r;
        int rc =
            weir__join_core_out_row_to_fill(&j->core, ctx, WEIR_ROW_INSERT, cr->ts, &r);
        if (!rc)
            rc = weir__crow_decode(j->scan.data + cr->off, cr->len, j->core.out,
                                  r, off, c->n_out[s]);
        if (rc)
            return rc;
        for (uint32_t k = 0; k < c->n_out[1 - s]; k++)
            weir_batch_set_null(j->core.out, ooff + k, r);
    }
    return 0;
}

/* A bounded side's row log (scanned into j->refs) without the rows whose
 * expiry is <= upto: rewritten, in arrival order, when any goes. */
static int expire_logged(join_op *j, int s, weir_ts upto)
{
    const weir_join_config *c = &j->conf->cfg;
    uint64_t gone = 0;
    for (uint32_t i = 0; i < j->n_refs; i++)
        gone += row_expiry(c, s, j->refs[i].ts) <= upto;
    if (!gone)
        return 0;
    weir_op_counter_add(j->n_expired, gone);
    int rc = weir_state_clear(j->core.st[s], NULL, 0);
    for (uint32_t i = 0; !rc && i < j->n_refs; i++) {
        cand_ref *cr = &j->refs[i];
        if (row_expiry(c, s, cr->ts) > upto)
            rc = log_put(j->core.st[s], j->form[s].time_first, cr->ts, j->scan.data + cr->off, cr->len, &j->val);
    }
    return rc;
}

/* Drops the rows of side s of the current key whose expiry is <= upto (an outer interval join pads them). */
static int expire_rows(join_op *j, weir_op_ctx *ctx, int s, weir_ts upto)
{
    const weir_join_config *c = &j->conf->cfg;
    int rc = scan_side(j, s);
    if (j->conf->log[s])
        return rc ? rc : expire_logged(j, s, upto);
    for (uint32_t i = 0; !rc && i < j->n_refs; i++) {
        cand_ref *cr = &j->refs[i];
        if (row_expiry(c, s, cr->ts) > upto)
            continue;
        rc = weir_map_remove(j->core.st[s], NULL, 0, j->scan.data + cr->off,
                             cr->len);
        weir_op_counter_add(j->n_expired, (uint64_t)cr->count);
        if (!rc && j->conf->outer[s] && cr->assoc == 0)
            rc = emit_expired(j, ctx, s, cr);
    }
    return rc;
}

/*
 * Interval joins: the rows of side t->ns whose last possible match the
 * watermark has passed. (Bounded joins register no timers; a checkpoint
 * taken before they had buckets may still hold some.)
 */
static int join_timer(void *op, weir_op_ctx *ctx, const weir_timer *tm)
{
    join_op *j = op;
    const weir_join_config *c = &j->conf->cfg;
    /* The end of the input: nothing comes any more, and a bounded join has no padding to emit. */
    if (!c->interval && weir_op_watermark(ctx) == WEIR_TS_MAX)
        return 0;
    int rc = expire_rows(j, ctx, tm->ns == 1, tm->ts);
    return rc ? rc : weir__join_core_flush(&j->core, ctx);
}

/* A restore's stored rows of a bounded side: each key goes into the buckets of its rows. */
typedef struct rebuild_ctx {
    join_op *j;
    int s;
} rebuild_ctx;

static int rebuild_key(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    (void)ns;
    (void)ns_len;
    rebuild_ctx *rb = ud;
    join_op *j = rb->j;
    const weir_join_config *c = &j->conf->cfg;
    int rc = scan_side(j, rb->s);
    uint64_t h = weir_key_hash(key, klen);
    for (uint32_t i = 0; !rc && i < j->n_refs; i++)
        if (j->refs[i].ts != WEIR_TS_MIN)
            rc = expq_add(j, rb->s, round_up(row_expiry(c, rb->s, j->refs[i].ts), c->bound_step_ms), key,
                          (uint32_t)klen, h);
    return rc;
}

/* Once, before the first row or watermark: the buckets of what a restore brought. */
static int expq_build(join_op *j)
{
    const weir_join_config *c = &j->conf->cfg;
    j->expq_built = true;
    for (int s = 0; s < 2; s++) {
        if (!c->bounded[s])
            continue;
        rebuild_ctx rb = {j, s};
        int rc = weir_state_keys(j->core.st[s], rebuild_key, &rb);
        if (rc)
            return rc;
    }
    return 0;
}

/* Bounded joins: drops the rows of every bucket the watermark reached, in bucket order. */
static int expq_drain(join_op *j, weir_op_ctx *ctx, weir_ts wm)
{
    for (int s = 0; s < 2; s++) {
        exp_queue *q = &j->expq[s];
        uint32_t done = 0;
        int rc = 0;
        for (; !rc && done < q->n && q->b[done].ts <= wm; done++) {
            exp_bucket *b = &q->b[done];
            /* The end of the input: nothing comes any more, no row needs dropping. */
            listing *v = NULL;
            size_t n = 0;
            if (wm != WEIR_TS_MAX)
                rc = drain_keys(b, &v, &n);
            for (size_t i = 0; !rc && i < n; i++) {
                uint32_t klen;
                const uint8_t *key = listing_key(b, v[i].off, &klen);
                if (!(rc = weir_op_set_key_hashed(ctx, key, klen, v[i].hash)))
                    rc = expire_rows(j, ctx, s, b->ts);
            }
            weir_free(v);
            bucket_release(q, b);
        }
        if (done) {
            memmove(q->b, q->b + done, (q->n - done) * sizeof *q->b);
            q->n -= done;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * An inner interval join's output keeps both times as time attributes
 * (lo <= left - right <= hi). A pair is emitted when its later row
 * arrives, at time >= W: when that is the right row, left >= W + lo; when
 * it is the left row, right >= W - hi. So the watermark is held at
 * W - max(-lo, hi, 0) - 1 - Flink's delay max(-lo, hi) - and no pair of
 * on-time rows is late downstream, whichever time a window takes.
 */
static int join_watermark(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    join_op *j = op;
    const weir_join_config *c = &j->conf->cfg;
    if (c->bounded[0] || c->bounded[1]) {
        int rc = j->expq_built ? 0 : expq_build(j);
        return rc ? rc : expq_drain(j, ctx, wm);
    }
    if (!c->interval || c->type != WEIR_JOIN_INNER)
        return 0;
    int64_t lag = c->lo_ms < 0 ? -c->lo_ms : 0;
    if (c->hi_ms > lag)
        lag = c->hi_ms;
    lag += 1;
    weir_op_hold_watermark(ctx, wm == WEIR_TS_MAX ? WEIR_TS_MAX : wm < WEIR_TS_MIN + lag ? WEIR_TS_MIN : wm - lag);
    return 0;
}


/* The join key of every row of the batch, encoded once into j->keys and
 * hashed, into j->rkeys: the prefetches ahead of the row at hand take the
 * hash, the row its key. */
static int batch_keys(join_op *j, int input, const weir_batch *in)
{
    if (in->n_rows > j->rkeys_cap) {
        row_key *k = weir_realloc(j->rkeys, (size_t)in->n_rows * sizeof *k);
        if (!k)
            return WEIR_ENOMEM;
        j->rkeys = k;
        uint32_t *l = weir_realloc(j->live, (size_t)in->n_rows * sizeof *l);
        if (!l)
            return WEIR_ENOMEM;
        j->live = l;
        j->rkeys_cap = in->n_rows;
    }
    weir_buf *b = &j->keys;
    weir_buf_clear(b);
    for (uint32_t r = 0; r < in->n_rows; r++) {
        const size_t cap = sizeof j->core.key;
        if (b->cap - b->len < cap && weir_buf_reserve(b, cap))
            return WEIR_ENOMEM;
        uint8_t *at = b->data + b->len;
        /* A key that does not fit is apply_row's to report, unless the row
         * is late and dropped before its key is needed. */
        size_t klen = weir_key_encode(in, &j->conf->cfg.keys[input], r, at, cap);
        bool fits = klen <= cap;
        uint32_t len = klen > UINT32_MAX ? UINT32_MAX : (uint32_t)klen;
        j->rkeys[r] = (row_key){fits ? weir_key_hash(at, klen) : 0, b->len, len};
        if (fits)
            b->len += klen;
    }
    return 0;
}

static int join_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    join_op *j = op;
    if (input < 0 || input > 1)
        return weir_op_fail(ctx, WEIR_EINVAL, "join input %d does not exist", input);
    /* No watermark arrives within a batch: one look per batch. */
    if (j->conf->cfg.interval)
        j->in_wm = weir__held_wm_input(&j->held, ctx, input);
    if (!j->expq_built && (j->conf->cfg.bounded[0] || j->conf->cfg.bounded[1])) {
        int rc = expq_build(j);
        if (rc)
            return rc;
    }
    int rc = batch_keys(j, input, in);
    if (rc)
        return rc;
    weir_state *const *st = j->core.st;
    const row_key *rk = j->rkeys;
    uint32_t n = in->n_rows;
    /* The rows whose every pair, now or with a row of the other side still to come, has their
     * sort key and the Top-1 after it (the join's only consumer) drops: neither joined nor
     * stored, their state not even prefetched (ops/top1_hint.h; the fingerprint's "top1 skip"
     * says the state lacks such rows). Decided on the hint as the batch starts: the Top-1 sees
     * this batch's pairs only as they are sent, so a row kept here that a later hint would
     * drop is joined, as without the skip. */
    const uint32_t *rows = NULL; /* NULL: every row */
    if (j->hint && input == j->conf->top1->side) {
        uint32_t m = 0;
        for (uint32_t r = 0; r < n; r++)
            if (!top1_drops(j, input, (weir_row_kind)in->kind[r], rk[r].hash, j->keys.data + rk[r].off, rk[r].len,
                            in, r))
                j->live[m++] = r;
        rows = j->live;
        n = m;
    }
#define ROW(i) (rows ? rows[i] : (i))
    for (uint32_t i = 0; i < n && i < PF_SLOT; i++)
        weir__states_prefetch(st, 2, &rk[ROW(i)].hash, NULL);
    for (uint32_t i = 0; i < n; i++) {
        weir__states_prefetch(st, 2, i + PF_SLOT < n ? &rk[ROW(i + PF_SLOT)].hash : NULL,
                              i + PF_REC < n ? &rk[ROW(i + PF_REC)].hash : NULL);
        if ((rc = apply_row(j, ctx, input, in, ROW(i))))
            return rc;
    }
#undef ROW
    return j->batched ? settle(j, ctx) : weir__join_core_flush(&j->core, ctx);
}

/* An interval join's operator state: each side's watermark (ops/held_wm.h), so that a row
 * behind it after a restore is late as it would have been without the restore (what of the
 * other side it would have met may be gone); other joins keep none. */
static int join_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id, weir_buf *out)
{
    join_op *j = op;
    (void)ckpt_id;
    return j->conf->cfg.interval ? weir__held_wm_snapshot(&j->held, ctx, out) : 0;
}

static int join_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    return weir__held_wm_restore(&((join_op *)op)->held, ctx, in, "interval join");
}

static int join_restore_union(void *op, weir_op_ctx *ctx, weir_cursor *states, uint32_t n)
{
    return weir__held_wm_restore_union(&((join_op *)op)->held, ctx, states, n, "interval join");
}

static const weir_operator_class join_class = {
    .name = "Join",
    .open = join_open,
    .process = join_process,
    .timer = join_timer,
    .watermark = join_watermark,
    .snapshot = join_snapshot,
    .restore = join_restore,
    .restore_union = join_restore_union,
    .close = join_close,
};

static void conf_free(void *arg)
{
    join_conf *c = arg;
    if (c)
        weir__top1_link_unref(c->top1);
    weir_free(c);
}

int weir_join_spec(const weir_join_config *cfg, weir_operator_spec *out)
{
    bool semi = cfg && is_semi_anti(cfg->type);
    if (!cfg || !cfg->out_schema || cfg->keys[0].n == 0 || cfg->keys[0].n != cfg->keys[1].n ||
        (semi ? !cfg->cand_schema || cfg->n_out[0] != cfg->out_schema->n_fields ||
                    cfg->n_out[0] + cfg->n_out[1] != cfg->cand_schema->n_fields || cfg->interval ||
                    cfg->bounded[0] || cfg->bounded[1]
              : cfg->n_out[0] + cfg->n_out[1] != cfg->out_schema->n_fields) ||
        (cfg->interval && cfg->lo_ms > cfg->hi_ms) ||
        ((cfg->bounded[0] || cfg->bounded[1]) && (cfg->interval || cfg->type != WEIR_JOIN_INNER)))
        return WEIR_EINVAL;
    join_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    c->cfg = *cfg;
    /* A semi or anti join's left rows count their matches, as an outer side's do. */
    c->outer[0] = cfg->type == WEIR_JOIN_LEFT || cfg->type == WEIR_JOIN_FULL || semi;
    c->outer[1] = cfg->type == WEIR_JOIN_RIGHT || cfg->type == WEIR_JOIN_FULL;
    for (int s = 0; s < 2; s++)
        c->log[s] = weir_join_row_log(cfg, s);
    *out = (weir_operator_spec){cfg->interval ? "IntervalJoin" : "Join", &join_class, join_create, c, conf_free};
    return 0;
}

const weir_join_config *weir__join_config_of(const weir_operator_spec *spec)
{
    return spec && spec->create == join_create ? &((const join_conf *)spec->arg)->cfg : NULL;
}

int weir__join_set_top1(weir_operator_spec *spec, weir__top1_link *l)
{
    const weir_join_config *c = weir__join_config_of(spec);
    if (!c || !l || l->side < 0 || l->side > 1 || !weir__join_top1_fits(c, l->side))
        return WEIR_EINVAL;
    join_conf *jc = spec->arg;
    weir__top1_link_unref(jc->top1);
    jc->top1 = weir__top1_link_ref(l);
    return 0;
}

bool weir__join_top1_fits(const weir_join_config *c, int s)
{
    return c->type == WEIR_JOIN_INNER && weir_join_row_log(c, s) && !c->bounded[s] && c->insert_only[0] &&
           c->insert_only[1] && !c->state_ttl_ms && !(c->right_ttl && c->right_state_ttl_ms);
}
