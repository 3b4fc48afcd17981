/* SPDX-License-Identifier: MIT */
/* profile_json.h: a row's profile as the "profile" object of the --bench-json document. */
#ifndef BENCH_REPORT_PROFILE_JSON_H
#define BENCH_REPORT_PROFILE_JSON_H

#include <jansson.h>

#include "../model/profile.h"
#include "../util/hidden.h"

/* A new object (NULL when out of memory). */
BENCH__HIDDEN json_t *bench__profile_json(const struct bench__profile *p);

#endif /* BENCH_REPORT_PROFILE_JSON_H */
