/*
 * cluster/cluster.h - one job run by several weir processes over Kafka
 * (docs/cluster.md).
 *
 * The processes that run the same job with the same weir.cluster.group-id
 * (pipeline.name by default) each run the whole graph on a share of the
 * input: a source's splits spread over the processes as if their subtasks
 * were one job's (process i of N runs subtasks i*p .. i*p+p-1 of N*p), and
 * every keyed exchange becomes a repartition topic with one partition per
 * key-group range:
 *
 *   upstream chain -> repartition writer  ==topic==>  repartition reader
 *                                                       -> keyed exchange
 *                                                       -> keyed operator
 *
 * The writer (one producer per writer subtask of every process) sends each
 * row to the partition of its key group's range, and watermark and
 * end-of-input markers to every partition. A reader (one subtask in each
 * process) reads the partitions its process owns (partition r belongs to
 * process (r mod N*p) / p, p the keyed operator's parallelism in a
 * process) and reports as its watermark the minimum over the producers of the job, so a
 * downstream watermark never passes a producer that is behind. Records of
 * another epoch (an earlier run on the same topics) are dropped.
 *
 * Membership: process indexes are given (weir.cluster.process-index), or,
 * with checkpoints, left out: then the control topic numbers the processes
 * and evicts the silent ones (control.h). With checkpoints the number of
 * processes is the control topic's, and a process that asks for another
 * (weir.cluster.processes) rescales the job (control.h, rescale.c).
 */
#ifndef WEIR_CLUSTER_CLUSTER_H
#define WEIR_CLUSTER_CLUSTER_H

#include "weir/buf.h"
#include "weir/common.h"
#include "weir/job.h"

/* A configuration lookup: the value of key, or NULL when not set. */
typedef const char *(*weir__cluster_cfg_fn)(void *ud, const char *key);

/*
 * With weir.cluster.bootstrap-servers set: checks the cluster options and
 * the repartition topics, and turns every keyed exchange of job into a
 * repartition topic; *enabled says whether it did. Without it: does
 * nothing (0, *enabled false). Call before the job starts. On failure err
 * says what and which option. view (NULL: not wanted) receives what GET
 * /cluster shows (docs/rest.md): the job's membership and what each
 * process owns: its source subtasks, and per repartition topic its
 * partitions and their key groups. With checkpoints, the
 * number of processes, this process's epoch and the repartition partitions
 * come from the job's control topic (control.h); a process the job no
 * longer counts (it went down to fewer processes) fails with *left set.
 */
typedef struct weir__cluster_view weir__cluster_view;
int weir__cluster_setup(weir_job *job, weir__cluster_cfg_fn cfg, void *ud,
                        bool *enabled, bool *left, weir__cluster_view **view,
                        weir_error *err);
/* GET /cluster's JSON as of now (NUL-terminated): the view of setup, with
 * every member's liveness from the control topic. The job must live. */
int weir__cluster_view_json(void *view, weir_buf *out);
void weir__cluster_view_free(weir__cluster_view *v);
/* This process's index, the processes and the epoch of its run. */
void weir__cluster_view_self(const weir__cluster_view *v, uint32_t *index,
                             uint32_t *processes, uint32_t *epoch);

/* The configuration keys the cluster reads (NULL-terminated). */
extern const char *const weir__cluster_keys[];

#endif
