/* A minimal OpenCL ICD with one platform and no device, for test_cli's platform order test:
 * ocl-icd accepts it (cl_khr_icd, an ICD suffix) and it is built twice, under two names
 * (STUB_NAME), so that a test has two ICDs without a driver. Platforms are ICD objects: their
 * first member is the dispatch table (clGetPlatformIDs, clGetPlatformInfo, clGetDeviceIDs
 * first). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CL_SUCCESS 0
#define CL_DEVICE_NOT_FOUND (-1)
#define CL_INVALID_VALUE (-30)
#define CL_INVALID_PLATFORM (-32)
#define CL_PLATFORM_PROFILE 0x0900
#define CL_PLATFORM_VERSION 0x0901
#define CL_PLATFORM_NAME 0x0902
#define CL_PLATFORM_VENDOR 0x0903
#define CL_PLATFORM_EXTENSIONS 0x0904
#define CL_PLATFORM_ICD_SUFFIX_KHR 0x0920

#define EXPORT __attribute__((visibility("default")))

typedef void (*any_fn)(void);

struct platform {
    const any_fn *dispatch;
};

EXPORT int clIcdGetPlatformIDsKHR(unsigned num_entries, struct platform **platforms,
                                  unsigned *num_platforms);
EXPORT int clGetPlatformInfo(struct platform *p, unsigned name, size_t size, void *value,
                             size_t *size_ret);
EXPORT void *clGetExtensionFunctionAddress(const char *name);

static int get_platform_ids(unsigned num_entries, struct platform **platforms,
                            unsigned *num_platforms);
static int get_platform_info(struct platform *p, unsigned name, size_t size, void *value,
                             size_t *size_ret);

static int get_device_ids(struct platform *p, unsigned long type, unsigned n, void **devices,
                          unsigned *num)
{
    (void)p, (void)type, (void)n, (void)devices;
    if (num)
        *num = 0;
    return CL_DEVICE_NOT_FOUND;
}

static const any_fn dispatch[64] = {
    (any_fn)get_platform_ids, (any_fn)get_platform_info, (any_fn)get_device_ids,
};
static struct platform the_platform = {dispatch};

/* The exported names bind to the loader's definitions of the same names when it is loaded
 * first (no -Bsymbolic here): the dispatch table and the extension lookup use the static ones. */
int clIcdGetPlatformIDsKHR(unsigned num_entries, struct platform **platforms,
                           unsigned *num_platforms)
{
    return get_platform_ids(num_entries, platforms, num_platforms);
}

int clGetPlatformInfo(struct platform *p, unsigned name, size_t size, void *value,
                      size_t *size_ret)
{
    return get_platform_info(p, name, size, value, size_ret);
}

static int get_platform_ids(unsigned num_entries, struct platform **platforms,
                            unsigned *num_platforms)
{
    if ((!platforms && !num_platforms) || (platforms && num_entries == 0))
        return CL_INVALID_VALUE;
    if (platforms)
        platforms[0] = &the_platform;
    if (num_platforms)
        *num_platforms = 1;
    return CL_SUCCESS;
}

static int get_platform_info(struct platform *p, unsigned name, size_t size, void *value,
                             size_t *size_ret)
{
    const char *s;
    if (p != &the_platform)
        return CL_INVALID_PLATFORM;
    switch (name) {
    case CL_PLATFORM_PROFILE: s = "FULL_PROFILE"; break;
    case CL_PLATFORM_VERSION: s = "OpenCL 1.2 stub"; break;
    case CL_PLATFORM_NAME: s = STUB_NAME; break;
    case CL_PLATFORM_VENDOR: s = "perfq tests"; break;
    case CL_PLATFORM_EXTENSIONS: s = "cl_khr_icd"; break;
    case CL_PLATFORM_ICD_SUFFIX_KHR: s = "PQSTUB"; break;
    default: return CL_INVALID_VALUE;
    }
    size_t len = strlen(s) + 1;
    if (value) {
        if (size < len)
            return CL_INVALID_VALUE;
        memcpy(value, s, len);
    }
    if (size_ret)
        *size_ret = len;
    return CL_SUCCESS;
}

void *clGetExtensionFunctionAddress(const char *name)
{
    if (name && strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
        return (void *)(uintptr_t)get_platform_ids;
    if (name && strcmp(name, "clGetPlatformInfo") == 0)
        return (void *)(uintptr_t)get_platform_info;
    return NULL;
}
