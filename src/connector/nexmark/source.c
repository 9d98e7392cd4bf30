/*
 * connector/nexmark/source.c - the Nexmark generator as a weir source.
 *
 * Layout: a shared arg (validated config, generator, default schema); one
 * instance per subtask (the column plan and its split ids); one reader per
 * split. A reader walks the event numbers of its split (k, k+S, k+2S, ...),
 * keeping the epoch, the offset in the epoch and, for a constant rate, the
 * timestamp up to date incrementally (no division per event), and writes the
 * events of its table straight into the batch columns.
 *
 * Invariants:
 * - reader->next is the next event number the reader will look at; every
 *   number before it (in its split) has been emitted or skipped. It is the
 *   whole replay position, with the wall-clock start for rate limiting.
 * - Rows are written only into the columns the schema asks for, and a bid
 *   is drawn only as deep as those need (nx_bid_depth); an event's draws
 *   are a function of its number, so projections never change values.
 * - Within one read() call, the heap bytes of the four hot channels and
 *   their URLs are written once and shared by every row that uses them.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "connector/nexmark/gen.h"

/* ---- generator columns --------------------------------------------------- */

typedef enum nx_col {
    C_EVENT_TYPE,
    C_P_ID,
    C_P_NAME,
    C_P_EMAIL,
    C_P_CARD,
    C_P_CITY,
    C_P_STATE,
    C_P_DATETIME,
    C_P_EXTRA,
    C_A_ID,
    C_A_ITEM,
    C_A_DESC,
    C_A_INITIAL,
    C_A_RESERVE,
    C_A_DATETIME,
    C_A_EXPIRES,
    C_A_SELLER,
    C_A_CATEGORY,
    C_A_EXTRA,
    C_B_AUCTION,
    C_B_BIDDER,
    C_B_PRICE,
    C_B_CHANNEL,
    C_B_URL,
    C_B_DATETIME,
    C_B_EXTRA,
    C_DATETIME,
    C_COUNT
} nx_col;

typedef struct nx_col_info {
    const char *wide_name;   /* name in the "event" table */
    const char *narrow_name; /* name in the table of its kind, or NULL */
    weir_type_id type;
    int8_t group; /* kind whose events fill it; -1: every event */
} nx_col_info;

static const nx_col_info k_cols[C_COUNT] = {
    [C_EVENT_TYPE] = {"event_type", NULL, WEIR_TYPE_INT, -1},
    [C_P_ID] = {"person_id", "id", WEIR_TYPE_BIGINT, WEIR_NEXMARK_PERSON},
    [C_P_NAME] = {"person_name", "name", WEIR_TYPE_STRING, WEIR_NEXMARK_PERSON},
    [C_P_EMAIL] = {"person_emailAddress", "emailAddress", WEIR_TYPE_STRING,
                   WEIR_NEXMARK_PERSON},
    [C_P_CARD] = {"person_creditCard", "creditCard", WEIR_TYPE_STRING,
                  WEIR_NEXMARK_PERSON},
    [C_P_CITY] = {"person_city", "city", WEIR_TYPE_STRING, WEIR_NEXMARK_PERSON},
    [C_P_STATE] = {"person_state", "state", WEIR_TYPE_STRING,
                   WEIR_NEXMARK_PERSON},
    [C_P_DATETIME] = {"person_dateTime", NULL, WEIR_TYPE_TIMESTAMP,
                      WEIR_NEXMARK_PERSON},
    [C_P_EXTRA] = {"person_extra", "extra", WEIR_TYPE_STRING,
                   WEIR_NEXMARK_PERSON},
    [C_A_ID] = {"auction_id", "id", WEIR_TYPE_BIGINT, WEIR_NEXMARK_AUCTION},
    [C_A_ITEM] = {"auction_itemName", "itemName", WEIR_TYPE_STRING,
                  WEIR_NEXMARK_AUCTION},
    [C_A_DESC] = {"auction_description", "description", WEIR_TYPE_STRING,
                  WEIR_NEXMARK_AUCTION},
    [C_A_INITIAL] = {"auction_initialBid", "initialBid", WEIR_TYPE_BIGINT,
                     WEIR_NEXMARK_AUCTION},
    [C_A_RESERVE] = {"auction_reserve", "reserve", WEIR_TYPE_BIGINT,
                     WEIR_NEXMARK_AUCTION},
    [C_A_DATETIME] = {"auction_dateTime", NULL, WEIR_TYPE_TIMESTAMP,
                      WEIR_NEXMARK_AUCTION},
    [C_A_EXPIRES] = {"auction_expires", "expires", WEIR_TYPE_TIMESTAMP,
                     WEIR_NEXMARK_AUCTION},
    [C_A_SELLER] = {"auction_seller", "seller", WEIR_TYPE_BIGINT,
                    WEIR_NEXMARK_AUCTION},
    [C_A_CATEGORY] = {"auction_category", "category", WEIR_TYPE_BIGINT,
                      WEIR_NEXMARK_AUCTION},
    [C_A_EXTRA] = {"auction_extra", "extra", WEIR_TYPE_STRING,
                   WEIR_NEXMARK_AUCTION},
    [C_B_AUCTION] = {"bid_auction", "auction", WEIR_TYPE_BIGINT,
                     WEIR_NEXMARK_BID},
    [C_B_BIDDER] = {"bid_bidder", "bidder", WEIR_TYPE_BIGINT, WEIR_NEXMARK_BID},
    [C_B_PRICE] = {"bid_price", "price", WEIR_TYPE_BIGINT, WEIR_NEXMARK_BID},
    [C_B_CHANNEL] = {"bid_channel", "channel", WEIR_TYPE_STRING,
                     WEIR_NEXMARK_BID},
    [C_B_URL] = {"bid_url", "url", WEIR_TYPE_STRING, WEIR_NEXMARK_BID},
    [C_B_DATETIME] = {"bid_dateTime", NULL, WEIR_TYPE_TIMESTAMP,
                      WEIR_NEXMARK_BID},
    [C_B_EXTRA] = {"bid_extra", "extra", WEIR_TYPE_STRING, WEIR_NEXMARK_BID},
    [C_DATETIME] = {"dateTime", "dateTime", WEIR_TYPE_TIMESTAMP, -1},
};

/* The columns of each narrow table, in the reference views' order. */
static const nx_col k_person_cols[] = {C_P_ID,     C_P_NAME, C_P_EMAIL,
                                       C_P_CARD,   C_P_CITY, C_P_STATE,
                                       C_DATETIME, C_P_EXTRA};
static const nx_col k_auction_cols[] = {
    C_A_ID,     C_A_ITEM,    C_A_DESC,   C_A_INITIAL,  C_A_RESERVE,
    C_DATETIME, C_A_EXPIRES, C_A_SELLER, C_A_CATEGORY, C_A_EXTRA};
static const nx_col k_bid_cols[] = {C_B_AUCTION, C_B_BIDDER, C_B_PRICE,
                                    C_B_CHANNEL, C_B_URL,    C_DATETIME,
                                    C_B_EXTRA};

static int table_kind(weir_nexmark_table t)
{
    switch (t) {
    case WEIR_NEXMARK_TABLE_PERSON:
        return WEIR_NEXMARK_PERSON;
    case WEIR_NEXMARK_TABLE_AUCTION:
        return WEIR_NEXMARK_AUCTION;
    case WEIR_NEXMARK_TABLE_BID:
        return WEIR_NEXMARK_BID;
    case WEIR_NEXMARK_TABLE_EVENT:
        break;
    }
    return -1;
}

static const char *table_name(weir_nexmark_table t)
{
    static const char *names[] = {"event", "person", "auction", "bid"};
    return names[t];
}

/* The generator columns of a table, in schema order. */
static const nx_col *table_cols(weir_nexmark_table t, uint32_t *n)
{
    /* The wide table lists every column, in enum order. */
    static const nx_col wide[C_COUNT] = {
        C_EVENT_TYPE, C_P_ID,     C_P_NAME,     C_P_EMAIL,   C_P_CARD,
        C_P_CITY,     C_P_STATE,  C_P_DATETIME, C_P_EXTRA,   C_A_ID,
        C_A_ITEM,     C_A_DESC,   C_A_INITIAL,  C_A_RESERVE, C_A_DATETIME,
        C_A_EXPIRES,  C_A_SELLER, C_A_CATEGORY, C_A_EXTRA,   C_B_AUCTION,
        C_B_BIDDER,   C_B_PRICE,  C_B_CHANNEL,  C_B_URL,     C_B_DATETIME,
        C_B_EXTRA,    C_DATETIME};
    switch (t) {
    case WEIR_NEXMARK_TABLE_PERSON:
        *n = sizeof k_person_cols / sizeof k_person_cols[0];
        return k_person_cols;
    case WEIR_NEXMARK_TABLE_AUCTION:
        *n = sizeof k_auction_cols / sizeof k_auction_cols[0];
        return k_auction_cols;
    case WEIR_NEXMARK_TABLE_BID:
        *n = sizeof k_bid_cols / sizeof k_bid_cols[0];
        return k_bid_cols;
    case WEIR_NEXMARK_TABLE_EVENT:
        break;
    }
    *n = C_COUNT;
    return wide;
}

static const char *col_name(weir_nexmark_table t, nx_col c)
{
    return t == WEIR_NEXMARK_TABLE_EVENT ? k_cols[c].wide_name
                                         : k_cols[c].narrow_name;
}

static bool col_nullable(weir_nexmark_table t, nx_col c)
{
    return t == WEIR_NEXMARK_TABLE_EVENT && k_cols[c].group >= 0;
}

weir_schema *weir_nexmark_schema_create(weir_nexmark_table table)
{
    if ((unsigned)table > WEIR_NEXMARK_TABLE_BID)
        return NULL;
    weir_schema *s = weir_schema_create();
    if (!s)
        return NULL;
    uint32_t n;
    const nx_col *cols = table_cols(table, &n);
    for (uint32_t i = 0; i < n; i++) {
        weir_type ty =
            weir_type_make(k_cols[cols[i]].type, col_nullable(table, cols[i]));
        int idx = weir_schema_add(s, col_name(table, cols[i]), ty);
        if (idx < 0) {
            weir_schema_destroy(s);
            return NULL;
        }
        if (cols[i] == C_DATETIME)
            s->rowtime = idx;
    }
    return s;
}

/* ---- the shared arg ------------------------------------------------------ */

struct weir_nexmark_source_arg {
    weir_nexmark_gen gen; /* holds the validated config */
    weir_schema *schema;
};

int weir_nexmark_source_arg_create(const weir_nexmark_config *config,
                                   weir_nexmark_source_arg **out,
                                   weir_error *err)
{
    *out = NULL;
    int rc = weir_nexmark_config_validate(config, err);
    if (rc)
        return rc;
    weir_nexmark_source_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return weir_error_set(err, WEIR_ENOMEM, "nexmark: out of memory");
    a->schema = weir_nexmark_schema_create(config->table);
    if (!a->schema) {
        weir_free(a);
        return weir_error_set(err, WEIR_ENOMEM, "nexmark: out of memory");
    }
    weir__nexmark_tables_init();
    weir__nexmark_gen_init(&a->gen, config);
    if (!a->gen.cfg.clock.now_ms)
        a->gen.cfg.clock = weir_clock_system();
    *out = a;
    return 0;
}

void weir_nexmark_source_arg_destroy(weir_nexmark_source_arg *arg)
{
    if (!arg)
        return;
    weir_schema_destroy(arg->schema);
    weir_free(arg);
}

const weir_schema *
weir_nexmark_source_arg_schema(const weir_nexmark_source_arg *arg)
{
    return arg->schema;
}

static void free_arg(void *arg)
{
    weir_nexmark_source_arg_destroy(arg);
}

int weir_nexmark_source_spec(const weir_nexmark_config *config,
                             const char *name, weir_source_spec *spec,
                             weir_error *err)
{
    weir_nexmark_source_arg *arg;
    int rc = weir_nexmark_source_arg_create(config, &arg, err);
    if (rc)
        return rc;
    memset(spec, 0, sizeof *spec);
    spec->name = name;
    spec->cls = &weir_nexmark_source_class;
    spec->arg = arg;
    spec->free_arg = free_arg;
    spec->schema = arg->schema;
    return 0;
}

int weir_nexmark_source_spec_from_options(const char *const *keys,
                                          const char *const *values, size_t n,
                                          const weir_clock *clock,
                                          const char *name,
                                          weir_source_spec *spec,
                                          weir_error *err)
{
    weir_nexmark_config c;
    int rc = weir_nexmark_config_from_options(&c, keys, values, n, err);
    if (rc)
        return rc;
    if (clock)
        c.clock = *clock;
    return weir_nexmark_source_spec(&c, name, spec, err);
}

/* ---- the instance -------------------------------------------------------- */

typedef struct nx_source {
    const weir_nexmark_source_arg *arg;
    uint32_t subtask, parallelism, splits;
    int32_t out_col[C_COUNT]; /* batch column of each generator column, or -1 */
    char **ids;
    uint32_t n_ids;
    bool discovered;
    _Atomic uint64_t rows_emitted;
} nx_source;

static bool types_compatible(weir_type_id want, weir_type_id have)
{
    if (want == have)
        return true;
    return weir_type_is_time(want) && weir_type_is_time(have);
}

/* Maps each field of schema to a generator column of the table. */
static int plan_columns(nx_source *s, weir_nexmark_table table,
                        const weir_schema *schema, weir_error *err)
{
    for (int i = 0; i < C_COUNT; i++)
        s->out_col[i] = -1;
    uint32_t n;
    const nx_col *cols = table_cols(table, &n);
    for (uint32_t f = 0; f < schema->n_fields; f++) {
        const weir_field *fd = &schema->fields[f];
        int found = -1;
        for (uint32_t i = 0; i < n; i++)
            if (strcasecmp(fd->name, col_name(table, cols[i])) == 0)
                found = (int)cols[i];
        if (found < 0)
            return weir_error_set(
                err, WEIR_EINVAL,
                "nexmark: table '%s' has no column '%s' (check 'nexmark.table' "
                "and the column names)",
                table_name(table), fd->name);
        if (!types_compatible(k_cols[found].type, fd->type.id)) {
            char have[64];
            return weir_error_set(
                err, WEIR_EINVAL, "nexmark: column '%s' is %s, declared as %s",
                fd->name, weir_type_name(k_cols[found].type),
                weir_type_format(fd->type, have, sizeof have));
        }
        if (col_nullable(table, (nx_col)found) && !fd->type.nullable)
            return weir_error_set(err, WEIR_EINVAL,
                                  "nexmark: column '%s' is NULL in events of "
                                  "the other kinds; it cannot be NOT NULL",
                                  fd->name);
        if (s->out_col[found] >= 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "nexmark: column '%s' is declared twice",
                                  fd->name);
        s->out_col[found] = (int32_t)f;
    }
    return 0;
}

static void source_destroy(void *p)
{
    nx_source *s = p;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_ids; i++)
        weir_free(s->ids[i]);
    weir_free(s->ids);
    weir_free(s);
}

static int source_create(void *argp, const weir_source_info *info, void **out,
                         weir_error *err)
{
    const weir_nexmark_source_arg *arg = argp;
    *out = NULL;
    if (!arg || !info || info->parallelism == 0 ||
        info->subtask >= info->parallelism)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: bad source arguments");
    /* Without 'splits', split k of p is the events k, k + p, ... (as
     * datagen's): at another parallelism the checkpoint's splits are not
     * found again. */
    if (!arg->gen.cfg.splits && !info->stable_splits &&
        info->restored_parallelism &&
        info->restored_parallelism != info->parallelism)
        return weir_error_set(
            err, WEIR_EUNSUPPORTED,
            "nexmark: the checkpoint was taken with this source at "
            "parallelism %u and the job runs it at %u; without 'splits' the "
            "source deals its events out by parallelism, so it restores only "
            "at the parallelism it was checkpointed at (set it back to %u, "
            "set 'splits' from the start, or start with --fresh)",
            info->restored_parallelism, info->parallelism,
            info->restored_parallelism);
    nx_source *s = weir_calloc(1, sizeof *s);
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "nexmark: out of memory");
    s->arg = arg;
    s->subtask = info->subtask;
    s->parallelism = info->parallelism;
    /* Without 'splits': one per subtask, or the stable count a job run by
     * several processes asks for (its split ids outlive a rescale). */
    s->splits = arg->gen.cfg.splits    ? arg->gen.cfg.splits
                : info->stable_splits ? info->stable_splits
                                      : info->parallelism;
    int rc = plan_columns(s, arg->gen.cfg.table,
                          info->schema ? info->schema : arg->schema, err);
    if (rc)
        goto fail;
    if (s->splits < s->parallelism) {
        rc = weir_error_set(err, WEIR_EINVAL,
                            "nexmark: 'splits' = %u is less than the source "
                            "parallelism %u; some subtasks would idle",
                            s->splits, s->parallelism);
        goto fail;
    }
    uint32_t mine = 0;
    for (uint32_t k = s->subtask; k < s->splits; k += s->parallelism)
        mine++;
    s->ids = weir_calloc(mine ? mine : 1, sizeof *s->ids);
    if (!s->ids)
        goto nomem;
    for (uint32_t k = s->subtask; k < s->splits; k += s->parallelism) {
        char buf[48];
        snprintf(buf, sizeof buf, "nexmark-%u-of-%u", k, s->splits);
        s->ids[s->n_ids] = weir_strdup(buf);
        if (!s->ids[s->n_ids])
            goto nomem;
        s->n_ids++;
    }
    *out = s;
    return 0;
nomem:
    rc = weir_error_set(err, WEIR_ENOMEM, "nexmark: out of memory");
fail:
    source_destroy(s);
    return rc;
}

/*
 * The split ids are handed out once; *ids stays valid until the instance is
 * destroyed. A generator never gains splits, so *done is always set.
 */
static int source_discover(void *p, const char ***ids, uint32_t *n_ids,
                           bool *done, weir_error *err)
{
    nx_source *s = p;
    (void)err;
    *ids = (const char **)s->ids;
    *n_ids = s->discovered ? 0 : s->n_ids;
    s->discovered = true;
    *done = true;
    return 0;
}

static int source_metrics(void *p,
                          void (*emit)(void *ud, const char *name, uint64_t v),
                          void *ud)
{
    nx_source *s = p;
    emit(ud, "events_emitted",
         atomic_load_explicit(&s->rows_emitted, memory_order_relaxed));
    return 0;
}

/* ---- the reader ---------------------------------------------------------- */

#define POS_VERSION 1
/* The most rows one read() writes in the general path (bounds its stack
 * bitmaps). */
#define NX_VALIDITY_CHUNK 4096u
#define NO_WALL_BASE INT64_MIN

typedef struct nx_reader {
    nx_source *src;
    const weir_nexmark_gen *g;
    uint32_t k, S;
    int kind;       /* the table's kind, or -1 for every event */
    bool empty;     /* the split holds no event of its table */
    uint64_t limit; /* first event number not generated */
    /* Where the reader is: next = epoch * total + off; ts is its timestamp
     * (constant rate). */
    uint64_t next;
    int64_t epoch, off;
    int64_t ts;
    uint64_t acc; /* (next * 1000) mod rate, for the incremental timestamp */
    /* One step of S event numbers. */
    int64_t step_epoch, step_off;
    int64_t step_ms;
    uint64_t step_acc;
    bool constant_rate;
    int64_t wall_base; /* processing time of event-time base_time; NO_WALL_BASE
                          until the first read */
    uint8_t *kinds;    /* scratch: kind of each row written in one read() */
    uint32_t kinds_cap;
    weir_nexmark_event ev;
} nx_reader;

static void reader_seek(nx_reader *r, uint64_t n)
{
    const weir_nexmark_gen *g = r->g;
    r->next = n;
    r->epoch = (int64_t)(n / (uint64_t)g->total);
    r->off = (int64_t)(n % (uint64_t)g->total);
    if (r->constant_rate) {
        uint64_t rate = g->rate[0];
        uint64_t rem = (n % rate) * 1000;
        r->ts = g->cfg.base_time_ms + (int64_t)((n / rate) * 1000 + rem / rate);
        r->acc = rem % rate;
    }
}

static inline void reader_step(nx_reader *r)
{
    r->next += r->S;
    r->epoch += r->step_epoch;
    r->off += r->step_off;
    if (r->off >= r->g->total) {
        r->off -= r->g->total;
        r->epoch++;
    }
    r->ts += r->step_ms;
    r->acc += r->step_acc;
    if (r->acc >= r->g->rate[0]) {
        r->acc -= r->g->rate[0];
        r->ts++;
    }
}

static inline int64_t reader_ts(const nx_reader *r)
{
    return r->constant_rate ? r->ts : weir__nexmark_ts(r->g, r->next);
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Whether split k of S ever reaches an event of the kind (offsets k mod gcd(S,
 * total)). */
static bool split_has_kind(const weir_nexmark_gen *g, uint32_t k, uint32_t S,
                           int kind)
{
    if (kind < 0)
        return true;
    uint64_t d = gcd64(S, (uint64_t)g->total);
    for (int64_t off = 0; off < g->total; off++)
        if ((uint64_t)off % d == k % d && (int)nx_kind_of(g, off) == kind)
            return true;
    return false;
}

static int parse_split_id(const char *id, uint32_t *k, uint32_t *S)
{
    unsigned a, b;
    int used = 0;
    if (sscanf(id, "nexmark-%u-of-%u%n", &a, &b, &used) != 2 ||
        id[used] != '\0' || a >= b)
        return WEIR_EINVAL;
    *k = a;
    *S = b;
    return 0;
}

static void reader_close(void *p)
{
    nx_reader *r = p;
    if (!r)
        return;
    weir_free(r->kinds);
    weir_free(r);
}

static int reader_open(void *p, const char *id, const void *pos, size_t pos_len,
                       void **out, weir_error *err)
{
    nx_source *s = p;
    const weir_nexmark_gen *g = &s->arg->gen;
    *out = NULL;
    uint32_t k, S;
    if (!id || parse_split_id(id, &k, &S))
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: '%s' is not a nexmark split id",
                              id ? id : "(null)");
    if (S != s->splits)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: split '%s' belongs to a run with %u "
                              "splits, this one has %u "
                              "(set 'splits' to a fixed number to keep splits "
                              "across parallelism changes)",
                              id, S, s->splits);
    nx_reader *r = weir_calloc(1, sizeof *r);
    if (!r)
        return weir_error_set(err, WEIR_ENOMEM, "nexmark: out of memory");
    r->src = s;
    r->g = g;
    r->k = k;
    r->S = S;
    r->kind = table_kind(g->cfg.table);
    r->empty = !split_has_kind(g, k, S, r->kind);
    r->limit = g->cfg.events_num > 0 ? (uint64_t)g->cfg.events_num : UINT64_MAX;
    if (g->cfg.stop_at >= 0 && (uint64_t)g->cfg.stop_at < r->limit)
        r->limit = (uint64_t)g->cfg.stop_at;
    r->constant_rate = g->n_steps == 1;
    r->step_epoch = (int64_t)(S / (uint64_t)g->total);
    r->step_off = (int64_t)(S % (uint64_t)g->total);
    if (r->constant_rate) {
        uint64_t span = (uint64_t)S * 1000;
        r->step_ms = (int64_t)(span / g->rate[0]);
        r->step_acc = span % g->rate[0];
    }
    r->wall_base = NO_WALL_BASE;
    uint64_t next = k;
    if (pos && pos_len) {
        weir_cursor c;
        uint8_t ver;
        uint32_t pk, pS;
        uint64_t pn, wb;
        weir_cursor_init(&c, pos, pos_len);
        if (weir_cursor_get_u8(&c, &ver) || ver != POS_VERSION ||
            weir_cursor_get_u32(&c, &pS) || weir_cursor_get_u32(&c, &pk) ||
            weir_cursor_get_u64(&c, &pn) || weir_cursor_get_u64(&c, &wb) ||
            weir_cursor_left(&c) != 0) {
            reader_close(r);
            return weir_error_set(
                err, WEIR_ECORRUPT,
                "nexmark: split '%s': unreadable position (%zu bytes)", id,
                pos_len);
        }
        if (pS != S || pk != k || pn % S != k) {
            reader_close(r);
            return weir_error_set(err, WEIR_ECORRUPT,
                                  "nexmark: split '%s': position of split %u "
                                  "of %u, event %llu does not belong to it",
                                  id, pk, pS, (unsigned long long)pn);
        }
        next = pn;
        r->wall_base = (int64_t)wb;
    }
    reader_seek(r, next);
    *out = r;
    return 0;
}

static int reader_position(void *p, weir_buf *out)
{
    nx_reader *r = p;
    int rc = weir_buf_put_u8(out, POS_VERSION);
    if (!rc)
        rc = weir_buf_put_u32(out, r->S);
    if (!rc)
        rc = weir_buf_put_u32(out, r->k);
    if (!rc)
        rc = weir_buf_put_u64(out, r->next);
    if (!rc)
        rc = weir_buf_put_u64(out, (uint64_t)r->wall_base);
    return rc;
}

/* ---- writing rows -------------------------------------------------------- */

/* Reserves len bytes of the batch heap: a bump in the common case. */
static inline int heap_take(weir_batch *b, uint32_t len, char **dst,
                            uint32_t *off)
{
    if (b->heap_len + len <= b->heap_cap && b->heap_len + len <= UINT32_MAX) {
        *off = (uint32_t)b->heap_len;
        *dst = b->heap + b->heap_len;
        b->heap_len += len;
        return 0;
    }
    weir_strref ref;
    int rc = weir_batch_heap_alloc(b, len, dst, &ref);
    *off = ref.off;
    return rc;
}

static inline void put_i64(weir_batch *b, int32_t col, uint32_t row, int64_t v)
{
    if (col >= 0)
        WEIR_COL_I64(b, col)[row] = v;
}

/*
 * Copies a short string with a few unaligned 16-byte moves instead of a
 * library call: most generated strings are 5 to 100 bytes.
 */
static inline void copy_bytes(char *dst, const char *src, uint32_t len)
{
    if (len >= 16 && len <= 128) {
        uint32_t i = 0;
        for (; i + 16 < len; i += 16)
            memcpy(dst + i, src + i, 16);
        memcpy(dst + len - 16, src + len - 16, 16);
    } else if (len >= 8 && len < 16) {
        memcpy(dst, src, 8);
        memcpy(dst + len - 8, src + len - 8, 8);
    } else {
        memcpy(dst, src, len);
    }
}

static inline int put_str(weir_batch *b, int32_t col, uint32_t row,
                          const char *s, uint32_t len)
{
    if (col < 0)
        return 0;
    char *dst;
    uint32_t off;
    int rc = heap_take(b, len, &dst, &off);
    if (rc)
        return rc;
    copy_bytes(dst, s, len);
    WEIR_COL_STR(b, col)[row] = (weir_strref){off, len};
    return 0;
}

/*
 * Copies 80 + last + 16 bytes (last <= 80) from src to dst in six 16-byte
 * moves, the last one at last: written out, as gcc -O2 keeps a loop of six
 * moves with a count and a branch per move.
 */
static inline void copy_six_moves(char *dst, const char *src, size_t last)
{
    memcpy(dst, src, 16);
    memcpy(dst + 16, src + 16, 16);
    memcpy(dst + 32, src + 32, 16);
    memcpy(dst + 48, src + 48, 16);
    memcpy(dst + 64, src + 64, 16);
    memcpy(dst + last, src + last, 16);
}

/*
 * put_str() for a bid's `extra`, a slice of the padded pool: one that fits
 * NX_POOL_PAD bytes, with that much heap free, is copied as NX_POOL_PAD
 * bytes in fixed 16-byte moves (the bytes past its end land in free heap
 * and are overwritten by the next string), so the copy has no loop whose
 * trip count follows the random length.
 */
static inline int put_extra(weir_batch *b, int32_t col, uint32_t row,
                            const char *s, uint32_t len)
{
    if (col < 0)
        return 0;
    if (len > NX_POOL_PAD || b->heap_len + NX_POOL_PAD > b->heap_cap ||
        b->heap_len + NX_POOL_PAD > UINT32_MAX)
        return put_str(b, col, row, s, len);
    _Static_assert(NX_POOL_PAD == 96, "put_extra copies six 16-byte moves");
    copy_six_moves(b->heap + b->heap_len, s, 80);
    WEIR_COL_STR(b, col)[row] = (weir_strref){(uint32_t)b->heap_len, len};
    b->heap_len += len;
    return 0;
}

/* Per-read() cache of the heap copies of the hot channels and URLs. */
typedef struct hot_cache {
    weir_strref name[NX_NUM_HOT_CHANNELS];
    weir_strref url[NX_NUM_HOT_CHANNELS];
    bool have[NX_NUM_HOT_CHANNELS];
} hot_cache;

/*
 * write_bid_channel() for a channel not in the hot cache: a hot one's
 * first bid of the read(), or a channel that is not hot. A channel's name
 * and URL lie back to back in the tables, and put_str() would put them
 * back to back in the heap: with both wanted they take one piece and one
 * copy.
 */
__attribute__((noinline)) static int
write_bid_channel_new(weir_batch *b, const int32_t *oc, uint32_t row,
                      const weir_nexmark_bid *bid, int hot_index,
                      hot_cache *hc)
{
    int rc;
    if (hot_index < 0) {
        uint32_t nl = bid->channel_len, ul = bid->url_len;
        if (oc[C_B_CHANNEL] >= 0 && oc[C_B_URL] >= 0 &&
            bid->url == bid->channel + nl) {
            char *dst;
            uint32_t off;
            if ((rc = heap_take(b, nl + ul, &dst, &off)))
                return rc;
            copy_bytes(dst, bid->channel, nl + ul);
            WEIR_COL_STR(b, oc[C_B_CHANNEL])[row] = (weir_strref){off, nl};
            WEIR_COL_STR(b, oc[C_B_URL])[row] = (weir_strref){off + nl, ul};
            return 0;
        }
        if ((rc = put_str(b, oc[C_B_CHANNEL], row, bid->channel, nl)))
            return rc;
        return put_str(b, oc[C_B_URL], row, bid->url, ul);
    }
    int h = hot_index;
    /* A hot channel: its strings are in the heap once per read(). */
    if (!hc->have[h]) {
        char *dst;
        uint32_t off;
        uint32_t nl = bid->channel_len, ul = bid->url_len;
        if ((rc = heap_take(b, nl + ul, &dst, &off)))
            return rc;
        memcpy(dst, bid->channel, nl);
        memcpy(dst + nl, bid->url, ul);
        hc->name[h] = (weir_strref){off, nl};
        hc->url[h] = (weir_strref){off + nl, ul};
        hc->have[h] = true;
    }
    if (oc[C_B_CHANNEL] >= 0)
        WEIR_COL_STR(b, oc[C_B_CHANNEL])[row] = hc->name[h];
    if (oc[C_B_URL] >= 0)
        WEIR_COL_STR(b, oc[C_B_URL])[row] = hc->url[h];
    return 0;
}

/* A bid's output columns, NULL where not wanted (extra: see put_extra). */
typedef struct bid_cols {
    int64_t *auction, *bidder, *price, *date_time, *rowtime;
    weir_strref *channel, *url;
    bool want_channel; /* the channel or the url column */
} bid_cols;

static int64_t *i64_col(weir_batch *b, int32_t col)
{
    return col >= 0 ? WEIR_COL_I64(b, col) : NULL;
}

static weir_strref *str_col(weir_batch *b, int32_t col)
{
    return col >= 0 ? WEIR_COL_STR(b, col) : NULL;
}

static bid_cols bid_cols_of(weir_batch *b, const int32_t *oc)
{
    return (bid_cols){
        .auction = i64_col(b, oc[C_B_AUCTION]),
        .bidder = i64_col(b, oc[C_B_BIDDER]),
        .price = i64_col(b, oc[C_B_PRICE]),
        .date_time = i64_col(b, oc[C_B_DATETIME]),
        .rowtime = i64_col(b, oc[C_DATETIME]),
        .channel = str_col(b, oc[C_B_CHANNEL]),
        .url = str_col(b, oc[C_B_URL]),
        .want_channel = oc[C_B_CHANNEL] >= 0 || oc[C_B_URL] >= 0,
    };
}

/*
 * Whether a channel that is not hot can take put_channel_slot(): both
 * columns wanted and a slot's worth of heap free.
 */
static inline bool channel_slot_fits(const weir_batch *b, const bid_cols *bc)
{
    return bc->channel && bc->url &&
           b->heap_len + NX_CHAN_SLOT <= b->heap_cap &&
           b->heap_len + NX_CHAN_SLOT <= UINT32_MAX;
}

/*
 * The name and URL of a channel that is not hot, where channel_slot_fits():
 * copied as the rest of its slot (NX_CHAN_SLOT - 2 bytes from the name on)
 * in fixed 16-byte moves, the bytes past the URL landing in free heap that
 * the next string overwrites (as in put_extra), so half the bids copy their
 * channel without a call or a loop whose trip count follows the length.
 */
static inline void put_channel_slot(weir_batch *b, const bid_cols *bc,
                                    uint32_t row, const weir_nexmark_bid *bid)
{
    _Static_assert(NX_CHAN_SLOT - 2 == 94, "six 16-byte moves, the last "
                                           "overlapping, copy the text");
    copy_six_moves(b->heap + b->heap_len, bid->channel /* its slot + 2 */, 78);
    uint32_t off = (uint32_t)b->heap_len, nl = bid->channel_len;
    bc->channel[row] = (weir_strref){off, nl};
    bc->url[row] = (weir_strref){off + nl, bid->url_len};
    b->heap_len += nl + bid->url_len;
}

/* The channel and url columns of a bid, those wanted. Inline: about half
 * the bids have a hot channel already in the cache, two stores, and most
 * of the others take put_channel_slot(). */
__attribute__((always_inline)) static inline int
write_bid_channel(weir_batch *b, const int32_t *oc, const bid_cols *bc,
                  uint32_t row, const weir_nexmark_bid *bid, int hot_index,
                  hot_cache *hc)
{
    if (hot_index < 0 && channel_slot_fits(b, bc)) {
        put_channel_slot(b, bc, row, bid);
        return 0;
    }
    if (hot_index < 0 || !hc->have[hot_index])
        return write_bid_channel_new(b, oc, row, bid, hot_index, hc);
    if (bc->channel)
        bc->channel[row] = hc->name[hot_index];
    if (bc->url)
        bc->url[row] = hc->url[hot_index];
    return 0;
}

/* A bid's row; its channel and url are read only if bc wants them. */
__attribute__((always_inline)) static inline int
write_bid(weir_batch *b, const int32_t *oc, const bid_cols *bc, uint32_t row,
          const weir_nexmark_bid *bid, int hot_index, hot_cache *hc)
{
    if (bc->auction)
        bc->auction[row] = bid->auction;
    if (bc->bidder)
        bc->bidder[row] = bid->bidder;
    if (bc->price)
        bc->price[row] = bid->price;
    if (bc->date_time)
        bc->date_time[row] = bid->date_time_ms;
    if (bc->rowtime)
        bc->rowtime[row] = bid->date_time_ms;
    int rc;
    if (bc->want_channel &&
        (rc = write_bid_channel(b, oc, bc, row, bid, hot_index, hc)))
        return rc;
    return put_extra(b, oc[C_B_EXTRA], row, bid->extra, bid->extra_len);
}

static int write_person(weir_batch *b, const int32_t *oc, uint32_t row,
                        const weir_nexmark_person *p)
{
    int rc;
    put_i64(b, oc[C_P_ID], row, p->id);
    put_i64(b, oc[C_P_DATETIME], row, p->date_time_ms);
    put_i64(b, oc[C_DATETIME], row, p->date_time_ms);
    if ((rc = put_str(b, oc[C_P_NAME], row, p->name, p->name_len)) ||
        (rc = put_str(b, oc[C_P_EMAIL], row, p->email_address,
                      p->email_address_len)) ||
        (rc = put_str(b, oc[C_P_CARD], row, p->credit_card,
                      p->credit_card_len)) ||
        (rc = put_str(b, oc[C_P_CITY], row, p->city, p->city_len)) ||
        (rc = put_str(b, oc[C_P_STATE], row, p->state, p->state_len)) ||
        (rc = put_str(b, oc[C_P_EXTRA], row, p->extra, p->extra_len)))
        return rc;
    return 0;
}

static int write_auction(weir_batch *b, const int32_t *oc, uint32_t row,
                         const weir_nexmark_auction *a)
{
    int rc;
    put_i64(b, oc[C_A_ID], row, a->id);
    put_i64(b, oc[C_A_INITIAL], row, a->initial_bid);
    put_i64(b, oc[C_A_RESERVE], row, a->reserve);
    put_i64(b, oc[C_A_DATETIME], row, a->date_time_ms);
    put_i64(b, oc[C_A_EXPIRES], row, a->expires_ms);
    put_i64(b, oc[C_A_SELLER], row, a->seller);
    put_i64(b, oc[C_A_CATEGORY], row, a->category);
    put_i64(b, oc[C_DATETIME], row, a->date_time_ms);
    if ((rc = put_str(b, oc[C_A_ITEM], row, a->item_name, a->item_name_len)) ||
        (rc = put_str(b, oc[C_A_DESC], row, a->description,
                      a->description_len)) ||
        (rc = put_str(b, oc[C_A_EXTRA], row, a->extra, a->extra_len)))
        return rc;
    return 0;
}

static void set_valid_range(uint8_t *bm, uint32_t start, uint32_t n)
{
    for (uint32_t i = start; i < start + n; i++)
        bm[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/*
 * Sets the validity of rows [start, start + n): in the wide table a column
 * of one kind is NULL, and zero, in the rows of the other kinds. (Zero, so
 * that code hashing or comparing raw values sees equal NULLs.)
 */
static void finish_validity(nx_reader *r, weir_batch *b, uint32_t start,
                            uint32_t n)
{
    const int32_t *oc = r->src->out_col;
    bool wide = r->kind < 0;
    if (n == 0)
        return;
    /* Per kind, the validity bits of the new rows, from bit 0. */
    uint8_t bits[3][NX_VALIDITY_CHUNK / 8];
    uint32_t count[3] = {0, 0, 0};
    if (wide) {
        memset(bits, 0, sizeof bits);
        for (uint32_t i = 0; i < n; i++) {
            uint8_t k = r->kinds[i];
            count[k]++;
            bits[k][i >> 3] |= (uint8_t)(1u << (i & 7));
        }
    }
    for (int c = 0; c < C_COUNT; c++) {
        if (oc[c] < 0)
            continue;
        weir_column *col = &b->cols[oc[c]];
        int group = k_cols[c].group;
        if (!wide || group < 0 || count[group] == n) {
            if (!col->all_valid)
                set_valid_range(col->valid, start, n);
            continue;
        }
        if (col->all_valid) {
            memset(col->valid, 0xff, (b->capacity + 7) / 8);
            col->all_valid = false;
        }
        if ((start & 7) == 0) {
            /* Whole bytes; the bits past the last row are don't-care until a
             * row lands there. */
            memcpy(col->valid + (start >> 3), bits[group], (n + 7) / 8);
        } else {
            for (uint32_t i = 0; i < n; i++) {
                uint32_t at = start + i;
                if (r->kinds[i] == group)
                    col->valid[at >> 3] |= (uint8_t)(1u << (at & 7));
                else
                    col->valid[at >> 3] &= (uint8_t) ~(1u << (at & 7));
            }
        }
        /* Every grouped column is 8 bytes wide (BIGINT, TIMESTAMP, STRING
         * references). */
        uint64_t *v = (uint64_t *)col->data + start;
        for (uint32_t i = 0; i < n; i++)
            v[i] = r->kinds[i] == group ? v[i] : 0;
    }
}

static int ensure_kinds(nx_reader *r, uint32_t n)
{
    if (n <= r->kinds_cap)
        return 0;
    uint8_t *k = weir_realloc(r->kinds, n);
    if (!k)
        return WEIR_ENOMEM;
    r->kinds = k;
    r->kinds_cap = n;
    return 0;
}

/*
 * Bids generated ahead of writing them: the `extra` of each is a random
 * slice of the 1 MB pool and its channel's text a random slot of the
 * ~1 MB channel table, each a cache miss when read right away, so
 * read_bids() generates this many bids, prefetching each one's slice and
 * slot, before it copies the first. (The rows are the same; only the order
 * of work changes.)
 */
#define NX_BID_AHEAD 32

/*
 * Always inline: a function whose body is only __builtin_prefetch looks
 * free of side effects to gcc, which then drops the call (gcc 12 -O2 kept
 * none of these four prefetches while this was a plain static inline).
 */
__attribute__((always_inline)) static inline void
prefetch_extra(const char *s, uint32_t len)
{
    /* The lines put_extra() reads, without a branch: the first NX_POOL_PAD
     * bytes (at most three lines; inside the padded pool) and, for a longer
     * one, its last byte (the hardware follows the lines between). */
    __builtin_prefetch(s);
    __builtin_prefetch(s + 64);
    __builtin_prefetch(s + NX_POOL_PAD - 1);
    __builtin_prefetch(s + (len > NX_POOL_PAD ? len - 1 : 0));
}

/* The draws the wanted bid columns need (see nx_bid_depth). */
static nx_bid_depth bid_depth(const int32_t *oc)
{
    if (oc[C_B_EXTRA] >= 0)
        return NX_BID_ALL;
    if (oc[C_B_PRICE] >= 0 || oc[C_B_CHANNEL] >= 0 || oc[C_B_URL] >= 0)
        return NX_BID_PRICE;
    if (oc[C_B_BIDDER] >= 0)
        return NX_BID_BIDDER;
    return NX_BID_AUCTION;
}

/* read_bids() at a constant depth, at least bid_depth()'s. */
__attribute__((always_inline)) static inline int
read_bids_to(nx_reader *r, weir_batch *out, uint32_t room, uint32_t *n_out,
             nx_bid_depth depth)
{
    const weir_nexmark_gen *g = r->g;
    const int32_t *oc = r->src->out_col;
    const int64_t bid_from = g->person_prop + g->auction_prop;
    const bool want_extra = depth == NX_BID_ALL && oc[C_B_EXTRA] >= 0;
    const bid_cols bc = bid_cols_of(out, oc);
    uint32_t start = out->n_rows, n = 0;
    hot_cache hc;
    memset(&hc, 0, sizeof hc);
    weir_nexmark_bid bid[NX_BID_AHEAD];
    int64_t ts[NX_BID_AHEAD];
    uint64_t number[NX_BID_AHEAD];
    uint32_t chan[NX_BID_AHEAD];
    nx_bid_base bb;
    nx_bid_base_of(g, r->epoch, &bb);
    int rc = 0;
    while (n < room && r->next < r->limit) {
        uint32_t k = 0;
        while (k < NX_BID_AHEAD && n + k < room && r->next < r->limit) {
            if (r->off >= bid_from) {
                ts[k] = reader_ts(r);
                number[k] = r->next;
                if (r->epoch != bb.epoch)
                    nx_bid_base_of(g, r->epoch, &bb);
                chan[k] =
                    nx_gen_bid_drawn(g, &bb, r->next, ts[k], &bid[k], depth);
                if (bc.want_channel)
                    nx_prefetch_chan(chan[k]);
                if (want_extra)
                    prefetch_extra(bid[k].extra, bid[k].extra_len);
                k++;
            }
            reader_step(r);
        }
        for (uint32_t i = 0; i < k; i++) {
            uint32_t row = start + n;
            if (bc.want_channel)
                nx_bid_set_channel(&bid[i], chan[i]);
            if ((rc = write_bid(out, oc, &bc, row, &bid[i],
                                nx_hot_index(chan[i]), &hc))) {
                /* The reader stands at the bid not written, as if it had
                 * been generated alone. */
                reader_seek(r, number[i]);
                *n_out = n;
                return rc;
            }
            out->ts[row] = ts[i];
            out->kind[row] = WEIR_ROW_INSERT;
            n++;
        }
    }
    *n_out = n;
    return rc;
}

/*
 * The bid table at full speed: the hot path of the bid-only queries. One
 * copy of the loop per depth, so a query that reads few columns (q5: the
 * auction and the time) skips the draws, the price and the `extra` that
 * only the others need: a third of a bid's generation or more.
 */
static int read_bids(nx_reader *r, weir_batch *out, uint32_t room,
                     uint32_t *n_out)
{
    switch (bid_depth(r->src->out_col)) {
    case NX_BID_AUCTION:
        return read_bids_to(r, out, room, n_out, NX_BID_AUCTION);
    case NX_BID_BIDDER:
        return read_bids_to(r, out, room, n_out, NX_BID_BIDDER);
    case NX_BID_PRICE:
        return read_bids_to(r, out, room, n_out, NX_BID_PRICE);
    case NX_BID_ALL:
        break;
    }
    return read_bids_to(r, out, room, n_out, NX_BID_ALL);
}

static int read_general(nx_reader *r, weir_batch *out, uint32_t room,
                        int64_t now, uint32_t *n_out)
{
    const weir_nexmark_gen *g = r->g;
    const int32_t *oc = r->src->out_col;
    bool limited = g->cfg.rate_limited;
    uint32_t start = out->n_rows, n = 0;
    const bid_cols bc = bid_cols_of(out, oc);
    hot_cache hc;
    memset(&hc, 0, sizeof hc);
    int rc = 0;
    while (n < room && r->next < r->limit) {
        int kind = (int)nx_kind_of(g, r->off);
        if (r->kind >= 0 && kind != r->kind) {
            reader_step(r);
            continue;
        }
        int64_t ts = reader_ts(r);
        if (limited && r->wall_base + (ts - g->cfg.base_time_ms) > now)
            break;
        uint32_t row = start + n;
        switch (kind) {
        case WEIR_NEXMARK_PERSON:
            weir__nexmark_gen_person(g, r->next, r->epoch, r->off, ts, &r->ev);
            rc = write_person(out, oc, row, &r->ev.u.person);
            break;
        case WEIR_NEXMARK_AUCTION:
            weir__nexmark_gen_auction(g, r->next, r->epoch, r->off, ts, &r->ev);
            rc = write_auction(out, oc, row, &r->ev.u.auction);
            break;
        default: {
            weir_nexmark_bid bid;
            int hot = nx_gen_bid(g, r->next, r->epoch, r->off, ts, &bid);
            rc = write_bid(out, oc, &bc, row, &bid, hot, &hc);
            break;
        }
        }
        if (rc)
            break;
        if (oc[C_EVENT_TYPE] >= 0)
            WEIR_COL_I32(out, oc[C_EVENT_TYPE])[row] = kind;
        out->ts[row] = ts;
        out->kind[row] = WEIR_ROW_INSERT;
        r->kinds[n] = (uint8_t)kind;
        n++;
        reader_step(r);
    }
    *n_out = n;
    return rc;
}

static int reader_read(void *p, weir_batch *out, uint32_t max_rows,
                       weir_error *err)
{
    nx_reader *r = p;
    const weir_nexmark_gen *g = r->g;
    if (r->empty || r->next >= r->limit)
        return g->cfg.keep_alive ? 0 : WEIR_EOF;
    uint32_t room = out->capacity - out->n_rows;
    if (max_rows < room)
        room = max_rows;
    if (room == 0)
        return 0;
    int64_t now = 0;
    if (g->cfg.rate_limited) {
        now = weir_clock_now(&g->cfg.clock);
        if (r->wall_base == NO_WALL_BASE)
            r->wall_base = now;
    }
    uint32_t n = 0;
    int rc;
    if (r->kind == WEIR_NEXMARK_BID && !g->cfg.rate_limited) {
        rc = read_bids(r, out, room, &n);
    } else {
        if (room > NX_VALIDITY_CHUNK)
            room = NX_VALIDITY_CHUNK;
        if (ensure_kinds(r, room))
            return weir_error_set(err, WEIR_ENOMEM, "nexmark: out of memory");
        rc = read_general(r, out, room, now, &n);
    }
    /* Only the wide table has NULLs, so read_bids need not record kinds. */
    finish_validity(r, out, out->n_rows, n);
    out->n_rows += n;
    atomic_fetch_add_explicit(&r->src->rows_emitted, n, memory_order_relaxed);
    if (rc)
        return weir_error_set(
            err, rc, "nexmark: cannot write event %llu into the batch: %s",
            (unsigned long long)r->next, weir_strerror(rc));
    if (n)
        return (int)n;
    if (r->next >= r->limit)
        return g->cfg.keep_alive ? 0 : WEIR_EOF;
    return 0;
}

const weir_source_class weir_nexmark_source_class = {
    .name = "nexmark",
    .create = source_create,
    .discover = source_discover,
    .open_split = reader_open,
    .read = reader_read,
    .position = reader_position,
    .close_split = reader_close,
    .destroy = source_destroy,
    .metrics = source_metrics,
};
