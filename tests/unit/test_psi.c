/* SPDX-License-Identifier: MIT */
/* test_psi.c: the PSI source: the /proc/pressure parser on captured, historical, torn and
 * hostile text; the integer-µs window deltas; open/read through a fake kernel behind the os seam;
 * one live read on the real kernel (skipped where /proc/pressure is absent). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "platform/os.h"
#include "workload/psi.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NA (-1)

/* Captured on the development VM (Linux 6.18, 2 vCPUs) with `cat /proc/pressure/<file>`. */
#define CAPTURED_IO                                                                                \
    "some avg10=0.00 avg60=0.00 avg300=0.00 total=13058244\n"                                      \
    "full avg10=0.00 avg60=0.00 avg300=0.00 total=9860892\n"
#define CAPTURED_MEMORY                                                                            \
    "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"                                             \
    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
#define CAPTURED_CPU                                                                               \
    "some avg10=19.24 avg60=24.37 avg300=26.46 total=766163993\n"                                  \
    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
/* Kernels before 5.13 print no `full` line for cpu. */
#define PRE_5_13_CPU "some avg10=0.52 avg60=0.31 avg300=0.27 total=1843212\n"

#define assert_nan(v)                                                                              \
    do {                                                                                           \
        double v_ = (v);                                                                           \
        if (!isnan(v_))                                                                            \
            fail_msg("%s == %.17g, want NaN (not measured)", #v, v_);                              \
    } while (0)

/* ---- the parser ------------------------------------------------------------------------- */

struct parse_case {
    const char *what;
    const char *text;
    size_t len; /* 0 = strlen(text) */
    int rc;
    int64_t some, full;
};

static const struct parse_case parse_cases[] = {
    {"captured io", CAPTURED_IO, 0, 0, 13058244, 9860892},
    {"captured memory (all zero is a true reading)", CAPTURED_MEMORY, 0, 0, 0, 0},
    {"captured cpu (full pinned to 0 system-wide)", CAPTURED_CPU, 0, 0, 766163993, 0},
    {"pre-5.13 cpu: no full line", PRE_5_13_CPU, 0, 0, 1843212, NA},
    {"pre-5.13 shape for io, some only", "some avg10=1.00 avg60=2.00 avg300=3.00 total=77\n", 0, 0,
     77, NA},
    {"full before some", "full avg10=0.00 total=3\nsome avg10=0.00 total=5\n", 0, 0, 5, 3},
    {"total= not last on the line", "some total=5 avg10=0.00\n", 0, 0, 5, NA},
    {"tab-separated fields", "some avg10=0.00\ttotal=5\n", 0, 0, 5, NA},
    {"other lines are skipped", "# note\n\nsome total=5\nwhat total=9\n", 0, 0, 5, NA},
    {"averages never mistaken for the total", "some avg10=99.99 avg60=99.99 avg300=9 total=7\n", 0,
     0, 7, NA},
    {"18 digits", "some total=123456789012345678\n", 0, 0, 123456789012345678, NA},
    {"18 digits with leading zeros", "some total=000000000000000042\n", 0, 0, 42, NA},
    /* invalid */
    {"empty", "", 0, -1, NA, NA},
    {"garbage", "garbage\n", 0, -1, NA, NA},
    {"full without some", "full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n", 0, -1, NA, NA},
    {"missing total=", "some avg10=0.00 avg60=0.00 avg300=0.00\n", 0, -1, NA, NA},
    {"missing total= on the full line", "some avg10=0.00 total=5\nfull avg10=0.00 avg60=0.00\n", 0,
     -1, NA, NA},
    {"empty digit run", "some avg10=0.00 total=\n", 0, -1, NA, NA},
    {"blank after total=", "some total= 5\n", 0, -1, NA, NA},
    {"glued: total=12x", "some avg10=0.00 total=12x\n", 0, -1, NA, NA},
    {"glued: total=12x on full", "some total=5\nfull total=12x\n", 0, -1, NA, NA},
    {"glued before total=", "some avg300=0.00total=5\n", 0, -1, NA, NA},
    {"longer key is not the key", "some xtotal=5\n", 0, -1, NA, NA},
    {"negative", "some total=-5\n", 0, -1, NA, NA},
    {"decimal point", "some total=5.0\n", 0, -1, NA, NA},
    {"CRLF glues a carriage return", "some total=5\r\n", 0, -1, NA, NA},
    {"19 digits", "some total=1234567890123456789\n", 0, -1, NA, NA},
    {"19 digits with leading zeros", "some total=0000000000000000042\n", 0, -1, NA, NA},
    {"20 digits", "some total=12345678901234567890\n", 0, -1, NA, NA},
    {"19-digit full", "some total=5\nfull total=1234567890123456789\n", 0, -1, NA, NA},
    {"label without the space", "some\ttotal=5\nsometotal=6\n", 0, -1, NA, NA},
    {"label not at line start", " some total=5\n", 0, -1, NA, NA},
    {"label case matters", "Some total=5\n", 0, -1, NA, NA},
    {"label alone", "some\n", 0, -1, NA, NA},
    {"two some lines", "some total=5\nsome total=6\n", 0, -1, NA, NA},
    {"two full lines", "some total=5\nfull total=1\nfull total=2\n", 0, -1, NA, NA},
    {"two totals on a line", "some total=5 total=6\n", 0, -1, NA, NA},
    /* torn reads: a digit run ending at end-of-buffer */
    {"torn: no final newline", "some avg10=0.00 avg60=0.00 avg300=0.00 total=13058244", 0, -1, NA,
     NA},
    {"torn: full total cut", "some total=5\nfull avg10=0.00 total=98", 0, -1, NA, NA},
    {"torn: full line cut before total", "some total=5\nfull avg10=0.0", 0, -1, NA, NA},
    {"torn: len cuts the some total", CAPTURED_IO, 50, -1, NA, NA},
    {"torn: cut inside the full label keeps some", CAPTURED_IO, 56, 0, 13058244, NA},
    {"torn: cut right after the some line keeps some", CAPTURED_IO, 54, 0, 13058244, NA},
};

static void test_parse_table(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof parse_cases / sizeof parse_cases[0]; c++) {
        const struct parse_case *pc = &parse_cases[c];
        int64_t some = 123, full = 123;
        size_t len = pc->len ? pc->len : strlen(pc->text);
        int rc = bench__psi_parse(pc->text, len, &some, &full);
        if (rc != pc->rc || some != pc->some || full != pc->full)
            fail_msg("case '%s': rc %d some %lld full %lld, want rc %d some %lld full %lld",
                     pc->what, rc, (long long)some, (long long)full, pc->rc, (long long)pc->some,
                     (long long)pc->full);
    }
}

static void test_parse_embedded_nul(void **state)
{
    (void)state;
    static const char glued[] = "some total=5\0\n";
    int64_t some, full;
    assert_int_equal(bench__psi_parse(glued, sizeof glued - 1, &some, &full), -1);
    static const char label[] = "some\0total=5\nsome total=6\n";
    assert_int_equal(bench__psi_parse(label, sizeof label - 1, &some, &full), 0);
    assert_int_equal(some, 6);
}

static void test_parse_every_prefix_of_captured(void **state)
{
    (void)state;
    /* a torn read at any byte: never a wrong number; a total counts only once the character
     * after its digits is inside the buffer */
    static const char *const texts[] = {CAPTURED_IO, CAPTURED_MEMORY, CAPTURED_CPU, PRE_5_13_CPU};
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        const char *text = texts[t];
        size_t whole = strlen(text);
        int64_t want_some, want_full;
        assert_int_equal(bench__psi_parse(text, whole, &want_some, &want_full), 0);
        size_t some_line = (size_t)(strchr(text, '\n') - text) + 1;
        for (size_t len = 0; len <= whole; len++) {
            int64_t some, full;
            int rc = bench__psi_parse(text, len, &some, &full);
            if (len < some_line) {
                assert_int_equal(rc, -1);
                continue;
            }
            if (rc != 0)
                continue; /* a cut inside the full line's fields */
            assert_int_equal(some, want_some);
            assert_true(full == NA || full == want_full);
            if (want_full != NA)
                assert_int_equal(full == want_full, len == whole);
        }
    }
}

/* ---- deltas ------------------------------------------------------------------------------- */

static void test_delta(void **state)
{
    (void)state;
    struct bench__psi_snapshot a = {1000, 500, 10, NA, 9};
    struct bench__psi_snapshot b = {4000, 700, 10, NA, 4};
    double ns[5];
    bench__psi_delta(&a, &b, ns);
    assert_true(ns[BENCH__PSI_IO_SOME] == 3000000.0); /* µs deltas become ns */
    assert_true(ns[BENCH__PSI_IO_FULL] == 200000.0);
    assert_true(ns[BENCH__PSI_MEM_SOME] == 0.0); /* a zero system delta is a true statement */
    assert_nan(ns[BENCH__PSI_MEM_FULL]);         /* absent full line */
    assert_nan(ns[BENCH__PSI_CPU_SOME]);         /* backwards accumulator */
}

static void test_delta_unknown_edges(void **state)
{
    (void)state;
    struct bench__psi_snapshot a = {NA, NA, 10, 3, 9};
    struct bench__psi_snapshot b = {4000, 700, 12, NA, NA};
    double ns[5];
    bench__psi_delta(&a, &b, ns);
    assert_nan(ns[BENCH__PSI_IO_SOME]); /* unreadable opening edge */
    assert_nan(ns[BENCH__PSI_IO_FULL]);
    assert_true(ns[BENCH__PSI_MEM_SOME] == 2000.0); /* the other files are unaffected */
    assert_nan(ns[BENCH__PSI_MEM_FULL]);            /* full vanished at the closing edge */
    assert_nan(ns[BENCH__PSI_CPU_SOME]);
}

static void test_delta_is_exact_on_long_uptimes(void **state)
{
    (void)state;
    /* 18-digit totals: converting to ns before subtracting would lose the 1 µs */
    const int64_t big = 123456789012345678;
    struct bench__psi_snapshot a = {big, big - 5, 0, 0, big};
    struct bench__psi_snapshot b = {big + 1, big - 5, 0, 0, big + 7};
    double ns[5];
    assert_true((double)(big + 1) * 1000.0 - (double)big * 1000.0 != 1000.0); /* the trap */
    bench__psi_delta(&a, &b, ns);
    assert_true(ns[BENCH__PSI_IO_SOME] == 1000.0);
    assert_true(ns[BENCH__PSI_IO_FULL] == 0.0);
    assert_true(ns[BENCH__PSI_CPU_SOME] == 7000.0);
}

/* ---- a fake kernel behind the seam -------------------------------------------------------- */

#define FAKE_FD 4343

static struct {
    const char *text[3]; /* io, memory, cpu; NULL = fail open with errs[] */
    int errs[3];
    const char *open_text;
    size_t pos;
    unsigned opens;
} fk;

static int file_index(const char *path)
{
    if (strcmp(path, "/proc/pressure/io") == 0)
        return 0;
    if (strcmp(path, "/proc/pressure/memory") == 0)
        return 1;
    if (strcmp(path, "/proc/pressure/cpu") == 0)
        return 2;
    fail_msg("unexpected open of %s", path);
    return -1;
}

static int fake_open(const char *path, int flags)
{
    (void)flags;
    int f = file_index(path);
    fk.opens++;
    assert_null(fk.open_text);
    if (!fk.text[f]) {
        errno = fk.errs[f];
        return -1;
    }
    fk.open_text = fk.text[f];
    fk.pos = 0;
    return FAKE_FD;
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
    assert_int_equal(fd, FAKE_FD);
    assert_non_null(fk.open_text);
    size_t n = strlen(fk.open_text) - fk.pos;
    if (n > count)
        n = count;
    if (n > 7)
        n = 7; /* short reads: the file is reassembled */
    memcpy(buf, fk.open_text + fk.pos, n);
    fk.pos += n;
    return (ssize_t)n;
}

static int fake_close(int fd)
{
    assert_int_equal(fd, FAKE_FD);
    assert_non_null(fk.open_text);
    fk.open_text = NULL;
    return 0;
}

static int fake_setup(void **state)
{
    (void)state;
    memset(&fk, 0, sizeof fk);
    fk.text[0] = CAPTURED_IO;
    fk.text[1] = CAPTURED_MEMORY;
    fk.text[2] = CAPTURED_CPU;
    bench__os.open = fake_open;
    bench__os.read = fake_read;
    bench__os.close = fake_close;
    return 0;
}

static int fake_teardown(void **state)
{
    (void)state;
    bench__os_reset();
    return 0;
}

static void test_open_healthy(void **state)
{
    (void)state;
    struct bench__psi p;
    char reason[256] = "stale";
    assert_true(bench__psi_open(&p, reason, sizeof reason));
    assert_true(p.available && p.memory && p.cpu);
    assert_string_equal(reason, "");
    assert_string_equal(p.status, "system-wide stall integrals (/proc/pressure)");

    struct bench__psi_snapshot s;
    bench__psi_read(&p, &s);
    assert_int_equal(s.io_some, 13058244);
    assert_int_equal(s.io_full, 9860892);
    assert_int_equal(s.mem_some, 0);
    assert_int_equal(s.mem_full, 0);
    assert_int_equal(s.cpu_some, 766163993);
    assert_null(fk.open_text); /* every file closed */
    bench__psi_close(&p);
}

static void test_open_io_enoent_unavailable(void **state)
{
    (void)state;
    fk.text[0] = NULL;
    fk.errs[0] = ENOENT;
    struct bench__psi p;
    char reason[256];
    assert_false(bench__psi_open(&p, reason, sizeof reason));
    assert_false(p.available);
    assert_non_null(strstr(reason, "/proc/pressure/io unreadable"));
    assert_non_null(strstr(reason, strerror(ENOENT)));
    assert_non_null(strstr(reason, "CONFIG_PSI=n or psi=0 boot"));
    assert_non_null(strstr(p.status, reason));

    unsigned before = fk.opens;
    struct bench__psi_snapshot s;
    bench__psi_read(&p, &s);
    assert_int_equal(fk.opens, before); /* an unavailable source reads nothing */
    assert_int_equal(s.io_some, NA);
    assert_int_equal(s.mem_some, NA);
    assert_int_equal(s.cpu_some, NA);
    bench__psi_close(&p);
}

static void test_open_io_unparsable_unavailable(void **state)
{
    (void)state;
    fk.text[0] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=130"; /* torn */
    struct bench__psi p;
    char reason[256];
    assert_false(bench__psi_open(&p, reason, sizeof reason));
    assert_non_null(strstr(reason, "/proc/pressure/io unparsable"));
    bench__psi_close(&p);
}

static void test_open_io_eacces_unavailable(void **state)
{
    (void)state;
    fk.text[0] = NULL;
    fk.errs[0] = EACCES;
    struct bench__psi p;
    char reason[256];
    assert_false(bench__psi_open(&p, reason, sizeof reason));
    assert_non_null(strstr(reason, strerror(EACCES)));
    assert_non_null(strstr(reason, "hardened /proc or a sandbox"));
    bench__psi_close(&p);
}

static void test_masked_memory_and_cpu_disclosed(void **state)
{
    (void)state;
    fk.text[1] = NULL;
    fk.errs[1] = EACCES;
    fk.text[2] = "garbage\n";
    struct bench__psi p;
    char reason[256];
    assert_true(bench__psi_open(&p, reason, sizeof reason));
    assert_true(p.available);
    assert_false(p.memory);
    assert_false(p.cpu);
    assert_non_null(strstr(p.status, "; memory masked (/proc/pressure/memory unreadable ("));
    assert_non_null(strstr(p.status, "; cpu masked (/proc/pressure/cpu unparsable"));

    /* a masked file is never read again, and reads -1 (NaN deltas), never 0 */
    fk.text[1] = CAPTURED_MEMORY;
    fk.text[2] = CAPTURED_CPU;
    unsigned before = fk.opens;
    struct bench__psi_snapshot a, b;
    bench__psi_read(&p, &a);
    bench__psi_read(&p, &b);
    assert_int_equal(fk.opens - before, 2); /* io only */
    assert_int_equal(a.io_some, 13058244);
    assert_int_equal(a.mem_some, NA);
    assert_int_equal(a.mem_full, NA);
    assert_int_equal(a.cpu_some, NA);
    double ns[5];
    bench__psi_delta(&a, &b, ns);
    assert_true(ns[BENCH__PSI_IO_SOME] == 0.0);
    assert_nan(ns[BENCH__PSI_MEM_SOME]);
    assert_nan(ns[BENCH__PSI_CPU_SOME]);
    bench__psi_close(&p);
}

static void test_pre_5_13_cpu_through_the_seam(void **state)
{
    (void)state;
    fk.text[2] = PRE_5_13_CPU;
    struct bench__psi p;
    char reason[256];
    assert_true(bench__psi_open(&p, reason, sizeof reason));
    assert_true(p.cpu);
    struct bench__psi_snapshot s;
    bench__psi_read(&p, &s);
    assert_int_equal(s.cpu_some, 1843212);
    bench__psi_close(&p);
}

static void test_read_fails_after_open(void **state)
{
    (void)state;
    struct bench__psi p;
    char reason[256];
    assert_true(bench__psi_open(&p, reason, sizeof reason));
    struct bench__psi_snapshot a, b;
    bench__psi_read(&p, &a);
    fk.text[0] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=13058244\nfull avg10=0.00 to";
    fk.text[1] = NULL;
    fk.errs[1] = EIO;
    bench__psi_read(&p, &b);
    assert_int_equal(b.io_some, NA); /* the torn file is rejected whole */
    assert_int_equal(b.mem_some, NA);
    assert_int_equal(b.cpu_some, 766163993);
    double ns[5];
    bench__psi_delta(&a, &b, ns);
    assert_nan(ns[BENCH__PSI_IO_SOME]);
    assert_nan(ns[BENCH__PSI_IO_FULL]);
    assert_nan(ns[BENCH__PSI_MEM_SOME]);
    assert_true(ns[BENCH__PSI_CPU_SOME] == 0.0);
    bench__psi_close(&p);
}

/* ---- the real kernel ---------------------------------------------------------------------- */

static void test_real_kernel(void **state)
{
    (void)state;
    bench__os_reset();
    struct bench__psi p;
    char reason[256];
    if (!bench__psi_open(&p, reason, sizeof reason)) {
        print_message("skipping: %s\n", reason);
        skip();
    }
    print_message("psi: %s\n", p.status);
    struct bench__psi_snapshot a, b;
    bench__psi_read(&p, &a);
    volatile uint64_t sink = 0;
    for (uint64_t i = 0; i < 2000000; i++)
        sink += i * i;
    (void)sink; /* the loop only passes time */
    bench__psi_read(&p, &b);
    assert_true(a.io_some >= 0 && b.io_some >= a.io_some);
    double ns[5];
    bench__psi_delta(&a, &b, ns);
    assert_false(isnan(ns[BENCH__PSI_IO_SOME]));
    if (p.cpu)
        assert_false(isnan(ns[BENCH__PSI_CPU_SOME]));
    print_message("psi window: ioSome %.0f ns, ioFull %.0f, memSome %.0f, memFull %.0f, cpuSome "
                  "%.0f\n",
                  ns[0], ns[1], ns[2], ns[3], ns[4]);
    bench__psi_close(&p);
}

/* The edges read the files open kept open (each fd re-read in place), and close closes them:
 * a text planted under the io file's fd is what the next edge reads. */
static void test_real_edges_read_the_kept_files(void **state)
{
    (void)state;
    bench__os_reset();
    struct bench__psi p;
    char reason[256];
    if (!bench__psi_open(&p, reason, sizeof reason)) {
        print_message("skipping: %s\n", reason);
        skip();
    }
    struct bench__psi_snapshot s;
    bench__psi_read(&p, &s);
    assert_true(s.io_some >= 0);
    int kept = p.file[0].fd;
    assert_true(kept >= 0);
    static const char text[] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=77\n";
    int mfd = memfd_create("pressure", MFD_CLOEXEC);
    assert_true(mfd >= 0);
    assert_int_equal(write(mfd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    assert_int_equal(dup2(mfd, kept), kept);
    close(mfd);
    bench__psi_read(&p, &s);
    assert_int_equal(s.io_some, 77);
    assert_int_equal(s.io_full, NA);
    bench__psi_close(&p);
    assert_int_equal(fcntl(kept, F_GETFD), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_parse_embedded_nul),
        cmocka_unit_test(test_parse_every_prefix_of_captured),
        cmocka_unit_test(test_delta),
        cmocka_unit_test(test_delta_unknown_edges),
        cmocka_unit_test(test_delta_is_exact_on_long_uptimes),
        cmocka_unit_test_setup_teardown(test_open_healthy, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_open_io_enoent_unavailable, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_open_io_unparsable_unavailable, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_open_io_eacces_unavailable, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_masked_memory_and_cpu_disclosed, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_pre_5_13_cpu_through_the_seam, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_read_fails_after_open, fake_setup, fake_teardown),
        cmocka_unit_test(test_real_kernel),
        cmocka_unit_test(test_real_edges_read_the_kept_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
