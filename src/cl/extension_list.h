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

#endif
