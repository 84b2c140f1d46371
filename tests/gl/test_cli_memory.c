/*
 * `perfq memory PID` end to end on llvmpipe, as a user runs it: a GL program (memory_app.c)
 * started under `perfq run` allocates known sizes, and `perfq memory` from outside prints them
 * exactly, readably and as JSON that parses; after the program deletes a buffer the report
 * follows; a process without the layer, one that does not exist and bad arguments are clear
 * errors with exit status 2. With --other-user (a test of its own): another user is refused
 * (needs root to become "nobody": exit 77 naming it elsewhere).
 * Arguments: PERFQ MEMORY_APP [--other-user].
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>

#include <poll.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../json_report.h"

static const char *perfq_path, *app_path;
static pid_t app_pid = -1;
static int app_in = -1, app_out = -1;

/* Waits (up to 120 s: a loaded machine, a sanitizer build) for the app's "ready" line. */
static int wait_ready(void)
{
    char line[256];
    size_t len = 0;
    for (;;) {
        struct pollfd p = {app_out, POLLIN, 0};
        int r = poll(&p, 1, 120000);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        char c;
        ssize_t k = read(app_out, &c, 1);
        if (k <= 0)
            return -1;
        if (c == '\n') {
            line[len] = '\0';
            if (strcmp(line, "ready") == 0)
                return 0;
            len = 0;
        } else if (len < sizeof line - 1) {
            line[len++] = c;
        }
    }
}

/* Starts `perfq run -- MEMORY_APP`; 0, 77 when the app has no EGL display, -1. */
static int start_app(void)
{
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl(perfq_path, perfq_path, "run", "--", app_path, (char *)NULL);
        _exit(99);
    }
    close(in[0]);
    close(out[1]);
    app_pid = pid;
    app_in = in[1];
    app_out = out[0];
    if (wait_ready() == 0)
        return 0;
    int status = 0;
    close(app_in);
    waitpid(app_pid, &status, 0);
    app_pid = -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 77 ? 77 : -1;
}

static void stop_app(void)
{
    if (app_pid < 0)
        return;
    (void)!write(app_in, "exit\n", 5);
    close(app_in);
    int status = 0;
    waitpid(app_pid, &status, 0);
    close(app_out);
    app_pid = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "memory_app ended with status 0x%x\n", status);
}

static char *slurp(int fd)
{
    lseek(fd, 0, SEEK_SET);
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    ssize_t k;
    while ((k = read(fd, s + len, cap - len - 1)) > 0) {
        len += (size_t)k;
        if (len + 1 >= cap)
            s = realloc(s, cap *= 2);
    }
    s[len] = '\0';
    close(fd);
    return s;
}

/* Runs perfq with args (as uid when uid >= 0); its exit status, stdout and stderr. */
static int run_perfq(const char *const *args, long uid, char **out, char **err)
{
    char op[] = "/tmp/perfq-mem-out-XXXXXX", ep[] = "/tmp/perfq-mem-err-XXXXXX";
    int o = mkstemp(op), e = mkstemp(ep);
    assert_true(o >= 0 && e >= 0);
    unlink(op);
    unlink(ep);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(o, 1);
        dup2(e, 2);
        if (uid >= 0 && (setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0))
            _exit(98);
        const char *argv[16] = {perfq_path};
        int k = 1;
        for (int i = 0; args[i] && k < 15; i++)
            argv[k++] = args[i];
        execv(perfq_path, (char *const *)argv);
        _exit(99);
    }
    int status;
    waitpid(pid, &status, 0);
    *out = slurp(o);
    *err = slurp(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The share group whose first tag has this name. */
static json_object *group_tagged(json_object *j, const char *tag)
{
    json_object *groups = get(j, "share_groups");
    for (size_t i = 0; i < json_object_array_length(groups); i++) {
        json_object *g = json_object_array_get_idx(groups, i);
        json_object *tags = get(g, "tags");
        if (json_object_array_length(tags) == 1 &&
            strcmp(json_object_get_string(get(json_object_array_get_idx(tags, 0), "name")),
                   tag) == 0)
            return g;
    }
    fail_msg("no share group with the tag '%s'", tag);
    return NULL;
}

static char pid_text[32];

static json_object *ask_json(void)
{
    char *out, *err;
    int rc = run_perfq((const char *[]){"memory", "--json", pid_text, NULL}, -1, &out, &err);
    if (rc != 0)
        fail_msg("perfq memory --json exited %d: %s", rc, err);
    json_object *j = json_tokener_parse(out);
    if (!j)
        fail_msg("not JSON: %s", out);
    free(out);
    free(err);
    return j;
}

static void check_type(json_object *g, const char *type, int64_t allocs, int64_t kib)
{
    char path[64];
    snprintf(path, sizeof path, "types.%s.allocations", type);
    assert_int_equal(get_int(g, path), allocs);
    snprintf(path, sizeof path, "types.%s.kib", type);
    assert_int_equal(get_int(g, path), kib);
}

static void json_exact(void **state)
{
    (void)state;
    json_object *j = ask_json();
    assert_int_equal(get_int(j, "pid"), app_pid);
    assert_int_equal(json_object_array_length(get(j, "share_groups")), 2);
    json_object *g = group_tagged(j, "buffers");
    check_type(g, "buffer", 2, 16384);          /* two 8 MiB buffers */
    check_type(g, "texture", 1, 4096);          /* 1024x1024 RGBA8, level 0 */
    check_type(g, "renderbuffer", 1, 16384);    /* 2048x2048 RGBA8 */
    assert_int_equal(get_int(g, "total.allocations"), 4);
    assert_int_equal(get_int(g, "total.kib"), 36864);
    json_object *tag = json_object_array_get_idx(get(g, "tags"), 0);
    assert_int_equal(get_int(tag, "id"), 1);
    assert_int_equal(get_int(tag, "allocations"), 2);
    assert_int_equal(get_int(tag, "kib"), 16384);
    /* llvmpipe: a software renderer's memory is system memory, read when asked; the NVIDIA
     * driver: GL_NVX_gpu_memory_info, as the program's thread last read it (at the share
     * group's creation), docs/perfq-memory.md. */
    const char *source = json_object_get_string(get(g, "device_memory.source"));
    const char *as_of = json_object_get_string(get(g, "device_memory.as_of"));
    if (strcmp(source, "GL_NVX_gpu_memory_info") == 0) {
        assert_string_equal(as_of, "last-read");
    } else {
        assert_non_null(strstr(source, "/proc/meminfo"));
        assert_string_equal(as_of, "now");
    }
    assert_true(get_int(g, "device_memory.total_kib") > 0);
    assert_true(get_int(g, "device_memory.free_kib") > 0);
    json_object *o = group_tagged(j, "other");
    check_type(o, "buffer", 1, 1024);
    check_type(o, "texture", 0, 0);
    check_type(o, "renderbuffer", 0, 0);
    tag = json_object_array_get_idx(get(o, "tags"), 0);
    assert_int_equal(get_int(tag, "allocations"), 1);
    assert_int_equal(get_int(tag, "kib"), 1024);
    assert_true(get_int(o, "id") != get_int(g, "id"));
    json_object_put(j);
}

/* The readable form: the same figures, one line per type and per tag. */
static void text_exact(void **state)
{
    (void)state;
    char *out, *err;
    int rc = run_perfq((const char *[]){"memory", pid_text, NULL}, -1, &out, &err);
    assert_int_equal(rc, 0);
    char head[128];
    snprintf(head, sizeof head, "process %s: GL memory in 2 share groups", pid_text);
    assert_non_null(strstr(out, head));
    int buffer16 = 0, texture = 0, rb = 0, total = 0, tag_buffers = 0, tag_other = 0;
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char name[32], tname[64];
        unsigned long long a, k;
        long id;
        if (sscanf(l, " %31s %llu %llu", name, &a, &k) == 3) {
            buffer16 += strcmp(name, "buffer") == 0 && a == 2 && k == 16384;
            texture += strcmp(name, "texture") == 0 && a == 1 && k == 4096;
            rb += strcmp(name, "renderbuffer") == 0 && a == 1 && k == 16384;
            total += strcmp(name, "total") == 0 && a == 4 && k == 36864;
        }
        if (sscanf(l, " %ld %llu %llu %63s", &id, &a, &k, tname) == 4) {
            tag_buffers += strcmp(tname, "\"buffers\"") == 0 && a == 2 && k == 16384;
            tag_other += strcmp(tname, "\"other\"") == 0 && a == 1 && k == 1024;
        }
    }
    assert_int_equal(buffer16, 1);
    assert_int_equal(texture, 1);
    assert_int_equal(rb, 1);
    assert_int_equal(total, 1);
    assert_int_equal(tag_buffers, 1);
    assert_int_equal(tag_other, 1);
    free(out);
    free(err);
}

/* The program deletes one 8 MiB buffer: the next report says so. */
static void follows_the_program(void **state)
{
    (void)state;
    assert_int_equal(write(app_in, "delete\n", 7), 7);
    assert_int_equal(wait_ready(), 0);
    json_object *j = ask_json();
    json_object *g = group_tagged(j, "buffers");
    check_type(g, "buffer", 1, 8192);
    assert_int_equal(get_int(json_object_array_get_idx(get(g, "tags"), 0), "kib"), 8192);
    assert_int_equal(get_int(g, "total.kib"), 8192 + 4096 + 16384);
    json_object_put(j);
}

static void errors(void **state)
{
    (void)state;
    char *out, *err, me[32];
    /* This test program has no layer: it does not answer. */
    snprintf(me, sizeof me, "%ld", (long)getpid());
    int rc = run_perfq((const char *[]){"memory", me, NULL}, -1, &out, &err);
    assert_int_equal(rc, 2);
    assert_string_equal(out, "");
    assert_non_null(strstr(err, "does not answer"));
    free(out);
    free(err);
    /* A process that has exited (reaped: its id is free). */
    pid_t gone = fork();
    if (gone == 0)
        _exit(0);
    waitpid(gone, NULL, 0);
    snprintf(me, sizeof me, "%ld", (long)gone);
    rc = run_perfq((const char *[]){"memory", "--json", me, NULL}, -1, &out, &err);
    assert_int_equal(rc, 2);
    assert_string_equal(out, "");
    assert_true(strstr(err, "no process") || strstr(err, "does not answer"));
    free(out);
    free(err);
    const char *const bad[][4] = {{"memory", NULL}, {"memory", "abc", NULL},
                                  {"memory", "-5", NULL}, {"memory", "--xml", pid_text, NULL},
                                  {"memory", pid_text, pid_text, NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rc = run_perfq(bad[i], -1, &out, &err);
        assert_int_equal(rc, 2);
        assert_non_null(strstr(err, "usage: perfq memory"));
        free(out);
        free(err);
    }
}

/* The program belongs to root; "nobody" asks: refused, nothing of the report printed. */
static void other_user_refused(void **state)
{
    (void)state;
    struct passwd *pw = getpwnam("nobody");
    long uid = pw ? (long)pw->pw_uid : 65534;
    char *out, *err;
    int rc = run_perfq((const char *[]){"memory", pid_text, NULL}, uid, &out, &err);
    assert_int_equal(rc, 2);
    assert_string_equal(out, "");
    assert_non_null(strstr(err, "refused"));
    free(out);
    free(err);
    /* The owner still gets the report afterwards. */
    json_object_put(ask_json());
}

static int setup(void **state)
{
    (void)state;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s PERFQ MEMORY_APP [--other-user]\n", argv[0]);
        return 2;
    }
    perfq_path = argv[1];
    app_path = argv[2];
    int other_user = argc > 3 && strcmp(argv[3], "--other-user") == 0;
    if (other_user && geteuid() != 0) {
        printf("skipping: acting as another user needs root (this test runs as uid %ld)\n",
               (long)geteuid());
        return 77;
    }
    int st = start_app();
    if (st == 77) {
        printf("skipping: no EGL display with desktop GL here\n");
        return 77;
    }
    if (st != 0) {
        fprintf(stderr, "FAIL: perfq run -- %s did not get ready\n", app_path);
        return 1;
    }
    snprintf(pid_text, sizeof pid_text, "%ld", (long)app_pid);
    const struct CMUnitTest all[] = {
        cmocka_unit_test(json_exact),
        cmocka_unit_test(text_exact),
        cmocka_unit_test(errors),
        cmocka_unit_test(follows_the_program),
    };
    const struct CMUnitTest root[] = {
        cmocka_unit_test(other_user_refused),
    };
    int failed = other_user ? cmocka_run_group_tests(root, setup, NULL)
                            : cmocka_run_group_tests(all, setup, NULL);
    stop_app();
    return failed;
}
