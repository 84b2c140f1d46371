/*
 * The fuzzers' input reader: the bytes libFuzzer gives are read as a sequence of calls, each an
 * operation byte then its arguments. Reading past the end yields zeros, so every input is a
 * valid program. FUZZ_CHECK fails loudly (abort: libFuzzer saves the input) when what the
 * extension's spec or perfq's documented decision says does not hold; sanitizers catch the rest.
 */
#ifndef PERFQ_TESTS_FUZZ_INPUT_H
#define PERFQ_TESTS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fz {
    const uint8_t *p;
    size_t n;
};

static inline int fz_more(const struct fz *f)
{
    return f->n > 0;
}

static inline uint8_t fz_u8(struct fz *f)
{
    if (!f->n)
        return 0;
    f->n--;
    return *f->p++;
}

static inline uint32_t fz_u32(struct fz *f)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)fz_u8(f) << (8 * i);
    return v;
}

static inline uint64_t fz_u64(struct fz *f)
{
    uint64_t lo = fz_u32(f);
    return lo | (uint64_t)fz_u32(f) << 32;
}

/* A small number (0..max) most of the time, an arbitrary 32-bit one sometimes: sizes and
 * counts that are near the edges. */
static inline int32_t fz_size(struct fz *f, int32_t max)
{
    uint8_t sel = fz_u8(f);
    if (sel < 200)
        return (int32_t)(fz_u8(f) % (uint32_t)(max + 1));
    if (sel < 230)
        return -(int32_t)(fz_u8(f) % 4) - 1;
    return (int32_t)fz_u32(f);
}

/* Up to max bytes into buf, NUL-terminated (buf has max + 1 bytes). */
static inline size_t fz_str(struct fz *f, char *buf, size_t max)
{
    size_t len = fz_u8(f);
    if (len > max)
        len = max;
    if (len > f->n)
        len = f->n;
    memcpy(buf, f->p, len);
    buf[len] = '\0';
    f->p += len;
    f->n -= len;
    return len;
}

#define FUZZ_CHECK(cond, ...)                                                       \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* A canary after a caller-sized buffer: nothing may be written past the size it was given. */
#define FUZZ_CANARY 0xA5
static inline int fz_canary_intact(const void *buf, size_t from, size_t to)
{
    const uint8_t *b = buf;
    for (size_t i = from; i < to; i++)
        if (b[i] != FUZZ_CANARY)
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
