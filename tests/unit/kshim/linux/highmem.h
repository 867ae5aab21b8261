/* SPDX-License-Identifier: GPL-2.0 */
/* Pages and maps from the shim; the copies map their pages as the kernel's. */
#ifndef KSHIM_LINUX_HIGHMEM_H
#define KSHIM_LINUX_HIGHMEM_H

#include <string.h>
#include "../kshim.h"

static inline void memcpy_to_page(struct page *page, size_t offset,
				  const char *from, size_t len)
{
	char *to = kmap_local_page(page);

	if (offset + len > PAGE_SIZE)
		kshim_misuse("memcpy_to_page past the page's end");
	else
		memcpy(to + offset, from, len);
	kunmap_local(to);
}

static inline void copy_highpage(struct page *to, struct page *from)
{
	char *vfrom = kmap_local_page(from);
	char *vto = kmap_local_page(to);

	memcpy(vto, vfrom, PAGE_SIZE);
	kunmap_local(vto);
	kunmap_local(vfrom);
}

#endif
