/* SPDX-License-Identifier: MIT */
/* source_path.c: owns the path a profile shows for a DWARF source file (source_path.h): the
 * join with the compilation directory, the folding by name, the cut to the current directory.
 * Pure: it reads no file system (the sources may not exist on the measuring host). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "source_path.h"

/* Fold `path` in place: no empty or "." components, and a ".." cancels the component before
 * it (at the root of an absolute path it is dropped; a relative path keeps its leading ".."). */
static void fold(char *path)
{
    bool absolute = path[0] == '/';
    char *out = path + (absolute ? 1 : 0); /* the end of what is kept */
    char *const start = out;
    size_t kept = 0, leading_up = 0; /* components kept, of which leading ".." */
    for (const char *p = out; *p;) {
        while (*p == '/')
            p++;
        const char *end = p;
        while (*end && *end != '/')
            end++;
        size_t len = (size_t)(end - p);
        if (len == 0 || (len == 1 && p[0] == '.')) {
            /* nothing */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            if (kept > leading_up) { /* drop the last kept component */
                while (out > start && out[-1] != '/')
                    out--;
                if (out > start)
                    out--; /* its separator */
                kept--;
            } else if (!absolute) {
                if (out > start)
                    *out++ = '/';
                memcpy(out, "..", 2);
                out += 2;
                kept++;
                leading_up++;
            }
        } else {
            if (out > start)
                *out++ = '/';
            memmove(out, p, len);
            out += len;
            kept++;
        }
        p = end;
    }
    if (out == path) /* a relative path that folded to nothing */
        *out++ = '.';
    *out = '\0';
}

char *bench__source_path(const char *comp_dir, const char *file, const char *cwd)
{
    char *path = file[0] != '/' && comp_dir && comp_dir[0]
                     ? bench__xasprintf("%s/%s", comp_dir, file)
                     : bench__xstrdup(file);
    fold(path);
    if (path[0] != '/' || !cwd || cwd[0] != '/')
        return path;
    char *dir = bench__xstrdup(cwd);
    fold(dir);
    size_t n = strlen(dir);
    const char *below = NULL;
    if (n == 1) /* the root: every absolute path lies below it */
        below = path[1] ? path + 1 : NULL;
    else if (strncmp(path, dir, n) == 0 && path[n] == '/' && path[n + 1])
        below = path + n + 1;
    free(dir);
    if (below) {
        char *shown = bench__xstrdup(below);
        free(path);
        return shown;
    }
    return path;
}
