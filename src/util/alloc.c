/*
 * util/alloc.c - the one allocator every weir module uses.
 *
 * The allocator is process-wide and replaceable; a test can also make the
 * Nth allocation from now fail (weir_alloc_fail_after) to exercise error
 * paths. The countdown is atomic because subtasks allocate from many threads.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "weir/common.h"

static void *default_realloc(void *ud, void *ptr, size_t size)
{
    (void)ud;
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, size);
}

static weir_allocator g_alloc = {default_realloc, NULL};
static _Atomic uint64_t g_fail_countdown;

void weir_set_allocator(const weir_allocator *a)
{
    if (a)
        g_alloc = *a;
    else
        g_alloc = (weir_allocator){default_realloc, NULL};
}

void weir_alloc_fail_after(uint64_t n) { atomic_store(&g_fail_countdown, n); }

static bool should_fail(void)
{
    uint64_t n = atomic_load_explicit(&g_fail_countdown, memory_order_relaxed);
    while (n > 0) {
        if (atomic_compare_exchange_weak(&g_fail_countdown, &n, n - 1))
            return n == 1;
    }
    return false;
}

void *weir_realloc(void *ptr, size_t size)
{
    if (size == 0)
        size = 1;
    if (should_fail())
        return NULL;
    return g_alloc.realloc_fn(g_alloc.ud, ptr, size);
}

bool weir__alloc_system(bool *fail)
{
    *fail = should_fail();
    return g_alloc.realloc_fn == default_realloc;
}

void *weir_malloc(size_t size) { return weir_realloc(NULL, size); }

void *weir_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = weir_malloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void weir_free(void *ptr)
{
    if (ptr)
        g_alloc.realloc_fn(g_alloc.ud, ptr, 0);
}

char *weir_strndup(const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *d = weir_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *weir_strdup(const char *s) { return s ? weir_strndup(s, strlen(s)) : NULL; }
