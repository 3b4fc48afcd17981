/* SPDX-License-Identifier: MIT */
/* list.h: the counting sources, one line each, in counting-pass and column order. The catalog,
 * the command line (each source's flag) and the build (lib/meson.build compiles
 * lib/sources/<id>.c for every line) all read this list: a new source is its file plus one line
 * here. No include guard: it is expanded with a different BENCH__SOURCE each time. */
BENCH__SOURCE(perf)
BENCH__SOURCE(perf_sw)
BENCH__SOURCE(tier0)
BENCH__SOURCE(syscalls)
BENCH__SOURCE(raw)
BENCH__SOURCE(alloc)
BENCH__SOURCE(callgrind)
/* A test build appends its own sources here, each one line of the same form. */
#ifdef BENCH__SOURCE_LIST_EXTRA
#include BENCH__SOURCE_LIST_EXTRA
#endif
