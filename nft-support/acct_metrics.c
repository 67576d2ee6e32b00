// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <inttypes.h>
#include <stdio.h>

#include "util_atomicfile.h"
#include "acct_metrics.h"
#include "util_textesc.h"

enum metric { M_PACKETS, M_BYTES, M_RESTARTS, M_LIVE };

static const struct {
	const char *name, *type, *help;
} metric[] = {
	[M_PACKETS] = { "nft_cgroupd_packets_total", "counter",
		"Packets counted by the set's elements of this cgroup path, summed over its cgroup ids." },
	[M_BYTES] = { "nft_cgroupd_bytes_total", "counter",
		"Bytes counted by the set's elements of this cgroup path, summed over its cgroup ids." },
	[M_RESTARTS] = { "nft_cgroupd_restarts_total", "counter",
		"New cgroup ids seen for this path after the first (service restarts)." },
	[M_LIVE] = { "nft_cgroupd_live", "gauge",
		"1 while a cgroup of this path is in the set." },
};

static uint64_t value(const struct acct_path *e, enum metric m)
{
	switch (m) {
	case M_PACKETS:
		return acct_total(e).packets;
	case M_BYTES:
		return acct_total(e).bytes;
	case M_RESTARTS:
		return e->restarts;
	default:
		return e->live_id != 0;
	}
}

static void put_metric(FILE *f, const struct acct_store *s, enum metric m)
{
	size_t i, j;

	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", metric[m].name,
		metric[m].help, metric[m].name, metric[m].type);
	for (i = 0; i < s->n; i++) {
		for (j = 0; j < s->v[i]->n; j++) {
			const struct acct_path *e = &s->v[i]->p[j];

			fprintf(f, "%s{set=\"", metric[m].name);
			put_prom_label(f, s->v[i]->name);
			fputs("\",path=\"/", f);
			put_prom_label(f, e->path);
			fprintf(f, "\"} %" PRIu64 "\n", value(e, m));
		}
	}
}

static int fill(FILE *f, void *ctx)
{
	enum metric m;

	for (m = M_PACKETS; m <= M_LIVE; m++)
		put_metric(f, ctx, m);
	return 0;
}

int metrics_write(const char *path, const struct acct_store *s)
{
	return atomic_write(path, 0644, fill, (void *)s);
}
