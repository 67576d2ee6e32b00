// SPDX-License-Identifier: GPL-2.0 OR MIT
/* idset: content right through growth and shrinking; memory given back. */
#include <stdio.h>

#include "../util_idset.h"

static int failed;

static void check(int ok, const char *what, size_t got)
{
	printf("%s idset: %s%s", ok ? "PASS" : "FAIL", what,
	       ok ? "\n" : "");
	if (!ok) {
		printf(": got %zu\n", got);
		failed = 1;
	}
}

int main(void)
{
	struct idset s = { 0 };
	uint64_t id, n = 100000;
	size_t bad = 0;

	for (id = 1; id <= n; id++)
		idset_add(&s, id);
	check(s.used == n, "100,000 ids added", s.used);
	for (id = 1; id <= n; id += 2)
		idset_del(&s, id);
	for (id = 1; id <= n; id++)
		bad += idset_has(&s, id) != !(id & 1);
	check(!bad, "every other id deleted, the rest still there", bad);
	for (id = 2; id <= n - 10; id += 2)
		idset_del(&s, id);
	check(s.used == 5 && s.cap <= 64, "down to 5 ids: the table shrank",
	      s.cap);
	for (id = n - 8; id <= n; id += 2)
		bad += !idset_has(&s, id);
	check(!bad, "the last 5 ids survived the shrinking", bad);
	for (id = 1; id <= n; id++)
		idset_add(&s, id);
	idset_clear(&s);
	check(s.cap == 0 && !idset_has(&s, 7), "clear gives a big table back",
	      s.cap);
	idset_add(&s, 7);
	check(idset_has(&s, 7) && s.used == 1, "usable after clear", s.used);
	idset_free(&s);
	return failed;
}
