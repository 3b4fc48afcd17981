/* SPDX-License-Identifier: MIT */
/* case_def.c: owns the strides of a case definition's label and metric arrays: the one reader
 * of a caller's elements (see case_def.h). It must not judge what an element holds (names,
 * keys, modes): bench_case does that on what these return. */
#include <stdint.h>

#include "case_def.h"

/* The first released size of bench_case_def ends at `iterations`; 0.3.0 appended the two
 * strides and nothing else. The element types still have their first released layouts (a field
 * appended to one must start at or after its first released stride). */
_Static_assert(BENCH_CASE_DEF_SIZE_V1 == offsetof(struct bench_case_def, label_size),
               "bench_case_def: label_size is the first field after the first released size");
_Static_assert(offsetof(struct bench_case_def, metric_size) + sizeof(uint32_t) ==
                   sizeof(struct bench_case_def),
               "bench_case_def ends at metric_size");
_Static_assert(BENCH_LABEL_SIZE_V1 == sizeof(struct bench_label), "bench_label v1 stride");
_Static_assert(BENCH_METRIC_SIZE_V1 == sizeof(struct bench_metric), "bench_metric v1 stride");

enum bench__abi_verdict bench__case_label(const struct bench_case_def *def, size_t i,
                                          struct bench_label *out)
{
    return bench__abi_element(def->labels, def->label_size, i, BENCH_LABEL_SIZE_V1, sizeof *out,
                              out);
}

enum bench__abi_verdict bench__case_metric(const struct bench_case_def *def, size_t i,
                                           struct bench_metric *out)
{
    return bench__abi_element(def->metrics, def->metric_size, i, BENCH_METRIC_SIZE_V1, sizeof *out,
                              out);
}

/* The sentence for a refused element of the label (which 0) or metric (1) array. */
static const char *element_problem(enum bench__abi_verdict verdict, int which)
{
    static const char *const problems[2][3] = {
        {"label_size is below the first released size of struct bench_label",
         "a label has fields this libbench does not know",
         "label_size is above 4096 bytes, the most a libbench struct may have"},
        {"metric_size is below the first released size of struct bench_metric",
         "a metric has fields this libbench does not know",
         "metric_size is above 4096 bytes, the most a libbench struct may have"}};
    switch (verdict) {
    case BENCH__ABI_ACCEPTED: return NULL;
    case BENCH__ABI_TOO_SMALL: return problems[which][0];
    case BENCH__ABI_UNKNOWN_TAIL: return problems[which][1];
    case BENCH__ABI_TOO_LARGE: return problems[which][2];
    }
    return problems[which][1];
}

const char *bench__case_elements_problem(const struct bench_case_def *def)
{
    const char *problem = NULL;
    struct bench_label label;
    struct bench_metric metric;
    for (size_t i = 0; i < def->n_labels && !problem; i++)
        problem = element_problem(bench__case_label(def, i, &label), 0);
    for (size_t i = 0; i < def->n_metrics && !problem; i++)
        problem = element_problem(bench__case_metric(def, i, &metric), 1);
    return problem;
}
