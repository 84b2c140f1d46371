/*
 * The GL layer's one engine instance per process (gl_layer.h, perfq_gl_process_engine): the
 * built-in providers and the layer's "Driver Counters", opened once at the first front end that
 * asks, shared by every front end that measures process-wide (INTEL's built-in query types,
 * EGL_BRCM_performance_counters' groups) and kept for the life of the process. A device-wide
 * source (NVML, CUPTI) is therefore probed and set up once however many contexts and front ends
 * use it; PERFQ_DISABLE is read once, when it opens. The engine's calls are thread safe.
 */
#include <pthread.h>

#include "core/provider.h"
#include "gl/gl_layer.h"
#include "gl/providers/driver_counters.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static perfq_t *engine;
static perfq_status_t engine_status;

static void engine_open(void)
{
    const struct perfq_provider_ops *ops[] = {&perfq_gl_driver_counters_provider};
    void *args[] = {NULL};
    engine_status = perfq__open_with(ops, args, 1, 1, &engine);
}

perfq_status_t perfq_gl_process_engine(perfq_t **out)
{
    pthread_once(&once, engine_open);
    *out = engine_status == PERFQ_OK ? engine : NULL;
    return engine_status;
}
