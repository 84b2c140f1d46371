/*
 * GL memory for `perfq stat --layers` and `perfq record` (docs/perfq-stat.md): after each
 * storage change the accounting engine saw (nv_query_resource_observe.c), a share group whose
 * total (textures + renderbuffers + buffer objects, in the engine's KiB) reached a new peak sends
 * its totals by type to the CLI through the stat channel; in timeline mode every change of the
 * total goes (the trace's memory counter tracks). Each GL_NV_query_resource_tag tag with state
 * whose own total reaches a new peak sends its totals too (tags past MAX_TAGS in a group: at
 * every change, the CLI keeps the peak). Costs nothing outside perfq (one test of the channel's
 * attach state).
 */
#include "gl/nvres/nvres_stat.h"

#include <pthread.h>
#include <string.h>

#include "core/stat_channel.h"
#include "gl/nvres/nvres_accounting.h"

#define MAX_GROUPS 64
#define MAX_TAGS 64

struct tag_peak {
    int32_t id;
    uint64_t peak;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    const struct perfq_nvres_group *acc;
    uint64_t peak, last;
    struct tag_peak tags[MAX_TAGS];
    size_t n_tags;
} groups[MAX_GROUPS];

/* Sends the tags of acc whose totals passed their peak (group slot k, or -1: untracked). */
static void tags_changed(struct perfq_nvres_group *acc, int k)
{
    struct perfq_nvres_tag_brief briefs[MAX_TAGS + 1];
    size_t n = perfq_nvres_tag_briefs(acc, briefs, MAX_TAGS + 1);
    for (size_t i = 0; i < n; i++) {
        const struct perfq_nvres_tag_brief *b = &briefs[i];
        int send = 1;
        if (k >= 0) {
            pthread_mutex_lock(&lock);
            size_t j = 0;
            while (j < groups[k].n_tags && groups[k].tags[j].id != b->id)
                j++;
            if (j == groups[k].n_tags && j < MAX_TAGS)
                groups[k].tags[groups[k].n_tags++] = (struct tag_peak){b->id, 0};
            if (j < groups[k].n_tags) {
                send = b->kib > groups[k].tags[j].peak;
                if (send)
                    groups[k].tags[j].peak = b->kib;
            }
            pthread_mutex_unlock(&lock);
        }
        if (!send)
            continue;
        struct perfq_stat_record r;
        memset(&r, 0, sizeof(r));
        r.kind = PERFQ_STAT_GL_MEMORY_TAG;
        r.a = (uint64_t)(uintptr_t)acc;
        r.b = (uint64_t)b->id;
        r.c = b->kib;
        r.d = b->allocs;
        r.t0 = perfq_stat_now_ns();
        memcpy(r.name, b->string, sizeof r.name);
        r.name[sizeof r.name - 1] = '\0';
        perfq_stat_channel_send(&r);
    }
}

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
        groups[k].n_tags = 0;
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
    tags_changed(acc, k < MAX_GROUPS ? k : -1);
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
