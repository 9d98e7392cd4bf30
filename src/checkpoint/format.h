/*
 * checkpoint/format.h - the bytes of a checkpoint.
 *
 * A checkpoint is a folder "chk-<id>" (a savepoint: "savepoint-<id>")
 * holding one state file per subtask and, written last, "_metadata". The
 * checkpoint exists (is complete) exactly when _metadata is present, decodes,
 * and every file it lists has the recorded size and CRC-32C.
 *
 * State files hold the runtime's subtask snapshot bytes unchanged (format:
 * runtime/checkpoint.h, magic "WSNP"): every operator of the subtask's chain
 * with its operator state and, per key group it owns, keyed state and timers
 * in the state backends' canonical format; a source subtask adds its split
 * positions. They carry no checksum of their own: the metadata's CRC covers
 * them. Because key groups are stored one by one and the keyed-state format
 * is backend-independent, every checkpoint restores at any parallelism and
 * into either state backend (a savepoint is the same bytes, kept elsewhere).
 *
 * Metadata ("WEIRMETA", version 2, little-endian; varint = LEB128;
 * str = varint length + bytes):
 *   u64 id, i64 time_ms (job clock at trigger), i64 duration_ms,
 *   u8 flags (1: savepoint, 2: final - every subtask had ended),
 *   u32 max_parallelism,
 *   varint n_files, n x (str task (the chain's operator names), u32 task id,
 *                        u32 subtask, u32 parallelism, str file, u64 size,
 *                        u32 crc),
 *   u32 crc (CRC-32C of everything before it)
 * Version 3 (written only when there are shared files: incremental
 * checkpoints) adds, before the crc:
 *   varint n_shared, n x (str name ("shared/..." relative to the storage
 *                         root, not to the checkpoint folder), u32 task id,
 *                         u32 subtask, u64 size, u32 crc)
 * naming every shared file a subtask snapshot of this checkpoint needs;
 * verification and retention go by this list.
 * Version 4 (every checkpoint since restore compatibility) always has the
 * shared section (n_shared may be 0) and then, before the crc, the job's
 * stateful operators (runtime/stateid.c):
 *   varint n_ops, n x (varint node, str uid, str name, str fingerprint
 *                      ("field: value\n" lines))
 * Recovery restores a checkpoint only into a job whose operators have the
 * same uids and fingerprints (checkpoint/compat.c); versions 2 and 3 have
 * no such list and restore by node id and name.
 */
#ifndef WEIR_CHECKPOINT_FORMAT_H
#define WEIR_CHECKPOINT_FORMAT_H

#include "weir/buf.h"

#define WEIR__CKPT_SAVEPOINT 1u
#define WEIR__CKPT_FINAL 2u

typedef struct weir__ckpt_file {
    char *task; /* "source -> map" (informative) */
    uint32_t task_id;
    uint32_t subtask;
    uint32_t parallelism;
    char *file; /* name relative to the checkpoint folder */
    uint64_t size;
    uint32_t crc;
} weir__ckpt_file;

typedef struct weir__ckpt_shared {
    char *name; /* "shared/..." */
    uint32_t task_id, subtask;
    uint64_t size;
    uint32_t crc;
} weir__ckpt_shared;

/* A stateful operator of the job that took the checkpoint. */
typedef struct weir__ckpt_op {
    uint32_t node; /* its node id there (the snapshots' numbering) */
    char *uid;     /* stable id: "tumbling window[0]" or the user's */
    char *name;
    char *fp; /* what its state means: "field: value\n" lines */
} weir__ckpt_op;

typedef struct weir__ckpt_meta {
    uint64_t id;
    int64_t time_ms;
    int64_t duration_ms;
    bool is_savepoint;
    bool is_final;
    uint32_t max_parallelism;
    uint32_t n_files;
    weir__ckpt_file *files;
    uint32_t n_shared;
    weir__ckpt_shared *shared;
    bool has_ops; /* version 4: ops lists the stateful operators */
    uint32_t n_ops;
    weir__ckpt_op *ops;
} weir__ckpt_meta;

void weir__ckpt_meta_fini(weir__ckpt_meta *m);
int weir__ckpt_meta_encode(const weir__ckpt_meta *m, weir_buf *out);
/* Verifies magic, version and CRC; m owns what it decoded. */
int weir__ckpt_meta_decode(const uint8_t *data, size_t len, weir__ckpt_meta *m,
                           weir_error *err);
/* Appends a file entry (strings copied). */
int weir__ckpt_meta_add(weir__ckpt_meta *m, const char *task, uint32_t task_id,
                        uint32_t subtask, uint32_t parallelism,
                        const char *file, uint64_t size, uint32_t crc);

/* Appends a shared file entry (name copied). */
int weir__ckpt_meta_add_shared(weir__ckpt_meta *m, const char *name,
                               uint32_t task_id, uint32_t subtask,
                               uint64_t size, uint32_t crc);
/* Appends a stateful operator (strings copied); sets has_ops. */
int weir__ckpt_meta_add_op(weir__ckpt_meta *m, uint32_t node, const char *uid,
                           const char *name, const char *fp);
/* Total bytes of the state files and the shared files. */
uint64_t weir__ckpt_meta_size(const weir__ckpt_meta *m);

/* ---- reading a subtask snapshot for inspection (weir inspect) ---- */

typedef struct weir__snap_op_view {
    uint32_t node;
    char *name;
    size_t op_state_bytes;
    /* key groups listed: those not empty (an earlier weir listed every
     * one of the subtask's range) */
    uint32_t n_kg;
    uint32_t n_kg_used;    /* of which hold keyed state or timers */
    uint32_t kg_lo, kg_hi; /* smallest and largest key group listed */
    uint64_t state_bytes, timer_bytes;
} weir__snap_op_view;

typedef struct weir__snap_split_view {
    char *id;
    bool finished;
    uint8_t *pos;
    size_t pos_len;
    int64_t
        max_ts; /* the split's watermark generator: largest timestamp seen */
} weir__snap_split_view;

typedef struct weir__snap_view {
    uint32_t task, subtask, parallelism;
    uint32_t n_ops;
    weir__snap_op_view *ops;
    bool has_source;
    uint32_t source_node;
    uint32_t n_splits;
    weir__snap_split_view *splits;
    /* Incremental checkpoints: the native parts (runtime/checkpoint.h),
     * their inline data borrowed from the decoded bytes. */
    uint32_t n_native;
    struct weir__native_part *native;
    /* Unaligned checkpoints: the in-flight section's size and messages. */
    size_t inflight_bytes;
    uint64_t inflight_msgs;
} weir__snap_view;

/* Decodes a WSNP subtask snapshot into a summary that v owns. */
int weir__snap_view_decode(const uint8_t *data, size_t len, weir__snap_view *v,
                           weir_error *err);
void weir__snap_view_fini(weir__snap_view *v);
/*
 * The first and last key group op's subtask owned, for display: its range
 * at max_parallelism when every key group listed lies in it (a keyed
 * operator), else the smallest and largest listed.
 */
void weir__snap_op_view_span(const weir__snap_view *v,
                             const weir__snap_op_view *op,
                             uint32_t max_parallelism, uint32_t *first,
                             uint32_t *last);

#endif
