/* SPDX-License-Identifier: MIT */
/* results_location.c: owns what a --results value names (record, report, results rebuild): the
 * directory of a local store, or a URL of a store this build does not have, refused with the
 * reason before anything is created. The one place a URL is recognised: a postgresql:// URL names
 * a PostgreSQL store in a build with libpq, and is refused with the package to install in a
 * build without it. It opens nothing. */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "results_tool.h"
#include "common/args.h"

/* The length of a URL scheme and its ':' at the start of value ("postgresql:"), or 0. */
static size_t scheme_length(const char *value)
{
    if (!isalpha((unsigned char)value[0]))
        return 0;
    size_t i = 1;
    while (isalnum((unsigned char)value[i]) || value[i] == '+' || value[i] == '-' ||
           value[i] == '.')
        i++;
    return value[i] == ':' ? i + 1 : 0;
}

bool results_location_is_pg(const char *value)
{
    size_t scheme = value ? scheme_length(value) : 0;
    return (scheme == 11 && !strncasecmp(value, "postgresql:", 11)) ||
           (scheme == 9 && !strncasecmp(value, "postgres:", 9));
}

const char *results_location_default(void)
{
    const char *env = getenv("LIBBENCH_RESULTS");
    return env && env[0] ? env : NULL;
}

int results_location(const char *command, const char *value, enum results_location_kind *kind)
{
    *kind = RESULTS_LOCATION_DIRECTORY;
    if (!value)
        return 0;
    if (!value[0])
        return tool_usage_error(command, "--results needs a non-empty value: a directory%s", "");
    size_t scheme = scheme_length(value);
    if (!scheme)
        return 0;
    /* the URL itself is not echoed: it may hold a password */
    if (results_location_is_pg(value)) {
#ifdef LIBBENCH_HAVE_PG
        *kind = RESULTS_LOCATION_POSTGRESQL;
        return 0;
#else
        return tool_usage_error(command,
                                "--results: a postgresql:// URL names a PostgreSQL store, and "
                                "this libbench was built without libpq (install libpq-dev and "
                                "build it again, or give a directory)%s",
                                "");
#endif
    }
    char name[32];
    size_t n = scheme - 1 < sizeof name - 1 ? scheme - 1 : sizeof name - 1;
    memcpy(name, value, n);
    name[n] = '\0';
    return tool_usage_error(command,
                            "--results: '%s:' is a URL scheme of no store libbench knows (give a "
                            "directory; ./NAME for a directory whose name has a ':')",
                            name);
}
