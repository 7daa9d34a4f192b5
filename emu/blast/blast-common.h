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
#include <unistd.h>

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

/*
 * The mode a tool's first argument names, as its index in modes[] (n of them), or usage();
 * getopt() then starts at the argument after it.
 */
static int blast_mode(int argc, char **argv, const char *const *modes, int n, void (*usage)(void))
{
	int i;

	if (argc < 2)
		usage();
	for (i = 0; i < n; i++) {
		if (!strcmp(argv[1], modes[i])) {
			optind = 2;
			return i;
		}
	}
	usage();
	return -1;
}

/* The options both tools take: the peer, the port, how many and how large, the time limit. */
struct blast_options {
	const char *addr; /* -a ADDR */
	unsigned port; /* -p PORT */
	unsigned long long count; /* -n: TCP writes or UDP datagrams */
	size_t size; /* -s: bytes per write or datagram */
	double timeout_s; /* -t TIMEOUT_S */
};

/*
 * Take getopt()'s `opt` (its argument in optarg) into `o` if it is one of the options both
 * tools take, -n named `count_name` and -s at most `size_max` in messages and checks; 0 if it
 * is not one of them.
 */
static int blast_option(int opt, struct blast_options *o, const char *count_name,
			unsigned long long size_max)
{
	switch (opt) {
	case 'a':
		o->addr = optarg;
		return 1;
	case 'p':
		o->port = (unsigned)parse_num(optarg, "port", 65535);
		return 1;
	case 'n':
		o->count = parse_num(optarg, count_name, 1ULL << 40);
		return 1;
	case 's':
		o->size = (size_t)parse_num(optarg, "size", size_max);
		return 1;
	case 't':
		o->timeout_s = (double)parse_num(optarg, "timeout", 1 << 30);
		return 1;
	default:
		return 0;
	}
}

/* Seconds on CLOCK_MONOTONIC: elapsed times never jump with the wall clock. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Interrupts so far of the sources named in $EMUSIM_HOST_IO_IRQS (names of /proc/interrupts'
 * last column, separated by spaces, e.g. "virtio0-requests"), or -1 when it is unset. In the
 * VM these are the 9p requests to the host's file system. A tool reads the count where its
 * clock starts and where it stops: a difference means the guest waited on the host during
 * the measurement, and in dilated time (QEMU icount, sleep=off) an idle guest's clock jumps
 * ahead during such a wait (docs/mininet.md, "Dilated time").
 */
static long long host_io_irqs(void)
{
	const char *names = getenv("EMUSIM_HOST_IO_IRQS");
	char line[1024], want[64];
	long long total = 0;
	FILE *f;

	if (!names || !*names)
		return -1;
	f = fopen("/proc/interrupts", "r");
	if (!f)
		die("/proc/interrupts");
	while (fgets(line, sizeof(line), f)) {
		long long count = 0;
		char *tok, *last = NULL, *save = NULL;
		const char *p;
		int first = 1, numbers = 1;

		for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
			if (first) { /* "25:", the source's number */
				first = 0;
				continue;
			}
			if (numbers && strspn(tok, "0123456789") == strlen(tok))
				count += strtoll(tok, NULL, 10);
			else
				numbers = 0;
			last = tok;
		}
		if (!last)
			continue;
		/* the source counts if its name is one of the words of names */
		for (p = names; *p;) {
			size_t n = strcspn(p, " ");

			if (n && n < sizeof(want)) {
				memcpy(want, p, n);
				want[n] = 0;
				if (!strcmp(want, last))
					total += count;
			}
			p += n;
			p += strspn(p, " ");
		}
	}
	fclose(f);
	return total;
}

/* host_io_irqs() since `before`, or -1 when not counted. */
static long long host_io_since(long long before)
{
	return before < 0 ? -1 : host_io_irqs() - before;
}

/* Clock ticks so far of all CPUs from /proc/stat's first line: busy and in total. */
struct cpu_ticks {
	unsigned long long busy, total;
};

static struct cpu_ticks cpu_ticks(void)
{
	/* user nice system idle iowait irq softirq steal: idle and iowait are not busy */
	unsigned long long v[8] = { 0 };
	struct cpu_ticks t = { 0, 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i;

	if (!f)
		die("/proc/stat");
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) != 8) {
		fprintf(stderr, BLAST_PROG ": /proc/stat: no cpu line\n");
		exit(1);
	}
	fclose(f);
	for (i = 0; i < 8; i++)
		t.total += v[i];
	t.busy = t.total - v[3] - v[4];
	return t;
}

/*
 * The fraction of the machine's CPU time that was busy since `before` (every process and
 * interrupt, not only this tool's), or -1 when no tick passed. In the VM this tells whether
 * the emulation kept up: a guest whose one vCPU is busy all the time forwards at the speed of
 * its CPU, not of the emulated link.
 */
static double cpu_busy_since(struct cpu_ticks before)
{
	struct cpu_ticks now = cpu_ticks();

	if (now.total == before.total)
		return -1;
	return (double)(now.busy - before.busy) / (double)(now.total - before.total);
}

#endif /* EMUSIM_BLAST_COMMON_H */
