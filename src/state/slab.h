/*
 * state/slab.h - a size-class block allocator for keyed-state records
 * (internal to the state module).
 *
 * Records of the in-memory backend are small and numerous; one malloc each
 * would cost time per record and a header per record. The slab carves blocks
 * of a few fixed sizes (32 B .. 4 KiB, 16 B apart up to 256 B, then at most
 * a sixth apart) out of 64 KiB pages taken from weir_malloc (8 MiB pages,
 * offered to the kernel as huge pages, once the slab holds 4 MiB), and keeps
 * freed blocks on a free list per size so that memory of removed (or
 * expired) entries is reused by new ones. Larger
 * blocks go straight to weir_malloc, each on the slab's list of large blocks,
 * but for those up to WEIR__SLAB_CARVE_MAX once the slab takes 8 MiB pages:
 * these are carved from the pages too (a hash table's slots then lie in
 * huge pages), and a freed one is spare room that later blocks, small or
 * large, are carved from.
 * Pages are returned only at _fini, which frees the large blocks too: the
 * owner of a slab may drop everything in it at once, without visiting its
 * records.
 *
 * The caller remembers the size of each block (it is derivable from the
 * record header) and passes it back to weir__slab_free. Under
 * AddressSanitizer free blocks are poisoned, so a use after free of a record
 * is reported even though the memory stays inside the slab.
 */
#ifndef WEIR_STATE_SLAB_H
#define WEIR_STATE_SLAB_H

#include <stddef.h>
#include <stdint.h>

#define WEIR__SLAB_NCLASS 43
#define WEIR__SLAB_MAX 4096
#define WEIR__SLAB_PAGE (64 * 1024)
#define WEIR__SLAB_CARVE_MAX (1024 * 1024)
/* Every block lies below 2^WEIR__SLAB_ADDR_BITS (the memory backend packs a
 * block's address into 45 bits of a table slot): memory the system hands
 * out above it (user space is 47 or 48 bits on x86-64 and aarch64 Linux
 * with 4-level page tables, and mmap keeps below that unless asked) is
 * given back and the allocation fails as if out of memory. */
#define WEIR__SLAB_ADDR_BITS 48

typedef struct weir__slab {
    void *free[WEIR__SLAB_NCLASS]; /* free list per class, linked through the
                                      block */
    uint8_t *bump;                 /* unused tail of the newest page */
    size_t bump_left;
    void *pages;    /* pages linked through their first word */
    void *large;    /* large blocks from weir_malloc (a 16-byte header links them both ways) */
    void *spare;    /* freed large blocks of the slab's pages, linked through their first word */
    uint64_t bytes; /* pages + large blocks held, for size_bytes */
} weir__slab;

void weir__slab_init(weir__slab *s);
void weir__slab_fini(weir__slab *s);

/*
 * Rounds a request of n bytes up to the size the slab would hand out, so the
 * caller can use the slack (for example as spare value capacity).
 */
size_t weir__slab_round(size_t n);

/* A block of exactly weir__slab_round(n) bytes, 8-byte aligned, or NULL. */
void *weir__slab_alloc(weir__slab *s, size_t n);
/* Frees a block; size is weir__slab_round of the size it was allocated with. */
void weir__slab_free(weir__slab *s, void *p, size_t size);
/*
 * Grows a large block (size, its weir__slab_round size, > WEIR__SLAB_MAX) to
 * weir__slab_round(n) bytes (n > size), keeping its content: in place when
 * the allocator can (a large block's pages are remapped, not copied). Returns
 * the block, or NULL when out of memory (p is then unchanged).
 */
void *weir__slab_grow(weir__slab *s, void *p, size_t size, size_t n);

#endif
