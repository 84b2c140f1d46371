/* perfq_version (perfq.h): the library's version, from the project's (meson.build). */
#include "perfq/perfq.h"

#ifndef PERFQ_VERSION_STRING
#error "PERFQ_VERSION_STRING is set by src/meson.build"
#endif

const char *perfq_version(int *major, int *minor, int *patch)
{
    int parts[3] = {0, 0, 0}, k = 0;
    for (const char *p = PERFQ_VERSION_STRING; *p && k < 3; p++) {
        if (*p == '.')
            k++;
        else if (*p >= '0' && *p <= '9')
            parts[k] = parts[k] * 10 + (*p - '0');
    }
    if (major)
        *major = parts[0];
    if (minor)
        *minor = parts[1];
    if (patch)
        *patch = parts[2];
    return PERFQ_VERSION_STRING;
}
