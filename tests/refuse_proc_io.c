/*
 * librefuse-proc-io.so, preloaded into perfq by the `cli` test: opening another process's
 * /proc/PID/io fails with EMFILE, as when perfq is out of descriptors, while perfq's own
 * (/proc/self/io, /proc/<its pid>/io: the catalog's probe) still opens. It is how the test
 * reaches the one path of `perfq stat`'s spawn at once that needs a failure after CMD started:
 * CMD's proc-io measurement cannot be opened, CMD runs on, its rows are "not counted" and a
 * message says why (cmd_stat.c, run_and_measure). Its constructor takes it out of LD_PRELOAD,
 * so that CMD (perfq adds its layers to LD_PRELOAD later) does not inherit it. A sanitizer's
 * interceptor of open in perfq's executable reaches it through dlsym(RTLD_NEXT), as it would
 * reach the C library.
 */
/* open and open64 are both defined here: without the build's _FILE_OFFSET_BITS=64 renaming
 * open to open64 in the headers. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void leave_preload(void)
{
    unsetenv("LD_PRELOAD");
}

static int refused(const char *path)
{
    unsigned long pid;
    char tail[8];
    if (!path || sscanf(path, "/proc/%lu/%7s", &pid, tail) != 2)
        return 0;
    return strcmp(tail, "io") == 0 && pid != (unsigned long)getpid();
}

static mode_t mode_of(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static int next_open(const char *name, const char *path, int flags, mode_t mode)
{
    if (refused(path)) {
        errno = EMFILE;
        return -1;
    }
    open_fn real = (open_fn)dlsym(RTLD_NEXT, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(path, flags, mode);
}

static int next_openat(const char *name, int dir, const char *path, int flags, mode_t mode)
{
    if (refused(path)) {
        errno = EMFILE;
        return -1;
    }
    openat_fn real = (openat_fn)dlsym(RTLD_NEXT, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(dir, path, flags, mode);
}

#define OPEN_SHIM(name)                                                                     \
    __attribute__((visibility("default"))) int name(const char *path, int flags, ...);      \
    int name(const char *path, int flags, ...)                                              \
    {                                                                                       \
        va_list ap;                                                                         \
        va_start(ap, flags);                                                                \
        mode_t mode = mode_of(flags, ap);                                                   \
        va_end(ap);                                                                         \
        return next_open(#name, path, flags, mode);                                         \
    }
#define OPENAT_SHIM(name)                                                                   \
    __attribute__((visibility("default"))) int name(int dir, const char *path, int flags, ...); \
    int name(int dir, const char *path, int flags, ...)                                     \
    {                                                                                       \
        va_list ap;                                                                         \
        va_start(ap, flags);                                                                \
        mode_t mode = mode_of(flags, ap);                                                   \
        va_end(ap);                                                                         \
        return next_openat(#name, dir, path, flags, mode);                                  \
    }

OPEN_SHIM(open)
OPEN_SHIM(open64)
OPENAT_SHIM(openat)
OPENAT_SHIM(openat64)

/* _FORTIFY_SOURCE's checked forms (no mode: O_CREAT is refused by them at compile time). */
__attribute__((visibility("default"))) int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags)
{
    return next_open("__open_2", path, flags, 0);
}
__attribute__((visibility("default"))) int __open64_2(const char *path, int flags);
int __open64_2(const char *path, int flags)
{
    return next_open("__open64_2", path, flags, 0);
}
