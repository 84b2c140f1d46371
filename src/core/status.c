/* Status codes and their messages. */
#include "perfq/perfq.h"

const char *perfq_status_string(perfq_status_t status)
{
    switch (status) {
    case PERFQ_OK: return "success";
    case PERFQ_NOT_READY: return "result not ready yet";
    case PERFQ_EINVAL: return "invalid argument";
    case PERFQ_ENOMEM: return "out of memory";
    case PERFQ_ENOTFOUND: return "no such counter or group";
    case PERFQ_ENOTSUP: return "counter not available on this machine";
    case PERFQ_ESTATE: return "call not valid in the current state";
    case PERFQ_EBUSY: return "resource busy or limit of active counters reached";
    case PERFQ_ESYS: return "system or driver call failed";
    case PERFQ_ENOSPC: return "buffer too small";
    case PERFQ_EMFILE: return "too many open files";
    case PERFQ_EPASSES:
        return "the counters need more than one pass over the work: split them into "
               "measurements of one pass each";
    }
    return "unknown status";
}
