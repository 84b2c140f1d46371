/*
 * The process's one NVML sampler thread ("perfq-nvml"). It runs while some measurement holds
 * NVML or GPM counters, and is the only caller of NVML's reading functions: measurements read
 * memory. Cadences (docs/nvidia-providers.md; environment overrides in milliseconds):
 *   fast gauges   every 20 ms   (PERFQ_NVML_FAST_MS): power, SM and memory clocks, GPU and
 *                 memory utilisation, temperature, clock event reasons (about 0.4 us each;
 *                 the thread's wake-up costs far more: about 100 us of CPU per tick on the
 *                 GPU machine's VM, which is what bounds the cadence under 1% of a core)
 *   memory used   every 50 ms   (PERFQ_NVML_MEMORY_MS): 7 us of CPU per read
 *   total energy  every 2000 ms (PERFQ_NVML_ENERGY_MS): the driver updates it every 100 ms,
 *                 but one read spins about 3.9 ms of CPU (H100); between reads the power
 *                 integral carries it
 *   GPM           every 100 ms  (PERFQ_NVML_GPM_MS), while a GPM counter is measured
 *   PCIe          every 1000 ms (PERFQ_NVML_PCIE_MS), while a PCIe counter is measured: each of
 *                 the two reads blocks about 20 ms, during which the fast gauges wait
 * Each sample is stamped with CLOCK_MONOTONIC at the midpoint of its NVML call.
 * Linger: when its last user stops, the thread keeps sampling (what it sampled, PCIe and GPM
 * included) for PERFQ_NVML_LINGER_MS (2000 ms) before it ends by itself, so that a program that
 * creates and deletes a measurement per frame neither starts NVML's sampling nor waits for first
 * samples each time. Its cost while lingering is the cadences' above (about 0.5% of a core on
 * the GPU machine). At exit (atexit) a lingering thread is stopped and joined.
 * Slow gauges (PCIe, memory used): a result does not wait for their read after its end, up
 * to a PCIe period (a second) or a memory period later: once every other channel is resolved,
 * such an end (or begin) still pending takes the gauge's newest read, held from that read to
 * the anchor. A result thus waits for one fast period, or a GPM period where it has GPM
 * counters (docs/nvidia-providers.md, "Result latency").
 *
 * Per channel the sampler keeps the newest sample (t, v) and the integral of the channel up to
 * t. Gauges are linear between two samples (trapezoids); a GPM metric is the average over the
 * interval between two GPM samples, so it is a step. An anchor at time x between samples
 * (t0, v0) and (t1, v1) gets the integral up to x, computed when sample 1 arrives; a counter's
 * mean over [begin, end] is then (I(end) - I(begin)) / (end - begin).
 * Energy: J(x) = E_u + (P(x) - P(u)), where E_u is the driver's total-energy counter as last
 * read before x, P the integral of power, and u the time the counter's value is taken to be
 * from: the driver updates it every 100 ms, so a read at r holds the energy up to some time in
 * (max(r - 100 ms, previous read), r]; u is the midpoint of that window. The counter gives the
 * energy; the power integral carries it between reads.
 * Counts: a begin anchor takes the count before the first sample after it, an end anchor the
 * count including the first sample after it.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "providers/nvml_history.h"
#include "providers/nvml_interval.h"
#include "providers/nvml_shared.h"

#define ENERGY_UPDATE_NS 100000000u   /* the driver's total-energy update period */

struct channel {
    int primed;       /* has a first sample (gauges) or a first GPM sample (steps) */
    int has_value;    /* v is valid (a step channel needs two GPM samples) */
    uint64_t t;
    double v;
    double integral;  /* value * seconds up to t; for counts: the count */
};

struct device_state {
    struct channel ch[CH_COUNT];
    double energy_mj;        /* the counter as last seen changing */
    double energy_power_i;   /* the power integral where it is taken to have changed */
    double energy_read_power_i;   /* the power integral at the last read */
    uint64_t energy_read_t;       /* the time of the last read */
    int energy_seen;
    unsigned last_sm, last_mem;
    nvmlGpmSample_t gpm[2];
    int gpm_cur;             /* gpm[gpm_cur] holds the newest sample when gpm_primed */
    int gpm_primed;
    uint64_t refused;        /* channels whose read the device refused (PCIe: not probed) */
    struct nvml_history hist;   /* the fast samples of power and clocks, HISTORY_S seconds */
};

/* Seconds of fast samples kept for intervals read after they ended (OpenCL commands). */
#define HISTORY_S 60

static struct {
    pthread_mutex_t lock;
    pthread_cond_t tick;      /* broadcast after every applied tick and at stop */
    pthread_cond_t wake;      /* wakes the thread early (stop, new wants) */
    pthread_t thread;
    int running, stop;
    int exited;               /* the thread ended by itself (linger over), not joined yet */
    unsigned users, gpm_users, pcie_users;
    /* While lingering after the last user of PCIe or GPM, the sampler keeps reading them. */
    uint64_t keep_until;
    int keep_gpm, keep_pcie;
    uint32_t keep_metrics;
    unsigned metric_users[PERFQ_GPM_METRICS_MAX];   /* sessions wanting each GPM metric */
    const struct nvml_global *g;
    struct device_state dev[NVML_MAX_DEVICES];
    struct nvml_anchor *pending;
    uint64_t fast_ns, memory_ns, energy_ns, gpm_ns, pcie_ns, linger_ns;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t env_ms(const char *name, uint64_t def_ms)
{
    const char *v = getenv(name);
    char *end;
    unsigned long ms = v ? strtoul(v, &end, 10) : 0;
    return (v && *v && !*end && ms > 0 && ms < 600000 ? ms : def_ms) * 1000000u;
}

static double integral_at(const struct channel *c, uint64_t x, uint64_t t1, double v1, int step)
{
    /* The integral up to x, t <= x <= t1, before sample (t1, v1) is applied. */
    double dx = (double)(x - c->t) / 1e9;
    if (step)
        return c->integral + dx * v1;
    double vx = t1 > c->t ? c->v + (v1 - c->v) * (double)(x - c->t) / (double)(t1 - c->t) : v1;
    return c->integral + dx * (c->v + vx) / 2;
}

/* Beyond the newest sample: the newest value held. Before the first: likewise backwards. */
static double integral_hold(const struct channel *c, uint64_t x)
{
    double dx = x >= c->t ? (double)(x - c->t) / 1e9 : -(double)(c->t - x) / 1e9;
    return c->integral + dx * (c->has_value ? c->v : 0);
}

static int is_step(int ch)
{
    return ch >= CH_GPM_FIRST;
}

/* Applies one sample of a gauge or step channel, resolving the anchors it brackets. */
static void apply(unsigned d, int chn, uint64_t t1, double v1)
{
    struct channel *c = &S.dev[d].ch[chn];
    int step = is_step(chn);
    if (!c->primed) {
        /* First point after a (re)start: no interval to integrate yet. */
        c->primed = 1;
        c->t = t1;
        c->has_value = !step;
        c->v = v1;
        return;
    }
    if (t1 < c->t)
        t1 = c->t;
    for (struct nvml_anchor *a = S.pending; a; a = a->next) {
        if (!(a->pending[d] & CH_BIT(chn)) || a->t > t1)
            continue;
        a->value[d][chn] = a->t >= c->t ? integral_at(c, a->t, t1, v1, step)
                                        : integral_hold(c, a->t);
        if (chn == CH_POWER && (a->pending[d] & CH_BIT(CH_ENERGY))) {
            struct device_state *ds = &S.dev[d];
            a->value[d][CH_ENERGY] = ds->energy_mj / 1000.0 +
                                     (a->value[d][CH_POWER] - ds->energy_power_i);
            a->pending[d] &= ~CH_BIT(CH_ENERGY);
        }
        if (chn == CH_POWER)
            a->age[d] = a->t >= c->t ? a->t - c->t : 0;
        a->pending[d] &= ~CH_BIT(chn);
    }
    c->integral = integral_at(c, t1, t1, v1, step);
    c->t = t1;
    c->v = v1;
    c->has_value = 1;
}

/* A sample that NVML refused or gave as NaN: anchors waiting on it get no value (their
 * counters read "not counted") rather than a guess. */
static void fail_channel(unsigned d, int chn, uint64_t t1)
{
    for (struct nvml_anchor *a = S.pending; a; a = a->next) {
        if (!(a->pending[d] & CH_BIT(chn)) || a->t > t1)
            continue;
        a->failed[d] |= CH_BIT(chn);
        a->pending[d] &= ~CH_BIT(chn);
    }
}

/* Applies one fast sample's event counts: anchors before t1 take the count before (begin)
 * or including (end) this sample. */
static void apply_count(unsigned d, int chn, uint64_t t1, int event)
{
    struct channel *c = &S.dev[d].ch[chn];
    for (struct nvml_anchor *a = S.pending; a; a = a->next) {
        if (!(a->pending[d] & CH_BIT(chn)) || a->t > t1)
            continue;
        a->value[d][chn] = c->integral + (a->is_end ? event : 0);
        a->pending[d] &= ~CH_BIT(chn);
    }
    c->integral += event;
    c->t = t1;
    c->primed = c->has_value = 1;
}

struct fast_sample {
    int ok[CH_COUNT];
    double v[CH_COUNT];
    unsigned long long reasons;
    unsigned sm, mem;
    uint64_t t;
};

static void read_fast(unsigned d, struct fast_sample *s, int do_memory)
{
    const struct nvml_device_info *dev = &S.g->dev[d];
    const struct nvml_fns *f = &S.g->fn;
    nvmlDevice_t h = dev->handle;
    unsigned v;
    nvmlUtilization_t util;
    nvmlMemory_t mem;
    memset(s, 0, sizeof(*s));
    uint64_t t0 = perfq__nvml_now();
    if (dev->power_instant) {
        nvmlFieldValue_t fv = {.fieldId = NVML_FI_DEV_POWER_INSTANT};
        if (f->nvmlDeviceGetFieldValues(h, 1, &fv) == NVML_SUCCESS &&
            fv.nvmlReturn == NVML_SUCCESS) {
            s->ok[CH_POWER] = 1;
            s->v[CH_POWER] = fv.valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG
                                 ? (double)fv.value.ullVal / 1000.0
                                 : (double)fv.value.uiVal / 1000.0;
        }
    } else if (!dev->reason[CH_POWER] && f->nvmlDeviceGetPowerUsage(h, &v) == NVML_SUCCESS) {
        s->ok[CH_POWER] = 1;
        s->v[CH_POWER] = v / 1000.0;
    }
    if (!dev->reason[CH_SM_CLOCK] && f->nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM, &v) == 0) {
        s->ok[CH_SM_CLOCK] = 1;
        s->sm = v;
        s->v[CH_SM_CLOCK] = v * 1e6;
    }
    if (!dev->reason[CH_MEM_CLOCK] && f->nvmlDeviceGetClockInfo(h, NVML_CLOCK_MEM, &v) == 0) {
        s->ok[CH_MEM_CLOCK] = 1;
        s->mem = v;
        s->v[CH_MEM_CLOCK] = v * 1e6;
    }
    if (!dev->reason[CH_GPU_UTIL] && f->nvmlDeviceGetUtilizationRates(h, &util) == 0) {
        s->ok[CH_GPU_UTIL] = s->ok[CH_MEM_UTIL] = 1;
        s->v[CH_GPU_UTIL] = util.gpu;
        s->v[CH_MEM_UTIL] = util.memory;
    }
    if (!dev->reason[CH_TEMP] && f->nvmlDeviceGetTemperature(h, NVML_TEMPERATURE_GPU, &v) == 0) {
        s->ok[CH_TEMP] = 1;
        s->v[CH_TEMP] = v + 273.15;
    }
    if (do_memory && !dev->reason[CH_MEM_USED] && f->nvmlDeviceGetMemoryInfo(h, &mem) == 0) {
        s->ok[CH_MEM_USED] = 1;
        s->v[CH_MEM_USED] = (double)mem.used;
    }
    if (!dev->reason[CH_THROTTLED]) {
        nvmlReturn_t rc = f->nvmlDeviceGetCurrentClocksEventReasons
                              ? f->nvmlDeviceGetCurrentClocksEventReasons(h, &s->reasons)
                              : f->nvmlDeviceGetCurrentClocksThrottleReasons(h, &s->reasons);
        s->ok[CH_THROTTLED] = rc == NVML_SUCCESS;
    }
    s->t = t0 + (perfq__nvml_now() - t0) / 2;
}

/* Reasons that limit the clocks (not idle, not an application or display setting). */
#define LIMITING_REASONS                                                                   \
    (nvmlClocksEventReasonSwPowerCap | nvmlClocksThrottleReasonHwSlowdown |                \
     nvmlClocksEventReasonSyncBoost | nvmlClocksEventReasonSwThermalSlowdown |             \
     nvmlClocksThrottleReasonHwThermalSlowdown | nvmlClocksThrottleReasonHwPowerBrakeSlowdown)

static void apply_fast(unsigned d, const struct fast_sample *s)
{
    struct device_state *ds = &S.dev[d];
    static const int gauges[] = {CH_POWER, CH_SM_CLOCK, CH_MEM_CLOCK, CH_GPU_UTIL,
                                 CH_MEM_UTIL, CH_TEMP, CH_MEM_USED};
    for (size_t i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++)
        if (s->ok[gauges[i]])
            apply(d, gauges[i], s->t, s->v[gauges[i]]);
    if (s->ok[CH_THROTTLED])
        apply_count(d, CH_THROTTLED, s->t, (s->reasons & LIMITING_REASONS) != 0);
    int primed = S.dev[d].ch[CH_SAMPLES].primed;
    int changed = primed && ((s->ok[CH_SM_CLOCK] && s->sm != ds->last_sm) ||
                             (s->ok[CH_MEM_CLOCK] && s->mem != ds->last_mem));
    if (s->ok[CH_SM_CLOCK] || s->ok[CH_MEM_CLOCK])
        apply_count(d, CH_CLOCK_CHANGES, s->t, changed);
    ds->last_sm = s->sm;
    ds->last_mem = s->mem;
    apply_count(d, CH_SAMPLES, s->t, 1);
    struct nvml_hist_sample h = {.t = s->t,
                                 .v = {s->v[CH_POWER], s->v[CH_SM_CLOCK], s->v[CH_MEM_CLOCK]},
                                 .ok = (s->ok[CH_POWER] ? 1u << HIST_POWER : 0) |
                                       (s->ok[CH_SM_CLOCK] ? 1u << HIST_SM_CLOCK : 0) |
                                       (s->ok[CH_MEM_CLOCK] ? 1u << HIST_MEM_CLOCK : 0)};
    perfq__nvml_history_push(&ds->hist, &h);
}

static void read_energy(unsigned d, uint64_t *t, int *ok, unsigned long long *mj)
{
    const struct nvml_fns *f = &S.g->fn;
    uint64_t t0 = perfq__nvml_now();
    *ok = f->nvmlDeviceGetTotalEnergyConsumption(S.g->dev[d].handle, mj) == NVML_SUCCESS;
    *t = t0 + (perfq__nvml_now() - t0) / 2;
}

static void apply_energy(unsigned d, uint64_t t, unsigned long long mj)
{
    struct device_state *ds = &S.dev[d];
    const struct channel *p = &ds->ch[CH_POWER];
    if (!p->primed)
        return;
    double power_i = integral_hold(p, t);
    if (!ds->energy_seen || (double)mj != ds->energy_mj) {
        /* The value is from the driver's last 100 ms update: somewhere in (lo, t]. */
        uint64_t lo = t > ENERGY_UPDATE_NS ? t - ENERGY_UPDATE_NS : 0;
        if (ds->energy_seen && ds->energy_read_t > lo)
            lo = ds->energy_read_t;
        double frac = t > ds->energy_read_t && ds->energy_seen
                          ? (double)((lo + t) / 2 - ds->energy_read_t) /
                                (double)(t - ds->energy_read_t)
                          : 1.0;
        /* The power integral at the midpoint, linear between the two reads. */
        ds->energy_power_i = ds->energy_seen ? ds->energy_read_power_i +
                                                   frac * (power_i - ds->energy_read_power_i)
                                             : power_i;
        ds->energy_mj = (double)mj;
        ds->energy_seen = 1;
    }
    ds->energy_read_power_i = power_i;
    ds->energy_read_t = t;
    ds->ch[CH_ENERGY].primed = ds->ch[CH_ENERGY].has_value = 1;
}

/* One GPM sample; the metrics between it and the previous one, when there is one. */
static int read_gpm(unsigned d, uint64_t *t, double *values, int *ok, uint32_t want)
{
    struct device_state *ds = &S.dev[d];
    const struct nvml_fns *f = &S.g->fn;
    int next = ds->gpm_primed ? !ds->gpm_cur : ds->gpm_cur;
    uint64_t t0 = perfq__nvml_now();
    if (f->nvmlGpmSampleGet(S.g->dev[d].handle, ds->gpm[next]) != NVML_SUCCESS)
        return -1;
    *t = t0 + (perfq__nvml_now() - t0) / 2;
    int have_pair = ds->gpm_primed;
    if (have_pair) {
        static perfq_nvmlGpmMetricsGet_t get;   /* only the sampler thread uses it */
        /* Only the metrics some measurement wants: the call's cost grows with their number. */
        int index[PERFQ_GPM_METRICS_MAX];
        unsigned k = 0;
        memset(&get, 0, sizeof(get));
        get.version = NVML_GPM_METRICS_GET_VERSION;
        get.sample1 = ds->gpm[ds->gpm_cur];
        get.sample2 = ds->gpm[next];
        for (int i = 0; i < PERFQ_GPM_METRICS_MAX; i++) {
            ok[i] = 0;
            if (want & (1u << i)) {
                index[i] = (int)k;
                get.metrics[k++].metricId = perfq__gpm_metric_ids[i];
            }
        }
        get.numMetrics = k;
        nvmlReturn_t rc = k ? f->nvmlGpmMetricsGet(&get) : NVML_SUCCESS;
        for (int i = 0; i < PERFQ_GPM_METRICS_MAX; i++) {
            if (!(want & (1u << i)))
                continue;
            const nvmlGpmMetric_t *mt = &get.metrics[index[i]];
            ok[i] = rc == NVML_SUCCESS && mt->nvmlReturn == NVML_SUCCESS && isfinite(mt->value);
            values[i] = mt->value;
            /* PCIe and NVLink rates come in MiB/s; perfq's unit is bytes/s. */
            if (perfq__gpm_metric_ids[i] == NVML_GPM_METRIC_PCIE_TX_PER_SEC ||
                perfq__gpm_metric_ids[i] == NVML_GPM_METRIC_PCIE_RX_PER_SEC ||
                perfq__gpm_metric_ids[i] == NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC ||
                perfq__gpm_metric_ids[i] == NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC)
                values[i] *= 1048576.0;
        }
    }
    ds->gpm_cur = next;
    ds->gpm_primed = 1;
    return have_pair;
}

static void reset_channels(uint64_t mask)
{
    for (unsigned d = 0; d < S.g->device_count; d++)
        for (int c = 0; c < CH_COUNT; c++)
            if (mask & CH_BIT(c))
                S.dev[d].ch[c].primed = S.dev[d].ch[c].has_value = 0;
}

/* What the sampler reads beyond the fast gauges: its users' wants, and for the linger those
 * of its last users (S.lock held). */
static void wants_locked(uint64_t now, unsigned *gpm, unsigned *pcie, uint32_t *metrics)
{
    int keep = now < S.keep_until;
    *gpm = S.gpm_users || (keep && S.keep_gpm);
    *pcie = S.pcie_users || (keep && S.keep_pcie);
    *metrics = keep ? S.keep_metrics : 0;
    for (int i = 0; i < PERFQ_GPM_METRICS_MAX; i++)
        *metrics |= (S.metric_users[i] ? 1u : 0u) << i;
}

static int wants_changed(unsigned gpm, unsigned pcie, uint32_t metrics)
{
    unsigned g, p;
    uint32_t m;
    wants_locked(perfq__nvml_now(), &g, &p, &m);
    return g != gpm || p != pcie || m != metrics;
}

static void *sampler_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "perfq-nvml");
    unsigned n = S.g->device_count;
    uint64_t next_fast = perfq__nvml_now(), next_energy = 0, next_gpm = 0, next_pcie = 0;
    uint64_t next_memory = 0;
    unsigned had_gpm = 0, had_pcie = 0;
    uint32_t had_metrics = 0;
    pthread_mutex_lock(&S.lock);
    while (!S.stop) {
        uint64_t now = perfq__nvml_now();
        if (!S.users && now >= S.keep_until)
            break;   /* the linger is over */
        unsigned want_gpm, want_pcie;
        uint32_t want_metrics;
        wants_locked(now, &want_gpm, &want_pcie, &want_metrics);
        pthread_mutex_unlock(&S.lock);

        if (want_gpm && !had_gpm) {
            next_gpm = now;
            for (unsigned d = 0; d < n; d++)
                S.dev[d].gpm_primed = 0;
        }
        if (want_pcie && !had_pcie)
            next_pcie = now;
        if (want_metrics & ~had_metrics)
            next_gpm = now;   /* a newly wanted metric gets its first point at once */
        struct fast_sample fast[NVML_MAX_DEVICES];
        int do_memory = now >= next_memory;
        for (unsigned d = 0; d < n; d++)
            read_fast(d, &fast[d], do_memory);
        if (do_memory)
            next_memory = now + S.memory_ns;
        int do_energy = now >= next_energy;
        uint64_t te[NVML_MAX_DEVICES];
        int eok[NVML_MAX_DEVICES] = {0};
        unsigned long long emj[NVML_MAX_DEVICES];
        for (unsigned d = 0; do_energy && d < n; d++)
            if (!S.g->dev[d].reason[CH_ENERGY])
                read_energy(d, &te[d], &eok[d], &emj[d]);
        int do_gpm = want_gpm && now >= next_gpm;
        uint64_t tg[NVML_MAX_DEVICES];
        double gv[NVML_MAX_DEVICES][PERFQ_GPM_METRICS_MAX];
        int gok[NVML_MAX_DEVICES][PERFQ_GPM_METRICS_MAX];
        int gpair[NVML_MAX_DEVICES] = {0};
        int gfirst[NVML_MAX_DEVICES] = {0};
        for (unsigned d = 0; do_gpm && d < n; d++) {
            if (!S.g->dev[d].gpm_supported)
                continue;
            int r = read_gpm(d, &tg[d], gv[d], gok[d], want_metrics);
            gpair[d] = r == 1;
            gfirst[d] = r == 0;
        }

        pthread_mutex_lock(&S.lock);
        if (want_gpm && !had_gpm)
            reset_channels(CH_GPM_MASK);
        /* A metric nobody wants any more starts afresh when wanted again. */
        reset_channels((uint64_t)(had_metrics & ~want_metrics) << CH_GPM_FIRST);
        if (want_pcie && !had_pcie)
            reset_channels(CH_PCIE_MASK);
        for (unsigned d = 0; d < n; d++) {
            apply_fast(d, &fast[d]);
            if (eok[d])
                apply_energy(d, te[d], emj[d]);
            for (int i = 0; i < PERFQ_GPM_METRICS_MAX; i++) {
                if (!(want_metrics & (1u << i)))
                    continue;
                if (gfirst[d] || (gpair[d] && !S.dev[d].ch[CH_GPM_FIRST + i].primed))
                    apply(d, CH_GPM_FIRST + i, tg[d], 0);   /* primes: first point */
                else if (gpair[d] && gok[d][i])
                    apply(d, CH_GPM_FIRST + i, tg[d], gv[d][i]);
                else if (gpair[d])
                    fail_channel(d, CH_GPM_FIRST + i, tg[d]);
            }
        }
        pthread_cond_broadcast(&S.tick);
        pthread_mutex_unlock(&S.lock);

        /* PCIe: each read blocks about 20 ms, so it is read after the fast tick is out. */
        if (want_pcie && now >= next_pcie) {
            for (unsigned d = 0; d < n; d++) {
                if (S.g->dev[d].reason[CH_PCIE_TX] || (S.dev[d].refused & CH_PCIE_MASK))
                    continue;
                unsigned tx = 0, rx = 0;
                uint64_t t0 = perfq__nvml_now();
                int ok = S.g->fn.nvmlDeviceGetPcieThroughput(S.g->dev[d].handle,
                                                            NVML_PCIE_UTIL_TX_BYTES, &tx) == 0 &&
                         S.g->fn.nvmlDeviceGetPcieThroughput(S.g->dev[d].handle,
                                                            NVML_PCIE_UTIL_RX_BYTES, &rx) == 0;
                uint64_t t = t0 + (perfq__nvml_now() - t0) / 2;
                pthread_mutex_lock(&S.lock);
                if (ok) {   /* KB/s over the driver's 20 ms window */
                    apply(d, CH_PCIE_TX, t, tx * 1024.0);
                    apply(d, CH_PCIE_RX, t, rx * 1024.0);
                } else {
                    /* Refused (the probe does not try it): "not counted" from now on, and no
                     * start waits for a first read of it. */
                    S.dev[d].refused |= CH_PCIE_MASK;
                    for (int c = CH_PCIE_TX; c <= CH_PCIE_RX; c++) {
                        fail_channel(d, c, UINT64_MAX);
                        S.dev[d].ch[c].primed = 1;
                        S.dev[d].ch[c].has_value = 0;
                    }
                }
                pthread_cond_broadcast(&S.tick);
                pthread_mutex_unlock(&S.lock);
            }
            next_pcie = now + S.pcie_ns;
        }
        if (do_energy)
            next_energy = now + S.energy_ns;
        if (do_gpm)
            next_gpm = now + S.gpm_ns;
        had_gpm = want_gpm;
        had_metrics = want_metrics;
        had_pcie = want_pcie;

        /* The next tick a period after this one's schedule, or after this one where it came
         * early (woken for new wants): early wakes do not push the cadence further out. */
        next_fast = (now < next_fast ? now : next_fast) + S.fast_ns;
        uint64_t after = perfq__nvml_now();
        if (next_fast < after)
            next_fast = after;   /* fell behind (a slow call): no burst to catch up */
        struct timespec until = {(time_t)(next_fast / 1000000000u),
                                 (long)(next_fast % 1000000000u)};
        pthread_mutex_lock(&S.lock);
        while (!S.stop && !wants_changed(want_gpm, want_pcie, want_metrics) &&
               pthread_cond_timedwait(&S.wake, &S.lock, &until) != ETIMEDOUT)
            ;
    }
    /* Stopped, or the linger is over: the thread frees what it sampled with. Whoever set
     * S.stop joins it; after a linger the next start (or the exit handler) does. */
    for (unsigned d = 0; d < S.g->device_count; d++) {
        for (int i = 0; i < 2; i++)
            if (S.dev[d].gpm[i])
                S.g->fn.nvmlGpmSampleFree(S.dev[d].gpm[i]);
        perfq__nvml_history_free(&S.dev[d].hist);
    }
    S.g = NULL;
    perfq__nvml_release();
    S.running = 0;
    S.exited = !S.stop;
    pthread_cond_broadcast(&S.tick);
    pthread_mutex_unlock(&S.lock);
    return NULL;
}

static void count_metrics(const uint64_t need[NVML_MAX_DEVICES], int delta)
{
    uint64_t any = 0;
    for (unsigned d = 0; d < NVML_MAX_DEVICES; d++)
        any |= need[d];
    for (int i = 0; i < PERFQ_GPM_METRICS_MAX; i++)
        if (any & CH_BIT(CH_GPM_FIRST + i))
            S.metric_users[i] += (unsigned)delta;
}

static int wants_gpm(const uint64_t need[NVML_MAX_DEVICES])
{
    for (unsigned d = 0; d < NVML_MAX_DEVICES; d++)
        if (need[d] & CH_GPM_MASK)
            return 1;
    return 0;
}

static int wants_pcie(const uint64_t need[NVML_MAX_DEVICES])
{
    for (unsigned d = 0; d < NVML_MAX_DEVICES; d++)
        if (need[d] & CH_PCIE_MASK)
            return 1;
    return 0;
}

static int all_primed(const uint64_t need[NVML_MAX_DEVICES])
{
    for (unsigned d = 0; d < S.g->device_count; d++)
        for (int c = 0; c < CH_COUNT; c++)
            if ((need[d] & CH_BIT(c)) && !S.g->dev[d].reason[c] && !S.dev[d].ch[c].primed &&
                !(S.dev[d].refused & CH_BIT(c)))
                return 0;
    return 1;
}

static void deadline_in(struct timespec *ts, uint64_t ns)
{
    uint64_t t = perfq__nvml_now() + ns;
    ts->tv_sec = (time_t)(t / 1000000000u);
    ts->tv_nsec = (long)(t % 1000000000u);
}

/* Ends the thread now and joins it (S.lock held; released meanwhile). */
static void stop_thread_locked(void)
{
    S.stop = 1;
    pthread_cond_broadcast(&S.wake);
    pthread_t t = S.thread;
    pthread_mutex_unlock(&S.lock);
    pthread_join(t, NULL);
    pthread_mutex_lock(&S.lock);
    S.exited = 0;
    S.stop = 0;
    pthread_cond_broadcast(&S.tick);
}

static void stop_locked(const uint64_t need[NVML_MAX_DEVICES])
{
    uint64_t now = perfq__nvml_now();
    int had_gpm = S.gpm_users > 0, had_pcie = S.pcie_users > 0;
    uint32_t had_metrics = 0, has_metrics = 0;
    for (int i = 0; i < PERFQ_GPM_METRICS_MAX; i++)
        had_metrics |= (S.metric_users[i] ? 1u : 0u) << i;
    S.gpm_users -= wants_gpm(need);
    count_metrics(need, -1);
    S.pcie_users -= wants_pcie(need);
    for (int i = 0; i < PERFQ_GPM_METRICS_MAX; i++)
        has_metrics |= (S.metric_users[i] ? 1u : 0u) << i;
    /* What nobody reads any more is still read for the linger, as is the thread kept. */
    if (now >= S.keep_until)
        S.keep_gpm = S.keep_pcie = 0, S.keep_metrics = 0;
    S.keep_gpm |= had_gpm && !S.gpm_users;
    S.keep_pcie |= had_pcie && !S.pcie_users;
    S.keep_metrics |= had_metrics & ~has_metrics;
    S.keep_until = now + S.linger_ns;
    S.users--;
    pthread_cond_broadcast(&S.wake);
}

static void exit_handler(void)
{
    pthread_mutex_lock(&S.lock);
    if (!S.stop && !S.users && (S.running || S.exited))
        stop_thread_locked();
    pthread_mutex_unlock(&S.lock);
}

static pthread_once_t conds_once = PTHREAD_ONCE_INIT;

static void init_conds(void)
{
    /* Timed waits on CLOCK_MONOTONIC, the clock of every sample and anchor. */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&S.tick, &ca);
    pthread_cond_init(&S.wake, &ca);
    pthread_condattr_destroy(&ca);
    atexit(exit_handler);   /* in a shared object, also run when it is unloaded */
}

/* Whether need asks for nothing of a device beyond the driver's count. */
static int need_fits(const uint64_t need[NVML_MAX_DEVICES], unsigned device_count)
{
    for (unsigned d = device_count; d < NVML_MAX_DEVICES; d++)
        if (need[d])
            return 0;
    return 1;
}

int perfq__nvml_sampler_start(const uint64_t need[NVML_MAX_DEVICES])
{
    pthread_once(&conds_once, init_conds);
    pthread_mutex_lock(&S.lock);
    /* Another caller may be joining the thread right now: let it finish first. */
    while (S.stop)
        pthread_cond_wait(&S.tick, &S.lock);
    /* A device the driver does not have: refused before any thread is started or stopped
     * (a lingering one with other cadences keeps its history). */
    if (S.running && !need_fits(need, S.g->device_count)) {
        pthread_mutex_unlock(&S.lock);
        return -1;
    }
    uint64_t cadence[6] = {env_ms("PERFQ_NVML_FAST_MS", 20), env_ms("PERFQ_NVML_MEMORY_MS", 50),
                           env_ms("PERFQ_NVML_ENERGY_MS", 2000), env_ms("PERFQ_NVML_GPM_MS", 100),
                           env_ms("PERFQ_NVML_PCIE_MS", 1000),
                           env_ms("PERFQ_NVML_LINGER_MS", 2000)};
    /* A lingering thread with other cadences than the environment's now: a fresh one. */
    if (S.running && !S.users &&
        (cadence[0] != S.fast_ns || cadence[1] != S.memory_ns || cadence[2] != S.energy_ns ||
         cadence[3] != S.gpm_ns || cadence[4] != S.pcie_ns || cadence[5] != S.linger_ns))
        stop_thread_locked();
    if (S.exited) {   /* ended by itself after a linger: it takes no lock any more */
        pthread_join(S.thread, NULL);
        S.exited = 0;
    }
    int rc = 0;
    if (!S.running) {
        char reason[8];
        const struct nvml_global *g;
        if (perfq__nvml_acquire(&g, reason, sizeof(reason))) {
            pthread_mutex_unlock(&S.lock);
            return -1;
        }
        if (!need_fits(need, g->device_count)) {
            perfq__nvml_release();
            pthread_mutex_unlock(&S.lock);
            return -1;
        }
        S.g = g;
        memset(S.dev, 0, sizeof(S.dev));
        for (unsigned d = 0; d < g->device_count; d++)
            for (int i = 0; g->dev[d].gpm_supported && i < 2; i++)
                if (g->fn.nvmlGpmSampleAlloc(&S.dev[d].gpm[i]) != NVML_SUCCESS)
                    rc = -1;
        S.fast_ns = cadence[0];
        S.memory_ns = cadence[1];
        S.energy_ns = cadence[2];
        S.gpm_ns = cadence[3];
        S.pcie_ns = cadence[4];
        S.linger_ns = cadence[5];
        S.keep_until = 0;
        S.keep_gpm = S.keep_pcie = 0;
        S.keep_metrics = 0;
        unsigned hist_cap = (unsigned)(HISTORY_S * 1000000000ull / S.fast_ns) + 2;
        for (unsigned d = 0; d < g->device_count; d++)
            if (perfq__nvml_history_init(&S.dev[d].hist, hist_cap))
                rc = -1;
        S.stop = 0;
        if (rc == 0 && pthread_create(&S.thread, NULL, sampler_main, NULL) != 0)
            rc = -1;
        if (rc) {
            for (unsigned d = 0; d < g->device_count; d++) {
                for (int i = 0; i < 2; i++)
                    if (S.dev[d].gpm[i])
                        g->fn.nvmlGpmSampleFree(S.dev[d].gpm[i]);
                perfq__nvml_history_free(&S.dev[d].hist);
            }
            S.g = NULL;
            perfq__nvml_release();
            pthread_mutex_unlock(&S.lock);
            return -1;
        }
        S.running = 1;
    }
    S.users++;
    S.gpm_users += wants_gpm(need);
    count_metrics(need, 1);
    S.pcie_users += wants_pcie(need);
    pthread_cond_broadcast(&S.wake);
    /* Wait for a first sample of every channel asked for: begin can then interpolate. The
     * slowest first sample is a PCIe pair (about 40 ms per device) or a GPM sample. */
    struct timespec until;
    deadline_in(&until, 3000000000u);
    while (!all_primed(need) && rc == 0)
        if (pthread_cond_timedwait(&S.tick, &S.lock, &until) == ETIMEDOUT)
            rc = -1;
    if (rc)
        stop_locked(need);
    pthread_mutex_unlock(&S.lock);
    return rc;
}

void perfq__nvml_sampler_stop(const uint64_t need[NVML_MAX_DEVICES])
{
    pthread_mutex_lock(&S.lock);
    if (S.users)
        stop_locked(need);
    pthread_mutex_unlock(&S.lock);
}

static void unlink_locked(struct nvml_anchor *a)
{
    for (struct nvml_anchor **l = &S.pending; *l; l = &(*l)->next)
        if (*l == a) {
            *l = a->next;
            break;
        }
    a->posted = 0;
}

void perfq__nvml_anchor_post(struct nvml_anchor *a, int is_end)
{
    pthread_mutex_lock(&S.lock);
    if (a->posted)
        unlink_locked(a);
    a->t = perfq__nvml_now();
    a->is_end = is_end;
    for (unsigned d = 0; d < NVML_MAX_DEVICES; d++) {
        a->pending[d] = a->need[d];
        a->failed[d] = 0;
        a->age[d] = 0;
        for (int c = 0; S.g && d < S.g->device_count && c < CH_COUNT; c++)
            if (S.g->dev[d].reason[c])
                a->pending[d] &= ~CH_BIT(c);
        if (S.g && d < S.g->device_count) {
            a->failed[d] = a->pending[d] & S.dev[d].refused;
            a->pending[d] &= ~S.dev[d].refused;
        }
    }
    a->next = S.pending;
    S.pending = a;
    a->posted = 1;
    pthread_mutex_unlock(&S.lock);
}

/* Gauges read more slowly than the fast ones, which a result does not wait for. */
#define CH_SLOW_MASK (CH_PCIE_MASK | CH_BIT(CH_MEM_USED))

/* Resolved, but for the slow gauges, which hold_slow() completes. */
static int anchor_done(const struct nvml_anchor *a)
{
    for (unsigned d = 0; d < NVML_MAX_DEVICES; d++)
        if (a->pending[d] & ~CH_SLOW_MASK)
            return 0;
    return 1;
}

/* A slow gauge still pending at an anchor: its newest read held from its time to the
 * anchor's (the anchor is after it, or the read would have resolved it). */
static void hold_slow(struct nvml_anchor *a)
{
    for (unsigned d = 0; S.g && d < S.g->device_count; d++)
        for (uint64_t bits = a->pending[d] & CH_SLOW_MASK; bits; bits &= bits - 1) {
            int c = __builtin_ctzll(bits);
            a->value[d][c] = integral_hold(&S.dev[d].ch[c], a->t);
            a->pending[d] &= ~CH_BIT(c);
        }
}

int perfq__nvml_anchor_wait(struct nvml_anchor *a, int wait)
{
    pthread_mutex_lock(&S.lock);
    struct timespec until;
    /* The slowest channel waited for resolves at its next sample: a GPM period (or a fast
     * one), plus slack; a PCIe read blocks the fast samples about 20 ms per device. */
    deadline_in(&until, (S.gpm_ns > S.fast_ns ? S.gpm_ns : S.fast_ns) + 2000000000u);
    int rc = 0;
    while (!anchor_done(a)) {
        if (!wait || !S.running) {
            rc = S.running ? 1 : -1;
            break;
        }
        if (pthread_cond_timedwait(&S.tick, &S.lock, &until) == ETIMEDOUT) {
            rc = anchor_done(a) ? 0 : -1;
            break;
        }
    }
    if (rc == 0)
        hold_slow(a);
    if (rc == 0 && a->posted)
        unlink_locked(a);
    pthread_mutex_unlock(&S.lock);
    return rc;
}

void perfq__nvml_anchor_cancel(struct nvml_anchor *a)
{
    pthread_mutex_lock(&S.lock);
    if (a->posted)
        unlink_locked(a);
    pthread_mutex_unlock(&S.lock);
}

void perfq__nvml_read_now(const struct nvml_anchor *begin, struct nvml_anchor *begin_now,
                          struct nvml_anchor *now)
{
    /* The hot path of sample(): no NVML call and no clock read. The interval ends at the
     * newest fast sample (of the session's devices, the oldest such): nothing is
     * extrapolated past what the sampler has seen. */
    pthread_mutex_lock(&S.lock);
    uint64_t x = UINT64_MAX;
    for (unsigned d = 0; S.g && d < S.g->device_count; d++)
        if (begin->need[d] && S.dev[d].ch[CH_SAMPLES].t < x)
            x = S.dev[d].ch[CH_SAMPLES].t;
    now->t = x;
    begin_now->t = begin->t;
    for (unsigned d = 0; S.g && d < S.g->device_count; d++) {
        uint64_t need = begin->need[d], has = 0;
        if (!need)
            continue;
        struct device_state *ds = &S.dev[d];
        for (uint64_t bits = need; bits; bits &= bits - 1) {
            int c = __builtin_ctzll(bits);
            const struct channel *ch = &ds->ch[c];
            int counting = (CH_COUNT_MASK & CH_BIT(c)) != 0;
            has |= ch->has_value ? CH_BIT(c) : 0;
            if (c == CH_ENERGY)
                now->value[d][c] = ds->energy_mj / 1000.0 +
                                   (integral_hold(&ds->ch[CH_POWER], x) - ds->energy_power_i);
            else
                now->value[d][c] = counting ? ch->integral : integral_hold(ch, x);
            if (!(begin->pending[d] & CH_BIT(c)))
                begin_now->value[d][c] = begin->value[d][c];
            else if (c == CH_ENERGY)
                begin_now->value[d][c] = ds->energy_mj / 1000.0 +
                    (integral_hold(&ds->ch[CH_POWER], begin->t) - ds->energy_power_i);
            else   /* begin not resolved yet: the newest sample held (x < begin: no interval) */
                begin_now->value[d][c] = counting ? ch->integral : integral_hold(ch, begin->t);
        }
        const struct channel *p = &ds->ch[CH_POWER];
        now->age[d] = x > p->t ? x - p->t : 0;   /* the end is a sample: 0 unless power lags */
        begin_now->age[d] = begin->age[d];
        now->failed[d] = 0;
        begin_now->failed[d] = begin->failed[d];
        now->need[d] = has;   /* channels with a value, for "not counted" */
    }
    pthread_mutex_unlock(&S.lock);
}

/* Intervals in the past, from the history (nvml_interval.h). */

static void hold_need(unsigned d, uint64_t need[NVML_MAX_DEVICES])
{
    memset(need, 0, NVML_MAX_DEVICES * sizeof(need[0]));
    need[d] = CH_BIT(CH_POWER) | CH_BIT(CH_SM_CLOCK) | CH_BIT(CH_MEM_CLOCK);
}

int perfq__nvml_interval_hold(unsigned d)
{
    uint64_t need[NVML_MAX_DEVICES];
    if (d >= NVML_MAX_DEVICES)
        return -1;
    hold_need(d, need);
    if (perfq__nvml_sampler_start(need))
        return -1;
    pthread_mutex_lock(&S.lock);
    int usable = S.g && d < S.g->device_count && !S.g->dev[d].reason[CH_POWER] &&
                 !S.g->dev[d].reason[CH_SM_CLOCK] && !S.g->dev[d].reason[CH_MEM_CLOCK];
    pthread_mutex_unlock(&S.lock);
    if (!usable)
        perfq__nvml_sampler_stop(need);
    return usable ? 0 : -1;
}

void perfq__nvml_interval_release(unsigned d)
{
    uint64_t need[NVML_MAX_DEVICES];
    if (d >= NVML_MAX_DEVICES)
        return;
    hold_need(d, need);
    perfq__nvml_sampler_stop(need);
}

static int interval_locked(unsigned d, uint64_t a, uint64_t b, struct perfq_nvml_interval *out)
{
    const struct nvml_history *h = &S.dev[d].hist;
    int rc = perfq__nvml_history_interval(h, HIST_POWER, a, b, &out->energy_j, &out->power_w,
                                          &out->samples);
    if (rc == HIST_OK)
        rc = perfq__nvml_history_interval(h, HIST_SM_CLOCK, a, b, NULL, &out->sm_clock_hz, NULL);
    if (rc == HIST_OK)
        rc = perfq__nvml_history_interval(h, HIST_MEM_CLOCK, a, b, NULL, &out->mem_clock_hz,
                                          NULL);
    return rc;
}

int perfq__nvml_interval_read(unsigned d, uint64_t a, uint64_t b, int wait,
                              struct perfq_nvml_interval *out)
{
    if (b < a)
        return -1;
    pthread_mutex_lock(&S.lock);
    if (!S.running || !S.users || !S.g || d >= S.g->device_count) {
        pthread_mutex_unlock(&S.lock);
        return -1;
    }
    /* The sample after b comes within a fast period of b (or of now, when b is past);
     * an end far in the future is a clock that does not match: no wait beyond a second. */
    uint64_t now = perfq__nvml_now();
    uint64_t until_ns = (b > now ? (b - now < 1000000000u ? b : now + 1000000000u) : now) +
                        S.fast_ns + 1000000000u;
    struct timespec until = {(time_t)(until_ns / 1000000000u), (long)(until_ns % 1000000000u)};
    int rc;
    while ((rc = interval_locked(d, a, b, out)) == HIST_PENDING && wait && S.running)
        if (pthread_cond_timedwait(&S.tick, &S.lock, &until) == ETIMEDOUT) {
            rc = interval_locked(d, a, b, out);
            break;
        }
    pthread_mutex_unlock(&S.lock);
    if (rc == HIST_PENDING)
        return wait ? -1 : 1;
    return rc == HIST_OK ? 0 : -1;
}
