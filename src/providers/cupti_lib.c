/* The CUPTI providers' shared library code (cupti_lib.h). */
#include "providers/cupti_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* Resolves each X(name, ret, args) of a list from `lib` into f->name; a missing one returns -1
 * from the calling function with the reason ("<lib_name> lacks <name><hint>"). */
#define PERFQ_CUPTI_DLSYM(lib, lib_name, hint, name, ret, args)                              \
    if (!(f->name = (ret(*) args)dlsym(lib, #name))) {                                      \
        snprintf(reason, size, "%s lacks %s%s", lib_name, #name, hint);                     \
        return -1;                                                                          \
    }

int perfq__cupti_load_cuda(struct perfq_cupti_fns *f, int range, char *reason, size_t size)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) {
        const char *e = dlerror();
        snprintf(reason, size, "libcuda.so.1 not found (no NVIDIA driver): %s", e ? e : "");
        return -1;
    }
#define LOAD_CUDA(name, ret, args) PERFQ_CUPTI_DLSYM(cuda, "libcuda.so.1", "", name, ret, args)
    PERFQ_CUDA_FUNCTIONS(LOAD_CUDA)
    if (range) {
        PERFQ_CUDA_RANGE_FUNCTIONS(LOAD_CUDA)
    }
#undef LOAD_CUDA
    return 0;
}

static void *open_cupti(void)
{
    const char *env = getenv("PERFQ_CUPTI_LIBRARY");
    static const char *const names[] = {
        "libcupti.so.13", "libcupti.so", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
        "/usr/local/cuda/lib64/libcupti.so",
        "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so",
    };
    if (env && *env)
        return dlopen(env, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

int perfq__cupti_load_cupti(struct perfq_cupti_fns *f, int range, char *reason, size_t size)
{
    void *cupti = open_cupti();
    if (!cupti) {
        const char *e = dlerror();
        snprintf(reason, size, "libcupti not found (the CUDA toolkit's CUPTI; set "
                 "PERFQ_CUPTI_LIBRARY to its path): %s", e ? e : "");
        return -1;
    }
#define LOAD_CUPTI(name, ret, args)                                                          \
    PERFQ_CUPTI_DLSYM(cupti, "libcupti", " (CUPTI 13 or later needed)", name, ret, args)
    PERFQ_CUPTI_FUNCTIONS(LOAD_CUPTI)
    if (range) {
        PERFQ_CUPTI_RANGE_FUNCTIONS(LOAD_CUPTI)
    }
#undef LOAD_CUPTI
    return 0;
}

int perfq__cupti_init_driver(const struct perfq_cupti_fns *f, int *count, char *reason,
                             size_t size)
{
    CUresult cr = f->cuInit(0);
    if (cr != CUDA_SUCCESS) {
        snprintf(reason, size, "cuInit failed (CUDA error %d)", (int)cr);
        return -1;
    }
    *count = 0;
    if (f->cuDeviceGetCount(count) != CUDA_SUCCESS || *count <= 0) {
        snprintf(reason, size, "CUDA found no device");
        return -1;
    }
    CUpti_Profiler_Initialize_Params pi = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Initialize_Params, pPriv), NULL};
    CUptiResult rc = f->cuptiProfilerInitialize(&pi);
    if (rc != CUPTI_SUCCESS) {
        perfq__cupti_explain(f, reason, size, "cuptiProfilerInitialize", rc);
        return -1;
    }
    return 0;
}

void perfq__cupti_explain(const struct perfq_cupti_fns *f, char *out, size_t size,
                          const char *call, CUptiResult rc)
{
    const char *message = NULL, *why = "";
    if (!f->cuptiGetResultString || f->cuptiGetResultString(rc, &message) != CUPTI_SUCCESS ||
        !message)
        message = "unknown CUPTI error";
    if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
        rc == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
        why = " (no permission: the driver restricts GPU performance counters to admin users, "
              "NVreg_RestrictProfilingToAdminUsers=1; run as root or change that setting)";
    else if (rc == CUPTI_ERROR_HARDWARE_BUSY)
        why = " (the counters are held by another process or profiler session)";
    snprintf(out, size, "%s: %s%s", call, message, why);
}

void perfq__cupti_host_free(const struct perfq_cupti_fns *f, CUpti_Profiler_Host_Object **host)
{
    if (!*host)
        return;
    CUpti_Profiler_Host_Deinitialize_Params p = {
        PERFQ_CUPTI_SIZE(CUpti_Profiler_Host_Deinitialize_Params, pHostObject), NULL, *host};
    f->cuptiProfilerHostDeinitialize(&p);
    *host = NULL;
}
