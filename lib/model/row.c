/* SPDX-License-Identifier: MIT */
/* row.c: owns the words of a metric column's class in JSON and the catalog (see row.h). */
#include "row.h"

const char *bench__class_name(enum bench__class cls)
{
    return cls == BENCH__DIAGNOSTIC ? "diagnostic" : "quantitative";
}
