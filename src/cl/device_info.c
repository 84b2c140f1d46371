/*
 * clGetDeviceInfo: CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, and the extension added to
 * CL_DEVICE_EXTENSIONS and CL_DEVICE_EXTENSIONS_WITH_VERSION. clGetExtensionFunctionAddress
 * (and ...ForPlatform): clCreateCommandQueueWithPropertiesKHR (cl_khr_create_command_queue,
 * which the extension requires). A device whose own driver lists cl_codeplay_performance_counters
 * is passed through untouched (DESIGN.md: native implementations win).
 */
#include <stdlib.h>
#include <string.h>

#include "cl/extension_list.h"
#include "cl/layer.h"

/* What the layer caches of one device: its strings never change. */
struct device_entry {
    int native;
    char *extensions;                 /* the driver's list plus ours */
    size_t extensions_size;           /* with the NUL */
    cl_int with_version_err;          /* the driver's answer to _WITH_VERSION (1.2: an error) */
    cl_name_version *with_version;
    size_t with_version_count;
};

static struct perfq_cl_table devices = PERFQ_CL_TABLE_INIT;

static void free_entry(void *v)
{
    struct device_entry *e = v;
    if (!e)
        return;
    free(e->extensions);
    free(e->with_version);
    free(e);
}

static cl_int CL_API_CALL device_get(void *obj, cl_uint param, size_t size, void *value,
                                     size_t *size_ret)
{
    return perfq_cl_next.clGetDeviceInfo((cl_device_id)obj, param, size, value, size_ret);
}

static cl_int build_entry(cl_device_id device, struct device_entry *e)
{
    char *driver = NULL;
    cl_int err = perfq_cl_fetch_string(device_get, device, CL_DEVICE_EXTENSIONS, &driver);
    if (err != CL_SUCCESS)
        return err;
    e->native = perfq_cl_has_extension(driver, CL_CODEPLAY_PERFORMANCE_COUNTERS_EXTENSION_NAME);
    e->extensions = perfq_cl_extend_string(driver, &e->extensions_size);
    free(driver);
    if (!e->extensions)
        return CL_OUT_OF_HOST_MEMORY;
    cl_name_version *v = NULL;
    size_t n = 0;
    e->with_version_err = perfq_cl_fetch_versions(device_get, device,
                                                  CL_DEVICE_EXTENSIONS_WITH_VERSION, &v, &n);
    if (e->with_version_err == CL_OUT_OF_HOST_MEMORY)
        return CL_OUT_OF_HOST_MEMORY;
    if (e->with_version_err == CL_SUCCESS) {
        e->with_version = perfq_cl_extend_versions(v, n, &e->with_version_count);
        free(v);
        if (!e->with_version)
            return CL_OUT_OF_HOST_MEMORY;
    }
    return CL_SUCCESS;
}

/* The cached entry of a device, built on first use. CL_SUCCESS or the driver's error (a bad
 * device gets the driver's CL_INVALID_DEVICE). The entry lives until clDeinitLayer. */
static cl_int device_entry(cl_device_id device, struct device_entry **out)
{
    if (!device)
        return CL_INVALID_DEVICE;
    pthread_mutex_lock(&devices.lock);
    struct device_entry *e = perfq_cl_table_find_locked(&devices, device);
    pthread_mutex_unlock(&devices.lock);
    if (e) {
        *out = e;
        return CL_SUCCESS;
    }
    e = calloc(1, sizeof(*e));
    if (!e)
        return CL_OUT_OF_HOST_MEMORY;
    cl_int err = build_entry(device, e);
    if (err != CL_SUCCESS) {
        free_entry(e);
        return err;
    }
    void *old = NULL;
    pthread_mutex_lock(&devices.lock);
    struct device_entry *raced = perfq_cl_table_find_locked(&devices, device);
    if (raced) {
        free_entry(e);   /* another thread built it first: keep theirs, never free a live one */
        e = raced;
    } else if (perfq_cl_table_put_locked(&devices, device, e, &old) != 0) {
        pthread_mutex_unlock(&devices.lock);
        free_entry(e);
        return CL_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_unlock(&devices.lock);
    *out = e;
    return CL_SUCCESS;
}

cl_int perfq_cl_device_native(cl_device_id device, int *native)
{
    struct device_entry *e;
    cl_int err = device_entry(device, &e);
    if (err == CL_SUCCESS)
        *native = e->native;
    return err;
}

static cl_int CL_API_CALL GetDeviceInfo_wrap(cl_device_id device, cl_device_info param_name,
                                             size_t param_value_size, void *param_value,
                                             size_t *param_value_size_ret)
{
    if (param_name != CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY &&
        param_name != CL_DEVICE_EXTENSIONS && param_name != CL_DEVICE_EXTENSIONS_WITH_VERSION)
        return perfq_cl_next.clGetDeviceInfo(device, param_name, param_value_size, param_value,
                                             param_value_size_ret);
    struct device_entry *e;
    cl_int err = device_entry(device, &e);
    if (err != CL_SUCCESS)
        return err;
    if (e->native)
        return perfq_cl_next.clGetDeviceInfo(device, param_name, param_value_size, param_value,
                                             param_value_size_ret);
    switch (param_name) {
    case CL_DEVICE_EXTENSIONS:
        return perfq_cl_set_param(e->extensions, e->extensions_size, param_value_size,
                                  param_value, param_value_size_ret);
    case CL_DEVICE_EXTENSIONS_WITH_VERSION:
        if (e->with_version_err != CL_SUCCESS)
            return e->with_version_err;
        return perfq_cl_set_param(e->with_version, e->with_version_count * sizeof(cl_name_version),
                                  param_value_size, param_value, param_value_size_ret);
    default:
        break;
    }
    /* "Returns a list of performance counters supported by device. This is an array of
     * cl_performance_counter_codeplay structures." "If the device does not support performance
     * counters param_value_size_ret will return a value of 0." (OCK answers CL_INVALID_VALUE
     * there; perfq follows the text.) */
    size_t size = (size_t)perfq_cl_counter_count * sizeof(cl_performance_counter_codeplay);
    if (param_value && param_value_size < size)
        return CL_INVALID_VALUE;
    if (param_value)
        for (uint32_t i = 0; i < perfq_cl_counter_count; i++)
            memcpy((cl_performance_counter_codeplay *)param_value + i, &perfq_cl_counters[i].info,
                   sizeof(cl_performance_counter_codeplay));
    if (param_value_size_ret)
        *param_value_size_ret = size;
    return CL_SUCCESS;
}

static const char khr_create_queue[] = "clCreateCommandQueueWithPropertiesKHR";

static void *CL_API_CALL GetExtensionFunctionAddress_wrap(const char *func_name)
{
    if (func_name && strcmp(func_name, khr_create_queue) == 0)
        return (void *)perfq_clCreateCommandQueueWithPropertiesKHR;
    return perfq_cl_next.clGetExtensionFunctionAddress(func_name);
}

static void *CL_API_CALL GetExtensionFunctionAddressForPlatform_wrap(cl_platform_id platform,
                                                                     const char *func_name)
{
    if (platform && func_name && strcmp(func_name, khr_create_queue) == 0)
        return (void *)perfq_clCreateCommandQueueWithPropertiesKHR;
    return perfq_cl_next.clGetExtensionFunctionAddressForPlatform(platform, func_name);
}

void perfq_cl_install_device_info(cl_icd_dispatch *d)
{
    d->clGetDeviceInfo = GetDeviceInfo_wrap;
    d->clGetExtensionFunctionAddress = GetExtensionFunctionAddress_wrap;
    d->clGetExtensionFunctionAddressForPlatform = GetExtensionFunctionAddressForPlatform_wrap;
}

void perfq_cl_device_info_fini(void)
{
    perfq_cl_table_clear(&devices, free_entry);
}
