/* util/sigbus.c - SIGBUS from a shrunk file mapping, caught per thread. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "util/sigbus.h"

static _Thread_local weir__sigbus_guard *volatile tl_guard;
static struct sigaction g_prev; /* the handler before weir's */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_install_err;

/* A SIGBUS that is not weir's: what would have happened without weir. */
static void chain(int sig, siginfo_t *info, void *ctx)
{
    if (g_prev.sa_flags & SA_SIGINFO) {
        if (g_prev.sa_sigaction)
            g_prev.sa_sigaction(sig, info, ctx);
        return;
    }
    if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
        g_prev.sa_handler(sig);
        return;
    }
    /* The default action (a fault cannot be ignored): restore it and
     * raise; the signal stays blocked until this handler returns, then
     * ends the process as it would have without weir. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGBUS, &dfl, NULL);
    raise(SIGBUS);
}

static void on_sigbus(int sig, siginfo_t *info, void *ctx)
{
    weir__sigbus_guard *g = tl_guard;
    const char *a = info ? (const char *)info->si_addr : NULL;
    if (g && info && info->si_code > 0 && a >= g->lo && a < g->hi) {
        g->fault = a;
        tl_guard = NULL;
        siglongjmp(g->jb, 1);
    }
    chain(sig, info, ctx);
}

static void install_once(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &g_prev) != 0)
        g_install_err = errno ? errno : EINVAL;
}

int weir__sigbus_install(void)
{
    pthread_once(&g_once, install_once);
    return g_install_err;
}

void weir__sigbus_move(weir__sigbus_guard *g, const void *p, size_t n)
{
    /* the handler of this thread may run between any two stores: make
     * the range empty while it changes */
    g->hi = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    g->lo = p;
    atomic_signal_fence(memory_order_seq_cst);
    g->hi = (const char *)p + n;
}

void weir__sigbus_arm(weir__sigbus_guard *g, const void *p, size_t n)
{
    g->fault = NULL;
    weir__sigbus_move(g, p, n);
    atomic_signal_fence(memory_order_seq_cst);
    tl_guard = g;
}

void weir__sigbus_disarm(void)
{
    tl_guard = NULL;
    atomic_signal_fence(memory_order_seq_cst);
}
