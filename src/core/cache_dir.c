/* perfq's cache folder: see cache_dir.h. */
#include "core/cache_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int fits(int n, size_t size)
{
    return n > 0 && (size_t)n < size;
}

int perfq_cache_dir(char *out, size_t size, int make)
{
    const char *dir = getenv("PERFQ_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    if (dir && *dir) {
        if (!fits(snprintf(out, size, "%s", dir), size))
            return -1;
    } else if (xdg && *xdg) {
        if (!fits(snprintf(out, size, "%s/perfq", xdg), size))
            return -1;
    } else if (home && *home) {
        if (make) {   /* ~/.cache may not exist yet */
            if (!fits(snprintf(out, size, "%s/.cache", home), size))
                return -1;
            mkdir(out, 0700);
        }
        if (!fits(snprintf(out, size, "%s/.cache/perfq", home), size))
            return -1;
    } else {
        return -1;
    }
    if (make)
        mkdir(out, 0700);
    return 0;
}
