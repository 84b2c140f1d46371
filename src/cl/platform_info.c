/*
 * clGetPlatformInfo: CL_PLATFORM_EXTENSIONS and CL_PLATFORM_EXTENSIONS_WITH_VERSION list
 * cl_khr_create_command_queue and cl_codeplay_performance_counters too, since the layer gives
 * every device of the platform both (a platform's list holds what all its devices support).
 */
#include <stdlib.h>
#include <string.h>

#include "cl/extension_list.h"
#include "cl/layer.h"

/* What the layer caches of one platform: its extension lists (they never change). */
static struct perfq_cl_table platforms = PERFQ_CL_TABLE_INIT;

static cl_int CL_API_CALL platform_get(void *obj, cl_uint param, size_t size, void *value,
                                       size_t *size_ret)
{
    return perfq_cl_next.clGetPlatformInfo((cl_platform_id)obj, param, size, value, size_ret);
}

static int build_entry(const void *platform, void **out)
{
    return perfq_cl_extension_lists_new(platform_get, platform, CL_PLATFORM_EXTENSIONS,
                                        CL_PLATFORM_EXTENSIONS_WITH_VERSION, out);
}

static cl_int CL_API_CALL GetPlatformInfo_wrap(cl_platform_id platform,
                                               cl_platform_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret)
{
    /* A NULL platform means the loader's default one: left to the loader and driver. */
    if (!platform || (param_name != CL_PLATFORM_EXTENSIONS &&
                      param_name != CL_PLATFORM_EXTENSIONS_WITH_VERSION))
        return perfq_cl_next.clGetPlatformInfo(platform, param_name, param_value_size,
                                               param_value, param_value_size_ret);
    void *lists = NULL;
    cl_int err = perfq_cl_table_get_or_build(&platforms, platform, build_entry,
                                             perfq_cl_extension_lists_destroy,
                                             CL_OUT_OF_HOST_MEMORY, &lists);
    if (err != CL_SUCCESS)
        return err;
    return perfq_cl_extension_lists_answer(lists, param_name == CL_PLATFORM_EXTENSIONS_WITH_VERSION,
                                           param_value_size, param_value, param_value_size_ret);
}

void perfq_cl_install_platform_info(cl_icd_dispatch *d)
{
    d->clGetPlatformInfo = GetPlatformInfo_wrap;
}

void perfq_cl_platform_info_fini(void)
{
    perfq_cl_table_clear(&platforms, perfq_cl_extension_lists_destroy);
}
