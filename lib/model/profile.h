/* SPDX-License-Identifier: MIT */
/* profile.h: where a benchmark spent its time, as the sampling pass of --profile found it: the
 * samples aggregated by function (self and inclusive), the lines of the hottest function, the
 * samples that could not be symbolised by reason, and the folded stacks. Pure: it is built from
 * frames the caller resolved, and never samples, symbolises or prints. */
#ifndef BENCH_MODEL_PROFILE_H
#define BENCH_MODEL_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/hidden.h"

#define BENCH__PROFILE_TOP 10      /* functions in the self and inclusive tables */
#define BENCH__PROFILE_TOP_LINES 5 /* lines of the hottest function */
/* Under this many samples a profile's shares are marked as estimates (docs/reference/cli.md). */
#define BENCH__PROFILE_MIN_SAMPLES 200

/* One resolved address (the symboliser's, borrowed while the profile is built). */
struct bench__profile_frame {
    const char *function; /* NULL: not symbolised (reason says why) */
    const char *file;     /* NULL: no line information */
    unsigned line;
    const char *module; /* the mapped file's base name, NULL when none */
    const char *reason; /* why function is NULL */
    /* the inlined functions at the address, outermost first, joined by ';'; NULL when none */
    const char *inlined;
};

/* One sample: its frames, the sampled instruction first, then its callers. */
struct bench__profile_sample {
    const struct bench__profile_frame *const *frames;
    size_t n;
};

/* One row of a profile table: a function (name, module), a source line (name "file:line") or a
 * reason samples were not symbolised (name the reason). */
struct bench__profile_entry {
    char *name;
    char *module; /* NULL when none */
    uint64_t samples;
};

/* A folded stack: frames from the outermost caller to the sampled function, joined by ';'. */
struct bench__profile_stack {
    char *frames;
    uint64_t samples;
};

struct bench__profile {
    char *unavailable;   /* non-NULL: no pass ran, and why; nothing below is meaningful */
    char *event;         /* "cpu-clock", "cycles" */
    double hz;           /* the rate asked */
    double hz_reached;   /* samples (body and harness) per second of the event's running time; NaN:
                          * unknown */
    double running_ns;   /* the time the sampling event ran (on-CPU time of the pass) */
    uint64_t iterations; /* calls of the body (or iterations of its loop) the pass ran */
    uint64_t samples;    /* every sample of the body kept, symbolised or not */
    /* samples in libbench's own code during the pass (the harness's share, never in the tables
     * or the stacks); meaningful only when harness_unmeasured is NULL, which says why not */
    uint64_t harness_samples;
    char *harness_unmeasured;
    uint64_t lost; /* samples the kernel dropped (the ring buffer was full) */
    bool chains;   /* call chains were recorded: the inclusive table is meaningful */
    char *note;    /* "" or what the reader must know (frame pointers, throttling) */
    struct bench__profile_entry *self; /* by self samples, most first */
    size_t n_self;
    struct bench__profile_entry *inclusive; /* by inclusive samples (chains only) */
    size_t n_inclusive;
    char *hot;                          /* the function of self[0] when symbolised, else NULL */
    struct bench__profile_entry *lines; /* the hot function's lines, most first */
    size_t n_lines;
    struct bench__profile_entry *unsymbolised; /* by reason, most first */
    size_t n_unsymbolised;
    uint64_t n_unsymbolised_samples;
    struct bench__profile_stack *stacks; /* every distinct stack, most first */
    size_t n_stacks;
    /* where callers come from (chains only, else NULL): "dwarf" or "frame-pointer", why frame
     * pointers (NULL with dwarf), and the samples whose callers came from frame pointers (all
     * of them, or those DWARF unwinding failed on) */
    char *unwinder;
    char *unwinder_reason;
    uint64_t fp_samples;
};

/* Aggregate samples into p (whose header fields the caller sets): the tables keep the top
 * entries, the stacks are all kept. Counts are never rescaled: unsymbolised samples stay in the
 * total. Ties are ordered by name, so the result does not depend on sample order. */
BENCH__HIDDEN void bench__profile_aggregate(struct bench__profile *p,
                                            const struct bench__profile_sample *samples, size_t n);
/* How many frames of a sample are the body's (issue 32, point 13), given [own_lo, own_hi), the
 * executable code of libbench's own file: 0 when the sampled address (ips[0]) lies in it (the
 * harness's sample: its loop, the case dispatch, BENCH_ITER's calls, the sampling event's
 * edges); else the frames under the first caller in it (the body's code and what it calls,
 * libc included, while the harness's call of the body and every caller above it are cut); all
 * `n` when no frame lies in it. Pure. */
BENCH__HIDDEN size_t bench__profile_body_frames(const uint64_t *ips, size_t n, uint64_t own_lo,
                                                uint64_t own_hi);
/* A count as a share of every sample, in percent (NaN when there are none). */
BENCH__HIDDEN double bench__profile_share(const struct bench__profile *p, uint64_t samples);
/* Too few samples for the shares to be more than estimates. */
BENCH__HIDDEN bool bench__profile_estimate(const struct bench__profile *p);
/* The folded stacks as text, one "frames count" line each, every stack under `root` (the row's
 * name) when not NULL; frames have ';' and line breaks replaced (malloc'd). */
BENCH__HIDDEN char *bench__profile_folded(const struct bench__profile *p, const char *root);
/* A deep copy, and the release of what a profile owns (and the profile itself). */
BENCH__HIDDEN struct bench__profile *bench__profile_copy(const struct bench__profile *p);
BENCH__HIDDEN void bench__profile_free(struct bench__profile *p);

#endif /* BENCH_MODEL_PROFILE_H */
