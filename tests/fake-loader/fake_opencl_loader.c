/* A stand-in for an ICD loader that ignores layers (like the CUDA toolkit's libOpenCL.so.1):
 * it exists so that the CLI tests can check that `perfq run` notices and preloads a loader that
 * reads the layer variable, and that the loader it preloads lists the platforms in this one's
 * order. It never names the layer variable. Its ICDs are the libraries listed, ':'-separated, in
 * PERFQ_TEST_ICDS, and it lists their platforms in that order (a loader whose order is not
 * ocl-icd's: CUDA's lists PoCL before NVIDIA where ocl-icd lists NVIDIA first). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define CL_INVALID_VALUE (-30)
#define CL_INVALID_PLATFORM (-32)
#define CL_PLATFORM_NOT_FOUND_KHR (-1001)

typedef int (*icd_ids_fn)(unsigned, void **, unsigned *);
typedef int (*info_fn)(void *, unsigned, size_t, void *, size_t *);

EXPORT int perfq_fake_opencl_loader(void);
EXPORT int clGetPlatformIDs(unsigned num_entries, void **platforms, unsigned *num_platforms);
EXPORT int clGetPlatformInfo(void *platform, unsigned name, size_t size, void *value,
                             size_t *size_ret);

int perfq_fake_opencl_loader(void)
{
    return 1;
}

static void *found[16];
static unsigned nfound = 0, loaded = 0;

static void load(void)
{
    const char *list = getenv("PERFQ_TEST_ICDS");
    char copy[4096];
    loaded = 1;
    if (!list || strlen(list) >= sizeof(copy))
        return;
    strcpy(copy, list);
    for (char *save = NULL, *lib = strtok_r(copy, ":", &save); lib;
         lib = strtok_r(NULL, ":", &save)) {
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        icd_ids_fn ids = h ? (icd_ids_fn)(uintptr_t)dlsym(h, "clIcdGetPlatformIDsKHR") : NULL;
        unsigned n = 0;
        if (ids && ids(16 - nfound, found + nfound, &n) == 0)
            nfound += n < 16 - nfound ? n : 16 - nfound;
    }
}

int clGetPlatformIDs(unsigned num_entries, void **platforms, unsigned *num_platforms)
{
    if (!loaded)
        load();
    if ((!platforms && !num_platforms) || (platforms && num_entries == 0))
        return CL_INVALID_VALUE;
    if (num_platforms)
        *num_platforms = nfound;
    if (!nfound)
        return CL_PLATFORM_NOT_FOUND_KHR;
    for (unsigned i = 0; platforms && i < nfound && i < num_entries; i++)
        platforms[i] = found[i];
    return 0;
}

int clGetPlatformInfo(void *platform, unsigned name, size_t size, void *value, size_t *size_ret)
{
    if (!platform)
        return CL_INVALID_PLATFORM;
    void *const *dispatch = *(void *const *const *)platform;
    return ((info_fn)(uintptr_t)dispatch[1])(platform, name, size, value, size_ret);
}
