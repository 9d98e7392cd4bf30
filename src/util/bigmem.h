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
 * (the injectable allocator), but for a large block while the default
 * allocator is in place: that one is mapped from the system, so it can
 * grow without a copy (weir__bigmem_grow). A block is freed with
 * weir__bigmem_free, never weir_free. Contents are not initialised.
 */
#ifndef WEIR_UTIL_BIGMEM_H
#define WEIR_UTIL_BIGMEM_H

#include <stddef.h>

/* A block of size bytes aligned to align (a power of two up to 4096), or NULL. */
void *weir__bigmem_alloc(size_t size, size_t align);
/* The same, zeroed. */
void *weir__bigmem_calloc(size_t size, size_t align);
/*
 * Grows block p (old bytes, from weir__bigmem_alloc or this) to size bytes,
 * its first old bytes kept and the rest zeros, aligned as allocated. A mapped block
 * moves by remapping its pages (nothing copied); another is copied into a
 * new block. NULL when out of memory (p then unchanged).
 */
void *weir__bigmem_grow(void *p, size_t old, size_t size);
/* Frees a block of weir__bigmem_alloc; NULL does nothing. */
void weir__bigmem_free(void *p);

#endif
