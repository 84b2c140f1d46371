/* Minimal JSON string writer for the CLI's --json output (RFC 8259 escaping).
 *
 * JSON text is UTF-8 (RFC 8259 section 8.1), but a command's arguments are bytes. Bytes that
 * are not well-formed UTF-8 (Unicode 15, table 3-7: no overlong forms, no surrogates, nothing
 * above U+10FFFF) are written as U+FFFD REPLACEMENT CHARACTER ("\ufffd"), one per maximal
 * ill-formed subsequence as the Unicode standard recommends (section 3.9, U+FFFD substitution
 * of maximal subparts): the output is always valid JSON, and a reader sees where bytes were
 * lost. Well-formed multibyte sequences are copied as they are. */
#include "cli.h"

/* The length of the well-formed UTF-8 sequence at p (1..4), or 0 when p starts an ill-formed
 * one; *skip is then the length of its maximal subpart (at least 1). */
static size_t utf8_sequence(const unsigned char *p, size_t *skip)
{
    unsigned char c = p[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;   /* range of the second byte (table 3-7) */
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;                    /* no overlong forms */
        if (c == 0xed)
            hi = 0x9f;                    /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        if (c == 0xf4)
            hi = 0x8f;                    /* nothing above U+10FFFF */
    } else {
        *skip = 1;                        /* 0x80..0xc1, 0xf5..0xff: never a lead byte */
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        unsigned char min = i == 1 ? lo : 0x80, max = i == 1 ? hi : 0xbf;
        if (p[i] < min || p[i] > max) {   /* also stops at the terminating NUL */
            *skip = i;
            return 0;
        }
    }
    return len;
}

void json_string(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t skip = 0, len = utf8_sequence(p, &skip);
        if (len == 0) {
            fputs("\\ufffd", out);
            p += skip;
            continue;
        }
        if (len > 1) {
            fwrite(p, 1, len, out);
            p += len;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
        p++;
    }
    fputc('"', out);
}
