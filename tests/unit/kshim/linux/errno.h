/* SPDX-License-Identifier: GPL-2.0 */
/* The system's errno values are the kernel's. */
#include_next <linux/errno.h>
