/* SPDX-License-Identifier: MIT */
/* event_naming.c: owns the raw:/pfm: selector grammar and libpfm4 (dlopen'ed by soname at first
 * use, never linked). Must not open counters, nor dlopen or read /proc except through bench__os. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/text.h"
#include "../platform/os.h"
#include "event_naming.h"
#include "source.h"

#ifdef BENCH_HAVE_PFM_HEADERS
#include <perfmon/pfmlib_perf_event.h> /* only to check the ABI declared below */
#endif

/* ---- the selector grammar (pure) ------------------------------------------------------- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

enum bench__selector_kind bench__selector_parse(const char *selector, uint64_t *config)
{
    if (!strncmp(selector, "pfm:", 4))
        return selector[4] ? BENCH__SELECTOR_PFM : BENCH__SELECTOR_MALFORMED;
    if (strncmp(selector, "raw:", 4))
        return BENCH__SELECTOR_OTHER;
    const char *p = selector + 4;
    if (*p++ != 'r') /* lowercase only: "raw:R00c0" is malformed */
        return BENCH__SELECTOR_MALFORMED;
    uint64_t value = 0;
    size_t digits = 0;
    for (; *p; p++, digits++) {
        int d = hex_digit(*p);
        if (d < 0 || digits == 16)
            return BENCH__SELECTOR_MALFORMED;
        value = value << 4 | (uint64_t)d;
    }
    if (digits == 0)
        return BENCH__SELECTOR_MALFORMED;
    if (config)
        *config = value;
    return BENCH__SELECTOR_RAW;
}

const char *bench__selector_header(const char *selector)
{
    const char *colon = strchr(selector, ':');
    return colon ? colon + 1 : selector;
}

/* ---- the CPU's libpfm4 table (pure) ------------------------------------------------------ */

/* The value of the first "key<spaces>: value" line of cpuinfo text, into buf. */
static bool cpuinfo_field(const char *text, const char *key, char *buf, size_t size)
{
    size_t key_len = strlen(key);
    for (const char *line = text; *line;) {
        const char *here = line;
        line += strcspn(line, "\n");
        line += *line == '\n';
        if (strncmp(here, key, key_len))
            continue;
        const char *p = here + key_len;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':')
            continue; /* "model name" is not "model" */
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, "\n");
        if (n >= size)
            n = size - 1;
        memcpy(buf, p, n);
        buf[n] = '\0';
        return true;
    }
    return false;
}

static bool cpuinfo_number(const char *text, const char *key, long *value)
{
    char buf[32];
    if (!cpuinfo_field(text, key, buf, sizeof buf))
        return false;
    char *end;
    *value = strtol(buf, &end, 10);
    return end != buf && (*end == '\0' || *end == ' ' || *end == '\t');
}

const char *bench__pfm_cpu_table(const char *cpuinfo)
{
    char vendor[32];
    long family, model;
    if (!cpuinfo_field(cpuinfo, "vendor_id", vendor, sizeof vendor) ||
        strcmp(vendor, "AuthenticAMD") || !cpuinfo_number(cpuinfo, "cpu family", &family) ||
        !cpuinfo_number(cpuinfo, "model", &model))
        return NULL;
    switch (family) {
    case 23: return model >= 0x30 ? "amd64_fam17h_zen2" : "amd64_fam17h_zen1";
    case 25:
        return model >= 0x60 || (model >= 0x10 && model <= 0x1f) ? "amd64_fam19h_zen4"
                                                                 : "amd64_fam19h_zen3";
    case 26:
        return model <= 0x4f || (model >= 0x60 && model <= 0x7f) ? "amd64_fam1ah_zen5"
                                                                 : "amd64_fam1ah_zen6";
    default: return NULL;
    }
}

/* ---- libpfm4's ABI, declared here (the library is never linked) ------------------------- */

#define PFMABI_SUCCESS 0
#define PFMABI_PLM0 0x01 /* kernel */
#define PFMABI_PLM3 0x08 /* user */
#define PFMABI_OS_PERF_EVENT 1

/* pfm_perf_encode_arg_t */
struct pfm_encode_arg {
    struct perf_event_attr *attr;
    char **fstr;
    size_t size;
    int idx;
    int cpu;
    int flags;
    int pad0;
};

#if defined(__LP64__)
_Static_assert(sizeof(struct pfm_encode_arg) == 40, "libpfm4 encode arg is 40 bytes on LP64");
#endif

#ifdef BENCH_HAVE_PFM_HEADERS /* the declarations above must match the installed headers */
_Static_assert(sizeof(struct pfm_encode_arg) == sizeof(pfm_perf_encode_arg_t),
               "encode arg size differs from <perfmon/pfmlib_perf_event.h>");
_Static_assert(offsetof(struct pfm_encode_arg, size) == offsetof(pfm_perf_encode_arg_t, size),
               "encode arg layout differs from <perfmon/pfmlib_perf_event.h>");
_Static_assert(offsetof(struct pfm_encode_arg, idx) == offsetof(pfm_perf_encode_arg_t, idx),
               "encode arg layout differs from <perfmon/pfmlib_perf_event.h>");
_Static_assert(offsetof(struct pfm_encode_arg, flags) == offsetof(pfm_perf_encode_arg_t, flags),
               "encode arg layout differs from <perfmon/pfmlib_perf_event.h>");
#if defined(PFM_PERF_ENCODE_ABI0)
_Static_assert(sizeof(struct pfm_encode_arg) == PFM_PERF_ENCODE_ABI0, "libpfm4 encode ABI0");
#endif
_Static_assert(PFMABI_SUCCESS == PFM_SUCCESS && PFMABI_PLM0 == PFM_PLM0 &&
                   PFMABI_PLM3 == PFM_PLM3 && PFMABI_OS_PERF_EVENT == (int)PFM_OS_PERF_EVENT,
               "libpfm4 constants differ from <perfmon/pfmlib.h>");
#endif

struct pfm_lib {
    void *handle;
    bool ready;
    int (*initialize)(void);
    void (*terminate)(void);
    const char *(*error_text)(int code);
    int (*encode)(const char *str, int dfl_plm, int os, void *args);
    char reason[BENCH__REASON_MAX];
};

static struct pfm_lib pfm;

/* /proc/cpuinfo's table, read once (NULL: none) */
static struct {
    bool done;
    const char *table;
} cpu;

static const char *dl_error(void)
{
    const char *err = bench__os.dlerror ? bench__os.dlerror() : NULL;
    return err ? err : "unknown error";
}

static bool resolve_symbols(void)
{
    static const char *const names[] = {"pfm_initialize", "pfm_terminate", "pfm_strerror",
                                        "pfm_get_os_event_encoding"};
    void *sym[4];
    for (size_t i = 0; i < 4; i++) {
        sym[i] = bench__os.dlsym(pfm.handle, names[i]);
        if (!sym[i]) {
            bench__fmt(pfm.reason, sizeof pfm.reason, "%s has no %s (%s)", BENCH__PFM_SONAME,
                       names[i], dl_error());
            return false;
        }
    }
    /* POSIX guarantees a dlsym'd object pointer converts to a function pointer */
    memcpy(&pfm.initialize, &sym[0], sizeof sym[0]);
    memcpy(&pfm.terminate, &sym[1], sizeof sym[1]);
    memcpy(&pfm.error_text, &sym[2], sizeof sym[2]);
    memcpy(&pfm.encode, &sym[3], sizeof sym[3]);
    return true;
}

bool bench__pfm_load(char *reason, size_t reason_size)
{
    if (!pfm.ready) {
        memset(&pfm, 0, sizeof pfm);
        pfm.handle = bench__os.dlopen(BENCH__PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!pfm.handle) {
            char first[160];
            bench__fmt(first, sizeof first, "%s", dl_error());
            pfm.handle = bench__os.dlopen("libpfm.so", RTLD_NOW | RTLD_LOCAL);
            if (!pfm.handle)
                bench__fmt(pfm.reason, sizeof pfm.reason,
                           "libpfm4 not loaded: dlopen(%s) failed: %s", BENCH__PFM_SONAME, first);
        }
        if (pfm.handle && resolve_symbols()) {
            /* encode events of PMUs the kernel does not expose (a VM): names still resolve */
            setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
            int rc = pfm.initialize();
            if (rc == PFMABI_SUCCESS)
                pfm.ready = true;
            else
                bench__fmt(pfm.reason, sizeof pfm.reason, "pfm_initialize failed: %s",
                           pfm.error_text(rc));
        }
        if (!pfm.ready && pfm.handle) {
            bench__os.dlclose(pfm.handle);
            pfm.handle = NULL;
        }
    }
    if (!pfm.ready && reason && reason_size)
        bench__fmt(reason, reason_size, "%s", pfm.reason);
    return pfm.ready;
}

void bench__pfm_unload(void)
{
    if (pfm.ready) {
        pfm.terminate();
        bench__os.dlclose(pfm.handle);
    }
    memset(&pfm, 0, sizeof pfm);
    memset(&cpu, 0, sizeof cpu);
}

/* One encoding attempt: PFM_SUCCESS or libpfm's error code. */
static int encode(const char *name, struct bench__event_encoding *out)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    char *fstr = NULL;
    struct pfm_encode_arg arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.fstr = &fstr;
    arg.size = sizeof arg;
    int rc = pfm.encode(name, PFMABI_PLM0 | PFMABI_PLM3, PFMABI_OS_PERF_EVENT, &arg);
    if (rc == PFMABI_SUCCESS) {
        memset(out, 0, sizeof *out);
        out->type = attr.type;
        out->config = attr.config;
        out->config1 = attr.config1;
        out->config2 = attr.config2;
        out->exclude_user = attr.exclude_user;
        out->exclude_kernel = attr.exclude_kernel;
        bench__fmt(out->fstr, sizeof out->fstr, "%s", fstr ? fstr : name);
    }
    free(fstr); /* malloc'd by libpfm4 */
    return rc;
}

static const char *cpu_table(void)
{
    if (!cpu.done) {
        char text[4096]; /* the first processor's block is enough */
        if (bench__os_read_file("/proc/cpuinfo", text, sizeof text) > 0)
            cpu.table = bench__pfm_cpu_table(text);
        cpu.done = true;
    }
    return cpu.table;
}

int bench__pfm_resolve(const char *name, struct bench__event_encoding *out, char *reason,
                       size_t reason_size)
{
    if (strlen(name) > BENCH__PFM_NAME_MAX) {
        bench__fmt(reason, reason_size, "name longer than %d characters", BENCH__PFM_NAME_MAX);
        return -1;
    }
    if (!bench__pfm_load(reason, reason_size))
        return -1;
    int rc = encode(name, out);
    if (rc == PFMABI_SUCCESS)
        return 0;
    const char *table = strstr(name, "::") ? NULL : cpu_table();
    if (table) {
        char qualified[BENCH__PFM_NAME_MAX + 64];
        bench__fmt(qualified, sizeof qualified, "%s::%s", table, name);
        if (encode(qualified, out) == PFMABI_SUCCESS)
            return 0;
        bench__fmt(reason, reason_size, "libpfm4: %s (also as %s::%s)", pfm.error_text(rc), table,
                   name);
        return -1;
    }
    bench__fmt(reason, reason_size, "libpfm4: %s", pfm.error_text(rc));
    return -1;
}
