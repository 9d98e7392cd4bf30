/*
 * rest/rest_internal.h - the parts of src/rest/ shared by its files:
 * monitor.c (sampling, who holds the watermark back), routes.c (the JSON
 * of each endpoint), metrics.c (Prometheus text), server.c (HTTP, tokens,
 * actions). Everything the monitor derives sits in weir_rest under mu;
 * readers take mu for as long as they render one response.
 */
#ifndef WEIR_REST_INTERNAL_H
#define WEIR_REST_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "rest/json.h"
#include "rest/rest.h"
#include "runtime/inspect.h"
#include "weir/checkpoint.h"

/* One subtask: its time split and who holds its watermark back. */
typedef struct rest_sub {
    weir__insp_subtask cur;
    bool have_prev;
    int64_t prev_idle_ns, prev_bp_ns, prev_ns;
    double busy_ms_s, bp_ms_s, idle_ms_s; /* per second of the last interval */
    /* holder (non-source subtasks with inputs) */
    bool held;          /* an active input holds the watermark */
    int in_idx;         /* that input channel */
    int from_task;      /* its producer */
    uint32_t from_subtask;
    weir_ts wm;         /* its watermark (the minimum) */
    int64_t behind_ms;  /* behind the furthest other active input; -1: none */
    int64_t since_ms;   /* job clock: the subtask's watermark last moved */
    char by[256];       /* the split or subtask at the root of the chain */
    char reason[512];   /* why, as far as weir can tell */
    int64_t warned_since; /* the episode (since_ms) already logged; -1 none */
} rest_sub;

/* One operator instance: its rates. */
typedef struct rest_opm {
    bool have_prev;
    uint64_t prev_in, prev_out;
    double in_rate, out_rate; /* rows per second over the last interval */
} rest_opm;

#define REST_CKPT_HISTORY 32
typedef struct rest_ckpt {
    uint64_t id;
    int64_t trigger_ms, duration_ms, sync_ms, async_ms;
    uint64_t size_bytes, checkpointed_bytes;
} rest_ckpt;

#define REST_MAX_OPS 32
enum { REST_OP_SAVEPOINT = 1, REST_OP_STOP, REST_OP_CANCEL };
typedef struct rest_action {
    char id[33];
    int kind;
    bool drain;
    char dir[1024];   /* "" : state.savepoints.dir */
    struct weir_rest *r;
    pthread_t thread;
    bool thread_started;
    _Atomic int state; /* 0 in progress, 1 completed, 2 failed */
    char path[1024];   /* the savepoint written */
    char error[512];
} rest_action;

struct weir_rest {
    weir_job *job;
    weir_rest_config cfg;
    char job_id[33];
    int64_t start_ms; /* job clock */
    FILE *log;

    pthread_mutex_t mu; /* everything below */
    pthread_cond_t cv;
    bool quit;
    pthread_t thread;
    bool thread_started;
    uint32_t n_tasks;
    uint32_t *sub_off; /* per task: index of its subtask 0 in subs */
    uint32_t *op_off;  /* per task: index of its (subtask 0, op 0) in ops */
    rest_sub *subs;
    rest_opm *ops;
    uint32_t n_subs, n_ops;
    bool have_ckpt;
    weir_checkpoint_stats ckpt;
    rest_ckpt hist[REST_CKPT_HISTORY]; /* newest at (n_hist - 1) % N */
    uint32_t n_hist;
    int64_t end_ms; /* job clock when the monitor saw it end; 0 running */
    int64_t last_sample_ns; /* monotonic */

    /* server (server.c) */
    struct MHD_Daemon *httpd;
    char url[320];
    char token[65];
    char token_path[600];
    pthread_mutex_t act_mu;
    rest_action acts[REST_MAX_OPS];
    uint32_t n_acts;
};

/* monitor.c */
int rest_monitor_start(weir_rest *r);
void rest_monitor_stop(weir_rest *r);
/* Takes a sample now (mu held by the caller). */
void rest_monitor_sample_locked(weir_rest *r);
const char *rest_state_name(const weir_rest *r); /* "RUNNING", ... */
/* "name[subtask]" of a task's subtask (its head operator's name). */
void rest_task_label(const weir_rest *r, uint32_t t, uint32_t s, char *out, size_t cap);
const char *rest_task_name(const weir_rest *r, uint32_t t, char *out, size_t cap);

/* routes.c: the JSON of a GET path (mu taken inside). Returns the HTTP
 * status; out gets the body. */
int rest_route_get(weir_rest *r, const char *path, weir_buf *out);
/* metrics.c */
int rest_metrics_render(weir_rest *r, weir_buf *out);

/* One line of the endpoint's own (the address, the stall warnings, REST
 * actions' outcomes): to cfg.log_line if set, else "weir: text" on r->log. */
void rest_log(weir_rest *r, bool warn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
