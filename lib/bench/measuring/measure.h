/* SPDX-License-Identifier: MIT */
/* measure.h: the state of a --bench run of BENCHMARK bodies, shared by the files of
 * bench/measuring/: the body dispatch (body.c), the iteration loop (iteration.c), bench_case
 * registration and measurement (cases.c, case_run.c), counting passes (counting.c), sampling
 * rounds (rounds.c), rows (rows.c), the events it reports (emit.c) and the run (run.c). Not seen
 * outside bench/measuring/: the other folders read its small headers (run.h, sampler.h,
 * identity.h, group_keys.h). */
#ifndef BENCH_BENCH_MEASURING_MEASURE_H
#define BENCH_BENCH_MEASURING_MEASURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../catalog/catalog.h"
#include "../../model/report.h"
#include "../../suite/context.h"
#include "../../suite/registry.h"
#include "../events.h"
#include "../host/contention.h"
#include "identity.h"
#include "run.h"
#include "sampler.h"

/* A client metric of a case, bound to its column. */
struct bench__metric_def {
    const struct bench__column_desc *column;
    double amount;
    enum bench_metric_mode mode;
};

/* What the earlier sampling rounds (--bench-rounds) left for one batched loop of a body: the
 * iteration count found by doubling in the first round, and the samples taken so far. */
struct bench__round_loop {
    const struct bench__entry *entry;
    unsigned ordinal; /* the loop's place in its body, 1-based; 0 = the whole body */
    uint64_t count;
    size_t n;
    double samples[BENCH__SAMPLE_COUNT];
    double cpu_sum_ns; /* the thread CPU time of those samples */
    bool cpu_unknown;
    struct bench__contention contention; /* what its timing spanned so far */
};

/* A bench_case registered by a body, measured after the body returns. */
struct bench__pending {
    char *name;
    struct bench__kv *labels;
    size_t n_labels;
    void *state;
    void (*setup)(void *);
    void (*timed)(void *);
    int (*after)(void *, const char **);
    void (*teardown)(void *);
    struct bench__metric_def *metrics;
    size_t n_metrics;
    uint64_t iterations;
    const struct bench__entry *entry;
    char *refused; /* a registration error: becomes an error row */
    char *group;   /* --group-by key */
    bool skip;     /* measured (or crashed) by an earlier worker: not measured again */
    bool measured; /* its row exists (and holds its labels now) */
};

/* The cells of a run by hash (identity.c): rows and registered cases. */
struct bench__cell_slot {
    uint64_t hash;
    size_t ref; /* 0 empty, 2i + 1 row i, 2i + 2 m->pending[i] */
};
struct bench__cell_index {
    struct bench__cell_slot *slots;
    size_t cap, used;
    size_t rows_indexed; /* rows[0 .. rows_indexed) are in it */
};

/* --profile in the measuring process (profile_pass.c). */
#define BENCH__PROFILE_BUDGET_NS 3e8 /* a pass runs about 300 ms of the body's time */
struct bench__ip_sampling;
struct bench__symbolizer;
struct bench__profile_state {
    bool wanted; /* --profile, and this run measures */
    unsigned hz;
    struct bench__ip_sampling *sampling; /* NULL: no pass (reason) */
    struct bench__symbolizer *symbols;   /* NULL: samples unsymbolised (symbols_reason) */
    char reason[240];
    char symbols_reason[240];
    void (*body)(void); /* the body the pass calls (its file is told from libbench's) */
};

/* --bench-serve (serve.c): what the body run for one command does. */
struct bench__serve {
    int op;             /* list, calibrate or sample (serve.c) */
    unsigned target;    /* the BENCH_ITER loop to time, 1-based; 0: none (every loop runs once) */
    uint64_t count;     /* sample: iterations to time; calibrate: the count found */
    int64_t elapsed_ns; /* sample: the one sample */
    int64_t start_ns; /* sample: begin at this bench__clock_measure_ns (compare's --duet); 0: now */
    int64_t late_ns;  /* sample with start_ns: how late the timed loop began (0: on time) */
    bool done;        /* the sample or the calibration was taken */
    char error[512];  /* why not, when the body failed, skipped or left its loop */
};

struct bench__measure {
    const struct bench__config *cfg;
    const struct bench__suite *suite;   /* the bodies of the run, for the names their rows take */
    const struct bench__sink *sink;     /* where every event goes (events.h) */
    const struct bench__resume *resume; /* what earlier workers did; NULL in a fresh run */
    bool columns_sent;                  /* the column sets went out with n_columns_sent columns */
    size_t n_columns_sent;
    int64_t budget_ns;
    bool register_only; /* --group-by=list: loops run once, nothing is measured */
    /* sampling rounds: rounds 0 .. rounds-2 only take samples of batched loops (no rows, no
     * cases, no counting); the last round is the ordinary run that finishes every row */
    unsigned rounds, round;
    struct bench__round_loop *round_loops;
    size_t n_round_loops, cap_round_loops;
    /* the body being run */
    const struct bench__entry *entry;
    uint64_t pin;
    bool whole_body;
    unsigned loops;
    bool registered;
    struct bench__sampler sampler;
    int64_t t0;
    int64_t cpu0; /* the thread CPU clock before the sample that t0 opened (-1: unreadable) */
    /* the contention of the row being timed: its spans so far, and the edge its timing began at */
    struct bench__contention contention;
    struct bench__contention_edge contention_edge;
    bool loop_open;           /* a BENCH_ITER loop began and has not finished its row */
    double clock_overhead_ns; /* NaN until the first per-call case */
    /* results */
    struct bench__row *rows;
    size_t n_rows, cap_rows;
    struct bench__pending *pending;
    size_t n_pending, cap_pending;
    struct bench__column_desc **columns; /* the catalog of this run: client columns */
    size_t n_columns;
    char **provenance;
    size_t n_provenance;
    char **said; /* keys of the once-per-run disclosures this worker made (bench__say_once) */
    size_t n_said;
    /* per-call samples of the case being measured */
    double *samples;
    size_t n_samples, cap_samples;
    /* counting passes */
    struct bench__catalog catalog;
    /* per catalog source: what one empty bracket read per family column (NULL until this worker
     * measured it, bench__count_disclose_bracket) */
    double **empty_bracket;
    struct bench__workloads workloads;
    struct bench__profile_state profile;
    struct {
        bool active;   /* a body re-runs for a counting pass */
        bool profile;  /* the pass is --profile's sampling pass, not a source's */
        size_t source; /* index in catalog.sources */
        bool inert;    /* this loop is not counted (its row failed): it runs once */
        bool bracket_open;
        size_t row;
        uint64_t iterations, batch, done, current, brackets;
    } count;
    size_t *loop_rows; /* row index of each BENCH_ITER loop of the current body */
    size_t n_loop_rows, cap_loop_rows;
    struct bench__cell_index cells; /* one row per name and labels (identity.c) */
    struct bench__serve *serve;     /* --bench-serve: the one sample a body takes; else NULL */
};

/* ---- rows.c: rows and client columns ---------------------------------------------------- */

/* A new row of the body being run, all numbers NaN until measured. */
BENCH__HIDDEN struct bench__row *bench__row_new(struct bench__measure *m, const char *name);
/* Turn a row into an error or skip row with the first line of the message; numbers dropped. */
BENCH__HIDDEN void bench__row_fail(struct bench__row *r, enum bench__outcome outcome,
                                   const char *message);
/* Row name of the k-th loop of a body: the test's name, then "#2", "#3", ... (malloc'd). */
BENCH__HIDDEN char *bench__loop_name(const struct bench__entry *e, unsigned ordinal);
/* The column of a client metric (`<unit>/s` for a rate; "user." when the name is taken), made
 * once per run; NULL when out of memory. */
BENCH__HIDDEN const struct bench__column_desc *
bench__client_column(struct bench__measure *m, const char *unit, enum bench_metric_mode mode);
/* A client column an earlier worker of this run made, made again under the same name and in the
 * same order, so the column sets of the run do not depend on where a worker died. */
BENCH__HIDDEN void bench__client_column_resume(struct bench__measure *m, const char *name);

/* ---- rows.c: what the rest of the machine used while a row was timed (host/contention.h) - */

/* Read the edge a row's timing begins at (before its first sample). */
BENCH__HIDDEN void bench__row_contention_begin(struct bench__measure *m);
/* Read the edge it ends at (after its last sample) and add the span to m->contention; a failed
 * read is said once per run. */
BENCH__HIDDEN void bench__row_contention_end(struct bench__measure *m);
/* The row's contention from m->contention (NaN when not measured). */
BENCH__HIDDEN double bench__row_contention(const struct bench__measure *m);
/* Why it is NaN for a measured row (row.h: BENCH__CONTENTION_SHORT, ...), 0 when it is not. */
BENCH__HIDDEN int bench__row_contention_gap(const struct bench__measure *m);

/* ---- identity.c: one row per name and labels in a run's document (and identity.h) ------- */

/* The BENCHMARK of the run whose own rows may take `name` (without labels): its full name F,
 * F#k for its k-th loop, "F (body)"; NULL when none does (or the run's suite is not known). */
BENCH__HIDDEN const struct bench__entry *bench__body_row_owner(const struct bench__measure *m,
                                                               const char *name);
/* The row name of a case that the test `e` registers: "<file-stem>.<case name>", the stem of
 * the file that defines `e`, as a BENCHMARK's own rows are named (malloc'd; NULL when out of
 * memory). */
BENCH__HIDDEN char *bench__case_row_name(const struct bench__entry *e, const char *case_name);
/* Why a case the body being run registers, as the row `name` (bench__case_row_name), cannot
 * have its cell (*why malloc'd, NULL when it can): an unlabelled name a BENCHMARK's rows take,
 * or a cell an earlier row or a case not measured yet has. 0 or BENCH_ENOMEM. */
BENCH__HIDDEN int bench__case_clash(struct bench__measure *m, const char *name,
                                    const struct bench_case_def *def, char **why);
/* Claim the cell of the case `p` being stored (m->pending[m->n_pending], not yet counted): a
 * refused case whose cell is taken is renamed "name (2)", "name (3)", ... (the first free
 * one) first. 0 or BENCH_ENOMEM. */
BENCH__HIDDEN int bench__case_claim(struct bench__measure *m, struct bench__pending *p);
/* The last check on a finished row: when an earlier row has its cell, it becomes an error row
 * under a free name. Every path that makes a row calls it once the row has its name and labels;
 * they do not change after that (the index keeps them). */
BENCH__HIDDEN void bench__row_settle(struct bench__measure *m, size_t index);
BENCH__HIDDEN void bench__cells_free(struct bench__measure *m);

/* ---- counting.c: counting passes ------------------------------------------------------- */

BENCH__HIDDEN void bench__count_pass_begin(struct bench__measure *m, size_t row,
                                           uint64_t iterations, uint64_t batch);
/* Read the pass and append the source's family as cells of the row. */
BENCH__HIDDEN void bench__count_pass_end(struct bench__measure *m);
BENCH__HIDDEN void bench__count_bracket_begin(struct bench__measure *m);
BENCH__HIDDEN void bench__count_bracket_end(struct bench__measure *m);
/* After a failure escaped a counted body: counters must not stay enabled. */
BENCH__HIDDEN void bench__count_close_bracket(struct bench__measure *m);
/* Calls in the next bracket of the pass. */
BENCH__HIDDEN uint64_t bench__count_next_batch(const struct bench__measure *m);
/* Per-call rows count one call per bracket: say once per source what an empty bracket reads. */
BENCH__HIDDEN void bench__count_disclose_bracket(struct bench__measure *m, size_t source);

/* ---- profile_pass.c: --profile ----------------------------------------------------------- */

/* Open the sampling event and the symbolizer (when --profile), and say once how it samples. */
BENCH__HIDDEN void bench__profile_open(struct bench__measure *m);
BENCH__HIDDEN void bench__profile_close(struct bench__measure *m);
/* A pass can run (the sampling event opened). */
BENCH__HIDDEN bool bench__profile_available(const struct bench__measure *m);
/* Calls (or loop iterations) of a pass: its time budget over the row's fastest sample (the
 * closest to its CPU time on a busy machine). A per-call row's pass is sized the same way: its
 * calls run back to back, with no bracket each. */
BENCH__HIDDEN uint64_t bench__profile_iterations(double fastest_ns);
/* A row of a --profile run that gets no pass: its profile says why. */
BENCH__HIDDEN void bench__profile_unavailable(struct bench__measure *m, size_t row);
/* A pass begins: the sampling event is enabled once for the whole pass (never per call, and
 * never through the counting bracket: issue 32, point 13); m->profile.body names the body. */
BENCH__HIDDEN void bench__profile_pass_begin(struct bench__measure *m);
/* Between two batches of a pass: the samples so far read from the ring (no system call). */
BENCH__HIDDEN void bench__profile_drain(struct bench__measure *m);
/* The pass ended (the event is disabled here): its samples symbolised and aggregated into the row's
 * profile. */
BENCH__HIDDEN void bench__profile_pass_end(struct bench__measure *m, size_t row,
                                           uint64_t iterations);

/* ---- rounds.c: sampling rounds (--bench-rounds) ---------------------------------------- */

/* An early round only samples; the last round is the ordinary run that finishes the rows. */
BENCH__HIDDEN bool bench__rounds_early(const struct bench__measure *m);
BENCH__HIDDEN struct bench__round_loop *bench__rounds_loop(struct bench__measure *m,
                                                           unsigned ordinal, bool create);
/* Start the sampler of a batched loop (ordinal 0: the whole body), resuming its rounds. */
BENCH__HIDDEN void bench__rounds_sampler_begin(struct bench__measure *m, unsigned ordinal);
/* An early round's loop ended: keep its count and samples for the next round. */
BENCH__HIDDEN void bench__rounds_keep(struct bench__measure *m, unsigned ordinal);

/* ---- iteration.c: batched rows (BENCH_ITER, bench_iter, whole bodies) ------------------ */

BENCH__HIDDEN void bench__whole_body_measure(struct bench__measure *m, bench_t *b);
/* The counting passes of a whole-body row: the body is called in brackets. */
BENCH__HIDDEN void bench__whole_body_count(struct bench__measure *m, bench_t *b, size_t row);
/* The counting passes of a body's BENCH_ITER rows: the body runs again once per source. */
BENCH__HIDDEN void bench__loops_count(struct bench__measure *m, bench_t *b);

/* ---- cases.c, case_run.c: bench_case rows ---------------------------------------------- */

BENCH__HIDDEN void bench__labels_free(struct bench__kv *labels, size_t n);
BENCH__HIDDEN void bench__pending_free(struct bench__pending *p);
/* Measure a registered case: setup, timed calls, counting passes, teardown; its row. */
BENCH__HIDDEN void bench__case_measure(struct bench__measure *m, struct bench__pending *p);

/* ---- body.c: BENCHMARK bodies ----------------------------------------------------------- */

/* Run one BENCHMARK body: BENCH_ITER loops measure inside it and bench_case rows queue; a body
 * that did neither is measured whole. A failure or skip becomes a row. */
BENCH__HIDDEN void bench__body_run(struct bench__measure *m, const struct bench__entry *e);

/* ---- emit.c: what the measuring side reports, through m->sink (events.def) ------------- */

/* The run's columns in `set` (client columns, then the catalog's), in a new array the caller
 * frees. */
BENCH__HIDDEN const struct bench__column_desc **
bench__run_columns(const struct bench__measure *m, enum bench__column_set set, size_t *n);
/* What the bodies printed (stdout, stderr) goes out before the event that follows it. */
BENCH__HIDDEN void bench__flush_output(void);
/* An event, after the bodies' output so far: bench__emit(m, body_end, index); its fields as
 * bench__sink_emit takes them (events.h). */
#define bench__emit(m, name, ...)                                                                  \
    (bench__flush_output(), bench__sink_emit((m)->sink, name, __VA_ARGS__))
#define bench__emit0(m, name) (bench__flush_output(), bench__sink_emit0((m)->sink, name))
/* The suite index of a body or workload, as events name it. */
static inline size_t bench__entry_index(const struct bench__measure *m,
                                        const struct bench__entry *e)
{
    return (size_t)(e - m->suite->entries);
}
/* The sync event: called before the bodies' code runs again. A sink that sends events elsewhere
 * sends those written so far and waits until they and the output written before them were taken,
 * so that a crash loses nothing, what a body prints is its own, and the other side is idle while
 * the body measures. */
BENCH__HIDDEN void bench__emit_flush(struct bench__measure *m);
/* The column sets, when they changed since they were last sent. */
BENCH__HIDDEN void bench__emit_columns(struct bench__measure *m);
/* Work on an item begins (and the sync event). */
BENCH__HIDDEN void bench__emit_begin(struct bench__measure *m, enum bench__item item,
                                     const struct bench__entry *e, const char *name,
                                     const struct bench__kv *labels, size_t n_labels);
/* The finished rows from index `first` on. */
BENCH__HIDDEN void bench__emit_rows(struct bench__measure *m, size_t first);
BENCH__HIDDEN void bench__emit_group_table(struct bench__measure *m, const char *group);
/* A finished window of the workload in progress (and the sync event). */
BENCH__HIDDEN void bench__emit_window(struct bench__measure *m, size_t index);
/* Should a once-per-run disclosure (named by `key`) be made now? True the first time in the run
 * (across workers): the caller makes it. */
BENCH__HIDDEN bool bench__say_once(struct bench__measure *m, const char *key);
/* A line for stderr (never sharing a line with the live line), and the sync event. */
BENCH__HIDDEN BENCH_PRINTF(2, 3) void bench__emit_note(struct bench__measure *m, const char *fmt,
                                                       ...);
BENCH__HIDDEN void bench__emit_done(struct bench__measure *m, int status);

/* ---- run.c: the measuring side of a run (its entry, bench__measure_suite, is in run.h) ---- */

/* Does this worker continue a run that earlier workers began (resume.c)? */
BENCH__HIDDEN bool bench__measure_resumed(const struct bench__measure *m);
/* Run a body and report it (its rows, its end); a body an earlier worker ran only registers its
 * cases again, and its cases that were measured (or crashed) are marked to skip. */
BENCH__HIDDEN void bench__body_run_reported(struct bench__measure *m, const struct bench__entry *e);

/* ---- serve.c: --bench-serve (its entry, bench__serve, is in run.h) --------------------- */

/* BENCH_ITER's begin and next when m->serve is set: the target loop is calibrated or timed for
 * one sample (t1 the clock read that ends it), every other loop runs once, untimed. */
BENCH__HIDDEN uint64_t bench__serve_iter_begin(struct bench__measure *m);
BENCH__HIDDEN uint64_t bench__serve_iter_next(struct bench__measure *m, int64_t t1);
/* The cases the last body run registered, dropped (and their cells). */
BENCH__HIDDEN void bench__serve_cases_clear(struct bench__measure *m);

/* ---- grouped.c: --group-by (the keys in force: group_keys.h) ------------------------------ */

/* --group-by=list: print the label keys of the registered cases; 1 when a body failed. */
BENCH__HIDDEN int bench__group_list(struct bench__measure *m);
BENCH__HIDDEN void bench__run_grouped(struct bench__measure *m, const size_t *order,
                                      size_t n_order);

#endif /* BENCH_BENCH_MEASURING_MEASURE_H */
