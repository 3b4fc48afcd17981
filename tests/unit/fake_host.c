/* SPDX-License-Identifier: MIT */
/* fake_host.c: the fake host of fake_host.h. Test code: it aborts the test on a broken setup. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <unistd.h>

#include <bench/bench.h>

#include "fake_host.h"
#include "platform/os.h"

#define FILES 16
#define FIRST_FD 1000

static fake_host_content content_of;
static const char *dlerror_message;

static struct fake_file {
    bool used;
    char text[512];
    size_t len, pos;
} files[FILES];

static int fake_open(const char *path, int flags)
{
    (void)flags;
    char text[512];
    const char *got = content_of(path, text, sizeof text);
    if (!got) {
        errno = ENOENT;
        return -1;
    }
    for (int i = 0; i < FILES; i++)
        if (!files[i].used) {
            files[i].used = true;
            snprintf(files[i].text, sizeof files[i].text, "%s", got);
            files[i].len = strlen(files[i].text);
            files[i].pos = 0;
            return FIRST_FD + i;
        }
    errno = EMFILE;
    return -1;
}

static struct fake_file *file_of(int fd)
{
    return fd >= FIRST_FD && fd < FIRST_FD + FILES && files[fd - FIRST_FD].used
               ? &files[fd - FIRST_FD]
               : NULL;
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
    struct fake_file *f = file_of(fd);
    if (!f) {
        errno = EBADF;
        return -1;
    }
    size_t n = f->len - f->pos < count ? f->len - f->pos : count;
    memcpy(buf, f->text + f->pos, n);
    f->pos += n;
    return (ssize_t)n;
}

static int fake_close(int fd)
{
    struct fake_file *f = file_of(fd);
    if (f)
        f->used = false;
    return 0;
}

void fake_host_files(fake_host_content content)
{
    content_of = content;
    memset(files, 0, sizeof files);
    bench__os.open = fake_open;
    bench__os.read = fake_read;
    bench__os.close = fake_close;
}

static int refuse_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                  unsigned long flags)
{
    (void)attr, (void)pid, (void)cpu, (void)group_fd, (void)flags;
    errno = EACCES;
    return -1;
}

static void *refuse_dlopen(const char *file, int mode)
{
    (void)file, (void)mode;
    return NULL;
}

static char *fake_dlerror(void)
{
    return (char *)dlerror_message;
}

/* No allocation interposer (libbench-alloc.so) and no sanitizer runtime: the "alloc" source is
 * absent for the one reason, whatever the build. */
static void *fake_dlsym(void *handle, const char *name)
{
    static const char *const hidden[] = {"bench_alloc_interposer_v1",
                                         "__asan_init",
                                         "__hwasan_init",
                                         "__tsan_init",
                                         "__msan_init",
                                         "__lsan_init"};
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
        if (strcmp(name, hidden[i]) == 0)
            return NULL;
    return dlsym(handle, name);
}

void fake_host_refuse(const char *dlerror_text)
{
    bench__os.dlsym = fake_dlsym;
    dlerror_message = dlerror_text;
    bench__os.perf_event_open = refuse_perf_event_open;
    bench__os.dlopen = refuse_dlopen;
    bench__os.dlerror = fake_dlerror;
}

void fake_host_main(const char *prog, const char *const *args, struct fake_host_run *run)
{
    memset(run, 0, sizeof *run);
    snprintf(run->dir, sizeof run->dir, "/tmp/%s.XXXXXX", prog);
    assert_non_null(mkdtemp(run->dir));
    snprintf(run->out, sizeof run->out, "%s/stdout", run->dir);
    snprintf(run->err, sizeof run->err, "%s/stderr", run->dir);
    snprintf(run->json, sizeof run->json, "%s/doc.json", run->dir);
    char json_arg[128];
    snprintf(json_arg, sizeof json_arg, "--bench-json=%s", run->json);
    char *argv[32] = {(char *)prog};
    int argc = 1;
    for (size_t i = 0; args[i]; i++) {
        assert_true(argc < 31);
        run->has_json |= !strcmp(args[i], "JSON");
        argv[argc++] = !strcmp(args[i], "JSON") ? json_arg : (char *)args[i];
    }
    argv[argc] = NULL;

    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    int out_fd = open(run->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err_fd = open(run->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved_out >= 0 && saved_err >= 0 && out_fd >= 0 && err_fd >= 0);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    close(out_fd);
    close(err_fd);
    run->status = bench_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
}

void fake_host_run_remove(const struct fake_host_run *run)
{
    unlink(run->out);
    unlink(run->err);
    unlink(run->json);
    rmdir(run->dir);
}

char *fake_host_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, got;
    char *data = malloc(cap);
    while (data && (got = fread(data + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            char *grown = realloc(data, cap * 2);
            if (!grown)
                free(data);
            data = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (data)
        data[n] = '\0';
    if (len)
        *len = n;
    return data;
}
