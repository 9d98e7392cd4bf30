/*
 * state/slab.c - size-class block allocator for state records.
 *
 * Invariants: every block handed out has the size of its class (a multiple
 * of 16) or, above WEIR__SLAB_MAX, the request rounded up to 16; blocks on a
 * free list are poisoned under ASan; a page is never returned before _fini.
 */
#include <string.h>

#include "state/slab.h"
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

/* About 25% apart so that a record wastes at most a fifth of its block. */
static const uint16_t class_size[WEIR__SLAB_NCLASS] = {
    32,   48,   64,   80,   96,   112,  128,  160,  192,
    224,  256,  320,  384,  448,  512,  640,  768,  896,
    1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096,
};

/* Page header: the link to the next page, padded to keep blocks 16-aligned. */
#define PAGE_HDR 16

static int class_of(size_t n)
{
    /* Binary search: called per allocation, the table is tiny. */
    int lo = 0, hi = WEIR__SLAB_NCLASS - 1;
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

void weir__slab_fini(weir__slab *s)
{
    void *p = s->pages;
    while (p) {
        UNPOISON(p, PAGE_HDR);
        void *next;
        memcpy(&next, p, sizeof next);
        UNPOISON(p, WEIR__SLAB_PAGE);
        weir_free(p);
        p = next;
    }
    weir__slab_init(s);
}

size_t weir__slab_round(size_t n)
{
    if (n <= WEIR__SLAB_MAX)
        return class_size[class_of(n)];
    return (n + 15) & ~(size_t)15;
}

void *weir__slab_alloc(weir__slab *s, size_t n)
{
    if (n > WEIR__SLAB_MAX) {
        size_t sz = weir__slab_round(n);
        void *p = weir_malloc(sz);
        if (p)
            s->bytes += sz;
        return p;
    }
    int c = class_of(n);
    size_t sz = class_size[c];
    void *p = s->free[c];
    if (p) {
        UNPOISON(p, sz);
        memcpy(&s->free[c], p, sizeof(void *));
        return p;
    }
    if (s->bump_left < sz) {
        /*
         * The tail of the old page is too small for this class; give it to
         * the free list of the largest class it can hold so it is not lost.
         */
        if (s->bump_left >= class_size[0]) {
            int t = class_of(s->bump_left);
            if (class_size[t] > s->bump_left)
                t--;
            UNPOISON(s->bump, class_size[t]);
            memcpy(s->bump, &s->free[t], sizeof(void *));
            s->free[t] = s->bump;
            POISON(s->bump, class_size[t]);
        }
        uint8_t *page = weir_malloc(WEIR__SLAB_PAGE);
        if (!page)
            return NULL;
        memcpy(page, &s->pages, sizeof(void *));
        s->pages = page;
        s->bytes += WEIR__SLAB_PAGE;
        s->bump = page + PAGE_HDR;
        s->bump_left = WEIR__SLAB_PAGE - PAGE_HDR;
        POISON(page, WEIR__SLAB_PAGE);
    }
    p = s->bump;
    s->bump += sz;
    s->bump_left -= sz;
    UNPOISON(p, sz);
    return p;
}

void *weir__slab_grow(weir__slab *s, void *p, size_t size, size_t n)
{
    size_t sz = weir__slab_round(n);
    void *q = weir_realloc(p, sz);
    if (q)
        s->bytes += sz - size;
    return q;
}

void weir__slab_free(weir__slab *s, void *p, size_t size)
{
    if (!p)
        return;
    if (size > WEIR__SLAB_MAX) {
        s->bytes -= size;
        weir_free(p);
        return;
    }
    int c = class_of(size);
    memcpy(p, &s->free[c], sizeof(void *));
    s->free[c] = p;
    POISON(p, class_size[c]);
}
