/*
 * sql/arena.c - bump allocator for syntax trees.
 *
 * Chunks double in size from 4 KiB up to 256 KiB; a request larger than
 * half a chunk gets a chunk of its own so big token arrays do not waste the
 * tail of a normal chunk. Invariant: head->used <= head->cap, and every
 * returned pointer is aligned to ALIGN.
 */
#include <stdalign.h>
#include <string.h>

#include "sql/arena.h"

#define ALIGN alignof(max_align_t)
#define MIN_CHUNK 4096u
#define MAX_CHUNK (256u * 1024u)

typedef struct chunk {
    struct chunk *next;
    size_t cap; /* usable bytes after the header */
    size_t used;
    alignas(max_align_t) unsigned char data[];
} chunk;

struct weir__sql_arena {
    chunk *head;
    size_t next_size; /* size of the next regular chunk */
    size_t total;     /* bytes obtained from the allocator */
};

weir__sql_arena *weir__sql_arena_create(void)
{
    weir__sql_arena *a = weir_calloc(1, sizeof *a);
    if (a)
        a->next_size = MIN_CHUNK;
    return a;
}

void weir__sql_arena_destroy(weir__sql_arena *a)
{
    if (!a)
        return;
    chunk *c = a->head;
    while (c) {
        chunk *next = c->next;
        weir_free(c);
        c = next;
    }
    weir_free(a);
}

static chunk *new_chunk(weir__sql_arena *a, size_t cap)
{
    if (cap > SIZE_MAX - sizeof(chunk))
        return NULL;
    chunk *c = weir_malloc(sizeof(chunk) + cap);
    if (!c)
        return NULL;
    c->cap = cap;
    c->used = 0;
    a->total += sizeof(chunk) + cap;
    return c;
}

void *weir__sql_arena_alloc_raw(weir__sql_arena *a, size_t size)
{
    if (size > SIZE_MAX - ALIGN)
        return NULL;
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (size == 0)
        size = ALIGN;
    chunk *c = a->head;
    if (c && c->cap - c->used >= size) {
        void *p = c->data + c->used;
        c->used += size;
        return p;
    }
    if (size > a->next_size / 2) {
        /* A big block: own chunk, linked behind the head so the head's
         * free space stays usable. */
        chunk *big = new_chunk(a, size);
        if (!big)
            return NULL;
        big->used = size;
        if (c) {
            big->next = c->next;
            c->next = big;
        } else {
            big->next = NULL;
            a->head = big;
        }
        return big->data;
    }
    chunk *n = new_chunk(a, a->next_size);
    if (!n)
        return NULL;
    if (a->next_size < MAX_CHUNK)
        a->next_size *= 2;
    n->next = c;
    a->head = n;
    n->used = size;
    return n->data;
}

void *weir__sql_arena_alloc(weir__sql_arena *a, size_t size)
{
    void *p = weir__sql_arena_alloc_raw(a, size);
    if (p)
        memset(p, 0, size);
    return p;
}

char *weir__sql_arena_strndup(weir__sql_arena *a, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        return NULL;
    char *d = weir__sql_arena_alloc(a, n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

size_t weir__sql_arena_bytes(const weir__sql_arena *a)
{
    return a->total;
}
