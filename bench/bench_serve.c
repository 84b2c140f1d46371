/*
 * bench-serve PERFQ [PROCESSES]: the time of one scrape of `perfq serve` with about 200 series
 * (target: under 5 ms). Starts PROCESSES (15) idle children, `perfq serve -p` each of them
 * (14 process counters each here, 210 series, plus perfq's own three), then 1000 scrapes as a
 * Prometheus server makes them: connect to loopback, GET /metrics, read to the end, close.
 * Prints the series count and the median, p95 and max scrape time (bench/README.md).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCRAPES 1000
#define MAX_CHILDREN 64

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One scrape: the whole response in buf (*len bytes); 0 when it is a 200. */
static int scrape(int port, char *buf, size_t cap, size_t *len)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) != 0)
        return -1;
    static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              "Connection: close\r\n\r\n";
    if (write(s, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1) {
        close(s);
        return -1;
    }
    *len = 0;
    ssize_t got;
    while ((got = read(s, buf + *len, cap - 1 - *len)) > 0)
        *len += (size_t)got;
    buf[*len] = 0;
    close(s);
    return strncmp(buf, "HTTP/1.1 200", 12) == 0 ? 0 : -1;
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench-serve PERFQ [PROCESSES]\n");
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 15;
    if (n < 1 || n > MAX_CHILDREN)
        return 2;
    pid_t kids[MAX_CHILDREN];
    char *args[8 + 2 * MAX_CHILDREN];
    char pids[MAX_CHILDREN][16];
    int k = 0;
    args[k++] = argv[1];
    args[k++] = "serve";
    args[k++] = "--listen";
    args[k++] = "127.0.0.1:0";
    for (int i = 0; i < n; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            pause();
            _exit(0);
        }
        snprintf(pids[i], sizeof(pids[i]), "%d", (int)kids[i]);
        args[k++] = "-p";
        args[k++] = pids[i];
    }
    args[k] = NULL;
    int err[2];
    if (pipe(err) != 0)
        return 1;
    pid_t srv = fork();
    if (srv == 0) {
        dup2(err[1], 2);
        close(err[0]);
        execv(argv[1], args);
        _exit(127);
    }
    close(err[1]);
    char line[512] = "";
    size_t ll = 0;
    ssize_t got;
    while (!strchr(line, '\n') && (got = read(err[0], line + ll, sizeof(line) - 1 - ll)) > 0) {
        ll += (size_t)got;
        line[ll] = 0;
    }
    const char *at = strstr(line, "127.0.0.1:");
    int port = at ? atoi(at + 10) : 0;
    int rc = 1;
    static char buf[1 << 20];
    static uint64_t t[SCRAPES];
    size_t len = 0, series = 0;
    if (!port) {
        fprintf(stderr, "bench-serve: perfq serve did not start: %s\n", line);
        goto out;
    }
    if (scrape(port, buf, sizeof(buf), &len) != 0)
        goto out;
    for (char *p = strstr(buf, "\r\n\r\n"); p && (p = strchr(p, '\n')); p++)
        series += p[1] == 'p';
    for (int i = 0; i < SCRAPES; i++) {
        uint64_t t0 = now_ns();
        if (scrape(port, buf, sizeof(buf), &len) != 0)
            goto out;
        t[i] = now_ns() - t0;
    }
    qsort(t, SCRAPES, sizeof(*t), cmp);
    double load[3] = {0};
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
            load[0] = -1;
        fclose(la);
    }
    printf("perfq serve: %zu series (%zu bytes); %d scrapes: median %.3f ms, p95 %.3f ms, "
           "max %.3f ms (target: under 5 ms); load average %.2f\n", series, len, SCRAPES,
           (double)t[SCRAPES / 2] / 1e6, (double)t[SCRAPES * 95 / 100] / 1e6,
           (double)t[SCRAPES - 1] / 1e6, load[0]);
    rc = 0;
out:
    kill(srv, SIGTERM);
    waitpid(srv, NULL, 0);
    for (int i = 0; i < n; i++) {
        kill(kids[i], SIGKILL);
        waitpid(kids[i], NULL, 0);
    }
    return rc;
}
