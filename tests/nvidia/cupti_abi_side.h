/* One side of the CUPTI ABI check: the facts as compiled against one set of declarations. */
#ifndef PERFQ_TESTS_CUPTI_ABI_SIDE_H
#define PERFQ_TESTS_CUPTI_ABI_SIDE_H
#include <stddef.h>

struct cupti_fact {
    const char *name;
    size_t value;
};

#ifdef __cplusplus
extern "C" {
#endif
extern const struct cupti_fact perfq_cupti_facts_perfq[], perfq_cupti_facts_real[];
extern const size_t perfq_cupti_fact_count;
#ifdef __cplusplus
}
#endif

#define PERFQ_FACT_SIZE(T) {#T, sizeof(T)},
#define PERFQ_FACT_FIELD(T, f) {#T "." #f, offsetof(T, f)},
#define PERFQ_FACT_CONST(c) {#c, (size_t)(c)},
#endif
