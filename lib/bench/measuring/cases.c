/* SPDX-License-Identifier: MIT */
/* cases.c: owns bench_case: checking a definition (on a normalized copy: a field beyond the
 * caller's size reads as zero; under --bench also against the run's other rows, identity.c),
 * running it inertly outside --bench, and queueing it (state copied) to be measured after its
 * body returns. BENCH_ENOMEM, not an abort, when the registration cannot be stored. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../../suite/case_def.h"
#include "../../util/abi.h"
#include "../../util/alloc.h"
#include "../../util/text.h"
#include "measure.h"

/* ---- bench_case ------------------------------------------------------------------------- */

static bool has_separator(const char *s)
{
    return s && strchr(s, '\x1f') != NULL;
}

static int compare_kv(const void *a, const void *b)
{
    return strcmp(((const struct bench__kv *)a)->key, ((const struct bench__kv *)b)->key);
}

/* Why a definition is refused, or NULL. `raw` is the caller's definition; when its size is
 * accepted, `def` receives the normalized copy (its size set to this library's sizeof), which
 * every later check, and the caller, reads; otherwise `def` is not written. */
static const char *check_case(const struct bench_case_def *raw, struct bench_case_def *def,
                              int *code)
{
    *code = BENCH_ESTRUCT;
    switch (bench__abi_normalize(raw, raw->size, BENCH_CASE_DEF_SIZE_V1, sizeof *def, def)) {
    case BENCH__ABI_TOO_SMALL:
        return "the case definition is smaller than the first released one (use BENCH_CASE_DEF)";
    case BENCH__ABI_UNKNOWN_TAIL:
        return "the case definition has fields this libbench does not know";
    case BENCH__ABI_TOO_LARGE:
        return "the case definition's size is above 4096 bytes, the most a libbench struct may "
               "have (use BENCH_CASE_DEF)";
    case BENCH__ABI_ACCEPTED: break;
    }
    def->size = sizeof *def;
    *code = BENCH_ENAME;
    if (!def->name || !*def->name)
        return "a case needs a non-empty name";
    if (has_separator(def->name))
        return "the case name contains the 0x1F separator";
    *code = BENCH_EINVAL;
    if (!def->timed)
        return "a case needs a timed function";
    if ((def->n_labels && !def->labels) || (def->n_metrics && !def->metrics) ||
        (def->state_size && !def->state))
        return "a count is given with a NULL array";
    *code = BENCH_ESTRUCT; /* every element readable through its stride before any is judged */
    const char *unreadable = bench__case_elements_problem(def);
    if (unreadable)
        return unreadable;
    struct bench_label l, other;
    struct bench_metric metric;
    *code = BENCH_ENAME;
    for (size_t i = 0; i < def->n_labels; i++) {
        bench__case_label(def, i, &l);
        if (!l.key || !*l.key || !l.value)
            return "a label has no key or no value";
        if (has_separator(l.key) || has_separator(l.value))
            return "a label contains the 0x1F separator";
    }
    *code = BENCH_EDUP;
    for (size_t i = 0; i < def->n_labels; i++) {
        bench__case_label(def, i, &l);
        for (size_t j = 0; j < i; j++) {
            bench__case_label(def, j, &other);
            if (bench__utf8_same(l.key, other.key))
                return "two labels have the same key";
        }
    }
    *code = BENCH_EINVAL;
    for (size_t i = 0; i < def->n_metrics; i++) {
        bench__case_metric(def, i, &metric);
        if (!metric.unit || !*metric.unit ||
            (metric.mode != BENCH_RATE && metric.mode != BENCH_LEVEL))
            return "a metric has no unit or an unknown mode";
    }
    *code = 0;
    return NULL;
}

/* Outside --bench: setup, timed once, after, teardown, now; a failing after fails. */
static int run_case_inert(bench_t *b, const struct bench_case_def *def)
{
    void *state = def->state_size ? bench__try_malloc(def->state_size) : NULL;
    if (def->state_size && !state)
        return BENCH_ENOMEM;
    if (state)
        memcpy(state, def->state, def->state_size);
    if (def->setup)
        def->setup(state);
    def->timed(state);
    const char *message = NULL;
    int failed = def->after ? def->after(state, &message) : 0;
    if (def->teardown)
        def->teardown(state);
    free(state);
    if (failed) {
        char *line = bench__first_line(message, "after failed");
        char text[512];
        bench__fmt(text, sizeof text, "%s: %s", def->name, line);
        free(line);
        bench_fail(b, "%s", text);
    }
    return 0;
}

/* A copy of s with every 0x1F made printable ('?'); NULL when out of memory. */
static char *printable_copy(const char *s)
{
    char *d = bench__try_strdup(s);
    for (char *c = d; c && *c; c++)
        if (*c == '\x1f')
            *c = '?';
    return d;
}

/* Label i, readable and with a key and a value, whose key no earlier such label has (as the
 * document writes keys); false for any other. */
static bool label_kept(const struct bench_case_def *def, size_t i, struct bench_label *l)
{
    if (bench__case_label(def, i, l) != BENCH__ABI_ACCEPTED || !l->key || !l->value)
        return false;
    struct bench_label earlier;
    for (size_t j = 0; j < i; j++)
        if (bench__case_label(def, j, &earlier) == BENCH__ABI_ACCEPTED && earlier.key &&
            earlier.value && bench__utf8_same(l->key, earlier.key))
            return false;
    return true;
}

/* Labels copied and sorted by key; labels that cannot be read through the stride, without a
 * key or a value, and a label whose key an earlier one has, are left out (a refused case keeps
 * what it can). 0 or BENCH_ENOMEM. */
static int copy_labels(struct bench__pending *p, const struct bench_case_def *def)
{
    size_t n = def->n_labels;
    p->labels = bench__try_calloc(n + 1, sizeof *p->labels);
    if (!p->labels)
        return BENCH_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        struct bench_label label;
        if (!label_kept(def, i, &label))
            continue;
        struct bench__kv *kv = &p->labels[p->n_labels++];
        kv->key = printable_copy(label.key);
        kv->value = printable_copy(label.value);
        if (!kv->key || !kv->value)
            return BENCH_ENOMEM;
    }
    qsort(p->labels, p->n_labels, sizeof *p->labels, compare_kv);
    return 0;
}

/* A case refused at registration: it stays visible as an error row with the reason. */
static int store_refused(struct bench__measure *m, struct bench__pending *p,
                         const struct bench_case_def *def, const char *problem)
{
    /* named as an accepted case would be, 0x1F shown as '?' */
    char *name = def && def->name && *def->name ? bench__case_row_name(m->entry, def->name)
                                                : bench__try_strdup(m->entry->full_name);
    p->name = name ? printable_copy(name) : NULL;
    free(name);
    p->refused = bench__try_asprintf("registration: %s", problem);
    if (!p->name || !p->refused)
        return BENCH_ENOMEM;
    /* a definition refused for its size is the caller's own: read only when its size is in
     * range (then it holds every field this library knows) */
    if (def && def->size >= BENCH_CASE_DEF_SIZE_V1 && def->size <= BENCH__ABI_MAX_SIZE &&
        def->labels)
        return copy_labels(p, def);
    return 0;
}

/* `name` (bench__case_row_name) is the pending case's from now on. */
static int store_case(struct bench__measure *m, struct bench__pending *p,
                      const struct bench_case_def *def, char *name)
{
    p->name = name;
    p->metrics = bench__try_calloc(def->n_metrics + 1, sizeof *p->metrics);
    p->state = def->state_size ? bench__try_malloc(def->state_size) : NULL;
    if (!p->name || !p->metrics || (def->state_size && !p->state) || copy_labels(p, def) != 0)
        return BENCH_ENOMEM;
    if (def->state_size)
        memcpy(p->state, def->state, def->state_size);
    for (size_t i = 0; i < def->n_metrics; i++) {
        struct bench_metric metric;
        bench__case_metric(def, i, &metric); /* accepted by check_case */
        const struct bench__column_desc *column =
            bench__client_column(m, metric.unit, (enum bench_metric_mode)metric.mode);
        if (!column)
            return BENCH_ENOMEM;
        p->metrics[i] =
            (struct bench__metric_def){column, metric.amount, (enum bench_metric_mode)metric.mode};
    }
    p->n_metrics = def->n_metrics;
    p->setup = def->setup;
    p->timed = def->timed;
    p->after = def->after;
    p->teardown = def->teardown;
    p->iterations = def->iterations;
    return 0;
}

int bench_case(bench_t *b, const struct bench_case_def *def)
{
    if (!b)
        b = bench__current; /* like bench_fail and bench_skip: NULL is the running test */
    struct bench__measure *m = b ? b->measure : NULL;
    if (m && m->count.active)
        return 0; /* a counting re-run of the body: the case is registered already */
    int code = BENCH_EINVAL;
    /* The normalized definition; its size stays 0 unless check_case accepted the caller's. */
    struct bench_case_def copy = {.size = 0};
    const char *problem = def ? check_case(def, &copy, &code) : "the case definition is NULL";
    if (copy.size)
        def = &copy;
    if (m && bench__rounds_early(m)) { /* per-call rows are measured in the last round only */
        m->registered = true;
        return problem ? code : 0;
    }
    if (!m) {
        if (problem)
            return code;
        return run_case_inert(b, def);
    }
    m->registered = true;
    /* one cell per row: a case the run has already, or named like a BENCHMARK's rows, is
     * refused (the earlier row keeps the cell) */
    char *clash = NULL, *name = NULL;
    if (!problem) {
        name = bench__case_row_name(m->entry, def->name);
        if (!name || bench__case_clash(m, name, def, &clash) != 0) {
            free(name);
            return BENCH_ENOMEM;
        }
        if (clash) {
            problem = clash;
            code = BENCH_EDUP;
        }
    }
    if (m->n_pending == m->cap_pending) {
        size_t cap = m->cap_pending ? 2 * m->cap_pending : 16;
        struct bench__pending *grown = bench__try_realloc(m->pending, cap * sizeof *grown);
        if (!grown) {
            free(clash);
            free(name);
            return BENCH_ENOMEM;
        }
        m->pending = grown;
        m->cap_pending = cap;
    }
    struct bench__pending *p = &m->pending[m->n_pending];
    memset(p, 0, sizeof *p);
    p->entry = m->entry;
    int stored = problem ? store_refused(m, p, def, problem) : store_case(m, p, def, name);
    if (problem)
        free(name);
    free(clash);
    if (stored == 0)
        stored = bench__case_claim(m, p); /* a refused row, too, has a cell of its own */
    if (stored != 0) {
        bench__pending_free(p);
        return stored;
    }
    m->n_pending++;
    return problem ? code : 0;
}

void bench__labels_free(struct bench__kv *labels, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(labels[i].key);
        free(labels[i].value);
    }
    free(labels);
}

void bench__pending_free(struct bench__pending *p)
{
    free(p->name);
    bench__labels_free(p->labels, p->n_labels);
    free(p->metrics);
    free(p->state);
    free(p->refused);
    free(p->group);
}
