/*
 * GL_NV_query_resource's report decoder (src/gl/nvres/nvres_report.c; used by the tests and
 * `perfq memory`) on arbitrary int streams, and the encoder and decoder round trip: a report
 * built from the input, encoded into a buffer of an arbitrary count, decodes to what was put in.
 * Checked: the decoder never reads past n ints (ASan) and ends its walk within them; the encoder
 * writes nothing past count (canary) and writes exactly the size it returns.
 */
#include "fuzz_input.h"
#include "gl/nvres/nvres_report.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void decode_raw(const uint8_t *data, size_t size)
{
    size_t n = size / 4;
    int32_t *buf = malloc(n ? n * 4 : 1);   /* exactly n ints: ASan sees any read past */
    memcpy(buf, data, n * 4);
    struct perfq_nvres_decoded d;
    if (perfq_nvres_report_decode(buf, n, &d) == 0) {
        FUZZ_CHECK(d.ints_walked <= n, "walked %zu of %zu ints", d.ints_walked, n);
        FUZZ_CHECK(d.n_devices >= 0 && d.n_devices <= PERFQ_NVRES_DECODE_MAX_DEVICES, "devices");
        FUZZ_CHECK(d.n_tags >= 0 && d.n_tags <= PERFQ_NVRES_DECODE_MAX_TAGS, "tags");
        for (int i = 0; i < d.n_tags; i++)
            FUZZ_CHECK(memchr(d.tags[i].string, 0, sizeof d.tags[i].string) != NULL,
                       "tag string not terminated");
        perfq_nvres_decoded_free(&d);
    }
    free(buf);
}

static void round_trip(struct fz *f)
{
    struct perfq_nvres_report r;
    memset(&r, 0, sizeof r);
    static const int32_t types[] = {PERFQ_NVRES_SYS_RESERVED, PERFQ_NVRES_OBJ_TEXTURE,
                                    PERFQ_NVRES_OBJ_RENDERBUFFER, PERFQ_NVRES_OBJ_BUFFEROBJECT};
    r.vidmem_free_kib = (int32_t)(fz_u32(f) & 0x7fffffff);
    r.n_details = fz_u8(f) % 5;
    for (int i = 0; i < r.n_details; i++) {
        r.details[i].obj_type = types[i];
        r.details[i].allocs = (int32_t)(fz_u32(f) & 0xffff);
        r.details[i].kib = (int32_t)(fz_u32(f) & 0xffffff);
    }
    r.has_tag_section = fz_u8(f) & 1;
    struct perfq_nvres_report_tag tags[8];
    char strings[8][64];
    r.n_tags = r.has_tag_section ? fz_u8(f) % 9 : 0;
    for (size_t i = 0; i < r.n_tags; i++) {
        tags[i].id = (int32_t)(i + 1);
        tags[i].dev = 0;
        tags[i].allocs = (int32_t)(fz_u32(f) & 0xffff);
        tags[i].kib = (int32_t)(fz_u32(f) & 0xffffff);
        fz_str(f, strings[i], 63);
        tags[i].string = fz_u8(f) & 1 ? strings[i] : NULL;
    }
    r.tags = tags;
    int64_t need = perfq_nvres_report_size(&r);
    FUZZ_CHECK(need > 0 && need < 4096, "size %lld", (long long)need);
    uint64_t count = fz_u8(f) < 200 ? (uint64_t)need : fz_u8(f) % 512;
    int32_t buf[4096 + 16];
    memset(buf, FUZZ_CANARY, sizeof buf);
    int64_t got = perfq_nvres_report_encode(&r, buf, count < 4096 ? count : 4096);
    FUZZ_CHECK(got == need, "encode returned %lld, size %lld", (long long)got, (long long)need);
    if (count < (uint64_t)need) {
        FUZZ_CHECK(fz_canary_intact(buf, 0, sizeof buf), "a short buffer was written");
        return;
    }
    FUZZ_CHECK(fz_canary_intact(buf, (size_t)need * 4, sizeof buf), "written past the size");
    struct perfq_nvres_decoded d;
    FUZZ_CHECK(perfq_nvres_report_decode(buf, (size_t)need, &d) == 0, "own report malformed");
    FUZZ_CHECK(d.ints_walked == (size_t)need, "walked %zu of %lld", d.ints_walked,
               (long long)need);
    FUZZ_CHECK(d.n_devices == 1 && d.devices[0].n_details == r.n_details, "devices/details");
    FUZZ_CHECK(d.devices[0].free_kib == r.vidmem_free_kib, "free");
    for (int i = 0; i < r.n_details; i++)
        FUZZ_CHECK(d.devices[0].details[i].obj_type == r.details[i].obj_type &&
                       d.devices[0].details[i].allocs == r.details[i].allocs &&
                       d.devices[0].details[i].kib == r.details[i].kib, "detail %d", i);
    FUZZ_CHECK(d.has_tag_section == r.has_tag_section && (size_t)d.n_tags == r.n_tags, "tags");
    for (size_t i = 0; i < r.n_tags; i++) {
        const char *want = tags[i].string ? tags[i].string : "";
        FUZZ_CHECK(d.tags[i].id == tags[i].id && d.tags[i].allocs == tags[i].allocs &&
                       d.tags[i].kib == tags[i].kib, "tag %zu", i);
        FUZZ_CHECK(strcmp(d.tags[i].string, want) == 0, "tag %zu string", i);
    }
    perfq_nvres_decoded_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size && data[0] & 1) {
        struct fz f = {data + 1, size - 1};
        round_trip(&f);
    } else {
        decode_raw(data + (size ? 1 : 0), size ? size - 1 : 0);
    }
    return 0;
}
