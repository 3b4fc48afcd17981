/* SPDX-License-Identifier: MIT */
/* test_syscalls.c: the syscall tracepoint source through the fault-injection seam (a fake
 * tracefs and a fake kernel that counts simulated syscalls), its family for the command
 * line, the generalized perf group, and the real kernel when tracefs is readable. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "emulation.h"

#include "catalog/catalog.h"
#include "sources/perf_group.h"
#include "sources/source.h"
#include "platform/os.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define assert_double_exact(a, b)                                                                  \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(a_ == b_))                                                                           \
            fail_msg("%s == %.17g, want %.17g", #a, a_, b_);                                       \
    } while (0)

#define assert_nan(a)                                                                              \
    do {                                                                                           \
        double a_ = (a);                                                                           \
        if (!isnan(a_))                                                                            \
            fail_msg("%s == %.17g, want NaN", #a, a_);                                             \
    } while (0)

#define MS 1000000ull
#define TRACING "/sys/kernel/tracing"
#define DEBUG_TRACING "/sys/kernel/debug/tracing"
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define MOUNT_REASON "tracefs not mounted (mount -t tracefs nodev /sys/kernel/tracing)"

/* Tracepoint ids of the fake kernel. */
enum { ID_RAW = 21, ID_GETPID = 309, ID_FUTEX = 310, ID_WRITE = 311, ID_IOCTL = 312, ID_N0 = 1000 };

/* ---- a fake tracefs (files behind bench__os.open/read) ----------------------------------- */

#define FILE_FD_BASE 500
#define MAX_FILES 256

struct fake_file {
    char *path;
    char *contents; /* NULL for a directory */
    int err;        /* open fails with this errno */
    size_t pos;
};

/* ---- a fake kernel (perf fds) ----------------------------------------------------------- */

#define FAKE_FD_BASE 100
#define FAKE_MAX_FDS 256

struct fake_fd {
    bool open;
    uint32_t type;
    uint64_t config;
    int leader;
    uint64_t value;
    bool enabled;
    uint64_t time_enabled, time_running;
    int members[BENCH__PERF_GROUP_MAX + 1];
    size_t n_members;
};

struct fake_rule {
    uint64_t config;
    int err;
};

static struct {
    struct fake_file files[MAX_FILES];
    size_t n_files;
    struct fake_fd fds[FAKE_MAX_FDS];
    size_t n_fds;
    struct fake_rule rules[8];
    size_t n_rules;
    struct perf_event_attr attrs[FAKE_MAX_FDS];
    int group_fds[FAKE_MAX_FDS];
    size_t n_attempts;
    unsigned ioctls[3]; /* RESET, ENABLE, DISABLE */
    bool ioctl_bad_target;
    uint64_t enabled_inc;
    int64_t running_inc; /* -1 = enabled_inc */
    bool fail_read;
} fake;

static void add_file(const char *path, const char *contents, int err)
{
    assert_true(fake.n_files < MAX_FILES);
    struct fake_file *f = &fake.files[fake.n_files++];
    f->path = strdup(path);
    f->contents = contents ? strdup(contents) : NULL;
    f->err = err;
}

static void add_dir(const char *path)
{
    add_file(path, NULL, 0);
}

/* The id file of group:event under root, holding `contents` (or failing with err). */
static void add_id(const char *root, const char *group, const char *event, const char *contents,
                   int err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/events/%s/%s/id", root, group, event);
    add_file(path, contents, err);
}

static void add_syscall(const char *root, const char *name, unsigned id)
{
    char event[600], text[32];
    snprintf(event, sizeof event, "sys_enter_%s", name);
    snprintf(text, sizeof text, "%u\n", id);
    add_id(root, "syscalls", event, text, 0);
}

/* A mounted tracefs with the leader and a few syscalls. */
static void mount_tracefs(const char *root)
{
    char path[256];
    snprintf(path, sizeof path, "%s/events", root);
    add_dir(path);
    add_id(root, "raw_syscalls", "sys_enter", "21\n", 0);
    add_syscall(root, "getpid", ID_GETPID);
    add_syscall(root, "futex", ID_FUTEX);
    add_syscall(root, "write", ID_WRITE);
    add_syscall(root, "ioctl", ID_IOCTL);
}

static struct fake_file *file_of(int fd)
{
    if (fd < FILE_FD_BASE || fd >= FILE_FD_BASE + (int)fake.n_files)
        return NULL;
    return &fake.files[fd - FILE_FD_BASE];
}

static struct fake_fd *fake_fd(int fd)
{
    if (fd < FAKE_FD_BASE || fd >= FAKE_FD_BASE + (int)fake.n_fds)
        return NULL;
    struct fake_fd *f = &fake.fds[fd - FAKE_FD_BASE];
    return f->open ? f : NULL;
}

static int fake_open(const char *path, int flags)
{
    /* the first entry for a path wins, so a test can override what mount_tracefs added */
    for (size_t i = 0; i < fake.n_files; i++) {
        struct fake_file *f = &fake.files[i];
        if (strcmp(f->path, path) != 0)
            continue;
        if (f->err) {
            errno = f->err;
            return -1;
        }
        if (f->contents && (flags & O_DIRECTORY)) {
            errno = ENOTDIR;
            return -1;
        }
        f->pos = 0;
        return FILE_FD_BASE + (int)i;
    }
    errno = ENOENT;
    return -1;
}

/* Simulate one syscall entry: every enabled group counts it in its leader (raw) and in
 * the members that trace this syscall. */
static void fake_syscall(uint64_t id)
{
    for (size_t i = 0; i < fake.n_fds; i++) {
        struct fake_fd *l = &fake.fds[i];
        if (!l->open || l->leader != FAKE_FD_BASE + (int)i || !l->enabled)
            continue;
        for (size_t k = 0; k < l->n_members; k++) {
            struct fake_fd *m = fake_fd(l->members[k]);
            if (m && (m->config == ID_RAW || m->config == id))
                m->value++;
        }
    }
}

static int fake_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags)
{
    (void)pid;
    (void)cpu;
    (void)flags;
    assert_true(fake.n_attempts < FAKE_MAX_FDS);
    fake.attrs[fake.n_attempts] = *attr;
    fake.group_fds[fake.n_attempts] = group_fd;
    fake.n_attempts++;
    for (size_t i = 0; i < fake.n_rules; i++)
        if (fake.rules[i].config == attr->config) {
            errno = fake.rules[i].err;
            return -1;
        }
    assert_true(fake.n_fds < FAKE_MAX_FDS);
    int fd = FAKE_FD_BASE + (int)fake.n_fds++;
    struct fake_fd *f = &fake.fds[fd - FAKE_FD_BASE];
    memset(f, 0, sizeof *f);
    f->open = true;
    f->type = attr->type;
    f->config = attr->config;
    if (group_fd < 0) {
        f->leader = fd;
        f->members[f->n_members++] = fd;
    } else {
        struct fake_fd *l = fake_fd(group_fd);
        assert_non_null(l);
        f->leader = group_fd;
        l->members[l->n_members++] = fd;
    }
    return fd;
}

static size_t live_members(const struct fake_fd *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n_members; i++)
        n += fake_fd(l->members[i]) != NULL;
    return n;
}

static int fake_ioctl(int fd, unsigned long request, unsigned long arg)
{
    struct fake_fd *l = fake_fd(fd);
    if (!l || l->leader != fd || arg != PERF_IOC_FLAG_GROUP) {
        fake.ioctl_bad_target = true;
        errno = EINVAL;
        return -1;
    }
    /* like the kernel: the entry of this ioctl is seen by a group that is enabled now */
    fake_syscall(ID_IOCTL);
    if (request == PERF_EVENT_IOC_RESET) {
        fake.ioctls[0]++;
        for (size_t i = 0; i < l->n_members; i++)
            fake.fds[l->members[i] - FAKE_FD_BASE].value = 0;
    } else if (request == PERF_EVENT_IOC_ENABLE) {
        fake.ioctls[1]++;
        l->enabled = true;
    } else if (request == PERF_EVENT_IOC_DISABLE) {
        fake.ioctls[2]++;
        if (l->enabled) {
            l->time_enabled += fake.enabled_inc;
            l->time_running += fake.running_inc < 0 ? fake.enabled_inc : (uint64_t)fake.running_inc;
        }
        l->enabled = false;
    } else {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
    struct fake_file *file = file_of(fd);
    if (file) {
        if (!file->contents) {
            errno = EISDIR;
            return -1;
        }
        size_t left = strlen(file->contents) - file->pos;
        size_t n = left < count ? left : count;
        memcpy(buf, file->contents + file->pos, n);
        file->pos += n;
        return (ssize_t)n;
    }
    struct fake_fd *l = fake_fd(fd);
    assert_non_null(l);
    assert_int_equal(l->leader, fd);
    if (fake.fail_read) {
        errno = EIO;
        return -1;
    }
    uint64_t out[3 + BENCH__PERF_GROUP_MAX];
    size_t n = 0;
    out[n++] = live_members(l);
    out[n++] = l->time_enabled;
    out[n++] = l->time_running;
    for (size_t i = 0; i < l->n_members; i++) {
        struct fake_fd *m = fake_fd(l->members[i]);
        if (m)
            out[n++] = m->value;
    }
    size_t bytes = n * sizeof out[0];
    if (bytes > count) {
        errno = ENOSPC;
        return -1;
    }
    memcpy(buf, out, bytes);
    return (ssize_t)bytes;
}

static int fake_close(int fd)
{
    if (file_of(fd))
        return 0;
    struct fake_fd *f = fake_fd(fd);
    assert_non_null(f); /* never a double close, never a foreign fd */
    f->open = false;
    return 0;
}

static void fail_event(uint64_t config, int err)
{
    fake.rules[fake.n_rules++] = (struct fake_rule){config, err};
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
    fake.enabled_inc = 2 * MS;
    fake.running_inc = -1;
    bench__os.perf_event_open = fake_perf_event_open;
    bench__os.ioctl = fake_ioctl;
    bench__os.read = fake_read;
    bench__os.open = fake_open;
    bench__os.close = fake_close;
    return 0;
}

static int teardown_os(void **state)
{
    (void)state;
    bench__os_reset();
    for (size_t i = 0; i < fake.n_files; i++) {
        free(fake.files[i].path);
        free(fake.files[i].contents);
    }
    fake.n_files = 0;
    return 0;
}

/* ---- helpers ---------------------------------------------------------------------------- */

#define MAX_ITEMS 96

struct cfg_spec {
    bool syscalls;
    const char *names[MAX_ITEMS];
    const char *metrics[MAX_ITEMS];
};

static size_t count_of(const char *const *items)
{
    size_t n = 0;
    while (items[n])
        n++;
    return n;
}

/* A config as the CLI would leave it (the lists NULL-terminated; owned by the spec). */
static struct bench__config make_cfg(struct cfg_spec *spec)
{
    struct bench__config cfg;
    memset(&cfg, 0, sizeof cfg);
    size_t n_names = count_of(spec->names);
    cfg.source_flags[0] = (struct bench__source_flag){
        .name = "syscalls",
        .given = spec->syscalls,
        .values = n_names ? (char **)spec->names : NULL,
        .n_values = n_names,
    };
    cfg.n_source_flags = 1;
    cfg.n_metrics = count_of(spec->metrics);
    cfg.metrics = cfg.n_metrics ? (char **)spec->metrics : NULL;
    return cfg;
}

/* The request the catalog makes of that config for the syscall source. */
static struct bench__source_request make_req(struct cfg_spec *spec)
{
    size_t n_names = count_of(spec->names), n_metrics = count_of(spec->metrics);
    return (struct bench__source_request){
        .flag = spec->syscalls,
        .flag_values = n_names ? (char **)spec->names : NULL,
        .n_flag_values = n_names,
        .selectors = n_metrics ? (char **)spec->metrics : NULL,
        .n_selectors = n_metrics,
    };
}

struct opened {
    void *state;
    struct bench__caps caps;
    char status[256];
    char err[4096]; /* what open wrote to stderr */
};

/* Run fn with stderr captured into buf. */
static void capture_stderr(char *buf, size_t size, void (*fn)(void *), void *arg)
{
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 2) >= 0);
    fn(arg);
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, size - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
}

struct open_call {
    const struct bench__source_request *req;
    struct opened *o;
};

static void do_open(void *arg)
{
    struct open_call *c = arg;
    c->o->state =
        bench__source_syscalls.open(c->req, &c->o->caps, c->o->status, sizeof c->o->status);
}

static struct opened open_with(struct cfg_spec spec)
{
    struct bench__source_request req = make_req(&spec);
    struct opened o;
    memset(&o, 0, sizeof o);
    strcpy(o.status, "untouched");
    struct open_call c = {&req, &o};
    capture_stderr(o.err, sizeof o.err, do_open, &c);
    return o;
}

static void expect_absent(const struct opened *o, const char *reason)
{
    assert_null(o->state);
    assert_string_equal(o->status, "");
    assert_false(o->caps.present & (1u << BENCH__CAP_COUNTING));
    assert_false(o->caps.present & (1u << BENCH__CAP_EVENT_TRACING));
    assert_string_equal(bench__caps_reason(&o->caps, BENCH__CAP_EVENT_TRACING), reason);
    assert_string_equal(bench__caps_reason(&o->caps, BENCH__CAP_COUNTING), reason);
    assert_int_equal(open_fds(), 0);
}

/* One pass of `brackets` brackets, `calls` simulated getpid()s in each. */
static void run_pass(void *st, size_t n, unsigned brackets, unsigned calls, uint64_t iterations,
                     double *values, bool *estimate)
{
    struct bench__counts out = {.values = values, .estimate = estimate, .scale = NAN};
    for (size_t i = 0; i < n; i++) {
        values[i] = -12345;
        estimate[i] = true;
    }
    bench__source_syscalls.pass_begin(st);
    for (unsigned b = 0; b < brackets; b++) {
        bench__source_syscalls.bracket_begin(st);
        for (unsigned c = 0; c < calls; c++)
            fake_syscall(ID_GETPID);
        bench__source_syscalls.bracket_end(st);
    }
    bench__source_syscalls.pass_end(st, iterations, brackets, &out);
}

static void close_and_check(void *st)
{
    bench__source_syscalls.close(st);
    assert_int_equal(open_fds(), 0);
    assert_false(fake.ioctl_bad_target);
}

/* ---- the source and its family ------------------------------------------------------------- */

static void test_ops(void **state)
{
    (void)state;
    const struct bench__source_ops *s = &bench__source_syscalls;
    assert_string_equal(s->name, "syscall");
    assert_string_equal(s->flag, "syscalls");
    assert_string_equal(s->flag_value, "LIST");
    assert_non_null(s->flag_value_check);
    assert_non_null(s->claim);
    assert_null(s->fallback_for);
    assert_null(s->family);
    assert_int_equal(s->n_family, 0);
    assert_non_null(s->family_for);
    /* in the table after perf-sw and tier0 (counting-pass and column order: perf, tier0, syscalls,
     * raw) */
    size_t at = SIZE_MAX, sw = SIZE_MAX, t0 = SIZE_MAX;
    for (size_t i = 0; i < bench__n_sources; i++) {
        if (bench__sources[i] == s)
            at = i;
        if (bench__sources[i] == &bench__source_perf_sw)
            sw = i;
        if (bench__sources[i] == &bench__source_tier0)
            t0 = i;
    }
    assert_true(at != SIZE_MAX && sw < t0 && t0 < at);
}

static void expect_family(struct cfg_spec spec, const char *const *want)
{
    struct bench__source_request req = make_req(&spec);
    struct bench__family family;
    size_t n = bench__source_syscalls.family_for(&req, &family);
    const struct bench__column_desc *f = family.columns;
    size_t n_want = 0;
    while (want[n_want])
        n_want++;
    assert_int_equal(n, n_want);
    for (size_t i = 0; i < n; i++) {
        char name[128], header[128];
        if (i == 0) {
            snprintf(name, sizeof name, "syscalls");
            snprintf(header, sizeof header, "syscalls");
        } else {
            snprintf(name, sizeof name, "syscalls:%s", want[i]);
            snprintf(header, sizeof header, "sc:%s", want[i]);
        }
        assert_string_equal(f[i].name, name);
        assert_string_equal(f[i].header, header);
        assert_int_equal(f[i].format, BENCH__FORMAT_COUNT);
        assert_int_equal(f[i].cls, BENCH__QUANTITATIVE);
        assert_string_equal(f[i].source, "syscall");
        assert_true(f[i].is_default);
    }
    free(family.columns);
    free(family.strings);
}

#define WANT(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE ((const char *const[]){NULL})

static void test_family_for(void **state)
{
    (void)state;
    expect_family((struct cfg_spec){0}, NONE);
    expect_family((struct cfg_spec){.metrics = {"ipc", "sc:*", "syscalls:*", "sys*"}}, NONE);
    expect_family((struct cfg_spec){.syscalls = true}, WANT("total"));
    expect_family((struct cfg_spec){.syscalls = true, .names = {"futex", "write"}},
                  WANT("total", "futex", "write"));
    /* --syscalls names first, then selectors; deduplicated; bad names are no names */
    expect_family((struct cfg_spec){.syscalls = true,
                                    .names = {"futex", "write", "futex"},
                                    .metrics = {"sc:read", "syscalls:futex", "ipc", "sc:Bad",
                                                "sc:fu*", "syscalls:", "sc:write", "syscalls"}},
                  WANT("total", "futex", "write", "read"));
    /* selectors alone ask for the family */
    expect_family((struct cfg_spec){.metrics = {"sc:getpid"}}, WANT("total", "getpid"));
    expect_family((struct cfg_spec){.metrics = {"syscalls:getpid", "instr"}},
                  WANT("total", "getpid"));
    expect_family((struct cfg_spec){.metrics = {"syscalls"}}, WANT("total"));
}

static void test_family_caps_at_62(void **state)
{
    (void)state;
    static char names[70][8];
    struct cfg_spec spec = {.syscalls = true};
    for (int i = 0; i < 70; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i);
        spec.names[i] = names[i];
    }
    spec.metrics[0] = "sc:n3"; /* a duplicate is not a new request */
    spec.metrics[1] = "sc:extra";
    struct bench__source_request req = make_req(&spec);
    struct bench__family family;
    size_t n = bench__source_syscalls.family_for(&req, &family);
    assert_int_equal(n, 63);
    assert_string_equal(family.columns[1].name, "syscalls:n0");
    assert_string_equal(family.columns[62].header, "sc:n61");
    free(family.columns);
    free(family.strings);
}

/* ---- absence reasons -------------------------------------------------------------------- */

static void test_tracefs_absent(void **state)
{
    (void)state;
    struct opened o = open_with((struct cfg_spec){.syscalls = true, .names = {"getpid"}});
    expect_absent(&o, MOUNT_REASON);
    assert_int_equal(fake.n_attempts, 0);
    assert_string_equal(o.err, ""); /* the absence is the catalog's one line */
}

static void test_tracefs_empty_mount_points(void **state)
{
    (void)state;
    /* the mount points exist, empty: still not mounted */
    add_dir(TRACING);
    add_dir("/sys/kernel/debug");
    struct opened o = open_with((struct cfg_spec){.syscalls = true});
    expect_absent(&o, MOUNT_REASON);
}

static void test_tracefs_without_syscall_events(void **state)
{
    (void)state;
    add_dir(TRACING "/events");
    struct opened o = open_with((struct cfg_spec){.syscalls = true});
    expect_absent(&o, "tracefs has no raw_syscalls:sys_enter event (a kernel without "
                      "CONFIG_FTRACE_SYSCALLS?)");
}

static void test_ids_unreadable(void **state)
{
    (void)state;
    /* root-only tracefs: EACCES at the mount point; debugfs not mounted */
    add_dir(TRACING "/events");
    add_id(TRACING, "raw_syscalls", "sys_enter", NULL, EACCES);
    struct opened o = open_with((struct cfg_spec){.syscalls = true});
    expect_absent(&o, "tracefs event ids unreadable — usually root");
    assert_int_equal(fake.n_attempts, 0);
}

static void test_ids_unreadable_both_roots(void **state)
{
    (void)state;
    add_id(TRACING, "raw_syscalls", "sys_enter", NULL, EPERM);
    add_id(DEBUG_TRACING, "raw_syscalls", "sys_enter", NULL, EACCES);
    struct opened o = open_with((struct cfg_spec){.syscalls = true});
    expect_absent(&o, "tracefs event ids unreadable — usually root");
}

static void test_ids_other_errno(void **state)
{
    (void)state;
    add_id(TRACING, "raw_syscalls", "sys_enter", NULL, EMFILE);
    struct opened o = open_with((struct cfg_spec){.syscalls = true});
    expect_absent(&o, "tracefs event ids unreadable (raw_syscalls:sys_enter: EMFILE "
                      "(Too many open files))");
}

static void test_leader_id_garbage(void **state)
{
    (void)state;
    static const char *const garbage[] = {
        "", "\n", "abc\n", "12x\n", "-5\n", "+5\n", "4 4\n", "99999999999999999999999\n", "0x10\n"};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        teardown_os(NULL);
        setup_fake(NULL);
        add_dir(TRACING "/events");
        add_id(TRACING, "raw_syscalls", "sys_enter", garbage[i], 0);
        struct opened o = open_with((struct cfg_spec){.syscalls = true});
        expect_absent(&o, "tracefs event id of raw_syscalls:sys_enter is not a number");
    }
}

static void test_id_leading_spaces(void **state)
{
    (void)state;
    add_dir(TRACING "/events");
    add_id(TRACING, "raw_syscalls", "sys_enter", "   \t21", 0);
    add_id(TRACING, "syscalls", "sys_enter_getpid", " 309 \n", 0);
    struct opened o = open_with((struct cfg_spec){.syscalls = true, .names = {"getpid"}});
    assert_non_null(o.state);
    assert_int_equal(fake.attrs[0].config, ID_RAW);
    assert_int_equal(fake.attrs[1].config, ID_GETPID);
    close_and_check(o.state);
}

static void test_debugfs_fallback(void **state)
{
    (void)state;
    /* tracefs not mounted at its own mount point; reachable through debugfs */
    mount_tracefs(DEBUG_TRACING);
    struct opened o = open_with((struct cfg_spec){.syscalls = true, .names = {"getpid"}});
    assert_non_null(o.state);
    assert_int_equal(fake.n_attempts, 2);
    assert_int_equal(fake.attrs[0].config, ID_RAW);
    assert_int_equal(fake.attrs[1].config, ID_GETPID);
    close_and_check(o.state);
}

static void test_debugfs_fallback_after_garbage(void **state)
{
    (void)state;
    add_id(TRACING, "raw_syscalls", "sys_enter", "junk", 0);
    mount_tracefs(DEBUG_TRACING);
    struct opened o = open_with((struct cfg_spec){.syscalls = true});
    assert_non_null(o.state);
    assert_int_equal(fake.attrs[0].config, ID_RAW);
    close_and_check(o.state);
}

static void expect_refused(const char *paranoid, int err, const char *want)
{
    mount_tracefs(TRACING);
    if (paranoid)
        add_file(PARANOID, paranoid, 0);
    fail_event(ID_RAW, err);
    struct opened o = open_with((struct cfg_spec){.syscalls = true, .names = {"getpid"}});
    expect_absent(&o, want);
    /* kernel+user only: no user-space-only retry, no sibling */
    assert_int_equal(fake.n_attempts, 1);
    assert_int_equal(fake.attrs[0].exclude_kernel, 0);
    assert_string_equal(o.err, "");
}

static void test_refused_paranoid_2(void **state)
{
    (void)state;
    expect_refused("2\n", EACCES,
                   "perf_event_open(raw_syscalls:sys_enter) refused: EACCES — "
                   "perf_event_paranoid=2 (needs ≤ 1)");
}

static void test_refused_paranoid_3(void **state)
{
    (void)state;
    expect_refused("3", EPERM,
                   "perf_event_open(raw_syscalls:sys_enter) refused: EPERM — "
                   "perf_event_paranoid=3 (needs ≤ 1)");
}

static void test_refused_paranoid_unreadable(void **state)
{
    (void)state;
    expect_refused(NULL, EACCES,
                   "perf_event_open(raw_syscalls:sys_enter) refused: EACCES — "
                   "perf_event_paranoid unreadable");
}

static void test_refused_paranoid_garbage(void **state)
{
    (void)state;
    expect_refused("high\n", EACCES,
                   "perf_event_open(raw_syscalls:sys_enter) refused: EACCES — "
                   "perf_event_paranoid unreadable");
}

static void test_refused_permissive_paranoid(void **state)
{
    (void)state;
    expect_refused("1\n", EPERM,
                   "perf_event_open(raw_syscalls:sys_enter) refused: EPERM — seccomp or kernel "
                   "policy (perf_event_paranoid=1 allows it)");
}

static void test_refused_paranoid_minus_1(void **state)
{
    (void)state;
    expect_refused("-1\n", EACCES,
                   "perf_event_open(raw_syscalls:sys_enter) refused: EACCES — seccomp or kernel "
                   "policy (perf_event_paranoid=-1 allows it)");
}

static void test_leader_other_errnos(void **state)
{
    (void)state;
    expect_refused("2\n", EMFILE,
                   "perf_event_open(raw_syscalls:sys_enter) failed: EMFILE (Too many open "
                   "files) — out of file descriptors");
    teardown_os(NULL);
    setup_fake(NULL);
    expect_refused("2\n", ENOENT,
                   "perf_event_open(raw_syscalls:sys_enter) failed: ENOENT (No such file or "
                   "directory) — the kernel rejected the tracepoint id");
    teardown_os(NULL);
    setup_fake(NULL);
    expect_refused("2\n", ENOSYS,
                   "perf_event_open(raw_syscalls:sys_enter) failed: ENOSYS (Function not "
                   "implemented) — no perf_event_open in this kernel or sandbox");
}

static void test_read_failure_at_open(void **state)
{
    (void)state;
    mount_tracefs(TRACING);
    fake.fail_read = true;
    struct opened o = open_with((struct cfg_spec){.syscalls = true});
    expect_absent(&o, "reading the syscall tracepoint group failed");
}

/* ---- open, attr, passes --------------------------------------------------------------------- */

static void test_open_attr_status_and_pass(void **state)
{
    (void)state;
    mount_tracefs(TRACING);
    add_dir(DEBUG_TRACING "/events"); /* never consulted: the first root has the ids */
    add_id(DEBUG_TRACING, "raw_syscalls", "sys_enter", NULL, EACCES);
    struct opened o = open_with((struct cfg_spec){.syscalls = true, .names = {"getpid", "futex"}});
    assert_non_null(o.state);
    assert_string_equal(o.err, "");
    assert_string_equal(o.status,
                        "brackets each add 1 syscall of their own to `syscalls` (not subtracted)");
    assert_true(o.caps.present & (1u << BENCH__CAP_COUNTING));
    assert_true(o.caps.present & (1u << BENCH__CAP_EVENT_TRACING));
    assert_int_equal(o.caps.n_absent, 0);

    static const uint64_t ids[3] = {ID_RAW, ID_GETPID, ID_FUTEX};
    assert_int_equal(fake.n_attempts, 3);
    for (size_t i = 0; i < 3; i++) {
        const struct perf_event_attr *a = &fake.attrs[i];
        assert_int_equal(a->size, sizeof *a);
        assert_int_equal(a->type, PERF_TYPE_TRACEPOINT);
        assert_int_equal(a->config, ids[i]);
        assert_int_equal(a->inherit, 1);
        assert_int_equal(a->exclude_kernel, 0);
        assert_int_equal(a->exclude_user, 0);
        assert_int_equal(a->exclude_hv, 1);
        assert_int_equal(a->disabled, i == 0);
        assert_int_equal(fake.group_fds[i], i == 0 ? -1 : FAKE_FD_BASE);
    }
    assert_int_equal(fake.attrs[0].read_format, PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                                    PERF_FORMAT_TOTAL_TIME_RUNNING);

    double v[3];
    bool e[3];
    /* one bracket of 1000 calls: named counts exact, the total has the bracket's own call */
    run_pass(o.state, 3, 1, 1000, 1000, v, e);
    assert_double_exact(v[1], 1.0);
    assert_double_exact(v[2], 0.0); /* a measured zero is a zero */
    assert_double_exact(v[0], 1.001);
    for (size_t i = 0; i < 3; i++)
        assert_false(e[i]);
    /* one call per bracket: the total doubles, as disclosed */
    run_pass(o.state, 3, 100, 1, 100, v, e);
    assert_double_exact(v[0], 2.0);
    assert_double_exact(v[1], 1.0);
    close_and_check(o.state);
}

static void test_pass_scale_gates(void **state)
{
    (void)state;
    mount_tracefs(TRACING);
    struct opened o = open_with((struct cfg_spec){.syscalls = true, .names = {"getpid"}});
    assert_non_null(o.state);
    double v[2];
    bool e[2];
    fake.running_inc = (int64_t)MS; /* half the time: an estimate, scaled by 2 */
    run_pass(o.state, 2, 2, 5, 10, v, e);
    assert_double_exact(v[1], 2.0);
    assert_true(e[0] && e[1]);
    fake.running_inc = 0; /* never ran */
    run_pass(o.state, 2, 2, 5, 10, v, e);
    assert_nan(v[0]);
    assert_nan(v[1]);
    assert_false(e[0] || e[1]);
    fake.running_inc = -1;
    fake.enabled_inc = 0; /* never enabled: nothing counted, which is not zero calls */
    run_pass(o.state, 2, 2, 5, 10, v, e);
    assert_nan(v[0]);
    assert_nan(v[1]);
    assert_false(e[0] || e[1]);
    fake.enabled_inc = 2 * MS;
    fake.fail_read = true;
    run_pass(o.state, 2, 2, 5, 10, v, e);
    assert_nan(v[0]);
    assert_nan(v[1]);
    close_and_check(o.state);
}

static void test_named_missing_is_nan(void **state)
{
    (void)state;
    mount_tracefs(TRACING);
    add_id(TRACING, "syscalls", "sys_enter_badid", "x\n", 0);
    add_id(TRACING, "syscalls", "sys_enter_secret", NULL, EACCES);
    struct opened o = open_with((struct cfg_spec){
        .syscalls = true, .names = {"nosuch", "getpid", "badid"}, .metrics = {"sc:secret"}});
    assert_non_null(o.state);
    assert_string_equal(o.err, "--syscalls: sc:nosuch not counted (no tracepoint "
                               "syscalls:sys_enter_nosuch — not a syscall of this kernel?)\n"
                               "--syscalls: sc:badid not counted (the tracefs id of "
                               "syscalls:sys_enter_badid is not a number)\n"
                               "--syscalls: sc:secret not counted (the tracefs id of "
                               "syscalls:sys_enter_secret is unreadable)\n");
    assert_int_equal(fake.n_attempts, 2); /* the leader and getpid */
    double v[5];
    bool e[5];
    run_pass(o.state, 5, 1, 10, 10, v, e);
    assert_nan(v[1]);
    assert_double_exact(v[2], 1.0);
    assert_nan(v[3]);
    assert_nan(v[4]);
    assert_double_exact(v[0], 1.1);
    for (size_t i = 0; i < 5; i++)
        assert_false(e[i]);
    close_and_check(o.state);
}

static void test_named_open_refused_is_nan(void **state)
{
    (void)state;
    mount_tracefs(TRACING);
    fail_event(ID_FUTEX, EINVAL);
    struct opened o = open_with((struct cfg_spec){.metrics = {"sc:futex", "syscalls:getpid"}});
    assert_non_null(o.state);
    assert_string_equal(o.err, "--metrics: sc:futex not counted (perf_event_open(syscalls:"
                               "sys_enter_futex) failed: EINVAL (Invalid argument))\n");
    double v[3];
    bool e[3];
    run_pass(o.state, 3, 1, 4, 4, v, e);
    assert_nan(v[1]);
    assert_double_exact(v[2], 1.0);
    assert_double_exact(v[0], 1.25);
    close_and_check(o.state);
}

static void test_more_than_62_names(void **state)
{
    (void)state;
    mount_tracefs(TRACING);
    static char names[70][8];
    struct cfg_spec spec = {.syscalls = true};
    for (int i = 0; i < 70; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i);
        add_syscall(TRACING, names[i], ID_N0 + (unsigned)i);
        spec.names[i] = names[i];
    }
    spec.metrics[0] = "syscalls:n1";
    struct opened o = open_with(spec);
    assert_non_null(o.state);
    assert_string_equal(o.err, "--syscalls: only the first 62 named tracepoints are counted (70 "
                               "requested)\n");
    assert_int_equal(fake.n_attempts, 63);
    assert_int_equal(fake.attrs[62].config, ID_N0 + 61);
    double v[63];
    bool e[63];
    run_pass(o.state, 63, 1, 0, 1, v, e);
    for (size_t i = 1; i < 63; i++)
        assert_double_exact(v[i], 0);
    assert_double_exact(v[0], 1); /* the bracket's own */
    close_and_check(o.state);
}

static void test_probe_without_columns(void **state)
{
    (void)state;
    /* --list-metrics or --metrics=all without --syscalls: probe, report, count nothing */
    mount_tracefs(TRACING);
    struct opened o = open_with((struct cfg_spec){0});
    assert_null(o.state);
    assert_string_equal(o.status, "");
    assert_true(o.caps.present & (1u << BENCH__CAP_EVENT_TRACING));
    assert_null(bench__caps_reason(&o.caps, BENCH__CAP_COUNTING));
    assert_int_equal(o.caps.n_absent, 0);
    assert_int_equal(open_fds(), 0);
    teardown_os(NULL);
    setup_fake(NULL);
    /* absent: eventTracing says why; no counting absence for the catalog to announce */
    o = open_with((struct cfg_spec){0});
    assert_null(o.state);
    assert_string_equal(bench__caps_reason(&o.caps, BENCH__CAP_EVENT_TRACING), MOUNT_REASON);
    assert_null(bench__caps_reason(&o.caps, BENCH__CAP_COUNTING));
}

/* ---- through the catalog: requests and the bench-header lines ------------------------------ */

static void announce(struct cfg_spec spec, char *buf, size_t size, bool *is_open)
{
    struct bench__config cfg = make_cfg(&spec);
    struct bench__catalog c;
    bench__catalog_open(&c, &cfg, false);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    bench__catalog_announce(&c, f);
    fclose(f);
    snprintf(buf, size, "%s", text);
    free(text);
    *is_open = false;
    for (size_t i = 0; i < c.n_sources; i++)
        if (c.sources[i].ops == &bench__source_syscalls)
            *is_open = c.sources[i].state != NULL;
    bench__catalog_close(&c);
}

static void test_catalog_lines(void **state)
{
    (void)state;
    char buf[1024];
    bool is_open;
    announce((struct cfg_spec){.syscalls = true, .names = {"getpid"}}, buf, sizeof buf, &is_open);
    assert_false(is_open);
    assert_string_equal(buf, "--syscalls: eventTracing unavailable (" MOUNT_REASON ")\n");
    announce((struct cfg_spec){.metrics = {"sc:getpid"}}, buf, sizeof buf, &is_open);
    assert_string_equal(buf, "--metrics: eventTracing unavailable (" MOUNT_REASON ")\n");
    announce((struct cfg_spec){0}, buf, sizeof buf, &is_open);
    assert_string_equal(buf, ""); /* not requested */
    mount_tracefs(TRACING);
    announce((struct cfg_spec){.syscalls = true}, buf, sizeof buf, &is_open);
    assert_true(is_open);
    assert_string_equal(buf, "--syscalls: syscall brackets each add 1 syscall of their own to "
                             "`syscalls` (not subtracted)\n");
    assert_int_equal(open_fds(), 0);
}

/* ---- the generalized perf group ------------------------------------------------------------ */

static void test_group_64_events_and_omit(void **state)
{
    (void)state;
    struct bench__perf_event events[BENCH__PERF_GROUP_MAX];
    for (size_t i = 0; i < BENCH__PERF_GROUP_MAX; i++)
        events[i] = (struct bench__perf_event){
            .name = "ev", .type = PERF_TYPE_TRACEPOINT, .config = i == 0 ? ID_RAW : ID_N0 + i};
    struct bench__perf_group g;
    char reason[BENCH__REASON_MAX];
    uint64_t omit = (UINT64_C(1) << 63) | (UINT64_C(1) << 40);
    assert_int_equal(
        bench__perf_group_open(&g, events, BENCH__PERF_GROUP_MAX, omit, reason, sizeof reason), 0);
    assert_int_equal(g.n_open, 62);
    assert_int_equal(g.fd[40], -1);
    assert_int_equal(g.fd[63], -1);
    assert_int_equal(fake.attrs[0].inherit, 0); /* default: no inherit */
    bench__perf_group_pass_begin(&g);
    bench__perf_group_enable(&g);
    fake_syscall(ID_N0 + 62);
    fake_syscall(ID_N0 + 62);
    bench__perf_group_disable(&g);
    struct bench__perf_reading r;
    bench__perf_group_pass_end(&g, 2, &r);
    assert_double_exact(r.values[0], 1.5);
    assert_double_exact(r.values[62], 1.0);
    assert_double_exact(r.values[1], 0.0);
    assert_nan(r.values[40]);
    assert_nan(r.values[63]);
    bench__perf_group_close(&g);
    assert_int_equal(open_fds(), 0);
    /* too many events is an internal error, never an overflow */
    static struct bench__perf_event many[BENCH__PERF_GROUP_MAX + 1];
    assert_int_equal(
        bench__perf_group_open(&g, many, BENCH__PERF_GROUP_MAX + 1, 0, reason, sizeof reason),
        -EINVAL);
}

static void test_group_exclude_overrides_and_ladder(void **state)
{
    (void)state;
    struct bench__perf_event events[4] = {
        {.name = "lead", .type = PERF_TYPE_SOFTWARE, .config = 1},
        {.name = "user", .type = PERF_TYPE_SOFTWARE, .config = 2},
        {.name = "kern", .type = PERF_TYPE_SOFTWARE, .config = 3},
        {.name = "plain", .type = PERF_TYPE_SOFTWARE, .config = 4},
    };
    const uint8_t exclude[4] = {0, BENCH__PERF_EXCLUDE_KERNEL, BENCH__PERF_EXCLUDE_USER, 0};
    struct bench__perf_group_options opt = {.exclude = exclude};
    struct bench__perf_group g;
    char reason[BENCH__REASON_MAX];
    assert_int_equal(bench__perf_group_open_with(&g, events, 4, 0, &opt, reason, sizeof reason), 0);
    assert_int_equal(fake.n_attempts, 4);
    assert_int_equal(fake.attrs[1].exclude_kernel, 1);
    assert_int_equal(fake.attrs[1].exclude_user, 0);
    assert_int_equal(fake.attrs[2].exclude_user, 1);
    assert_int_equal(fake.attrs[2].exclude_kernel, 0);
    assert_int_equal(fake.attrs[3].exclude_user | fake.attrs[3].exclude_kernel, 0);
    bench__perf_group_close(&g);

    /* the leader refused kernel+user: on the user-space rung the kernel-only event is not
     * opened (it would count nothing) */
    fake.n_attempts = 0;
    fail_event(1, EACCES); /* both rungs fail in this fake: the ladder is visible */
    assert_true(bench__perf_group_open_with(&g, events, 4, 0, &opt, reason, sizeof reason) < 0);
    assert_int_equal(fake.n_attempts, 2);
    assert_int_equal(fake.attrs[1].exclude_kernel, 1);
    /* kernel+user only: one attempt */
    fake.n_attempts = 0;
    opt.kernel_and_user_only = true;
    assert_true(bench__perf_group_open_with(&g, events, 4, 0, &opt, reason, sizeof reason) < 0);
    assert_int_equal(fake.n_attempts, 1);
    assert_int_equal(open_fds(), 0);
}

static int fake_open_user_rung(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                               unsigned long flags)
{
    if (attr->config == 1 && !attr->exclude_kernel) {
        fake.attrs[fake.n_attempts++] = *attr;
        errno = EACCES;
        return -1;
    }
    return fake_perf_event_open(attr, pid, cpu, group_fd, flags);
}

static void test_group_user_rung_skips_kernel_only(void **state)
{
    (void)state;
    bench__os.perf_event_open = fake_open_user_rung;
    struct bench__perf_event events[3] = {
        {.name = "lead", .type = PERF_TYPE_SOFTWARE, .config = 1},
        {.name = "kern", .type = PERF_TYPE_SOFTWARE, .config = 3},
        {.name = "plain", .type = PERF_TYPE_SOFTWARE, .config = 4},
    };
    const uint8_t exclude[3] = {0, BENCH__PERF_EXCLUDE_USER, 0};
    struct bench__perf_group_options opt = {.exclude = exclude, .inherit = true};
    struct bench__perf_group g;
    char reason[BENCH__REASON_MAX];
    assert_int_equal(bench__perf_group_open_with(&g, events, 3, 0, &opt, reason, sizeof reason), 0);
    assert_true(g.user_only);
    assert_int_equal(g.fd[1], -1);
    assert_true(g.fd[2] >= 0);
    assert_int_equal(g.n_open, 2);
    /* attempts: leader k+u (refused), leader user-only, plain user-only */
    assert_int_equal(fake.n_attempts, 3);
    assert_int_equal(fake.attrs[2].config, 4);
    assert_int_equal(fake.attrs[2].exclude_kernel, 1);
    assert_int_equal(fake.attrs[2].inherit, 1);
    bench__perf_group_close(&g);
    assert_int_equal(open_fds(), 0);
}

/* ---- the real kernel -------------------------------------------------------------------- */

/* Can this process read a tracefs id at all? Else why not. */
static bool tracefs_readable(char *why, size_t size)
{
    static const char *const paths[] = {
        TRACING "/events/raw_syscalls/sys_enter/id",
        DEBUG_TRACING "/events/raw_syscalls/sys_enter/id",
    };
    char buf[32];
    for (size_t i = 0; i < 2; i++)
        if (bench__os_read_file(paths[i], buf, sizeof buf) > 0)
            return true;
    ssize_t rc = bench__os_read_file(paths[0], buf, sizeof buf);
    snprintf(why, size, "tracefs not readable here (%s: %s)", paths[0], strerror((int)-rc));
    return false;
}

static struct opened open_real(struct cfg_spec spec)
{
    bench__os_reset();
    char why[256];
    if (!tracefs_readable(why, sizeof why)) {
        print_message("skipped: %s — mount it (as root: mount -t tracefs nodev "
                      "/sys/kernel/tracing) to run the live check\n",
                      why);
        skip();
    }
    struct opened o = open_with(spec);
    if (!o.state) {
        const char *reason = bench__caps_reason(&o.caps, BENCH__CAP_EVENT_TRACING);
        if (reason && strstr(reason, "perf_event_paranoid")) {
            print_message("skipped: %s\n", reason);
            skip();
        }
        if (test_emulator()) { /* qemu-user has no perf_event_open: the absence, checked */
            print_message("under an emulator, the syscall source is absent: %s\n",
                          reason ? reason : "(no reason)");
            assert_non_null(reason);
            assert_non_null(strstr(reason, "perf_event_open(raw_syscalls:sys_enter) failed: "
                                           "ENOSYS"));
            return o; /* the caller stops here: no state */
        }
        fail_msg("the syscall source did not open: %s", reason ? reason : "(no reason)");
    }
    assert_string_equal(o.err, "");
    return o;
}

static void test_real_one_getpid_per_iteration(void **state)
{
    (void)state;
    struct opened o = open_real((struct cfg_spec){.syscalls = true, .names = {"getpid"}});
    if (!o.state)
        return; /* emulated: open_real checked the absence */
    print_message("status: \"%s\"\n", o.status);
    double v[2];
    bool e[2];
    struct bench__counts out = {.values = v, .estimate = e, .scale = NAN};
    enum { N = 1000 };
    /* batched: one bracket around 1000 calls */
    bench__source_syscalls.pass_begin(o.state);
    bench__source_syscalls.bracket_begin(o.state);
    for (int i = 0; i < N; i++)
        syscall(SYS_getpid);
    bench__source_syscalls.bracket_end(o.state);
    bench__source_syscalls.pass_end(o.state, N, 1, &out);
    print_message("batched: sc:getpid %.6f/iter, syscalls %.6f/iter\n", v[1], v[0]);
    assert_double_exact(v[1], 1.0);
    assert_true(v[0] >= 1.0);
    assert_false(e[0] || e[1]);
    /* per call: one bracket per call; the total carries the bracket's own syscalls */
    bench__source_syscalls.pass_begin(o.state);
    for (int i = 0; i < N; i++) {
        bench__source_syscalls.bracket_begin(o.state);
        syscall(SYS_getpid);
        bench__source_syscalls.bracket_end(o.state);
    }
    bench__source_syscalls.pass_end(o.state, N, N, &out);
    print_message("per call: sc:getpid %.6f/iter, syscalls %.6f/iter\n", v[1], v[0]);
    assert_double_exact(v[1], 1.0);
    assert_true(v[0] >= 2.0);
    bench__source_syscalls.close(o.state);
}

static void *getpid_thread(void *arg)
{
    for (int i = 0; i < *(int *)arg; i++)
        syscall(SYS_getpid);
    return NULL;
}

static void test_real_inherit_counts_new_threads(void **state)
{
    (void)state;
    struct opened o = open_real((struct cfg_spec){.syscalls = true, .names = {"getpid"}});
    if (!o.state)
        return; /* emulated: open_real checked the absence */
    double v[2];
    bool e[2];
    struct bench__counts out = {.values = v, .estimate = e, .scale = NAN};
    int calls = 100;
    bench__source_syscalls.pass_begin(o.state);
    bench__source_syscalls.bracket_begin(o.state);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, getpid_thread, &calls), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    syscall(SYS_getpid);
    bench__source_syscalls.bracket_end(o.state);
    bench__source_syscalls.pass_end(o.state, 1, 1, &out);
    print_message("a thread created in the bracket: sc:getpid %.0f, syscalls %.0f\n", v[1], v[0]);
    assert_double_exact(v[1], (double)calls + 1);
    bench__source_syscalls.close(o.state);
}

static void test_real_unknown_name(void **state)
{
    (void)state;
    bench__os_reset();
    char why[256];
    if (!tracefs_readable(why, sizeof why)) {
        print_message("skipped: %s\n", why);
        skip();
    }
    struct opened o = open_with((struct cfg_spec){.syscalls = true, .names = {"no_such_call"}});
    if (!o.state && test_emulator()) { /* qemu-user has no perf_event_open: the absence */
        const char *reason = bench__caps_reason(&o.caps, BENCH__CAP_EVENT_TRACING);
        print_message("under an emulator, the syscall source is absent: %s\n", reason);
        assert_non_null(strstr(reason, "perf_event_open(raw_syscalls:sys_enter) failed: ENOSYS"));
        return;
    }
    if (!o.state) {
        print_message("skipped: %s\n", bench__caps_reason(&o.caps, BENCH__CAP_EVENT_TRACING));
        skip();
    }
    assert_string_equal(o.err, "--syscalls: sc:no_such_call not counted (no tracepoint "
                               "syscalls:sys_enter_no_such_call — not a syscall of this "
                               "kernel?)\n");
    bench__source_syscalls.close(o.state);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_fake, teardown_os)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops),
        cmocka_unit_test(test_family_for),
        cmocka_unit_test(test_family_caps_at_62),
        T(test_tracefs_absent),
        T(test_tracefs_empty_mount_points),
        T(test_tracefs_without_syscall_events),
        T(test_ids_unreadable),
        T(test_ids_unreadable_both_roots),
        T(test_ids_other_errno),
        T(test_leader_id_garbage),
        T(test_id_leading_spaces),
        T(test_debugfs_fallback),
        T(test_debugfs_fallback_after_garbage),
        T(test_refused_paranoid_2),
        T(test_refused_paranoid_3),
        T(test_refused_paranoid_unreadable),
        T(test_refused_paranoid_garbage),
        T(test_refused_permissive_paranoid),
        T(test_refused_paranoid_minus_1),
        T(test_leader_other_errnos),
        T(test_read_failure_at_open),
        T(test_open_attr_status_and_pass),
        T(test_pass_scale_gates),
        T(test_named_missing_is_nan),
        T(test_named_open_refused_is_nan),
        T(test_more_than_62_names),
        T(test_probe_without_columns),
        T(test_catalog_lines),
        T(test_group_64_events_and_omit),
        T(test_group_exclude_overrides_and_ladder),
        T(test_group_user_rung_skips_kernel_only),
        cmocka_unit_test_teardown(test_real_one_getpid_per_iteration, teardown_os),
        cmocka_unit_test_teardown(test_real_inherit_counts_new_threads, teardown_os),
        cmocka_unit_test_teardown(test_real_unknown_name, teardown_os),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
