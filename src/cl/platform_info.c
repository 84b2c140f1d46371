/*
 * clGetPlatformInfo: CL_PLATFORM_EXTENSIONS and CL_PLATFORM_EXTENSIONS_WITH_VERSION list
 * cl_khr_create_command_queue and cl_codeplay_performance_counters too, since the layer gives
 * every device of the platform both (a platform's list holds what all its devices support).
 */
#include <stdlib.h>
#include <string.h>

#include "cl/extension_list.h"
#include "cl/layer.h"

struct platform_entry {
    char *extensions;
    size_t extensions_size;
    cl_int with_version_err;
    cl_name_version *with_version;
    size_t with_version_count;
};

static struct perfq_cl_table platforms = PERFQ_CL_TABLE_INIT;

static void free_entry(void *v)
{
    struct platform_entry *e = v;
    if (!e)
        return;
    free(e->extensions);
    free(e->with_version);
    free(e);
}

static cl_int CL_API_CALL platform_get(void *obj, cl_uint param, size_t size, void *value,
                                       size_t *size_ret)
{
    return perfq_cl_next.clGetPlatformInfo((cl_platform_id)obj, param, size, value, size_ret);
}

static cl_int build_entry(cl_platform_id platform, struct platform_entry *e)
{
    char *driver = NULL;
    cl_int err = perfq_cl_fetch_string(platform_get, platform, CL_PLATFORM_EXTENSIONS, &driver);
    if (err != CL_SUCCESS)
        return err;
    e->extensions = perfq_cl_extend_string(driver, &e->extensions_size);
    free(driver);
    if (!e->extensions)
        return CL_OUT_OF_HOST_MEMORY;
    cl_name_version *v = NULL;
    size_t n = 0;
    e->with_version_err = perfq_cl_fetch_versions(platform_get, platform,
                                                  CL_PLATFORM_EXTENSIONS_WITH_VERSION, &v, &n);
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

/* The platform's cached entry (its strings never change), built on first use. */
static cl_int platform_entry(cl_platform_id platform, struct platform_entry **out)
{
    pthread_mutex_lock(&platforms.lock);
    struct platform_entry *e = perfq_cl_table_find_locked(&platforms, platform);
    pthread_mutex_unlock(&platforms.lock);
    if (e) {
        *out = e;
        return CL_SUCCESS;
    }
    e = calloc(1, sizeof(*e));
    if (!e)
        return CL_OUT_OF_HOST_MEMORY;
    cl_int err = build_entry(platform, e);
    if (err != CL_SUCCESS) {
        free_entry(e);
        return err;
    }
    void *old = NULL;
    pthread_mutex_lock(&platforms.lock);
    struct platform_entry *raced = perfq_cl_table_find_locked(&platforms, platform);
    if (raced) {
        free_entry(e);
        e = raced;
    } else if (perfq_cl_table_put_locked(&platforms, platform, e, &old) != 0) {
        pthread_mutex_unlock(&platforms.lock);
        free_entry(e);
        return CL_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_unlock(&platforms.lock);
    *out = e;
    return CL_SUCCESS;
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
    struct platform_entry *e;
    cl_int err = platform_entry(platform, &e);
    if (err != CL_SUCCESS)
        return err;
    if (param_name == CL_PLATFORM_EXTENSIONS)
        return perfq_cl_set_param(e->extensions, e->extensions_size, param_value_size,
                                  param_value, param_value_size_ret);
    if (e->with_version_err != CL_SUCCESS)
        return e->with_version_err;
    return perfq_cl_set_param(e->with_version, e->with_version_count * sizeof(cl_name_version),
                              param_value_size, param_value, param_value_size_ret);
}

void perfq_cl_install_platform_info(cl_icd_dispatch *d)
{
    d->clGetPlatformInfo = GetPlatformInfo_wrap;
}

void perfq_cl_platform_info_fini(void)
{
    perfq_cl_table_clear(&platforms, free_entry);
}
