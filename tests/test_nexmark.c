/*
 * tests/test_nexmark.c - the Nexmark generator and source.
 *
 * The generator API (weir_nexmark_gen_event) is the oracle for the source:
 * every row a source writes is checked against the event of the same
 * number. Statistical checks use a fixed seed (override with
 * NEXMARK_TEST_SEED=<n>; the seed is printed).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connector/nexmark/gen.h" /* the tables and nx_mix64, for the bid oracle */
#include "weir/nexmark.h"
#include "weir/weir.h"

static uint64_t test_seed(void)
{
    static bool printed;
    const char *s = getenv("NEXMARK_TEST_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : 42;
    if (!printed) {
        fprintf(stderr,
                "test_nexmark: seed %" PRIu64
                " (set NEXMARK_TEST_SEED to change)\n",
                seed);
        printed = true;
    }
    return seed;
}

static weir_nexmark_config base_config(weir_nexmark_table table, int64_t events)
{
    weir_nexmark_config c;
    weir_nexmark_config_init(&c);
    c.table = table;
    c.events_num = events;
    c.seed = test_seed();
    return c;
}

/* ---- reading a whole source ---------------------------------------------- */

typedef struct rows {
    char **v;
    size_t n, cap;
} rows;

static void rows_push(rows *r, char *s)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        cr_assert(r->v);
    }
    r->v[r->n++] = s;
}

static void rows_free(rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i]);
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* "v0|v1|...|ts" for one row. */
static char *format_row(const weir_batch *b, uint32_t row)
{
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    cr_assert(s);
    for (uint32_t c = 0; c < b->schema->n_fields; c++) {
        char tmp[2048];
        size_t n = weir_batch_format_value(b, c, row, tmp, sizeof tmp);
        cr_assert(len + n + 40 < cap);
        memcpy(s + len, tmp, n);
        len += n;
        s[len++] = '|';
    }
    snprintf(s + len, cap - len, "%" PRId64, b->ts[row]);
    return s;
}

typedef struct source_run {
    weir_source_spec spec;
    uint32_t p;
    void *inst[64];
} source_run;

static void run_open(source_run *run, const weir_nexmark_config *c, uint32_t p,
                     const weir_schema *schema)
{
    weir_error err = {0};
    memset(run, 0, sizeof *run);
    cr_assert_eq(weir_nexmark_source_spec(c, "nexmark", &run->spec, &err), 0,
                 "%s", err.message);
    run->p = p;
    for (uint32_t i = 0; i < p; i++) {
        weir_source_info info = {.subtask = i, .parallelism = p, .batch_size = 256, .schema = schema ? schema : run->spec.schema};
        cr_assert_eq(
            run->spec.cls->create(run->spec.arg, &info, &run->inst[i], &err), 0,
            "%s", err.message);
    }
}

/* Opens the one split of a run at parallelism 1 from its start. */
static void *open_the_split(source_run *run)
{
    weir_error err = {0};
    void *rd = NULL;
    cr_assert_eq(run->spec.cls->open_split(run->inst[0], "nexmark-0-of-1",
                                           NULL, 0, &rd, &err),
                 0, "%s", err.message);
    return rd;
}

static void run_close(source_run *run)
{
    for (uint32_t i = 0; i < run->p; i++)
        run->spec.cls->destroy(run->inst[i]);
    run->spec.free_arg(run->spec.arg);
}

/* Reads split `id` of instance inst from pos to its end, appending formatted
 * rows. */
static void read_split(const weir_source_class *cls, void *inst, const char *id,
                       const weir_buf *pos, const weir_schema *schema,
                       uint32_t batch_rows, rows *out, uint64_t max_rows)
{
    weir_error err = {0};
    void *rd;
    cr_assert_eq(cls->open_split(inst, id, pos ? pos->data : NULL,
                                 pos ? pos->len : 0, &rd, &err),
                 0, "%s", err.message);
    weir_batch *b = weir_batch_create(schema, batch_rows);
    uint64_t got = 0;
    for (;;) {
        weir_batch_reset(b);
        int rc = cls->read(rd, b, batch_rows, &err);
        if (rc == WEIR_EOF)
            break;
        cr_assert(rc > 0, "read returned %d: %s", rc, err.message);
        cr_assert_eq((uint32_t)rc, b->n_rows);
        for (uint32_t r = 0; r < b->n_rows; r++)
            rows_push(out, format_row(b, r));
        got += (uint64_t)rc;
        if (got >= max_rows)
            break;
    }
    weir_batch_destroy(b);
    cls->close_split(rd);
}

/*
 * Reads every split of every subtask; out[k] gets split k's rows. Returns
 * the number of splits.
 */
static uint32_t read_all(const weir_nexmark_config *c, uint32_t p,
                         uint32_t batch_rows, rows *out)
{
    source_run run;
    uint32_t n_splits = 0;
    run_open(&run, c, p, NULL);
    for (uint32_t i = 0; i < p; i++) {
        const char **ids;
        uint32_t n;
        bool done;
        weir_error err;
        cr_assert_eq(run.spec.cls->discover(run.inst[i], &ids, &n, &done, &err),
                     0);
        cr_assert(done);
        for (uint32_t s = 0; s < n; s++) {
            unsigned k, S;
            cr_assert_eq(sscanf(ids[s], "nexmark-%u-of-%u", &k, &S), 2, "%s",
                         ids[s]);
            cr_assert_eq(k % p, i, "split %s belongs to subtask %u", ids[s],
                         k % p);
            cr_assert(k < 64);
            read_split(run.spec.cls, run.inst[i], ids[s], NULL, run.spec.schema,
                       batch_rows, &out[k], UINT64_MAX);
            n_splits++;
        }
        cr_assert_eq(run.spec.cls->discover(run.inst[i], &ids, &n, &done, &err),
                     0);
        cr_assert_eq(n, 0, "splits are handed out once");
    }
    run_close(&run);
    return n_splits;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The union of parts equals whole, and each part keeps whole's order. */
static void assert_union_equal(const rows *whole, const rows *parts, uint32_t p)
{
    size_t total = 0;
    for (uint32_t i = 0; i < p; i++) {
        size_t j = 0;
        for (size_t k = 0; k < parts[i].n; k++) {
            while (j < whole->n && strcmp(whole->v[j], parts[i].v[k]) != 0)
                j++;
            cr_assert(j < whole->n,
                      "part %u row %zu is not in order in the whole stream: %s",
                      i, k, parts[i].v[k]);
            j++;
        }
        total += parts[i].n;
    }
    cr_assert_eq(total, whole->n, "parts hold %zu rows, the whole %zu", total,
                 whole->n);
    char **a = malloc(total * sizeof *a), **b = malloc(total * sizeof *b);
    memcpy(a, whole->v, total * sizeof *a);
    size_t at = 0;
    for (uint32_t i = 0; i < p; i++) {
        if (parts[i].n)
            memcpy(b + at, parts[i].v, parts[i].n * sizeof *b);
        at += parts[i].n;
    }
    qsort(a, total, sizeof *a, cmp_str);
    qsort(b, total, sizeof *b, cmp_str);
    for (size_t i = 0; i < total; i++)
        cr_assert_str_eq(a[i], b[i]);
    free(a);
    free(b);
}

/* ---- the oracle: expected cells of event n in a table -------------------- */

typedef struct cell {
    bool null, str;
    int64_t i;
    const char *s;
    uint32_t len;
} cell;

static cell I(int64_t v)
{
    return (cell){false, false, v, NULL, 0};
}
static cell S(const char *s, uint32_t len)
{
    return (cell){false, true, 0, s, len};
}
static cell N(void)
{
    return (cell){true, false, 0, NULL, 0};
}

static uint32_t person_cells(const weir_nexmark_event *e, cell *c, bool null)
{
    const weir_nexmark_person *p = &e->u.person;
    cell v[] = {I(p->id),
                S(p->name, p->name_len),
                S(p->email_address, p->email_address_len),
                S(p->credit_card, p->credit_card_len),
                S(p->city, p->city_len),
                S(p->state, p->state_len),
                I(p->date_time_ms),
                S(p->extra, p->extra_len)};
    for (uint32_t i = 0; i < 8; i++)
        c[i] = null ? N() : v[i];
    return 8;
}

static uint32_t auction_cells(const weir_nexmark_event *e, cell *c, bool null)
{
    const weir_nexmark_auction *a = &e->u.auction;
    cell v[] = {I(a->id),
                S(a->item_name, a->item_name_len),
                S(a->description, a->description_len),
                I(a->initial_bid),
                I(a->reserve),
                I(a->date_time_ms),
                I(a->expires_ms),
                I(a->seller),
                I(a->category),
                S(a->extra, a->extra_len)};
    for (uint32_t i = 0; i < 10; i++)
        c[i] = null ? N() : v[i];
    return 10;
}

static uint32_t bid_cells(const weir_nexmark_event *e, cell *c, bool null)
{
    const weir_nexmark_bid *b = &e->u.bid;
    cell v[] = {I(b->auction),
                I(b->bidder),
                I(b->price),
                S(b->channel, b->channel_len),
                S(b->url, b->url_len),
                I(b->date_time_ms),
                S(b->extra, b->extra_len)};
    for (uint32_t i = 0; i < 7; i++)
        c[i] = null ? N() : v[i];
    return 7;
}

static uint32_t expected_cells(weir_nexmark_table t,
                               const weir_nexmark_event *e, cell *c)
{
    uint32_t n = 0;
    switch (t) {
    case WEIR_NEXMARK_TABLE_EVENT:
        c[n++] = I(e->kind);
        n += person_cells(e, c + n, e->kind != WEIR_NEXMARK_PERSON);
        n += auction_cells(e, c + n, e->kind != WEIR_NEXMARK_AUCTION);
        n += bid_cells(e, c + n, e->kind != WEIR_NEXMARK_BID);
        c[n++] = I(e->ts_ms);
        return n;
    case WEIR_NEXMARK_TABLE_PERSON:
        return person_cells(e, c, false);
    case WEIR_NEXMARK_TABLE_AUCTION:
        n = auction_cells(e, c, false);
        return n;
    case WEIR_NEXMARK_TABLE_BID:
        return bid_cells(e, c, false);
    }
    return 0;
}

static void assert_row_is_event(const weir_batch *b, uint32_t row,
                                weir_nexmark_table t,
                                const weir_nexmark_event *e)
{
    cell c[32];
    uint32_t n = expected_cells(t, e, c);
    cr_assert_eq(n, b->schema->n_fields);
    cr_assert_eq(b->ts[row], e->ts_ms, "event %" PRIu64 ": ts", e->number);
    cr_assert_eq(b->kind[row], WEIR_ROW_INSERT);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = b->schema->fields[i].name;
        if (c[i].null) {
            cr_assert(weir_batch_is_null(b, i, row),
                      "event %" PRIu64 ": %s should be NULL", e->number, name);
            continue;
        }
        cr_assert(!weir_batch_is_null(b, i, row),
                  "event %" PRIu64 ": %s is NULL", e->number, name);
        if (c[i].str) {
            uint32_t len;
            const char *s = weir_batch_str(b, i, row, &len);
            cr_assert(len == c[i].len && memcmp(s, c[i].s, len) == 0,
                      "event %" PRIu64 ": %s = '%.*s', want '%.*s'", e->number,
                      name, (int)len, s, (int)c[i].len, c[i].s);
        } else if (b->cols[i].type.id == WEIR_TYPE_INT) {
            cr_assert_eq(WEIR_COL_I32(b, i)[row], c[i].i,
                         "event %" PRIu64 ": %s", e->number, name);
        } else {
            cr_assert_eq(WEIR_COL_I64(b, i)[row], c[i].i,
                         "event %" PRIu64 ": %s", e->number, name);
        }
    }
}

static int kind_of_table(weir_nexmark_table t)
{
    return t == WEIR_NEXMARK_TABLE_EVENT ? -1 : (int)t - 1;
}

/* Reads the single split of a p=1 source and checks every row against the
 * generator. */
static uint64_t check_table_against_gen(const weir_nexmark_config *c,
                                        uint32_t batch_rows)
{
    weir_error err;
    weir_nexmark_gen *g;
    cr_assert_eq(weir_nexmark_gen_create(c, &g, &err), 0, "%s", err.message);
    source_run run;
    run_open(&run, c, 1, NULL);
    const char **ids;
    uint32_t n_ids;
    bool done;
    cr_assert_eq(run.spec.cls->discover(run.inst[0], &ids, &n_ids, &done, &err),
                 0);
    cr_assert_eq(n_ids, 1);
    void *rd;
    cr_assert_eq(
        run.spec.cls->open_split(run.inst[0], ids[0], NULL, 0, &rd, &err), 0,
        "%s", err.message);
    weir_batch *b = weir_batch_create(run.spec.schema, batch_rows);
    weir_nexmark_event ev;
    uint64_t n = 0, rows_seen = 0;
    int want = kind_of_table(c->table);
    for (;;) {
        weir_batch_reset(b);
        int rc = run.spec.cls->read(rd, b, batch_rows, &err);
        if (rc == WEIR_EOF)
            break;
        cr_assert(rc > 0, "%d %s", rc, err.message);
        for (uint32_t r = 0; r < b->n_rows; r++) {
            while (want >= 0 && (int)weir_nexmark_gen_kind(g, n) != want)
                n++;
            weir_nexmark_gen_event(g, n, &ev);
            assert_row_is_event(b, r, c->table, &ev);
            n++;
            rows_seen++;
        }
    }
    while (want >= 0 && n < (uint64_t)c->events_num &&
           (int)weir_nexmark_gen_kind(g, n) != want)
        n++;
    cr_assert_eq(n, (uint64_t)c->events_num,
                 "the source stopped early at event %" PRIu64, n);
    weir_batch_destroy(b);
    run.spec.cls->close_split(rd);
    run_close(&run);
    weir_nexmark_gen_destroy(g);
    return rows_seen;
}

/* ---- tests --------------------------------------------------------------- */

Test(nexmark, proportions_exact_per_block)
{
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 5000);
    rows out = {0};
    read_all(&c, 1, 100, &out);
    cr_assert_eq(out.n, 5000);
    for (size_t block = 0; block < 100; block++) {
        int counts[3] = {0};
        for (size_t i = 0; i < 50; i++) {
            int kind = atoi(out.v[block * 50 + i]);
            cr_assert(kind >= 0 && kind <= 2);
            counts[kind]++;
            /* 1 person, then 3 auctions, then 46 bids. */
            cr_assert_eq(kind,
                         i < 1   ? 0
                         : i < 4 ? 1
                                 : 2,
                         "block %zu event %zu", block, i);
        }
        cr_assert(counts[0] == 1 && counts[1] == 3 && counts[2] == 46);
    }
    rows_free(&out);

    /* Other proportions are honoured exactly too. */
    weir_nexmark_config c2 = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    c2.person_proportion = 2;
    c2.auction_proportion = 5;
    c2.bid_proportion = 13;
    weir_nexmark_gen *g;
    weir_error err;
    cr_assert_eq(weir_nexmark_gen_create(&c2, &g, &err), 0);
    int counts[3] = {0};
    for (uint64_t n = 0; n < 2000; n++)
        counts[weir_nexmark_gen_kind(g, n)]++;
    cr_assert(counts[0] == 200 && counts[1] == 500 && counts[2] == 1300);
    weir_nexmark_gen_destroy(g);
}

Test(nexmark, every_table_matches_the_generator)
{
    /* Each table, at several batch sizes, equals the generator's events (the
     * wide one with NULLs). */
    const uint32_t batch[] = {1, 7, 256};
    for (int t = WEIR_NEXMARK_TABLE_EVENT; t <= WEIR_NEXMARK_TABLE_BID; t++) {
        for (size_t i = 0; i < 3; i++) {
            weir_nexmark_config c = base_config((weir_nexmark_table)t, 1500);
            uint64_t got = check_table_against_gen(&c, batch[i]);
            uint64_t want = t == 0 ? 1500 : t == 1 ? 30 : t == 2 ? 90 : 1380;
            cr_assert_eq(got, want, "table %d: %" PRIu64 " rows", t, got);
        }
    }
}

Test(nexmark, appends_to_a_partly_filled_batch)
{
    /* Reads of 13 rows into one batch that is never reset: rows land at
     * unaligned offsets, after NULLs. */
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    weir_error err;
    weir_nexmark_gen *g;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    source_run run;
    run_open(&run, &c, 1, NULL);
    void *rd = open_the_split(&run);
    weir_batch *b = weir_batch_create(run.spec.schema, 999);
    weir_nexmark_event ev;
    /* Twice: the second pass reuses buffers that hold the first pass's values.
     */
    for (uint64_t pass = 0; pass < 2; pass++) {
        int rc;
        weir_batch_reset(b);
        while ((rc = run.spec.cls->read(rd, b, 13, &err)) > 0)
            cr_assert(rc <= 13);
        cr_assert_eq(rc, 0, "a full batch takes no rows");
        cr_assert_eq(b->n_rows, 999);
        for (uint32_t r = 0; r < b->n_rows; r++) {
            weir_nexmark_gen_event(g, pass * 999 + r, &ev);
            assert_row_is_event(b, r, WEIR_NEXMARK_TABLE_EVENT, &ev);
        }
        /* NULL cells hold zeroes. */
        for (uint32_t col = 1; col < 26; col++)
            for (uint32_t r = 0; r < b->n_rows; r++)
                if (weir_batch_is_null(b, col, r))
                    cr_assert_eq(WEIR_COL_I64(b, col)[r], 0, "column %u row %u",
                                 col, r);
    }
    weir_batch_destroy(b);
    run.spec.cls->close_split(rd);
    run_close(&run);
    weir_nexmark_gen_destroy(g);
}

Test(nexmark, ids_and_references)
{
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    weir_nexmark_gen *g;
    weir_error err;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    const int64_t P0 = WEIR_NEXMARK_FIRST_PERSON_ID,
                  A0 = WEIR_NEXMARK_FIRST_AUCTION_ID, lead = 10;
    int64_t people = 0, auctions = 0; /* created so far */
    uint64_t bids = 0, bids_known_auction = 0, bids_known_bidder = 0,
             auctions_known_seller = 0;
    weir_nexmark_event e;
    for (uint64_t n = 0; n < 200000; n++) {
        weir_nexmark_gen_event(g, n, &e);
        cr_assert_eq(e.number, n);
        switch (e.kind) {
        case WEIR_NEXMARK_PERSON:
            cr_assert_eq(e.u.person.id, P0 + people,
                         "person ids are consecutive");
            people++;
            break;
        case WEIR_NEXMARK_AUCTION: {
            const weir_nexmark_auction *a = &e.u.auction;
            cr_assert_eq(a->id, A0 + auctions, "auction ids are consecutive");
            auctions++;
            /* A seller is an active person or one of the next few to come. */
            int64_t lo = people > 1000 ? people - 1000 : 0;
            int64_t hot = ((people - 1) / 100) * 100;
            cr_assert(a->seller - P0 == hot || (a->seller - P0 >= lo &&
                                                a->seller - P0 < people + lead),
                      "seller %" PRId64 " with %" PRId64 " people", a->seller,
                      people);
            auctions_known_seller += a->seller < P0 + people;
            cr_assert(a->category >= 10 && a->category < 15);
            cr_assert(a->initial_bid >= 100 && a->initial_bid <= 100000000);
            cr_assert(a->reserve >= a->initial_bid + 100);
            cr_assert(a->expires_ms > a->date_time_ms);
            break;
        }
        case WEIR_NEXMARK_BID: {
            const weir_nexmark_bid *b = &e.u.bid;
            bids++;
            int64_t last = auctions - 1;
            int64_t lo = last - 100 > 0 ? last - 100 : 0;
            int64_t hot = (last / 100) * 100;
            cr_assert(
                b->auction - A0 == hot ||
                    (b->auction - A0 >= lo && b->auction - A0 <= last + lead),
                "bid for auction %" PRId64 " with %" PRId64 " auctions",
                b->auction, auctions);
            /* The bidder gets FIRST_PERSON_ID once: it names a person that
             * exists or is about to. */
            int64_t plo = people > 1000 ? people - 1000 : 0;
            cr_assert(b->bidder - P0 >= plo && b->bidder - P0 < people + lead,
                      "bidder %" PRId64 " with %" PRId64 " people", b->bidder,
                      people);
            bids_known_auction += b->auction < A0 + auctions;
            bids_known_bidder += b->bidder < P0 + people;
            cr_assert(b->price >= 100 && b->price <= 100000000);
            cr_assert(b->channel_len > 0 && b->url_len > 0);
            break;
        }
        }
    }
    cr_assert_eq(people, 4000);
    cr_assert_eq(auctions, 12000);
    /* Most references name ids that already exist (the rest are the few
     * "leads"). */
    cr_assert(bids_known_auction > bids * 0.93, "%" PRIu64 "/%" PRIu64,
              bids_known_auction, bids);
    cr_assert(bids_known_bidder > bids * 0.97, "%" PRIu64 "/%" PRIu64,
              bids_known_bidder, bids);
    cr_assert(auctions_known_seller > (uint64_t)auctions * 97 / 100);
    weir_nexmark_gen_destroy(g);
}

/* Fractions of bids for the hot auction, by the hot bidder, and of auctions by
 * the hot seller. */
static void hot_fractions(const weir_nexmark_config *c, double *auc,
                          double *bidder, double *seller)
{
    weir_nexmark_gen *g;
    weir_error err;
    cr_assert_eq(weir_nexmark_gen_create(c, &g, &err), 0);
    uint64_t bids = 0, hot_auc = 0, hot_bidder = 0, aucs = 0, hot_seller = 0;
    int64_t people = 0, auctions = 0;
    weir_nexmark_event e;
    for (uint64_t n = 0; n < 400000; n++) {
        weir_nexmark_gen_event(g, n, &e);
        if (e.kind == WEIR_NEXMARK_PERSON) {
            people++;
        } else if (e.kind == WEIR_NEXMARK_AUCTION) {
            auctions++;
            aucs++;
            hot_seller += e.u.auction.seller == WEIR_NEXMARK_FIRST_PERSON_ID +
                                                    ((people - 1) / 100) * 100;
        } else {
            bids++;
            hot_auc += e.u.bid.auction == WEIR_NEXMARK_FIRST_AUCTION_ID +
                                              ((auctions - 1) / 100) * 100;
            hot_bidder += e.u.bid.bidder == WEIR_NEXMARK_FIRST_PERSON_ID +
                                                ((people - 1) / 100) * 100 + 1;
        }
    }
    *auc = (double)hot_auc / bids;
    *bidder = (double)hot_bidder / bids;
    *seller = (double)hot_seller / aucs;
    weir_nexmark_gen_destroy(g);
}

Test(nexmark, hot_ratios)
{
    double a, b, s;
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    hot_fractions(&c, &a, &b, &s);
    /* P(hot) = 1 - 1/ratio, plus the small chance a random pick lands on it. */
    cr_assert(a > 0.49 && a < 0.53, "hot auctions %f (ratio 2)", a);
    cr_assert(b > 0.74 && b < 0.77, "hot bidders %f (ratio 4)", b);
    cr_assert(s > 0.72 && s < 0.79, "hot sellers %f (ratio 4)", s);

    c.hot_auction_ratio = 10;
    c.hot_bidder_ratio = 1;
    c.hot_seller_ratio = 2;
    hot_fractions(&c, &a, &b, &s);
    cr_assert(a > 0.89 && a < 0.92, "hot auctions %f (ratio 10)", a);
    cr_assert(b < 0.01, "hot bidders %f (ratio 1: never hot)", b);
    cr_assert(s > 0.47 && s < 0.54, "hot sellers %f (ratio 2)", s);
}

static void mean_sizes(const weir_nexmark_config *c, double mean[3])
{
    weir_nexmark_gen *g;
    weir_error err;
    cr_assert_eq(weir_nexmark_gen_create(c, &g, &err), 0);
    double sum[3] = {0};
    uint64_t cnt[3] = {0};
    weir_nexmark_event e;
    for (uint64_t n = 0; n < 100000; n++) {
        weir_nexmark_gen_event(g, n, &e);
        sum[e.kind] += weir_nexmark_event_size(&e);
        cnt[e.kind]++;
    }
    for (int k = 0; k < 3; k++)
        mean[k] = sum[k] / (double)cnt[k];
    weir_nexmark_gen_destroy(g);
}

Test(nexmark, average_sizes)
{
    double m[3];
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    mean_sizes(&c, m);
    cr_assert(m[0] > 195 && m[0] < 205, "person %f", m[0]);
    cr_assert(m[1] > 490 && m[1] < 510, "auction %f", m[1]);
    cr_assert(m[2] > 98 && m[2] < 102, "bid %f", m[2]);

    weir_error err;
    const char *keys[] = {"person.avg-size", "auction.avg-size",
                          "bid.avg-size"};
    const char *vals[] = {"1kb", "2000 b", "300b"};
    cr_assert_eq(weir_nexmark_config_from_options(&c, keys, vals, 3, &err), 0,
                 "%s", err.message);
    c.seed = test_seed();
    mean_sizes(&c, m);
    cr_assert(m[0] > 1000 && m[0] < 1048, "person %f", m[0]);
    cr_assert(m[1] > 1960 && m[1] < 2040, "auction %f", m[1]);
    cr_assert(m[2] > 294 && m[2] < 306, "bid %f", m[2]);

    /* Each bid's extra is within +-20% of what brings it to the average. */
    c = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    weir_nexmark_gen *g;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    weir_nexmark_event e;
    for (uint64_t n = 4; n < 50; n++) {
        weir_nexmark_gen_event(g, n, &e);
        cr_assert(e.u.bid.extra_len >= 54 && e.u.bid.extra_len <= 82,
                  "extra %u", e.u.bid.extra_len);
        for (uint32_t i = 0; i < e.u.bid.extra_len; i++)
            cr_assert(e.u.bid.extra[i] >= 'a' && e.u.bid.extra[i] <= 'z');
    }
    weir_nexmark_gen_destroy(g);
}

Test(nexmark, field_shapes)
{
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    weir_nexmark_gen *g;
    weir_error err;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    weir_nexmark_event e;
    uint64_t hot_channels = 0, bids = 0, with_id = 0, low_prices = 0,
             mid_prices = 0;
    for (uint64_t n = 0; n < 20000; n++) {
        weir_nexmark_gen_event(g, n, &e);
        if (e.kind == WEIR_NEXMARK_PERSON) {
            const weir_nexmark_person *p = &e.u.person;
            cr_assert(memchr(p->name, ' ', p->name_len));
            cr_assert(p->email_address_len >= 5 &&
                      memcmp(p->email_address + p->email_address_len - 4,
                             ".com", 4) == 0);
            cr_assert(memchr(p->email_address, '@', p->email_address_len));
            cr_assert_eq(p->credit_card_len, 19);
            cr_assert(p->state_len == 2);
            cr_assert(p->email_address[0] != ' ' &&
                      p->email_address[p->email_address_len - 1] != ' ');
        } else if (e.kind == WEIR_NEXMARK_AUCTION) {
            const weir_nexmark_auction *a = &e.u.auction;
            cr_assert(a->item_name_len <= 19 && a->description_len <= 99);
            if (a->item_name_len)
                cr_assert(a->item_name[0] != ' ' &&
                          a->item_name[a->item_name_len - 1] != ' ');
        } else {
            const weir_nexmark_bid *b = &e.u.bid;
            bids++;
            /* Log-uniform over 100 .. 10^8 cents: a third in each factor of
             * 100. */
            low_prices += b->price < 10000;
            mid_prices += b->price >= 10000 && b->price < 1000000;
            cr_assert(b->url_len > 24 &&
                      memcmp(b->url, "https://www.nexmark.com/", 24) == 0);
            bool hot =
                (b->channel_len == 6 && !memcmp(b->channel, "Google", 6)) ||
                (b->channel_len == 8 && !memcmp(b->channel, "Facebook", 8)) ||
                (b->channel_len == 5 && !memcmp(b->channel, "Baidu", 5)) ||
                (b->channel_len == 5 && !memcmp(b->channel, "Apple", 5));
            if (hot) {
                hot_channels++;
            } else {
                cr_assert(b->channel_len > 8 &&
                          !memcmp(b->channel, "channel-", 8));
                /* q21 extracts channel_id from the URL. */
                with_id +=
                    memmem(b->url, b->url_len, "&channel_id=", 12) != NULL;
            }
        }
    }
    double h = (double)hot_channels / bids;
    cr_assert(low_prices > bids * 0.31 && low_prices < bids * 0.36,
              "prices under $100: %" PRIu64, low_prices);
    cr_assert(mid_prices > bids * 0.31 && mid_prices < bids * 0.36,
              "prices $100..$10k: %" PRIu64, mid_prices);
    cr_assert(h > 0.47 && h < 0.53, "hot channels %f", h);
    double w = (double)with_id / (bids - hot_channels);
    cr_assert(w > 0.86 && w < 0.94, "urls with channel_id %f", w);
    weir_nexmark_gen_destroy(g);
}

Test(nexmark, deterministic_per_seed)
{
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 2000);
    rows a = {0}, b = {0}, d = {0};
    read_all(&c, 1, 64, &a);
    read_all(&c, 1, 333, &b);
    cr_assert_eq(a.n, b.n);
    for (size_t i = 0; i < a.n; i++)
        cr_assert_str_eq(a.v[i], b.v[i]);
    c.seed += 1;
    read_all(&c, 1, 64, &d);
    size_t same = 0;
    for (size_t i = 0; i < a.n; i++)
        same += strcmp(a.v[i], d.v[i]) == 0;
    cr_assert(same < a.n / 10,
              "another seed should change the stream (%zu of %zu rows equal)",
              same, a.n);
    rows_free(&a);
    rows_free(&b);
    rows_free(&d);
}

static void check_split_union(weir_nexmark_table t, int64_t events, uint32_t p,
                              uint32_t splits, uint32_t batch)
{
    weir_nexmark_config c = base_config(t, events);
    rows whole = {0};
    read_all(&c, 1, 100, &whole);
    c.splits = splits;
    rows parts[64];
    memset(parts, 0, sizeof parts);
    uint32_t n = read_all(&c, p, batch, parts);
    cr_assert_eq(n, splits ? splits : p);
    assert_union_equal(&whole, parts, n);
    rows_free(&whole);
    for (uint32_t i = 0; i < n; i++)
        rows_free(&parts[i]);
}

Test(nexmark, split_union_equals_single_stream)
{
    check_split_union(WEIR_NEXMARK_TABLE_EVENT, 3000, 2, 0, 64);
    check_split_union(WEIR_NEXMARK_TABLE_EVENT, 3001, 3, 0, 17);
    check_split_union(WEIR_NEXMARK_TABLE_BID, 5000, 2, 4,
                      100); /* two splits per subtask */
    check_split_union(WEIR_NEXMARK_TABLE_AUCTION, 5000, 4, 0, 5);
    /* 50 splits: split k sees only offset k of each block of 50, so most person
     * splits are empty. */
    check_split_union(WEIR_NEXMARK_TABLE_PERSON, 5000, 5, 50, 8);
    check_split_union(WEIR_NEXMARK_TABLE_BID, 5000, 7, 0, 33);
}

Test(nexmark, splits_advance_together_in_event_time)
{
    /* After reading the same number of rows, the splits' event times differ by
     * at most the stride. */
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    c.first_event_rate = c.next_event_rate = 1000;
    rows parts[4];
    memset(parts, 0, sizeof parts);
    source_run run;
    run_open(&run, &c, 4, NULL);
    int64_t last_ts[4];
    for (uint32_t i = 0; i < 4; i++) {
        const char **ids;
        uint32_t n;
        bool done;
        weir_error err;
        cr_assert_eq(run.spec.cls->discover(run.inst[i], &ids, &n, &done, &err),
                     0);
        cr_assert_eq(n, 1);
        void *rd;
        cr_assert_eq(
            run.spec.cls->open_split(run.inst[i], ids[0], NULL, 0, &rd, &err),
            0);
        weir_batch *b = weir_batch_create(run.spec.schema, 1000);
        cr_assert_eq(run.spec.cls->read(rd, b, 1000, &err), 1000);
        last_ts[i] = b->ts[999];
        weir_batch_destroy(b);
        run.spec.cls->close_split(rd);
    }
    for (uint32_t i = 1; i < 4; i++)
        cr_assert(last_ts[i] - last_ts[0] >= 0 && last_ts[i] - last_ts[0] <= 4,
                  "%" PRId64 " vs %" PRId64, last_ts[i], last_ts[0]);
    run_close(&run);
}

/* Reads a split in two runs, cut after `first` rows, and compares with one
 * uninterrupted read. */
static void check_resume(weir_nexmark_table t, uint32_t p, uint32_t batch,
                         uint64_t first)
{
    weir_nexmark_config c = base_config(t, 4000);
    source_run run;
    run_open(&run, &c, p, NULL);
    const char **ids;
    uint32_t n;
    bool done;
    weir_error err;
    uint32_t sub = p - 1;
    cr_assert_eq(run.spec.cls->discover(run.inst[sub], &ids, &n, &done, &err),
                 0);
    char id[64];
    snprintf(id, sizeof id, "%s", ids[0]); /* ids die with the instance */
    rows whole = {0}, cut = {0};
    read_split(run.spec.cls, run.inst[sub], id, NULL, run.spec.schema, batch,
               &whole, UINT64_MAX);

    void *rd;
    cr_assert_eq(
        run.spec.cls->open_split(run.inst[sub], id, NULL, 0, &rd, &err), 0);
    weir_batch *b = weir_batch_create(run.spec.schema, batch);
    while (cut.n < first) {
        weir_batch_reset(b);
        int rc = run.spec.cls->read(rd, b, batch, &err);
        cr_assert(rc > 0);
        for (uint32_t r = 0; r < b->n_rows; r++)
            rows_push(&cut, format_row(b, r));
    }
    weir_buf pos;
    weir_buf_init(&pos);
    cr_assert_eq(run.spec.cls->position(rd, &pos), 0);
    run.spec.cls->close_split(rd);
    weir_batch_destroy(b);
    /* A fresh source (as after a restart) resumes from the position. */
    run_close(&run);
    run_open(&run, &c, p, NULL);
    read_split(run.spec.cls, run.inst[sub], id, &pos, run.spec.schema, batch,
               &cut, UINT64_MAX);
    cr_assert_eq(cut.n, whole.n);
    for (size_t i = 0; i < whole.n; i++)
        cr_assert_str_eq(cut.v[i], whole.v[i], "row %zu", i);
    weir_buf_fini(&pos);
    rows_free(&whole);
    rows_free(&cut);
    run_close(&run);
}

Test(nexmark, position_resumes_exactly)
{
    check_resume(WEIR_NEXMARK_TABLE_EVENT, 1, 7, 21);
    check_resume(WEIR_NEXMARK_TABLE_EVENT, 3, 64, 600);
    check_resume(WEIR_NEXMARK_TABLE_BID, 2, 100, 100);
    check_resume(WEIR_NEXMARK_TABLE_PERSON, 1, 3, 30);
    check_resume(WEIR_NEXMARK_TABLE_AUCTION, 2, 10, 1);
}

Test(nexmark, bad_positions_are_refused)
{
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 100);
    source_run run;
    run_open(&run, &c, 2, NULL);
    weir_error err;
    void *rd;
    weir_buf pos;
    weir_buf_init(&pos);
    cr_assert_eq(run.spec.cls->open_split(run.inst[0], "nexmark-0-of-2", NULL,
                                          0, &rd, &err),
                 0);
    cr_assert_eq(run.spec.cls->position(rd, &pos), 0);
    run.spec.cls->close_split(rd);
    /* Another split's position, a truncated one, a foreign split id, a split
     * count that changed. */
    cr_assert_eq(run.spec.cls->open_split(run.inst[1], "nexmark-1-of-2",
                                          pos.data, pos.len, &rd, &err),
                 WEIR_ECORRUPT);
    cr_assert_eq(run.spec.cls->open_split(run.inst[0], "nexmark-0-of-2",
                                          pos.data, pos.len - 1, &rd, &err),
                 WEIR_ECORRUPT);
    cr_assert_eq(
        run.spec.cls->open_split(run.inst[0], "file-0", NULL, 0, &rd, &err),
        WEIR_EINVAL);
    cr_assert_eq(run.spec.cls->open_split(run.inst[0], "nexmark-0-of-3", NULL,
                                          0, &rd, &err),
                 WEIR_EINVAL);
    cr_assert(strstr(err.message, "splits"), "%s", err.message);
    weir_buf_fini(&pos);
    run_close(&run);
}

Test(nexmark, timestamps_follow_the_rate)
{
    weir_error err;
    weir_nexmark_gen *g;
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    c.first_event_rate = c.next_event_rate = 3;
    c.base_time_ms = 1000;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    for (uint64_t n = 0; n < 100; n++)
        cr_assert_eq(weir_nexmark_gen_timestamp(g, n),
                     1000 + (int64_t)(n * 1000 / 3));
    weir_nexmark_gen_destroy(g);

    /* The source's incremental timestamps equal the formula, in every split, at
     * a rate that does not divide 1000. */
    c.first_event_rate = c.next_event_rate = 7777;
    c.events_num = 20000;
    c.base_time_ms = WEIR_NEXMARK_DEFAULT_BASE_TIME_MS;
    for (uint32_t p = 1; p <= 3; p++) {
        source_run run;
        run_open(&run, &c, p, NULL);
        for (uint32_t i = 0; i < p; i++) {
            const char **ids;
            uint32_t n;
            bool done;
            cr_assert_eq(
                run.spec.cls->discover(run.inst[i], &ids, &n, &done, &err), 0);
            void *rd;
            cr_assert_eq(run.spec.cls->open_split(run.inst[i], ids[0], NULL, 0,
                                                  &rd, &err),
                         0);
            weir_batch *b = weir_batch_create(run.spec.schema, 512);
            uint64_t ev = i;
            int64_t prev = INT64_MIN;
            int rc;
            while ((rc = run.spec.cls->read(rd, b, 512, &err)) > 0) {
                for (uint32_t r = 0; r < b->n_rows; r++, ev += p) {
                    int64_t want = c.base_time_ms + (int64_t)(ev * 1000 / 7777);
                    cr_assert_eq(b->ts[r], want, "event %" PRIu64, ev);
                    cr_assert_eq(WEIR_COL_I64(b, 26)[r], want);
                    cr_assert(b->ts[r] >= prev);
                    prev = b->ts[r];
                }
                weir_batch_reset(b);
            }
            cr_assert_eq(rc, WEIR_EOF);
            weir_batch_destroy(b);
            run.spec.cls->close_split(rd);
        }
        run_close(&run);
    }

    /* A square wave: 1000/s for 1 s, then 2000/s for 1 s, repeated. */
    c.first_event_rate = 1000;
    c.next_event_rate = 2000;
    c.rate_period_s = 2;
    c.base_time_ms = 0;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    cr_assert_eq(weir_nexmark_gen_timestamp(g, 999), 999);
    cr_assert_eq(weir_nexmark_gen_timestamp(g, 1000), 1000);
    cr_assert_eq(weir_nexmark_gen_timestamp(g, 1002), 1001);
    cr_assert_eq(weir_nexmark_gen_timestamp(g, 2999), 1999);
    cr_assert_eq(weir_nexmark_gen_timestamp(g, 3000), 2000);
    cr_assert_eq(weir_nexmark_gen_timestamp(g, 3000 * 5 + 1500), 10000 + 1250);
    int64_t prev = INT64_MIN;
    for (uint64_t n = 0; n < 20000; n++) {
        int64_t t = weir_nexmark_gen_timestamp(g, n);
        cr_assert(t >= prev);
        prev = t;
    }
    weir_nexmark_gen_destroy(g);

    /* A sine curve averages between the rates: 10 steps of 1 s over a 10 s
     * period. */
    c.rate_shape = WEIR_NEXMARK_RATE_SINE;
    c.rate_period_s = 10;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    cr_assert_eq(weir_nexmark_gen_timestamp(g, 999), 999,
                 "the first step runs at first-event.rate");
    int64_t t15k = weir_nexmark_gen_timestamp(g, 15000);
    cr_assert(t15k >= 9900 && t15k <= 10000, "%" PRId64, t15k);
    /* The stepped curve also drives the source. */
    c.events_num = 3000;
    check_table_against_gen(&c, 100);
    weir_nexmark_gen_destroy(g);
}

Test(nexmark, rate_limited_against_the_clock)
{
    weir_manual_clock *mc = weir_manual_clock_create(50000);
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 0);
    c.first_event_rate = c.next_event_rate = 1000; /* one event per ms */
    c.rate_limited = true;
    c.clock = weir_manual_clock_get(mc);
    source_run run;
    run_open(&run, &c, 1, NULL);
    weir_error err;
    void *rd = open_the_split(&run);
    weir_batch *b = weir_batch_create(run.spec.schema, 5000);
    cr_assert_eq(run.spec.cls->read(rd, b, 5000, &err), 1,
                 "only event 0 is due at the start");
    cr_assert_eq(run.spec.cls->read(rd, b, 5000, &err), 0,
                 "nothing more until the clock moves");
    weir_manual_clock_advance(mc, 10);
    cr_assert_eq(run.spec.cls->read(rd, b, 5000, &err), 10);
    cr_assert_eq(b->n_rows, 11);
    weir_buf pos;
    weir_buf_init(&pos);
    cr_assert_eq(run.spec.cls->position(rd, &pos), 0);
    run.spec.cls->close_split(rd);
    /* The wall-clock start travels with the position: a resumed reader keeps
     * the pace. */
    cr_assert_eq(run.spec.cls->open_split(run.inst[0], "nexmark-0-of-1",
                                          pos.data, pos.len, &rd, &err),
                 0);
    weir_batch_reset(b);
    cr_assert_eq(run.spec.cls->read(rd, b, 5000, &err), 0);
    weir_manual_clock_advance(mc, 1000);
    cr_assert_eq(run.spec.cls->read(rd, b, 5000, &err), 1000);
    cr_assert_eq(b->ts[999], WEIR_NEXMARK_DEFAULT_BASE_TIME_MS + 1010);
    run.spec.cls->close_split(rd);
    weir_buf_fini(&pos);
    weir_batch_destroy(b);
    run_close(&run);

    /* Through the options: max-emit-speed = false and an explicit clock. */
    const char *keys[] = {"connector", "max-emit-speed", "first-event.rate",
                          "nexmark.table"};
    const char *vals[] = {"nexmark", "false", "1000", "bid"};
    weir_clock clk = weir_manual_clock_get(mc);
    weir_source_spec spec;
    cr_assert_eq(weir_nexmark_source_spec_from_options(keys, vals, 4, &clk,
                                                       "bids", &spec, &err),
                 0, "%s", err.message);
    void *inst;
    weir_source_info info = {.subtask = 0, .parallelism = 1, .batch_size = 100, .schema = spec.schema};
    cr_assert_eq(spec.cls->create(spec.arg, &info, &inst, &err), 0);
    cr_assert_eq(
        spec.cls->open_split(inst, "nexmark-0-of-1", NULL, 0, &rd, &err), 0);
    b = weir_batch_create(spec.schema, 100);
    cr_assert_eq(spec.cls->read(rd, b, 100, &err), 0,
                 "event 0 is a person, not a bid");
    weir_manual_clock_advance(mc, 49);
    cr_assert_eq(spec.cls->read(rd, b, 100, &err), 46,
                 "events 4..49 are the first block's bids");
    spec.cls->close_split(rd);
    weir_batch_destroy(b);
    spec.cls->destroy(inst);
    spec.free_arg(spec.arg);
    weir_manual_clock_destroy(mc);
}

Test(nexmark, bounded_keep_alive_and_stop_at)
{
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 1000);
    rows parts[3];
    memset(parts, 0, sizeof parts);
    read_all(&c, 3, 128, parts);
    cr_assert_eq(parts[0].n + parts[1].n + parts[2].n, 1000);
    cr_assert_eq(parts[0].n, 334);
    for (int i = 0; i < 3; i++)
        rows_free(&parts[i]);

    c.stop_at = 500;
    rows one = {0};
    read_all(&c, 1, 128, &one);
    cr_assert_eq(one.n, 500);
    rows_free(&one);

    c.stop_at = -1;
    c.keep_alive = true;
    source_run run;
    run_open(&run, &c, 1, NULL);
    weir_error err;
    void *rd = open_the_split(&run);
    weir_batch *b = weir_batch_create(run.spec.schema, 2000);
    cr_assert_eq(run.spec.cls->read(rd, b, 2000, &err), 1000);
    cr_assert_eq(run.spec.cls->read(rd, b, 2000, &err), 0,
                 "keep-alive idles instead of ending");
    cr_assert_eq(run.spec.cls->read(rd, b, 2000, &err), 0);
    run.spec.cls->close_split(rd);
    weir_batch_destroy(b);
    run_close(&run);

    /* A table whose kind has proportion 0 ends at once (or idles) instead of
     * spinning. */
    c = base_config(WEIR_NEXMARK_TABLE_PERSON, 0);
    c.person_proportion = 0;
    run_open(&run, &c, 1, NULL);
    cr_assert_eq(run.spec.cls->open_split(run.inst[0], "nexmark-0-of-1", NULL,
                                          0, &rd, &err),
                 0);
    b = weir_batch_create(run.spec.schema, 10);
    cr_assert_eq(run.spec.cls->read(rd, b, 10, &err), WEIR_EOF);
    run.spec.cls->close_split(rd);
    weir_batch_destroy(b);
    run_close(&run);
}

Test(nexmark, declared_schema_is_matched_by_name)
{
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_BID, 500);
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "PRICE", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s, "dateTime",
                    weir_type_make(WEIR_TYPE_TIMESTAMP_LTZ, false));
    weir_schema_add(s, "extra", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "auction", weir_type_make(WEIR_TYPE_BIGINT, false));
    s->rowtime = 1;
    source_run run;
    run_open(&run, &c, 1, s);
    weir_error err;
    void *rd = open_the_split(&run);
    weir_batch *b = weir_batch_create(s, 1000);
    cr_assert_eq(run.spec.cls->read(rd, b, 1000, &err), 460);
    weir_nexmark_gen *g;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    weir_nexmark_event e;
    uint64_t n = 0;
    for (uint32_t r = 0; r < b->n_rows; r++, n++) {
        while (weir_nexmark_gen_kind(g, n) != WEIR_NEXMARK_BID)
            n++;
        weir_nexmark_gen_event(g, n, &e);
        cr_assert_eq(WEIR_COL_I64(b, 0)[r], e.u.bid.price);
        cr_assert_eq(WEIR_COL_I64(b, 1)[r], e.ts_ms);
        uint32_t len;
        const char *x = weir_batch_str(b, 2, r, &len);
        cr_assert(len == e.u.bid.extra_len &&
                  memcmp(x, e.u.bid.extra, len) == 0);
        cr_assert_eq(WEIR_COL_I64(b, 3)[r], e.u.bid.auction);
    }
    /* Only the declared strings are copied. */
    cr_assert_lt(b->heap_len, 460 * 90);
    weir_nexmark_gen_destroy(g);
    weir_batch_destroy(b);
    run.spec.cls->close_split(rd);
    run_close(&run);
    weir_schema_destroy(s);

    /* Mistakes are reported at create time. */
    struct {
        weir_nexmark_table table;
        const char *name;
        weir_type type;
        const char *msg;
    } bad[] = {
        {WEIR_NEXMARK_TABLE_BID, "price",
         weir_type_make(WEIR_TYPE_STRING, true), "declared as"},
        {WEIR_NEXMARK_TABLE_BID, "seller",
         weir_type_make(WEIR_TYPE_BIGINT, true), "no column 'seller'"},
        {WEIR_NEXMARK_TABLE_EVENT, "bid_price",
         weir_type_make(WEIR_TYPE_BIGINT, false), "NOT NULL"},
        {WEIR_NEXMARK_TABLE_EVENT, "price",
         weir_type_make(WEIR_TYPE_BIGINT, true), "no column 'price'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c = base_config(bad[i].table, 10);
        weir_source_spec spec;
        cr_assert_eq(weir_nexmark_source_spec(&c, "t", &spec, &err), 0);
        weir_schema *bs = weir_schema_create();
        weir_schema_add(bs, bad[i].name, bad[i].type);
        weir_source_info info = {.subtask = 0, .parallelism = 1, .batch_size = 10, .schema = bs};
        void *inst = NULL;
        cr_assert_eq(spec.cls->create(spec.arg, &info, &inst, &err),
                     WEIR_EINVAL);
        cr_assert(strstr(err.message, bad[i].msg), "%s", err.message);
        cr_assert_null(inst);
        weir_schema_destroy(bs);
        spec.free_arg(spec.arg);
    }
}

Test(nexmark, default_schemas)
{
    weir_schema *s = weir_nexmark_schema_create(WEIR_NEXMARK_TABLE_BID);
    const char *bid[] = {"auction", "bidder",   "price", "channel",
                         "url",     "dateTime", "extra"};
    cr_assert_eq(s->n_fields, 7);
    for (int i = 0; i < 7; i++)
        cr_assert_str_eq(s->fields[i].name, bid[i]);
    cr_assert_eq(s->rowtime, 5);
    cr_assert_eq(s->fields[5].type.id, WEIR_TYPE_TIMESTAMP);
    weir_schema_destroy(s);
    s = weir_nexmark_schema_create(WEIR_NEXMARK_TABLE_EVENT);
    cr_assert_eq(s->n_fields, 27);
    cr_assert_str_eq(s->fields[0].name, "event_type");
    cr_assert_str_eq(s->fields[3].name, "person_emailAddress");
    cr_assert_str_eq(s->fields[10].name, "auction_itemName");
    cr_assert_str_eq(s->fields[19].name, "bid_auction");
    cr_assert_str_eq(s->fields[26].name, "dateTime");
    cr_assert_eq(s->rowtime, 26);
    cr_assert(!s->fields[0].type.nullable && s->fields[1].type.nullable &&
              !s->fields[26].type.nullable);
    weir_schema_destroy(s);
    s = weir_nexmark_schema_create(WEIR_NEXMARK_TABLE_AUCTION);
    cr_assert_eq(s->n_fields, 10);
    cr_assert_str_eq(s->fields[6].name, "expires");
    weir_schema_destroy(s);
    s = weir_nexmark_schema_create(WEIR_NEXMARK_TABLE_PERSON);
    cr_assert_eq(s->n_fields, 8);
    cr_assert_str_eq(s->fields[2].name, "emailAddress");
    weir_schema_destroy(s);
}

Test(nexmark, options)
{
    weir_nexmark_config c;
    weir_error err;
    const char *keys[] = {"connector",
                          "events.num",
                          "first-event.rate",
                          "next-event.rate",
                          "rate.shape",
                          "rate.period",
                          "person.proportion",
                          "auction.proportion",
                          "bid.proportion",
                          "bid.hot-ratio.auctions",
                          "auction.hot-ratio.sellers",
                          "bid.hot-ratio.bidders",
                          "person.avg-size",
                          "auction.avg-size",
                          "bid.avg-size",
                          "keep-alive",
                          "stop-at",
                          "max-emit-speed",
                          "num.active.people",
                          "num.in.flight.auctions",
                          "seed",
                          "base-time",
                          "nexmark.table",
                          "splits",
                          "scan.watermark.idle-timeout"};
    const char *vals[] = {"nexmark",  "100000000",
                          "10000000", "5000000",
                          "sine",     "10 min",
                          "2",        "4",
                          "44",       "3",
                          "5",        "6",
                          "1 kb",     "600b",
                          "120",      "true",
                          "7",        "false",
                          "50",       "20",
                          "-5",       "2020-01-02 03:04:05.678",
                          "Bid",      "8",
                          "5 s"};
    size_t n = sizeof keys / sizeof keys[0];
    cr_assert_eq(weir_nexmark_config_from_options(&c, keys, vals, n, &err), 0,
                 "%s", err.message);
    cr_assert_eq(c.events_num, 100000000);
    cr_assert_eq(c.first_event_rate, 10000000);
    cr_assert_eq(c.next_event_rate, 5000000);
    cr_assert_eq(c.rate_shape, WEIR_NEXMARK_RATE_SINE);
    cr_assert_eq(c.rate_period_s, 600);
    cr_assert(c.person_proportion == 2 && c.auction_proportion == 4 &&
              c.bid_proportion == 44);
    cr_assert(c.hot_auction_ratio == 3 && c.hot_seller_ratio == 5 &&
              c.hot_bidder_ratio == 6);
    cr_assert(c.avg_person_bytes == 1024 && c.avg_auction_bytes == 600 &&
              c.avg_bid_bytes == 120);
    cr_assert(c.keep_alive && c.stop_at == 7 && c.rate_limited);
    cr_assert(c.num_active_people == 50 && c.num_in_flight_auctions == 20);
    cr_assert_eq(c.seed, (uint64_t)-5);
    cr_assert_eq(c.base_time_ms, INT64_C(1577934245678));
    cr_assert_eq(c.table, WEIR_NEXMARK_TABLE_BID);
    cr_assert_eq(c.splits, 8);

    /* Defaults are the reference's. */
    cr_assert_eq(weir_nexmark_config_from_options(&c, NULL, NULL, 0, &err), 0);
    cr_assert(c.person_proportion == 1 && c.auction_proportion == 3 &&
              c.bid_proportion == 46);
    cr_assert(c.num_active_people == 1000 && c.num_in_flight_auctions == 100);
    cr_assert(c.hot_auction_ratio == 2 && c.hot_seller_ratio == 4 &&
              c.hot_bidder_ratio == 4);
    cr_assert(c.avg_person_bytes == 200 && c.avg_auction_bytes == 500 &&
              c.avg_bid_bytes == 100);
    cr_assert(c.first_event_rate == 10000 && c.events_num == 0 &&
              !c.rate_limited);

    /* Aliases after the reference's configuration fields. */
    const char *ak[] = {"hot.auction.ratio", "hot.seller.ratio",
                        "hot.bidders.ratio", "avg.bid.byte.size",
                        "rate.limited",      "base-time"};
    const char *av[] = {"7", "8", "9", "150", "true", "12345"};
    cr_assert_eq(weir_nexmark_config_from_options(&c, ak, av, 6, &err), 0, "%s",
                 err.message);
    cr_assert(c.hot_auction_ratio == 7 && c.hot_seller_ratio == 8 &&
              c.hot_bidder_ratio == 9);
    cr_assert(c.avg_bid_bytes == 150 && c.rate_limited &&
              c.base_time_ms == 12345);

    struct {
        const char *key, *value, *msg;
    } bad[] = {
        {"events.num", "12x", "'events.num'"},
        {"events.num", "-1", "out of range"},
        {"first-event.rate", "0", "out of range"},
        {"bid.avg-size", "100 parsecs", "'bid.avg-size'"},
        {"bid.avg-size", "1mb", "allowed"},
        {"rate.shape", "triangle", "SQUARE or SINE"},
        {"keep-alive", "yes", "true or false"},
        {"nexmark.table", "bids", "event, person, auction or bid"},
        {"base-time", "yesterday", "'base-time'"},
        {"rows-per-second", "10", "unknown option 'rows-per-second'"},
        {"bid.hot-ratio.bidders", "0", "out of range"},
        {"events.num", "99999999999999999999", "expected an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.message[0] = '\0';
        cr_assert_eq(weir_nexmark_config_from_options(&c, &bad[i].key,
                                                      &bad[i].value, 1, &err),
                     WEIR_EINVAL, "%s = %s", bad[i].key, bad[i].value);
        cr_assert(strstr(err.message, bad[i].msg), "%s = %s: %s", bad[i].key,
                  bad[i].value, err.message);
    }

    /* Validation catches what single options cannot. */
    const char *zk[] = {"person.proportion", "auction.proportion",
                        "bid.proportion"};
    const char *zv[] = {"0", "0", "0"};
    cr_assert_eq(weir_nexmark_config_from_options(&c, zk, zv, 3, &err),
                 WEIR_EINVAL);
    const char *pk[] = {"next-event.rate", "rate.period"};
    const char *pv[] = {
        "20000", "500"}; /* 500 ms: Flink reads a bare number as milliseconds */
    cr_assert_eq(weir_nexmark_config_from_options(&c, pk, pv, 2, &err),
                 WEIR_EINVAL);
    cr_assert(strstr(err.message, "rate.period"), "%s", err.message);
}

static void emit_cb(void *ud, const char *name, uint64_t v)
{
    if (strcmp(name, "events_emitted") == 0)
        *(uint64_t *)ud = v;
}

Test(nexmark, metrics_count_rows)
{
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_BID, 500);
    source_run run;
    run_open(&run, &c, 1, NULL);
    rows out = {0};
    read_split(run.spec.cls, run.inst[0], "nexmark-0-of-1", NULL,
               run.spec.schema, 64, &out, UINT64_MAX);
    uint64_t seen = 0;
    cr_assert_eq(run.spec.cls->metrics(run.inst[0], emit_cb, &seen), 0);
    cr_assert_eq(seen, 460);
    rows_free(&out);
    run_close(&run);
}

Test(nexmark, allocation_failures_are_clean)
{
    /* Fail each allocation in turn, from spec creation to the first reads;
     * nothing leaks or crashes. */
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_EVENT, 3000);
    bool completed = false;
    for (uint64_t k = 1; k < 400 && !completed; k++) {
        weir_error err;
        weir_source_spec spec;
        void *inst = NULL, *rd = NULL;
        weir_batch *b = NULL;
        weir_alloc_fail_after(k);
        int rc = weir_nexmark_source_spec(&c, "t", &spec, &err);
        if (rc) {
            cr_assert_eq(rc, WEIR_ENOMEM);
            continue;
        }
        weir_source_info info = {.subtask = 0, .parallelism = 1, .batch_size = 64, .schema = spec.schema};
        rc = spec.cls->create(spec.arg, &info, &inst, &err);
        if (rc == 0)
            rc = spec.cls->open_split(inst, "nexmark-0-of-1", NULL, 0, &rd,
                                      &err);
        if (rc == 0) {
            b = weir_batch_create(spec.schema, 1000);
            if (b) {
                for (int i = 0; i < 3 && rc >= 0; i++) {
                    weir_batch_reset(b);
                    rc = spec.cls->read(rd, b, 1000, &err);
                }
            }
        }
        weir_alloc_fail_after(0);
        if (b && rc > 0)
            completed = true;
        if (rc < 0)
            cr_assert_eq(rc, WEIR_ENOMEM, "step %" PRIu64 ": %d %s", k, rc,
                         err.message);
        weir_batch_destroy(b);
        if (rd)
            spec.cls->close_split(rd);
        if (inst)
            spec.cls->destroy(inst);
        spec.free_arg(spec.arg);
    }
    cr_assert(completed);
}

Test(nexmark, failed_write_leaves_the_reader_at_that_bid)
{
    /* The bid table's reader generates bids ahead of writing them. When a
     * write fails (here the batch's heap cannot grow), the reader stands at
     * the bid not written: the error names it and the next read starts with
     * it, with no gap and no repeat. */
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_BID, 3000);
    weir_error err;
    weir_nexmark_gen *g;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    source_run run;
    run_open(&run, &c, 1, NULL);
    void *rd = open_the_split(&run);
    weir_batch *b = weir_batch_create(run.spec.schema, 1000);
    /* The heap's first block is allocated, its first growth fails. */
    weir_alloc_fail_after(2);
    int rc = run.spec.cls->read(rd, b, 1000, &err);
    weir_alloc_fail_after(0);
    cr_assert_eq(rc, WEIR_ENOMEM, "%d %s", rc, err.message);
    cr_assert(b->n_rows > 0 && b->n_rows < 1000, "%u rows", b->n_rows);

    weir_nexmark_event ev;
    uint64_t n = 0, rows_seen = 0;
    bool first = true;
    for (;;) {
        for (uint32_t r = 0; r < b->n_rows; r++, n++) {
            while (weir_nexmark_gen_kind(g, n) != WEIR_NEXMARK_BID)
                n++;
            weir_nexmark_gen_event(g, n, &ev);
            assert_row_is_event(b, r, c.table, &ev);
            rows_seen++;
        }
        if (first) {
            while (weir_nexmark_gen_kind(g, n) != WEIR_NEXMARK_BID)
                n++;
            char want[64];
            snprintf(want, sizeof want, "event %" PRIu64 " ", n);
            cr_assert(strstr(err.message, want), "%s (want %s)", err.message,
                      want);
            first = false;
        }
        weir_batch_reset(b);
        rc = run.spec.cls->read(rd, b, 100, &err);
        if (rc == WEIR_EOF)
            break;
        cr_assert(rc > 0, "%d %s", rc, err.message);
    }
    cr_assert_eq(rows_seen, 2760);
    weir_batch_destroy(b);
    run.spec.cls->close_split(rd);
    run_close(&run);
    weir_nexmark_gen_destroy(g);
}

Test(nexmark, url_without_channel_matches_the_generator)
{
    /* A bid's channel is resolved only when channel or url is wanted: url
     * alone, hot channels and the others, read in short batches. */
    weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_BID, 2000);
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "url", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "bidder", weir_type_make(WEIR_TYPE_BIGINT, false));
    source_run run;
    run_open(&run, &c, 1, s);
    weir_error err;
    void *rd = open_the_split(&run);
    weir_nexmark_gen *g;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
    weir_batch *b = weir_batch_create(s, 45);
    weir_nexmark_event e;
    uint64_t n = 0, rows_seen = 0, hot = 0;
    for (;;) {
        weir_batch_reset(b);
        int rc = run.spec.cls->read(rd, b, 45, &err);
        if (rc == WEIR_EOF)
            break;
        cr_assert(rc > 0, "%d %s", rc, err.message);
        for (uint32_t r = 0; r < b->n_rows; r++, n++, rows_seen++) {
            while (weir_nexmark_gen_kind(g, n) != WEIR_NEXMARK_BID)
                n++;
            weir_nexmark_gen_event(g, n, &e);
            uint32_t len;
            const char *x = weir_batch_str(b, 0, r, &len);
            cr_assert(len == e.u.bid.url_len &&
                          memcmp(x, e.u.bid.url, len) == 0,
                      "event %" PRIu64 ": url '%.*s'", n, (int)len, x);
            cr_assert_eq(WEIR_COL_I64(b, 1)[r], e.u.bid.bidder);
            hot += strncmp(e.u.bid.channel, "channel-", 8) != 0;
        }
    }
    cr_assert_eq(rows_seen, 1840);
    cr_assert(hot > 0 && hot < rows_seen, "%" PRIu64 " hot", hot);
    weir_nexmark_gen_destroy(g);
    weir_batch_destroy(b);
    run.spec.cls->close_split(rd);
    run_close(&run);
    weir_schema_destroy(s);
}

/* ---- bids against their sequential form ---------------------------------- */

/*
 * The bid generator computes every draw a bid may need and selects the ones
 * used without branching; this is the plain sequential form it must equal:
 * draw by draw from the event's stream, each pick taking the next draw only
 * when it is made.
 */
typedef struct seq_rng {
    uint64_t s;
} seq_rng;

static uint64_t seq_next(seq_rng *r)
{
    r->s += UINT64_C(0x9e3779b97f4a7c15);
    return nx_mix64(r->s);
}

static uint64_t seq_hi(uint64_t d, uint64_t bound)
{
    return ((d >> 32) * bound) >> 32;
}

static uint64_t seq_lo(uint64_t d, uint64_t bound)
{
    return ((d & 0xffffffffu) * bound) >> 32;
}

static uint64_t seq_long(seq_rng *r, uint64_t bound)
{
    uint64_t d = seq_next(r);
    return bound <= (UINT64_C(1) << 32) ? seq_hi(d, bound) : d % bound;
}

/* Bid event n of config c: its numbers, its extra and its channel index. */
static void seq_bid(const weir_nexmark_config *c, uint64_t n,
                    weir_nexmark_bid *b, uint32_t *chan)
{
    int64_t pp = c->person_proportion, ap = c->auction_proportion;
    int64_t total = pp + ap + c->bid_proportion;
    int64_t epoch = (int64_t)(n / (uint64_t)total);
    uint64_t seed_key = nx_mix64(c->seed + UINT64_C(0x9e3779b97f4a7c15));
    seq_rng r = {nx_mix64(n ^ seed_key)};
    int64_t last_auction = epoch * ap + ap - 1;
    int64_t last_person = epoch * pp + pp - 1;

    uint64_t d = seq_next(&r);
    if (seq_hi(d, c->hot_auction_ratio) > 0) {
        b->auction = last_auction / 100 * 100;
    } else {
        int64_t lo = last_auction - (int64_t)c->num_in_flight_auctions;
        if (lo < 0)
            lo = 0;
        b->auction = lo + (int64_t)seq_long(
                              &r, (uint64_t)(last_auction - lo + 1 + 10));
    }
    b->auction += WEIR_NEXMARK_FIRST_AUCTION_ID;
    if (seq_lo(d, c->hot_bidder_ratio) > 0) {
        b->bidder = last_person / 100 * 100 + 1;
    } else {
        int64_t num = last_person + 1;
        int64_t active = num < (int64_t)c->num_active_people
                             ? num
                             : (int64_t)c->num_active_people;
        b->bidder = num - active + (int64_t)seq_long(&r, (uint64_t)active + 10);
    }
    b->bidder += WEIR_NEXMARK_FIRST_PERSON_ID;

    d = seq_next(&r);
    b->price = nx_price_from((uint32_t)(d >> 32));
    uint64_t rest = (d & 0xffffffffu) >> 1;
    *chan = (d & 1) ? 10000u + (uint32_t)((rest * 4) >> 31)
                    : (uint32_t)((rest * 10000) >> 31);

    d = seq_next(&r);
    uint32_t len = 0;
    if (c->avg_bid_bytes >= 32) {
        uint32_t want = c->avg_bid_bytes - 32;
        uint32_t delta = (2 * want + 5) / 10;
        len = want - delta + (delta ? (uint32_t)seq_hi(d, 2 * delta) : 0);
    }
    b->extra = weir__nexmark_tables.pool + seq_lo(d, (1u << 20) - len);
    b->extra_len = len;
}

static void check_bids_sequential(const weir_nexmark_config *c, uint64_t from,
                                  uint64_t count)
{
    weir_error err;
    weir_nexmark_gen *g;
    cr_assert_eq(weir_nexmark_gen_create(c, &g, &err), 0, "%s", err.message);
    weir_nexmark_event ev;
    uint64_t bids = 0;
    for (uint64_t n = from; n < from + count; n++) {
        if (weir_nexmark_gen_kind(g, n) != WEIR_NEXMARK_BID)
            continue;
        weir_nexmark_gen_event(g, n, &ev);
        weir_nexmark_bid want;
        uint32_t chan;
        seq_bid(c, n, &want, &chan);
        const weir_nexmark_bid *got = &ev.u.bid;
        const char *slot = nx_chan_slot(chan);
        cr_assert(got->auction == want.auction && got->bidder == want.bidder &&
                      got->price == want.price &&
                      got->extra == want.extra &&
                      got->extra_len == want.extra_len &&
                      got->channel == slot + 2 &&
                      got->channel_len == (uint8_t)slot[0],
                  "event %" PRIu64 ": auction %" PRId64 "/%" PRId64
                  " bidder %" PRId64 "/%" PRId64 " price %" PRId64 "/%" PRId64
                  " extra len %u/%u",
                  n, got->auction, want.auction, got->bidder, want.bidder,
                  got->price, want.price, got->extra_len, want.extra_len);
        bids++;
    }
    cr_assert(bids > 0);
    weir_nexmark_gen_destroy(g);
}

Test(nexmark, bids_equal_their_sequential_draws)
{
    /* Hot ratios from always hot (1) to rarely hot, pick ranges that are
     * still filling (the first events) or tiny, `extra` empty, short and
     * longer than the reader's fixed copy, and far event numbers. */
    struct {
        uint32_t hot_a, hot_b, in_flight, active, avg, pp, ap, bp;
    } cases[] = {
        {2, 4, 100, 1000, 100, 1, 3, 46},   {1, 1, 100, 1000, 100, 1, 3, 46},
        {3, 7, 1, 1, 20, 1, 3, 46},         {100, 100, 5000, 3000, 33, 1, 3, 46},
        {2, 4, 100, 1000, 500, 10, 10, 1},  {5, 2, 7, 50, 128, 0, 1, 9},
        {2, 4, 100, 1000, 0, 1, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_BID, 0);
        c.hot_auction_ratio = cases[i].hot_a;
        c.hot_bidder_ratio = cases[i].hot_b;
        c.num_in_flight_auctions = cases[i].in_flight;
        c.num_active_people = cases[i].active;
        c.avg_bid_bytes = cases[i].avg;
        c.person_proportion = cases[i].pp;
        c.auction_proportion = cases[i].ap;
        c.bid_proportion = cases[i].bp;
        check_bids_sequential(&c, 0, 20000);
        check_bids_sequential(&c, UINT64_C(987654321012), 5000);
    }
}

Test(nexmark, long_extra_rows_match_the_generator)
{
    /* `extra` longer than the reader's fixed copy, and short, read in
     * batches that end the heap at every offset. */
    uint32_t avg[] = {500, 130, 40};
    uint32_t batch[] = {1, 7, 256};
    for (size_t i = 0; i < 3; i++) {
        weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_BID, 3000);
        c.avg_bid_bytes = avg[i];
        for (size_t j = 0; j < 3; j++)
            cr_assert_eq(check_table_against_gen(&c, batch[j]), 2760);
    }
}

/* The value of bid column `name` in event e (a bid), as the batch holds it:
 * an integer, or a string through *s and *len. */
static int64_t bid_field(const weir_nexmark_event *e, const char *name,
                         const char **s, uint32_t *len)
{
    const weir_nexmark_bid *b = &e->u.bid;
    *s = NULL;
    *len = 0;
    if (strcmp(name, "auction") == 0)
        return b->auction;
    if (strcmp(name, "bidder") == 0)
        return b->bidder;
    if (strcmp(name, "price") == 0)
        return b->price;
    if (strcmp(name, "dateTime") == 0)
        return e->ts_ms;
    if (strcmp(name, "channel") == 0)
        *s = b->channel, *len = b->channel_len;
    else if (strcmp(name, "url") == 0)
        *s = b->url, *len = b->url_len;
    else
        *s = b->extra, *len = b->extra_len;
    return 0;
}

Test(nexmark, every_projection_matches_the_generator)
{
    /* The source computes only the draws its columns need (the auction
     * alone takes two, the extra five): each projection's values are
     * those of the whole bid, with hot auctions and bidders always, half
     * the time, and rarely. */
    const char *projections[][3] = {
        {"auction"},           {"bidder"},        {"price"},
        {"channel"},           {"url"},           {"extra"},
        {"dateTime"},          {"bidder", "auction"},
        {"price", "auction"},  {"extra", "bidder"},
        {"url", "dateTime"},   {"channel", "price", "extra"},
    };
    uint32_t hot[][2] = {{1, 1}, {2, 4}, {100, 100}};
    for (size_t h = 0; h < 3; h++) {
        weir_nexmark_config c = base_config(WEIR_NEXMARK_TABLE_BID, 3000);
        c.hot_auction_ratio = hot[h][0];
        c.hot_bidder_ratio = hot[h][1];
        weir_error err;
        weir_nexmark_gen *g;
        cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0);
        for (size_t p = 0; p < sizeof projections / sizeof projections[0];
             p++) {
            weir_schema *s = weir_schema_create();
            uint32_t n_cols = 0;
            for (; n_cols < 3 && projections[p][n_cols]; n_cols++) {
                const char *name = projections[p][n_cols];
                weir_type_id t = strcmp(name, "dateTime") == 0
                                     ? WEIR_TYPE_TIMESTAMP
                                 : strcmp(name, "channel") == 0 ||
                                         strcmp(name, "url") == 0 ||
                                         strcmp(name, "extra") == 0
                                     ? WEIR_TYPE_STRING
                                     : WEIR_TYPE_BIGINT;
                weir_schema_add(s, name, weir_type_make(t, true));
            }
            source_run run;
            run_open(&run, &c, 1, s);
            void *rd = open_the_split(&run);
            weir_batch *b = weir_batch_create(s, 256);
            weir_nexmark_event e;
            uint64_t n = 0, rows_seen = 0;
            for (;;) {
                weir_batch_reset(b);
                int rc = run.spec.cls->read(rd, b, 256, &err);
                if (rc == WEIR_EOF)
                    break;
                cr_assert(rc > 0, "%d %s", rc, err.message);
                for (uint32_t r = 0; r < b->n_rows; r++, n++, rows_seen++) {
                    while (weir_nexmark_gen_kind(g, n) != WEIR_NEXMARK_BID)
                        n++;
                    weir_nexmark_gen_event(g, n, &e);
                    for (uint32_t f = 0; f < n_cols; f++) {
                        const char *want_s;
                        uint32_t want_len;
                        int64_t want = bid_field(&e, projections[p][f],
                                                 &want_s, &want_len);
                        if (!want_s) {
                            cr_assert_eq(WEIR_COL_I64(b, f)[r], want,
                                         "hot %zu, projection %zu, event "
                                         "%" PRIu64 ", column %s",
                                         h, p, n, projections[p][f]);
                            continue;
                        }
                        uint32_t len;
                        const char *x = weir_batch_str(b, f, r, &len);
                        cr_assert(len == want_len &&
                                      memcmp(x, want_s, len) == 0,
                                  "hot %zu, projection %zu, event %" PRIu64
                                  ", column %s: '%.*s'",
                                  h, p, n, projections[p][f], (int)len, x);
                    }
                }
            }
            cr_assert_eq(rows_seen, 2760);
            weir_batch_destroy(b);
            run.spec.cls->close_split(rd);
            run_close(&run);
            weir_schema_destroy(s);
        }
        weir_nexmark_gen_destroy(g);
    }
}
