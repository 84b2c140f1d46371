/*
 * How long perfq stat's pipeline statistics span lasts at least (stat_frames.c): the CLI's span
 * (--stats-span MS, the channel page's stats_span_ns), and at least PERFQ_GL_SPAN_COST_FACTOR
 * times what the last span's end and the next one's begin cost the program's thread, so that
 * the statistics never cost it more than about 1% of its time; at most PERFQ_GL_SPAN_MAX_NS.
 * A span of 0 (--stats-span 0: each frame its own) is what the user asked: it stays 0.
 *
 * On one context the NVIDIA driver's eleven ends and begins cost 24-28 us (H100), under 1% of
 * the default 4 ms. With eight threads rendering at once, each its own context, they blocked
 * the thread for milliseconds (the GPU, shared by turns between the contexts, has to finish the
 * context's work first): frames grew from 0.9 ms to 6.3 ms, each then long enough to be a span
 * of its own, and the program took 6.4 times as long (docs/perfq-stat.md, "Several threads
 * rendering at once").
 */
#ifndef PERFQ_GL_STAT_SPAN_RULE_H
#define PERFQ_GL_STAT_SPAN_RULE_H

#include <stdint.h>

#define PERFQ_GL_SPAN_COST_FACTOR 100u
#define PERFQ_GL_SPAN_MAX_NS 10000000000ull   /* perfq stat's --stats-span limit, 10 s */

/* The least length of the next span, given the CLI's span_ns and the CPU time the last span's
 * end and begin took (cost_ns; 0 before the first). */
static inline uint64_t perfq_gl_span_min_ns(uint64_t span_ns, uint64_t cost_ns)
{
    if (!span_ns)
        return 0;
    uint64_t by_cost = cost_ns > PERFQ_GL_SPAN_MAX_NS / PERFQ_GL_SPAN_COST_FACTOR
                           ? PERFQ_GL_SPAN_MAX_NS
                           : cost_ns * PERFQ_GL_SPAN_COST_FACTOR;
    uint64_t least = by_cost > span_ns ? by_cost : span_ns;
    return least < PERFQ_GL_SPAN_MAX_NS ? least : PERFQ_GL_SPAN_MAX_NS;
}

#endif
