/* SPDX-License-Identifier: MIT */
/* test_rdpmc.c: the self-monitoring read on a synthetic mmap page (index 0, a lock change
 * mid-read, sign extension to pmc_width, the offset), mapping through the seam, and a
 * counting pass whose brackets read with rdpmc on a fake kernel (read(2) fallbacks). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "platform/os.h"
#include "sources/perf_group.h"
#include "sources/rdpmc.h"
#include "sources/source.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096
#define MS 1000000ull

static struct perf_event_mmap_page *new_page(void)
{
    struct perf_event_mmap_page *page = aligned_alloc(PAGE, PAGE);
    assert_non_null(page);
    memset(page, 0, PAGE);
    return page;
}

/* ---- the read on one synthetic page -------------------------------------------------- */

static struct {
    struct perf_event_mmap_page *page;
    uint64_t counters[8]; /* what rdpmc(ecx) returns */
    uint32_t asked[16];   /* ecx of each call */
    size_t calls;
    int bump_lock; /* change the lock (and offset) during this many reads */
    int64_t new_offset;
} insn;

static uint64_t fake_rdpmc(uint32_t counter)
{
    assert_true(counter < 8);
    if (insn.calls < 16)
        insn.asked[insn.calls] = counter;
    insn.calls++;
    if (insn.bump_lock > 0) { /* the kernel rewrites the page while we read it */
        insn.bump_lock--;
        insn.page->lock += 2;
        insn.page->offset = insn.new_offset;
    }
    return insn.counters[counter];
}

static uint64_t (*saved_insn)(uint32_t);

static int setup_page(void **state)
{
    (void)state;
    memset(&insn, 0, sizeof insn);
    insn.page = new_page();
    insn.page->cap_user_rdpmc = 1;
    insn.page->pmc_width = 48;
    insn.page->lock = 10;
    saved_insn = bench__rdpmc_insn;
    bench__rdpmc_insn = fake_rdpmc;
    return 0;
}

static int teardown_page(void **state)
{
    (void)state;
    free(insn.page);
    bench__rdpmc_insn = saved_insn;
    bench__os_reset();
    return 0;
}

static void test_index_zero_not_readable(void **state)
{
    (void)state;
    insn.page->index = 0;
    insn.page->offset = 1234;
    uint64_t count = 77;
    assert_false(bench__rdpmc_read(insn.page, &count));
    assert_int_equal(count, 77); /* untouched */
    assert_int_equal(insn.calls, 0);
}

static void test_cap_zero_not_readable(void **state)
{
    (void)state;
    insn.page->cap_user_rdpmc = 0;
    insn.page->index = 3;
    uint64_t count;
    assert_false(bench__rdpmc_read(insn.page, &count));
    assert_int_equal(insn.calls, 0);
}

/* rdpmc(index - 1), sign-extended from pmc_width, plus the offset. */
static void test_index_offset_sign_extension(void **state)
{
    (void)state;
    insn.page->index = 3;
    insn.page->offset = 1000;
    insn.counters[2] = 0x0000fffffffffff0ull; /* -16 in 48 bits */
    uint64_t count = 0;
    assert_true(bench__rdpmc_read(insn.page, &count));
    assert_int_equal(insn.calls, 1);
    assert_int_equal(insn.asked[0], 2);
    assert_int_equal(count, 984);

    /* bits above pmc_width are not part of the counter */
    insn.counters[2] = 0xabcd000000000005ull;
    assert_true(bench__rdpmc_read(insn.page, &count));
    assert_int_equal(count, 1005);

    /* the largest positive 48-bit value stays positive */
    insn.counters[2] = 0x00007fffffffffffull;
    insn.page->offset = 0;
    assert_true(bench__rdpmc_read(insn.page, &count));
    assert_int_equal(count, 0x00007fffffffffffull);

    /* a negative offset (the kernel's base after a reset) */
    insn.page->offset = -(int64_t)0x0000800000000000ll;
    insn.counters[2] = 0x0000800000000010ull; /* -2^47 + 16 */
    assert_true(bench__rdpmc_read(insn.page, &count));
    assert_int_equal(count, (uint64_t)(-(int64_t)0x0000800000000000ll * 2 + 16));

    /* width 64: no extension */
    insn.page->pmc_width = 64;
    insn.page->offset = 1;
    insn.counters[2] = 0x8000000000000000ull;
    assert_true(bench__rdpmc_read(insn.page, &count));
    assert_int_equal(count, 0x8000000000000001ull);
}

/* The lock changes while the counter is read: the read retries and uses the new page. */
static void test_lock_change_retries(void **state)
{
    (void)state;
    insn.page->index = 1;
    insn.page->offset = 100;
    insn.counters[0] = 5;
    insn.bump_lock = 1;
    insn.new_offset = 200;
    uint64_t count = 0;
    assert_true(bench__rdpmc_read(insn.page, &count));
    assert_int_equal(insn.calls, 2);
    assert_int_equal(count, 205); /* not 105: the first, torn attempt was discarded */
    assert_int_equal(insn.page->lock, 12);
}

/* A lock that never settles gives up (read(2) then) instead of spinning forever. */
static void test_lock_never_settles(void **state)
{
    (void)state;
    insn.page->index = 1;
    insn.bump_lock = 1 << 30;
    uint64_t count = 0;
    assert_false(bench__rdpmc_read(insn.page, &count));
    assert_true(insn.calls > 1);
}

/* ---- mapping through the seam ---------------------------------------------------------- */

static struct {
    struct perf_event_mmap_page *pages[16]; /* by fd - 100; NULL: mmap fails */
    int mmap_fds[16];
    size_t n_mmaps;
    size_t n_munmaps;
    int mmap_errno;
} maps;

static void *fake_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    assert_null(addr);
    assert_int_equal(length, PAGE);
    assert_int_equal(prot, PROT_READ);
    assert_int_equal(flags, MAP_SHARED);
    assert_int_equal(offset, 0);
    assert_true(maps.n_mmaps < 16);
    maps.mmap_fds[maps.n_mmaps++] = fd;
    if (fd >= 100 && fd < 116 && maps.pages[fd - 100])
        return maps.pages[fd - 100];
    errno = maps.mmap_errno ? maps.mmap_errno : ENODEV;
    return MAP_FAILED;
}

static int fake_munmap(void *addr, size_t length)
{
    assert_int_equal(length, PAGE);
    assert_non_null(addr);
    maps.n_munmaps++;
    return 0;
}

static void test_map(void **state)
{
    (void)state;
    memset(&maps, 0, sizeof maps);
    bench__os.mmap = fake_mmap;
    bench__os.munmap = fake_munmap;
    char reason[240];

    maps.mmap_errno = EACCES;
    assert_null(bench__rdpmc_map(100, reason, sizeof reason));
    assert_string_equal(reason, "mmap of the counter page failed: Permission denied");

    maps.pages[0] = insn.page;
    insn.page->cap_user_rdpmc = 0;
    assert_null(bench__rdpmc_map(100, reason, sizeof reason));
    assert_string_equal(reason, "cap_user_rdpmc is 0 (a virtual machine, or "
                                "/sys/bus/event_source/devices/cpu/rdpmc is 0)");
    assert_int_equal(maps.n_munmaps, 1);

    insn.page->cap_user_rdpmc = 1;
    assert_ptr_equal(bench__rdpmc_map(100, reason, sizeof reason), insn.page);
    bench__rdpmc_unmap(insn.page);
    assert_int_equal(maps.n_munmaps, 2);

    bench__rdpmc_insn = NULL; /* a build without the instruction */
    assert_null(bench__rdpmc_map(100, reason, sizeof reason));
#if defined(__aarch64__) /* the kernel setting that user access also needs there */
    assert_non_null(strstr(reason, "user-space counter reads are implemented for x86-64 only "
                                   "(rdpmc); on aarch64 they would also need "
                                   "/proc/sys/kernel/perf_user_access = 1 ("));
#else
    assert_string_equal(reason, "rdpmc is implemented for x86-64 only");
#endif
    uint64_t count;
    insn.page->index = 1;
    assert_false(bench__rdpmc_read(insn.page, &count));
}

/* ---- a counting pass read with rdpmc --------------------------------------------------- */

#define FD0 100

/* A fake kernel whose hardware events have pages: event k counts `count[k]`; its page has
 * index k + 1 and offset 0, so rdpmc(k) returns count[k] (48 bits). */
static struct {
    size_t n;
    uint32_t type[16];
    uint64_t count[16];
    bool open[16];
    bool enabled;
    uint64_t time_enabled, time_running;
    unsigned ioctls[3]; /* RESET, ENABLE, DISABLE */
    unsigned reads;
    unsigned order[32]; /* ioctl requests in order: 0 RESET, 1 ENABLE, 2 DISABLE */
    size_t n_order;
    bool inherit_seen;
} k;

static uint64_t kernel_rdpmc(uint32_t counter)
{
    assert_true(counter < k.n);
    assert_true(k.enabled); /* rdpmc only reads running counters */
    return k.count[counter] & 0xffffffffffffull;
}

static int kernel_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                       unsigned long flags)
{
    (void)pid, (void)cpu, (void)flags;
    assert_true(k.n < 16);
    k.inherit_seen |= attr->inherit;
    assert_int_equal(group_fd, k.n ? FD0 : -1);
    size_t i = k.n++;
    k.type[i] = attr->type;
    k.open[i] = true;
    if (attr->type != PERF_TYPE_SOFTWARE) {
        struct perf_event_mmap_page *p = maps.pages[i];
        p->cap_user_rdpmc = 1;
        p->pmc_width = 48;
        p->index = (uint32_t)i + 1;
    }
    return FD0 + (int)i;
}

static int kernel_ioctl(int fd, unsigned long request, unsigned long arg)
{
    assert_int_equal(fd, FD0);
    assert_int_equal(arg, PERF_IOC_FLAG_GROUP);
    unsigned r = request == PERF_EVENT_IOC_RESET     ? 0
                 : request == PERF_EVENT_IOC_ENABLE  ? 1
                 : request == PERF_EVENT_IOC_DISABLE ? 2
                                                     : 3;
    assert_true(r < 3);
    k.ioctls[r]++;
    if (k.n_order < 32)
        k.order[k.n_order++] = r;
    if (r == 0)
        memset(k.count, 0, sizeof k.count);
    if (r == 1)
        k.enabled = true;
    if (r == 2) {
        k.enabled = false;
        k.time_enabled += 5 * MS;
        k.time_running += 5 * MS;
    }
    return 0;
}

static ssize_t kernel_read(int fd, void *buf, size_t count)
{
    assert_int_equal(fd, FD0);
    uint64_t out[3 + 16] = {k.n, k.time_enabled, k.time_running};
    for (size_t i = 0; i < k.n; i++)
        out[3 + i] = k.count[i];
    size_t want = (3 + k.n) * sizeof out[0];
    assert_true(count >= want);
    memcpy(buf, out, want);
    k.reads++;
    return (ssize_t)want;
}

static int kernel_close(int fd)
{
    assert_true(fd >= FD0 && fd < FD0 + (int)k.n && k.open[fd - FD0]);
    k.open[fd - FD0] = false;
    return 0;
}

/* Work the counters see: while enabled each event advances by its step. */
static void work(const uint64_t *steps)
{
    if (!k.enabled)
        return;
    for (size_t i = 0; i < k.n; i++)
        k.count[i] += steps[i];
}

static int setup_kernel(void **state)
{
    setup_page(state);
    memset(&k, 0, sizeof k);
    memset(&maps, 0, sizeof maps);
    for (size_t i = 0; i < 4; i++)
        maps.pages[i] = new_page();
    bench__rdpmc_insn = kernel_rdpmc;
    bench__os.perf_event_open = kernel_open;
    bench__os.ioctl = kernel_ioctl;
    bench__os.read = kernel_read;
    bench__os.close = kernel_close;
    bench__os.mmap = fake_mmap;
    bench__os.munmap = fake_munmap;
    return 0;
}

static int teardown_kernel(void **state)
{
    for (size_t i = 0; i < 4; i++)
        free(maps.pages[i]);
    return teardown_page(state);
}

static const struct bench__perf_event group3[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
};

/* Counters stay enabled for the pass; each bracket adds end - start of every event (rdpmc
 * for the hardware ones, one read(2) per edge for the software one); work between brackets
 * is not counted. */
static void test_pass_brackets_with_rdpmc(void **state)
{
    (void)state;
    struct bench__perf_group g;
    char reason[240];
    assert_int_equal(bench__perf_group_open(&g, group3, 3, 0, reason, sizeof reason), 0);
    assert_true(bench__perf_group_self_monitoring(&g, reason, sizeof reason));
    assert_int_equal(maps.n_mmaps, 2); /* the software event has no counter to map */
    assert_int_equal(maps.mmap_fds[0], FD0);
    assert_int_equal(maps.mmap_fds[1], FD0 + 1);

    const uint64_t inside[] = {100, 250, 1};
    const uint64_t between[] = {1000000, 1000000, 1000};
    bench__perf_group_pass_begin(&g);
    assert_int_equal(k.ioctls[0], 1);
    assert_int_equal(k.ioctls[1], 1); /* enabled once, for the whole pass */
    assert_int_equal(k.order[0], 0);
    assert_int_equal(k.order[1], 1);
    unsigned reads_before = k.reads;
    for (int b = 0; b < 4; b++) {
        work(between);
        bench__perf_group_enable(&g);
        work(inside);
        bench__perf_group_disable(&g);
        work(between);
    }
    assert_int_equal(k.ioctls[1], 1); /* no ioctl per bracket */
    assert_int_equal(k.ioctls[2], 0);
    assert_int_equal(k.reads - reads_before, 8); /* the software event, per edge */
    struct bench__perf_reading r;
    bench__perf_group_pass_end(&g, 8, &r);
    assert_int_equal(k.ioctls[2], 1);
    assert_true(r.scale == 1);
    assert_false(r.estimate);
    assert_true(r.values[0] == 400.0 / 8);
    assert_true(r.values[1] == 1000.0 / 8);
    assert_true(r.values[2] == 4.0 / 8);

    /* outside a pass enable/disable are the ioctls */
    bench__perf_group_enable(&g);
    bench__perf_group_disable(&g);
    assert_int_equal(k.ioctls[1], 2);
    assert_int_equal(k.ioctls[2], 2);

    bench__perf_group_close(&g);
    assert_int_equal(maps.n_munmaps, 2);
}

/* An event not on a counter at an edge (index 0: multiplexed out) is read with read(2). */
static void test_index_zero_edge_falls_back(void **state)
{
    (void)state;
    struct bench__perf_group g;
    char reason[240];
    assert_int_equal(bench__perf_group_open(&g, group3, 2, 0, reason, sizeof reason), 0);
    const uint64_t inside[] = {10, 20};
    bench__perf_group_pass_begin(&g);
    unsigned reads = k.reads;
    bench__perf_group_enable(&g);
    work(inside);
    bench__perf_group_disable(&g);
    assert_int_equal(k.reads, reads); /* two hardware events: no syscall at all */
    maps.pages[1]->index = 0;
    bench__perf_group_enable(&g);
    work(inside);
    maps.pages[1]->index = 2;
    bench__perf_group_disable(&g);
    assert_int_equal(k.reads, reads + 1);
    struct bench__perf_reading r;
    bench__perf_group_pass_end(&g, 1, &r);
    assert_true(r.values[0] == 20);
    assert_true(r.values[1] == 40);
    bench__perf_group_close(&g);
}

/* A software leader, or an inheriting group, never maps: ioctl brackets, and the reason
 * kept for selfMonitoring. */
static void test_no_rdpmc_falls_back_to_ioctls(void **state)
{
    (void)state;
    struct bench__perf_group g;
    char reason[240];
    static const struct bench__perf_event sw_leader[] = {
        {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
        {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    };
    assert_int_equal(bench__perf_group_open(&g, sw_leader, 2, 0, reason, sizeof reason), 0);
    assert_false(bench__perf_group_self_monitoring(&g, reason, sizeof reason));
    assert_string_equal(reason, "no hardware counter to map (a software leader)");
    assert_int_equal(maps.n_mmaps, 0);
    bench__perf_group_pass_begin(&g);
    bench__perf_group_enable(&g);
    bench__perf_group_disable(&g);
    assert_int_equal(k.ioctls[1], 1);
    assert_int_equal(k.ioctls[2], 1);
    bench__perf_group_close(&g);

    memset(&k, 0, sizeof k);
    struct bench__perf_group_options inherit = {.inherit = true};
    assert_int_equal(bench__perf_group_open_with(&g, group3, 2, 0, &inherit, reason, sizeof reason),
                     0);
    assert_true(k.inherit_seen);
    assert_false(bench__perf_group_self_monitoring(&g, reason, sizeof reason));
    assert_string_equal(reason, "an inheriting group is read with read(2) (rdpmc sees one thread)");
    assert_int_equal(maps.n_mmaps, 0);
    bench__perf_group_close(&g);
}

/* The leader's page says cap_user_rdpmc 0: the reason names the VM / sysfs switch. */
static int vm_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                   unsigned long flags)
{
    int fd = kernel_open(attr, pid, cpu, group_fd, flags);
    maps.pages[fd - FD0]->cap_user_rdpmc = 0;
    return fd;
}

static void test_vm_page_reason(void **state)
{
    (void)state;
    bench__os.perf_event_open = vm_open;
    struct bench__perf_group g;
    char reason[240];
    assert_int_equal(bench__perf_group_open(&g, group3, 2, 0, reason, sizeof reason), 0);
    assert_false(bench__perf_group_self_monitoring(&g, reason, sizeof reason));
    assert_string_equal(reason, "cap_user_rdpmc is 0 (a virtual machine, or "
                                "/sys/bus/event_source/devices/cpu/rdpmc is 0)");
    assert_int_equal(maps.n_mmaps, 1);
    assert_int_equal(maps.n_munmaps, 1);
    bench__perf_group_close(&g);
    assert_int_equal(maps.n_munmaps, 1);
}

/* The perf source reports selfMonitoring present when its group reads with rdpmc. */
static void test_perf_source_self_monitoring(void **state)
{
    (void)state;
    for (size_t i = 4; i < 8; i++)
        maps.pages[i] = new_page();
    struct bench__source_request req = {.flag = true};
    struct bench__caps caps;
    memset(&caps, 0, sizeof caps);
    char status[256];
    void *st = bench__source_perf.open(&req, &caps, status, sizeof status);
    assert_non_null(st);
    assert_true(caps.present & (1u << BENCH__CAP_SELF_MONITORING));
    assert_null(bench__caps_reason(&caps, BENCH__CAP_SELF_MONITORING));
    bench__source_perf.close(st);
    for (size_t i = 4; i < 8; i++) {
        free(maps.pages[i]);
        maps.pages[i] = NULL;
    }
}

int main(void)
{
#define P(f) cmocka_unit_test_setup_teardown(f, setup_page, teardown_page)
#define K(f) cmocka_unit_test_setup_teardown(f, setup_kernel, teardown_kernel)
    const struct CMUnitTest tests[] = {
        P(test_index_zero_not_readable),
        P(test_cap_zero_not_readable),
        P(test_index_offset_sign_extension),
        P(test_lock_change_retries),
        P(test_lock_never_settles),
        P(test_map),
        K(test_pass_brackets_with_rdpmc),
        K(test_index_zero_edge_falls_back),
        K(test_no_rdpmc_falls_back_to_ioctls),
        K(test_vm_page_reason),
        K(test_perf_source_self_monitoring),
    };
#undef P
#undef K
    return cmocka_run_group_tests(tests, NULL, NULL);
}
