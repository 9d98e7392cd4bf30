/*
 * util/alloc.h - what util/bigmem asks of the allocator (internal).
 */
#ifndef WEIR_UTIL_ALLOC_H
#define WEIR_UTIL_ALLOC_H

#include <stdbool.h>

/*
 * Whether a block may be mapped straight from the system: true while the
 * default allocator is in place. Counts as one allocation for
 * weir_alloc_fail_after: *fail tells that this one is to fail.
 */
bool weir__alloc_system(bool *fail);

#endif
