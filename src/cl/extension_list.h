/* The extension names the layer adds to the driver's lists (device and platform), and the
 * helpers that add them. */
#ifndef PERFQ_CL_EXTENSION_LIST_H
#define PERFQ_CL_EXTENSION_LIST_H

#include <stddef.h>

#include "cl/layer.h"

/* Whether a space-separated extension list holds name as a whole word. */
int perfq_cl_has_extension(const char *list, const char *name);

/* The driver's string (NUL-terminated) plus each added name it lacks, space-separated; NULL
 * when out of memory. *size: bytes with the NUL. */
char *perfq_cl_extend_string(const char *driver, size_t *size);

/* The driver's cl_name_version list plus each added name it lacks (version 1.0.0); NULL when
 * out of memory. *count: entries. */
cl_name_version *perfq_cl_extend_versions(const cl_name_version *driver, size_t n, size_t *count);

/* Fetches a driver string (get(obj, param, ...) is clGetDeviceInfo or clGetPlatformInfo) into a
 * new NUL-terminated buffer. CL_SUCCESS or the driver's error. */
typedef cl_int(CL_API_CALL *perfq_cl_info_fn)(void *obj, cl_uint param, size_t size, void *value,
                                              size_t *size_ret);
cl_int perfq_cl_fetch_string(perfq_cl_info_fn get, void *obj, cl_uint param, char **out);
/* The same for a cl_name_version list; an error (a 1.2 driver) is returned as is. */
cl_int perfq_cl_fetch_versions(perfq_cl_info_fn get, void *obj, cl_uint param,
                               cl_name_version **out, size_t *n);

/* The extension lists of one device or platform as the program sees them (the driver's plus
 * perfq's), built once and cached: its strings never change. */
struct perfq_cl_extension_lists {
    int native;                       /* the driver itself has cl_codeplay_performance_counters */
    char *extensions;                 /* NUL-terminated */
    size_t extensions_size;           /* with the NUL */
    cl_int with_version_err;          /* the driver's answer to _WITH_VERSION (1.2: an error) */
    cl_name_version *with_version;
    size_t with_version_count;
    int nvml_device;                  /* devices: the NVML device it is, or -1 (device_info.c) */
};

/* Builds the lists of obj from get(obj, extensions_param / versions_param) into *out (a new
 * record). CL_SUCCESS, the driver's error for the string list, or CL_OUT_OF_HOST_MEMORY. */
cl_int perfq_cl_extension_lists_new(perfq_cl_info_fn get, const void *obj,
                                    cl_uint extensions_param, cl_uint versions_param,
                                    void **out);
/* Frees a record of perfq_cl_extension_lists_new (NULL is ignored). */
void perfq_cl_extension_lists_destroy(void *lists);

/* Answers a query of the string list (with_version 0) or the versioned list (1) as
 * clGet*Info does. */
cl_int perfq_cl_extension_lists_answer(const struct perfq_cl_extension_lists *l, int with_version,
                                       size_t param_value_size, void *param_value,
                                       size_t *param_value_size_ret);

#endif
