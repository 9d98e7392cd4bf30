/*
 * tests/support/crashclose.h - a filesystem sink "crash" in unit tests.
 * A sink's close removes the in-progress files it still has open (nothing
 * of them was pre-committed), which a process killed with kill -9 cannot
 * do. Tests that simulate a crash by calling close directly use
 * cc_crash_close(): it keeps hard links to the hidden in-progress files of
 * the folder tree, closes, and puts back what close removed, so the folder
 * looks as a killed process leaves it.
 */
#ifndef WEIR_TEST_CRASHCLOSE_H
#define WEIR_TEST_CRASHCLOSE_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "weir/operator.h"

#define CC_SUFFIX ".cc-keep"

static inline bool cc_ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/* keep: link every hidden ".inprogress" file to name + CC_SUFFIX;
 * !keep: put each kept link back where close removed its file. */
static inline void cc_walk(const char *dir, bool keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            cc_walk(path, keep);
        } else if (keep && e->d_name[0] == '.' &&
                   cc_ends_with(e->d_name, ".inprogress")) {
            char kept[4200];
            snprintf(kept, sizeof kept, "%s%s", path, CC_SUFFIX);
            (void)link(path, kept);
        } else if (!keep && cc_ends_with(e->d_name, CC_SUFFIX)) {
            char orig[4096];
            snprintf(orig, sizeof orig, "%.*s", (int)(strlen(path) - strlen(CC_SUFFIX)), path);
            if (access(orig, F_OK) == 0)
                unlink(path);
            else
                (void)rename(path, orig);
        }
    }
    closedir(d);
}

/* Closes op as a killed process would leave it: its in-progress files stay. */
static inline void cc_crash_close(const weir_operator_spec *spec, void *op,
                                  const char *dir)
{
    cc_walk(dir, true);
    spec->cls->close(op);
    cc_walk(dir, false);
}

#endif
