/* SPDX-License-Identifier: MIT */
/* test_raw.c: the raw/pfm source: its configured family (dedupe, the 16 cap and its one
 * warning), its own group on a fake kernel (the first accepted event leads, refused events
 * NaN, all-NaN columns kept), the pfm modifiers, the capability probe, and the real kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "catalog/catalog.h"
#include "platform/os.h"
#include "sources/event_naming.h"
#include "sources/source.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MS 1000000ull
#define RAW_VALUES_MAX 20

/* ---- a fake kernel ---------------------------------------------------------------------- */

#define FAKE_FD_BASE 100
#define FAKE_MAX 64

struct fake_fd {
    bool open;
    int leader;
    uint64_t config, value;
    uint64_t time_enabled, time_running;
    int members[20];
    size_t n_members;
};

static struct {
    struct fake_fd fds[FAKE_MAX];
    size_t n_fds;
    struct perf_event_attr attrs[FAKE_MAX]; /* every attempt */
    size_t n_attempts;
    struct {
        uint64_t config;
        int err_kernel, err_user;
    } rules[20];
    size_t n_rules;
    bool enabled;
    bool never_enabled; /* ENABLE takes no effect: no time enabled, nothing counted */
} fake;

static int fake_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags)
{
    (void)pid, (void)cpu, (void)flags;
    assert_true(fake.n_attempts < FAKE_MAX);
    fake.attrs[fake.n_attempts++] = *attr;
    for (size_t i = 0; i < fake.n_rules; i++)
        if (fake.rules[i].config == attr->config) {
            int err = attr->exclude_kernel ? fake.rules[i].err_user : fake.rules[i].err_kernel;
            if (err) {
                errno = err;
                return -1;
            }
        }
    assert_true(fake.n_fds < FAKE_MAX);
    int fd = FAKE_FD_BASE + (int)fake.n_fds++;
    memset(&fake.fds[fd - FAKE_FD_BASE], 0, sizeof fake.fds[0]);
    fake.fds[fd - FAKE_FD_BASE].open = true;
    fake.fds[fd - FAKE_FD_BASE].config = attr->config;
    int leader = group_fd < 0 ? fd : group_fd;
    fake.fds[fd - FAKE_FD_BASE].leader = leader;
    fake.fds[leader - FAKE_FD_BASE].members[fake.fds[leader - FAKE_FD_BASE].n_members++] = fd;
    return fd;
}

static int fake_ioctl(int fd, unsigned long request, unsigned long arg)
{
    assert_int_equal(arg, PERF_IOC_FLAG_GROUP);
    assert_true(fd >= FAKE_FD_BASE && fake.fds[fd - FAKE_FD_BASE].open);
    struct fake_fd *l = &fake.fds[fd - FAKE_FD_BASE];
    if (request == PERF_EVENT_IOC_RESET) {
        for (size_t i = 0; i < l->n_members; i++)
            fake.fds[l->members[i] - FAKE_FD_BASE].value = 0;
    } else if (request == PERF_EVENT_IOC_ENABLE) {
        fake.enabled = !fake.never_enabled;
    } else if (request == PERF_EVENT_IOC_DISABLE) {
        if (!fake.enabled)
            return 0;
        /* a bracket: each event counts its config + 1 per bracket, 2 ms enabled and running */
        if (fake.enabled)
            for (size_t i = 0; i < l->n_members; i++) {
                struct fake_fd *m = &fake.fds[l->members[i] - FAKE_FD_BASE];
                m->value += m->config + 1;
            }
        l->time_enabled += 2 * MS;
        l->time_running += 2 * MS;
        fake.enabled = false;
    }
    return 0;
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
    assert_true(fd >= FAKE_FD_BASE && fake.fds[fd - FAKE_FD_BASE].open);
    struct fake_fd *l = &fake.fds[fd - FAKE_FD_BASE];
    uint64_t out[3 + 20] = {l->n_members, l->time_enabled, l->time_running};
    for (size_t i = 0; i < l->n_members; i++)
        out[3 + i] = fake.fds[l->members[i] - FAKE_FD_BASE].value;
    size_t want = (3 + l->n_members) * sizeof out[0];
    assert_true(count >= want);
    memcpy(buf, out, want);
    return (ssize_t)want;
}

static int fake_close(int fd)
{
    assert_true(fd >= FAKE_FD_BASE && fake.fds[fd - FAKE_FD_BASE].open);
    fake.fds[fd - FAKE_FD_BASE].open = false;
    return 0;
}

static int fake_open(const char *path, int flags)
{
    (void)path, (void)flags;
    errno = ENOENT; /* perf_event_paranoid, /proc/cpuinfo: unreadable */
    return -1;
}

static void *fake_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    (void)addr, (void)length, (void)prot, (void)flags, (void)fd, (void)offset;
    errno = ENODEV; /* test_rdpmc.c covers rdpmc brackets */
    return MAP_FAILED;
}

static void refuse(uint64_t config, int err_kernel, int err_user)
{
    fake.rules[fake.n_rules].config = config;
    fake.rules[fake.n_rules].err_kernel = err_kernel;
    fake.rules[fake.n_rules].err_user = err_user;
    fake.n_rules++;
}

static size_t open_fds(void)
{
    size_t n = 0;
    for (size_t i = 0; i < fake.n_fds; i++)
        n += fake.fds[i].open;
    return n;
}

static int setup_fake(void **state)
{
    (void)state;
    memset(&fake, 0, sizeof fake);
    bench__os.perf_event_open = fake_perf_event_open;
    bench__os.ioctl = fake_ioctl;
    bench__os.read = fake_read;
    bench__os.close = fake_close;
    bench__os.open = fake_open;
    bench__os.mmap = fake_mmap;
    return 0;
}

/* The family of the last open_raw(), freed by the next one and by the teardown. */
static struct bench__family last_family;

static void free_last_family(void)
{
    free(last_family.columns);
    free(last_family.strings);
    memset(&last_family, 0, sizeof last_family);
}

static int teardown_os(void **state)
{
    (void)state;
    bench__os_reset();
    free_last_family();
    return 0;
}

/* ---- helpers ---------------------------------------------------------------------------- */

/* Run fn with stderr captured into out. */
static void capture_stderr(void (*fn)(void *), void *arg, char *out, size_t size)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    char path[] = "/tmp/test_raw.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0 && saved >= 0);
    dup2(fd, STDERR_FILENO);
    fn(arg);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    ssize_t n = pread(fd, out, size - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
}

struct family_call {
    const struct bench__source_request *req;
    struct bench__family family;
    size_t n;
    void *state;
};

static void call_family_for(void *arg)
{
    struct family_call *c = arg;
    c->n = bench__source_raw.family_for(c->req, &c->family);
}

static void call_open(void *arg)
{
    struct family_call *c = arg;
    struct bench__caps caps;
    memset(&caps, 0, sizeof caps);
    char status[256];
    c->state = bench__source_raw.open(c->req, &caps, status, sizeof status);
}

struct opened {
    void *state;
    struct bench__caps caps;
    char status[256];
    size_t n;
    const struct bench__column_desc *family;
};

static struct opened open_raw(char **metrics, size_t n_metrics)
{
    struct bench__source_request req = {.selectors = metrics, .n_selectors = n_metrics};
    struct opened o;
    memset(&o, 0, sizeof o);
    free_last_family();
    o.n = bench__source_raw.family_for(&req, &last_family);
    o.family = last_family.columns;
    o.state = bench__source_raw.open(&req, &o.caps, o.status, sizeof o.status);
    return o;
}

/* One pass of `brackets` brackets over `iterations` calls. */
static void run_pass(const struct opened *o, uint64_t iterations, uint64_t brackets, double *values,
                     bool *estimate)
{
    for (size_t i = 0; i < o->n; i++)
        values[i] = NAN;
    struct bench__counts counts = {.values = values, .estimate = estimate, .scale = NAN};
    bench__source_raw.pass_begin(o->state);
    for (uint64_t b = 0; b < brackets; b++) {
        bench__source_raw.bracket_begin(o->state);
        bench__source_raw.bracket_end(o->state);
    }
    bench__source_raw.pass_end(o->state, iterations, brackets, &counts);
}

#define assert_nan(a)                                                                              \
    do {                                                                                           \
        double a_ = (a);                                                                           \
        if (!isnan(a_))                                                                            \
            fail_msg("%s == %.17g, want NaN", #a, a_);                                             \
    } while (0)

/* ---- the family ------------------------------------------------------------------------- */

static void test_family_for_and_cap(void **state)
{
    (void)state;
    char names[20][16];
    char *metrics[24];
    size_t n = 0;
    metrics[n++] = "ipc";
    for (int i = 0; i < 18; i++) {
        snprintf(names[i], sizeof names[i], "raw:r%x", 0x100 + i);
        metrics[n++] = names[i];
        if (i == 3)
            metrics[n++] = names[0]; /* a duplicate takes no slot */
    }
    metrics[n++] = "raw:R1"; /* malformed: not counted, not a slot */
    struct bench__source_request req = {.selectors = metrics, .n_selectors = n};
    struct family_call call = {.req = &req};
    char err[1024];
    capture_stderr(call_family_for, &call, err, sizeof err);
    assert_string_equal(err, ""); /* the family has no side effects: the open says it */
    capture_stderr(call_open, &call, err, sizeof err);
    assert_string_equal(err,
                        "--metrics: only the first 16 raw/pfm events are counted (18 requested)\n");
    bench__source_raw.close(call.state);
    assert_int_equal(call.n, 16);
    for (size_t i = 0; i < 16; i++) {
        assert_string_equal(call.family.columns[i].name, names[i]);
        assert_string_equal(call.family.columns[i].header, names[i] + 4);
        assert_string_equal(call.family.columns[i].source, "raw");
        assert_int_equal(call.family.columns[i].cls, BENCH__DIAGNOSTIC);
        assert_int_equal(call.family.columns[i].format, BENCH__FORMAT_COUNT);
        assert_true(call.family.columns[i].is_default);
    }

    free(call.family.columns);
    free(call.family.strings);

    /* exactly 16, with duplicates: no warning */
    req.n_selectors = 1 + 16 + 1;
    capture_stderr(call_family_for, &call, err, sizeof err);
    assert_int_equal(call.n, 16);
    capture_stderr(call_open, &call, err, sizeof err);
    assert_string_equal(err, "");
    bench__source_raw.close(call.state);
    free(call.family.columns);
    free(call.family.strings);
}

struct warn_call {
    const struct bench__config *cfg;
    struct bench__catalog catalog;
};

static void call_catalog(void *arg)
{
    struct warn_call *c = arg;
    bench__catalog_open(&c->catalog, c->cfg, false);
    bench__catalog_report_unmatched(&c->catalog, NULL, 0, stderr);
    bench__catalog_close(&c->catalog);
}

/* Over-cap raw selectors are warned about once (not again as unknown); malformed ones are
 * left to the unknown-selector warning. */
static void test_catalog_warnings(void **state)
{
    (void)state;
    char names[17][16];
    char *metrics[20];
    size_t n = 0;
    for (int i = 0; i < 17; i++) {
        snprintf(names[i], sizeof names[i], "raw:r%x", i + 1);
        metrics[n++] = names[i];
    }
    metrics[n++] = "raw:R00c0";
    struct bench__config cfg = {.metrics = metrics, .n_metrics = n};
    struct warn_call call = {.cfg = &cfg};
    char err[2048];
    capture_stderr(call_catalog, &call, err, sizeof err);
    assert_string_equal(err,
                        "--metrics: only the first 16 raw/pfm events are counted (17 requested)\n"
                        "error: --metrics: no metric column matches 'raw:R00c0' \xe2\x80\x94 "
                        "see --list-metrics\n");
    assert_int_equal(open_fds(), 0);
}

/* ---- a pfm: name that does not resolve ------------------------------------------------ */

static char *absent_dlerror(void)
{
    static char text[] = "libpfm.so.4: cannot open shared object file: No such file or directory";
    return text;
}

static void *absent_dlopen(const char *file, int mode)
{
    (void)file, (void)mode;
    return NULL;
}

/* The catalog of `cfg` opened with stderr captured: its table and document column names
 * (space-separated), the raw source's values after one pass of 2 brackets over 2 calls, and
 * what the end of the run says about unmatched selectors. */
struct dropped_call {
    const struct bench__config *cfg;
    char table[256], document[256];
    size_t n_family;
    bool open;
    double values[RAW_VALUES_MAX];
};

static void names_of(const struct bench__catalog *c, enum bench__column_set set, char *out,
                     size_t size)
{
    size_t n = 0;
    const struct bench__column_desc **cols = bench__catalog_column_list(c, NULL, 0, set, &n);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", i ? " " : "", cols[i]->name);
    }
    free(cols);
}

static void call_dropped(void *arg)
{
    struct dropped_call *d = arg;
    struct bench__catalog c;
    bench__catalog_open(&c, d->cfg, false);
    names_of(&c, BENCH__COLUMNS_TABLE, d->table, sizeof d->table);
    names_of(&c, BENCH__COLUMNS_DOCUMENT, d->document, sizeof d->document);
    for (size_t i = 0; i < c.n_sources; i++) {
        const struct bench__open_source *s = &c.sources[i];
        if (strcmp(s->ops->name, "raw"))
            continue;
        d->n_family = s->n_family;
        d->open = s->state != NULL;
        if (!s->state)
            continue;
        struct opened o = {.state = s->state, .n = s->n_family};
        bool estimate[RAW_VALUES_MAX];
        run_pass(&o, 2, 2, d->values, estimate);
    }
    bench__catalog_announce(&c, stderr);
    bench__catalog_report_unmatched(&c, NULL, 0, stderr);
    bench__catalog_close(&c);
}

/* libpfm4 absent (through the dlopen seam): a pfm: name cannot resolve, so its column is
 * dropped with one line naming the event and the reason; the raw events around it keep their
 * columns and values, in order (seed 001: a failed name resolution warns and drops the
 * column). */
static void test_unresolved_pfm_drops_its_column(void **state)
{
    (void)state;
    bench__pfm_unload();
    bench__os.dlopen = absent_dlopen;
    bench__os.dlerror = absent_dlerror;
    char *metrics[] = {"raw:r1", "pfm:cycles", "raw:r2"};
    struct bench__config cfg = {.metrics = metrics, .n_metrics = 3};
    struct dropped_call d = {.cfg = &cfg};
    char err[1024];
    capture_stderr(call_dropped, &d, err, sizeof err);
    assert_string_equal(err, "--metrics: pfm:cycles \xe2\x80\x94 libpfm4 not loaded: "
                             "dlopen(libpfm.so.4) failed: libpfm.so.4: cannot open shared object "
                             "file: No such file or directory; its column is dropped\n");
    assert_string_equal(d.table, "raw:r1 raw:r2");
    assert_string_equal(d.document, "raw:r1 raw:r2");
    assert_int_equal(d.n_family, 2);
    assert_true(d.open);
    assert_true(d.values[0] == 2.0); /* r1: config 1 + 1 per bracket, 2 brackets, 2 calls */
    assert_true(d.values[1] == 3.0); /* r2 fills the second column */
    assert_int_equal(open_fds(), 0);

    /* only unresolved names: no column at all, the source closed, still one line each */
    char *only[] = {"pfm:cycles", "pfm:instructions:u"};
    cfg = (struct bench__config){.metrics = only, .n_metrics = 2};
    d = (struct dropped_call){.cfg = &cfg};
    capture_stderr(call_dropped, &d, err, sizeof err);
    assert_non_null(strstr(err, "--metrics: pfm:cycles \xe2\x80\x94 libpfm4 not loaded: "));
    assert_non_null(strstr(err, "--metrics: pfm:instructions:u \xe2\x80\x94 libpfm4 not "));
    size_t lines = 0;
    for (const char *p = err; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 2);
    assert_string_equal(d.table, "");
    assert_string_equal(d.document, "");
    assert_int_equal(d.n_family, 0);
    assert_false(d.open);
    assert_int_equal(open_fds(), 0);
    bench__pfm_unload();
}

/* The same with the installed libpfm4, for a name no table has. */
static void test_unknown_pfm_name_real_library(void **state)
{
    (void)state;
    char reason[240];
    if (!bench__pfm_load(reason, sizeof reason)) {
        print_message("libpfm4 is not installed here: %s\n", reason);
        skip();
    }
    char *metrics[] = {"pfm:NO_SUCH_EVENT_LIBBENCH", "raw:r1"};
    struct bench__config cfg = {.metrics = metrics, .n_metrics = 2};
    struct dropped_call d = {.cfg = &cfg};
    char err[1024];
    capture_stderr(call_dropped, &d, err, sizeof err);
    assert_true(!strncmp(err, "--metrics: pfm:NO_SUCH_EVENT_LIBBENCH \xe2\x80\x94 libpfm4: ",
                         strlen("--metrics: pfm:NO_SUCH_EVENT_LIBBENCH \xe2\x80\x94 libpfm4: ")));
    assert_non_null(strstr(err, "; its column is dropped\n"));
    assert_string_equal(d.table, "raw:r1");
    assert_string_equal(d.document, "raw:r1");
    assert_true(d.values[0] == 2.0);
    bench__pfm_unload();
}

/* ---- the group on a fake kernel ---------------------------------------------------------- */

static void test_group_exact(void **state)
{
    (void)state;
    char *metrics[] = {"raw:r1", "raw:r2", "raw:r3"};
    struct opened o = open_raw(metrics, 3);
    assert_non_null(o.state);
    assert_string_equal(o.status, "");
    assert_true(o.caps.present & (1u << BENCH__CAP_COUNTING_RAW));
    assert_null(bench__caps_reason(&o.caps, BENCH__CAP_EVENT_NAMING)); /* no pfm: not probed */
    assert_int_equal(fake.n_attempts, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(fake.attrs[i].type, PERF_TYPE_RAW);
        assert_int_equal(fake.attrs[i].config, i + 1);
        assert_int_equal(fake.attrs[i].exclude_hv, 1);
        assert_int_equal(fake.attrs[i].exclude_kernel, 0);
        assert_int_equal(fake.attrs[i].inherit, 0);
        assert_int_equal(fake.attrs[i].disabled, i == 0);
    }
    double v[3];
    bool e[3];
    run_pass(&o, 10, 5, v, e);
    for (size_t i = 0; i < 3; i++) {
        assert_true(v[i] == (double)((i + 2) * 5) / 10.0);
        assert_false(e[i]);
    }
    bench__source_raw.close(o.state);
    assert_int_equal(open_fds(), 0);
}

/* A raw group whose enabled time never advanced counted nothing: NaN and scale 0, not zeros. */
static void test_never_enabled_is_nan(void **state)
{
    (void)state;
    char *metrics[] = {"raw:r1", "raw:r2"};
    struct opened o = open_raw(metrics, 2);
    assert_non_null(o.state);
    double v[2];
    bool e[2] = {true, true};
    fake.never_enabled = true;
    struct bench__counts counts = {.values = v, .estimate = e, .scale = NAN};
    v[0] = v[1] = -1;
    bench__source_raw.pass_begin(o.state);
    bench__source_raw.bracket_begin(o.state);
    bench__source_raw.bracket_end(o.state);
    bench__source_raw.pass_end(o.state, 10, 1, &counts);
    assert_true(counts.never_enabled);
    assert_true(counts.scale == 0);
    for (size_t i = 0; i < 2; i++) {
        assert_nan(v[i]);
        assert_false(e[i]);
    }
    fake.never_enabled = false;
    bench__source_raw.close(o.state);
    assert_int_equal(open_fds(), 0);
}

/* The first event the kernel accepts leads; one refused as leader or member reads NaN. */
static void test_first_accepted_leads(void **state)
{
    (void)state;
    refuse(1, ENOENT, ENOENT);
    refuse(3, EINVAL, EINVAL);
    char *metrics[] = {"raw:r1", "raw:r2", "raw:r3", "raw:r4"};
    struct opened o = open_raw(metrics, 4);
    assert_non_null(o.state);
    assert_true(o.caps.present & (1u << BENCH__CAP_COUNTING_RAW));
    assert_string_equal(o.status, "events: 2 of 4 refused, their columns stay empty: "
                                  "raw:r1 (ENOENT), raw:r3 (EINVAL)");
    /* raw:r1 on both rungs, then raw:r2 leads with r3 and r4 */
    assert_int_equal(fake.n_attempts, 5);
    assert_int_equal(fake.attrs[2].config, 2);
    assert_int_equal(fake.attrs[2].disabled, 1);
    assert_int_equal(fake.attrs[2].read_format, PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                                    PERF_FORMAT_TOTAL_TIME_RUNNING);
    double v[4];
    bool e[4];
    run_pass(&o, 2, 2, v, e);
    assert_nan(v[0]);
    assert_true(v[1] == 3.0);
    assert_nan(v[2]);
    assert_true(v[3] == 5.0);
    bench__source_raw.close(o.state);
    assert_int_equal(open_fds(), 0);
}

/* Every open refused: the source stays (rows carry the columns), every value NaN. */
static void test_all_refused_keeps_nan_columns(void **state)
{
    (void)state;
    refuse(0xc0, ENOENT, ENOENT);
    refuse(0x3c, ENOENT, ENOENT);
    char *metrics[] = {"raw:r00c0", "raw:r003c"};
    struct opened o = open_raw(metrics, 2);
    assert_non_null(o.state);
    assert_int_equal(o.n, 2);
    assert_false(o.caps.present & (1u << BENCH__CAP_COUNTING_RAW));
    const char *want = "perf_event_open(raw:r00c0) failed: ENOENT (No such file or directory) "
                       "\xe2\x80\x94 no hardware PMU exposed (a virtual machine?)";
    assert_string_equal(bench__caps_reason(&o.caps, BENCH__CAP_COUNTING_RAW), want);
    char status[300];
    snprintf(status, sizeof status, "events: none of 2 opened, their columns stay empty: %s", want);
    assert_string_equal(o.status, status);
    assert_int_equal(fake.n_attempts, 4); /* each tried as leader on both rungs */
    double v[2] = {1, 1};
    bool e[2] = {true, true};
    run_pass(&o, 10, 3, v, e);
    assert_nan(v[0]);
    assert_nan(v[1]);
    assert_false(e[0] || e[1]);
    bench__source_raw.close(o.state);
    assert_int_equal(open_fds(), 0);
}

/* The leader refused kernel+user but accepted user-space only: disclosed. */
static void test_user_space_only(void **state)
{
    (void)state;
    refuse(0xc0, EACCES, 0);
    char *metrics[] = {"raw:r00c0"};
    struct opened o = open_raw(metrics, 1);
    assert_non_null(o.state);
    assert_string_equal(o.status, "events: user-space only");
    assert_int_equal(fake.attrs[1].exclude_kernel, 1);
    bench__source_raw.close(o.state);
}

/* No events but a capability query: a config-0 raw event is opened and closed. */
static void test_probe_only(void **state)
{
    (void)state;
    struct opened o = open_raw(NULL, 0);
    assert_null(o.state);
    assert_int_equal(o.n, 0);
    assert_true(o.caps.present & (1u << BENCH__CAP_COUNTING_RAW));
    assert_int_equal(fake.n_attempts, 1);
    assert_int_equal(fake.attrs[0].type, PERF_TYPE_RAW);
    assert_int_equal(fake.attrs[0].config, 0);
    assert_int_equal(open_fds(), 0);
    /* eventNaming is part of a capability query: present or absent with a reason */
    assert_true((o.caps.present & (1u << BENCH__CAP_EVENT_NAMING)) ||
                bench__caps_reason(&o.caps, BENCH__CAP_EVENT_NAMING));

    memset(&fake, 0, sizeof fake);
    refuse(0, EACCES, EACCES);
    o = open_raw(NULL, 0);
    assert_null(o.state);
    assert_string_equal(bench__caps_reason(&o.caps, BENCH__CAP_COUNTING_RAW),
                        "perf_event_open(raw:r0) failed: EACCES (Permission denied) \xe2\x80\x94 "
                        "perf_event_paranoid unreadable \xe2\x80\x94 lower it or grant "
                        "CAP_PERFMON");
}

/* pfm modifiers become exclude flags (with the real libpfm4, encoding only). */
static void test_pfm_modifiers_exclude(void **state)
{
    (void)state;
    char reason[240];
    if (!bench__pfm_load(reason, sizeof reason)) {
        print_message("libpfm4 is not installed here: %s\n", reason);
        skip();
    }
    char *metrics[] = {"pfm:cycles", "pfm:instructions:u", "pfm:cycles:k", "raw:r00c0"};
    struct opened o = open_raw(metrics, 4);
    assert_int_equal(o.n, 4);
    assert_string_equal(o.family[1].name, "pfm:instructions:u");
    assert_string_equal(o.family[1].header, "instructions:u");
    assert_string_equal(o.family[1].source, "pfm");
    assert_string_equal(o.family[3].source, "raw");
    assert_non_null(o.state);
    assert_true(o.caps.present & (1u << BENCH__CAP_EVENT_NAMING));
    assert_int_equal(fake.n_attempts, 4);
    assert_int_equal(fake.attrs[0].type, PERF_TYPE_HARDWARE);
    assert_int_equal(fake.attrs[0].config, PERF_COUNT_HW_CPU_CYCLES);
    assert_int_equal(fake.attrs[0].exclude_kernel, 0);
    assert_int_equal(fake.attrs[0].exclude_user, 0);
    assert_int_equal(fake.attrs[1].config, PERF_COUNT_HW_INSTRUCTIONS);
    assert_int_equal(fake.attrs[1].exclude_kernel, 1);
    assert_int_equal(fake.attrs[1].exclude_user, 0);
    assert_int_equal(fake.attrs[2].exclude_kernel, 0);
    assert_int_equal(fake.attrs[2].exclude_user, 1);
    assert_int_equal(fake.attrs[3].type, PERF_TYPE_RAW);
    bench__source_raw.close(o.state);
    bench__pfm_unload();
}

/* ---- the real kernel --------------------------------------------------------------------- */

static void test_real_kernel(void **state)
{
    (void)state;
    bench__os_reset();
    char *metrics[] = {"raw:r00c0", "pfm:instructions"};
    struct opened o = open_raw(metrics, 2);
    assert_non_null(o.state); /* requested columns stay, opened or not */
    double v[2];
    bool e[2];
    run_pass(&o, 1, 1, v, e);
    if (o.caps.present & (1u << BENCH__CAP_COUNTING_RAW)) {
        print_message("the kernel accepts raw events here (status \"%s\")\n", o.status);
        bench__source_raw.close(o.state);
        skip();
    }
    const char *reason = bench__caps_reason(&o.caps, BENCH__CAP_COUNTING_RAW);
    assert_non_null(reason);
    print_message("raw counting absent: %s\nstatus: %s\n", reason, o.status);
    assert_non_null(strstr(reason, "perf_event_open(raw:r00c0) failed: "));
    assert_non_null(strstr(o.status, "events: none of "));
    for (size_t i = 0; i < o.n; i++)
        assert_nan(v[i]);
    bench__source_raw.close(o.state);
    bench__pfm_unload();
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_fake, teardown_os)
    const struct CMUnitTest tests[] = {
        T(test_family_for_and_cap),
        T(test_catalog_warnings),
        T(test_unresolved_pfm_drops_its_column),
        T(test_unknown_pfm_name_real_library),
        T(test_group_exact),
        T(test_never_enabled_is_nan),
        T(test_first_accepted_leads),
        T(test_all_refused_keeps_nan_columns),
        T(test_user_space_only),
        T(test_probe_only),
        T(test_pfm_modifiers_exclude),
        cmocka_unit_test_teardown(test_real_kernel, teardown_os),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
