/* perfq's own output (the table, the JSON, the list): a failed write is an error the user sees
 * (issue 14: `perfq stat -o /dev/full` and `perfq list >/dev/full` exited 0). stdio reports a
 * failed write through the stream's error flag and errno; the flag stays set, so checking once
 * at the end catches every failed write, also the last one at fflush or fclose. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

void cli_output_begin(FILE *f)
{
    clearerr(f);
    errno = 0;   /* so that the errno of a failed write is the one reported */
}

int cli_output_end(FILE *f, const char *name)
{
    int err = 0;
    if (fflush(f) != 0 || ferror(f))
        err = errno ? errno : EIO;
    if (f != stdout && f != stderr && fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    if (!err)
        return 0;
    fprintf(stderr, "perfq: cannot write %s: %s\n", name, strerror(err));
    return -1;
}

/* Not fopen(path, "w"): its O_TRUNC emptied FILE before perfq knew it had anything to write,
 * and a usage error found later (a counter that cannot measure CMD) left the user's FILE
 * empty. Not a temporary file renamed over FILE at the end either: that would replace a
 * symlink, a FIFO or /dev/null, and drop FILE's owner and mode. */
int cli_output_file_open(struct cli_output_file *o, const char *path)
{
    *o = (struct cli_output_file){.f = stderr, .path = path, .started = !path};
    if (!path)
        return 0;
    /* Close-on-exec: the measured command must not inherit perfq's output file. */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    o->created = fd >= 0;
    if (fd < 0 && errno == EEXIST)
        fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)   /* a symlink to a missing file: created through it */
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    if (!(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        if (o->created)
            unlink(path);
        errno = e;
        return -1;
    }
    return 0;
}

void cli_output_file_start(struct cli_output_file *o)
{
    if (o->started)
        return;
    o->started = 1;
    struct stat st;
    /* Only a regular file has a length (a FIFO, a terminal, /dev/null are written as they are). */
    if (fstat(fileno(o->f), &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fileno(o->f), 0) != 0)
        o->err = errno;
}

int cli_output_file_end(struct cli_output_file *o, const char *name)
{
    if (!o->started) {
        if (o->f != stderr)
            fclose(o->f);
        if (o->created)
            unlink(o->path);
        return 0;
    }
    int rc = cli_output_end(o->f, name);
    if (o->err && rc == 0) {
        fprintf(stderr, "perfq: cannot write %s: %s\n", name, strerror(o->err));
        rc = -1;
    }
    return rc;
}
