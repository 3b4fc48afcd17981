/* SPDX-License-Identifier: MIT */
/* test_os.c: the kept-file handle of the os seam (struct bench__os_file): its fd is used only by
 * the task that opened the handle (another thread or a forked child reads its own /proc/self and
 * /proc/thread-self), it is re-read in place, and injected open/read/close failures still reach
 * the seam. Runs on the real /proc: the first field of .../stat is the task's id. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "emulation.h"

#include "platform/os.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SENTINEL "sentinel 1 2 3\n"

static pid_t tid_now(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* The first field of a .../stat text: the task's id, or -1. */
static long first_field(const char *text)
{
    char *end;
    long v = strtol(text, &end, 10);
    return end != text && *end == ' ' ? v : -1;
}

/* Read the handle and return the task id its text names (fails the test on an error). */
static long read_id(struct bench__os_file *f)
{
    char buf[1024];
    ssize_t n = bench__os_file_read(f, buf, sizeof buf);
    if (n < 0)
        fail_msg("read of %s: %s", f->path, strerror((int)-n));
    assert_int_equal((size_t)n, strlen(buf));
    return first_field(buf);
}

/* Put a file holding SENTINEL under fd: a read that returns SENTINEL went through that fd. */
static void plant_sentinel(int fd)
{
    int mfd = memfd_create("sentinel", MFD_CLOEXEC);
    assert_true(mfd >= 0);
    assert_int_equal(write(mfd, SENTINEL, strlen(SENTINEL)), (ssize_t)strlen(SENTINEL));
    assert_int_equal(dup2(mfd, fd), fd);
    close(mfd);
}

static int reset(void **state)
{
    (void)state;
    bench__os_reset();
    return 0;
}

/* ---- one task ---------------------------------------------------------------------------- */

static void test_contract(void **state)
{
    (void)state;
    struct bench__os_file f;
    bench__os_file_open(&f, "/proc/self/stat");
    assert_int_equal(read_id(&f), getpid());
    char buf[8];
    assert_int_equal(bench__os_file_read(&f, buf, 0), -EINVAL);
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), 7); /* cut, NUL-terminated */
    assert_int_equal(strlen(buf), 7);
    bench__os_file_close(&f);
    assert_null(f.path);
    bench__os_file_close(&f); /* twice: nothing */
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), -EBADF);

    /* a handle that is all zero bytes is closed: closing it must not close fd 0 */
    int before = fcntl(0, F_GETFD);
    struct bench__os_file zero;
    memset(&zero, 0, sizeof zero);
    bench__os_file_close(&zero);
    assert_int_equal(fcntl(0, F_GETFD), before);

    bench__os_file_open(&f, "/proc/self/no-such-file");
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), -ENOENT);
    assert_int_equal(f.fd, -1);
    bench__os_file_close(&f);
}

/* Its own task re-reads the kept fd in place (pread at offset 0), and closing closes it. */
static void test_own_task_reuses_the_fd(void **state)
{
    (void)state;
    struct bench__os_file f;
    bench__os_file_open(&f, "/proc/self/stat");
    assert_int_equal(f.fd, -1); /* opened by the first read */
    assert_int_equal(read_id(&f), getpid());
    int kept = f.fd;
    assert_true(kept >= 0);
    char link[64], target[128];
    snprintf(link, sizeof link, "/proc/self/fd/%d", kept);
    ssize_t len = readlink(link, target, sizeof target - 1);
    assert_true(len > 0);
    target[len] = '\0';
    char want[64];
    snprintf(want, sizeof want, "/proc/%d/stat", (int)getpid());
    if (test_emulator() && !strncmp(target, "/memfd:qemu-open", 16))
        /* qemu-user answers an open of /proc/self/stat with a memfd holding the guest's
         * own text, written once at the open: the fd is kept all the same */
        print_message("under an emulator, /proc/self/stat is %s\n", target);
    else
        assert_string_equal(target, want);

    plant_sentinel(kept);
    char buf[256];
    for (int i = 0; i < 3; i++) { /* the same fd, from offset 0, every time */
        assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), (ssize_t)strlen(SENTINEL));
        assert_string_equal(buf, SENTINEL);
        assert_int_equal(f.fd, kept);
    }
    bench__os_file_close(&f);
    assert_int_equal(fcntl(kept, F_GETFD), -1);
    assert_int_equal(errno, EBADF);
}

/* A kept fd whose read fails is dropped, and the next read opens the file again. */
static void test_failed_read_drops_the_fd(void **state)
{
    (void)state;
    struct bench__os_file f;
    bench__os_file_open(&f, "/proc/self/stat");
    assert_int_equal(read_id(&f), getpid());
    int kept = f.fd;
    int wronly = open("/dev/null", O_WRONLY | O_CLOEXEC);
    assert_true(wronly >= 0);
    assert_int_equal(dup2(wronly, kept), kept); /* pread on it fails: EBADF */
    close(wronly);
    char buf[256];
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), -EBADF);
    assert_int_equal(f.fd, -1);
    assert_int_equal(fcntl(kept, F_GETFD), -1); /* closed, not leaked */
    assert_int_equal(read_id(&f), getpid());
    assert_true(f.fd >= 0);
    bench__os_file_close(&f);
}

/* ---- other threads ------------------------------------------------------------------------ */

struct thread_read {
    struct bench__os_file *f;
    long id;         /* the id the handle's text named, read from the thread */
    pid_t tid;       /* the thread's own tid */
    char text[256];  /* what it read */
    int own_fd;      /* the fd of a handle the thread opened and read itself */
    long own_id;     /* and the id that handle named */
    long own_id_2nd; /* on its second read */
};

static void *read_from_thread(void *arg)
{
    struct thread_read *t = arg;
    t->tid = tid_now();
    ssize_t n = bench__os_file_read(t->f, t->text, sizeof t->text);
    t->id = n > 0 ? first_field(t->text) : -1;
    /* a handle this thread opens is this thread's: its fd is kept */
    struct bench__os_file own;
    bench__os_file_open(&own, "/proc/thread-self/stat");
    char buf[256];
    t->own_id = bench__os_file_read(&own, buf, sizeof buf) > 0 ? first_field(buf) : -1;
    t->own_id_2nd = bench__os_file_read(&own, buf, sizeof buf) > 0 ? first_field(buf) : -1;
    t->own_fd = own.fd;
    bench__os_file_close(&own);
    return NULL;
}

static void read_in_a_thread(struct thread_read *t)
{
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, read_from_thread, t), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
}

/* Opened and read in the main thread, read from a second thread: the second thread's tid. */
static void test_other_thread_reads_its_own_thread_self(void **state)
{
    (void)state;
    struct bench__os_file f;
    bench__os_file_open(&f, "/proc/thread-self/stat");
    assert_int_equal(read_id(&f), tid_now());
    int kept = f.fd;
    assert_true(kept >= 0);

    struct thread_read t = {.f = &f};
    read_in_a_thread(&t);
    assert_true(t.tid != tid_now());
    assert_int_equal(t.id, t.tid);
    assert_int_equal(t.own_id, t.tid);
    assert_int_equal(t.own_id_2nd, t.tid);
    assert_true(t.own_fd >= 0);
    assert_int_equal(f.fd, kept); /* the other thread left the handle alone */
    assert_int_equal(read_id(&f), tid_now());
    assert_int_equal(f.fd, kept);
    bench__os_file_close(&f);
}

/* Even where the text would be the same (/proc/self is the process), another thread never
 * reads through the owner's fd. */
static void test_other_thread_never_uses_the_fd(void **state)
{
    (void)state;
    struct bench__os_file f;
    bench__os_file_open(&f, "/proc/self/stat");
    assert_int_equal(read_id(&f), getpid());
    plant_sentinel(f.fd);
    struct thread_read t = {.f = &f};
    read_in_a_thread(&t);
    assert_string_not_equal(t.text, SENTINEL);
    assert_int_equal(t.id, getpid());
    char buf[256];
    assert_true(bench__os_file_read(&f, buf, sizeof buf) > 0);
    assert_string_equal(buf, SENTINEL); /* while the owner still does */
    bench__os_file_close(&f);
}

/* ---- a forked child ----------------------------------------------------------------------- */

/* Run check() in a forked child; its exit status is the test's verdict. */
static void in_child(int (*check)(struct bench__os_file *), struct bench__os_file *f)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(check(f));
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("the child's check failed: %d", WEXITSTATUS(status));
}

static int child_reads_its_own_pid(struct bench__os_file *f)
{
    char buf[256];
    ssize_t n = bench__os_file_read(f, buf, sizeof buf);
    if (n <= 0)
        return 2;
    if (strcmp(buf, SENTINEL) == 0)
        return 3; /* read through the parent's fd */
    if (first_field(buf) != getpid())
        return 4; /* the parent's numbers */
    /* a handle the child opens is the child's */
    struct bench__os_file own;
    bench__os_file_open(&own, "/proc/thread-self/stat");
    n = bench__os_file_read(&own, buf, sizeof buf);
    int rc = n <= 0 ? 5 : first_field(buf) != tid_now() ? 6 : own.fd < 0 ? 7 : 0;
    bench__os_file_close(&own);
    return rc;
}

/* Opened and read in the parent, read in a forked child: the child's pid. */
static void test_forked_child_reads_its_own_self(void **state)
{
    (void)state;
    struct bench__os_file f;
    bench__os_file_open(&f, "/proc/self/stat");
    assert_int_equal(read_id(&f), getpid());
    assert_true(f.fd >= 0);
    in_child(child_reads_its_own_pid, &f);
    plant_sentinel(f.fd); /* and never through the inherited fd */
    in_child(child_reads_its_own_pid, &f);
    bench__os_file_close(&f);
}

/* ---- the seam ----------------------------------------------------------------------------- */

static struct {
    int opens, reads, closes;
    int open_errno, read_errno;
    char path[64];
    const char *text;
    size_t pos;
} fk;

#define FAKE_FD 4242

static int fake_open(const char *path, int flags)
{
    (void)flags;
    fk.opens++;
    snprintf(fk.path, sizeof fk.path, "%s", path);
    if (fk.open_errno) {
        errno = fk.open_errno;
        return -1;
    }
    fk.pos = 0;
    return FAKE_FD;
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
    assert_int_equal(fd, FAKE_FD);
    fk.reads++;
    if (fk.read_errno) {
        errno = fk.read_errno;
        return -1;
    }
    size_t n = strlen(fk.text) - fk.pos;
    n = n < count ? n : count;
    n = n < 3 ? n : 3; /* short reads */
    memcpy(buf, fk.text + fk.pos, n);
    fk.pos += n;
    return (ssize_t)n;
}

static int fake_close(int fd)
{
    assert_int_equal(fd, FAKE_FD);
    fk.closes++;
    return 0;
}

static void install_fakes(void)
{
    memset(&fk, 0, sizeof fk);
    fk.text = "7 (fake) R\n";
    bench__os.open = fake_open;
    bench__os.read = fake_read;
    bench__os.close = fake_close;
}

/* A handle that kept its fd under the real seam: an injected seam is still reached, every time,
 * and once the seam is reset the kept fd is used again. */
static void test_injected_seam_is_reached_after_keeping(void **state)
{
    (void)state;
    struct bench__os_file f;
    bench__os_file_open(&f, "/proc/self/stat");
    assert_int_equal(read_id(&f), getpid());
    int kept = f.fd;
    assert_true(kept >= 0);
    plant_sentinel(kept);

    char buf[256];
    install_fakes();
    fk.open_errno = EACCES;
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), -EACCES);
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), -EACCES);
    assert_int_equal(fk.opens, 2);
    assert_string_equal(fk.path, "/proc/self/stat");

    fk.open_errno = 0;
    fk.read_errno = EIO;
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), -EIO);
    assert_int_equal(fk.closes, 1); /* the one-off read closes what it opened */

    fk.read_errno = 0;
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), (ssize_t)strlen(fk.text));
    assert_string_equal(buf, fk.text);
    assert_int_equal(fk.opens, 4);
    assert_int_equal(fk.closes, 2);
    assert_int_equal(f.fd, kept); /* kept, unused */

    /* one injected member is enough to bypass the fd */
    bench__os_reset();
    bench__os.open = fake_open;
    fk.opens = 0;
    fk.open_errno = EMFILE;
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), -EMFILE);
    assert_int_equal(fk.opens, 1);
    bench__os_reset();
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), (ssize_t)strlen(SENTINEL));
    assert_string_equal(buf, SENTINEL);
    bench__os_file_close(&f);
}

/* A handle opened while the seam is injected: every read goes through the seam; once the seam
 * is real again, the first read opens the fd and keeps it. */
static void test_injected_seam_from_the_start(void **state)
{
    (void)state;
    install_fakes();
    fk.open_errno = ENOENT;
    struct bench__os_file f;
    bench__os_file_open(&f, "/proc/self/stat");
    assert_int_equal(fk.opens, 0); /* open makes no call */
    char buf[256];
    assert_int_equal(bench__os_file_read(&f, buf, sizeof buf), -ENOENT);
    assert_int_equal(fk.opens, 1);
    assert_int_equal(f.fd, -1);
    bench__os_reset();
    assert_int_equal(read_id(&f), getpid());
    assert_true(f.fd >= 0);
    bench__os_file_close(&f);
    assert_int_equal(fk.closes, 0); /* the kept fd is closed with the real close */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_contract, reset),
        cmocka_unit_test_teardown(test_own_task_reuses_the_fd, reset),
        cmocka_unit_test_teardown(test_failed_read_drops_the_fd, reset),
        cmocka_unit_test_teardown(test_other_thread_reads_its_own_thread_self, reset),
        cmocka_unit_test_teardown(test_other_thread_never_uses_the_fd, reset),
        cmocka_unit_test_teardown(test_forked_child_reads_its_own_self, reset),
        cmocka_unit_test_teardown(test_injected_seam_is_reached_after_keeping, reset),
        cmocka_unit_test_teardown(test_injected_seam_from_the_start, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
