/*
 * GL_INTEL_performance_query: the front end (the 10 entry points, validation at the door) and
 * its per-context state. The GL layer owns GL contexts; this file keeps, per context, the query
 * types (a view of two catalogs: the process's built-ins and the context's own GL counters), the
 * context's own perfq instance, and the query objects (handles).
 *
 * What the front end needs from the layer is the small table below (filled by
 * intel_performance_query_layer.c, the glue to gl_layer.h), so that the entry points read like
 * Mesa's: validate, then one call down.
 */
#ifndef PERFQ_GL_INTEL_PERFORMANCE_QUERY_H
#define PERFQ_GL_INTEL_PERFORMANCE_QUERY_H

#include <stdint.h>

#include "core/provider.h"
#include "gl/intel/intel_query_types.h"

struct intel_perf_context;

/* The layer's services for one GL context. */
struct intel_perf_host {
    void *ctx;                                     /* the glue's argument to these services */
    void (*error)(void *ctx, unsigned gl_error);   /* records a GL error for the program */
    void (*flush)(void *ctx);                      /* the driver's glFlush */
    /* The perfq instances of the context, called once, lazily, with the context current:
     * *process, the process's one instance of the built-in providers (shared by every context,
     * opened once; not the caller's to close), and *own, an instance of the context's own
     * providers (its GL counters), which the caller closes. */
    perfq_status_t (*open)(void *ctx, perfq_t **process, perfq_t **own);
};

/* Per-context state; created by the glue at context creation, destroyed at context
 * destruction (with the context current where possible, so that GL objects can be freed). */
struct intel_perf_context *intel_perf_context_create(const struct intel_perf_host *host);
void intel_perf_context_destroy(struct intel_perf_context *ipc);

/* The context current on this thread, or NULL (implemented by the glue). A NULL context makes
 * every entry point a no-op, as GL calls without a current context are. */
struct intel_perf_context *intel_perf_current(void);

/* The entry points (GL signatures, with GLuint as uint32_t). */
void intel_GetFirstPerfQueryIdINTEL(uint32_t *queryId);
void intel_GetNextPerfQueryIdINTEL(uint32_t queryId, uint32_t *nextQueryId);
void intel_GetPerfQueryIdByNameINTEL(char *queryName, uint32_t *queryId);
void intel_GetPerfQueryInfoINTEL(uint32_t queryId, uint32_t queryNameLength, char *queryName,
                                 uint32_t *dataSize, uint32_t *noCounters,
                                 uint32_t *noInstances, uint32_t *capsMask);
void intel_GetPerfCounterInfoINTEL(uint32_t queryId, uint32_t counterId,
                                   uint32_t counterNameLength, char *counterName,
                                   uint32_t counterDescLength, char *counterDesc,
                                   uint32_t *counterOffset, uint32_t *counterDataSize,
                                   uint32_t *counterTypeEnum, uint32_t *counterDataTypeEnum,
                                   uint64_t *rawCounterMaxValue);
void intel_CreatePerfQueryINTEL(uint32_t queryId, uint32_t *queryHandle);
void intel_DeletePerfQueryINTEL(uint32_t queryHandle);
void intel_BeginPerfQueryINTEL(uint32_t queryHandle);
void intel_EndPerfQueryINTEL(uint32_t queryHandle);
void intel_GetPerfQueryDataINTEL(uint32_t queryHandle, uint32_t flags, int32_t dataSize,
                                 void *data, uint32_t *bytesWritten);

/* The implementation-dependent state of the spec's table, for the layer's glGet* wrappers:
 * returns 1 and writes *value for the INTEL pnames (GPA_EXTENDED_COUNTERS as 0 or 1), else 0. */
int intel_perf_get_integer(unsigned pname, int64_t *value);

#endif
