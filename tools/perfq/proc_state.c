/* A process's state as /proc/PID/stat gives it: see cli.h. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

char cli_process_state(uint32_t pid)
{
    char path[32], buf[512];
    snprintf(path, sizeof(path), "/proc/%" PRIu32 "/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');   /* the name may hold anything, ')' too */
    return paren && paren[1] == ' ' ? paren[2] : 0;
}
