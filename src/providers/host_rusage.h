/*
 * The rusage group's counters over a struct rusage the caller already has: perfq stat's CMD is
 * another process, whose rusage the kernel gives only to the parent that reaps it (wait4), so
 * the CLI reads CMD's rusage/... rows from wait4 with this, and the counters keep one
 * definition (host_rusage.c).
 */
#ifndef PERFQ_PROVIDERS_HOST_RUSAGE_H
#define PERFQ_PROVIDERS_HOST_RUSAGE_H

#include <stdint.h>
#include <sys/resource.h>

/* counter: the name within the group ("user-time"). 0 and *value set, or -1 for a name the
 * group does not have. */
int perfq_rusage_counter_value(const char *counter, const struct rusage *usage,
                               uint64_t *value);

#endif
