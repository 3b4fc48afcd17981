/* SPDX-License-Identifier: MIT */
/* symbolize.h: addresses of this process to functions, source lines and inlined-function chains,
 * with libdw's Dwfl (loaded at run time, never linked), and the symbolization capability. */
#ifndef BENCH_SOURCES_SYMBOLIZE_H
#define BENCH_SOURCES_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/profile.h"
#include "../util/hidden.h"
#include "source.h"

#define BENCH__DW_SONAME "libdw.so.1"

/* Load libdw and resolve every function used (through bench__os, once per process). False with
 * the reason ("libdw not loaded: dlopen(libdw.so.1) failed: ...") when it is absent. */
BENCH__HIDDEN bool bench__dw_load(char *reason, size_t reason_size);
BENCH__HIDDEN void bench__dw_unload(void);

struct bench__symbolizer;

/* A session on this process's mappings; NULL with the reason when libdw is absent or the
 * mappings cannot be read. */
BENCH__HIDDEN struct bench__symbolizer *bench__symbolizer_new(char *reason, size_t reason_size);
BENCH__HIDDEN void bench__symbolizer_free(struct bench__symbolizer *z);
/* The frame of an address (owned by the symbolizer, cached per address). `caller`: a return
 * address (looked up one byte back, inside the call). A frame without a function carries why:
 * no mapped file (JIT or anonymous code), a stripped file, no symbol there. */
BENCH__HIDDEN const struct bench__profile_frame *bench__symbolize(struct bench__symbolizer *z,
                                                                  uint64_t address, bool caller);

/* The symbolization capability: libdw loads and resolves this process's own code (present), or
 * absent with the reason (no libdw, no debug info in the program). */
BENCH__HIDDEN void bench__symbolization_caps(struct bench__caps *caps);

#endif /* BENCH_SOURCES_SYMBOLIZE_H */
