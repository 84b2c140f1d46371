/*
 * bench-exec-follow STUB [ROUNDS]: what the GL stub's exec wrappers (src/gl/injection/
 * exec_follow.c) cost a program that starts children under perfq, against libc's own call.
 * The bench runs itself again with STUB (libperfq-gl-lazy.so) preloaded and PERFQ_INJECTED set
 * as perfq sets it, then times, in alternating blocks of BLOCK spawns each, posix_spawn of
 * /bin/true and its wait:
 *   - libc's posix_spawn, found in libc itself (dlopen of libc.so.6: past the stub);
 *   - the stub's, with the program's environment (perfq's variables in it: passed as it is);
 *   - the stub's, with an environment made anew without perfq's variables (they are put back).
 * Prints the medians per spawn and their ratios to libc's (bench/README.md), then the wrappers'
 * own work alone (perfq_injected_present, _bounds and _apply, as with_child_env calls them),
 * per call, for both environments: a spawn's noise is larger than that work.
 */
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/injected_env.h"

#define BLOCK 50
#define MAX_ROUNDS 201

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const *, char *const *);

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Nanoseconds per call of what with_child_env does before the real call, for env. */
static double work_ns(const char *spec, char *const *env)
{
    enum { CALLS = 20000 };
    static char *vec[4096];
    static char buf[65536];
    volatile int sink = 0;
    double t0 = now_us();
    for (int i = 0; i < CALLS; i++) {
        size_t slots, bytes;
        if (!perfq_injected_present(env) &&
            perfq_injected_bounds(spec, env, &slots, &bytes) == 0 && slots <= 4096 &&
            bytes <= sizeof(buf))
            sink += perfq_injected_apply(spec, env, vec, slots, buf, bytes);
    }
    (void)sink;
    return (now_us() - t0) * 1e3 / CALLS;
}

/* Microseconds per spawn and wait of /bin/true, over BLOCK of them. */
static double block_us(spawn_fn spawn, char *const *env)
{
    char *const argv[] = {"/bin/true", NULL};
    double t0 = now_us();
    for (int i = 0; i < BLOCK; i++) {
        pid_t pid;
        int status;
        if (spawn(&pid, "/bin/true", NULL, NULL, argv, env) != 0 ||
            waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
            fprintf(stderr, "bench-exec-follow: /bin/true did not run\n");
            exit(1);
        }
    }
    return (now_us() - t0) / BLOCK;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int measure(int rounds)
{
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "bench-exec-follow: ROUNDS is 1 to %d\n", MAX_ROUNDS);
        return 2;
    }
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    spawn_fn raw = libc ? (spawn_fn)dlsym(libc, "posix_spawn") : NULL;
    spawn_fn wrapped = (spawn_fn)dlsym(RTLD_DEFAULT, "posix_spawn");
    Dl_info info;
    if (!raw || !wrapped || raw == wrapped || !dladdr((void *)wrapped, &info) ||
        !strstr(info.dli_fname, "libperfq-gl-lazy")) {
        fprintf(stderr, "bench-exec-follow: the stub's posix_spawn is not the program's\n");
        return 1;
    }
    /* An environment made anew: the program's, without perfq's variables. */
    extern char **environ;
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    char **clean = calloc(n + 1, sizeof(*clean));
    if (!clean)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "PERFQ_", 6) &&
            strncmp(environ[i], "OPENCL_LAYERS=", 14))
            clean[k++] = environ[i];
    static double t_raw[MAX_ROUNDS], t_kept[MAX_ROUNDS], t_clean[MAX_ROUNDS];
    block_us(raw, environ);   /* warm up */
    for (int r = 0; r < rounds; r++) {
        t_raw[r] = block_us(raw, environ);
        t_kept[r] = block_us(wrapped, environ);
        t_clean[r] = block_us(wrapped, clean);
    }
    double raw_m = median(t_raw, rounds), kept_m = median(t_kept, rounds),
           clean_m = median(t_clean, rounds);
    printf("posix_spawn + waitpid of /bin/true, %d alternating blocks of %d, median per spawn:\n",
           rounds, BLOCK);
    printf("  libc's posix_spawn                          %8.1f us\n", raw_m);
    printf("  the stub's, environment passed as it is     %8.1f us   ratio %.3f\n", kept_m,
           kept_m / raw_m);
    printf("  the stub's, perfq's variables put back      %8.1f us   ratio %.3f\n", clean_m,
           clean_m / raw_m);
    const char *spec = getenv("PERFQ_INJECTED");
    double w_kept[MAX_ROUNDS] = {0}, w_clean[MAX_ROUNDS] = {0};
    for (int r = 0; r < rounds; r++) {
        w_kept[r] = work_ns(spec, environ);
        w_clean[r] = work_ns(spec, clean);
    }
    printf("the wrappers' own work per call (%zu variables in the environment), median of %d:\n"
           "  passed as it is %.0f ns, perfq's variables put back %.0f ns\n", n, rounds,
           median(w_kept, rounds), median(w_clean, rounds));
    free(clean);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--measure") == 0)
        return measure(argc >= 3 ? atoi(argv[2]) : 21);
    if (argc < 2 || access(argv[1], R_OK) != 0) {
        fprintf(stderr, "usage: bench-exec-follow STUB [ROUNDS]  (STUB: libperfq-gl-lazy.so)\n");
        return 2;
    }
    int rounds = argc >= 3 ? atoi(argv[2]) : 21;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "bench-exec-follow: ROUNDS is 1 to %d\n", MAX_ROUNDS);
        return 2;
    }
    /* What perfq run would set: the stub and the OpenCL layer's entry (a path that need not
     * exist: the bench's children are /bin/true) and a channel that no layer attaches to. */
    char spec[8192], rounds_arg[16];
    snprintf(spec, sizeof(spec), "LD_PRELOAD+=%s;OPENCL_LAYERS+=/nonexistent/libperfq-cl.so;"
             "PERFQ_STAT_CHANNEL=-1:0:0", argv[1]);
    snprintf(rounds_arg, sizeof(rounds_arg), "%d", rounds);
    if (setenv("LD_PRELOAD", argv[1], 1) || setenv("PERFQ_INJECTED", spec, 1) ||
        setenv("OPENCL_LAYERS", "/nonexistent/libperfq-cl.so", 1) ||
        setenv("PERFQ_STAT_CHANNEL", "-1:0:0", 1))
        return 1;
    execl("/proc/self/exe", argv[0], "--measure", rounds_arg, (char *)NULL);
    perror("bench-exec-follow: exec");
    return 1;
}
