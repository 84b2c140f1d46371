/* PERFQ_INJECTED (src/core/injected_env.h): what perfq notes of the environment it injected, and
 * how the GL layer's preload stub puts it back into a child's environment made anew: only what
 * is missing, lists joined in perfq's order, the rest of the child's environment untouched, an
 * environment that still holds PERFQ_INJECTED left as the program edited it, and never a write
 * past the vector or the buffer the caller sized. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/injected_env.h"

#define STUB "/opt/perfq/libperfq-gl-lazy.so"
#define LOADER "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1"
#define SPEC "LD_PRELOAD+=" STUB ";OPENCL_LAYERS+=/opt/perfq/libperfq-cl.so;" \
             "LD_PRELOAD+=" LOADER ";PERFQ_STAT_CHANNEL=3:77:100:/dev/shm/perfq-stat-100-0.sock"

/* The value of name in env, or NULL. */
static const char *value_of(char *const *env, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; env[i]; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

static size_t count(char *const *env)
{
    size_t n = 0;
    while (env[n])
        n++;
    return n;
}

static void append_builds_the_list(void **state)
{
    (void)state;
    char spec[128] = "";
    assert_int_equal(perfq_injected_append(spec, sizeof(spec), "LD_PRELOAD", 1, "/a.so"), 0);
    assert_int_equal(perfq_injected_append(spec, sizeof(spec), "X_1", 0, "v:w=z"), 0);
    assert_string_equal(spec, "LD_PRELOAD+=/a.so;X_1=v:w=z");
    /* Refused, the spec unchanged: a ';' in the value, a name not [A-Za-z0-9_]+, no room. */
    assert_int_equal(perfq_injected_append(spec, sizeof(spec), "Y", 0, "a;b"), -1);
    assert_int_equal(perfq_injected_append(spec, sizeof(spec), "Y=", 0, "a"), -1);
    assert_int_equal(perfq_injected_append(spec, sizeof(spec), "", 0, "a"), -1);
    assert_string_equal(spec, "LD_PRELOAD+=/a.so;X_1=v:w=z");
    /* ";Y=", 33 bytes of value and the NUL after what the spec has: one byte short, then
     * exactly enough. */
    size_t have = strlen(spec);
    char value[34];
    memset(value, 'v', sizeof(value));
    value[33] = '\0';
    assert_int_equal(perfq_injected_append(spec, have + 3 + 33, "Y", 0, value), -1);
    assert_int_equal(strlen(spec), have);
    assert_int_equal(perfq_injected_append(spec, have + 3 + 33 + 1, "Y", 0, value), 0);
    assert_int_equal(strlen(spec), have + 3 + 33);
    assert_int_equal(perfq_injected_append(spec, strlen(spec), "Z", 0, "1"), -1);
}

static void perfqs_environment_kept_as_it_is(void **state)
{
    (void)state;
    char *env[] = {"HOME=/root", "LD_PRELOAD=" LOADER " " STUB ":/usr/lib/libx.so",
                   "OPENCL_LAYERS=/opt/perfq/libperfq-cl.so", "PERFQ_STAT_CHANNEL=9:9:9",
                   "PERFQ_INJECTED=" SPEC, NULL};
    char *out[16];
    char buf[1024];
    size_t slots, bytes;
    assert_int_equal(perfq_injected_bounds(SPEC, env, &slots, &bytes), 0);
    assert_int_equal(perfq_injected_apply(SPEC, env, out, 16, buf, sizeof(buf)), 0);
    /* PERFQ_INJECTED kept, LD_PRELOAD and the channel unset: the program's own edit of the
     * environment perfq gave it (a test that keeps the layer out of the X server it starts),
     * left as it is. */
    char *edited[] = {"HOME=/root", "OPENCL_LAYERS=/opt/perfq/libperfq-cl.so",
                      "PERFQ_INJECTED=" SPEC, NULL};
    assert_int_equal(perfq_injected_apply(SPEC, edited, out, 16, buf, sizeof(buf)), 0);
    assert_true(perfq_injected_present(env));
    assert_true(perfq_injected_present(edited));
    char *without[] = {"HOME=/root", "PERFQ_INJECTED_NOT=1", "XPERFQ_INJECTED=1", NULL};
    assert_false(perfq_injected_present(without));
    assert_false(perfq_injected_present(NULL));
}

static void cleaned_environment_gets_it_back(void **state)
{
    (void)state;
    char *out[16];
    char buf[2048];
    /* env -i: no environment at all (NULL, as execve allows, and empty). */
    char *empty[] = {NULL};
    char *const *envs[] = {NULL, empty};
    for (int k = 0; k < 2; k++) {
        memset(out, 0, sizeof(out));
        assert_int_equal(perfq_injected_apply(SPEC, envs[k], out, 16, buf, sizeof(buf)), 1);
        assert_int_equal(count(out), 4);
        /* In perfq's order: the loader was put first after the stub. */
        assert_string_equal(value_of(out, "LD_PRELOAD"), LOADER ":" STUB);
        assert_string_equal(value_of(out, "OPENCL_LAYERS"), "/opt/perfq/libperfq-cl.so");
        assert_string_equal(value_of(out, "PERFQ_STAT_CHANNEL"),
                            "3:77:100:/dev/shm/perfq-stat-100-0.sock");
        assert_string_equal(value_of(out, PERFQ_INJECTED_ENV), SPEC);
    }
}

static void program_values_kept(void **state)
{
    (void)state;
    /* The program's own LD_PRELOAD (the stub missing from it), its own channel value and the
     * other variables: the list gets perfq's entries first, in place; the rest is untouched
     * (the same strings); the missing variables come at the end. */
    char *env[] = {"A=1", "LD_PRELOAD=/usr/lib/libmine.so " LOADER,
                   "PERFQ_STAT_CHANNEL=its-own", "B=2", NULL};
    char *out[16];
    char buf[2048];
    assert_int_equal(perfq_injected_apply(SPEC, env, out, 16, buf, sizeof(buf)), 1);
    assert_int_equal(count(out), 6);
    assert_ptr_equal(out[0], env[0]);
    assert_string_equal(out[1], "LD_PRELOAD=" STUB ":/usr/lib/libmine.so " LOADER);
    assert_ptr_equal(out[2], env[2]);
    assert_ptr_equal(out[3], env[3]);
    assert_string_equal(out[4], "OPENCL_LAYERS=/opt/perfq/libperfq-cl.so");
    assert_string_equal(out[5], PERFQ_INJECTED_ENV "=" SPEC);
    assert_null(out[6]);
    /* Only PERFQ_INJECTED missing: put back too (the child's own children need it). */
    char *all[] = {"LD_PRELOAD=" LOADER ":" STUB, "OPENCL_LAYERS=/opt/perfq/libperfq-cl.so",
                   "PERFQ_STAT_CHANNEL=1", NULL};
    assert_int_equal(perfq_injected_apply(SPEC, all, out, 16, buf, sizeof(buf)), 1);
    assert_int_equal(count(out), 4);
    assert_string_equal(out[3], PERFQ_INJECTED_ENV "=" SPEC);
}

static void malformed_spec_refused(void **state)
{
    (void)state;
    const char *bad[] = {"=x", "A", "A+x", "A=1;;B=2", "A-B=1", "A=1;=2"};
    char *env[] = {"A=0", NULL};
    char *out[8];
    char buf[256];
    size_t slots, bytes;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(perfq_injected_bounds(bad[i], env, &slots, &bytes), -1);
        assert_int_equal(perfq_injected_apply(bad[i], env, out, 8, buf, sizeof(buf)), -1);
    }
}

/* Every vector and buffer size below what the result needs is refused with -1 and nothing
 * written past it (canaries); the bounds are enough. */
static void never_writes_past_its_room(void **state)
{
    (void)state;
    char *env[] = {"A=1", "LD_PRELOAD=/usr/lib/libmine.so", "B=2", NULL};
    size_t slots, bytes;
    assert_int_equal(perfq_injected_bounds(SPEC, env, &slots, &bytes), 0);
    char *out[64];
    char buf[4096];
    assert_true(slots <= 64 && bytes <= sizeof(buf));
    assert_int_equal(perfq_injected_apply(SPEC, env, out, slots, buf, bytes), 1);
    /* What it took: the vector's entries and NULL, and the buffer up to the end of the last
     * string written there (PERFQ_INJECTED's; a list named twice leaves its first string
     * before it). */
    size_t used_slots = count(out) + 1, used_bytes = 0;
    for (size_t i = 0; out[i]; i++)
        if (out[i] >= buf && out[i] < buf + sizeof(buf)) {
            size_t end = (size_t)(out[i] - buf) + strlen(out[i]) + 1;
            used_bytes = end > used_bytes ? end : used_bytes;
        }
    assert_int_equal(used_slots, 7);
    for (size_t cap = 0; cap < used_slots; cap++) {
        for (size_t i = 0; i < 64; i++)
            out[i] = (char *)(uintptr_t)0x5a5a;
        assert_int_equal(perfq_injected_apply(SPEC, env, out, cap, buf, sizeof(buf)), -1);
        for (size_t i = cap; i < 64; i++)
            assert_ptr_equal(out[i], (char *)(uintptr_t)0x5a5a);
    }
    for (size_t cap = 0; cap < used_bytes; cap++) {
        memset(buf, 0x5a, sizeof(buf));
        assert_int_equal(perfq_injected_apply(SPEC, env, out, 64, buf, cap), -1);
        for (size_t i = cap; i < sizeof(buf); i++)
            assert_int_equal(buf[i], 0x5a);
    }
    assert_int_equal(perfq_injected_apply(SPEC, env, out, used_slots, buf, used_bytes), 1);
}

/* The bounds hold where the result is largest: a spec of one long list named twice, and a
 * long value of it in the environment. */
static void bounds_hold_for_long_lists(void **state)
{
    (void)state;
    char spec[PERFQ_INJECTED_MAX] = "";
    char value[1000];
    memset(value, 'a', sizeof(value));
    value[0] = '/';
    value[sizeof(value) - 1] = '\0';
    assert_int_equal(perfq_injected_append(spec, sizeof(spec), "L", 1, value), 0);
    value[1] = 'b';
    assert_int_equal(perfq_injected_append(spec, sizeof(spec), "L", 1, value), 0);
    static char long_env[3000];
    memcpy(long_env, "L=", 2);
    memset(long_env + 2, 'c', sizeof(long_env) - 3);
    char *env[] = {long_env, NULL};
    size_t slots, bytes;
    assert_int_equal(perfq_injected_bounds(spec, env, &slots, &bytes), 0);
    char **out = calloc(slots, sizeof(*out));
    char *buf = malloc(bytes);
    assert_non_null(out);
    assert_non_null(buf);
    assert_int_equal(perfq_injected_apply(spec, env, out, slots, buf, bytes), 1);
    assert_int_equal(strlen(value_of(out, "L")), 2 * 999 + 2 + sizeof(long_env) - 3);
    free(out);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(append_builds_the_list),
        cmocka_unit_test(perfqs_environment_kept_as_it_is),
        cmocka_unit_test(cleaned_environment_gets_it_back),
        cmocka_unit_test(program_values_kept),
        cmocka_unit_test(malformed_spec_refused),
        cmocka_unit_test(never_writes_past_its_room),
        cmocka_unit_test(bounds_hold_for_long_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
