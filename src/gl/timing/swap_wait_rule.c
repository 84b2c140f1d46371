/*
 * Who waits a frame's fence: the measured choice of swap_wait_rule.h.
 */
#include "gl/timing/swap_wait_rule.h"

#include <stdlib.h>
#include <string.h>

void perfq_gl_swap_wait_rule_init(struct perfq_gl_swap_wait_rule *r)
{
    memset(r, 0, sizeof *r);
    r->last_kind = -1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned n)
{
    qsort(v, n, sizeof v[0], cmp_u64);
    return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2;
}

static void start_trial(struct perfq_gl_swap_wait_rule *r)
{
    r->trial = 1;
    r->phase_start = r->frames;
    r->n[0] = r->n[1] = 0;
}

int perfq_gl_swap_wait_decide(struct perfq_gl_swap_wait_rule *r, uint64_t frame_ns,
                              int frame_inline)
{
    int kind = r->frames == 0 ? -1 : (frame_inline ? 1 : 0);
    /* The frame that ends here counts in a trial where the one before it was of its kind. */
    if (r->trial && kind >= 0 && kind == r->last_kind && frame_ns &&
        r->n[kind] < PERFQ_GL_SWAP_WAIT_SAMPLES)
        r->ns[kind][r->n[kind]++] = frame_ns;
    r->last_kind = kind;
    r->frames++;

    if (r->trial && r->n[0] >= PERFQ_GL_SWAP_WAIT_SAMPLES &&
        r->n[1] >= PERFQ_GL_SWAP_WAIT_SAMPLES) {
        uint64_t helper = median(r->ns[0], r->n[0]);
        uint64_t inl = median(r->ns[1], r->n[1]);
        /* Inline unless the helper's frames are faster by more than MARGIN_PCT. */
        r->keep_inline = inl * (100 - PERFQ_GL_SWAP_WAIT_MARGIN_PCT) <= helper * 100;
        r->trial = 0;
        r->phase_start = r->frames;
        r->trials++;
        r->inline_kept += (uint64_t)r->keep_inline;
    } else if (!r->trial) {
        if (r->frames > PERFQ_GL_SWAP_WAIT_WARMUP && r->trials == 0 && r->phase_start == 0)
            start_trial(r);
        else if (r->trials > 0 && r->frames - r->phase_start >= PERFQ_GL_SWAP_WAIT_SETTLED)
            start_trial(r);
    } else if (r->frames - r->phase_start > 64 * (uint64_t)PERFQ_GL_SWAP_WAIT_SAMPLES) {
        /* Inline waits keep failing (a busy helper queue, time-outs): the helper it is. */
        r->keep_inline = 0;
        r->trial = 0;
        r->phase_start = r->frames;
        r->trials++;
    }
    if (r->trial) {
        uint64_t i = r->frames - r->phase_start;
        r->asked_inline = (int)((i / PERFQ_GL_SWAP_WAIT_BLOCK) % 2);
    } else {
        r->asked_inline = r->trials > 0 && r->keep_inline;
    }
    return r->asked_inline;
}
