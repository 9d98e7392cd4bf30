/*
 * runtime/inspect.h - a running job seen from another thread
 * (internal-but-shared: the HTTP endpoint, src/rest/, reads the job
 * through these only).
 *
 * The graph (nodes, edges, tasks) is fixed once the job has started and
 * stays until weir_job_destroy: those calls read it as it is. The live
 * figures (counters, watermarks, channel and split states) are written by
 * the task threads with relaxed atomic stores and read here with relaxed
 * loads: a reader never takes a lock a task thread takes per record, and
 * each figure is exact by itself, though figures read one after the other
 * may come from slightly different moments. Every call is safe from any
 * thread while the job lives, before, during and after its run.
 */
#ifndef WEIR_RUNTIME_INSPECT_H
#define WEIR_RUNTIME_INSPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "weir/job.h"

typedef struct weir__insp_node {
    int id;
    const char *name; /* valid while the job lives */
    bool is_source;
    bool is_sink; /* an operator without output */
    uint32_t parallelism;
    int task;
    uint32_t chain_pos;
    int64_t idle_timeout_ms; /* sources: effective split idle timeout, 0 never */
    int64_t wm_delay_ms;     /* sources: bounded out-of-orderness */
    bool has_watermark;      /* sources: a watermark strategy is declared */
    char table[128];         /* the SQL table it reads or writes, "" if none */
} weir__insp_node;

typedef struct weir__insp_edge {
    int id;
    int from, to;     /* node ids */
    uint32_t input;   /* input index at `to` */
    int side_tag;     /* 0: main output */
    const char *part; /* "FORWARD", "HASH", "REBALANCE", "BROADCAST", "GLOBAL" */
    bool chained;
} weir__insp_edge;

typedef struct weir__insp_task {
    int id;
    const int *nodes; /* the chain, head first; valid while the job lives */
    uint32_t n_nodes;
    uint32_t parallelism;
    bool is_source;
} weir__insp_task;

typedef struct weir__insp_subtask {
    int64_t idle_ns;          /* waiting for input */
    int64_t backpressured_ns; /* waiting for room downstream */
    int64_t start_ns, end_ns; /* monotonic; 0: not yet */
    weir_ts out_wm;           /* last watermark sent downstream */
    int64_t out_wm_moved_ms;  /* job clock; 0: never moved */
    weir_ts newest_ts;        /* sources: newest event time read */
    uint32_t n_in;            /* input channels */
    uint32_t queued;          /* messages queued in its input channels */
    uint32_t capacity;        /* their flow-control capacity, summed */
} weir__insp_subtask;

typedef struct weir__insp_op {
    uint64_t records_in, records_out;
    uint64_t late_records; /* rows dropped (or sent aside) as late */
    weir_ts in_wm, out_wm;
} weir__insp_op;

enum { WEIR__INSP_ACTIVE = 0, WEIR__INSP_IDLE = 1, WEIR__INSP_ENDED = 2 };

typedef struct weir__insp_input {
    int edge;              /* the edge it belongs to */
    int from_task;         /* the producing task ... */
    uint32_t from_subtask; /* ... and subtask */
    uint32_t input;        /* logical input of the head operator */
    weir_ts wm;
    int status;            /* WEIR__INSP_* */
    bool started;          /* read as a relaxed hint */
    int64_t last_data_ms;  /* job clock; WEIR_TS_MIN: no batch yet */
    uint32_t queued, capacity;
} weir__insp_input;

typedef struct weir__insp_split {
    const char *id; /* valid while the job lives */
    weir_ts wm;
    weir_ts max_ts;
    int64_t last_data_ms; /* job clock: last row, or opening */
    uint64_t rows;
    bool idle, finished;
} weir__insp_split;

/* 0 built, 1 running, 2 finished. */
int weir__insp_phase(const weir_job *job);
/* The job clock (processing time, ms). */
int64_t weir__insp_now_ms(const weir_job *job);

uint32_t weir__insp_n_nodes(const weir_job *job);
void weir__insp_node_get(const weir_job *job, uint32_t i, weir__insp_node *out);
uint32_t weir__insp_n_edges(const weir_job *job);
void weir__insp_edge_get(const weir_job *job, uint32_t i, weir__insp_edge *out);
/* Tasks exist once the job started (0 before). */
uint32_t weir__insp_n_tasks(const weir_job *job);
void weir__insp_task_get(const weir_job *job, uint32_t t, weir__insp_task *out);

/* Each returns WEIR_ENOTFOUND for an index out of range. */
int weir__insp_subtask_get(const weir_job *job, uint32_t t, uint32_t s, weir__insp_subtask *out);
int weir__insp_op_get(const weir_job *job, uint32_t t, uint32_t s, uint32_t pos, weir__insp_op *out);
int weir__insp_input_get(const weir_job *job, uint32_t t, uint32_t s, uint32_t i, weir__insp_input *out);
/* Visits the operator's named counters (weir_op_counter, source metrics). */
void weir__insp_op_counters(const weir_job *job, uint32_t t, uint32_t s, uint32_t pos,
                            void (*fn)(void *ud, const char *name, uint64_t v), void *ud);
/* Visits the splits a source subtask has seen, in the order it found them. */
void weir__insp_splits(const weir_job *job, uint32_t t, uint32_t s,
                       void (*fn)(void *ud, const weir__insp_split *split), void *ud);

#endif
