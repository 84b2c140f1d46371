/*
 * The INTEL query types as a view of the perfq catalog, without GL: the documented "Host CPU"
 * type from the real host providers, a group added by another provider appearing as a query
 * type of its own (named by the group, caps from its scope, data types from its storage), the
 * result layout, and intel_query_type_write_result() never writing past dataSize.
 *
 * The extra provider here is test-only (compiled into this binary, never shipped): it stands
 * for a later provider (NVML, CUPTI) and returns fixed values so that the layout can be checked
 * byte for byte.
 */
#include <GL/gl.h>
#include <GL/glext.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/provider.h"
#include "gl/intel/intel_query_types.h"

static const struct perfq_group_desc device_group = {
    "test-device", "test-only provider: a device-wide group", PERFQ_SCOPE_DEVICE, 0};
static const struct perfq_group_desc timeline_group = {
    "test-timeline", "test-only provider: a GPU-timeline group", PERFQ_SCOPE_GPU_TIMELINE, 0};
static const struct perfq_group_desc empty_group = {
    "test-unavailable", "test-only provider: an unavailable group", PERFQ_SCOPE_DEVICE, 0};

static const struct perfq_counter_desc device_counters[] = {
    {"flag", "Test", "a BOOL32", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_BOOL32, PERFQ_INTEL_RAW, 0, 1,
     1, 0, 0},
    {"energy", "Test", "a UINT64 after a BOOL32 (padding)", PERFQ_UNIT_GENERIC,
     PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, 1, 0},
    {"power", "Test", "a FLOAT64 gauge with a max", PERFQ_UNIT_WATTS, PERFQ_STORAGE_FLOAT64,
     PERFQ_INTEL_RAW, 0, 700, 1, 2, 0},
    {"count32", "Test", "a UINT32", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT32,
     PERFQ_INTEL_THROUGHPUT, 0, 0, 1, 3, 0},
    {"ratio", "Test", "a FLOAT32", PERFQ_UNIT_PERCENTAGE, PERFQ_STORAGE_FLOAT32,
     PERFQ_INTEL_DURATION_NORM, 0, 0, 1, 4, 0},
    {"missing", "Test", "an unavailable counter", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64,
     PERFQ_INTEL_EVENT, 0, 0, 1, 5, 0},
};

static const struct perfq_counter_desc timeline_counters[] = {
    {"stamp", "Test", "a timestamp", PERFQ_UNIT_NANOSECONDS, PERFQ_STORAGE_UINT64,
     PERFQ_INTEL_TIMESTAMP, 0, 0, 1, 0, 0},
};

static perfq_status_t test_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    (void)reason;
    (void)size;
    *state = (void *)&device_group;
    return PERFQ_OK;
}

static perfq_status_t test_enumerate(void *state, struct perfq_catalog *c, const char *why)
{
    (void)state;
    (void)why;
    uint32_t g;
    perfq_status_t st = perfq_catalog_add_group(c, &device_group, NULL, &g);
    for (size_t i = 0; st == PERFQ_OK && i < 6; i++)
        st = perfq_catalog_add_counter(c, g, &device_counters[i], i == 5 ? "not here" : NULL);
    if (st == PERFQ_OK)
        st = perfq_catalog_add_group(c, &timeline_group, NULL, &g);
    if (st == PERFQ_OK)
        st = perfq_catalog_add_counter(c, g, &timeline_counters[0], NULL);
    if (st == PERFQ_OK)
        st = perfq_catalog_add_group(c, &empty_group, "no device", &g);
    if (st == PERFQ_OK)
        st = perfq_catalog_add_counter(c, g, &timeline_counters[0], NULL);
    return st;
}

static const struct perfq_provider_ops test_provider = {
    .name = "test", .probe = test_probe, .enumerate = test_enumerate,
};

/* Stands in for the built-in "cupti-range" (an extra provider replaces the built-in one of its
 * name): an available group of CUPTI's range profiler, as on the GPU machine. */
static const struct perfq_group_desc range_group = {
    "cupti-range-gpu0", "test-only stand-in for CUPTI's range profiler",
    PERFQ_SCOPE_GPU_TIMELINE, 0};

static perfq_status_t range_enumerate(void *state, struct perfq_catalog *c, const char *why)
{
    (void)state;
    (void)why;
    uint32_t g;
    perfq_status_t st = perfq_catalog_add_group(c, &range_group, NULL, &g);
    for (size_t i = 0; st == PERFQ_OK && i < 5; i++)
        st = perfq_catalog_add_counter(c, g, &device_counters[i], NULL);
    return st;
}

static const struct perfq_provider_ops range_provider = {
    .name = "cupti-range", .probe = test_probe, .enumerate = range_enumerate,
};

static perfq_t *pq;
static struct intel_query_types types;

static int setup(void **state)
{
    (void)state;
    const struct perfq_provider_ops *ops[] = {&range_provider, &test_provider};
    if (perfq__open_with(ops, NULL, 2, 1, &pq) != PERFQ_OK)
        return -1;
    return intel_query_types_build(pq, &types) == PERFQ_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    intel_query_types_free(&types);
    perfq_close(&pq);
    return 0;
}

static const struct intel_query_type *find(const char *name)
{
    for (uint32_t i = 0; i < types.count; i++)
        if (strcmp(types.types[i].name, name) == 0)
            return &types.types[i];
    return NULL;
}

static const struct intel_counter *counter(const struct intel_query_type *t, const char *name)
{
    for (uint32_t i = 0; i < t->counter_count; i++)
        if (strcmp(t->counters[i].name, name) == 0)
            return &t->counters[i];
    return NULL;
}

/* "Host CPU": first "CPU Time" (process CPU clock), then "Wall Time", then the other available
 * host counters under their full catalog names; global caps. */
static void test_host_cpu(void **state)
{
    (void)state;
    const struct intel_query_type *t = find("Host CPU");
    assert_non_null(t);
    assert_int_equal(t->caps, GL_PERFQUERY_GLOBAL_CONTEXT_INTEL);
    assert_string_equal(t->counters[0].name, "CPU Time");
    assert_int_equal(t->counters[0].type_enum, GL_PERFQUERY_COUNTER_DURATION_RAW_INTEL);
    assert_int_equal(t->counters[0].data_type_enum, GL_PERFQUERY_COUNTER_DATA_UINT64_INTEL);
    assert_true(t->counters[0].raw_max >= 1000000000ull);
    assert_string_equal(t->counters[1].name, "Wall Time");
    assert_non_null(counter(t, "rusage/user-time"));
    /* The host groups are taken by "Host CPU": none is a type of its own. */
    assert_null(find("rusage"));
    assert_null(find("clock"));
    assert_null(find("host"));
    /* No GL provider here: no GL types. */
    assert_null(find("Pipeline Statistics"));
    assert_null(find("GPU Time"));
}

/* A group of another provider is a query type named by the group, with its available counters
 * under their own names; the caps follow the scope; unavailable groups are not listed. */
static void test_other_provider_groups(void **state)
{
    (void)state;
    const struct intel_query_type *dev = find("test-device");
    const struct intel_query_type *tl = find("test-timeline");
    assert_non_null(dev);
    assert_non_null(tl);
    assert_null(find("test-unavailable"));
    assert_int_equal(dev->caps, GL_PERFQUERY_GLOBAL_CONTEXT_INTEL);
    assert_int_equal(tl->caps, GL_PERFQUERY_SINGLE_CONTEXT_INTEL);
    assert_int_equal(dev->counter_count, 5);   /* "missing" is unavailable */
    assert_null(counter(dev, "missing"));
    static const struct { const char *name; uint32_t type, data, offset, size; } expect[] = {
        {"flag", GL_PERFQUERY_COUNTER_RAW_INTEL, GL_PERFQUERY_COUNTER_DATA_BOOL32_INTEL, 0, 4},
        {"energy", GL_PERFQUERY_COUNTER_EVENT_INTEL, GL_PERFQUERY_COUNTER_DATA_UINT64_INTEL, 8,
         8},
        {"power", GL_PERFQUERY_COUNTER_RAW_INTEL, GL_PERFQUERY_COUNTER_DATA_DOUBLE_INTEL, 16, 8},
        {"count32", GL_PERFQUERY_COUNTER_THROUGHPUT_INTEL,
         GL_PERFQUERY_COUNTER_DATA_UINT32_INTEL, 24, 4},
        {"ratio", GL_PERFQUERY_COUNTER_DURATION_NORM_INTEL,
         GL_PERFQUERY_COUNTER_DATA_FLOAT_INTEL, 28, 4},
    };
    for (size_t i = 0; i < 5; i++) {
        const struct intel_counter *c = &dev->counters[i];
        assert_string_equal(c->name, expect[i].name);
        assert_int_equal(c->type_enum, expect[i].type);
        assert_int_equal(c->data_type_enum, expect[i].data);
        assert_int_equal(c->offset, expect[i].offset);
        assert_int_equal(c->size, expect[i].size);
    }
    assert_int_equal(dev->data_size, 32);
    assert_int_equal(counter(dev, "power")->raw_max, 700);   /* a gauge's bound */
    assert_int_equal(counter(dev, "energy")->raw_max, 0);
    assert_int_equal(tl->counters[0].type_enum, GL_PERFQUERY_COUNTER_TIMESTAMP_INTEL);
}

/* The index "test-X" must have: the types built before it (every other one: the documented
 * and device types first, then the groups in catalog order, the built-ins' before this test's)
 * with at most its counter count, plus this test's groups before it with fewer. */
static uint32_t expected_index(const char *name)
{
    const struct intel_query_type *t = find(name);
    assert_non_null(t);
    uint32_t n = 0;
    for (uint32_t i = 0; i < types.count; i++) {
        const struct intel_query_type *o = &types.types[i];
        if (o == t)
            continue;
        if (strncmp(o->name, "test-", 5) != 0 ? o->counter_count <= t->counter_count
                                              : o->counter_count < t->counter_count)
            n++;
    }
    return n;
}

/* The types are listed fewest counters first (stable among equals), so that query ids stay
 * below counter counts wherever possible (apitrace's INTEL backend refuses a query whose id is
 * not below its counter count). Here without an NVIDIA device: the 1-counter "test-timeline" is
 * id 1 (it can never satisfy that), "test-device" (5) id 2, "Host CPU" id 3; on the GPU machine
 * "NVIDIA GPU Hardware" (4 counters) comes between the two test types. */
static void test_fewest_counters_first(void **state)
{
    (void)state;
    for (uint32_t i = 1; i < types.count; i++)
        assert_true(types.types[i - 1].counter_count <= types.types[i].counter_count);
    assert_string_equal(types.types[expected_index("test-timeline")].name, "test-timeline");
    assert_string_equal(types.types[expected_index("test-device")].name, "test-device");
    if (!find("NVIDIA GPU Hardware") && !find("NVIDIA Device")) {
        assert_string_equal(types.types[0].name, "test-timeline");
        assert_string_equal(types.types[1].name, "test-device");
    }
    for (uint32_t i = 0; i < types.count; i++)
        if (types.types[i].counter_count > 1)
            assert_true(i + 1 < types.types[i].counter_count);
}

/* CUPTI's range profiler's groups are no query type: they measure the calling thread's CUDA
 * context, which a GL query cannot bracket (docs/intel-performance-query.md). Its group is in
 * the catalog, available, and still not listed. */
static void test_range_profiler_not_a_type(void **state)
{
    (void)state;
    uint32_t g = 0, n = 0;
    int in_catalog = 0;
    perfq_group_count(pq, &n);
    for (g = 0; g < n; g++) {
        perfq_group_info_t gi;
        assert_int_equal(perfq_group_info(pq, g, &gi), PERFQ_OK);
        if (strcmp(gi.name, "cupti-range-gpu0") == 0) {
            assert_true(gi.available);
            assert_string_equal(gi.provider, "cupti-range");
            in_catalog = 1;
        }
    }
    assert_true(in_catalog);
    assert_null(find("cupti-range-gpu0"));
    for (uint32_t i = 0; i < types.count; i++)
        assert_null(strstr(types.types[i].name, "cupti-range"));
}

/* Every dataSize from 0 to beyond the full size: whole counters only, padding zeroed, never a
 * byte past dataSize (guard pattern; ASan on the exact-size copy). */
static void test_write_result_truncation(void **state)
{
    (void)state;
    const struct intel_query_type *dev = find("test-device");
    perfq_value_t v[5];
    memset(v, 0, sizeof(v));
    v[0].v.u32 = 1;
    v[1].v.u64 = 0x1122334455667788ull;
    v[2].v.f64 = 3.5;
    v[3].v.u32 = 0xdeadbeef;
    v[4].v.f32 = 0.25f;
    uint8_t full[32];
    assert_int_equal(intel_query_type_write_result(dev, v, full, sizeof(full)), 32);
    uint32_t u32;
    uint64_t u64;
    double f64;
    float f32;
    memcpy(&u32, full + 0, 4);
    assert_int_equal(u32, 1);
    memcpy(&u32, full + 4, 4);
    assert_int_equal(u32, 0);                  /* padding */
    memcpy(&u64, full + 8, 8);
    assert_int_equal(u64, 0x1122334455667788ull);
    memcpy(&f64, full + 16, 8);
    assert_true(f64 == 3.5);
    memcpy(&u32, full + 24, 4);
    assert_int_equal(u32, 0xdeadbeef);
    memcpy(&f32, full + 28, 4);
    assert_true(f32 == 0.25f);
    static const uint32_t expect_written[] = {
        0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 16, 16, 16, 16, 16, 16, 16, 16,
        24, 24, 24, 24, 28, 28, 28, 28, 32, 32, 32, 32, 32, 32, 32, 32, 32};
    for (size_t size = 0; size <= 40; size++) {
        uint8_t buf[64];
        memset(buf, 0xa5, sizeof(buf));
        uint32_t w = intel_query_type_write_result(dev, v, buf, size);
        assert_int_equal(w, expect_written[size]);
        assert_memory_equal(buf, full, w);
        for (size_t b = w; b < sizeof(buf); b++)
            assert_int_equal(buf[b], 0xa5);
        uint8_t *exact = malloc(size ? size : 1);
        assert_int_equal(intel_query_type_write_result(dev, v, exact, size), w);
        free(exact);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_cpu),
        cmocka_unit_test(test_other_provider_groups),
        cmocka_unit_test(test_fewest_counters_first),
        cmocka_unit_test(test_range_profiler_not_a_type),
        cmocka_unit_test(test_write_result_truncation),
    };
    return cmocka_run_group_tests_name("intel-query-types", tests, setup, teardown);
}
