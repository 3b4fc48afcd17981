/* SPDX-License-Identifier: MIT */
/* sha256.c: owns SHA-256 in the tool (sha256.h), through nettle when the build found it; without
 * it a file's hash is unavailable with that reason, never a made-up value. No other I/O. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if LIBBENCH_HAVE_NETTLE
#include <nettle/sha2.h>
#endif

#include "sha256.h"
#include "util/text.h"

#if LIBBENCH_HAVE_NETTLE

bool tool_sha256_available(void)
{
    return true;
}

static void hex_of(struct sha256_ctx *ctx, char hex[65])
{
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(ctx, sizeof digest, digest);
    for (size_t i = 0; i < sizeof digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

void tool_sha256_hex(const void *data, size_t len, char hex[65])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, len, data);
    hex_of(&ctx, hex);
}

int tool_sha256_file(const char *path, char hex[65], char *why, size_t size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0) {
        bench__fmt(why, size, "cannot open: %s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        bench__fmt(why, size, "not a regular file");
        return -1;
    }
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            bench__fmt(why, size, "cannot read: %s", strerror(e));
            return -1;
        }
        if (n == 0)
            break;
        sha256_update(&ctx, (size_t)n, (const uint8_t *)buf);
    }
    close(fd);
    hex_of(&ctx, hex);
    return 0;
}

#else

bool tool_sha256_available(void)
{
    return false;
}

int tool_sha256_file(const char *path, char hex[65], char *why, size_t size)
{
    (void)path;
    hex[0] = '\0';
    bench__fmt(why, size,
               "no SHA-256 in this build: nettle (nettle-dev) was not found when "
               "libbench was built");
    return -1;
}

#endif
