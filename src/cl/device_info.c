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

/* What the layer caches of one device: its extension lists (they never change). */
static struct perfq_cl_table devices = PERFQ_CL_TABLE_INIT;

static cl_int CL_API_CALL device_get(void *obj, cl_uint param, size_t size, void *value,
                                     size_t *size_ret)
{
    return perfq_cl_next.clGetDeviceInfo((cl_device_id)obj, param, size, value, size_ret);
}

static int build_entry(const void *device, void **out)
{
    return perfq_cl_extension_lists_new(device_get, device, CL_DEVICE_EXTENSIONS,
                                        CL_DEVICE_EXTENSIONS_WITH_VERSION, out);
}

/* The cached entry of a device, built on first use. CL_SUCCESS or the driver's error (a bad
 * device gets the driver's CL_INVALID_DEVICE). The entry lives until clDeinitLayer. */
static cl_int device_entry(cl_device_id device, struct perfq_cl_extension_lists **out)
{
    if (!device)
        return CL_INVALID_DEVICE;
    void *entry = NULL;
    cl_int err = perfq_cl_table_get_or_build(&devices, device, build_entry,
                                             perfq_cl_extension_lists_destroy,
                                             CL_OUT_OF_HOST_MEMORY, &entry);
    *out = entry;
    return err;
}

cl_int perfq_cl_device_native(cl_device_id device, int *native)
{
    struct perfq_cl_extension_lists *e;
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
    struct perfq_cl_extension_lists *e;
    cl_int err = device_entry(device, &e);
    if (err != CL_SUCCESS)
        return err;
    if (e->native)
        return perfq_cl_next.clGetDeviceInfo(device, param_name, param_value_size, param_value,
                                             param_value_size_ret);
    if (param_name != CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY)
        return perfq_cl_extension_lists_answer(e, param_name == CL_DEVICE_EXTENSIONS_WITH_VERSION,
                                               param_value_size, param_value,
                                               param_value_size_ret);
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
    perfq_cl_table_clear(&devices, perfq_cl_extension_lists_destroy);
}
