/*
 * cluster/control.h - checkpoints across the processes of one job and the
 * restart of all of them when one comes back (docs/cluster.md).
 *
 * The job's control topic (<job>-control, one partition) is its log of
 * decisions (control.c has the record format); a start reads it from the
 * leader's last summary of it. Process 0 of the current
 * epoch leads: it
 * triggers checkpoint n (a TRIGGER record); every process takes its part
 * (its own coordinator, its parts in <state.checkpoints.dir>/process-i/)
 * and, once its part is durable, writes an ACK; when every process has
 * acked n, the leader writes COMPLETE n, and every process, reading it,
 * tells its job (sinks commit). A process that starts and finds that it
 * had joined the current epoch before has died: it writes RESTART at the
 * next epoch; the others, reading that, fail their job (restart-strategy
 * runs it again, or the supervisor starts the process again), and every
 * process then restores its part of the last checkpoint completed before
 * that RESTART in the log and goes on at the new epoch.
 *
 * A process started without an index gets its slot from the log (the
 * lowest free one, or one more process), its processes write heartbeats,
 * and the lowest slot that is not silent evicts the members silent for the
 * session timeout: the job goes on without them at the next epoch, the
 * others numbered again from 0 (so process 0 leads again).
 */
#ifndef WEIR_CLUSTER_CONTROL_H
#define WEIR_CLUSTER_CONTROL_H

#include "cluster/exchange.h"
#include "runtime/checkpoint.h"

typedef struct weir__control weir__control;

/*
 * Reads the control topic, joins the job (or restarts or rescales it), and
 * says in *conf how this process runs: its epoch, the processes of the
 * epoch and the repartition partitions, all from the log (conf->processes
 * in: the count this process asks for; conf->partitions in: 0 when not
 * given). A process the job no longer counts (it went down to fewer
 * processes) gets *left and an error that says so. ckpt_dir:
 * state.checkpoints.dir. sp_path (NULL: none): execution.savepoint.path,
 * a savepoint of the whole job, restored when the control topic has no
 * complete checkpoint of the job (every process's part; conf->from_savepoint
 * is then set).
 */
int weir__control_open(weir__cluster_conf *conf, const char *topic,
                       const char *ckpt_dir, const char *sp_path,
                       weir__control **out, bool *left, weir_error *err);
/* The gate for weir__job_set_ckpt_gate (the job then owns the control). */
const weir__ckpt_gate *weir__control_gate(const weir__control *c);
/* The checkpoint this process restores (0: a fresh start). */
uint64_t weir__control_restored(const weir__control *c);
/* Only when it was not handed to a job. */
void weir__control_free(weir__control *c);

/* Slot i of the current epoch as this process last read the log (GET
 * /cluster): its member id (0: none yet), pid, host, how long ago a record
 * of it was read (-1: never, or the job is not running) and whether it
 * joined the epoch. false: no such slot. */
typedef struct weir__member_info {
    uint64_t id;
    uint32_t pid;
    char host[64];
    int64_t age_ms;
    bool joined;
} weir__member_info;
bool weir__control_member(weir__control *c, uint32_t i, weir__member_info *out);

/*
 * Restoring a checkpoint taken by old_processes processes over processes
 * processes (cluster/rescale.c). This process (index) reads the key groups
 * it owns now from the part of the process that owned them then (a key
 * group's owner: partition r = weir_key_group_owner(kg, max parallelism,
 * partitions), process (r mod (processes * p)) / p, p
 * the keyed operator's parallelism in one process), the operator state of
 * subtask g of the job (g = process index * p + subtask) from the part of
 * process g / p, and every source split from whichever part holds it.
 */
typedef struct weir__cluster_layout {
    uint32_t old_processes, processes, index, partitions;
} weir__cluster_layout;
typedef struct weir__cluster_restore weir__cluster_restore;
/* parts[j]: process j's part (ud NULL: not read; only when the count did
 * not change, and then only this process's own is read, unless the
 * parallelism in each process changed). */
int weir__cluster_restore_create(weir_job *job, const weir__cluster_layout *l,
                                 const weir__restore_source *parts,
                                 weir__cluster_restore **out,
                                 weir__restore_source *rs, weir_error *err);
void weir__cluster_restore_free(weir__cluster_restore *r);
/* Whether the parallelism in each process of an operator with state in own
 * (this process's part of the checkpoint) is not the job's now: its splits
 * and state then move between processes (says which, on stderr). */
bool weir__cluster_parallelism_changed(const weir_job *job,
                                       const weir__restore_source *own);

#endif
