/* SPDX-License-Identifier: MIT */
/* profile.c: owns the aggregation of a sampling pass (see profile.h): self and inclusive
 * samples by function, the hottest function's lines, unsymbolised samples by reason, folded
 * stacks, shares and the estimate mark. Pure: it never samples, symbolises or prints. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "profile.h"

/* ---- counting by key ---------------------------------------------------------------------- */

struct tally {
    struct bench__profile_entry *e;
    size_t n, cap;
};

/* Add `samples` to the entry named `name` (of `module`), made when new. */
static void tally_add(struct tally *t, const char *name, const char *module, uint64_t samples)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->e[i].name, name) &&
            (t->e[i].module == module ||
             (t->e[i].module && module && !strcmp(t->e[i].module, module)))) {
            t->e[i].samples += samples;
            return;
        }
    t->e = bench__grow(t->e, &t->cap, t->n + 1, sizeof *t->e);
    t->e[t->n++] = (struct bench__profile_entry){bench__xstrdup(name),
                                                 module ? bench__xstrdup(module) : NULL, samples};
}

static int by_samples(const void *a, const void *b)
{
    const struct bench__profile_entry *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

static void entries_free(struct bench__profile_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(e[i].name);
        free(e[i].module);
    }
    free(e);
}

/* Sort, keep the first `keep` (0: all), hand the array over. */
static struct bench__profile_entry *tally_take(struct tally *t, size_t keep, size_t *n)
{
    if (t->n > 1)
        qsort(t->e, t->n, sizeof *t->e, by_samples);
    if (keep && t->n > keep) {
        for (size_t i = keep; i < t->n; i++) {
            free(t->e[i].name);
            free(t->e[i].module);
        }
        t->n = keep;
    }
    *n = t->n;
    return t->e;
}

/* ---- folded frames ----------------------------------------------------------------------- */

/* A frame's word in a folded stack: its function, else "[module]", else "[unknown]"; ';' and
 * line breaks (the format's separators) become '_'. */
static void append_frame(char **buf, size_t *len, size_t *cap, const struct bench__profile_frame *f)
{
    const char *word = f->function;
    const char *close = "";
    if (!word && f->module) {
        *buf = bench__grow(*buf, cap, *len + 2, 1);
        (*buf)[(*len)++] = '[';
        word = f->module;
        close = "]";
    } else if (!word) {
        word = "[unknown]";
    }
    size_t n = strlen(word), c = strlen(close);
    *buf = bench__grow(*buf, cap, *len + n + c + 2, 1);
    for (size_t i = 0; i < n; i++) {
        char ch = word[i];
        (*buf)[(*len)++] = ch == ';' || ch == '\n' || ch == '\r' ? '_' : ch;
    }
    memcpy(*buf + *len, close, c);
    *len += c;
    (*buf)[*len] = '\0';
    if (f->function && f->inlined) { /* the inlined chain stays ';'-joined: frames of its own */
        size_t k = strlen(f->inlined);
        *buf = bench__grow(*buf, cap, *len + k + 2, 1);
        (*buf)[(*len)++] = ';';
        for (size_t i = 0; i < k; i++) {
            char ch = f->inlined[i];
            (*buf)[(*len)++] = ch == '\n' || ch == '\r' ? '_' : ch;
        }
        (*buf)[*len] = '\0';
    }
}

/* ---- aggregation ----------------------------------------------------------------------- */

void bench__profile_aggregate(struct bench__profile *p, const struct bench__profile_sample *samples,
                              size_t n)
{
    struct tally self = {0}, incl = {0}, unsym = {0}, stacks = {0};
    p->samples = 0;
    p->n_unsymbolised_samples = 0;
    for (size_t s = 0; s < n; s++) {
        const struct bench__profile_sample *smp = &samples[s];
        if (smp->n == 0)
            continue;
        p->samples++;
        const struct bench__profile_frame *leaf = smp->frames[0];
        if (leaf->function) {
            tally_add(&self, leaf->function, leaf->module, 1);
        } else {
            tally_add(&unsym, leaf->reason ? leaf->reason : "no symbol", leaf->module, 1);
            p->n_unsymbolised_samples++;
        }
        if (p->chains) { /* each function once per sample, however often it recurs */
            for (size_t k = 0; k < smp->n; k++) {
                const struct bench__profile_frame *f = smp->frames[k];
                if (!f->function)
                    continue;
                bool seen = false;
                for (size_t j = 0; j < k && !seen; j++)
                    seen =
                        smp->frames[j]->function && !strcmp(smp->frames[j]->function, f->function);
                if (!seen)
                    tally_add(&incl, f->function, f->module, 1);
            }
        }
        char *folded = NULL;
        size_t len = 0, cap = 0;
        size_t depth = p->chains ? smp->n : 1;
        for (size_t k = depth; k-- > 0;) {
            append_frame(&folded, &len, &cap, smp->frames[k]);
            if (k) {
                folded = bench__grow(folded, &cap, len + 2, 1);
                folded[len++] = ';';
                folded[len] = '\0';
            }
        }
        tally_add(&stacks, folded, NULL, 1);
        free(folded);
    }
    p->self = tally_take(&self, BENCH__PROFILE_TOP, &p->n_self);
    p->inclusive = tally_take(&incl, BENCH__PROFILE_TOP, &p->n_inclusive);
    p->unsymbolised = tally_take(&unsym, 0, &p->n_unsymbolised);
    p->hot = p->n_self ? bench__xstrdup(p->self[0].name) : NULL;

    struct tally lines = {0};
    for (size_t s = 0; p->hot && s < n; s++) {
        const struct bench__profile_sample *smp = &samples[s];
        if (smp->n == 0)
            continue;
        const struct bench__profile_frame *leaf = smp->frames[0];
        if (!leaf->function || strcmp(leaf->function, p->hot) ||
            (p->self[0].module && (!leaf->module || strcmp(leaf->module, p->self[0].module))))
            continue;
        if (leaf->file) {
            char *where = bench__xasprintf("%s:%u", leaf->file, leaf->line);
            tally_add(&lines, where, NULL, 1);
            free(where);
        } else {
            tally_add(&lines, "(no line information)", NULL, 1);
        }
    }
    p->lines = tally_take(&lines, BENCH__PROFILE_TOP_LINES, &p->n_lines);

    size_t n_stacks;
    struct bench__profile_entry *st = tally_take(&stacks, 0, &n_stacks);
    p->stacks = bench__xcalloc(n_stacks + 1, sizeof *p->stacks);
    for (size_t i = 0; i < n_stacks; i++)
        p->stacks[i] = (struct bench__profile_stack){st[i].name, st[i].samples};
    p->n_stacks = n_stacks;
    free(st);
}

size_t bench__profile_body_frames(const uint64_t *ips, size_t n, uint64_t own_lo, uint64_t own_hi)
{
    for (size_t k = 0; k < n; k++)
        if (ips[k] >= own_lo && ips[k] < own_hi)
            return k; /* k == 0: the sampled address is the harness's own code */
    return n;
}

double bench__profile_share(const struct bench__profile *p, uint64_t samples)
{
    return p->samples ? 100.0 * (double)samples / (double)p->samples : NAN;
}

bool bench__profile_estimate(const struct bench__profile *p)
{
    return p->samples < BENCH__PROFILE_MIN_SAMPLES;
}

char *bench__profile_folded(const struct bench__profile *p, const char *root)
{
    char *out = bench__xstrdup("");
    size_t len = 0, cap = 1;
    for (size_t i = 0; i < p->n_stacks; i++) {
        char *line =
            bench__xasprintf("%s%s%s %llu\n", root ? root : "", root ? ";" : "",
                             p->stacks[i].frames, (unsigned long long)p->stacks[i].samples);
        if (root) /* the root is the row's name: its separators go too */
            for (size_t k = 0; k < strlen(root); k++)
                if (line[k] == ';' || line[k] == '\n' || line[k] == '\r')
                    line[k] = '_';
        size_t n = strlen(line);
        out = bench__grow(out, &cap, len + n + 1, 1);
        memcpy(out + len, line, n + 1);
        len += n;
        free(line);
    }
    return out;
}

/* ---- copy and release ------------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
    return s ? bench__xstrdup(s) : NULL;
}

static struct bench__profile_entry *copy_entries(const struct bench__profile_entry *e, size_t n)
{
    struct bench__profile_entry *c = bench__xcalloc(n + 1, sizeof *c);
    for (size_t i = 0; i < n; i++)
        c[i] = (struct bench__profile_entry){bench__xstrdup(e[i].name), dup_or_null(e[i].module),
                                             e[i].samples};
    return c;
}

struct bench__profile *bench__profile_copy(const struct bench__profile *p)
{
    struct bench__profile *c = bench__xmalloc(sizeof *c);
    *c = *p;
    c->unavailable = dup_or_null(p->unavailable);
    c->event = dup_or_null(p->event);
    c->unwinder = dup_or_null(p->unwinder);
    c->unwinder_reason = dup_or_null(p->unwinder_reason);
    c->note = dup_or_null(p->note);
    c->harness_unmeasured = dup_or_null(p->harness_unmeasured);
    c->hot = dup_or_null(p->hot);
    c->self = copy_entries(p->self, p->n_self);
    c->inclusive = copy_entries(p->inclusive, p->n_inclusive);
    c->lines = copy_entries(p->lines, p->n_lines);
    c->unsymbolised = copy_entries(p->unsymbolised, p->n_unsymbolised);
    c->stacks = bench__xcalloc(p->n_stacks + 1, sizeof *c->stacks);
    for (size_t i = 0; i < p->n_stacks; i++)
        c->stacks[i] = (struct bench__profile_stack){bench__xstrdup(p->stacks[i].frames),
                                                     p->stacks[i].samples};
    return c;
}

void bench__profile_free(struct bench__profile *p)
{
    if (!p)
        return;
    free(p->unavailable);
    free(p->event);
    free(p->unwinder);
    free(p->unwinder_reason);
    free(p->note);
    free(p->harness_unmeasured);
    free(p->hot);
    entries_free(p->self, p->n_self);
    entries_free(p->inclusive, p->n_inclusive);
    entries_free(p->lines, p->n_lines);
    entries_free(p->unsymbolised, p->n_unsymbolised);
    for (size_t i = 0; i < p->n_stacks; i++)
        free(p->stacks[i].frames);
    free(p->stacks);
    free(p);
}
