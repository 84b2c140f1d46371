/* The socket that hands the `perfq stat` channel's memfd over: see stat_channel_socket.h. */
#include "core/stat_channel_socket.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static const char *const socket_dirs[] = {"/dev/shm", "/tmp"};

/* Fills addr with path; 0, or -1 when the path does not fit. */
static int socket_address(struct sockaddr_un *addr, const char *path)
{
    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof addr->sun_path)
        return -1;
    memcpy(addr->sun_path, path, n + 1);
    return 0;
}

/* Unlinks the socket files in dir that a perfq now gone left (killed by SIGKILL): the user's
 * own only (/dev/shm and /tmp are sticky), whose PID is gone, and then only where nobody listens
 * any more (a connect refused: a perfq of that PID in another PID namespace sharing the
 * directory still listens). A live perfq is never connected to: it would hand its memfd over. */
static void sweep_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        unsigned seq;
        int end = 0;
        char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
        struct sockaddr_un addr;
        struct stat st;
        if (sscanf(e->d_name, "perfq-stat-%ld-%u.sock%n", &pid, &seq, &end) != 2 ||
            e->d_name[end] != '\0' || pid <= 0 || pid == (long)getpid() ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
            continue;
        int len = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (len < 0 || (size_t)len >= sizeof path || socket_address(&addr, path) != 0)
            continue;
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s < 0)
            break;
        if (connect(s, (struct sockaddr *)&addr, sizeof addr) != 0 && errno == ECONNREFUSED)
            unlinkat(dirfd(d), e->d_name, 0);
        close(s);
    }
    closedir(d);
}

/* Binds s to a new name in dir, mode 0600, and listens; 0, or -1 with errno set. */
static int bind_in(int s, const char *dir, char *path, size_t size)
{
    static unsigned seq;   /* several channels in one process (tests) */
    for (int tries = 0; tries < 16; tries++) {
        unsigned n = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
        int len = snprintf(path, size, "%s/perfq-stat-%ld-%u.sock", dir, (long)getpid(), n);
        struct sockaddr_un addr;
        if (len < 0 || (size_t)len >= size || socket_address(&addr, path) != 0) {
            errno = ENAMETOOLONG;
            return -1;
        }
        /* Taken: a live perfq of our pid in another PID namespace sharing the directory (the
         * dead ones' were swept): the next number. */
        if (bind(s, (struct sockaddr *)&addr, sizeof addr) != 0) {
            if (errno == EADDRINUSE)
                continue;
            return -1;
        }
        /* Closed to other users; the peer check in perfq_stat_socket_serve covers any that
         * connected in between. */
        if (chmod(path, 0600) == 0 && listen(s, 64) == 0)
            return 0;
        int e = errno;
        unlink(path);
        errno = e;
        return -1;
    }
    return -1;
}

int perfq_stat_socket_open(char *path, size_t size)
{
    int err = ENOENT;
    for (size_t i = 0; i < sizeof socket_dirs / sizeof socket_dirs[0]; i++) {
        sweep_stale(socket_dirs[i]);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s < 0)
            return -1;
        if (bind_in(s, socket_dirs[i], path, size) == 0)
            return s;
        err = errno;
        close(s);
    }
    if (size)
        path[0] = '\0';
    errno = err;
    return -1;
}

/* Sends fd and one byte over the connected socket s, without blocking and without SIGPIPE. */
static int send_fd(int s, int fd)
{
    char byte = 'p';
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(s, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) == 1 ? 0 : -1;
}

int perfq_stat_socket_serve(int listen_fd, int page_fd)
{
    int handed = 0;
    for (;;) {
        int s = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (s < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return handed;   /* EAGAIN: none left (or the socket is gone) */
        }
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && len == sizeof cred &&
            cred.uid == geteuid() && send_fd(s, page_fd) == 0)
            handed++;
        close(s);
    }
}

void perfq_stat_socket_close(int listen_fd, const char *path)
{
    if (path && path[0])
        unlink(path);
    if (listen_fd >= 0)
        close(listen_fd);
}

/* The fd in msg's SCM_RIGHTS, or -1; any other fd that came is closed. */
static int take_fd(struct msghdr *msg)
{
    int got = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (got < 0)
                got = fd;
            else
                close(fd);
        }
    }
    return got;
}

/* Waits for s to be ready for `events` at most until the wait's end; 0 when it is. */
static int wait_ready(int s, short events, int ms)
{
    struct pollfd p = {s, events, 0};
    int rc;
    do
        rc = poll(&p, 1, ms);
    while (rc < 0 && errno == EINTR);   /* a program's signal: the wait is bounded anyway */
    return rc == 1 && (p.revents & events) ? 0 : -1;
}

int perfq_stat_socket_fetch(const char *path)
{
    struct sockaddr_un addr;
    if (!path || socket_address(&addr, path) != 0)
        return -1;
    /* Non-blocking: a program's signal handler without SA_RESTART, or a perfq stopped, never
     * holds the program's thread longer than the bounded waits below. */
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return -1;
    int fd = -1;
    /* A UNIX socket's connect either is made at once or fails; EAGAIN is a full backlog (more
     * than 64 processes asking within one of perfq's polls): asked again, within the wait. */
    int rc;
    for (int tries = 0; (rc = connect(s, (struct sockaddr *)&addr, sizeof addr)) != 0 &&
                        errno == EAGAIN &&
                        tries < PERFQ_STAT_SOCKET_WAIT_MS / 10;
         tries++)
        poll(NULL, 0, 10);
    if (rc == 0 && wait_ready(s, POLLIN, PERFQ_STAT_SOCKET_WAIT_MS) == 0) {
        char byte;
        struct iovec iov = {&byte, 1};
        union {
            struct cmsghdr align;
            char buf[CMSG_SPACE(4 * sizeof(int))];
        } control;
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof control.buf};
        ssize_t got;
        do
            got = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
        while (got < 0 && errno == EINTR);
        if (got == 1)
            fd = take_fd(&msg);
    }
    close(s);
    return fd;
}
