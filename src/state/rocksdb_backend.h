/*
 * state/rocksdb_backend.h - what the RocksDB state backend offers beyond
 * backend.h (internal-but-shared): native incremental checkpoints.
 *
 * A RocksDB backend (cfg->kind "rocksdb") keeps its database in cfg->dir,
 * its scratch space: whatever a database there holds is deleted when the
 * backend is created, and the database is deleted when it is destroyed.
 * State survives only through snapshots (canonical, backend.h) or through
 * the native checkpoints below.
 *
 * Without WEIR_HAVE_ROCKSDB these functions exist and return
 * WEIR_EUNSUPPORTED, so callers need no #ifdef.
 */
#ifndef WEIR_STATE_ROCKSDB_BACKEND_H
#define WEIR_STATE_ROCKSDB_BACKEND_H

#include "state/backend.h"

/* Whether be is a RocksDB backend. */
bool weir__backend_is_rocksdb(const weir__backend *be);

/*
 * Writes a native checkpoint of the whole backend (every owned key group)
 * into dir, which must not exist yet: the memtables are flushed and the SST
 * files hard-linked (copied across file systems), so consecutive checkpoints
 * share every SST file that did not change - an uploader only needs to copy
 * the files it has not seen. State names, kinds and the key-group layout are
 * written into the checkpoint too. Not for memory backends
 * (WEIR_EUNSUPPORTED).
 */
int weir__rocksdb_checkpoint(weir__backend *be, const char *dir);

/*
 * Creates a RocksDB backend (cfg as for weir__backend_create, kind ignored)
 * from a native checkpoint: the checkpoint's files are hard-linked (or
 * copied) into cfg->dir, its states come back by name (bound when the
 * operator registers them), and key groups outside [cfg->kg_lo, cfg->kg_hi)
 * are deleted, so a checkpoint of one subtask can seed several after
 * rescaling. The max parallelism must match (WEIR_EINVAL otherwise).
 */
int weir__rocksdb_open_checkpoint(const weir__backend_config *cfg,
                                  const char *ckpt_dir, weir__backend **out);

/*
 * Incremental checkpoints: weir__rocksdb_checkpoint of be into
 * "<be's folder>.snap-<id>" (anything left there by an earlier run is
 * removed first), on the backend's thread; *dir (allocated, weir_free)
 * names the folder. The caller removes it (weir__io_remove_tree) when its
 * files are stored.
 */
int weir__rocksdb_snapshot_native(weir__backend *be, uint64_t id, char **dir);

/* Runs a full manual compaction (which also drops expired TTL entries). */
int weir__rocksdb_compact(weir__backend *be);

/* Number of RocksDB records in key group kg (tests and inspection). */
int weir__rocksdb_count_kg(weir__backend *be, uint32_t kg, uint64_t *out);

/* The message of the last RocksDB error of this backend ("" if none). */
const char *weir__rocksdb_last_error(const weir__backend *be);

/*
 * Restores (weir__backend_restore_kg) into RocksDB write no entry through
 * the memtable: each key group's entries are sorted into a staged SST file
 * that RocksDB ingests whole (docs/state.md). What that path did so far.
 */
typedef struct weir__rocksdb_stats {
    uint64_t bulk_kgs;         /* key groups restored through the bulk path */
    uint64_t bulk_entries;     /* RocksDB records they produced */
    uint64_t ingested_files;   /* staged files ingested */
    uint64_t ingested_entries; /* records in them */
} weir__rocksdb_stats;

int weir__rocksdb_get_stats(const weir__backend *be, weir__rocksdb_stats *out);

#endif
