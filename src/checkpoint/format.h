/*
 * checkpoint/format.h - the bytes of a checkpoint.
 *
 * A checkpoint is a folder "chk-<id>" holding one state file per operator
 * subtask and, written last, "_metadata". The checkpoint exists (is
 * complete) exactly when _metadata is present and every file it lists has
 * the recorded size and CRC-32C. Both kinds of file end with a CRC-32C of
 * everything before it, so truncation and bit flips are detected.
 *
 * State file ("WEIRSTAT", version 1):
 *   str op_uid, u32 subtask, u32 parallelism,
 *   bytes op_state                      (the operator's own snapshot),
 *   varint n_pos, n_pos x (str split_id, bytes position)   (sources),
 *   varint n_kg,  n_kg  x (u32 kg, bytes keyed state + timers),
 *   u32 crc
 * The keyed part is indexed by key group, so a restore at another
 * parallelism reads just the key groups it owns from every old file.
 *
 * Metadata ("WEIRMETA", version 1):
 *   u64 id, i64 time_ms, u8 is_savepoint, u32 max_parallelism,
 *   varint n_files, n x (str op_uid, u32 subtask, u32 parallelism,
 *                        str file, u64 size, u32 crc),
 *   u32 crc
 */
#ifndef WEIR_CHECKPOINT_FORMAT_H
#define WEIR_CHECKPOINT_FORMAT_H

#include "weir/buf.h"

typedef struct weir__split_pos {
    char *split_id;
    uint8_t *pos;
    size_t pos_len;
} weir__split_pos;

typedef struct weir__kg_state {
    uint32_t kg;
    uint8_t *data;
    size_t len;
} weir__kg_state;

/* The snapshot of one operator subtask. Owns all its memory. */
typedef struct weir__task_state {
    char *op_uid;
    uint32_t subtask;
    uint32_t parallelism;
    uint8_t *op_state;
    size_t op_state_len;
    uint32_t n_pos;
    weir__split_pos *pos;
    uint32_t n_kg;
    weir__kg_state *kgs;
} weir__task_state;

void weir__task_state_fini(weir__task_state *t);
int weir__task_state_encode(const weir__task_state *t, weir_buf *out);
/* Verifies magic and CRC; fills t with copies (t owns them). */
int weir__task_state_decode(const uint8_t *data, size_t len, weir__task_state *t, weir_error *err);

typedef struct weir__ckpt_file {
    char *op_uid;
    uint32_t subtask;
    uint32_t parallelism;
    char *file; /* name relative to the checkpoint folder */
    uint64_t size;
    uint32_t crc;
} weir__ckpt_file;

typedef struct weir__ckpt_meta {
    uint64_t id;
    int64_t time_ms;
    bool is_savepoint;
    uint32_t max_parallelism;
    uint32_t n_files;
    weir__ckpt_file *files;
} weir__ckpt_meta;

void weir__ckpt_meta_fini(weir__ckpt_meta *m);
int weir__ckpt_meta_encode(const weir__ckpt_meta *m, weir_buf *out);
int weir__ckpt_meta_decode(const uint8_t *data, size_t len, weir__ckpt_meta *m, weir_error *err);
/* Appends a file entry (strings copied). */
int weir__ckpt_meta_add(weir__ckpt_meta *m, const char *op_uid, uint32_t subtask, uint32_t parallelism,
                        const char *file, uint64_t size, uint32_t crc);

#endif
