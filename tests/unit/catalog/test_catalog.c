/* SPDX-License-Identifier: MIT */
/* test_catalog.c: the public catalog API (<bench/catalog.h>): its argument and size rules
 * (NULL, out of range, a struct too small, above the 4096-byte cap, larger, or exactly the first
 * released size), the lifetime of its strings, what it reports on a fake host (every OS call
 * through the fault-injection seam: perf_event_open refused, no tracefs, no libpfm4), and that the
 * listing drawn from it is byte for byte what --list-metrics prints; and the --metrics selectors
 * that name no column, before a run and at its end. */
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
#include <unistd.h>

#include <bench/bench.h>

#include "catalog/catalog.h"
#include "fake_host.h"
#include "platform/os.h"
#include "catalog/snapshot.h"
#include "report/metric_listing.h"
#include "sources/event_naming.h"
#include "sources/source.h"

/* ---- the fake host: perf refused (paranoid 2), /proc/self/io readable, nothing else ------ */

/* What the fake sysfs says (NULL: the file is absent), set by the precise-memory test. */
static const char *fake_ibs_type, *fake_max_precise;

static const char *fake_content(const char *path, char *text, size_t size)
{
    (void)text, (void)size;
    if (!strcmp(path, "/sys/bus/event_source/devices/ibs_op/type"))
        return fake_ibs_type;
    if (!strcmp(path, "/sys/bus/event_source/devices/cpu/caps/max_precise"))
        return fake_max_precise;
    if (!strcmp(path, "/proc/self/io"))
        return "rchar: 1000\nwchar: 500\nsyscr: 40\nsyscw: 20\nread_bytes: 0\n"
               "write_bytes: 0\ncancelled_write_bytes: 0\n";
    if (!strcmp(path, "/proc/sys/kernel/perf_event_paranoid"))
        return "2\n";
    return NULL; /* no tracefs, no other file */
}

/* libpfm4, once loaded by an earlier probe, stays loaded for the process: unload it around the
 * fake host so the fake dlopen is asked. */
static int install_fake_host(void **state)
{
    (void)state;
    bench__pfm_unload();
    fake_host_files(fake_content);
    fake_host_refuse("libpfm.so.4: cannot open shared object file: No such file or directory");
    return 0;
}

static int reset_host(void **state)
{
    (void)state;
    bench__os_reset();
    bench__sources = bench__source_list;
    bench__n_sources = bench__source_list_count;
    bench__pfm_unload();
    return 0;
}

static bench_catalog_t *open_catalog(void)
{
    bench_catalog_t *cat = NULL;
    assert_int_equal(bench_catalog_open(&cat), 0);
    assert_non_null(cat);
    return cat;
}

static struct bench_metric_info metric_at(const bench_catalog_t *cat, size_t i)
{
    struct bench_metric_info m = BENCH_METRIC_INFO_INIT;
    assert_int_equal(bench_catalog_metric(cat, i, &m), 0);
    return m;
}

static struct bench_capability_info capability_at(const bench_catalog_t *cat, size_t i)
{
    struct bench_capability_info c = BENCH_CAPABILITY_INFO_INIT;
    assert_int_equal(bench_catalog_capability(cat, i, &c), 0);
    return c;
}

/* The reason the catalog gives for a capability, or NULL when it is present; fails when the
 * catalog does not list it. */
static const char *capability_reason(const bench_catalog_t *cat, const char *source,
                                     const char *name)
{
    for (size_t i = 0; i < bench_catalog_capability_count(cat); i++) {
        struct bench_capability_info c = capability_at(cat, i);
        if (!strcmp(c.source, source) && !strcmp(c.name, name))
            return c.present ? NULL : c.reason;
    }
    fail_msg("capability %s %s is not listed", source, name);
    return NULL;
}

/* ---- arguments ----------------------------------------------------------------------- */

static void test_open_and_close_arguments(void **state)
{
    (void)state;
    assert_int_equal(bench_catalog_open(NULL), BENCH_EINVAL);
    bench_catalog_close(NULL); /* ignored */
    assert_int_equal(bench_catalog_metric_count(NULL), 0);
    assert_int_equal(bench_catalog_capability_count(NULL), 0);
    static char not_a_catalog;
    bench_catalog_t *cat = (bench_catalog_t *)&not_a_catalog; /* overwritten by the open */
    assert_int_equal(bench_catalog_open(&cat), 0);
    assert_non_null(cat);
    assert_true(cat != (bench_catalog_t *)&not_a_catalog);
    bench_catalog_close(cat);
}

static void test_null_and_out_of_range(void **state)
{
    (void)state;
    bench_catalog_t *cat = open_catalog();
    size_t n_metrics = bench_catalog_metric_count(cat),
           n_caps = bench_catalog_capability_count(cat);
    assert_true(n_metrics > 0 && n_caps > 0);

    struct bench_metric_info m = BENCH_METRIC_INFO_INIT, m_before;
    m.name = "untouched";
    memcpy(&m_before, &m, sizeof m);
    assert_int_equal(bench_catalog_metric(NULL, 0, &m), BENCH_EINVAL);
    assert_int_equal(bench_catalog_metric(cat, 0, NULL), BENCH_EINVAL);
    assert_int_equal(bench_catalog_metric(cat, n_metrics, &m), BENCH_EINVAL);
    assert_int_equal(bench_catalog_metric(cat, SIZE_MAX, &m), BENCH_EINVAL);
    assert_memory_equal(&m, &m_before, sizeof m);
    assert_int_equal(bench_catalog_metric(cat, n_metrics - 1, &m), 0);

    struct bench_capability_info c = BENCH_CAPABILITY_INFO_INIT, c_before;
    c.name = "untouched";
    memcpy(&c_before, &c, sizeof c);
    assert_int_equal(bench_catalog_capability(NULL, 0, &c), BENCH_EINVAL);
    assert_int_equal(bench_catalog_capability(cat, 0, NULL), BENCH_EINVAL);
    assert_int_equal(bench_catalog_capability(cat, n_caps, &c), BENCH_EINVAL);
    assert_int_equal(bench_catalog_capability(cat, SIZE_MAX, &c), BENCH_EINVAL);
    assert_memory_equal(&c, &c_before, sizeof c);
    assert_int_equal(bench_catalog_capability(cat, n_caps - 1, &c), 0);
    bench_catalog_close(cat);
}

/* ---- the size rule --------------------------------------------------------------------- */

static void test_size_below_the_first_release_is_refused(void **state)
{
    (void)state;
    bench_catalog_t *cat = open_catalog();
    const uint32_t small[] = {0, sizeof(uint32_t), BENCH_METRIC_INFO_SIZE_V1 / 2,
                              BENCH_METRIC_INFO_SIZE_V1 - 1};
    for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) {
        struct bench_metric_info m, before;
        memset(&m, 0xA5, sizeof m);
        m.size = small[k];
        memcpy(&before, &m, sizeof m);
        assert_int_equal(bench_catalog_metric(cat, 0, &m), BENCH_ESTRUCT);
        assert_memory_equal(&m, &before, sizeof m); /* nothing written, not even size */
    }
    const uint32_t small_caps[] = {0, sizeof(uint32_t), BENCH_CAPABILITY_INFO_SIZE_V1 - 1};
    for (size_t k = 0; k < sizeof small_caps / sizeof small_caps[0]; k++) {
        struct bench_capability_info c, before;
        memset(&c, 0xA5, sizeof c);
        c.size = small_caps[k];
        memcpy(&before, &c, sizeof c);
        assert_int_equal(bench_catalog_capability(cat, 0, &c), BENCH_ESTRUCT);
        assert_memory_equal(&c, &before, sizeof c);
    }
    bench_catalog_close(cat);
}

/* The cap of every size-prefixed struct (4096 bytes, docs/explanation/abi-policy.md): a size above
 * it is refused and nothing is written; a size just at it is a larger caller's struct. */
static void test_size_above_the_cap_is_refused(void **state)
{
    (void)state;
    bench_catalog_t *cat = open_catalog();
    static union {
        struct bench_metric_info info;
        struct bench_capability_info cap;
        unsigned char bytes[4096 + 64];
    } buf, before;
    const uint32_t huge[] = {4097, 65536, UINT32_MAX};
    for (size_t k = 0; k < sizeof huge / sizeof huge[0]; k++) {
        memset(&buf, 0, sizeof buf);
        buf.info.size = huge[k];
        memcpy(&before, &buf, sizeof buf);
        assert_int_equal(bench_catalog_metric(cat, 0, &buf.info), BENCH_ESTRUCT);
        assert_memory_equal(&buf, &before, sizeof buf);
        buf.cap.size = huge[k];
        assert_int_equal(bench_catalog_capability(cat, 0, &buf.cap), BENCH_ESTRUCT);
        assert_memory_equal(&buf, &before, sizeof buf);
    }
    memset(&buf, 0xA5, sizeof buf);
    buf.info.size = 4096;
    assert_int_equal(bench_catalog_metric(cat, 0, &buf.info), 0);
    assert_int_equal(buf.info.size, 4096);
    assert_ptr_equal(buf.info.name, metric_at(cat, 0).name);
    for (size_t b = sizeof(struct bench_metric_info); b < sizeof buf.bytes; b++)
        assert_int_equal(buf.bytes[b], 0xA5); /* the caller's unknown tail is left as it was */
    bench_catalog_close(cat);
}

#define SENTINEL UINT64_C(0x5e471e15e471e15e)

static void test_larger_caller_struct_keeps_its_tail(void **state)
{
    (void)state;
    bench_catalog_t *cat = open_catalog();
    struct bench_metric_info want = metric_at(cat, 0);
    struct {
        struct bench_metric_info info;
        uint64_t sentinel;
    } big;
    memset(&big, 0, sizeof big);
    big.info.size = (uint32_t)sizeof big;
    big.sentinel = SENTINEL;
    assert_int_equal(bench_catalog_metric(cat, 0, &big.info), 0);
    assert_int_equal(big.info.size, sizeof big); /* the caller's size stays */
    assert_true(big.sentinel == SENTINEL);
    assert_ptr_equal(big.info.name, want.name);
    assert_ptr_equal(big.info.column, want.column);
    assert_ptr_equal(big.info.source, want.source);
    assert_ptr_equal(big.info.reason, want.reason);
    assert_int_equal(big.info.available, want.available);

    struct bench_capability_info want_cap = capability_at(cat, 0);
    struct {
        struct bench_capability_info info;
        uint64_t sentinel;
    } big_cap;
    memset(&big_cap, 0, sizeof big_cap);
    big_cap.info.size = (uint32_t)sizeof big_cap;
    big_cap.sentinel = SENTINEL;
    assert_int_equal(bench_catalog_capability(cat, 0, &big_cap.info), 0);
    assert_int_equal(big_cap.info.size, sizeof big_cap);
    assert_true(big_cap.sentinel == SENTINEL);
    assert_ptr_equal(big_cap.info.source, want_cap.source);
    assert_ptr_equal(big_cap.info.name, want_cap.name);
    assert_int_equal(big_cap.info.present, want_cap.present);
    assert_ptr_equal(big_cap.info.reason, want_cap.reason);
    bench_catalog_close(cat);
}

/* A caller compiled against the first release: exactly V1 bytes are written, none after. */
static void test_first_release_size_is_filled_and_no_more(void **state)
{
    (void)state;
    assert_true(BENCH_METRIC_INFO_SIZE_V1 <= sizeof(struct bench_metric_info));
    assert_true(BENCH_CAPABILITY_INFO_SIZE_V1 <= sizeof(struct bench_capability_info));
    bench_catalog_t *cat = open_catalog();
    size_t last = bench_catalog_metric_count(cat) - 1;
    struct bench_metric_info want = metric_at(cat, last);
    union {
        struct bench_metric_info info;
        unsigned char bytes[sizeof(struct bench_metric_info) + 16];
    } buf;
    memset(&buf, 0xA5, sizeof buf);
    buf.info.size = BENCH_METRIC_INFO_SIZE_V1;
    assert_int_equal(bench_catalog_metric(cat, last, &buf.info), 0);
    assert_int_equal(buf.info.size, BENCH_METRIC_INFO_SIZE_V1);
    assert_string_equal(buf.info.name, want.name);
    assert_string_equal(buf.info.column, want.column);
    assert_string_equal(buf.info.format, want.format);
    assert_string_equal(buf.info.klass, want.klass);
    assert_string_equal(buf.info.source, want.source);
    assert_int_equal(buf.info.available, want.available);
    assert_int_equal(buf.info.is_default, want.is_default);
    assert_ptr_equal(buf.info.reason, want.reason);
    for (size_t b = BENCH_METRIC_INFO_SIZE_V1; b < sizeof buf.bytes; b++)
        assert_int_equal(buf.bytes[b], 0xA5);

    union {
        struct bench_capability_info info;
        unsigned char bytes[sizeof(struct bench_capability_info) + 16];
    } cbuf;
    memset(&cbuf, 0xA5, sizeof cbuf);
    cbuf.info.size = BENCH_CAPABILITY_INFO_SIZE_V1;
    struct bench_capability_info want_cap = capability_at(cat, 0);
    assert_int_equal(bench_catalog_capability(cat, 0, &cbuf.info), 0);
    assert_int_equal(cbuf.info.size, BENCH_CAPABILITY_INFO_SIZE_V1);
    assert_string_equal(cbuf.info.source, want_cap.source);
    assert_string_equal(cbuf.info.name, want_cap.name);
    assert_int_equal(cbuf.info.present, want_cap.present);
    assert_ptr_equal(cbuf.info.reason, want_cap.reason);
    for (size_t b = BENCH_CAPABILITY_INFO_SIZE_V1; b < sizeof cbuf.bytes; b++)
        assert_int_equal(cbuf.bytes[b], 0xA5);
    bench_catalog_close(cat);
}

/* ---- what the fake host reports -------------------------------------------------------- */

/* The column description a source declares for a metric name, or NULL. */
static const struct bench__column_desc *declared(const char *source, const char *name)
{
    for (size_t i = 0; i < bench__n_sources; i++) {
        const struct bench__source_ops *ops = bench__sources[i];
        if (strcmp(ops->name, source) != 0)
            continue;
        for (size_t k = 0; k < ops->n_family; k++)
            if (!strcmp(ops->family[k].name, name))
                return &ops->family[k];
    }
    return NULL;
}

/* The alloc source on the fake host: no interposer (fake_host.c hides it). */
#define ALLOC_REASON                                                                               \
    "the allocation interposer libbench-alloc.so is not loaded in this process: link the test "    \
    "binary with it (pkg-config libbench-alloc) or run it with LD_PRELOAD=libbench-alloc.so"

#define CALLGRIND_REASON                                                                           \
    "valgrind is not on PATH (install valgrind to count instructions under Callgrind)"

static void test_metrics_on_the_fake_host(void **state)
{
    (void)state;
    bench_catalog_t *cat = open_catalog();
    /* every source whose family does not depend on the command line, entry by entry */
    size_t want = 0;
    for (size_t i = 0; i < bench__n_sources; i++)
        if (!bench__sources[i]->family_for)
            want += bench__sources[i]->n_family;
    want++;    /* the syscall source's standing column, listed as if --syscalls were given */
    want += 2; /* callgrind's two columns, listed as if --instr=callgrind were given */
    assert_int_equal(bench_catalog_metric_count(cat), want);

    const char *perf_reason = capability_reason(cat, "perf", "counting");
    const char *sw_reason = capability_reason(cat, "perf-sw", "counting");
    assert_non_null(perf_reason);
    assert_non_null(sw_reason);
    size_t perf = 0, sw = 0, tier0 = 0;
    for (size_t i = 0; i < bench_catalog_metric_count(cat); i++) {
        struct bench_metric_info m = metric_at(cat, i);
        assert_int_equal(m.size, sizeof m);
        if (!strcmp(m.source, "syscall")) {
            assert_string_equal(m.name, "syscalls");
            assert_string_equal(m.column, "syscalls");
            assert_false(m.available);
            assert_string_equal(m.reason, capability_reason(cat, "syscall", "counting"));
            continue;
        }
        if (!strcmp(m.source, "callgrind")) { /* the fake host has no valgrind on PATH */
            assert_true(!strcmp(m.name, "instructions") || !strcmp(m.name, "instructions-spread"));
            assert_false(m.available);
            assert_string_equal(m.reason, CALLGRIND_REASON);
            continue;
        }
        const struct bench__column_desc *d = declared(m.source, m.name);
        if (!d)
            fail_msg("metric %s of %s is not declared by its source", m.name, m.source);
        assert_string_equal(m.column, d->header);
        assert_int_equal(m.is_default, d->is_default);
        assert_string_equal(m.klass, d->cls == BENCH__QUANTITATIVE ? "quantitative" : "diagnostic");
        const char *format = d->format == BENCH__FORMAT_RATIO     ? "ratio"
                             : d->format == BENCH__FORMAT_PERCENT ? "percent"
                                                                  : "count";
        assert_string_equal(m.format, format);
        if (!strcmp(m.source, "perf")) {
            perf++;
            assert_false(m.available);
            assert_string_equal(m.reason, perf_reason);
        } else if (!strcmp(m.source, "perf-sw")) {
            sw++;
            assert_false(m.available);
            assert_string_equal(m.reason, sw_reason);
        } else if (!strcmp(m.source, "alloc")) {
            assert_false(m.available);
            assert_string_equal(m.reason, ALLOC_REASON);
        } else if (!strcmp(m.source, "tier0")) {
            tier0++;
            assert_true(m.available);
            assert_null(m.reason);
        } else {
            fail_msg("unexpected source %s on the fake host", m.source);
        }
    }
    assert_true(perf > 0 && sw > 0 && tier0 > 0);
    struct bench_metric_info ipc = metric_at(cat, 0);
    assert_string_equal(ipc.name, "ipc");
    assert_string_equal(ipc.format, "ratio");
    assert_true(ipc.is_default);
    bench_catalog_close(cat);
}

#define PSI_REASON                                                                                 \
    "/proc/pressure/io unreadable (No such file or directory — CONFIG_PSI=n or psi=0 boot)"

static void test_capabilities_on_the_fake_host(void **state)
{
    (void)state;
    bench_catalog_t *cat = open_catalog();
    static const struct {
        const char *source, *name;
        const char *reason; /* NULL: present */
    } want[] = {
        {"perf", "counting",
         "perf_event_open(cycles) failed: EACCES (Permission denied) — perf_event_paranoid=2 — "
         "lower it or grant CAP_PERFMON"},
        {"perf", "countingScaled", "opt-in: --perf-scaled"},
        {"perf", "selfMonitoring", "no hardware counter to map (the perf group did not open)"},
        {"perf", "ipSampling", "opt-in: --profile"},
        {"perf", "preciseMemory",
         "looked for an IBS op PMU (/sys/bus/event_source/devices/ibs_op/type: No such file or "
         "directory) and PEBS precise levels (/sys/bus/event_source/devices/cpu/caps/max_precise: "
         "No such file or directory): neither found"},
        {"perf-sw", "counting",
         "perf_event_open(task-clock) failed: EACCES (Permission denied) — "
         "perf_event_paranoid=2 — lower it or grant CAP_PERFMON"},
        {"tier0", "counting", NULL},
        {"syscall", "counting", "tracefs not mounted (mount -t tracefs nodev /sys/kernel/tracing)"},
        {"syscall", "eventTracing",
         "tracefs not mounted (mount -t tracefs nodev /sys/kernel/tracing)"},
        {"raw", "countingRaw",
         "perf_event_open(raw:r0) failed: EACCES (Permission denied) — perf_event_paranoid=2 — "
         "lower it or grant CAP_PERFMON"},
        {"alloc", "counting", ALLOC_REASON},
        {"callgrind", "counting", CALLGRIND_REASON},
        {"wall", "counting", NULL},
        {"psi", "counting", PSI_REASON},
        {"pfm", "eventNaming",
         "libpfm4 not loaded: dlopen(libpfm.so.4) failed: libpfm.so.4: cannot open shared "
         "object file: No such file or directory"},
        {"harness", "symbolization", "opt-in: --profile (probed with the perf source)"},
        {"harness", "numaAttribution", "not implemented (no page-to-node classification)"},
    };
    size_t n = sizeof want / sizeof want[0];
    assert_int_equal(bench_catalog_capability_count(cat), n);
    for (size_t i = 0; i < n; i++) {
        struct bench_capability_info c = capability_at(cat, i);
        assert_int_equal(c.size, sizeof c);
        assert_string_equal(c.source, want[i].source);
        assert_string_equal(c.name, want[i].name);
        assert_int_equal(c.present, want[i].reason == NULL);
        if (want[i].reason)
            assert_string_equal(c.reason, want[i].reason);
        else
            assert_null(c.reason);
    }
    bench_catalog_close(cat);
}

/* ---- the same data as --list-metrics --------------------------------------------------- */

/* bench_main(--list-metrics) with stdout captured; returns what it printed (malloc'd). */
static char *list_metrics_output(void)
{
    struct fake_host_run run;
    fake_host_main("test_catalog", (const char *const[]){"--list-metrics", NULL}, &run);
    assert_int_equal(run.status, 0);
    char *text = fake_host_slurp(run.out, NULL);
    assert_non_null(text);
    assert_true(text[0] != '\0');
    fake_host_run_remove(&run);
    return text;
}

static char *rendered(const bench_catalog_t *cat)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    const struct bench_metric_info *metrics;
    const struct bench_capability_info *caps;
    size_t n_metrics, n_caps;
    bench__catalog_infos(cat, &metrics, &n_metrics, &caps, &n_caps);
    bench__metric_listing(f, metrics, n_metrics, caps, n_caps);
    fclose(f);
    return text;
}

/* Does a table line of `text` have `a` and `b` as its first two cells? */
static bool has_row(const char *text, const char *a, const char *b)
{
    char want[200];
    snprintf(want, sizeof want, "\n│ %s ", a);
    for (const char *p = strstr(text, want); p; p = strstr(p + 1, want)) {
        const char *line = p + 1, *end = strchr(line, '\n');
        const char *cell = strstr(line + strlen("│"), "│ "); /* the second cell's bar */
        if (!cell || (end && cell > end))
            continue;
        cell += strlen("│ ");
        if (!strncmp(cell, b, strlen(b)) && cell[strlen(b)] == ' ')
            return true;
    }
    return false;
}

static void test_listing_is_list_metrics(void **state)
{
    (void)state;
    bench_catalog_t *cat = open_catalog();
    char *ours = rendered(cat);
    bench_catalog_close(cat);
    char *cli = list_metrics_output();
    assert_string_equal(ours, cli);
    /* and the listing is the catalog: every metric has its row, every absence its reason */
    cat = open_catalog();
    for (size_t i = 0; i < bench_catalog_metric_count(cat); i++) {
        struct bench_metric_info m = metric_at(cat, i);
        if (!has_row(cli, m.name, m.column))
            fail_msg("no row for %s (%s) in --list-metrics", m.name, m.column);
    }
    for (size_t i = 0; i < bench_catalog_capability_count(cat); i++) {
        struct bench_capability_info c = capability_at(cat, i);
        char line[400];
        if (c.present)
            snprintf(line, sizeof line, "✓ %s\n", c.name);
        else
            snprintf(line, sizeof line, "✗ %s — %s\n", c.name, c.reason);
        if (!strstr(cli, line))
            fail_msg("no capability line '%s' in --list-metrics", line);
    }
    bench_catalog_close(cat);
    free(ours);
    free(cli);
}

/* The capability block and the run-queue line as --list-metrics draws them on the fake host:
 * every block in the documented order (pfm apart from raw, the window sources, the harness). */
static void test_listing_blocks_and_runqueue_line(void **state)
{
    (void)state;
    char *cli = list_metrics_output();
    const char *from = strstr(cli, "\ncapabilities:\n");
    assert_non_null(from);
    assert_string_equal(
        from + 1,
        "capabilities:\n"
        "  perf      ✗ counting — perf_event_open(cycles) failed: EACCES (Permission denied) — "
        "perf_event_paranoid=2 — lower it or grant CAP_PERFMON\n"
        "            ✗ countingScaled — opt-in: --perf-scaled\n"
        "            ✗ selfMonitoring — no hardware counter to map (the perf group did not open)\n"
        "            ✗ ipSampling — opt-in: --profile\n"
        "            ✗ preciseMemory — looked for an IBS op PMU "
        "(/sys/bus/event_source/devices/ibs_op/type: No such file or directory) and PEBS precise "
        "levels (/sys/bus/event_source/devices/cpu/caps/max_precise: No such file or directory): "
        "neither found\n"
        "  perf-sw   ✗ counting — perf_event_open(task-clock) failed: EACCES (Permission denied) — "
        "perf_event_paranoid=2 — lower it or grant CAP_PERFMON\n"
        "  tier0     ✓ counting\n"
        "  syscall   ✗ counting — tracefs not mounted (mount -t tracefs nodev "
        "/sys/kernel/tracing)\n"
        "            ✗ eventTracing — tracefs not mounted (mount -t tracefs nodev "
        "/sys/kernel/tracing)\n"
        "  raw       ✗ countingRaw — perf_event_open(raw:r0) failed: EACCES (Permission denied) — "
        "perf_event_paranoid=2 — lower it or grant CAP_PERFMON\n"
        "  alloc     ✗ counting — " ALLOC_REASON "\n"
        "  callgrind ✗ counting — " CALLGRIND_REASON "\n"
        "  wall      ✓ counting\n"
        "  psi       ✗ counting — " PSI_REASON "\n"
        "  pfm       ✗ eventNaming — libpfm4 not loaded: dlopen(libpfm.so.4) failed: libpfm.so.4: "
        "cannot open shared object file: No such file or directory\n"
        "  harness   ✗ symbolization — opt-in: --profile (probed with the perf source)\n"
        "            ✗ numaAttribution — not implemented (no page-to-node classification)\n"
        "\n"
        "workload: runqueue wait unattributable (/proc/thread-self/schedstat: No such file or "
        "directory; /proc/self/schedstat: No such file or directory — CONFIG_SCHED_INFO=n?) — "
        "its time lands in `other`\n"
        "\n"
        "Client metrics (bench_case .metrics) appear per benchmark as <unit>/s or <unit>.\n");
    free(cli);
}

/* preciseMemory names what it looked for, and what it found: an IBS op PMU (its type), PEBS
 * precise levels (cpu/caps/max_precise), neither. */
static void test_precise_memory_names_its_probes(void **state)
{
    (void)state;
    static const struct {
        const char *ibs, *max_precise, *reason;
    } cases[] = {
        {"11\n", NULL,
         "hardware present (ibs_op PMU, type 11) — data-source sampling is not implemented"},
        {NULL, " 3\n",
         "hardware present (PEBS, cpu/caps/max_precise=3) — data-source sampling is not "
         "implemented"},
        {NULL, "0\n",
         "looked for an IBS op PMU (/sys/bus/event_source/devices/ibs_op/type: No such file or "
         "directory) and PEBS precise levels (cpu/caps/max_precise=0): neither found"},
        {"x\n", "-2\n",
         "looked for an IBS op PMU (/sys/bus/event_source/devices/ibs_op/type: unparsable) and "
         "PEBS precise levels (/sys/bus/event_source/devices/cpu/caps/max_precise: unparsable): "
         "neither found"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_ibs_type = cases[i].ibs;
        fake_max_precise = cases[i].max_precise;
        bench_catalog_t *cat = open_catalog();
        assert_string_equal(capability_reason(cat, "perf", "preciseMemory"), cases[i].reason);
        bench_catalog_close(cat);
    }
    fake_ibs_type = fake_max_precise = NULL;
    long v = 0;
    assert_int_equal(bench__host_parse_number(" \t-12\n", 6, &v), 0);
    assert_int_equal(v, -12);
    assert_int_equal(bench__host_parse_number("7", 1, &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(bench__host_parse_number("", 0, &v), -1);
    assert_int_equal(bench__host_parse_number("-", 1, &v), -1);
    assert_int_equal(bench__host_parse_number("1x\n", 3, &v), -1);
    assert_int_equal(bench__host_parse_number("99999999999999999999\n", 21, &v), -1);
}

/* ---- lifetime ----------------------------------------------------------------------------- */

static void test_strings_live_until_close(void **state)
{
    (void)state;
    bench_catalog_t *cat = open_catalog();
    struct bench_metric_info first = metric_at(cat, 0);
    struct bench_capability_info cap = capability_at(cat, 0);
    char *name = strdup(first.name), *column = strdup(first.column);
    char *reason = strdup(first.reason), *cap_reason = strdup(cap.reason);
    assert_true(name && column && reason && cap_reason);

    /* other calls in between: every other entry, a second catalog opened and closed, and a
     * --list-metrics run */
    for (size_t i = 1; i < bench_catalog_metric_count(cat); i++)
        (void)metric_at(cat, i);
    for (size_t i = 0; i < bench_catalog_capability_count(cat); i++)
        (void)capability_at(cat, i);
    bench_catalog_t *other = open_catalog();
    struct bench_metric_info other_first = metric_at(other, 0);
    assert_ptr_not_equal(other_first.name, first.name); /* each catalog owns its strings */
    bench_catalog_close(other);
    free(list_metrics_output());

    assert_string_equal(first.name, name);
    assert_string_equal(first.column, column);
    assert_string_equal(first.reason, reason);
    assert_string_equal(cap.reason, cap_reason);
    bench_catalog_close(cat);
    free(name);
    free(column);
    free(reason);
    free(cap_reason);
}

/* ---- the snapshot's reason rules, on sources made for the test ------------------------- */

static const struct bench__column_desc fake_family[] = {
    {"fake-a", "a/iter", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "fake", true},
    {"fake-b", "b%", BENCH__FORMAT_PERCENT, BENCH__DIAGNOSTIC, "fake", false},
};

static int opened_state;

static void *open_present(const struct bench__source_request *req, struct bench__caps *caps,
                          char *status, size_t status_size)
{
    (void)req, (void)status, (void)status_size;
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    return &opened_state;
}

/* No counting reason: the metrics take the first absence the source reported. */
static void *open_other_absence(const struct bench__source_request *req, struct bench__caps *caps,
                                char *status, size_t status_size)
{
    (void)req, (void)status, (void)status_size;
    bench__caps_absent(caps, BENCH__CAP_EVENT_TRACING, "first reason");
    bench__caps_absent(caps, BENCH__CAP_IP_SAMPLING, "second reason");
    return NULL;
}

/* Nothing said at all: the catalog still gives a reason. */
static void *open_silent(const struct bench__source_request *req, struct bench__caps *caps,
                         char *status, size_t status_size)
{
    (void)req, (void)caps, (void)status, (void)status_size;
    return NULL;
}

static void close_nothing(void *state)
{
    (void)state;
}

static void test_reason_rules(void **state)
{
    (void)state;
    static const struct bench__source_ops present = {.name = "fake",
                                                     .family = fake_family,
                                                     .n_family = 2,
                                                     .open = open_present,
                                                     .close = close_nothing};
    static const struct bench__source_ops other = {.name = "fake",
                                                   .family = fake_family,
                                                   .n_family = 2,
                                                   .open = open_other_absence,
                                                   .close = close_nothing};
    static const struct bench__source_ops silent = {.name = "fake",
                                                    .family = fake_family,
                                                    .n_family = 2,
                                                    .open = open_silent,
                                                    .close = close_nothing};
    static const struct bench__source_ops *const table[] = {&present, &other, &silent};
    bench__sources = table;
    bench__n_sources = 3;
    bench_catalog_t *cat = open_catalog();
    assert_int_equal(bench_catalog_metric_count(cat), 6);
    const char *want_reason[] = {NULL,
                                 NULL,
                                 "first reason",
                                 "first reason",
                                 "the source did not open",
                                 "the source did not open"};
    for (size_t i = 0; i < 6; i++) {
        struct bench_metric_info m = metric_at(cat, i);
        assert_string_equal(m.name, fake_family[i % 2].name);
        assert_string_equal(m.source, "fake");
        assert_int_equal(m.available, want_reason[i] == NULL);
        if (want_reason[i])
            assert_string_equal(m.reason, want_reason[i]);
        else
            assert_null(m.reason);
    }
    /* capabilities in the fixed vocabulary order, not the order they were reported in; a
     * source that said nothing lists none; then the window sources' and the harness blocks */
    assert_int_equal(bench_catalog_capability_count(cat), 3 + 2 + 2);
    struct bench_capability_info c = capability_at(cat, 0);
    assert_string_equal(c.name, "counting");
    assert_true(c.present);
    c = capability_at(cat, 1);
    assert_string_equal(c.name, "ipSampling");
    assert_string_equal(c.reason, "second reason");
    c = capability_at(cat, 2);
    assert_string_equal(c.name, "eventTracing");
    assert_string_equal(c.reason, "first reason");
    static const char *const rest[][2] = {{"wall", "counting"},
                                          {"psi", "counting"},
                                          {"harness", "symbolization"},
                                          {"harness", "numaAttribution"}};
    for (size_t i = 0; i < 4; i++) {
        c = capability_at(cat, 3 + i);
        assert_string_equal(c.source, rest[i][0]);
        assert_string_equal(c.name, rest[i][1]);
    }
    bench_catalog_close(cat);
}

/* ---- the real host: whatever it has, every absence has a reason --------------------------- */

static void test_real_host_gives_every_absence_a_reason(void **state)
{
    (void)state;
    bench_catalog_t *cat = open_catalog();
    assert_true(bench_catalog_metric_count(cat) > 0);
    for (size_t i = 0; i < bench_catalog_metric_count(cat); i++) {
        struct bench_metric_info m = metric_at(cat, i);
        assert_true(m.name && *m.name && m.column && *m.column && m.format && m.klass && m.source &&
                    *m.source);
        if (m.available)
            assert_null(m.reason);
        else
            assert_true(m.reason && *m.reason);
    }
    for (size_t i = 0; i < bench_catalog_capability_count(cat); i++) {
        struct bench_capability_info c = capability_at(cat, i);
        assert_true(c.source && *c.source && c.name && *c.name);
        if (c.present)
            assert_null(c.reason);
        else
            assert_true(c.reason && *c.reason);
    }
    bench_catalog_close(cat);
}

/* ---- --metrics selectors that name no column ------------------------------------------- */

struct selector_case {
    const char *selectors[4];
    const char *flag_syscalls; /* --syscalls=<this>, or NULL */
    size_t errors;
    const char *said; /* what goes to stderr before the run */
};

static const struct selector_case selector_cases[] = {
    /* built-in names and headers, prefixes, the special words: nothing to say */
    {{"instr", "IPC", "task-clock/iter"}, NULL, 0, ""},
    {{"sw-*", "*", "all"}, NULL, 0, ""},
    {{"syscalls", "sc:futex", "raw:r1c2"}, NULL, 0, ""},
    /* perhaps a client metric: said at the end, unless close to a built-in name */
    {{"items/s", "user.cycles", "nosuch*"}, NULL, 0, ""},
    {{"instrs"},
     NULL,
     0,
     "--metrics: 'instrs' is no built-in metric (did you mean 'instr'?); unless a benchmark makes "
     "a client metric of that name, the run ends with exit status 2\n"},
    {{"IPc"},
     NULL,
     0,
     "--metrics: 'IPc' is no built-in metric (did you mean 'IPC'?); unless a benchmark makes a "
     "client metric of that name, the run ends with exit status 2\n"},
    /* a source's own form it cannot use: no column can ever match it */
    {{"sc:GetPid", "raw:R00c0"},
     "getpid",
     2,
     "error: --metrics: no metric column matches 'sc:GetPid' (did you mean 'sc:getpid'?) "
     "\xe2\x80\x94 see --list-metrics\n"
     "error: --metrics: no metric column matches 'raw:R00c0' \xe2\x80\x94 see --list-metrics\n"},
};

/* What fn wrote to a memory stream. */
static char *said_by(size_t (*check)(const struct bench__config *, FILE *),
                     const struct bench__config *cfg, size_t *errors)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    *errors = check(cfg, f);
    fclose(f);
    return text;
}

static void test_unknown_selectors_before_the_run(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof selector_cases / sizeof selector_cases[0]; k++) {
        const struct selector_case *c = &selector_cases[k];
        size_t n = 0;
        while (n < 4 && c->selectors[n])
            n++;
        struct bench__config cfg = {.metrics = (char **)c->selectors, .n_metrics = n};
        char *values[] = {(char *)c->flag_syscalls, NULL};
        cfg.source_flags[cfg.n_source_flags++] =
            (struct bench__source_flag){.name = "syscalls",
                                        .given = c->flag_syscalls != NULL,
                                        .values = values,
                                        .n_values = c->flag_syscalls ? 1 : 0};
        size_t errors;
        char *text = said_by(bench__catalog_check_selectors, &cfg, &errors);
        if (errors != c->errors || strcmp(text, c->said))
            print_message("row %zu: %zu errors, said:\n%s", k, errors, text);
        assert_int_equal(errors, c->errors);
        assert_string_equal(text, c->said);
        free(text);
    }
}

/* At the end, against the run's client columns: every selector that matches nothing is an
 * error, with the closest name of either kind. */
static void test_unknown_selectors_at_the_end(void **state)
{
    (void)state;
    char *selectors[] = {"items/s", "item/s", "instrs", "nosuch*", "B/s"};
    struct bench__config cfg = {.metrics = selectors, .n_metrics = 5};
    struct bench__catalog c;
    bench__catalog_open(&c, &cfg, false);
    const struct bench__column_desc items = {"items/s",           "items/s", BENCH__FORMAT_COUNT,
                                             BENCH__QUANTITATIVE, "client",  true};
    const struct bench__column_desc *client[] = {&items};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(bench__catalog_report_unmatched(&c, client, 1, f), 4);
    fclose(f);
    assert_string_equal(text,
                        "error: --metrics: no metric column matches 'item/s' (did you mean "
                        "'items/s'?) \xe2\x80\x94 see --list-metrics\n"
                        "error: --metrics: no metric column matches 'instrs' (did you mean "
                        "'instr'?) \xe2\x80\x94 see --list-metrics\n"
                        "error: --metrics: no metric column matches 'nosuch*' \xe2\x80\x94 see "
                        "--list-metrics\n"
                        "error: --metrics: no metric column matches 'B/s' \xe2\x80\x94 see "
                        "--list-metrics\n");
    free(text);
    bench__catalog_close(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_and_close_arguments, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_null_and_out_of_range, install_fake_host, reset_host),
        cmocka_unit_test_setup_teardown(test_size_below_the_first_release_is_refused,
                                        install_fake_host, reset_host),
        cmocka_unit_test_setup_teardown(test_size_above_the_cap_is_refused, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_larger_caller_struct_keeps_its_tail, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_first_release_size_is_filled_and_no_more,
                                        install_fake_host, reset_host),
        cmocka_unit_test_setup_teardown(test_metrics_on_the_fake_host, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_capabilities_on_the_fake_host, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_listing_is_list_metrics, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_listing_blocks_and_runqueue_line, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_precise_memory_names_its_probes, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_strings_live_until_close, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_reason_rules, install_fake_host, reset_host),
        cmocka_unit_test_setup_teardown(test_unknown_selectors_before_the_run, install_fake_host,
                                        reset_host),
        cmocka_unit_test_setup_teardown(test_unknown_selectors_at_the_end, install_fake_host,
                                        reset_host),
        cmocka_unit_test_teardown(test_real_host_gives_every_absence_a_reason, reset_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
