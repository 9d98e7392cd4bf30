/*
 * runtime/channel.c - bounded channels and consumer gates (see channel.h).
 *
 * Invariants: count <= ring_cap, and count <= cap except right after
 * unaligned barriers (weir__channel_push_barrier), which never block; an
 * ordinary push waits while count >= cap. Every batch the channel
 * allocated is in exactly one place (the ring, the pool, the consumer's
 * hands or the producer's), so weir__channel_fini frees the ring's and the
 * pool's and the two sides return theirs before that.
 */
#include <string.h>

#include "runtime/channel.h"
#include "weir/clock.h"

int weir__gate_init(weir__gate *g)
{
    memset(g, 0, sizeof *g);
    if (pthread_mutex_init(&g->mu, NULL))
        return WEIR_ENOMEM;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&g->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (rc) {
        pthread_mutex_destroy(&g->mu);
        return WEIR_ENOMEM;
    }
    atomic_init(&g->pending_cmds, 0);
    return 0;
}

void weir__gate_fini(weir__gate *g)
{
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    weir_free(g->cmds);
    g->cmds = NULL;
}

int weir__gate_post_locked(weir__gate *g, weir__cmd_type type, uint64_t id)
{
    if (g->n_cmds == g->cap_cmds) {
        uint32_t cap = g->cap_cmds ? g->cap_cmds * 2 : 8;
        weir__cmd *c = weir_realloc(g->cmds, cap * sizeof *c);
        if (!c)
            return WEIR_ENOMEM;
        g->cmds = c;
        g->cap_cmds = cap;
    }
    g->cmds[g->n_cmds++] = (weir__cmd){.type = (uint8_t)type, .id = id};
    atomic_fetch_add(&g->pending_cmds, 1);
    pthread_cond_signal(&g->cv);
    return 0;
}

int weir__gate_post(weir__gate *g, weir__cmd_type type, uint64_t id)
{
    pthread_mutex_lock(&g->mu);
    int rc = weir__gate_post_locked(g, type, id);
    pthread_mutex_unlock(&g->mu);
    return rc;
}

void weir__gate_wake(weir__gate *g)
{
    pthread_mutex_lock(&g->mu);
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

int weir__channel_init(weir__channel *ch, weir__gate *consumer_gate,
                       uint32_t cap, const weir_schema *schema,
                       uint32_t batch_size, const _Atomic int *cancel)
{
    memset(ch, 0, sizeof *ch);
    if (cap == 0)
        cap = 1;
    ch->gate = consumer_gate;
    ch->cap = cap;
    ch->ring_cap = cap;
    ch->schema = schema;
    ch->batch_size = batch_size;
    ch->cancel = cancel;
    ch->wake_at = cap / 2 ? cap / 2 : 1;
    ch->resume_at = cap / 4;
    ch->ring = weir_calloc(cap, sizeof *ch->ring);
    ch->pool_cap = cap + 2;
    ch->pool = weir_calloc(ch->pool_cap, sizeof *ch->pool);
    if (!ch->ring || !ch->pool || pthread_cond_init(&ch->not_full, NULL)) {
        weir_free(ch->ring);
        weir_free(ch->pool);
        ch->ring = NULL;
        ch->pool = NULL;
        return WEIR_ENOMEM;
    }
    return 0;
}

void weir__channel_fini(weir__channel *ch)
{
    if (!ch->ring)
        return;
    for (uint32_t i = 0; i < ch->count; i++) {
        weir__msg *m = &ch->ring[(ch->head + i) % ch->ring_cap];
        if (m->type == WEIR__MSG_BATCH)
            weir_batch_destroy(m->batch);
    }
    for (uint32_t i = 0; i < ch->n_pool; i++)
        weir_batch_destroy(ch->pool[i]);
    weir_free(ch->ring);
    weir_free(ch->pool);
    pthread_cond_destroy(&ch->not_full);
    ch->ring = NULL;
    ch->pool = NULL;
}

int weir__channel_acquire(weir__channel *ch, weir_batch **out)
{
    pthread_mutex_lock(&ch->gate->mu);
    if (ch->n_pool > 0) {
        *out = ch->pool[--ch->n_pool];
        pthread_mutex_unlock(&ch->gate->mu);
        weir_batch_reset(*out);
        return 0;
    }
    pthread_mutex_unlock(&ch->gate->mu);
    /* Allocation happens outside the lock; it is rare (at most cap + 2 times).
     */
    weir_batch *b = weir_batch_create(ch->schema, ch->batch_size);
    if (!b)
        return WEIR_ENOMEM;
    pthread_mutex_lock(&ch->gate->mu);
    ch->n_batches++;
    pthread_mutex_unlock(&ch->gate->mu);
    *out = b;
    return 0;
}

/* Gate mutex held. Keeps b in the pool (the pool never holds more than
 * n_batches). */
static void pool_put_locked(weir__channel *ch, weir_batch *b)
{
    if (ch->n_pool == ch->pool_cap) {
        uint32_t cap = ch->pool_cap * 2;
        weir_batch **p = weir_realloc(ch->pool, (size_t)cap * sizeof *p);
        if (!p) {
            /* Out of memory for a pointer: drop the batch rather than leak it.
             */
            weir_batch_destroy(b);
            ch->n_batches--;
            return;
        }
        ch->pool = p;
        ch->pool_cap = cap;
    }
    ch->pool[ch->n_pool++] = b;
}

void weir__channel_unacquire(weir__channel *ch, weir_batch *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&ch->gate->mu);
    pool_put_locked(ch, b);
    pthread_mutex_unlock(&ch->gate->mu);
}

int weir__channel_push(weir__channel *ch, const weir__msg *m,
                       int64_t *blocked_ns)
{
    weir__gate *g = ch->gate;
    pthread_mutex_lock(&g->mu);
    if (m->type == WEIR__MSG_WATERMARK && ch->count > ch->pinned) {
        weir__msg *last = &ch->ring[(ch->head + ch->count - 1) % ch->ring_cap];
        if (last->type == WEIR__MSG_WATERMARK ||
            last->type == WEIR__MSG_BATCH) {
            if (m->wm > last->wm)
                last->wm = m->wm;
            bool deferred = ch->unsignaled;
            pthread_mutex_unlock(&g->mu);
            return deferred ? 1 : 0;
        }
    }
    if (ch->count >= ch->cap) {
        int64_t t0 = weir_monotonic_ns();
        while (ch->count >= ch->cap &&
               !atomic_load_explicit(ch->cancel, memory_order_relaxed)) {
            ch->producer_waiting = true;
            pthread_cond_wait(&ch->not_full, &g->mu);
        }
        ch->producer_waiting = false;
        if (blocked_ns)
            *blocked_ns += weir_monotonic_ns() - t0;
        if (ch->count >= ch->cap) {
            pthread_mutex_unlock(&g->mu);
            return WEIR_ECANCELED;
        }
    }
    weir__msg *slot = &ch->ring[(ch->head + ch->count) % ch->ring_cap];
    *slot = *m;
    if (m->type == WEIR__MSG_BARRIER && m->timeout_at_ms &&
        (!g->barrier_timeout_at_ms ||
         m->timeout_at_ms < g->barrier_timeout_at_ms))
        __atomic_store_n(&g->barrier_timeout_at_ms, m->timeout_at_ms,
                         __ATOMIC_RELAXED); /* read unlocked by the consumer */
    if (m->type == WEIR__MSG_BATCH)
        slot->wm = WEIR_TS_MIN;
    ch->count++;
    if (ch->count > ch->peak_count)
        ch->peak_count = ch->count;
    bool wake = false, deferred = false;
    if (g->waiting) {
        if (m->type == WEIR__MSG_BATCH || m->type == WEIR__MSG_WATERMARK) {
            wake = ch->count >= ch->wake_at;
            deferred = !wake;
        } else {
            wake = true;
        }
    }
    ch->unsignaled = deferred;
    pthread_mutex_unlock(&g->mu);
    /* Signalled after unlocking, so the woken consumer does not block on the
     * mutex at once. */
    if (wake)
        pthread_cond_signal(&g->cv);
    return deferred ? 1 : 0;
}

void weir__channel_notify(weir__channel *ch)
{
    weir__gate *g = ch->gate;
    pthread_mutex_lock(&g->mu);
    bool wake = ch->unsignaled && g->waiting;
    ch->unsignaled = false;
    pthread_mutex_unlock(&g->mu);
    if (wake)
        pthread_cond_signal(&g->cv);
}

bool weir__channel_pop_locked(weir__channel *ch, weir__msg *out)
{
    if (ch->count == 0)
        return false;
    *out = ch->ring[ch->head];
    ch->head = (ch->head + 1) % ch->ring_cap;
    ch->count--;
    ch->first_popped = true;
    if (ch->pinned)
        ch->pinned--;
    if (ch->producer_waiting && ch->count <= ch->resume_at) {
        ch->producer_waiting = false; /* one signal per wait is enough */
        pthread_cond_signal(&ch->not_full);
    }
    return true;
}

/* Gate mutex held. Makes room for `extra` more messages in the ring, which
 * is left with head 0 (the order of the queued messages is kept). */
static int ring_reserve_locked(weir__channel *ch, uint32_t extra)
{
    uint32_t want = ch->count + extra;
    uint32_t n = ch->ring_cap;
    while (n < want)
        n *= 2;
    weir__msg *r = weir_malloc((size_t)n * sizeof *r);
    if (!r)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < ch->count; i++)
        r[i] = ch->ring[(ch->head + i) % ch->ring_cap];
    weir_free(ch->ring);
    ch->ring = r;
    ch->ring_cap = n;
    ch->head = 0;
    return 0;
}

int weir__channel_push_barrier(weir__channel *ch, uint64_t id,
                               weir_batch *staged)
{
    weir__gate *g = ch->gate;
    pthread_mutex_lock(&g->mu);
    /* Linear order, head 0, and room for the staged batch and the barrier. */
    int rc = ring_reserve_locked(ch, 2);
    if (rc) {
        pthread_mutex_unlock(&g->mu);
        return rc;
    }
    if (staged) {
        ch->ring[ch->count++] =
            (weir__msg){.type = WEIR__MSG_BATCH, .batch = staged,
                        .wm = WEIR_TS_MIN};
    }
    /* The channel's first message (the status) stays first. */
    uint32_t pos = ch->first_popped ? 0 : 1;
    if (pos > ch->count)
        pos = ch->count;
    weir__msg b = {.type = WEIR__MSG_BARRIER, .unaligned = true,
                   .ckpt_id = id};
    if (pos < ch->count && ch->ring[pos].type == WEIR__MSG_BARRIER &&
        ch->ring[pos].unaligned) {
        /* An older unaligned barrier not taken yet: this one replaces it. */
        b.overtaken = ch->count - pos - 1;
        ch->ring[pos] = b;
    } else {
        memmove(&ch->ring[pos + 1], &ch->ring[pos],
                (ch->count - pos) * sizeof *ch->ring);
        b.overtaken = ch->count - pos;
        ch->ring[pos] = b;
        ch->count++;
    }
    ch->pinned = ch->count;
    if (ch->count > ch->peak_count)
        ch->peak_count = ch->count;
    ch->unsignaled = false;
    pthread_mutex_unlock(&g->mu);
    pthread_cond_signal(&g->cv);
    return 0;
}

bool weir__channel_take_timed_out_barrier_locked(weir__channel *ch,
                                                 int64_t now_ms,
                                                 weir__msg *out)
{
    for (uint32_t k = 0; k < ch->count; k++) {
        weir__msg *m = &ch->ring[(ch->head + k) % ch->ring_cap];
        if (m->type != WEIR__MSG_BARRIER || !m->timeout_at_ms ||
            m->timeout_at_ms > now_ms)
            continue;
        *out = *m;
        out->overtaken = k;
        /* Close the gap: the messages in front of it move up by one. */
        for (uint32_t j = k; j > 0; j--)
            ch->ring[(ch->head + j) % ch->ring_cap] =
                ch->ring[(ch->head + j - 1) % ch->ring_cap];
        ch->head = (ch->head + 1) % ch->ring_cap;
        ch->count--;
        /* What it overtook is in flight now: no watermark rides on it. */
        uint32_t pinned = k < ch->pinned ? ch->pinned - 1 : ch->pinned;
        ch->pinned = pinned > k ? pinned : k;
        if (ch->producer_waiting) {
            ch->producer_waiting = false;
            pthread_cond_signal(&ch->not_full);
        }
        return true;
    }
    return false;
}

int64_t weir__channel_barrier_timeout_locked(const weir__channel *ch)
{
    int64_t t = 0;
    for (uint32_t k = 0; k < ch->count; k++) {
        const weir__msg *m = &ch->ring[(ch->head + k) % ch->ring_cap];
        if (m->type == WEIR__MSG_BARRIER && m->timeout_at_ms &&
            (!t || m->timeout_at_ms < t))
            t = m->timeout_at_ms;
    }
    return t;
}

const weir__msg *weir__channel_peek_locked(const weir__channel *ch, uint32_t k)
{
    if (k >= ch->count)
        return NULL;
    return &ch->ring[(ch->head + k) % ch->ring_cap];
}

void weir__channel_release_locked(weir__channel *ch, weir_batch *b)
{
    pool_put_locked(ch, b);
}

void weir__channel_wake(weir__channel *ch)
{
    pthread_mutex_lock(&ch->gate->mu);
    pthread_cond_broadcast(&ch->not_full);
    pthread_mutex_unlock(&ch->gate->mu);
}
