/* perfq stat --layers end to end on llvmpipe and PoCL, as a user runs it: the frames of the GL
 * example (count, per-frame vertices exact, the other pipeline statistics per frame exact or
 * within bounds, GL memory by type at its peak exact), the OpenCL example's commands (counts and bytes
 * exact, by kernel and by command type), JSON and CSV that parse, CMD's exit status, a parent's
 * children followed, GL memory by tag (the example's tags; memory_app's two share groups), the
 * frames and draws of several threads rendering at once, each exact; children that closed
 * their fds, or may not open perfq's (GL and OpenCL), or were started with a cleaned
 * environment, followed.
 * Arguments: PERFQ EXAMPLE_GL EXAMPLE_CL GL_MEMORY_APP GLX_FRAMES_APP|'' GL_THREADS_APP. */
#include <fcntl.h>
#include <json-c/json.h>

#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "json_report.h"
#include "test_util.h"

static const char *perfq_path, *gl_path, *cl_path, *memory_path;
static const char *glx_frames_path;   /* "" where the GLX test programs are not built */
static const char *threads_path;      /* tests/gl/threads_frames_app.c */
static const char *gles_path;         /* tests/gl/gles_frames_app.c */
static const char *cl_late_path;      /* tests/cl/cl_late_wait.c */
static char self_path[4096];

/* Runs argv (fork, exec) and waits for it: 0 when it exited 0, 1 otherwise. */
static int run_child(const char *const *argv)
{
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    return pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
           WEXITSTATUS(status) != 0;
}

/* --closing-fds PROG: runs `PROG 10` (the GL example's 10 frames, the OpenCL example's 10
 * rounds) as Python's subprocess (close_fds=True, its default), Chromium and daemons start their
 * children: every fd above 2 closed between fork and exec. --isolated PROG: the same, then as a
 * process that may not open perfq's fds through /proc either (test_isolate_from_perfq: its own
 * user namespace, or as root no capabilities, as Chromium's GPU process under a perfq run as
 * root). 0; 77 when this machine allows no isolating; 1 when PROG failed (its own 77, no EGL or
 * no OpenCL platform, included). */
#define CANNOT_ISOLATE 76
static int spawn_closing_fds(const char *prog, int isolated)
{
    pid_t pid = fork();
    if (pid == 0) {
        long most = sysconf(_SC_OPEN_MAX);
        for (int fd = 3; fd < (most > 0 && most < 65536 ? most : 65536); fd++)
            close(fd);
        if (isolated && test_isolate_from_perfq() != 0)
            _exit(CANNOT_ISOLATE);
        execl(prog, prog, "10", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 1;
    return WEXITSTATUS(status) == CANNOT_ISOLATE ? 77 : WEXITSTATUS(status) != 0;
}

/* Is entry (NAME=VALUE) one of the variables perfq puts into CMD's environment? */
static int perfqs_variable(const char *entry)
{
    static const char *const names[] = {"LD_PRELOAD=", "OPENCL_LAYERS=", "OCL_ICD_VENDORS=",
                                        "OCL_ICD_PLATFORM_SORT=", "PERFQ_"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strncmp(entry, names[i], strlen(names[i])) == 0)
            return 1;
    return 0;
}

/* vfork, then execve in the child: the parent's pid of it, or -1. */
static pid_t vfork_execve(const char *path, char *const *argv, char *const *env)
{
    pid_t pid = vfork();
    if (pid == 0) {
        execve(path, argv, env);
        _exit(127);
    }
    return pid;
}

/* In a forked child: execs `prog 10` with env through the function how names; those that take
 * no environment get environ replaced by env first, as `env -i` does. Returns where that
 * failed. */
static void exec_by(const char *how, const char *prog, char *const *argv, char **env)
{
    if (strcmp(how, "execve") == 0) {
        execve(prog, argv, env);
    } else if (strcmp(how, "execvpe") == 0) {
        execvpe(prog, argv, env);
    } else if (strcmp(how, "execle") == 0) {
        execle(prog, prog, "10", (char *)NULL, env);
    } else if (strcmp(how, "fexecve") == 0) {
        int fd = open(prog, O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            fexecve(fd, argv, env);
    } else {
        environ = env;
        if (strcmp(how, "execv") == 0)
            execv(prog, argv);
        else if (strcmp(how, "execvp") == 0)
            execvp(prog, argv);
        else if (strcmp(how, "execl") == 0)
            execl(prog, prog, "10", (char *)NULL);
        else if (strcmp(how, "execlp") == 0)
            execlp(prog, prog, "10", (char *)NULL);
    }
}

/* --cleaned-env-HOW PROG: runs `PROG 10` with an environment cleaned of perfq's variables
 * (LD_PRELOAD, OPENCL_LAYERS, OCL_ICD_*, PERFQ_*; the others kept, a sanitizer's options among
 * them), as `env -i`, Python's subprocess with env= and launchers start children. HOW: spawn
 * and spawnp (posix_spawn, posix_spawnp: Python's subprocess with close_fds=False), vfork
 * (vfork, then execve: Python's subprocess), or one of the exec functions after a fork
 * (exec_by). 0; 1 when PROG failed or HOW is unknown. */
static int spawn_cleaned_env(const char *how, const char *prog)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 1, sizeof(*env));
    if (!env)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (!perfqs_variable(environ[i]))
            env[k++] = environ[i];
    char *const argv[] = {(char *)prog, "10", NULL};
    pid_t pid = -1;
    if (strcmp(how, "spawn") == 0 || strcmp(how, "spawnp") == 0) {
        int (*spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                     const posix_spawnattr_t *, char *const *, char *const *) =
            strcmp(how, "spawn") == 0 ? posix_spawn : posix_spawnp;
        if (spawn(&pid, prog, NULL, NULL, argv, env) != 0)
            pid = -1;
    } else if (strcmp(how, "vfork") == 0) {
        pid = vfork_execve(prog, argv, env);
    } else {
        pid = fork();
        if (pid == 0) {
            exec_by(how, prog, argv, env);
            _exit(127);
        }
    }
    int status = 0;
    int failed = pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
                 WEXITSTATUS(status) != 0;
    free(env);
    return failed;
}

/* --spawn GL: runs `GL 10`, then `GL 15 2`, and exits 3 (or 1 when one failed). */
static int spawn_two(const char *gl)
{
    const char *const runs[2][4] = {{gl, "10", NULL, NULL}, {gl, "15", "2", NULL}};
    for (int i = 0; i < 2; i++)
        if (run_child(runs[i]))
            return 1;
    return 3;
}

/* --background APP PIDFILE: starts `APP 1 1000000 1` (gl-threads-app: a million frames) and
 * leaves it running: its pid to PIDFILE, then 1 s of sleep, then exit 0 (the app, orphaned,
 * goes on). This binary rather than sh: a sanitizer build's layer loads only into its own. */
static int background(const char *app, const char *pidfile)
{
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execl(app, app, "1", "1000000", "1", (char *)NULL);
        _exit(127);
    }
    FILE *f = fopen(pidfile, "w");
    if (!f || fprintf(f, "%ld\n", (long)pid) < 0 || fclose(f) != 0)
        return 1;
    sleep(1);
    return 0;
}

/* --maps GL: a process that never calls GL, under perfq stat. On x86-64 perfq preloads the GL
 * layer's stub (libperfq-gl-lazy.so), which loads the layer at a process's first GL call only:
 * here the stub is mapped, the layer and the engine (libperfq.so) are not. Then it runs `GL 10`
 * (fork, exec), which loads the layer at its first GL call and is measured. Exits 5 when all
 * held, 1 otherwise (saying what on stderr). */
static int maps_then_gl(const char *gl)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 1;
    char line[4096];
    int stub = 0, layer = 0, engine = 0;
    while (fgets(line, sizeof(line), f)) {
        stub |= strstr(line, "/libperfq-gl-lazy.so") != NULL;
        layer |= strstr(line, "/libperfq-gl.so") != NULL;
        engine |= strstr(line, "/libperfq.so") != NULL;
    }
    fclose(f);
#if defined(__x86_64__)
    const int want_stub = 1;
#else
    const int want_stub = 0;   /* no stub there: the layer itself is preloaded */
#endif
    if (stub != want_stub || (want_stub && (layer || engine))) {
        fprintf(stderr, "--maps: stub %d layer %d engine %d mapped\n", stub, layer, engine);
        return 1;
    }
    return run_child((const char *const[]){gl, "10", NULL}) ? 1 : 5;
}

/* Runs `perfq stat -o FILE ARGS`; returns its exit status and the report (malloc'd). */
static int run_perfq(const char *const *args, char **report)
{
    char rep_path[] = "/tmp/perfq-prof-XXXXXX";
    int rep = mkstemp(rep_path);
    assert_true(rep >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* memory_app reads stdin until EOF: none of these programs gets input. */
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        const char *argv[40] = {perfq_path, "stat", "--layers", "-o", rep_path};
        int k = 5;
        for (int i = 0; args[i] && k < 38; i++)
            argv[k++] = args[i];
        execv(perfq_path, (char *const *)argv);
        _exit(99);
    }
    int status;
    waitpid(pid, &status, 0);
    FILE *f = fopen(rep_path, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    *report = calloc(1, (size_t)size + 1);
    assert_int_equal(fread(*report, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    close(rep);
    unlink(rep_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* CPU time (user + system, in clock ticks) of a process, or -1 once it is gone. */
static long cpu_ticks(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    /* after "pid (comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
     * utime stime */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (long)(ut + st);
}

/* perfq stat -o FILE --json -- GL 1000000 (frames without end), and GL killed with SIGKILL once
 * it has burnt `ticks` of CPU (frames are then rendered: the example makes its context and
 * compiles its shaders in a fraction of that): returns perfq's exit status and the report. */
static int run_perfq_kill_cmd(long ticks, char **report)
{
    char rep_path[] = "/tmp/perfq-prof-kill-XXXXXX";
    int rep = mkstemp(rep_path);
    assert_true(rep >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        execl(perfq_path, perfq_path, "stat", "--layers", "--json", "-o", rep_path, "--", gl_path,
              "1000000", (char *)NULL);
        _exit(99);
    }
    /* perfq's only child is CMD (/proc/PID/task/PID/children). */
    pid_t cmd = 0;
    char children[64];
    snprintf(children, sizeof children, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    for (int i = 0; i < 6000 && cmd <= 0; i++) {
        FILE *f = fopen(children, "r");
        int c = 0;
        if (f && fscanf(f, "%d", &c) == 1)
            cmd = c;
        if (f)
            fclose(f);
        if (cmd <= 0)
            usleep(10000);
    }
    assert_true(cmd > 0);
    /* Bounded: 10 minutes of waiting for the CPU time on a loaded machine. */
    for (int i = 0; i < 60000; i++) {
        long t = cpu_ticks(cmd);
        if (t < 0 || t >= ticks)
            break;
        usleep(10000);
    }
    kill(cmd, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    FILE *f = fopen(rep_path, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    *report = calloc(1, (size_t)size + 1);
    assert_int_equal(fread(*report, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    close(rep);
    unlink(rep_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static json_object *group(json_object *o, const char *list, const char *name)
{
    json_object *arr = get(o, list);
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        json_object *g = json_object_array_get_idx(arr, i);
        if (strcmp(json_object_get_string(get(g, "name")), name) == 0)
            return g;
    }
    fail_msg("no group '%s' in %s", name, list);
    return NULL;
}

/* The frame's pipeline statistics ("Pipeline Statistics": one ARB_pipeline_statistics_query
 * query per target), per frame of the example: DRAWS quads of glDrawArrays(GL_TRIANGLES, 0, 6),
 * each quad 0.8 x 0.8 of NDC (102 x 102 pixels of the 256 x 256 pbuffer, all inside the
 * viewport, no depth test), no tessellation, geometry or compute shader. Exact where the GL spec
 * fixes the count (primitives submitted, clipper input, the unused stages' zero); within bounds
 * where it leaves it to the implementation (vertex shader invocations: a vertex cache may reuse;
 * fragment shader invocations: helper and whole-quad invocations may be counted; clipper
 * output), and then the same in every frame (the scene does not change). `frames` frames, of
 * which the last ones may have no results (the program released its context first): at least
 * `measured_min` have. With statistics spans the value per frame is a span's totals over its
 * frames: the same exact values on this scene. */
static void check_pipeline(json_object *j, int64_t frames, int64_t measured_min, int64_t draws)
{
    const struct {
        const char *name;
        int64_t lo, hi;
    } want[] = {
        {"frames.pipeline.vertices", 6 * draws, 6 * draws},
        {"frames.pipeline.primitives", 2 * draws, 2 * draws},
        /* each triangle's three vertices shaded at least once; at most once per vertex */
        {"frames.pipeline.vertex_shader_invocations", 4 * draws, 6 * draws},
        {"frames.pipeline.tess_control_shader_patches", 0, 0},
        {"frames.pipeline.tess_evaluation_shader_invocations", 0, 0},
        {"frames.pipeline.geometry_shader_invocations", 0, 0},
        {"frames.pipeline.geometry_shader_primitives_emitted", 0, 0},
        /* at least the covered pixels (101 x 101 whatever the rounding at the edges), at most
         * twice those of 104 x 104 (whole 2x2 quads and more at the edges) */
        {"frames.pipeline.fragment_shader_invocations", 101 * 101 * draws, 2 * 104 * 104 * draws},
        {"frames.pipeline.compute_shader_invocations", 0, 0},
        {"frames.pipeline.clipping_input_primitives", 2 * draws, 2 * draws},
        /* nothing is clipped: a clipper may still count its output otherwise (0 when it
         * passes primitives through uncounted) */
        {"frames.pipeline.clipping_output_primitives", 0, 2 * draws},
    };
    int64_t measured = get_int(j, "frames.pipeline.vertices.count");
    if (measured < measured_min || measured > frames)
        fail_msg("statistics of %lld frames, expected %lld to %lld", (long long)measured,
                 (long long)measured_min, (long long)frames);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        char path[128];
        snprintf(path, sizeof path, "%s.count", want[i].name);
        if (get_int(j, path) != measured)
            fail_msg("%s: %lld frames, not %lld", want[i].name, (long long)get_int(j, path),
                     (long long)measured);
        snprintf(path, sizeof path, "%s.min", want[i].name);
        int64_t lo = get_int(j, path);
        snprintf(path, sizeof path, "%s.max", want[i].name);
        int64_t hi = get_int(j, path);
        if (lo != hi || lo < want[i].lo || lo > want[i].hi)
            fail_msg("%s: min %lld max %lld, expected one value in [%lld, %lld]", want[i].name,
                     (long long)lo, (long long)hi, (long long)want[i].lo, (long long)want[i].hi);
    }
}

static void gl_frames_json(void **state)
{
    (void)state;
    char *report;
    /* --stats-span 0: each frame its own statistics span (the default shares spans between
     * frames shorter than 4 ms: gl_stats_spans). */
    int rc = run_perfq((const char *[]){"--stats-span", "0", "--json", "--", gl_path, "60", NULL},
                       &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    /* Every swap is a frame record, sent at the swap: the count is exact. */
    assert_int_equal(get_int(j, "frames.count"), 60);
    assert_int_equal(get_int(j, "frames.contexts"), 1);
    assert_int_equal(get_int(j, "frames.cpu_frame_ns.count"), 60);
    /* GPU results come for every frame but the last ones pending when the program released
     * its context before destroying it (at most the front end's ring of 8). */
    int64_t gpu = get_int(j, "frames.with_gpu_time");
    assert_true(gpu > 0 && gpu <= 60);
    assert_true(get_int(j, "frames.gpu_frame_ns.max") > 0);
    int64_t v = get_int(j, "frames.vertices.count");
    assert_true(v >= 60 - 8 && v <= 60);
    /* 4 draws of 6 vertices, exactly, in every frame measured. */
    assert_int_equal(get_int(j, "frames.vertices.min"), 24);
    assert_int_equal(get_int(j, "frames.vertices.max"), 24);
    check_pipeline(j, 60, 60 - 8, 4);
    /* One span per frame with results, none shared, none lost between them. */
    assert_int_equal(get_int(j, "frames.pipeline_spans.span_ns"), 0);
    assert_int_equal(get_int(j, "frames.pipeline_spans.spans"), v);
    assert_int_equal(get_int(j, "frames.pipeline_spans.frames"), v);
    assert_int_equal(get_int(j, "frames.pipeline_spans.frames_in_shared_spans"), 0);
    assert_int_equal(get_int(j, "frames.pipeline_spans.gaps"), 0);
    /* GL memory at its peak, exact: one 64x64 RGBA8 texture (16 KiB) and one 48-byte vertex
     * buffer (1 KiB: the accounting rounds each object up to whole KiB), no renderbuffer. */
    assert_int_equal(get_int(j, "gl_memory.share_groups"), 1);
    assert_int_equal(get_int(j, "gl_memory.textures_kib"), 16);
    assert_int_equal(get_int(j, "gl_memory.textures_objects"), 1);
    assert_int_equal(get_int(j, "gl_memory.buffers_kib"), 1);
    assert_int_equal(get_int(j, "gl_memory.buffers_objects"), 1);
    assert_int_equal(get_int(j, "gl_memory.renderbuffers_kib"), 0);
    assert_int_equal(get_int(j, "gl_memory.total_kib"), 17);
    /* By tag (the example tags its buffer "scene-vertices" and its texture "scene-texture"
     * through the layer's GL_NV_query_resource_tag), each at its peak, exact. */
    json_object *tags = get(j, "gl_memory.tags");
    assert_int_equal(json_object_array_length(tags), 2);
    json_object *tv = group(j, "gl_memory.tags", "scene-vertices");
    assert_int_equal(get_int(tv, "kib"), 1);
    assert_int_equal(get_int(tv, "objects"), 1);
    assert_int_equal(get_int(tv, "share_group"), 0);
    json_object *tt = group(j, "gl_memory.tags", "scene-texture");
    assert_int_equal(get_int(tt, "kib"), 16);
    assert_int_equal(get_int(tt, "objects"), 1);
    assert_true(get_int(tt, "id") != get_int(tv, "id"));
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    assert_int_equal(get_int(j, "channel.processes"), 1);
    assert_int_equal(get_int(j, "exit_status"), 0);
    json_object_put(j);
    free(report);
}

/* gl-threads-app's report: THREADS x FRAMES frames of DRAWS draws of 6 vertices, in THREADS
 * contexts, each with GPU time and exact pipeline statistics, nothing dropped, exit 0. */
static void assert_threads_frames(json_object *j, int threads, int frames, int draws)
{
    assert_int_equal(get_int(j, "exit_status"), 0);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    assert_int_equal(get_int(j, "frames.count"), threads * frames);
    assert_int_equal(get_int(j, "frames.contexts"), threads);
    assert_int_equal(get_int(j, "frames.with_gpu_time"), threads * frames);
    assert_int_equal(get_int(j, "frames.cpu_frame_ns.count"), threads * frames);
    assert_int_equal(get_int(j, "frames.vertices.count"), threads * frames);
    assert_int_equal(get_int(j, "frames.vertices.min"), 6 * draws);
    assert_int_equal(get_int(j, "frames.vertices.max"), 6 * draws);
    assert_int_equal(get_int(j, "frames.pipeline_spans.frames"), threads * frames);
}

/* Eight threads rendering at once, each with its own context and pbuffer (threads_frames_app.c:
 * 40 frames each of a clear and 3 glDrawArrays(GL_TRIANGLES, 0, 6)), with --per-draw: every
 * frame and every draw of every thread is counted, each frame with its GPU time and exactly 18
 * vertices, each draw with 6; nothing dropped. Each thread releases its context at its end, so
 * its last frames and its open statistics span are waited for. */
static void gl_threads_frames_draws(void **state)
{
    (void)state;
    enum { THREADS = 8, FRAMES = 40, DRAWS = 3 };
    char *report;
    char threads[8], frames[8], draws[8];
    snprintf(threads, sizeof threads, "%d", THREADS);
    snprintf(frames, sizeof frames, "%d", FRAMES);
    snprintf(draws, sizeof draws, "%d", DRAWS);
    int rc = run_perfq((const char *[]){"--per-draw", "--json", "--", threads_path, threads,
                                        frames, draws, NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_threads_frames(j, THREADS, FRAMES, DRAWS);
    assert_int_equal(get_int(j, "frames.pipeline_spans.gaps"), 0);
    assert_int_equal(get_int(j, "draws.count"), THREADS * FRAMES * DRAWS);
    assert_int_equal(get_int(j, "draws.with_gpu_time"), THREADS * FRAMES * DRAWS);
    assert_int_equal(get_int(j, "draws.with_vertices"), THREADS * FRAMES * DRAWS);
    assert_int_equal(get_int(j, "draws.per_frame.min"), DRAWS);
    assert_int_equal(get_int(j, "draws.per_frame.max"), DRAWS);
    assert_int_equal(get_int(j, "draws.vertices.min"), 6);
    assert_int_equal(get_int(j, "draws.vertices.max"), 6);
    assert_int_equal(get_int(j, "draws.vertices_total"), 6 * THREADS * FRAMES * DRAWS);
    json_object_put(j);
    free(report);
}

/* A display list under --per-draw (threads_frames_app.c's `list`: 2 threads x 20 frames, each
 * replaying a GL_COMPILE list of 2 draws inside the program's own GL_PRIMITIVES_GENERATED
 * query). The layer's per-draw query calls were compiled into the list at glNewList and replayed
 * by every glCallList: the program's query read 0 (it exits 1 then) and the frames' vertices
 * went wrong. Now: the program's query exact, every frame with 12 vertices, and the draws in
 * the list neither counted at their compilation nor seen at their replay (documented). */
static void gl_display_list_per_draw(void **state)
{
    (void)state;
    enum { THREADS = 2, FRAMES = 20, DRAWS = 2 };
    char *report;
    int rc = run_perfq((const char *[]){"--per-draw", "--json", "--", threads_path, "2", "20",
                                        "2", "list", NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_threads_frames(j, THREADS, FRAMES, DRAWS);
    assert_int_equal(get_int(j, "draws.count"), 0);
    assert_int_equal(get_int(j, "draws.per_frame.max"), 0);
    json_object_put(j);
    free(report);
}

/* Contexts made one after another, each after the previous one was destroyed
 * (threads_frames_app.c's `sequential`: 6 threads in turn, 10 frames each), often at the same
 * address: 6 contexts counted, each frame of each (until 2026-11-29 the layer named a context by
 * its handle, and an outside probe's 100 such contexts were "300 frames in 3 contexts"). */
static void gl_contexts_one_after_another(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--per-draw", "--json", "--", threads_path, "6", "10",
                                        "2", "sequential", NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_threads_frames(j, 6, 10, 2);
    assert_int_equal(get_int(j, "draws.count"), 6 * 10 * 2);
    json_object_put(j);
    free(report);
}

/* A GL program CMD starts in the background and leaves running (--background: as a shell's `APP
 * & echo $! >FILE; sleep 1`): perfq stat ends with CMD, and the report says that a process which sent records still
 * ran (channel.outliving 1), rather than leaving its missing later frames unexplained (an
 * outside probe's double-forked daemon rendered 400 frames, the report had 227 and said
 * nothing). */
static void outliving_process_said(void **state)
{
    (void)state;
    char pidfile[] = "/tmp/perfq-outliving-XXXXXX";
    int fd = mkstemp(pidfile);
    assert_true(fd >= 0);
    close(fd);
    char *report;
    int rc = run_perfq((const char *[]){"--json", "--", self_path, "--background", threads_path,
                                        pidfile, NULL}, &report);
    long app = 0;
    FILE *f = fopen(pidfile, "r");
    if (f) {
        if (fscanf(f, "%ld", &app) != 1)
            app = 0;
        fclose(f);
    }
    unlink(pidfile);
    if (app > 0)
        kill((pid_t)app, SIGKILL);
    assert_int_equal(rc, 0);
    assert_true(app > 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_true(get_int(j, "frames.count") > 0);
    assert_int_equal(get_int(j, "channel.outliving"), 1);
    json_object_put(j);
    free(report);
}

/* Draws GL refuses (threads_frames_app.c's `refused`: each frame's 3 draws and one with the
 * mode 0x7777, INVALID_ENUM, which the program reads itself: exactly that error, once) under
 * --per-draw: the refused draws drew nothing, so they are neither counted nor timed (until
 * 2026-11-29 they were, with GPU time and 0 vertices), and the program's error is its own. */
static void gl_refused_draws_not_counted(void **state)
{
    (void)state;
    enum { THREADS = 2, FRAMES = 10, DRAWS = 3 };
    char *report;
    int rc = run_perfq((const char *[]){"--per-draw", "--json", "--", threads_path, "2", "10",
                                        "3", "refused", NULL}, &report);
    assert_int_equal(rc, 0);   /* the program's own check of its error passed */
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_threads_frames(j, THREADS, FRAMES, DRAWS);
    assert_int_equal(get_int(j, "draws.count"), THREADS * FRAMES * DRAWS);
    assert_int_equal(get_int(j, "draws.with_gpu_time"), THREADS * FRAMES * DRAWS);
    assert_int_equal(get_int(j, "draws.per_frame.max"), DRAWS);
    assert_int_equal(get_int(j, "draws.vertices.min"), 6);
    json_object_put(j);
    free(report);
}

/* A program that draws and never swaps (threads_frames_app.c's `none`: 1 thread, 5 rounds of
 * 2 draws and a glFinish) under --per-draw: its 10 draws counted, no frame, and its process
 * among those whose records arrived (it read 0 when only frames and OpenCL commands noted
 * theirs). */
static void gl_draws_without_frames(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--per-draw", "--json", "--", threads_path, "1", "5", "2",
                                        "none", NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 0);
    assert_int_equal(get_int(j, "draws.count"), 10);
    assert_int_equal(get_int(j, "draws.with_vertices"), 10);
    assert_int_equal(get_int(j, "channel.processes"), 1);
    json_object_put(j);
    free(report);
}

/* CMD exited 77: this machine's driver lacks a piece it needs (`lacking` says which). A skip off
 * CI, where a driver may lack it; in CI (llvmpipe and PoCL, which have every such piece) a
 * failure. */
static void skip_if_lacking(int rc, char **report, const char *lacking)
{
    if (rc != 77)
        return;
    free(*report);
    *report = NULL;
    if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
        fail_msg("%s (CI's reference drivers have it)", lacking);
    printf("# skipped: %s\n", lacking);
    skip();
}

/* Frames ended by the swaps with damage (eglSwapBuffersWithDamageKHR and ...EXT, as GTK 4, Qt on
 * Wayland and browsers present) are frames as those of eglSwapBuffers are: 2 threads x 30
 * frames, each third frame ended by each swap, all counted with GPU time and exact vertices.
 * Mesa answers both functions on every display (llvmpipe in CI): a skip only off CI, where a
 * driver may lack them. */
static void gl_damage_swaps_frames(void **state)
{
    (void)state;
    enum { THREADS = 2, FRAMES = 30, DRAWS = 2 };
    char *report;
    int rc = run_perfq((const char *[]){"--json", "--", threads_path, "2", "30", "2", "damage",
                                        NULL}, &report);
    skip_if_lacking(rc, &report, "the driver has no eglSwapBuffersWithDamageKHR/EXT");
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_threads_frames(j, THREADS, FRAMES, DRAWS);
    json_object_put(j);
    free(report);
}

/* An OpenGL ES 3 program (50 frames of 2 draws of 3 vertices): every frame counted with GPU
 * time (EXT_disjoint_timer_query or the layer's stamps), also where it ends as glmark2 does. ES has no
 * GL_ARB_pipeline_statistics_query (Mesa's ES contexts have none: llvmpipe in CI): the table then
 * says that no statistics came, and why; a driver that has them in ES gives exact vertices. */
static void gles_frames(void **state)
{
    (void)state;
    enum { FRAMES = 50, DRAWS = 2 };
    char *report;
    int rc = run_perfq((const char *[]){"--json", "--", gles_path, "50", "2", NULL}, &report);
    skip_if_lacking(rc, &report, "no OpenGL ES 3 pbuffer context here");
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    assert_int_equal(get_int(j, "frames.count"), FRAMES);
    assert_int_equal(get_int(j, "frames.contexts"), 1);
    assert_int_equal(get_int(j, "frames.with_gpu_time"), FRAMES);
    int64_t with_stats = get_int(j, "frames.pipeline_spans.frames");
    if (with_stats) {
        assert_int_equal(with_stats, FRAMES);
        assert_int_equal(get_int(j, "frames.vertices.min"), 3 * DRAWS);
        assert_int_equal(get_int(j, "frames.vertices.max"), 3 * DRAWS);
    }
    json_object_put(j);
    free(report);
    rc = run_perfq((const char *[]){"--", gles_path, "50", "2", NULL}, &report);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(report, "50 frames in 1 contexts; 50 with GPU time"));
    if (!with_stats)
        assert_non_null(strstr(report, "pipeline statistics: none came"));
    free(report);
    /* glmark2's end: the first context destroyed while current, then a second made current;
     * the display terminated with the second current, no release. Every frame and draw of
     * both gets its GPU time: the first one's pending results are waited for as it leaves
     * (before: its frames and draws went without), the second one's at exit. */
    rc = run_perfq((const char *[]){"--per-draw", "--json", "--", gles_path, "50", "2",
                                    "destroy-current", NULL}, &report);
    assert_int_equal(rc, 0);
    j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    assert_int_equal(get_int(j, "frames.count"), 2 * FRAMES);
    assert_int_equal(get_int(j, "frames.contexts"), 2);
    assert_int_equal(get_int(j, "frames.with_gpu_time"), 2 * FRAMES);
    assert_int_equal(get_int(j, "draws.count"), 2 * FRAMES * DRAWS);
    assert_int_equal(get_int(j, "draws.with_gpu_time"), 2 * FRAMES * DRAWS);
    json_object_put(j);
    free(report);
}

/* --per-draw on the GL example: 40 frames of 5 glDrawArrays(GL_TRIANGLES, 0, 6) (the example's
 * source): every draw is counted exactly, each with 6 vertices and 2 primitives; the frame's own
 * vertex count stays exact beside the per-draw queries (query virtualisation). */
static void gl_per_draw_json_csv(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--per-draw", "--stats-span", "0", "--json", "--", gl_path,
                                        "40", "5", NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 40);
    assert_int_equal(get_int(j, "draws.count"), 200);
    assert_int_equal(get_int(j, "draws.per_frame.count"), 40);
    assert_int_equal(get_int(j, "draws.per_frame.min"), 5);
    assert_int_equal(get_int(j, "draws.per_frame.max"), 5);
    /* Results come for every draw: those still pending when the program released its context
     * before destroying it (the last frame's) are waited for at the release. */
    assert_int_equal(get_int(j, "draws.with_gpu_time"), 200);
    assert_int_equal(get_int(j, "draws.gpu_draw_ns.count"), 200);
    assert_true(get_int(j, "draws.gpu_draw_ns.max") >= get_int(j, "draws.gpu_draw_ns.p50"));
    assert_int_equal(get_int(j, "draws.with_vertices"), 200);
    assert_int_equal(get_int(j, "draws.vertices.min"), 6);
    assert_int_equal(get_int(j, "draws.vertices.max"), 6);
    assert_int_equal(get_int(j, "draws.vertices_total"), 6 * 200);
    assert_int_equal(get_int(j, "draws.with_primitives"), 200);
    assert_int_equal(get_int(j, "draws.primitives.min"), 2);
    assert_int_equal(get_int(j, "draws.primitives.max"), 2);
    assert_int_equal(get_int(j, "frames.vertices.min"), 30);
    assert_int_equal(get_int(j, "frames.vertices.max"), 30);
    /* The frame's statistics stay exact beside the draws' own queries of two of its targets. */
    check_pipeline(j, 40, 40 - 8, 5);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    json_object_put(j);
    free(report);

    /* Without --per-draw there is no "draws" object (the layer registers no draw observer). */
    rc = run_perfq((const char *[]){"--json", "--", gl_path, "3", NULL}, &report);
    assert_int_equal(rc, 0);
    j = json_tokener_parse(report);
    assert_non_null(j);
    json_object *draws = NULL;
    assert_false(json_object_object_get_ex(j, "draws", &draws));
    json_object_put(j);
    free(report);

    /* CSV: the draws rows, 15 fields each, the count exact; the series' min last, and the
     * frames' counts (until 2026-11-30 the CSV had neither). */
    rc = run_perfq((const char *[]){"--per-draw", "--stats-span", "0", "--csv", "--", gl_path, "10",
                                    "3", NULL}, &report);
    assert_int_equal(rc, 0);
    int count_rows = 0, per_frame_rows = 0, pipeline_rows = 0, frame_counts = 0;
    for (char *save = NULL, *l = strtok_r(report, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        int commas = 0;
        for (char *c = l; *c; c++)
            commas += *c == ',';
        assert_int_equal(commas, 14);
        frame_counts += strncmp(l, "frames,count,10,", 16) == 0 ||
                        strncmp(l, "frames,contexts,1,", 18) == 0 ||
                        strncmp(l, "draws,with_vertices,30,", 23) == 0;
        if (strncmp(l, "draws,vertices,", 15) == 0)
            assert_int_equal(atoi(strrchr(l, ',') + 1), 6);   /* min: 6 vertices a draw */
        if (strncmp(l, "draws,count,", 12) == 0) {
            count_rows++;
            assert_int_equal(atoi(l + 12), 30);
        }
        if (strncmp(l, "frames,primitives,", 18) == 0) {
            pipeline_rows++;
            /* count: the frames with results; total: 6 primitives in each */
            char *f = l + 18;
            int64_t n = atoll(f);
            assert_true(n >= 10 - 8 && n <= 10);
            f = strchr(strchr(f, ',') + 1, ',') + 1;
            assert_int_equal(atoll(f), 6 * n);
        }
        pipeline_rows += strncmp(l, "frames,fragment_shader_invocations,", 35) == 0;
        if (strncmp(l, "draws,per_frame,", 16) == 0) {
            per_frame_rows++;
            /* count 10 frames, total 30 draws */
            char *f = l + 16;
            assert_int_equal(atoi(f), 10);
            f = strchr(strchr(f, ',') + 1, ',') + 1;
            assert_int_equal(atoi(f), 30);
        }
    }
    assert_int_equal(count_rows, 1);
    assert_int_equal(per_frame_rows, 1);
    assert_int_equal(pipeline_rows, 2);
    assert_int_equal(frame_counts, 3);
    free(report);
}

/* Statistics spans (--stats-span MS, docs/perfq-stat.md): frames shorter than MS share their
 * pipeline statistics queries until the span lasts MS. On the example's constant scene the
 * value per frame (a span's totals / its frames) is the same exact count as with a span per
 * frame; every frame with statistics is in one span, the spans of a context follow each other
 * without a gap, and the frames they cover sum to the statistics' frame count. 20 ms spans of
 * 200 frames of about 0.5 ms on llvmpipe (several ms under the sanitizers): spans of several
 * frames. The example releases its context after its last swap, drawing nothing since: the
 * span open there ends at the release, so every frame has statistics; with a span longer than
 * the run, one span holds them all (none without the release's end). GPU time is not checked
 * per frame here: on a loaded machine a fence's stamp can come too late to be trusted, and the
 * frame is then sent without it (docs/gl-layer.md). */
/* The frame front end on the timer's query path (PERFQ_GL_TIMER=query: llvmpipe's timer queries
 * fail the layer's self-check, so it would take the fence path here; the NVIDIA driver takes
 * it), where a frame is read only when the ring of 8 is full: every frame gets its GPU time and
 * its exact statistics, the last ones read at the program's release; with statistics spans
 * shared by several frames too (each span's record at its last frame: no gap, every frame in
 * one span, the statistics exact). */
static void gl_frames_query_path(void **state)
{
    (void)state;
    char *report;
    setenv("PERFQ_GL_TIMER", "query", 1);
    int rc = run_perfq((const char *[]){"--stats-span", "0", "--json", "--", gl_path, "60", NULL},
                       &report);
    unsetenv("PERFQ_GL_TIMER");
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 60);
    assert_int_equal(get_int(j, "frames.with_gpu_time"), 60);
    assert_int_equal(get_int(j, "frames.vertices.count"), 60);
    assert_int_equal(get_int(j, "frames.vertices.min"), 24);
    assert_int_equal(get_int(j, "frames.vertices.max"), 24);
    assert_int_equal(get_int(j, "frames.pipeline_spans.spans"), 60);
    json_object_put(j);
    free(report);

    setenv("PERFQ_GL_TIMER", "query", 1);
    rc = run_perfq((const char *[]){"--stats-span", "20", "--json", "--", gl_path, "200", NULL},
                   &report);
    unsetenv("PERFQ_GL_TIMER");
    assert_int_equal(rc, 0);
    j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 200);
    assert_int_equal(get_int(j, "frames.with_gpu_time"), 200);
    assert_int_equal(get_int(j, "frames.pipeline_spans.gaps"), 0);
    assert_int_equal(get_int(j, "frames.pipeline_spans.frames"), 200);
    int64_t spans = get_int(j, "frames.pipeline_spans.spans");
    assert_true(spans >= 1 && spans < 200);     /* frames shared spans */
    check_pipeline(j, 200, 1, 4);
    json_object_put(j);
    free(report);
}

/* Frames ended by glXSwapBuffers (tests/gl/glx_frames_app.c: GLX on a pbuffer of an X display,
 * an Xvfb of its own where $DISPLAY is unset), timed by the context's default path (llvmpipe:
 * stamp points, since 2026-11-27) and by the fence path (PERFQ_GL_TIMER=fence, GL_ARB_sync
 * fences under GLX) with the fences waited by the helper thread and by the program's thread at
 * its swap (PERFQ_GL_FENCE_SWAP_WAIT): every frame counted, the statistics exact (2 triangles a
 * frame), GPU time in frames (on a loaded machine a late fence stamp leaves a frame without
 * it). perfq's exit status is the program's: 77 where there is no X display. */
static void gl_glx_frames(void **state)
{
    (void)state;
    if (!*glx_frames_path) {
        /* Built without X11 or GL (GLX) development files: gl-glx-frames does not exist. In CI
         * nothing is missing (scripts/install-deps.sh installs them): a failure there. */
        if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
            fail_msg("gl-glx-frames was not built (no X11 or GL development files found)");
        printf("# skipped: gl-glx-frames was not built (no X11 or GL development files)\n");
        skip();
    }
    const char *who[] = {"default", "helper", "inline", NULL};
    for (int i = 0; who[i]; i++) {
        char *report;
        if (i > 0) {
            setenv("PERFQ_GL_TIMER", "fence", 1);
            setenv("PERFQ_GL_FENCE_SWAP_WAIT", who[i], 1);
        }
        int rc = run_perfq((const char *[]){"--json", "--", glx_frames_path, "60", NULL}, &report);
        unsetenv("PERFQ_GL_FENCE_SWAP_WAIT");
        unsetenv("PERFQ_GL_TIMER");
        if (rc == 77) {
            /* The program found no X display: a skip only where there truly is none, no
             * $DISPLAY and no /usr/bin/Xvfb for it to start (glx_test.c); else a failure. */
            free(report);
            if (getenv("DISPLAY") || access("/usr/bin/Xvfb", X_OK) == 0)
                fail_msg("gl-glx-frames found no X display (exit 77) though $DISPLAY is set or "
                         "/usr/bin/Xvfb exists");
            printf("# skipped: no $DISPLAY and no /usr/bin/Xvfb\n");
            skip();
        }
        assert_int_equal(rc, 0);
        json_object *j = json_tokener_parse(report);
        assert_non_null(j);
        assert_int_equal(get_int(j, "frames.count"), 60);
        int64_t gpu = get_int(j, "frames.with_gpu_time");
        printf("# %s: %lld of 60 frames with GPU time\n", who[i], (long long)gpu);
        /* Stamp points are never late: every frame has its time. */
        assert_true(i == 0 ? gpu == 60 : gpu >= 1 && gpu <= 60);
        assert_int_equal(get_int(j, "frames.pipeline.vertices.count"), 60);
        assert_int_equal(get_int(j, "frames.pipeline.vertices.min"), 6);
        assert_int_equal(get_int(j, "frames.pipeline.vertices.max"), 6);
        assert_int_equal(get_int(j, "frames.pipeline.primitives.min"), 2);
        assert_int_equal(get_int(j, "frames.pipeline.primitives.max"), 2);
        json_object_put(j);
        free(report);
    }
    /* A program that exits with its context current (no release): the layer reads the frames
     * still pending at the exit (contexts/context.c, leave_at_exit), so every frame has its GPU
     * time and statistics; without that, the last 8 (or those of the last 4 ms) had none. 300
     * frames: more than the frames of 4 ms, on the stamp points of the default path. */
    char *report;
    int rc = run_perfq((const char *[]){"--stats-span", "0", "--json", "--", glx_frames_path,
                                        "300", "exit", NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 300);
    printf("# exit with the context current: %lld of 300 frames with GPU time\n",
           (long long)get_int(j, "frames.with_gpu_time"));
    assert_int_equal(get_int(j, "frames.with_gpu_time"), 300);
    assert_int_equal(get_int(j, "frames.pipeline.vertices.count"), 300);
    assert_int_equal(get_int(j, "frames.pipeline.vertices.min"), 6);
    json_object_put(j);
    free(report);
    /* XCloseDisplay with the context current, then exit (glmark2's and freeglut's end): the
     * close unbinds the context, so the layer reads the pending frames from its own close
     * callback on the display, which Xlib runs before the GLX libraries' (contexts/x_close.c):
     * every frame has its GPU time and statistics. Before, the last frames were counted without
     * results (57-71 of 100 had GPU time), and before that read GPU time 0 and 0 vertices. */
    rc = run_perfq((const char *[]){"--stats-span", "0", "--json", "--", glx_frames_path, "100",
                                    "close", NULL}, &report);
    assert_int_equal(rc, 0);
    j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 100);
    int64_t timed = get_int(j, "frames.with_gpu_time");
    printf("# XCloseDisplay with the context current: %lld of 100 frames with GPU time\n",
           (long long)timed);
    assert_int_equal(timed, 100);
    assert_true(get_int(j, "frames.gpu_frame_ns.min") > 0);
    assert_int_equal(get_int(j, "frames.pipeline.vertices.count"), 100);
    assert_int_equal(get_int(j, "frames.pipeline.vertices.min"), 6);
    json_object_put(j);
    free(report);
    /* A second context made current, the first left (never destroyed), then XCloseDisplay: the
     * display's close destroys the left one for the layer too (contexts/context.c), so its
     * pending draws are sent without results and --per-draw counts every draw: 40 (until
     * 2026-11-29 the left context's last frame's draw was lost: 39; an outside probe's SDL
     * program lost 6 of 450, eglretrace 24 of 11 603). */
    rc = run_perfq((const char *[]){"--per-draw", "--json", "--", glx_frames_path, "20",
                                    "switch", NULL}, &report);
    assert_int_equal(rc, 0);
    j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 40);
    assert_int_equal(get_int(j, "frames.contexts"), 2);
    assert_int_equal(get_int(j, "draws.count"), 40);
    json_object_put(j);
    free(report);
}

/* --no-stats: frames counted and timed, with no pipeline statistics query kept active (on
 * llvmpipe any active query turns its overdraw elimination off: docs/perfq-stat.md, "Pipeline
 * statistics and llvmpipe's overdraw elimination"). */
static void gl_no_stats(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--no-stats", "--json", "--", gl_path, "30", NULL},
                       &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 30);
    int64_t gpu = get_int(j, "frames.with_gpu_time");
    assert_true(gpu > 0 && gpu <= 30);
    assert_int_equal(get_int(j, "frames.vertices.count"), 0);
    assert_int_equal(get_int(j, "frames.pipeline_spans.spans"), 0);
    json_object *frames = json_object_object_get(j, "frames");
    json_object *pipeline = NULL;
    assert_true(json_object_object_get_ex(frames, "pipeline", &pipeline));
    assert_int_equal(json_object_object_length(pipeline), 0);
    json_object_put(j);
    free(report);
    rc = run_perfq((const char *[]){"--no-stats", "--", gl_path, "10", NULL}, &report);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(report, "pipeline statistics: not measured (--no-stats)"));
    assert_null(strstr(report, "vertices per frame"));
    free(report);
}

static void gl_stats_spans(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--stats-span", "20", "--json", "--", gl_path, "200",
                                        NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 200);
    assert_int_equal(get_int(j, "frames.pipeline_spans.span_ns"), 20000000);
    assert_int_equal(get_int(j, "frames.pipeline_spans.gaps"), 0);
    int64_t spans = get_int(j, "frames.pipeline_spans.spans");
    int64_t covered = get_int(j, "frames.pipeline_spans.frames");
    int64_t shared = get_int(j, "frames.pipeline_spans.frames_in_shared_spans");
    assert_int_equal(get_int(j, "frames.pipeline.vertices.count"), covered);
    assert_int_equal(covered, 200);
    assert_true(spans >= 1 && spans < covered);     /* frames shared spans */
    assert_true(shared > 0 && shared <= covered);
    check_pipeline(j, 200, 1, 4);
    /* The mean is the exact total over the frames: 24 vertices in every one. */
    json_object *mean = NULL;
    assert_true(json_object_object_get_ex(json_object_object_get(json_object_object_get(
        json_object_object_get(j, "frames"), "pipeline"), "vertices"), "mean", &mean));
    assert_true(json_object_get_double(mean) == 24.0);
    json_object_put(j);
    free(report);

    rc = run_perfq((const char *[]){"--stats-span", "10000", "--json", "--", gl_path, "30", NULL},
                   &report);
    assert_int_equal(rc, 0);
    j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.pipeline_spans.spans"), 1);
    assert_int_equal(get_int(j, "frames.pipeline_spans.frames"), 30);
    assert_int_equal(get_int(j, "frames.pipeline.vertices.count"), 30);
    check_pipeline(j, 30, 1, 4);
    json_object_put(j);
    free(report);

    /* The default span (4 ms), stated in the report; in the CSV: spans, frames in spans of
     * several, the rule in ns. */
    rc = run_perfq((const char *[]){"--csv", "--", gl_path, "20", NULL}, &report);
    assert_int_equal(rc, 0);
    char *row = strstr(report, "\nframes,pipeline_spans,");
    assert_non_null(row);
    long long n_spans = 0, n_shared = 0, rule = 0;
    assert_int_equal(sscanf(row + 23, "%lld,%lld,%lld,", &n_spans, &n_shared, &rule), 3);
    assert_int_equal(rule, 4000000);
    assert_true(n_shared <= 20);
    free(report);
    rc = run_perfq((const char *[]){"--", gl_path, "20", NULL}, &report);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(report, "--stats-span 4 ms"));
    free(report);

    /* Not a number of ms from 0 to 10000: a usage error (exit 2), CMD not run. */
    static const char *const bad[] = {"-1", "x", "10001", "", "1e9", "nan"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        rc = run_perfq((const char *[]){"--stats-span", bad[i], "--", gl_path, "1", NULL},
                       &report);
        if (rc != 2)
            fail_msg("--stats-span '%s': exit %d, not 2", bad[i], rc);
        free(report);
    }
}

/* --per-draw, run after run: the example releases and destroys its context with the layer's
 * frame query active; before the layer ended its queries at the release, Mesa's llvmpipe freed
 * that query while its rasterizer threads still wrote it, and about one run in five died of
 * heap corruption (SIGSEGV, SIGABRT). Twelve runs: 0.8^12, a 7% chance to miss it in the gcc
 * build (tests/gl/test_gl_layer.c asserts the invariant itself, in every build). */
static void gl_per_draw_repeated(void **state)
{
    (void)state;
    for (int i = 0; i < 12; i++) {
        char *report;
        int rc = run_perfq((const char *[]){"--per-draw", "--json", "--", gl_path, "6", "4", NULL},
                           &report);
        if (rc != 0)
            fail_msg("run %d of 12: perfq stat --per-draw exited %d", i + 1, rc);
        json_object *j = json_tokener_parse(report);
        assert_non_null(j);
        assert_int_equal(get_int(j, "frames.count"), 6);
        assert_int_equal(get_int(j, "draws.count"), 24);
        assert_int_equal(get_int(j, "exit_status"), 0);
        json_object_put(j);
        free(report);
    }
}

/* A program killed mid-run (SIGKILL: no exit handler of its own or of the layer runs) still
 * gets its report: the frames it sent while it ran, its signal (perfq exits 128 + 9), and JSON
 * that parses. */
static void killed_mid_run_report(void **state)
{
    (void)state;
    char *report;
    long hz = sysconf(_SC_CLK_TCK);
    int rc = run_perfq_kill_cmd(2 * hz, &report);
    assert_int_equal(rc, 128 + 9);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "exit_status"), 128 + 9);   /* the shell's: as perfq's exit */
    assert_int_equal(get_int(j, "signal"), 9);
    assert_true(get_int(j, "frames.count") > 0);
    assert_int_equal(get_int(j, "frames.contexts"), 1);
    assert_int_equal(get_int(j, "gl_memory.total_kib"), 17);
    json_object_put(j);
    free(report);
}

static void children_followed_and_status(void **state)
{
    (void)state;
    char *report;
    /* A parent (this binary with --spawn: it renders nothing; not /bin/sh, which a sanitizer
     * build's layer cannot be preloaded into) runs two GL programs, one with 2 draws per frame,
     * one after the other with fork and exec, and exits 3. */
    int rc = run_perfq((const char *[]){"--stats-span", "0", "--json", "--", self_path, "--spawn",
                                        gl_path, NULL}, &report);
    assert_int_equal(rc, 3);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "exit_status"), 3);
    assert_int_equal(get_int(j, "frames.count"), 25);
    assert_int_equal(get_int(j, "frames.contexts"), 2);
    assert_int_equal(get_int(j, "channel.processes"), 2);
    assert_int_equal(get_int(j, "frames.vertices.min"), 12);
    assert_int_equal(get_int(j, "frames.vertices.max"), 24);
    json_object_put(j);
    free(report);
}

/* perfq stat --json of `this binary MODE GL`, whose GL child is 10 frames of the GL example:
 * every frame with GPU time, from one process, and `handed_over` memfds handed over on perfq's
 * socket. */
static void assert_child_followed(const char *mode, long handed_over)
{
    char *report;
    int rc = run_perfq((const char *[]){"--json", "--", self_path, mode, gl_path, NULL}, &report);
    skip_if_lacking(rc, &report, "neither a user namespace nor (as root) a capability drop");
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "frames.count"), 10);
    assert_int_equal(get_int(j, "frames.with_gpu_time"), 10);
    assert_int_equal(get_int(j, "channel.processes"), 1);
    assert_int_equal(get_int(j, "channel.handed_over"), handed_over);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    json_object_put(j);
    free(report);
}

/* A child started with every inherited fd above 2 closed (Python's subprocess by default): its
 * layer attaches through perfq's own copy of the channel (/proc/PID/fd), nothing handed over.
 * Before: nothing from it ("0 loaded", no frames). */
static void child_without_inherited_fds(void **state)
{
    (void)state;
    assert_child_followed("--closing-fds", 0);
}

/* A child that may not open perfq's fds (--isolated) gets the channel's memfd handed over
 * on perfq's socket (src/core/stat_channel_socket.h), once. Before the socket: no frames. */
static void child_that_may_not_open_perfqs_fds(void **state)
{
    (void)state;
    assert_child_followed("--isolated", 1);
}

/* Children started with an environment cleaned of perfq's variables, through each function
 * the GL layer's preload stub wraps (src/gl/injection/exec_follow.c), in the parent: it puts
 * them back into the child's environment, and the child is measured. Before: nothing from it
 * ("0 loaded", no frames). */
static void child_with_cleaned_env(void **state)
{
    (void)state;
#if defined(__x86_64__)
    static const char *const modes[] = {
        "--cleaned-env-execve", "--cleaned-env-execvpe", "--cleaned-env-execle",
        "--cleaned-env-fexecve", "--cleaned-env-execv", "--cleaned-env-execvp",
        "--cleaned-env-execl", "--cleaned-env-execlp", "--cleaned-env-vfork",
        "--cleaned-env-spawn", "--cleaned-env-spawnp",
    };
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        print_message("%s\n", modes[i]);
        assert_child_followed(modes[i], 0);
    }
#else
    skip();   /* the stub, which holds the wrappers, is built for x86-64 only */
#endif
}

static void non_gl_process_loads_no_layer(void **state)
{
    (void)state;
    char *report;
    /* A parent that never calls GL (this binary with --maps) maps the stub, not the layer, and
     * attaches nothing; its GL child loads the layer and is measured: one layer attached (two
     * when every process loaded the layer at its start). */
    int rc = run_perfq((const char *[]){"--json", "--", self_path, "--maps", gl_path, NULL},
                       &report);
    assert_int_equal(rc, 5);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "exit_status"), 5);
    assert_int_equal(get_int(j, "frames.count"), 10);
    assert_int_equal(get_int(j, "frames.vertices.min"), 24);
#if defined(__x86_64__)
    assert_int_equal(get_int(j, "channel.attached"), 1);
#else
    assert_int_equal(get_int(j, "channel.attached"), 2);
#endif
    assert_int_equal(get_int(j, "channel.processes"), 1);
    json_object_put(j);
    free(report);
}

/* The OpenCL layer too: the OpenCL example (10 rounds of 7 commands) run by --isolated gets the
 * memfd handed over on perfq's socket, and every command comes. */
static void cl_child_that_may_not_open_perfqs_fds(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--json", "--", self_path, "--isolated", cl_path, NULL},
                       &report);
    skip_if_lacking(rc, &report, "neither a user namespace nor (as root) a capability drop");
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "opencl.commands"), 7 * 10);
    assert_int_equal(get_int(j, "channel.processes"), 1);
    assert_int_equal(get_int(j, "channel.handed_over"), 1);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    json_object_put(j);
    free(report);
}

/* The OpenCL example (10 rounds of 7 commands) started by posix_spawn with an environment
 * cleaned of perfq's variables: OPENCL_LAYERS and the channel put back, every command comes. */
static void cl_child_with_cleaned_env(void **state)
{
    (void)state;
#if defined(__x86_64__)
    char *report;
    int rc = run_perfq((const char *[]){"--json", "--", self_path, "--cleaned-env-spawn",
                                        cl_path, NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "opencl.commands"), 7 * 10);
    assert_int_equal(get_int(j, "channel.processes"), 1);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    json_object_put(j);
    free(report);
#else
    skip();
#endif
}

static void cl_commands_json(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--json", "--", cl_path, "7", NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    const int64_t rounds = 7, bytes = 65536 * 4;
    assert_int_equal(get_int(j, "opencl.commands"), 7 * rounds);
    /* One process, no GL context (until 2026-11-29 its OpenCL commands counted as one). */
    assert_int_equal(get_int(j, "channel.processes"), 1);
    assert_int_equal(get_int(j, "frames.contexts"), 0);
    const char *kernels[] = {"vadd", "scale", "saxpy"};
    for (int k = 0; k < 3; k++) {
        json_object *g = group(j, "opencl.by_kernel", kernels[k]);
        assert_int_equal(get_int(g, "count"), rounds);
        assert_int_equal(get_int(g, "timed"), rounds);
        assert_int_equal(get_int(g, "bytes"), 0);
        assert_true(get_int(g, "total_ns") > 0);
    }
    json_object *w = group(j, "opencl.by_command_type", "WRITE_BUFFER");
    assert_int_equal(get_int(w, "count"), 2 * rounds);
    assert_int_equal(get_int(w, "bytes"), 2 * rounds * bytes);
    json_object *r = group(j, "opencl.by_command_type", "READ_BUFFER");
    assert_int_equal(get_int(r, "count"), 2 * rounds);
    assert_int_equal(get_int(r, "bytes"), 2 * rounds * bytes);
    json_object *n = group(j, "opencl.by_command_type", "NDRANGE_KERNEL");
    assert_int_equal(get_int(n, "count"), 3 * rounds);
    assert_int_equal(get_int(n, "timed"), 3 * rounds);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    json_object_put(j);
    free(report);
}

/* A program that calls exit(0) while 4 threads go on enqueueing OpenCL commands without waiting
 * (cl_late_wait.c's `exitbusy`: 10 000 000 rounds of 2 commands each at most, exit after
 * 300 ms) ends then under perfq stat, as it does bare: the layer's exit handler reads what was
 * pending for at most 500 ms, and the commands enqueued meanwhile are sent without time. Until
 * 2026-11-29 the handler read a list the threads kept growing, and the process ended only when
 * their work was done (an outside probe's program ran 60 s and more instead of 1.5 s). */
static void cl_exit_while_threads_enqueue(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--json", "--", cl_late_path, "exitbusy", "10000000",
                                        "300", NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    int64_t commands = get_int(j, "opencl.commands"), counted = get_int(j, "opencl.counted");
    print_message("exitbusy: %lld commands read, %lld counted, %lld dropped\n",
                  (long long)commands, (long long)counted,
                  (long long)get_int(j, "channel.dropped"));
    assert_true(commands > 0);
    assert_true(counted < 4 * 2 * 10000000LL);   /* the threads' work was not waited for */
    assert_true(commands + get_int(j, "opencl.unreported") <= counted);
    json_object_put(j);
    free(report);
}

/* The 15 fields of a CSV row (no quoted field in these programs' rows), cut in place. */
static void csv_fields(char *l, char *f[15])
{
    for (int i = 0; i < 15; i++) {
        f[i] = l;
        char *c = strchr(l, ',');
        if (i < 14) {
            assert_non_null(c);
            *c = '\0';
            l = c + 1;
        } else {
            assert_null(c);
        }
    }
}

/* GL memory in the CSV as in the JSON of the same program: objects in count, KiB in kib
 * (GL_NV_query_resource's unit; bytes, total and timed empty: the CSV said KiB * 1024 in bytes,
 * a precision it does not have, and put the tag id in total), a tag's string as name and its
 * share group and id in their own fields; the table by tag. A program with two share groups and
 * a tag in each (memory_app: "buffers" two 8 MiB buffers in one group, "other" one 1 MiB buffer
 * in the other) gets both, each at its peak, with untagged memory counted by type only. */
static void gl_memory_csv_rows(const char *prog, const char *arg, json_object *j)
{
    char *report;
    int rc = run_perfq((const char *[]){"--csv", "--", prog, arg, NULL}, &report);
    assert_int_equal(rc, 0);
    size_t tag_rows = 0, type_rows = 0;
    for (char *save = NULL, *l = strtok_r(report, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        char *f[15];
        csv_fields(l, f);
        int tag = strcmp(f[0], "gl_memory_tag") == 0;
        if (!tag && strcmp(f[0], "gl_memory") != 0)
            continue;
        for (int k = 3; k <= 10; k++)   /* timed ... bytes: not memory's */
            assert_string_equal(f[k], "");
        char key[64];
        if (tag) {
            tag_rows++;
            json_object *t = group(j, "gl_memory.tags", f[1]);
            assert_int_equal(atoll(f[2]), get_int(t, "objects"));
            assert_int_equal(atoll(f[11]), get_int(t, "kib"));
            assert_int_equal(atoll(f[12]), get_int(t, "share_group"));
            assert_int_equal(atoll(f[13]), get_int(t, "id"));
        } else {
            type_rows++;
            snprintf(key, sizeof(key), "gl_memory.%s_objects", f[1]);
            assert_int_equal(atoll(f[2]), get_int(j, key));
            snprintf(key, sizeof(key), "gl_memory.%s_kib", f[1]);
            assert_int_equal(atoll(f[11]), get_int(j, key));
            assert_string_equal(f[12], "");
            assert_string_equal(f[13], "");
        }
        assert_string_equal(f[14], "");   /* min: a series' only */
    }
    assert_int_equal(type_rows, 3);
    assert_int_equal(tag_rows, json_object_array_length(get(j, "gl_memory.tags")));
    free(report);
}

static void gl_memory_tags_csv_table(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--json", "--", gl_path, "5", NULL}, &report);
    assert_int_equal(rc, 0);
    json_object *j = json_tokener_parse(report);
    assert_non_null(j);
    free(report);
    assert_int_equal(json_object_array_length(get(j, "gl_memory.tags")), 2);
    json_object *tv = group(j, "gl_memory.tags", "scene-vertices");
    assert_int_equal(get_int(tv, "kib"), 1);
    json_object *tt = group(j, "gl_memory.tags", "scene-texture");
    assert_int_equal(get_int(tt, "kib"), 16);
    gl_memory_csv_rows(gl_path, "5", j);
    json_object_put(j);

    rc = run_perfq((const char *[]){"--json", "--", memory_path, NULL}, &report);
    assert_int_equal(rc, 0);
    j = json_tokener_parse(report);
    assert_non_null(j);
    assert_int_equal(get_int(j, "gl_memory.share_groups"), 2);
    assert_int_equal(json_object_array_length(get(j, "gl_memory.tags")), 2);
    json_object *b = group(j, "gl_memory.tags", "buffers");
    assert_int_equal(get_int(b, "kib"), 16384);
    assert_int_equal(get_int(b, "objects"), 2);
    json_object *o = group(j, "gl_memory.tags", "other");
    assert_int_equal(get_int(o, "kib"), 1024);
    assert_int_equal(get_int(o, "objects"), 1);
    assert_true(get_int(b, "share_group") != get_int(o, "share_group"));
    /* By type: 4096 KiB texture and 16384 KiB renderbuffer untagged, 17408 KiB of buffers. */
    assert_int_equal(get_int(j, "gl_memory.total_kib"), 4096 + 16384 + 17408);
    free(report);
    gl_memory_csv_rows(memory_path, NULL, j);
    json_object_put(j);

    rc = run_perfq((const char *[]){"--", memory_path, NULL}, &report);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(report, "GL memory by tag, each at its own peak:"));
    const char *line = strstr(report, " buffers ");
    assert_non_null(line);
    assert_non_null(strstr(line, "16384 KiB (2 objects)"));
    free(report);
}

/* CSV: a header and rows of 15 fields; the kernel rows hold the exact counts. */
static void csv_parses(void **state)
{
    (void)state;
    char *report;
    int rc = run_perfq((const char *[]){"--csv", "--", cl_path, "3", NULL}, &report);
    assert_int_equal(rc, 0);
    int lines = 0, kernels = 0, counters = 0;
    for (char *save = NULL, *l = strtok_r(report, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save), lines++) {
        int commas = 0;
        for (char *c = l; *c; c++)
            commas += *c == ',';
        assert_int_equal(commas, 14);
        if (lines == 0)
            assert_string_equal(l, "section,name,count,timed,total,mean,p50,p95,p99,max,bytes,"
                                   "kib,share_group,id,min");
        if (strncmp(l, "opencl_kernel,", 14) == 0) {
            kernels++;
            assert_int_equal(atoi(strchr(l + 14, ',') + 1), 3);
        }
        counters += strncmp(l, "counter,rusage/user-time,", 25) == 0;
    }
    assert_int_equal(kernels, 3);
    assert_int_equal(counters, 1);
    free(report);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--spawn") == 0)
        return spawn_two(argv[2]);
    if (argc == 4 && strcmp(argv[1], "--background") == 0)
        return background(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "--maps") == 0)
        return maps_then_gl(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--closing-fds") == 0)
        return spawn_closing_fds(argv[2], 0);
    if (argc == 3 && strcmp(argv[1], "--isolated") == 0)
        return spawn_closing_fds(argv[2], 1);
    if (argc == 3 && strncmp(argv[1], "--cleaned-env-", 14) == 0)
        return spawn_cleaned_env(argv[1] + 14, argv[2]);
    if (argc < 9) {
        fprintf(stderr, "usage: %s PERFQ EXAMPLE_GL EXAMPLE_CL GL_MEMORY_APP GLX_FRAMES_APP|'' "
                "GL_THREADS_APP GL_GLES_FRAMES_APP CL_LATE_APP\n", argv[0]);
        return 2;
    }
    perfq_path = argv[1];
    gl_path = argv[2];
    cl_path = argv[3];
    memory_path = argv[4];
    glx_frames_path = argv[5];
    threads_path = argv[6];
    gles_path = argv[7];
    cl_late_path = argv[8];
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
    if (n <= 0)
        return 1;
    self_path[n] = '\0';
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gl_frames_json),
        cmocka_unit_test(gl_per_draw_json_csv),
        cmocka_unit_test(gl_per_draw_repeated),
        cmocka_unit_test(gl_stats_spans),
        cmocka_unit_test(gl_no_stats),
        cmocka_unit_test(gl_frames_query_path),
        cmocka_unit_test(gl_glx_frames),
        cmocka_unit_test(gl_threads_frames_draws),
        cmocka_unit_test(gl_display_list_per_draw),
        cmocka_unit_test(gl_draws_without_frames),
        cmocka_unit_test(gl_refused_draws_not_counted),
        cmocka_unit_test(gl_contexts_one_after_another),
        cmocka_unit_test(outliving_process_said),
        cmocka_unit_test(gl_damage_swaps_frames),
        cmocka_unit_test(gles_frames),
        cmocka_unit_test(children_followed_and_status),
        cmocka_unit_test(child_without_inherited_fds),
        cmocka_unit_test(child_that_may_not_open_perfqs_fds),
        cmocka_unit_test(child_with_cleaned_env),
        cmocka_unit_test(non_gl_process_loads_no_layer),
        cmocka_unit_test(killed_mid_run_report),
        cmocka_unit_test(cl_child_with_cleaned_env),
        cmocka_unit_test(cl_commands_json),
        cmocka_unit_test(cl_exit_while_threads_enqueue),
        cmocka_unit_test(cl_child_that_may_not_open_perfqs_fds),
        cmocka_unit_test(csv_parses),
        cmocka_unit_test(gl_memory_tags_csv_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
