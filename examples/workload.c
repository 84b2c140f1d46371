/*
 * A small known workload for `perfq stat` demonstrations: about 200 ms of CPU, 32 MiB of fresh
 * pages touched, 8 MiB written to a temporary file and read back, and one child process that
 * does 50 ms of CPU. perfq stat should report task-clock near 250 ms, at least 8192 page
 * faults, and proc-io write-bytes of at least 8 MiB.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long spin(double seconds)
{
    double end = cpu_seconds() + seconds;
    unsigned long x = 1;
    while (cpu_seconds() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

int main(void)
{
    unsigned long sink = spin(0.2);

    size_t bytes = 32u << 20;
    unsigned char *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    if (mem == MAP_FAILED)
        return 1;
    for (size_t i = 0; i < bytes; i += 4096)
        mem[i] = (unsigned char)i;
    munmap(mem, bytes);

    char path[] = "/tmp/perfq-workload-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    static char block[1 << 16];
    memset(block, 'p', sizeof(block));
    for (int i = 0; i < 128; i++)
        if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
            return 1;
    lseek(fd, 0, SEEK_SET);
    while (read(fd, block, sizeof(block)) > 0)
        ;
    close(fd);
    unlink(path);

    pid_t child = fork();
    if (child == 0)
        _exit(spin(0.05) == 0);
    waitpid(child, NULL, 0);
    printf("perfq example workload done (%lu)\n", sink & 0xff);
    return 0;
}
