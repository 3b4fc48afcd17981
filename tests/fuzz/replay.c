/* SPDX-License-Identifier: MIT */
/* replay.c: the main of a fuzz target built without libFuzzer (gcc, or -Dfuzz=false): each file
 * given, and each file of each folder given, run once through LLVMFuzzerTestOneInput, so the seed
 * corpora and every crash reproducer stay regression tests of the normal suite. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    static uint8_t buf[1 << 20];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a folder, in name order (the same order on every file system). */
static int replay_dir(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (count + 1) * sizeof *names);
        fuzz_invariant(grown != NULL, "the harness has memory for the names");
        names = grown;
        names[count] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        fuzz_invariant(names[count] != NULL, "the harness has memory for the names");
        sprintf(names[count++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, by_name);
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        if (rc == 0 && replay_file(names[i]) != 0)
            rc = -1;
        (*n)++;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int n = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (replay_dir(argv[i], &n) != 0)
                return 1;
        } else {
            if (replay_file(argv[i]) != 0)
                return 1;
            n++;
        }
    }
    printf("replayed %d inputs\n", n);
    return n > 0 ? 0 : 1;
}
