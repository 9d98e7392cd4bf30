/*
 * connector/kafka/upsert.h - the last row of every key of one partition, for
 * the 'upsert-kafka' source. Internal to connector/kafka/.
 */
#ifndef WEIR_KAFKA_UPSERT_H
#define WEIR_KAFKA_UPSERT_H

#include <stdint.h>

#include "weir/buf.h"

typedef struct weir__kafka_uent {
    uint64_t hash; /* first: util/hindex.h reads it */
    void *key;     /* the message key's bytes (owned) */
    uint32_t klen;
    void *row; /* the key's last row (ops/rowcodec.h encoding, owned);
                  NULL: deleted */
    uint32_t rlen;
} weir__kafka_uent;

typedef struct weir__kafka_utab {
    weir__kafka_uent *ents;
    uint32_t n, cap, n_live;
    uint32_t *slots;
    uint32_t n_slots;
} weir__kafka_utab;

void weir__kafka_utab_init(weir__kafka_utab *t);
void weir__kafka_utab_fini(weir__kafka_utab *t);
/* The entry of key (deleted or not), or NULL. Valid until the next put. */
weir__kafka_uent *weir__kafka_utab_find(weir__kafka_utab *t, const void *key,
                                        uint32_t klen);
/* Sets key's row (both copied). Returns 0 or WEIR_ENOMEM. */
int weir__kafka_utab_put(weir__kafka_utab *t, const void *key, uint32_t klen,
                         const void *row, uint32_t rlen);
/* Forgets e's row (the key was deleted); NULL does nothing. */
void weir__kafka_utab_delete(weir__kafka_utab *t, weir__kafka_uent *e);
/* Appends the live entries to out / adds them back from c (WEIR_ECORRUPT). */
int weir__kafka_utab_save(const weir__kafka_utab *t, weir_buf *out);
int weir__kafka_utab_load(weir__kafka_utab *t, weir_cursor *c);

#endif
