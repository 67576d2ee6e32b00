// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel must answer, derived from the ABI (include/uapi/
 * xt_cgroup2.h, the README's error table) and the userspace build of the
 * engine: EINVAL for a malformed blob or pattern, ENAMETOOLONG for too many
 * bytes, 0 otherwise; and, for an accepted blob, whether a socket in a given
 * cgroup matches.
 */
#include <errno.h>
#include <string.h>

#include "cgroup2_pattern.h"
#include "cgroup2_user.h"
#include "kfuzz.h"

/* Each pattern valid, the rule's matcher states within budget. */
static int expect_patterns(const struct xt_cgroup2_info *info)
{
	const char *p = info->patterns, *end = p + info->len;
	unsigned int i, states = 0;
	enum cg2_error err;
	size_t n;

	for (i = 0; i < info->count; i++) {
		n = strnlen(p, end - p);
		if (p + n == end)
			return -EINVAL;		/* not NUL-terminated */
		err = cg2_validate(p, n, CG2_MAX_PATTERN_LEN, NULL,
				   cg2_user_work());
		if (err != CG2_OK)
			return err == CG2_ERR_TOO_LONG ? -ENAMETOOLONG : -EINVAL;
		states += cg2_cost(p, n, cg2_user_work());
		if (states > XT_CGROUP2_MAX_STATES)
			return -EINVAL;
		p += n + 1;
	}
	return p == end ? 0 : -EINVAL;		/* bytes after the last */
}

static bool tail_is_zero(const struct xt_cgroup2_info *info)
{
	size_t i;

	for (i = info->len; i < sizeof(info->patterns); i++)
		if (info->patterns[i])
			return false;
	return true;
}

int kf_expect_errno(const struct kf_blob *b)
{
	const struct xt_cgroup2_info *info = &b->info;
	int ret;

	if (b->data_size != sizeof(*info))
		return -EINVAL;		/* x_tables: match size mismatch */
	if (info->flags & ~XT_CGROUP2_FLAGS_MASK)
		return -EINVAL;
	if (info->count == 0 || info->count > XT_CGROUP2_MAX_PATTERNS)
		return -EINVAL;
	if (info->len > XT_CGROUP2_PATTERNS_SIZE)
		return -ENAMETOOLONG;
	ret = expect_patterns(info);
	if (ret)
		return ret;
	return tail_is_zero(info) ? 0 : -EINVAL;
}

bool kf_expect_match(const struct xt_cgroup2_info *info, const char *path)
{
	const char *p = info->patterns;
	bool any = false;
	unsigned int i;

	for (i = 0; i < info->count && !any; i++, p += strlen(p) + 1)
		any = cg2_match_string(p, path, true) == 1;
	return any != !!(info->flags & XT_CGROUP2_INVERT);
}
