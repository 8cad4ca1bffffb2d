/* Fixture of the DAOS emulation tests: a fresh emulation root with one pool directory
 * ("pool0", as a `dmg pool create` would make), set in IOLENS_DAOS_EMU_ROOT. */
#ifndef IOL_EMU_FIXTURE_H
#define IOL_EMU_FIXTURE_H
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../../c/check.h"

static char fixture_root[PATH_MAX];

/* Makes ROOT under base (a scratch directory) and ROOT/pool0; exits 1 on failure. */
static void fixture_setup(const char *base)
{
	char pool[PATH_MAX + 16];

	snprintf(fixture_root, sizeof(fixture_root), "%s/daos-emu-XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(fixture_root)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(pool, sizeof(pool), "%s/pool0", fixture_root);
	if (mkdir(pool, 0755) != 0) {
		perror("mkdir pool");
		exit(1);
	}
	setenv("IOLENS_DAOS_EMU_ROOT", fixture_root, 1);
}

/* Size of ROOT/relative on the host, or -1. */
static long long host_size(const char *relative)
{
	char path[PATH_MAX * 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fixture_root, relative);
	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Removes the fixture's root (best effort). */
static void fixture_teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fixture_root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", fixture_root);
}
#endif
