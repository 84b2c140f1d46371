/* Total and free video memory of a context's device, from a real source (nvres_memory.c). */
#ifndef PERFQ_GL_NVRES_MEMORY_H
#define PERFQ_GL_NVRES_MEMORY_H

#include <stdint.h>

#include "gl/gl_layer.h"

typedef enum perfq_nvres_memory_source {
    PERFQ_NVRES_MEM_NONE = 0,
    PERFQ_NVRES_MEM_NVX,        /* GL_NVX_gpu_memory_info */
    PERFQ_NVRES_MEM_ATI,        /* GL_ATI_meminfo (free only) */
    PERFQ_NVRES_MEM_SYSTEM,     /* software renderer: /proc/meminfo */
} perfq_nvres_memory_source_t;

/* The best source this context has (decided once, when it is first made current). */
perfq_nvres_memory_source_t perfq_nvres_memory_source(struct perfq_gl_context *ctx);
const char *perfq_nvres_memory_source_name(perfq_nvres_memory_source_t src);
/* Reads it now (ctx current on this thread for the GL sources): 0 and the values in KiB (-1 for a
 * value the source does not have), or -1 when the source gave nothing. */
int perfq_nvres_memory_read(struct perfq_gl_context *ctx, perfq_nvres_memory_source_t src,
                            int64_t *total_kib, int64_t *free_kib);
/* /proc/meminfo MemTotal and MemAvailable in KiB: 0, or -1. */
int perfq_nvres_system_memory(int64_t *total_kib, int64_t *free_kib);

#endif
