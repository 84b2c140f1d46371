/*
 * Test hooks of the "cupti-range" provider (cupti_range.c): what CUPTI's host side says of a chip,
 * without a driver. Exported by neither library: tests/nvidia/test_cupti_range.c links the engine's
 * objects.
 */
#ifndef PERFQ_PROVIDERS_CUPTI_RANGE_H
#define PERFQ_PROVIDERS_CUPTI_RANGE_H

#include <stddef.h>

/* The pass count of measuring names[0..n) together on a device of this chip (*passes), loading
 * libcupti first where nothing has. 0, or -1 with why in reason. Not called with the provider's
 * library lock held. */
int perfq__cupti_range_passes(const char *chip, const char *const *names, size_t n,
                              size_t *passes, char *reason, size_t size);

/* What the probe lists for a device of this chip, host side only (no driver): the whole set's
 * pass count, and metric m's description and reason (empty: available). */
size_t perfq__cupti_range_describe(const char *chip, size_t m, const char **description,
                                   const char **reason);

#endif
