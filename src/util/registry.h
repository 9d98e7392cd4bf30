/*
 * util/registry.h - the running jobs of this machine, for `weir list`,
 * `weir stop JOB`, `weir savepoint JOB` and the web endpoint.
 *
 * Every `weir run` process registers itself in a folder per user
 * (WEIR_REGISTRY_DIR if set, else $XDG_RUNTIME_DIR/weir, else
 * /tmp/weir-<uid>): "<pid>.job" holds one "key=value" line per field and is
 * replaced atomically (write, rename) on every change; "<pid>.lock" is held
 * with flock(2) for the life of the process. The kernel drops the lock when
 * the process ends, kill -9 included, so a reader tells a live entry from a
 * stale one by trying the lock, never by the pid alone (pids are reused).
 * Stale entries are removed by whoever lists them.
 *
 * A process registers at most one job at a time; the functions that change
 * the entry are thread-safe.
 */
#ifndef WEIR_UTIL_REGISTRY_H
#define WEIR_UTIL_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "weir/common.h"

typedef struct weir__registry_entry {
    long pid;
    char name[256];         /* pipeline.name */
    int64_t started_ms;     /* wall clock, ms since the epoch */
    char checkpoints[1024]; /* checkpoint folder ("" none) */
    char savepoints[1024];  /* savepoint folder ("" none) */
    char rest[512];         /* the web endpoint's URL ("" none) */
    char file[1024];        /* the job's script */
    char id[33];            /* the job id: 32 hex digits */
    char status[16];        /* RUNNING, or RESTARTING between attempts */
} weir__registry_entry;

/* The registry folder, created (mode 0700) if missing; 0 or WEIR_EIO. */
int weir__registry_dir(char *buf, size_t cap, weir_error *err);

/*
 * Registers this process's job, with job_id (weir__registry_make_job_id)
 * and status RUNNING. Borrowed strings, copied; NULL as "". Returns 0, or
 * an error (the job runs anyway; the caller says it is not listed). The
 * entry stays, with its id, until weir__registry_remove: a job that
 * restarts keeps it across its attempts.
 */
int weir__registry_add(const char *name, const char *file, const char *checkpoints, const char *savepoints,
                       int64_t started_ms, const char *job_id, weir_error *err);
/* The status SHOW JOBS prints ("RUNNING", "RESTARTING"); 0 also when not registered. */
int weir__registry_set_status(const char *status);
/* The URL of this job's web endpoint (NULL: none); 0 also when not registered. */
int weir__registry_set_rest_url(const char *url);
/* Removes this process's entry (no-op when none). */
void weir__registry_remove(void);

/*
 * The live entries, sorted by pid; *out transferred (weir_free). Stale
 * entries are removed on the way.
 */
int weir__registry_list(weir__registry_entry **out, size_t *n, weir_error *err);

/*
 * A job id: 32 hex digits (Flink's form). Made once per `weir run`, before
 * its first attempt, and kept by every restart: from the process id and
 * the start time (a reused pid is another job); or, for a job run by
 * several processes, from key alone (the cluster's servers and group id),
 * so that every process of that job carries the same id.
 */
void weir__registry_make_job_id(long pid, int64_t started_ms, const char *key, char out[33]);

/* The job id of an entry, as SHOW JOBS prints it. */
void weir__registry_job_id(const weir__registry_entry *e, char out[33]);

/*
 * The entry of JOB: a job id, a pid, or a pipeline.name that one live entry
 * has. A job id that several live entries carry (the processes of one
 * clustered job on this machine) gives the first of them; *more (NULL: not
 * wanted) receives how many others carry it.
 * WEIR_ENOTFOUND (none) or WEIR_EINVAL (the name is ambiguous), with a
 * message that says which.
 */
int weir__registry_find(const char *job, weir__registry_entry *out, size_t *more, weir_error *err);

/*
 * Savepoint replies: the run process answers a request from process
 * requester with "<pid>.sp-<requester>" (first line "ok" or "failed", then
 * the path or the message); the requester reads and removes it.
 */
int weir__registry_savepoint_reply(pid_t requester, int rc, const char *text);
/* 1: *rc and text filled and the reply removed; 0: no reply yet; <0: error. */
int weir__registry_savepoint_take(long pid, int *rc, char *text, size_t cap);
/* Whether the entry of pid is still held by a live process. */
int weir__registry_alive(long pid);

#endif
