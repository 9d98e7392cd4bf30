/*
 * tests/support/partname.h - part file names of the filesystem sink in
 * tests. The sink names its files "part-<writer>-<run>-<subtask>-<n>.<ext>"
 * (writer: 8 hex digits, run: 16), and the run is new in every run; tests
 * that only care about subtask and counter compare names with the two ids
 * left out ("part-<subtask>-<n>.<ext>") and open files through
 * pn_path(), which finds the one file that short name stands for.
 */
#ifndef WEIR_TEST_PARTNAME_H
#define WEIR_TEST_PARTNAME_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static inline bool pn_hex_run(const char *p, int n)
{
    for (int i = 0; i < n; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return false;
    return true;
}

/* Removes "<writer>-<run>-" after every "part-" in s, in place; returns s. */
static inline char *pn_short(char *s)
{
    char *w = s;
    for (const char *r = s; *r;) {
        if (!strncmp(r, "part-", 5) && pn_hex_run(r + 5, 8) && r[13] == '-' &&
            pn_hex_run(r + 14, 16) && r[30] == '-') {
            memmove(w, "part-", 5);
            w += 5;
            r += 31;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    return s;
}

/* The path of the file that "DIR/part-<subtask>-<n>.<ext>" (or the hidden
 * ".part-...") stands for, in a static buffer; path itself if none or more
 * than one file matches. */
static inline const char *pn_path(const char *path)
{
    static char out[4][1024];
    static int next;
    char *o = out[next++ % 4];
    snprintf(o, sizeof out[0], "%s", path);
    char *slash = strrchr(o, '/');
    if (!slash)
        return o;
    *slash = '\0';
    const char *want = slash + 1;
    DIR *d = opendir(o);
    int found = 0;
    char match[512] = "";
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char name[512];
        snprintf(name, sizeof name, "%s", e->d_name);
        if (!strcmp(pn_short(name), want) && strcmp(e->d_name, want)) {
            found++;
            snprintf(match, sizeof match, "%s", e->d_name);
        }
    }
    if (d)
        closedir(d);
    if (found == 1) {
        size_t n = strlen(o);
        snprintf(o + n, sizeof out[0] - n, "/%s", match);
    } else {
        *slash = '/';
    }
    return o;
}

#endif
