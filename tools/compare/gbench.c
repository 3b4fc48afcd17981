/* SPDX-License-Identifier: MIT */
/* gbench.c: owns reading one Google Benchmark JSON document for `libbench compare`:
 * recognising it by content, its repetitions as runs, its benchmark names as cells (a name and
 * labels), its times in ns, its errors as skips. It reads no --bench-json document and compares
 * nothing. The rules are in docs/reference/cli.md ("Google Benchmark documents"). Over 600
 * lines because each rule of that format (names, aggregates, repetitions, errors) is checked
 * with its own message, in one reader. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

#define SHOWN_MAX 96          /* characters of a name echoed in an error */
#define VALUES_MAX (1u << 20) /* cells × runs of one file: a bound on what a file may cost */
#define AGGREGATES_ONLY_REASON                                                                     \
    "only aggregate rows (mean, median, ...) in the file: Google Benchmark was asked for "         \
    "aggregates only (--benchmark_report_aggregates_only or ReportAggregatesOnly)"

bool compare_gbench_is(const json_t *root)
{
    return json_is_object(root) && !json_object_get(root, "schema") &&
           (json_object_get(root, "context") || json_object_get(root, "benchmarks"));
}

/* ---- the text: bare NaN and Infinity ------------------------------------------------------ */

/* The length of a bare word Google Benchmark writes for a value that is not finite, at p. */
static size_t bare_word(const char *p, size_t left)
{
    static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
        size_t n = strlen(words[w]);
        if (left >= n && memcmp(p, words[w], n) == 0)
            return n;
    }
    return 0;
}

json_t *compare_gbench_load_lenient(const char *data, size_t len)
{
    /* each word becomes "null": only "NaN" grows, by one byte in three */
    char *text = bench__xmalloc(len + len / 3 + 8);
    size_t used = 0;
    bool in_string = false, replaced = false;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        size_t word;
        if (in_string) {
            text[used++] = c;
            if (c == '\\' && i + 1 < len)
                text[used++] = data[++i];
            else if (c == '"')
                in_string = false;
        } else if ((word = bare_word(data + i, len - i)) > 0) {
            memcpy(text + used, "null", 4);
            used += 4;
            i += word - 1;
            replaced = true;
        } else {
            in_string = c == '"';
            text[used++] = c;
        }
    }
    json_t *root = NULL;
    if (replaced) {
        json_error_t jerr;
        root = json_loadb(text, used, JSON_REJECT_DUPLICATES, &jerr);
    }
    free(text);
    if (root && !compare_gbench_is(root)) {
        json_decref(root);
        root = NULL;
    }
    return root;
}

/* ---- names: a benchmark's cell -------------------------------------------------------------- */

/* The labels Google Benchmark's own name parts map to; an argument never takes one of them. */
static const char *const reserved_keys[] = {"min_time", "min_warmup_time", "iterations", "repeats",
                                            "time",     "threads"};

static bool is_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* An argument's value as Google Benchmark prints it: an optional '-' and decimal digits. */
static bool is_integer(const char *s, size_t n)
{
    return n > 0 && (s[0] == '-' ? is_digits(s + 1, n - 1) : is_digits(s, n));
}

/* digits, or digits '.' digits (min_time:%0.3f) */
static bool is_decimal(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    if (!dot)
        return is_digits(s, n);
    return is_digits(s, (size_t)(dot - s)) && is_digits(dot + 1, n - (size_t)(dot - s) - 1);
}

struct segment {
    const char *p;
    size_t n;
};

static bool segment_is(const struct segment *s, const char *word)
{
    return s->n == strlen(word) && memcmp(s->p, word, s->n) == 0;
}

/* "prefix:VALUE" with VALUE accepted by valid: VALUE in *value. */
static bool segment_value(const struct segment *s, const char *prefix,
                          bool (*valid)(const char *, size_t), struct segment *value)
{
    size_t n = strlen(prefix);
    if (s->n <= n || memcmp(s->p, prefix, n) != 0 || !valid(s->p + n, s->n - n))
        return false;
    *value = (struct segment){s->p + n, s->n - n};
    return true;
}

static bool is_positional_key(const char *s, size_t n)
{
    return n > 3 && memcmp(s, "arg", 3) == 0 && is_digits(s + 3, n - 3);
}

static void add_label(struct compare_row *r, const char *key, size_t key_len, const char *value,
                      size_t value_len)
{
    struct compare_label *l = &r->labels[r->n_labels++];
    l->key = bench__xasprintf("%.*s", (int)key_len, key);
    l->value = bench__xasprintf("%.*s", (int)value_len, value);
}

static bool has_label(const struct compare_row *r, const char *key, size_t key_len)
{
    for (size_t k = 0; k < r->n_labels; k++)
        if (strlen(r->labels[k].key) == key_len && memcmp(r->labels[k].key, key, key_len) == 0)
            return true;
    return false;
}

static int label_order(const void *a, const void *b)
{
    return strcmp(((const struct compare_label *)a)->key, ((const struct compare_label *)b)->key);
}

/* A Google Benchmark name into a cell's name and labels. The name is built as
 *   FUNCTION[/ARG...][/min_time:F][/min_warmup_time:F][/iterations:N][/repeats:N]
 *           [/process_time][/real_time|/manual_time][/threads:N]
 * with each ARG "V" or "NAME:V" (V an integer). The parts are taken from the end, in that
 * order; what is left (at least the first '/'-separated part) is the cell's name. A bare ARG
 * at position K (from 0) is label argK; a named one is label NAME, unless NAME is one of the
 * reserved keys, of the form argN, or given twice, when it is argK with the whole "NAME:V" as
 * its value. The same name string always gives the same cell. r must be zeroed. */
static void identity(const char *gname, struct compare_row *r)
{
    size_t n_seg = 1;
    for (const char *c = gname; *c; c++)
        n_seg += *c == '/';
    struct segment *seg = bench__xmalloc(n_seg * sizeof *seg);
    r->labels = bench__xcalloc(n_seg + 1, sizeof *r->labels);
    const char *start = gname;
    for (size_t i = 0; i < n_seg; i++) {
        const char *slash = strchr(start, '/');
        size_t n = slash ? (size_t)(slash - start) : strlen(start);
        seg[i] = (struct segment){start, n};
        start += n + 1;
    }

    /* seg[0, end) is not taken yet; seg[0, keep) stays the name's: the first part, or all of
     * it when that part is empty (a name must not be) */
    size_t end = n_seg, keep = seg[0].n > 0 ? 1 : n_seg;
    struct segment v;
    if (end > keep && segment_value(&seg[end - 1], "threads:", is_digits, &v)) {
        add_label(r, "threads", 7, v.p, v.n);
        end--;
    }
    const struct segment *timer = NULL, *process = NULL;
    if (end > keep &&
        (segment_is(&seg[end - 1], "real_time") || segment_is(&seg[end - 1], "manual_time")))
        timer = &seg[--end];
    if (end > keep && segment_is(&seg[end - 1], "process_time"))
        process = &seg[--end];
    if (timer || process) {
        /* as in the name: "process_time/real_time" when both */
        const char *from = process ? process->p : timer->p;
        const struct segment *last = timer ? timer : process;
        add_label(r, "time", 4, from, (size_t)(last->p + last->n - from));
    }
    static const struct {
        const char *prefix, *key;
        bool (*valid)(const char *, size_t);
    } valued[] = {
        {"repeats:", "repeats", is_digits},
        {"iterations:", "iterations", is_digits},
        {"min_warmup_time:", "min_warmup_time", is_decimal},
        {"min_time:", "min_time", is_decimal},
    };
    for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
        if (end > keep && segment_value(&seg[end - 1], valued[k].prefix, valued[k].valid, &v)) {
            add_label(r, valued[k].key, strlen(valued[k].key), v.p, v.n);
            end--;
        }

    size_t first_arg = end;
    while (first_arg > keep) {
        const struct segment *s = &seg[first_arg - 1];
        const char *colon = memrchr(s->p, ':', s->n);
        size_t after = colon ? (size_t)(colon - s->p) + 1 : 0;
        if (colon ? colon == s->p || !is_integer(colon + 1, s->n - after) : !is_integer(s->p, s->n))
            break;
        first_arg--;
    }
    for (size_t a = first_arg; a < end; a++) {
        const struct segment *s = &seg[a];
        char key[32];
        int key_len = snprintf(key, sizeof key, "arg%zu", a - first_arg);
        const char *colon = memrchr(s->p, ':', s->n);
        if (!colon) {
            add_label(r, key, (size_t)key_len, s->p, s->n);
            continue;
        }
        size_t name_len = (size_t)(colon - s->p);
        bool taken = has_label(r, s->p, name_len) || is_positional_key(s->p, name_len);
        for (size_t k = 0; k < sizeof reserved_keys / sizeof *reserved_keys; k++)
            taken = taken || (strlen(reserved_keys[k]) == name_len &&
                              memcmp(reserved_keys[k], s->p, name_len) == 0);
        if (taken)
            add_label(r, key, (size_t)key_len, s->p, s->n);
        else
            add_label(r, s->p, name_len, colon + 1, s->n - name_len - 1);
    }

    size_t name_len = (size_t)(seg[first_arg - 1].p + seg[first_arg - 1].n - gname);
    free(seg);
    r->name = bench__xasprintf("%.*s", (int)name_len, gname);
    if (r->n_labels == 0) {
        free(r->labels);
        r->labels = NULL;
    } else {
        qsort(r->labels, r->n_labels, sizeof *r->labels, label_order);
    }
    compare_row_keys(r);
}

/* ---- the document --------------------------------------------------------------------------- */

/* One row of "benchmarks" that names a cell: an iteration row (a repetition's value or skip)
 * or an aggregate row's benchmark (rep -1: it only says that the benchmark exists). */
struct entry {
    struct compare_row *row; /* in reader.rows */
    size_t index;            /* in "benchmarks" */
    long rep;                /* repetition_index; -1 for an aggregate */
    long reps;               /* repetitions; 0 for an aggregate */
};

struct reader {
    struct compare_row *rows; /* one per entry, freed as a document */
    struct entry *entries;
    size_t n_entries;
    char *err;
    size_t err_size;
};

/* An integer field from lo to hi; -1 with err when missing or out of range. */
static int int_field(struct reader *rd, const json_t *o, size_t i, const char *key, long lo,
                     long hi, long *out)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return tool_json_error(rd->err, rd->err_size, "benchmarks[%zu].%s: missing", i, key);
    if (!json_is_integer(v))
        return tool_json_error(rd->err, rd->err_size,
                               "benchmarks[%zu].%s: must be an integer, not %s", i, key,
                               tool_json_type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return tool_json_error(rd->err, rd->err_size,
                               "benchmarks[%zu].%s: must be from %ld to %ld, not %lld", i, key, lo,
                               hi, (long long)x);
    *out = (long)x;
    return 0;
}

/* An optional true/false field (false when absent). */
static int flag_field(struct reader *rd, const json_t *o, size_t i, const char *key, bool *out)
{
    const json_t *v = json_object_get(o, key);
    *out = false;
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return tool_json_error(rd->err, rd->err_size,
                               "benchmarks[%zu].%s: must be true or false, not %s", i, key,
                               tool_json_type_name(v));
    *out = json_is_true(v);
    return 0;
}

/* The skip of an error or a skipped benchmark: "error: MESSAGE" or "skipped: MESSAGE". */
static int skip_reason(struct reader *rd, const json_t *o, size_t i, const char *what,
                       const char *key, char **out)
{
    const json_t *m = json_object_get(o, key);
    if (m && !json_is_string(m))
        return tool_json_error(rd->err, rd->err_size,
                               "benchmarks[%zu].%s: must be a string, not %s", i, key,
                               tool_json_type_name(m));
    const char *text = m ? json_string_value(m) : "";
    *out = bench__xasprintf("%s: %s", what, *text ? text : "(no message)");
    return 0;
}

/* The value of a measured iteration row: real_time per iteration, in ns. */
static int row_value(struct reader *rd, const json_t *o, size_t i, struct compare_row *r)
{
    static const struct {
        const char *name;
        double ns;
    } units[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    const json_t *unit = json_object_get(o, "time_unit");
    if (!unit)
        return tool_json_error(rd->err, rd->err_size, "benchmarks[%zu].time_unit: missing", i);
    if (!json_is_string(unit))
        return tool_json_error(rd->err, rd->err_size,
                               "benchmarks[%zu].time_unit: must be a string, not %s", i,
                               tool_json_type_name(unit));
    double scale = 0;
    for (size_t u = 0; u < sizeof units / sizeof *units; u++)
        if (strcmp(json_string_value(unit), units[u].name) == 0)
            scale = units[u].ns;
    if (scale == 0) {
        char shown[SHOWN_MAX];
        bench__sanitize_copy(json_string_value(unit), shown, sizeof shown);
        return tool_json_error(rd->err, rd->err_size,
                               "benchmarks[%zu].time_unit: must be ns, us, ms or s, not '%s'", i,
                               shown);
    }
    const json_t *t = json_object_get(o, "real_time");
    if (!t)
        return tool_json_error(rd->err, rd->err_size, "benchmarks[%zu].real_time: missing", i);
    if (!json_is_number(t))
        return tool_json_error(
            rd->err, rd->err_size, "benchmarks[%zu].real_time: must be a number, not %s%s", i,
            tool_json_type_name(t), json_is_null(t) ? " (NaN or Infinity in the file)" : "");
    double v = json_number_value(t) * scale;
    if (!isfinite(v) || v < 0)
        return tool_json_error(rd->err, rd->err_size,
                               "benchmarks[%zu].real_time: must be finite and >= 0, not %.17g %s",
                               i, json_number_value(t), json_string_value(unit));
    if (v > 0)
        r->median_ns = v;
    else
        r->skip = bench__xstrdup("real_time is 0: nothing was timed");
    return 0;
}

/* One element of "benchmarks" into an entry, or into nothing (an aggregate of no benchmark). */
static int read_row(struct reader *rd, const json_t *o, size_t i, long *max_reps,
                    size_t *aggregates)
{
    if (!json_is_object(o))
        return tool_json_error(rd->err, rd->err_size, "benchmarks[%zu]: must be an object, not %s",
                               i, tool_json_type_name(o));
    const json_t *type = json_object_get(o, "run_type");
    if (!type)
        return tool_json_error(rd->err, rd->err_size, "benchmarks[%zu].run_type: missing", i);
    if (!json_is_string(type))
        return tool_json_error(rd->err, rd->err_size,
                               "benchmarks[%zu].run_type: must be a string, not %s", i,
                               tool_json_type_name(type));
    bool aggregate = strcmp(json_string_value(type), "aggregate") == 0;
    if (!aggregate && strcmp(json_string_value(type), "iteration") != 0) {
        char shown[SHOWN_MAX];
        bench__sanitize_copy(json_string_value(type), shown, sizeof shown);
        return tool_json_error(
            rd->err, rd->err_size,
            "benchmarks[%zu].run_type: must be \"iteration\" or \"aggregate\", not '%s'", i, shown);
    }

    const char *gname;
    long rep = -1, reps = 0;
    bool error = false, skipped = false;
    if (aggregate) {
        /* its benchmark (run_name) is a cell even when no repetition of it is in the file;
         * BigO and RMS belong to a whole family, not to one benchmark */
        (*aggregates)++;
        const json_t *agg = json_object_get(o, "aggregate_name");
        const json_t *run = json_object_get(o, "run_name");
        if (!json_is_string(run) || json_string_length(run) == 0 ||
            (json_is_string(agg) && (strcmp(json_string_value(agg), "BigO") == 0 ||
                                     strcmp(json_string_value(agg), "RMS") == 0)))
            return 0;
        gname = json_string_value(run);
    } else {
        const json_t *name = json_object_get(o, "name");
        if (!name)
            return tool_json_error(rd->err, rd->err_size, "benchmarks[%zu].name: missing", i);
        if (!json_is_string(name))
            return tool_json_error(rd->err, rd->err_size,
                                   "benchmarks[%zu].name: must be a string, not %s", i,
                                   tool_json_type_name(name));
        if (json_string_length(name) == 0)
            return tool_json_error(rd->err, rd->err_size, "benchmarks[%zu].name: must not be empty",
                                   i);
        gname = json_string_value(name);
        if (int_field(rd, o, i, "repetitions", 1, COMPARE_GBENCH_REPETITIONS_MAX, &reps) != 0 ||
            int_field(rd, o, i, "repetition_index", 0, reps - 1, &rep) != 0 ||
            flag_field(rd, o, i, "error_occurred", &error) != 0 ||
            flag_field(rd, o, i, "skipped", &skipped) != 0)
            return -1;
    }

    struct compare_row *row = &rd->rows[rd->n_entries];
    memset(row, 0, sizeof *row);
    row->median_ns = NAN;
    rd->entries[rd->n_entries] = (struct entry){row, i, rep, reps};
    rd->n_entries++; /* counted from here on, so what the row holds is freed */
    if (!aggregate) {
        int rc = error     ? skip_reason(rd, o, i, "error", "error_message", &row->skip)
                 : skipped ? skip_reason(rd, o, i, "skipped", "skip_message", &row->skip)
                           : row_value(rd, o, i, row);
        if (rc != 0)
            return -1;
        if (reps > *max_reps)
            *max_reps = reps;
    }
    identity(gname, row);
    return 0;
}

static int by_key_rep_index(const void *a, const void *b)
{
    const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
    int c = strcmp(x->row->key, y->row->key);
    if (c)
        return c;
    if (x->rep != y->rep)
        return x->rep < y->rep ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Two rows of one cell and repetition: name the first such pair in document order. */
static int check_duplicates(struct reader *rd, struct entry *const *sorted)
{
    const struct entry *later = NULL, *first = NULL;
    size_t group = 0; /* the first of the entries with sorted[j]'s key and repetition */
    for (size_t j = 1; j < rd->n_entries; j++) {
        const struct entry *a = sorted[j - 1], *b = sorted[j];
        if (a->rep != b->rep || strcmp(a->row->key, b->row->key) != 0) {
            group = j;
            continue;
        }
        if (b->rep >= 0 && (!later || b->index < later->index)) {
            later = b;
            first = sorted[group];
        }
    }
    if (!later)
        return 0;
    char name[SHOWN_MAX], op[SHOWN_MAX];
    bench__sanitize_copy(later->row->name, name, sizeof name);
    bench__sanitize_copy(later->row->operation, op, sizeof op);
    return tool_json_error(
        rd->err, rd->err_size,
        "benchmarks[%zu]: the same cell and repetition as benchmarks[%zu] ('%s' {%s}, "
        "repetition_index %ld)",
        later->index, first->index, name, op, later->rep);
}

/* A cell: its entries are sorted[first, first + n), aggregates first, then by repetition. */
struct cell {
    size_t first, n;
    size_t index; /* its first row in "benchmarks": the order of the cells */
    long reps;    /* the most repetitions its rows declare; 0 when it has aggregates only */
};

static int by_index(const void *a, const void *b)
{
    const struct cell *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* dst: a copy of src's identity, with the value or skip given. */
static void copy_row(struct compare_row *dst, const struct compare_row *src, double value,
                     const char *skip)
{
    memset(dst, 0, sizeof *dst);
    dst->median_ns = value;
    dst->name = bench__xstrdup(src->name);
    dst->operation = bench__xstrdup(src->operation);
    dst->key = bench__xstrdup(src->key);
    dst->skip = skip ? bench__xstrdup(skip) : NULL;
    if (src->n_labels > 0)
        dst->labels = bench__xcalloc(src->n_labels, sizeof *dst->labels);
    for (size_t k = 0; k < src->n_labels; k++) {
        dst->labels[k].key = bench__xstrdup(src->labels[k].key);
        dst->labels[k].value = bench__xstrdup(src->labels[k].value);
        dst->n_labels++;
    }
}

/* The runs: run r holds every cell's repetition r, or a skip that says why there is none. */
static void build_runs(struct entry *const *sorted, const struct cell *cells, size_t n_cells,
                       size_t n_runs, struct compare_doc *docs)
{
    for (size_t r = 0; r < n_runs; r++)
        docs[r].rows = bench__xcalloc(n_cells ? n_cells : 1, sizeof *docs[r].rows);
    for (size_t c = 0; c < n_cells; c++) {
        const struct cell *cell = &cells[c];
        size_t j = cell->first, stop = cell->first + cell->n;
        while (j < stop && sorted[j]->rep < 0)
            j++;
        for (size_t r = 0; r < n_runs; r++) {
            const struct entry *e = j < stop && sorted[j]->rep == (long)r ? sorted[j++] : NULL;
            char why[256];
            if (e)
                why[0] = '\0';
            else if (cell->reps == 0)
                bench__fmt(why, sizeof why, "%s", AGGREGATES_ONLY_REASON);
            else if ((long)r >= cell->reps)
                bench__fmt(why, sizeof why,
                           "not in the file: this benchmark ran %ld repetitions "
                           "(repetition_index 0 to %ld)",
                           cell->reps, cell->reps - 1);
            else
                bench__fmt(why, sizeof why, "no row for repetition_index %zu in the file", r);
            const struct compare_row *src = e ? e->row : sorted[cell->first]->row;
            struct compare_doc *d = &docs[r];
            d->n_rows++;
            copy_row(&d->rows[c], src, e ? src->median_ns : NAN, e ? src->skip : why);
        }
    }
}

int compare_gbench_runs(const json_t *root, struct compare_doc **docs_out, size_t *n_docs,
                        char *err, size_t err_size)
{
    *docs_out = NULL;
    *n_docs = 0;
    if (!json_is_object(root))
        return tool_json_error(err, err_size, "top level: must be an object, not %s",
                               tool_json_type_name(root));
    const json_t *context = json_object_get(root, "context");
    if (!context)
        return tool_json_error(err, err_size,
                               "context: missing (a Google Benchmark document has "
                               "\"context\" and \"benchmarks\")");
    if (!json_is_object(context))
        return tool_json_error(err, err_size, "context: must be an object, not %s",
                               tool_json_type_name(context));
    const json_t *version = json_object_get(context, "json_schema_version");
    if (version && !json_is_integer(version))
        return tool_json_error(err, err_size,
                               "context.json_schema_version: must be an integer, not %s",
                               tool_json_type_name(version));
    if (version && json_integer_value(version) != 1)
        return tool_json_error(
            err, err_size,
            "context.json_schema_version: unsupported version %lld (this libbench reads "
            "version 1)",
            (long long)json_integer_value(version));
    const json_t *list = json_object_get(root, "benchmarks");
    if (!list)
        return tool_json_error(err, err_size, "benchmarks: missing");
    if (!json_is_array(list))
        return tool_json_error(err, err_size, "benchmarks: must be an array, not %s",
                               tool_json_type_name(list));

    size_t n = json_array_size(list);
    struct reader rd = {.err = err, .err_size = err_size};
    rd.rows = bench__xcalloc(n ? n : 1, sizeof *rd.rows);
    rd.entries = bench__xcalloc(n ? n : 1, sizeof *rd.entries);
    struct entry **sorted = NULL;
    struct cell *cells = NULL;
    struct compare_doc *docs = NULL;
    size_t n_cells = 0, n_runs = 0, aggregates = 0;
    long max_reps = 0;
    int rc = -1;
    for (size_t i = 0; i < n; i++)
        if (read_row(&rd, json_array_get(list, i), i, &max_reps, &aggregates) != 0)
            goto done;
    if (max_reps == 0 && aggregates > 0) {
        tool_json_error(err, err_size,
                        "benchmarks: only aggregate rows (mean, median, ...), no repetition of any "
                        "benchmark: write the file without --benchmark_report_aggregates_only");
        goto done;
    }

    sorted = bench__xmalloc((rd.n_entries ? rd.n_entries : 1) * sizeof *sorted);
    cells = bench__xmalloc((rd.n_entries ? rd.n_entries : 1) * sizeof *cells);
    for (size_t i = 0; i < rd.n_entries; i++)
        sorted[i] = &rd.entries[i];
    qsort(sorted, rd.n_entries, sizeof *sorted, by_key_rep_index);
    if (check_duplicates(&rd, sorted) != 0)
        goto done;
    for (size_t j = 0; j < rd.n_entries; j++) {
        if (j == 0 || strcmp(sorted[j - 1]->row->key, sorted[j]->row->key) != 0)
            cells[n_cells++] = (struct cell){j, 0, sorted[j]->index, 0};
        struct cell *c = &cells[n_cells - 1];
        c->n++;
        if (sorted[j]->index < c->index)
            c->index = sorted[j]->index;
        if (sorted[j]->reps > c->reps)
            c->reps = sorted[j]->reps;
    }
    qsort(cells, n_cells, sizeof *cells, by_index);

    n_runs = max_reps > 0 ? (size_t)max_reps : 1;
    if (n_cells > VALUES_MAX / n_runs) {
        tool_json_error(
            err, err_size,
            "benchmarks: %zu benchmarks × %zu repetitions is more than %u values in one file",
            n_cells, n_runs, VALUES_MAX);
        goto done;
    }
    docs = bench__xcalloc(n_runs, sizeof *docs);
    build_runs(sorted, cells, n_cells, n_runs, docs);
    rc = 0;
done:
    compare_doc_free(&(struct compare_doc){rd.rows, rd.n_entries});
    free(rd.entries);
    free(sorted);
    free(cells);
    if (rc != 0) {
        compare_docs_free(docs, docs ? n_runs : 0);
        return -1;
    }
    *docs_out = docs;
    *n_docs = n_runs;
    return 0;
}
