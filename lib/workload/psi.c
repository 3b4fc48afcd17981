/* SPDX-License-Identifier: MIT */
/* psi.c: owns the /proc/pressure parser, the PSI probe/edge reads and the window deltas. It must
 * never turn an unknown or backwards total into 0, nor attribute system-wide stall to the thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../platform/os.h"
#include "../sources/source.h"
#include "../util/text.h"
#include "psi.h"

#define PSI_BUF 512   /* a pressure file is ~110 bytes; a fuller buffer is not one we know */
#define PSI_DIGITS 18 /* fewer than 19 digits: always below INT64_MAX, even ×1000 as ns */

static const char *const psi_path[3] = {"/proc/pressure/io", "/proc/pressure/memory",
                                        "/proc/pressure/cpu"};

/* ---- the parser (pure) ------------------------------------------------------------------ */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The `total=` of one labelled line [p, end) (after its label); `newline` says whether a
 * newline follows `end` (otherwise the line was cut by the end of the buffer). -1 when the
 * token is missing, repeated, glued, empty, too long or torn. */
static int64_t line_total(const char *p, const char *end, bool newline)
{
    int64_t total = -1;
    while (p < end) {
        while (p < end && is_blank(*p))
            p++;
        const char *tok = p;
        while (p < end && !is_blank(*p))
            p++;
        size_t n = (size_t)(p - tok);
        if (n < 6 || memcmp(tok, "total=", 6) != 0)
            continue; /* avg10=, avg60=, avg300= and anything a newer kernel adds */
        if (total >= 0)
            return -1; /* two totals on one line: ambiguous */
        size_t digits = n - 6;
        if (digits == 0 || digits > PSI_DIGITS)
            return -1;
        if (p == end && !newline)
            return -1; /* the digit run ends at end-of-buffer: a torn read */
        uint64_t v;
        const char *stop;
        if (bench__parse_digits(tok + 6, p, UINT64_MAX, &v, &stop) != BENCH__DIGITS_OK || stop != p)
            return -1; /* glued: total=12x */
        total = (int64_t)v;
    }
    return total;
}

int bench__psi_parse(const char *text, size_t len, int64_t *some_total_us, int64_t *full_total_us)
{
    int64_t some = -1, full = -1;
    size_t i = 0;
    while (i < len) {
        size_t eol = i;
        while (eol < len && text[eol] != '\n')
            eol++;
        bool is_some = eol - i >= 5 && memcmp(text + i, "some ", 5) == 0;
        bool is_full = eol - i >= 5 && memcmp(text + i, "full ", 5) == 0;
        if (is_some || is_full) {
            int64_t *slot = is_some ? &some : &full;
            if (*slot >= 0)
                goto invalid; /* a repeated label: which one is the file? */
            *slot = line_total(text + i + 4, text + eol, eol < len);
            if (*slot < 0)
                goto invalid;
        }
        i = eol + 1;
    }
    if (some < 0)
        goto invalid; /* includes a full line without some */
    *some_total_us = some;
    *full_total_us = full;
    return 0;
invalid:
    *some_total_us = -1;
    *full_total_us = -1;
    return -1;
}

/* ---- the source ------------------------------------------------------------------------- */

/* Read and parse one pressure file through its handle; on failure both totals are -1 and,
 * when `why` is given, it says what went wrong. */
static bool read_one(struct bench__os_file *file, const char *path, int64_t *some, int64_t *full,
                     char *why, size_t why_size)
{
    char buf[PSI_BUF];
    ssize_t n = bench__os_file_read(file, buf, sizeof buf);
    *some = *full = -1;
    if (n < 0) {
        if (why) {
            int err = (int)-n;
            const char *hint = err == ENOENT                   ? " — CONFIG_PSI=n or psi=0 boot"
                               : err == EACCES || err == EPERM ? " — hardened /proc or a sandbox"
                                                               : "";
            bench__fmt(why, why_size, "%s unreadable (%s%s)", path, strerror(err), hint);
        }
        return false;
    }
    if ((size_t)n >= sizeof buf - 1) {
        if (why)
            bench__fmt(why, why_size, "%s unparsable (longer than %zu bytes)", path,
                       sizeof buf - 2);
        return false;
    }
    if (bench__psi_parse(buf, (size_t)n, some, full) != 0) {
        if (why)
            bench__fmt(why, why_size,
                       "%s unparsable (no `some` total, or a torn or malformed `some`/`full` line)",
                       path);
        return false;
    }
    return true;
}

bool bench__psi_open(struct bench__psi *p, char *reason, size_t reason_size)
{
    char why[3][160];
    bool ok[3];
    int64_t some, full;
    memset(p, 0, sizeof *p);
#if !BENCH__LINUX
    (void)why, (void)ok, (void)some, (void)full;
    bench__fmt(reason, reason_size, BENCH__OFF_PLATFORM " (pressure stall information is Linux's)");
    bench__fmt(p->status, sizeof p->status, "unavailable (%s)", reason);
    return false;
#endif
    for (size_t f = 0; f < 3; f++) {
        bench__os_file_open(&p->file[f], psi_path[f]);
        ok[f] = read_one(&p->file[f], psi_path[f], &some, &full, why[f], sizeof why[f]);
    }
    /* the files the edges will not read are closed now */
    for (size_t f = 0; f < 3; f++)
        if (!ok[0] || !ok[f])
            bench__os_file_close(&p->file[f]);
    if (reason_size)
        reason[0] = '\0';
    if (!ok[0]) {
        bench__fmt(reason, reason_size, "%s", why[0]);
        bench__fmt(p->status, sizeof p->status, "unavailable (%s)", why[0]);
        return false;
    }
    p->available = true;
    p->memory = ok[1];
    p->cpu = ok[2];
    bench__fmt(p->status, sizeof p->status,
               "system-wide stall integrals (/proc/pressure)%s%s%s%s%s%s",
               ok[1] ? "" : "; memory masked (", ok[1] ? "" : why[1], ok[1] ? "" : ")",
               ok[2] ? "" : "; cpu masked (", ok[2] ? "" : why[2], ok[2] ? "" : ")");
    return true;
}

void bench__psi_close(struct bench__psi *p)
{
    for (size_t f = 0; f < 3; f++)
        bench__os_file_close(&p->file[f]);
}

void bench__psi_read(struct bench__psi *p, struct bench__psi_snapshot *s)
{
    int64_t unused;
    s->io_some = s->io_full = s->mem_some = s->mem_full = s->cpu_some = -1;
    if (!p->available)
        return;
    read_one(&p->file[0], psi_path[0], &s->io_some, &s->io_full, NULL, 0);
    if (p->memory)
        read_one(&p->file[1], psi_path[1], &s->mem_some, &s->mem_full, NULL, 0);
    if (p->cpu) /* no cpu full: 0 system-wide */
        read_one(&p->file[2], psi_path[2], &s->cpu_some, &unused, NULL, 0);
}

/* b − a in integer µs, then ns; NaN when either edge is unknown or the total went back. */
static double delta_ns(int64_t a, int64_t b)
{
    if (a < 0 || b < 0 || b < a)
        return NAN;
    return (double)(b - a) * 1000.0;
}

void bench__psi_delta(const struct bench__psi_snapshot *a, const struct bench__psi_snapshot *b,
                      double ns[5])
{
    ns[BENCH__PSI_IO_SOME] = delta_ns(a->io_some, b->io_some);
    ns[BENCH__PSI_IO_FULL] = delta_ns(a->io_full, b->io_full);
    ns[BENCH__PSI_MEM_SOME] = delta_ns(a->mem_some, b->mem_some);
    ns[BENCH__PSI_MEM_FULL] = delta_ns(a->mem_full, b->mem_full);
    ns[BENCH__PSI_CPU_SOME] = delta_ns(a->cpu_some, b->cpu_some);
}
