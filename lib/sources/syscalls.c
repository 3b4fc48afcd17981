/* SPDX-License-Identifier: MIT */
/* syscalls.c: owns the syscall tracepoint group (source "syscall"): its family for the
 * command line, tracefs id resolution and the reasons for absence. Never mounts anything;
 * touches the OS only through bench__os and the counters only through perf_group. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/os.h"
#include "../util/alloc.h"
#include "../util/text.h"
#include "perf_group.h"
#include "source.h"

#if BENCH__LINUX
#include <linux/perf_event.h>
#endif

#define MAX_NAMED 62 /* named tracepoints counted besides the total */
_Static_assert(1 + MAX_NAMED <= BENCH__PERF_GROUP_MAX, "the syscall group must fit a perf group");

#define LEADER_GROUP "raw_syscalls"
#define LEADER_EVENT "sys_enter"
#define LEADER_NAME LEADER_GROUP ":" LEADER_EVENT
#define EMPTY_BRACKETS 32 /* the empty-bracket pass at open */
#define MOUNT_HINT "mount -t tracefs nodev /sys/kernel/tracing"

#define N_ROOTS (sizeof tracefs_roots / sizeof tracefs_roots[0])

/* ---- the names this configuration asks for ------------------------------------------- */

static bool is_syscall_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* The syscall a --metrics selector names ("syscalls:futex", "sc:futex"), or NULL. */
static const char *selector_name(const char *selector)
{
    static const char *const prefixes[] = {"syscalls:", "sc:"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t len = strlen(prefixes[i]);
        if (!strncmp(selector, prefixes[i], len) && is_syscall_name(selector + len))
            return selector + len;
    }
    return NULL;
}

struct wanted {
    bool any;                     /* a family at all: --syscalls or a syscall selector */
    const char *names[MAX_NAMED]; /* deduplicated, first-seen order; borrowed from cfg */
    size_t n;
    size_t requested; /* distinct names asked for (> n when capped) */
};

static void want_name(struct wanted *w, const char *const *seen, size_t n_seen, const char *name)
{
    for (size_t i = 0; i < n_seen; i++)
        if (!strcmp(seen[i], name))
            return; /* a duplicate of an earlier name */
    w->requested++;
    if (w->n < MAX_NAMED)
        w->names[w->n++] = name;
}

/* --syscalls=LIST first, then --metrics selectors. `seen` holds every candidate so that a
 * name is counted once even past the cap. */
static void wanted_names(const struct bench__source_request *req, struct wanted *w)
{
    memset(w, 0, sizeof *w);
    w->any = req->flag;
    const char **seen = bench__xcalloc(req->n_flag_values + req->n_selectors + 1, sizeof *seen);
    size_t n_seen = 0;
    for (size_t i = 0; i < req->n_flag_values; i++) {
        if (!is_syscall_name(req->flag_values[i]))
            continue; /* the command line rejects these; never build a path from one */
        want_name(w, seen, n_seen, req->flag_values[i]);
        seen[n_seen++] = req->flag_values[i];
    }
    for (size_t i = 0; i < req->n_selectors; i++) {
        if (!strcmp(req->selectors[i], "syscalls")) {
            w->any = true;
            continue;
        }
        const char *name = selector_name(req->selectors[i]);
        if (!name)
            continue;
        w->any = true;
        want_name(w, seen, n_seen, name);
        seen[n_seen++] = name;
    }
    free(seen);
}

static enum bench__claim sys_claim(const char *selector)
{
    if (!strcmp(selector, "syscalls") || selector_name(selector))
        return BENCH__CLAIM_COUNTED;
    if (!strncmp(selector, "syscalls:", 9) || !strncmp(selector, "sc:", 3))
        return BENCH__CLAIM_RESERVED;
    return BENCH__CLAIM_NONE;
}

static int sys_flag_value_check(const char *value, char *err, size_t err_size)
{
    if (is_syscall_name(value))
        return 0;
    bench__fmt(err, err_size, "'%s' is not a syscall name ([a-z0-9_]+)", value);
    return -1;
}

/* ---- the family ------------------------------------------------------------------------ */

static size_t syscalls_family(const struct bench__source_request *req, struct bench__family *out)
{
    struct wanted w;
    wanted_names(req, &w);
    memset(out, 0, sizeof *out);
    if (!w.any)
        return 0;
    size_t bytes = 0;
    for (size_t i = 0; i < w.n; i++)
        bytes += 2 * strlen(w.names[i]) + sizeof "syscalls:" + sizeof "sc:";
    out->columns = bench__xcalloc(1 + w.n, sizeof *out->columns);
    out->strings = bench__xmalloc(bytes + 1);
    out->columns[0] = (struct bench__column_desc){
        "syscalls", "syscalls", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "syscall", true};
    char *p = out->strings;
    for (size_t i = 0; i < w.n; i++) {
        char *name = p;
        p += sprintf(p, "syscalls:%s", w.names[i]) + 1;
        char *header = p;
        p += sprintf(p, "sc:%s", w.names[i]) + 1;
        out->columns[1 + i] = (struct bench__column_desc){
            name, header, BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "syscall", true};
    }
    out->n = 1 + w.n;
    return out->n;
}

/* The source's identity in its ops, the same in every build (the two definitions below). */
#define SYSCALLS_IDENTITY                                                                          \
    .name = "syscall", .flag = "syscalls", .flag_value = "LIST",                                   \
    .flag_help = "with --bench: count syscalls (tracepoints); =futex,write adds one column each",  \
    .flag_value_check = sys_flag_value_check, .family_for = syscalls_family, .claim = sys_claim

#if BENCH__LINUX

/* ---- tracefs ids ------------------------------------------------------------------------ */

/* Where tracefs lives: its own mount point, then the debugfs automount. */
static const char *const tracefs_roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

#define ID_GARBAGE (-EBADMSG) /* the id file is empty or not a number */

/* "  443\n" → 443. Leading blanks and a trailing newline are allowed; nothing else. */
static bool parse_id(const char *text, size_t len, uint64_t *id)
{
    const char *p = text, *end = text + len, *stop;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (bench__parse_digits(p, end, UINT64_MAX, id, &stop) != BENCH__DIGITS_OK)
        return false;
    for (; stop < end; stop++)
        if (*stop != '\n' && *stop != '\r' && *stop != ' ' && *stop != '\t')
            return false;
    return true;
}

static int read_id_at(const char *root, const char *group, const char *event, uint64_t *id)
{
    char path[512];
    int len = snprintf(path, sizeof path, "%s/events/%s/%s/id", root, group, event);
    if (len < 0 || (size_t)len >= sizeof path)
        return -ENAMETOOLONG;
    char text[64];
    ssize_t n = bench__os_read_file(path, text, sizeof text);
    if (n < 0)
        return (int)n;
    if ((size_t)n >= sizeof text - 1) /* longer than any id */
        return ID_GARBAGE;
    return parse_id(text, (size_t)n, id) ? 0 : ID_GARBAGE;
}

/* How much an error says: a refusal beats garbage beats other errors beats "no such file"
 * (the other root may simply not be mounted). */
static int error_rank(int err)
{
    if (err == -EACCES || err == -EPERM)
        return 3;
    if (err == ID_GARBAGE)
        return 2;
    if (err == -ENOENT || err == -ENOTDIR)
        return 0;
    return 1;
}

/* The id of a tracepoint from the first root that has it; else the most telling error. */
static int resolve_id(const char *group, const char *event, uint64_t *id)
{
    int best = -ENOENT;
    for (size_t r = 0; r < N_ROOTS; r++) {
        int rc = read_id_at(tracefs_roots[r], group, event, id);
        if (rc == 0)
            return 0;
        if (error_rank(rc) > error_rank(best))
            best = rc;
    }
    return best;
}

/* Is any tracefs there at all (its events directory exists, readable or not)? */
static bool tracefs_mounted(void)
{
    for (size_t r = 0; r < N_ROOTS; r++) {
        char path[128];
        bench__fmt(path, sizeof path, "%s/events", tracefs_roots[r]);
        int fd = bench__os.open(path, O_RDONLY | O_DIRECTORY);
        if (fd >= 0) {
            bench__os.close(fd);
            return true;
        }
        if (errno != ENOENT && errno != ENOTDIR)
            return true;
    }
    return false;
}

static const char *errno_text(int err, char *buf, size_t size)
{
    const char *name = bench__perf_errno_name(err);
    if (name)
        bench__fmt(buf, size, "%s (%s)", name, strerror(err));
    else
        bench__fmt(buf, size, "errno %d (%s)", err, strerror(err));
    return buf;
}

/* Why the leader's id could not be resolved. */
static void explain_leader_id(int rc, char *reason, size_t size)
{
    char err[96];
    if (rc == -ENOENT || rc == -ENOTDIR) {
        if (!tracefs_mounted())
            bench__fmt(reason, size, "tracefs not mounted (" MOUNT_HINT ")");
        else
            bench__fmt(reason, size,
                       "tracefs has no " LEADER_NAME " event (a kernel without "
                       "CONFIG_FTRACE_SYSCALLS?)");
    } else if (rc == -EACCES || rc == -EPERM) {
        bench__fmt(reason, size, "tracefs event ids unreadable — usually root");
    } else if (rc == ID_GARBAGE) {
        bench__fmt(reason, size, "tracefs event id of " LEADER_NAME " is not a number");
    } else {
        bench__fmt(reason, size, "tracefs event ids unreadable (" LEADER_NAME ": %s)",
                   errno_text(-rc, err, sizeof err));
    }
}

/* Why a named tracepoint's id could not be resolved. */
static void explain_named_id(int rc, const char *event, char *reason, size_t size)
{
    char err[96];
    if (rc == -ENOENT || rc == -ENOTDIR)
        bench__fmt(reason, size, "no tracepoint syscalls:%s — not a syscall of this kernel?",
                   event);
    else if (rc == -EACCES || rc == -EPERM)
        bench__fmt(reason, size, "the tracefs id of syscalls:%s is unreadable", event);
    else if (rc == ID_GARBAGE)
        bench__fmt(reason, size, "the tracefs id of syscalls:%s is not a number", event);
    else
        bench__fmt(reason, size, "the tracefs id of syscalls:%s: %s", event,
                   errno_text(-rc, err, sizeof err));
}

/* Why perf_event_open refused the leader. */
static void explain_leader_open(int err, char *reason, size_t size)
{
    char text[96];
    if (err == EACCES || err == EPERM) {
        long level;
        const char *name = bench__perf_errno_name(err);
        if (!bench__perf_paranoid(&level))
            bench__fmt(reason, size,
                       "perf_event_open(" LEADER_NAME ") refused: %s — perf_event_paranoid "
                       "unreadable",
                       name);
        else if (level > 1)
            bench__fmt(reason, size,
                       "perf_event_open(" LEADER_NAME ") refused: %s — perf_event_paranoid=%ld "
                       "(needs ≤ 1)",
                       name, level);
        else
            bench__fmt(reason, size,
                       "perf_event_open(" LEADER_NAME ") refused: %s — seccomp or kernel policy "
                       "(perf_event_paranoid=%ld allows it)",
                       name, level);
        return;
    }
    const char *meaning = "";
    if (err == EMFILE || err == ENFILE)
        meaning = " — out of file descriptors";
    else if (err == ENOSYS)
        meaning = " — no perf_event_open in this kernel or sandbox";
    else if (err == ENOENT || err == EINVAL)
        meaning = " — the kernel rejected the tracepoint id";
    bench__fmt(reason, size, "perf_event_open(" LEADER_NAME ") failed: %s%s",
               errno_text(err, text, sizeof text), meaning);
}

/* ---- the source ------------------------------------------------------------------------ */

struct sys_state {
    struct bench__perf_group group;
    struct bench__perf_event events[1 + MAX_NAMED];
    char *event_names[1 + MAX_NAMED];
    int event_of[1 + MAX_NAMED]; /* family index → event index; -1 = not counted (NaN) */
    size_t n_family;
};

static void free_state(struct sys_state *st)
{
    if (!st)
        return;
    bench__perf_group_close(&st->group);
    for (size_t i = 0; i < 1 + MAX_NAMED; i++)
        free(st->event_names[i]);
    free(st);
}

static void *absent(struct sys_state *st, struct bench__caps *caps, bool counting,
                    const char *reason)
{
    free_state(st);
    /* `counting` only when columns were asked for: the catalog announces that absence */
    if (counting)
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s", reason);
    bench__caps_absent(caps, BENCH__CAP_EVENT_TRACING, "%s", reason);
    return NULL;
}

/* The empty-bracket pass: what one bracket adds to the total by itself (its own ioctls).
 * NaN when the group could not be read. */
static double empty_bracket_cost(struct sys_state *st)
{
    bench__perf_group_pass_begin(&st->group);
    for (int b = 0; b < EMPTY_BRACKETS; b++) {
        bench__perf_group_enable(&st->group);
        bench__perf_group_disable(&st->group);
    }
    struct bench__perf_reading r;
    bench__perf_group_pass_end(&st->group, EMPTY_BRACKETS, &r);
    return r.values[0];
}

static void *sys_open(const struct bench__source_request *req, struct bench__caps *caps,
                      char *status, size_t status_size)
{
    status[0] = '\0';
    const char *flag = req->flag ? "--syscalls" : "--metrics";
    struct wanted w;
    wanted_names(req, &w);
    if (w.requested > w.n)
        fprintf(stderr,
                "--syscalls: only the first %d named tracepoints are counted (%zu requested)\n",
                MAX_NAMED, w.requested);
    /* without columns (--list-metrics, --metrics=all) this is a probe only */
    bool columns = w.any;
    char reason[BENCH__REASON_MAX];

    uint64_t leader_id = 0;
    int rc = resolve_id(LEADER_GROUP, LEADER_EVENT, &leader_id);
    if (rc < 0) {
        explain_leader_id(rc, reason, sizeof reason);
        return absent(NULL, caps, columns, reason);
    }

    struct sys_state *st = bench__xcalloc(1, sizeof *st);
    st->n_family = columns ? 1 + w.n : 0;
    st->events[0] = (struct bench__perf_event){
        .name = LEADER_NAME, .type = PERF_TYPE_TRACEPOINT, .config = leader_id};
    st->event_of[0] = 0;
    size_t n_events = 1;
    /* why each named column will read NaN ("" = counted): warned only if the group opens */
    char(*why)[BENCH__REASON_MAX] = bench__xcalloc(w.n + 1, sizeof *why);
    for (size_t i = 0; i < w.n; i++) {
        char *event = bench__xasprintf("sys_enter_%s", w.names[i]);
        uint64_t id = 0;
        rc = resolve_id("syscalls", event, &id);
        st->event_of[1 + i] = -1;
        if (rc < 0) {
            explain_named_id(rc, event, why[i], sizeof why[i]);
            free(event);
            continue;
        }
        st->event_names[n_events] = bench__xasprintf("syscalls:%s", event);
        free(event);
        st->events[n_events] = (struct bench__perf_event){
            .name = st->event_names[n_events], .type = PERF_TYPE_TRACEPOINT, .config = id};
        st->event_of[1 + i] = (int)n_events++;
    }

    /* kernel+user or nothing: raw_syscalls fires with kernel registers, so a user-space
     * only leader would count 0 */
    const struct bench__perf_group_options options = {.inherit = true,
                                                      .kernel_and_user_only = true};
    rc = bench__perf_group_open_with(&st->group, st->events, n_events, 0, &options, reason,
                                     sizeof reason);
    if (rc < 0) {
        free(why);
        explain_leader_open(-rc, reason, sizeof reason);
        return absent(st, caps, columns, reason);
    }
    for (size_t i = 0; i < w.n; i++) {
        int ev = st->event_of[1 + i];
        if (ev >= 0 && st->group.fd[ev] < 0) {
            char err[96];
            bench__fmt(why[i], sizeof why[i], "perf_event_open(%s) failed: %s", st->events[ev].name,
                       errno_text(st->group.open_errno[ev], err, sizeof err));
        }
        if (why[i][0])
            fprintf(stderr, "%s: sc:%s not counted (%s)\n", flag, w.names[i], why[i]);
    }
    free(why);

    if (!columns) { /* nothing to count: the probe is all */
        free_state(st);
        bench__caps_present(caps, BENCH__CAP_EVENT_TRACING);
        return NULL;
    }
    double cost = empty_bracket_cost(st);
    if (isnan(cost))
        return absent(st, caps, true, "reading the syscall tracepoint group failed");
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    bench__caps_present(caps, BENCH__CAP_EVENT_TRACING);
    char text[32];
    bench__format_metric(cost, BENCH__FORMAT_COUNT, false, text, sizeof text);
    /* the catalog prints it after the source name: "--syscalls: syscall brackets each ..." */
    bench__fmt(status, status_size,
               "brackets each add %s syscall%s of their own to `syscalls` (not subtracted)", text,
               cost == 1 ? "" : "s");
    return st;
}

static void sys_close(void *state)
{
    free_state(state);
}

static void sys_pass_begin(void *state)
{
    bench__perf_group_pass_begin(&((struct sys_state *)state)->group);
}

static void sys_bracket_begin(void *state)
{
    bench__perf_group_enable(&((struct sys_state *)state)->group);
}

static void sys_bracket_end(void *state)
{
    bench__perf_group_disable(&((struct sys_state *)state)->group);
}

static void sys_counts(const struct sys_state *st, const struct bench__perf_reading *r,
                       struct bench__counts *out)
{
    for (size_t k = 0; k < st->n_family; k++) {
        int ev = st->event_of[k];
        out->values[k] = ev >= 0 ? r->values[ev] : NAN;
        out->estimate[k] = r->estimate && !isnan(out->values[k]);
    }
    out->scale = r->scale;
    out->never_enabled = r->never_enabled;
}

static void sys_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                         struct bench__counts *out)
{
    (void)brackets; /* the bracket's own syscalls are disclosed at open, not subtracted */
    struct sys_state *st = state;
    struct bench__perf_reading r;
    bench__perf_group_pass_end(&st->group, iterations, &r);
    sys_counts(st, &r, out);
}

static void sys_run_begin(void *state)
{
    bench__perf_group_run_begin(&((struct sys_state *)state)->group);
}

static void sys_edge_read(void *state, void *snapshot)
{
    bench__perf_group_snapshot(&((struct sys_state *)state)->group, snapshot);
}

/* A window's total holds the group's own closing read(2) and the readings of the sources nested
 * inside its edges (the floor sys_window_floor discloses), never subtracted. */
static void sys_window_counts(void *state, const void *open, const void *close,
                              const struct bench__edge_shared shared[2], struct bench__counts *out)
{
    (void)shared;
    struct sys_state *st = state;
    struct bench__perf_reading r;
    bench__perf_group_window(&st->group, open, close, &r);
    sys_counts(st, &r, out);
    out->scaled_group = true;
}

/* A window's totals: `total`, and each named tracepoint's count under `named`. */
static void sys_window_total(const struct bench__column_desc *column, struct bench__total_desc *out)
{
    bool named = !strncmp(column->name, "syscalls:", 9);
    *out = (struct bench__total_desc){"syscalls",
                                      named ? "named" : NULL,
                                      named ? column->name + 9 : "total",
                                      column->header,
                                      column->name,
                                      BENCH__FORMAT_COUNT,
                                      true};
}

static void sys_run_end(void *state)
{
    bench__perf_group_run_end(&((struct sys_state *)state)->group);
}

static void sys_edge_cost(void *state, unsigned *calls, uint64_t *bytes)
{
    *calls = 1;
    *bytes = bench__perf_group_read_size(&((struct sys_state *)state)->group);
}

/* The readings nested inside the group's edges, and its own closing read: the tracepoint
 * fires at the entry of that read, before the read takes the count. */
static void sys_window_floor(void *state, unsigned calls, uint64_t bytes, char *text, size_t size)
{
    (void)state;
    (void)bytes;
    bench__fmt(text, size,
               "`syscalls` (`total`) of each window include %u system call%s of the edge "
               "readings (not subtracted)",
               calls + 1, calls + 1 == 1 ? "" : "s");
}

const struct bench__source_ops bench__source_syscalls = {
    SYSCALLS_IDENTITY,
    .open = sys_open,
    .close = sys_close,
    .pass_begin = sys_pass_begin,
    .bracket_begin = sys_bracket_begin,
    .bracket_end = sys_bracket_end,
    .pass_end = sys_pass_end,
    .edge_size = sizeof(struct bench__perf_snapshot),
    .edge_rank = 1,
    .window_total = sys_window_total,
    .run_begin = sys_run_begin,
    .edge_read = sys_edge_read,
    .window_counts = sys_window_counts,
    .run_end = sys_run_end,
    .edge_cost = sys_edge_cost,
    .window_floor = sys_window_floor,
};

#else /* not Linux: tracepoints are Linux's; the family and the flag stay, counting is absent */

static void *sys_open(const struct bench__source_request *req, struct bench__caps *caps,
                      char *status, size_t status_size)
{
    (void)req;
    (void)status_size;
    status[0] = '\0';
    bench__caps_off_platform(caps, BENCH__CAP_COUNTING, "syscall tracepoints are Linux's");
    bench__caps_off_platform(caps, BENCH__CAP_EVENT_TRACING, "syscall tracepoints are Linux's");
    return NULL;
}

const struct bench__source_ops bench__source_syscalls = {
    SYSCALLS_IDENTITY,
    .open = sys_open,
};

#endif /* BENCH__LINUX */
