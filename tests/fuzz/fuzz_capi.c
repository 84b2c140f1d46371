/*
 * The C API (include/perfq/perfq.h) driven by call sequences with arbitrary arguments: catalog
 * reads, find and suggest on arbitrary names, measurements and samplers of arbitrary counter
 * sets begun, sampled, ended and read in any order with any array size, instances closed while
 * their measurements live, ownership acquired and released. The documented errors are checked
 * where the header determines them; ASan, UBSan and LeakSanitizer check the rest. Counters are
 * the host's (perf software events, rusage, clocks, /proc io): real sources, own process.
 */
#include <stdbool.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "perfq/perfq.h"

#define SLOTS 4

static perfq_t *base;
static uint32_t n_counters;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char domain[64];
    snprintf(domain, sizeof domain, "fuzz-capi-%d", (int)getpid());
    setenv("PERFQ_LOCK_NAME", domain, 1);   /* apart from other perfq users of the machine */
    if (perfq_open(&base) != PERFQ_OK)
        abort();
    perfq_counter_count(base, &n_counters);
    return 0;
}

struct state {
    perfq_t *pq[2];                  /* [0] the base instance, [1] one opened by the input */
    perfq_measurement_t *m[SLOTS];
    size_t m_count[SLOTS];
    int ended[SLOTS];                /* ended at least once: result may be read */
    perfq_sampler_t *s[SLOTS];
};

static perfq_counter_id_t pick_id(struct fz *f)
{
    uint8_t sel = fz_u8(f);
    if (sel < 230 && n_counters)
        return fz_u8(f) % n_counters;   /* in the catalog */
    return fz_u32(f);                   /* anywhere */
}

static void op(struct state *st, struct fz *f)
{
    uint8_t o = fz_u8(f) % 20;
    int slot = fz_u8(f) % SLOTS;
    perfq_t *pq = st->pq[st->pq[1] && (fz_u8(f) & 1)];
    perfq_value_t values[40];
    switch (o) {
    case 0: {   /* catalog reads */
        perfq_counter_info_t ci;
        perfq_group_info_t gi;
        uint32_t id = fz_u32(f) % (n_counters + 8);
        perfq_status_t r = perfq_counter_info(pq, id, &ci);
        FUZZ_CHECK((r == PERFQ_OK) == (id < n_counters), "counter_info(%u): %d", id, r);
        uint32_t groups = 0;
        perfq_group_count(pq, &groups);
        uint32_t g = fz_u32(f) % (groups + 4);
        r = perfq_group_info(pq, g, &gi);
        FUZZ_CHECK((r == PERFQ_OK) == (g < groups), "group_info(%u): %d", g, r);
        break;
    }
    case 1: {   /* find and suggest by an arbitrary name */
        char name[257];
        fz_str(f, name, 256);
        perfq_counter_id_t id = 0;
        perfq_status_t r = perfq_counter_find(pq, name, &id);
        FUZZ_CHECK(r == PERFQ_OK || r == PERFQ_ENOTFOUND, "find: %d", r);
        if (r == PERFQ_OK)
            FUZZ_CHECK(id < n_counters, "find gave id %u", id);
        char buf[80];
        size_t size = (size_t)fz_u8(f) % sizeof buf;
        memset(buf, FUZZ_CANARY, sizeof buf);
        r = perfq_counter_suggest(pq, name, size ? buf : NULL, size);
        FUZZ_CHECK(fz_canary_intact(buf, size, sizeof buf), "suggest wrote past %zu", size);
        if (r == PERFQ_OK)
            FUZZ_CHECK(size && memchr(buf, 0, size), "suggest: no NUL within %zu", size);
        break;
    }
    case 2: {   /* create a measurement of an arbitrary set */
        if (st->m[slot])
            perfq_measurement_destroy(&st->m[slot]);
        perfq_counter_id_t ids[8];
        size_t n = fz_u8(f) % 9;
        for (size_t i = 0; i < n; i++)
            ids[i] = pick_id(f);
        perfq_measurement_t *m = NULL;
        perfq_status_t r = perfq_measurement_create(pq, n ? ids : NULL, n, NULL, &m);
        FUZZ_CHECK((r == PERFQ_OK) == (m != NULL), "create %d with m %p", r, (void *)m);
        if (r == PERFQ_OK) {
            size_t count = 0;
            perfq_measurement_counter_count(m, &count);
            FUZZ_CHECK(count == n, "count %zu of %zu", count, n);
            st->m[slot] = m;
            st->m_count[slot] = count;
            st->ended[slot] = 0;
        }
        break;
    }
    case 3:
        if (st->m[slot])
            perfq_measurement_begin(st->m[slot]);
        break;
    case 4: {
        if (!st->m[slot])
            break;
        size_t n = (size_t)fz_u8(f) % 41;
        perfq_status_t r = perfq_measurement_sample(st->m[slot], values, n);
        if (n < st->m_count[slot])
            FUZZ_CHECK(r == PERFQ_ENOSPC || r == PERFQ_ENOTSUP || r == PERFQ_ESTATE,
                       "sample into %zu of %zu: %d", n, st->m_count[slot], r);
        break;
    }
    case 5:
        if (st->m[slot]) {
            perfq_measurement_end(st->m[slot]);
            st->ended[slot] = 1;
        }
        break;
    case 6: {
        if (!st->m[slot])
            break;
        size_t n = (size_t)fz_u8(f) % 41;
        memset(values, FUZZ_CANARY, sizeof values);
        perfq_status_t r = perfq_measurement_result(st->m[slot], fz_u8(f) & 1, values, n);
        if (!st->ended[slot])   /* the header does not order ESTATE and ENOSPC */
            FUZZ_CHECK(r == PERFQ_ESTATE || (r == PERFQ_ENOSPC && n < st->m_count[slot]),
                       "result before the first end: %d", r);
        else if (n < st->m_count[slot])
            FUZZ_CHECK(r == PERFQ_ENOSPC || r == PERFQ_ESTATE, "result into %zu of %zu: %d", n,
                       st->m_count[slot], r);
        if (r != PERFQ_OK)
            FUZZ_CHECK(fz_canary_intact(values, 0, sizeof values), "failed result wrote");
        else
            FUZZ_CHECK(fz_canary_intact(values, st->m_count[slot] * sizeof values[0],
                                        sizeof values), "result wrote past its count");
        break;
    }
    case 7:
        if (st->m[slot])
            FUZZ_CHECK(perfq_measurement_destroy(&st->m[slot]) == PERFQ_OK && !st->m[slot],
                       "destroy");
        else
            FUZZ_CHECK(perfq_measurement_destroy(&st->m[slot]) == PERFQ_EINVAL,
                       "destroy of NULL");
        break;
    case 8:     /* sampler create */
        if (!st->s[slot])
            FUZZ_CHECK(perfq_sampler_create(pq, NULL, &st->s[slot]) == PERFQ_OK, "sampler");
        break;
    case 9: {   /* choose or unchoose an arbitrary set */
        if (!st->s[slot])
            break;
        perfq_counter_id_t ids[8], before[64], after[64];
        size_t n = fz_u8(f) % 9, nb = 0, na = 0;
        int bad = 0, all_bad = n > 0;
        for (size_t i = 0; i < n; i++) {
            ids[i] = pick_id(f);
            bad |= ids[i] >= n_counters;
            all_bad &= ids[i] >= n_counters;
        }
        perfq_sampler_counters(st->s[slot], before, 64, &nb);
        perfq_status_t r = perfq_sampler_choose(st->s[slot], n ? ids : NULL, n, fz_u8(f) & 1);
        /* The first refused id decides the status (an unavailable one: ENOTSUP). */
        if (all_bad)
            FUZZ_CHECK(r == PERFQ_EINVAL, "choose outside the catalog: %d", r);
        if (bad)
            FUZZ_CHECK(r != PERFQ_OK, "choose with an id outside the catalog succeeded");
        perfq_sampler_counters(st->s[slot], after, 64, &na);
        if (r != PERFQ_OK)
            FUZZ_CHECK(na == nb && !memcmp(before, after, na * sizeof after[0]),
                       "failed choose changed the set");
        for (size_t i = 1; i < na; i++)
            FUZZ_CHECK(after[i - 1] < after[i], "sampler counters not in catalog order");
        break;
    }
    case 10:
        if (st->s[slot])
            perfq_sampler_start(st->s[slot]);
        break;
    case 11:
        if (st->s[slot])
            perfq_sampler_stop(st->s[slot]);
        break;
    case 12: {
        if (!st->s[slot])
            break;
        size_t chosen = 0, n = (size_t)fz_u8(f) % 41;
        perfq_sampler_counters(st->s[slot], NULL, 0, &chosen);
        memset(values, FUZZ_CANARY, sizeof values);
        perfq_status_t r = perfq_sampler_read(st->s[slot], fz_u8(f) & 1, n ? values : NULL, n);
        if (r == PERFQ_OK)
            FUZZ_CHECK(fz_canary_intact(values, chosen * sizeof values[0], sizeof values),
                       "sampler read wrote past %zu values", chosen);
        else
            FUZZ_CHECK(fz_canary_intact(values, 0, sizeof values), "failed read wrote");
        break;
    }
    case 13: {
        if (!st->s[slot])
            break;
        perfq_counter_id_t ids[64];
        size_t cap = fz_u8(f) % 65, n = 0, total = 0;
        memset(ids, FUZZ_CANARY, sizeof ids);
        perfq_sampler_counters(st->s[slot], NULL, 0, &total);
        perfq_status_t r = perfq_sampler_counters(st->s[slot], ids, cap, &n);
        FUZZ_CHECK((r == PERFQ_OK) == (cap >= total), "counters(cap %zu of %zu): %d", cap,
                   total, r);
        FUZZ_CHECK(fz_canary_intact(ids, (r == PERFQ_OK ? total : 0) * sizeof ids[0],
                                    sizeof ids), "counters wrote past");
        break;
    }
    case 14:
        if (st->s[slot])
            perfq_sampler_destroy(&st->s[slot]);
        else
            FUZZ_CHECK(perfq_sampler_destroy(&st->s[slot]) == PERFQ_EINVAL, "sampler NULL");
        break;
    case 15:    /* a second instance, closed while its measurements and samplers live */
        if (st->pq[1])
            FUZZ_CHECK(perfq_close(&st->pq[1]) == PERFQ_OK && !st->pq[1], "close");
        else if (fz_u8(f) < 16)
            FUZZ_CHECK(perfq_open(&st->pq[1]) == PERFQ_OK, "open");
        break;
    case 16: {  /* ownership */
        int owned = perfq_counters_owned();
        if (fz_u8(f) & 1) {
            FUZZ_CHECK(perfq_counters_acquire() == PERFQ_OK, "acquire in a private domain");
            FUZZ_CHECK(perfq_counters_owned() == 1, "owned after acquire");
        } else {
            perfq_status_t r = perfq_counters_release();
            FUZZ_CHECK(r == (owned ? PERFQ_OK : PERFQ_ESTATE), "release: %d (owned %d)", r,
                       owned);
        }
        break;
    }
    case 17:
        FUZZ_CHECK(perfq_sampler_running(st->s[slot]) >= (st->s[slot] ? 0 : -1000) &&
                       (st->s[slot] || perfq_sampler_running(NULL) < 0),
                   "running");
        break;
    case 18: {  /* a value as a double, any storage */
        perfq_value_t v;
        v.v.u64 = fz_u64(f);
        (void)perfq_value_as_double(&v, (perfq_storage_t)(fz_u8(f) % 8));
        break;
    }
    default:
        FUZZ_CHECK(perfq_status_string((perfq_status_t)(int32_t)fz_u32(f)) != NULL, "status");
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    struct state st = {{base, NULL}, {0}, {0}, {0}, {0}};
    for (int calls = 0; fz_more(&f) && calls < 64; calls++)
        op(&st, &f);
    for (int i = 0; i < SLOTS; i++) {
        if (st.m[i])
            perfq_measurement_destroy(&st.m[i]);
        if (st.s[i])
            perfq_sampler_destroy(&st.s[i]);
    }
    if (st.pq[1])
        perfq_close(&st.pq[1]);
    if (perfq_counters_owned())
        perfq_counters_release();
    return 0;
}
