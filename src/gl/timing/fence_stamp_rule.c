/*
 * The fence path's stamp rule: see fence_stamp_rule.h.
 */
#include "gl/timing/fence_stamp_rule.h"

#include <errno.h>
#include <stdlib.h>

void perfq_gl_fence_stamp_decide(const struct perfq_gl_stamp_obs *o, uint64_t window_ns,
                                 uint64_t *ns, int *late, uint64_t *signaled_lo)
{
    uint64_t v = o->t;
    /* How late v may be. A blocked wait returned when the fence signalled, to the wake-up
     * latency, unless the thread, woken, waited for a CPU: it was awake (running or runnable)
     * at most run_ns of the wait, so it was woken no earlier than t - run_ns. Without the
     * measure (no schedstat) a blocked stamp is taken as the signal, as before. A wait that
     * did not block only knows the fence signalled since lo. */
    uint64_t bound;
    if (o->blocked)
        bound = o->have_run ? o->run_ns : 0;
    else
        bound = o->t > o->lo ? o->t - o->lo : 0;
    /* Another thread found it signalled earlier: that too is an upper bound of the signal. */
    if (o->seen_ns && o->seen_ns < v) {
        uint64_t seen_bound = o->seen_ns > o->lo ? o->seen_ns - o->lo : 0;
        v = o->seen_ns;
        if (seen_bound < bound)
            bound = seen_bound;
    }
    *ns = v;
    *late = bound > window_ns;
    /* It signalled in [v - bound, v], and not before lo. */
    uint64_t from = v > bound ? v - bound : 0;
    *signaled_lo = from > o->lo ? from : o->lo;
}

int perfq_gl_schedstat_parse(const char *text, uint64_t *cpu_ns, uint64_t *run_delay_ns)
{
    char *end;
    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    unsigned long long cpu = strtoull(text, &end, 10);
    if (end == text || *end != ' ' || errno)
        return -1;
    const char *p = end + 1;
    if (*p < '0' || *p > '9')
        return -1;
    unsigned long long delay = strtoull(p, &end, 10);
    if (end == p || *end != ' ' || errno)
        return -1;
    *cpu_ns = cpu;
    *run_delay_ns = delay;
    return 0;
}
