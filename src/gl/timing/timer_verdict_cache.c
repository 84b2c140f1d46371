/*
 * The timer self-check's verdict, kept per driver between runs (timer_path.c, docs/gl-layer.md
 * "The self-check's cache"). The self-check allocates a 1024x1024 framebuffer, clears it 32
 * times and waits for the GPU four times: about 14 ms of a program's start on the H100 (12 ms
 * the first time in a process). Its verdict depends on the driver alone, so it is kept in a
 * file, one line per driver: "pass" or "fail", a tab, then GL_VENDOR, GL_RENDERER and
 * GL_VERSION separated by tabs (the version names the driver's build: "4.6.0 NVIDIA
 * 580.159.04"). The file is $PERFQ_CACHE_DIR/gl-timer-self-check, else under
 * $XDG_CACHE_HOME/perfq, else ~/.cache/perfq; PERFQ_GL_TIMER_CACHE=0 leaves it alone (every
 * context checks). Lines are appended with one write each (O_APPEND); the last line for a
 * driver wins; a file over 64 KiB is read but no longer grown; a line that does not parse is
 * skipped. Any failure (no home, read-only disk) only means the self-check runs.
 */
#include "core/cache_dir.h"
#include "gl/timing/timer_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_FILE "gl-timer-self-check"
#define CACHE_MAX_BYTES 65536

static int cache_enabled(void)
{
    const char *v = getenv("PERFQ_GL_TIMER_CACHE");
    return !(v && strcmp(v, "0") == 0);
}

/* The cache file's path, making its folder when `make` is set; 0 when there is none. */
static int cache_path(char *out, size_t size, int make)
{
    char folder[4096];
    if (perfq_cache_dir(folder, sizeof folder, make) != 0)
        return 0;
    int n = snprintf(out, size, "%s/%s", folder, CACHE_FILE);
    return n > 0 && (size_t)n < size;
}

/* "vendor\trenderer\tversion", or 0 when a string holds a tab or a line break (never cached). */
static int cache_key(const struct perfq_gl_ctx *c, char *out, size_t size)
{
    const char *parts[3] = {c->pub.vendor, c->pub.renderer, c->pub.version};
    for (int i = 0; i < 3; i++)
        if (!parts[i] || strpbrk(parts[i], "\t\r\n"))
            return 0;
    int n = snprintf(out, size, "%s\t%s\t%s", parts[0], parts[1], parts[2]);
    return n > 0 && (size_t)n < size;
}

int perfq_gl_timer_verdict_cached(const struct perfq_gl_ctx *c)
{
    char path[4200], key[1024];
    if (!cache_enabled() || !cache_key(c, key, sizeof key) || !cache_path(path, sizeof path, 0))
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char *buf = malloc(CACHE_MAX_BYTES + 1);
    if (!buf) {
        close(fd);
        return -1;
    }
    size_t len = 0;
    ssize_t got;
    while (len < CACHE_MAX_BYTES && (got = read(fd, buf + len, CACHE_MAX_BYTES - len)) > 0)
        len += (size_t)got;
    close(fd);
    buf[len] = '\0';
    int verdict = -1;
    for (char *line = buf, *end; line < buf + len; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            break;   /* a line still being written, or cut at the size bound */
        *end = '\0';
        char *tab = strchr(line, '\t');
        if (tab && strcmp(tab + 1, key) == 0) {
            *tab = '\0';
            if (strcmp(line, "pass") == 0)
                verdict = 1;
            else if (strcmp(line, "fail") == 0)
                verdict = 0;
        }
    }
    free(buf);
    return verdict;
}

void perfq_gl_timer_verdict_store(const struct perfq_gl_ctx *c, int pass)
{
    char path[4200], key[1024], line[1100];
    if (!cache_enabled() || !cache_key(c, key, sizeof key) || !cache_path(path, sizeof path, 1))
        return;
    int n = snprintf(line, sizeof line, "%s\t%s\n", pass ? "pass" : "fail", key);
    if (n <= 0 || (size_t)n >= sizeof line)
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size + n <= CACHE_MAX_BYTES)
        (void)!write(fd, line, (size_t)n);   /* one write: lines of two processes never mix */
    close(fd);
}
