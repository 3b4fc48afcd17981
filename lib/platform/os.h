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

/* Read a small file whole with raw open/read/close (/proc files report size 0), through the
 * seam: a one-off read that keeps nothing open. Returns the number of bytes read (the buffer
 * is NUL-terminated) or -errno; size 0 is -EINVAL. */
BENCH__HIDDEN ssize_t bench__os_read_file(const char *path, char *buf, size_t size);

/* A small file its owner reads again and again (a /proc file at every window edge). The handle
 * keeps one fd open and re-reads it with a single pread at offset 0: one system call per read
 * where a one-off read takes four (open, read, the read that sees the end, close).
 *
 * The fd belongs to the task (thread of a process) that opened the handle, recorded as its
 * pid and tid: /proc/self and /proc/thread-self name the task that opens them, so an fd
 * opened by one task reads that task's numbers forever. A read from any other task (another
 * thread, a forked child) never touches the fd: it is a one-off bench__os_read_file of the
 * path, which resolves the path for the reader. A read never changes the handle except in its
 * own task, so other threads may read it while the owner does.
 *
 * The fd is opened, and used, only while the seam holds the real open, read and close: under
 * an injected one every read is a one-off read through the seam, so the injected failures and
 * texts are always reached (and a kept fd is used again once the seam is reset). The fd is
 * opened at the first such read of the owner; a read that fails drops it.
 *
 * Limits: the task is recognised through fork() (a pthread_atfork handler) and thread
 * creation; a child made by a raw clone() system call is not. A file longer than one pread
 * returns (a /proc file larger than a page) is read in part, as one read would be. */
struct bench__os_file {
    char *path; /* a copy; NULL while the handle is closed */
    int fd;     /* the kept fd, or -1 */
    pid_t pid;  /* the task that opened the handle */
    pid_t tid;
};

/* Open a handle on path (no system call is made here; the first read opens the fd). A handle
 * that is all zero bytes is closed. */
BENCH__HIDDEN void bench__os_file_open(struct bench__os_file *f, const char *path);
/* Read the file whole (see above): the number of bytes read (the buffer is NUL-terminated) or
 * -errno, as bench__os_read_file; a closed handle reads -EBADF. */
BENCH__HIDDEN ssize_t bench__os_file_read(struct bench__os_file *f, char *buf, size_t size);
/* Close the handle and its kept fd (with the real close: it came from the real open); closing
 * a closed handle does nothing. In a forked child this closes the child's copy of the fd. */
BENCH__HIDDEN void bench__os_file_close(struct bench__os_file *f);

#endif /* BENCH_PLATFORM_OS_H */
