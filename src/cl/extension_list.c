/* Adding cl_khr_create_command_queue and cl_codeplay_performance_counters to the driver's
 * extension lists (see extension_list.h). */
#include <stdlib.h>
#include <string.h>

#include "cl/extension_list.h"

static const char *const added[] = {
    "cl_khr_create_command_queue",   /* required by the extension; the layer provides it */
    CL_CODEPLAY_PERFORMANCE_COUNTERS_EXTENSION_NAME,
};
#define ADDED_COUNT (sizeof(added) / sizeof(added[0]))

int perfq_cl_has_extension(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

char *perfq_cl_extend_string(const char *driver, size_t *size)
{
    size_t len = strlen(driver), extra = 0;
    for (size_t i = 0; i < ADDED_COUNT; i++)
        extra += strlen(added[i]) + 1;
    char *s = malloc(len + extra + 1);
    if (!s)
        return NULL;
    memcpy(s, driver, len + 1);
    for (size_t i = 0; i < ADDED_COUNT; i++) {
        if (perfq_cl_has_extension(driver, added[i]))
            continue;
        if (len && s[len - 1] != ' ')
            s[len++] = ' ';
        memcpy(s + len, added[i], strlen(added[i]) + 1);
        len += strlen(added[i]);
    }
    *size = len + 1;
    return s;
}

cl_name_version *perfq_cl_extend_versions(const cl_name_version *driver, size_t n, size_t *count)
{
    cl_name_version *v = calloc(n + ADDED_COUNT + 1, sizeof(*v));
    if (!v)
        return NULL;
    if (n)
        memcpy(v, driver, n * sizeof(*v));
    for (size_t i = 0; i < ADDED_COUNT; i++) {
        int present = 0;
        for (size_t j = 0; j < n; j++)
            if (strncmp(driver[j].name, added[i], sizeof(driver[j].name)) == 0)
                present = 1;
        if (present)
            continue;
        v[n].version = CL_MAKE_VERSION(1, 0, 0);
        strncpy(v[n].name, added[i], sizeof(v[n].name) - 1);
        n++;
    }
    *count = n;
    return v;
}

cl_int perfq_cl_fetch_string(perfq_cl_info_fn get, void *obj, cl_uint param, char **out)
{
    size_t size = 0;
    cl_int err = get(obj, param, 0, NULL, &size);
    if (err != CL_SUCCESS)
        return err;
    char *s = calloc(1, size + 1);
    if (!s)
        return CL_OUT_OF_HOST_MEMORY;
    err = get(obj, param, size, s, NULL);
    if (err != CL_SUCCESS) {
        free(s);
        return err;
    }
    s[size] = '\0';   /* a driver that forgot its NUL */
    *out = s;
    return CL_SUCCESS;
}

cl_int perfq_cl_fetch_versions(perfq_cl_info_fn get, void *obj, cl_uint param,
                               cl_name_version **out, size_t *n)
{
    size_t size = 0;
    cl_int err = get(obj, param, 0, NULL, &size);
    if (err != CL_SUCCESS)
        return err;
    size_t count = size / sizeof(cl_name_version);
    cl_name_version *v = calloc(count + 1, sizeof(*v));
    if (!v)
        return CL_OUT_OF_HOST_MEMORY;
    err = get(obj, param, count * sizeof(*v), v, NULL);
    if (err != CL_SUCCESS) {
        free(v);
        return err;
    }
    *out = v;
    *n = count;
    return CL_SUCCESS;
}

static cl_int build(struct perfq_cl_extension_lists *l, perfq_cl_info_fn get, void *obj,
                    cl_uint extensions_param, cl_uint versions_param)
{
    char *driver = NULL;
    cl_int err = perfq_cl_fetch_string(get, obj, extensions_param, &driver);
    if (err != CL_SUCCESS)
        return err;
    l->native = perfq_cl_has_extension(driver, CL_CODEPLAY_PERFORMANCE_COUNTERS_EXTENSION_NAME);
    l->extensions = perfq_cl_extend_string(driver, &l->extensions_size);
    free(driver);
    if (!l->extensions)
        return CL_OUT_OF_HOST_MEMORY;
    cl_name_version *v = NULL;
    size_t n = 0;
    l->with_version_err = perfq_cl_fetch_versions(get, obj, versions_param, &v, &n);
    if (l->with_version_err == CL_OUT_OF_HOST_MEMORY)
        return CL_OUT_OF_HOST_MEMORY;
    if (l->with_version_err == CL_SUCCESS) {
        l->with_version = perfq_cl_extend_versions(v, n, &l->with_version_count);
        free(v);
        if (!l->with_version)
            return CL_OUT_OF_HOST_MEMORY;
    }
    return CL_SUCCESS;
}

cl_int perfq_cl_extension_lists_new(perfq_cl_info_fn get, const void *obj,
                                    cl_uint extensions_param, cl_uint versions_param,
                                    void **out)
{
    struct perfq_cl_extension_lists *l = calloc(1, sizeof(*l));
    if (!l)
        return CL_OUT_OF_HOST_MEMORY;
    cl_int err = build(l, get, (void *)obj, extensions_param, versions_param);
    if (err != CL_SUCCESS) {
        perfq_cl_extension_lists_destroy(l);
        return err;
    }
    *out = l;
    return CL_SUCCESS;
}

void perfq_cl_extension_lists_destroy(void *lists)
{
    struct perfq_cl_extension_lists *l = lists;
    if (!l)
        return;
    free(l->extensions);
    free(l->with_version);
    free(l);
}

cl_int perfq_cl_extension_lists_answer(const struct perfq_cl_extension_lists *l, int with_version,
                                       size_t param_value_size, void *param_value,
                                       size_t *param_value_size_ret)
{
    if (!with_version)
        return perfq_cl_set_param(l->extensions, l->extensions_size, param_value_size,
                                  param_value, param_value_size_ret);
    if (l->with_version_err != CL_SUCCESS)
        return l->with_version_err;
    return perfq_cl_set_param(l->with_version, l->with_version_count * sizeof(cl_name_version),
                              param_value_size, param_value, param_value_size_ret);
}
