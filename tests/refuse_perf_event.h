/*
 * refuse_perf_event_open(): installs a seccomp filter on the calling thread (inherited by every
 * process it starts) under which perf_event_open fails with EACCES, as container runtimes
 * refuse it. 0 when the filter holds; -1 with errno where this kernel has no seccomp filters.
 * Used by test_fallback_seccomp.c (the C API) and no_perf_event.c (a wrapper for the others).
 */
#ifndef PERFQ_TESTS_REFUSE_PERF_EVENT_H
#define PERFQ_TESTS_REFUSE_PERF_EVENT_H

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static inline int refuse_perf_event_open(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof(filter) / sizeof(filter[0]), .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

#endif
