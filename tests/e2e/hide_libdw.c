/* SPDX-License-Identifier: MIT */
/* hide_libdw.c: an LD_PRELOAD module for the --profile checks: dlopen of any libdw fails as on
 * a host without it ("cannot open shared object file"), every other dlopen goes through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

static bool refused;

void *dlopen(const char *file, int mode)
{
    void *(*real)(const char *, int);
    void *sym = dlsym(RTLD_NEXT, "dlopen");
    memcpy(&real, &sym, sizeof real);
    if (file && strstr(file, "libdw")) {
        refused = true;
        return NULL;
    }
    return real(file, mode);
}

char *dlerror(void)
{
    char *(*real)(void);
    void *sym = dlsym(RTLD_NEXT, "dlerror");
    memcpy(&real, &sym, sizeof real);
    if (refused) {
        refused = false;
        return (char *)"libdw.so.1: cannot open shared object file: No such file or directory "
                       "(hidden by hide_libdw.so)";
    }
    return real();
}
