/* SPDX-License-Identifier: MIT */
/* results_lines.c: owns reading a raw object's lines a batch at a time in a thread of its own
 * (results_lines.h), so that the index adds one batch while the next is read. Two batches, handed
 * over in the object's order: the index sees the lines and refusals as one thread would give them.
 * It writes no index and no file; without a thread the caller's thread reads each batch. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "results_lines.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

struct results_lines {
    const char *text, *bench_id, *profile;
    size_t len, pos, line_no; /* the reader's place: the reading thread's alone */
    struct results_line_batch slot[2];
    bool ready[2]; /* filled and not yet given back */
    size_t next_fill, next_take;
    bool stop, threaded;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t thread;
};

/* The text of a refused line for its error document: itself when it is UTF-8, else null. */
static json_t *line_text(const char *s, size_t n)
{
    json_t *v = json_stringn(s, n);
    return v ? v : json_null();
}

/* Reads lines into b up to RESULTS_LINES_PER_BATCH accepted ones, or to the object's end. */
static void fill(struct results_lines *r, struct results_line_batch *b)
{
    b->n = 0;
    b->bad = json_array();
    while (r->pos < r->len && b->n < RESULTS_LINES_PER_BATCH) {
        const char *nl = memchr(r->text + r->pos, '\n', r->len - r->pos);
        size_t end = nl ? (size_t)(nl - r->text) : r->len;
        char why[256] = "";
        struct results_line *l = &b->lines[b->n];
        if (end > r->pos &&
            results_line_parse(r->text + r->pos, end - r->pos, l, why, sizeof why) == 0) {
            if (strcmp(l->m.bench_id, r->bench_id) || strcmp(l->m.profile, r->profile)) {
                bench__fmt(why, sizeof why, "its bench_id or profile is not its object's");
                results_line_free(l);
            } else {
                b->n++;
            }
        }
        if (why[0]) {
            json_t *e = json_object();
            json_object_set_new(e, "line", json_integer((json_int_t)r->line_no + 1));
            json_object_set_new(e, "reason", tool_json_text(why));
            json_object_set_new(e, "text", line_text(r->text + r->pos, end - r->pos));
            json_array_append_new(b->bad, e);
        }
        r->pos = end + 1;
        r->line_no++;
    }
    b->last = r->pos >= r->len;
}

static void *reader(void *arg)
{
    struct results_lines *r = arg;
    for (bool last = false; !last;) {
        size_t k = r->next_fill;
        pthread_mutex_lock(&r->lock);
        while (r->ready[k] && !r->stop)
            pthread_cond_wait(&r->changed, &r->lock);
        bool stop = r->stop;
        pthread_mutex_unlock(&r->lock);
        if (stop)
            break;
        fill(r, &r->slot[k]);
        last = r->slot[k].last;
        pthread_mutex_lock(&r->lock);
        r->ready[k] = true;
        r->next_fill = 1 - k;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);
    }
    return NULL;
}

struct results_lines *results_lines_start(const char *text, size_t len, const char *bench_id,
                                          const char *profile)
{
    struct results_lines *r = bench__xcalloc(1, sizeof *r);
    r->text = text;
    r->len = len;
    r->bench_id = bench_id;
    r->profile = profile;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->changed, NULL);
    r->threaded = pthread_create(&r->thread, NULL, reader, r) == 0;
    return r;
}

struct results_line_batch *results_lines_next(struct results_lines *r)
{
    size_t k = r->next_take;
    if (!r->threaded) { /* this thread reads it */
        fill(r, &r->slot[k]);
        r->ready[k] = true;
        return &r->slot[k];
    }
    pthread_mutex_lock(&r->lock);
    while (!r->ready[k])
        pthread_cond_wait(&r->changed, &r->lock);
    pthread_mutex_unlock(&r->lock);
    return &r->slot[k];
}

/* The batch's lines and refusals freed. */
static void clear(struct results_line_batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        results_line_free(&b->lines[i]);
    b->n = 0;
    json_decref(b->bad);
    b->bad = NULL;
}

void results_lines_done(struct results_lines *r, struct results_line_batch *b)
{
    size_t k = r->next_take;
    clear(b);
    pthread_mutex_lock(&r->lock);
    r->ready[k] = false;
    r->next_take = 1 - k;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
}

void results_lines_stop(struct results_lines *r)
{
    if (r->threaded) {
        pthread_mutex_lock(&r->lock);
        r->stop = true;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);
        pthread_join(r->thread, NULL);
    }
    for (size_t k = 0; k < 2; k++)
        if (r->ready[k])
            clear(&r->slot[k]);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->changed);
    free(r);
}
