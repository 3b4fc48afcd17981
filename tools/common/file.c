/* SPDX-License-Identifier: MIT */
/* file.c: owns reading a whole file for the `libbench` tool (file.h): opened without blocking
 * (O_NONBLOCK, so a FIFO never hangs the open), a regular file only, the one size limit checked
 * before anything is read, and malloc's failure as an error: a file too large for the machine is
 * refused with a reason, not an out-of-memory abort. It parses nothing and writes no file. */
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

const char *tool_file_kind(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return NULL;
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    case S_IFCHR:
    case S_IFBLK: return "a device";
    }
    return "not a regular file";
}

static int refuse(char *err, size_t err_size, size_t max_bytes)
{
    bench__fmt(err, err_size, "cannot read: larger than %zu MiB", max_bytes >> 20);
    return -1;
}

int tool_read_fd(int fd, size_t max_bytes, char **data_out, size_t *len_out, char *err,
                 size_t err_size)
{
    *data_out = NULL;
    *len_out = 0;
    if (max_bytes > TOOL_FILE_MAX_BYTES)
        max_bytes = TOOL_FILE_MAX_BYTES;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        bench__fmt(err, err_size, "cannot read: %s", strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        bench__fmt(err, err_size, "cannot read: %s", strerror(EISDIR));
        return -1;
    }
    const char *kind = tool_file_kind(st.st_mode);
    if (kind) {
        bench__fmt(err, err_size, "cannot read: %s, not a regular file", kind);
        return -1;
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max_bytes)
        return refuse(err, err_size, max_bytes);
    /* the size the file says, plus room to see it grew (a /proc file says 0) */
    size_t cap = (size_t)st.st_size + 1 < 65536 ? 65536 : (size_t)st.st_size + 1;
    if (cap > max_bytes)
        cap = max_bytes;
    size_t len = 0;
    char *data = bench__xmalloc(cap + 1);
    int e = 0;
    bool too_large = false;
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
    if (e != 0 || too_large) {
        free(data);
        if (too_large)
            return refuse(err, err_size, max_bytes);
        bench__fmt(err, err_size, "cannot read: %s", strerror(e));
        return -1;
    }
    data[len] = '\0';
    *data_out = data;
    *len_out = len;
    return 0;
}

int tool_read_file_at(int dirfd, const char *path, bool nofollow, size_t max_bytes, char **data,
                      size_t *len, char *err, size_t err_size)
{
    *data = NULL;
    *len = 0;
    int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0);
    int fd = openat(dirfd, path, flags);
    if (fd < 0) {
        int e = errno;
        struct stat st;
        if (nofollow && e == ELOOP && fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
            bench__fmt(err, err_size, "cannot read: a symbolic link, not followed");
        else
            bench__fmt(err, err_size, "cannot read: %s", strerror(e));
        return -1;
    }
    int rc = tool_read_fd(fd, max_bytes, data, len, err, err_size);
    close(fd);
    return rc;
}

int tool_read_file(const char *path, size_t max_bytes, char **data, size_t *len, char *err,
                   size_t err_size)
{
    return tool_read_file_at(AT_FDCWD, path, false, max_bytes, data, len, err, err_size);
}
