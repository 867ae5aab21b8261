/* SPDX-License-Identifier: GPL-2.0 */
/* kzalloc(), kcalloc() and kfree() from the shim; ERR_PTR() comes along. */
#include <linux/err.h>
#include "../kshim.h"
