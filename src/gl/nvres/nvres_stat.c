/*
 * GL memory for `perfq stat --layers` and `perfq record` (docs/perfq-stat.md): after each
 * storage change the accounting engine saw (nv_query_resource_observe.c), a share group whose
 * total (textures + renderbuffers + buffer objects, in the engine's KiB) reached a new peak sends
 * its totals by type to the CLI through the stat channel; in timeline mode every change of the
 * total goes (the trace's memory counter tracks). Costs nothing outside perfq (one test of the
 * channel's attach state).
 */
#include "gl/nvres/nvres_stat.h"

#include <pthread.h>
#include <string.h>

#include "core/stat_channel.h"
#include "gl/nvres/nvres_accounting.h"

#define MAX_GROUPS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    const struct perfq_nvres_group *acc;
    uint64_t peak, last;
} groups[MAX_GROUPS];

void perfq_nvres_stat_changed(struct perfq_nvres_group *acc)
{
    if (!perfq_stat_channel_active())
        return;
    struct perfq_nvres_totals t[PERFQ_NVRES_NTYPES];
    uint64_t total = 0;
    for (int i = 0; i < PERFQ_NVRES_NTYPES; i++) {
        perfq_nvres_type_totals(acc, (perfq_nvres_type_t)i, &t[i]);
        total += t[i].kib;
    }
    int timeline = perfq_stat_channel_timeline(), send = 0;
    pthread_mutex_lock(&lock);
    int k = 0, free_slot = -1;
    while (k < MAX_GROUPS && groups[k].acc != acc) {
        if (!groups[k].acc && free_slot < 0)
            free_slot = k;
        k++;
    }
    if (k == MAX_GROUPS && free_slot >= 0) {
        k = free_slot;
        groups[k].acc = acc;
        groups[k].peak = groups[k].last = 0;
    }
    if (k < MAX_GROUPS) {
        send = total > groups[k].peak || (timeline && total != groups[k].last);
        if (total > groups[k].peak)
            groups[k].peak = total;
        groups[k].last = total;
    } else {
        send = 1;   /* more groups than slots: every change goes, the CLI keeps the peak */
    }
    pthread_mutex_unlock(&lock);
    if (!send)
        return;
    struct perfq_stat_record r;
    memset(&r, 0, sizeof(r));
    r.kind = PERFQ_STAT_GL_MEMORY;
    r.a = (uint64_t)(uintptr_t)acc;
    r.b = t[PERFQ_NVRES_TEXTURE].kib;
    r.c = t[PERFQ_NVRES_RENDERBUFFER].kib;
    r.d = t[PERFQ_NVRES_BUFFER].kib;
    r.g0 = t[PERFQ_NVRES_TEXTURE].allocs;
    r.g1 = t[PERFQ_NVRES_RENDERBUFFER].allocs;
    r.t1 = t[PERFQ_NVRES_BUFFER].allocs;
    r.t0 = perfq_stat_now_ns();
    perfq_stat_channel_send(&r);
}

void perfq_nvres_stat_forget(const struct perfq_nvres_group *acc)
{
    pthread_mutex_lock(&lock);
    for (int k = 0; k < MAX_GROUPS; k++)
        if (groups[k].acc == acc)
            groups[k].acc = NULL;
    pthread_mutex_unlock(&lock);
}
