// SPDX-License-Identifier: GPL-2.0
/*
 * store_xvmalloc.c - the memory server's xvmalloc.c, built into the frontend for its
 * local tier (local.c): one copy of the source, used by both modules.
 */
#include "../backend-node/xvmalloc.c"
