/*
 * weir/common.h - error codes, event time, the allocator and error details
 * shared by every part of weir.
 *
 * Conventions (stated once for the whole API):
 * - Functions return 0 (WEIR_OK) or a negative WEIR_E... code; results come
 *   back through out parameters.
 * - A pointer parameter is borrowed for the duration of the call unless its
 *   comment says "transferred" (the callee takes ownership) or "valid until"
 *   (a borrowed result with a stated lifetime).
 * - Heap objects have _create/_destroy; _destroy(NULL) does nothing.
 */
#ifndef WEIR_COMMON_H
#define WEIR_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes. Keep weir_strerror() in sync. */
enum {
    WEIR_OK = 0,
    WEIR_EINVAL = -1,       /* invalid argument or configuration */
    WEIR_ENOMEM = -2,       /* allocation failed */
    WEIR_EIO = -3,          /* an I/O operation failed */
    WEIR_EPARSE = -4,       /* malformed input data or SQL */
    WEIR_ENOTFOUND = -5,    /* no such item */
    WEIR_EEXIST = -6,       /* item exists already */
    WEIR_EOF = -7,          /* end of input (not an error for callers that expect it) */
    WEIR_EAGAIN = -8,       /* nothing available now; try again later */
    WEIR_ECANCELED = -9,    /* the job was stopped */
    WEIR_EUNSUPPORTED = -10,/* feature or construct not supported */
    WEIR_ECORRUPT = -11,    /* checksum mismatch or truncated data */
    WEIR_ESTATE = -12,      /* operation not valid in the current state */
    WEIR_ENOSPC = -13,      /* no space left on device */
    WEIR_ETIMEDOUT = -14,   /* an operation took longer than allowed */
    WEIR_EPLAN = -15,       /* a query cannot be planned */
    WEIR_EUSER = -16,       /* a user callback reported failure */
};

/* Returns a static, human-readable name for an error code. */
const char *weir_strerror(int code);

/*
 * Event time: epoch milliseconds. WEIR_TS_MIN means "no watermark yet",
 * WEIR_TS_MAX is the final watermark at the end of bounded input.
 */
typedef int64_t weir_ts;
#define WEIR_TS_MIN INT64_MIN
#define WEIR_TS_MAX INT64_MAX

/*
 * A detailed, user-facing error: the code plus a message that names where
 * (file, line, column, byte offset) and what was expected. Embedded by value.
 */
typedef struct weir_error {
    int code;
    char message[512];
} weir_error;

/* Sets err (if not NULL) and returns code, so callers can `return weir_error_set(...)`. */
int weir_error_set(weir_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void weir_error_clear(weir_error *err);

/*
 * The allocator. All weir memory goes through these, so tests can make the
 * Nth allocation fail. The default is the C library's; while it is in
 * place, the large blocks of growing tables (2 MiB or more) are mapped
 * from the system instead, so that they grow without a copy (they still
 * count for weir_alloc_fail_after). A replacement allocator gets those too,
 * and must return blocks aligned to 16 bytes, as the C library's are: a
 * DECIMAL of more than 18 digits is a 16-byte value, loaded aligned.
 */
typedef struct weir_allocator {
    void *(*realloc_fn)(void *ud, void *ptr, size_t size); /* size 0 = free */
    void *ud;
} weir_allocator;

void weir_set_allocator(const weir_allocator *a); /* NULL restores the default */
/* Test hook: the nth allocation from now (1-based) fails; 0 disables. */
void weir_alloc_fail_after(uint64_t n);

void *weir_malloc(size_t size);
void *weir_calloc(size_t n, size_t size);
void *weir_realloc(void *ptr, size_t size);
void weir_free(void *ptr);
char *weir_strdup(const char *s);
char *weir_strndup(const char *s, size_t n);

#ifdef __cplusplus
}
#endif
#endif
