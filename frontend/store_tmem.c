// SPDX-License-Identifier: GPL-2.0
/*
 * store_tmem.c - the memory server's tmem.c, built into the frontend for its
 * local tier (local.c): one copy of the source, used by both modules.
 */
#include "../backend-node/tmem.c"
