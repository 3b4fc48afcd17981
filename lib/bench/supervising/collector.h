/* SPDX-License-Identifier: MIT */
/* collector.h: the side of a --bench run that keeps what was measured and shows it: the column
 * sets, the rows and windows (owned copies), the live line, the tables (streamed per body or per
 * group), the JSON document and the exit status. The measuring side (a worker process, or the same
 * process for white-box tests) reaches it through events (emit.c, wire.c); the supervisor turns a
 * worker that died or hung into an error row here, and starts the next worker from its resume
 * state. It never runs a body. */
#ifndef BENCH_MEASURE_COLLECTOR_H
#define BENCH_MEASURE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/report.h"
#include "../report/table.h"
#include "../report/ticker.h"
#include "../suite/registry.h"

/* What a measuring process is busy with (the item a crash or a timeout is charged to). */
enum bench__item {
    BENCH__ITEM_NONE,
    BENCH__ITEM_BODY,     /* a BENCHMARK body (its loops, its counting passes) */
    BENCH__ITEM_ROUND,    /* a BENCHMARK body in an early sampling round */
    BENCH__ITEM_CASE,     /* one bench_case row */
    BENCH__ITEM_WORKLOAD, /* a WORKLOAD test */
    BENCH__ITEM_REGISTER, /* a body run again only to register its cases (nothing measured) */
};

/* A column as the measuring side described it (the collector keeps its own copies). */
struct bench__column_wire {
    const char *name, *header, *source;
    enum bench__format format;
    enum bench__class cls;
    bool is_default;
};

/* What a later worker must know of the run so far: what not to run again, and the disclosures
 * already made. Built by the collector; a worker forked after it reads it. */
struct bench__resume {
    bool active;         /* this worker continues a run */
    bool *skip_entry;    /* per suite entry: not run (crashed, or its table was drawn) */
    bool *register_only; /* per suite entry: run once to register its cases only */
    char **skip_case;    /* identities (bench__case_identity) of the cases begun already, sorted */
    size_t n_skip_case;
    char **group_keys; /* grouped mode: the group of every row the collector holds */
    size_t n_group_keys;
    char **drawn_groups; /* grouped mode: the groups whose table was drawn */
    size_t n_drawn_groups;
    double clock_overhead_ns; /* NaN: not measured yet */
    char **provenance;        /* facts already said */
    size_t n_provenance;
    char **client_columns; /* client metric columns already made: name, header */
    size_t n_client_columns;
    char **said; /* the keys of once-per-run disclosures already made */
    size_t n_said;
};

struct bench__collector;

BENCH__HIDDEN struct bench__collector *bench__collector_new(const struct bench__config *cfg,
                                                            const struct bench__suite *suite,
                                                            uint64_t min_time_ms);
BENCH__HIDDEN void bench__collector_free(struct bench__collector *c);

/* The environment checked before the run (borrowed: it must outlive the collector), for the
 * document's meta. */
BENCH__HIDDEN void bench__collector_environment(struct bench__collector *c,
                                                const struct bench__environment *env);

/* ---- events (the measuring side's, in order) ---------------------------------------------- */

BENCH__HIDDEN void bench__collect_columns(struct bench__collector *c,
                                          const struct bench__column_wire *cols, size_t n,
                                          const char *const *doc, size_t n_doc,
                                          const char *const *table, size_t n_table,
                                          const char *const *workload_table, size_t n_wl);
/* Work on `item` begins: `entry` is its suite index (the body of a case), `name` its name (a
 * case's labels too), `round` the sampling round of a body. */
BENCH__HIDDEN void bench__collect_begin(struct bench__collector *c, enum bench__item item,
                                        size_t entry, const char *name,
                                        const struct bench__kv *labels, size_t n_labels,
                                        unsigned round, unsigned rounds);
/* A row (copied; its cells name their columns). `slot` is its place in the worker: a row sent
 * again from the same slot of the same worker replaces the earlier copy (a loop's row is sent
 * when its timing ends, and again with its counters after the body's counting passes). */
BENCH__HIDDEN void bench__collect_row(struct bench__collector *c, const struct bench__row *row,
                                      const char *const *cell_columns, size_t slot);
/* The body ran (its rows were sent, its cases registered). */
BENCH__HIDDEN void bench__collect_body_end(struct bench__collector *c, size_t entry);
/* Streamed mode: the body's cases were measured too: draw its table. */
BENCH__HIDDEN void bench__collect_body_table(struct bench__collector *c, size_t entry);
/* Grouped mode: the --group-by keys in force, then one table per group key as it completes. */
BENCH__HIDDEN void bench__collect_group_keys(struct bench__collector *c, const char *const *keys,
                                             size_t n);
BENCH__HIDDEN void bench__collect_group_table(struct bench__collector *c, const char *group);
/* A window of the workload in progress (copied, with the descriptions of its totals). */
BENCH__HIDDEN void bench__collect_window(struct bench__collector *c, const struct bench__window *w);
BENCH__HIDDEN void bench__collect_workload_end(struct bench__collector *c, size_t entry,
                                               size_t failures);
/* Every workload ran: draw their table. */
BENCH__HIDDEN void bench__collect_workloads_done(struct bench__collector *c);
BENCH__HIDDEN void bench__collect_clock(struct bench__collector *c, double overhead_ns);
BENCH__HIDDEN void bench__collect_rounds(struct bench__collector *c, unsigned rounds);
BENCH__HIDDEN void bench__collect_provenance(struct bench__collector *c, const char *fact);
/* A once-per-run disclosure (its key) was made: a later worker does not make it again. */
BENCH__HIDDEN void bench__collect_said(struct bench__collector *c, const char *key);
/* Text the measuring side wrote to stdout or stderr: passed on (the live line cleared first),
 * its tail kept for the notes of a crash. */
BENCH__HIDDEN void bench__collect_output(struct bench__collector *c, bool to_stderr,
                                         const char *data, size_t len);
/* A line of the library's own for stderr (a note): passed on, the live line cleared first; not
 * the output of the item in progress. */
BENCH__HIDDEN void bench__collect_note(struct bench__collector *c, const char *text);
/* The measuring side finished the run; `status` is its own verdict (non-zero when
 * --group-by=list saw a failing body), 0 otherwise. */
BENCH__HIDDEN void bench__collect_done(struct bench__collector *c, int status);

/* ---- the supervisor's ---------------------------------------------------------------------- */

BENCH__HIDDEN bool bench__collector_finished(const struct bench__collector *c);
/* The measuring process ended before it finished: the item in progress becomes an error row
 * (an error window for a workload) saying `what`, with the tail of its output; a streamed body's
 * table is drawn. Returns false when no item was in progress (nothing to charge it to). */
BENCH__HIDDEN bool bench__collector_abandon(struct bench__collector *c, const char *what);
/* "workload" while a WORKLOAD is in progress, "benchmark" while another item is, NULL when none
 * is: what a worker that exited did not finish. */
BENCH__HIDDEN const char *bench__collector_item_word(const struct bench__collector *c);
/* The run cannot go on (`sentence`: "the measuring process was killed by SIGSEGV outside any
 * benchmark or workload", "no measuring process could be started (...)"): said on stderr and in
 * the document (meta.incomplete), and the run fails; nothing more is measured. */
BENCH__HIDDEN void bench__collector_lost(struct bench__collector *c, const char *sentence);
/* The resume state for the next worker (owned by the collector, valid until the next call). */
BENCH__HIDDEN const struct bench__resume *bench__collector_resume(struct bench__collector *c);
/* Work in progress since (clock ns), or -1 when nothing is in progress: the timeout's start. */
BENCH__HIDDEN int64_t bench__collector_item_since(const struct bench__collector *c);
/* The end of the run: the live line cleared, the document written (not for --group-by=list);
 * returns the exit status. */
BENCH__HIDDEN int bench__collector_finish(struct bench__collector *c);

#endif /* BENCH_MEASURE_COLLECTOR_H */
