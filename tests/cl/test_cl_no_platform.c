/*
 * A machine with an OpenCL loader but no OpenCL platform (issue 13's environment list):
 * OCL_ICD_VENDORS names an empty folder. The program sees the loader's own answer, and
 * `perfq stat --layers` of an OpenCL program there reports the run (host counters, "no OpenCL
 * commands") and exits with the program's status. Arguments: PERFQ_EXE EXAMPLE_CL.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

static const char *perfq_exe, *example_cl;
static char empty_dir[] = "/tmp/perfq-no-vendors-XXXXXX";

/* The layer named in OPENCL_LAYERS, no vendor: no platform, no crash, the loader's error. */
static void test_no_platform_seen(void **state)
{
    (void)state;
    cl_uint n = 99;
    cl_int err = clGetPlatformIDs(0, NULL, &n);
    print_message("clGetPlatformIDs: %d, %u platforms\n", err, n);
    assert_int_equal(err, CL_PLATFORM_NOT_FOUND_KHR);
    assert_int_equal(n, 0);
    cl_uint devices = 5;
    assert_int_not_equal(clGetDeviceIDs(NULL, CL_DEVICE_TYPE_ALL, 0, NULL, &devices),
                         CL_SUCCESS);
}

/* Runs argv with stdout+stderr into out (NUL-terminated); the exit status, or -1. */
static int run(char *const argv[], char *out, size_t size)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t got;
    while (used + 1 < size && (got = read(fds[0], out + used, size - 1 - used)) > 0)
        used += (size_t)got;
    out[used] = '\0';
    char drain[4096];
    while (read(fds[0], drain, sizeof(drain)) > 0) {
    }
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The program fails for want of a platform (its status, 77, whatever it is); perfq stat says
 * what it measured, that no OpenCL command ran, and exits with that status. */
static void test_stat_without_platform(void **state)
{
    (void)state;
    static char out[65536];
    char *alone[] = {(char *)example_cl, NULL};
    int own = run(alone, out, sizeof(out));
    char *stat[] = {(char *)perfq_exe, "stat", "--layers", "--", (char *)example_cl, NULL};
    int under = run(stat, out, sizeof(out));
    print_message("example alone: exit %d; under perfq stat: exit %d\n", own, under);
    assert_int_not_equal(own, 0);
    assert_int_equal(under, own);
    assert_non_null(strstr(out, "no OpenCL commands"));
    assert_non_null(strstr(out, "rusage/user-time"));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PERFQ_EXE EXAMPLE_CL\n", argv[0]);
        return 2;
    }
    perfq_exe = argv[1];
    example_cl = argv[2];
    if (!mkdtemp(empty_dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("OCL_ICD_VENDORS", empty_dir, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_platform_seen),
        cmocka_unit_test(test_stat_without_platform),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(empty_dir);
    return failed;
}
