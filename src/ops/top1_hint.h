/*
 * ops/top1_hint.h - a regular inner join that skips the rows its Top-1
 * would drop at once.
 *
 * A continuous Top-1 (ROW_NUMBER, ranks [1, 1], append-only input, no
 * TTL) keeps one row per partition, and over an append-only input that
 * row only gets better: a row whose sort key compares after the kept
 * row's can never enter, and a row that does not enter changes nothing
 * and emits nothing (every variant of ops/rank.c: with or without the
 * rank number, deduplication keeping the first or the last row - there an
 * equal row replaces the kept one, so only a strictly worse row is
 * dropped for certain). When the Top-1 partitions by exactly the join key
 * of a join chained before it (same subtask, only Calcs of plain column
 * references between) and orders by columns of one join input only, a
 * row of that input strictly worse than what the Top-1 keeps for its key
 * produces only output rows that the Top-1 drops, and so does every pair
 * it would make with a row of the other side still to come (the pair has
 * its sort key; the kept row only gets better): the join neither probes
 * the other side nor builds a pair nor stores it (Nexmark q9: the bids of
 * an auction that a higher bid already won). Its state then lacks rows
 * that only this Top-1 could do without: its fingerprint names the link
 * ("top1 skip", runtime/checkpoint.h), and a checkpoint restores only into
 * a join linked the same way.
 *
 * The link (weir__top1_link, made by the planner, shared by the join's and
 * the Top-1's configuration) says which join input and which of its
 * columns make the Top-1's sort key. The hint (weir__top1_hint) is per
 * subtask (weir__op_chain_shared): partition key -> the sort key of the
 * row the Top-1 kept, written by the Top-1 for every partition it read or
 * changed in a batch, read by the join. It is in no checkpoint and may
 * forget any entry (a direct-mapped table: a key whose slot another key
 * took is simply not there): a missing entry only means fewer skips. An
 * entry is never better than what the Top-1 keeps (the kept row only gets
 * better), so skipping on it is exact. A join and a Top-1 in different
 * subtasks (an exchange between them) never share a hint: the join finds
 * no entry and skips nothing.
 */
#ifndef WEIR_OPS_TOP1_HINT_H
#define WEIR_OPS_TOP1_HINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/batch.h"
#include "weir/key.h"
#include "weir/operator.h"

typedef struct weir__top1_link {
    uint32_t refs; /* the configurations holding it (planning and job teardown: one thread) */
    int side;      /* the join input whose rows may be skipped */
    uint32_t n_order;
    /* the Top-1's ORDER BY as columns of that input */
    uint32_t cols[WEIR_KEY_MAX_COLS];
    bool desc[WEIR_KEY_MAX_COLS];
    bool nulls_last[WEIR_KEY_MAX_COLS];
} weir__top1_link;

/* A new link (one reference), or NULL without memory. */
weir__top1_link *weir__top1_link_new(void);
weir__top1_link *weir__top1_link_ref(weir__top1_link *l);
void weir__top1_link_unref(weir__top1_link *l);

typedef struct weir__top1_hint weir__top1_hint;

/* The hint of link l in ctx's subtask, shared by every operator of the chain that asks
 * (created by the first); NULL without memory or room. Lives as long as the subtask. */
weir__top1_hint *weir__top1_hint_of(weir_op_ctx *ctx, const weir__top1_link *l);
/* Records sk as the sort key kept for the partition key (hash: weir_key_hash of it).
 * Keys or sort keys too long for an entry are not recorded. */
void weir__top1_hint_put(weir__top1_hint *h, uint64_t hash, const uint8_t *key, size_t klen,
                         const uint8_t *sk, size_t sklen);
/*
 * Whether row r of in (the link's side) sorts strictly after the sort key
 * recorded for its partition key: the Top-1 would drop it. sk is scratch.
 * False where no entry is recorded.
 */
bool weir__top1_hint_worse(const weir__top1_hint *h, const weir__top1_link *l, uint64_t hash,
                           const uint8_t *key, size_t klen, const weir_batch *in, uint32_t r, weir_buf *sk);

/* The join's side of it (ops/join.c). */
struct weir_join_config;
/* The configuration of a join's spec (weir_join_spec), else NULL. */
const struct weir_join_config *weir__join_config_of(const weir_operator_spec *spec);
/* Whether rows of side s of a join of c may be skipped at all: an inner join of insert-only inputs
 * without TTL whose side s keeps a row log and is not bounded (a skipped row is only appended). */
bool weir__join_top1_fits(const struct weir_join_config *c, int s);
/* Links a join's spec to a Top-1 after it (a reference taken): WEIR_EINVAL where it does not fit. */
int weir__join_set_top1(weir_operator_spec *spec, weir__top1_link *l);

#endif
