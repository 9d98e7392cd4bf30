/*
 * planner/join.c - planning regular joins: FROM a [INNER|LEFT|RIGHT|FULL]
 * JOIN b ON ..., and the comma form FROM a, b WHERE ....
 *
 * The condition is split into conjuncts. A conjunct `x = y` whose one side
 * uses only columns of the left input and the other only columns of the
 * right input becomes a pair of equi-join keys; a conjunct over one input
 * only filters that input below the join, unless the join preserves that
 * input's rows (the outer side); every other conjunct is part of the
 * residual condition, evaluated on each candidate pair. The WHERE
 * conjuncts of an inner (or comma) join are join conditions too, which
 * pushes filters below the join (Nexmark q3 and q20 keep only the rows of
 * category 10 in state, not all auctions). A join
 * needs at least one key pair: without one, every row of one side would
 * have to be compared with every row of the other, forever.
 * Keys of different types are cast to a common type in a projection below
 * the join, so that equal values give equal key bytes on both sides.
 *
 * The result: left columns then right columns (qualifiers kept for name
 * resolution), no time attribute (a regular join's rows can come out in
 * any time order) except the left time of an inner interval join, and a
 * changelog unless the join is INNER over two append-only inputs or an
 * interval join.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "planner/planner.h"
#include "runtime/runtime.h"

/* WHERE conjuncts offered to comma joins; a join that takes one marks it used. */
struct join_conds {
    const weir_sql_expr **c;
    bool *used;
    uint32_t n;
};

void plan_split_and(const weir_sql_expr *e, const weir_sql_expr **v, uint32_t *n, uint32_t cap)
{
    if (e->kind == WEIR_SQL_EXPR_BINARY && e->u.binary.op == WEIR_SQL_OP_AND) {
        plan_split_and(e->u.binary.left, v, n, cap);
        plan_split_and(e->u.binary.right, v, n, cap);
    } else if (*n < cap) {
        v[(*n)++] = e;
    }
}

uint32_t plan_count_and(const weir_sql_expr *e)
{
    if (e->kind == WEIR_SQL_EXPR_BINARY && e->u.binary.op == WEIR_SQL_OP_AND)
        return plan_count_and(e->u.binary.left) + plan_count_and(e->u.binary.right);
    return 1;
}

int plan_join_conds_make(plan_ctx *pc, const weir_sql_expr *where, join_conds **out)
{
    join_conds *jc = plan_alloc(pc, sizeof *jc);
    uint32_t cap = plan_count_and(where);
    if (!jc)
        return WEIR_ENOMEM;
    jc->c = plan_alloc(pc, cap * sizeof *jc->c);
    jc->used = plan_alloc(pc, cap * sizeof *jc->used);
    if (!jc->c || !jc->used)
        return WEIR_ENOMEM;
    jc->n = 0;
    plan_split_and(where, jc->c, &jc->n, cap);
    memset(jc->used, 0, cap * sizeof *jc->used);
    *out = jc;
    return 0;
}

bool plan_join_conds_all_used(const join_conds *jc)
{
    for (uint32_t i = 0; i < jc->n; i++)
        if (!jc->used[i])
            return false;
    return true;
}

enum { SIDE_L = PLAN_SIDE_LEFT, SIDE_R = PLAN_SIDE_RIGHT, SIDE_OTHER = PLAN_SIDE_OTHER };

static int side_mask(const rel *j, uint32_t n_left, const weir_sql_expr *e);

int plan_side_mask(const rel *j, uint32_t n_left, const weir_sql_expr *e) { return side_mask(j, n_left, e); }

static int side_mask_list(const rel *j, uint32_t n_left, weir_sql_expr *const *v, uint32_t n)
{
    int m = 0;
    for (uint32_t i = 0; i < n; i++)
        m |= v[i] ? side_mask(j, n_left, v[i]) : 0;
    return m;
}

int plan_pair_rel(plan_ctx *pc, const rel *left, const rel *right, bool pad_left, bool pad_right, bool scoped,
                  rel *out)
{
    uint32_t nl = left->n_physical, nr = right->n_physical;
    rel j = {.rowtime = -1, .n_physical = nl + nr, .outer_cols = scoped ? nl : 0};
    weir_schema *os = plan_new_schema(pc);
    j.quals = plan_alloc(pc, (nl + nr + 1) * sizeof *j.quals);
    if (!os || !j.quals)
        return WEIR_ENOMEM;
    if (scoped) { /* left's columns one scope further out than they were in left */
        uint8_t *sc = plan_alloc(pc, (nl + nr) * sizeof *sc);
        if (!sc)
            return WEIR_ENOMEM;
        for (uint32_t c = 0; c < nl + nr; c++) {
            uint32_t d = c < nl ? plan_col_scope(left, c) + 1 : 0;
            sc[c] = (uint8_t)(d < UINT8_MAX ? d : UINT8_MAX);
        }
        j.scope = sc;
        j.n_scope = nl + nr;
    }
    const rel *in[2] = {left, right};
    for (int s = 0; s < 2; s++) {
        for (uint32_t c = 0; c < in[s]->n_physical; c++) {
            weir_type t = in[s]->schema->fields[c].type;
            t.nullable |= s ? pad_right : pad_left;
            if (weir_schema_add(os, in[s]->schema->fields[c].name, t) < 0)
                return WEIR_ENOMEM;
            j.quals[os->n_fields - 1] = in[s]->quals ? in[s]->quals[c] : NULL;
        }
    }
    os->rowtime = -1;
    j.schema = os;
    /* a NATURAL / USING input's hidden copies of its common columns stay hidden */
    if (left->n_hidden || right->n_hidden) {
        bool *h = plan_alloc(pc, (nl + nr) * sizeof *h);
        if (!h)
            return WEIR_ENOMEM;
        for (uint32_t c = 0; c < nl + nr; c++)
            h[c] = c < nl ? plan_col_hidden(left, c) : plan_col_hidden(right, c - nl);
        j.hidden = h;
        j.n_hidden = nl + nr;
    }
    *out = j;
    return 0;
}

/* Which inputs an expression reads: SIDE_L, SIDE_R; SIDE_OTHER for anything unresolvable here. */
static int side_mask(const rel *j, uint32_t n_left, const weir_sql_expr *e)
{
    switch (e->kind) {
    case WEIR_SQL_EXPR_LITERAL: return 0;
    case WEIR_SQL_EXPR_COLUMN: {
        int c = plan_find_column(NULL, j, &e->u.column);
        if (c == -1)
            c = plan_field_path_column(NULL, j, e); /* row.field */
        return c < 0 ? SIDE_OTHER : (uint32_t)c < n_left ? SIDE_L : SIDE_R;
    }
    case WEIR_SQL_EXPR_UNARY: return side_mask(j, n_left, e->u.unary.operand);
    case WEIR_SQL_EXPR_BINARY: return side_mask(j, n_left, e->u.binary.left) | side_mask(j, n_left, e->u.binary.right);
    case WEIR_SQL_EXPR_IS:
        return side_mask(j, n_left, e->u.is.operand) | (e->u.is.other ? side_mask(j, n_left, e->u.is.other) : 0);
    case WEIR_SQL_EXPR_BETWEEN:
        return side_mask(j, n_left, e->u.between.operand) | side_mask(j, n_left, e->u.between.low) |
               side_mask(j, n_left, e->u.between.high);
    case WEIR_SQL_EXPR_IN_LIST:
        return side_mask(j, n_left, e->u.in_list.operand) |
               side_mask_list(j, n_left, e->u.in_list.items, e->u.in_list.n_items);
    case WEIR_SQL_EXPR_LIKE: return side_mask(j, n_left, e->u.like.operand) | side_mask(j, n_left, e->u.like.pattern);
    case WEIR_SQL_EXPR_CAST: return side_mask(j, n_left, e->u.cast.operand);
    case WEIR_SQL_EXPR_EXTRACT: return side_mask(j, n_left, e->u.extract.operand);
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP: return side_mask_list(j, n_left, e->u.list.items, e->u.list.n_items);
    case WEIR_SQL_EXPR_ITEM: return side_mask(j, n_left, e->u.item.operand) | side_mask(j, n_left, e->u.item.index);
    case WEIR_SQL_EXPR_CALL:
        if (e->u.call.over)
            return SIDE_OTHER;
        return side_mask_list(j, n_left, e->u.call.args, e->u.call.n_args);
    case WEIR_SQL_EXPR_CASE: {
        int m = e->u.case_.operand ? side_mask(j, n_left, e->u.case_.operand) : 0;
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++)
            m |= side_mask(j, n_left, e->u.case_.whens[i].when) | side_mask(j, n_left, e->u.case_.whens[i].then);
        return m | (e->u.case_.else_ ? side_mask(j, n_left, e->u.case_.else_) : 0);
    }
    default: return SIDE_OTHER;
    }
}

static bool is_int(weir_type_id t) { return t == WEIR_TYPE_INT || t == WEIR_TYPE_BIGINT; }

/* The integral digits of an exact number's type: an INT as DECIMAL(10, 0), a BIGINT as DECIMAL(19, 0). */
static int int_digits(weir_type t)
{
    return t.id == WEIR_TYPE_INT ? 10 : t.id == WEIR_TYPE_BIGINT ? 19 : t.precision - t.scale;
}

/*
 * The type both keys are compared in, or false when they cannot be compared.
 * Exact numbers meet exactly: as a DECIMAL with the integral digits of both
 * and the larger scale, an integer beside a DECIMAL too (as DOUBLEs,
 * 9007199254740993 would meet 9007199254740992.0). Past 38 digits the integral
 * digits are cut, never the scale: a key then too long for the type is NULL
 * and meets nothing, as it equals no value of the other side (whose
 * integral digits all fit). TIMEs of two precisions meet in the finer one
 * (a TIME(0) 12:00:00 misses a TIME(3) 12:00:00.500), whichever side has it
 * (a timestamp's type has no precision: it keeps milliseconds whatever p).
 */
static bool common_type(weir_type a, weir_type b, weir_type *out)
{
    if (a.id == b.id && a.precision == b.precision && a.scale == b.scale) {
        *out = a;
    } else if ((a.id == WEIR_TYPE_DECIMAL && (b.id == WEIR_TYPE_DECIMAL || is_int(b.id))) ||
               (b.id == WEIR_TYPE_DECIMAL && is_int(a.id))) {
        int sa = a.id == WEIR_TYPE_DECIMAL ? a.scale : 0, sb = b.id == WEIR_TYPE_DECIMAL ? b.scale : 0;
        int sc = sa > sb ? sa : sb;
        int dg = int_digits(a) > int_digits(b) ? int_digits(a) : int_digits(b);
        int p = dg + sc > 38 ? 38 : dg + sc < 18 ? 18 : dg + sc;
        *out = weir_type_decimal((uint8_t)p, (uint8_t)(sc > p ? p : sc), true);
    } else if (is_int(a.id) && is_int(b.id)) {
        *out = weir_type_make(WEIR_TYPE_BIGINT, true);
    } else if (weir_type_is_numeric(a.id) && weir_type_is_numeric(b.id)) {
        *out = weir_type_make(WEIR_TYPE_DOUBLE, true);
    } else if (a.id == b.id) {
        *out = a.id == WEIR_TYPE_TIME && b.precision > a.precision ? b : a;
    } else {
        return false;
    }
    out->nullable = true;
    return true;
}

/* Whether every value of type t fits the key type kt (a DECIMAL may have fewer integral digits). */
static bool key_holds(weir_type kt, weir_type t)
{
    if (kt.id != WEIR_TYPE_DECIMAL || (t.id != WEIR_TYPE_DECIMAL && !is_int(t.id)))
        return true;
    int ts = t.id == WEIR_TYPE_DECIMAL ? t.scale : 0;
    return int_digits(t) <= kt.precision - kt.scale && ts <= kt.scale;
}

/*
 * Whether a lookup join's probe key of type l, cast to the type r of the
 * table's key column (plan_lookup_join), keeps every value: else the cast
 * may make a value the table has (7.5 as a BIGINT is 7), so the equality
 * also decides, exactly, in the join's condition.
 */
static bool lookup_key_exact(weir_type l, weir_type r)
{
    if (is_int(l.id) && is_int(r.id)) /* compared as numbers, uncast */
        return true;
    if (r.id == WEIR_TYPE_DECIMAL && (l.id == WEIR_TYPE_DECIMAL || is_int(l.id)))
        return key_holds(r, l);
    return weir_type_same(l, r);
}

/* One input of the join: its rel, the key expressions, and the projection adding computed keys. */
typedef struct join_side {
    rel r;
    weir_expr **keys; /* bound over r */
    weir_keyspec ks;
    uint32_t n_extra;
} join_side;

/* The x [NOT] IN (SELECT y ...) of a semi or anti join; (x1, x2) IN (SELECT y1, y2 ...) pairs n of them. */
typedef struct semi_in {
    const weir_sql_expr *const *operand; /* x, over the left input */
    const weir_sql_expr *const *item;    /* y, over the right input */
    uint32_t n;
    bool not_in;
} semi_in;

/*
 * The key pairs x = y of an IN subquery (x bound over the left input alone,
 * y over the right one). NOT IN where x or y can be NULL is no key: a row
 * is excluded by every y with x = y, x IS NULL or y IS NULL (x <> y is not
 * TRUE then), so that condition is the anti join's residual (*null_aware),
 * as Flink plans it. A row (x1, x2) NOT IN excludes a row by every (y1, y2)
 * whose comparison is not FALSE: every pair meets or holds a NULL, the AND
 * of the pairs' conditions (the pairs that cannot be NULL are keys).
 */
static int semi_in_key(plan_ctx *pc, const semi_in *sq, join_side *sd, const rel *j, weir_type *kt,
                       int32_t keycol[2][WEIR_KEY_MAX_COLS], const weir_sql_expr **keyconj, uint32_t *n_keys,
                       weir_expr **null_aware, weir_buf *keytext)
{
    for (uint32_t i = 0; i < sq->n; i++) {
        const weir_sql_expr *x = sq->operand[i], *ye = sq->item[i];
        weir_expr *bl, *br;
        int rc;
        if ((rc = plan_bind_expr(pc, &sd[0].r, NULL, x, &bl)) || (rc = plan_bind_expr(pc, &sd[1].r, NULL, ye, &br)))
            return rc;
        weir_type t;
        char a[64], b[64];
        if (!common_type(weir_expr_type(bl), weir_expr_type(br), &t))
            return plan_error(pc, x->loc, WEIR_EPLAN, "cannot compare a %s with a %s in IN (SELECT ...): add a CAST",
                              weir_type_format(weir_expr_type(bl), a, sizeof a),
                              weir_type_format(weir_expr_type(br), b, sizeof b));
        if (sq->not_in && (weir_expr_type(bl).nullable || weir_expr_type(br).nullable)) {
            weir_expr *y, *eq, *xn, *yn, *or1, *cond;
            weir_error err = {0};
            /* bl is over the left input, whose columns come first in the joined row j */
            if ((rc = plan_bind_expr(pc, j, NULL, ye, &y)))
                return rc;
            weir_expr *p[2] = {bl, y};
            if (weir_expr_call(pc->arena, "=", p, 2, &eq, &err) ||
                weir_expr_call(pc->arena, "IS NULL", &bl, 1, &xn, &err) ||
                weir_expr_call(pc->arena, "IS NULL", &y, 1, &yn, &err))
                return plan_error(pc, x->loc, WEIR_EPLAN, "NOT IN (SELECT ...): %s", err.message);
            weir_expr *o1[2] = {eq, xn};
            if (weir_expr_call(pc->arena, "OR", o1, 2, &or1, &err))
                return plan_error(pc, x->loc, WEIR_EPLAN, "NOT IN (SELECT ...): %s", err.message);
            weir_expr *o2[2] = {or1, yn};
            if (weir_expr_call(pc->arena, "OR", o2, 2, &cond, &err))
                return plan_error(pc, x->loc, WEIR_EPLAN, "NOT IN (SELECT ...): %s", err.message);
            weir_expr *c2[2] = {*null_aware, cond};
            if (*null_aware && weir_expr_call(pc->arena, "AND", c2, 2, &cond, &err))
                return plan_error(pc, x->loc, WEIR_EPLAN, "NOT IN (SELECT ...): %s", err.message);
            *null_aware = cond;
            continue;
        }
        uint32_t k = *n_keys;
        if (k == WEIR_KEY_MAX_COLS)
            return plan_error(pc, x->loc, WEIR_EPLAN, "IN (SELECT ...) compares at most %d columns",
                              WEIR_KEY_MAX_COLS);
        sd[0].keys[k] = bl;
        sd[1].keys[k] = br;
        kt[k] = t;
        keycol[0][k] = weir_expr_column_index(bl);
        keycol[1][k] = weir_expr_column_index(br);
        keyconj[k] = NULL;
        weir_buf_printf(keytext, "%s", k ? ", " : "");
        weir__sql_format_expr(x, keytext);
        weir_buf_printf(keytext, " = ");
        weir__sql_format_expr(ye, keytext);
        *n_keys = k + 1;
    }
    return 0;
}

/*
 * The common columns of NATURAL JOIN or JOIN ... USING (c, ...): pairs of
 * a left and a right column of the same name, each the join's key pair
 * (l.c = r.c).
 */
typedef struct join_using {
    uint32_t n;
    uint32_t l[WEIR_KEY_MAX_COLS], r[WEIR_KEY_MAX_COLS];
} join_using;

/* Adds ju's pairs as keys of the join (sd[0] left, sd[1] right). */
static int using_keys(plan_ctx *pc, const join_using *ju, join_side *sd, weir_type *kt,
                      int32_t keycol[2][WEIR_KEY_MAX_COLS], const weir_sql_expr **keyconj, uint32_t *n_keys,
                      weir_sql_loc loc, weir_buf *keytext)
{
    for (uint32_t i = 0; i < ju->n; i++) {
        uint32_t k = *n_keys;
        const weir_field *fl = &sd[0].r.schema->fields[ju->l[i]], *fr = &sd[1].r.schema->fields[ju->r[i]];
        weir_error err = {0};
        if (weir_expr_column(pc->arena, ju->l[i], fl->type, &sd[0].keys[k], &err) ||
            weir_expr_column(pc->arena, ju->r[i], fr->type, &sd[1].keys[k], &err))
            return WEIR_ENOMEM;
        char a[64], b[64];
        if (!common_type(fl->type, fr->type, &kt[k]))
            return plan_error(pc, loc, WEIR_EPLAN, "cannot join on column '%s', a %s and a %s: add a CAST to one side",
                              fl->name, weir_type_format(fl->type, a, sizeof a), weir_type_format(fr->type, b, sizeof b));
        keycol[0][k] = (int32_t)ju->l[i];
        keycol[1][k] = (int32_t)ju->r[i];
        keyconj[k] = NULL;
        weir_buf_printf(keytext, "%s%s", k ? ", " : "", fl->name);
        *n_keys = k + 1;
    }
    return 0;
}

static weir_sql_loc cond_loc(const weir_sql_table_ref *ref, const weir_sql_expr *on)
{
    return on ? on->loc : ref->u.join.op_loc;
}

bool plan_join_takes_where(const weir_sql_table_ref *t)
{
    if (t->kind != WEIR_SQL_FROM_JOIN || t->u.join.natural || t->u.join.n_using)
        return false;
    weir_sql_join_kind k = t->u.join.kind;
    return k == WEIR_SQL_JOIN_COMMA || k == WEIR_SQL_JOIN_CROSS || k == WEIR_SQL_JOIN_INNER;
}

/* Plans one join input: a nested inner or comma join takes its share of the WHERE conjuncts. */
static int plan_input(plan_ctx *pc, const weir_sql_table_ref *t, join_conds *where, rel *out)
{
    if (where && plan_join_takes_where(t))
        return plan_join(pc, t, where, out);
    return plan_from(pc, t, out);
}

/* Side sd now reads the stream of Calc c over it, and the upsert keys c kept. */
static void side_onto(join_side *sd, const rel *c)
{
    sd->r.s = c->s;
    sd->r.ukey_node = c->ukey_node;
    sd->r.n_ukeys = c->n_ukeys;
    memcpy(sd->r.ukeys, c->ukeys, sizeof c->ukeys);
}

/* Filters side sd by the conjuncts in v (bound over its own columns), below the join. */
static int push_filter(plan_ctx *pc, join_side *sd, const weir_sql_expr **v, uint32_t n)
{
    weir_expr *f = NULL;
    for (uint32_t i = 0; i < n; i++) {
        weir_expr *x;
        int rc = plan_bind_expr(pc, &sd->r, NULL, v[i], &x);
        if (rc)
            return rc;
        weir_type t = weir_expr_type(x);
        if (t.id != WEIR_TYPE_BOOLEAN && t.id != WEIR_TYPE_NULL)
            return plan_error(pc, v[i]->loc, WEIR_EPLAN, "a condition must be BOOLEAN, not %s", weir_type_name(t.id));
        if (f) {
            weir_expr *a[2] = {f, x};
            weir_error err = {0};
            if ((rc = weir_expr_call(pc->arena, "AND", a, 2, &x, &err)))
                return rc;
        }
        f = x;
    }
    if (!f)
        return 0;
    rel fr;
    int rc = plan_calc(pc, &sd->r, f, NULL, NULL, 0, &fr, "Calc");
    if (rc)
        return rc;
    side_onto(sd, &fr);
    return 0;
}

/*
 * How a join side's DOUBLE keys are computed (key_projection): as '='
 * compares them (DKEY_EQ, double_key); with only NaN made NULL, the bytes
 * of every other value kept (DKEY_NAN: a temporal join's probe side); or
 * as they are (DKEY_BYTES: a versioned table's primary key, by which -0.0
 * and 0.0 are two rows).
 */
enum { DKEY_EQ, DKEY_NAN, DKEY_BYTES };

/*
 * The key of a DOUBLE key value e. Keys meet by their bytes, so -0.0 is
 * made 0.0 (x + 0.0), as '=' says they are equal (unless !fold_zero); and
 * since NaN equals nothing, under '=' it is made NULL, which meets nothing.
 * A key IS NOT DISTINCT FROM keeps NaN (NULL would meet NULL): its
 * conjunct, in the join's condition too, rejects it.
 */
static int double_key(plan_ctx *pc, weir_sql_loc loc, weir_expr *e, bool null_safe, bool fold_zero, weir_expr **out)
{
    weir_error err = {0};
    weir_expr *zero = weir_expr_lit_double(pc->arena, 0.0), *sum = e, *eq;
    if (!zero)
        return WEIR_ENOMEM;
    weir_expr *add[2] = {e, zero}, *same[2] = {e, e};
    if (fold_zero && weir_expr_call(pc->arena, "+", add, 2, &sum, &err))
        return plan_error(pc, loc, WEIR_EPLAN, "join key: %s", err.message);
    if (null_safe) {
        *out = sum;
        return 0;
    }
    if (weir_expr_call(pc->arena, "=", same, 2, &eq, &err) || weir_expr_case(pc->arena, &eq, &sum, 1, NULL, out, &err))
        return plan_error(pc, loc, WEIR_EPLAN, "join key: %s", err.message);
    return 0;
}

/*
 * Adds a projection below the join computing the keys that are not plain
 * columns of the right type, and every DOUBLE key as dkey says (DKEY_*);
 * null_safe marks the keys IS NOT DISTINCT FROM (NULL: none).
 */
static int key_projection(plan_ctx *pc, join_side *sd, const weir_type *kt, const bool *null_safe, uint32_t n_keys,
                          int dkey)
{
    uint32_t np = sd->r.n_physical;
    for (uint32_t i = 0; i < n_keys; i++) {
        weir_type t = weir_expr_type(sd->keys[i]);
        int32_t col = weir_expr_column_index(sd->keys[i]);
        if (col >= 0 && (uint32_t)col < np && t.id == kt[i].id && t.precision == kt[i].precision &&
            t.scale == kt[i].scale && (kt[i].id != WEIR_TYPE_DOUBLE || dkey == DKEY_BYTES)) {
            sd->ks.cols[i] = (uint32_t)col;
            continue;
        }
        sd->ks.cols[i] = np + sd->n_extra++;
    }
    sd->ks.n = n_keys;
    if (!sd->n_extra)
        return 0;
    uint32_t n = np + sd->n_extra;
    weir_expr **exprs = plan_alloc(pc, n * sizeof *exprs);
    const char **names = plan_alloc(pc, n * sizeof *names);
    if (!exprs || !names)
        return WEIR_ENOMEM;
    weir_error err = {0};
    for (uint32_t c = 0; c < np; c++) {
        if (weir_expr_column(pc->arena, c, sd->r.schema->fields[c].type, &exprs[c], &err))
            return WEIR_ENOMEM;
        names[c] = sd->r.schema->fields[c].name;
    }
    for (uint32_t i = 0; i < n_keys; i++) {
        if (sd->ks.cols[i] < np)
            continue;
        weir_expr *e = sd->keys[i];
        weir_type t = weir_expr_type(e);
        if ((t.id != kt[i].id || t.precision != kt[i].precision || t.scale != kt[i].scale) &&
            weir_expr_cast(pc->arena, e, kt[i], false, &e, &err))
            return plan_error(pc, sd->r.loc, WEIR_EPLAN, "join key %u: %s", i + 1, err.message);
        int rc;
        if (kt[i].id == WEIR_TYPE_DOUBLE && dkey != DKEY_BYTES &&
            (rc = double_key(pc, sd->r.loc, e, null_safe && null_safe[i], dkey == DKEY_EQ, &e)))
            return rc;
        char nm[32];
        snprintf(nm, sizeof nm, "$joinkey%u", i);
        exprs[sd->ks.cols[i]] = e;
        names[sd->ks.cols[i]] = plan_strdup(pc, nm);
    }
    rel pr;
    int rc = plan_calc(pc, &sd->r, NULL, exprs, names, n, &pr, "Calc");
    if (rc)
        return rc;
    side_onto(sd, &pr);
    return 0;
}

/*
 * Marks join s's state as keyed by DOUBLE keys met as '=' compares them
 * (double_key): a checkpoint of a weir that met them by their bytes has no
 * such line, so its restore is refused rather than its -0.0 and NaN keys
 * silently missing the rows that now meet them. (A temporal join keeps the
 * versioned side's keys as they are: its state means what it meant.)
 */
static int describe_double_keys(plan_ctx *pc, weir_stream s, const weir_type *kt, uint32_t n_keys)
{
    for (uint32_t i = 0; i < n_keys; i++)
        if (kt[i].id == WEIR_TYPE_DOUBLE)
            return weir_job_describe_state(pc->job, s, "double keys", "as =");
    return 0;
}

/* e is `col`, `col + INTERVAL ...` or `col - INTERVAL ...`: its column in j and the offset. */
static bool time_term(const rel *j, const weir_sql_expr *e, int *col, int64_t *off)
{
    *off = 0;
    if (e->kind == WEIR_SQL_EXPR_BINARY && (e->u.binary.op == WEIR_SQL_OP_ADD || e->u.binary.op == WEIR_SQL_OP_SUB)) {
        const weir_sql_expr *iv = e->u.binary.right;
        if (iv->kind != WEIR_SQL_EXPR_LITERAL || iv->u.lit.kind != WEIR_SQL_LIT_INTERVAL ||
            iv->u.lit.interval.year_month)
            return false;
        *off = e->u.binary.op == WEIR_SQL_OP_ADD ? iv->u.lit.interval.ms : -iv->u.lit.interval.ms;
        e = e->u.binary.left;
    }
    if (e->kind != WEIR_SQL_EXPR_COLUMN)
        return false;
    *col = plan_find_column(NULL, j, &e->u.column);
    return *col >= 0;
}

/* Bounds on d = left.time - right.time, narrowed by the conjunct a OP b (op: <, <=, >, >=). */
typedef struct time_bounds {
    int lt, rt; /* the two time attributes, columns of the joined rel */
    bool have_lo, have_hi;
    int64_t lo, hi;
} time_bounds;

static bool bound_cmp(time_bounds *tb, const rel *j, const weir_sql_expr *a, weir_sql_binop op,
                      const weir_sql_expr *b)
{
    int ca, cb;
    int64_t oa, ob;
    if (!time_term(j, a, &ca, &oa) || !time_term(j, b, &cb, &ob))
        return false;
    int64_t d;
    if (ca == tb->lt && cb == tb->rt) {
        d = ob - oa; /* l + oa OP r + ob  <=>  l - r OP ob - oa */
    } else if (ca == tb->rt && cb == tb->lt) {
        d = oa - ob; /* r + oa OP l + ob  <=>  l - r OP' oa - ob, OP mirrored */
        op = op == WEIR_SQL_OP_LT ? WEIR_SQL_OP_GT
             : op == WEIR_SQL_OP_LE ? WEIR_SQL_OP_GE
             : op == WEIR_SQL_OP_GT ? WEIR_SQL_OP_LT
                                    : WEIR_SQL_OP_LE;
    } else {
        return false;
    }
    switch (op) {
    case WEIR_SQL_OP_GE:
    case WEIR_SQL_OP_LE: break;
    case WEIR_SQL_OP_GT: d += 1; break; /* times are whole milliseconds */
    case WEIR_SQL_OP_LT: d -= 1; break;
    default: return false;
    }
    if (op == WEIR_SQL_OP_GE || op == WEIR_SQL_OP_GT) {
        if (!tb->have_lo || d > tb->lo)
            tb->lo = d;
        tb->have_lo = true;
    } else {
        if (!tb->have_hi || d < tb->hi)
            tb->hi = d;
        tb->have_hi = true;
    }
    return true;
}

/* Narrows tb by a conjunct that bounds one time attribute by the other; false if it does not. */
static bool time_bound(time_bounds *tb, const rel *j, const weir_sql_expr *e)
{
    if (e->kind == WEIR_SQL_EXPR_BETWEEN && !e->u.between.negated && !e->u.between.symmetric) {
        time_bounds t2 = *tb;
        if (bound_cmp(&t2, j, e->u.between.operand, WEIR_SQL_OP_GE, e->u.between.low) &&
            bound_cmp(&t2, j, e->u.between.operand, WEIR_SQL_OP_LE, e->u.between.high)) {
            *tb = t2;
            return true;
        }
        return false;
    }
    if (e->kind != WEIR_SQL_EXPR_BINARY)
        return false;
    weir_sql_binop op = e->u.binary.op;
    if (op != WEIR_SQL_OP_LT && op != WEIR_SQL_OP_LE && op != WEIR_SQL_OP_GT && op != WEIR_SQL_OP_GE)
        return false;
    return bound_cmp(tb, j, e->u.binary.left, op, e->u.binary.right);
}

static bool same_window(const weir_window_assigner *a, const weir_window_assigner *b)
{
    return a->kind == b->kind && a->size_ms == b->size_ms && a->slide_ms == b->slide_ms &&
           a->offset_ms == b->offset_ms && a->gap_ms == b->gap_ms && a->max_length_ms == b->max_length_ms;
}

/*
 * A window join (Flink's): both inputs append-only with window properties
 * (window aggregation or window join outputs), and key pairs equating
 * window_start with window_start and window_end with window_end. Inputs
 * of different windows joined on their bounds are an error, as in Flink:
 * such a join matches only the windows the two happen to share, and a
 * regular join would keep every row forever.
 */
static int window_join_check(plan_ctx *pc, const weir_sql_table_ref *ref, const join_side *sd,
                             int32_t keycol[2][WEIR_KEY_MAX_COLS], uint32_t n_keys, bool *window)
{
    *window = false;
    const rel_wprops *wl = &sd[0].r.wprops, *wr = &sd[1].r.wprops;
    if (!wl->present || !wr->present)
        return 0;
    bool starts = false, ends = false;
    for (uint32_t i = 0; i < n_keys; i++) {
        starts |= keycol[0][i] == (int32_t)wl->ws && keycol[1][i] == (int32_t)wr->ws;
        ends |= keycol[0][i] == (int32_t)wl->we && keycol[1][i] == (int32_t)wr->we;
    }
    if (!starts || !ends || sd[0].r.updating || sd[1].r.updating)
        return 0;
    /* Windows of local wall time end at other instants than windows of UTC: as in Flink, both sides agree. */
    if (wl->local_tz != wr->local_tz)
        return plan_error(pc, ref->u.join.op_loc, WEIR_EPLAN,
                          "a window join needs the same kind of time attribute on both sides, not windows over a "
                          "%s on the left and over a %s on the right (table.local-time-zone '%s')",
                          wl->local_tz ? "TIMESTAMP_LTZ" : "TIMESTAMP", wr->local_tz ? "TIMESTAMP_LTZ" : "TIMESTAMP",
                          pc->time_zone ? pc->time_zone : "UTC");
    if (!same_window(&wl->assigner, &wr->assigner)) {
        char a[96], b[96];
        plan_window_text(&wl->assigner, a, sizeof a);
        plan_window_text(&wr->assigner, b, sizeof b);
        return plan_error(pc, ref->u.join.op_loc, WEIR_EPLAN,
                          "a window join needs the same window on both sides, not %s on the left and %s on the "
                          "right",
                          a, b);
    }
    *window = true;
    return 0;
}

/* Adds the window join operator for plan_join; j is the joined rel (schema and qualifiers set). */
static int plan_window_join(plan_ctx *pc, const weir_sql_table_ref *ref, weir_join_type type, join_side *sd,
                            uint32_t n_keys, weir_expr *residual, rel *j, weir_buf *keytext, weir_schema *semi_os)
{
    uint32_t nl = sd[0].r.n_physical;
    weir_window_join_config wc = {.type = type,
                                  .keys = {sd[0].ks, sd[1].ks},
                                  .end_col = {sd[0].r.wprops.we, sd[1].r.wprops.we},
                                  .n_out = {nl, sd[1].r.n_physical},
                                  .residual = residual,
                                  .out_schema = semi_os ? semi_os : j->schema,
                                  .cand_schema = semi_os ? j->schema : NULL,
                                  .clock = pc->cenv.clock,
                                  .time_zone = sd[0].r.wprops.local_tz ? pc->time_zone : NULL};
    weir_operator_spec spec;
    int rc = weir_window_join_spec(&wc, &spec);
    if (rc)
        return rc;
    weir_stream ins[2] = {weir_stream_key_by(sd[0].r.s, sd[0].ks.cols, n_keys),
                          weir_stream_key_by(sd[1].r.s, sd[1].ks.cols, n_keys)};
    if ((rc = weir_job_operator(pc->job, ins, 2, &spec, semi_os ? semi_os : j->schema, 0, &j->s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, ref->u.join.op_loc, rc, "cannot add the window join: %s", weir_job_error(pc->job));
    }
    /* its timers are at the instants of local window ends: a restore in another zone would misread them */
    if (wc.time_zone && (rc = weir_job_describe_state(pc->job, j->s, "time-zone", wc.time_zone)))
        return rc;
    if ((rc = plan_describe_windows(pc, j->s, &sd[0].r.wprops.assigner)))
        return rc;
    /* an outer (or ANTI) side keeps the rows whose key has a NULL, an inner one drops them */
    if ((rc = weir_job_describe_state(pc->job, j->s, WEIR__JOIN_FIELD, weir_join_type_name(type))))
        return rc;
    /*
     * Append-only; rows carry time end - 1. The window properties (and
     * window_time as the time attribute) of a side whose columns are never
     * NULL-padded stay: the left one's for INNER and LEFT, the right one's
     * for RIGHT; a FULL join has none.
     */
    j->updating = false;
    int keep = type == WEIR_JOIN_RIGHT ? 1 : type == WEIR_JOIN_FULL ? -1 : 0;
    if (keep >= 0) {
        const rel_wprops *w = &sd[keep].r.wprops;
        uint32_t off = keep ? nl : 0;
        j->wprops = (rel_wprops){true, w->assigner, w->ws + off, w->we + off, w->wt >= 0 ? w->wt + (int32_t)off : -1,
                                 w->local_tz};
        if (w->wt >= 0) {
            j->rowtime = w->wt + (int32_t)off;
            j->schema->rowtime = j->rowtime;
        }
    }
    char rbuf[512] = "", wbuf[96];
    if (residual)
        weir_expr_format(residual, rbuf, sizeof rbuf);
    plan_window_text(&sd[0].r.wprops.assigner, wbuf, sizeof wbuf);
    weir_buf_printf(&pc->explain, "  WindowJoin[%d]: %s on %s%s%s (window: %s%s%s)\n", j->s.node,
                    weir_join_type_name(type), (char *)keytext->data, residual ? " where " : "", rbuf, wbuf,
                    wc.time_zone ? " time-zone=" : "", wc.time_zone ? wc.time_zone : "");
    return 0;
}

/*
 * The table side of JOIN t FOR SYSTEM_TIME AS OF left.attr: a rel that names
 * t's columns for the conditions, with no stream behind it. The time must be
 * the left side's processing-time attribute (a lookup join, as Flink's).
 */
static int lookup_side(plan_ctx *pc, const weir_sql_table_ref *ref, weir_join_type type, const rel *left, rel *out,
                       cat_table **table)
{
    const weir_sql_table_ref *rt = ref->u.join.right;
    const weir_sql_expr *at = rt->u.table.system_time;
    if (type != WEIR_JOIN_INNER && type != WEIR_JOIN_LEFT)
        return plan_error(pc, ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                          "a lookup join (FOR SYSTEM_TIME AS OF) is INNER or LEFT, as in Flink");
    int col = at->kind == WEIR_SQL_EXPR_COLUMN ? plan_find_column(pc, left, &at->u.column) : -1;
    if (col < 0 || !left->has_proctime || (uint32_t)col != left->proctime)
        return plan_error(pc, at->loc, WEIR_EPLAN,
                          "FOR SYSTEM_TIME AS OF needs a time attribute of the left side: its event-time attribute "
                          "(a temporal join) or a processing-time attribute (a column declared AS PROCTIME(), or "
                          "PROCTIME() AS p in a subquery: a lookup join)");
    const weir_sql_name *name = &rt->u.table.name;
    cat_table *t = plan_find_table(pc, name);
    if (!t && !plan_find_view(pc, name))
        return plan_missing(pc, name, "table", true);
    if (!t)
        return plan_error(pc, name->loc, WEIR_ENOTFOUND, "unknown table '%s' (a lookup join reads a table, not a view)",
                          name->parts[name->n_parts - 1].name);
    cat_path path = {t->catalog, t->database, t->name};
    int rc = plan_hinted_table(pc, t, rt->u.table.hints, rt->u.table.n_hints, &t);
    if (rc)
        return rc;
    if (t->full->n_fields != t->physical->n_fields)
        return plan_error(pc, name->loc, WEIR_EUNSUPPORTED,
                          "lookup table '%s' has computed columns, which a lookup join does not evaluate yet", t->name);
    memset(out, 0, sizeof *out);
    out->schema = t->physical;
    out->n_physical = t->physical->n_fields;
    out->rowtime = -1;
    out->loc = rt->loc;
    out->s.node = -1;
    out->quals = plan_alloc(pc, (out->n_physical + 1) * sizeof *out->quals);
    if (!out->quals)
        return WEIR_ENOMEM;
    char *q = plan_strdup(pc, rt->alias ? rt->alias->name : t->name);
    if (!q)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < out->n_physical; i++)
        out->quals[i] = q;
    *table = t;
    return plan_note_from(pc, name, q, rt->alias, &path, NULL);
}

/* Whether table t is queried by key (jdbc) rather than read whole. */
static bool queried_by_key(const cat_table *t)
{
    for (size_t i = 0; i < t->n_opts; i++)
        if (!strcasecmp(t->opts[i].key, "connector"))
            return !strcasecmp(t->opts[i].value, "jdbc");
    return false;
}

/*
 * The lookup join itself: the stream side filtered and its keys projected
 * as for any join; the table side's conditions become the filter applied
 * while the table is read; keys on the table side must be its columns.
 */
static int plan_lookup_join(plan_ctx *pc, const weir_sql_table_ref *ref, weir_join_type type, cat_table *t,
                            join_side *sd, int32_t keycol[2][WEIR_KEY_MAX_COLS], const weir_type *kt, uint32_t n_keys,
                            const weir_sql_expr **push[2], const uint32_t n_push[2], weir_expr *residual, rel *j,
                            weir_buf *keytext)
{
    int rc;
    weir_lookup_join_config lc = {.n_keys = n_keys, .n_out = sd[0].r.n_physical, .residual = residual,
                                  .left_outer = type == WEIR_JOIN_LEFT, .out_schema = j->schema,
                                  .clock = pc->cenv.clock, .table_name = t->name};
    weir_type lkt[WEIR_KEY_MAX_COLS];
    for (uint32_t i = 0; i < n_keys; i++) {
        if (keycol[1][i] < 0)
            return plan_error(pc, ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                              "in a lookup join each key of table '%s' must be one of its columns (key %u is an "
                              "expression)",
                              t->name, i + 1);
        lc.right_keys[i] = (uint32_t)keycol[1][i];
        weir_type l = weir_expr_type(sd[0].keys[i]), r = t->physical->fields[keycol[1][i]].type;
        if (kt[i].id == WEIR_TYPE_DOUBLE && (is_int(r.id) || r.id == WEIR_TYPE_DECIMAL)) {
            /*
             * The key meets the column as the nearest double, which values
             * of more than 15 digits share (2^53 + 1 meets 2^53): cast to
             * the column's type, the key would find one of them at most, so
             * the table is keyed by its values as DOUBLEs. A table queried
             * by key compares in the database, by the column's type.
             */
            if (!queried_by_key(t)) {
                lc.right_as_double[i] = true;
                lkt[i] = kt[i];
                continue;
            }
            if (r.id == WEIR_TYPE_BIGINT || (r.id == WEIR_TYPE_DECIMAL && r.precision > 15)) {
                char a[64], b[64];
                return plan_error(pc, ref->u.join.op_loc, WEIR_EPLAN,
                                  "a lookup join cannot compare a %s key with column '%s' of table '%s', a %s, as "
                                  "doubles where the table is queried by key: add a CAST of the key to %s",
                                  weir_type_format(l, a, sizeof a), t->physical->fields[keycol[1][i]].name, t->name,
                                  weir_type_format(r, b, sizeof b), b);
            }
        }
        bool ints = (l.id == WEIR_TYPE_INT || l.id == WEIR_TYPE_BIGINT) && (r.id == WEIR_TYPE_INT || r.id == WEIR_TYPE_BIGINT);
        lkt[i] = ints ? l : r; /* INT and BIGINT keys compare as numbers; other types are cast to the table's */
    }
    /* conditions on the table alone filter it as it is read */
    weir_expr *filter = NULL;
    for (uint32_t i = 0; i < n_push[1]; i++) {
        weir_expr *x;
        if ((rc = plan_bind_expr(pc, &sd[1].r, NULL, push[1][i], &x)))
            return rc;
        if (filter) {
            weir_expr *a[2] = {filter, x};
            weir_error err = {0};
            if ((rc = weir_expr_call(pc->arena, "AND", a, 2, &x, &err)))
                return rc;
        }
        filter = x;
    }
    lc.table_filter = filter;
    /* read again once this old, as Flink's filesystem lookup source (default 60 min) */
    lc.cache_ttl_ms = 60 * 60 * 1000;
    for (size_t i = 0; i < t->n_opts; i++) {
        if (strcasecmp(t->opts[i].key, "lookup.join.cache.ttl"))
            continue;
        if (weir_option_parse_duration(t->opts[i].value, &lc.cache_ttl_ms) || lc.cache_ttl_ms <= 0)
            return plan_error(pc, plan_option_value_loc(t, i), WEIR_EINVAL,
                              "invalid lookup.join.cache.ttl '%s' (a positive duration, such as '10 min')",
                              t->opts[i].value);
    }
    if ((rc = push_filter(pc, &sd[0], push[0], n_push[0])) ||
        (rc = key_projection(pc, &sd[0], lkt, NULL, n_keys, DKEY_EQ)))
        return rc;
    for (uint32_t i = 0; i < n_keys; i++)
        lc.left_keys[i] = sd[0].ks.cols[i];
    weir_error err = {0};
    int bad = -1;
    pc->cenv.bad_option_index = &bad;
    /* a table queried by key (jdbc), or else one read whole as a bounded source */
    rc = weir_connector_lookup_spec(t->opts, t->n_opts, t->physical, lc.right_keys, n_keys, &pc->cenv, &lc.lookup,
                                    &err);
    bool keyed = rc == 0;
    int hrc = rc == 0 || rc == WEIR_ENOTFOUND ? plan_hint_lookup(pc, ref->u.join.right, t, keyed) : 0;
    if (hrc) {
        if (keyed && lc.lookup.free_arg)
            lc.lookup.free_arg(lc.lookup.arg);
        pc->cenv.bad_option_index = NULL;
        return hrc;
    }
    if (rc == WEIR_ENOTFOUND)
        rc = weir_connector_source_spec(NULL, t->opts, t->n_opts, t->physical, &pc->cenv, &lc.table, &err);
    else if (keyed)
        lc.table = (weir_source_spec){.name = t->name, .schema = t->physical};
    pc->cenv.bad_option_index = NULL;
    if (rc) {
        weir_sql_loc at = plan_option_loc(t, bad);
        return plan_error(pc, at, rc, "table '%s': %s", t->name, err.message);
    }
    weir_operator_spec spec;
    if ((rc = weir_lookup_join_spec(&lc, &spec))) {
        if (lc.table.free_arg)
            lc.table.free_arg(lc.table.arg);
        if (lc.lookup.free_arg)
            lc.lookup.free_arg(lc.lookup.arg);
        return rc;
    }
    /* at its input's parallelism, as Flink: an updating input (a global aggregation's) keeps its order */
    if ((rc = weir_job_operator(pc->job, &sd[0].r.s, 1, &spec, j->schema, plan_forward_parallelism(pc, sd[0].r.s),
                                &j->s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, ref->u.join.op_loc, rc, "cannot add the lookup join: %s", weir_job_error(pc->job));
    }
    /* the stream side's time attributes stay */
    j->rowtime = sd[0].r.rowtime;
    j->schema->rowtime = sd[0].r.rowtime;
    j->has_proctime = sd[0].r.has_proctime;
    j->proctime = sd[0].r.proctime;
    j->updating = sd[0].r.updating;
    char rbuf[512] = "", fbuf[512] = "";
    if (residual)
        weir_expr_format(residual, rbuf, sizeof rbuf);
    if (filter)
        weir_expr_format(filter, fbuf, sizeof fbuf);
    weir_buf_printf(&pc->explain, "  LookupJoin[%d]: %s on %s%s%s, table %s%s%s (%s)\n", j->s.node,
                    weir_join_type_name(type), (char *)keytext->data, residual ? " where " : "", rbuf, t->name,
                    filter ? " filtered by " : "", fbuf,
                    !keyed               ? "read whole when a subtask opens"
                    : lc.lookup.cache ? "queried by key per batch, cached"
                                         : "queried by key per batch");
    return 0;
}

/*
 * The versioned side of an event-time temporal join: a table with a
 * PRIMARY KEY and a watermark, or a versioned view (the last row per key
 * of an append-only stream, ordered by its rowtime). keys: the columns a
 * version is kept per, as the right rel names them.
 */
typedef struct versioned_side {
    const char *name;
    bool view;
    const char *keys[WEIR_KEY_MAX_COLS];
    uint32_t n_keys;
} versioned_side;

static bool plain_column(const weir_sql_expr *e) { return e->kind == WEIR_SQL_EXPR_COLUMN && e->u.column.n_parts == 1; }

static const char *column_name(const weir_sql_expr *e) { return e->u.column.parts[e->u.column.n_parts - 1].name; }

/* Whether the inner select's result has FROM column `name` under that name: a `*`, or the plain column. */
static bool passes_column(const weir_sql_select *in, int32_t skip, const char *name)
{
    for (uint32_t i = 0; i < in->n_items; i++) {
        const weir_sql_select_item *it = &in->items[i];
        if ((int32_t)i == skip)
            continue;
        if (it->expr->kind == WEIR_SQL_EXPR_STAR && !it->expr->u.star.qualifier.n_parts)
            return true;
        if (it->expr->kind == WEIR_SQL_EXPR_COLUMN && !strcasecmp(column_name(it->expr), name) &&
            (!it->alias || !strcasecmp(it->alias->name, name)))
            return true;
    }
    return false;
}

/* The outer item that is the plain column `name`, or -1. */
static int32_t outer_item(const weir_sql_select *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_items; i++)
        if (plain_column(s->items[i].expr) && !strcasecmp(column_name(s->items[i].expr), name))
            return (int32_t)i;
    return -1;
}

/* Whether e is `rn = 1`, `1 = rn` or `rn <= 1` (Flink's deduplication bound). */
static bool first_row_bound(const weir_sql_expr *e, const char *rn)
{
    if (e->kind != WEIR_SQL_EXPR_BINARY)
        return false;
    const weir_sql_expr *l = e->u.binary.left, *r = e->u.binary.right;
    weir_sql_binop op = e->u.binary.op;
    if (plain_column(r) && !strcasecmp(column_name(r), rn)) {
        const weir_sql_expr *t = l;
        l = r, r = t;
        op = op == WEIR_SQL_OP_GE ? WEIR_SQL_OP_LE : op == WEIR_SQL_OP_LE ? WEIR_SQL_OP_GE : op;
    }
    if (!plain_column(l) || strcasecmp(column_name(l), rn) || r->kind != WEIR_SQL_EXPR_LITERAL ||
        r->u.lit.kind != WEIR_SQL_LIT_INTEGER || r->u.lit.overflow)
        return false;
    return (op == WEIR_SQL_OP_EQ || op == WEIR_SQL_OP_LE) && r->u.lit.i64 == 1;
}

/*
 * A view used as the versioned side of an event-time temporal join: Flink's
 * versioned view,
 *   SELECT cols FROM (SELECT ..., ROW_NUMBER() OVER (PARTITION BY k ORDER BY rowtime DESC) AS rn
 *                     FROM s [WHERE ...]) WHERE rn = 1
 * over an append-only s. Every row of s is a new version of its key, valid
 * from its rowtime, so the join reads s itself (projected as the view
 * projects it); the keys are the PARTITION BY columns. Other shapes are
 * refused by name.
 */
static int versioned_view_side(plan_ctx *pc, const weir_sql_table_ref *rt, const cat_view *v, rel *out,
                               versioned_side *vs)
{
    const weir_sql_query *q = v->query;
    const weir_sql_loc at = rt->u.table.name.loc;
    const char *vn = v->name;
    const weir_sql_select *s = q->kind == WEIR_SQL_QUERY_SELECT ? q->u.select : NULL;
    const weir_sql_table_ref *fr = s ? s->from : NULL;
    const weir_sql_query *iq = fr && fr->kind == WEIR_SQL_FROM_SUBQUERY && !fr->u.subquery.lateral
                                   ? fr->u.subquery.query
                                   : NULL;
    const weir_sql_select *in = iq && iq->kind == WEIR_SQL_QUERY_SELECT ? iq->u.select : NULL;
    int32_t ri = -1;
    for (uint32_t i = 0; in && i < in->n_items; i++) {
        const weir_sql_expr *e = in->items[i].expr;
        if (e->kind == WEIR_SQL_EXPR_CALL && e->u.call.over && !strcasecmp(e->u.call.name.parts[e->u.call.name.n_parts - 1].name, "ROW_NUMBER"))
            ri = (int32_t)i;
    }
    if (!in || ri < 0 || q->n_with || q->n_order_by || q->limit || q->offset || s->distinct || s->n_group_by ||
        s->having || iq->n_with || iq->n_order_by || iq->limit || iq->offset || in->distinct || in->n_group_by ||
        in->having || !in->items[ri].alias || !s->where)
        return plan_error(pc, at, WEIR_EUNSUPPORTED,
                          "view '%s' is not a versioned view: the versioned side of an event-time temporal join is a "
                          "table with a PRIMARY KEY and a watermark, or a view SELECT ... FROM (SELECT ..., "
                          "ROW_NUMBER() OVER (PARTITION BY key ORDER BY rowtime DESC) AS rownum FROM ...) WHERE "
                          "rownum = 1",
                          vn);
    const weir_sql_expr *call = in->items[ri].expr;
    const weir_sql_window *w = call->u.call.over;
    const char *rn = in->items[ri].alias->name;
    if (w->ref || w->frame || !w->n_partition_by || w->n_order_by != 1)
        return plan_error(pc, w->loc, WEIR_EUNSUPPORTED,
                          "view '%s' as a versioned table: its ROW_NUMBER() needs OVER (PARTITION BY key ORDER BY "
                          "rowtime DESC) written out, with one ORDER BY column",
                          vn);
    if (w->order_by[0].dir != WEIR_SQL_ORDER_DESC)
        return plan_error(pc, w->order_by[0].expr->loc, WEIR_EUNSUPPORTED,
                          "view '%s' keeps the first row per key (ORDER BY ... ASC), which is not a versioned table "
                          "(as in Flink): a versioned view keeps the last row, ORDER BY rowtime DESC",
                          vn);
    if (w->n_partition_by > WEIR_KEY_MAX_COLS)
        return plan_error(pc, w->loc, WEIR_EUNSUPPORTED, "a versioned view partitioned by more than %d columns",
                          WEIR_KEY_MAX_COLS);
    const weir_sql_expr *oe = w->order_by[0].expr;
    /* the bound: rownum = 1 and nothing else (a filter after the deduplication is not placed yet) */
    const weir_sql_expr *cj[64];
    uint32_t n_cj = 0;
    plan_split_and(s->where, cj, &n_cj, 64);
    bool bounded = false;
    for (uint32_t i = 0; i < n_cj; i++) {
        if (first_row_bound(cj[i], rn)) {
            bounded = true;
            continue;
        }
        return plan_error(pc, cj[i]->loc, WEIR_EUNSUPPORTED,
                          "view '%s' as a versioned table: its outer WHERE may only keep the last row per key "
                          "(%s = 1); filter the rows in the inner query instead",
                          vn, rn);
    }
    if (!bounded || plan_count_and(s->where) > 64)
        return plan_error(pc, s->where->loc, WEIR_EUNSUPPORTED,
                          "view '%s' as a versioned table: its outer WHERE must be %s = 1", vn, rn);
    /* the outer items: plain columns of the inner result (not the row number) */
    for (uint32_t i = 0; i < s->n_items; i++) {
        const weir_sql_expr *e = s->items[i].expr;
        if (!plain_column(e) || !strcasecmp(column_name(e), rn))
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "view '%s' as a versioned table: select plain columns (not '*', not %s, not an "
                              "expression) in its outer query",
                              vn, rn);
    }
    /* the keys and the rowtime: FROM columns the inner query passes on and the outer selects */
    int32_t key_item[WEIR_KEY_MAX_COLS], time_item = -1;
    for (uint32_t i = 0; i <= w->n_partition_by; i++) {
        const weir_sql_expr *e = i < w->n_partition_by ? w->partition_by[i] : oe;
        int32_t it = plain_column(e) && passes_column(in, ri, column_name(e)) ? outer_item(s, column_name(e)) : -1;
        if (it < 0)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "view '%s' as a versioned table: its %s must be a column the view selects unchanged "
                              "(the %s of the versioned table)",
                              vn, i < w->n_partition_by ? "PARTITION BY columns" : "ORDER BY column",
                              i < w->n_partition_by ? "primary key" : "time attribute");
        if (i < w->n_partition_by)
            key_item[i] = it;
        else
            time_item = it;
    }
    /* the view without its deduplication: the outer projection over the inner query less ROW_NUMBER() */
    weir_sql_select *inner = plan_alloc(pc, sizeof *inner), *outer = plan_alloc(pc, sizeof *outer);
    weir_sql_query *iq2 = plan_alloc(pc, sizeof *iq2), *q2 = plan_alloc(pc, sizeof *q2);
    weir_sql_table_ref *fr2 = plan_alloc(pc, sizeof *fr2), *sub = plan_alloc(pc, sizeof *sub);
    weir_sql_ident *alias = plan_alloc(pc, sizeof *alias);
    if (!inner || !outer || !iq2 || !q2 || !fr2 || !sub || !alias)
        return WEIR_ENOMEM;
    *inner = *in;
    if (!(inner->items = plan_alloc(pc, in->n_items * sizeof *inner->items)))
        return WEIR_ENOMEM;
    inner->n_items = 0;
    for (uint32_t i = 0; i < in->n_items; i++)
        if ((int32_t)i != ri)
            inner->items[inner->n_items++] = in->items[i];
    *iq2 = *iq;
    iq2->u.select = inner;
    *fr2 = *fr;
    fr2->u.subquery.query = iq2;
    *outer = *s;
    outer->where = NULL;
    outer->from = fr2;
    *q2 = *q;
    q2->u.select = outer;
    if (rt->alias) {
        *alias = *rt->alias;
    } else {
        *alias = (weir_sql_ident){.name = vn, .len = (uint32_t)strlen(vn), .loc = at};
    }
    *sub = (weir_sql_table_ref){.kind = WEIR_SQL_FROM_SUBQUERY, .loc = rt->loc, .alias = alias};
    sub->column_aliases = rt->n_column_aliases ? rt->column_aliases : (weir_sql_ident *)v->columns;
    sub->n_column_aliases = rt->n_column_aliases ? rt->n_column_aliases : v->n_columns;
    sub->u.subquery.query = q2;
    if (++pc->view_depth > 32)
        return plan_error(pc, at, WEIR_EPLAN, "views nest too deeply (a view refers to itself?)");
    plan_home home;
    plan_view_enter(pc, v, &home);
    int rc = plan_from(pc, sub, out);
    plan_view_leave(pc, &home);
    pc->view_depth--;
    if (rc)
        return rc;
    if (out->updating)
        return plan_error(pc, at, WEIR_EUNSUPPORTED,
                          "view '%s' as a versioned table: the query it deduplicates must be append-only; this one "
                          "is a changelog",
                          vn);
    if (out->rowtime != time_item || (uint32_t)out->rowtime >= out->n_physical)
        return plan_error(pc, oe->loc, WEIR_EUNSUPPORTED,
                          "view '%s' as a versioned table: ORDER BY %s DESC must name the event-time attribute of the "
                          "rows it deduplicates (ordered by anything else, a processing time included, it is not a versioned "
                          "table)",
                          vn, column_name(oe));
    vs->name = vn;
    vs->view = true;
    vs->n_keys = w->n_partition_by;
    for (uint32_t i = 0; i < vs->n_keys; i++)
        vs->keys[i] = out->schema->fields[key_item[i]].name;
    return 0;
}

/*
 * JOIN t FOR SYSTEM_TIME AS OF s.rowtime, where rowtime is the left side's
 * event-time attribute: an event-time temporal join (Flink's). t must be a
 * table with a PRIMARY KEY and a watermark (a versioned table), read as a
 * stream (a changelog keyed by its primary key), or a versioned view.
 * Leaves vs->name NULL when AS OF names something else (a lookup join, or
 * an error there).
 */
static int temporal_side(plan_ctx *pc, const weir_sql_table_ref *ref, weir_join_type type, const rel *left, rel *out,
                         versioned_side *vs)
{
    const weir_sql_table_ref *rt = ref->u.join.right;
    const weir_sql_expr *at = rt->u.table.system_time;
    memset(vs, 0, sizeof *vs);
    int col = at->kind == WEIR_SQL_EXPR_COLUMN ? plan_find_column(pc, left, &at->u.column) : -1;
    if (col < 0 || col != left->rowtime)
        return 0;
    if (type != WEIR_JOIN_INNER && type != WEIR_JOIN_LEFT)
        return plan_error(pc, ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                          "an event-time temporal join (FOR SYSTEM_TIME AS OF) is INNER or LEFT, as in Flink");
    if (left->updating)
        return plan_error(pc, ref->u.join.left->loc, WEIR_EUNSUPPORTED,
                          "the left side of an event-time temporal join must be append-only; this one is a changelog");
    if ((uint32_t)left->rowtime >= left->n_physical)
        return plan_error(pc, at->loc, WEIR_EUNSUPPORTED, "the time attribute of FOR SYSTEM_TIME AS OF must be a column");
    const weir_sql_name *name = &rt->u.table.name;
    cat_view *v = plan_find_view(pc, name);
    if (v)
        return versioned_view_side(pc, rt, v, out, vs);
    cat_table *t = plan_find_table(pc, name);
    if (!t && name->n_parts > 1)
        return plan_missing(pc, name, "table", true);
    if (!t)
        return plan_error(pc, name->loc, WEIR_EUNSUPPORTED,
                          "the versioned table of an event-time temporal join must be a table with a PRIMARY KEY and a "
                          "watermark, or a versioned view; '%s' is not a table",
                          name->parts[name->n_parts - 1].name);
    const weir_sql_primary_key *pk = t->ddl->primary_key;
    if (!pk)
        return plan_error(pc, name->loc, WEIR_EPLAN,
                          "table '%s' has no PRIMARY KEY: the versioned table of an event-time temporal join needs "
                          "one (PRIMARY KEY (...) NOT ENFORCED), its versions are kept per key",
                          t->name);
    if (t->rowtime < 0)
        return plan_error(pc, name->loc, WEIR_EPLAN,
                          "table '%s' has no watermark: the versioned table of an event-time temporal join needs an "
                          "event-time attribute (WATERMARK FOR ...), the time each version is valid from",
                          t->name);
    if (pk->n_columns > WEIR_KEY_MAX_COLS)
        return plan_error(pc, pk->loc, WEIR_EUNSUPPORTED, "a primary key of more than %d columns", WEIR_KEY_MAX_COLS);
    weir_sql_table_ref plain = *rt;
    plain.u.table.system_time = NULL;
    int rc = plan_from(pc, &plain, out);
    if (rc)
        return rc;
    if (out->rowtime < 0 || (uint32_t)out->rowtime >= out->n_physical)
        return plan_error(pc, name->loc, WEIR_EPLAN, "table '%s': its time attribute is not a column here", t->name);
    vs->name = t->name;
    vs->n_keys = pk->n_columns;
    for (uint32_t i = 0; i < pk->n_columns; i++)
        vs->keys[i] = pk->columns[i].name;
    return 0;
}

/*
 * The key pairs of a temporal join: those whose versioned side is a column
 * of its key; every key column must be equated. Other equalities join the
 * residual condition.
 */
static int temporal_keys(plan_ctx *pc, const weir_sql_table_ref *ref, const versioned_side *vs, join_side *sd,
                         int32_t keycol[2][WEIR_KEY_MAX_COLS], weir_type *kt, const weir_sql_expr **keyconj,
                         uint32_t *n_keys, const weir_sql_expr **resid, uint32_t *n_resid, weir_buf *keytext)
{
    bool covered[WEIR_KEY_MAX_COLS] = {0};
    uint32_t n = 0;
    weir_buf_clear(keytext);
    for (uint32_t i = 0; i < *n_keys; i++) {
        int32_t pki = -1;
        if (keycol[1][i] >= 0 && (uint32_t)keycol[1][i] < sd[1].r.n_physical) {
            const char *cn = sd[1].r.schema->fields[keycol[1][i]].name;
            for (uint32_t p = 0; p < vs->n_keys; p++)
                if (!strcasecmp(vs->keys[p], cn))
                    pki = (int32_t)p;
        }
        if ((pki < 0 || covered[pki]) && !keyconj[i])
            return plan_error(pc, ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                              "an event-time temporal join with NATURAL or USING equates '%s', which is not a key "
                              "column of '%s': write the condition with ON",
                              sd[1].r.schema->fields[keycol[1][i]].name, vs->name);
        if (pki < 0 || covered[pki]) {
            resid[(*n_resid)++] = keyconj[i];
            continue;
        }
        covered[pki] = true;
        sd[0].keys[n] = sd[0].keys[i];
        sd[1].keys[n] = sd[1].keys[i];
        keycol[0][n] = keycol[0][i];
        keycol[1][n] = keycol[1][i];
        kt[n] = kt[i];
        weir_buf_printf(keytext, "%s", n ? ", " : "");
        if (keyconj[i])
            weir__sql_format_expr(keyconj[i], keytext);
        else
            weir_buf_printf(keytext, "%s", sd[1].r.schema->fields[keycol[1][i]].name);
        n++;
    }
    for (uint32_t p = 0; p < vs->n_keys; p++)
        if (!covered[p])
            return plan_error(pc, ref->u.join.on ? ref->u.join.on->loc : ref->u.join.op_loc, WEIR_EPLAN,
                              vs->view ? "an event-time temporal join needs an equality on each key column of the "
                                         "versioned view (its PARTITION BY columns); '%s' of view '%s' has none"
                                       : "an event-time temporal join needs an equality on each column of the "
                                         "versioned table's PRIMARY KEY; '%s' of table '%s' has none",
                              vs->keys[p], vs->name);
    *n_keys = n;
    return 0;
}

/* Adds the temporal join operator for plan_join; j is the joined rel (schema and qualifiers set). */
static int plan_temporal_join(plan_ctx *pc, const weir_sql_table_ref *ref, weir_join_type type, const versioned_side *vs,
                              join_side *sd, uint32_t n_keys, const weir_type *kt, const weir_sql_expr **push[2],
                              const uint32_t n_push[2], weir_expr *residual, rel *j, weir_buf *keytext)
{
    int rc = push_filter(pc, &sd[0], push[0], n_push[0]);
    /* The versioned side's key is its primary key, whose every value is a
     * row of its own (-0.0 and 0.0 two): the probe meets it by its bytes,
     * NaN excepted, which meets nothing. */
    for (int s = 0; s < 2 && !rc; s++)
        rc = key_projection(pc, &sd[s], kt, NULL, n_keys, s == 0 ? DKEY_NAN : DKEY_BYTES);
    if (rc)
        return rc;
    uint32_t nl = sd[0].r.n_physical;
    weir_temporal_join_config tc = {.left_outer = type == WEIR_JOIN_LEFT,
                                    .keys = {sd[0].ks, sd[1].ks},
                                    .n_out = {nl, sd[1].r.n_physical},
                                    .time_col = {(uint32_t)sd[0].r.rowtime, (uint32_t)sd[1].r.rowtime},
                                    .residual = residual,
                                    .out_schema = j->schema,
                                    .clock = pc->cenv.clock};
    weir_operator_spec spec;
    if ((rc = weir_temporal_join_spec(&tc, &spec)))
        return rc;
    weir_stream ins[2] = {weir_stream_key_by(sd[0].r.s, sd[0].ks.cols, n_keys),
                          weir_stream_key_by(sd[1].r.s, sd[1].ks.cols, n_keys)};
    if ((rc = weir_job_operator(pc->job, ins, 2, &spec, j->schema, 0, &j->s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, ref->u.join.op_loc, rc, "cannot add the temporal join: %s", weir_job_error(pc->job));
    }
    /* append-only; the probe side's time attribute stays one (rows leave before the watermark passes them) */
    j->updating = false;
    j->rowtime = sd[0].r.rowtime;
    j->schema->rowtime = sd[0].r.rowtime;
    char rbuf[512] = "";
    if (residual)
        weir_expr_format(residual, rbuf, sizeof rbuf);
    weir_buf_printf(&pc->explain, "  TemporalJoin[%d]: %s on %s%s%s, as of %s, versions of %s\n", j->s.node,
                    weir_join_type_name(type), (char *)keytext->data, residual ? " where " : "", rbuf,
                    sd[0].r.schema->fields[sd[0].r.rowtime].name, vs->name);
    return 0;
}

/*
 * A regular join's rows are on the subtask that owns their join key's key
 * group: as output columns, the key of a side never padded with NULLs
 * (INNER: the left, else the right; LEFT: the left; RIGHT: the right), where
 * that side's key is plain columns (a computed key, cast or normalised, is
 * not the column's value). A keyed exchange on them after the join is
 * chained (runtime/plan.c).
 */
static int join_keyed_output(plan_ctx *pc, int node, weir_join_type type, const join_side *sd, uint32_t nl,
                             uint32_t nr, uint32_t n_keys)
{
    for (uint32_t s = 0; s < 2 && n_keys; s++) {
        bool padded = type != WEIR_JOIN_INNER && type != (s == 0 ? WEIR_JOIN_LEFT : WEIR_JOIN_RIGHT);
        weir_keyspec part = {.n = n_keys};
        bool plain = !padded;
        for (uint32_t i = 0; i < n_keys && plain; i++) {
            plain = sd[s].ks.cols[i] < (s ? nr : nl);
            part.cols[i] = (s ? nl : 0) + sd[s].ks.cols[i];
        }
        if (plain)
            return weir__job_keyed_output(pc->job, node, &part, s);
    }
    return 0;
}

static int join_sides(plan_ctx *pc, const weir_sql_table_ref *ref, weir_join_type type, join_side *sd,
                      const versioned_side *versioned, cat_table *lookup, join_conds *where, const semi_in *sq,
                      const join_using *ju, rel *out);

/*
 * A semi or anti join's result: the left input's rows (its columns,
 * qualifiers and scopes: a middle subquery's later conditions read the
 * values carried from the levels around it as before). A regular one has
 * no time attribute (as Flink's regular joins); a window one keeps the
 * left input's window properties, with window_time as its time attribute.
 */
static void semi_output(rel *out, const rel *left, weir_schema *os, bool window)
{
    rel r = *left;
    r.s = out->s;
    r.schema = os;
    r.updating = out->updating;
    r.rowtime = window ? out->rowtime : -1;
    os->rowtime = r.rowtime;
    r.has_proctime = false;
    r.wprops = window ? out->wprops : (rel_wprops){0};
    r.above_wm = false;
    r.win.present = false;
    *out = r;
}

/* pc->scoped_join while plan_scoped_join's join is being made: the join it makes is the scoped one */
static const weir_sql_table_ref scope_next;
#define SCOPE_NEXT (&scope_next)

/* Joins two planned relations without a FROM clause of their own (the
 * semi / anti joins of subqueries, a scalar subquery's join). */
static int synthetic_join(plan_ctx *pc, weir_sql_join_kind kind, weir_join_type type, const rel *left,
                          const rel *right, join_conds *conds, const weir_sql_expr *on, const semi_in *sq,
                          weir_sql_loc loc, rel *out)
{
    weir_sql_table_ref *ref = plan_alloc(pc, sizeof *ref);
    if (!ref)
        return WEIR_ENOMEM;
    memset(ref, 0, sizeof *ref);
    ref->kind = WEIR_SQL_FROM_JOIN;
    ref->loc = loc;
    ref->u.join.kind = kind;
    ref->u.join.op_loc = loc;
    ref->u.join.on = (weir_sql_expr *)on;
    join_side sd[2];
    memset(sd, 0, sizeof sd);
    sd[0].r = *left;
    sd[1].r = *right;
    if (pc->scoped_join == SCOPE_NEXT)
        pc->scoped_join = ref; /* plan_scoped_join's */
    return join_sides(pc, ref, type, sd, NULL, NULL, conds, sq, NULL, out);
}

int plan_semi_join(plan_ctx *pc, bool anti, const rel *left, const rel *right, join_conds *conds,
                   const weir_sql_expr *const *operand, const weir_sql_expr *const *item, uint32_t n, bool not_in,
                   weir_sql_loc loc, rel *out)
{
    semi_in sq = {operand, item, n, not_in};
    return synthetic_join(pc, WEIR_SQL_JOIN_INNER, anti ? WEIR_JOIN_ANTI : WEIR_JOIN_SEMI, left, right, conds,
                          NULL, operand ? &sq : NULL, loc, out);
}

int plan_scalar_join(plan_ctx *pc, const rel *left, const rel *right, const weir_sql_expr *on, weir_sql_loc loc,
                     rel *out)
{
    return synthetic_join(pc, WEIR_SQL_JOIN_LEFT, WEIR_JOIN_LEFT, left, right, NULL, on, NULL, loc, out);
}

int plan_scoped_join(plan_ctx *pc, const rel *left, const rel *right, const weir_sql_expr *on, weir_sql_loc loc,
                     rel *out)
{
    return plan_scoped_join_kind(pc, false, left, right, on, loc, out);
}

int plan_scoped_join_kind(plan_ctx *pc, bool left_join, const rel *left, const rel *right, const weir_sql_expr *on,
                          weir_sql_loc loc, rel *out)
{
    const weir_sql_table_ref *saved = pc->scoped_join;
    pc->scoped_join = SCOPE_NEXT;
    int rc = synthetic_join(pc, left_join ? WEIR_SQL_JOIN_LEFT : WEIR_SQL_JOIN_INNER,
                            left_join ? WEIR_JOIN_LEFT : WEIR_JOIN_INNER, left, right, NULL, on, NULL, loc, out);
    pc->scoped_join = saved;
    return rc;
}

/* The visible column of r named name (a common column's hidden copies and scalar subquery values aside): its
 * index, -1 when r has none, -2 when it has several. */
static int using_find(const rel *r, const char *name)
{
    int found = -1;
    for (uint32_t c = 0; c < r->n_physical; c++) {
        const char *cn = r->schema->fields[c].name;
        if (plan_col_hidden(r, c) || plan_is_scalar_column(cn) || strcasecmp(cn, name))
            continue;
        if (found >= 0)
            return -2;
        found = (int)c;
    }
    return found;
}

static int using_pair(plan_ctx *pc, const rel *left, const rel *right, const char *name, weir_sql_loc loc,
                      const char *what, join_using *ju)
{
    int c[2] = {using_find(left, name), using_find(right, name)};
    for (int s = 0; s < 2; s++) {
        if (c[s] == -1)
            return plan_error(pc, loc, WEIR_EPLAN, "column '%s' of %s is not a column of the %s input", name, what,
                              s ? "right" : "left");
        if (c[s] == -2)
            return plan_error(pc, loc, WEIR_EPLAN, "column '%s' of %s is not unique in the %s input", name, what,
                              s ? "right" : "left");
    }
    for (uint32_t i = 0; i < ju->n; i++)
        if (ju->l[i] == (uint32_t)c[0])
            return plan_error(pc, loc, WEIR_EPLAN, "column '%s' appears twice in %s", name, what);
    if (ju->n == WEIR_KEY_MAX_COLS)
        return plan_error(pc, loc, WEIR_EUNSUPPORTED, "%s of more than %d columns", what, WEIR_KEY_MAX_COLS);
    ju->l[ju->n] = (uint32_t)c[0];
    ju->r[ju->n] = (uint32_t)c[1];
    ju->n++;
    return 0;
}

/*
 * The common columns of a NATURAL join (every visible column name of both
 * inputs, in the left input's order; none: a cross join) or a USING join
 * (those listed, in their order). Each name must be one column of each
 * input, as in Flink.
 */
static int using_columns(plan_ctx *pc, const weir_sql_table_ref *ref, const rel *left, const rel *right,
                         join_using *ju)
{
    int rc;
    for (uint32_t i = 0; i < ref->u.join.n_using; i++)
        if ((rc = using_pair(pc, left, right, ref->u.join.using_[i].name, ref->u.join.using_[i].loc, "USING", ju)))
            return rc;
    if (!ref->u.join.natural)
        return 0;
    for (uint32_t c = 0; c < left->n_physical; c++) {
        const char *cn = left->schema->fields[c].name;
        if (plan_col_hidden(left, c) || plan_is_scalar_column(cn) || using_find(right, cn) == -1)
            continue;
        bool seen = false; /* a name the left input has twice: reported once, by using_pair */
        for (uint32_t i = 0; i < ju->n && !seen; i++)
            seen = !strcasecmp(left->schema->fields[ju->l[i]].name, cn);
        if (!seen && (rc = using_pair(pc, left, right, cn, ref->u.join.op_loc, "NATURAL JOIN", ju)))
            return rc;
    }
    return 0;
}

/*
 * The result of a NATURAL / USING join j (left columns, nl of them, then
 * right columns): each common column first, unqualified, then every column
 * of both inputs, their copies of the common columns hidden (found only
 * when qualified, l.c, and not part of `*`), as Flink's SQL validator
 * expands the join. The common column is COALESCE(l.c, r.c) in the type
 * both are compared in: l.c in an inner or LEFT join (a right row that
 * matches has r.c = l.c), r.c in a RIGHT join, the COALESCE in a FULL join.
 */
static int using_output(plan_ctx *pc, weir_join_type type, const join_using *ju, uint32_t nl, rel *j, rel *out)
{
    if (!ju->n) {
        *out = *j; /* a NATURAL join without common columns: a cross join */
        return 0;
    }
    uint32_t m = ju->n, nb = j->n_physical, n = m + nb;
    weir_expr **exprs = plan_alloc(pc, (n + 1) * sizeof *exprs);
    const char **names = plan_alloc(pc, (n + 1) * sizeof *names);
    char **quals = plan_alloc(pc, (n + 1) * sizeof *quals);
    bool *hidden = plan_alloc(pc, n * sizeof *hidden);
    if (!exprs || !names || !quals || !hidden)
        return WEIR_ENOMEM;
    weir_error err = {0};
    for (uint32_t i = 0; i < m; i++) {
        const weir_field *f[2] = {&j->schema->fields[ju->l[i]], &j->schema->fields[nl + ju->r[i]]};
        uint32_t col[2] = {ju->l[i], nl + ju->r[i]};
        weir_type ct;
        weir_expr *e[2];
        if (!common_type(f[0]->type, f[1]->type, &ct))
            return WEIR_EPLAN; /* the join compared them already */
        for (int s = 0; s < 2; s++) {
            weir_type t = f[s]->type;
            if (weir_expr_column(pc->arena, col[s], t, &e[s], &err) ||
                ((t.id != ct.id || t.precision != ct.precision || t.scale != ct.scale) &&
                 weir_expr_cast(pc->arena, e[s], ct, false, &e[s], &err)))
                return plan_error(pc, j->loc, WEIR_EPLAN, "common column '%s': %s", f[0]->name, err.message);
        }
        if (type == WEIR_JOIN_FULL) {
            if (weir_expr_call(pc->arena, "COALESCE", e, 2, &exprs[i], &err))
                return plan_error(pc, j->loc, WEIR_EPLAN, "common column '%s': %s", f[0]->name, err.message);
        } else {
            exprs[i] = e[type == WEIR_JOIN_RIGHT];
        }
        names[i] = f[0]->name;
        quals[i] = NULL;
        hidden[i] = false;
    }
    for (uint32_t c = 0; c < nb; c++) {
        if (weir_expr_column(pc->arena, c, j->schema->fields[c].type, &exprs[m + c], &err))
            return WEIR_ENOMEM;
        names[m + c] = j->schema->fields[c].name;
        quals[m + c] = j->quals ? j->quals[c] : NULL;
        hidden[m + c] = plan_col_hidden(j, c);
    }
    for (uint32_t i = 0; i < m; i++)
        hidden[m + ju->l[i]] = hidden[m + nl + ju->r[i]] = true;
    rel o;
    int rc = plan_calc(pc, j, NULL, exprs, names, n, &o, "Calc");
    if (rc)
        return rc;
    o.quals = quals;
    o.hidden = hidden;
    o.n_hidden = n;
    o.loc = j->loc;
    *out = o;
    return 0;
}

int plan_join(plan_ctx *pc, const weir_sql_table_ref *ref, join_conds *where, rel *out)
{
    if (ref->u.join.right->kind == WEIR_SQL_FROM_UNNEST)
        return plan_unnest_join(pc, ref, ref->u.join.kind == WEIR_SQL_JOIN_LEFT ? NULL : where, out);
    const weir_sql_table_ref *fr = ref->u.join.right;
    if (fr->kind == WEIR_SQL_FROM_FUNCTION) {
        const weir_sql_name *fname = &fr->u.function.call->u.call.name;
        weir_udtf fn;
        weir_sql_join_kind jk = ref->u.join.kind;
        const weir_sql_expr *jon = ref->u.join.on;
        bool on_true = jon && jon->kind == WEIR_SQL_EXPR_LITERAL && jon->u.lit.kind == WEIR_SQL_LIT_BOOLEAN &&
                       jon->u.lit.boolean;
        /* without LATERAL the function reads nothing of the left: a join that is no correlate's (RIGHT,
         * FULL, USING, LEFT ... ON cond) joins its rows as a table's (plan_udtf_alone) */
        bool as_table = !fr->u.function.lateral &&
                        (jk == WEIR_SQL_JOIN_RIGHT || jk == WEIR_SQL_JOIN_FULL || ref->u.join.natural ||
                         ref->u.join.n_using || (jk == WEIR_SQL_JOIN_LEFT && !on_true));
        if ((fr->u.function.lateral || !weir_expr_udtf_lookup(fname->parts[fname->n_parts - 1].name, &fn)) &&
            !as_table)
            return plan_udtf_join(pc, ref, where, out);
    }
    weir_sql_join_kind k = ref->u.join.kind;
    bool common = ref->u.join.natural || ref->u.join.n_using;
    weir_join_type type = k == WEIR_SQL_JOIN_LEFT ? WEIR_JOIN_LEFT
                          : k == WEIR_SQL_JOIN_RIGHT ? WEIR_JOIN_RIGHT
                          : k == WEIR_SQL_JOIN_FULL ? WEIR_JOIN_FULL
                                                    : WEIR_JOIN_INNER;
    bool comma = k == WEIR_SQL_JOIN_COMMA || k == WEIR_SQL_JOIN_CROSS;
    /* WHERE conjuncts are join conditions of inner joins only: an outer join's WHERE filters its result. */
    if (type != WEIR_JOIN_INNER)
        where = NULL;
    join_side sd[2];
    memset(sd, 0, sizeof sd);
    int rc;
    /* JOIN t FOR SYSTEM_TIME AS OF s.proc: a lookup join; t is read whole, not as a stream */
    const weir_sql_table_ref *rt = ref->u.join.right;
    cat_table *lookup = NULL;
    if ((rc = plan_input(pc, ref->u.join.left, where, &sd[0].r)))
        return rc;
    bool top1 = false;
    if ((rc = plan_window_top1_join(pc, ref, !where || where->n == 0, &sd[0].r, out, &top1)) || top1)
        return rc;
    /* only the columns read above the join go into its state (prune.c) */
    if ((rc = plan_projection_join_input(pc, ref, &sd[0].r)))
        return rc;
    /* LATERAL (SELECT ... WHERE x = t.a): decorrelated into a join of its own (lateral.c); one that reads
     * nothing of the left input is an ordinary subquery, its FROM planned there already */
    const weir_sql_table_ref *pre_ref = NULL;
    rel pre;
    if (rt->kind == WEIR_SQL_FROM_SUBQUERY && rt->u.subquery.lateral) {
        bool done = false;
        if ((rc = plan_lateral_join(pc, ref, &sd[0].r, out, &done, &pre_ref, &pre)) || done)
            return rc;
    }
    versioned_side vs = {0};
    if (rt->kind == WEIR_SQL_FROM_TABLE && rt->u.table.system_time &&
        (rc = temporal_side(pc, ref, type, &sd[0].r, &sd[1].r, &vs)))
        return rc;
    const versioned_side *versioned = vs.name ? &vs : NULL;
    if (versioned) {
        /* an event-time temporal join: the versioned table is a stream, planned as one */
    } else if (rt->kind == WEIR_SQL_FROM_TABLE && rt->u.table.system_time) {
        if ((rc = lookup_side(pc, ref, type, &sd[0].r, &sd[1].r, &lookup)))
            return rc;
    } else {
        const weir_sql_table_ref *saved_ref = pc->preplanned_ref;
        rel saved = pc->preplanned;
        if (pre_ref) {
            pc->preplanned_ref = pre_ref;
            pc->preplanned = pre;
        }
        rc = plan_input(pc, rt, where, &sd[1].r);
        pc->preplanned_ref = saved_ref;
        pc->preplanned = saved;
        if (rc || (rc = plan_projection_join_input(pc, ref, &sd[1].r)))
            return rc;
    }
    (void)comma;
    /* an outer join's ON conjuncts with subqueries that read the side it pads: filters of that side */
    if ((type == WEIR_JOIN_LEFT || type == WEIR_JOIN_RIGHT) && !versioned && !lookup &&
        (rc = plan_outer_on_subqueries(pc, ref, &sd[0].r, &sd[1].r, type == WEIR_JOIN_LEFT, &ref)))
        return rc;
    if (!common)
        return join_sides(pc, ref, type, sd, versioned, lookup, where, NULL, NULL, out);
    /* NATURAL / USING: the key pairs are the common columns (window columns of a table function included) */
    for (int s = 0; s < 2; s++)
        if (sd[s].r.win.present && (rc = plan_window_assign(pc, &sd[s].r, "a join")))
            return rc;
    join_using ju = {0};
    rel j;
    uint32_t nl = sd[0].r.n_physical;
    if ((rc = using_columns(pc, ref, &sd[0].r, &sd[1].r, &ju)) ||
        (rc = join_sides(pc, ref, type, sd, versioned, lookup, where, NULL, &ju, &j)))
        return rc;
    return using_output(pc, type, &ju, nl, &j, out);
}

/*
 * The join of two planned inputs sd[0] and sd[1] (plan_join, and the semi
 * and anti joins of IN / EXISTS subqueries, plan_semi_join): conditions
 * from ref's ON and the WHERE conjuncts in `where`; sq: the IN pair of a
 * semi or anti join, or NULL.
 */
static int join_sides(plan_ctx *pc, const weir_sql_table_ref *ref, weir_join_type type, join_side *sd,
                      const versioned_side *versioned, cat_table *lookup, join_conds *where, const semi_in *sq,
                      const join_using *ju, rel *out)
{
    const weir_sql_expr *on = ref->u.join.on;
    bool semi = type == WEIR_JOIN_SEMI || type == WEIR_JOIN_ANTI;
    int rc;
    /* A window table function joined as a table: its rows, one per window (a window join's input). */
    for (int s = 0; s < 2; s++)
        if (sd[s].r.win.present && (rc = plan_window_assign(pc, &sd[s].r, "a join")))
            return rc;
    uint32_t nl = sd[0].r.n_physical, nr = sd[1].r.n_physical;
    /* The joined rel: left columns then right columns; padded sides are nullable. */
    /* A semi or anti join's conditions are a subquery's: its columns shadow the enclosing query's. */
    rel j;
    if ((rc = plan_pair_rel(pc, &sd[0].r, &sd[1].r, type == WEIR_JOIN_RIGHT || type == WEIR_JOIN_FULL,
                            type == WEIR_JOIN_LEFT || type == WEIR_JOIN_FULL, semi || ref == pc->scoped_join, &j)))
        return rc;
    j.loc = ref->loc;
    weir_schema *os = j.schema;
    /* A semi or anti join's output: the left row alone. */
    weir_schema *semi_os = NULL;
    if (semi) {
        if (!(semi_os = plan_new_schema(pc)))
            return WEIR_ENOMEM;
        for (uint32_t c = 0; c < nl; c++)
            if (weir_schema_add(semi_os, os->fields[c].name, os->fields[c].type) < 0)
                return WEIR_ENOMEM;
    }
    /* conjuncts of ON, and the WHERE conjuncts this inner join can evaluate */
    uint32_t cap = (on ? plan_count_and(on) : 0) + (where ? where->n : 0) + 1;
    const weir_sql_expr **conj = plan_alloc(pc, cap * sizeof *conj);
    uint32_t n_conj = 0;
    if (!conj)
        return WEIR_ENOMEM;
    if (on)
        plan_split_and(on, conj, &n_conj, cap);
    if (where) {
        for (uint32_t i = 0; i < where->n; i++) {
            /* a subquery's conditions are all the semi join's (one naming no known column fails binding) */
            if (where->used[i] || (!semi && (side_mask(&j, nl, where->c[i]) & SIDE_OTHER)))
                continue;
            where->used[i] = true;
            conj[n_conj++] = where->c[i];
        }
    }
    uint32_t n_keys = 0;
    for (int s = 0; s < 2; s++) {
        /* + IN's pairs, USING's, and one for a join without a key */
        sd[s].keys = plan_alloc(pc, (n_conj + (sq ? sq->n : 0) + (ju ? ju->n : 0) + 1) * sizeof *sd[s].keys);
        if (!sd[s].keys)
            return WEIR_ENOMEM;
    }
    weir_type kt[WEIR_KEY_MAX_COLS];
    int32_t keycol[2][WEIR_KEY_MAX_COLS]; /* per key pair: the plain column of each side, or -1 */
    const weir_sql_expr **resid = plan_alloc(pc, (n_conj + 2) * sizeof *resid);
    const weir_sql_expr **push[2] = {plan_alloc(pc, (n_conj + 1) * sizeof *resid),
                                     plan_alloc(pc, (n_conj + 1) * sizeof *resid)};
    if (!resid || !push[0] || !push[1])
        return WEIR_ENOMEM;
    uint32_t n_resid = 0, n_push[2] = {0, 0};
    /* A side that is not preserved (not outer) can be filtered before the join. */
    /* (An anti join's left rows are kept too: a condition on them alone decides whether they have a match.) */
    bool keeps[2] = {type == WEIR_JOIN_LEFT || type == WEIR_JOIN_FULL || type == WEIR_JOIN_ANTI,
                     type == WEIR_JOIN_RIGHT || type == WEIR_JOIN_FULL};
    /* A condition on the versioned table alone is checked on the version valid at the row's time, not before. */
    if (versioned)
        keeps[1] = true;
    const weir_sql_expr *keyconj[WEIR_KEY_MAX_COLS];
    bool null_safe[WEIR_KEY_MAX_COLS] = {0};
    bool null_safe_resid = false; /* an IS NOT DISTINCT FROM pair decided in the residual (key_holds) */
    weir_buf keytext;
    weir_buf_init(&keytext);
    weir_expr *null_aware = NULL;
    if (sq && (rc = semi_in_key(pc, sq, sd, &j, kt, keycol, keyconj, &n_keys, &null_aware, &keytext))) {
        weir_buf_fini(&keytext);
        return rc;
    }
    if (ju && (rc = using_keys(pc, ju, sd, kt, keycol, keyconj, &n_keys, ref->u.join.op_loc, &keytext))) {
        weir_buf_fini(&keytext);
        return rc;
    }
    for (uint32_t i = 0; i < n_conj; i++) {
        const weir_sql_expr *e = conj[i];
        /* a = b, or a IS NOT DISTINCT FROM b (a key under which NULL meets NULL) */
        const weir_sql_expr *ka = NULL, *kb = NULL;
        bool nsafe = false;
        if (e->kind == WEIR_SQL_EXPR_BINARY && e->u.binary.op == WEIR_SQL_OP_EQ)
            ka = e->u.binary.left, kb = e->u.binary.right;
        else if (e->kind == WEIR_SQL_EXPR_IS && e->u.is.test == WEIR_SQL_IS_DISTINCT_FROM && e->u.is.negated)
            ka = e->u.is.operand, kb = e->u.is.other, nsafe = true;
        if (ka && n_keys < WEIR_KEY_MAX_COLS) {
            int ml = side_mask(&j, nl, ka), mr = side_mask(&j, nl, kb);
            const weir_sql_expr *le = NULL, *re = NULL;
            if (ml == SIDE_L && mr == SIDE_R)
                le = ka, re = kb;
            else if (ml == SIDE_R && mr == SIDE_L)
                le = kb, re = ka;
            if (le) {
                weir_expr *bl, *br;
                if ((rc = plan_bind_expr(pc, &sd[0].r, NULL, le, &bl)) ||
                    (rc = plan_bind_expr(pc, &sd[1].r, NULL, re, &br))) {
                    weir_buf_fini(&keytext);
                    return rc;
                }
                char a[64], b[64];
                if (!common_type(weir_expr_type(bl), weir_expr_type(br), &kt[n_keys])) {
                    weir_buf_fini(&keytext);
                    return plan_error(pc, nsafe ? e->loc : e->u.binary.op_loc, WEIR_EPLAN,
                                      "cannot join on a %s and a %s: add a CAST to one side",
                                      weir_type_format(weir_expr_type(bl), a, sizeof a),
                                      weir_type_format(weir_expr_type(br), b, sizeof b));
                }
                if (nsafe && (!key_holds(kt[n_keys], weir_expr_type(bl)) || !key_holds(kt[n_keys], weir_expr_type(br)))) {
                    /* a key too long for the type is NULL, and would meet a NULL: decided exactly in the residual */
                    resid[n_resid++] = e;
                    null_safe_resid = true;
                    continue;
                }
                if (lookup && !lookup_key_exact(weir_expr_type(bl), weir_expr_type(br)))
                    resid[n_resid++] = e; /* still the key that finds the table's rows */
                else if (nsafe && kt[n_keys].id == WEIR_TYPE_DOUBLE)
                    resid[n_resid++] = e; /* NaN keeps its key but meets nothing (double_key) */
                sd[0].keys[n_keys] = bl;
                sd[1].keys[n_keys] = br;
                keycol[0][n_keys] = weir_expr_column_index(bl);
                keycol[1][n_keys] = weir_expr_column_index(br);
                keyconj[n_keys] = e;
                null_safe[n_keys] = nsafe;
                weir_buf_printf(&keytext, "%s", n_keys ? ", " : "");
                weir__sql_format_expr(e, &keytext);
                n_keys++;
                continue;
            }
        }
        int m = side_mask(&j, nl, e);
        if ((m == SIDE_L || m == SIDE_R) && !keeps[m == SIDE_R]) {
            int s = m == SIDE_R;
            push[s][n_push[s]++] = e;
            continue;
        }
        resid[n_resid++] = e;
    }
    if (null_safe_resid && (lookup || versioned)) { /* as for a key IS NOT DISTINCT FROM (below), whatever its types */
        weir_buf_fini(&keytext);
        return plan_error(pc, cond_loc(ref, on), WEIR_EUNSUPPORTED,
                          "IS NOT DISTINCT FROM as the key of a %s join is not supported yet; write '='",
                          lookup ? "lookup" : "temporal");
    }
    if (versioned && (rc = temporal_keys(pc, ref, versioned, sd, keycol, kt, keyconj, &n_keys, resid, &n_resid,
                                         &keytext))) {
        weir_buf_fini(&keytext);
        return rc;
    }
    weir_buf_put_u8(&keytext, 0);
    bool no_key = n_keys == 0;
    if (no_key && lookup) {
        weir_buf_fini(&keytext);
        return plan_error(pc, cond_loc(ref, on), WEIR_EPLAN,
                          "a lookup join needs at least one equality between a column of each side (ON a.k = b.k)");
    }
    if (no_key) {
        /*
         * A join without an equality (a residual-only join, or CROSS JOIN):
         * as in Flink, every row of one side meets every row of the other,
         * so both go to one subtask under one constant key, and the residual
         * (time bounds included: an interval join) decides.
         */
        weir_expr *k0 = weir_expr_lit_bigint(pc->arena, 0), *k1 = weir_expr_lit_bigint(pc->arena, 0);
        if (!k0 || !k1) {
            weir_buf_fini(&keytext);
            return WEIR_ENOMEM;
        }
        sd[0].keys[0] = k0;
        sd[1].keys[0] = k1;
        keycol[0][0] = keycol[1][0] = -1;
        kt[0] = weir_type_make(WEIR_TYPE_BIGINT, false);
        n_keys = 1;
        weir_buf_clear(&keytext);
        weir_buf_printf(&keytext, "no key (one subtask)");
    }
    /* residual, bound over the joined row */
    weir_expr *residual = null_aware;
    for (uint32_t i = 0; i < n_resid; i++) {
        weir_expr *x;
        if ((rc = plan_bind_expr(pc, &j, NULL, resid[i], &x))) {
            weir_buf_fini(&keytext);
            return rc;
        }
        weir_type t = weir_expr_type(x);
        if (t.id != WEIR_TYPE_BOOLEAN && t.id != WEIR_TYPE_NULL) {
            weir_buf_fini(&keytext);
            return plan_error(pc, resid[i]->loc, WEIR_EPLAN, "a join condition must be BOOLEAN, not %s",
                              weir_type_name(t.id));
        }
        if (residual) {
            weir_expr *a[2] = {residual, x};
            weir_error err = {0};
            if ((rc = weir_expr_call(pc->arena, "AND", a, 2, &x, &err))) {
                weir_buf_fini(&keytext);
                return rc;
            }
        }
        residual = x;
    }
    bool any_null_safe = null_safe_resid; /* refused as a key would be, whatever its types */
    for (uint32_t i = 0; i < n_keys; i++)
        any_null_safe |= null_safe[i];
    if (any_null_safe && (lookup || versioned)) {
        weir_buf_fini(&keytext);
        return plan_error(pc, cond_loc(ref, on), WEIR_EUNSUPPORTED,
                          "IS NOT DISTINCT FROM as the key of a %s join is not supported yet; write '='",
                          lookup ? "lookup" : "temporal");
    }
    if (lookup) {
        rc = plan_lookup_join(pc, ref, type, lookup, sd, keycol, kt, n_keys, push, n_push, residual, &j, &keytext);
        weir_buf_fini(&keytext);
        if (!rc)
            *out = j;
        return rc;
    }
    if (versioned) {
        rc = plan_temporal_join(pc, ref, type, versioned, sd, n_keys, kt, push, n_push, residual, &j, &keytext);
        weir_buf_fini(&keytext);
        if (!rc)
            *out = j;
        return rc;
    }
    bool window = false;
    if ((rc = window_join_check(pc, ref, sd, keycol, n_keys, &window))) {
        weir_buf_fini(&keytext);
        return rc;
    }
    for (int s = 0; s < 2 && !rc; s++)
        rc = push_filter(pc, &sd[s], push[s], n_push[s]);
    for (int s = 0; s < 2 && !rc; s++)
        rc = key_projection(pc, &sd[s], kt, null_safe, n_keys, DKEY_EQ);
    if (rc) {
        weir_buf_fini(&keytext);
        return rc;
    }
    /*
     * A join of two append-only inputs with time attributes whose
     * condition bounds one time by the other on both sides is an interval
     * join: its rows are dropped as the watermark passes their bounds, and
     * an outer one pads a row only when it expires unmatched, so the result
     * is append-only. The bounds stay in the residual, which decides the
     * matches. (A bound pushed below the join as a one-side filter cannot
     * be one: it names both sides.)
     */
    if (window && any_null_safe) {
        weir_buf_fini(&keytext);
        return plan_error(pc, cond_loc(ref, on), WEIR_EUNSUPPORTED,
                          "IS NOT DISTINCT FROM as the key of a window join is not supported yet; write '='");
    }
    if (window) {
        rc = plan_window_join(pc, ref, type, sd, n_keys, residual, &j, &keytext, semi_os);
        if (!rc)
            rc = describe_double_keys(pc, j.s, kt, n_keys);
        weir_buf_fini(&keytext);
        if (!rc)
            *out = j;
        if (!rc && semi)
            semi_output(out, &sd[0].r, semi_os, true);
        return rc;
    }
    time_bounds tb = {.lt = sd[0].r.rowtime, .rt = (int)nl + sd[1].r.rowtime};
    bool interval = false;
    if (!semi && !sd[0].r.updating && !sd[1].r.updating && sd[0].r.rowtime >= 0 &&
        sd[1].r.rowtime >= 0 && (uint32_t)sd[0].r.rowtime < nl && (uint32_t)sd[1].r.rowtime < nr) {
        for (uint32_t i = 0; i < n_resid; i++)
            time_bound(&tb, &j, resid[i]);
        interval = tb.have_lo && tb.have_hi && tb.lo <= tb.hi;
    }
    /*
     * An inner regular join of append-only inputs where one side's rows
     * all come with a time above its watermark (a window aggregation's
     * window_end) and the condition caps that time from a column of the
     * other side: a row of the other side is dropped once the watermark
     * passes its cap (q7: a bid against the maximum of its 10 s window).
     * Nothing is late, so the result is the regular join's.
     */
    /* Timers per key at most once a second: a key of many rows is scanned once per second, not per row. */
    enum { BOUND_STEP_MS = 1000 };
    bool bounded[2] = {false, false};
    uint32_t bound_col[2] = {0, 0};
    int64_t bound_off[2] = {0, 0};
    if (!interval && type == WEIR_JOIN_INNER && !sd[0].r.updating && !sd[1].r.updating) {
        uint32_t nside[2] = {nl, nr};
        for (int s = 0; s < 2; s++) {
            const rel *o = &sd[1 - s].r;
            if (!o->above_wm || o->above_node != o->s.node || o->above_col >= nside[1 - s])
                continue;
            weir_type_id tid = o->schema->fields[o->above_col].type.id;
            for (uint32_t col = 0; col < nside[s] && !bounded[s]; col++) {
                if (sd[s].r.schema->fields[col].type.id != tid)
                    continue;
                /* d = left.time - right.time; left row: right <= left - lo; right row: left <= right + hi */
                time_bounds cb = {.lt = s == 0 ? (int)col : (int)o->above_col,
                                  .rt = (int)nl + (s == 0 ? (int)o->above_col : (int)col)};
                for (uint32_t i = 0; i < n_resid; i++)
                    time_bound(&cb, &j, resid[i]);
                if (s == 0 ? cb.have_lo : cb.have_hi) {
                    bounded[s] = true;
                    bound_col[s] = col;
                    bound_off[s] = s == 0 ? -cb.lo : cb.hi;
                }
            }
        }
    }
    int64_t ttl = 0;
    const char *v = plan_config(pc, "table.exec.state.ttl");
    if (v && weir_option_parse_duration(v, &ttl)) {
        weir_buf_fini(&keytext);
        return plan_error(pc, plan_config_at(pc, "table.exec.state.ttl", ref->loc), WEIR_EINVAL, "table.exec.state.ttl: invalid duration '%s'", v);
    }
    /* a STATE_TTL hint naming an input gives its rows their own TTL */
    int64_t ttl_in[2] = {ttl, ttl};
    if ((rc = plan_hint_state_ttl(pc, ref->u.join.left, &ttl_in[0])) ||
        (rc = plan_hint_state_ttl(pc, ref->u.join.right, &ttl_in[1]))) {
        weir_buf_fini(&keytext);
        return rc;
    }
    weir_join_config jc = {.type = type,
                           .keys = {sd[0].ks, sd[1].ks},
                           .n_out = {nl, nr},
                           .residual = residual,
                           .out_schema = semi ? semi_os : os,
                           .cand_schema = semi ? os : NULL,
                           .state_ttl_ms = ttl_in[0],
                           .right_ttl = ttl_in[1] != ttl_in[0],
                           .right_state_ttl_ms = ttl_in[1],
                           .clock = pc->cenv.clock,
                           .interval = interval,
                           .time_col = {interval ? (uint32_t)sd[0].r.rowtime : 0,
                                        interval ? (uint32_t)sd[1].r.rowtime : 0},
                           .lo_ms = tb.lo,
                           .hi_ms = tb.hi,
                           .bounded = {bounded[0], bounded[1]},
                           .bound_col = {bound_col[0], bound_col[1]},
                           .bound_off = {bound_off[0], bound_off[1]},
                           .bound_step_ms = BOUND_STEP_MS,
                           .insert_only = {!sd[0].r.updating, !sd[1].r.updating}};
    for (uint32_t i = 0; i < n_keys; i++)
        jc.null_safe[i] = null_safe[i];
    weir_operator_spec spec;
    if ((rc = weir_join_spec(&jc, &spec))) {
        weir_buf_fini(&keytext);
        return rc;
    }
    weir_stream ins[2] = {weir_stream_key_by(sd[0].r.s, sd[0].ks.cols, n_keys),
                          weir_stream_key_by(sd[1].r.s, sd[1].ks.cols, n_keys)};
    if ((rc = weir_job_operator(pc->job, ins, 2, &spec, semi ? semi_os : os, 0, &j.s))) {
        spec.free_arg(spec.arg);
        weir_buf_fini(&keytext);
        return plan_error(pc, ref->u.join.op_loc, rc, "cannot add the join: %s", weir_job_error(pc->job));
    }
    if ((rc = weir__describe_row_format(pc->job, j.s)) || (rc = weir__describe_join(pc->job, j.s, &jc)) ||
        (rc = describe_double_keys(pc, j.s, kt, n_keys)) ||
        (rc = join_keyed_output(pc, j.s.node, type, sd, nl, nr, no_key ? 0 : n_keys))) {
        weir_buf_fini(&keytext);
        return rc;
    }
    /* SEMI forwards the kinds of both inputs' rows (append-only inputs: +I only); ANTI retracts. */
    j.updating = !interval && ((type != WEIR_JOIN_INNER && type != WEIR_JOIN_SEMI) || sd[0].r.updating ||
                               sd[1].r.updating);
    if (interval && type == WEIR_JOIN_INNER) {
        /*
         * Both times stay time attributes, as in Flink: rows carry the left
         * one, the right one is a second attribute (a window over it
         * re-stamps the rows); the operator holds the watermark back for both.
         */
        j.rowtime = sd[0].r.rowtime;
        os->rowtime = sd[0].r.rowtime;
        if ((rc = plan_alt_time_add(pc, j.s.node, nl + (uint32_t)sd[1].r.rowtime))) {
            weir_buf_fini(&keytext);
            return rc;
        }
    }
    char rbuf[512] = "";
    if (residual)
        weir_expr_format(residual, rbuf, sizeof rbuf);
    char ibuf[256] = "";
    if (interval)
        snprintf(ibuf, sizeof ibuf, " (interval: left time - right time in [%lld, %lld] ms)", (long long)tb.lo,
                 (long long)tb.hi);
    for (int s = 0; s < 2; s++)
        if (bounded[s]) {
            size_t l = strlen(ibuf);
            snprintf(ibuf + l, sizeof ibuf - l, " (%s rows dropped at W >= %s %+lld ms)", s ? "right" : "left",
                     sd[s].r.schema->fields[bound_col[s]].name, (long long)bound_off[s]);
        }
    bool log[2] = {weir_join_row_log(&jc, 0), weir_join_row_log(&jc, 1)};
    if (log[0] || log[1]) {
        size_t l = strlen(ibuf);
        snprintf(ibuf + l, sizeof ibuf - l, " (row log: %s%s%s)", log[0] ? "left" : "", log[0] && log[1] ? ", " : "",
                 log[1] ? "right" : "");
    }
    weir_buf_printf(&pc->explain, "  %s[%d]: %s on %s%s%s%s%s\n", interval ? "IntervalJoin" : "Join", j.s.node,
                    weir_join_type_name(type), (char *)keytext.data, residual ? " where " : "", rbuf, ibuf,
                    j.updating ? " (changelog)" : "");
    weir_buf_fini(&keytext);
    *out = j;
    if (semi)
        semi_output(out, &sd[0].r, semi_os, false);
    /* each input hashed by its join key (a join without one: all on one subtask) */
    weir_keyspec hash[2] = {sd[0].ks, sd[1].ks};
    plan_ukey_join(&sd[0].r, &sd[1].r, hash, no_key, semi, type == WEIR_JOIN_RIGHT || type == WEIR_JOIN_FULL,
                   type == WEIR_JOIN_LEFT || type == WEIR_JOIN_FULL, out);
    return 0;
}
