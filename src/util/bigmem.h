/*
 * util/bigmem.h - blocks for tables and pools that grow with keyed state.
 *
 * A window operator's key entries, slice records and indexes grow by
 * megabytes while a job's state fills, and every 4 KiB page of them costs
 * a page fault when it is first written (on a virtual machine, several
 * microseconds each: a quarter of the CPU time of a job whose keys are
 * mostly new). A block of 2 MiB or more from weir__bigmem_alloc starts at
 * a 2 MiB boundary and is advised to be backed by transparent huge pages
 * (madvise MADV_HUGEPAGE, where the system has it), so filling it takes
 * one fault per 2 MiB, and random probes into it miss the TLB less. A
 * smaller block is an ordinary allocation. Memory comes from weir_malloc
 * (the injectable allocator) either way; a block is freed with
 * weir__bigmem_free, never weir_free. Contents are not initialised.
 */
#ifndef WEIR_UTIL_BIGMEM_H
#define WEIR_UTIL_BIGMEM_H

#include <stddef.h>

/* A block of size bytes aligned to align (a power of two up to 4096), or NULL. */
void *weir__bigmem_alloc(size_t size, size_t align);
/* The same, zeroed. */
void *weir__bigmem_calloc(size_t size, size_t align);
/* Frees a block of weir__bigmem_alloc; NULL does nothing. */
void weir__bigmem_free(void *p);

#endif
