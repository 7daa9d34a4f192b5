/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <linux/inet_diag.h> for the congestion-control modules: the kernel's user-space API header
 * (Debian's linux-libc-dev, the same 6.1 release) declares what their get_info hooks fill in.
 */
#include "../emusim-kernel.h"
#include_next <linux/inet_diag.h>
