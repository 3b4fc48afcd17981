/* SPDX-License-Identifier: MIT */
/* file.c: owns reading a whole file for the `libbench` tool (file.h), with a size
 * limit and malloc's failure as an error: a file too large for the machine is refused with a
 * reason, not an out-of-memory abort. It parses nothing and writes no file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "util/alloc.h"
#include "util/text.h"

int tool_read_file(const char *path, size_t max_bytes, char **data_out, size_t *len_out, char *err,
                   size_t err_size)
{
    *data_out = NULL;
    *len_out = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        bench__fmt(err, err_size, "cannot read: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    int e = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    size_t cap = max_bytes < 65536 ? max_bytes : 65536, len = 0;
    char *data = NULL;
    bool too_large = false;
    if (e == 0)
        data = bench__xmalloc(cap + 1);
    while (e == 0) {
        if (len == cap) {
            if (cap >= max_bytes) {
                /* one byte past the limit tells "at the limit" from "over it" */
                char probe;
                ssize_t got = read(fd, &probe, 1);
                if (got < 0 && errno == EINTR)
                    continue;
                if (got < 0)
                    e = errno;
                else if (got > 0)
                    too_large = true;
                break;
            }
            size_t next = cap * 2 < max_bytes ? cap * 2 : max_bytes;
            data = bench__xrealloc(data, next + 1);
            cap = next;
        }
        ssize_t got = read(fd, data + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            e = errno;
        else if (got == 0)
            break;
        else
            len += (size_t)got;
    }
    close(fd);
    if (e != 0 || too_large) {
        free(data);
        if (too_large)
            bench__fmt(err, err_size, "cannot read: larger than %zu MiB", max_bytes >> 20);
        else
            bench__fmt(err, err_size, "cannot read: %s", strerror(e));
        return -1;
    }
    data[len] = '\0';
    *data_out = data;
    *len_out = len;
    return 0;
}
