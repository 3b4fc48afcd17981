/* SPDX-License-Identifier: MIT */
/* test_atomic_file.c: the atomic write (lib/util/atomic_file.c) in a scratch directory: the
 * temporary's name and its fit within NAME_MAX, the clean-up of a killed writer's temporary (and
 * only that), symbolic links, the removal of the temporary on a fatal signal during the write
 * (a real signal, sent while the write is under way through the write seam), and the check of a
 * destination before a run. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/atomic_file.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_atomic_file.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

/* Remove everything in dir (files and links; one level), then dir itself. */
static void empty_dir(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            if (unlinkat(dirfd(d), de->d_name, 0) != 0)
                unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
    closedir(d);
}

static int teardown(void **state)
{
    (void)state;
    empty_dir();
    rmdir(dir);
    return 0;
}

static char *in_dir(const char *name)
{
    static char paths[4][PATH_MAX];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, PATH_MAX, "%s/%s", dir, name);
    return p;
}

/* The names in dir, sorted, joined by '|'. */
static const char *listing(void)
{
    static char out[4096];
    char *names[64];
    size_t n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 64)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            names[n++] = strdup(de->d_name);
    closedir(d);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(out, "|");
        strncat(out, names[i], sizeof out - strlen(out) - 2);
        free(names[i]);
    }
    return out;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *get(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* ---- the temporary's name ----------------------------------------------------------- */

static char seen_temp[NAME_MAX + 2];
static ssize_t (*real_write)(int, const void *, size_t);

/* The write seam: note the temporary in dir, then write. */
static ssize_t note_temp_then_write(int fd, const void *data, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    seen_temp[0] = '\0';
    while (d && (de = readdir(d)) != NULL)
        if (de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            snprintf(seen_temp, sizeof seen_temp, "%s", de->d_name);
    if (d)
        closedir(d);
    return real_write(fd, data, len);
}

/* A target of every name length up to NAME_MAX is written (the temporary name once added 7
 * bytes: 249 was the longest that worked), and its temporary fits: ".<name>.<pid>.XXXXXX", or a
 * prefix with "~<hash>" when the name is too long for that. */
static void test_temp_name_fits(void **state)
{
    (void)state;
    real_write = bench__atomic_file_write;
    bench__atomic_file_write = note_temp_then_write;
    static const size_t lengths[] = {1, 8, 200, 236, 237, 249, 250, 254, 255};
    char pid[32];
    snprintf(pid, sizeof pid, ".%ld.", (long)getpid());
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        char name[NAME_MAX + 1];
        memset(name, 'n', lengths[k]);
        name[lengths[k]] = '\0';
        name[0] = 'd';
        assert_int_equal(bench__write_file(in_dir(name), "{}\n", 3), 0);
        assert_string_equal(listing(), name);
        assert_string_equal(get(in_dir(name)), "{}\n");
        size_t t = strlen(seen_temp);
        assert_true(t > 0 && t <= NAME_MAX);
        assert_true(seen_temp[0] == '.');
        const char *tail = strstr(seen_temp, pid);
        assert_non_null(tail);
        assert_int_equal(strlen(tail + strlen(pid)), 6); /* XXXXXX */
        if (lengths[k] <= 236) {                         /* 255 - 19 */
            assert_memory_equal(seen_temp + 1, name, lengths[k]);
            assert_ptr_equal(tail, seen_temp + 1 + lengths[k]);
        } else {
            assert_memory_equal(seen_temp + 1, name, 227);
            assert_int_equal(seen_temp[228], '~');
            assert_ptr_equal(tail, seen_temp + 237);
        }
        unlink(in_dir(name));
    }
    /* two long names with the same prefix have their own temporaries' tags */
    char a[NAME_MAX + 1], b[NAME_MAX + 1], ta[NAME_MAX + 2];
    memset(a, 'x', 250), a[250] = '\0';
    memcpy(b, a, sizeof a), b[249] = 'y';
    assert_int_equal(bench__write_file(in_dir(a), "a", 1), 0);
    snprintf(ta, sizeof ta, "%s", seen_temp);
    assert_int_equal(bench__write_file(in_dir(b), "b", 1), 0);
    assert_memory_not_equal(ta, seen_temp, 237);
    bench__atomic_file_write = real_write;
    empty_dir();
    /* a name longer than NAME_MAX is refused, and nothing is left */
    char toolong[NAME_MAX + 2];
    memset(toolong, 'z', NAME_MAX + 1), toolong[NAME_MAX + 1] = '\0';
    assert_int_equal(bench__write_file(in_dir(toolong), "x", 1), ENAMETOOLONG);
    assert_string_equal(listing(), "");
}

/* ---- a killed writer's temporary ---------------------------------------------------------- */

/* The pid of a process that has exited and been reaped. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return pid;
}

static void test_left_over_removed(void **state)
{
    (void)state;
    pid_t dead = dead_pid(), alive = getppid();
    char name[128];
    /* the target's own, from a process that is gone: removed */
    snprintf(name, sizeof name, ".doc.json.%ld.aB3dE9", (long)dead);
    char stale[128];
    snprintf(stale, sizeof stale, "%s", name);
    put(in_dir(name), "{\"half");
    /* the target's own, but its writer is alive: kept */
    snprintf(name, sizeof name, ".doc.json.%ld.Zz9Yy8", (long)alive);
    char live[128];
    snprintf(live, sizeof live, "%s", name);
    put(in_dir(name), "{");
    /* dead writer, but the file is locked (a writer in another pid namespace): kept */
    snprintf(name, sizeof name, ".doc.json.%ld.LoCkEd", (long)dead);
    char locked[128];
    snprintf(locked, sizeof locked, "%s", name);
    put(in_dir(name), "{");
    int lock_fd = open(in_dir(name), O_RDONLY);
    assert_true(lock_fd >= 0);
    assert_int_equal(flock(lock_fd, LOCK_EX), 0);
    /* not this target's pattern: kept */
    static const char *const others[] = {".doc.json.1.abc",       ".doc.json.x.abcdef",
                                         "doc.json.12.abcdef",    ".doc.json.12.abcdefg",
                                         ".doc.json.12.abc.ef",   ".docXjson.12.abcdef",
                                         ".other.json.12.abcdef", ".doc.json..abcdef"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        put(in_dir(others[i]), "x");
    char other_dead[128];
    snprintf(other_dead, sizeof other_dead, ".other.json.%ld.abcdef", (long)dead);
    put(in_dir(other_dead), "x");
    /* a directory of the pattern: kept */
    char as_dir[128];
    snprintf(as_dir, sizeof as_dir, ".doc.json.%ld.DiRrrr", (long)dead);
    assert_int_equal(mkdir(in_dir(as_dir), 0700), 0);

    assert_int_equal(bench__write_file(in_dir("doc.json"), "{}\n", 3), 0);
    struct stat st;
    assert_int_equal(stat(in_dir(stale), &st), -1);
    assert_int_equal(stat(in_dir(live), &st), 0);
    assert_int_equal(stat(in_dir(locked), &st), 0);
    assert_int_equal(stat(in_dir(as_dir), &st), 0);
    assert_int_equal(stat(in_dir(other_dead), &st), 0);
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        assert_int_equal(stat(in_dir(others[i]), &st), 0);
    assert_string_equal(get(in_dir("doc.json")), "{}\n");
    /* once unlocked, the next write removes it */
    close(lock_fd);
    assert_int_equal(bench__write_file(in_dir("doc.json"), "{}\n", 3), 0);
    assert_int_equal(stat(in_dir(locked), &st), -1);
    assert_int_equal(stat(in_dir(live), &st), 0);
    empty_dir();
}

/* ---- links, directories ------------------------------------------------------------------ */

static void test_links(void **state)
{
    (void)state;
    char why[512];
    /* dangling: refused, the link stays a link to the same name, nothing is created */
    assert_int_equal(symlink("nowhere.json", in_dir("dangling")), 0);
    assert_int_equal(bench__write_file(in_dir("dangling"), "x", 1), BENCH__WRITE_DANGLING);
    char to[64];
    ssize_t n = readlink(in_dir("dangling"), to, sizeof to - 1);
    assert_true(n > 0);
    to[n] = '\0';
    assert_string_equal(to, "nowhere.json");
    assert_string_equal(listing(), "dangling");
    assert_int_equal(bench__write_file_check(in_dir("dangling"), why, sizeof why), -1);
    assert_string_equal(why, "it is a dangling symbolic link (to 'nowhere.json'): refused, a link "
                             "is never replaced by a file");
    assert_string_equal(bench__write_file_strerror(BENCH__WRITE_DANGLING),
                        "a dangling symbolic link (refused: a link is never replaced by a file)");
    /* a loop: refused */
    assert_int_equal(symlink("loop_b", in_dir("loop_a")), 0);
    assert_int_equal(symlink("loop_a", in_dir("loop_b")), 0);
    assert_int_equal(bench__write_file(in_dir("loop_a"), "x", 1), ELOOP);
    assert_int_equal(bench__write_file_check(in_dir("loop_a"), why, sizeof why), -1);
    assert_string_equal(why, "it is a symbolic link that loops: refused");
    /* a link to a regular file: the file is replaced, the link kept */
    put(in_dir("real.json"), "old");
    assert_int_equal(symlink("real.json", in_dir("link.json")), 0);
    assert_int_equal(bench__write_file_check(in_dir("link.json"), why, sizeof why), 0);
    assert_int_equal(bench__write_file(in_dir("link.json"), "new", 3), 0);
    struct stat st;
    assert_int_equal(lstat(in_dir("link.json"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(get(in_dir("real.json")), "new");
    /* a directory, or a link to one */
    assert_int_equal(mkdir(in_dir("sub"), 0700), 0);
    assert_int_equal(symlink("sub", in_dir("to_sub")), 0);
    assert_int_equal(bench__write_file(in_dir("sub"), "x", 1), EISDIR);
    assert_int_equal(bench__write_file(in_dir("to_sub"), "x", 1), EISDIR);
    assert_int_equal(bench__write_file_check(in_dir("to_sub"), why, sizeof why), -1);
    assert_string_equal(why, "it is a directory");
    assert_string_equal(listing(), "dangling|link.json|loop_a|loop_b|real.json|sub|to_sub");
    empty_dir();
}

/* ---- the check before a run --------------------------------------------------------------- */

static void test_check(void **state)
{
    (void)state;
    char why[512], want[600];
    assert_int_equal(bench__write_file_check(in_dir("doc.json"), why, sizeof why), 0);
    assert_string_equal(listing(), ""); /* the probe leaves nothing */
    assert_int_equal(bench__write_file_check("/dev/null", why, sizeof why), 0);
    assert_int_equal(bench__write_file_check(in_dir("missing/doc.json"), why, sizeof why), -1);
    snprintf(want, sizeof want, "the directory '%s' does not exist", in_dir("missing"));
    assert_string_equal(why, want);
    put(in_dir("file"), "x");
    assert_int_equal(bench__write_file_check(in_dir("file/doc.json"), why, sizeof why), -1);
    assert_string_equal(why, "Not a directory");
    char name[NAME_MAX + 2];
    memset(name, 'n', NAME_MAX + 1), name[NAME_MAX + 1] = '\0';
    assert_int_equal(bench__write_file_check(in_dir(name), why, sizeof why), -1);
    snprintf(want, sizeof want, "the file name is 256 bytes long (at most 255 in '%s')", dir);
    assert_string_equal(why, want);
    memset(name, 'n', NAME_MAX), name[NAME_MAX] = '\0';
    assert_int_equal(bench__write_file_check(in_dir(name), why, sizeof why), 0);
    /* a directory no file can be created in: /proc refuses even root */
    assert_int_equal(bench__write_file_check("/proc/libbench-test.json", why, sizeof why), -1);
    assert_true(strncmp(why, "no file can be created in '/proc': ", 35) == 0);
    char path[PATH_MAX + 8];
    memset(path, 'p', sizeof path - 1), path[sizeof path - 1] = '\0';
    assert_int_equal(bench__write_file_check(path, why, sizeof why), -1);
    snprintf(want, sizeof want, "the path is %zu bytes long (at most %d)", strlen(path),
             PATH_MAX - 1);
    assert_string_equal(why, want);
    assert_string_equal(listing(), "file");
    empty_dir();
}

/* ---- a fatal signal during the write --------------------------------------------------------- */

static int signal_to_send;
static size_t writes;

/* The write seam: the first call writes part of the data, then the process gets a real signal
 * (kill, not a function call: delivered as any other would be). */
static ssize_t write_then_signal(int fd, const void *data, size_t len)
{
    if (writes++ == 0) {
        ssize_t n = write(fd, data, len / 2);
        kill(getpid(), signal_to_send);
        return n;
    }
    return write(fd, data, len);
}

/* Run bench__write_file in a child that gets `sig` mid-write; returns its wait status. */
static int write_under_signal(int sig, void (*prepare)(void))
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        /* each signal as a fresh program has it, whatever this test inherited (nohup ignores
         * SIGHUP, and an ignored signal is left ignored by the writer, as it must be) */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        if (prepare)
            prepare();
        signal_to_send = sig;
        writes = 0;
        bench__atomic_file_write = write_then_signal;
        char big[1 << 16];
        memset(big, 'x', sizeof big);
        int rc = bench__write_file(in_dir("doc.json"), big, sizeof big);
        _exit(rc == 0 ? 0 : 3);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void ignore_sigterm(void)
{
    signal(SIGTERM, SIG_IGN);
}

static void note_sigint(int sig)
{
    (void)sig;
}

static void handle_sigint(void)
{
    signal(SIGINT, note_sigint);
}

static void small_files(void)
{
    struct rlimit small = {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &small);
}

static void test_signal_removes_temporary(void **state)
{
    (void)state;
    static const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        int status = write_under_signal(fatal[i], NULL);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != fatal[i])
            print_message("signal %d: status %#x\n", fatal[i], status);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), fatal[i]);
        assert_string_equal(listing(), ""); /* no temporary, no target */
    }
    /* an existing target survives, and no temporary is left */
    put(in_dir("doc.json"), "OLD");
    int status = write_under_signal(SIGTERM, NULL);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_string_equal(listing(), "doc.json");
    assert_string_equal(get(in_dir("doc.json")), "OLD");
    /* SIGXFSZ: the file size limit reached while writing the temporary */
    status = write_under_signal(0, small_files);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ);
    assert_string_equal(listing(), "doc.json");
    assert_string_equal(get(in_dir("doc.json")), "OLD");
    /* a signal the program ignores, or handles itself, does not end the write */
    status = write_under_signal(SIGTERM, ignore_sigterm);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    status = write_under_signal(SIGINT, handle_sigint);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_string_equal(listing(), "doc.json");
    struct stat st;
    assert_int_equal(stat(in_dir("doc.json"), &st), 0);
    assert_int_equal(st.st_size, 1 << 16);
    /* after a write, the handlers are the program's again */
    struct sigaction now;
    assert_int_equal(sigaction(SIGTERM, NULL, &now), 0);
    assert_ptr_equal(now.sa_handler, SIG_DFL);
    assert_int_equal(bench__write_file(in_dir("doc.json"), "{}", 2), 0);
    assert_int_equal(sigaction(SIGTERM, NULL, &now), 0);
    assert_ptr_equal(now.sa_handler, SIG_DFL);
    empty_dir();
}

/* ---- data made while it is written ------------------------------------------------------- */

struct pieces {
    const char *const *piece;
    int fail_after; /* the producer's own error after that many pieces (-1: none) */
    int calls;
};

static int produce(void *ctx, int (*put_piece)(void *sink, const char *data, size_t len),
                   void *sink)
{
    struct pieces *p = ctx;
    p->calls++;
    for (int i = 0; p->piece[i]; i++) {
        if (i == p->fail_after)
            return ENOSPC;
        int e = put_piece(sink, p->piece[i], strlen(p->piece[i]));
        if (e)
            return e;
    }
    return 0;
}

static void test_write_from(void **state)
{
    (void)state;
    static const char *const three[] = {"{\"a\": ", "1", "}\n", NULL};
    struct pieces ok = {three, -1, 0};
    assert_int_equal(bench__write_file_from(in_dir("doc.json"), produce, &ok), 0);
    assert_int_equal(ok.calls, 1);
    assert_string_equal(get(in_dir("doc.json")), "{\"a\": 1}\n");
    struct pieces failing = {three, 2, 0};
    assert_int_equal(bench__write_file_from(in_dir("doc.json"), produce, &failing), ENOSPC);
    assert_string_equal(get(in_dir("doc.json")), "{\"a\": 1}\n"); /* untouched */
    assert_string_equal(listing(), "doc.json");                   /* no temporary left */
    /* a directory is refused before anything is made */
    assert_int_equal(mkdir(in_dir("sub"), 0755), 0);
    struct pieces none = {three, -1, 0};
    assert_int_equal(bench__write_file_from(in_dir("sub"), produce, &none), EISDIR);
    assert_int_equal(none.calls, 0);
    empty_dir();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_temp_name_fits),
        cmocka_unit_test(test_left_over_removed),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_signal_removes_temporary),
        cmocka_unit_test(test_write_from),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
