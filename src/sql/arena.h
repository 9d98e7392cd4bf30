/*
 * sql/arena.h - a bump allocator for syntax trees (internal to sql/).
 *
 * Memory comes from chunks obtained with weir_malloc and is returned only
 * all at once by weir__sql_arena_destroy, so a parse that fails half-way
 * frees everything it built in one call. Allocations are zeroed and aligned
 * for any type.
 */
#ifndef WEIR_SQL_ARENA_H
#define WEIR_SQL_ARENA_H

#include "weir/common.h"

typedef struct weir__sql_arena weir__sql_arena;

weir__sql_arena *weir__sql_arena_create(void);
void weir__sql_arena_destroy(weir__sql_arena *a);
/* Zeroed memory valid until the arena is destroyed, or NULL when out of
 * memory (or when size overflows). */
void *weir__sql_arena_alloc(weir__sql_arena *a, size_t size);
/* Like weir__sql_arena_alloc but not zeroed: for arrays about to be
 * filled by a copy. */
void *weir__sql_arena_alloc_raw(weir__sql_arena *a, size_t size);
/* NUL-terminated copy of n bytes, or NULL. */
char *weir__sql_arena_strndup(weir__sql_arena *a, const char *s, size_t n);
/* Bytes obtained from the allocator so far (for tests and statistics). */
size_t weir__sql_arena_bytes(const weir__sql_arena *a);

#endif
