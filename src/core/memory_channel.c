/* The `perfq memory` channel's address and field escaping (memory_channel.h). */
#include "core/memory_channel.h"

#include <stdio.h>
#include <string.h>

socklen_t perfq_memory_channel_address(pid_t pid, struct sockaddr_un *addr)
{
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    /* sun_path[0] == '\0': the abstract namespace (unix(7)); the name is the bytes after it,
     * without a terminating NUL. */
    int n = snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1, "perfq-memory-%ld",
                     (long)pid);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

size_t perfq_memory_channel_escape(const char *s, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t len = 0;
    char tmp[4];
    if (!s || !*s)
        s = NULL;
    const unsigned char *p = (const unsigned char *)(s ? s : "-");
    for (; *p; p++) {
        size_t k;
        if (s && (*p <= ' ' || *p >= 0x7f || *p == '%' || (p == (const unsigned char *)s &&
                                                            *p == '-' && !p[1]))) {
            tmp[0] = '%';
            tmp[1] = hex[*p >> 4];
            tmp[2] = hex[*p & 15];
            k = 3;
        } else {
            tmp[0] = (char)*p;
            k = 1;
        }
        for (size_t i = 0; i < k; i++, len++)
            if (size && len < size - 1)
                out[len] = tmp[i];
    }
    if (size)
        out[len < size ? len : size - 1] = '\0';
    return len;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int perfq_memory_channel_unescape(char *s)
{
    if (strcmp(s, "-") == 0) {
        s[0] = '\0';
        return 0;
    }
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (*r != '%') {
            *w++ = *r;
            continue;
        }
        int hi = hexval(r[1]), lo = hi < 0 ? -1 : hexval(r[2]);
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            return -1;      /* malformed, or a NUL inside the field */
        *w++ = (char)(hi << 4 | lo);
        r += 2;
    }
    *w = '\0';
    return 0;
}
