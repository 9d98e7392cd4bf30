/*
 * util/dirlock.h - one running weir process per folder.
 *
 * A job holds a lock on its checkpoint folder and on every sink folder it
 * commits to, so that a second process on the same folder is refused
 * instead of interleaving its commits with the first one's. The lock is
 * flock(2) on a lock file in the folder (".weir.lock"), which also holds the
 * holder's process id for the message: the kernel drops the lock when the
 * process ends, kill -9 included, so a crash never leaves a stale lock
 * (only the file, which the next holder reuses). A clean release removes
 * the file.
 *
 * Within one process the lock is shared: every acquisition of the same
 * folder (several sink subtasks, two INSERTs into one table, a job
 * restarted by the restart strategy) takes a reference, and the flock goes
 * with the last one. Only other processes are kept out.
 */
#ifndef WEIR_UTIL_DIRLOCK_H
#define WEIR_UTIL_DIRLOCK_H

#include "weir/common.h"

#define WEIR__DIRLOCK_FILE ".weir.lock"

typedef struct weir__dirlock weir__dirlock;

/*
 * Locks folder dir (which must exist) for this process; *out transferred
 * (release with weir__dirlock_release). what names the folder's role in
 * messages ("checkpoint folder"). WEIR_ESTATE when another process holds
 * it: err names the folder and the holder's process id.
 */
int weir__dirlock_acquire(const char *dir, const char *what,
                          weir__dirlock **out, weir_error *err);
/* Drops one reference; NULL does nothing. */
void weir__dirlock_release(weir__dirlock *l);

#endif
