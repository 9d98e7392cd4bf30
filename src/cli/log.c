/*
 * cli/log.c - the log lines of the weir command on stderr, and the status
 * line `weir run` keeps at the bottom of a terminal.
 *
 * Every line is levelled and timestamped (UTC, milliseconds):
 *   text: "2026-01-02T03:04:05.678Z INFO  message"
 *   json: {"time":"2026-01-02T03:04:05.678Z","level":"INFO","message":"..."}
 * (log.format, log.level). One mutex orders the lines of every thread. On a
 * terminal the status line is the last line of the screen: a log line first
 * erases it, is printed once, and the status line is drawn again under it,
 * so a message is never overwritten nor repeated.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static bool g_json;
static int g_level = WEIR_LOG_INFO;
static char g_status[512]; /* "" : no status line shown */

static const char *const LEVELS[] = {"DEBUG", "INFO", "WARN", "ERROR"};

int weir_cli_log_configure(const char *format, const char *level, char *msg, size_t cap)
{
    bool json = g_json;
    int lv = g_level;
    if (format) {
        if (!strcasecmp(format, "json"))
            json = true;
        else if (!strcasecmp(format, "text"))
            json = false;
        else {
            snprintf(msg, cap, "log.format: '%s' is not a log format (text or json)", format);
            return -1;
        }
    }
    if (level) {
        lv = -1;
        for (int i = 0; i < 4; i++)
            if (!strcasecmp(level, LEVELS[i]))
                lv = i;
        if (lv < 0 && !strcasecmp(level, "WARNING"))
            lv = WEIR_LOG_WARN;
        if (lv < 0) {
            snprintf(msg, cap, "log.level: '%s' is not a log level (DEBUG, INFO, WARN or ERROR)", level);
            return -1;
        }
    }
    pthread_mutex_lock(&g_mu);
    g_json = json;
    g_level = lv;
    pthread_mutex_unlock(&g_mu);
    return 0;
}

bool weir_cli_log_json(void)
{
    return g_json;
}

bool weir_cli_log_enabled(int level)
{
    return level >= g_level;
}

static void put_json_string(const char *s)
{
    fputc('"', stderr);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(stderr, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stderr);
        else if (*p == '\t')
            fputs("\\t", stderr);
        else if (*p < 0x20)
            fprintf(stderr, "\\u%04x", *p);
        else
            fputc(*p, stderr);
    }
    fputc('"', stderr);
}

static void vlog(int level, const char *fmt, va_list ap)
{
    if (level < g_level)
        return;
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n')
        msg[--n] = '\0';
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[48], date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when, sizeof when, "%s.%03ldZ", date, ts.tv_nsec / 1000000);
    pthread_mutex_lock(&g_mu);
    if (g_status[0])
        fputs("\r\033[K", stderr);
    if (g_json) {
        fprintf(stderr, "{\"time\":\"%s\",\"level\":\"%s\",\"message\":", when, LEVELS[level]);
        put_json_string(msg);
        fputs("}\n", stderr);
    } else {
        fprintf(stderr, "%s %-5s %s\n", when, LEVELS[level], msg);
    }
    if (g_status[0])
        fputs(g_status, stderr);
    fflush(stderr);
    pthread_mutex_unlock(&g_mu);
}

void weir_cli_log(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

void weir_cli_log_status(const char *line)
{
    pthread_mutex_lock(&g_mu);
    fputs("\r\033[K", stderr);
    snprintf(g_status, sizeof g_status, "%s", line ? line : "");
    fputs(g_status, stderr);
    fflush(stderr);
    pthread_mutex_unlock(&g_mu);
}

void weir_cli_log_checkpoint_line(void *ud, const char *line)
{
    (void)ud;
    weir_cli_log(WEIR_LOG_INFO, "%s", line);
}
