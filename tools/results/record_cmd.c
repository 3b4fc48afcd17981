/* SPDX-License-Identifier: MIT */
/* record_cmd.c: owns `libbench record`: its command line, the record time and the source
 * revision, the store and its index opened before anything is written (a damaged index stops it
 * with the fix), the documents read and turned into one raw object (results_raw.c), what could
 * not be read sent to ingest-errors/, the object indexed and written (results_ingest.c), and the
 * exit status (0 everything recorded, 1 something went to ingest-errors/ or the store failed,
 * 2 usage). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bench/bench.h>

#include "results_index.h"
#include "results_tool.h"
#include "common/args.h"
#include "common/file.h"
#include "common/json.h"
#include "common/output.h"
#include "util/alloc.h"
#include "util/text.h"

void record_usage(FILE *out)
{
    fputs("usage: libbench record [--results DIR] [--profile NAME] [--subject NAME]\n"
          "                       [--timestamp TIME] [--source-revision REV]\n"
          "                       [--source NAME=HASH]... [--subject-role ROLE] [--binary FILE]\n"
          "                       DOC.json...\n"
          "\n"
          "Record one run into the results store: the documents (what --bench-json or\n"
          "`libbench run --json` wrote) are that run's repetitions. They become one immutable\n"
          "raw object, raw/v1/profile=P/date=D/bench_id=ID/sha256=H/results.jsonl, one line per\n"
          "measurement, and the index DIR/index.sqlite is brought up to date. A document or a\n"
          "row that cannot be read goes to DIR/ingest-errors/ with its reason.\n"
          "\n"
          "options:\n"
          "  --results DIR|URL      the store: a directory, or a postgresql:// URL (default:\n"
          "                         $LIBBENCH_RESULTS, else results)\n"
          "  --profile NAME         the profile of the run: [A-Za-z0-9._-] (default: default)\n"
          "  --subject NAME         what was measured: a build, a branch (default: local)\n"
          "  --timestamp TIME       the record time, YYYY-MM-DDTHH:MM:SSZ (default: now); the\n"
          "                         bench_id is made from it\n"
          "  --source-revision REV  the source revision (default: `git rev-parse HEAD` of the\n"
          "                         working directory, null when it is not a git checkout)\n"
          "  --source NAME=HASH     a source the run was built from and its hash or commit\n"
          "                         (repeatable; also read from a document's provenance fact\n"
          "                         \"source NAME=HASH\"); a change point names them\n"
          "  --subject-role ROLE    baseline, candidate, aa_control or reference (default: null)\n"
          "  --binary FILE          the binary that ran: its SHA-256 goes on every line\n"
          "  -h, --help             print this help and exit\n"
          "\n"
          "exit status: 0 recorded, 1 something went to ingest-errors/ or the store could not\n"
          "be written, 2 a usage error\n",
          out);
}

/* `git rev-parse HEAD` of the working directory: 40 or 64 hex digits, or NULL. */
static char *git_revision(void)
{
    FILE *p = popen("git rev-parse --verify -q HEAD 2>/dev/null", "r");
    if (!p)
        return NULL;
    char buf[128] = "";
    bool got = fgets(buf, sizeof buf, p) != NULL;
    if (pclose(p) != 0 || !got)
        return NULL;
    buf[strcspn(buf, "\r\n")] = '\0';
    size_t n = strlen(buf);
    if (n != 40 && n != 64)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789abcdef", buf[i]))
            return NULL;
    return bench__xstrdup(buf);
}

/* The options of record beyond the single-valued ones: --source (repeatable). */
static bool take_source(json_t *sources, const char *value)
{
    if (results_source_add(sources, value))
        return true;
    char shown[160];
    bench__sanitize_copy(value, shown, sizeof shown);
    tool_usage_error("record",
                     "--source '%s': NAME=HASH, NAME 1 to 64 of A-Z a-z 0-9 . _ -, HASH 1 to 128 "
                     "printable characters without a space",
                     shown);
    return false;
}

struct record_state {
    const struct results_store *store;
    const struct results_record_info *info;
    int errors; /* ingest errors written */
    bool store_failed;
};

/* One ingest error document, said on stderr. */
static void ingest_error(struct record_state *st, const char *doc_path, json_t *e, const char *what)
{
    char err[512], shown[256];
    char *where = NULL;
    bench__sanitize_copy(doc_path, shown, sizeof shown);
    if (results_store_put_error(st->store, st->info->profile, st->info->date, st->info->bench_id, e,
                                &where, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s: %s, and the ingest error could not be kept: %s\n", shown, what,
                err);
        st->store_failed = true;
    } else {
        fprintf(stderr, "libbench record: %s: %s: kept in %s/%s\n", shown, what, st->store->dir,
                where);
    }
    free(where);
    json_decref(e);
    st->errors++;
}

static json_t *text_or_null(const char *s, size_t n)
{
    json_t *v = json_stringn(s, n);
    return v ? v : json_null();
}

int record_main(int argc, char **argv)
{
    const char *dir = NULL, *profile = NULL, *subject = NULL, *stamp = NULL, *revision = NULL;
    const char *role = NULL, *binary = NULL;
    json_t *sources = json_object();
    char binary_hex[65];
    const char **docs = bench__xcalloc((size_t)argc, sizeof *docs);
    size_t n_docs = 0;
    int ret = 2;
    char *git = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        const char **slot = NULL;
        const char *name = NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            record_usage(stdout);
            free(docs);
            json_decref(sources);
            return 0;
        }
        if (tool_option_is(arg, "--results", &value))
            slot = &dir, name = "--results";
        else if (tool_option_is(arg, "--profile", &value))
            slot = &profile, name = "--profile";
        else if (tool_option_is(arg, "--subject", &value))
            slot = &subject, name = "--subject";
        else if (tool_option_is(arg, "--timestamp", &value))
            slot = &stamp, name = "--timestamp";
        else if (tool_option_is(arg, "--source-revision", &value))
            slot = &revision, name = "--source-revision";
        else if (tool_option_is(arg, "--subject-role", &value))
            slot = &role, name = "--subject-role";
        else if (tool_option_is(arg, "--binary", &value))
            slot = &binary, name = "--binary";
        else if (tool_option_is(arg, "--source", &value)) {
            if (!tool_take_value(argc, argv, &i, &value)) {
                tool_usage_error("record", "--source needs a value%s", "");
                goto out;
            }
            if (!take_source(sources, value))
                goto out;
            continue;
        }
        if (slot) {
            if (!tool_take_value(argc, argv, &i, &value)) {
                tool_usage_error("record", "%s needs a value", name);
                goto out;
            }
            if (*slot) {
                tool_usage_error("record", "%s given more than once", name);
                goto out;
            }
            *slot = value;
            continue;
        }
        if (!strcmp(arg, "--") && i + 1 < argc)
            arg = argv[++i];
        else if (tool_looks_like_option(arg)) {
            tool_usage_error("record", "unknown option '%s'", arg);
            goto out;
        }
        docs[n_docs++] = arg;
    }
    if (n_docs == 0) {
        tool_usage_error("record", "missing the documents (DOC.json...)%s", "");
        goto out;
    }
    struct results_record_info info = {
        .profile = profile ? profile : RESULTS_DEFAULT_PROFILE,
        .subject = subject ? subject : RESULTS_DEFAULT_SUBJECT,
        .recorder_version = bench_version_string(),
    };
    if (!results_profile_ok(info.profile)) {
        tool_usage_error("record",
                         "--profile '%s': 1 to 64 of A-Z a-z 0-9 . _ - (not starting with .)",
                         info.profile);
        goto out;
    }
    if (!info.subject[0]) {
        tool_usage_error("record", "--subject needs a non-empty name%s", "");
        goto out;
    }
    if (role && !results_subject_role_ok(role)) {
        tool_usage_error("record",
                         "--subject-role '%s': baseline, candidate, aa_control or "
                         "reference",
                         role);
        goto out;
    }
    info.subject_role = role;
    info.sources = json_object_size(sources) ? sources : NULL;
    if (binary) {
        char why[256];
        if (tool_sha256_file(binary, binary_hex, why, sizeof why) != 0) {
            char shown[256];
            bench__sanitize_copy(binary, shown, sizeof shown);
            fprintf(stderr, "error: --binary %s: %s\n", shown, why);
            goto out;
        }
        info.binary_sha256 = binary_hex;
    }
    int64_t epoch = (int64_t)time(NULL);
    if (stamp && !results_time_parse(stamp, &epoch)) {
        tool_usage_error("record", "--timestamp '%s': not a UTC time YYYY-MM-DDTHH:MM:SSZ", stamp);
        goto out;
    }
    if (!results_time_stamp(epoch, &info)) {
        tool_usage_error("record", "--timestamp: out of range%s", "");
        goto out;
    }
    if (revision)
        info.source_revision = revision[0] ? revision : NULL;
    else
        info.source_revision = git = git_revision();
    if (!dir)
        dir = results_location_default(); /* LIBBENCH_RESULTS */
    enum results_location_kind kind;
    if (results_location("record", dir, &kind) != 0)
        goto out;
    if (!dir)
        dir = RESULTS_DEFAULT_DIR;

    /* the store and its index first: one that cannot take the run stops it before anything is
     * written */
    struct results_store store;
    struct results_index *ix = NULL;
    char err[512];
    ret = 1;
    if (results_store_open(dir, true, &store, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto out;
    }
    store.command = "record";
    if (results_store_open_index(&store, true, &ix, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        results_store_close(&store);
        goto out;
    }
    struct record_state st = {.store = &store, .info = &info};
    struct bench__text out = {0};
    size_t run_base = 0, used = 0;
    long lines = 0;
    for (size_t d = 0; d < n_docs; d++) {
        size_t len = 0;
        char *text = NULL;
        tool_read_file(docs[d], RESULTS_DOC_MAX_BYTES, &text, &len, err, sizeof err);
        json_t *e = json_object();
        json_object_set_new(e, "kind", json_string("document"));
        json_object_set_new(e, "document", tool_json_text(docs[d]));
        json_object_set_new(e, "bench_id", json_string(info.bench_id));
        if (!text) {
            json_object_set_new(e, "reason", tool_json_text(err));
            ingest_error(&st, docs[d], e, err);
            continue;
        }
        json_t *rejected = json_array();
        long got =
            results_doc_text_lines(text, len, d, &info, &run_base, &out, rejected, err, sizeof err);
        if (got < 0) {
            json_object_set_new(e, "reason", tool_json_text(err));
            json_object_set_new(e, "text", text_or_null(text, len));
            ingest_error(&st, docs[d], e, err);
        } else {
            lines += got;
            used++;
            if (json_array_size(rejected) > 0) {
                char what[128];
                bench__fmt(what, sizeof what, "%zu row(s) refused", json_array_size(rejected));
                json_object_set_new(e, "reason", json_string("rows refused"));
                json_object_set(e, "rows", rejected);
                ingest_error(&st, docs[d], e, what);
            } else {
                json_decref(e);
            }
        }
        json_decref(rejected);
        free(text);
    }

    ret = st.errors || st.store_failed ? 1 : 0;
    if (lines > 0) {
        char hex[65];
        tool_sha256_hex(out.data, out.len, hex);
        char *key = results_object_key(info.profile, info.date, info.bench_id, hex);
        size_t refused = 0;
        bool already = false;
        struct results_reconciled r;
        int rc = results_store_record(&store, ix, key, hex, &out, &r, &already, &refused, err,
                                      sizeof err);
        if (rc != 0 && results_index_damaged(ix))
            results_store_damaged_fix(&store, err, sizeof err);
        if (rc == 0 && r.indexed)
            fprintf(stderr,
                    "libbench record: %zu raw object%s the index lacked (a record stopped before "
                    "its end) indexed too\n",
                    r.indexed, r.indexed == 1 ? "" : "s");
        if (rc != 0) {
            fprintf(stderr, "error: %s\n", err);
            ret = 1;
        } else {
            printf("recorded %ld measurement%s of %zu document%s as %s/%s%s\n", lines,
                   lines == 1 ? "" : "s", used, used == 1 ? "" : "s", store.dir, key,
                   already ? " (already there)" : "");
            if (refused)
                ret = 1;
        }
        free(key);
    } else {
        fputs("libbench record: nothing recorded: no document gave a measurement\n", stderr);
        ret = 1;
    }
    free(out.data);
    results_index_close(ix);
    results_store_close(&store);
    if (tool_stdout_finish() != 0)
        ret = 1;
out:
    free(git);
    free(docs);
    json_decref(sources);
    return ret;
}
