/* SPDX-License-Identifier: MIT */
/* rdpmc.c: owns the self-monitoring read (the mmap'ed counter page, its seqlock, the rdpmc
 * instruction). Must not open or close counters, nor call mmap except through bench__os. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../util/text.h"
#include "../platform/os.h"
#include "rdpmc.h"

#define MAX_RETRIES 1000 /* a lock that never settles: give up, read(2) instead */
#define PERF_USER_ACCESS "/proc/sys/kernel/perf_user_access"

#if defined(__x86_64__)
static uint64_t x86_rdpmc(uint32_t counter)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return (uint64_t)hi << 32 | lo;
}
uint64_t (*bench__rdpmc_insn)(uint32_t counter) = x86_rdpmc;
#else
uint64_t (*bench__rdpmc_insn)(uint32_t counter) = NULL;
#endif

void bench__rdpmc_absence(char *reason, size_t reason_size)
{
#if defined(__aarch64__)
    /* arm64 reads its counters with mrs from PMEVCNTR<n>_EL0 when the kernel allows it
     * (perf_user_access, Linux 5.17+); libbench has no such read: say so, and what the
     * kernel setting is here (docs/reference/platforms.md) */
    char setting[32];
    ssize_t n = bench__os_read_file(PERF_USER_ACCESS, setting, sizeof setting);
    if (n > 0) {
        setting[strcspn(setting, "\n")] = '\0';
        bench__fmt(reason, reason_size,
                   "user-space counter reads are implemented for x86-64 only (rdpmc); on "
                   "aarch64 they would also need " PERF_USER_ACCESS " = 1 (here: %s)",
                   setting);
    } else
        bench__fmt(reason, reason_size,
                   "user-space counter reads are implemented for x86-64 only (rdpmc); on "
                   "aarch64 they would also need " PERF_USER_ACCESS " = 1 (not readable "
                   "here: %s)",
                   strerror((int)-n));
#else
    bench__fmt(reason, reason_size, "rdpmc is implemented for x86-64 only");
#endif
}

/* The low `width` bits of v as a signed number (width 0 or ≥ 64: v unchanged). */
static uint64_t sign_extend(uint64_t v, unsigned width)
{
    if (width == 0 || width >= 64)
        return v;
    uint64_t sign = 1ull << (width - 1);
    v &= (sign << 1) - 1;
    return (v ^ sign) - sign;
}

bool bench__rdpmc_read(const struct perf_event_mmap_page *page, uint64_t *count)
{
    const volatile struct perf_event_mmap_page *pc = page;
    if (!bench__rdpmc_insn)
        return false;
    for (int attempt = 0; attempt < MAX_RETRIES; attempt++) {
        uint32_t seq = pc->lock;
        atomic_thread_fence(memory_order_acquire);
        uint32_t index = pc->index;
        uint64_t value = (uint64_t)pc->offset;
        bool usable = pc->cap_user_rdpmc && index != 0;
        if (usable)
            value += sign_extend(bench__rdpmc_insn(index - 1), pc->pmc_width);
        atomic_thread_fence(memory_order_acquire);
        if (pc->lock != seq)
            continue; /* the kernel updated the page mid-read */
        if (!usable)
            return false; /* not on a counter right now */
        *count = value;
        return true;
    }
    return false;
}

static size_t page_size(void)
{
    long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? (size_t)size : 4096;
}

struct perf_event_mmap_page *bench__rdpmc_map(int fd, char *reason, size_t reason_size)
{
    if (!bench__rdpmc_insn) {
        bench__rdpmc_absence(reason, reason_size);
        return NULL;
    }
    void *addr = bench__os.mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);
    if (addr == MAP_FAILED) {
        int err = errno;
        bench__fmt(reason, reason_size, "mmap of the counter page failed: %s", strerror(err));
        return NULL;
    }
    struct perf_event_mmap_page *page = addr;
    if (!((const volatile struct perf_event_mmap_page *)page)->cap_user_rdpmc) {
        bench__fmt(reason, reason_size,
                   "cap_user_rdpmc is 0 (a virtual machine, or "
                   "/sys/bus/event_source/devices/cpu/rdpmc is 0)");
        bench__os.munmap(addr, page_size());
        return NULL;
    }
    return page;
}

void bench__rdpmc_unmap(struct perf_event_mmap_page *page)
{
    if (page)
        bench__os.munmap(page, page_size());
}
