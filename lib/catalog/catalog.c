/* SPDX-License-Identifier: MIT */
/* catalog.c: owns the catalog of a run: which sources of the list the configuration requests
 * (their flags, --metrics, fallbacks), the request each receives, opening and closing them, the
 * column order and visibility rules, the bench-header lines about absent or degraded sources,
 * and the --metrics selectors that match no column. It never measures and names no source. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/text.h"
#include "catalog.h"

/* ---- selectors ----------------------------------------------------------------------- */

static bool selector_matches(const char *selector, const char *name)
{
    size_t len = strlen(selector);
    if (len > 0 && selector[len - 1] == '*')
        return strncmp(selector, name, len - 1) == 0;
    return strcmp(selector, name) == 0;
}

static bool is_special(const char *selector)
{
    return !strcmp(selector, "all") || !strcmp(selector, "?") || !strcmp(selector, "help");
}

static bool wants_all(const struct bench__config *cfg)
{
    for (size_t i = 0; i < cfg->n_metrics; i++)
        if (!strcmp(cfg->metrics[i], "all"))
            return true;
    return false;
}

/* Does some explicit selector name this column? */
static bool selected(const struct bench__config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_metrics; i++)
        if (!is_special(cfg->metrics[i]) && selector_matches(cfg->metrics[i], name))
            return true;
    return false;
}

static bool family_selected(const struct bench__config *cfg, const struct bench__column_desc *f,
                            size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (selected(cfg, f[k].name) || selected(cfg, f[k].header))
            return true;
    return false;
}

/* ---- opening ------------------------------------------------------------------------- */

/* What the configuration asks of one source: its flag and values, the selectors, how. */
static struct bench__source_request request_for(const struct bench__config *cfg,
                                                const struct bench__source_ops *ops)
{
    const struct bench__source_flag *flag = ops->flag ? bench__config_flag(cfg, ops->flag) : NULL;
    return (struct bench__source_request){
        .flag = flag && flag->given,
        .flag_values = flag ? flag->values : NULL,
        .n_flag_values = flag ? flag->n_values : 0,
        .selectors = cfg->metrics,
        .n_selectors = cfg->n_metrics,
        .scaled = cfg->perf_scaled,
        .profile = cfg->profile,
        .profile_hz = cfg->profile_hz,
    };
}

/* The source named `name` among the first `before` of the catalog. */
static struct bench__open_source *find(struct bench__catalog *c, const char *name, size_t before)
{
    for (size_t i = 0; i < before; i++)
        if (!strcmp(c->sources[i].ops->name, name))
            return &c->sources[i];
    return NULL;
}

static void set_via(struct bench__open_source *s, bool by_flag)
{
    if (by_flag && s->ops->flag)
        bench__fmt(s->via, sizeof s->via, "--%s", s->ops->flag);
    else
        bench__fmt(s->via, sizeof s->via, "--metrics");
}

/* Every source of the list with its request and its family for this configuration: pure (a
 * family_for has no side effects), nothing is probed or opened. For a listing (probe_all), a
 * source whose columns depend on the request and that the configuration asks nothing of is
 * asked as if its bare flag were given, so its standing columns are listed (`syscalls`). */
static void load_families(struct bench__catalog *c, const struct bench__config *cfg, bool probe_all)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->all = wants_all(cfg);
    for (size_t i = 0; i < bench__n_sources && i < BENCH__MAX_SOURCES; i++) {
        struct bench__open_source *s = &c->sources[c->n_sources++];
        s->ops = bench__sources[i];
        s->request = request_for(cfg, s->ops);
        if (s->ops->family_for) {
            s->n_family = s->ops->family_for(&s->request, &s->configured);
            if (probe_all && s->n_family == 0 && s->ops->flag && !s->request.flag) {
                struct bench__source_request bare = s->request;
                bare.flag = true;
                free(s->configured.columns);
                free(s->configured.strings);
                s->configured = (struct bench__family){0};
                s->n_family = s->ops->family_for(&bare, &s->configured);
                if (s->n_family > 0)
                    s->request = bare;
            }
            s->family = s->configured.columns;
        } else {
            s->family = s->ops->family;
            s->n_family = s->ops->n_family;
        }
    }
}

/* Remove the columns the open dropped (see bench__source_ops.column_dropped), keeping the
 * family's order; a source left with none is closed. */
static void drop_columns(struct bench__open_source *s)
{
    if (!s->state || !s->ops->column_dropped || s->family != s->configured.columns)
        return;
    size_t kept = 0;
    for (size_t k = 0; k < s->n_family; k++)
        if (!s->ops->column_dropped(s->state, k))
            s->configured.columns[kept++] = s->configured.columns[k];
    s->n_family = s->configured.n = kept;
    if (kept == 0) {
        s->ops->close(s->state);
        s->state = NULL;
    }
}

void bench__catalog_open(struct bench__catalog *c, const struct bench__config *cfg, bool probe_all)
{
    load_families(c, cfg, probe_all);
    for (size_t i = 0; i < c->n_sources; i++) {
        struct bench__open_source *s = &c->sources[i];
        bool by_flag = s->request.flag;
        bool named = family_selected(cfg, s->family, s->n_family);
        /* a configured family exists only because something asked for its columns */
        bool configured = s->ops->family_for && s->n_family > 0 && !by_flag;
        s->requested = probe_all || c->all || by_flag || named || configured;
        set_via(s, by_flag);
        if (s->ops->fallback_for && !named && !probe_all && !c->all) {
            /* a fallback opens only when what it stands in for was asked for by its flag (not
             * by naming one of its metrics) and is absent */
            struct bench__open_source *primary = find(c, s->ops->fallback_for, i);
            s->requested =
                primary && primary->requested && !primary->state && primary->request.flag;
            s->fallback = s->requested;
            set_via(s, true);
        }
        if (!s->requested)
            continue;
        s->status[0] = '\0';
        s->state = s->ops->open(&s->request, &s->caps, s->status, sizeof s->status);
        drop_columns(s);
    }
}

void bench__catalog_close(struct bench__catalog *c)
{
    for (size_t i = 0; i < c->n_sources; i++) {
        if (c->sources[i].state)
            c->sources[i].ops->close(c->sources[i].state);
        free(c->sources[i].configured.columns);
        free(c->sources[i].configured.strings);
    }
    memset(c, 0, sizeof *c);
}

void bench__catalog_announce(const struct bench__catalog *c, FILE *err)
{
    const struct bench__open_source *said = NULL; /* the last source that said "unavailable" */
    for (size_t i = 0; i < c->n_sources; i++) {
        const struct bench__open_source *s = &c->sources[i];
        if (!s->requested)
            continue;
        if (!s->state) {
            /* the shape: "<flag>: <capability> unavailable (<reason>)", each line once (a
             * fallback absent for the same reason as its primary, off Linux, says nothing new) */
            enum bench__cap cap = bench__caps_defining_absence(&s->caps);
            if (cap == BENCH__CAP_COUNT)
                continue;
            const char *reason = bench__caps_reason(&s->caps, cap);
            if (said && !strcmp(said->via, s->via) &&
                bench__caps_defining_absence(&said->caps) == cap &&
                !strcmp(bench__caps_reason(&said->caps, cap), reason))
                continue;
            fprintf(err, "%s: %s unavailable (%s)\n", s->via, bench__cap_name(cap), reason);
            said = s;
            continue;
        }
        if (s->fallback) {
            fprintf(err, "%s: counting with %s instead (", s->via, s->ops->name);
            for (size_t k = 0; k < s->n_family; k++)
                fprintf(err, "%s%s", k ? ", " : "", s->family[k].name);
            fprintf(err, ")\n");
        }
        if (s->status[0])
            fprintf(err, "%s: %s %s\n", s->via, s->ops->name, s->status);
    }
}

bool bench__catalog_reserved(const char *name)
{
    for (size_t i = 0; i < bench__n_sources; i++) {
        const struct bench__source_ops *ops = bench__sources[i];
        if (ops->claim && ops->claim(name) != BENCH__CLAIM_NONE)
            return true;
        for (size_t k = 0; k < ops->n_family; k++)
            if (!strcmp(ops->family[k].name, name) || !strcmp(ops->family[k].header, name))
                return true;
    }
    return false;
}

/* ---- columns --------------------------------------------------------------------------- */

static bool visible(const struct bench__catalog *c, const struct bench__column_desc *d, bool open)
{
    const struct bench__config *cfg = c->cfg;
    bool listed = cfg->n_metrics > 0 && !c->all;
    if (listed) /* an explicit list shows what it names (by id or header), available or not */
        return selected(cfg, d->name) || selected(cfg, d->header);
    if (c->all)
        return open;
    return open && d->is_default;
}

static bool is_lead(const struct bench__catalog *c, const struct bench__column_desc *d)
{
    for (size_t i = 0; i < c->n_sources; i++)
        if (c->sources[i].ops->lead && !strcmp(c->sources[i].ops->name, d->source) &&
            !strcmp(c->sources[i].ops->lead, d->name))
            return true;
    return false;
}

size_t bench__catalog_columns(const struct bench__catalog *c,
                              const struct bench__column_desc *const *client, size_t n_client,
                              enum bench__column_set set, const struct bench__column_desc **out)
{
    bool table = set == BENCH__COLUMNS_TABLE;
    size_t n = 0;
    for (size_t i = 0; i < n_client; i++)
        if (!table || visible(c, client[i], true))
            out[n++] = client[i];
    for (size_t i = 0; i < c->n_sources; i++) {
        const struct bench__open_source *s = &c->sources[i];
        bool open = s->state != NULL;
        for (size_t k = 0; k < s->n_family; k++) {
            const struct bench__column_desc *d = &s->family[k];
            if (table ? visible(c, d, open) : open || visible(c, d, open))
                out[n++] = d;
        }
    }
    /* a source's lead column is hoisted to the front */
    for (size_t i = 1; i < n; i++)
        if (is_lead(c, out[i])) {
            const struct bench__column_desc *lead = out[i];
            memmove(&out[1], &out[0], i * sizeof *out);
            out[0] = lead;
            break;
        }
    return n;
}

size_t bench__catalog_max_columns(const struct bench__catalog *c, size_t n_client)
{
    size_t n = n_client;
    for (size_t i = 0; i < c->n_sources; i++)
        n += c->sources[i].n_family;
    return n;
}

const struct bench__column_desc **
bench__catalog_column_list(const struct bench__catalog *c,
                           const struct bench__column_desc *const *client, size_t n_client,
                           enum bench__column_set set, size_t *n)
{
    const struct bench__column_desc **cols =
        bench__xcalloc(bench__catalog_max_columns(c, n_client) + 1, sizeof *cols);
    *n = bench__catalog_columns(c, client, n_client, set, cols);
    return cols;
}

/* What the sources make of a selector: the strongest claim (counted over reserved). */
static enum bench__claim claim_of(const struct bench__catalog *c, const char *selector)
{
    enum bench__claim claim = BENCH__CLAIM_NONE;
    for (size_t s = 0; s < c->n_sources; s++)
        if (c->sources[s].ops->claim) {
            enum bench__claim k = c->sources[s].ops->claim(selector);
            if (k > claim)
                claim = k;
        }
    return claim;
}

/* Does the selector match a client column or a column of some source's family? */
static bool matches_a_column(const struct bench__catalog *c, const char *sel,
                             const struct bench__column_desc *const *client, size_t n_client)
{
    for (size_t k = 0; k < n_client; k++)
        if (selector_matches(sel, client[k]->name))
            return true;
    for (size_t s = 0; s < c->n_sources; s++)
        for (size_t k = 0; k < c->sources[s].n_family; k++)
            if (selector_matches(sel, c->sources[s].family[k].name) ||
                selector_matches(sel, c->sources[s].family[k].header))
                return true;
    return false;
}

/* The closest column name or header to an unmatched selector (not for a prefix*), or NULL. */
static const char *closest(const struct bench__catalog *c, const char *sel,
                           const struct bench__column_desc *const *client, size_t n_client)
{
    size_t len = strlen(sel);
    if (len > 0 && sel[len - 1] == '*')
        return NULL;
    struct bench__suggestion sg;
    bench__suggest_begin(&sg, sel);
    for (size_t k = 0; k < n_client; k++)
        bench__suggest_offer(&sg, client[k]->name);
    for (size_t s = 0; s < c->n_sources; s++)
        for (size_t k = 0; k < c->sources[s].n_family; k++) {
            bench__suggest_offer(&sg, c->sources[s].family[k].name);
            bench__suggest_offer(&sg, c->sources[s].family[k].header);
        }
    return sg.best;
}

/* Each selector (the command line holds each once) that matches no column: before the run
 * (final false) only those no client metric can take are errors, the others near a built-in
 * name get a note; at the end every one is an error. Returns the errors said. */
static size_t unmatched(const struct bench__catalog *c,
                        const struct bench__column_desc *const *client, size_t n_client, bool final,
                        FILE *err)
{
    const struct bench__config *cfg = c->cfg;
    size_t errors = 0;
    for (size_t i = 0; i < cfg->n_metrics; i++) {
        const char *sel = cfg->metrics[i];
        if (is_special(sel) || matches_a_column(c, sel, client, n_client))
            continue;
        enum bench__claim claim = claim_of(c, sel);
        if (claim == BENCH__CLAIM_COUNTED)
            continue; /* the source says itself, when it opens, why it has no column */
        const char *best = closest(c, sel, client, n_client);
        char hint[BENCH__EDIT_MAX + 32] = "";
        if (best)
            bench__fmt(hint, sizeof hint, " (did you mean '%s'?)", best);
        if (final || claim == BENCH__CLAIM_RESERVED) {
            fprintf(err,
                    "error: --metrics: no metric column matches '%s'%s \xe2\x80\x94 see "
                    "--list-metrics\n",
                    sel, hint);
            errors++;
        } else if (best) {
            fprintf(err,
                    "--metrics: '%s' is no built-in metric%s; unless a benchmark makes a client "
                    "metric of that name, the run ends with exit status 2\n",
                    sel, hint);
        }
    }
    return errors;
}

size_t bench__catalog_check_selectors(const struct bench__config *cfg, FILE *err)
{
    struct bench__catalog c;
    load_families(&c, cfg, false);
    size_t errors = unmatched(&c, NULL, 0, false, err);
    bench__catalog_close(&c);
    return errors;
}

size_t bench__catalog_report_unmatched(const struct bench__catalog *c,
                                       const struct bench__column_desc *const *client,
                                       size_t n_client, FILE *err)
{
    return unmatched(c, client, n_client, true, err);
}
