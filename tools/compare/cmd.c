/* SPDX-License-Identifier: MIT */
/* cmd.c: owns the `libbench compare` command: its options, the order of its steps (runs
 * or documents, cells, the engine call, the report) and its exit status. No statistics. It is
 * over 600 lines because its options serve four modes (binaries paired or run-level, --commands,
 * documents) and each rule between them is checked here, in one place. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/compare.h"
#include "compare.h"
#include "common/args.h"
#include "common/spawn.h"
#include "common/tmpdir.h"
#include "common/words.h"
#include "util/alloc.h"
#include "util/text.h"

#define RUNS_DEFAULT 5u
#define RUNS_MAX 1000u
#define RUNS_AUTO_MAX_DEFAULT 30u /* --runs=auto without :MAX */
#define DETECT_DEFAULT 10.0       /* --detect, in percent */
#define DETECT_MIN 3.0            /* the smallest A/A floor (f_min), in percent */
#define DETECT_MAX 1000.0
#define BUDGET_DEFAULT 60.0 /* --budget: the paired mode's seconds of measuring */
#define ROUNDS_DEFAULT 256u /* --max-rounds: the paired mode's round cap (its last look) */
#define ROUNDS_MAX 100000u

/* ---- the command line -------------------------------------------------------------------- */

void compare_usage(FILE *out)
{
    fputs("usage: libbench compare [OPTIONS] BASELINE_BIN CANDIDATE_BIN [-- ARGS...]\n"
          "       libbench compare [OPTIONS] --baseline B1.json... --candidate C1.json...\n"
          "                        [--aa A1.json...]\n"
          "       libbench compare [OPTIONS] --commands 'BASE CMD' 'CAND CMD'\n"
          "\n"
          "Compare two builds with an A/A control (the baseline again under a second name).\n"
          "Binary mode pairs samples: three live `BIN --bench --bench-serve ARGS...` processes\n"
          "(baseline, candidate, control) take one sample each of a cell per round, in a\n"
          "seeded shuffled order, at the iteration count calibrated once on the baseline, with\n"
          "rounds added only to undecided cells (--mode=paired, docs/explanation/statistics.md,\n"
          "\"The paired design\"). A binary that does not serve, --runs, --junit or --summary\n"
          "select the run-level mode (said in the output): runs of baseline, candidate and the\n"
          "control interleaved in a seeded random order, each run one\n"
          "`BIN --bench --bench-json=FILE ARGS...`; file mode reads one\n"
          "--bench-json document per run (its position in the list is its run index), or\n"
          "Google Benchmark JSON, one run per repetition, the files' runs pooled in order;\n"
          "--commands runs each command as `libbench run` does, each run's value the wall time\n"
          "of one process (one cell, '" COMPARE_COMMAND_CELL "').\n"
          "\n",
          out);
    fputs("options:\n"
          "  --mode MODE         binaries: paired (one sample per subject per round; the\n"
          "                      default when both binaries serve) or runs (whole runs)\n"
          "  --budget SECONDS    paired mode: the wall time for the rounds (default 60); the\n"
          "                      cells still undecided then keep the rounds they have\n"
          "  --max-rounds N      paired mode: the most rounds of a cell (default 256, at\n"
          "                      least 8); the looks are at 8, 12, 16, 24, 32, ... and N\n"
          "  --processes WHEN    paired mode: round (default) starts the three subjects afresh\n"
          "                      for every round, so that one process's layout (ASLR, pages)\n"
          "                      is noise, not a bias; once keeps them for the whole run\n"
          "  --duet              paired mode: time the baseline beside the candidate (and\n"
          "                      beside the control) at the same instant on two CPUs, each\n"
          "                      pinned; needs two CPUs\n"
          "  --runs N            binary mode: runs per subject (default 5; 5 is the practical\n"
          "                      minimum, fewer than 3 leaves every cell UNMEASURED)\n"
          "  --runs auto[:MAX]   binary mode: 5 runs, then one more at a time until every\n"
          "                      cell's A/A floor is at most --detect (and the family has the\n"
          "                      runs Benjamini-Hochberg needs), or MAX runs (default 30)\n"
          "  --detect PCT        the smallest change, in percent, every cell must be able to\n"
          "                      show (default 10, at least 3): a cell whose A/A floor is\n"
          "                      above it and claims nothing is UNMEASURED, never a PASS\n"
          "  --seed N            global seed of the schedule and the bootstraps (default 0)\n"
          "  --q X               false discovery rate of Benjamini-Hochberg (default 0.05)\n"
          "  --min-delta-ns X    smallest absolute median change that can be claimed (default 0)\n"
          "  --metric NAME       compare the rows' metric NAME (a --bench-json metric id, like\n"
          "                      allocs or instr) instead of their median time; binary mode\n"
          "                      adds --metrics=NAME to each run unless ARGS hold --metrics.\n"
          "                      allocs, frees, alloc-bytes and instructions (callgrind) are\n"
          "                      exact counts: a floor of 0, any difference a change, equal\n"
          "                      counts NO_CHANGE; perf's instr is judged like time\n"
          "  --metric A,B        two channels on the same runs (time,instructions): a state\n"
          "                      per channel per cell, where they disagree, and exit 1 when\n"
          "                      either claims a regression\n"
          "  --global-noise-floor[=PCT]  every cell's floor is at least PCT, or bare the\n"
          "                      largest A/A floor of all cells (a claim must clear it)\n",
          out);
    fputs("  --json FILE         also write the comparison as JSON (written atomically)\n"
          "  --junit FILE        also write each cell as a JUnit test case (a regression\n"
          "                      fails, UNMEASURED is skipped; written atomically)\n"
          "  --summary FILE      append the verdict and the cells that need a look as\n"
          "                      Markdown (for $GITHUB_STEP_SUMMARY or a merge request)\n"
          "  --baseline FILE...  file mode: the baseline's documents, in run order\n"
          "  --candidate FILE... file mode: the candidate's documents\n"
          "  --aa FILE...        file mode: the A/A control's documents\n"
          "  --commands B C      the baseline and candidate commands, each one word, split\n"
          "                      like `libbench run -c` (no shell, no expansion); they are\n"
          "                      the two words that are not options, in that order, wherever\n"
          "                      they stand among the options\n"
          "  --shell             --commands: run each through /bin/sh -c\n"
          "  --timeout SECONDS   --commands: a run that takes longer is killed (with its\n"
          "                      process group) and gives no value; paired mode: a sample\n"
          "                      or calibration that takes longer (default 30) is a hang:\n"
          "                      the subject is restarted and the cell is UNMEASURED\n"
          "  -h, --help          print this help and exit\n"
          "\n"
          "Numbers are plain decimal: no sign, no 0x, no exponent, no spaces. An option's value\n"
          "is never a word that starts with '-' (write --json=-FILE for such a name).\n"
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

enum list_id { LIST_NONE = -1 };

/* --metric NAME or --metric A,B (two channels, each "time" or a metric name). */
static int parse_metric(struct compare_options *o, const char *value, struct cmd_error *e)
{
    for (const char *c = value; *c; c++)
        if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9') &&
            !strchr("-_./,", *c))
            return usage_error(e,
                               "--metric: '%s' is not a metric name (letters, digits and "
                               "- _ . /, like allocs) or two joined by a comma (time,instructions)",
                               value);
    const char *comma = strchr(value, ',');
    if (!comma) {
        o->metric = strcmp(value, "time") == 0 ? NULL : value;
        o->metric_exact = compare_metric_is_exact(o->metric);
        if (o->metric)
            bench__fmt(o->metrics_arg, sizeof o->metrics_arg, "--metrics=%s", o->metric);
        return 0;
    }
    free(o->channel_list);
    o->channel_list = bench__xstrdup(value);
    char *second = o->channel_list + (comma - value);
    *second++ = '\0';
    o->channels[0] = o->channel_list;
    o->channels[1] = second;
    o->n_channels = 2;
    if (!*o->channels[0] || !*o->channels[1] || strchr(second, ',') ||
        strcmp(o->channels[0], o->channels[1]) == 0)
        return usage_error(e,
                           "--metric: '%s': two different channels joined by one comma, "
                           "like time,instructions",
                           value);
    char list[300] = "";
    for (size_t k = 0; k < 2; k++)
        if (strcmp(o->channels[k], "time") != 0)
            bench__fmt(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? "," : "",
                       o->channels[k]);
    bench__fmt(o->metrics_arg, sizeof o->metrics_arg, "--metrics=%s", list);
    /* the channel that decides --runs=auto: time when it is one (an exact count needs no more
     * runs than the first) */
    compare_select_channel(o, strcmp(o->channels[1], "time") == 0 ? 1 : 0);
    return 0;
}

static int parse_args(struct compare_options *o, int argc, char **argv, struct cmd_error *e,
                      bool *help)
{
    memset(o, 0, sizeof *o);
    o->runs = RUNS_DEFAULT;
    o->q = 0.05;
    o->detect = DETECT_DEFAULT / 100.0;
    o->budget_s = BUDGET_DEFAULT;
    o->max_rounds = ROUNDS_DEFAULT;
    o->fresh = true;
    bool seen[14] = {false}; /* the valued options below, by index */
    bool seen_list[N_SUBJECTS] = {false, false, false};
    int list = LIST_NONE;
    size_t n_pos = 0;
    const char *extra = NULL; /* a third word that is not an option */
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
            if (n_pos >= 2) {
                if (!extra)
                    extra = arg; /* said at the end, when the mode is known */
                continue;
            }
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
            if (!tool_option_is(arg, list_opts[s], &value))
                continue;
            matched = true;
            if (seen_list[s])
                return usage_error(e, "'%s' given twice (list every file after one '%s')",
                                   list_opts[s], list_opts[s]);
            seen_list[s] = true;
            o->files[s] = bench__xcalloc((size_t)argc, sizeof *o->files[s]);
            if (value) {
                if (!*value)
                    return usage_error(e, "'%s=' needs a file name", list_opts[s]);
                o->files[s][o->n_files[s]++] = (char *)value;
            }
            list = s;
        }
        if (matched)
            continue;
        /* --global-noise-floor[=PCT]: bare, the worst cell's A/A floor; a value only after '=' */
        if (tool_option_is(arg, "--global-noise-floor", &value)) {
            if (o->global_floor != 0)
                return usage_error(e, "'--global-noise-floor' given twice");
            double pct;
            if (!value) {
                o->global_floor = BENCH__CMP_GLOBAL_FLOOR_WORST;
                continue;
            }
            if (!tool_parse_decimal(value, &pct) || !(pct > 0) || pct > DETECT_MAX)
                return usage_error(e,
                                   "--global-noise-floor: '%s' is not a percentage above 0 and "
                                   "at most %g (or give it bare: the worst cell's A/A floor)",
                                   value, DETECT_MAX);
            o->global_floor = pct / 100.0;
            continue;
        }
        if (strcmp(arg, "--shell") == 0) {
            o->shell = true;
            continue;
        }
        if (strcmp(arg, "--duet") == 0) {
            o->duet = true;
            continue;
        }
        /* --commands is a mode: its two commands are the two words that are not options, in
         * order (baseline, candidate), wherever they stand among the options. */
        if (tool_option_is(arg, "--commands", &value)) {
            if (value)
                return usage_error(e, "--commands takes two words, not '--commands=': "
                                      "--commands 'BASE CMD' 'CAND CMD'");
            if (o->commands_mode)
                return usage_error(e, "'--commands' given twice");
            o->commands_mode = true;
            continue;
        }
        /* options with one value: "--opt=V" or "--opt V", where V is never another option */
        static const struct {
            const char *name, *needs;
        } valued[] = {
            {"--runs", "a number, 'auto' or 'auto:MAX'"},
            {"--seed", "a number"},
            {"--q", "a number"},
            {"--min-delta-ns", "a number"},
            {"--json", "a file name"},
            {"--detect", "a number (a percentage)"},
            {"--timeout", "a number of seconds"},
            {"--junit", "a file name"},
            {"--summary", "a file name"},
            {"--metric", "a metric name (like allocs)"},
            {"--mode", "'runs' or 'paired'"},
            {"--budget", "a number of seconds"},
            {"--max-rounds", "a number"},
            {"--processes", "'round' or 'once'"},
        };
        size_t k = 0;
        for (; k < sizeof valued / sizeof *valued; k++)
            if (tool_option_is(arg, valued[k].name, &value))
                break;
        if (k == sizeof valued / sizeof *valued)
            return usage_error(e, "unknown option '%s'", arg);
        if (!tool_take_value(argc, argv, &i, &value))
            return usage_error(e, "%s needs %s", valued[k].name, valued[k].needs);
        if (!*value)
            return usage_error(e, "%s needs %s", valued[k].name, valued[k].needs);
        if (seen[k])
            return usage_error(e, "'%s' given twice", valued[k].name);
        seen[k] = true;
        uint64_t u;
        switch (k) {
        case 0:
            if (strcmp(value, "auto") == 0 || strncmp(value, "auto:", 5) == 0) {
                o->runs_auto = true;
                if (value[4] == ':' &&
                    (!tool_parse_whole(value + 5, RUNS_MAX, &u) || u < RUNS_DEFAULT))
                    return usage_error(e,
                                       "--runs: in '%s', MAX is not a whole number from %u to %u",
                                       value, RUNS_DEFAULT, RUNS_MAX);
                o->runs_max = value[4] == ':' ? (unsigned)u : RUNS_AUTO_MAX_DEFAULT;
                break;
            }
            if (!tool_parse_whole(value, RUNS_MAX, &u) || u == 0)
                return usage_error(e,
                                   "--runs: '%s' is not a whole number from 1 to %u, 'auto' "
                                   "or 'auto:MAX'",
                                   value, RUNS_MAX);
            o->runs = (unsigned)u;
            break;
        case 1:
            if (!tool_parse_whole(value, UINT64_MAX, &o->seed))
                return usage_error(e, "--seed: '%s' is not a whole number from 0 to %llu", value,
                                   (unsigned long long)UINT64_MAX);
            break;
        case 2:
            if (!tool_parse_decimal(value, &o->q) || !(o->q > 0 && o->q < 1))
                return usage_error(
                    e, "--q: '%s' is not a decimal number between 0 and 1 (like 0.05)", value);
            break;
        case 3:
            if (!tool_parse_decimal(value, &o->min_delta_ns))
                return usage_error(
                    e, "--min-delta-ns: '%s' is not a decimal number >= 0 (like 2.5)", value);
            break;
        case 9:
            if (parse_metric(o, value, e) != 0)
                return -1;
            break;
        case 4: o->json_path = value; break;
        case 7: o->junit_path = value; break;
        case 8: o->summary_path = value; break;
        case 10:
            if (strcmp(value, "runs") != 0 && strcmp(value, "paired") != 0)
                return usage_error(e, "--mode: '%s' is not 'runs' or 'paired'", value);
            o->mode = value[0] == 'r' ? COMPARE_MODE_RUNS : COMPARE_MODE_PAIRED;
            break;
        case 13:
            if (strcmp(value, "round") != 0 && strcmp(value, "once") != 0)
                return usage_error(e, "--processes: '%s' is not 'round' or 'once'", value);
            o->fresh = value[0] == 'r';
            break;
        case 12:
            if (!tool_parse_whole(value, ROUNDS_MAX, &u) || u < 8)
                return usage_error(e, "--max-rounds: '%s' is not a whole number from 8 to %u",
                                   value, ROUNDS_MAX);
            o->max_rounds = (unsigned)u;
            break;
        case 11:
            if (!tool_parse_decimal(value, &o->budget_s) || !(o->budget_s > 0) || o->budget_s > 1e6)
                return usage_error(e,
                                   "--budget: '%s' is not a number of seconds above 0 and at "
                                   "most 1000000",
                                   value);
            break;
        case 6: {
            double secs;
            if (!tool_parse_decimal(value, &secs) || !(secs > 0) || secs > 1e6 ||
                llround(secs * 1e9) <= 0)
                return usage_error(e,
                                   "--timeout: '%s' is not a number of seconds above 0 and at "
                                   "most 1000000 (like 5 or 0.5)",
                                   value);
            o->timeout_ns = (int64_t)llround(secs * 1e9);
            break;
        }
        default: {
            double pct;
            if (!tool_parse_decimal(value, &pct) || pct < DETECT_MIN || pct > DETECT_MAX)
                return usage_error(e,
                                   "--detect: '%s' is not a percentage from %g to %g (an A/A "
                                   "floor is never below %g%%)",
                                   value, DETECT_MIN, DETECT_MAX, DETECT_MIN);
            o->detect = pct / 100.0;
            break;
        }
        }
    }

    bool any_files = seen_list[0] || seen_list[1] || seen_list[2];
    if (o->duet && (o->commands_mode || any_files || o->mode == COMPARE_MODE_RUNS))
        return usage_error(e, "--duet applies to the paired mode (two binaries that serve)");
    if (o->commands_mode) {
        if (seen[10] || seen[11] || seen[12] || seen[13])
            return usage_error(e, "%s applies to binaries",
                               seen[10]   ? "--mode"
                               : seen[11] ? "--budget"
                               : seen[12] ? "--max-rounds"
                                          : "--processes");
        if (any_files)
            return usage_error(e, "give --commands, two binaries or --baseline/--candidate "
                                  "documents: one of them");
        if (extra)
            return usage_error(e,
                               "unexpected argument '%s': --commands takes two commands, the "
                               "words that are not options (the baseline's, then the "
                               "candidate's; quote each as one word)",
                               extra);
        if (n_pos < 2)
            return usage_error(e, "--commands needs two commands, the words that are not options "
                                  "(the baseline's, then the candidate's, anywhere among the "
                                  "options): --commands 'BASE CMD' 'CAND CMD'");
        o->commands[0] = o->bin[0];
        o->commands[1] = o->bin[1];
        o->bin[0] = o->bin[1] = NULL;
        if (o->n_args > 0)
            return usage_error(e, "ARGS after '--' apply to binaries: put a command's arguments "
                                  "in its string");
        if (seen[9])
            return usage_error(e, "--metric applies to binaries and --bench-json documents: a "
                                  "command's only value is its wall time");
        for (int c = 0; c < 2; c++) {
            char why[COMPARE_ERROR_MAX];
            if (o->shell) {
                if (!*o->commands[c])
                    return usage_error(e, "--commands '': the command is empty");
                char **w = bench__xcalloc(4, sizeof *w);
                o->command_argv[c] = w;
                w[0] = bench__xstrdup("/bin/sh");
                w[1] = bench__xstrdup("-c");
                w[2] = bench__xstrdup(o->commands[c]);
                continue;
            }
            size_t n;
            if (tool_split_words(o->commands[c], &o->command_argv[c], &n, why, sizeof why) != 0)
                return usage_error(e, "--commands '%s': %s", o->commands[c], why);
        }
        o->binary_mode = true;
        return 0;
    }
    if (o->shell)
        return usage_error(e, "--shell applies to --commands");
    if (extra)
        return usage_error(e, "unexpected argument '%s' (give two binaries)", extra);
    if (seen[10] && (any_files || o->commands_mode))
        return usage_error(e, "--mode applies to binaries");
    if (o->mode == COMPARE_MODE_PAIRED && (seen[0] || o->junit_path || o->summary_path || seen[9]))
        return usage_error(e, "--mode=paired: %s applies to the run-level mode",
                           seen[0]           ? "--runs"
                           : o->junit_path   ? "--junit"
                           : o->summary_path ? "--summary"
                                             : "--metric");
    if (o->mode == COMPARE_MODE_AUTO && (seen[0] || o->junit_path || o->summary_path || seen[9]))
        o->mode = COMPARE_MODE_RUNS; /* options of the run-level mode choose it */
    if (o->duet && o->mode == COMPARE_MODE_RUNS)
        return usage_error(e, "--duet applies to the paired mode, which %s leaves",
                           seen[0]           ? "--runs"
                           : o->junit_path   ? "--junit"
                           : o->summary_path ? "--summary"
                                             : "--metric");
    if (o->n_channels && (o->junit_path || o->summary_path))
        return usage_error(e, "%s judges one channel: give --metric one name",
                           o->junit_path ? "--junit" : "--summary");
    if (o->duet)
        o->mode =
            COMPARE_MODE_PAIRED; /* a binary that does not serve is an error, not a fallback */
    if (seen[6] && (any_files || o->mode == COMPARE_MODE_RUNS))
        return usage_error(e, "--timeout applies to --commands and the paired mode");
    if ((seen[11] || seen[12] || seen[13]) && (any_files || o->mode == COMPARE_MODE_RUNS))
        return usage_error(e, "%s applies to the paired mode",
                           seen[11]   ? "--budget"
                           : seen[12] ? "--max-rounds"
                                      : "--processes");
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
    if (seen[0])
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
    compare_cells_free(st);
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        /* binary mode allocates for every run it may do; file mode one per document */
        compare_subject_free(st, s, st->opts.binary_mode ? st->runs_cap : st->n_runs[s]);
    }
    free(st->schedule);
    free(st->tmpdir);
    for (size_t c = 0; c < 2; c++) {
        if (st->programs)
            tool_program_free(&st->programs[c]); /* its argv is command_argv[c] */
        else
            tool_words_free(st->opts.command_argv[c]);
    }
    free(st->programs);
    free(st->opts.channel_list);
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
    /* the paired mode (paired.c) unless the run-level mode is asked for, or a binary does not
     * serve: that fallback is said (stderr, and a warning of the report) */
    char mode_note[COMPARE_ERROR_MAX + 200] = "";
    if (st.opts.binary_mode && !st.opts.commands_mode && st.opts.mode != COMPARE_MODE_RUNS) {
        char why[COMPARE_ERROR_MAX + 100];
        int rc = compare_run_paired(&st, &status, why, sizeof why, err, sizeof err);
        if (rc == 0 || (rc > 0 && st.opts.mode == COMPARE_MODE_PAIRED)) {
            if (rc > 0)
                fprintf(stderr, "error: --mode=paired: %s\n", why);
            state_free(&st);
            return rc > 0 ? 2 : status;
        }
        if (rc < 0) {
            fprintf(stderr, "error: %s\n", err);
            state_free(&st);
            return 2;
        }
        bench__fmt(mode_note, sizeof mode_note, "the run-level mode: %s", why);
        fprintf(stderr, "libbench compare: %s\n", mode_note);
    }
    st.runs_cap = st.opts.runs_auto ? st.opts.runs_max : st.opts.runs;
    if (st.opts.runs_auto)
        st.opts.runs = RUNS_DEFAULT; /* the first runs; then one at a time */
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        st.n_runs[s] = st.opts.binary_mode ? st.runs_cap : st.opts.n_files[s];
        st.docs[s] = bench__xcalloc(st.n_runs[s] ? st.n_runs[s] : 1, sizeof *st.docs[s]);
        st.run_fail[s] = bench__xcalloc(st.n_runs[s] ? st.n_runs[s] : 1, sizeof *st.run_fail[s]);
    }
    if (st.opts.binary_mode) {
        tool_tmpdir_sweep("libbench-compare"); /* what compares killed before us left */
        st.schedule = bench__xcalloc(st.runs_cap * N_SUBJECTS, sizeof *st.schedule);
        if (compare_run_binaries(&st, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            goto done;
        }
    } else if (compare_load_files(&st, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto done;
    }
    if (st.opts.n_channels) {
        status = compare_channels(&st, mode_note);
        goto done;
    }
    struct compare_judged j;
    if (compare_judge(&st, mode_note, &j, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto done;
    }
    const struct compare_report rep = j.rep;
    const struct bench__cmp_result result = j.result;
    compare_report_text(stdout, &rep);
    fflush(stdout);
    status = result.exit_code;
    if (st.opts.json_path && compare_report_json(&rep, st.opts.json_path, err, sizeof err) != 0) {
        fprintf(stderr, "error: --json: %s\n", err);
        status = 2;
    }
    /* a file for CI that could not be written: an error (2), and a REGRESSION stays non-zero */
    if (st.opts.junit_path &&
        compare_report_junit(&rep, st.opts.junit_path, err, sizeof err) != 0) {
        fprintf(stderr, "error: --junit: %s\n", err);
        status = 2;
    }
    if (st.opts.summary_path &&
        compare_report_summary(&rep, st.opts.summary_path, err, sizeof err) != 0) {
        fprintf(stderr, "error: --summary: %s\n", err);
        status = 2;
    }
    compare_judged_free(&j);
done:
    state_free(&st);
    return status;
}
