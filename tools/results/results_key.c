/* SPDX-License-Identifier: MIT */
/* results_key.c: owns the names of the results store (docs/reference/results.md, "The store"):
 * an object's key and its parts read back, the record time, profile names, subject roles and
 * source facts (SHA-256 is common/sha256.c's). Pure: no file, no index. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results_tool.h"
#include "common/json.h"
#include "util/alloc.h"

static bool digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

bool results_time_parse(const char *text, int64_t *epoch)
{
    int y, mo, d, h, mi, s;
    if (!text || strlen(text) < 20 || !digits(text, 4, &y) || text[4] != '-' ||
        !digits(text + 5, 2, &mo) || text[7] != '-' || !digits(text + 8, 2, &d) ||
        text[10] != 'T' || !digits(text + 11, 2, &h) || text[13] != ':' ||
        !digits(text + 14, 2, &mi) || text[16] != ':' || !digits(text + 17, 2, &s))
        return false;
    if (strcmp(text + 19, "Z") != 0 && strcmp(text + 19, "+00:00") != 0)
        return false;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59)
        return false;
    struct tm tm = {.tm_year = y - 1900,
                    .tm_mon = mo - 1,
                    .tm_mday = d,
                    .tm_hour = h,
                    .tm_min = mi,
                    .tm_sec = s};
    time_t t = timegm(&tm);
    struct tm back;
    if (t == (time_t)-1 || !gmtime_r(&t, &back) || back.tm_mday != d || back.tm_mon != mo - 1)
        return false; /* 2026-02-30 */
    *epoch = (int64_t)t;
    return true;
}

bool results_time_stamp(int64_t epoch, struct results_record_info *info)
{
    time_t t = (time_t)epoch;
    struct tm tm;
    if (epoch < 0 || !gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999)
        return false;
    strftime(info->bench_id, sizeof info->bench_id, "%Y%m%dT%H%M%SZ", &tm);
    strftime(info->timestamp_utc, sizeof info->timestamp_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
    strftime(info->date, sizeof info->date, "%Y-%m-%d", &tm);
    return true;
}

bool results_subject_role_ok(const char *role)
{
    static const char *const roles[] = {"baseline", "candidate", "aa_control", "reference"};
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if (!strcmp(role, roles[i]))
            return true;
    return false;
}

bool results_source_add(json_t *obj, const char *text)
{
    const char *eq = strchr(text, '=');
    size_t nl = eq ? (size_t)(eq - text) : 0, hl = eq ? strlen(eq + 1) : 0;
    if (!eq || nl == 0 || nl > 64 || hl == 0 || hl > 128)
        return false;
    for (size_t i = 0; i < nl; i++) {
        char c = text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    for (size_t i = 0; i < hl; i++)
        if (eq[1 + i] <= ' ' || eq[1 + i] > '~')
            return false;
    char name[65];
    memcpy(name, text, nl);
    name[nl] = '\0';
    json_object_set_new(obj, name, json_string(eq + 1));
    return true;
}

bool results_profile_ok(const char *profile)
{
    size_t n = strlen(profile);
    if (n == 0 || n > 64 || profile[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = profile[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

char *results_object_key(const char *profile, const char *date, const char *bench_id,
                         const char *sha256_hex)
{
    return bench__xasprintf("raw/v1/profile=%s/date=%s/bench_id=%s/sha256=%.12s/results.jsonl",
                            profile, date, bench_id, sha256_hex);
}

/* Copies the text after `prefix` up to the next '/' into buf; the position after the '/'. */
static const char *key_part(const char *s, const char *prefix, char *buf, size_t size)
{
    size_t pl = strlen(prefix);
    if (strncmp(s, prefix, pl) != 0)
        return NULL;
    s += pl;
    const char *slash = strchr(s, '/');
    if (!slash || slash == s || (size_t)(slash - s) >= size)
        return NULL;
    memcpy(buf, s, (size_t)(slash - s));
    buf[slash - s] = '\0';
    return slash + 1;
}

bool results_object_key_parse(const char *key, char profile[65], char date[11], char bench_id[17],
                              char sha12[13])
{
    const char *s = key;
    if (strncmp(s, "raw/v1/", 7) != 0)
        return false;
    s += 7;
    if (!(s = key_part(s, "profile=", profile, 65)) || !(s = key_part(s, "date=", date, 11)) ||
        !(s = key_part(s, "bench_id=", bench_id, 17)) || !(s = key_part(s, "sha256=", sha12, 13)))
        return false;
    return strcmp(s, "results.jsonl") == 0 && results_profile_ok(profile) && strlen(date) == 10 &&
           strlen(bench_id) == 16 && strlen(sha12) == 12;
}
