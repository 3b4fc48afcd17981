/* SPDX-License-Identifier: MIT */
/* results_push.c: owns `libbench results push DIR URL`: every raw object of a local store read
 * (never through a symbolic link) and inserted into a PostgreSQL store, each in its own
 * transaction, the same bytes left as they are (idempotent). It writes no index: a report or a
 * rebuild on that store indexes what was pushed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_tool.h"
#include "common/output.h"
#include "util/text.h"

int results_push_main(const char *dir, const char *url)
{
    struct results_store local, shared;
    char err[512];
    int rc = results_store_open(dir, false, &local, err, sizeof err);
    if (rc == 1) {
        char shown[256];
        bench__sanitize_copy(dir, shown, sizeof shown);
        fprintf(stderr, "error: %s: no such store\n", shown);
        return 1;
    }
    if (rc != 0) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    local.command = "results";
    if (results_store_open(url, true, &shared, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        results_store_close(&local);
        return 1;
    }
    shared.command = "results";
    struct results_entry *list = NULL;
    size_t n = 0, pushed = 0, there = 0, refused = 0;
    rc = results_store_list(&local, &list, &n, err, sizeof err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *text = NULL, why[300];
        size_t len = 0;
        char shown[512];
        bench__sanitize_copy(list[i].key, shown, sizeof shown);
        if (list[i].refused ||
            results_store_read(&local, list[i].key, &text, &len, why, sizeof why) != 0) {
            fprintf(stderr, "libbench results: %s/%s: %s: not pushed\n", local.dir, shown,
                    list[i].refused ? list[i].refused : why);
            refused++;
            continue;
        }
        /* an object whose bytes are not its key's is not copied: the shared store would refuse
         * it at every rebuild */
        char profile[65], date[11], bench_id[17], sha12[13], hex[65];
        tool_sha256_hex(text, len, hex);
        if (!results_object_key_parse(list[i].key, profile, date, bench_id, sha12) ||
            strncmp(hex, sha12, 12) != 0) {
            fprintf(stderr,
                    "libbench results: %s/%s: its content's SHA-256 does not match its "
                    "key: not pushed\n",
                    local.dir, shown);
            free(text);
            refused++;
            continue;
        }
        int put = results_store_put_object(&shared, list[i].key, text, len, err, sizeof err);
        free(text);
        if (put < 0)
            rc = -1;
        else
            put ? there++ : pushed++;
    }
    results_entries_free(list, n);
    if (rc != 0)
        fprintf(stderr, "error: %s\n", err);
    else
        printf("pushed %zu raw object%s to %s (%zu already there%s)\n", pushed,
               pushed == 1 ? "" : "s", shared.dir, there,
               refused ? ", some not pushed: see above" : "");
    results_store_close(&shared);
    results_store_close(&local);
    if (rc == 0 && tool_stdout_finish() != 0)
        rc = -1;
    return rc != 0 || refused ? 1 : 0;
}
