// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: nft-cgroupd's config file and binding parser
 * (nft-support/daemon_config.c).  The input is a config file; each of its lines
 * is also given to binding_add() as a command-line binding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz_bindings.XXXXXX", err[512];
	struct config cfg = { 0 };
	char *text, *line, *save;
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	config_load_file(&cfg, path);
	unlink(path);
	text = strndup((const char *)data, size);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		binding_add(&cfg, line, "fuzz", err, sizeof(err));
	free(text);
	config_free(&cfg);
	return 0;
}
