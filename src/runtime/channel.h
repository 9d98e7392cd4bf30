/*
 * runtime/channel.h - bounded, in-order channels between subtasks.
 *
 * A channel carries messages from one producer subtask to one consumer
 * subtask: batches and the control messages that travel in order with them
 * (watermark, idle, active, checkpoint barrier, end of input).
 *
 * Flow control: a channel holds at most `cap` messages. A producer pushing
 * into a full channel blocks until the consumer takes one, so a slow consumer
 * slows its producers all the way back to the sources (which then stop
 * reading). The time a producer spends blocked is returned to it, and becomes
 * the task's "backpressured_ns" metric. The one exception is an unaligned
 * checkpoint barrier (weir__channel_push_barrier): it goes to the head,
 * never blocks, and may leave the channel over its capacity (with the
 * producer's staged batch), until the consumer catches up.
 *
 * Memory: batches are recycled through a per-channel pool. A batch is either
 * queued (at most cap), being processed by the consumer (at most one), or
 * being filled by the producer (at most one), so a channel never owns more
 * than cap + 2 batches, whatever the input size (a few more for a moment
 * after an unaligned barrier); `n_batches` counts them.
 *
 * Locking: every consumer subtask has one gate (a mutex and a condition
 * variable). The gate's mutex protects the rings and pools of all channels
 * into that subtask and its mailbox of commands, so the consumer can wait
 * for "anything arrived" on one condition variable.
 */
#ifndef WEIR_RUNTIME_CHANNEL_H
#define WEIR_RUNTIME_CHANNEL_H

#include <pthread.h>
#include <stdatomic.h>

#include "weir/batch.h"

typedef enum weir__msg_type {
    WEIR__MSG_BATCH = 1,
    WEIR__MSG_WATERMARK,
    WEIR__MSG_IDLE,
    WEIR__MSG_ACTIVE,
    WEIR__MSG_BARRIER,
    WEIR__MSG_END,
} weir__msg_type;

typedef struct weir__msg {
    uint8_t type;
    /* END: the input ended normally (final watermark sent), not by stop */
    bool drained;
    /* WATERMARK; on a BATCH: a watermark that follows it, or WEIR_TS_MIN */
    weir_ts wm;
    /* BARRIER: an unaligned barrier (checkpoint.h) ... */
    bool unaligned;
    /* ... put at the head of its channel, overtaking the `overtaken`
     * messages right behind it (in-flight data of checkpoint ckpt_id) */
    uint32_t overtaken;
    /* BARRIER, aligned: job-clock time (ms) after which it may turn
     * unaligned (execution.checkpointing.aligned-checkpoint-timeout); 0:
     * never */
    int64_t timeout_at_ms;
    uint64_t ckpt_id;  /* BARRIER */
    weir_batch *batch; /* BATCH: owned by the channel's pool */
} weir__msg;

/* Commands a subtask receives from outside (coordinator, stop). */
typedef enum weir__cmd_type {
    /* trigger checkpoint id (sources inject the barrier) */
    WEIR__CMD_CHECKPOINT = 1,
    /* checkpoint id completed everywhere */
    WEIR__CMD_COMPLETE,
} weir__cmd_type;

typedef struct weir__cmd {
    uint8_t type;
    uint64_t id;
} weir__cmd;

typedef struct weir__gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool waiting;    /* the consumer sleeps on cv */
    weir__cmd *cmds; /* mailbox */
    uint32_t n_cmds, cap_cmds;
    _Atomic uint32_t pending_cmds; /* lets a busy source poll without locking */
    /* earliest timeout_at_ms of the aligned barriers queued in the channels
     * into this subtask that may turn unaligned (0: none) */
    int64_t barrier_timeout_at_ms;
} weir__gate;

typedef struct weir__channel {
    weir__gate *gate; /* the consumer's gate; its mutex guards what follows */
    pthread_cond_t not_full;
    bool producer_waiting;
    /* messages queued while the consumer sleeps, not yet signalled */
    bool unsignaled;
    uint32_t wake_at;
    /* a blocked producer is woken once the channel holds no more than this
     * (cap / 4; cap - 1, at every message taken, in jobs with unaligned
     * checkpoints) */
    uint32_t resume_at;
    weir__msg *ring;
    /* cap: flow-control capacity; ring_cap >= cap: the ring's size (it grows
     * past cap only for what an unaligned barrier pushes, which never
     * blocks) */
    uint32_t cap, ring_cap, head, count;
    /* messages at the head that an unaligned barrier pinned (itself and
     * what it overtook): a later watermark never rides on them */
    uint32_t pinned;
    bool first_popped; /* the consumer took the channel's first message */
    weir_batch **pool; /* free batches */
    uint32_t n_pool, pool_cap;
    uint32_t
        n_batches; /* batches ever allocated for this channel (<= cap + 2) */
    uint32_t peak_count; /* most messages queued at once */
    const weir_schema *schema;
    uint32_t batch_size;
    const _Atomic int
        *cancel; /* the job's cancel flag: pushes give up when set */
} weir__channel;

int weir__gate_init(weir__gate *g);
void weir__gate_fini(weir__gate *g);
/* Appends a command and wakes the subtask. */
int weir__gate_post(weir__gate *g, weir__cmd_type type, uint64_t id);
/* The same with g->mu held by the caller. */
int weir__gate_post_locked(weir__gate *g, weir__cmd_type type, uint64_t id);
/* Wakes the subtask (and every producer blocked on its channels is woken by
 * weir__channel_wake). */
void weir__gate_wake(weir__gate *g);

int weir__channel_init(weir__channel *ch, weir__gate *consumer_gate,
                       uint32_t cap, const weir_schema *schema,
                       uint32_t batch_size, const _Atomic int *cancel);
void weir__channel_fini(weir__channel *ch);

/* Producer: an empty batch of the channel's schema to fill (from the pool, or
 * new). */
int weir__channel_acquire(weir__channel *ch, weir_batch **out);
/* Producer: returns an unused acquired batch. */
void weir__channel_unacquire(weir__channel *ch, weir_batch *b);
/*
 * Producer: appends m, blocking while the channel is full. A watermark pushed
 * right behind a queued watermark replaces it (nothing lies between them, so
 * only the newer one matters); pushed right behind a queued batch it rides
 * on that batch (msg.wm), to be applied just after it. Either way the order
 * of rows and watermarks is unchanged and no extra message is queued.
 *
 * Wake-ups are deferred: a batch or watermark wakes a sleeping consumer only
 * once the channel holds `wake_at` messages (half its capacity); other
 * control messages wake it at once. A push that left its consumer asleep
 * returns 1, and the producer must call weir__channel_notify before it
 * itself goes idle. A busy producer thus wakes its consumer once per few
 * batches instead of once per batch, and an idle one never leaves data
 * waiting (consumers also look again every few milliseconds on their own).
 * Likewise a producer blocked on a full channel sleeps until the consumer
 * has taken it down to `resume_at` messages (a quarter of its capacity), so
 * a fast producer behind a slower consumer sleeps once per few batches, not
 * once per batch. Adds the nanoseconds spent blocked to *blocked_ns.
 * Returns WEIR_ECANCELED if the job was canceled meanwhile (the batch in m
 * then stays with the caller).
 */
int weir__channel_push(weir__channel *ch, const weir__msg *m,
                       int64_t *blocked_ns);

/*
 * Producer: an unaligned barrier. Appends `staged` (a partly filled batch
 * of the producer's, may be NULL) and then puts barrier `id` at the head of
 * the channel, in front of every queued message except the channel's first
 * one (the status the consumer's handshake needs); an older unaligned
 * barrier still queued there is replaced (its checkpoint is abandoned). The
 * barrier's `overtaken` counts the messages behind it. Never blocks: the
 * ring grows past the capacity when it must. Wakes the consumer.
 */
int weir__channel_push_barrier(weir__channel *ch, uint64_t id,
                               weir_batch *staged);
/*
 * Consumer, gate mutex held: takes out of ch the first queued aligned
 * barrier that may turn unaligned (timeout_at_ms set) and whose time came
 * (timeout_at_ms <= now_ms), into *out, with the number of messages that
 * were in front of it in out->overtaken; they stay queued, now at the head.
 * Returns false when there is none.
 */
bool weir__channel_take_timed_out_barrier_locked(weir__channel *ch,
                                                 int64_t now_ms,
                                                 weir__msg *out);
/* Consumer, gate mutex held: the earliest timeout_at_ms of ch's queued
 * aligned barriers, or 0. */
int64_t weir__channel_barrier_timeout_locked(const weir__channel *ch);
/* Consumer, gate mutex held: the message k places behind the head. */
const weir__msg *weir__channel_peek_locked(const weir__channel *ch,
                                           uint32_t k);

/* Producer: wakes the consumer if a deferred wake-up is pending. */
void weir__channel_notify(weir__channel *ch);

/* Consumer, gate mutex held: takes the oldest message if any. */
bool weir__channel_pop_locked(weir__channel *ch, weir__msg *out);
/* Consumer, gate mutex held: returns a processed batch to the pool. */
void weir__channel_release_locked(weir__channel *ch, weir_batch *b);
/* Wakes a producer blocked on ch (used when the job is canceled). */
void weir__channel_wake(weir__channel *ch);

#endif
