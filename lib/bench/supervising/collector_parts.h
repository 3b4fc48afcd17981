/* SPDX-License-Identifier: MIT */
/* collector_parts.h: the collector's state, shared by its parts, its handlers of the measuring
 * side's events (one per line of events.def) and what one part asks of another. Seen only by
 * collector.c, store.c, live.c, abandoned.c and document.c. */
#ifndef BENCH_BENCH_SUPERVISING_COLLECTOR_PARTS_H
#define BENCH_BENCH_SUPERVISING_COLLECTOR_PARTS_H

#include "../../report/table.h"
#include "../../report/ticker.h"
#include "collector.h"

#define BENCH__TAIL_MAX 1024 /* bytes of a worker's latest output kept for a crash's note */

/* The latest output of the item in progress, on stdout or stderr. */
struct bench__tail {
    char text[BENCH__TAIL_MAX];
    size_t len;
};

struct bench__collector {
    const struct bench__config *cfg;
    const struct bench__suite *suite;
    uint64_t min_time_ms;
    bool in_process; /* the measuring side's output passes by: no frame drawn in place */
    /* ---- live.c ---- */
    struct bench__ticker ticker; /* the only painter of the live line */
    struct bench__term out;      /* of stdout: the table drawn in place, colour */
    size_t live_lines;           /* lines of the frame drawn in place now on stdout; 0: none */
    size_t live_frames;
    size_t total;               /* benchmarks and workloads of the suite: the live count's total */
    struct bench__tail tail[2]; /* the latest output of the item in progress: stdout, stderr */
    /* ---- store.c ---- */
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
    char **group_keys; /* grouped mode: NULL until the keys are known */
    size_t n_group_keys;
    struct bench__workloads workloads;
    double clock_overhead_ns;
    unsigned rounds;
    char **provenance;
    size_t n_provenance;
    char **said; /* keys of once-per-run disclosures made */
    size_t n_said;
    /* ---- collector.c: the item in progress, and what each suite entry came to ---- */
    enum bench__item item;
    int64_t item_since;
    size_t item_entry;
    char *item_name;
    struct bench__kv *item_labels;
    size_t item_n_labels;
    bool *ended;     /* per suite entry: a body ran (rows sent, cases registered); a workload ran */
    bool *drawn;     /* per suite entry: a streamed body's table was drawn */
    bool *abandoned; /* per suite entry: a crash or a timeout ended it */
    char **begun_cases; /* the identity of every case a worker began: none is begun twice */
    size_t n_begun_cases, cap_begun_cases;
    bool listing; /* --group-by=list: the worker prints, nothing is measured */
    bool done;
    int worker_status; /* what the measuring side reported with its end: 1 a --group-by=list body
                        * failed, 2 a usage error found at the end */
    /* ---- abandoned.c ---- */
    bool lost;                   /* a worker ended outside any item: the run is incomplete */
    char *lost_reason;           /* how, for the document */
    struct bench__resume resume; /* the resume state handed to the next worker */
    /* ---- document.c ---- */
    const struct bench__environment *environment; /* NULL: not checked */
    struct bench__table_memory memory;
    char **drawn_groups;
    size_t n_drawn_groups;
    bool workloads_drawn;
};

/* ---- the handlers: bench__collect_<event>(ctx, event), one per event of events.def --------
 * columns (store.c): the column sets in force, each column kept with its first description.
 * begin (collector.c): work on an item begins: `entry` is its suite index (the body of a case),
 *   `name` its name (a case's labels too), `round` the sampling round of a body.
 * sync (collector.c): nothing to do in this process (the wire's encoder waits for the supervisor).
 * row (store.c): a row (copied; its cells name their columns). `slot` is its place in the
 *   worker: a row sent again from the same slot of the same worker replaces the earlier copy (a
 *   loop's row is sent when its timing ends, and again with its counters after the counting
 *   passes).
 * body_end (collector.c): the body ran (its rows were sent, its cases registered).
 * body_table (document.c): streamed mode: the body's cases were measured too: its table.
 * group_keys (store.c), group_table (document.c): grouped mode: the --group-by keys in force,
 *   then one table per group key as it completes.
 * window (store.c): a window of the workload in progress (copied, with its totals' descriptions).
 * workload_end (collector.c): the workload ended; `failures` outside its windows.
 * workloads_done (document.c): every workload ran: their table.
 * clock, rounds, provenance, said (store.c): facts of the run: the clock's cost, the sampling
 *   rounds, a provenance fact, a once-per-run disclosure made (a later worker does not repeat it).
 * note (live.c): a line of the library's own for stderr: passed on, the live line cleared first;
 *   not the output of the item in progress.
 * done (collector.c): the measuring side finished the run; `status` is its own verdict (non-zero
 *   when --group-by=list saw a failing body, 2 for a usage error found at the end). */
#define BENCH__EVENT(name, fields)                                                                 \
    BENCH__HIDDEN void bench__collect_##name(void *ctx, const struct bench__event_##name *event);
#include "../events.def"
#undef BENCH__EVENT

/* ---- store.c -------------------------------------------------------------------------------- */

BENCH__HIDDEN void bench__store_free(struct bench__collector *c);
/* A new row (the last), zeroed but for its contention (NaN); admit it once it is filled. */
BENCH__HIDDEN struct bench__row *bench__store_new_row(struct bench__collector *c);
/* Take the new row into the document: when an earlier row has its cell (two workers each made
 * one), it becomes an error row named "name (2)", "(3)", ... (the first free one). */
BENCH__HIDDEN void bench__store_admit_row(struct bench__collector *c);
/* A new window (the last), zeroed. */
BENCH__HIDDEN struct bench__window *bench__store_new_window(struct bench__collector *c);
BENCH__HIDDEN struct bench__kv *bench__store_copy_labels(const struct bench__kv *labels, size_t n);
BENCH__HIDDEN void bench__store_free_labels(struct bench__kv *labels, size_t n);
BENCH__HIDDEN void bench__strings_free(char **list, size_t n);

/* ---- live.c --------------------------------------------------------------------------------- */

/* Nothing live on the terminal: before any other output. */
BENCH__HIDDEN void bench__live_quiet(struct bench__collector *c);
/* The item that began (c->item*) on the live line, or as the last row of its table drawn in
 * place. */
BENCH__HIDDEN void bench__live_begin(struct bench__collector *c, unsigned round, unsigned rounds);

/* ---- abandoned.c ---------------------------------------------------------------------------- */

BENCH__HIDDEN void bench__resume_free(struct bench__resume *r);

/* ---- document.c ----------------------------------------------------------------------------- */

BENCH__HIDDEN void bench__document_free(struct bench__collector *c);
/* Streamed mode: the table of a body's rows, once. */
BENCH__HIDDEN void bench__document_body_table(struct bench__collector *c, size_t entry);

#endif /* BENCH_BENCH_SUPERVISING_COLLECTOR_PARTS_H */
