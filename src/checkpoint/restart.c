/*
 * checkpoint/restart.c - restarting a failed job from its newest checkpoint
 * (the fixed-delay restart strategy).
 *
 * A job instance runs once (weir_job is not restartable), so a restart
 * builds a new instance through the caller's build function and restores it
 * from the checkpoint the failed instance completed last - not from "the
 * newest in the folder", which after a fresh start could belong to an
 * earlier run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "checkpoint/coordinator.h"
#include "weir/connector.h"

void weir_restart_strategy_init(weir_restart_strategy *rs)
{
    memset(rs, 0, sizeof *rs);
    rs->delay_ms = 1000;
}

int weir_restart_strategy_set(weir_restart_strategy *rs, const char *key,
                              const char *value, weir_error *err)
{
    if (!rs || !key || !value)
        return weir_error_set(err, WEIR_EINVAL,
                              "weir_restart_strategy_set: missing argument");
    if (!strcmp(key, "restart-strategy.type") ||
        !strcmp(key, "restart-strategy")) {
        if (!strcasecmp(value, "none") || !strcasecmp(value, "off") ||
            !strcasecmp(value, "disable")) {
            rs->attempts = 0;
            return 0;
        }
        if (!strcasecmp(value, "fixed-delay") ||
            !strcasecmp(value, "fixeddelay")) {
            if (rs->attempts == 0)
                rs->attempts = 1;
            return 0;
        }
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "option '%s': '%s' is not supported (weir has "
                              "'none' and 'fixed-delay')",
                              key, value);
    }
    if (!strcmp(key, "restart-strategy.fixed-delay.attempts")) {
        char *end;
        long long v = strtoll(value, &end, 10);
        if (end == value || *end || v < 0 || v > UINT32_MAX)
            return weir_error_set(err, WEIR_EINVAL,
                                  "option '%s': expected a count, got '%s'",
                                  key, value);
        rs->attempts = (uint32_t)v;
        return 0;
    }
    if (!strcmp(key, "restart-strategy.fixed-delay.delay")) {
        int64_t ms;
        if (weir_option_parse_duration(value, &ms) || ms < 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "option '%s': expected a duration, got '%s'",
                                  key, value);
        rs->delay_ms = ms;
        return 0;
    }
    return WEIR_ENOTFOUND;
}

/* Waits delay_ms on the strategy's clock, looking at it every few milliseconds.
 */
static void wait_delay(const weir_restart_strategy *rs)
{
    weir_clock clock = rs->clock.now_ms ? rs->clock : weir_clock_system();
    int64_t until = weir_clock_now(&clock) + rs->delay_ms;
    for (;;) {
        int64_t left = until - weir_clock_now(&clock);
        if (left <= 0)
            return;
        struct timespec ts = {0, (long)(left < 10 ? left : 10) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

int weir_job_run_restartable(weir_job_build_fn build, void *ud,
                             const weir_checkpoint_config *cfg,
                             const weir_restart_strategy *rs,
                             uint32_t *restarts, weir_error *err)
{
    if (!build || !cfg)
        return weir_error_set(err, WEIR_EINVAL,
                              "weir_job_run_restartable: missing argument");
    weir_checkpoint_config c = *cfg;
    char from[800] = "";
    uint32_t attempt = 0;
    if (restarts)
        *restarts = 0;
    for (;;) {
        weir_job *job = NULL;
        int rc = build(ud, &job, err);
        if (rc)
            return rc;
        if (attempt > 0) {
            c.restore = from[0] ? WEIR_RESTORE_PATH : WEIR_RESTORE_FRESH;
            c.restore_path = from[0] ? from : NULL;
        }
        if ((rc = weir_job_enable_checkpoints(job, &c, err))) {
            weir_job_destroy(job);
            return rc;
        }
        rc = weir_job_run(job);
        if (rc == 0) {
            weir_job_destroy(job);
            return 0;
        }
        char msg[1024];
        snprintf(msg, sizeof msg, "%s",
                 weir_job_error(job)[0] ? weir_job_error(job)
                                        : weir_strerror(rc));
        /* The next attempt resumes where this one got: its last checkpoint,
         * else where it started. */
        weir_checkpoint_stats st;
        if (weir_job_checkpoint_stats(job, &st) == 0 && st.last_id)
            snprintf(from, sizeof from, "%s/chk-%" PRIu64, c.dir, st.last_id);
        else if (weir_job_restored_from(job)[0])
            snprintf(from, sizeof from, "%s", weir_job_restored_from(job));
        weir_job_destroy(job);
        if (!rs || attempt >= rs->attempts)
            return weir_error_set(err, rc, "%s", msg);
        attempt++;
        if (restarts)
            *restarts = attempt;
        weir__ckpt_log(&c,
                       "the job failed: %s; restarting in %" PRId64
                       " ms (restart %u of %u)",
                       msg, rs->delay_ms, attempt, rs->attempts);
        wait_delay(rs);
    }
}
