/* SPDX-License-Identifier: MIT */
/* os.h: the fault-injection seam. Every OS call a source makes that a test must be able to
 * fail (perf_event_open, ioctl, read, open of /proc files, close, getrusage, dlopen of a soft
 * dependency, mmap of a counter page) goes through this table; tests replace members to
 * inject EACCES, ENOENT, short reads, multiplexing, a missing library, a synthetic page. */
#ifndef BENCH_PLATFORM_OS_H
#define BENCH_PLATFORM_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "../util/hidden.h"

struct perf_event_attr;
struct stat;
struct statfs;

struct bench__os {
    /* returns an fd, or -1 with errno set */
    int (*perf_event_open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                           unsigned long flags);
    int (*ioctl)(int fd, unsigned long request, unsigned long arg);
    ssize_t (*read)(int fd, void *buf, size_t count);
    int (*open)(const char *path, int flags);
    int (*close)(int fd);
    int (*getrusage)(int who, struct rusage *usage);
    /* soft dependencies (libpfm4): dlerror() describes the last dlopen/dlsym failure */
    void *(*dlopen)(const char *file, int mode);
    void *(*dlsym)(void *handle, const char *name);
    int (*dlclose)(void *handle);
    char *(*dlerror)(void);
    /* the self-monitoring page of a counter fd: MAP_FAILED with errno set on failure */
    void *(*mmap)(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
    int (*munmap)(void *addr, size_t length);
    /* page-cache regime (cache_regime.c): posix_fadvise returns 0 or an error number (not
     * errno); the others return 0 or -1 with errno set. mmap/munmap above map the file for
     * mincore. */
    int (*posix_fadvise)(int fd, off_t offset, off_t len, int advice);
    int (*fdatasync)(int fd);
    int (*mincore)(void *addr, size_t length, unsigned char *vec);
    int (*fstatfs)(int fd, struct statfs *buf);
    int (*fstat)(int fd, struct stat *buf);
};

/* The table in force; tests assign members and call bench__os_reset() afterwards. */
BENCH__HIDDEN extern struct bench__os bench__os;
BENCH__HIDDEN void bench__os_reset(void);

/* Read a small file whole with raw open/read (/proc files report size 0), through the
 * seam. Returns the number of bytes read (the buffer is NUL-terminated) or -errno. */
BENCH__HIDDEN ssize_t bench__os_read_file(const char *path, char *buf, size_t size);

#endif /* BENCH_PLATFORM_OS_H */
