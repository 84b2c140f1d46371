/* GL memory for perfq stat / perfq record: see nvres_stat.c. */
#ifndef PERFQ_GL_NVRES_STAT_H
#define PERFQ_GL_NVRES_STAT_H

struct perfq_nvres_group;

/* After a storage change in acc: sends its totals by type when they reach a new peak. */
void perfq_nvres_stat_changed(struct perfq_nvres_group *acc);
/* The group is freed: its slot may be reused (a new group may get the same address). */
void perfq_nvres_stat_forget(const struct perfq_nvres_group *acc);

#endif
