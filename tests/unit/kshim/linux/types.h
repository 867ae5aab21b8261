/* SPDX-License-Identifier: GPL-2.0 */
/* The system's <linux/types.h>, then the kernel's own types from the shim. */
#include_next <linux/types.h>
#include "../kshim.h"
