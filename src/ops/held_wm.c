/*
 * ops/held_wm.c - the watermarks an operator keeps across a restore (see
 * held_wm.h).
 */
#include "ops/held_wm.h"

#include "weir/common.h"

void weir__held_wm_init(weir__held_wm *h, uint32_t n_inputs)
{
    *h = (weir__held_wm){.n_inputs = n_inputs};
}

weir_ts weir__held_wm_input(const weir__held_wm *h, weir_op_ctx *ctx, int input)
{
    weir_ts wm = h->n_inputs == 1 ? weir_op_watermark(ctx) : weir_op_input_watermark(ctx, input);
    if (h->restored && input >= 0 && (uint32_t)input < h->n_inputs && h->wm[input] > wm)
        return h->wm[input];
    return wm;
}

int weir__held_wm_snapshot(const weir__held_wm *h, weir_op_ctx *ctx, weir_buf *out)
{
    int rc = weir_buf_put_u8(out, 1);
    for (uint32_t i = 0; i < h->n_inputs && !rc; i++) {
        weir_ts wm = weir__held_wm_input(h, ctx, (int)i);
        /* an input that ended is where the operator is (held_wm.h) */
        rc = weir_buf_put_i64(out, wm == WEIR_TS_MAX ? weir_op_watermark(ctx) : wm);
    }
    return rc;
}

int weir__held_wm_restore(weir__held_wm *h, weir_op_ctx *ctx, weir_cursor *in, const char *what)
{
    uint8_t ver = 0;
    weir_ts wm[WEIR__HELD_WM_MAX_INPUTS];
    int rc = weir_cursor_get_u8(in, &ver);
    if (!rc && ver != 1)
        rc = WEIR_ECORRUPT;
    for (uint32_t i = 0; i < h->n_inputs && !rc; i++)
        rc = weir_cursor_get_i64(in, &wm[i]);
    if (rc)
        return weir_op_fail(ctx, rc, "%s: cannot read its operator state: %s", what, weir_strerror(rc));
    for (uint32_t i = 0; i < h->n_inputs; i++)
        if (!h->restored || wm[i] < h->wm[i])
            h->wm[i] = wm[i];
    h->restored = true;
    return 0;
}

int weir__held_wm_restore_union(weir__held_wm *h, weir_op_ctx *ctx, weir_cursor *states, uint32_t n,
                                const char *what)
{
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++)
        rc = weir__held_wm_restore(h, ctx, &states[i], what);
    return rc;
}
