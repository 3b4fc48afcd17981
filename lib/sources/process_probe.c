/* SPDX-License-Identifier: MIT */
/* process_probe.c: owns the facts of process_probe.h (a sanitizer's runtime, a static binary, a
 * run under Valgrind), read through the OS seam where the fault injection needs them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#if BENCH__LINUX
#include <sys/auxv.h>
#endif

#include "../platform/os.h"
#include "process_probe.h"

const char *bench__sanitizer_present(void)
{
    static const struct {
        const char *symbol, *name;
    } runtimes[] = {
        {"__asan_init", "AddressSanitizer"}, {"__hwasan_init", "HWAddressSanitizer"},
        {"__tsan_init", "ThreadSanitizer"},  {"__msan_init", "MemorySanitizer"},
        {"__lsan_init", "LeakSanitizer"},
    };
    for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; i++)
        if (bench__os.dlsym(RTLD_DEFAULT, runtimes[i].symbol))
            return runtimes[i].name;
    return NULL;
}

bool bench__static_binary(void)
{
#if BENCH__LINUX
    return getauxval(AT_BASE) == 0;
#else
    return false;
#endif
}

bool bench__under_valgrind(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && strstr(preload, "vgpreload");
}
