// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "acct_stats.h"
#include "util_textesc.h"

static bool wanted(const struct acct *a, const char *only)
{
	return !only || !strcmp(a->name, only);
}

static void table_row(FILE *f, const struct acct *a,
		      const struct acct_path *e)
{
	struct acct_ctr t = acct_total(e);
	char id[24] = "-";
	size_t len = strlen(a->name);

	if (e->live_id)
		snprintf(id, sizeof(id), "%" PRIu64, e->live_id);
	put_term_name(f, a->name);
	fprintf(f, "%*s %-20s %12" PRIu64 " %14" PRIu64 " %8" PRIu64 "  /",
		len < 24 ? (int)(24 - len) : 0, "", id, t.packets, t.bytes,
		e->restarts);
	put_term_name(f, e->path);
	fputc('\n', f);
}

static void print_table(FILE *f, const struct acct_store *s, const char *only)
{
	size_t i, j;

	fprintf(f, "%-24s %-20s %12s %14s %8s  %s\n", "SET", "ID", "PACKETS",
		"BYTES", "RESTARTS", "PATH");
	for (i = 0; i < s->n; i++)
		if (wanted(s->v[i], only))
			for (j = 0; j < s->v[i]->n; j++)
				table_row(f, s->v[i], &s->v[i]->p[j]);
}

static void json_row(FILE *f, const struct acct *a, const struct acct_path *e)
{
	struct acct_ctr t = acct_total(e);

	fputs("{\"set\":", f);
	put_json_name(f, "", a->name);
	fputs(",\"path\":", f);
	put_json_name(f, "/", e->path);
	fputs(",\"id\":", f);
	if (e->live_id)
		fprintf(f, "%" PRIu64, e->live_id);
	else
		fputs("null", f);
	fprintf(f, ",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64
		",\"restarts\":%" PRIu64 "}", t.packets, t.bytes, e->restarts);
}

static void print_json(FILE *f, const struct acct_store *s, const char *only)
{
	const char *sep = "";
	size_t i, j;

	fputc('[', f);
	for (i = 0; i < s->n; i++) {
		if (!wanted(s->v[i], only))
			continue;
		for (j = 0; j < s->v[i]->n; j++) {
			fputs(sep, f);
			json_row(f, s->v[i], &s->v[i]->p[j]);
			sep = ",\n ";
		}
	}
	fputs("]\n", f);
}

void stats_print(FILE *f, const struct acct_store *s, const char *only,
		 bool json)
{
	if (json)
		print_json(f, s, only);
	else
		print_table(f, s, only);
}
