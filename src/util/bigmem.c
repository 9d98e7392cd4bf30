/*
 * util/bigmem.c - large blocks on huge pages where the system has them
 * (see bigmem.h).
 *
 * Layout: the word just before the block handed out says where its
 * memory came from. A block from weir_malloc stores the pointer
 * weir_malloc returned there, so freeing needs no size and no table; a
 * large block over-allocates 2 MiB so that the block can start at a 2 MiB
 * boundary: the pages of the slack are never written (but the one holding
 * the stored pointer), so they take address space, not memory.
 *
 * With the default allocator in place, a large block is mapped straight
 * from the system instead: one page of header (the mapping's start, its
 * low bit set, and its length in the two words before the block), then
 * the block at a 2 MiB boundary. Growing it remaps its pages to a new
 * place whose block starts at a 2 MiB boundary again (mremap: page tables
 * move, huge pages stay whole, nothing is copied) and only the pages
 * added are new.
 */
#include "util/bigmem.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "util/alloc.h"
#include "weir/common.h"

#define HUGE_BYTES ((size_t)2 << 20)
#define PAGE ((size_t)4096)
#define MAPPED 1u /* low bit of the stored word: a mapping's start */

static void *from_malloc(size_t size, size_t align)
{
    if (align < sizeof(void *))
        align = sizeof(void *);
    bool huge = size >= HUGE_BYTES;
    if (huge)
        align = HUGE_BYTES;
    if (size > SIZE_MAX - align - sizeof(void *))
        return NULL;
    uint8_t *raw = weir_malloc(size + align + sizeof(void *));
    if (!raw)
        return NULL;
    uintptr_t at = ((uintptr_t)raw + sizeof(void *) + align - 1) & ~(uintptr_t)(align - 1);
    uint8_t *p = raw + (at - (uintptr_t)raw);
    memcpy(p - sizeof(void *), &raw, sizeof raw);
#ifdef MADV_HUGEPAGE
    /* advice only: where huge pages are off or unavailable, 4 KiB pages back it */
    if (huge)
        (void)madvise(p, size & ~(HUGE_BYTES - 1), MADV_HUGEPAGE);
#endif
    return p;
}

/* The mapping's length for a block of size bytes: the header page and the block in whole pages. */
static size_t map_len(size_t size) { return PAGE + ((size + PAGE - 1) & ~(PAGE - 1)); }

/*
 * Reserves address space for a mapping of len bytes whose block (a page
 * in) starts at a 2 MiB boundary: the start of that place, the rest of
 * the reservation given back. MAP_FAILED when none.
 */
static uint8_t *reserve(size_t len)
{
    uint8_t *r = mmap(NULL, len + HUGE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED)
        return r;
    uintptr_t blk = ((uintptr_t)r + PAGE + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
    uint8_t *base = (uint8_t *)(blk - PAGE);
    if (base > r)
        munmap(r, (size_t)(base - r));
    size_t tail = (size_t)(r + len + HUGE_BYTES - (base + len));
    if (tail)
        munmap(base + len, tail);
    return base;
}

static void *set_header(uint8_t *base, size_t len)
{
    uint8_t *p = base + PAGE;
    uintptr_t word = (uintptr_t)base | MAPPED;
    memcpy(p - sizeof word, &word, sizeof word);
    memcpy(p - 2 * sizeof word, &len, sizeof len);
#ifdef MADV_HUGEPAGE
    /* the whole mapping, so it stays one area of the process (mremap moves only one) */
    (void)madvise(base, len, MADV_HUGEPAGE);
#endif
    return p;
}

static void *from_system(size_t size)
{
    if (size > SIZE_MAX / 2)
        return NULL;
    size_t len = map_len(size);
    uint8_t *base = reserve(len);
    return base == MAP_FAILED ? NULL : set_header(base, len);
}

void *weir__bigmem_alloc(size_t size, size_t align)
{
    bool fail;
    if (size >= HUGE_BYTES && weir__alloc_system(&fail))
        return fail ? NULL : from_system(size);
    return from_malloc(size, align);
}

void *weir__bigmem_calloc(size_t size, size_t align)
{
    bool fail;
    if (size >= HUGE_BYTES && weir__alloc_system(&fail))
        return fail ? NULL : from_system(size); /* fresh pages read as zeros */
    void *p = from_malloc(size, align);
    if (p)
        memset(p, 0, size);
    return p;
}

static uintptr_t stored(const void *p)
{
    uintptr_t word;
    memcpy(&word, (const uint8_t *)p - sizeof word, sizeof word);
    return word;
}

void *weir__bigmem_grow(void *p, size_t old, size_t size)
{
    uintptr_t word = stored(p);
    if (word & MAPPED) {
        uint8_t *base = (uint8_t *)(word & ~(uintptr_t)MAPPED);
        size_t len;
        memcpy(&len, (uint8_t *)p - 2 * sizeof word, sizeof len);
        if (size > SIZE_MAX / 2)
            return NULL;
        size_t nlen = map_len(size);
        if (nlen <= len)
            return p;
        uint8_t *nbase = reserve(nlen);
        if (nbase == MAP_FAILED)
            return NULL;
        void *to = mremap(base, len, nlen, MREMAP_MAYMOVE | MREMAP_FIXED, nbase);
        if (to == MAP_FAILED) {
            munmap(nbase, nlen);
            return NULL;
        }
        return set_header(nbase, nlen); /* the pages added read as zeros */
    }
    uint8_t *np = weir__bigmem_alloc(size, 64);
    if (!np)
        return NULL;
    memcpy(np, p, old);
    weir__bigmem_free(p);
    if (!(stored(np) & MAPPED)) /* fresh mapped pages read as zeros */
        memset(np + old, 0, size - old);
    return np;
}

void weir__bigmem_free(void *p)
{
    if (!p)
        return;
    uintptr_t word = stored(p);
    if (word & MAPPED) {
        size_t len;
        memcpy(&len, (uint8_t *)p - 2 * sizeof word, sizeof len);
        munmap((void *)(word & ~(uintptr_t)MAPPED), len);
        return;
    }
    weir_free((void *)word);
}
