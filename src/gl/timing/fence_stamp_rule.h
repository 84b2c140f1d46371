/*
 * The fence path's stamp rule (timer_fence.c), apart from GL and threads so that it is
 * unit-tested on numbers (tests/gl/test_fence_stamp_rule.c): what a waiter's observations prove
 * about when a fence signalled, the stamp they give, and whether it is "late"
 * (PERFQ_GL_FENCE_STAMP_WINDOW_NS, timer_internal.h; docs/gl-layer.md, "What a fence stamp
 * measures on llvmpipe").
 */
#ifndef PERFQ_GL_FENCE_STAMP_RULE_H
#define PERFQ_GL_FENCE_STAMP_RULE_H

#include <stdint.h>

/* One waiter's observations of a fence that it found signalled, CLOCK_MONOTONIC ns. */
struct perfq_gl_stamp_obs {
    uint64_t t;         /* when its wait returned signalled */
    uint64_t lo;        /* the fence cannot have signalled before (creation, the previous fence's
                         * signal, a look that found it unsignalled) */
    int blocked;        /* the wait blocked: the fence was unsignalled when it began */
    int have_run;       /* run_ns was measured (the thread's /proc schedstat) */
    uint64_t run_ns;    /* blocked: the waiting thread's CPU time plus run-queue delay over the
                         * blocked wait; an upper bound of how long it was awake after the
                         * signal, hence of how late t is (a thread woken but left runnable on
                         * a busy CPU is stamped late without this) */
    uint64_t seen_ns;   /* another thread's earlier look found it signalled (0: none) */
};

/* The stamp and what it proves: *ns (an upper bound of the signal), *late (it may be later than
 * the signal by more than window_ns), *signaled_lo (the signal was no earlier: the next fence's
 * lower bound). */
void perfq_gl_fence_stamp_decide(const struct perfq_gl_stamp_obs *o, uint64_t window_ns,
                                 uint64_t *ns, int *late, uint64_t *signaled_lo);

/* /proc/<tid>/schedstat's text: "<ns on CPU> <ns runnable, waiting for a CPU> <timeslices>".
 * 0 and the first two numbers, or -1 if the text is not that. */
int perfq_gl_schedstat_parse(const char *text, uint64_t *cpu_ns, uint64_t *run_delay_ns);

#endif
