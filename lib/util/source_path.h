/* SPDX-License-Identifier: MIT */
/* source_path.h: the path a profile shows for a source file that DWARF names: joined with the
 * compilation directory, folded, then relative to the current directory below it. Pure. */
#ifndef BENCH_UTIL_SOURCE_PATH_H
#define BENCH_UTIL_SOURCE_PATH_H

#include "hidden.h"

/* `file` as a line table names it; when relative, it is joined with `comp_dir` (the unit's
 * DW_AT_comp_dir; NULL or "" when DWARF records none). "." components and "x/.." pairs are
 * folded by name (symbolic links are not resolved: the files may not exist here). When the
 * result is absolute and lies below `cwd` (an absolute directory; NULL when unknown), it is
 * shown relative to `cwd`; otherwise as it is. A relative result (no compilation directory, or
 * a relative one) stays relative. malloc'd; never NULL (out of memory aborts). */
BENCH__HIDDEN char *bench__source_path(const char *comp_dir, const char *file, const char *cwd);

#endif /* BENCH_UTIL_SOURCE_PATH_H */
