/* SPDX-License-Identifier: MIT */
/* ip_sampling.c: owns the sampling perf_event of --profile (event choice, its ring buffer, the
 * decoding of its records, the kept raw stacks) and the ipSampling capability. Every OS call goes
 * through bench__os; it never symbolises (symbolize.c), unwinds (unwind.c) or aggregates
 * (model/profile.c). It is long because the ring's reads during a pass are one concern with the
 * records they decode: which samples are libbench's own, and the user stacks set aside meanwhile
 * for the unwinding once the event is off. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../platform/os.h"
#include "../util/alloc.h"
#include "../util/text.h"
#include "ip_sampling.h"
#include "perf_group.h"

#define RING_PAGES 64 /* data pages of the ring buffer (a power of two): 256 KiB */
/* with a copy of the user stack in each sample (16 KiB): up to 4 MiB, about 250 samples between
 * drains, halved while the locked-memory allowance refuses it (perf_event_mlock_kb, then
 * RLIMIT_MEMLOCK); what a full ring drops is counted as lost */
#define RING_PAGES_STACKS 1024
/* the stacks set aside during a pass, at most: past it the drain unwinds them with the event
 * briefly off (its edges are the harness's samples), so a high rate does not hold them all */
#define PENDING_MAX_BYTES (64u << 20)
#define MAX_STACK 127     /* addresses kept per sample */
#define RECORD_MAX 65536u /* a record's size is 16 bits */

/* A sample set aside for the unwinding: its index, registers and stack (in stack_words). */
struct pending {
    size_t sample;
    uint64_t regs[BENCH__UNWIND_NREGS];
    size_t offset, size; /* in stack_words (words), of the stack (bytes) */
};

struct bench__ip_sampling {
    int fd;
    void *map;
    size_t map_size, page;
    const char *event;
    bool chains;
    bool stacks; /* samples carry the user registers and a copy of the user stack */
    size_t ring_pages;
    uint64_t *rec; /* one record's body */
    /* the DWARF unwinding of those stacks; NULL: the kernel's frame-pointer chains are kept,
     * and unwind_reason says why */
    bench__ip_unwind_fn unwind;
    void *unwind_arg;
    struct bench__unwinder *unwinder;
    bool unwind_prepared;
    char unwind_reason[BENCH__REASON_MAX];
    uint64_t fp_samples; /* of the pass: samples whose unwinding failed, kept on frame pointers */
    char fp_reason[BENCH__REASON_MAX]; /* the first one's reason */
    /* samples decoded and not yet unwound: their registers, and their stacks in stack_words */
    struct pending *pending;
    size_t n_pending, cap_pending;
    uint64_t *stack_words;
    size_t n_stack_words, cap_stack_words;
    /* kept samples: addresses of sample i are ips[start[i] .. start[i] + len[i]) */
    uint64_t *ips;
    size_t n_ips, cap_ips;
    size_t *start, *len;
    size_t n, cap, cap_len;
    unsigned char *fp; /* fp[i]: sample i fell back on its frame-pointer chain */
    size_t cap_fp;
    /* samples [own_from[k], own_to[k]) were taken while this file read the ring or enabled the
     * event: libbench's own work, whatever code they landed in (its memcpy and realloc too) */
    size_t *own_from, *own_to;
    size_t n_own, cap_own, cap_own_to;
    uint64_t lost;
    bool throttled;
    double running_at_begin;
    double running_at_end;
};

/* `regs_mask`: the user registers to record with a copy of the user stack (0: neither). */
static int open_event(uint32_t type, uint64_t config, unsigned hz, bool chains, uint64_t regs_mask)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    if (type == PERF_TYPE_SOFTWARE) { /* cpu-clock counts ns: a fixed period is the rate */
        attr.sample_period = 1000000000ull / hz;
    } else {
        attr.freq = 1;
        attr.sample_freq = hz;
    }
    attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | (chains ? PERF_SAMPLE_CALLCHAIN : 0);
    if (regs_mask) {
        attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        attr.sample_regs_user = regs_mask;
        attr.sample_stack_user = BENCH__UNWIND_STACK_BYTES;
    }
    attr.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.exclude_callchain_kernel = 1;
    attr.wakeup_events = 0;
    return bench__os.perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Open the first event that works, with call chains when the kernel takes them, and with the
 * user registers and stack when it takes those too (else `no_stacks` says why). */
static int open_any(unsigned hz, const char **event, bool *chains, bool *stacks, char *no_stacks,
                    char *reason, size_t size)
{
    static const struct {
        const char *name;
        uint32_t type;
        uint64_t config;
    } events[] = {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
                  {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK}};
    uint64_t mask = 0;
    const char *asked = getenv(BENCH__PROFILE_UNWIND_ENV);
    bool can_unwind = bench__unwind_regs_mask(&mask, no_stacks, BENCH__REASON_MAX);
    if (can_unwind && asked && !strcmp(asked, "frame-pointer")) {
        bench__fmt(no_stacks, BENCH__REASON_MAX, "%s=frame-pointer", BENCH__PROFILE_UNWIND_ENV);
        can_unwind = false;
    }
    if (can_unwind && hz > BENCH__PROFILE_HZ_STACKS_MAX) { /* reading would outlast the period */
        bench__fmt(no_stacks, BENCH__REASON_MAX,
                   "%u Hz: a %u KiB stack copy per sample is taken up to %u Hz", hz,
                   BENCH__UNWIND_STACK_BYTES / 1024, BENCH__PROFILE_HZ_STACKS_MAX);
        can_unwind = false;
    }
    int last_err = 0;
    for (size_t i = 0; i < 2; i++) {
        int stack_err = 0;
        /* 0: chains and stacks, 1: chains, 2: neither */
        for (int mode = can_unwind ? 0 : 1; mode < 3; mode++) {
            int fd = open_event(events[i].type, events[i].config, hz, mode < 2, mode ? 0 : mask);
            if (fd >= 0) {
                *event = events[i].name;
                *chains = mode < 2;
                *stacks = mode == 0;
                if (mode > 0 && stack_err)
                    bench__fmt(no_stacks, BENCH__REASON_MAX,
                               "the kernel refused the user stack in samples "
                               "(PERF_SAMPLE_STACK_USER): %s",
                               bench__perf_errno_name(stack_err) ? bench__perf_errno_name(stack_err)
                                                                 : strerror(stack_err));
                return fd;
            }
            last_err = errno;
            if (mode == 0) {
                stack_err = errno;
                continue; /* try without the stacks */
            }
            if (errno != EINVAL)
                break; /* call chains are not what failed */
        }
    }
    char why[BENCH__REASON_MAX];
    bench__perf_explain_failure("cpu-clock sampling", last_err, why, sizeof why);
    bench__fmt(reason, size, "%s", why);
    return -1;
}

struct bench__ip_sampling *bench__ip_sampling_store(bool chains)
{
    struct bench__ip_sampling *s = bench__xcalloc(1, sizeof *s);
    s->fd = -1;
    s->map = MAP_FAILED;
    s->chains = chains;
    s->event = "";
    s->rec = bench__xcalloc(RECORD_MAX / sizeof *s->rec, sizeof *s->rec);
    s->running_at_begin = s->running_at_end = NAN;
    s->unwind_prepared = true; /* no unwinder unless the caller gives one */
    return s;
}

struct bench__ip_sampling *bench__ip_sampling_store_stacks(bench__ip_unwind_fn unwind, void *arg,
                                                           const char *reason)
{
    struct bench__ip_sampling *s = bench__ip_sampling_store(true);
    s->stacks = true;
    s->unwind = unwind;
    s->unwind_arg = arg;
    bench__fmt(s->unwind_reason, sizeof s->unwind_reason, "%s", reason ? reason : "");
    return s;
}

static size_t libdw_unwind(void *arg, const struct bench__user_stack *st, const uint64_t *fp,
                           size_t n_fp, uint64_t *out, size_t max, char *reason, size_t reason_size)
{
    return bench__unwind(arg, st, fp, n_fp, out, max, reason, reason_size);
}

/* The libdw session, once: samples unwound by DWARF, or the reason frame pointers are kept. */
static void prepare_unwinding(struct bench__ip_sampling *s)
{
    if (s->unwind_prepared)
        return;
    s->unwind_prepared = true;
    if (!s->chains || !s->stacks)
        return;
    s->unwinder = bench__unwinder_new(s->unwind_reason, sizeof s->unwind_reason);
    if (s->unwinder) {
        s->unwind = libdw_unwind;
        s->unwind_arg = s->unwinder;
    }
}

struct bench__ip_sampling *bench__ip_sampling_open(unsigned hz, char *reason, size_t reason_size)
{
    const char *event = NULL;
    bool chains = false, stacks = false;
    char no_stacks[BENCH__REASON_MAX] = "";
    if (hz == 0)
        hz = BENCH__PROFILE_HZ_DEFAULT;
    int fd = open_any(hz, &event, &chains, &stacks, no_stacks, reason, reason_size);
    if (fd < 0)
        return NULL;
    struct bench__ip_sampling *s = bench__ip_sampling_store(chains);
    s->fd = fd;
    s->event = event;
    s->stacks = stacks;
    s->unwind_prepared = false;
    bench__fmt(s->unwind_reason, sizeof s->unwind_reason, "%s", no_stacks);
    s->page = (size_t)sysconf(_SC_PAGESIZE);
    for (s->ring_pages = stacks ? RING_PAGES_STACKS : RING_PAGES;; s->ring_pages /= 2) {
        s->map_size = (1 + s->ring_pages) * s->page;
        s->map = bench__os.mmap(NULL, s->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (s->map != MAP_FAILED || s->ring_pages <= RING_PAGES)
            break;
    }
    if (s->map == MAP_FAILED) {
        int err = errno;
        bench__fmt(reason, reason_size, "mmap of the %s ring buffer failed: %s (%s)", event,
                   bench__perf_errno_name(err) ? bench__perf_errno_name(err) : "error",
                   strerror(err));
        bench__ip_sampling_close(s);
        return NULL;
    }
    return s;
}

void bench__ip_sampling_close(struct bench__ip_sampling *s)
{
    if (!s)
        return;
    if (s->map != MAP_FAILED)
        bench__os.munmap(s->map, s->map_size);
    if (s->fd >= 0)
        bench__os.close(s->fd);
    bench__unwinder_free(s->unwinder);
    free(s->pending);
    free(s->stack_words);
    free(s->rec);
    free(s->ips);
    free(s->start);
    free(s->len);
    free(s->fp);
    free(s->own_from);
    free(s->own_to);
    free(s);
}

const char *bench__ip_sampling_event(const struct bench__ip_sampling *s)
{
    return s->event;
}

bool bench__ip_sampling_chains(const struct bench__ip_sampling *s)
{
    return s->chains;
}

const char *bench__ip_sampling_unwinder(struct bench__ip_sampling *s, const char **reason)
{
    prepare_unwinding(s);
    *reason = s->chains && !s->unwind ? s->unwind_reason : NULL;
    return !s->chains ? NULL : s->unwind ? "dwarf" : "frame-pointer";
}

uint64_t bench__ip_sampling_fp_samples(const struct bench__ip_sampling *s, const char **reason)
{
    *reason = s->fp_samples ? s->fp_reason : NULL;
    return s->fp_samples;
}

/* The event's running time (ns), NaN when the read fails. */
static double running_ns(const struct bench__ip_sampling *s)
{
    uint64_t v[2];
    if (s->fd < 0 || bench__os.read(s->fd, v, sizeof v) != (ssize_t)sizeof v)
        return NAN;
    return (double)v[1];
}

void bench__ip_sampling_begin(struct bench__ip_sampling *s)
{
    s->n = 0;
    s->n_own = 0;
    s->n_ips = 0;
    s->lost = 0;
    s->throttled = false;
    s->fp_samples = 0;
    s->fp_reason[0] = '\0';
    s->n_pending = 0;
    s->n_stack_words = 0;
    prepare_unwinding(s);
    s->running_at_begin = running_ns(s);
    s->running_at_end = s->running_at_begin;
}

static void read_own(struct bench__ip_sampling *s);

void bench__ip_sampling_enable(struct bench__ip_sampling *s)
{
    if (s->fd < 0)
        return;
    bench__os.ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
    read_own(s); /* a sample already there was taken on the way back from the ioctl */
}

/* ---- records ------------------------------------------------------------------------------ */

/* Copy `n` bytes at ring offset `at` (the ring wraps). */
static void ring_copy(void *out, const unsigned char *data, size_t size, uint64_t at, size_t n)
{
    size_t off = (size_t)(at & (size - 1));
    size_t first = n < size - off ? n : size - off;
    memcpy(out, data + off, first);
    if (first < n)
        memcpy((unsigned char *)out + first, data, n - first);
}

static void keep_sample(struct bench__ip_sampling *s, const uint64_t *ips, size_t n)
{
    s->ips = bench__grow(s->ips, &s->cap_ips, s->n_ips + n + 1, sizeof *s->ips);
    size_t cap = s->cap;
    s->start = bench__grow(s->start, &cap, s->n + 1, sizeof *s->start);
    s->len = bench__grow(s->len, &s->cap_len, s->n + 1, sizeof *s->len);
    s->fp = bench__grow(s->fp, &s->cap_fp, s->n + 1, sizeof *s->fp);
    s->cap = cap;
    s->fp[s->n] = 0;
    s->start[s->n] = s->n_ips;
    s->len[s->n] = n;
    memcpy(s->ips + s->n_ips, ips, n * sizeof *ips);
    s->n_ips += n;
    s->n++;
}

/* Sample i kept on its frame-pointer chain: counted, and the first reason. */
static void fell_back(struct bench__ip_sampling *s, size_t i, const char *why)
{
    s->fp[i] = 1;
    if (!s->fp_samples++)
        bench__fmt(s->fp_reason, sizeof s->fp_reason, "%s", why);
}

/* The user registers and stack that follow the chain (`w`, `words` long) of the sample just
 * kept: set aside for bench__ip_sampling_unwind (a copy, no unwinding here: the decoder may
 * run while the event is enabled). */
static void set_aside(struct bench__ip_sampling *s, const uint64_t *w, size_t words)
{
    if (!s->unwind)
        return; /* frame pointers for the whole pass, and unwind_reason says why */
    size_t i = s->n - 1;
    if (words < 1 || w[0] == PERF_SAMPLE_REGS_ABI_NONE) {
        fell_back(s, i, "the sample has no user registers");
        return;
    }
    if (words < 2 + BENCH__UNWIND_NREGS) {
        fell_back(s, i, "the sample's user registers are cut short");
        return;
    }
    size_t at = 1 + BENCH__UNWIND_NREGS;
    uint64_t size = w[at++];
    if (size % 8 || size > (words - at) * 8) {
        fell_back(s, i, "the sample's user stack is cut short");
        return;
    }
    const uint64_t *bytes = w + at;
    at += size / 8;
    if (size && at < words && w[at] < size)
        size = w[at]; /* dyn_size: the part of the copy that was really stack */
    size_t words_kept = (size_t)(size + 7) / 8;
    s->pending = bench__grow(s->pending, &s->cap_pending, s->n_pending + 1, sizeof *s->pending);
    s->stack_words = bench__grow(s->stack_words, &s->cap_stack_words,
                                 s->n_stack_words + words_kept + 1, sizeof *s->stack_words);
    struct pending *p = &s->pending[s->n_pending++];
    p->sample = i;
    memcpy(p->regs, w + 1, sizeof p->regs);
    p->offset = s->n_stack_words;
    p->size = (size_t)size;
    memcpy(s->stack_words + s->n_stack_words, bytes, words_kept * sizeof *bytes);
    s->n_stack_words += words_kept;
}

void bench__ip_sampling_unwind(struct bench__ip_sampling *s)
{
    for (size_t k = 0; k < s->n_pending; k++) {
        const struct pending *p = &s->pending[k];
        struct bench__user_stack st;
        memcpy(st.regs, p->regs, sizeof st.regs);
        st.bytes = (const unsigned char *)(s->stack_words + p->offset);
        st.size = p->size;
        uint64_t fp[MAX_STACK + 1], out[MAX_STACK + 1];
        size_t n_fp = s->len[p->sample];
        memcpy(fp, s->ips + s->start[p->sample], n_fp * sizeof *fp);
        char why[BENCH__REASON_MAX];
        size_t m = s->unwind(s->unwind_arg, &st, fp, n_fp, out, MAX_STACK, why, sizeof why);
        if (m == 0) {
            fell_back(s, p->sample, why);
            continue;
        }
        /* the unwound chain goes at the end; the sample points there (its frame-pointer chain
         * stays unused in the array) */
        s->ips = bench__grow(s->ips, &s->cap_ips, s->n_ips + m + 1, sizeof *s->ips);
        memcpy(s->ips + s->n_ips, out, m * sizeof *out);
        s->start[p->sample] = s->n_ips;
        s->len[p->sample] = m;
        s->n_ips += m;
    }
    s->n_pending = 0;
    s->n_stack_words = 0;
}

/* One sample record's body (`words` words): ip, pid/tid, then the chain and the user state. */
static void decode_sample(struct bench__ip_sampling *s, const uint64_t *rec, size_t words)
{
    uint64_t ips[MAX_STACK + 1];
    size_t n = 0, at = 2;
    ips[n++] = rec[0]; /* PERF_SAMPLE_IP */
    if (s->chains && words >= 3) {
        uint64_t nr = rec[2];
        if (nr > words - 3)
            nr = words - 3;
        at = 3 + (size_t)nr;
        for (uint64_t k = 0; k < nr && n < MAX_STACK; k++) {
            uint64_t ip = rec[3 + k];
            if (ip >= (uint64_t)PERF_CONTEXT_MAX)
                continue; /* a context marker (PERF_CONTEXT_USER), not an address */
            if (n == 1 && ip == ips[0])
                continue; /* the chain repeats the sampled address first */
            ips[n++] = ip;
        }
    }
    keep_sample(s, ips, n);
    if (s->stacks)
        set_aside(s, rec + at, words - at);
}

void bench__ip_sampling_decode(struct bench__ip_sampling *s, const unsigned char *data, size_t size,
                               uint64_t tail, uint64_t head)
{
    while (head - tail >= sizeof(struct perf_event_header)) {
        struct perf_event_header h;
        ring_copy(&h, data, size, tail, sizeof h);
        if (h.size < sizeof h || h.size > head - tail)
            break; /* torn: nothing after it can be trusted */
        size_t body = h.size - sizeof h;
        if (h.type == PERF_RECORD_SAMPLE && body >= 16 && body <= RECORD_MAX) {
            ring_copy(s->rec, data, size, tail + sizeof h, body);
            decode_sample(s, s->rec, body / 8);
        } else if (h.type == PERF_RECORD_LOST && body >= 16) {
            uint64_t v[2];
            ring_copy(v, data, size, tail + sizeof h, sizeof v);
            s->lost += v[1];
        } else if (h.type == PERF_RECORD_THROTTLE) {
            s->throttled = true;
        }
        tail += h.size;
    }
}

/* Decode what the ring holds; true when it held anything. */
static bool read_ring(struct bench__ip_sampling *s)
{
    struct perf_event_mmap_page *pg = s->map;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail;
    if (head == tail)
        return false;
    bench__ip_sampling_decode(s, (const unsigned char *)s->map + s->page, s->ring_pages * s->page,
                              tail, head);
    __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
    return true;
}

/* Samples [from, s->n) are libbench's own: marked, and their stacks dropped (they are counted as
 * the harness's, never unwound). */
static void mark_own(struct bench__ip_sampling *s, size_t from)
{
    if (from == s->n)
        return;
    s->own_from = bench__grow(s->own_from, &s->cap_own, s->n_own + 1, sizeof *s->own_from);
    s->own_to = bench__grow(s->own_to, &s->cap_own_to, s->n_own + 1, sizeof *s->own_to);
    s->own_from[s->n_own] = from;
    s->own_to[s->n_own++] = s->n;
    while (s->n_pending && s->pending[s->n_pending - 1].sample >= from)
        s->n_stack_words = s->pending[--s->n_pending].offset;
}

/* Decode the samples taken since the last read, marked as libbench's own (taken while it read the
 * ring), until a read finds none. A read slower than the rate (16 KiB stacks, a sanitizer's
 * allocator) may never find none: after every OWN_READS reads the event is off while the ring is
 * emptied, and the reads go on from there; after OWN_PAUSES such pauses, what is left is read
 * with the next drain (as the body's). */
#define OWN_READS 4
#define OWN_PAUSES 4
static void read_own(struct bench__ip_sampling *s)
{
    for (int k = 1;; k++) {
        size_t from = s->n;
        if (!read_ring(s))
            return;
        mark_own(s, from);
        if (k % OWN_READS)
            continue;
        if (k / OWN_READS > OWN_PAUSES)
            return;
        bench__os.ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
        from = s->n;
        read_ring(s);
        bench__os.ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
        mark_own(s, from);
    }
}

void bench__ip_sampling_drain(struct bench__ip_sampling *s)
{
    if (s->fd < 0 || !read_ring(s))
        return;
    read_own(s);
    if (s->n_stack_words * sizeof *s->stack_words < PENDING_MAX_BYTES)
        return;
    /* the stacks set aside are unwound now, never while sampled: the event off meanwhile, and
     * the samples of its edges the harness's */
    bench__os.ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
    read_own(s);
    bench__ip_sampling_unwind(s);
    bench__os.ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
    read_own(s);
}

void bench__ip_sampling_disable(struct bench__ip_sampling *s)
{
    if (s->fd < 0)
        return;
    bench__ip_sampling_drain(s); /* the samples so far */
    bench__os.ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
    read_own(s); /* a sample since was taken on the way into the ioctl */
    s->running_at_end = running_ns(s);
    bench__ip_sampling_unwind(s); /* the event is disabled: this work is not sampled */
}

size_t bench__ip_sampling_count(const struct bench__ip_sampling *s)
{
    return s->n;
}

const uint64_t *bench__ip_sampling_stack(const struct bench__ip_sampling *s, size_t i, size_t *n)
{
    *n = s->len[i];
    return s->ips + s->start[i];
}

uint64_t bench__ip_sampling_lost(const struct bench__ip_sampling *s)
{
    return s->lost;
}

bool bench__ip_sampling_throttled(const struct bench__ip_sampling *s)
{
    return s->throttled;
}

bool bench__ip_sampling_fell_back(const struct bench__ip_sampling *s, size_t i)
{
    return s->fp[i] != 0;
}

bool bench__ip_sampling_own(const struct bench__ip_sampling *s, size_t i)
{
    size_t lo = 0, hi = s->n_own; /* the ranges ascend: the first that ends after i */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->own_to[mid] <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_own && s->own_from[lo] <= i;
}

double bench__ip_sampling_running_ns(const struct bench__ip_sampling *s)
{
    return s->running_at_end - s->running_at_begin;
}

struct own_search {
    uintptr_t self, body;
    uint64_t lo, hi;
    bool found, body_inside;
};

static int own_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct own_search *o = data;
    bool has_self = false, has_body = false;
    uint64_t lo = 0, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
        has_body |= o->body >= a && o->body < b;
        if ((ph->p_flags & PF_X) && o->self >= a && o->self < b) {
            has_self = true;
            lo = a;
            hi = b;
        }
    }
    if (!has_self)
        return 0;
    o->found = true;
    o->body_inside = has_body;
    o->lo = lo;
    o->hi = hi;
    return 1;
}

bool bench__ip_sampling_own_code(void (*body)(void), uint64_t *lo, uint64_t *hi, char *reason,
                                 size_t reason_size)
{
    struct own_search o = {.self = (uintptr_t)&bench__ip_sampling_own_code,
                           .body = (uintptr_t)body};
    dl_iterate_phdr(own_segment, &o);
    if (!o.found) {
        bench__fmt(reason, reason_size, "libbench's own code was not found among the mappings");
        return false;
    }
    if (o.body_inside) {
        bench__fmt(reason, reason_size,
                   "libbench is linked into the benchmark's own file: its code cannot be told "
                   "from the body's");
        return false;
    }
    *lo = o.lo;
    *hi = o.hi;
    return true;
}

void bench__ip_sampling_caps(struct bench__caps *caps, unsigned hz)
{
    char reason[BENCH__REASON_MAX];
    struct bench__ip_sampling *s = bench__ip_sampling_open(hz, reason, sizeof reason);
    if (s)
        bench__caps_present(caps, BENCH__CAP_IP_SAMPLING);
    else
        bench__caps_absent(caps, BENCH__CAP_IP_SAMPLING, "%s", reason);
    bench__ip_sampling_close(s);
}
