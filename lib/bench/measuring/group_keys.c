/* SPDX-License-Identifier: MIT */
/* group_keys.c: owns the reading of --group-by's words (see group_keys.h): "list" (and its
 * spellings) and "all". It holds no state and measures nothing. */
#include <string.h>

#include "group_keys.h"

static bool has_word(const struct bench__config *cfg, const char *word)
{
    for (size_t i = 0; i < cfg->n_group_by; i++)
        if (!strcmp(cfg->group_by[i], word))
            return true;
    return false;
}

bool bench__group_list_wanted(const struct bench__config *cfg)
{
    return has_word(cfg, "list") || has_word(cfg, "help") || has_word(cfg, "?");
}

bool bench__group_all_wanted(const struct bench__config *cfg)
{
    return has_word(cfg, "all");
}
