/*
 * Sessions of the "nvml" and "gpm" providers: both read the shared sampler (nvml_shared.h)
 * and differ only in their counter tables. A counter descriptor's code is its channel and
 * kind (NVML_CODE), code2 its NVML device index.
 */
#ifndef PERFQ_PROVIDERS_NVML_SESSION_H
#define PERFQ_PROVIDERS_NVML_SESSION_H

#include "core/provider.h"
#include "providers/nvml_shared.h"

enum nvml_kind {
    KIND_MEAN,    /* time-weighted mean of a gauge over the interval */
    KIND_ENERGY,  /* joules consumed over the interval */
    KIND_FLAG,    /* 1 if the channel counted an event in the interval */
    KIND_COUNT,   /* events in the interval */
    KIND_AGE,     /* ns from the newest fast sample to each end of the interval, the larger */
};

#define NVML_CODE(channel, kind) ((uint64_t)(channel) | ((uint64_t)(kind) << 8))
#define NVML_CODE_CHANNEL(code) ((int)((code) & 0xff))
#define NVML_CODE_KIND(code) ((int)(((code) >> 8) & 0xff))

/* Per-device groups from a template table; see nvml.c and gpm.c. */
struct nvml_provider_state {
    const struct nvml_global *g;
    struct perfq_counter_desc *descs;   /* device_count * count copies, code2 = device */
};

/* Adds one group per device ("PREFIX-gpuN"), or one unavailable group "PREFIX" when NVML is
 * not there. gpm: the group stands or falls with the device's GPM support. */
perfq_status_t perfq__nvml_enumerate(struct nvml_provider_state *st,
                                     struct perfq_catalog *catalog, const char *probe_reason,
                                     const char *prefix, const char *what,
                                     const struct perfq_counter_desc *table, size_t count,
                                     int gpm);
perfq_status_t perfq__nvml_probe(const struct perfq_counter_desc *table, size_t count,
                                 void **state, char *reason, size_t size);
void perfq__nvml_close(void *state);

perfq_status_t perfq__nvml_session_open(void *state, const struct perfq_session_request *req,
                                        void **session);
perfq_status_t perfq__nvml_begin(void *session);
perfq_status_t perfq__nvml_sample(void *session, perfq_value_t *values);
perfq_status_t perfq__nvml_end(void *session);
perfq_status_t perfq__nvml_result(void *session, int wait, perfq_value_t *values);
void perfq__nvml_session_close(void *session);

#endif
