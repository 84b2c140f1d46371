/* Starting the measured command: at once, or forked and waiting until perfq has set up what it
 * measures with. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include "cli.h"

/* Starts cmd stopped before exec; returns its pid, or -1. *go and *exec_err are the pipes. */
pid_t cli_spawn_waiting(char **cmd, int *go, int *exec_err)
{
    int gp[2], ep[2];
    if (pipe2(gp, O_CLOEXEC) || pipe2(ep, O_CLOEXEC))
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        char byte;
        close(gp[1]);
        close(ep[0]);
        if (read(gp[0], &byte, 1) != 1)
            _exit(127);
        execvp(cmd[0], cmd);
        int err = errno;
        if (write(ep[1], &err, sizeof(err)) < 0)
            _exit(127);
        _exit(127);
    }
    close(gp[0]);
    close(ep[1]);
    *go = gp[1];
    *exec_err = ep[0];
    return pid;
}

extern char **environ;

int cli_spawn_now(char **cmd, const sigset_t *mask, pid_t *pid)
{
    posix_spawnattr_t attr;
    int err = posix_spawnattr_init(&attr);
    if (err)
        return err;
    err = posix_spawnattr_setsigmask(&attr, mask);
    if (!err)
        err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    if (!err)
        err = posix_spawnp(pid, cmd[0], NULL, &attr, cmd, environ);
    posix_spawnattr_destroy(&attr);
    return err;
}
