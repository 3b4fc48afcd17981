/* SPDX-License-Identifier: MIT */
/* sys/timerfd.h: stands for the Linux-only header of that name in a -Dplatform=posix build on a Linux
 * host (meson.build puts this folder first on the include path), so that the portable core
 * cannot include it by mistake. It must stay an error: see docs/reference/platforms.md. */
#error "<sys/timerfd.h> is Linux-only: the portable build (-Dplatform=posix) must not include it"
