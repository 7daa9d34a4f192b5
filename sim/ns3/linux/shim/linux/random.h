/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel header of this name, for the congestion-control modules: emusim-kernel.h */
#include "../emusim-kernel.h"
