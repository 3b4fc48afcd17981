/* SPDX-License-Identifier: MIT */
/* symbolize.c: owns libdw (dlopen'ed by soname at first use, through bench__os, never linked),
 * the Dwfl session on this process's mappings, the per-address frames (function, file:line,
 * module, inlined chain, or why none) and the symbolization capability. No ELF or DWARF is
 * parsed here: libdw does all of it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "../platform/os.h"
#include "../util/alloc.h"
#include "../util/source_path.h"
#include "../util/text.h"
#include "symbolize.h"

#ifdef BENCH_HAVE_DW_HEADERS
#include <dwarf.h> /* only to check the ABI declared below */
#include <elfutils/libdwfl.h>
#endif

/* ---- libdw's ABI, declared here (the library is never linked) ---------------------------- */

typedef struct dw_dwfl dw_dwfl;
typedef struct dw_module dw_module;
typedef struct dw_line dw_line;
typedef uint64_t dw_addr;

/* Dwarf_Die: an opaque 32-byte value on LP64 */
struct dw_die {
    void *addr;
    void *cu;
    void *abbrev;
    long padding;
};

/* Dwarf_Attribute: an opaque value, filled by dwarf_attr */
struct dw_attr {
    unsigned int code;
    unsigned int form;
    unsigned char *valp;
    void *cu;
};

/* Dwfl_Callbacks: find_elf, find_debuginfo, section_address, debuginfo_path */
struct dw_callbacks {
    void *find_elf;
    void *find_debuginfo;
    void *section_address;
    char **debuginfo_path;
};

#define DW_TAG_INLINED 0x1d /* DW_TAG_inlined_subroutine */
#define DW_AT_COMP_DIR 0x1b /* DW_AT_comp_dir */

#ifdef BENCH_HAVE_DW_HEADERS
_Static_assert(sizeof(struct dw_die) == sizeof(Dwarf_Die), "Dwarf_Die differs from <libdw.h>");
_Static_assert(sizeof(struct dw_callbacks) == sizeof(Dwfl_Callbacks),
               "Dwfl_Callbacks differs from <libdwfl.h>");
_Static_assert(offsetof(struct dw_callbacks, debuginfo_path) ==
                   offsetof(Dwfl_Callbacks, debuginfo_path),
               "Dwfl_Callbacks differs from <libdwfl.h>");
_Static_assert(DW_TAG_INLINED == DW_TAG_inlined_subroutine, "DW_TAG_inlined_subroutine");
_Static_assert(DW_AT_COMP_DIR == DW_AT_comp_dir, "DW_AT_comp_dir");
_Static_assert(sizeof(struct dw_attr) == sizeof(Dwarf_Attribute),
               "Dwarf_Attribute differs from <libdw.h>");
#endif

struct dw_lib {
    void *handle;
    bool ready;
    char reason[BENCH__REASON_MAX];
    dw_dwfl *(*begin)(const struct dw_callbacks *);
    void (*end)(dw_dwfl *);
    void (*report_begin)(dw_dwfl *);
    int (*report_end)(dw_dwfl *, void *, void *);
    int (*proc_report)(dw_dwfl *, pid_t);
    dw_module *(*addrmodule)(dw_dwfl *, dw_addr);
    const char *(*addrname)(dw_module *, dw_addr);
    dw_line *(*getsrc)(dw_module *, dw_addr);
    const char *(*lineinfo)(dw_line *, dw_addr *, int *, int *, dw_addr *, dw_addr *);
    const char *(*module_info)(dw_module *, void ***, dw_addr *, dw_addr *, dw_addr *, dw_addr *,
                               const char **, const char **);
    void *(*getdwarf)(dw_module *, dw_addr *);
    int (*getsymtab)(dw_module *);
    struct dw_die *(*addrdie)(dw_module *, dw_addr, dw_addr *);
    int (*getscopes)(struct dw_die *, dw_addr, struct dw_die **);
    int (*tag)(struct dw_die *);
    const char *(*diename)(struct dw_die *);
    struct dw_die *(*nextcu)(dw_module *, struct dw_die *, dw_addr *);
    int (*haspc)(struct dw_die *, dw_addr);
    void *(*getsrc_die)(struct dw_die *, dw_addr); /* a Dwarf_Line * */
    int (*lineno)(void *, int *);
    const char *(*linesrc)(void *, uint64_t *, uint64_t *);
    const char *(*line_comp_dir)(dw_line *);
    struct dw_attr *(*attr)(struct dw_die *, unsigned int, struct dw_attr *);
    const char *(*formstring)(struct dw_attr *);
    int (*errno_)(void);
    const char *(*errmsg)(int);
    void *find_elf;       /* dwfl_linux_proc_find_elf, handed to libdw */
    void *find_debuginfo; /* dwfl_standard_find_debuginfo */
};

static struct dw_lib dw;

static const char *dl_error(void)
{
    const char *err = bench__os.dlerror ? bench__os.dlerror() : NULL;
    return err ? err : "unknown error";
}

bool bench__dw_load(char *reason, size_t reason_size)
{
    static const char *const names[] = {
        "dwfl_begin",
        "dwfl_end",
        "dwfl_report_begin",
        "dwfl_report_end",
        "dwfl_linux_proc_report",
        "dwfl_addrmodule",
        "dwfl_module_addrname",
        "dwfl_module_getsrc",
        "dwfl_lineinfo",
        "dwfl_module_info",
        "dwfl_module_getdwarf",
        "dwfl_module_getsymtab",
        "dwfl_module_addrdie",
        "dwarf_getscopes",
        "dwarf_tag",
        "dwarf_diename",
        "dwfl_module_nextcu",
        "dwarf_haspc",
        "dwarf_getsrc_die",
        "dwarf_lineno",
        "dwarf_linesrc",
        "dwfl_line_comp_dir",
        "dwarf_attr",
        "dwarf_formstring",
        "dwfl_errno",
        "dwfl_errmsg",
        "dwfl_linux_proc_find_elf",
        "dwfl_standard_find_debuginfo",
    };
    enum { N = sizeof names / sizeof names[0] };
    if (!dw.ready && !dw.handle && !dw.reason[0]) {
        dw.handle = bench__os.dlopen(BENCH__DW_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!dw.handle) {
            bench__fmt(dw.reason, sizeof dw.reason, "libdw not loaded: dlopen(%s) failed: %s",
                       BENCH__DW_SONAME, dl_error());
        } else {
            void *sym[N];
            bool all = true;
            for (size_t i = 0; i < N && all; i++) {
                sym[i] = bench__os.dlsym(dw.handle, names[i]);
                if (!sym[i]) {
                    bench__fmt(dw.reason, sizeof dw.reason, "%s has no %s (%s)", BENCH__DW_SONAME,
                               names[i], dl_error());
                    all = false;
                }
            }
            if (all) {
                /* POSIX guarantees a dlsym'd object pointer converts to a function pointer */
                void *slots[] = {
                    &dw.begin,       &dw.end,           &dw.report_begin, &dw.report_end,
                    &dw.proc_report, &dw.addrmodule,    &dw.addrname,     &dw.getsrc,
                    &dw.lineinfo,    &dw.module_info,   &dw.getdwarf,     &dw.getsymtab,
                    &dw.addrdie,     &dw.getscopes,     &dw.tag,          &dw.diename,
                    &dw.nextcu,      &dw.haspc,         &dw.getsrc_die,   &dw.lineno,
                    &dw.linesrc,     &dw.line_comp_dir, &dw.attr,         &dw.formstring,
                    &dw.errno_,      &dw.errmsg,        &dw.find_elf,     &dw.find_debuginfo};
                _Static_assert(sizeof slots / sizeof slots[0] == N, "one slot per name");
                for (size_t i = 0; i < N; i++)
                    memcpy(slots[i], &sym[i], sizeof sym[i]);
                dw.ready = true;
            } else {
                bench__os.dlclose(dw.handle);
                dw.handle = NULL;
            }
        }
    }
    if (!dw.ready && reason && reason_size)
        bench__fmt(reason, reason_size, "%s", dw.reason);
    return dw.ready;
}

void bench__dw_unload(void)
{
    if (dw.handle)
        bench__os.dlclose(dw.handle);
    memset(&dw, 0, sizeof dw);
}

/* ---- the session --------------------------------------------------------------------------- */

struct slot {
    uint64_t key; /* address * 2 + caller; 0 = empty */
    struct bench__profile_frame *frame;
};

struct bench__symbolizer {
    dw_dwfl *dwfl;
    struct dw_callbacks callbacks;
    char *debuginfo_path;
    bool reported_again;
    char *cwd; /* the current directory when the session began (NULL: unknown) */
    struct slot *slots;
    size_t cap, used;
};

static bool report(struct bench__symbolizer *z)
{
    dw.report_begin(z->dwfl);
    int rc = dw.proc_report(z->dwfl, getpid());
    return dw.report_end(z->dwfl, NULL, NULL) == 0 && rc == 0;
}

struct bench__symbolizer *bench__symbolizer_new(char *reason, size_t reason_size)
{
    if (!bench__dw_load(reason, reason_size))
        return NULL;
    struct bench__symbolizer *z = bench__xcalloc(1, sizeof *z);
    z->callbacks.find_elf = dw.find_elf;
    z->callbacks.find_debuginfo = dw.find_debuginfo;
    z->callbacks.debuginfo_path = &z->debuginfo_path; /* NULL: libdw's default search path */
    z->dwfl = dw.begin(&z->callbacks);
    if (!z->dwfl || !report(z)) {
        bench__fmt(reason, reason_size, "libdw could not read this process's mappings: %s",
                   dw.errmsg(dw.errno_()));
        bench__symbolizer_free(z);
        return NULL;
    }
    z->cwd = getcwd(NULL, 0); /* source paths are shown relative to it */
    z->cap = 1024;
    z->slots = bench__xcalloc(z->cap, sizeof *z->slots);
    return z;
}

static void frame_free(struct bench__profile_frame *f)
{
    free((char *)f->function);
    free((char *)f->file);
    free((char *)f->module);
    free((char *)f->reason);
    free((char *)f->inlined);
    free(f);
}

void bench__symbolizer_free(struct bench__symbolizer *z)
{
    if (!z)
        return;
    for (size_t i = 0; i < z->cap; i++)
        if (z->slots && z->slots[i].frame)
            frame_free(z->slots[i].frame);
    free(z->slots);
    free(z->cwd);
    if (z->dwfl)
        dw.end(z->dwfl);
    free(z);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The compile unit that holds `pc`. libdw finds it through .debug_aranges; a program built
 * without that section (clang's default) is searched unit by unit, by each unit's ranges. */
static struct dw_die *unit_at(dw_module *mod, dw_addr pc, dw_addr *bias)
{
    struct dw_die *cu = dw.addrdie(mod, pc, bias);
    for (struct dw_die *u = NULL; !cu && (u = dw.nextcu(mod, u, bias)) != NULL;)
        if (dw.haspc(u, pc - *bias) == 1)
            cu = u;
    return cu;
}

/* The inlined-function chain at `pc` in the module's DWARF, outermost first, joined by ';'
 * (NULL when the address is not in inlined code, or there is no DWARF). */
static char *inlined_chain(dw_module *mod, dw_addr pc)
{
    dw_addr bias = 0;
    struct dw_die *cu = unit_at(mod, pc, &bias);
    if (!cu)
        return NULL;
    struct dw_die *scopes = NULL;
    int n = dw.getscopes(cu, pc - bias, &scopes);
    char *chain = NULL;
    for (int i = n - 1; i >= 0; i--) { /* scopes are innermost first */
        if (dw.tag(&scopes[i]) != DW_TAG_INLINED)
            continue;
        const char *name = dw.diename(&scopes[i]);
        char *longer = bench__xasprintf("%s%s%s", chain ? chain : "", chain ? ";" : "",
                                        name ? name : "[inlined]");
        free(chain);
        chain = longer;
    }
    free(scopes); /* malloc'd by libdw */
    return chain;
}

static struct bench__profile_frame *resolve(struct bench__symbolizer *z, uint64_t address,
                                            bool caller)
{
    struct bench__profile_frame *f = bench__xcalloc(1, sizeof *f);
    dw_addr pc = caller && address > 0 ? address - 1 : address;
    dw_module *mod = dw.addrmodule(z->dwfl, pc);
    if (!mod && !z->reported_again) { /* a library loaded since: read the mappings again */
        z->reported_again = true;
        report(z);
        mod = dw.addrmodule(z->dwfl, pc);
    }
    if (!mod) {
        f->reason = bench__xstrdup("not in a mapped file (JIT or anonymous code)");
        return f;
    }
    const char *mainfile = NULL;
    const char *modname = dw.module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
    f->module = bench__xstrdup(base_name(mainfile ? mainfile : modname ? modname : "?"));
    const char *name = dw.addrname(mod, pc);
    if (!name) {
        dw_addr bias;
        bool dwarf = dw.getdwarf(mod, &bias) != NULL;
        f->reason =
            dwarf ? bench__xasprintf("no symbol at this address in %s", f->module)
                  : bench__xasprintf("stripped: no symbol table or debug info in %s", f->module);
        return f;
    }
    f->function = bench__xstrdup(name);
    dw_line *line = dw.getsrc(mod, pc);
    int lineno = 0;
    const char *file = line ? dw.lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    const char *comp_dir = line ? dw.line_comp_dir(line) : NULL;
    dw_addr bias = 0;
    struct dw_die *cu = line ? NULL : unit_at(mod, pc, &bias); /* no .debug_aranges */
    void *unit_line = cu ? dw.getsrc_die(cu, pc - bias) : NULL;
    if (unit_line && dw.lineno(unit_line, &lineno) == 0) {
        file = dw.linesrc(unit_line, NULL, NULL);
        struct dw_attr attr;
        comp_dir = dw.attr(cu, DW_AT_COMP_DIR, &attr) ? dw.formstring(&attr) : NULL;
    }
    if (file && lineno > 0) {
        /* libdw names a file as its line table does, joined with its directory entry, which
         * can be relative to the unit's compilation directory (meson's "../src/a.c") */
        f->file = bench__source_path(comp_dir, file, z->cwd);
        f->line = (unsigned)lineno;
    }
    f->inlined = inlined_chain(mod, pc);
    return f;
}

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static void grow_table(struct bench__symbolizer *z)
{
    size_t old_cap = z->cap;
    struct slot *old = z->slots;
    z->cap *= 2;
    z->slots = bench__xcalloc(z->cap, sizeof *z->slots);
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].key)
            continue;
        size_t h = mix(old[i].key) & (z->cap - 1);
        while (z->slots[h].key)
            h = (h + 1) & (z->cap - 1);
        z->slots[h] = old[i];
    }
    free(old);
}

const struct bench__profile_frame *bench__symbolize(struct bench__symbolizer *z, uint64_t address,
                                                    bool caller)
{
    uint64_t key = address * 2 + (caller ? 1 : 0) + 2; /* never 0 */
    size_t h = mix(key) & (z->cap - 1);
    while (z->slots[h].key) {
        if (z->slots[h].key == key)
            return z->slots[h].frame;
        h = (h + 1) & (z->cap - 1);
    }
    struct bench__profile_frame *f = resolve(z, address, caller);
    z->slots[h] = (struct slot){key, f};
    if (++z->used * 2 > z->cap)
        grow_table(z);
    return f;
}

/* ---- the capability ------------------------------------------------------------------------- */

void bench__symbolization_caps(struct bench__caps *caps)
{
    char reason[BENCH__REASON_MAX];
    struct bench__symbolizer *z = bench__symbolizer_new(reason, sizeof reason);
    if (!z) {
        bench__caps_absent(caps, BENCH__CAP_SYMBOLIZATION, "%s", reason);
        return;
    }
    /* the program's own code, found by its entry point (a stripped library is judged per
     * sample: its samples say so) */
    dw_module *mod = dw.addrmodule(z->dwfl, (dw_addr)getauxval(AT_ENTRY));
    dw_addr bias;
    const struct bench__profile_frame *f =
        bench__symbolize(z, (uint64_t)getauxval(AT_ENTRY), false);
    const char *program = f->module ? f->module : "the program";
    if (mod && dw.getdwarf(mod, &bias))
        bench__caps_present(caps, BENCH__CAP_SYMBOLIZATION);
    else if (f->function)
        bench__caps_absent(caps, BENCH__CAP_SYMBOLIZATION,
                           "no debug info in %s: functions only, no lines (build with -g)",
                           program);
    else
        bench__caps_absent(caps, BENCH__CAP_SYMBOLIZATION,
                           "no debug info in %s: stripped, no symbol table (build with -g, "
                           "do not strip)",
                           program);
    bench__symbolizer_free(z);
}
