/* SPDX-License-Identifier: MIT */
/* cmd.c: owns the `libbench run` command: its options, the commands built from them, the
 * interleaved schedule of warm-up and timed runs (with --prepare and the page-cache regime before
 * each; each run spawned by common/spawn.c), when a command has failed and why, and the exit
 * status. It computes no statistics and draws nothing (report.c and json.c do). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/ticker.h"
#include "run.h"
#include "common/interrupt.h"
#include "common/args.h"
#include "common/output.h"
#include "common/words.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/clock.h"
#include "util/format.h"
#include "util/text.h"

#define RUNS_DEFAULT 10u
#define RUNS_MAX 100000u
#define WARMUP_MAX 100000u
#define TIMEOUT_MAX_S 1000000.0 /* about 11 days */
#define SHELL "/bin/sh"

void run_usage(FILE *out)
{
    fputs("usage: libbench run [OPTIONS] -- PROG [ARGS...]\n"
          "       libbench run [OPTIONS] -c 'CMD' [-c 'CMD'...]\n"
          "\n"
          "Measure whole processes: the wall time of each run from just before it is spawned\n"
          "until it is reaped, and its rusage (CPU, max RSS, faults, block I/O, context\n"
          "switches). Several commands are interleaved run by run in a seeded random order,\n"
          "one process at a time. Statistics: median, MAD, min, max (no mean). A command whose\n"
          "run fails (exit status, signal, timeout, cannot start) has no numbers.\n"
          "\n"
          "options:\n"
          "  -c, --command CMD   a command, split into words like a shell does (quotes and\n"
          "                      backslashes), with no expansion; repeat for more commands\n"
          "  --shell             run each -c command as /bin/sh -c CMD, and measure the\n"
          "                      shell's own start-up (/bin/sh -c '') beside them\n"
          "  --name NAME         a command's name in the tables and the JSON: the first\n"
          "                      --name names the first command, and so on (default: the\n"
          "                      command as given)\n"
          "  --runs N            timed runs per command (default 10)\n"
          "  --warmup N          untimed runs per command before them (default 0)\n"
          "  --prepare CMD       run before every run of a command, untimed (once: for every\n"
          "                      command; or once per command, in order)\n"
          "  --timeout SECONDS   kill a run (and its process group) after this long: the\n"
          "                      command fails\n"
          "  --seed N            seed of the interleaved order (default 0)\n"
          "  --cold FILE...      evict these files from the page cache before every timed run\n"
          "  --warm FILE...      read these files into the page cache before every timed run\n"
          "  --output MODE       null (default): stdout and stderr to /dev/null; pipe: read\n"
          "                      both to EOF, the end of stderr kept for a failure; inherit:\n"
          "                      this tool's own stdout and stderr\n"
          "  --json FILE         also write the results as JSON (written atomically)\n"
          "  -h, --help          print this help and exit\n"
          "\n"
          "Numbers are plain decimal: no sign, no 0x, no exponent. An option's value is never\n"
          "a word that starts with '-' (write --json=-FILE for such a name).\n"
          "\n"
          "exit status: 0 every command measured, 1 a command failed, 2 a usage error\n",
          out);
}

/* ---- the command line -------------------------------------------------------------------- */

struct run_options {
    const char **cmds; /* -c */
    size_t n_cmds;
    char **words; /* after -- */
    size_t n_words;
    bool dashdash;
    const char **names;
    size_t n_names;
    const char **prepares;
    size_t n_prepares;
    bool cold, warm;
};

struct cmd_error {
    char text[RUN_ERROR_MAX];
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

static const char *const valued_names[] = {
    "--command", "--name", "--runs",   "--warmup", "--prepare",
    "--timeout", "--seed", "--output", "--json",
};
enum { V_COMMAND, V_NAME, V_RUNS, V_WARMUP, V_PREPARE, V_TIMEOUT, V_SEED, V_OUTPUT, V_JSON, V_N };
static const char *const valued_needs[V_N] = {
    "a command",   "a name",
    "a number",    "a number",
    "a command",   "a number of seconds",
    "a number",    "null, pipe or inherit",
    "a file name",
};

static int unknown_option(struct cmd_error *e, const char *arg)
{
    struct bench__suggestion s;
    char word[80];
    const char *eq = strchr(arg, '=');
    bench__fmt(word, sizeof word, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
    bench__suggest_begin(&s, word);
    for (size_t k = 0; k < V_N; k++)
        bench__suggest_offer(&s, valued_names[k]);
    static const char *const others[] = {"--shell", "--cold", "--warm", "--help"};
    for (size_t k = 0; k < sizeof others / sizeof *others; k++)
        bench__suggest_offer(&s, others[k]);
    if (s.best)
        return usage_error(e, "unknown option '%s' (did you mean '%s'?)", arg, s.best);
    return usage_error(e, "unknown option '%s'", arg);
}

static int parse_args(struct run_state *st, struct run_options *o, int argc, char **argv,
                      struct cmd_error *e, bool *help)
{
    st->runs = RUNS_DEFAULT;
    st->output = TOOL_OUTPUT_NULL;
    st->regime = BENCH_CACHE_STEADY;
    size_t n = (size_t)argc;
    o->cmds = bench__xcalloc(n, sizeof *o->cmds);
    o->names = bench__xcalloc(n, sizeof *o->names);
    o->prepares = bench__xcalloc(n, sizeof *o->prepares);
    st->files = bench__xcalloc(n, sizeof *st->files);
    bool seen[V_N] = {false};
    bool in_files = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (strcmp(arg, "--") == 0) {
            o->dashdash = true;
            o->words = argv + i + 1;
            o->n_words = (size_t)(argc - i - 1);
            break;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (in_files) {
                st->files[st->n_files++] = arg;
                continue;
            }
            return usage_error(e,
                               "unexpected argument '%s': give the command after '--', or "
                               "with -c 'CMD'",
                               arg);
        }
        in_files = false;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            *help = true;
            return 0;
        }
        if (strcmp(arg, "--shell") == 0) {
            st->shell = true;
            continue;
        }
        if (tool_option_is(arg, "--cold", &value) || tool_option_is(arg, "--warm", &value)) {
            bool cold = arg[2] == 'c';
            if ((cold && o->cold) || (!cold && o->warm))
                return usage_error(e, "'%s' given twice (list every file after one '%s')",
                                   cold ? "--cold" : "--warm", cold ? "--cold" : "--warm");
            if ((cold && o->warm) || (!cold && o->cold))
                return usage_error(e, "give --cold or --warm, not both");
            *(cold ? &o->cold : &o->warm) = true;
            st->regime = cold ? BENCH_CACHE_COLD : BENCH_CACHE_WARM;
            if (value) {
                if (!*value)
                    return usage_error(e, "'%s=' needs a file name", cold ? "--cold" : "--warm");
                st->files[st->n_files++] = value;
            }
            in_files = true;
            continue;
        }
        /* -c CMD: the short form of --command */
        size_t k = V_N;
        if (strcmp(arg, "-c") == 0)
            k = V_COMMAND;
        else
            for (k = 0; k < V_N; k++)
                if (tool_option_is(arg, valued_names[k], &value))
                    break;
        if (k == V_N)
            return unknown_option(e, arg);
        const char *shown = k == V_COMMAND && arg[1] == 'c' ? "-c" : valued_names[k];
        if (!tool_take_value(argc, argv, &i, &value))
            return usage_error(e, "%s needs %s", shown, valued_needs[k]);
        if (!*value && k != V_PREPARE && k != V_COMMAND)
            return usage_error(e, "%s needs %s", shown, valued_needs[k]);
        bool repeatable = k == V_COMMAND || k == V_NAME || k == V_PREPARE;
        if (seen[k] && !repeatable)
            return usage_error(e, "'%s' given twice", valued_names[k]);
        seen[k] = true;
        uint64_t u;
        switch (k) {
        case V_COMMAND: o->cmds[o->n_cmds++] = value; break;
        case V_NAME: o->names[o->n_names++] = value; break;
        case V_PREPARE: o->prepares[o->n_prepares++] = value; break;
        case V_RUNS:
            if (!tool_parse_whole(value, RUNS_MAX, &u) || u == 0)
                return usage_error(e, "--runs: '%s' is not a whole number from 1 to %u", value,
                                   RUNS_MAX);
            st->runs = (size_t)u;
            break;
        case V_WARMUP:
            if (!tool_parse_whole(value, WARMUP_MAX, &u))
                return usage_error(e, "--warmup: '%s' is not a whole number from 0 to %u", value,
                                   WARMUP_MAX);
            st->warmup = (size_t)u;
            break;
        case V_TIMEOUT: {
            double s;
            if (!tool_parse_decimal(value, &s) || !(s > 0) || s > TIMEOUT_MAX_S ||
                (int64_t)(s * 1e9) <= 0)
                return usage_error(e,
                                   "--timeout: '%s' is not a number of seconds above 0 and at "
                                   "most %.0f (like 5 or 0.5)",
                                   value, TIMEOUT_MAX_S);
            st->timeout_s = s;
            st->timeout_ns = (int64_t)llround(s * 1e9);
            break;
        }
        case V_SEED:
            if (!tool_parse_whole(value, UINT64_MAX, &st->seed))
                return usage_error(e, "--seed: '%s' is not a whole number from 0 to %llu", value,
                                   (unsigned long long)UINT64_MAX);
            break;
        case V_OUTPUT: {
            size_t m = 0;
            for (; m < 3 && strcmp(value, run_output_names[m]) != 0; m++)
                ;
            if (m == 3)
                return usage_error(e, "--output: '%s' is not null, pipe or inherit", value);
            st->output = (enum tool_output)m;
            break;
        }
        default: st->json_path = value; break;
        }
    }

    if (o->dashdash && o->n_cmds > 0)
        return usage_error(e, "give the command after '--' or with -c, not both");
    if (o->dashdash && o->n_words == 0)
        return usage_error(e, "'--' needs a program after it");
    if (!o->dashdash && o->n_cmds == 0)
        return usage_error(e, "nothing to run: give -- PROG [ARGS...] or -c 'CMD'");
    if (o->dashdash && st->shell)
        return usage_error(e, "--shell applies to -c commands (the words after '--' are run as "
                              "they are)");
    size_t commands = o->dashdash ? 1 : o->n_cmds;
    if (o->n_names > commands)
        return usage_error(e, "%zu --name options for %zu command%s", o->n_names, commands,
                           commands == 1 ? "" : "s");
    if (o->n_prepares > 1 && o->n_prepares != commands)
        return usage_error(e,
                           "%zu --prepare commands for %zu commands (give one for all, or one "
                           "per command)",
                           o->n_prepares, commands);
    if ((o->cold || o->warm) && st->n_files == 0)
        return usage_error(e, "'%s' needs at least one file", o->cold ? "--cold" : "--warm");
    return 0;
}

/* ---- the commands ------------------------------------------------------------------------ */

static char **shell_words(const char *text)
{
    char **w = bench__xcalloc(4, sizeof *w);
    w[0] = bench__xstrdup(SHELL);
    w[1] = bench__xstrdup("-c");
    w[2] = bench__xstrdup(text);
    return w;
}

/* A command line's words: split without a shell, or handed to /bin/sh -c with --shell. */
static int words_of(const struct run_state *st, const char *what, const char *text, char ***out,
                    struct cmd_error *e)
{
    if (st->shell) {
        if (!*text)
            return usage_error(e, "%s '': the command is empty", what);
        *out = shell_words(text);
        return 0;
    }
    size_t n;
    char why[RUN_ERROR_MAX];
    if (tool_split_words(text, out, &n, why, sizeof why) != 0)
        return usage_error(e, "%s '%s': %s", what, text, why);
    return 0;
}

static char *quoted_words(char *const *words, size_t n)
{
    struct bench__text t = {0};
    for (size_t i = 0; i < n; i++) {
        char *q = bench__shell_quote(words[i]);
        if ((i && bench__text_append(" ", 1, &t) != 0) || bench__text_append(q, strlen(q), &t))
            bench__out_of_memory();
        free(q);
    }
    return t.data ? t.data : bench__xstrdup("");
}

static int build_commands(struct run_state *st, const struct run_options *o, struct cmd_error *e)
{
    size_t n = o->dashdash ? 1 : o->n_cmds;
    st->n_cmds = n + (st->shell ? 1 : 0);
    st->cmds = bench__xcalloc(st->n_cmds, sizeof *st->cmds);
    for (size_t i = 0; i < n; i++) {
        struct run_command *c = &st->cmds[i];
        c->kind = RUN_KIND_COMMAND;
        if (o->dashdash) {
            c->prog.argv = bench__xcalloc(o->n_words + 1, sizeof *c->prog.argv);
            for (size_t w = 0; w < o->n_words; w++)
                c->prog.argv[w] = bench__xstrdup(o->words[w]);
            c->text = quoted_words(o->words, o->n_words);
        } else {
            c->text = bench__xstrdup(o->cmds[i]);
            if (words_of(st, "-c", o->cmds[i], &c->prog.argv, e) != 0)
                return -1;
        }
        c->name = bench__xstrdup(i < o->n_names ? o->names[i] : c->text); /* never "": parse_args */
        const char *prep = o->n_prepares == 1 ? o->prepares[0]
                           : o->n_prepares    ? o->prepares[i]
                                              : NULL;
        if (prep) {
            c->prepare_text = bench__xstrdup(prep);
            if (words_of(st, "--prepare", prep, &c->prepare.argv, e) != 0)
                return -1;
        }
    }
    if (st->shell) {
        struct run_command *c = &st->cmds[n];
        c->kind = RUN_KIND_SHELL_STARTUP;
        c->text = bench__xstrdup(SHELL " -c ''");
        c->name = bench__xstrdup(c->text);
        c->prog.argv = shell_words("");
    }
    for (size_t i = 0; i < st->n_cmds; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(st->cmds[i].name, st->cmds[j].name) == 0)
                return usage_error(e, "two commands are named '%s': give each a --name of its own",
                                   st->cmds[i].name);
    for (size_t i = 0; i < st->n_cmds; i++) {
        struct run_command *c = &st->cmds[i];
        c->wall_ns = bench__xcalloc(st->runs, sizeof *c->wall_ns);
        c->ru = bench__xcalloc(st->runs * TOOL_RU_N, sizeof *c->ru);
        if (st->n_files)
            c->stamps = bench__xcalloc(st->runs, sizeof *c->stamps);
    }
    st->schedule = bench__xcalloc(st->runs * st->n_cmds, sizeof *st->schedule);
    return 0;
}

static void state_free(struct run_state *st)
{
    for (size_t i = 0; i < st->n_cmds; i++) {
        struct run_command *c = &st->cmds[i];
        free(c->name);
        free(c->text);
        free(c->prepare_text);
        tool_program_free(&c->prog);
        tool_program_free(&c->prepare);
        free(c->wall_ns);
        free(c->ru);
        if (c->stamps)
            for (size_t r = 0; r < st->runs; r++)
                free(c->stamps[r].note);
        free(c->stamps);
        if (c->failure) {
            free(c->failure->message);
            free(c->failure->sample);
            free(c->failure);
        }
    }
    free(st->cmds);
    free(st->schedule);
    free(st->files);
}

/* ---- the runs ---------------------------------------------------------------------------- */

struct run_loop {
    struct run_state *st;
    struct bench__ticker ticker;
    size_t *attempts; /* per command: runs started (warm-up, timed), for the failure message */
};

static void clear_ticker(void *data)
{
    struct run_loop *loop = data;
    bench__ticker_clear(&loop->ticker);
}

/* The command has failed: no numbers, and the reason. */
static void fail(struct run_loop *loop, size_t ci, size_t run, bool warmup, bool prepare,
                 const struct tool_program *prog, const struct tool_child *s)
{
    struct run_state *st = loop->st;
    struct run_command *c = &st->cmds[ci];
    char how[RUN_ERROR_MAX], msg[RUN_ERROR_MAX + 80], where[64];
    tool_child_describe(s, prog, st->timeout_ns, how, sizeof how);
    bench__fmt(where, sizeof where, "%s%s %zu", prepare ? "--prepare before " : "",
               warmup ? "warm-up run" : "run", run);
    if (s->outcome == TOOL_CANNOT_START && !prepare && loop->attempts[ci] == 0)
        bench__fmt(msg, sizeof msg, "%s", how);
    else if (s->outcome == TOOL_CANNOT_START)
        bench__fmt(msg, sizeof msg, "%s: %s", where, how);
    else
        bench__fmt(msg, sizeof msg, "%s %s", where, how);
    struct run_failure *f = bench__xcalloc(1, sizeof *f);
    f->message = bench__xstrdup(msg);
    f->run = s->outcome == TOOL_CANNOT_START && !prepare && loop->attempts[ci] == 0 ? 0 : run;
    f->warmup = warmup;
    f->prepare = prepare;
    f->sample = bench__xmalloc(sizeof *f->sample);
    memcpy(f->sample, s, sizeof *s);
    c->failure = f;
    char name[200];
    bench__sanitize_copy(c->name, name, sizeof name);
    bench__ticker_note(&loop->ticker, "libbench run: %s: %s\n", name, msg);
}

static void stamp_run(struct run_state *st, struct run_command *c)
{
    struct bench__regime_stamp stamp;
    bench__regime_prepare(st->regime, st->files, st->n_files, &stamp);
    struct run_stamp *s = &c->stamps[c->done];
    free(s->note);
    s->effective = stamp.present ? stamp.effective : BENCH_CACHE_STEADY;
    s->resident_before = stamp.resident_before;
    s->resident_after = stamp.resident_after;
    s->note = stamp.note[0] ? bench__xstrdup(stamp.note) : NULL;
}

/* This process's own peak resident set in bytes (VmHWM of /proc/self/status): the floor of every
 * child's max RSS, since a child spawned with its parent's memory counts that memory's peak when
 * it execs. Not getrusage(RUSAGE_SELF), which also holds the peak of whoever started this tool
 * (the same rule, one generation up). -1 when unknown. */
static int64_t own_peak_rss(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    long long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib > 0 ? (int64_t)kib * 1024 : -1;
}

static void run_all(struct run_state *st)
{
    struct run_loop loop = {.st = st};
    loop.ticker.term = bench__term_probe(STDERR_FILENO, false);
    if (st->output == TOOL_OUTPUT_INHERIT)
        loop.ticker.term.animate = false; /* the commands write to the same terminal */
    loop.ticker.start_ns = bench__clock_measure_ns();
    loop.attempts = bench__xcalloc(st->n_cmds, sizeof *loop.attempts);
    tool_interrupt_on(clear_ticker, &loop);
    st->harness_maxrss_start = own_peak_rss();

    struct tool_spawn params = {.output = st->output, .timeout_ns = st->timeout_ns};
    struct tool_child *sample = bench__xmalloc(sizeof *sample);
    size_t *order = bench__xcalloc(st->n_cmds, sizeof *order);
    /* One stream, as compare's: each round shuffles a fresh copy of the declared list. */
    struct bench__rng rng = {st->seed ^ bench__fnv1a64("schedule", 8)};
    for (size_t round = 0; round < st->warmup + st->runs; round++) {
        bool warmup = round < st->warmup;
        size_t run = warmup ? round + 1 : round - st->warmup + 1;
        for (size_t k = 0; k < st->n_cmds; k++)
            order[k] = k;
        bench__shuffle(&rng, order, st->n_cmds);
        for (size_t k = 0; k < st->n_cmds; k++) {
            size_t ci = order[k];
            struct run_command *c = &st->cmds[ci];
            if (!warmup)
                st->schedule[(run - 1) * st->n_cmds + k] = c->failure ? SIZE_MAX : ci;
            if (c->failure)
                continue;
            char shown[300];
            bench__fmt(shown, sizeof shown, "%s %zu/%zu: %s", warmup ? "warm-up" : "run", run,
                       warmup ? st->warmup : st->runs, c->name);
            bench__sanitize(shown);
            bench__ticker_show(&loop.ticker, shown, 0, 0, 0, 1);
            if (c->prepare.argv) {
                tool_spawn(&c->prepare, &params, sample);
                if (sample->outcome != TOOL_COMPLETED) {
                    fail(&loop, ci, run, warmup, true, &c->prepare, sample);
                    if (!warmup)
                        st->schedule[(run - 1) * st->n_cmds + k] = SIZE_MAX;
                    continue;
                }
            }
            if (!warmup && st->n_files)
                stamp_run(st, c);
            tool_spawn(&c->prog, &params, sample);
            if (sample->outcome != TOOL_COMPLETED) {
                fail(&loop, ci, run, warmup, false, &c->prog, sample);
                loop.attempts[ci]++;
                continue;
            }
            loop.attempts[ci]++;
            if (warmup)
                continue;
            c->wall_ns[c->done] = (double)sample->wall_ns;
            tool_ru_values(&sample->ru, &c->ru[c->done * TOOL_RU_N]);
            c->done++;
        }
    }
    bench__ticker_clear(&loop.ticker);
    tool_interrupt_on(NULL, NULL);
    free(order);
    free(sample);
    free(loop.attempts);
    st->harness_maxrss = own_peak_rss();
}

int run_main(int argc, char **argv)
{
    struct run_state st;
    struct run_options o;
    memset(&st, 0, sizeof st);
    memset(&o, 0, sizeof o);
    struct cmd_error ue;
    bool help = false;
    int status = 2;
    if (parse_args(&st, &o, argc, argv, &ue, &help) != 0 ||
        (!help && build_commands(&st, &o, &ue) != 0)) {
        fprintf(stderr, "error: %s (see libbench --help)\n", ue.text);
        goto done;
    }
    if (help) {
        run_usage(stdout);
        status = 0;
        goto done;
    }
    char why[RUN_ERROR_MAX];
    if (st.json_path && bench__write_file_check(st.json_path, why, sizeof why) != 0) {
        char shown[RUN_ERROR_MAX];
        bench__sanitize_copy(st.json_path, shown, sizeof shown);
        fprintf(stderr, "error: --json: cannot write '%s': %s\n", shown, why);
        goto done;
    }
    run_all(&st);
    run_report_text(stdout, &st);
    status = 0;
    for (size_t i = 0; i < st.n_cmds; i++)
        if (st.cmds[i].failure)
            status = 1;
    if (tool_stdout_finish() != 0)
        status = 2; /* the tables were not received: as a --json that cannot be written */
    char err[RUN_ERROR_MAX + 300];
    if (st.json_path && run_report_json(&st, st.json_path, err, sizeof err) != 0) {
        fprintf(stderr, "error: --json: %s\n", err);
        status = 2;
    }
done:
    free(o.cmds);
    free(o.names);
    free(o.prepares);
    state_free(&st);
    return status;
}
