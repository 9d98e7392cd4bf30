/*
 * fuzz/stubs.c - linked into the fuzz targets (fuzz/run.sh), not into weir.
 *
 * runtime/checkpoint.c holds the restore parser next to the code that
 * applies a restore to a running job. The fuzz build compiles only the
 * library files the targets need, so the few job calls that code makes are
 * stubbed here. Parsing never reaches them: reaching one is a finding.
 */
#include <stdlib.h>

#include "runtime/runtime.h"
#include "state/rocksdb_backend.h"

int weir__job_fail(weir_job *job, int code, const char *fmt, ...)
{
    abort();
}

weir__node *weir__job_node(const weir_job *job, int id)
{
    abort();
}

void weir__job_cancel(weir_job *job)
{
    abort();
}

int weir__gate_post(weir__gate *g, weir__cmd_type type, uint64_t id)
{
    abort();
}

int weir__gate_post_locked(weir__gate *g, weir__cmd_type type, uint64_t id)
{
    abort();
}

int weir__rocksdb_open_checkpoint(const weir__backend_config *cfg,
                                  const char *ckpt_dir, weir__backend **out)
{
    abort();
}
