/* SPDX-License-Identifier: MIT */
/* collector.c: owns what a --bench run keeps and shows (see collector.h): owned copies of the
 * columns, rows and windows the measuring side sends, the live line, the tables as they become
 * complete, error rows for work abandoned by a dead or hung worker, the resume state of the next
 * worker, the JSON document and the exit status. It never runs a body. Over 600 lines: every
 * part reads and writes the same collector state; the live frame (live_*) is the next seam to
 * split off when the file grows. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/grouping.h"
#include "../report/bench_table.h"
#include "../report/profile_table.h"
#include "../report/json.h"
#include "../report/formats.h"
#include "../report/workload_table.h"
#include "../util/alloc.h"
#include "../util/atomic_file.h"
#include "../util/clock.h"
#include "../util/format.h"
#include "../util/text.h"
#include "collector.h"
#include "measure.h"
#include "meta.h"
#include "run.h"

#define TAIL_MAX 1024 /* bytes of a worker's latest output kept for a crash's note */
#define EM_DASH "\xe2\x80\x94"

struct bench__collector {
    const struct bench__config *cfg;
    const struct bench__suite *suite;
    uint64_t min_time_ms;
    struct bench__ticker ticker; /* the only painter of the live line */
    struct bench__term out;      /* of stdout: the table drawn in place, colour */
    size_t live_lines;           /* lines of the frame drawn in place now on stdout; 0: none */
    size_t live_frames;
    size_t total; /* benchmarks and workloads of the suite: the live count's total */
    struct bench__table_memory memory;
    /* every column ever described, owned, by name; and the sets in force */
    struct bench__column_desc **cols;
    size_t n_cols;
    const struct bench__column_desc **doc, **table, **wl;
    size_t n_doc, n_table, n_wl;
    /* the rows, owned, in arrival order (measurement order) */
    struct bench__row *rows;
    size_t n_rows, cap_rows;
    size_t *slots; /* the worker's row slot -> index in rows (SIZE_MAX: none); per worker */
    size_t n_slots, cap_slots;
    /* every row's cell by hash: a document never holds one cell twice, even when workers that
     * know nothing of each other's rows made them */
    uint64_t *row_hash; /* per row */
    size_t *cell_table; /* open addressing: row index + 1, 0 = empty */
    size_t cap_cells;
    /* grouped mode */
    char **group_keys; /* NULL until the keys are known */
    size_t n_group_keys;
    char **drawn_groups;
    size_t n_drawn_groups;
    /* per suite entry */
    bool *ended;     /* a body ran (rows sent, cases registered); a workload ran */
    bool *drawn;     /* a streamed body's table was drawn */
    bool *abandoned; /* a crash or a timeout ended it */
    struct bench__workloads workloads;
    double clock_overhead_ns;
    unsigned rounds;
    const struct bench__environment *environment; /* NULL: not checked */
    char **provenance;
    size_t n_provenance;
    char **said; /* keys of once-per-run disclosures made */
    size_t n_said;
    char **begun_cases; /* the identity of every case a worker began: none is begun twice */
    size_t n_begun_cases, cap_begun_cases;
    /* the item in progress */
    enum bench__item item;
    int64_t item_since;
    size_t item_entry;
    char *item_name;
    struct bench__kv *item_labels;
    size_t item_n_labels;
    struct tail {
        char text[TAIL_MAX];
        size_t len;
    } tail[2];    /* the latest output of the item in progress: stdout, stderr */
    bool listing; /* --group-by=list: the worker prints, nothing is measured */
    bool done;
    bool lost;         /* a worker ended outside any item: the run is incomplete */
    char *lost_reason; /* how, for the document */
    bool workloads_drawn;
    int worker_status; /* what the measuring side reported with its end: 1 a --group-by=list body
                        * failed, 2 a usage error found at the end */
    /* the resume state handed to the next worker */
    struct bench__resume resume;
};

struct bench__collector *bench__collector_new(const struct bench__config *cfg,
                                              const struct bench__suite *suite,
                                              uint64_t min_time_ms)
{
    struct bench__collector *c = bench__xcalloc(1, sizeof *c);
    c->cfg = cfg;
    c->suite = suite;
    c->min_time_ms = min_time_ms;
    c->ticker = (struct bench__ticker){.term = bench__term_probe(STDERR_FILENO, cfg->no_colors),
                                       .start_ns = bench__clock_measure_ns()};
    c->out = bench__term_probe(STDOUT_FILENO, cfg->no_colors);
    for (size_t i = 0; i < suite->count; i++)
        c->total += suite->entries[i].test->kind != BENCH_KIND_TEST;
    c->ended = bench__xcalloc(suite->count + 1, sizeof *c->ended);
    c->drawn = bench__xcalloc(suite->count + 1, sizeof *c->drawn);
    c->abandoned = bench__xcalloc(suite->count + 1, sizeof *c->abandoned);
    c->clock_overhead_ns = NAN;
    c->rounds = 1;
    c->item = BENCH__ITEM_NONE;
    c->listing = bench__group_list_wanted(cfg);
    return c;
}

void bench__collector_environment(struct bench__collector *c, const struct bench__environment *env)
{
    c->environment = env;
}

static void free_strings(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

static void free_labels(struct bench__kv *labels, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(labels[i].key);
        free(labels[i].value);
    }
    free(labels);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_resume(struct bench__resume *r)
{
    free(r->skip_entry);
    free(r->register_only);
    free(r->skip_case); /* the collector's strings */
    free_strings(r->group_keys, r->n_group_keys);
    free(r->provenance); /* borrowed strings; drawn_groups and said are the collector's lists */
    free(r->client_columns);
    memset(r, 0, sizeof *r);
}

void bench__collector_free(struct bench__collector *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_rows; i++)
        bench__row_release(&c->rows[i]);
    free(c->rows);
    free(c->slots);
    free(c->row_hash);
    free(c->cell_table);
    for (size_t i = 0; i < c->n_cols; i++) {
        free((char *)c->cols[i]->name);
        free((char *)c->cols[i]->header);
        free((char *)c->cols[i]->source);
        free(c->cols[i]);
    }
    free(c->cols);
    free(c->doc);
    free(c->table);
    free(c->wl);
    free_strings(c->group_keys, c->n_group_keys);
    free_strings(c->drawn_groups, c->n_drawn_groups);
    free(c->ended);
    free(c->drawn);
    free(c->abandoned);
    bench__workloads_free(&c->workloads);
    free_strings(c->provenance, c->n_provenance);
    free_strings(c->said, c->n_said);
    free_strings(c->begun_cases, c->n_begun_cases);
    free(c->item_name);
    free(c->lost_reason);
    free_labels(c->item_labels, c->item_n_labels);
    free_resume(&c->resume);
    bench__table_memory_free(&c->memory);
    free(c);
}

/* ---- columns ----------------------------------------------------------------------------- */

static const struct bench__column_desc *column_named(const struct bench__collector *c,
                                                     const char *name)
{
    for (size_t i = 0; i < c->n_cols; i++)
        if (!strcmp(c->cols[i]->name, name))
            return c->cols[i];
    return NULL;
}

static const struct bench__column_desc **
column_set(const struct bench__collector *c, const char *const *names, size_t n, size_t *out_n)
{
    const struct bench__column_desc **set = bench__xcalloc(n + 1, sizeof *set);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct bench__column_desc *d = column_named(c, names[i]);
        if (d)
            set[k++] = d;
    }
    *out_n = k;
    return set;
}

void bench__collect_columns(struct bench__collector *c, const struct bench__column_wire *cols,
                            size_t n, const char *const *doc, size_t n_doc,
                            const char *const *table, size_t n_table,
                            const char *const *workload_table, size_t n_wl)
{
    for (size_t i = 0; i < n; i++) {
        if (column_named(c, cols[i].name))
            continue; /* a column keeps its first description */
        struct bench__column_desc *d = bench__xcalloc(1, sizeof *d);
        *d = (struct bench__column_desc){.name = bench__xstrdup(cols[i].name),
                                         .header = bench__xstrdup(cols[i].header),
                                         .format = cols[i].format,
                                         .cls = cols[i].cls,
                                         .source = bench__xstrdup(cols[i].source),
                                         .is_default = cols[i].is_default};
        c->cols = bench__xrealloc(c->cols, (c->n_cols + 1) * sizeof *c->cols);
        c->cols[c->n_cols++] = d;
    }
    free(c->doc);
    free(c->table);
    free(c->wl);
    c->doc = column_set(c, doc, n_doc, &c->n_doc);
    c->table = column_set(c, table, n_table, &c->n_table);
    c->wl = column_set(c, workload_table, n_wl, &c->n_wl);
}

/* A copy of cells whose columns are named (unknown names are dropped). */
static struct bench__cell *copy_cells(const struct bench__collector *c,
                                      const struct bench__cell *cells, size_t n,
                                      const char *const *names, size_t *out_n)
{
    struct bench__cell *copy = bench__xcalloc(n + 1, sizeof *copy);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct bench__column_desc *d = column_named(c, names[i]);
        if (d)
            copy[k++] = (struct bench__cell){d, cells[i].value, cells[i].estimate};
    }
    *out_n = k;
    return copy;
}

static struct bench__kv *copy_labels(const struct bench__kv *labels, size_t n)
{
    struct bench__kv *copy = bench__xcalloc(n + 1, sizeof *copy);
    for (size_t i = 0; i < n; i++)
        copy[i] =
            (struct bench__kv){bench__xstrdup(labels[i].key), bench__xstrdup(labels[i].value)};
    return copy;
}

/* ---- the live line and the worker's output ------------------------------------------------ */

/* Take the frame drawn in place off stdout: cursor up to its first line, erase to the end. */
static void live_erase(struct bench__collector *c)
{
    if (!c->live_lines)
        return;
    fprintf(stdout, "\r\033[%zuA\033[J", c->live_lines);
    fflush(stdout);
    c->live_lines = 0;
}

/* Nothing live on the terminal: before any other output. */
static void quiet(struct bench__collector *c)
{
    bench__ticker_clear(&c->ticker);
    live_erase(c);
}

/* The benchmarks and workloads done: a streamed body when its table is drawn (its cases run
 * after it registered them), a grouped one when it ended, a workload when it ended. */
static size_t entries_done(const struct bench__collector *c)
{
    size_t done = 0;
    for (size_t i = 0; i < c->suite->count; i++) {
        bool workload = c->suite->entries[i].test->kind == BENCH_KIND_WORKLOAD;
        done += c->abandoned[i] || (c->cfg->n_group_by || workload ? c->ended[i] : c->drawn[i]);
    }
    return done;
}

/* The cells a line of a frame takes on the terminal: its SGR sequences take none. */
static size_t visible_width(const char *line, size_t len)
{
    size_t width = 0, from = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] != '\033')
            continue;
        width += bench__display_width(line + from, i - from);
        while (i < len && !(line[i] >= '@' && line[i] <= '~' && line[i] != '['))
            i++; /* ESC '[' parameters, up to the final byte */
        from = i + 1;
    }
    return width + (from < len ? bench__display_width(line + from, len - from) : 0);
}

/* The table of the body in progress drawn in place on stdout, the case about to be measured its
 * dim last row, and the done/total count under it: only when stdout animates, in streamed mode
 * (a grouped table gathers rows of many bodies), supervised (all output passes here), and when
 * the frame fits the terminal (a frame taller or wider than it could not be taken back); false:
 * not drawn, the stderr line says the case instead. */
static bool live_table(struct bench__collector *c)
{
    static const char *const frames[] = {
        "\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9", "\xe2\xa0\xb8", "\xe2\xa0\xbc",
        "\xe2\xa0\xb4", "\xe2\xa0\xa6", "\xe2\xa0\xa7", "\xe2\xa0\x87", "\xe2\xa0\x8f"};
    if (!c->out.animate || c->cfg->n_group_by || c->listing || c->item_entry >= c->suite->count)
        return false;
    if (c->cfg->bench_in_process || bench__bench_in_process)
        return false; /* a body prints past the collector: a frame's lines could not be counted */
    const char *source = c->suite->entries[c->item_entry].full_name;
    const struct bench__row **rows = bench__xcalloc(c->n_rows + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        if (!strcmp(c->rows[i].source, source))
            rows[n++] = &c->rows[i];
    char *frame = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&frame, &size);
    if (!mem) {
        free(rows);
        return false;
    }
    struct bench__table_memory memory;
    bench__table_memory_copy(&memory, &c->memory);
    struct bench__table_paint paint = {.color = c->out.color,
                                       .live_name = c->item_name,
                                       .live_labels = c->item_labels,
                                       .live_n_labels = c->item_n_labels,
                                       .spinner = frames[c->live_frames % 10]};
    bench__bench_table_paint(mem, rows, n, c->table, c->n_table, NULL, 0, NULL, &memory, &paint);
    char elapsed[BENCH__NUMBER_MAX];
    bench__format_ns((double)(bench__clock_measure_ns() - c->ticker.start_ns), elapsed, sizeof elapsed);
    fprintf(mem, "%zu/%zu (%s)\n", entries_done(c), c->total, elapsed);
    bench__table_memory_free(&memory);
    free(rows);
    if (fclose(mem) != 0) {
        free(frame);
        return false;
    }
    size_t lines = 0, widest = 0;
    for (const char *line = frame; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        size_t w = visible_width(line, len);
        widest = w > widest ? w : widest;
        lines++;
        line += len + (end != NULL);
    }
    size_t height = c->out.height > 0 ? (size_t)c->out.height : 24;
    bool fits = widest < (size_t)c->out.width && lines < height;
    bench__ticker_clear(&c->ticker);
    fputs("\033[?2026h", stdout);
    live_erase(c);
    if (fits)
        fwrite(frame, 1, size, stdout);
    fputs("\033[?2026l", stdout);
    fflush(stdout);
    free(frame);
    if (!fits)
        return false;
    c->live_lines = lines;
    c->live_frames++;
    return true;
}

void bench__collect_output(struct bench__collector *c, bool to_stderr, const char *data, size_t len)
{
    if (len == 0)
        return;
    quiet(c);
    FILE *out = to_stderr ? stderr : stdout;
    fwrite(data, 1, len, out);
    fflush(out);
    struct tail *t = &c->tail[to_stderr];
    if (len >= TAIL_MAX) {
        memcpy(t->text, data + len - TAIL_MAX, TAIL_MAX);
        t->len = TAIL_MAX;
    } else {
        size_t keep = t->len + len > TAIL_MAX ? TAIL_MAX - len : t->len;
        memmove(t->text, t->text + t->len - keep, keep);
        memcpy(t->text + keep, data, len);
        t->len = keep + len;
    }
}

void bench__collect_note(struct bench__collector *c, const char *text)
{
    quiet(c);
    fputs(text, stderr); /* the library's own line: no item's output */
    fflush(stderr);
}

void bench__collect_begin(struct bench__collector *c, enum bench__item item, size_t entry,
                          const char *name, const struct bench__kv *labels, size_t n_labels,
                          unsigned round, unsigned rounds)
{
    c->item = item;
    c->item_since = bench__clock_deadline_ns(); /* the deadline clock: timeouts, never the measuring one */
    c->item_entry = entry;
    free(c->item_name);
    c->item_name = bench__xstrdup(name);
    free_labels(c->item_labels, c->item_n_labels);
    c->item_labels = copy_labels(labels, n_labels);
    c->item_n_labels = n_labels;
    c->tail[0].len = c->tail[1].len = 0;
    if (item == BENCH__ITEM_CASE && entry < c->suite->count) {
        c->begun_cases = bench__grow(c->begun_cases, &c->cap_begun_cases, c->n_begun_cases + 1,
                                     sizeof *c->begun_cases);
        c->begun_cases[c->n_begun_cases++] =
            bench__case_identity(c->suite->entries[entry].full_name, name, labels, n_labels);
    }
    if (item == BENCH__ITEM_WORKLOAD) {
        c->workloads.ran = true;
        live_erase(c); /* a workload has the spinner only, never a live table */
        bench__ticker_show(&c->ticker, name, entries_done(c), c->total, round, rounds);
        return;
    }
    if (item == BENCH__ITEM_REGISTER)
        return; /* nothing is measured: the live line's count stays */
    if (live_table(c))
        return;
    bench__ticker_show(&c->ticker, name, entries_done(c), c->total, round, rounds);
}

/* ---- rows and tables ---------------------------------------------------------------------- */

/* The row holding the cell (name, labels), or SIZE_MAX. */
static size_t cell_holder(const struct bench__collector *c, const char *name,
                          const struct bench__kv *labels, size_t n, uint64_t hash)
{
    if (!c->cap_cells)
        return SIZE_MAX;
    for (size_t i = hash & (c->cap_cells - 1);; i = (i + 1) & (c->cap_cells - 1)) {
        size_t ref = c->cell_table[i];
        if (!ref)
            return SIZE_MAX;
        const struct bench__row *r = &c->rows[ref - 1];
        if (c->row_hash[ref - 1] == hash &&
            bench__same_cell(r->name, r->labels, r->n_labels, name, labels, n))
            return ref - 1;
    }
}

static void cell_insert(struct bench__collector *c, size_t row)
{
    if (2 * (c->n_rows + 1) > c->cap_cells) {
        size_t cap = c->cap_cells ? 2 * c->cap_cells : 256;
        size_t *table = bench__xcalloc(cap, sizeof *table);
        for (size_t i = 0; i < c->cap_cells; i++) {
            size_t ref = c->cell_table[i];
            if (!ref)
                continue;
            size_t k = c->row_hash[ref - 1] & (cap - 1);
            while (table[k])
                k = (k + 1) & (cap - 1);
            table[k] = ref;
        }
        free(c->cell_table);
        c->cell_table = table;
        c->cap_cells = cap;
    }
    size_t k = c->row_hash[row] & (c->cap_cells - 1);
    while (c->cell_table[k])
        k = (k + 1) & (c->cap_cells - 1);
    c->cell_table[k] = row + 1;
}

/* Take a new row (the last) into the document: when an earlier row has its cell (two workers
 * each made one), it becomes an error row named "name (2)", "(3)", ... (the first free one). */
static void admit_row(struct bench__collector *c)
{
    size_t index = c->n_rows - 1;
    struct bench__row *r = &c->rows[index];
    c->row_hash = bench__xrealloc(c->row_hash, c->cap_rows * sizeof *c->row_hash);
    uint64_t hash = bench__cell_hash(r->name, r->labels, r->n_labels);
    size_t holder = cell_holder(c, r->name, r->labels, r->n_labels, hash);
    if (holder != SIZE_MAX) {
        char *taken = r->name;
        for (unsigned k = 2;; k++) {
            r->name = bench__xasprintf("%s (%u)", taken, k);
            hash = bench__cell_hash(r->name, r->labels, r->n_labels);
            if (cell_holder(c, r->name, r->labels, r->n_labels, hash) == SIZE_MAX)
                break;
            free(r->name);
        }
        if (r->state != BENCH__ROW_ERROR) { /* a crash's own error says more */
            free(r->error);
            r->error = bench__xasprintf("registration: '%s' with these labels is the cell of an "
                                        "earlier row of this run (%s)",
                                        taken, c->rows[holder].source);
        }
        free(taken);
        r->state = BENCH__ROW_ERROR;
        r->stats = (struct bench__summary){NAN, NAN, NAN, NAN};
        r->contention = NAN;
        r->iterations = 0;
        r->samples = 0;
        free(r->cells);
        r->cells = NULL;
        r->n_cells = 0;
    }
    c->row_hash[index] = hash;
    cell_insert(c, index);
}

static struct bench__row *new_row(struct bench__collector *c)
{
    c->rows = bench__grow(c->rows, &c->cap_rows, c->n_rows + 1, sizeof *c->rows);
    struct bench__row *r = &c->rows[c->n_rows++];
    memset(r, 0, sizeof *r);
    r->contention = NAN;
    return r;
}

void bench__collect_row(struct bench__collector *c, const struct bench__row *row,
                        const char *const *cell_columns, size_t slot)
{
    struct bench__row *r;
    bool fresh = false;
    if (slot < c->n_slots && c->slots[slot] != SIZE_MAX) {
        r = &c->rows[c->slots[slot]];
        if (strcmp(r->name, row->name) != 0)
            return; /* admit_row refused its first copy: it stays the error row it became */
        bench__row_release(r);
    } else {
        c->slots = bench__grow(c->slots, &c->cap_slots, slot + 1, sizeof *c->slots);
        while (c->n_slots <= slot)
            c->slots[c->n_slots++] = SIZE_MAX;
        c->slots[slot] = c->n_rows;
        r = new_row(c);
        fresh = true;
    }
    *r = *row;
    r->name = bench__xstrdup(row->name);
    r->source = bench__xstrdup(row->source);
    r->error = bench__xstrdup(row->error);
    r->labels = copy_labels(row->labels, row->n_labels);
    r->cells = copy_cells(c, row->cells, row->n_cells, cell_columns, &r->n_cells);
    r->profile = row->profile ? bench__profile_copy(row->profile) : NULL;
    if (fresh)
        admit_row(c);
}

/* Does some row of this table have a value for a metric sort key? */
static bool table_has_key(const struct bench__row *const *rows, size_t n, const char *key)
{
    if (!strcmp(key, "name") || !strcmp(key, "median/iter"))
        return true;
    for (size_t r = 0; r < n; r++)
        for (size_t k = 0; k < rows[r]->n_cells; k++)
            if (!strcmp(rows[r]->cells[k].column->name, key) ||
                !strcmp(rows[r]->cells[k].column->header, key))
                return true;
    return false;
}

/* One table of rows (flat, or a group's under `title`), sorted by --sort-by. */
static void draw(struct bench__collector *c, const struct bench__row **rows, size_t n,
                 char *const *keys, size_t n_keys, const char *title)
{
    if (n == 0)
        return;
    const char *key = c->cfg->sort_by;
    if (!key || !bench__sort_key_known(key, c->doc, c->n_doc) || !table_has_key(rows, n, key))
        key = "median/iter"; /* the default order; an unknown key is warned about once */
    bench__sort_rows(rows, n, key);
    quiet(c);
    struct bench__table_paint paint = {.color = true};
    bench__bench_table_paint(stdout, rows, n, c->table, c->n_table, keys, n_keys, title, &c->memory,
                             c->out.color ? &paint : NULL);
    for (size_t i = 0; i < n; i++) /* --profile: each row's profile under its table */
        bench__profile_table_render(stdout, rows[i]);
    fflush(stdout);
}

void bench__collect_body_end(struct bench__collector *c, size_t entry)
{
    if (entry < c->suite->count)
        c->ended[entry] = true;
    c->item = BENCH__ITEM_NONE;
}

void bench__collect_body_table(struct bench__collector *c, size_t entry)
{
    c->item = BENCH__ITEM_NONE;
    if (entry >= c->suite->count || c->drawn[entry])
        return;
    c->drawn[entry] = true;
    const char *source = c->suite->entries[entry].full_name;
    const struct bench__row **rows = bench__xcalloc(c->n_rows + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        if (!strcmp(c->rows[i].source, source))
            rows[n++] = &c->rows[i];
    draw(c, rows, n, NULL, 0, NULL);
    free(rows);
}

void bench__collect_group_keys(struct bench__collector *c, const char *const *keys, size_t n)
{
    free_strings(c->group_keys, c->n_group_keys);
    c->group_keys = bench__xcalloc(n + 1, sizeof *c->group_keys);
    for (size_t i = 0; i < n; i++)
        c->group_keys[i] = bench__xstrdup(keys[i]);
    c->n_group_keys = n;
}

void bench__collect_group_table(struct bench__collector *c, const char *group)
{
    c->item = BENCH__ITEM_NONE;
    for (size_t i = 0; i < c->n_drawn_groups; i++)
        if (!strcmp(c->drawn_groups[i], group))
            return; /* drawn before a worker died: a later worker sends it again */
    c->drawn_groups =
        bench__xrealloc(c->drawn_groups, (c->n_drawn_groups + 1) * sizeof *c->drawn_groups);
    c->drawn_groups[c->n_drawn_groups++] = bench__xstrdup(group);
    const struct bench__row **rows = bench__xcalloc(c->n_rows + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < c->n_rows; i++) {
        char *key = bench__group_key(&c->rows[i], c->group_keys, c->n_group_keys);
        if (!strcmp(key, group))
            rows[n++] = &c->rows[i];
        free(key);
    }
    char *title = bench__group_title(group);
    draw(c, rows, n, c->group_keys, c->n_group_keys, title);
    free(title);
    free(rows);
}

/* ---- windows ------------------------------------------------------------------------------ */

static struct bench__window *new_window(struct bench__collector *c)
{
    struct bench__workloads *w = &c->workloads;
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 8;
        w->windows = bench__xrealloc(w->windows, w->cap * sizeof *w->windows);
    }
    struct bench__window *win = &w->windows[w->n++];
    memset(win, 0, sizeof *win);
    return win;
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The collector's own copy of a total's description (one allocation holding its text),
 * shared by every window that reports the same total. */
static const struct bench__total_desc *intern_total(struct bench__collector *c,
                                                    const struct bench__total_desc *d)
{
    struct bench__workloads *wl = &c->workloads;
    for (size_t i = 0; i < wl->n_descs; i++) {
        const struct bench__total_desc *k = wl->descs[i];
        if (same_text(k->object, d->object) && same_text(k->nest, d->nest) &&
            same_text(k->key, d->key) && same_text(k->header, d->header) &&
            same_text(k->metric, d->metric) && k->format == d->format &&
            k->is_default == d->is_default)
            return k;
    }
    const char *texts[5] = {d->object, d->nest, d->key, d->header, d->metric};
    size_t bytes = sizeof(struct bench__total_desc);
    for (int i = 0; i < 5; i++)
        bytes += texts[i] ? strlen(texts[i]) + 1 : 0;
    struct bench__total_desc *copy = bench__xmalloc(bytes);
    char *p = (char *)(copy + 1);
    const char *owned[5];
    for (int i = 0; i < 5; i++) {
        owned[i] = NULL;
        if (!texts[i])
            continue;
        size_t len = strlen(texts[i]) + 1;
        memcpy(p, texts[i], len);
        owned[i] = p;
        p += len;
    }
    *copy = (struct bench__total_desc){owned[0] ? owned[0] : "",
                                       owned[1],
                                       owned[2],
                                       owned[3] ? owned[3] : "",
                                       owned[4],
                                       d->format,
                                       d->is_default};
    wl->descs = bench__xrealloc(wl->descs, (wl->n_descs + 1) * sizeof *wl->descs);
    wl->descs[wl->n_descs++] = copy;
    return copy;
}

void bench__collect_window(struct bench__collector *c, const struct bench__window *w)
{
    struct bench__window *win = new_window(c);
    *win = *w;
    win->name = bench__xstrdup(w->name);
    win->error = bench__xstrdup(w->error);
    win->note = bench__xstrdup(w->note);
    win->totals = bench__xcalloc(w->n_totals + 1, sizeof *win->totals);
    for (size_t i = 0; i < w->n_totals; i++) {
        win->totals[i] = w->totals[i];
        win->totals[i].desc = intern_total(c, w->totals[i].desc);
    }
    win->groups = bench__xcalloc(w->n_groups + 1, sizeof *win->groups);
    for (size_t i = 0; i < w->n_groups; i++) {
        win->groups[i] = w->groups[i];
        /* the object's name is one of its totals' (interned above) */
        win->groups[i].object = "";
        for (size_t k = 0; k < win->n_totals; k++)
            if (!strcmp(win->totals[k].desc->object, w->groups[i].object)) {
                win->groups[i].object = win->totals[k].desc->object;
                break;
            }
    }
    if (w->regime) {
        win->regime = bench__xmalloc(sizeof *win->regime);
        *win->regime = *w->regime;
    }
}

void bench__collect_workload_end(struct bench__collector *c, size_t entry, size_t failures)
{
    if (entry < c->suite->count)
        c->ended[entry] = true;
    c->workloads.failures += failures;
    c->item = BENCH__ITEM_NONE;
}

void bench__collect_workloads_done(struct bench__collector *c)
{
    if (c->workloads.n == 0 || c->workloads_drawn)
        return;
    c->workloads_drawn = true;
    quiet(c);
    const char **selected = bench__xcalloc(c->n_wl + 1, sizeof *selected);
    for (size_t i = 0; i < c->n_wl; i++)
        selected[i] = c->wl[i]->name;
    bench__workloads_render(stdout, &c->workloads, selected, c->n_wl, &c->memory);
    free(selected);
    fflush(stdout);
}

/* ---- facts -------------------------------------------------------------------------------- */

void bench__collect_clock(struct bench__collector *c, double overhead_ns)
{
    c->clock_overhead_ns = overhead_ns;
}

void bench__collect_rounds(struct bench__collector *c, unsigned rounds)
{
    c->rounds = rounds;
}

void bench__collect_provenance(struct bench__collector *c, const char *fact)
{
    for (size_t i = 0; i < c->n_provenance; i++)
        if (!strcmp(c->provenance[i], fact))
            return;
    c->provenance = bench__xrealloc(c->provenance, (c->n_provenance + 1) * sizeof *c->provenance);
    c->provenance[c->n_provenance++] = bench__xstrdup(fact);
}

void bench__collect_said(struct bench__collector *c, const char *key)
{
    c->said = bench__xrealloc(c->said, (c->n_said + 1) * sizeof *c->said);
    c->said[c->n_said++] = bench__xstrdup(key);
}

void bench__collect_done(struct bench__collector *c, int status)
{
    c->done = true;
    c->worker_status = status;
    c->item = BENCH__ITEM_NONE;
}

bool bench__collector_finished(const struct bench__collector *c)
{
    return c->done;
}

int64_t bench__collector_item_since(const struct bench__collector *c)
{
    return c->item == BENCH__ITEM_NONE ? -1 : c->item_since;
}

/* ---- a worker that died or hung ----------------------------------------------------------- */

/* The last non-empty line of a tail: [*start, end), false when there is none. */
static bool last_line(const struct tail *t, size_t *start, size_t *end)
{
    size_t e = t->len;
    while (e > 0 && (t->text[e - 1] == '\n' || t->text[e - 1] == '\r'))
        e--;
    size_t s = e;
    while (s > 0 && t->text[s - 1] != '\n')
        s--;
    *start = s;
    *end = e;
    return s < e;
}

/* `what`, and the last line the item printed, if any: on stderr (where a failing check, an
 * assertion or a sanitizer writes), else on stdout. */
static char *abandon_reason(const struct bench__collector *c, const char *what)
{
    size_t start, end;
    const struct tail *t = &c->tail[1];
    if (!last_line(t, &start, &end)) {
        t = &c->tail[0];
        if (!last_line(t, &start, &end))
            return bench__xstrdup(what);
    }
    char line[200];
    char *text = bench__xasprintf("%.*s", (int)(end - start), t->text + start);
    bench__sanitize_copy(text, line, sizeof line);
    free(text);
    return bench__xasprintf("%s; last output: %s", what, line);
}

/* The name of a body's error row: the test's, marked " (body)" when a row of the body (a loop
 * measured before it died) has it already, as a body's failure row is named in one process. */
static char *body_row_name(const struct bench__collector *c, const struct bench__entry *e)
{
    for (size_t i = 0; i < c->n_rows; i++)
        if (!strcmp(c->rows[i].source, e->full_name) && !strcmp(c->rows[i].name, e->full_name))
            return bench__xasprintf("%s (body)", e->full_name);
    return bench__xstrdup(e->full_name);
}

/* A line on stderr for each item a dead or hung worker left: a CI log that keeps only stderr
 * still names it (--group-by=list says them at the end, with its other failures). */
static void say_abandoned(struct bench__collector *c, const char *name, const char *error)
{
    if (c->listing)
        return;
    quiet(c);
    fprintf(stderr, "libbench: %s: %s\n", name, error);
    fflush(stderr);
}

bool bench__collector_abandon(struct bench__collector *c, const char *what)
{
    if (c->item == BENCH__ITEM_NONE || c->item_entry >= c->suite->count)
        return false;
    const struct bench__entry *e = &c->suite->entries[c->item_entry];
    char *reason = abandon_reason(c, what);
    if (c->item == BENCH__ITEM_WORKLOAD) {
        struct bench__window *win = new_window(c);
        win->name = bench__xstrdup(e->full_name);
        win->reps = e->test->workload->reps ? e->test->workload->reps : 1;
        win->state = BENCH__ROW_ERROR;
        win->error = reason;
        win->wall = (struct bench__window_time){NAN, NAN, NAN, NAN, NAN, NAN, NULL};
        for (int i = 0; i < 5; i++)
            win->psi[i] = NAN;
        win->note = bench__xstrdup("");
        c->ended[c->item_entry] = true;
        c->abandoned[c->item_entry] = true;
        say_abandoned(c, win->name, win->error);
    } else {
        bool a_case = c->item == BENCH__ITEM_CASE;
        char *name = a_case ? bench__xstrdup(c->item_name) : body_row_name(c, e);
        struct bench__row *r = new_row(c);
        r->name = name;
        r->source = bench__xstrdup(e->full_name);
        r->labels = a_case ? copy_labels(c->item_labels, c->item_n_labels)
                           : bench__xcalloc(1, sizeof *r->labels);
        r->n_labels = a_case ? c->item_n_labels : 0;
        r->state = BENCH__ROW_ERROR;
        r->stats = (struct bench__summary){NAN, NAN, NAN, NAN};
        r->error = reason;
        admit_row(c);
        say_abandoned(c, c->rows[c->n_rows - 1].name, c->rows[c->n_rows - 1].error);
        if (!a_case) {
            c->abandoned[c->item_entry] = true;
            if (!c->cfg->n_group_by) /* streamed: the body's table is due now */
                bench__collect_body_table(c, c->item_entry);
        }
    }
    c->item = BENCH__ITEM_NONE;
    return true;
}

const char *bench__collector_item_word(const struct bench__collector *c)
{
    if (c->item == BENCH__ITEM_NONE)
        return NULL;
    return c->item == BENCH__ITEM_WORKLOAD ? "workload" : "benchmark";
}

void bench__collector_lost(struct bench__collector *c, const char *sentence)
{
    quiet(c);
    fprintf(stderr, "libbench: %s; the run stops here, incomplete\n", sentence);
    free(c->lost_reason);
    c->lost_reason = bench__xasprintf("%s; the run stopped there", sentence);
    c->lost = true;
}

const struct bench__resume *bench__collector_resume(struct bench__collector *c)
{
    struct bench__resume *r = &c->resume;
    free_resume(r);
    c->n_slots = 0; /* the next worker's slots start again */
    r->active = true;
    size_t n = c->suite->count;
    r->skip_entry = bench__xcalloc(n + 1, sizeof *r->skip_entry);
    r->register_only = bench__xcalloc(n + 1, sizeof *r->register_only);
    bool grouped = c->cfg->n_group_by > 0;
    for (size_t i = 0; i < n; i++) {
        bool workload = c->suite->entries[i].test->kind == BENCH_KIND_WORKLOAD;
        r->skip_entry[i] = c->abandoned[i] || c->drawn[i] || (workload && c->ended[i]);
        r->register_only[i] = !r->skip_entry[i] && !workload && c->ended[i];
    }
    /* the cases begun so far, as their worker named them (a row the collector renamed keeps
     * the identity it was begun with), sorted for bsearch */
    r->skip_case = bench__xcalloc(c->n_begun_cases + 1, sizeof *r->skip_case);
    memcpy(r->skip_case, c->begun_cases, c->n_begun_cases * sizeof *r->skip_case);
    r->n_skip_case = c->n_begun_cases;
    if (r->n_skip_case > 1)
        qsort(r->skip_case, r->n_skip_case, sizeof *r->skip_case, compare_strings);
    if (grouped && c->group_keys) {
        r->group_keys = bench__xcalloc(c->n_rows + 1, sizeof *r->group_keys);
        for (size_t i = 0; i < c->n_rows; i++)
            r->group_keys[r->n_group_keys++] =
                bench__group_key(&c->rows[i], c->group_keys, c->n_group_keys);
    }
    r->drawn_groups = c->drawn_groups;
    r->n_drawn_groups = c->n_drawn_groups;
    r->said = c->said;
    r->n_said = c->n_said;
    r->clock_overhead_ns = c->clock_overhead_ns;
    r->provenance = bench__xcalloc(c->n_provenance + 1, sizeof *r->provenance);
    for (size_t i = 0; i < c->n_provenance; i++)
        r->provenance[r->n_provenance++] = c->provenance[i];
    r->client_columns = bench__xcalloc(c->n_cols + 1, sizeof *r->client_columns);
    for (size_t i = 0; i < c->n_cols; i++)
        if (!strcmp(c->cols[i]->source, "client"))
            r->client_columns[r->n_client_columns++] = (char *)c->cols[i]->name;
    return r;
}

/* ---- the end ------------------------------------------------------------------------------ */

/* A measured row gets a null cell for every document column it has no value for (a requested
 * source that is absent): the document says "not measured", never 0. */
static void fill_unmeasured(struct bench__collector *c)
{
    for (size_t r = 0; r < c->n_rows; r++) {
        struct bench__row *row = &c->rows[r];
        if (row->state != BENCH__ROW_OK)
            continue;
        for (size_t k = 0; k < c->n_doc; k++) {
            if (!strcmp(c->doc[k]->source, "client"))
                continue;
            bool has = false;
            for (size_t i = 0; i < row->n_cells && !has; i++)
                has = row->cells[i].column == c->doc[k];
            if (has)
                continue;
            row->cells = bench__xrealloc(row->cells, (row->n_cells + 1) * sizeof *row->cells);
            row->cells[row->n_cells++] = (struct bench__cell){c->doc[k], NAN, false};
        }
    }
}

static int write_json(struct bench__collector *c)
{
    fill_unmeasured(c);
    struct bench__report report = {
        .columns = c->doc,
        .n_columns = c->n_doc,
        .rows = c->rows,
        .n_rows = c->n_rows,
        .windows = c->workloads.windows,
        .n_windows = c->workloads.n,
        .has_windows = c->workloads.ran,
    };
    bench__meta_collect(&report.meta, c->suite, c->min_time_ms);
    report.meta.clock_overhead_ns = c->clock_overhead_ns;
    report.meta.rounds = c->rounds;
    report.meta.provenance = c->provenance;
    report.meta.n_provenance = c->n_provenance;
    report.meta.incomplete = c->lost_reason;
    report.meta.environment = c->environment;
    char err[BENCH__ERROR_MAX];
    int rc =
        bench__document_write(&report, c->cfg->bench_format, c->cfg->bench_json, err, sizeof err);
    if (rc)
        fprintf(stderr, "--bench-json: %s\n", err);
    report.meta.provenance = NULL;
    report.meta.n_provenance = 0;
    bench__meta_free(&report.meta);
    return rc;
}

/* --profile-folded: every row's stacks under the row's name (its labels after it), one
 * "frames count" line each, written atomically. */
static int write_folded(const struct bench__collector *c)
{
    char *all = bench__xstrdup("");
    size_t len = 0, cap = 1;
    for (size_t r = 0; r < c->n_rows; r++) {
        const struct bench__row *row = &c->rows[r];
        if (!row->profile || row->profile->unavailable)
            continue;
        char *root = bench__xstrdup(row->name);
        for (size_t i = 0; i < row->n_labels; i++) {
            char *longer =
                bench__xasprintf("%s %s=%s", root, row->labels[i].key, row->labels[i].value);
            free(root);
            root = longer;
        }
        char *text = bench__profile_folded(row->profile, root);
        size_t n = strlen(text);
        all = bench__grow(all, &cap, len + n + 1, 1);
        memcpy(all + len, text, n + 1);
        len += n;
        free(text);
        free(root);
    }
    int rc = bench__write_file(c->cfg->profile_folded, all, len);
    if (rc)
        fprintf(stderr, "--profile-folded: cannot write '%s': %s\n", c->cfg->profile_folded,
                bench__write_file_strerror(rc));
    free(all);
    return rc;
}

/* --group-by=list prints no table: a body that died while registering its cases is said here. */
static int listing_status(const struct bench__collector *c)
{
    bool failed = c->worker_status != 0 || c->lost;
    for (size_t r = 0; r < c->n_rows; r++)
        if (c->rows[r].state == BENCH__ROW_ERROR) {
            fprintf(stderr, "%s: %s\n", c->rows[r].name, c->rows[r].error);
            failed = true;
        }
    return failed ? 1 : 0;
}

/* A run that stopped incomplete still shows every row it has: the tables not drawn yet. */
static void draw_the_rest(struct bench__collector *c)
{
    if (c->cfg->n_group_by == 0) {
        for (size_t i = 0; i < c->suite->count; i++)
            bench__collect_body_table(c, i);
    } else if (c->group_keys) {
        for (size_t r = 0; r < c->n_rows; r++) {
            char *key = bench__group_key(&c->rows[r], c->group_keys, c->n_group_keys);
            bench__collect_group_table(c, key); /* once per group: drawn groups are skipped */
            free(key);
        }
    } else { /* the keys never came: the rows in one table */
        const struct bench__row **rows = bench__xcalloc(c->n_rows + 1, sizeof *rows);
        for (size_t r = 0; r < c->n_rows; r++)
            rows[r] = &c->rows[r];
        draw(c, rows, c->n_rows, NULL, 0, NULL);
        free(rows);
    }
    bench__collect_workloads_done(c);
}

int bench__collector_finish(struct bench__collector *c)
{
    quiet(c);
    if (c->listing)
        return listing_status(c);
    if (!c->done)
        draw_the_rest(c);
    size_t errors = c->workloads.failures;
    for (size_t r = 0; r < c->n_rows; r++)
        errors += c->rows[r].state == BENCH__ROW_ERROR;
    for (size_t i = 0; i < c->workloads.n; i++)
        errors += c->workloads.windows[i].state == BENCH__ROW_ERROR;
    if (c->cfg->bench_json && write_json(c) != 0)
        errors++;
    if (c->cfg->profile_folded && write_folded(c) != 0)
        errors++;
    if (c->worker_status == 2)
        return 2; /* a usage error found at the end (an unknown --metrics name) beats a failure */
    return errors || c->worker_status || c->lost ? 1 : 0;
}
