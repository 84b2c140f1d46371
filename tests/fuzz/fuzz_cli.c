/*
 * perfq's command line and environment, in process: `perfq stat`'s arguments
 * (tools/perfq/stat_args.c) from arbitrary argument vectors, counter names as the CLI resolves
 * them (cli_find_counter: "did you mean", ambiguity), JSON strings of arbitrary bytes (json.c:
 * non-UTF-8 as U+FFFD), PERFQ_DISABLE read by perfq_open, PERFQ_LAYER_DIR read by the layer
 * injection (layers.c; the environment it edits is restored after each input). Checked: parsing
 * succeeds only with a command inside argv, an interval of 10..3600000 ms and not both --json
 * and --csv; the JSON written is valid UTF-8 between quotes; sanitizers check the rest.
 */
#include <unistd.h>

#include "fuzz_input.h"
#include "perfq/perfq.h"
#include "../../tools/perfq/cli.h"
#include "../../tools/perfq/stat_args.h"

static perfq_t *pq;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (perfq_open(&pq) != PERFQ_OK || !(devnull = fopen("/dev/null", "w")))
        abort();
    /* The CLI's messages (thousands a second) go to stderr: the test runs this fuzzer with
     * -close_fd_mask=2 (libFuzzer and the sanitizers keep a copy of stderr for reports). */
    return 0;
}

/* Splits the input at NUL bytes into at most 32 arguments after "stat". */
static void stat_args(struct fz *f)
{
    char *copy = malloc(f->n + 1);
    memcpy(copy, f->p, f->n);
    copy[f->n] = '\0';
    char *argv[34];
    int argc = 0;
    argv[argc++] = "stat";
    for (char *p = copy; argc < 33 && p < copy + f->n + 1; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    struct stat_options o;
    memset(&o, 0, sizeof o);
    int rc = stat_parse_args(argc, argv, &o);
    if (rc == 0) {
        FUZZ_CHECK(o.cmd >= argv + 1 && o.cmd < argv + argc && *o.cmd, "command outside argv");
        FUZZ_CHECK(o.interval_ms == 0 || (o.interval_ms >= 10 && o.interval_ms <= 3600000),
                   "interval %u", o.interval_ms);
        FUZZ_CHECK(!(o.json && o.csv), "--json with --csv accepted");
        FUZZ_CHECK(!(o.csv && o.interval_ms), "--csv with -I accepted");
        if (o.events) {   /* each name as the CLI resolves it */
            char *save = NULL;
            int names = 0;
            for (char *t = strtok_r(o.events, ",", &save); t && names < 8;
                 t = strtok_r(NULL, ",", &save), names++) {
                perfq_counter_id_t id = UINT32_MAX;
                if (cli_find_counter(pq, t, &id) == 0) {
                    uint32_t n = 0;
                    perfq_counter_count(pq, &n);
                    FUZZ_CHECK(id < n, "found id %u", id);
                }
            }
        }
    }
    free(o.events);
    free(copy);
}

/* Valid UTF-8 (no overlongs, no surrogates, at most U+10FFFF). */
static int utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                     : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (!len || i + len > n)
            return 0;
        unsigned cp = len == 1 ? c : c & (0x7F >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

static void json(struct fz *f)
{
    char in[1025];
    size_t n = f->n < 1024 ? f->n : 1024;
    memcpy(in, f->p, n);
    in[n] = '\0';
    char *out = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&out, &size);
    json_string(m, in);
    fclose(m);
    FUZZ_CHECK(size >= 2 && out[0] == '"' && out[size - 1] == '"', "not a JSON string");
    FUZZ_CHECK(utf8_valid((const unsigned char *)out, size), "JSON string is not UTF-8");
    for (size_t i = 1; i + 1 < size; i++)
        FUZZ_CHECK((unsigned char)out[i] >= 0x20, "raw control byte 0x%x in JSON", out[i]);
    free(out);
}

static void env_disable(struct fz *f)
{
    char v[257];
    fz_str(f, v, 256);
    setenv("PERFQ_DISABLE", v, 1);
    perfq_t *p = NULL;
    FUZZ_CHECK(perfq_open(&p) == PERFQ_OK, "perfq_open with PERFQ_DISABLE=%s", v);
    uint32_t n = 0;
    perfq_counter_count(p, &n);
    FUZZ_CHECK(n > 0, "empty catalog");
    perfq_close(&p);
    unsetenv("PERFQ_DISABLE");
}

static void env_layer_dir(struct fz *f)
{
    char v[513];
    fz_str(f, v, 512);
    const char *pre = getenv("LD_PRELOAD"), *ocl = getenv("OPENCL_LAYERS");
    char *pre0 = pre ? strdup(pre) : NULL, *ocl0 = ocl ? strdup(ocl) : NULL;
    setenv("PERFQ_LAYER_DIR", v, 1);
    (void)layers_inject(fz_u8(f) & 1);
    if (pre0)
        setenv("LD_PRELOAD", pre0, 1);
    else
        unsetenv("LD_PRELOAD");
    if (ocl0)
        setenv("OPENCL_LAYERS", ocl0, 1);
    else
        unsetenv("OPENCL_LAYERS");
    unsetenv("PERFQ_LAYER_DIR");
    free(pre0);
    free(ocl0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    switch (fz_u8(&f) % 4) {
    case 0: stat_args(&f); break;
    case 1: json(&f); break;
    case 2: env_disable(&f); break;
    default: env_layer_dir(&f); break;
    }
    return 0;
}
