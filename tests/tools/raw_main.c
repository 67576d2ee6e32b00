// SPDX-License-Identifier: GPL-2.0
/*
 * xt_cgroup2_raw: replace an iptables-legacy table with one holding a
 * hand-made match blob, straight through IPT_SO_SET_REPLACE, so that a
 * match's checkentry meets input no libxtables would produce.  Prints
 * "accepted" or "rejected: <strerror>".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xt_cgroup2.h>

#include "raw.h"

/*
 * ENOPROTOOPT: ip_tables (ip6_tables) is a module and not loaded yet.  Do
 * what iptables does: modprobe it once.  The table module itself then
 * comes by the kernel's own request_module() on GET_INFO.
 */
static void load_core_module(const struct raw_fam *f)
{
	const char *mod = f->domain == AF_INET6 ? "ip6_tables" : "ip_tables";
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execlp("modprobe", "modprobe", "-q", mod, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		fprintf(stderr, "xt_cgroup2_raw: modprobe %s failed\n", mod);
}

static int setup_error(const char *what, int err)
{
	fprintf(stderr, "xt_cgroup2_raw: %s: %s\n", what, strerror(err));
	printf("error: %s: %s\n", what, strerror(err));
	return RAW_EXIT_SETUP;
}

/* --get-match: print what the kernel hands out for the first match. */
static int get_match(const struct raw_fam *f, const struct raw_opts *o)
{
	const size_t priv = o->revision == 1 ?
			    offsetof(struct xt_cgroup2_info_v1, priv) :
			    offsetof(struct xt_cgroup2_info, priv);
	unsigned char *data = NULL;
	char what[128];
	size_t size, i, nonzero = 0;
	int fd, ret;

	if (o->nft) {
		ret = raw_get_nft(f, o->table, o->match, &data, &size);
	} else {
		fd = socket(f->domain, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
		if (fd < 0)
			return setup_error("raw socket (need CAP_NET_RAW)", errno);
		ret = raw_get_legacy(f, fd, o->table, o->match, &data, &size);
		if (ret == -ENOPROTOOPT) {
			load_core_module(f);
			ret = raw_get_legacy(f, fd, o->table, o->match, &data, &size);
		}
		close(fd);
	}
	if (ret == -ENOENT) {
		printf("none\n");
		return 2;
	}
	if (ret) {
		snprintf(what, sizeof(what), "%s %s table '%s' (read back)",
			 o->nft ? "nftables" : "iptables-legacy", f->name, o->table);
		return setup_error(what, -ret);
	}
	if (o->verbose)
		fprintf(stderr, "xt_cgroup2_raw: match %s: %zu bytes of data\n",
			o->match, size);
	if (!o->check_priv) {
		for (i = 0; i < size; i++)
			printf("%02x", data[i]);
		putchar('\n');
		free(data);
		return 0;
	}
	if (size <= priv) {
		free(data);
		printf("error: %zu bytes of data, not past priv (revision %u)\n",
		       size, o->revision);
		return RAW_EXIT_SETUP;
	}
	for (i = priv; i < size; i++)
		nonzero += data[i] != 0;
	free(data);
	if (nonzero) {
		printf("priv nonzero: %zu bytes\n", nonzero);
		return 1;
	}
	printf("priv zero\n");
	return 0;
}

int main(int argc, char **argv)
{
	const struct raw_fam *f;
	struct raw_opts o;
	struct raw_rule rule;
	struct raw_tinfo ti;
	struct raw_blob b;
	unsigned char *data = NULL;
	char what[96];
	int fd, ret, tries;

	ret = raw_parse(argc, argv, &o);
	if (ret)
		return ret;
	f = o.ipv6 ? &raw_fam6 : &raw_fam4;
	if (o.get_match)
		return get_match(f, &o);

	if (!o.flush) {
		ret = raw_payload(&o, &data, &rule.data_size);
		if (ret)
			return ret;
		rule.hook = o.hook;
		rule.match = o.match;
		rule.as_target = o.as_target;
		rule.revision = o.revision;
		rule.data = data;
		if (o.dump) {
			size_t i;

			for (i = 0; i < rule.data_size; i++)
				printf("%02x", data[i]);
			putchar('\n');
			free(data);
			return 0;
		}
	}

	fd = socket(f->domain, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (fd < 0)
		return setup_error("raw socket (need CAP_NET_RAW)", errno);

	/* The table may change under us (EAGAIN: num_counters is stale). */
	for (tries = 0; tries < 5; tries++) {
		ret = raw_get_info(f, fd, o.table, &ti);
		if (ret == -ENOPROTOOPT && tries == 0) {
			load_core_module(f);
			ret = raw_get_info(f, fd, o.table, &ti);
		}
		if (ret) {
			snprintf(what, sizeof(what), "%s table '%s' (get info)",
				 f->name, o.table);
			close(fd);
			return setup_error(what, -ret);
		}
		if (!o.flush && !(ti.valid_hooks & (1U << o.hook))) {
			snprintf(what, sizeof(what), "table '%s' has no %s chain",
				 o.table, raw_hook_name(o.hook));
			close(fd);
			return setup_error(what, EINVAL);
		}
		ret = raw_build(f, ti.valid_hooks, o.flush ? NULL : &rule, &b,
				o.verbose);
		if (ret) {
			close(fd);
			return setup_error("build table", -ret);
		}
		if (o.verbose)
			fprintf(stderr, "xt_cgroup2_raw: replacing %s (valid_hooks 0x%x, %u old entries)\n",
				o.table, ti.valid_hooks, ti.num_entries);
		ret = raw_replace(f, fd, o.table, ti.valid_hooks, &b, ti.num_entries);
		free(b.entries);
		if (ret != -EAGAIN)
			break;
	}
	close(fd);
	free(data);
	if (ret) {
		printf("rejected: %s\n", strerror(-ret));
		return RAW_EXIT_REJECTED;
	}
	printf("accepted\n");
	return RAW_EXIT_ACCEPTED;
}
