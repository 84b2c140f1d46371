/*
 * Who waits a frame's fence (src/gl/timing/swap_wait_rule.c) on numbers, without GL or threads:
 * the warm-up, the trial's alternating blocks and what it counts, the choice on the medians
 * (inline unless the helper is faster by more than the margin),
 * the settled stretch and the next trial, and the fall-back where inline waits never happen
 * (docs/gl-layer.md, "Who waits a frame's fence").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gl/timing/swap_wait_rule.h"

#define US 1000ull
/* A trial's swaps: blocks of each kind until each has SAMPLES counted frames (BLOCK - 1 a
 * block); the swap that gets its last frame's time is the first settled one. */
#define BLOCKS_EACH ((PERFQ_GL_SWAP_WAIT_SAMPLES + PERFQ_GL_SWAP_WAIT_BLOCK - 2) / \
                     (PERFQ_GL_SWAP_WAIT_BLOCK - 1))
#define TRIAL_FRAMES (2 * BLOCKS_EACH * PERFQ_GL_SWAP_WAIT_BLOCK)

/* A program whose frames take helper_ns with the helper and inline_ns inline; the first frame
 * after a switch of kind takes switch_ns (0: as the others). inline_works: an inline wait
 * happens when asked. Runs `frames` swaps; asked[i] is the decision at swap i. */
struct program {
    uint64_t helper_ns, inline_ns, switch_ns;
    int inline_works;
};

static void run(struct perfq_gl_swap_wait_rule *r, const struct program *p, int frames,
                int *asked)
{
    int prev_kind = -1, kind = -1;
    for (int i = 0; i < frames; i++) {
        uint64_t ns = 0;
        if (kind >= 0) {
            ns = kind ? p->inline_ns : p->helper_ns;
            if (p->switch_ns && kind != prev_kind)
                ns = p->switch_ns;
        }
        int a = perfq_gl_swap_wait_decide(r, ns, kind == 1);
        if (asked)
            asked[i] = a;
        prev_kind = kind;
        kind = a && p->inline_works;
    }
}

#define N 4096   /* swaps a test runs at most: every decisions array is this long */

static int count(const int *v, int from, int to)
{
    assert_true(from >= 0 && to <= N);
    int n = 0;
    for (int i = from; i < to; i++)
        n += v[i];
    return n;
}

/* The first WARMUP swaps are the helper's; the trial then alternates blocks of BLOCK, the
 * helper's first. */
static void test_warmup_then_alternating_blocks(void **state)
{
    (void)state;
    struct perfq_gl_swap_wait_rule r;
    perfq_gl_swap_wait_rule_init(&r);
    struct program p = {400 * US, 300 * US, 0, 1};
    int n = PERFQ_GL_SWAP_WAIT_WARMUP + 4 * PERFQ_GL_SWAP_WAIT_BLOCK;
    int asked[PERFQ_GL_SWAP_WAIT_WARMUP + 4 * PERFQ_GL_SWAP_WAIT_BLOCK];
    run(&r, &p, n, asked);
    for (int i = 0; i < PERFQ_GL_SWAP_WAIT_WARMUP; i++)
        assert_int_equal(asked[i], 0);
    for (int i = PERFQ_GL_SWAP_WAIT_WARMUP; i < n; i++)
        assert_int_equal(asked[i], ((i - PERFQ_GL_SWAP_WAIT_WARMUP) / PERFQ_GL_SWAP_WAIT_BLOCK) % 2);
    assert_int_equal(r.trials, 0);
    assert_true(r.trial);
}

/* Frames faster inline (the program waits for the GPU soon after its swap anyway): inline is
 * kept for SETTLED swaps after each trial, and each trial keeps it again. */
static void test_faster_inline_is_kept(void **state)
{
    (void)state;
    struct perfq_gl_swap_wait_rule r;
    perfq_gl_swap_wait_rule_init(&r);
    struct program p = {400 * US, 300 * US, 0, 1};
    static int asked[N];
    run(&r, &p, N, asked);
    assert_int_equal(r.trials, 4);   /* settled stretches of SETTLED, trials between */
    assert_int_equal(r.inline_kept, 4);
    int end = PERFQ_GL_SWAP_WAIT_WARMUP + TRIAL_FRAMES;   /* the first settled swap */
    assert_int_equal(count(asked, end, end + PERFQ_GL_SWAP_WAIT_SETTLED), PERFQ_GL_SWAP_WAIT_SETTLED);
    /* The next trial asks the helper for a block first. */
    assert_int_equal(count(asked, end + PERFQ_GL_SWAP_WAIT_SETTLED,
                           end + PERFQ_GL_SWAP_WAIT_SETTLED + PERFQ_GL_SWAP_WAIT_BLOCK), 0);
}

/* Frames slower inline (the program's CPU works while the GPU renders): the helper is kept. */
static void test_slower_inline_is_dropped(void **state)
{
    (void)state;
    struct perfq_gl_swap_wait_rule r;
    perfq_gl_swap_wait_rule_init(&r);
    struct program p = {300 * US, 500 * US, 0, 1};
    static int asked[N];
    run(&r, &p, N, asked);
    assert_true(r.trials >= 2);
    assert_int_equal(r.inline_kept, 0);
    int end = PERFQ_GL_SWAP_WAIT_WARMUP + TRIAL_FRAMES;
    assert_int_equal(count(asked, end, end + PERFQ_GL_SWAP_WAIT_SETTLED), 0);
}

/* The first frame of each block carries the switch (a wait the other kind left behind): it is
 * not counted, so a switch frame far slower inline does not turn the choice. */
static void test_switch_frames_not_counted(void **state)
{
    (void)state;
    struct perfq_gl_swap_wait_rule r;
    perfq_gl_swap_wait_rule_init(&r);
    struct program p = {400 * US, 300 * US, 50000 * US, 1};
    run(&r, &p, 400, NULL);
    assert_int_equal(r.trials, 1);
    assert_int_equal(r.inline_kept, 1);
}

/* Equal medians: inline (no helper wake-ups, the same frames). */
static void test_tie_goes_inline(void **state)
{
    (void)state;
    struct perfq_gl_swap_wait_rule r;
    perfq_gl_swap_wait_rule_init(&r);
    struct program p = {300 * US, 300 * US, 0, 1};
    run(&r, &p, 400, NULL);
    assert_int_equal(r.trials, 1);
    assert_int_equal(r.inline_kept, 1);
}

/* The helper must be faster by more than the margin (3%): 2% faster keeps inline, 5% does
 * not. */
static void test_margin(void **state)
{
    (void)state;
    struct perfq_gl_swap_wait_rule r;
    perfq_gl_swap_wait_rule_init(&r);
    struct program p = {294 * US, 300 * US, 0, 1};
    run(&r, &p, 400, NULL);
    assert_int_equal(r.trials, 1);
    assert_int_equal(r.inline_kept, 1);
    perfq_gl_swap_wait_rule_init(&r);
    p.helper_ns = 285 * US;
    run(&r, &p, 400, NULL);
    assert_int_equal(r.trials, 1);
    assert_int_equal(r.inline_kept, 0);
}

/* Inline waits that never happen (the helper's queue is never empty, or the waits time out):
 * the frames all count as the helper's; the trial gives up for the helper. */
static void test_inline_never_happens(void **state)
{
    (void)state;
    struct perfq_gl_swap_wait_rule r;
    perfq_gl_swap_wait_rule_init(&r);
    struct program p = {400 * US, 300 * US, 0, 0};
    static int asked[N];
    run(&r, &p, N, asked);
    assert_true(r.trials >= 1);
    assert_int_equal(r.inline_kept, 0);
    assert_int_equal(r.keep_inline, 0);
    int after = PERFQ_GL_SWAP_WAIT_WARMUP + 1 + 64 * PERFQ_GL_SWAP_WAIT_SAMPLES + 1;
    assert_int_equal(count(asked, after, after + 900), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warmup_then_alternating_blocks),
        cmocka_unit_test(test_faster_inline_is_kept),
        cmocka_unit_test(test_slower_inline_is_dropped),
        cmocka_unit_test(test_switch_frames_not_counted),
        cmocka_unit_test(test_tie_goes_inline),
        cmocka_unit_test(test_margin),
        cmocka_unit_test(test_inline_never_happens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
