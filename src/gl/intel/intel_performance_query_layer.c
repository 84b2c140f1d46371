/*
 * GL_INTEL_performance_query on the GL layer: registers the entry points, the extension string,
 * the implementation-dependent glGet values and the per-context state with gl_layer.h, and
 * exports the GL-named entry points for programs that link them by name.
 *
 * Where the driver itself advertises GL_INTEL_performance_query (Mesa's iris and i965 on Intel
 * GPUs), the entry points pass the calls to the driver untouched (DESIGN.md: a native extension
 * is passed through); PERFQ_GL_INTEL=perfq makes perfq take over there as well.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gl/gl_layer.h"
#include "gl/nvres/gl_memory_provider.h"
#include "gl/providers/gl_provider.h"
#include "gl/intel/intel_performance_query.h"


static int frontend_id = -1;

/* Per-context data: the front end's state, or the native pass-through. */
struct intel_layer_context {
    struct intel_perf_context *ipc;   /* NULL when the driver's own extension is used */
    struct gl_provider_link link;     /* the GL provider's argument; outlives ipc's perfq */
};

/* ---- the front end's host services -------------------------------------------------------- */

static void host_error(void *arg, unsigned error)
{
    struct gl_provider_link *link = arg;
    perfq_gl_record_error(link->ctx, (GLenum)error);
}

static void host_flush(void *arg)
{
    struct gl_provider_link *link = arg;
    if (link->ctx->gl->glFlush)
        link->ctx->gl->glFlush();
}

/* The built-in query types come from the layer's one engine instance per process
 * (perfq_gl_process_engine), shared with every context and with EGL_BRCM: a device-wide source
 * such as NVML is probed once, not per context, and measurements of any context may use it at
 * any time (the engine's calls are thread safe). */
static perfq_status_t host_open(void *arg, perfq_t **process, perfq_t **own)
{
    perfq_t *process_pq = NULL;
    perfq_status_t process_status = perfq_gl_process_engine(&process_pq);
    if (process_status != PERFQ_OK)
        return process_status;
    /* The context's own counters, alone in an instance (no built-ins): "gl" and "gl-memory"
     * (GL_NV_query_resource's accounting) take the same link, the context. */
    const struct perfq_provider_ops *providers[] = {&perfq_gl_provider, &perfq_gl_memory_provider};
    void *args[] = {arg, arg};
    perfq_status_t st = perfq__open_with(providers, args, 2, 0, own);
    if (st == PERFQ_OK)
        *process = process_pq;
    return st;
}

static int take_over(void)
{
    const char *v = getenv("PERFQ_GL_INTEL");
    return v && strcmp(v, "perfq") == 0;
}

static int driver_native(const struct perfq_gl_context *ctx)
{
    return perfq_gl_has_driver_extension(ctx, "GL_INTEL_performance_query") && !take_over();
}

static void *context_created(const struct perfq_gl_scope_object *at)
{
    struct perfq_gl_context *ctx = at->ctx;
    struct intel_layer_context *lc = calloc(1, sizeof(*lc));
    if (!lc)
        return NULL;
    if (!driver_native(ctx)) {
        lc->link.ctx = ctx;
        struct intel_perf_host host = {
            .ctx = &lc->link, .error = host_error, .flush = host_flush, .open = host_open,
        };
        lc->ipc = intel_perf_context_create(&host);
        if (!lc->ipc) {
            free(lc);
            return NULL;
        }
    }
    return lc;
}

static void context_destroyed(const struct perfq_gl_scope_object *at, void *data, int gl_usable)
{
    /* With gl_usable == 0 the GL provider ends nothing and only frees (the layer's frees then
     * release CPU memory only, gl_layer.h); the driver objects die with the context. */
    (void)at;
    struct intel_layer_context *lc = data;
    if (!lc)
        return;
    lc->link.gl_lost = !gl_usable;
    intel_perf_context_destroy(lc->ipc);
    free(lc);
}

static struct intel_layer_context *current_layer_context(struct perfq_gl_context **ctx)
{
    *ctx = perfq_gl_current_context();
    if (!*ctx || frontend_id < 0)
        return NULL;
    return perfq_gl_frontend_data(frontend_id, *ctx);
}

struct intel_perf_context *intel_perf_current(void)
{
    struct perfq_gl_context *ctx;
    struct intel_layer_context *lc = current_layer_context(&ctx);
    return lc ? lc->ipc : NULL;
}

/* ---- extension string and glGet values ------------------------------------------------------ */

/* Every context gets the extension unless its driver has its own: the "Host CPU" type needs no
 * GPU support, so there is always at least one query type to honour it with. */
static int extension_available(struct perfq_gl_context *ctx)
{
    struct intel_layer_context *lc = perfq_gl_frontend_data(frontend_id, ctx);
    return lc && lc->ipc;
}

static int64_t integer_value(struct perfq_gl_context *ctx, GLenum pname)
{
    (void)ctx;
    int64_t v = 0;
    intel_perf_get_integer(pname, &v);
    return v;
}

/* ---- the driver's own entry points (native pass-through) ------------------------------------ */

struct native_table {
    PFNGLGETFIRSTPERFQUERYIDINTELPROC GetFirstPerfQueryIdINTEL;
    PFNGLGETNEXTPERFQUERYIDINTELPROC GetNextPerfQueryIdINTEL;
    PFNGLGETPERFQUERYIDBYNAMEINTELPROC GetPerfQueryIdByNameINTEL;
    PFNGLGETPERFQUERYINFOINTELPROC GetPerfQueryInfoINTEL;
    PFNGLGETPERFCOUNTERINFOINTELPROC GetPerfCounterInfoINTEL;
    PFNGLCREATEPERFQUERYINTELPROC CreatePerfQueryINTEL;
    PFNGLDELETEPERFQUERYINTELPROC DeletePerfQueryINTEL;
    PFNGLBEGINPERFQUERYINTELPROC BeginPerfQueryINTEL;
    PFNGLENDPERFQUERYINTELPROC EndPerfQueryINTEL;
    PFNGLGETPERFQUERYDATAINTELPROC GetPerfQueryDataINTEL;
};

static struct native_table native;
static pthread_once_t native_once = PTHREAD_ONCE_INIT;

static void native_resolve(void)
{
#define RESOLVE(n) native.n = (__typeof__(native.n))perfq_gl_resolve("gl" #n)
    RESOLVE(GetFirstPerfQueryIdINTEL);
    RESOLVE(GetNextPerfQueryIdINTEL);
    RESOLVE(GetPerfQueryIdByNameINTEL);
    RESOLVE(GetPerfQueryInfoINTEL);
    RESOLVE(GetPerfCounterInfoINTEL);
    RESOLVE(CreatePerfQueryINTEL);
    RESOLVE(DeletePerfQueryINTEL);
    RESOLVE(BeginPerfQueryINTEL);
    RESOLVE(EndPerfQueryINTEL);
    RESOLVE(GetPerfQueryDataINTEL);
#undef RESOLVE
}

/* The driver's function when the current context uses the native extension, else NULL. */
static const struct native_table *native_for_current(void)
{
    struct perfq_gl_context *ctx;
    struct intel_layer_context *lc = current_layer_context(&ctx);
    if (!lc || lc->ipc)
        return NULL;
    pthread_once(&native_once, native_resolve);
    return &native;
}

/* ---- the exported entry points ---------------------------------------------------------------- */

#define PASS(fn, ...)                                        \
    do {                                                     \
        const struct native_table *nt = native_for_current(); \
        if (nt) {                                            \
            if (nt->fn)                                      \
                nt->fn(__VA_ARGS__);                         \
            return;                                          \
        }                                                    \
    } while (0)

PERFQ_GL_EXPORT void GLAPIENTRY glGetFirstPerfQueryIdINTEL(GLuint *queryId)
{
    PASS(GetFirstPerfQueryIdINTEL, queryId);
    intel_GetFirstPerfQueryIdINTEL(queryId);
}

PERFQ_GL_EXPORT void GLAPIENTRY glGetNextPerfQueryIdINTEL(GLuint queryId, GLuint *nextQueryId)
{
    PASS(GetNextPerfQueryIdINTEL, queryId, nextQueryId);
    intel_GetNextPerfQueryIdINTEL(queryId, nextQueryId);
}

PERFQ_GL_EXPORT void GLAPIENTRY glGetPerfQueryIdByNameINTEL(GLchar *queryName, GLuint *queryId)
{
    PASS(GetPerfQueryIdByNameINTEL, queryName, queryId);
    intel_GetPerfQueryIdByNameINTEL(queryName, queryId);
}

PERFQ_GL_EXPORT void GLAPIENTRY glGetPerfQueryInfoINTEL(GLuint queryId, GLuint queryNameLength,
                                                        GLchar *queryName, GLuint *dataSize,
                                                        GLuint *noCounters,
                                                        GLuint *noInstances, GLuint *capsMask)
{
    PASS(GetPerfQueryInfoINTEL, queryId, queryNameLength, queryName, dataSize, noCounters,
         noInstances, capsMask);
    intel_GetPerfQueryInfoINTEL(queryId, queryNameLength, queryName, dataSize, noCounters,
                                noInstances, capsMask);
}

PERFQ_GL_EXPORT void GLAPIENTRY glGetPerfCounterInfoINTEL(
    GLuint queryId, GLuint counterId, GLuint counterNameLength, GLchar *counterName,
    GLuint counterDescLength, GLchar *counterDesc, GLuint *counterOffset,
    GLuint *counterDataSize, GLuint *counterTypeEnum, GLuint *counterDataTypeEnum,
    GLuint64 *rawCounterMaxValue)
{
    PASS(GetPerfCounterInfoINTEL, queryId, counterId, counterNameLength, counterName,
         counterDescLength, counterDesc, counterOffset, counterDataSize, counterTypeEnum,
         counterDataTypeEnum, rawCounterMaxValue);
    intel_GetPerfCounterInfoINTEL(queryId, counterId, counterNameLength, counterName,
                                  counterDescLength, counterDesc, counterOffset, counterDataSize,
                                  counterTypeEnum, counterDataTypeEnum,
                                  (uint64_t *)rawCounterMaxValue);
}

PERFQ_GL_EXPORT void GLAPIENTRY glCreatePerfQueryINTEL(GLuint queryId, GLuint *queryHandle)
{
    PASS(CreatePerfQueryINTEL, queryId, queryHandle);
    intel_CreatePerfQueryINTEL(queryId, queryHandle);
}

PERFQ_GL_EXPORT void GLAPIENTRY glDeletePerfQueryINTEL(GLuint queryHandle)
{
    PASS(DeletePerfQueryINTEL, queryHandle);
    intel_DeletePerfQueryINTEL(queryHandle);
}

PERFQ_GL_EXPORT void GLAPIENTRY glBeginPerfQueryINTEL(GLuint queryHandle)
{
    PASS(BeginPerfQueryINTEL, queryHandle);
    intel_BeginPerfQueryINTEL(queryHandle);
}

PERFQ_GL_EXPORT void GLAPIENTRY glEndPerfQueryINTEL(GLuint queryHandle)
{
    PASS(EndPerfQueryINTEL, queryHandle);
    intel_EndPerfQueryINTEL(queryHandle);
}

PERFQ_GL_EXPORT void GLAPIENTRY glGetPerfQueryDataINTEL(GLuint queryHandle, GLuint flags,
                                                        GLsizei dataSize, void *data,
                                                        GLuint *bytesWritten)
{
    PASS(GetPerfQueryDataINTEL, queryHandle, flags, dataSize, data, bytesWritten);
    intel_GetPerfQueryDataINTEL(queryHandle, flags, dataSize, data, bytesWritten);
}

/* ---- registration ------------------------------------------------------------------------------ */

#define ENTRY(name) {#name, (void (*)(void))name},
static const struct perfq_gl_entry_point entry_points[] = {
    ENTRY(glGetFirstPerfQueryIdINTEL) ENTRY(glGetNextPerfQueryIdINTEL)
    ENTRY(glGetPerfQueryIdByNameINTEL) ENTRY(glGetPerfQueryInfoINTEL)
    ENTRY(glGetPerfCounterInfoINTEL) ENTRY(glCreatePerfQueryINTEL) ENTRY(glDeletePerfQueryINTEL)
    ENTRY(glBeginPerfQueryINTEL) ENTRY(glEndPerfQueryINTEL) ENTRY(glGetPerfQueryDataINTEL)
    {NULL, NULL},
};
#undef ENTRY

static const struct perfq_gl_extension gl_extensions[] = {
    {"GL_INTEL_performance_query", extension_available},
    {NULL, NULL},
};

static const struct perfq_gl_integer integers[] = {
    {GL_PERFQUERY_QUERY_NAME_LENGTH_MAX_INTEL, extension_available, integer_value},
    {GL_PERFQUERY_COUNTER_NAME_LENGTH_MAX_INTEL, extension_available, integer_value},
    {GL_PERFQUERY_COUNTER_DESC_LENGTH_MAX_INTEL, extension_available, integer_value},
    {GL_PERFQUERY_GPA_EXTENDED_COUNTERS_INTEL, extension_available, integer_value},
    {0, NULL, NULL},
};

static const struct perfq_gl_frontend intel_frontend = {
    .name = "GL_INTEL_performance_query",
    .scope = PERFQ_GL_SCOPE_CONTEXT,
    .created = context_created,
    .destroyed = context_destroyed,
    .entry_points = entry_points,
    .gl_extensions = gl_extensions,
    .integers = integers,
};

__attribute__((constructor)) static void intel_performance_query_register(void)
{
    frontend_id = perfq_gl_register_frontend(&intel_frontend);
}
