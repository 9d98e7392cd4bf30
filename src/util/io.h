/*
 * util/io.h - the file-system calls weir makes for durable data
 * (checkpoints, committed sink files), behind a replaceable table so tests
 * can inject short writes, ENOSPC and crashes at chosen points.
 *
 * Every function returns 0 or a negative WEIR_E... code; errno never leaks
 * out as a side channel (ENOSPC becomes WEIR_ENOSPC, the rest WEIR_EIO).
 */
#ifndef WEIR_UTIL_IO_H
#define WEIR_UTIL_IO_H

#include <sys/types.h>

#include "weir/common.h"

typedef struct weir__io {
    int (*open)(const char *path, int flags, int mode);       /* fd or -errno */
    ssize_t (*write)(int fd, const void *p, size_t n);        /* bytes or -errno */
    ssize_t (*read)(int fd, void *p, size_t n);
    ssize_t (*pread)(int fd, void *p, size_t n, off_t off); /* as read */
    int (*fsync)(int fd);
    int (*close)(int fd);
    int (*rename)(const char *from, const char *to);
    int (*unlink)(const char *path);
} weir__io;

/* The table in force (system calls by default). */
extern weir__io weir__io_ops;
void weir__io_reset(void);
/* Whether the table in force is the system calls (no test replaced it). */
bool weir__io_is_default(void);

/*
 * Writes all of data to fd, going on after short writes and EINTR; a write
 * that fails (or writes nothing) ends it with its error.
 */
int weir__io_write_all(int fd, const void *data, size_t len);
/*
 * Writes data to path atomically: a temporary file in the same folder,
 * written fully, fsynced, renamed over path, then the folder fsynced.
 * On failure the temporary is removed and path is untouched.
 */
int weir__io_write_atomic(const char *path, const void *data, size_t len);
/* Reads a whole file into *out (allocated, transferred) and *len. */
int weir__io_read_file(const char *path, uint8_t **out, size_t *len);
/* mkdir -p. */
int weir__io_mkdirs(const char *path, int mode);
/*
 * Makes sure folder dir exists (mkdir -p) and that files can be created in
 * it, by creating and removing a hidden probe file. Returns 0 or a
 * WEIR_E... code; on failure why (why_cap bytes) says what stopped it as the
 * system puts it ("Read-only file system", "Permission denied"), so a
 * message can say more than "I/O error".
 */
int weir__io_check_dir_writable(const char *dir, int mode, char *why, size_t why_cap);
/*
 * rm -r of a folder (best effort; returns the first error, WEIR_ENOTFOUND
 * when path does not exist). Never follows a symbolic link: a link at path
 * or anywhere below it is removed itself, and what it points to is left
 * alone.
 */
int weir__io_remove_tree(const char *path);
/* As weir__io_remove_tree for what is inside the folder at path; the folder
 * itself stays (with its mode and owner). */
int weir__io_empty_dir(const char *path);
int weir__io_fsync_dir(const char *path);
/*
 * A new folder of this process's own under $TMPDIR (else /tmp), named
 * "<prefix>-XXXXXX" with the X's made unique; its path in out (cap bytes).
 * 0, or WEIR_EIO (out then holds the name tried).
 */
int weir__io_temp_dir(const char *prefix, char *out, size_t cap);
/*
 * As weir__io_temp_dir, for a folder that must not outlive its process:
 * beside it, "<folder>.owner" holds the pid under an exclusive lock, kept
 * while *owner stays open. First removes the folders of that prefix whose
 * owner file nobody holds (a process killed with SIGKILL or crashed left
 * them). weir__io_temp_dir_release removes the folder and its owner file
 * and closes owner.
 */
int weir__io_temp_dir_owned(const char *prefix, char *out, size_t cap, int *owner);
void weir__io_temp_dir_release(const char *path, int owner);

#endif
