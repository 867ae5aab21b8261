/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: exports mean nothing outside the kernel. */
#ifndef KSHIM_LINUX_EXPORT_H
#define KSHIM_LINUX_EXPORT_H
#define EXPORT_SYMBOL_GPL(sym)
#endif
