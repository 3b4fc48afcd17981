/* SPDX-License-Identifier: MIT */
/* fuzz.c: the checks every fuzz target shares (fuzz.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

void fuzz_invariant(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz: invariant broken: %s\n", what);
        abort();
    }
}

void fuzz_check_message(const char *err)
{
    fuzz_invariant(err && err[0] != '\0', "a refusal has a message");
    for (const char *c = err; *c; c++)
        fuzz_invariant((unsigned char)*c >= 0x20 && *c != 0x7F, "the message is one clean line");
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    fuzz_invariant(text != NULL, "the harness has memory for the input");
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}
