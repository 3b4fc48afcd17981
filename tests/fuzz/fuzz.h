/* SPDX-License-Identifier: MIT */
/* fuzz.h: what every libFuzzer target of tests/fuzz/ shares: the entry points (libFuzzer's, or
 * replay.c's main in a build without it) and the checks of what a reader must do with any input:
 * an invariant broken aborts with its name, a refusal is one clean line. */
#ifndef LIBBENCH_TESTS_FUZZ_H
#define LIBBENCH_TESTS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional (weak in replay.c): called once before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Abort, naming the invariant, when ok is false. */
void fuzz_invariant(bool ok, const char *what);
/* A reader's refusal: a message that is not empty and is one line without control characters. */
void fuzz_check_message(const char *err);
/* The input as a NUL-terminated copy (the readers that take a C string); free it. */
char *fuzz_text(const uint8_t *data, size_t size);

#endif /* LIBBENCH_TESTS_FUZZ_H */
