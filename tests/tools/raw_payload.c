// SPDX-License-Identifier: GPL-2.0
/*
 * The match data of the one rule: a struct xt_cgroup2_info built from the
 * options (consistent by default, each field overridable to make it
 * hostile), or any bytes given with --raw-data.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_cgroup.h>
#include <xt_cgroup2.h>

#include "raw.h"

/* Payload size iptables would use for the matches we know; 0: unknown. */
static size_t known_size(const char *match, unsigned int rev)
{
	if (!strcmp(match, "cgroup2")) {
		switch (rev) {
		case 0: return XT_ALIGN(sizeof(struct xt_cgroup2_info));
		case 1: return XT_ALIGN(sizeof(struct xt_cgroup2_info_v1));
		}
	}
	if (!strcmp(match, "cgroup")) {
		switch (rev) {
		case 0: return XT_ALIGN(sizeof(struct xt_cgroup_info_v0));
		case 1: return XT_ALIGN(sizeof(struct xt_cgroup_info_v1));
		case 2: return XT_ALIGN(sizeof(struct xt_cgroup_info_v2));
		}
	}
	return 0;
}

/*
 * Revision 1 has the fields of revision 0 with less room for patterns:
 * both are packed in a struct xt_cgroup2_info, within the room of theirs.
 */
static size_t room(const struct raw_opts *o)
{
	return o->revision == 1 ? XT_CGROUP2_PATTERNS_SIZE_V1 :
				  XT_CGROUP2_PATTERNS_SIZE;
}

static int pack_patterns(const struct raw_opts *o, struct xt_cgroup2_info *ci)
{
	size_t used = 0, n, size = room(o);
	unsigned int count = 0;
	int i;

	if (o->pattern_hex) {
		unsigned char *bytes;

		if (hex_decode(o->pattern_hex, &bytes, &n))
			return raw_usage("--pattern-bytes: '%s' is not a hex string",
				     o->pattern_hex);
		if (n > size) {
			free(bytes);
			return raw_usage("--pattern-bytes: %zu bytes, patterns[] holds %zu",
				     n, size);
		}
		memcpy(ci->patterns, bytes, n);
		free(bytes);
		for (i = 0; i < (int)n; i++)
			count += ci->patterns[i] == '\0';
		used = n;
	}
	for (i = 0; i < o->npatterns; i++) {
		n = strlen(o->patterns[i]) + 1;
		if (used + n > size)
			return raw_usage("--patterns: '%s' does not fit in the %zu bytes of patterns[] (fake it with --len/--count)",
				     o->patterns[i], size);
		memcpy(ci->patterns + used, o->patterns[i], n);
		used += n;
		count++;
	}
	if (o->no_nul) {
		if (used && ci->patterns[used - 1] == '\0')
			used--;
		else
			fprintf(stderr, "xt_cgroup2_raw: --no-nul: no final NUL to drop\n");
	}
	if (o->trailing_garbage) {
		if (used >= size)
			fprintf(stderr, "xt_cgroup2_raw: --trailing-garbage: no room after the patterns\n");
		memset(ci->patterns + used, 'G', size - used);
	}
	ci->count = count;
	ci->len = used;
	if (o->have_flags)
		ci->flags = o->flags;
	if (o->have_count)
		ci->count = o->count;
	if (o->have_len)
		ci->len = o->len;
	return 0;
}

int raw_payload(const struct raw_opts *o, unsigned char **data, size_t *size)
{
	unsigned char *raw = NULL, *buf;
	size_t rawlen = 0, sz;
	int ret;

	if (o->raw_hex && hex_decode(o->raw_hex, &raw, &rawlen))
		return raw_usage("--raw-data: '%s' is not a hex string", o->raw_hex);

	sz = known_size(o->match, o->revision);
	if (o->data_size >= 0)
		sz = o->data_size;
	else if (!sz && raw)
		sz = XT_ALIGN(rawlen);
	else if (!sz) {
		free(raw);
		return raw_usage("match '%s' has no known size: give --data-size or --raw-data",
			     o->match);
	}

	buf = calloc(1, sz > sizeof(struct xt_cgroup2_info) ? sz :
		     sizeof(struct xt_cgroup2_info));
	if (!buf) {
		free(raw);
		fprintf(stderr, "xt_cgroup2_raw: out of memory\n");
		printf("error: out of memory\n");
		return RAW_EXIT_SETUP;
	}
	if (raw) {
		if (rawlen > sz) {
			free(raw);
			free(buf);
			return raw_usage("--raw-data has %zu bytes, the match data only %zu",
				     rawlen, sz);
		}
		memcpy(buf, raw, rawlen);
		free(raw);
	} else {
		/* Truncated by a small --data-size, zero-padded by a large one. */
		ret = pack_patterns(o, (struct xt_cgroup2_info *)buf);
		if (ret) {
			free(buf);
			return ret;
		}
		if (sz < sizeof(struct xt_cgroup2_info))
			memset(buf + sz, 0, sizeof(struct xt_cgroup2_info) - sz);
	}
	*data = buf;
	*size = sz;
	return 0;
}
