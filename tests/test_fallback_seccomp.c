/* Where perf_event_open is refused (here by a seccomp filter, as container runtimes do), the
 * host groups are reported unavailable with the reason, and rusage and proc-io still count. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfq/perfq.h"
#include "refuse_perf_event.h"
#include "test_util.h"

/* Runs in a child so that the filter does not stay on the test process. Exit codes name the
 * failed check. */
static int child_checks(void)
{
    if (refuse_perf_event_open() != 0)
        return 77;
    perfq_t *pq;
    if (perfq_open(&pq) != PERFQ_OK)
        return 10;
    perfq_counter_id_t id;
    perfq_counter_info_t ci;
    if (perfq_counter_find(pq, "host/task-clock", &id) != PERFQ_OK)
        return 11;
    perfq_counter_info(pq, id, &ci);
    if (ci.available || !ci.unavailable_reason || !strstr(ci.unavailable_reason, "refused"))
        return 12;
    perfq_measurement_t *m = NULL;
    if (perfq_measurement_create(pq, &id, 1, NULL, &m) != PERFQ_ENOTSUP)
        return 13;
    perfq_counter_id_t ids[2];
    if (perfq_counter_find(pq, "rusage/user-time", &ids[0]) != PERFQ_OK ||
        perfq_counter_find(pq, "proc-io/write-bytes", &ids[1]) != PERFQ_OK)
        return 14;
    if (perfq_measurement_create(pq, ids, 2, NULL, &m) != PERFQ_OK)
        return 15;
    perfq_value_t v[2];
    perfq_measurement_begin(m);
    int fd = open("/dev/null", O_WRONLY);
    char buf[123] = {0};
    if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
        return 16;
    close(fd);
    perfq_measurement_end(m);
    if (perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2) != PERFQ_OK)
        return 17;
    if (v[1].v.u64 != sizeof(buf))
        return 18;
    perfq_close(&pq);
    return 0;
}

static void test_refused_perf_event_open(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(child_checks());
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
        /* The kernel refused the filter (prctl): nothing to test with. */
        assert_true(test_may_lack("seccomp filters"));
        return;
    }
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused_perf_event_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
