/* The counter list, the extension strings, the extension entry point, the layer's own info. */
#include "cl_test.h"

#include <CL/cl_layer.h>

#include "core/provider.h"

static void counters_size_query(void **state)
{
    (void)state;
    size_t size = 1;
    /* Size query: param_value NULL. */
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0, NULL,
                                     &size),
                     CL_SUCCESS);
    assert_int_equal(size % sizeof(cl_performance_counter_codeplay), 0);
    assert_true(size / sizeof(cl_performance_counter_codeplay) >= 5);
    /* Exact size: success, and size_ret NULL is allowed. */
    cl_performance_counter_codeplay *c = malloc(size);
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, size, c,
                                     NULL),
                     CL_SUCCESS);
    free(c);
}

static void counters_too_small(void **state)
{
    (void)state;
    size_t size = 0;
    clGetDeviceInfo(env.device, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0, NULL, &size);
    /* One struct short, with a guard after the buffer: CL_INVALID_VALUE, nothing written past. */
    size_t small = size - sizeof(cl_performance_counter_codeplay);
    unsigned char *buf = malloc(size);
    memset(buf, 0xA5, size);
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, small,
                                     buf, NULL),
                     CL_INVALID_VALUE);
    for (size_t i = small; i < size; i++)
        assert_int_equal(buf[i], 0xA5);
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 1, buf,
                                     NULL),
                     CL_INVALID_VALUE);
    free(buf);
}

static void counters_contents(void **state)
{
    (void)state;
    const char *required[] = {"Command Duration", "Bytes Transferred", "Queued To Start",
                              "Work Items", "Work Groups"};
    for (size_t i = 0; i < env.counter_count; i++) {
        const cl_performance_counter_codeplay *c = &env.counters[i];
        assert_non_null(memchr(c->name, '\0', sizeof(c->name)));
        assert_non_null(memchr(c->category, '\0', sizeof(c->category)));
        assert_non_null(memchr(c->description, '\0', sizeof(c->description)));
        assert_true(c->name[0] && c->category[0] && c->description[0]);
        assert_in_range(c->unit, CL_PERFORMANCE_COUNTER_UNIT_GENERIC_CODEPLAY,
                        CL_PERFORMANCE_COUNTER_UNIT_CYCLES_CODEPLAY);
        assert_in_range(c->storage, CL_PERFORMANCE_COUNTER_RESULT_TYPE_INT32_CODEPLAY,
                        CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT64_CODEPLAY);
        for (size_t j = 0; j < i; j++) {
            assert_int_not_equal(c->uuid, env.counters[j].uuid);
            assert_string_not_equal(c->name, env.counters[j].name);
        }
    }
    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        /* The catalog's stable uuid: the same number on every run and machine. */
        assert_int_equal(counter_uuid(required[i]),
                         perfq__counter_uuid("opencl", "opencl-command", required[i]));
    }
    for (size_t i = 0; i < env.counter_count; i++) {
        const cl_performance_counter_codeplay *c = &env.counters[i];
        if (!strcmp(c->name, "Command Duration") || !strcmp(c->name, "Queued To Start"))
            assert_int_equal(c->unit, CL_PERFORMANCE_COUNTER_UNIT_NANOSECONDS_CODEPLAY);
        if (!strcmp(c->name, "Bytes Transferred"))
            assert_int_equal(c->unit, CL_PERFORMANCE_COUNTER_UNIT_BYTES_CODEPLAY);
        if (!strcmp(c->name, "Work Items") || !strcmp(c->name, "Work Groups"))
            assert_int_equal(c->unit, CL_PERFORMANCE_COUNTER_UNIT_GENERIC_CODEPLAY);
        if (!strcmp(c->name, "Command Duration") || !strcmp(c->name, "Bytes Transferred"))
            assert_int_equal(c->storage, CL_PERFORMANCE_COUNTER_RESULT_TYPE_UINT64_CODEPLAY);
    }
}

static void bad_device(void **state)
{
    (void)state;
    size_t size = 0;
    assert_int_equal(clGetDeviceInfo(NULL, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0, NULL,
                                     &size),
                     CL_INVALID_DEVICE);
}

static int has_word(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static void extension_strings(void **state)
{
    (void)state;
    size_t size = 0;
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, 0, NULL, &size),
                     CL_SUCCESS);
    char *s = malloc(size + 16);
    memset(s, 'x', size + 16);
    size_t got = 0;
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, size, s, &got), CL_SUCCESS);
    assert_int_equal(got, size);
    assert_int_equal(strlen(s) + 1, size);   /* consistent: NUL exactly at the end */
    assert_true(has_word(s, "cl_codeplay_performance_counters"));
    assert_true(has_word(s, "cl_khr_create_command_queue"));
    /* Too small by one: CL_INVALID_VALUE, nothing written past. */
    memset(s, 'x', size + 16);
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, size - 1, s, NULL),
                     CL_INVALID_VALUE);
    assert_int_equal(s[size - 1], 'x');
    free(s);

    cl_int err = clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL, &size);
    if (err != CL_SUCCESS) {
        /* Only an OpenCL 1.x/2.x device may lack the _WITH_VERSION list (OpenCL 3.0 4.2). */
        char version[64] = "";
        assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof version, version,
                                         NULL), CL_SUCCESS);
        assert_true(strncmp(version, "OpenCL 3", 8) != 0);
        return;
    }
    assert_int_equal(size % sizeof(cl_name_version), 0);
    cl_name_version *v = malloc(size);
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS_WITH_VERSION, size, v, &got),
                     CL_SUCCESS);
    assert_int_equal(got, size);
    int codeplay = 0, khr = 0;
    for (size_t i = 0; i < size / sizeof(*v); i++) {
        assert_non_null(memchr(v[i].name, '\0', sizeof(v[i].name)));
        codeplay += !strcmp(v[i].name, "cl_codeplay_performance_counters");
        khr += !strcmp(v[i].name, "cl_khr_create_command_queue");
    }
    assert_int_equal(codeplay, 1);
    assert_int_equal(khr, 1);
    assert_int_equal(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS_WITH_VERSION,
                                     size - sizeof(*v), v, NULL),
                     CL_INVALID_VALUE);
    free(v);
}

static void platform_extension_strings(void **state)
{
    (void)state;
    size_t size = 0, got = 0;
    assert_int_equal(clGetPlatformInfo(env.platform, CL_PLATFORM_EXTENSIONS, 0, NULL, &size),
                     CL_SUCCESS);
    char *s = malloc(size + 8);
    memset(s, 'x', size + 8);
    assert_int_equal(clGetPlatformInfo(env.platform, CL_PLATFORM_EXTENSIONS, size, s, &got),
                     CL_SUCCESS);
    assert_int_equal(got, size);
    assert_int_equal(strlen(s) + 1, size);
    assert_true(has_word(s, "cl_codeplay_performance_counters"));
    assert_true(has_word(s, "cl_khr_create_command_queue"));
    assert_true(has_word(s, "cl_khr_icd"));   /* the driver's own list is kept */
    memset(s, 'x', size + 8);
    assert_int_equal(clGetPlatformInfo(env.platform, CL_PLATFORM_EXTENSIONS, size - 1, s, NULL),
                     CL_INVALID_VALUE);
    assert_int_equal(s[size - 1], 'x');
    free(s);
    if (clGetPlatformInfo(env.platform, CL_PLATFORM_EXTENSIONS_WITH_VERSION, 0, NULL, &size) !=
        CL_SUCCESS) {
        /* Only a platform before OpenCL 3.0 may lack the _WITH_VERSION list. */
        char version[64] = "";
        assert_int_equal(clGetPlatformInfo(env.platform, CL_PLATFORM_VERSION, sizeof version,
                                           version, NULL), CL_SUCCESS);
        assert_true(strncmp(version, "OpenCL 3", 8) != 0);
        return;
    }
    cl_name_version *v = malloc(size);
    assert_int_equal(clGetPlatformInfo(env.platform, CL_PLATFORM_EXTENSIONS_WITH_VERSION, size, v,
                                       &got),
                     CL_SUCCESS);
    assert_int_equal(got, size);
    int codeplay = 0, khr = 0;
    for (size_t i = 0; i < size / sizeof(*v); i++) {
        codeplay += !strcmp(v[i].name, "cl_codeplay_performance_counters");
        khr += !strcmp(v[i].name, "cl_khr_create_command_queue");
    }
    assert_int_equal(codeplay, 1);
    assert_int_equal(khr, 1);
    free(v);
    /* Other platform queries reach the driver. */
    char name[256];
    assert_int_equal(clGetPlatformInfo(env.platform, CL_PLATFORM_NAME, sizeof(name), name, NULL),
                     CL_SUCCESS);
    assert_string_equal(name, env.platform_name);
}

static void khr_entry_point(void **state)
{
    (void)state;
    void *a = clGetExtensionFunctionAddressForPlatform(env.platform,
                                                       "clCreateCommandQueueWithPropertiesKHR");
    void *b = clGetExtensionFunctionAddress("clCreateCommandQueueWithPropertiesKHR");
    assert_non_null(a);
    assert_ptr_equal(a, b);
    /* Other names still reach the driver. */
    assert_null(clGetExtensionFunctionAddressForPlatform(env.platform, "clNoSuchFunctionPERFQ"));
}

typedef cl_int (*get_layer_info_fn)(cl_layer_info, size_t, void *, size_t *);
typedef cl_int (*init_layer_fn)(cl_uint, const cl_icd_dispatch *, cl_uint *,
                                const cl_icd_dispatch **);

static void layer_info(void **state)
{
    (void)state;
    void *h = dlopen(getenv("OPENCL_LAYERS"), RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    get_layer_info_fn info = (get_layer_info_fn)dlsym(h, "clGetLayerInfo");
    init_layer_fn init = (init_layer_fn)dlsym(h, "clInitLayer");
    assert_non_null(info);
    assert_non_null(init);
    assert_non_null(dlsym(h, "clInitLayerWithProperties"));
    assert_non_null(dlsym(h, "clDeinitLayer"));
    cl_layer_api_version v = 0;
    size_t size = 0;
    assert_int_equal(info(CL_LAYER_API_VERSION, sizeof(v), &v, &size), CL_SUCCESS);
    assert_int_equal(v, CL_LAYER_API_VERSION_100);
    assert_int_equal(size, sizeof(v));
    assert_int_equal(info(CL_LAYER_API_VERSION, 1, &v, NULL), CL_INVALID_VALUE);
    assert_int_equal(info(CL_LAYER_NAME, 0, NULL, &size), CL_SUCCESS);
    char name[256];
    assert_true(size <= sizeof(name));
    assert_int_equal(info(CL_LAYER_NAME, sizeof(name), name, NULL), CL_SUCCESS);
    assert_int_equal(strlen(name) + 1, size);
    assert_int_equal(info(0xFFFF, sizeof(v), &v, NULL), CL_INVALID_VALUE);
    /* A loader table too short for the 1.2 entry points is refused, with nothing changed. */
    cl_icd_dispatch table;
    memset(&table, 0, sizeof(table));
    cl_uint n = 0;
    const cl_icd_dispatch *out = NULL;
    assert_int_equal(init(4, &table, &n, &out), CL_INVALID_VALUE);
    assert_int_equal(init(100, NULL, &n, &out), CL_INVALID_VALUE);
    assert_null(out);
    dlclose(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counters_size_query), cmocka_unit_test(counters_too_small),
        cmocka_unit_test(counters_contents),   cmocka_unit_test(bad_device),
        cmocka_unit_test(extension_strings),   cmocka_unit_test(platform_extension_strings),
        cmocka_unit_test(khr_entry_point),
        cmocka_unit_test(layer_info),
    };
    int rc = cl_env_open();
    if (rc == 0)
        rc = cmocka_run_group_tests(tests, NULL, NULL);
    cl_env_close();
    return rc;
}
