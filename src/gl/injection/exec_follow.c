/*
 * The exec and posix_spawn functions, in the GL layer's preload stub (libperfq-gl-lazy.so),
 * which every process of a perfq run, stat or record loads: a child's environment that lacks
 * what perfq injected (PERFQ_INJECTED: the layers in LD_PRELOAD and OPENCL_LAYERS, the stat
 * channel...) gets it back, so that a child started with a cleaned environment (`env -i`,
 * Python's subprocess with env=, a launcher that sanitises it) is measured as its siblings are
 * (core/injected_env.h; docs/perfq-stat.md, "The channel").
 *
 * The stub keeps PERFQ_INJECTED from its process's environment at load (its constructor: the
 * program may clear the environment before its exec, as `env -i` does), and looks up the
 * functions it wraps then. Without it (a process not started by perfq) each wrapper calls the
 * next definition at once; so it does where the child's environment still holds PERFQ_INJECTED
 * (the program's own edit of perfq's environment: injected_env.h). Each may run in the child
 * of a vfork() or of a fork() in a threaded program, or in a signal handler: the new
 * environment is built on the stack (sized for the names PERFQ_INJECTED holds: a few KiB; past
 * 64 KiB the child runs with its environment as it is), with no allocator, no system call and
 * no loader call. The functions wrapped are
 * those that take an environment or use environ: execve, execv, execvp, execvpe, execl, execle,
 * execlp, fexecve, posix_spawn, posix_spawnp. Not system() and popen(), which pass environ as
 * it is, and not a raw execve system call (Go's runtime).
 */
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/injected_env.h"

#define EXEC_EXPORT __attribute__((visibility("default")))
/* The most stack a child's environment takes: past it, exec with the environment as it is. */
#define STACK_MOST (64u * 1024u)

/* lazy_preload.c: the next definition of name after the stub (libc's, or a later
 * interposer's), through glibc's own dlsym. */
__attribute__((visibility("hidden"))) void *perfq_gl_lazy_after_stub(const char *name);

static char injected[PERFQ_INJECTED_MAX];   /* "": perfq injected nothing */
static void *next_execve, *next_execvpe, *next_fexecve, *next_posix_spawn, *next_posix_spawnp;

/* The next definition of a wrapped function, looked up once. */
static void *next(void **slot, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!f) {
        f = perfq_gl_lazy_after_stub(name);
        __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    }
    return f;
}
#define NEXT(fn) ((__typeof__(&fn))next(&next_##fn, #fn))

/* Where perfq injected something, the next definitions are looked up here, at load, and never
 * in a wrapper: an exec from a signal handler (a crash reporter's) or from the child of a fork
 * in a threaded program must not take the dynamic loader's lock. */
__attribute__((constructor)) static void keep_injected(void)
{
    const char *s = getenv(PERFQ_INJECTED_ENV);
    size_t n = s ? strlen(s) : 0;
    if (!n || n >= sizeof(injected))
        return;
    memcpy(injected, s, n + 1);
    (void)NEXT(execve);
    (void)NEXT(execvpe);
    (void)NEXT(fexecve);
    (void)NEXT(posix_spawn);
    (void)NEXT(posix_spawnp);
}

typedef int (*with_env_fn)(void *call, char *const *env);

/* Calls fn with the child's environment: envp, or envp with what perfq injected put back. */
static int with_child_env(char *const *envp, with_env_fn fn, void *call)
{
    size_t slots = 0, bytes = 0;
    if (!injected[0] || perfq_injected_present(envp) ||
        perfq_injected_bounds(injected, envp, &slots, &bytes) != 0 ||
        slots > STACK_MOST / sizeof(char *) || bytes > STACK_MOST - slots * sizeof(char *))
        return fn(call, envp);
    char *vec[slots];
    char buf[bytes];
    int fixed = perfq_injected_apply(injected, envp, vec, slots, buf, bytes) == 1;
    return fn(call, fixed ? vec : envp);
}

struct exec_call {
    const char *path;
    char *const *argv;
    int fd;
};

static int call_execve(void *c, char *const *env)
{
    struct exec_call *e = c;
    int (*real)(const char *, char *const *, char *const *) = NEXT(execve);
    return real ? real(e->path, e->argv, env) : (errno = ENOSYS, -1);
}

static int call_execvpe(void *c, char *const *env)
{
    struct exec_call *e = c;
    int (*real)(const char *, char *const *, char *const *) = NEXT(execvpe);
    return real ? real(e->path, e->argv, env) : (errno = ENOSYS, -1);
}

static int call_fexecve(void *c, char *const *env)
{
    struct exec_call *e = c;
    int (*real)(int, char *const *, char *const *) = NEXT(fexecve);
    return real ? real(e->fd, e->argv, env) : (errno = ENOSYS, -1);
}

EXEC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    struct exec_call e = {path, argv, -1};
    return with_child_env(envp, call_execve, &e);
}

EXEC_EXPORT int execv(const char *path, char *const argv[])
{
    struct exec_call e = {path, argv, -1};
    return with_child_env(environ, call_execve, &e);
}

EXEC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    struct exec_call e = {file, argv, -1};
    return with_child_env(envp, call_execvpe, &e);
}

EXEC_EXPORT int execvp(const char *file, char *const argv[])
{
    struct exec_call e = {file, argv, -1};
    return with_child_env(environ, call_execvpe, &e);
}

EXEC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    struct exec_call e = {NULL, argv, fd};
    return with_child_env(envp, call_fexecve, &e);
}

/* The execl family: the arguments from arg0 up to the NULL as a vector on the stack (as
 * glibc's own execl makes it), handed to the v call; execle's environment follows the NULL. */
typedef int (*with_args_fn)(const char *path, char *const *argv, va_list *ap);

static int with_arg_vector(const char *path, const char *arg0, va_list *ap, with_args_fn fn)
{
    va_list count;
    va_copy(count, *ap);
    size_t n = 1;
    while (va_arg(count, const char *))
        n++;
    va_end(count);
    char *argv[n + 1];
    argv[0] = (char *)arg0;
    for (size_t i = 1; i < n; i++)
        argv[i] = va_arg(*ap, char *);
    argv[n] = NULL;
    return fn(path, argv, ap);
}

static int call_execv(const char *path, char *const *argv, va_list *ap)
{
    (void)ap;
    return execv(path, argv);
}

static int call_execvp(const char *file, char *const *argv, va_list *ap)
{
    (void)ap;
    return execvp(file, argv);
}

static int call_execle(const char *path, char *const *argv, va_list *ap)
{
    (void)va_arg(*ap, char *);   /* the NULL that ends the arguments */
    return execve(path, argv, va_arg(*ap, char *const *));
}

EXEC_EXPORT int execl(const char *path, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    int rc = with_arg_vector(path, arg0, &ap, call_execv);
    va_end(ap);
    return rc;
}

EXEC_EXPORT int execlp(const char *file, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    int rc = with_arg_vector(file, arg0, &ap, call_execvp);
    va_end(ap);
    return rc;
}

EXEC_EXPORT int execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    int rc = with_arg_vector(path, arg0, &ap, call_execle);
    va_end(ap);
    return rc;
}

struct spawn_call {
    pid_t *pid;
    const char *path;
    const posix_spawn_file_actions_t *actions;
    const posix_spawnattr_t *attr;
    char *const *argv;
};

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const *, char *const *);

static int call_posix_spawn(void *c, char *const *env)
{
    struct spawn_call *s = c;
    spawn_fn real = NEXT(posix_spawn);
    return real ? real(s->pid, s->path, s->actions, s->attr, s->argv, env) : ENOSYS;
}

static int call_posix_spawnp(void *c, char *const *env)
{
    struct spawn_call *s = c;
    spawn_fn real = NEXT(posix_spawnp);
    return real ? real(s->pid, s->path, s->actions, s->attr, s->argv, env) : ENOSYS;
}

EXEC_EXPORT int posix_spawn(pid_t *pid, const char *path,
                            const posix_spawn_file_actions_t *actions,
                            const posix_spawnattr_t *attr, char *const argv[],
                            char *const envp[])
{
    struct spawn_call s = {pid, path, actions, attr, argv};
    return with_child_env(envp, call_posix_spawn, &s);
}

EXEC_EXPORT int posix_spawnp(pid_t *pid, const char *file,
                             const posix_spawn_file_actions_t *actions,
                             const posix_spawnattr_t *attr, char *const argv[],
                             char *const envp[])
{
    struct spawn_call s = {pid, file, actions, attr, argv};
    return with_child_env(envp, call_posix_spawnp, &s);
}
