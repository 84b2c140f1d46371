/*
 * Provider "proc-io": the kernel's I/O accounting, /proc/PID/io (CONFIG_TASK_IO_ACCOUNTING).
 * For the calling process (/proc/self/io) the counts include its reaped children; for a target
 * pid they include that process's reaped descendants, readable until it is itself reaped
 * (perfq stat ends its measurement while the child is a zombie, then reaps it).
 * The file stays open for the session and is re-read with pread at offset 0.
 *
 * A PID target waiting for its exec (enable_on_exec) is a process made to be measured: its
 * first begin counts it from its start (base zero), not from the moment begin reads it, so it
 * does not matter whether its exec, and its first reads, came before that begin (perfq stat
 * spawns CMD without waiting where only these counters measure it). What it did between its
 * fork and its exec is counted with it (perfq's go byte: one read, one byte). A later begin
 * restarts from its own read.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/provider.h"
#include "providers/builtin_providers.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum field {
    F_RCHAR, F_WCHAR, F_SYSCR, F_SYSCW, F_READ_BYTES, F_WRITE_BYTES, F_CANCELLED, F_COUNT
};
static const char *const keys[F_COUNT] = {
    "rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes",
};

static const struct perfq_group_desc group = {
    "proc-io", "I/O accounting of the process and its reaped children (/proc/PID/io)",
    PERFQ_SCOPE_PROCESS, 0};

#define C(n, desc, unit, f) \
    {n, "I/O", desc, unit, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, f, 0}

static const struct perfq_counter_desc counters[] = {
    C("read-bytes", "Bytes read by read-like system calls (rchar), from any file or cache",
      PERFQ_UNIT_BYTES, F_RCHAR),
    C("write-bytes", "Bytes written by write-like system calls (wchar)", PERFQ_UNIT_BYTES,
      F_WCHAR),
    C("read-syscalls", "Read-like system calls (syscr)", PERFQ_UNIT_GENERIC, F_SYSCR),
    C("write-syscalls", "Write-like system calls (syscw)", PERFQ_UNIT_GENERIC, F_SYSCW),
    C("storage-read-bytes", "Bytes fetched from the storage layer (read_bytes)",
      PERFQ_UNIT_BYTES, F_READ_BYTES),
    C("storage-write-bytes", "Bytes sent to the storage layer (write_bytes)",
      PERFQ_UNIT_BYTES, F_WRITE_BYTES),
    C("cancelled-write-bytes", "Bytes whose write-back was cancelled by truncation "
      "(cancelled_write_bytes)", PERFQ_UNIT_BYTES, F_CANCELLED),
};
_Static_assert(ARRAY_SIZE(counters) == F_COUNT, "one counter per field");

static int parse_io(int fd, uint64_t *out)
{
    char buf[512];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    int found = 0;
    for (char *line = buf; line && *line;) {
        char *colon = strchr(line, ':');
        char *nl = strchr(line, '\n');
        if (!colon)
            break;
        for (int f = 0; f < F_COUNT; f++) {
            size_t len = strlen(keys[f]);
            if ((size_t)(colon - line) == len && strncmp(line, keys[f], len) == 0) {
                out[f] = strtoull(colon + 1, NULL, 10);
                found++;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return found == F_COUNT ? 0 : -1;
}

static perfq_status_t procio_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    uint64_t v[F_COUNT];
    int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
        snprintf(reason, size, "out of file descriptors");
        return PERFQ_EMFILE;   /* perfq_open fails: nothing said of /proc/self/io */
    }
    if (fd < 0) {
        snprintf(reason, size, "/proc/self/io cannot be read (kernel without "
                 "CONFIG_TASK_IO_ACCOUNTING, or /proc not mounted)");
        return PERFQ_ENOTSUP;
    }
    int bad = parse_io(fd, v);
    close(fd);
    if (bad) {
        snprintf(reason, size, "/proc/self/io has an unexpected format");
        return PERFQ_ENOTSUP;
    }
    *state = (void *)&group;
    return PERFQ_OK;
}

static perfq_status_t procio_enumerate(void *state, struct perfq_catalog *catalog,
                                       const char *probe_reason)
{
    return perfq_catalog_add_table(catalog, &group, counters, ARRAY_SIZE(counters),
                                   state ? NULL : probe_reason);
}

struct procio_session {
    int fd;
    size_t count;
    enum field fields[F_COUNT];
    uint64_t base[F_COUNT];
    uint64_t last[F_COUNT];
    int from_start;   /* the next begin takes zero as its base (a target waiting for exec) */
};

static perfq_status_t procio_session_open(void *state, const struct perfq_session_request *req,
                                          void **session)
{
    (void)state;
    if (req->count > F_COUNT)
        return PERFQ_EINVAL;
    char path[64];
    if (req->target.kind == PERFQ_TARGET_PID)
        snprintf(path, sizeof(path), "/proc/%ld/io", (long)req->target.pid);
    else
        snprintf(path, sizeof(path), "/proc/self/io");
    struct procio_session *s = calloc(1, sizeof(*s));
    if (!s)
        return PERFQ_ENOMEM;
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) {
        int err = errno;
        free(s);
        /* No such process is the caller's bad pid; running out of descriptors is not. */
        if (err == ENOENT || err == ESRCH)
            return PERFQ_EINVAL;
        return err == EMFILE || err == ENFILE ? PERFQ_EMFILE
             : err == ENOMEM ? PERFQ_ENOMEM : PERFQ_ESYS;
    }
    s->count = req->count;
    s->from_start = req->target.kind == PERFQ_TARGET_PID && req->target.enable_on_exec;
    for (size_t i = 0; i < req->count; i++)
        s->fields[i] = (enum field)req->counters[i]->code;
    *session = s;
    return PERFQ_OK;
}

static void procio_session_close(void *session)
{
    struct procio_session *s = session;
    close(s->fd);
    free(s);
}

static perfq_status_t procio_begin(void *session)
{
    struct procio_session *s = session;
    if (s->from_start) {
        s->from_start = 0;
        memset(s->base, 0, sizeof(s->base));
        return PERFQ_OK;
    }
    return parse_io(s->fd, s->base) ? PERFQ_ESYS : PERFQ_OK;
}

static void compute(const struct procio_session *s, perfq_value_t *values)
{
    for (size_t i = 0; i < s->count; i++) {
        memset(&values[i], 0, sizeof(values[i]));
        values[i].v.u64 = s->last[s->fields[i]] - s->base[s->fields[i]];
    }
}

static perfq_status_t procio_sample(void *session, perfq_value_t *values)
{
    struct procio_session *s = session;
    if (parse_io(s->fd, s->last))
        return PERFQ_ESYS;
    compute(s, values);
    return PERFQ_OK;
}

static perfq_status_t procio_end(void *session)
{
    struct procio_session *s = session;
    return parse_io(s->fd, s->last) ? PERFQ_ESYS : PERFQ_OK;
}

static perfq_status_t procio_result(void *session, int wait, perfq_value_t *values)
{
    (void)wait;
    compute(session, values);
    return PERFQ_OK;
}

const struct perfq_provider_ops perfq_host_procio_provider = {
    .name = "proc-io",
    .probe = procio_probe,
    .enumerate = procio_enumerate,
    .session_open = procio_session_open,
    .begin = procio_begin,
    .sample = procio_sample,
    .end = procio_end,
    .result = procio_result,
    .session_close = procio_session_close,
    .close = NULL,
};
