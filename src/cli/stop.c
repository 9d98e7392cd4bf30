/*
 * cli/stop.c - how `weir run` stops on SIGINT/SIGTERM, and `weir stop JOB`.
 *
 * The signals are blocked in the thread that calls weir_cli_stopper_block
 * before any other thread exists, so every thread of the process inherits
 * the mask and only the stopper's thread takes them (sigwait): the default
 * action, which kills the process with files in progress, never runs, and
 * the job is stopped from an ordinary thread, not from a signal handler.
 *
 * The first SIGINT or SIGTERM stops the job (weir_job_stop: sources stop,
 * the data in flight drains, no window fires that had not, and with
 * checkpoints a final checkpoint is committed), or drains it with
 * --drain-on-stop or DRAIN_SIGNAL (`weir stop JOB --drain`): the stop is an
 * end of input, every window fires. A second one cancels at once, as does
 * CANCEL_SIGNAL (`weir cancel JOB`) at any time. When the
 * job has ended, one line on stderr says what was committed, and `weir run`
 * exits with 128 + the signal (130 for SIGINT, 143 for SIGTERM and for
 * `weir stop`), the shell's convention for a process ended by a signal.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "runtime/checkpoint.h"
#include "weir/checkpoint.h"
#include "weir/clock.h"

/* Wakes the stopper's thread when the job ended (never sent from outside). */
#define WAKE_SIGNAL SIGUSR2

static void stop_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, WEIR_CLI_DRAIN_SIGNAL);
    sigaddset(set, WEIR_CLI_CANCEL_SIGNAL);
    sigaddset(set, WAKE_SIGNAL);
}

int weir_cli_stopper_block(void)
{
    sigset_t set;
    stop_set(&set);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

const char *weir_cli_stop_signal_name(int sig)
{
    if (sig == SIGINT)
        return "SIGINT";
    if (sig == SIGTERM)
        return "SIGTERM";
    if (sig == WEIR_CLI_DRAIN_SIGNAL)
        return "weir stop --drain";
    if (sig == WEIR_CLI_CANCEL_SIGNAL)
        return "weir cancel";
    return "a signal";
}

static void *stopper_main(void *arg)
{
    weir_cli_stopper *s = arg;
    sigset_t set;
    stop_set(&set);
    for (;;) {
        int sig;
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig == WAKE_SIGNAL) {
            if (atomic_load(&s->ending))
                break;
            continue;
        }
        int none = 0;
        if (sig == WEIR_CLI_CANCEL_SIGNAL) {
            /* Flink's cancel: at once, whatever came before. */
            atomic_compare_exchange_strong(&s->sig, &none, sig);
            if (!atomic_exchange(&s->canceled, true)) {
                weir_cli_log(WEIR_LOG_INFO, "weir cancel: stopping at once");
                weir_job_cancel(s->job);
            }
        } else if (atomic_compare_exchange_strong(&s->sig, &none, sig)) {
            bool drain = s->drain_on_stop || sig == WEIR_CLI_DRAIN_SIGNAL;
            atomic_store(&s->drained, drain);
            weir_cli_log(WEIR_LOG_INFO, "%s: stopping%s (send it again to stop at once)",
                    weir_cli_stop_signal_name(sig),
                    drain ? ", draining: every window fires" : "");
            if (drain)
                weir_job_stop_drain(s->job);
            else
                weir_job_stop(s->job);
        } else if (!atomic_load(&s->canceled)) {
            atomic_store(&s->canceled, true);
            weir_cli_log(WEIR_LOG_INFO, "%s again: stopping at once",
                    weir_cli_stop_signal_name(sig));
            weir_job_cancel(s->job);
        }
    }
    return NULL;
}

int weir_cli_stopper_start(weir_cli_stopper *s, weir_job *job,
                           bool drain_on_stop)
{
    memset(s, 0, sizeof *s);
    s->job = job;
    s->drain_on_stop = drain_on_stop;
    atomic_init(&s->sig, 0);
    atomic_init(&s->drained, false);
    atomic_init(&s->canceled, false);
    atomic_init(&s->ending, false);
    /*
     * The thread starts with every signal blocked: it must not take one it
     * does not wait for (SIGUSR1 keeps its default action in a job without
     * checkpoints, and that action would then kill the process from here).
     */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    s->started = pthread_create(&s->thread, NULL, stopper_main, s) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!s->started) {
        /* No one would take them: give SIGINT/SIGTERM their default back. */
        sigset_t set;
        stop_set(&set);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        return WEIR_ENOMEM;
    }
    return 0;
}

void weir_cli_stopper_end(weir_cli_stopper *s)
{
    if (!s->started)
        return;
    atomic_store(&s->ending, true);
    pthread_kill(s->thread, WAKE_SIGNAL);
    pthread_join(s->thread, NULL);
    s->started = false;
}

int weir_cli_stopper_signal(const weir_cli_stopper *s)
{
    return atomic_load(&s->sig);
}

int weir_cli_stop_exit_code(int sig)
{
    return 128 + (sig == WEIR_CLI_DRAIN_SIGNAL || sig == WEIR_CLI_CANCEL_SIGNAL ? SIGTERM : sig);
}

int weir_cli_stopper_exit_code(const weir_cli_stopper *s)
{
    return weir_cli_stop_exit_code(atomic_load(&s->sig));
}

int weir_cli_stop_wait(int64_t ms)
{
    /* The stop signals are blocked in every thread (weir_cli_stopper_block)
     * and no stopper runs between attempts, so one sent now stays pending
     * until taken here. */
    sigset_t set;
    stop_set(&set);
    sigdelset(&set, WAKE_SIGNAL);
    int64_t until = weir_monotonic_ns() + ms * 1000000;
    for (;;) {
        int64_t left = until - weir_monotonic_ns();
        if (left <= 0)
            return 0;
        struct timespec ts = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
        int sig = sigtimedwait(&set, NULL, &ts);
        if (sig > 0)
            return sig;
        if (errno != EINTR && errno != EAGAIN)
            return 0;
    }
}

static void sum_written(void *ud, const char *name, double v)
{
    if (!strcmp(name, "job.records_written"))
        *(double *)ud = v;
}

void weir_cli_stopper_report(const weir_cli_stopper *s, weir_job *job)
{
    const char *why = weir_cli_stop_signal_name(atomic_load(&s->sig));
    bool at_once = weir__job_canceled(job);
    bool drained = atomic_load(&s->drained);
    weir_checkpoint_stats st;
    if (weir_job_checkpoint_stats(job, &st) == 0) {
        if (!at_once && st.last_id) {
            weir_cli_log(WEIR_LOG_INFO, "stopped (%s): final checkpoint chk-%" PRIu64
                    " committed, with the output up to it%s",
                    why, st.last_id,
                    drained ? "; every window fired (drained)"
                            : "; weir run resumes there");
        } else if (st.last_id) {
            weir_cli_log(WEIR_LOG_INFO, "stopped at once (%s), without a final checkpoint: "
                    "the output is committed up to checkpoint chk-%" PRIu64
                    ", where weir run resumes",
                    why, st.last_id);
        } else if (st.restored_id) {
            weir_cli_log(WEIR_LOG_INFO, "stopped at once (%s) before any checkpoint of this "
                    "run completed: nothing more was committed; weir run "
                    "resumes from chk-%" PRIu64 " again",
                    why, st.restored_id);
        } else {
            weir_cli_log(WEIR_LOG_INFO, "stopped at once (%s) before any checkpoint "
                    "completed: nothing was committed; weir run starts "
                    "over",
                    why);
        }
        return;
    }
    double rows = 0;
    weir_job_metrics(job, sum_written, &rows);
    if (at_once)
        weir_cli_log(WEIR_LOG_INFO, "stopped at once (%s): %.0f rows reached the sinks; "
                "files still in progress were discarded",
                why, rows);
    else if (drained)
        weir_cli_log(WEIR_LOG_INFO, "stopped (%s), drained: every window fired; %.0f rows "
                "written and committed",
                why, rows);
    else
        weir_cli_log(WEIR_LOG_INFO, "stopped (%s): %.0f rows written and committed, final "
                "results only (windows that had not fired were dropped; "
                "--drain-on-stop fires them)",
                why, rows);
}

int weir_cli_stop(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: weir stop JOB [--drain]\n\n"
               "Stops the running job JOB (a process id or pipeline.name, see weir list)\n"
               "as Ctrl-C does: sources stop, windows that have not fired do not fire, and\n"
               "with checkpoints a final checkpoint is committed, where a rerun resumes.\n"
               "With --drain the stop is an end of input: every window fires and every\n"
               "timer runs (Flink's stop --drain); meant for a job that ends for good.\n"
               "The job's process exits with 143. weir cancel stops at once.\n");
        return WEIR_EXIT_OK;
    }
    bool drain = argc == 3 && !strcmp(argv[2], "--drain");
    if (argc < 2 || argc > 3 || (argc == 3 && !drain)) {
        fprintf(stderr, "usage: weir stop JOB [--drain] (see weir stop --help)\n");
        return WEIR_EXIT_USAGE;
    }
    return weir_cli_signal_job("stop", argv[1], drain ? WEIR_CLI_DRAIN_SIGNAL : SIGTERM, NULL);
}
