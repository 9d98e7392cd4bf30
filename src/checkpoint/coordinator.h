/*
 * checkpoint/coordinator.h - the checkpoint coordinator of one job
 * (internal to src/checkpoint/; the public face is weir/checkpoint.h).
 *
 * Threads and what they own:
 *   coordinator thread  triggers checkpoints (interval, min pause, max
 *                       concurrent, the final one), expires them (timeout),
 *                       picks up savepoint requests;
 *   writer thread       every storage operation: state files, _metadata,
 *                       removal of failed and pruned checkpoints; completes
 *                       checkpoints and notifies the job;
 *   subtask threads     call the ack / decline / final_ready hooks, which
 *                       copy the snapshot bytes and queue them.
 * One mutex guards the coordinator's state; no storage I/O and no call into
 * the runtime happens while it is held (a trigger may ack synchronously).
 */
#ifndef WEIR_CHECKPOINT_COORDINATOR_H
#define WEIR_CHECKPOINT_COORDINATOR_H

#include "checkpoint/catalog.h"
#include "checkpoint/storage.h"
#include "runtime/checkpoint.h"
#include "weir/checkpoint.h"

typedef struct weir__coord weir__coord;

/* What recovery found, handed to the coordinator (which then owns set). */
typedef struct weir__recovered {
    weir__snapshot_set *set; /* NULL: fresh start */
    char name[700];          /* "dir/chk-12" as shown to users */
    uint64_t id;
    bool is_final;
    /* an operator of the checkpoint that is not in the job, left out as
     * the checkpoint holds no state of it ("": none) */
    char left_out[256];
} weir__recovered;

/*
 * Finds and loads the checkpoint to restore as cfg says, checking that it
 * fits job (operators by id and name, max parallelism). Logs what it does
 * through log. *next_id gets an id above every checkpoint and savepoint in
 * the storages involved. rec->set is NULL when there is nothing to restore.
 */
int weir__recovery_find(weir_job *job, const weir_checkpoint_config *cfg,
                        weir__storage *storage, weir__recovered *rec,
                        uint64_t *next_id, weir_error *err);

/*
 * Restore compatibility (compat.c): matches the stateful operators meta
 * lists (version 4) to the job's by stable id and fingerprint and
 * renumbers set's state to the job's nodes. A mismatch fails with
 * WEIR_EINVAL naming each operator and what changed, unless
 * cfg->allow_non_restored_state, which drops that operator's state (logged).
 * left_out (left_cap bytes) gets the id of the first operator not in the
 * job that set holds no state of, which is left out ("": none).
 */
int weir__ckpt_compat_apply(weir_job *job, const weir_checkpoint_config *cfg,
                            const char *shown, const weir__ckpt_meta *meta,
                            weir__snapshot_set *set, char *left_out,
                            size_t left_cap, weir_error *err);

/*
 * A checkpoint without fingerprints (before metadata version 4) keeps every
 * row in the canonical encoding: marks each operator of the job that keeps
 * compact rows to re-encode them after the restore.
 */
int weir__ckpt_compat_canonical_rows(weir_job *job);

/* Writes one line through cfg's log function (or stderr). */
void weir__ckpt_log(const weir_checkpoint_config *cfg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* UTC "YYYY-MM-DD HH:MM:SS" of epoch ms. */
void weir__ckpt_format_time(int64_t ms, char *buf, size_t cap);

#endif
