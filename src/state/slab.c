/*
 * state/slab.c - size-class block allocator for state records.
 *
 * Invariants: every block handed out has the size of its class (a multiple
 * of 16) or, above WEIR__SLAB_MAX, the request rounded up to 16; blocks on a
 * free list are poisoned under ASan; a page is never returned before _fini.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/slab.h"
#include "util/bigmem.h"
#include "weir/common.h"

#if defined(__SANITIZE_ADDRESS__)
#define SLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_ASAN 1
#endif
#endif

#ifdef SLAB_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* 16 bytes apart up to 256, then 32 - 64 apart up to 640, 64 up to
 * 1 KiB, 128 up to 2 KiB and 256 - 512 up to 4 KiB: the records that fill
 * a large state are small (a join keeps an entry of about 100 - 250 bytes
 * per row), and a block rounded up by 32 bytes there wasted 6 % of it. A
 * Top-10 list (one record of about 1.2 KiB per partition, Nexmark q19)
 * wasted 8 % of the state in blocks a fifth apart; 64 and 128 bytes apart
 * waste about 4 %: fresh memory, every byte of which costs a page zeroed
 * on first touch. */
static const uint16_t class_size[WEIR__SLAB_NCLASS] = {
    32,   48,   64,   80,   96,   112,  128,  144,  160,  176,  192,  208,
    224,  240,  256,  288,  320,  352,  384,  448,  512,  576,  640,  704,
    768,  832,  896,  960,  1024, 1152, 1280, 1408, 1536, 1664, 1792, 1920,
    2048, 2304, 2560, 2816, 3072, 3584, 4096,
};

/* Page header: the link to the next page and the page's size (16 bytes,
 * which keeps blocks 16-aligned). */
#define PAGE_HDR 16

/*
 * Once the slab holds BIG_AFTER bytes, new pages are BIG_PAGE bytes,
 * 2 MiB-aligned and offered whole to the kernel as transparent huge pages
 * (weir__bigmem_alloc): state that grows by hundreds of megabytes (a
 * regular join keeps every row) then takes one page fault per 2 MiB
 * instead of one per 4 KiB, and fewer TLB misses on lookups. (A page from
 * weir_malloc started anywhere: only its 2 MiB-aligned interior, three of
 * its four 2 MiB units, could be huge, and q20 at 2 M events had a third
 * of its memory in 4 KiB pages.) Small states keep 64 KiB pages, so a job
 * of many small operators does not round each up to megabytes.
 */
#define BIG_AFTER ((uint64_t)4 << 20)
#define BIG_PAGE ((size_t)8 << 20)

/* A large block's header: the neighbours on the slab's list. */
typedef struct large_hdr {
    struct large_hdr *prev, *next;
} large_hdr;

_Static_assert(sizeof(large_hdr) == 16, "a large block's header keeps it 16-aligned");

/* prev of the header of a large block carved from a page (a block from weir_malloc has its list
 * neighbour there, or NULL) */
static large_hdr carved_mark;

static void large_link(weir__slab *s, large_hdr *h)
{
    h->prev = NULL;
    h->next = s->large;
    if (h->next)
        h->next->prev = h;
    s->large = h;
}

static void large_unlink(weir__slab *s, large_hdr *h)
{
    if (h->prev)
        h->prev->next = h->next;
    else
        s->large = h->next;
    if (h->next)
        h->next->prev = h->prev;
}

static void page_hdr(void *page, size_t *size, void **next)
{
    memcpy(next, page, sizeof *next);
    memcpy(size, (uint8_t *)page + sizeof(void *), sizeof *size);
}

/* The classes up to 256 bytes are 16 apart: class i is 32 + 16 i. */
#define SLAB_EVEN_MAX 256
#define SLAB_EVEN_N 15

static int class_of(size_t n)
{
    /* Per allocation (and per size asked of an entry): the small blocks a
     * large state is made of by arithmetic, the rest by binary search. */
    if (n <= SLAB_EVEN_MAX)
        return n <= 32 ? 0 : (int)((n + 15) / 16) - 2;
    int lo = SLAB_EVEN_N, hi = WEIR__SLAB_NCLASS - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (class_size[mid] >= n)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void weir__slab_init(weir__slab *s)
{
    memset(s, 0, sizeof *s);
}

static void *page_next(void *page)
{
    void *next;
    memcpy(&next, page, sizeof next);
    return next;
}

/* Whether the n bytes at p lie below 2^WEIR__SLAB_ADDR_BITS (see slab.h). */
static bool addr_fits(const void *p, size_t n)
{
#if UINTPTR_MAX > UINT32_MAX
    return ((uintptr_t)p + n) >> WEIR__SLAB_ADDR_BITS == 0;
#else
    (void)p, (void)n;
    return true;
#endif
}

static void free_page(void *p)
{
    void *next;
    size_t size;
    page_hdr(p, &size, &next);
    UNPOISON(p, size);
    if (size == BIG_PAGE)
        weir__bigmem_free(p);
    else
        weir_free(p);
}

/* A block to free at _fini: a page, or a large block with the low bit set (blocks are 16-aligned). */
#define FINI_LARGE ((uintptr_t)1)

static int by_address(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return (x > y) - (x < y);
}

/*
 * Pages and large blocks are freed lowest address first. In the order they
 * were taken (newest first) each free met the allocator's free top of its
 * heap and gave that memory back to the system at once, one madvise (and a
 * TLB flush on every core running the process) per block: Nexmark q4's
 * state (165 MB) took ~800 of them at its end, 8 % of its CPU time or more
 * under load. Lowest first, blocks that lie together join into one free
 * range and go back together (~30 calls). The addresses are sorted in an
 * array (each block's header read once, as the frees read it); without
 * memory for it the blocks are freed in list order, as before.
 */
void weir__slab_fini(weir__slab *s)
{
    size_t n = 0;
    for (void *p = s->pages; p; p = page_next(p)) {
        UNPOISON(p, PAGE_HDR);
        n++;
    }
    for (large_hdr *h = s->large; h; h = h->next)
        n++;
    uintptr_t *all = n > 1 ? weir_malloc(n * sizeof *all) : NULL;
    if (all) {
        size_t k = 0;
        for (void *p = s->pages; p; p = page_next(p))
            all[k++] = (uintptr_t)p;
        for (large_hdr *h = s->large; h; h = h->next)
            all[k++] = (uintptr_t)h | FINI_LARGE;
        qsort(all, n, sizeof *all, by_address);
        for (k = 0; k < n; k++) {
            if (all[k] & FINI_LARGE)
                weir_free((void *)(all[k] & ~FINI_LARGE));
            else
                free_page((void *)all[k]);
        }
        weir_free(all);
    } else {
        for (void *p = s->pages, *next; p; p = next) {
            next = page_next(p);
            free_page(p);
        }
        for (large_hdr *h = s->large, *next; h; h = next) {
            next = h->next;
            weir_free(h);
        }
    }
    weir__slab_init(s);
}

size_t weir__slab_round(size_t n)
{
    if (n <= WEIR__SLAB_MAX)
        return class_size[class_of(n)];
    return (n + 15) & ~(size_t)15;
}

/* A spare region of at least this many bytes stays one (smaller: a block of the free lists). */
#define SPARE_MIN (WEIR__SLAB_MAX + (size_t)PAGE_HDR)

/* The region (p, size) of a page as spare room (s->spare): its first word links the next, its
 * second holds its size. */
static void spare_push(weir__slab *s, uint8_t *p, size_t size)
{
    UNPOISON(p, 2 * sizeof(void *));
    memcpy(p, &s->spare, sizeof(void *));
    memcpy(p + sizeof(void *), &size, sizeof size);
    s->spare = p;
    POISON(p, size);
}

/*
 * Bump room of at least need bytes: the newest spare region where it holds
 * them, else a new page. The old room's tail is kept: as spare room when
 * it is large (a large block did not fit), else in the free list of the
 * largest class it can hold. Returns false when out of memory.
 */
static bool bump_refill(weir__slab *s, size_t need)
{
    if (s->bump_left >= SPARE_MIN) {
        spare_push(s, s->bump, s->bump_left);
    } else if (s->bump_left >= class_size[0]) {
        int t = class_of(s->bump_left);
        if (class_size[t] > s->bump_left)
            t--;
        UNPOISON(s->bump, class_size[t]);
        memcpy(s->bump, &s->free[t], sizeof(void *));
        s->free[t] = s->bump;
        POISON(s->bump, class_size[t]);
    }
    s->bump_left = 0;
    if (s->spare) {
        uint8_t *r = s->spare;
        size_t size;
        UNPOISON(r, 2 * sizeof(void *));
        memcpy(&size, r + sizeof(void *), sizeof size);
        if (size >= need) {
            memcpy(&s->spare, r, sizeof(void *));
            POISON(r, 2 * sizeof(void *));
            s->bump = r;
            s->bump_left = size;
            return true;
        }
        POISON(r, 2 * sizeof(void *));
    }
    size_t psize = s->bytes >= BIG_AFTER ? BIG_PAGE : WEIR__SLAB_PAGE;
    uint8_t *page = psize == BIG_PAGE ? weir__bigmem_alloc(psize, 16) : weir_malloc(psize);
    if (page && !addr_fits(page, psize)) {
        if (psize == BIG_PAGE)
            weir__bigmem_free(page);
        else
            weir_free(page);
        page = NULL;
    }
    if (!page)
        return false;
    memcpy(page, &s->pages, sizeof(void *));
    memcpy(page + sizeof(void *), &psize, sizeof psize);
    s->pages = page;
    s->bytes += psize;
    s->bump = page + PAGE_HDR;
    s->bump_left = psize - PAGE_HDR;
    POISON(page, psize);
    return true;
}

/* sz bytes of bump room (the caller made sure of them). */
static void *bump_take(weir__slab *s, size_t sz)
{
    void *p = s->bump;
    s->bump += sz;
    s->bump_left -= sz;
    UNPOISON(p, sz);
    return p;
}

void *weir__slab_alloc(weir__slab *s, size_t n)
{
    if (n > WEIR__SLAB_MAX) {
        size_t sz = weir__slab_round(n);
        large_hdr *h;
        /* Once pages are big, a block up to WEIR__SLAB_CARVE_MAX is carved from them: hash table
         * slots in huge pages, where one page fault maps 2 MiB and a probe rarely misses the TLB
         * (from weir_malloc each table took 4 KiB pages, one fault and TLB miss each). */
        if (s->bytes >= BIG_AFTER && sz <= WEIR__SLAB_CARVE_MAX - sizeof *h) {
            if (s->bump_left < sizeof *h + sz && !bump_refill(s, sizeof *h + sz))
                return NULL;
            h = bump_take(s, sizeof *h + sz);
            h->prev = &carved_mark;
            h->next = NULL;
            return h + 1;
        }
        h = weir_malloc(sizeof *h + sz);
        if (h && !addr_fits(h, sizeof *h + sz)) {
            weir_free(h);
            h = NULL;
        }
        if (!h)
            return NULL;
        large_link(s, h);
        s->bytes += sz;
        return h + 1;
    }
    int c = class_of(n);
    size_t sz = class_size[c];
    void *p = s->free[c];
    if (p) {
        UNPOISON(p, sz);
        memcpy(&s->free[c], p, sizeof(void *));
        return p;
    }
    if (s->bump_left < sz && !bump_refill(s, sz))
        return NULL;
    return bump_take(s, sz);
}

/*
 * Block q of n bytes, which realloc moved out of reach (see slab.h), copied
 * into a block that is not. p is gone by then, so there is no failure to
 * report that would leave it as it was: with no such block the process
 * stops.
 */
static large_hdr *move_below(large_hdr *q, size_t n)
{
    large_hdr *m = weir_malloc(n);
    if (!m || !addr_fits(m, n)) {
        fprintf(stderr, "weir: no memory below 2^%d for keyed state\n", WEIR__SLAB_ADDR_BITS);
        abort();
    }
    memcpy(m, q, n);
    weir_free(q);
    return m;
}

void *weir__slab_grow(weir__slab *s, void *p, size_t size, size_t n)
{
    size_t sz = weir__slab_round(n);
    large_hdr *h = (large_hdr *)p - 1;
    if (h->prev == &carved_mark) { /* carved from a page: copied into a new block */
        void *q = weir__slab_alloc(s, n);
        if (!q)
            return NULL;
        memcpy(q, p, size);
        weir__slab_free(s, p, size);
        return q;
    }
    large_unlink(s, h);
    large_hdr *q = weir_realloc(h, sizeof *q + sz);
    if (q && !addr_fits(q, sizeof *q + sz))
        q = move_below(q, sizeof *q + sz);
    if (!q) {
        large_link(s, h);
        return NULL;
    }
    large_link(s, q);
    s->bytes += sz - size;
    return q + 1;
}

void weir__slab_free(weir__slab *s, void *p, size_t size)
{
    if (!p)
        return;
    if (size > WEIR__SLAB_MAX) {
        large_hdr *h = (large_hdr *)p - 1;
        if (h->prev == &carved_mark) {
            spare_push(s, (uint8_t *)h, sizeof *h + size);
            return;
        }
        large_unlink(s, h);
        s->bytes -= size;
        weir_free(h);
        return;
    }
    int c = class_of(size);
    memcpy(p, &s->free[c], sizeof(void *));
    s->free[c] = p;
    POISON(p, class_size[c]);
}
