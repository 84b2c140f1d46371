/* perfq's side of the CUPTI ABI check: the facts of src/providers/cupti_api.h. */
#include "providers/cupti_api.h"
#include "cupti_abi_side.h"
#include "cupti_abi_facts.h"

const struct cupti_fact perfq_cupti_facts_perfq[] = {PERFQ_CUPTI_FACTS};
const size_t perfq_cupti_fact_count = sizeof(perfq_cupti_facts_perfq) /
                                      sizeof(perfq_cupti_facts_perfq[0]);
