/* SPDX-License-Identifier: MIT */
/* sha256.h: SHA-256 for the tool (nettle, when the build found it): of bytes, and of a regular
 * file read in pieces (`libbench record`'s keys and --binary, `libbench compare`'s subjects). */
#ifndef LIBBENCH_TOOLS_COMMON_SHA256_H
#define LIBBENCH_TOOLS_COMMON_SHA256_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this build has SHA-256 (nettle-dev was found); without it tool_sha256_file says why
 * and tool_sha256_hex is not defined (only the results commands use it, built with nettle). */
bool tool_sha256_available(void);
/* SHA-256 of data as 64 lowercase hex digits. */
void tool_sha256_hex(const void *data, size_t len, char hex[65]);
/* SHA-256 of a regular file, read in pieces (never opened if it is not one: a FIFO would
 * block); 0, or -1 with the reason in why. */
int tool_sha256_file(const char *path, char hex[65], char *why, size_t size);

#endif /* LIBBENCH_TOOLS_COMMON_SHA256_H */
