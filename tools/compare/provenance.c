/* SPDX-License-Identifier: MIT */
/* provenance.c: owns each subject's object in compare's --json and what compare records of each
 * subject and run besides its values (seed 000's provenance): the executable's SHA-256, the
 * libbench version it reports (`BIN --version`, run once per binary through exec.c), the page cache
 * it ran in, and each run's wait4 rusage (common/rusage.c) — each null with its reason where
 * compare does not know it, never a guess. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "compare.h"
#include "common/file.h"
#include "common/json.h"
#include "common/rusage.h"
#include "common/sha256.h"
#include "common/spawn.h"
#include "util/alloc.h"
#include "util/text.h"

/* compare neither sets nor probes the page cache: every mode says so (no --cold/--warm). */
static const char *const cache_reason =
    "compare neither sets nor probes the page cache (it has no --cold/--warm): each run started "
    "from whatever the cache held";

static void set(char **slot, const char *text)
{
    free(*slot);
    *slot = bench__xstrdup(text);
}

static void put(json_t *o, const char *key, json_t *v)
{
    if (!o || !v || json_object_set_new(o, key, v) != 0)
        bench__out_of_memory();
}

static json_t *text_or_null(const char *s)
{
    return s ? tool_json_text(s) : json_null();
}

/* The version line of `BIN --version` ("libbench 0.3.0"), or why there is none. */
static void binary_version(const struct tool_program *bin, const char *tmpdir, size_t c,
                           struct compare_subject_facts *f)
{
    char log[4096], why[COMPARE_ERROR_MAX], err[COMPARE_ERROR_MAX];
    bench__fmt(log, sizeof log, "%s/version-%zu.log", tmpdir, c);
    char *argv[] = {bin->argv[0], "--version", NULL};
    struct tool_program prog = {.argv = argv, .path = bin->path}; /* borrowed */
    why[0] = '\0';
    int status = compare_exec(&prog, log, NULL, why, sizeof why);
    char *data = NULL;
    size_t len = 0;
    if (status != 0) {
        char msg[COMPARE_ERROR_MAX + 64];
        bench__fmt(msg, sizeof msg, "--version failed: %s", why[0] ? why : "failed");
        set(&f->version_why, msg);
    } else if (tool_read_file(log, 4096, &data, &len, err, sizeof err) != 0) {
        char msg[COMPARE_ERROR_MAX + 64];
        bench__fmt(msg, sizeof msg, "--version: %s", err);
        set(&f->version_why, msg);
    } else if (strncmp(data, "libbench ", 9) != 0 || len <= 9) {
        set(&f->version_why, "--version printed no 'libbench VERSION' line");
    } else {
        size_t n = strcspn(data + 9, "\r\n");
        data[9 + n] = '\0';
        char shown[128];
        bench__sanitize_copy(data + 9, shown, sizeof shown);
        set(&f->version, shown);
    }
    free(data);
    unlink(log);
}

void compare_provenance_gather(struct compare_state *st)
{
    const struct compare_options *o = &st->opts;
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        struct compare_subject_facts *f = &st->facts[s];
        if (!o->binary_mode)
            continue; /* file mode: compare_provenance_json says why each is unknown */
        set(&f->rusage_why, "the run gave no rusage: it could not be started or waited for");
        size_t c = s == SUBJ_CANDIDATE ? 1 : 0;
        const struct tool_program *p = &st->programs[c];
        char why[COMPARE_ERROR_MAX];
        if (o->commands_mode && o->shell)
            set(&f->sha256_why, "--shell: the program /bin/sh -c runs is not resolved by compare");
        else if (tool_sha256_file(p->path, f->sha256, why, sizeof why) != 0)
            set(&f->sha256_why, why);
        if (o->commands_mode)
            set(&f->version_why, "--commands: a command's version is not known to compare");
        else if (s == SUBJ_AA && st->facts[SUBJ_BASELINE].version)
            set(&f->version, st->facts[SUBJ_BASELINE].version); /* the baseline binary */
        else if (s == SUBJ_AA && st->facts[SUBJ_BASELINE].version_why)
            set(&f->version_why, st->facts[SUBJ_BASELINE].version_why);
        else
            binary_version(p, st->tmpdir, c, f);
        if (f->version) {
            free(f->version_why);
            f->version_why = NULL;
        }
    }
}

void compare_provenance_paired(const struct tool_program *bin, const char *tmpdir, size_t c,
                               struct compare_subject_facts *f)
{
    char why[COMPARE_ERROR_MAX];
    if (tool_sha256_file(bin->path, f->sha256, why, sizeof why) != 0)
        set(&f->sha256_why, why);
    binary_version(bin, tmpdir, c, f);
    if (f->version) {
        free(f->version_why);
        f->version_why = NULL;
    }
}

void compare_provenance_facts_free(struct compare_subject_facts *f)
{
    free(f->sha256_why);
    free(f->version);
    free(f->version_why);
    free(f->rusage_why);
    memset(f, 0, sizeof *f);
}

void compare_provenance_paired_json(json_t *j, const struct compare_subject_facts *f)
{
    put(j, "binary_sha256", f->sha256[0] ? tool_json_text(f->sha256) : json_null());
    put(j, "binary_sha256_reason",
        f->sha256[0] ? json_null() : text_or_null(f->sha256_why ? f->sha256_why : "unknown"));
    put(j, "libbench_version", text_or_null(f->version));
    put(j, "libbench_version_reason",
        f->version ? json_null() : text_or_null(f->version_why ? f->version_why : "unknown"));
    put(j, "page_cache_state", json_null());
    put(j, "page_cache_reason", tool_json_text(cache_reason));
    put(j, "rusage_source", json_null());
    put(j, "rusage", json_null());
    put(j, "rusage_reason",
        tool_json_text("paired mode: a subject is a live process that answers many cells' "
                       "samples; no run of it is one process to take the rusage of"));
}

void compare_provenance_run(struct compare_state *st, size_t s, size_t r, const struct rusage *ru)
{
    if (!st->ru[s])
        st->ru[s] = bench__xcalloc(st->runs_cap * TOOL_RU_N, sizeof *st->ru[s]);
    double *v = &st->ru[s][r * TOOL_RU_N];
    if (ru) {
        tool_ru_values(ru, v);
        return;
    }
    for (size_t k = 0; k < TOOL_RU_N; k++)
        v[k] = NAN;
}

static void provenance_json(json_t *j, const struct compare_state *st, size_t s, size_t n_runs)
{
    const struct compare_subject_facts *f = &st->facts[s];
    bool files = !st->opts.binary_mode;
    put(j, "binary_sha256", f->sha256[0] ? tool_json_text(f->sha256) : json_null());
    put(j, "binary_sha256_reason",
        files          ? tool_json_text("file mode: compare read documents and ran no binary")
        : f->sha256[0] ? json_null()
                       : text_or_null(f->sha256_why ? f->sha256_why : "unknown"));
    put(j, "libbench_version", text_or_null(f->version));
    put(j, "libbench_version_reason",
        files ? tool_json_text("file mode: a --bench-json document does not record the libbench "
                               "version")
        : f->version ? json_null()
                     : text_or_null(f->version_why ? f->version_why : "unknown"));
    put(j, "page_cache_state", json_null());
    put(j, "page_cache_reason", tool_json_text(cache_reason));
    put(j, "rusage_source", files ? json_null() : tool_json_text("wait4"));
    if (files) {
        put(j, "rusage", json_null());
        put(j, "rusage_reason", tool_json_text("file mode: compare ran no process"));
        return;
    }
    json_t *runs = json_array();
    put(j, "rusage", runs);
    bool any_null = false;
    for (size_t r = 0; r < n_runs; r++) {
        const double *v = st->ru[s] ? &st->ru[s][r * TOOL_RU_N] : NULL;
        if (!v || isnan(v[TOOL_RU_USER])) {
            any_null = true;
            if (json_array_append_new(runs, json_null()) != 0)
                bench__out_of_memory();
            continue;
        }
        json_t *k = json_object();
        for (size_t x = 0; x < TOOL_RU_N; x++)
            put(k, tool_ru_fields[x].name,
                isnan(v[x]) ? json_null() : json_integer((json_int_t)llround(v[x])));
        if (json_array_append_new(runs, k) != 0)
            bench__out_of_memory();
    }
    put(j, "rusage_reason", text_or_null(any_null ? f->rusage_why : NULL));
}

static json_t *child(json_t *o, const char *key, json_t *v)
{
    put(o, key, v);
    return v;
}

static void append(json_t *a, json_t *v)
{
    if (!a || !v || json_array_append_new(a, v) != 0)
        bench__out_of_memory();
}

json_t *compare_subject_json(const struct compare_state *st, size_t s, size_t n_runs)
{
    const struct compare_options *o = &st->opts;
    json_t *j = json_object();
    if (o->commands_mode) {
        size_t c = s == SUBJ_CANDIDATE ? 1 : 0;
        put(j, "command", tool_json_text(o->commands[c]));
        put(j, "shell", json_boolean(o->shell));
        json_t *args = child(j, "argv", json_array());
        for (char **w = o->command_argv[c]; w && *w; w++)
            append(args, tool_json_text(*w));
    } else if (o->binary_mode) {
        put(j, "binary", tool_json_text(o->bin[s == SUBJ_CANDIDATE ? 1 : 0]));
        json_t *args = child(j, "args", json_array());
        for (size_t k = 0; k < o->n_args; k++)
            append(args, tool_json_text(o->args[k]));
    } else {
        json_t *files = child(j, "files", json_array());
        for (size_t r = 0; r < n_runs; r++)
            append(files, tool_json_text(o->files[s][r]));
    }
    provenance_json(j, st, s, n_runs);
    return j;
}

/* "1a2b3c4d5e6f" (the first 12 digits), or an em dash. */
static void short_hash(const struct compare_subject_facts *f, char buf[16])
{
    bench__fmt(buf, 16, "%.12s", f->sha256[0] ? f->sha256 : "\xe2\x80\x94");
}

void compare_provenance_text(FILE *out, const struct compare_state *st)
{
    if (!st->opts.binary_mode)
        return;
    char hash[2][16], version[2][80] = {"", ""};
    const size_t subject[2] = {SUBJ_BASELINE, SUBJ_CANDIDATE};
    for (size_t k = 0; k < 2; k++) {
        const struct compare_subject_facts *f = &st->facts[subject[k]];
        if (!st->opts.commands_mode) /* a command's version is not known: not shown */
            bench__fmt(version[k], sizeof version[k], ", libbench %s",
                       f->version ? f->version : "\xe2\x80\x94");
        short_hash(f, hash[k]);
    }
    fprintf(out,
            "subjects: baseline sha256 %s%s; candidate sha256 %s%s; page cache not "
            "controlled\n",
            hash[0], version[0], hash[1], version[1]);
}
