/*
 * util/bigmem.c - large blocks on huge pages where the system has them
 * (see bigmem.h).
 *
 * Layout: the pointer weir_malloc returned is stored in the word just
 * before the block handed out, so freeing needs no size and no table. A
 * large block over-allocates 2 MiB so that the block can start at a 2 MiB
 * boundary: the pages of the slack are never written (but the one holding
 * the stored pointer), so they take address space, not memory.
 */
#include "util/bigmem.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "weir/common.h"

#define HUGE_BYTES ((size_t)2 << 20)

void *weir__bigmem_alloc(size_t size, size_t align)
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

void *weir__bigmem_calloc(size_t size, size_t align)
{
    void *p = weir__bigmem_alloc(size, align);
    if (p)
        memset(p, 0, size);
    return p;
}

void weir__bigmem_free(void *p)
{
    if (!p)
        return;
    void *raw;
    memcpy(&raw, (uint8_t *)p - sizeof(void *), sizeof raw);
    weir_free(raw);
}
