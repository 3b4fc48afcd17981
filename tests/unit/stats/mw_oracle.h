/* SPDX-License-Identifier: MIT */
/* mw_oracle.h: the test oracle of the exact Mann-Whitney p: every subset enumerated, the values
 * compared pair by pair (never through ranks), so it shares nothing with the engine's DP. */
#ifndef MW_ORACLE_H
#define MW_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The two-sided permutation p of the candidate arm as an exact fraction; false when N > 62 or
 * there are more than 2^24 subsets (too many to enumerate in a test). */
bool mw_enumerate(const double *b, size_t nb, const double *c, size_t nc, uint64_t *numerator,
                  uint64_t *denominator);

#endif /* MW_ORACLE_H */
