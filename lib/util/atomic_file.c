/* SPDX-License-Identifier: MIT */
/* atomic_file.c: owns how libbench and its tools put a document on disk: a growable text buffer
 * (jansson's dump callback fits it) and the atomic file write (temporary file in the target's
 * directory, fsync, rename; devices and FIFOs written in place). It knows no document. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

int bench__text_append(const char *bytes, size_t size, void *data)
{
    struct bench__text *b = data;
    if (size + 1 > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 4096;
        while (size + 1 > cap - b->len)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown)
            return -1;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, size);
    b->len += size;
    b->data[b->len] = '\0';
    return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (n == 0)
            return EIO;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* A device or a FIFO: there is nothing to replace, so write in place. */
static int write_direct(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = write_all(fd, data, len);
    if (close(fd) != 0 && e == 0 && errno != EINTR)
        e = errno;
    return e;
}

/* The process umask, read without changing it where the kernel tells (Linux >= 4.7). */
static mode_t current_umask(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f) {
        char line[256];
        unsigned mask;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "Umask: %o", &mask) == 1) {
                fclose(f);
                return (mode_t)(mask & 0777u);
            }
        }
        fclose(f);
    }
    mode_t mask = umask(022);
    umask(mask);
    return mask;
}

/* Write <target>.XXXXXX next to target, make it durable, rename it over target. On
 * failure the temporary file is gone and target untouched. */
static int write_replace(const char *target, const char *data, size_t len)
{
    size_t n = strlen(target);
    char *tmp = malloc(n + sizeof ".XXXXXX");
    if (!tmp)
        return ENOMEM;
    memcpy(tmp, target, n);
    memcpy(tmp + n, ".XXXXXX", sizeof ".XXXXXX");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return e;
    }
    int e = 0;
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fchmod(fd, 0644 & ~current_umask()) != 0)
        e = errno;
    if (e == 0)
        e = write_all(fd, data, len);
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0 && errno != EINTR)
        e = errno;
    if (e == 0 && rename(tmp, target) != 0)
        e = errno;
    if (e != 0)
        unlink(tmp);
    free(tmp);
    return e;
}

int bench__write_file(const char *path, const char *data, size_t len)
{
    struct stat st, lst;
    bool exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode))
        return write_direct(path, data, len);
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        /* a link to a regular file: replace the file it names and keep the link */
        char *target = realpath(path, NULL);
        int e = target ? write_replace(target, data, len) : errno;
        free(target);
        return e;
    }
    return write_replace(path, data, len);
}
