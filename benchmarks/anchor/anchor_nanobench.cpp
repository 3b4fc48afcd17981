/* SPDX-License-Identifier: MIT */
/* anchor_nanobench.cpp: the nanobench side of the anchor comparison (issue 26 point 6): the
 * same six kernels, same names, same shared kernel code, timed by nanobench's defaults. Built
 * only with -Dnanobench=DIR (a directory holding nanobench.h; nanobench is not packaged in
 * Debian 12). Prints one line per kernel, "NAME MEDIAN_NS EPOCHS", for precision.py. */
#define ANKERL_NANOBENCH_IMPLEMENT
#include <nanobench.h>

#include <cstdio>

#include "kernels.h"

int main()
{
    anchor_kernels_init();
    ankerl::nanobench::Bench b;
    b.output(nullptr); /* no Markdown table: the lines below are the output */
    b.run("empty", [] { asm volatile("" ::: "memory"); });
    b.run("add_chain_1000", [] { ankerl::nanobench::doNotOptimizeAway(anchor_add_chain_1000()); });
    b.run("div_chain_64", [] { ankerl::nanobench::doNotOptimizeAway(anchor_div_chain_64()); });
    b.run("memcpy_4k", [] { ankerl::nanobench::doNotOptimizeAway(anchor_memcpy_4k()); });
    b.run("fnv1a_1k", [] { ankerl::nanobench::doNotOptimizeAway(anchor_fnv1a_1k()); });
    b.run("qsort_1000", [] { ankerl::nanobench::doNotOptimizeAway(anchor_qsort_1000()); });
    for (const auto &r : b.results())
        std::printf("%s %.6f %zu\n", r.config().mBenchmarkName.c_str(),
                    1e9 * r.median(ankerl::nanobench::Result::Measure::elapsed), r.size());
    return 0;
}
