/* SPDX-License-Identifier: MIT */
/* ip_sampling.c: owns the sampling perf_event of --profile (event choice, its ring buffer, the
 * decoding of its records, the kept raw stacks) and the ipSampling capability. Every OS call goes
 * through bench__os; it never symbolises (symbolize.c) or aggregates (model/profile.c). */
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
#define MAX_STACK 127 /* addresses kept per sample */

struct bench__ip_sampling {
    int fd;
    void *map;
    size_t map_size, page;
    const char *event;
    bool chains;
    /* kept samples: addresses of sample i are ips[start[i] .. start[i] + len[i]) */
    uint64_t *ips;
    size_t n_ips, cap_ips;
    size_t *start, *len;
    size_t n, cap, cap_len;
    /* samples [own_from[k], own_to[k]) were taken while this file read the ring or enabled the
     * event: libbench's own work, whatever code they landed in (its memcpy and realloc too) */
    size_t *own_from, *own_to;
    size_t n_own, cap_own, cap_own_to;
    uint64_t lost;
    bool throttled;
    double running_at_begin;
    double running_at_end;
};

static int open_event(uint32_t type, uint64_t config, unsigned hz, bool chains)
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
    attr.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.exclude_callchain_kernel = 1;
    attr.wakeup_events = 0;
    return bench__os.perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Open the first event that works, with call chains when the kernel takes them. */
static int open_any(unsigned hz, const char **event, bool *chains, char *reason, size_t size)
{
    static const struct {
        const char *name;
        uint32_t type;
        uint64_t config;
    } events[] = {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
                  {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK}};
    int last_err = 0;
    for (size_t i = 0; i < 2; i++) {
        for (int with_chains = 1; with_chains >= 0; with_chains--) {
            int fd = open_event(events[i].type, events[i].config, hz, with_chains);
            if (fd >= 0) {
                *event = events[i].name;
                *chains = with_chains;
                return fd;
            }
            last_err = errno;
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
    s->running_at_begin = s->running_at_end = NAN;
    return s;
}

struct bench__ip_sampling *bench__ip_sampling_open(unsigned hz, char *reason, size_t reason_size)
{
    const char *event = NULL;
    bool chains = false;
    if (hz == 0)
        hz = BENCH__PROFILE_HZ_DEFAULT;
    int fd = open_any(hz, &event, &chains, reason, reason_size);
    if (fd < 0)
        return NULL;
    struct bench__ip_sampling *s = bench__ip_sampling_store(chains);
    s->fd = fd;
    s->event = event;
    s->page = (size_t)sysconf(_SC_PAGESIZE);
    s->map_size = (1 + RING_PAGES) * s->page;
    s->map = bench__os.mmap(NULL, s->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
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
    free(s->ips);
    free(s->start);
    free(s->len);
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
    s->cap = cap;
    s->start[s->n] = s->n_ips;
    s->len[s->n] = n;
    memcpy(s->ips + s->n_ips, ips, n * sizeof *ips);
    s->n_ips += n;
    s->n++;
}

void bench__ip_sampling_decode(struct bench__ip_sampling *s, const unsigned char *data, size_t size,
                               uint64_t tail, uint64_t head)
{
    uint64_t rec[3 + MAX_STACK + 8];
    while (head - tail >= sizeof(struct perf_event_header)) {
        struct perf_event_header h;
        ring_copy(&h, data, size, tail, sizeof h);
        if (h.size < sizeof h || h.size > head - tail)
            break; /* torn: nothing after it can be trusted */
        size_t body = h.size - sizeof h;
        if (h.type == PERF_RECORD_SAMPLE && body >= 16 && body <= sizeof rec) {
            ring_copy(rec, data, size, tail + sizeof h, body);
            uint64_t ips[MAX_STACK + 1];
            size_t n = 0;
            ips[n++] = rec[0]; /* PERF_SAMPLE_IP */
            if (s->chains && body >= 24) {
                uint64_t nr = rec[2];
                if (nr > (body - 24) / 8)
                    nr = (body - 24) / 8;
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
    bench__ip_sampling_decode(s, (const unsigned char *)s->map + s->page, RING_PAGES * s->page,
                              tail, head);
    __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
    return true;
}

/* Decode the samples taken since the last read, marked as libbench's own (taken while it read the
 * ring), until a read finds none. */
static void read_own(struct bench__ip_sampling *s)
{
    for (;;) {
        size_t from = s->n;
        if (!read_ring(s))
            return;
        s->own_from = bench__grow(s->own_from, &s->cap_own, s->n_own + 1, sizeof *s->own_from);
        s->own_to = bench__grow(s->own_to, &s->cap_own_to, s->n_own + 1, sizeof *s->own_to);
        s->own_from[s->n_own] = from;
        s->own_to[s->n_own++] = s->n;
    }
}

void bench__ip_sampling_drain(struct bench__ip_sampling *s)
{
    if (s->fd >= 0 && read_ring(s))
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
