/* SPDX-License-Identifier: MIT */
/* os.c: owns the real OS calls behind the fault-injection seam (see os.h) and the reading of
 * small files: one-off (bench__os_read_file) or through a kept handle (struct bench__os_file).
 * Nothing else in lib/ calls perf_event_open, ioctl on counters, dlopen or mmap; /proc files a
 * source reads go through these (meta.c reads /proc/cpuinfo itself: nothing to inject). It
 * knows no source's files: which file is kept is its owner's choice. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if BENCH__LINUX
#include <linux/perf_event.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#endif

#include "../util/alloc.h"
#include "../util/thread.h"
#include "os.h"

#ifndef BENCH__LINUX
#error "BENCH__LINUX must be defined (1 or 0) by the build: see meson.build"
#endif

#if BENCH__LINUX
static int real_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags)
{
    return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}
#else
/* Off Linux the two calls do not exist: a caller that reaches them gets ENOSYS (none does in
 * this build: the sources that would say "not available on this platform" first). */
static int real_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags)
{
    (void)attr, (void)pid, (void)cpu, (void)group_fd, (void)flags;
    errno = ENOSYS;
    return -1;
}

static int fstatfs(int fd, struct statfs *buf)
{
    (void)fd, (void)buf;
    errno = ENOSYS;
    return -1;
}
#endif

static int real_ioctl(int fd, unsigned long request, unsigned long arg)
{
    return ioctl(fd, request, arg);
}

static int real_open(const char *path, int flags)
{
    return open(path, flags | O_CLOEXEC);
}

/* The real calls: the table in force starts as this, and bench__os_reset() restores it. */
#define REAL_OS                                                                                    \
    {                                                                                              \
        .perf_event_open = real_perf_event_open, .ioctl = real_ioctl, .read = read,                \
        .open = real_open, .close = close, .getrusage = getrusage, .dlopen = dlopen,               \
        .dlsym = dlsym, .dlclose = dlclose, .dlerror = dlerror, .mmap = mmap, .munmap = munmap,    \
        .posix_fadvise = posix_fadvise, .fdatasync = fdatasync, .mincore = mincore,                \
        .fstatfs = fstatfs, .fstat = fstat,                                                        \
    }

static const struct bench__os real_os = REAL_OS;
struct bench__os bench__os = REAL_OS;

void bench__os_reset(void)
{
    bench__os = real_os;
}

static bool seam_is_real(void)
{
    return bench__os.open == real_os.open && bench__os.read == real_os.read &&
           bench__os.close == real_os.close;
}

ssize_t bench__os_read_file(const char *path, char *buf, size_t size)
{
    if (size == 0)
        return -EINVAL;
    int fd = bench__os.open(path, O_RDONLY);
    if (fd < 0)
        return -errno;
    size_t len = 0;
    while (len + 1 < size) {
        ssize_t n = bench__os.read(fd, buf + len, size - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            bench__os.close(fd);
            return -err;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    bench__os.close(fd);
    return (ssize_t)len;
}

/* ---- kept files (see struct bench__os_file in os.h) ---------------------------------------- */

/* The calling task, asked of the kernel once per thread: getpid and gettid are system calls,
 * and a read must cost one pread, not three. A thread starts with zeros (asks again); a fork
 * child's only thread forgets the parent's answer in the atfork handler, registered before
 * any thread first asks. */
static _Thread_local pid_t task_pid, task_tid;
static pthread_once_t fork_watch = PTHREAD_ONCE_INIT;

static void forget_task(void)
{
    task_pid = task_tid = 0;
}

static void watch_forks(void)
{
    pthread_atfork(NULL, NULL, forget_task);
}

static void current_task(pid_t *pid, pid_t *tid)
{
    if (task_tid == 0) {
        pthread_once(&fork_watch, watch_forks);
        task_pid = getpid();
        task_tid = bench__thread_id();
    }
    *pid = task_pid;
    *tid = task_tid;
}

void bench__os_file_open(struct bench__os_file *f, const char *path)
{
    f->path = bench__xstrdup(path);
    f->fd = -1;
    current_task(&f->pid, &f->tid);
}

ssize_t bench__os_file_read(struct bench__os_file *f, char *buf, size_t size)
{
    if (size == 0)
        return -EINVAL;
    if (!f->path)
        return -EBADF;
    pid_t pid, tid;
    current_task(&pid, &tid);
    if (pid != f->pid || tid != f->tid || !seam_is_real())
        return bench__os_read_file(f->path, buf, size);
    if (f->fd < 0) {
        f->fd = real_open(f->path, O_RDONLY);
        if (f->fd < 0)
            return -errno;
    }
    ssize_t n;
    do
        n = pread(f->fd, buf, size - 1, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        int err = errno;
        close(f->fd);
        f->fd = -1;
        return -err;
    }
    buf[n] = '\0';
    return n;
}

void bench__os_file_close(struct bench__os_file *f)
{
    if (!f->path)
        return;
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    f->path = NULL;
    f->fd = -1;
}
