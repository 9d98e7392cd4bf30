/*
 * connector/file/fileio.h - the system calls the file connectors make, in
 * one replaceable table, so tests can inject short writes, ENOSPC and
 * failing renames. Functions return what the POSIX call returns (-1 with
 * errno set on failure).
 */
#ifndef WEIR_CONNECTOR_FILEIO_H
#define WEIR_CONNECTOR_FILEIO_H

#include <sys/types.h>

#include "weir/common.h"

typedef struct weir__file_io {
    int (*open)(const char *path, int flags, mode_t mode);
    ssize_t (*pread)(int fd, void *buf, size_t n, off_t off);
    ssize_t (*write)(int fd, const void *buf, size_t n);
    int (*fsync)(int fd);
    int (*close)(int fd);
    int (*rename)(const char *from, const char *to);
    int (*unlink)(const char *path);
} weir__file_io;

/*
 * The table in use; tests may point it at their own and restore it. The
 * default (weir__fio_posix) calls util/io.h's weir__io_ops, so a test can
 * also fail file connector calls there, together with checkpoint storage.
 */
extern const weir__file_io *weir__fio;
extern const weir__file_io weir__fio_posix;

/*
 * The mmap(2) the file source maps its windows with (mmap itself); a test
 * may point it at its own, one that fails, and restore it. Apart from the
 * table above: a reader maps only while the table is weir__fio_posix.
 */
extern void *(*weir__fio_mmap)(void *addr, size_t n, int prot, int flags, int fd, off_t off);

/* Writes all of buf (retrying short writes and EINTR); 0 or -errno. */
int weir__fio_write_all(int fd, const void *buf, size_t n);
/* Maps an errno value to a WEIR_E... code. */
int weir__fio_errno_code(int e);
/* mkdir -p; 0 or -errno. */
int weir__fio_mkdirs(const char *path);
/* fsync of a directory, so renames in it are durable; 0 or -errno. */
int weir__fio_fsync_dir(const char *path);

struct weir__optset;
/*
 * The filesystem connector's option key (a path): a local path, file:///,
 * or object storage (s3://bucket/prefix, kept as is). Other schemes, and
 * s3:// in a weir built without libcurl, are refused naming the option.
 */
int weir__fio_opt_path(struct weir__optset *o, const char *key,
                       const char **path);
/* Whether path is on object storage (s3://). */
bool weir__fio_is_s3(const char *path);

struct weir_buf;
/*
 * Appends p[0, n) to o with the "%XX" escapes of partition folder names
 * undone (Flink's escaping, which the filesystem sink writes); 0 or
 * WEIR_ENOMEM.
 */
int weir__fio_put_unescaped(struct weir_buf *o, const char *p, size_t n);

#endif
