/* SPDX-License-Identifier: MIT */
/* os.c: owns the real OS calls behind the fault-injection seam (see os.h). Nothing else in
 * lib/ calls perf_event_open, ioctl on counters, dlopen or mmap; /proc files a source reads
 * go through bench__os_read_file (meta.c reads /proc/cpuinfo itself: nothing to inject). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "os.h"

static int real_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags)
{
    return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

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

/* Files read at every window edge (the PSI files, /proc/self/io, schedstat) stay open
 * and are re-read with one pread at offset 0: a quarter of the system calls of an
 * open/read/read/close per edge. Only while the seam holds the real calls, so a test that
 * injects open/read/close failures always reaches them. */
#define KEPT_FILES 8
static struct {
    char path[64];
    int fd;
} kept[KEPT_FILES];
static size_t n_kept;

static bool seam_is_real(void)
{
    return bench__os.open == real_os.open && bench__os.read == real_os.read &&
           bench__os.close == real_os.close;
}

/* Only the files read at every edge are kept; one-off reads (tracefs ids, the paranoid
 * level) must not take the slots. */
static bool worth_keeping(const char *path)
{
    static const char *const prefixes[] = {"/proc/pressure/", "/proc/self/io",
                                           "/proc/thread-self/schedstat", "/proc/self/schedstat"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
            return true;
    return false;
}

static int kept_fd(const char *path)
{
    if (!worth_keeping(path))
        return -1;
    for (size_t i = 0; i < n_kept; i++)
        if (!strcmp(kept[i].path, path))
            return kept[i].fd;
    if (n_kept == KEPT_FILES || strlen(path) >= sizeof kept[0].path)
        return -1;
    int fd = real_open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    snprintf(kept[n_kept].path, sizeof kept[n_kept].path, "%s", path);
    kept[n_kept++].fd = fd;
    return fd;
}

ssize_t bench__os_read_file(const char *path, char *buf, size_t size)
{
    if (size == 0)
        return -EINVAL;
    if (seam_is_real()) {
        int kfd = kept_fd(path);
        ssize_t n = kfd >= 0 ? pread(kfd, buf, size - 1, 0) : -1;
        if (n >= 0) {
            buf[n] = '\0';
            return n;
        }
    }
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
