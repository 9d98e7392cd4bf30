/*
 * connector/kafka/conf.c - the Kafka client configuration of a table:
 * 'properties.*' options handed to librdkafka one by one, so that a bad
 * one is reported at its own position in the DDL.
 */
#ifdef WEIR_HAVE_KAFKA /* built only with librdkafka */
#include <string.h>

#include "connector/kafka/kafka_internal.h"

#define PROPERTIES "properties."

int weir__kafka_conf_from_options(weir__optset *o, rd_kafka_conf_t **out)
{
    *out = NULL;
    if (weir__opt_index(o, PROPERTIES "bootstrap.servers") < 0)
        return weir__opt_missing(o, PROPERTIES "bootstrap.servers",
                                 " (the Kafka brokers, host:port,...)");
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (!conf)
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    for (size_t i = 0; i < o->n; i++) {
        const char *key = o->opts[i].key;
        if (strncmp(key, PROPERTIES, strlen(PROPERTIES)) != 0)
            continue;
        o->used[i] = true;
        char why[512];
        if (rd_kafka_conf_set(conf, key + strlen(PROPERTIES),
                              o->opts[i].value, why,
                              sizeof why) != RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            return weir__opt_fail(o, i, WEIR_EINVAL, "option '%s': %s", key,
                                  why);
        }
    }
    *out = conf;
    return 0;
}

#endif /* WEIR_HAVE_KAFKA */
