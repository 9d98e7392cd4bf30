/*
 * weir/source.h - sources: splits, readers and replayable positions.
 *
 * A source is instantiated once per source subtask. Each instance decides
 * which splits (files, byte ranges, generator shards, partitions) it owns and
 * hands them to the runtime; the runtime reads every split through its own
 * reader, stamps event time, and runs one watermark generator per split.
 * Order inside a split is preserved end to end.
 */
#ifndef WEIR_SOURCE_H
#define WEIR_SOURCE_H

#include "weir/batch.h"
#include "weir/buf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_source_info {
    uint32_t subtask;
    uint32_t parallelism;
    uint32_t batch_size;
    const weir_schema *schema; /* the schema of the rows the source produces */
    /*
     * Not 0: a source that deals its input out by subtask (datagen) makes
     * this many splits, whatever the parallelism, and deals them over the
     * subtasks (split k to subtask k mod parallelism), so that its split
     * ids stay when the parallelism changes (a job run by several
     * processes, whose number may change: docs/cluster.md).
     */
    uint32_t stable_splits;
    /*
     * Not 0: the job restores a checkpoint or savepoint taken when this
     * source ran at this parallelism. A source whose split ids depend on
     * its parallelism (datagen without stable_splits) refuses a restore at
     * another parallelism rather than read rows twice or never.
     */
    uint32_t restored_parallelism;
} weir_source_info;

typedef struct weir_source_class {
    const char *name;
    /* Creates the instance for one subtask. */
    int (*create)(void *arg, const weir_source_info *info, void **out_src, weir_error *err);
    /*
     * Appends to *ids the ids of splits newly assigned to this instance since
     * the last call (each id a string owned by the source, stable across
     * restarts). Returns 0. *done is set when no split will ever be added
     * (bounded sources, or after the first call for a source that does not
     * monitor for new splits).
     */
    int (*discover)(void *src, const char ***ids, uint32_t *n_ids, bool *done, weir_error *err);
    /* Opens a reader for split id at position pos (NULL, 0: the beginning). */
    int (*open_split)(void *src, const char *id, const void *pos, size_t pos_len, void **out_reader,
                      weir_error *err);
    /*
     * Appends at most max_rows rows to out (which may already hold rows).
     * Returns the number appended (> 0); 0 when nothing is available now (an
     * unbounded split); WEIR_EOF when the split is exhausted; or a negative
     * code with err set (bad input under the fail policy, I/O errors).
     * If the reader knows event time it sets out->ts; otherwise the runtime
     * takes it from the schema's rowtime column.
     */
    int (*read)(void *reader, weir_batch *out, uint32_t max_rows, weir_error *err);
    /* Replayable position just after the last row returned. */
    int (*position)(void *reader, weir_buf *out);
    void (*close_split)(void *reader);
    void (*destroy)(void *src);
    /* Optional: counters (e.g. "skipped_records") for metrics. */
    int (*metrics)(void *src, void (*emit)(void *ud, const char *name, uint64_t v), void *ud);
    /*
     * Optional: whether the split's reader knows of data it has not returned
     * yet (a Kafka partition behind its high watermark). A split with a
     * backlog is never idle, however long its last row is ago: idle means
     * caught up and silent. Called on the subtask's thread.
     */
    bool (*has_backlog)(void *reader);
    /*
     * Optional: the positions read since the last call (one per open split,
     * position() was called for each at the barrier) belong to checkpoint
     * ckpt_id. The source may remember them for checkpoint_complete. Called
     * on the subtask's thread right after them. An error fails the job.
     */
    int (*checkpoint_taken)(void *src, uint64_t ckpt_id, weir_error *err);
    /*
     * Optional: checkpoint ckpt_id completed everywhere (its metadata is
     * written), so a restart never goes back before the positions it holds.
     * A source publishes its progress here, never earlier: a Kafka source
     * commits that checkpoint's offsets to its consumer group (a courtesy to
     * lag tools: it counts a failure in its metrics and returns 0), a
     * change-capture source confirms its replication slot's position (an
     * error fails the job). Called on the subtask's thread.
     */
    int (*checkpoint_complete)(void *src, uint64_t ckpt_id, weir_error *err);
    /*
     * Optional; required by WEIR_WATERMARK_SOURCE: the split's watermark as
     * the reader knows it (WEIR_TS_MIN: none yet), asked after every read.
     * It holds for every row read so far, so a reader stops a read at the
     * point where its watermark advances (returns the rows before it).
     * The runtime never lets it go backwards.
     */
    weir_ts (*watermark)(void *reader);
    /*
     * The subtasks generate one sequence in stride (subtask s of p makes
     * rows s, s + p, s + 2p, ... of each split kind), and event time is a
     * function of the row number (or they read byte ranges of files dealt
     * out in stride, where equal row counts are about equal positions in
     * the files): the runtime keeps every subtask within a few batches per
     * sequence of splits of the slowest one, so that their event times
     * stay together. Without it a subtask that gets more CPU than
     * its siblings runs ahead, nothing pushes back (the keyed consumers
     * take whatever comes), and every consumer holds the windows of the
     * whole lead in state until the watermark, the minimum, catches up.
     */
    bool lockstep;
    /*
     * Optional: the split's input carries checkpoint barriers itself (a
     * repartition topic between processes): the runtime does not inject a
     * barrier when a checkpoint is triggered, but when every open split of
     * the subtask has reached one. Returns the id of the barrier the split
     * has reached and waits at (0: none); while it waits, read returns
     * nothing new. The runtime injects the smallest such id above the last
     * one (the positions it takes then are the cut), and checkpoint_taken
     * tells the source that its splits may go on past it.
     */
    uint64_t (*barrier)(void *reader);
    /*
     * Optional: split id continues split prev, the split given just before
     * it to the same instance (byte ranges of one file, in file order). The
     * runtime then reads id only once prev has ended, as one sequence with
     * it: id takes over prev's watermark generator (and its input of the
     * subtask's watermark valve) instead of holding the watermark back from
     * the start. A split restored with progress of its own is read on its
     * own, as before.
     */
    bool (*continues)(void *src, const char *prev, const char *id);
    /*
     * Optional: whether the split's input says it is idle now (a repartition
     * topic between processes whose every producer still running is idle),
     * asked after every read. The split is idle exactly while it says so,
     * whatever the idle timeout (which does not apply to it); rows make it
     * active at once.
     */
    bool (*idle)(void *reader);
} weir_source_class;

typedef struct weir_source_spec {
    const char *name;
    const weir_source_class *cls;
    void *arg;                 /* shared by all instances; freed with free_arg */
    void (*free_arg)(void *arg);
    const weir_schema *schema; /* borrowed; must outlive the job */
    /*
     * The rows carry row kinds (+I/-U/+U/-D in weir_batch.kind): a changelog
     * source (database change capture, debezium-json, upsert topics). The
     * planner treats its table scan as updating; false: append-only, every
     * row +I.
     */
    bool changelog;
} weir_source_spec;

/*
 * A table queried by key (a lookup join's dimension table in a database):
 * open makes one instance per operator subtask; lookup appends to out (a
 * batch of the table's schema) every row of the table whose key columns
 * equal one of the keys given, one key per row of keys (the key columns
 * in the order the spec names them, typed as the table's columns), in one
 * round trip for all of them.
 */
typedef struct weir_lookup_source {
    int (*open)(void *arg, void **out_inst, weir_error *err);
    int (*lookup)(void *inst, const weir_batch *keys, weir_batch *out, weir_error *err);
    void (*close)(void *inst);
    void *arg;                 /* freed with free_arg */
    void (*free_arg)(void *arg);
    const weir_schema *key_schema; /* owned by arg */
    /* The cache in front of it (Flink's 'lookup.cache' = 'PARTIAL'). */
    bool cache;
    int64_t cache_max_rows;    /* keys held; 0: unbounded */
    int64_t expire_after_write_ms;  /* 0: never */
    int64_t expire_after_access_ms; /* 0: never */
    bool cache_missing_key;    /* remember that a key has no row */
    int64_t max_retries;       /* a failed lookup is tried again this often */
} weir_lookup_source;

/* How a source derives watermarks from event time, per split. */
typedef enum weir_watermark_kind {
    WEIR_WATERMARK_NONE,      /* no watermark until the end of input */
    WEIR_WATERMARK_BOUNDED,   /* W = max(ts) - delay_ms; MONOTONIC is delay 0 */
    WEIR_WATERMARK_SOURCE,    /* the reader reports it (weir_source_class.watermark) */
} weir_watermark_kind;

typedef struct weir_watermark_spec {
    weir_watermark_kind kind;
    int64_t delay_ms;
    int64_t idle_timeout_ms;  /* 0: use the job's; < 0: never idle */
    /* Watermark alignment: sources with the same non-empty group do not read
     * ahead of the group's smallest watermark by more than max_drift_ms (a
     * source whose watermark is ahead pauses), so a join of two independent
     * sources does not hold the state of everything the faster one read
     * ahead. "" (the default): not aligned. */
    char align_group[64];
    int64_t align_max_drift_ms;
} weir_watermark_spec;

#ifdef __cplusplus
}
#endif
#endif
