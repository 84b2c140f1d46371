/*
 * Who waits a frame's fence on the fence path (timer_fence.c, gpu_timer.c's
 * perfq_gl_timer_end_begin_swap): the context's helper thread, as for every other fence, or the
 * program's own thread at its swap, before the real swap ("inline"). Apart from GL and threads so
 * that it is unit-tested on numbers (tests/gl/test_swap_wait_rule.c; docs/gl-layer.md, "Who
 * waits a frame's fence").
 *
 * Why: the helper costs every frame two sleeps and two wake-ups of a thread (woken for the
 * fence, then by its signal), each a cross-CPU wake-up. Where the program waits for the frame's
 * rendering soon after its swap anyway (Mesa's llvmpipe: the next frame's glTexSubImage2D waits
 * for the scene that reads the texture), the program's thread can wait the fence itself at the
 * swap and stamp it as the helper would (a blocked wait, bounded by its schedstat): no helper
 * wake-up, and the program waits no longer than it would have. Where the program does not wait
 * (its CPU works while the GPU renders), an inline wait would take that overlap away.
 *
 * So the choice is measured, on the program's own frames: after WARMUP frames, a trial
 * alternates blocks of BLOCK frames of each kind; the first frame of each block is not counted
 * (it carries the other kind's switch); once each kind has SAMPLES frames, inline is kept for
 * SETTLED frames unless the helper's median frame time (swap to swap, wall) is lower than
 * inline's by more than MARGIN_PCT percent, then a trial again (the program's frames may
 * change). The margin: inline spares the machine a thread's two wake-ups a frame, and the
 * medians differ by a few percent from noise alone. Beside a CI run (load 2-3 on 2 cores),
 * perfq-example-gl 20000 on llvmpipe: 12 frames a kind with the 3% margin chose the helper in 5
 * of 19 trials; 24 frames a kind, in 0 of 37. A frame counts as inline only where its fence
 * really was waited inline (the helper's queue was empty, the wait did not time out).
 */
#ifndef PERFQ_GL_SWAP_WAIT_RULE_H
#define PERFQ_GL_SWAP_WAIT_RULE_H

#include <stdint.h>

#define PERFQ_GL_SWAP_WAIT_WARMUP 8
#define PERFQ_GL_SWAP_WAIT_BLOCK 4
#define PERFQ_GL_SWAP_WAIT_SAMPLES 24
#define PERFQ_GL_SWAP_WAIT_SETTLED 1024
#define PERFQ_GL_SWAP_WAIT_MARGIN_PCT 3

struct perfq_gl_swap_wait_rule {
    uint64_t frames;        /* swaps seen */
    uint64_t phase_start;   /* the swap where the current trial or settled stretch began */
    int trial;              /* in a trial (else settled on `keep_inline`) */
    int keep_inline;
    int asked_inline;       /* what the last decision asked for */
    int last_kind;          /* the last frame's kind as it happened: 0 helper, 1 inline, -1 none */
    unsigned n[2];
    uint64_t ns[2][PERFQ_GL_SWAP_WAIT_SAMPLES];
    uint64_t trials, inline_kept;   /* trials ended, and how many chose inline */
};

void perfq_gl_swap_wait_rule_init(struct perfq_gl_swap_wait_rule *r);

/* At a swap, before its fence: frame_ns is the wall time of the frame that ends here (from the
 * previous swap, 0 at the first), frame_inline whether that frame's fence (at the previous swap)
 * was waited inline (ignored at the first). Returns 1 where this swap's fence is to be waited
 * inline. */
int perfq_gl_swap_wait_decide(struct perfq_gl_swap_wait_rule *r, uint64_t frame_ns,
                              int frame_inline);

#endif
