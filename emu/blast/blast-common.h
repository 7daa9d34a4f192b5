/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by tcpblast.c and udpblast.c. Each tool defines BLAST_PROG (its name, for
 * messages) before including this header.
 */
#ifndef EMUSIM_BLAST_COMMON_H
#define EMUSIM_BLAST_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Report a failed system call and exit with status 1. */
static void die(const char *what)
{
	fprintf(stderr, BLAST_PROG ": %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A decimal number in [0, max], or exit with status 2 naming the option. */
static unsigned long long parse_num(const char *text, const char *what, unsigned long long max)
{
	char *end;
	unsigned long long value;

	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || value > max) {
		fprintf(stderr, BLAST_PROG ": bad %s %s\n", what, text);
		exit(2);
	}
	return value;
}

/* Seconds on CLOCK_MONOTONIC: elapsed times never jump with the wall clock. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif /* EMUSIM_BLAST_COMMON_H */
