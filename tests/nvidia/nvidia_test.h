/* What the NVIDIA providers' catalog tests share (include after <cmocka.h>). */
#ifndef PERFQ_TESTS_NVIDIA_TEST_H
#define PERFQ_TESTS_NVIDIA_TEST_H

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "perfq/perfq.h"
#include "../test_util.h"

/* 1 if the library loads here (the driver's: libcuda.so.1, libnvidia-ml.so.1). */
static inline int nvt_have_library(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h != NULL;
}

/* 1 and *out if the catalog lists a group of that name; every group's info must read. */
static inline int nvt_find_group(perfq_t *pq, const char *name, perfq_group_info_t *out)
{
    uint32_t n;
    assert_int_equal(perfq_group_count(pq, &n), PERFQ_OK);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(perfq_group_info(pq, i, out), PERFQ_OK);
        if (strcmp(out->name, name) == 0)
            return 1;
    }
    return 0;
}

#endif
