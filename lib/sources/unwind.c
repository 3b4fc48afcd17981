/* SPDX-License-Identifier: MIT */
/* unwind.c: owns the DWARF unwinding of a sampled user stack with libdw (dlopen'ed by soname,
 * through bench__os, never linked): a Dwfl session on this process's mappings whose one thread's
 * registers and memory are a sample's recorded registers and stack copy. It never reads live
 * memory (the stack has moved on since the sample), never symbolises and never samples. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../platform/os.h"
#include "../util/alloc.h"
#include "../util/text.h"
#include "symbolize.h"
#include "unwind.h"

#ifdef BENCH_HAVE_DW_HEADERS
#include <elfutils/libdwfl.h> /* only to check the ABI declared below */
#endif

/* ---- libdw's ABI, declared here (the library is never linked) ---------------------------- */

typedef struct uw_dwfl uw_dwfl;
typedef struct uw_thread uw_thread;
typedef struct uw_frame uw_frame;

/* Dwfl_Callbacks */
struct uw_callbacks {
    void *find_elf;
    void *find_debuginfo;
    void *section_address;
    char **debuginfo_path;
};

/* Dwfl_Thread_Callbacks */
struct uw_thread_callbacks {
    pid_t (*next_thread)(uw_dwfl *, void *, void **);
    bool (*get_thread)(uw_dwfl *, pid_t, void *, void **);
    bool (*memory_read)(uw_dwfl *, uint64_t, uint64_t *, void *);
    bool (*set_initial_registers)(uw_thread *, void *);
    void (*detach)(uw_dwfl *, void *);
    void (*thread_detach)(uw_thread *, void *);
};

#ifdef BENCH_HAVE_DW_HEADERS
_Static_assert(sizeof(struct uw_callbacks) == sizeof(Dwfl_Callbacks),
               "Dwfl_Callbacks differs from <libdwfl.h>");
_Static_assert(sizeof(struct uw_thread_callbacks) == sizeof(Dwfl_Thread_Callbacks),
               "Dwfl_Thread_Callbacks differs from <libdwfl.h>");
_Static_assert(offsetof(struct uw_thread_callbacks, memory_read) ==
                       offsetof(Dwfl_Thread_Callbacks, memory_read) &&
                   offsetof(struct uw_thread_callbacks, set_initial_registers) ==
                       offsetof(Dwfl_Thread_Callbacks, set_initial_registers) &&
                   offsetof(struct uw_thread_callbacks, thread_detach) ==
                       offsetof(Dwfl_Thread_Callbacks, thread_detach),
               "Dwfl_Thread_Callbacks differs from <libdwfl.h>");
#endif

struct uw_lib {
    void *handle;
    uw_dwfl *(*begin)(const struct uw_callbacks *);
    void (*end)(uw_dwfl *);
    void (*report_begin)(uw_dwfl *);
    int (*report_end)(uw_dwfl *, void *, void *);
    int (*proc_report)(uw_dwfl *, pid_t);
    bool (*attach_state)(uw_dwfl *, void *, pid_t, const struct uw_thread_callbacks *, void *);
    bool (*state_registers)(uw_thread *, int, unsigned, const uint64_t *);
    void (*state_register_pc)(uw_thread *, uint64_t);
    int (*getthread_frames)(uw_dwfl *, pid_t, int (*)(uw_frame *, void *), void *);
    bool (*frame_pc)(uw_frame *, uint64_t *, bool *);
    int (*errno_)(void);
    const char *(*errmsg)(int);
    void *find_elf;       /* dwfl_linux_proc_find_elf, handed to libdw */
    void *find_debuginfo; /* dwfl_standard_find_debuginfo */
};

/* Resolve every function used, or fill the reason. */
static bool uw_load(struct uw_lib *lib, char *reason, size_t reason_size)
{
    static const char *const names[] = {
        "dwfl_begin",
        "dwfl_end",
        "dwfl_report_begin",
        "dwfl_report_end",
        "dwfl_linux_proc_report",
        "dwfl_attach_state",
        "dwfl_thread_state_registers",
        "dwfl_thread_state_register_pc",
        "dwfl_getthread_frames",
        "dwfl_frame_pc",
        "dwfl_errno",
        "dwfl_errmsg",
        "dwfl_linux_proc_find_elf",
        "dwfl_standard_find_debuginfo",
    };
    enum { N = sizeof names / sizeof names[0] };
    void *slots[] = {&lib->begin,
                     &lib->end,
                     &lib->report_begin,
                     &lib->report_end,
                     &lib->proc_report,
                     &lib->attach_state,
                     &lib->state_registers,
                     &lib->state_register_pc,
                     &lib->getthread_frames,
                     &lib->frame_pc,
                     &lib->errno_,
                     &lib->errmsg,
                     &lib->find_elf,
                     &lib->find_debuginfo};
    _Static_assert(sizeof slots / sizeof slots[0] == N, "one slot per name");
    /* symbolize.c's loader says why libdw is absent; this session holds its own reference */
    if (!bench__dw_load(reason, reason_size))
        return false;
    lib->handle = bench__os.dlopen(BENCH__DW_SONAME, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; lib->handle && i < N; i++) {
        void *sym = bench__os.dlsym(lib->handle, names[i]);
        if (!sym) {
            bench__fmt(reason, reason_size, "%s has no %s", BENCH__DW_SONAME, names[i]);
            return false;
        }
        /* POSIX guarantees a dlsym'd object pointer converts to a function pointer */
        memcpy(slots[i], &sym, sizeof sym);
    }
    if (!lib->handle)
        bench__fmt(reason, reason_size, "libdw not loaded: dlopen(%s) failed", BENCH__DW_SONAME);
    return lib->handle != NULL;
}

/* ---- the session ----------------------------------------------------------------------------- */

struct bench__unwinder {
    struct uw_lib dw;
    uw_dwfl *dwfl;
    struct uw_callbacks callbacks;
    struct uw_thread_callbacks thread_callbacks;
    char *debuginfo_path;
    pid_t pid;
    const struct bench__user_stack *sample; /* the sample being unwound */
    uint64_t *out;
    size_t n, max;
};

/* perf's x86_64 user registers (asm/perf_regs.h), in the order a sample lists them */
enum { AX, BX, CX, DX, SI, DI, BP, SP, IP, R8 };
#define PERF_REG_X86_R8 16

bool bench__unwind_regs_mask(uint64_t *mask, char *reason, size_t reason_size)
{
#if defined(__x86_64__)
    (void)reason;
    (void)reason_size;
    /* ax..ip are perf's registers 0-8, r8..r15 its 16-23 */
    *mask = ((1ull << (IP + 1)) - 1) | (0xffull << PERF_REG_X86_R8);
    return true;
#else
    *mask = 0;
    bench__fmt(reason, reason_size, "user-stack unwinding is implemented for x86_64 only");
    return false;
#endif
}

static pid_t next_thread(uw_dwfl *dwfl, void *arg, void **thread_arg)
{
    (void)dwfl;
    struct bench__unwinder *u = arg;
    if (*thread_arg)
        return 0; /* one thread: the sampled one */
    *thread_arg = u;
    return u->pid;
}

static bool get_thread(uw_dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
    (void)dwfl;
    (void)tid;
    *thread_arg = arg;
    return true;
}

/* Reads are served from the sample's copy of the stack only: anything else is gone. */
static bool memory_read(uw_dwfl *dwfl, uint64_t addr, uint64_t *result, void *arg)
{
    (void)dwfl;
    const struct bench__user_stack *st = ((struct bench__unwinder *)arg)->sample;
    uint64_t sp = st->regs[SP];
    if (addr < sp || addr - sp > st->size || st->size - (addr - sp) < sizeof *result)
        return false;
    memcpy(result, st->bytes + (addr - sp), sizeof *result);
    return true;
}

static bool set_initial_registers(uw_thread *thread, void *arg)
{
    struct bench__unwinder *u = arg;
    const uint64_t *r = u->sample->regs;
    /* DWARF's x86_64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then the return
     * address column (the pc) */
    uint64_t dwarf[17] = {r[AX], r[DX], r[CX], r[BX], r[SI], r[DI], r[BP], r[SP]};
    for (unsigned k = 0; k < 8; k++)
        dwarf[8 + k] = r[R8 + k];
    dwarf[16] = r[IP];
    if (!u->dw.state_registers(thread, 0, 17, dwarf))
        return false;
    u->dw.state_register_pc(thread, r[IP]);
    return true;
}

static void detach(uw_dwfl *dwfl, void *arg)
{
    (void)dwfl;
    (void)arg;
}

static void thread_detach(uw_thread *thread, void *arg)
{
    (void)thread;
    (void)arg;
}

struct bench__unwinder *bench__unwinder_new(char *reason, size_t reason_size)
{
    uint64_t mask;
    if (!bench__unwind_regs_mask(&mask, reason, reason_size))
        return NULL;
    struct bench__unwinder *u = bench__xcalloc(1, sizeof *u);
    if (!uw_load(&u->dw, reason, reason_size)) {
        bench__unwinder_free(u);
        return NULL;
    }
    u->pid = getpid();
    u->callbacks.find_elf = u->dw.find_elf;
    u->callbacks.find_debuginfo = u->dw.find_debuginfo;
    u->callbacks.debuginfo_path = &u->debuginfo_path; /* NULL: libdw's default search path */
    u->thread_callbacks = (struct uw_thread_callbacks){
        next_thread, get_thread, memory_read, set_initial_registers, detach, thread_detach};
    u->dwfl = u->dw.begin(&u->callbacks);
    bool ok = u->dwfl != NULL;
    if (ok) {
        u->dw.report_begin(u->dwfl);
        int rc = u->dw.proc_report(u->dwfl, u->pid);
        ok = u->dw.report_end(u->dwfl, NULL, NULL) == 0 && rc == 0;
    }
    if (ok)
        ok = u->dw.attach_state(u->dwfl, NULL, u->pid, &u->thread_callbacks, u);
    if (!ok) {
        bench__fmt(reason, reason_size, "libdw could not prepare the unwinding: %s",
                   u->dw.errmsg(u->dw.errno_()));
        bench__unwinder_free(u);
        return NULL;
    }
    return u;
}

void bench__unwinder_free(struct bench__unwinder *u)
{
    if (!u)
        return;
    if (u->dwfl)
        u->dw.end(u->dwfl);
    if (u->dw.handle)
        bench__os.dlclose(u->dw.handle);
    free(u);
}

static int on_frame(uw_frame *frame, void *arg)
{
    struct bench__unwinder *u = arg;
    uint64_t pc;
    bool activation;
    if (!u->dw.frame_pc(frame, &pc, &activation))
        return 1; /* DWARF_CB_ABORT */
    /* a return address as the kernel's chain has it; an activation (a signal frame's
     * interrupted pc) one byte on, since the symbolizer looks a caller's address up one back */
    u->out[u->n] = u->n > 0 && activation ? pc + 1 : pc;
    u->n++;
    return u->n < u->max ? 0 : 1; /* DWARF_CB_OK, or enough */
}

size_t bench__unwind(struct bench__unwinder *u, const struct bench__user_stack *st,
                     const uint64_t *fp, size_t n_fp, uint64_t *out, size_t max, char *reason,
                     size_t reason_size)
{
    if (max == 0)
        return 0;
    u->sample = st;
    u->out = out;
    u->n = 0;
    u->max = max;
    int rc = u->dw.getthread_frames(u->dwfl, u->pid, on_frame, u);
    const char *why = rc < 0 ? u->dw.errmsg(u->dw.errno_()) : NULL;
    u->sample = NULL;
    if (u->n < 2) {
        if (why)
            bench__fmt(reason, reason_size, "libdw could not unwind: %s", why);
        else
            bench__fmt(reason, reason_size, "libdw found no caller in the copy of the stack");
        return 0;
    }
    /* libdw ends quietly where the copy of the stack ends (a return address it cannot read is
     * the end of the chain to it): the frame-pointer chain goes on from the last address both
     * hold, if any (at the outermost frame it holds nothing further either) */
    for (size_t j = n_fp; j-- > 1;) {
        if (fp[j] != out[u->n - 1])
            continue;
        for (size_t k = j + 1; k < n_fp && u->n < max; k++)
            out[u->n++] = fp[k];
        break;
    }
    return u->n;
}
