/*
 * rest/assets.h - the web UI's files, compiled into the binary (the build
 * generates their table from src/rest/ui/ with cmake/embed_assets.cmake).
 */
#ifndef WEIR_REST_ASSETS_H
#define WEIR_REST_ASSETS_H

#include <stddef.h>

typedef struct weir__rest_asset {
    const char *path; /* "/index.html" */
    const char *type; /* its Content-Type */
    const unsigned char *data;
    size_t len;
} weir__rest_asset;

extern const weir__rest_asset weir__rest_assets[];
extern const size_t weir__rest_n_assets;

#endif
