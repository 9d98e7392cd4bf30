/*
 * connector/kafka/conf.c - a table's 'properties.*' options as a librdkafka
 * configuration, shared by the Kafka source and sink.
 */
#ifdef WEIR_HAVE_KAFKA

#include <string.h>

#include "connector/kafka/kafka_internal.h"

#define PREFIX "properties."
#define PREFIX_LEN (sizeof PREFIX - 1)

const char *const weir__fields_include[] = {"ALL", "EXCEPT_KEY", NULL};

int weir__kafka_conf_from_options(weir__optset *o, rd_kafka_conf_t **out)
{
    *out = NULL;
    if (weir__opt_index(o, PREFIX "bootstrap.servers") < 0)
        return weir__opt_missing(o, PREFIX "bootstrap.servers",
                                 " (the brokers to connect to, e.g. "
                                 "'localhost:9092')");
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (!conf)
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    for (size_t i = 0; i < o->n; i++) {
        const char *key = o->opts[i].key;
        if (o->used[i] || strncmp(key, PREFIX, PREFIX_LEN) != 0)
            continue;
        o->used[i] = true;
        char why[512];
        rd_kafka_conf_res_t res = rd_kafka_conf_set(
            conf, key + PREFIX_LEN, o->opts[i].value, why, sizeof why);
        if (res == RD_KAFKA_CONF_OK)
            continue;
        rd_kafka_conf_destroy(conf);
        if (res == RD_KAFKA_CONF_UNKNOWN)
            return weir__opt_fail(o, i, WEIR_EINVAL,
                                  "option '%s': '%s' is not a Kafka client "
                                  "property librdkafka knows (%s)",
                                  key, key + PREFIX_LEN, why);
        return weir__opt_fail(o, i, WEIR_EINVAL, "option '%s': %s", key, why);
    }
    *out = conf;
    return 0;
}

#endif
