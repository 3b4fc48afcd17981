/* SPDX-License-Identifier: MIT */
/* test_profile.c: the pure parts of --profile (aggregation by function, self and inclusive,
 * the hot function's lines, unsymbolised samples kept in the total, folded stacks, shares and the
 * estimate mark, the ring-buffer decoder on torn and wrapped input, with and without user
 * registers and stacks, the split of a sample between the body and the harness) and its soft
 * dependencies through the fault-injection seam (libdw hidden, perf_event_open refused, the user
 * stack refused). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "platform/os.h"
#include "sources/ip_sampling.h"
#include "sources/symbolize.h"
#include "sources/unwind.h"

/* ---- aggregation ------------------------------------------------------------------------ */

static const struct bench__profile_frame hot = {"hot", "a.c", 12, "prog", NULL, NULL};
static const struct bench__profile_frame hot13 = {"hot", "a.c", 13, "prog", NULL, NULL};
static const struct bench__profile_frame cold = {"cold", "a.c", 30, "prog", NULL, NULL};
static const struct bench__profile_frame body = {"body", "a.c", 40, "prog", NULL, "inl"};
static const struct bench__profile_frame runner = {"runner", NULL, 0, "libbench.so", NULL, NULL};
static const struct bench__profile_frame stripped = {NULL, NULL, 0, "prog", "stripped", NULL};

/* n samples: `hot_n` in hot (every third on line 13), `cold_n` in cold, `unsym_n` stripped;
 * each called from body, called from runner */
static struct bench__profile *build(size_t hot_n, size_t cold_n, size_t unsym_n, bool chains)
{
    size_t n = hot_n + cold_n + unsym_n;
    struct bench__profile_sample *s = calloc(n + 1, sizeof *s);
    const struct bench__profile_frame **frames = calloc(3 * n + 1, sizeof *frames);
    for (size_t i = 0; i < n; i++) {
        const struct bench__profile_frame **f = frames + 3 * i;
        f[0] = i < hot_n ? (i % 3 == 2 ? &hot13 : &hot) : i < hot_n + cold_n ? &cold : &stripped;
        f[1] = &body;
        f[2] = &runner;
        s[i].frames = f;
        s[i].n = 3;
    }
    struct bench__profile *p = calloc(1, sizeof *p);
    p->chains = chains;
    bench__profile_aggregate(p, s, n);
    free(frames);
    free(s);
    return p;
}

static void test_self_and_inclusive(void **state)
{
    (void)state;
    struct bench__profile *p = build(240, 60, 0, true);
    assert_int_equal(p->samples, 300);
    assert_int_equal(p->n_self, 2);
    assert_string_equal(p->self[0].name, "hot");
    assert_string_equal(p->self[0].module, "prog");
    assert_int_equal(p->self[0].samples, 240);
    assert_string_equal(p->self[1].name, "cold");
    assert_int_equal(p->self[1].samples, 60);
    assert_true(fabs(bench__profile_share(p, p->self[0].samples) - 80.0) < 1e-9);
    assert_false(bench__profile_estimate(p));
    /* inclusive: body and runner hold every sample, ties by name */
    assert_int_equal(p->n_inclusive, 4);
    assert_string_equal(p->inclusive[0].name, "body");
    assert_int_equal(p->inclusive[0].samples, 300);
    assert_string_equal(p->inclusive[1].name, "runner");
    assert_string_equal(p->inclusive[2].name, "hot");
    /* the hot function's lines */
    assert_string_equal(p->hot, "hot");
    assert_int_equal(p->n_lines, 2);
    assert_string_equal(p->lines[0].name, "a.c:12");
    assert_int_equal(p->lines[0].samples, 160);
    assert_string_equal(p->lines[1].name, "a.c:13");
    assert_int_equal(p->lines[1].samples, 80);
    bench__profile_free(p);
}

static void test_unsymbolised_stay_in_total(void **state)
{
    (void)state;
    struct bench__profile *p = build(100, 50, 50, true);
    assert_int_equal(p->samples, 200);
    assert_int_equal(p->n_unsymbolised_samples, 50);
    assert_int_equal(p->n_unsymbolised, 1);
    assert_string_equal(p->unsymbolised[0].name, "stripped");
    assert_int_equal(p->unsymbolised[0].samples, 50);
    /* shares are of every sample: hot is 50%, not 66.7% */
    assert_true(fabs(bench__profile_share(p, p->self[0].samples) - 50.0) < 1e-9);
    uint64_t sum = p->n_unsymbolised_samples;
    for (size_t i = 0; i < p->n_self; i++)
        sum += p->self[i].samples;
    assert_int_equal(sum, p->samples);
    bench__profile_free(p);
}

static void test_estimate_mark(void **state)
{
    (void)state;
    struct bench__profile *p = build(BENCH__PROFILE_MIN_SAMPLES - 1, 0, 0, false);
    assert_true(bench__profile_estimate(p));
    assert_int_equal(p->n_inclusive, 0); /* no chains, no inclusive table */
    bench__profile_free(p);
    p = build(BENCH__PROFILE_MIN_SAMPLES, 0, 0, false);
    assert_false(bench__profile_estimate(p));
    bench__profile_free(p);
    struct bench__profile empty = {0};
    assert_true(isnan(bench__profile_share(&empty, 0)));
}

static void test_folded(void **state)
{
    (void)state;
    struct bench__profile *p = build(4, 2, 1, true);
    char *text = bench__profile_folded(p, "suite.bench;x");
    /* outermost first, the inlined chain after its function, the root's ';' replaced */
    assert_string_equal(text, "suite.bench_x;runner;body;inl;hot 4\n"
                              "suite.bench_x;runner;body;inl;cold 2\n"
                              "suite.bench_x;runner;body;inl;[prog] 1\n");
    free(text);
    struct bench__profile *c = bench__profile_copy(p);
    text = bench__profile_folded(c, NULL);
    assert_string_equal(text, "runner;body;inl;hot 4\nrunner;body;inl;cold 2\n"
                              "runner;body;inl;[prog] 1\n");
    free(text);
    bench__profile_free(c);
    bench__profile_free(p);
    p = build(3, 0, 0, false); /* no chains: the sampled function alone */
    text = bench__profile_folded(p, NULL);
    assert_string_equal(text, "hot 3\n");
    free(text);
    bench__profile_free(p);
}

/* ---- the ring-buffer decoder ----------------------------------------------------------- */

static size_t put_sample(unsigned char *ring, size_t size, size_t at, const uint64_t *chain,
                         size_t n)
{
    uint64_t rec[16];
    struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, (uint16_t)(8 + 24 + 8 * n)};
    rec[0] = chain[1]; /* ip */
    rec[1] = 42;       /* pid, tid */
    rec[2] = n;
    memcpy(rec + 3, chain, n * 8);
    unsigned char bytes[256];
    memcpy(bytes, &h, 8);
    memcpy(bytes + 8, rec, h.size - 8);
    for (size_t i = 0; i < h.size; i++)
        ring[(at + i) % size] = bytes[i];
    return at + h.size;
}

static void test_decode(void **state)
{
    (void)state;
    unsigned char ring[128];
    memset(ring, 0, sizeof ring);
    /* a chain as the kernel writes it: the user context marker, the ip again, callers */
    uint64_t chain[] = {(uint64_t)PERF_CONTEXT_USER, 0x1000, 0x2000, 0x3000};
    size_t start = 100; /* the record wraps round the end of the ring */
    size_t at = put_sample(ring, sizeof ring, start, chain, 4);
    struct perf_event_header lost = {PERF_RECORD_LOST, 0, 24};
    uint64_t lost_body[2] = {7, 5};
    unsigned char bytes[24];
    memcpy(bytes, &lost, 8);
    memcpy(bytes + 8, lost_body, 16);
    for (size_t i = 0; i < 24; i++)
        ring[(at + i) % sizeof ring] = bytes[i];
    at += 24;
    struct bench__ip_sampling *s = bench__ip_sampling_store(true);
    bench__ip_sampling_decode(s, ring, sizeof ring, start, at);
    assert_int_equal(bench__ip_sampling_count(s), 1);
    size_t n;
    const uint64_t *ips = bench__ip_sampling_stack(s, 0, &n);
    assert_int_equal(n, 3);
    assert_int_equal(ips[0], 0x1000);
    assert_int_equal(ips[1], 0x2000);
    assert_int_equal(ips[2], 0x3000);
    assert_int_equal(bench__ip_sampling_lost(s), 5);
    /* torn: a header claiming more than was written ends the read, nothing is invented */
    bench__ip_sampling_decode(s, ring, sizeof ring, start, start + 20);
    assert_int_equal(bench__ip_sampling_count(s), 1);
    bench__ip_sampling_close(s);
}

/* A sample with chains, user registers (abi, 17 registers: register k holds 0x100 + k, the
 * stack pointer 0x7000) and a copy of `stack_size` bytes of which `dyn_size` were stack. */
static size_t put_stack_sample(unsigned char *ring, size_t size, size_t at, uint64_t abi,
                               size_t stack_size, uint64_t dyn_size)
{
    uint64_t rec[64];
    size_t w = 0;
    uint64_t chain[] = {(uint64_t)PERF_CONTEXT_USER, 0x1000, 0x3000, 0x4000};
    rec[w++] = 0x1000; /* ip */
    rec[w++] = 42;     /* pid, tid */
    rec[w++] = 4;
    memcpy(rec + w, chain, sizeof chain);
    w += 4;
    rec[w++] = abi;
    if (abi != PERF_SAMPLE_REGS_ABI_NONE)
        for (unsigned k = 0; k < BENCH__UNWIND_NREGS; k++)
            rec[w++] = k == 7 ? 0x7000 : 0x100 + k;
    rec[w++] = stack_size;
    for (size_t k = 0; k < stack_size / 8; k++)
        rec[w++] = 0xa000 + k;
    if (stack_size)
        rec[w++] = dyn_size;
    struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, (uint16_t)(8 + 8 * w)};
    unsigned char bytes[8 + sizeof rec];
    memcpy(bytes, &h, 8);
    memcpy(bytes + 8, rec, 8 * w);
    for (size_t i = 0; i < h.size; i++)
        ring[(at + i) % size] = bytes[i];
    return at + h.size;
}

/* What the fake unwinder was handed, and what it answers. */
static struct {
    struct bench__user_stack st;
    uint64_t first_word;
    uint64_t fp[8];
    size_t n_fp, calls;
    bool fail;
} seen;

static size_t fake_unwind(void *arg, const struct bench__user_stack *st, const uint64_t *fp,
                          size_t n_fp, uint64_t *out, size_t max, char *reason, size_t reason_size)
{
    assert_ptr_equal(arg, &seen);
    seen.calls++;
    seen.st = *st;
    if (st->size >= 8)
        memcpy(&seen.first_word, st->bytes, 8);
    seen.n_fp = n_fp < 8 ? n_fp : 8;
    memcpy(seen.fp, fp, seen.n_fp * sizeof *fp);
    if (seen.fail) {
        snprintf(reason, reason_size, "no CFI here");
        return 0;
    }
    /* the leaf's caller, 0x2000, which the frame-pointer chain skipped */
    static const uint64_t unwound[] = {0x1000, 0x2000, 0x3000, 0x4000};
    assert_true(max >= 4);
    memcpy(out, unwound, sizeof unwound);
    return 4;
}

static void test_decode_stacks(void **state)
{
    (void)state;
    unsigned char ring[1024];
    memset(ring, 0, sizeof ring);
    memset(&seen, 0, sizeof seen);
    size_t start = 1000; /* the record wraps round the end of the ring */
    size_t at = put_stack_sample(ring, sizeof ring, start, PERF_SAMPLE_REGS_ABI_64, 64, 40);
    struct bench__ip_sampling *s = bench__ip_sampling_store_stacks(fake_unwind, &seen, NULL);
    bench__ip_sampling_decode(s, ring, sizeof ring, start, at);
    assert_int_equal(seen.calls, 0); /* set aside: nothing is unwound while decoding */
    bench__ip_sampling_unwind(s);
    /* the unwinder got the registers in perf's order, the stack from the stack pointer, cut to
     * dyn_size, and the frame-pointer chain without the context marker */
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.st.regs[0], 0x100);
    assert_int_equal(seen.st.regs[7], 0x7000);
    assert_int_equal(seen.st.regs[16], 0x110);
    assert_int_equal(seen.st.size, 40);
    assert_int_equal(seen.first_word, 0xa000);
    assert_int_equal(seen.n_fp, 3);
    assert_int_equal(seen.fp[0], 0x1000);
    assert_int_equal(seen.fp[1], 0x3000);
    assert_int_equal(seen.fp[2], 0x4000);
    /* the sample keeps the unwound chain */
    assert_int_equal(bench__ip_sampling_count(s), 1);
    size_t n;
    const uint64_t *ips = bench__ip_sampling_stack(s, 0, &n);
    assert_int_equal(n, 4);
    assert_int_equal(ips[1], 0x2000);
    const char *why = NULL;
    assert_string_equal(bench__ip_sampling_unwinder(s, &why), "dwarf");
    assert_null(why);
    assert_int_equal(bench__ip_sampling_fp_samples(s, &why), 0);
    assert_null(why);
    assert_false(bench__ip_sampling_fell_back(s, 0));

    /* an unwinding that fails keeps the frame-pointer chain, counted with the first reason */
    bench__ip_sampling_begin(s);
    seen.fail = true;
    bench__ip_sampling_decode(s, ring, sizeof ring, start, at);
    bench__ip_sampling_unwind(s);
    ips = bench__ip_sampling_stack(s, 0, &n);
    assert_int_equal(n, 3);
    assert_int_equal(ips[1], 0x3000);
    assert_int_equal(bench__ip_sampling_fp_samples(s, &why), 1);
    assert_string_equal(why, "no CFI here");
    assert_true(bench__ip_sampling_fell_back(s, 0)); /* which sample: the pass counts the body's */

    /* no user registers (abi none): the frame-pointer chain, and why */
    bench__ip_sampling_begin(s);
    seen.fail = false;
    seen.calls = 0;
    memset(ring, 0, sizeof ring);
    at = put_stack_sample(ring, sizeof ring, 0, PERF_SAMPLE_REGS_ABI_NONE, 0, 0);
    bench__ip_sampling_decode(s, ring, sizeof ring, 0, at);
    bench__ip_sampling_unwind(s);
    assert_int_equal(seen.calls, 0);
    ips = bench__ip_sampling_stack(s, 0, &n);
    assert_int_equal(n, 3);
    assert_int_equal(bench__ip_sampling_fp_samples(s, &why), 1);
    assert_string_equal(why, "the sample has no user registers");
    assert_true(bench__ip_sampling_fell_back(s, 0));

    /* torn: a stack size beyond the record: the frame-pointer chain, and why */
    bench__ip_sampling_begin(s);
    memset(ring, 0, sizeof ring);
    at = put_stack_sample(ring, sizeof ring, 0, PERF_SAMPLE_REGS_ABI_64, 16, 16);
    uint64_t lie = 4096; /* the stack size word, after 3 + 4 + 1 + 17 words of body */
    memcpy(ring + 8 + 8 * 25, &lie, 8);
    bench__ip_sampling_decode(s, ring, sizeof ring, 0, at);
    bench__ip_sampling_unwind(s);
    assert_int_equal(seen.calls, 0);
    ips = bench__ip_sampling_stack(s, 0, &n);
    assert_int_equal(n, 3);
    assert_int_equal(bench__ip_sampling_fp_samples(s, &why), 1);
    assert_string_equal(why, "the sample's user stack is cut short");
    bench__ip_sampling_close(s);

    /* no unwinder: frame pointers for the whole pass, with its reason */
    s = bench__ip_sampling_store_stacks(NULL, NULL,
                                        "user-stack unwinding is implemented for "
                                        "x86_64 only");
    memset(ring, 0, sizeof ring);
    at = put_stack_sample(ring, sizeof ring, 0, PERF_SAMPLE_REGS_ABI_64, 64, 64);
    bench__ip_sampling_decode(s, ring, sizeof ring, 0, at);
    bench__ip_sampling_unwind(s);
    ips = bench__ip_sampling_stack(s, 0, &n);
    assert_int_equal(n, 3);
    assert_string_equal(bench__ip_sampling_unwinder(s, &why), "frame-pointer");
    assert_string_equal(why, "user-stack unwinding is implemented for x86_64 only");
    bench__ip_sampling_close(s);
}

/* ---- the unwinder on this process's own stack ------------------------------------------ */

#if defined(__x86_64__)
#define COPY_BYTES 4096
static unsigned char stack_copy[COPY_BYTES]; /* not on the stack being copied */

/* The registers an unwinding needs at one instruction of this function, and the stack above. */
__attribute__((noinline)) static void capture(struct bench__user_stack *st)
{
    uint64_t ip, sp, bp;
    __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                     : "=r"(ip), "=r"(sp), "=r"(bp));
    memset(st, 0, sizeof *st);
    st->regs[6] = bp; /* perf's order: ax bx cx dx si di bp sp ip */
    st->regs[7] = sp;
    st->regs[8] = ip;
    memcpy(stack_copy, (const void *)(uintptr_t)sp, COPY_BYTES);
    st->bytes = stack_copy;
    st->size = COPY_BYTES;
}

__attribute__((noinline)) static void unwound_caller(struct bench__user_stack *st)
{
    capture(st);
    __asm__ volatile("" ::: "memory"); /* no tail call: this frame stays */
}
#endif

static void test_unwind_own_stack(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    print_message("user-stack unwinding is implemented for x86_64 only\n");
#else
    char reason[240];
    struct bench__unwinder *u = bench__unwinder_new(reason, sizeof reason);
    struct bench__symbolizer *z = bench__symbolizer_new(reason, sizeof reason);
    if (!u || !z) {
        print_message("no libdw here (%s): not tried\n", reason);
        bench__unwinder_free(u);
        bench__symbolizer_free(z);
        return;
    }
    struct bench__user_stack st;
    unwound_caller(&st);
    uint64_t out[64];
    size_t n = bench__unwind(u, &st, NULL, 0, out, 64, reason, sizeof reason);
    /* the sampled function, then its caller and this test, named by their return addresses */
    assert_true(n >= 3);
    assert_string_equal(bench__symbolize(z, out[0], false)->function, "capture");
    assert_string_equal(bench__symbolize(z, out[1], true)->function, "unwound_caller");
    assert_string_equal(bench__symbolize(z, out[2], true)->function, "test_unwind_own_stack");

    /* a copy too short for the caller's return address: no unwinding, and why */
    st.size = 0;
    assert_int_equal(bench__unwind(u, &st, NULL, 0, out, 64, reason, sizeof reason), 0);
    assert_non_null(strstr(reason, "libdw"));

    /* a copy that ends after the caller: the frame-pointer chain goes on from the last address
     * both hold */
    uint64_t whole[3] = {out[0], out[1], out[2]};
    uint64_t fp[4] = {whole[0], whole[1], 0xabc0, 0xdef0};
    size_t m = 0;
    for (st.size = 8; st.size <= COPY_BYTES && m < 2; st.size += 8)
        m = bench__unwind(u, &st, fp, 4, out, 64, reason, sizeof reason);
    assert_int_equal(m, 4);
    assert_int_equal(out[0], whole[0]);
    assert_int_equal(out[1], whole[1]);
    assert_int_equal(out[2], 0xabc0);
    assert_int_equal(out[3], 0xdef0);
    bench__symbolizer_free(z);
    bench__unwinder_free(u);
#endif
}

/* ---- the soft dependencies through the seam -------------------------------------------- */

static void *refuse_dlopen(const char *file, int mode)
{
    (void)file;
    (void)mode;
    return NULL;
}

static char *refused_text(void)
{
    return "libdw.so.1: cannot open shared object file: No such file or directory";
}

static int refuse_perf(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                       unsigned long flags)
{
    (void)attr;
    (void)pid;
    (void)cpu;
    (void)group_fd;
    (void)flags;
    errno = EACCES;
    return -1;
}

static void test_libdw_hidden(void **state)
{
    (void)state;
    bench__dw_unload();
    bench__os.dlopen = refuse_dlopen;
    bench__os.dlerror = refused_text;
    char reason[240];
    assert_false(bench__dw_load(reason, sizeof reason));
    assert_string_equal(reason, "libdw not loaded: dlopen(libdw.so.1) failed: libdw.so.1: cannot "
                                "open shared object file: No such file or directory");
    assert_null(bench__symbolizer_new(reason, sizeof reason));
    struct bench__caps caps = {0};
    bench__symbolization_caps(&caps);
    assert_false(caps.present & (1u << BENCH__CAP_SYMBOLIZATION));
    assert_non_null(
        strstr(bench__caps_reason(&caps, BENCH__CAP_SYMBOLIZATION), "libdw not loaded"));
    bench__os_reset();
    bench__dw_unload();
}

static int (*real_perf)(struct perf_event_attr *, pid_t, int, int, unsigned long);

/* The kernel refuses the user stack in samples (an old or locked-down kernel). */
static int refuse_stacks(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                         unsigned long flags)
{
    if (attr->sample_type & PERF_SAMPLE_STACK_USER) {
        errno = EINVAL;
        return -1;
    }
    return real_perf(attr, pid, cpu, group_fd, flags);
}

static void test_stacks_refused(void **state)
{
    (void)state;
    char reason[240];
    struct bench__ip_sampling *s = bench__ip_sampling_open(1000, reason, sizeof reason);
    if (!s) {
        print_message("this host cannot sample (%s): the refusal is not tried\n", reason);
        return;
    }
    bench__ip_sampling_close(s);
    real_perf = bench__os.perf_event_open;
    bench__os.perf_event_open = refuse_stacks;
    s = bench__ip_sampling_open(1000, reason, sizeof reason);
    assert_non_null(s);
    assert_true(bench__ip_sampling_chains(s));
    const char *why = NULL;
    assert_string_equal(bench__ip_sampling_unwinder(s, &why), "frame-pointer");
#if defined(__x86_64__)
    assert_string_equal(why, "the kernel refused the user stack in samples "
                             "(PERF_SAMPLE_STACK_USER): EINVAL");
#else
    assert_string_equal(why, "user-stack unwinding is implemented for x86_64 only");
#endif
    bench__ip_sampling_close(s);
    bench__os_reset();
}

static void test_sampling_refused(void **state)
{
    (void)state;
    bench__os.perf_event_open = refuse_perf;
    struct bench__caps caps = {0};
    bench__ip_sampling_caps(&caps, 1000);
    const char *why = bench__caps_reason(&caps, BENCH__CAP_IP_SAMPLING);
    assert_non_null(why);
    assert_non_null(strstr(why, "EACCES"));
    char reason[240];
    assert_null(bench__ip_sampling_open(1000, reason, sizeof reason));
    assert_non_null(strstr(reason, "perf_event_open(cpu-clock sampling) failed: EACCES"));
    bench__os_reset();
}

/* ---- the harness's share (issue 32, point 13) ----------------------------------------- */

static void test_body_frames(void **state)
{
    (void)state;
    const uint64_t lo = 0x7000, hi = 0x8000; /* libbench's own code */
    /* the sampled address in libbench's code (its loop, a bracket, BENCH_ITER's calls): the
     * harness's, whatever calls it */
    const uint64_t loop[] = {0x7010, 0x7100, 0x1234};
    assert_int_equal(bench__profile_body_frames(loop, 3, lo, hi), 0);
    const uint64_t iter_next[] = {0x7ff0, 0x1200, 0x7100}; /* called back from the body */
    assert_int_equal(bench__profile_body_frames(iter_next, 3, lo, hi), 0);
    /* the body, called by the harness: its frames under the harness's call, callers cut */
    const uint64_t in_body[] = {0x1100, 0x1200, 0x7100, 0x7200, 0x500};
    assert_int_equal(bench__profile_body_frames(in_body, 5, lo, hi), 2);
    /* libc called from the body: the body's, even when a frameless body lost its own frame */
    const uint64_t libc_from_body[] = {0x9000, 0x1200, 0x7100};
    assert_int_equal(bench__profile_body_frames(libc_from_body, 3, lo, hi), 2);
    const uint64_t libc_frameless[] = {0x9000, 0x7100};
    assert_int_equal(bench__profile_body_frames(libc_frameless, 2, lo, hi), 1);
    /* no frame in libbench (no chain, or a chain cut short): every frame is the body's */
    const uint64_t alone[] = {0x1100, 0x1200};
    assert_int_equal(bench__profile_body_frames(alone, 2, lo, hi), 2);
    assert_int_equal(bench__profile_body_frames(alone, 0, lo, hi), 0);
    /* the bounds: lo is libbench's, hi is not */
    const uint64_t at_lo[] = {0x7000}, at_hi[] = {0x8000};
    assert_int_equal(bench__profile_body_frames(at_lo, 1, lo, hi), 0);
    assert_int_equal(bench__profile_body_frames(at_hi, 1, lo, hi), 1);
}

static void own_marker(void)
{
}

/* libbench's own code is found among the mappings; a body in the same file (libbench linked
 * into the benchmark, as in this test) cannot be told from it, and the reason says so. */
static void test_own_code(void **state)
{
    (void)state;
    uint64_t lo = 0, hi = 0;
    char reason[240] = "";
    bool own = bench__ip_sampling_own_code(own_marker, &lo, &hi, reason, sizeof reason);
    assert_false(own);
    assert_non_null(strstr(reason, "linked into the benchmark's own file"));
    /* a body in another file (libc's abort): the range holds libbench's code, not the body */
    own = bench__ip_sampling_own_code((void (*)(void))abort, &lo, &hi, reason, sizeof reason);
    assert_true(own);
    uint64_t self = (uint64_t)(uintptr_t)&bench__ip_sampling_own_code;
    assert_true(lo <= self && self < hi);
    uint64_t other = (uint64_t)(uintptr_t)&abort;
    assert_false(lo <= other && other < hi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_and_inclusive),
        cmocka_unit_test(test_unsymbolised_stay_in_total),
        cmocka_unit_test(test_estimate_mark),
        cmocka_unit_test(test_folded),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_decode_stacks),
        cmocka_unit_test(test_stacks_refused),
        cmocka_unit_test(test_unwind_own_stack),
        cmocka_unit_test(test_libdw_hidden),
        cmocka_unit_test(test_sampling_refused),
        cmocka_unit_test(test_body_frames),
        cmocka_unit_test(test_own_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
