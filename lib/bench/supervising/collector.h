/* SPDX-License-Identifier: MIT */
/* collector.h: the side of a --bench run that keeps what was measured and shows it: the column
 * sets, the rows and windows (owned copies), the live line, the tables (streamed per body or per
 * group), the JSON document and the exit status. The measuring side (a worker process, or this
 * process for --bench-in-process and white-box tests) reaches it through its sink (events.h); the
 * supervisor hands it the worker's output, turns a worker that died or hung into an error row
 * here, and starts the next worker from its resume state. It never runs a body. Its parts:
 * collector.c (its life, the sink, the item in progress), store.c, live.c, abandoned.c and
 * document.c (collector_parts.h). */
#ifndef BENCH_BENCH_SUPERVISING_COLLECTOR_H
#define BENCH_BENCH_SUPERVISING_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../model/report.h"
#include "../../suite/registry.h"
#include "../events.h"
#include "../measuring/run.h"

struct bench__collector;

/* A collector for a run of `suite`; `in_process`: the measuring side runs in this process (its
 * output passes the collector by, so no frame is drawn in place). */
BENCH__HIDDEN struct bench__collector *bench__collector_new(const struct bench__config *cfg,
                                                            const struct bench__suite *suite,
                                                            uint64_t min_time_ms, bool in_process);
BENCH__HIDDEN void bench__collector_free(struct bench__collector *c);
/* The environment checked before the run (borrowed: it must outlive the collector), for the
 * document's meta. */
BENCH__HIDDEN void bench__collector_environment(struct bench__collector *c,
                                                const struct bench__environment *env);
/* The collector as a sink: every event of events.def goes to its handler (collector_parts.h). */
BENCH__HIDDEN struct bench__sink bench__collector_sink(struct bench__collector *c);

/* ---- the supervisor's ---------------------------------------------------------------------- */

/* Text the measuring process wrote to stdout or stderr: passed on (the live line cleared first),
 * its tail kept for the notes of a crash. */
BENCH__HIDDEN void bench__collector_output(struct bench__collector *c, bool to_stderr,
                                           const char *data, size_t len);
/* The measuring side sent its done event. */
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
/* Work in progress since (deadline clock ns), or -1 when nothing is in progress: the timeout's
 * start. */
BENCH__HIDDEN int64_t bench__collector_item_since(const struct bench__collector *c);
/* The end of the run: the live line cleared, the document written (not for --group-by=list);
 * returns the exit status. */
BENCH__HIDDEN int bench__collector_finish(struct bench__collector *c);

#endif /* BENCH_BENCH_SUPERVISING_COLLECTOR_H */
