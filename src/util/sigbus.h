/*
 * util/sigbus.h - reading a file mapping that may shrink under the reader.
 *
 * A load from a mapped page that lies past the end of its file raises
 * SIGBUS. A reader that maps a file arms a guard for the code that reads
 * the mapping; a SIGBUS whose address lies in the guard's range, in the
 * thread that armed it, jumps back to the guard's sigsetjmp point instead
 * of killing the process. Any other SIGBUS goes to the handler that was
 * installed before weir's (or, if none, the default action), so a program
 * that embeds weir keeps its own behaviour.
 *
 * The guarded code must take no lock and hold no allocation that a jump
 * would leak or leave half-made while it loads from the mapping: the jump
 * can only happen at such a load.
 *
 *     weir__sigbus_guard g;
 *     if (WEIR__SIGBUS_CAUGHT(&g)) { weir__sigbus_disarm(); ...g.fault... }
 *     weir__sigbus_arm(&g, base, len);
 *     ... read base[0, len) ...
 *     weir__sigbus_disarm();
 */
#ifndef WEIR_UTIL_SIGBUS_H
#define WEIR_UTIL_SIGBUS_H

#include <setjmp.h>
#include <stddef.h>

typedef struct weir__sigbus_guard {
    sigjmp_buf jb;
    /* the bytes a fault may hit: [lo, hi); a reader moves them along */
    const char *volatile lo;
    const char *volatile hi;
    const char *volatile fault; /* the faulting address, after a jump */
} weir__sigbus_guard;

/* Installs the process-wide handler (once); 0, or an errno value. */
int weir__sigbus_install(void);
/* Makes g the calling thread's guard, over [p, p + n). */
void weir__sigbus_arm(weir__sigbus_guard *g, const void *p, size_t n);
/* Moves the armed guard to [p, p + n) (a new window of the mapping). */
void weir__sigbus_move(weir__sigbus_guard *g, const void *p, size_t n);
/* The calling thread has no guard any more. */
void weir__sigbus_disarm(void);

/* Nonzero when a fault in the guard's range came back here (the signal
 * mask is restored). A macro: sigsetjmp must be called by the frame that
 * stays live while the guard is armed. */
#define WEIR__SIGBUS_CAUGHT(g) sigsetjmp((g)->jb, 1)

#endif
