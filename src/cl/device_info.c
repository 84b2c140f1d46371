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
#include "providers/nvml_interval.h"

#ifndef CL_DEVICE_UUID_KHR
#define CL_DEVICE_UUID_KHR 0x106A   /* cl_khr_device_uuid */
#endif
#define NVIDIA_VENDOR_ID 0x10DEu

/* What the layer caches of one device: its extension lists (they never change). */
static struct perfq_cl_table devices = PERFQ_CL_TABLE_INIT;

static cl_int CL_API_CALL device_get(void *obj, cl_uint param, size_t size, void *value,
                                     size_t *size_ret)
{
    return perfq_cl_next.clGetDeviceInfo((cl_device_id)obj, param, size, value, size_ret);
}

/* Which NVML device an OpenCL device is: its CL_DEVICE_UUID_KHR (cl_khr_device_uuid; NVIDIA's
 * OpenCL gives the GPU's UUID, as NVML does), or, without that query, the only NVML device of a
 * machine with one. Only devices of NVIDIA's vendor id are asked; opening NVML the first time
 * costs a probe of its devices (tens of ms), once per OpenCL device. */
static int nvml_device_of(cl_device_id device)
{
    cl_uint vendor = 0;
    if (perfq_cl_next.clGetDeviceInfo(device, CL_DEVICE_VENDOR_ID, sizeof(vendor), &vendor,
                                      NULL) != CL_SUCCESS || vendor != NVIDIA_VENDOR_ID)
        return -1;
    unsigned char uuid[16];
    if (perfq_cl_next.clGetDeviceInfo(device, CL_DEVICE_UUID_KHR, sizeof(uuid), uuid, NULL) ==
        CL_SUCCESS)
        return perfq__nvml_device_from_uuid(uuid);
    return perfq__nvml_device_count() == 1 ? 0 : -1;
}

static int build_entry(const void *device, void **out)
{
    int err = perfq_cl_extension_lists_new(device_get, device, CL_DEVICE_EXTENSIONS,
                                           CL_DEVICE_EXTENSIONS_WITH_VERSION, out);
    if (err == CL_SUCCESS) {
        struct perfq_cl_extension_lists *e = *out;
        e->nvml_device = e->native || perfq_cl_counter_count == perfq_cl_base_counter_count
                             ? -1 : nvml_device_of((cl_device_id)(uintptr_t)device);
    }
    return err;
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

cl_int perfq_cl_device_nvml(cl_device_id device, int *nvml_device, uint32_t *counter_count)
{
    struct perfq_cl_extension_lists *e;
    cl_int err = device_entry(device, &e);
    if (err == CL_SUCCESS) {
        *nvml_device = e->nvml_device;
        *counter_count = e->nvml_device >= 0 ? perfq_cl_counter_count
                                             : perfq_cl_base_counter_count;
    }
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
    uint32_t count = e->nvml_device >= 0 ? perfq_cl_counter_count : perfq_cl_base_counter_count;
    size_t size = (size_t)count * sizeof(cl_performance_counter_codeplay);
    if (param_value && param_value_size < size)
        return CL_INVALID_VALUE;
    if (param_value)
        for (uint32_t i = 0; i < count; i++)
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
