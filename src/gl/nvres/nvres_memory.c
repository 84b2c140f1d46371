/*
 * Total and free video memory for GL_NV_query_resource's device block, from the best real source a
 * context has (docs/nv-query-resource.md):
 *   1. GL_NVX_gpu_memory_info (the NVIDIA driver; Mesa's radeonsi and others): total available
 *      and current available video memory, in KiB, for the context's own GPU;
 *   2. GL_ATI_meminfo: free texture memory in KiB (no total: left out);
 *   3. a software renderer (llvmpipe, softpipe, swrast): its "video memory" is system memory:
 *      /proc/meminfo MemTotal and MemAvailable (kB there are KiB);
 *   4. none: unknown (the report's vidmemFree is 0 and the counters are left out).
 * Never invented: every value is read from its source at the time of the query.
 */
#include "gl/nvres/nvres_memory.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX
#define GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX 0x9048
#define GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX 0x9049
#endif
#ifndef GL_TEXTURE_FREE_MEMORY_ATI
#define GL_TEXTURE_FREE_MEMORY_ATI 0x87FC
#endif

static int is_software(const char *renderer)
{
    return renderer && (strstr(renderer, "llvmpipe") || strstr(renderer, "softpipe") ||
                        strstr(renderer, "swrast") || strstr(renderer, "Software Rasterizer"));
}

perfq_nvres_memory_source_t perfq_nvres_memory_source(struct perfq_gl_context *ctx)
{
    if (perfq_gl_has_driver_extension(ctx, "GL_NVX_gpu_memory_info"))
        return PERFQ_NVRES_MEM_NVX;
    if (perfq_gl_has_driver_extension(ctx, "GL_ATI_meminfo"))
        return PERFQ_NVRES_MEM_ATI;
    if (is_software(ctx->renderer))
        return PERFQ_NVRES_MEM_SYSTEM;
    return PERFQ_NVRES_MEM_NONE;
}

const char *perfq_nvres_memory_source_name(perfq_nvres_memory_source_t src)
{
    switch (src) {
    case PERFQ_NVRES_MEM_NVX: return "GL_NVX_gpu_memory_info";
    case PERFQ_NVRES_MEM_ATI: return "GL_ATI_meminfo";
    case PERFQ_NVRES_MEM_SYSTEM: return "/proc/meminfo (software renderer: system memory)";
    default: return "none";
    }
}

/* MemTotal and MemAvailable from /proc/meminfo, in KiB. */
int perfq_nvres_system_memory(int64_t *total_kib, int64_t *free_kib)
{
    char buf[4096];
    int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *t = strstr(buf, "MemTotal:");
    const char *a = strstr(buf, "MemAvailable:");
    if (!t || !a)
        return -1;
    *total_kib = strtoll(t + 9, NULL, 10);
    *free_kib = strtoll(a + 13, NULL, 10);
    return 0;
}

int perfq_nvres_memory_read(struct perfq_gl_context *ctx, perfq_nvres_memory_source_t src,
                            int64_t *total_kib, int64_t *free_kib)
{
    *total_kib = -1;
    *free_kib = -1;
    switch (src) {
    case PERFQ_NVRES_MEM_NVX:
    case PERFQ_NVRES_MEM_ATI: {
        if (!ctx || !ctx->gl->glGetIntegerv)
            return -1;
        GLint v[4] = {-1, -1, -1, -1}, total = -1;
        perfq_gl_error_guard_begin(ctx);
        if (src == PERFQ_NVRES_MEM_NVX) {
            ctx->gl->glGetIntegerv(GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX, &total);
            ctx->gl->glGetIntegerv(GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX, v);
        } else {
            ctx->gl->glGetIntegerv(GL_TEXTURE_FREE_MEMORY_ATI, v);
        }
        GLenum e = perfq_gl_error_guard_end(ctx);
        if (e != GL_NO_ERROR || v[0] < 0)
            return -1;
        *free_kib = v[0];
        *total_kib = total;
        return 0;
    }
    case PERFQ_NVRES_MEM_SYSTEM:
        return perfq_nvres_system_memory(total_kib, free_kib);
    default:
        return -1;
    }
}
