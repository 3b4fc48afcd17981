/* SPDX-License-Identifier: MIT */
/* tmpdir.c: owns the sweep of temporary directories left by commands that were killed
 * (tmpdir.h): named with their owner's pid, removed once that process is gone, their files
 * unlinked from the directory's descriptor without following a link. It makes no directory. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tmpdir.h"

const char *tool_tmpdir_base(void)
{
    const char *base = getenv("TMPDIR");
    return base && *base ? base : "/tmp";
}

/* The files of the directory `name` in parent, then the directory itself. */
static void remove_dir(int parent, const char *name)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            unlinkat(fd, de->d_name, 0); /* a subdirectory stays, and so does this one */
    closedir(d);
    unlinkat(parent, name, AT_REMOVEDIR);
}

void tool_tmpdir_sweep(const char *prefix)
{
    int base = open(tool_tmpdir_base(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = base >= 0 ? fdopendir(base) : NULL;
    if (!d) {
        if (base >= 0)
            close(base);
        return;
    }
    size_t n = strlen(prefix);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, n) != 0 || de->d_name[n] != '.')
            continue;
        char *end;
        long pid = strtol(de->d_name + n + 1, &end, 10);
        struct stat sb;
        if (pid <= 0 || *end != '.' || end == de->d_name + n + 1)
            continue; /* not named with its owner: not ours to judge */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* its owner lives (or is another user's) */
        if (fstatat(base, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(sb.st_mode) ||
            sb.st_uid != geteuid())
            continue;
        remove_dir(base, de->d_name);
    }
    closedir(d);
}
