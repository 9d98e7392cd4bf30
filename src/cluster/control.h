/*
 * cluster/control.h - checkpoints across the processes of one job and the
 * restart of all of them when one comes back (docs/cluster.md).
 *
 * The job's control topic (<job>-control, one partition) is its log of
 * decisions (control.c has the record format). Process 0 leads: it
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
 */
#ifndef WEIR_CLUSTER_CONTROL_H
#define WEIR_CLUSTER_CONTROL_H

#include "cluster/exchange.h"
#include "runtime/checkpoint.h"

typedef struct weir__control weir__control;

/*
 * Reads the control topic, joins the job (or restarts it), and says at
 * which epoch this process runs (*epoch) and what it restores. ckpt_dir:
 * state.checkpoints.dir.
 */
int weir__control_open(const weir__cluster_conf *conf, const char *topic,
                       const char *ckpt_dir, weir__control **out,
                       uint32_t *epoch, weir_error *err);
/* The gate for weir__job_set_ckpt_gate (the job then owns the control). */
const weir__ckpt_gate *weir__control_gate(const weir__control *c);
/* The checkpoint this process restores (0: a fresh start). */
uint64_t weir__control_restored(const weir__control *c);
/* Only when it was not handed to a job. */
void weir__control_free(weir__control *c);

#endif
