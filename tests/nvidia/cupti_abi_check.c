/*
 * perfq's CUPTI declarations (src/providers/cupti_api.h) against CUDA's own headers: every
 * struct size, field offset and constant perfq uses, compared one by one (the function
 * signatures are checked when cupti_abi_real.cpp compiles). Built only where the CUDA headers
 * exist (this development machine's CUDA 13 install, the GPU machine).
 */
#include <stdio.h>

#include "cupti_abi_side.h"

int main(void)
{
    unsigned bad = 0;
    for (size_t i = 0; i < perfq_cupti_fact_count; i++)
        if (perfq_cupti_facts_perfq[i].value != perfq_cupti_facts_real[i].value) {
            printf("MISMATCH %s: perfq %zu, CUDA headers %zu\n", perfq_cupti_facts_perfq[i].name,
                   perfq_cupti_facts_perfq[i].value, perfq_cupti_facts_real[i].value);
            bad++;
        }
    printf("ABI: %zu facts compared, %u differ; every resolved function's signature compiled "
           "against the CUDA headers\n", perfq_cupti_fact_count, bad);
    return bad ? 1 : 0;
}
