/*
 * tests/tools/kafka_mock.c - a Kafka cluster for the tests: librdkafka's mock
 * cluster, which speaks the Kafka protocol over TCP to any client (weir,
 * kcat, another process's consumer group), kept alive in its own process.
 *
 *   weir-kafka-mock [-b BROKERS] [-f BOOTSTRAP_FILE] [-s] TOPIC:PARTITIONS ...
 *
 * Creates the topics, writes the bootstrap address ("127.0.0.1:PORT,...")
 * to BOOTSTRAP_FILE (atomically: a test that sees the file can connect) or
 * to standard output, and serves until SIGTERM or SIGINT, or with -s until
 * standard input ends (not the default: a background job of a shell script
 * reads /dev/null). Topics not named are created on first use with 1 partition (the
 * mock's auto-create), so tests name every topic whose partition count
 * matters.
 *
 * What the mock cluster does not do: transactions are accepted but not
 * enforced (aborted messages reach read_committed consumers), and zombie
 * producers are not fenced. Tests of transactional output assert on what
 * was sent and in which order, not on what a consumer sees.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int write_bootstrap(const char *path, const char *bootstraps)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        fprintf(stderr, "weir-kafka-mock: path too long: %s\n", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", bootstraps) < 0 || fclose(f) != 0) {
        fprintf(stderr, "weir-kafka-mock: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    if (rename(tmp, path) != 0) {
        fprintf(stderr, "weir-kafka-mock: cannot rename %s to %s: %s\n", tmp, path,
                strerror(errno));
        return -1;
    }
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: weir-kafka-mock [-b BROKERS] [-f BOOTSTRAP_FILE] [-s] TOPIC:PARTITIONS ...\n");
}

int main(int argc, char **argv)
{
    int brokers = 1;
    const char *bootstrap_file = NULL;
    bool watch_stdin = false;
    int opt;
    while ((opt = getopt(argc, argv, "b:f:sh")) != -1) {
        switch (opt) {
        case 'b':
            brokers = atoi(optarg);
            if (brokers < 1 || brokers > 16) {
                fprintf(stderr, "weir-kafka-mock: -b wants 1..16 brokers, got %s\n", optarg);
                return 2;
            }
            break;
        case 'f':
            bootstrap_file = optarg;
            break;
        case 's':
            watch_stdin = true;
            break;
        default:
            usage();
            return opt == 'h' ? 0 : 2;
        }
    }

    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* The mock cluster needs a client instance to live in; it is never used
     * to produce. */
    if (rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "weir-kafka-mock: %s\n", errstr);
        return 1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (!rk) {
        fprintf(stderr, "weir-kafka-mock: %s\n", errstr);
        return 1;
    }
    rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, brokers);
    if (!mc) {
        fprintf(stderr, "weir-kafka-mock: cannot create the mock cluster\n");
        rd_kafka_destroy(rk);
        return 1;
    }

    int rc = 0;
    for (int i = optind; i < argc; i++) {
        char name[512];
        const char *colon = strrchr(argv[i], ':');
        int partitions = colon ? atoi(colon + 1) : 1;
        size_t len = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
        if (len == 0 || len >= sizeof name || partitions < 1) {
            fprintf(stderr, "weir-kafka-mock: bad topic '%s' (want NAME:PARTITIONS)\n", argv[i]);
            rc = 2;
            goto out;
        }
        memcpy(name, argv[i], len);
        name[len] = '\0';
        rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mc, name, partitions, 1);
        if (err) {
            fprintf(stderr, "weir-kafka-mock: cannot create topic %s: %s\n", name,
                    rd_kafka_err2str(err));
            rc = 1;
            goto out;
        }
    }

    const char *bootstraps = rd_kafka_mock_cluster_bootstraps(mc);
    if (bootstrap_file) {
        if (write_bootstrap(bootstrap_file, bootstraps) != 0) {
            rc = 1;
            goto out;
        }
    } else {
        printf("%s\n", bootstraps);
        fflush(stdout);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    /* Serve until a signal, or with -s until standard input closes (a
     * test that dies takes its cluster with it when it holds the other
     * end). */
    struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
    while (!stop_requested) {
        int n = poll(watch_stdin ? &pfd : NULL, watch_stdin ? 1 : 0, 200);
        if (n > 0 && (pfd.revents & (POLLIN | POLLHUP))) {
            char buf[256];
            ssize_t got = read(STDIN_FILENO, buf, sizeof buf);
            if (got <= 0)
                break;
        }
    }
out:
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(rk);
    return rc;
}
