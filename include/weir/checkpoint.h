/*
 * weir/checkpoint.h - checkpoints, recovery and savepoints (the C API).
 *
 * weir_job_enable_checkpoints(job, cfg) before weir_job_start makes a job
 * fault tolerant:
 * - Recovery: the job first looks for the newest complete checkpoint in
 *   cfg->dir and, if there is one, restores from it (state, timers, source
 *   positions; sinks commit what it covers and drop what it does not), and
 *   says so through cfg->log. A checkpoint whose metadata or state files fail
 *   their checksums is skipped, with a message, for the one before it.
 *   WEIR_RESTORE_FRESH ignores existing checkpoints; WEIR_RESTORE_PATH
 *   restores a given checkpoint or savepoint folder.
 * - While the job runs a coordinator thread triggers checkpoint n+1 every
 *   interval_ms of processing time (the job's clock), at most
 *   max_concurrent at a time and min_pause_ms after the previous one ended.
 *   The subtasks' snapshots are written by a writer thread, then _metadata
 *   atomically; only then do sinks commit (checkpoint_complete). A checkpoint
 *   that fails (a decline, a write error such as ENOSPC, a timeout) is
 *   dropped and the job goes on; the next one starts afresh. The newest
 *   num_retained complete checkpoints are kept.
 * - At the end of the input (or after weir_job_stop) every subtask waits for
 *   a final checkpoint, so the last output is committed under a checkpoint
 *   too: a crash at any moment, kill -9 included, then a restart with the
 *   same dir, gives exactly the visible output of a run that never failed.
 *
 * Files: docs/checkpoints.md describes the layout, guarantees and options.
 */
#ifndef WEIR_CHECKPOINT_H
#define WEIR_CHECKPOINT_H

#include "weir/job.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum weir_restore_mode {
    WEIR_RESTORE_LATEST =
        0, /* resume from the newest complete checkpoint in dir, if any */
    WEIR_RESTORE_FRESH, /* start over: existing checkpoints are ignored (and
                           later pruned) */
    WEIR_RESTORE_PATH,  /* restore restore_path: a checkpoint or savepoint
                           folder, or a  checkpoint directory (its newest complete
                           checkpoint) */
} weir_restore_mode;

/* Receives one line of progress (no trailing newline), e.g. "restoring from
 * checkpoint chk-12 (...)". */
typedef void (*weir_checkpoint_log_fn)(void *ud, const char *line);

typedef struct weir_checkpoint_config {
    const char *dir;         /* state.checkpoints.dir (required) */
    int64_t interval_ms;     /* execution.checkpointing.interval; 0: no periodic
                                checkpoints */
    int64_t timeout_ms;      /* execution.checkpointing.timeout (10 min) */
    int64_t min_pause_ms;    /* execution.checkpointing.min-pause (0) */
    uint32_t max_concurrent; /* execution.checkpointing.max-concurrent-checkpoints
                                (1) */
    uint32_t num_retained;   /* state.checkpoints.num-retained (1) */
    /*
     * execution.checkpointing.tolerable-failed-checkpoints: the job fails
     * after more consecutive failed checkpoints than this. -1 (default):
     * never, a failed checkpoint only fails itself.
     */
    int32_t tolerable_failures;
    const char
        *savepoint_dir; /* state.savepoints.dir: default target of savepoints */
    weir_restore_mode restore;
    const char *restore_path; /* WEIR_RESTORE_PATH */
    /*
     * execution.savepoint.ignore-unclaimed-state (--allow-non-restored-state,
     * Flink's --allowNonRestoredState; default false): restore a checkpoint
     * whose operators do not all match the job, dropping the state of those
     * that do not (each one is named in the log). Without it such a
     * checkpoint is refused, naming what changed.
     */
    bool allow_non_restored_state;
    /*
     * state.backend.async = false: serialize each subtask's keyed state on
     * its own thread before the barrier goes on (the job pauses for it), as
     * before asynchronous snapshots; for comparisons. Default false: the
     * keyed state is pinned at the barrier and serialized on a snapshot
     * thread while the subtask goes on.
     */
    bool sync_snapshots;
    /*
     * state.backend.incremental (default false, as in Flink): RocksDB keyed
     * state is checkpointed as native RocksDB checkpoints whose SST files
     * go to DIR/shared/ once and are shared by later checkpoints, so a
     * checkpoint stores only the files that are new since the last one.
     * Savepoints stay canonical. No effect on the memory backend.
     */
    bool incremental;
    /*
     * execution.checkpointing.unaligned (default false, as in Flink):
     * barriers overtake the data queued in channels, which is stored with
     * the checkpoint instead (docs/checkpoints.md); a backpressured job's
     * checkpoints then complete without waiting for its queues to drain.
     * Savepoints stay aligned. Needs max_concurrent = 1.
     */
    bool unaligned;
    /*
     * execution.checkpointing.aligned-checkpoint-timeout (default 0): with
     * unaligned, > 0 makes each checkpoint start aligned and turn unaligned
     * where it is not through after this long (job clock, from the source's
     * barrier), so only checkpoints that meet backpressure store in-flight
     * data.
     */
    int64_t aligned_timeout_ms;
    /*
     * Object storage, for s3://bucket/prefix in dir, savepoint_dir and
     * restore_path (docs/checkpoints.md): s3.endpoint, s3.region,
     * s3.access-key, s3.secret-key, s3.path.style.access ("true"/"false"),
     * NULL where not set (then AWS_ENDPOINT_URL, AWS_REGION,
     * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY; path style for an IP
     * address or localhost, else virtual-hosted). s3.max-error-retries
     * (-1: 10) and s3.upload.min.part.size (0: 8 MiB).
     */
    const char *s3_endpoint, *s3_region, *s3_access_key, *s3_secret_key;
    const char *s3_path_style;
    int32_t s3_max_retries;
    uint64_t s3_part_size;
    weir_checkpoint_log_fn
        log; /* NULL: lines go to stderr, prefixed "weir: " */
    void *log_ud;
} weir_checkpoint_config;

void weir_checkpoint_config_init(weir_checkpoint_config *cfg);

/*
 * Sets one option by its Flink key (the comments above; durations as "10 s",
 * "500ms", "1 min"; 'execution.checkpointing.dir' is accepted for
 * state.checkpoints.dir). Strings are borrowed: they must live as long as
 * cfg is used. An unknown key returns WEIR_ENOTFOUND without touching err,
 * so a caller can offer the key to other modules; a bad value returns
 * WEIR_EINVAL with a message.
 */
int weir_checkpoint_config_set(weir_checkpoint_config *cfg, const char *key,
                               const char *value, weir_error *err);

/*
 * Before weir_job_start: restores the job as cfg->restore says, and
 * checkpoints it while it runs. cfg is copied. Errors: no usable checkpoint
 * at restore_path, a checkpoint of a different job (operators or max
 * parallelism differ), storage errors - each with a message in err.
 */
int weir_job_enable_checkpoints(weir_job *job,
                                const weir_checkpoint_config *cfg,
                                weir_error *err);

/* The checkpoint the job restored from ("" if it started fresh); valid while
 * the job lives. */
const char *weir_job_restored_from(const weir_job *job);

/* Triggers a checkpoint now (outside the interval); *id gets its id. The job
 * must be running: WEIR_ESTATE once it ended, or once its final checkpoint
 * completed (the job is ending; that checkpoint holds its last state). */
int weir_job_trigger_checkpoint(weir_job *job, uint64_t *id);

/*
 * Waits until checkpoint id completed (0) or failed (its error, with the
 * reason in err). timeout_ms < 0 waits as long as it takes.
 */
int weir_job_await_checkpoint(weir_job *job, uint64_t id, int64_t timeout_ms,
                              weir_error *err);

/*
 * Takes a savepoint into dir (NULL: cfg->savepoint_dir) while the job goes
 * on, and waits for it. path (may be NULL) gets the savepoint's folder.
 * Savepoints are the checkpoint format, kept apart: never pruned, and not
 * used by automatic recovery, only by WEIR_RESTORE_PATH. Sinks do not commit
 * on a savepoint (the next checkpoint commits), so restoring an older
 * checkpoint after it never shows output twice.
 */
int weir_job_savepoint(weir_job *job, const char *dir, char *path,
                       size_t path_cap, weir_error *err);

/*
 * Stops the job with a savepoint: sources stop reading, in-flight data
 * drains, the job's final checkpoint is written both as a checkpoint and as
 * a savepoint in dir, sinks commit, and the job ends. Returns once the
 * savepoint is written (or failed); weir_job_wait then returns as soon as
 * the threads ended. Operators' finish hooks do not run (the input did not
 * end): windows keep their state in the savepoint.
 */
int weir_job_stop_with_savepoint(weir_job *job, const char *dir, char *path,
                                 size_t path_cap, weir_error *err);

/*
 * Asks for a savepoint into cfg->savepoint_dir, taken by the coordinator
 * soon after, while the job goes on; the path is logged. Only sets a flag:
 * safe to call from a signal handler (SIGUSR1 in the CLI).
 */
void weir_job_request_savepoint(weir_job *job);

typedef struct weir_checkpoint_stats {
    uint64_t restored_id; /* the checkpoint the job restored from (0: none) */
    /*
     * Recovery (monotonic time, for metrics): loading and verifying the
     * files (in weir_job_enable_checkpoints), and from the start of that
     * until the last operator took its state back (0 while none has).
     */
    int64_t restore_load_ms;
    int64_t restore_done_ms;
    uint64_t last_id;         /* newest completed checkpoint (0: none yet) */
    int64_t last_duration_ms; /* its trigger-to-metadata time (job clock) */
    /*
     * Of which: trigger to the last acknowledgement (barriers travelling and
     * aligning, each subtask's short synchronous part, then its keyed state
     * serialized on its snapshot thread while it goes on processing), and
     * the rest (state files and metadata written while the job runs).
     */
    int64_t last_sync_ms;
    int64_t last_async_ms;
    /*
     * The longest time one subtask's thread paused for that checkpoint (its
     * synchronous part: operator snapshot hooks, timers, pinning the keyed
     * state), in microseconds (monotonic time).
     */
    int64_t last_pause_us;
    /* Its state files and (incremental checkpoints) every shared file it
     * needs: the full size. */
    uint64_t last_size_bytes;
    /* What that checkpoint stored itself: its state files and the shared
     * files uploaded for it (equals last_size_bytes without incremental
     * checkpoints). */
    uint64_t last_checkpointed_bytes;
    /* Unaligned checkpoints: the in-flight data (channel contents) that
     * checkpoint stored, included in the sizes above; 0 when aligned. */
    uint64_t last_inflight_bytes;
    int64_t last_time_ms;     /* when it was triggered (job clock) */
    uint64_t completed;       /* checkpoints completed in this run */
    uint64_t failed;          /* checkpoints failed in this run */
    uint32_t in_progress;
    char last_failure[256]; /* why the last failed one failed */
    /* The job was asked to stop, its final checkpoint kept failing, and it
     * was canceled without one: its output stays at the last completed
     * checkpoint (a stop-with-savepoint wrote no savepoint). */
    bool final_given_up;
    /*
     * Keyed states of the restored checkpoint that an operator subtask did
     * not register (a renamed state, an operator that no longer keeps it),
     * counted once per subtask and state: kept, unread, in its checkpoints
     * (docs/checkpoints.md, "Restore compatibility").
     */
    uint64_t restore_unclaimed_states;
} weir_checkpoint_stats;

/* A consistent copy of the coordinator's counters; WEIR_ENOTFOUND without
 * checkpoints. */
int weir_job_checkpoint_stats(weir_job *job, weir_checkpoint_stats *out);

/*
 * Restart strategy (restart-strategy.type = fixed-delay): a job that fails
 * is built again, restored from its newest checkpoint, and run again, up to
 * `attempts` times (restart-strategy.fixed-delay.attempts), waiting delay_ms
 * of processing time (restart-strategy.fixed-delay.delay) before each try.
 */
typedef struct weir_restart_strategy {
    uint32_t attempts; /* 0: no restarts */
    int64_t delay_ms;
    weir_clock clock; /* measures the delay; now_ms NULL: the system clock */
} weir_restart_strategy;

/* No restarts, delay 1 s (Flink's fixed-delay default), system clock. */
void weir_restart_strategy_init(weir_restart_strategy *rs);
/*
 * restart-strategy.type (none | fixed-delay), restart-strategy.fixed-delay
 * .attempts, restart-strategy.fixed-delay.delay. Unknown key:
 * WEIR_ENOTFOUND (err untouched).
 */
int weir_restart_strategy_set(weir_restart_strategy *rs, const char *key,
                              const char *value, weir_error *err);

/* Builds a fresh, not yet started instance of the job (called once per
 * attempt). */
typedef int (*weir_job_build_fn)(void *ud, weir_job **out, weir_error *err);

/*
 * Runs the job that build makes with checkpoints (cfg) and restarts it on
 * failure as rs says (NULL: no restarts). The first attempt restores as
 * cfg->restore says, restarts from the newest checkpoint. Returns the last
 * attempt's result (message in err). *restarts (may be NULL) gets the number
 * of restarts made.
 */
int weir_job_run_restartable(weir_job_build_fn build, void *ud,
                             const weir_checkpoint_config *cfg,
                             const weir_restart_strategy *rs,
                             uint32_t *restarts, weir_error *err);

#ifdef __cplusplus
}
#endif
#endif
