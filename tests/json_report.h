/* Reading perfq's JSON reports in cmocka tests: a value by its dotted path ("frames.count").
 * Include after <cmocka.h> and json-c's <json.h>; a path that is not there fails the test. */
#ifndef PERFQ_TESTS_JSON_REPORT_H
#define PERFQ_TESTS_JSON_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline json_object *get(json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
        json_object *next = NULL;
        if (!json_object_object_get_ex(o, k, &next))
            fail_msg("no '%s' in the report (%s)", k, path);
        o = next;
    }
    return o;
}

static inline int64_t get_int(json_object *o, const char *path)
{
    return json_object_get_int64(get(o, path));
}

#endif
