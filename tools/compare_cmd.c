/* SPDX-License-Identifier: MIT */
/* compare_cmd.c: owns the `libbench compare` command: its options, the order of its steps (runs
 * or documents, cells, the engine call, the report) and its exit status. No statistics. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/compare.h"
#include "compare_tool.h"
#include "util/text.h"

#define RUNS_DEFAULT 5u
#define RUNS_MAX 1000u

const char *const compare_subject_names[N_SUBJECTS] = {"baseline", "candidate", "aa"};

/* ---- the command line -------------------------------------------------------------------- */

void compare_usage(FILE *out)
{
    fputs("usage: libbench compare [OPTIONS] BASELINE_BIN CANDIDATE_BIN [-- ARGS...]\n"
          "       libbench compare [OPTIONS] --baseline B1.json... --candidate C1.json...\n"
          "                        [--aa A1.json...]\n"
          "\n"
          "Compare two builds with an A/A control (the baseline again under a second name).\n"
          "Binary mode runs baseline, candidate and the control interleaved in a seeded random\n"
          "order, each run one `BIN --bench --bench-json=FILE ARGS...`; file mode reads one\n"
          "--bench-json document per run (its position in the list is its run index), or\n"
          "Google Benchmark JSON, one run per repetition, the files' runs pooled in order.\n"
          "\n"
          "options:\n"
          "  --runs N            binary mode: runs per subject (default 5; 5 is the practical\n"
          "                      minimum, fewer than 3 leaves every cell UNMEASURED)\n"
          "  --seed N            global seed of the schedule and the bootstraps (default 0)\n"
          "  --q X               false discovery rate of Benjamini-Hochberg (default 0.05)\n"
          "  --min-delta-ns X    smallest absolute median change that can be claimed (default 0)\n"
          "  --json FILE         also write the comparison as JSON (written atomically)\n"
          "  --baseline FILE...  file mode: the baseline's documents, in run order\n"
          "  --candidate FILE... file mode: the candidate's documents\n"
          "  --aa FILE...        file mode: the A/A control's documents\n"
          "  -h, --help          print this help and exit\n"
          "\n"
          "exit status: 0 PASS, 1 REGRESSION, 2 UNMEASURED or an error\n",
          out);
}

struct cmd_error {
    char text[COMPARE_ERROR_MAX];
};

__attribute__((format(printf, 2, 3))) static int usage_error(struct cmd_error *e, const char *fmt,
                                                             ...)
{
    va_list ap;
    va_start(ap, fmt);
    bench__vfmt(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
    bench__sanitize(e->text);
    return -1;
}

static bool parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    int base = 10;
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text += 2;
    }
    if (!*text)
        return false;
    for (const char *p = text; *p; p++)
        if (!(base == 10 ? (*p >= '0' && *p <= '9') : strchr("0123456789abcdefABCDEF", *p) != NULL))
            return false;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, base);
    if (errno == ERANGE || v > max)
        return false;
    *out = v;
    return true;
}

static bool parse_double(const char *text, double *out)
{
    if (!*text)
        return false;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

enum list_id { LIST_NONE = -1 };

/* The option a word names, "--name" or "--name=value"; the value (or NULL) in *value. */
static bool option_is(const char *arg, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return false;
    if (arg[n] == '\0') {
        *value = NULL;
        return true;
    }
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return true;
    }
    return false;
}

static int parse_args(struct compare_options *o, int argc, char **argv, struct cmd_error *e,
                      bool *help)
{
    memset(o, 0, sizeof *o);
    o->runs = RUNS_DEFAULT;
    o->q = 0.05;
    bool seen_runs = false, seen_seed = false, seen_q = false, seen_delta = false;
    bool seen_list[N_SUBJECTS] = {false, false, false};
    int list = LIST_NONE;
    size_t n_pos = 0;
    static const char *const list_opts[N_SUBJECTS] = {"--baseline", "--candidate", "--aa"};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;
        if (strcmp(arg, "--") == 0) {
            o->args = argv + i + 1;
            o->n_args = (size_t)(argc - i - 1);
            break;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (list != LIST_NONE) {
                o->files[list][o->n_files[list]++] = argv[i];
                continue;
            }
            if (n_pos >= 2)
                return usage_error(e, "unexpected argument '%s' (give two binaries)", arg);
            o->bin[n_pos++] = arg;
            continue;
        }
        list = LIST_NONE;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            *help = true;
            return 0;
        }
        bool matched = false;
        for (int s = 0; s < N_SUBJECTS && !matched; s++) {
            if (!option_is(arg, list_opts[s], &value))
                continue;
            matched = true;
            if (seen_list[s])
                return usage_error(e, "'%s' given twice (list every file after one '%s')",
                                   list_opts[s], list_opts[s]);
            seen_list[s] = true;
            o->files[s] = calloc((size_t)argc, sizeof *o->files[s]);
            if (!o->files[s])
                return usage_error(e, "out of memory");
            if (value) {
                if (!*value)
                    return usage_error(e, "'%s=' needs a file name", list_opts[s]);
                o->files[s][o->n_files[s]++] = (char *)value;
            }
            list = s;
        }
        if (matched)
            continue;
        /* options with one value: "--opt=V" or "--opt V" */
        static const char *const valued[] = {"--runs", "--seed", "--q", "--min-delta-ns", "--json"};
        size_t k = 0;
        for (; k < sizeof valued / sizeof *valued; k++)
            if (option_is(arg, valued[k], &value))
                break;
        if (k == sizeof valued / sizeof *valued)
            return usage_error(e, "unknown option '%s'", arg);
        if (!value) {
            if (i + 1 >= argc)
                return usage_error(e, "'%s' needs a value", valued[k]);
            value = argv[++i];
        }
        uint64_t u;
        switch (k) {
        case 0:
            if (seen_runs)
                return usage_error(e, "'--runs' given twice");
            seen_runs = true;
            if (!parse_u64(value, RUNS_MAX, &u) || u == 0)
                return usage_error(e, "--runs: '%s' is not a whole number from 1 to %u", value,
                                   RUNS_MAX);
            o->runs = (unsigned)u;
            break;
        case 1:
            if (seen_seed)
                return usage_error(e, "'--seed' given twice");
            seen_seed = true;
            if (!parse_u64(value, UINT64_MAX, &o->seed))
                return usage_error(e, "--seed: '%s' is not an unsigned 64-bit number", value);
            break;
        case 2:
            if (seen_q)
                return usage_error(e, "'--q' given twice");
            seen_q = true;
            if (!parse_double(value, &o->q) || !(o->q > 0 && o->q < 1))
                return usage_error(e, "--q: '%s' is not a number between 0 and 1", value);
            break;
        case 3:
            if (seen_delta)
                return usage_error(e, "'--min-delta-ns' given twice");
            seen_delta = true;
            if (!parse_double(value, &o->min_delta_ns) || o->min_delta_ns < 0)
                return usage_error(e, "--min-delta-ns: '%s' is not a number >= 0", value);
            break;
        default:
            if (o->json_path)
                return usage_error(e, "'--json' given twice");
            if (!*value)
                return usage_error(e, "--json needs a file name");
            o->json_path = value;
            break;
        }
    }

    bool any_files = seen_list[0] || seen_list[1] || seen_list[2];
    if (any_files && n_pos > 0)
        return usage_error(e, "give either two binaries or --baseline/--candidate documents, "
                              "not both");
    if (!any_files) {
        if (n_pos < 2)
            return usage_error(e, n_pos == 0 ? "nothing to compare: give BASELINE_BIN "
                                               "CANDIDATE_BIN or --baseline/--candidate files"
                                             : "missing CANDIDATE_BIN");
        for (size_t a = 0; a < o->n_args; a++)
            if (strncmp(o->args[a], "--bench-json", 12) == 0)
                return usage_error(e, "ARGS may not hold '--bench-json': compare writes its own "
                                      "documents");
        o->binary_mode = true;
        return 0;
    }
    if (seen_runs)
        return usage_error(e, "--runs applies to binaries (in file mode each file is one run)");
    if (o->n_args > 0)
        return usage_error(e, "ARGS after '--' apply to binaries, not to documents");
    for (int s = 0; s < N_SUBJECTS; s++) {
        if (seen_list[s] && o->n_files[s] == 0)
            return usage_error(e, "'%s' needs at least one file", list_opts[s]);
        if (!seen_list[s] && s != SUBJ_AA)
            return usage_error(e, "missing '%s' documents", list_opts[s]);
    }
    return 0;
}

/* ---- the command ------------------------------------------------------------------------ */

static void state_free(struct compare_state *st)
{
    for (size_t i = 0; i < st->n_cells; i++)
        for (size_t s = 0; s < N_SUBJECTS; s++) {
            for (size_t r = 0; r < st->n_runs[s]; r++)
                free(st->cells[i].skips[s][r]);
            free(st->cells[i].skips[s]);
            free(st->cells[i].values[s]);
        }
    free(st->cells);
    free(st->slots);
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        for (size_t r = 0; r < st->n_runs[s]; r++) {
            if (st->docs[s])
                compare_doc_free(&st->docs[s][r]);
            if (st->run_fail[s])
                free(st->run_fail[s][r]);
        }
        free(st->docs[s]);
        free(st->run_fail[s]);
        free(st->opts.files[s]);
    }
    free(st->schedule);
    free(st->tmpdir);
}

/* The engine's input arms of every cell: present runs only, ascending run numbers. */
static int analyse(struct compare_state *st, const struct bench__cmp_params *params,
                   struct bench__cmp_cell_out *out, struct bench__cmp_result *result, char *err,
                   size_t err_size)
{
    size_t n = st->n_cells;
    struct bench__cmp_cell_in *in = calloc(n ? n : 1, sizeof *in);
    size_t total = 0;
    for (size_t s = 0; s < N_SUBJECTS; s++)
        total += st->n_runs[s];
    double *values = malloc((n ? n : 1) * (total ? total : 1) * sizeof *values);
    uint64_t *runs = malloc((n ? n : 1) * (total ? total : 1) * sizeof *runs);
    if (!in || !values || !runs) {
        free(in);
        free(values);
        free(runs);
        bench__fmt(err, err_size, "out of memory");
        return -1;
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const struct compare_cell *c = &st->cells[i];
        in[i].scenario = c->row->name;
        in[i].operation = c->row->operation;
        struct bench__arm *arms[N_SUBJECTS] = {&in[i].base, &in[i].cand, &in[i].aa};
        for (size_t s = 0; s < N_SUBJECTS; s++) {
            arms[s]->values = values + used;
            arms[s]->runs = runs + used;
            arms[s]->n = 0;
            for (size_t r = 0; r < st->n_runs[s]; r++) {
                if (isnan(c->values[s][r]))
                    continue;
                values[used] = c->values[s][r];
                runs[used] = r + 1;
                used++;
                arms[s]->n++;
            }
        }
    }
    size_t bad = 0;
    int rc = bench__compare(params, in, n, out, result, &bad);
    if (rc != 0) {
        char name[128], op[128];
        bench__sanitize_copy(bad < n ? in[bad].scenario : "?", name, sizeof name);
        bench__sanitize_copy(bad < n ? in[bad].operation : "", op, sizeof op);
        bench__fmt(err, err_size, "the engine refused cell '%s' {%s} (error %d)", name, op, rc);
    }
    free(in);
    free(values);
    free(runs);
    return rc ? -1 : 0;
}

int compare_main(int argc, char **argv)
{
    struct compare_state st;
    memset(&st, 0, sizeof st);
    struct cmd_error ue;
    bool help = false;
    if (parse_args(&st.opts, argc, argv, &ue, &help) != 0) {
        fprintf(stderr, "error: %s (see libbench --help)\n", ue.text);
        state_free(&st);
        return 2;
    }
    if (help) {
        compare_usage(stdout);
        state_free(&st);
        return 0;
    }

    char err[COMPARE_ERROR_MAX + 300];
    int status = 2;
    struct bench__cmp_cell_out *out = NULL;
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        st.n_runs[s] = st.opts.binary_mode ? st.opts.runs : st.opts.n_files[s];
        st.docs[s] = calloc(st.n_runs[s] ? st.n_runs[s] : 1, sizeof *st.docs[s]);
        st.run_fail[s] = calloc(st.n_runs[s] ? st.n_runs[s] : 1, sizeof *st.run_fail[s]);
        if (!st.docs[s] || !st.run_fail[s]) {
            fprintf(stderr, "error: out of memory\n");
            goto done;
        }
    }
    if (st.opts.binary_mode) {
        st.schedule = calloc((size_t)st.opts.runs * N_SUBJECTS, sizeof *st.schedule);
        if (!st.schedule || compare_run_binaries(&st, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", st.schedule ? err : "out of memory");
            goto done;
        }
    } else if (compare_load_files(&st, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto done;
    }
    if (compare_assemble(&st, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto done;
    }

    struct bench__cmp_params params;
    bench__cmp_defaults(&params);
    params.q = st.opts.q;
    params.min_delta = st.opts.min_delta_ns;
    params.global_seed = st.opts.seed;
    params.subj_b = compare_subject_names[SUBJ_BASELINE];
    params.subj_c = compare_subject_names[SUBJ_CANDIDATE];
    params.subj_a = compare_subject_names[SUBJ_AA];
    struct bench__cmp_result result = {0};
    out = calloc(st.n_cells ? st.n_cells : 1, sizeof *out);
    if (!out) {
        fprintf(stderr, "error: out of memory\n");
        goto done;
    }
    if (st.n_cells == 0) {
        /* nothing was measured: never a pass */
        result.verdict = "UNMEASURED";
        result.exit_code = 2;
        result.reason = "unmeasured_cells";
    } else if (analyse(&st, &params, out, &result, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto done;
    }

    struct compare_report rep = {
        .opts = &st.opts,
        .params = &params,
        .cells = st.cells,
        .n_cells = st.n_cells,
        .out = out,
        .result = &result,
        .schedule = st.schedule,
    };
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        rep.n_runs[s] = st.n_runs[s];
        rep.run_fail[s] = st.run_fail[s];
    }
    compare_report_text(stdout, &rep);
    fflush(stdout);
    status = result.exit_code;
    if (st.opts.json_path && compare_report_json(&rep, st.opts.json_path, err, sizeof err) != 0) {
        fprintf(stderr, "error: --json: %s\n", err);
        status = 2;
    }
done:
    free(out);
    state_free(&st);
    return status;
}
