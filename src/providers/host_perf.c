/*
 * Provider "host": Linux perf_event_open for the measured tasks and what they start later.
 *
 * perf_event_open attaches to one thread. The target says which: PERFQ_TARGET_SELF the
 * calling thread; PERFQ_TARGET_PROCESS and PERFQ_TARGET_PID every thread of the process at
 * session_open (one set of events per thread, from /proc/PID/task, summed at read). With
 * inherit, threads and processes that a counted thread starts later are counted too.
 *
 * Two groups: "host" (software events, always there where perf_event_open is allowed) and
 * "host-hw" (hardware events, where the CPU has a PMU the kernel drives). Each catalog group
 * becomes one perf_event group per session, read with one read() (PERF_FORMAT_GROUP) per
 * sample. Counters run from session_open; begin takes a baseline and sample/end report the
 * difference, so begin is one read too and the measurement can be begun again.
 * Multiplexing: time_enabled/time_running come with every read; a value whose counter ran for
 * part of the interval is scaled by enabled/running and flagged PERFQ_VALUE_SCALED.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/provider.h"
#include "providers/builtin_providers.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { GROUP_SOFTWARE, GROUP_HARDWARE, GROUP_KINDS };

static const struct perfq_group_desc groups[GROUP_KINDS] = {
    [GROUP_SOFTWARE] = {"host", "Kernel software events of the measured threads (the calling "
                                "thread, or every thread of a process target) and what they "
                                "start later (perf_event_open, PERF_TYPE_SOFTWARE)", PERFQ_SCOPE_PROCESS, 0},
    [GROUP_HARDWARE] = {"host-hw", "CPU hardware events of the measured threads (the calling "
                                   "thread, or every thread of a process target) and what they "
                                   "start later (perf_event_open, PERF_TYPE_HARDWARE); "
                                   "multiplexed by the "
                                   "kernel when the PMU has too few counters",
                        PERFQ_SCOPE_PROCESS, 0},
};

#define SW(n, cat, desc, unit, itype, cfg) \
    {n, cat, desc, unit, PERFQ_STORAGE_UINT64, itype, 0, 0, 1, PERF_TYPE_SOFTWARE, cfg}
#define HW(n, cat, desc, unit, cfg) \
    {n, cat, desc, unit, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, 0, 1, PERF_TYPE_HARDWARE, cfg}

static const struct perfq_counter_desc software_counters[] = {
    SW("task-clock", "CPU", "Time the tasks were on a CPU (ns); in a virtual machine it "
       "includes time the hypervisor stole from that vCPU", PERFQ_UNIT_NANOSECONDS,
       PERFQ_INTEL_DURATION_RAW, PERF_COUNT_SW_TASK_CLOCK),
    SW("cpu-clock", "CPU", "CPU time by the per-CPU high-resolution timer (ns)",
       PERFQ_UNIT_NANOSECONDS, PERFQ_INTEL_DURATION_RAW, PERF_COUNT_SW_CPU_CLOCK),
    SW("page-faults", "Memory", "Page faults, minor and major", PERFQ_UNIT_GENERIC,
       PERFQ_INTEL_EVENT, PERF_COUNT_SW_PAGE_FAULTS),
    SW("minor-faults", "Memory", "Page faults served without I/O", PERFQ_UNIT_GENERIC,
       PERFQ_INTEL_EVENT, PERF_COUNT_SW_PAGE_FAULTS_MIN),
    SW("major-faults", "Memory", "Page faults that needed I/O", PERFQ_UNIT_GENERIC,
       PERFQ_INTEL_EVENT, PERF_COUNT_SW_PAGE_FAULTS_MAJ),
    SW("context-switches", "Scheduler", "Context switches of the tasks", PERFQ_UNIT_GENERIC,
       PERFQ_INTEL_EVENT, PERF_COUNT_SW_CONTEXT_SWITCHES),
    SW("cpu-migrations", "Scheduler", "Moves of a task from one CPU to another",
       PERFQ_UNIT_GENERIC, PERFQ_INTEL_EVENT, PERF_COUNT_SW_CPU_MIGRATIONS),
};

static const struct perfq_counter_desc hardware_counters[] = {
    HW("cycles", "CPU", "CPU cycles (user and kernel where permitted)", PERFQ_UNIT_CYCLES,
       PERF_COUNT_HW_CPU_CYCLES),
    HW("instructions", "CPU", "Instructions retired", PERFQ_UNIT_GENERIC,
       PERF_COUNT_HW_INSTRUCTIONS),
    HW("cache-references", "Cache", "Last-level cache accesses", PERFQ_UNIT_GENERIC,
       PERF_COUNT_HW_CACHE_REFERENCES),
    HW("cache-misses", "Cache", "Last-level cache misses", PERFQ_UNIT_GENERIC,
       PERF_COUNT_HW_CACHE_MISSES),
    HW("branches", "Branch", "Branch instructions retired", PERFQ_UNIT_GENERIC,
       PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
    HW("branch-misses", "Branch", "Mispredicted branches", PERFQ_UNIT_GENERIC,
       PERF_COUNT_HW_BRANCH_MISSES),
};

static const struct {
    const struct perfq_counter_desc *counters;
    size_t count;
} tables[GROUP_KINDS] = {
    [GROUP_SOFTWARE] = {software_counters, ARRAY_SIZE(software_counters)},
    [GROUP_HARDWARE] = {hardware_counters, ARRAY_SIZE(hardware_counters)},
};

#define READ_FORMAT \
    (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define MAX_GROUP 16

static int paranoid_level(void)
{
    int level = -100;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &level) != 1)
            level = -100;
        fclose(f);
    }
    return level;
}

/* Opens one event; retries user-space only when the kernel refuses to count the kernel
 * (perf_event_paranoid >= 2 for an unprivileged user). */
static int open_event(const struct perfq_counter_desc *d, pid_t pid, int leader,
                      int enable_on_exec)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = (uint32_t)d->code;
    attr.config = d->code2;
    attr.read_format = READ_FORMAT;
    attr.inherit = 1;
    attr.disabled = leader < 0 && enable_on_exec;
    attr.enable_on_exec = leader < 0 && enable_on_exec;
    int fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, leader, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, leader, PERF_FLAG_FD_CLOEXEC);
    }
    return fd;
}

static void describe_errno(int err, char *reason, size_t size)
{
    if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL)
        snprintf(reason, size, "not supported here: no PMU counts this event "
                 "(perf_event_open: %s)", strerror(err));
    else if (err == EACCES || err == EPERM)
        snprintf(reason, size, "perf_event_open refused: %s (kernel.perf_event_paranoid=%d, "
                 "or a seccomp filter)", strerror(err), paranoid_level());
    else if (err == ENOSYS)
        snprintf(reason, size, "perf_event_open is not available in this kernel");
    else
        snprintf(reason, size, "perf_event_open failed: %s", strerror(err));
}

struct host_state {
    int dummy;
};

static perfq_status_t host_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    int fd = open_event(&software_counters[0], 0, -1, 0);
    if (fd < 0) {
        int err = errno;   /* describe_errno's snprintf may set errno */
        describe_errno(err, reason, size);
        /* Out of descriptors says nothing of perf_event here: perfq_open fails instead of
         * listing the group unavailable for the instance's life. */
        return err == EMFILE || err == ENFILE ? PERFQ_EMFILE : PERFQ_ENOTSUP;
    }
    close(fd);
    struct host_state *s = calloc(1, sizeof(*s));
    if (!s)
        return PERFQ_ENOMEM;
    *state = s;
    return PERFQ_OK;
}

/* What the catalog says of each counter, found by opening it once on the calling thread. The
 * software events are not opened one by one: the probe's task-clock opened, and every event of
 * the software table is generic (Linux 2.6.31), refused or allowed as a whole (kernel.
 * perf_event_paranoid, seccomp, an LSM: none of them looks at the event's type). Opening them
 * cost two static-key patches each (the kernel enables the event's hook at the first such event
 * and disables it at its close: text patching, an IPI to every CPU): 10 of them and 8
 * perf_event_open per perfq_open for nothing (docs/perfq-stat.md, "perfq stat's own cost").
 * A hardware event is opened each, as a PMU (a virtual machine's above all) may lack some; the
 * group's first event stays open meanwhile, so the PMU is reserved and released once. */
static perfq_status_t host_enumerate(void *state, struct perfq_catalog *catalog,
                                     const char *probe_reason)
{
    for (int g = 0; g < GROUP_KINDS; g++) {
        uint32_t gi;
        char group_reason[256] = "";
        /* The group is available if its first event opens (the software group's is the
         * probe's: it opened). */
        int leader = -1;
        if (!state) {
            snprintf(group_reason, sizeof(group_reason), "%s", probe_reason);
        } else if (g != GROUP_SOFTWARE) {
            leader = open_event(&tables[g].counters[0], 0, -1, 0);
            if (leader < 0 && (errno == EMFILE || errno == ENFILE))
                return PERFQ_EMFILE;   /* as in the probe: this moment's, not the PMU's */
            if (leader < 0)
                describe_errno(errno, group_reason, sizeof(group_reason));
        }
        perfq_status_t st = perfq_catalog_add_group(catalog, &groups[g],
                                                    group_reason[0] ? group_reason : NULL, &gi);
        for (size_t i = 0; i < tables[g].count && st == PERFQ_OK; i++) {
            const struct perfq_counter_desc *d = &tables[g].counters[i];
            char reason[256] = "";
            if (!group_reason[0] && leader >= 0 && i > 0) {
                int fd = open_event(d, 0, -1, 0);
                if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
                    close(leader);
                    return PERFQ_EMFILE;
                }
                if (fd < 0)
                    describe_errno(errno, reason, sizeof(reason));
                else
                    close(fd);
            }
            st = perfq_catalog_add_counter(catalog, gi, d, reason[0] ? reason : NULL);
        }
        if (leader >= 0)
            close(leader);
        if (st != PERFQ_OK)
            return st;
    }
    return PERFQ_OK;
}

/* One perf_event group: a leader fd and its members. */
struct event_group {
    int fds[MAX_GROUP];
    size_t count;
    uint64_t base[3 + MAX_GROUP];   /* nr, time_enabled, time_running, values */
    uint64_t last[3 + MAX_GROUP];
};

/* The groups attached to one thread (with inherit: and to what it starts later). */
struct thread_events {
    struct event_group groups[GROUP_KINDS];
};

struct host_session {
    struct thread_events *threads;
    size_t thread_count;
    int stayed_off_cpu;        /* no thread of the target ran while its groups were built */
    size_t count;
    uint8_t kind[MAX_GROUP * GROUP_KINDS];   /* request index -> group kind */
    uint8_t slot[MAX_GROUP * GROUP_KINDS];   /* request index -> position in the group read */
};

static void thread_close(struct thread_events *t)
{
    for (int g = 0; g < GROUP_KINDS; g++)
        for (size_t i = 0; i < t->groups[g].count; i++)
            close(t->groups[g].fds[i]);
    memset(t, 0, sizeof(*t));
}

static void close_threads(struct host_session *s)
{
    for (size_t t = 0; t < s->thread_count; t++)
        thread_close(&s->threads[t]);
    free(s->threads);
    s->threads = NULL;
    s->thread_count = 0;
}

static void host_session_close(void *session)
{
    struct host_session *s = session;
    close_threads(s);
    free(s);
}

static int kind_of(const struct perfq_counter_desc *d)
{
    return d->code == PERF_TYPE_HARDWARE ? GROUP_HARDWARE : GROUP_SOFTWARE;
}

static perfq_status_t status_of(int err)
{
    return err == ESRCH ? PERFQ_EINVAL : err == ENOENT ? PERFQ_ENOTSUP
         : err == EMFILE || err == ENFILE ? PERFQ_EMFILE : PERFQ_ESYS;
}

/* Opens the session's events on one task (0: the calling thread); -1 and errno on failure,
 * with nothing left open. */
static int thread_open(const struct host_session *s, const struct perfq_session_request *req,
                       pid_t tid, int on_exec, struct thread_events *t)
{
    memset(t, 0, sizeof(*t));
    for (size_t i = 0; i < req->count; i++) {
        struct event_group *g = &t->groups[s->kind[i]];
        int fd = open_event(req->counters[i], tid, g->count ? g->fds[0] : -1, on_exec);
        if (fd < 0) {
            int err = errno;
            thread_close(t);
            errno = err;
            return -1;
        }
        g->fds[g->count++] = fd;
    }
    return 0;
}

/* The threads of process pid now, from /proc/PID/task; NULL and errno on failure. */
static pid_t *list_threads(pid_t pid, size_t *n)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
    DIR *dir = opendir(path);
    if (!dir)
        return NULL;
    pid_t *tids = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end || tid <= 0)
            continue;
        if (count == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            pid_t *nt = realloc(tids, ncap * sizeof(*nt));
            if (!nt) {
                free(tids);
                closedir(dir);
                errno = ENOMEM;
                return NULL;
            }
            tids = nt;
            cap = ncap;
        }
        tids[count++] = (pid_t)tid;
    }
    closedir(dir);
    if (!count) {
        free(tids);
        errno = ESRCH;
        return NULL;
    }
    *n = count;
    return tids;
}

/* Where a thread of the target is: its state letter and its context switches (voluntary and
 * not), from /proc/PID/task/TID/status. -1 when it cannot be read (the thread is gone). */
static int thread_whereabouts(pid_t pid, pid_t tid, char *state, unsigned long long *switches)
{
    char path[96], buf[2048];
    snprintf(path, sizeof(path), "/proc/%ld/task/%ld/status", (long)pid, (long)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *st = strstr(buf, "\nState:\t");
    const char *vol = strstr(buf, "\nvoluntary_ctxt_switches:\t");
    const char *inv = strstr(buf, "\nnonvoluntary_ctxt_switches:\t");
    if (!st || !vol || !inv)
        return -1;
    *state = st[strlen("\nState:\t")];
    *switches = strtoull(vol + strlen("\nvoluntary_ctxt_switches:\t"), NULL, 10) +
                strtoull(inv + strlen("\nnonvoluntary_ctxt_switches:\t"), NULL, 10);
    return 0;
}

/* How long a target that waits for its exec is given to be off the CPUs (open_process). */
#define QUIET_WAIT_NS 300000u

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Not on a CPU and not about to be: asleep (S, D, I), stopped or traced (T, t). */
static int off_cpu(char state)
{
    return state == 'S' || state == 'D' || state == 'I' || state == 'T' || state == 't';
}

/* A process target (PERFQ_TARGET_PROCESS: this process; PERFQ_TARGET_PID: pid) is every
 * thread it has when the session opens, each with its own events, plus (inherit) what those
 * threads start afterwards. perf_event_open attaches to one thread, so this is the only way
 * to count threads that already exist (perf stat -p does the same). A thread that one of the
 * threads not yet attached starts during this loop is not counted: perf has the same window
 * (microseconds), and rescanning could not tell such a thread from one started by an attached
 * thread, which inherit already counts (attaching it too would count it twice). A thread that
 * exits before the scan reaches it (ESRCH) is skipped. */
static perfq_status_t open_process(struct host_session *s, const struct perfq_session_request *req,
                                   pid_t pid, int on_exec)
{
    size_t n = 0;
    pid_t *tids = list_threads(pid, &n);
    if (!tids)
        return errno == ENOMEM ? PERFQ_ENOMEM : errno == ENOENT || errno == ESRCH
                                                     ? PERFQ_EINVAL : status_of(errno);
    s->threads = calloc(n, sizeof(*s->threads));
    unsigned long long *switches = calloc(n, sizeof(*switches));
    if (!s->threads || !switches) {
        free(switches);
        free(tids);
        return PERFQ_ENOMEM;
    }
    /* Did every thread stay off the CPUs while the groups were built (off_cpu before the first
     * open and after the last, with as many context switches)? Then none ran meanwhile, so none
     * copied a group being built into a thread it created, and open_process_settled needs no
     * pause (a child waiting for its exec, as perfq stat's). */
    char state;
    int still = pid != getpid();
    uint64_t t0 = monotonic_ns();
    for (size_t i = 0; i < n && still; i++) {
        still = thread_whereabouts(pid, tids[i], &state, &switches[i]) == 0;
        /* A target that waits for its exec (enable_on_exec: a child between its fork and its
         * wait, as perfq stat's) is given up to QUIET_WAIT_NS to get there. */
        while (still && !off_cpu(state) && on_exec && monotonic_ns() - t0 < QUIET_WAIT_NS) {
            sched_yield();
            still = thread_whereabouts(pid, tids[i], &state, &switches[i]) == 0;
        }
        still = still && off_cpu(state);
    }
    perfq_status_t st = PERFQ_OK;
    for (size_t i = 0; i < n && st == PERFQ_OK; i++) {
        if (thread_open(s, req, tids[i], on_exec, &s->threads[s->thread_count]) == 0)
            s->thread_count++;
        else if (errno != ESRCH)
            st = status_of(errno);
    }
    for (size_t i = 0; i < n && still; i++) {
        unsigned long long now;
        still = thread_whereabouts(pid, tids[i], &state, &now) == 0 && off_cpu(state) &&
                now == switches[i];
    }
    s->stayed_off_cpu = still && st == PERFQ_OK;
    free(switches);
    free(tids);
    if (st == PERFQ_OK && s->thread_count == 0)
        st = PERFQ_EINVAL;   /* every thread gone: the process is */
    return st;
}

static perfq_status_t read_group(struct event_group *g, uint64_t *buf);

/* 1 when some group cannot be read because a thread of the target inherited it while it was
 * still being built: the kernel then refuses every read of the group with ECHILD for as long
 * as that thread lives (Linux 6.18; a PID target that creates a thread during open, such as a
 * TSan-built child of perfq stat starting its background thread). */
static int inherited_incomplete(struct host_session *s)
{
    /* A thread being created while the last event was added finishes its copy within
     * microseconds: look after it has. A refusal that lasts past read_group's retries is not
     * the moment of a copy. */
    struct timespec pause = {0, 500000};
    nanosleep(&pause, NULL);
    for (size_t t = 0; t < s->thread_count; t++)
        for (int k = 0; k < GROUP_KINDS; k++) {
            uint64_t buf[3 + MAX_GROUP];
            if (read_group(&s->threads[t].groups[k], buf) != PERFQ_OK && errno == ECHILD)
                return 1;
        }
    return 0;
}

/* open_process, built again while a thread the target creates meanwhile spoils it: a
 * member's open may fail (EINVAL: the leader's context changed under it), or the new thread
 * may take an incomplete copy. A bounded number of times: a target that creates threads all
 * the time may do it again (reads then retry, read_group; a create may be refused). */
static perfq_status_t open_process_settled(struct host_session *s,
                                           const struct perfq_session_request *req, pid_t pid,
                                           int on_exec)
{
    perfq_status_t st = open_process(s, req, pid, on_exec);
    for (int again = 0; again < 64; again++) {
        /* A target none of whose threads ran meanwhile created none: nothing to look for
         * (the pause was 0.5 ms of every perfq stat run). */
        if (st == PERFQ_OK && (s->stayed_off_cpu || !inherited_incomplete(s)))
            break;
        if (st != PERFQ_OK && st != PERFQ_ESYS)
            break;
        close_threads(s);
        st = open_process(s, req, pid, on_exec);
    }
    return st;
}

static perfq_status_t host_session_open(void *state, const struct perfq_session_request *req,
                                        void **session)
{
    (void)state;
    if (req->count > MAX_GROUP * GROUP_KINDS)
        return PERFQ_EBUSY;
    struct host_session *s = calloc(1, sizeof(*s));
    if (!s)
        return PERFQ_ENOMEM;
    s->count = req->count;
    size_t in_group[GROUP_KINDS] = {0};
    for (size_t i = 0; i < req->count; i++) {
        int k = kind_of(req->counters[i]);
        if (in_group[k] == MAX_GROUP) {
            host_session_close(s);
            return PERFQ_EBUSY;
        }
        s->kind[i] = (uint8_t)k;
        s->slot[i] = (uint8_t)in_group[k]++;
    }
    perfq_status_t st;
    switch (req->target.kind) {
    case PERFQ_TARGET_PID:
        st = open_process_settled(s, req, req->target.pid, req->target.enable_on_exec);
        break;
    case PERFQ_TARGET_PROCESS:
        st = open_process_settled(s, req, getpid(), 0);
        break;
    case PERFQ_TARGET_SELF:
    default:
        /* The calling thread (pid 0), and what it starts later. */
        s->threads = calloc(1, sizeof(*s->threads));
        if (!s->threads)
            st = PERFQ_ENOMEM;
        else if (thread_open(s, req, 0, 0, &s->threads[0]) != 0)
            st = status_of(errno);
        else {
            s->thread_count = 1;
            st = PERFQ_OK;
        }
        break;
    }
    if (st != PERFQ_OK) {
        host_session_close(s);
        return st;
    }
    *session = s;
    return PERFQ_OK;
}

static perfq_status_t read_group(struct event_group *g, uint64_t *buf)
{
    if (!g->count)
        return PERFQ_OK;
    size_t want = (3 + g->count) * sizeof(uint64_t);
    /* A read of an inherited group fails with ECHILD while the kernel is copying the group
     * into a thread or process the target is creating at that moment (seen on Linux 6.18:
     * about 1 read in 170 of a process that creates threads in a loop, at most 19 in a row).
     * Transient: retried, a bounded number of times. (A copy taken while the group was being
     * built fails for good: host_session_open builds such a group again.) */
    ssize_t n;
    int tries = 0;
    while ((n = read(g->fds[0], buf, want)) < 0 && (errno == ECHILD || errno == EINTR) &&
           ++tries < 1000)
        sched_yield();
    if (n != (ssize_t)want || buf[0] != g->count)
        return PERFQ_ESYS;
    return PERFQ_OK;
}

/* Reads every thread's groups. A thread that has exited still reads: its events keep their
 * final counts. */
static perfq_status_t read_all(struct host_session *s, int into_base)
{
    for (size_t t = 0; t < s->thread_count; t++)
        for (int k = 0; k < GROUP_KINDS; k++) {
            struct event_group *g = &s->threads[t].groups[k];
            perfq_status_t st = read_group(g, into_base ? g->base : g->last);
            if (st != PERFQ_OK)
                return st;
        }
    return PERFQ_OK;
}

/* Each thread's value is scaled by its own group's enabled/running (the kernel multiplexes
 * per task); the value is their sum, time_enabled/time_running the sums of the threads'. */
static void compute(const struct host_session *s, perfq_value_t *values)
{
    for (size_t i = 0; i < s->count; i++) {
        uint64_t enabled = 0, running = 0, sum = 0;
        int scaled = 0;
        for (size_t t = 0; t < s->thread_count; t++) {
            const struct event_group *g = &s->threads[t].groups[s->kind[i]];
            uint64_t e = g->last[1] - g->base[1];
            uint64_t r = g->last[2] - g->base[2];
            uint64_t raw = g->last[3 + s->slot[i]] - g->base[3 + s->slot[i]];
            enabled += e;
            running += r;
            if (r < e && r != 0) {
                sum += (uint64_t)((double)raw * (double)e / (double)r);
                scaled = 1;
            } else {
                sum += raw;
            }
        }
        perfq_value_t *v = &values[i];
        v->time_enabled = enabled;
        v->time_running = running;
        v->flags = 0;
        /* Never ran, also where it was never enabled (a PID target that never exec'd with
         * enable_on_exec, a thread gone before the interval): the header's "time_running 0". */
        if (running == 0) {
            v->v.u64 = 0;
            v->flags = PERFQ_VALUE_NOT_COUNTED;
        } else {
            v->v.u64 = sum;
            if (scaled)
                v->flags = PERFQ_VALUE_SCALED;
        }
    }
}

static perfq_status_t host_begin(void *session)
{
    return read_all(session, 1);
}

static perfq_status_t host_sample(void *session, perfq_value_t *values)
{
    struct host_session *s = session;
    perfq_status_t st = read_all(s, 0);
    if (st == PERFQ_OK)
        compute(s, values);
    return st;
}

static perfq_status_t host_end(void *session)
{
    return read_all(session, 0);
}

static perfq_status_t host_result(void *session, int wait, perfq_value_t *values)
{
    (void)wait;   /* CPU-timeline counters: the result is complete at end */
    compute(session, values);
    return PERFQ_OK;
}

static void host_close(void *state)
{
    free(state);
}

const struct perfq_provider_ops perfq_host_perf_provider = {
    .name = "host",
    .probe = host_probe,
    .enumerate = host_enumerate,
    .session_open = host_session_open,
    .begin = host_begin,
    .sample = host_sample,
    .end = host_end,
    .result = host_result,
    .session_close = host_session_close,
    .close = host_close,
};
