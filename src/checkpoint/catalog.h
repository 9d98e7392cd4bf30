/*
 * checkpoint/catalog.h - finding, verifying, listing and pruning the
 * checkpoints in a storage. A checkpoint counts only if its _metadata
 * decodes and every state file it lists has the recorded size and CRC;
 * recovery takes the newest such one and reports any newer one it skipped.
 */
#ifndef WEIR_CHECKPOINT_CATALOG_H
#define WEIR_CHECKPOINT_CATALOG_H

#include "checkpoint/format.h"
#include "checkpoint/storage.h"

typedef enum weir__ckpt_status {
    WEIR_CKPT_COMPLETE,
    WEIR_CKPT_INCOMPLETE, /* no _metadata: in progress, aborted or crashed */
    WEIR_CKPT_CORRUPT,    /* _metadata or a state file fails verification */
} weir__ckpt_status;

typedef struct weir__ckpt_info {
    char name[64]; /* "chk-12" or "savepoint-3" */
    uint64_t id;
    bool is_savepoint;
    weir__ckpt_status status;
    int64_t time_ms;
    uint64_t size_bytes;
    uint32_t n_files;
    char reason[600]; /* why it is not complete */
} weir__ckpt_info;

/* Folder name of checkpoint id. */
void weir__ckpt_name(uint64_t id, bool savepoint, char *buf, size_t cap);
/* Parses "chk-<id>" / "savepoint-<id>"; false for any other name. */
bool weir__ckpt_parse_name(const char *name, uint64_t *id, bool *savepoint);
/* Lists checkpoints (ascending id), verifying each; *out transferred. */
int weir__ckpt_list(weir__storage *s, weir__ckpt_info **out, size_t *n);
/* Verifies folder `name`; fills meta on success (caller finis it). */
int weir__ckpt_verify(weir__storage *s, const char *name, weir__ckpt_meta *meta,
                      weir_error *err);
/*
 * Verifies folder `name` as weir__ckpt_verify does and hands every state
 * file's verified bytes (borrowed for the call) to fn, in metadata order.
 * A non-zero return of fn stops the load and is returned.
 */
typedef int (*weir__ckpt_file_fn)(void *ud, const weir__ckpt_file *f,
                                  const uint8_t *data, size_t len);
int weir__ckpt_load(weir__storage *s, const char *name, weir__ckpt_meta *meta,
                    weir__ckpt_file_fn fn, void *ud, weir_error *err);
/*
 * The same without reading the shared files (incremental checkpoints): for
 * a caller that fetches every one of them next and checks size and CRC as
 * it does, so they are read once.
 */
int weir__ckpt_load_state_files(weir__storage *s, const char *name,
                                weir__ckpt_meta *meta, weir__ckpt_file_fn fn,
                                void *ud, weir_error *err);
/*
 * Loads the newest complete checkpoint (savepoints excluded). Returns
 * WEIR_ENOTFOUND when there is none. Skipped newer ones are described in
 * notes (may be NULL).
 */
int weir__ckpt_latest(weir__storage *s, weir__ckpt_meta *meta, char *name,
                      size_t name_cap, weir_buf *notes);
/* Removes all but the newest `retain` complete checkpoints, and incomplete ones
 * older than the newest complete. */
int weir__ckpt_prune(weir__storage *s, uint32_t retain);

#endif
