/* SPDX-License-Identifier: MIT */
/* catalog.c: owns the metric catalog of a run: the table of sources (in counting-pass
 * order), which of them a run requests and opens (--perf, --metrics, fallbacks), the
 * column order and visibility rules, the bench-header lines about absent or degraded
 * sources, and --list-metrics with its capability block. It never measures. */
#define _GNU_SOURCE
#include <string.h>

#include "catalog.h"
#include "sources/event_naming.h"

static const struct bench__source_ops *const default_sources[] = {
    /* counting-pass and column order: perf, tier0, syscalls, raw (inventory 2.1, 3) */
    &bench__source_perf,     &bench__source_perf_sw, &bench__source_tier0,
    &bench__source_syscalls, &bench__source_raw,
};
const struct bench__source_ops *const *bench__sources = default_sources;
size_t bench__n_sources = sizeof default_sources / sizeof default_sources[0];

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

/* The family of a source under this configuration. */
static const struct bench__column_desc *family_of(const struct bench__source_ops *ops,
                                                  const struct bench__config *cfg, size_t *n)
{
    if (ops->family_for)
        return ops->family_for(cfg, n);
    *n = ops->n_family;
    return ops->family;
}

static bool family_selected(const struct bench__config *cfg, const struct bench__column_desc *f,
                            size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (selected(cfg, f[k].name) || selected(cfg, f[k].header))
            return true;
    return false;
}

static bool flag_requests(const struct bench__config *cfg, const struct bench__source_ops *ops)
{
    if (!ops->request_flag)
        return false;
    if (!strcmp(ops->request_flag, "--perf"))
        return cfg->perf;
    if (!strcmp(ops->request_flag, "--syscalls"))
        return cfg->syscalls;
    return false;
}

/* ---- opening ------------------------------------------------------------------------- */

static struct bench__open_source *find(struct bench__catalog *c, const char *name)
{
    for (size_t i = 0; i < c->n_sources; i++)
        if (!strcmp(c->sources[i].ops->name, name))
            return &c->sources[i];
    return NULL;
}

void bench__catalog_open(struct bench__catalog *c, const struct bench__config *cfg, bool probe_all)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->all = wants_all(cfg);
    for (size_t i = 0; i < bench__n_sources && i < BENCH__MAX_SOURCES; i++) {
        struct bench__open_source *s = &c->sources[c->n_sources++];
        s->ops = bench__sources[i];
        s->family = family_of(s->ops, cfg, &s->n_family);
        bool by_flag = flag_requests(cfg, s->ops);
        bool named = family_selected(cfg, s->family, s->n_family);
        /* a configured family exists only because something asked for its columns */
        bool configured = s->ops->family_for && s->n_family > 0 && !by_flag;
        s->requested = probe_all || c->all || by_flag || named || configured;
        s->via = by_flag ? s->ops->request_flag : "--metrics";
        if (s->ops->fallback_for && !named && !probe_all && !c->all) {
            /* a fallback opens only when what it stands in for was asked for by its flag
             * (not by naming one of its metrics) and is absent */
            struct bench__open_source *primary = find(c, s->ops->fallback_for);
            s->requested = primary && primary->requested && !primary->state &&
                           flag_requests(cfg, primary->ops);
            s->fallback = s->requested;
            s->via = s->ops->request_flag;
        }
        if (!s->requested)
            continue;
        s->status[0] = '\0';
        s->state = s->ops->open(cfg, &s->caps, s->status, sizeof s->status);
    }
}

void bench__catalog_close(struct bench__catalog *c)
{
    for (size_t i = 0; i < c->n_sources; i++)
        if (c->sources[i].state)
            c->sources[i].ops->close(c->sources[i].state);
    memset(c, 0, sizeof *c);
}

void bench__catalog_announce(const struct bench__catalog *c, FILE *err)
{
    for (size_t i = 0; i < c->n_sources; i++) {
        const struct bench__open_source *s = &c->sources[i];
        if (!s->requested)
            continue;
        const char *flag = s->via ? s->via : "--metrics";
        if (!s->state) {
            for (size_t a = 0; a < s->caps.n_absent; a++)
                if (s->caps.absent[a].cap == BENCH__CAP_COUNTING)
                    fprintf(err, "%s: %s %s unavailable (%s)\n", flag, s->ops->name,
                            bench__cap_name(BENCH__CAP_COUNTING), s->caps.absent[a].reason);
            continue;
        }
        if (s->fallback) {
            fprintf(err, "%s: counting with %s instead (", flag, s->ops->name);
            for (size_t k = 0; k < s->n_family; k++)
                fprintf(err, "%s%s", k ? ", " : "", s->family[k].name);
            fprintf(err, ")\n");
        }
        if (s->status[0])
            fprintf(err, "%s: %s %s\n", flag, s->ops->name, s->status);
    }
}

bool bench__catalog_reserved(const char *name)
{
    static const char *const prefixes[] = {"syscalls:", "sc:", "raw:", "pfm:"};
    if (!strcmp(name, "syscalls"))
        return true;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return true;
    for (size_t i = 0; i < bench__n_sources; i++)
        for (size_t k = 0; k < bench__sources[i]->n_family; k++)
            if (!strcmp(bench__sources[i]->family[k].name, name) ||
                !strcmp(bench__sources[i]->family[k].header, name))
                return true;
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
    /* instr is hoisted to the front */
    for (size_t i = 1; i < n; i++)
        if (!strcmp(out[i]->name, "instr") && !strcmp(out[i]->source, "perf")) {
            const struct bench__column_desc *instr = out[i];
            memmove(&out[1], &out[0], i * sizeof *out);
            out[0] = instr;
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

void bench__catalog_warn_unmatched(const struct bench__catalog *c,
                                   const struct bench__column_desc *const *client, size_t n_client,
                                   FILE *err)
{
    const struct bench__config *cfg = c->cfg;
    for (size_t i = 0; i < cfg->n_metrics; i++) {
        const char *sel = cfg->metrics[i];
        if (is_special(sel))
            continue;
        enum bench__selector_kind kind = bench__selector_parse(sel, NULL);
        if (kind == BENCH__SELECTOR_RAW || kind == BENCH__SELECTOR_PFM)
            continue; /* the raw source warned about those it does not count */
        bool any = false;
        for (size_t k = 0; k < n_client && !any; k++)
            any = selector_matches(sel, client[k]->name);
        for (size_t s = 0; s < c->n_sources && !any; s++)
            for (size_t k = 0; k < c->sources[s].n_family && !any; k++)
                any = selector_matches(sel, c->sources[s].family[k].name) ||
                      selector_matches(sel, c->sources[s].family[k].header);
        if (!any)
            fprintf(err, "--metrics: no metric column matches '%s' — see --list-metrics\n", sel);
    }
}

/* ---- --list-metrics --------------------------------------------------------------------- */

static const char *class_word(enum bench__class cls)
{
    return cls == BENCH__QUANTITATIVE ? "quantitative" : "diagnostic";
}

void bench__caps_render(FILE *out, const struct bench__catalog *c)
{
    size_t width = 0;
    for (size_t i = 0; i < c->n_sources; i++)
        if (strlen(c->sources[i].ops->name) > width)
            width = strlen(c->sources[i].ops->name);
    fprintf(out, "capabilities:\n");
    for (size_t i = 0; i < c->n_sources; i++) {
        const struct bench__open_source *s = &c->sources[i];
        if (!s->requested)
            continue;
        bool first = true;
        for (unsigned cap = 0; cap < BENCH__CAP_COUNT; cap++) {
            const char *reason = bench__caps_reason(&s->caps, (enum bench__cap)cap);
            bool present = s->caps.present & (1u << cap);
            if (!present && !reason)
                continue;
            fprintf(out, "  %-*s %s %s", (int)width, first ? s->ops->name : "",
                    present ? "\xe2\x9c\x93" : "\xe2\x9c\x97",
                    bench__cap_name((enum bench__cap)cap));
            if (!present)
                fprintf(out, " \xe2\x80\x94 %s", reason);
            fputc('\n', out);
            first = false;
        }
    }
}

int bench__catalog_list(const struct bench__config *cfg, FILE *out)
{
    struct bench__catalog c;
    bench__catalog_open(&c, cfg, true);
    struct bench__table_memory memory = {0};
    static const struct bench__column columns[] = {
        {"metric", BENCH__LEFT}, {"column", BENCH__LEFT},    {"class", BENCH__LEFT},
        {"source", BENCH__LEFT}, {"available", BENCH__LEFT},
    };
    size_t n_rows = 0;
    for (size_t i = 0; i < c.n_sources; i++)
        n_rows += c.sources[i].n_family;
    const char **cells = calloc(n_rows * 5 + 1, sizeof *cells);
    if (!cells)
        abort();
    size_t r = 0;
    for (size_t i = 0; i < c.n_sources; i++)
        for (size_t k = 0; k < c.sources[i].n_family; k++, r++) {
            const struct bench__column_desc *d = &c.sources[i].family[k];
            cells[r * 5 + 0] = d->name;
            cells[r * 5 + 1] = d->header;
            cells[r * 5 + 2] = class_word(d->cls);
            cells[r * 5 + 3] = d->source;
            cells[r * 5 + 4] = c.sources[i].state ? "yes" : "no";
        }
    struct bench__table table = {
        .columns = columns, .n_columns = 5, .cells = (char **)cells, .n_rows = n_rows};
    bench__table_render(out, &table, &memory);
    bench__table_memory_free(&memory);
    free(cells);
    fputc('\n', out);
    bench__caps_render(out, &c);
    fprintf(out, "\nClient metrics (bench_case .metrics) appear per benchmark as <unit>/s or "
                 "<unit>.\n");
    bench__catalog_close(&c);
    return 0;
}
