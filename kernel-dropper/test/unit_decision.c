// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace unit test of dropper_decision.h, the code the module runs.
 *
 *   unit_decision spec/drop_decision_vectors.csv
 *
 * Checks every vector of the shared file (the same ones the ns-3 queue disc and the
 * netfilter emulation are checked against), then the /proc write parsers on accepted and
 * rejected lines and on random bytes.  Prints one line per failure and "N passed, M failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropper_decision.h"

static unsigned int passed, failed;

static void check(int ok, const char *what, const char *detail)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAIL %s: %s\n", what, detail);
	}
}

/* The drop decision of the regular mode for the k-th target packet since reset. */
static int regular_kth(u32 every, unsigned long k)
{
	u32 pos = 0;
	int drop = 0;

	for (unsigned long i = 1; i <= k; i++) {
		drop = dropper_regular_drop(every, pos);
		pos = dropper_regular_next(every, pos);
	}
	return drop;
}

static void check_vector(const char *kind, const char *param, const char *input, long expected,
			 const char *line)
{
	if (strcmp(kind, "cutoff") == 0) {
		u32 rate_e9, again;
		char text[DROPPER_RATE_STRLEN];
		int ok = dropper_parse_rate(param, &rate_e9) == 0;

		check(ok && dropper_cutoff(rate_e9) == (u32)expected, "cutoff vector", line);
		if (!ok)
			return;
		dropper_format_rate(rate_e9, text);
		check(dropper_parse_rate(text, &again) == 0 && again == rate_e9, "rate round trip",
		      line);
	} else if (strcmp(kind, "random") == 0) {
		u32 cutoff = (u32)strtoul(param, NULL, 10);
		u16 r = (u16)strtoul(input, NULL, 10);

		check(dropper_random_drop(cutoff, r) == (expected == 1), "random vector", line);
	} else if (strcmp(kind, "regular") == 0) {
		u32 every = (u32)strtoul(param, NULL, 10);
		unsigned long k = strtoul(input, NULL, 10);

		check(regular_kth(every, k) == (expected == 1), "regular vector", line);
	} else if (strcmp(kind, "tsc") == 0) {
		u64 cycles = strtoull(input, NULL, 16);

		check(dropper_tsc_random(cycles) == (u16)expected, "tsc vector", line);
	} else {
		check(0, "unknown vector kind", line);
	}
}

/* Read kind,param,input,expected,note lines; '#' starts a comment line. */
static void check_vectors(const char *path)
{
	char line[512], copy[512];
	unsigned int vectors = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		char *fields[5] = { 0 }, *p = copy;
		int n = 0;

		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0' || strncmp(line, "kind,", 5) == 0)
			continue;
		strcpy(copy, line);
		while (n < 5 && p) {
			fields[n++] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
		}
		if (n < 4) {
			check(0, "malformed vector line", line);
			continue;
		}
		check_vector(fields[0], fields[1], fields[2], strtol(fields[3], NULL, 10), line);
		vectors++;
	}
	fclose(f);
	check(vectors >= 4, "vector file has vectors", path);
	printf("%u vectors from %s\n", vectors, path);
}

/* Regular mode against the spec's formula, drop iff N > 0 and k mod N = 0. */
static void check_regular_formula(void)
{
	int ok = 1;

	for (u32 every = 0; every <= 40; every++) {
		u32 pos = 0;

		for (unsigned long k = 1; k <= 400; k++) {
			int expect = every > 0 && k % every == 0;

			ok &= dropper_regular_drop(every, pos) == expect;
			pos = dropper_regular_next(every, pos);
		}
	}
	check(ok, "regular mode is k mod N == 0", "N = 0..40, k = 1..400");
}

/* Random mode: exactly cutoff of the 65536 numbers drop, for every cutoff. */
static void check_random_count(void)
{
	int ok = 1;

	for (u32 cutoff = 0; cutoff <= DROPPER_RANDOM_MAX; cutoff += 257) {
		u32 drops = 0;

		for (u32 r = 0; r <= 0xffff; r++)
			drops += dropper_random_drop(cutoff, (u16)r);
		ok &= drops == cutoff;
	}
	check(ok, "random mode drops cutoff/65536", "cutoff = 0, 257, ..., 65535");
}

static int parse_dropper(const char *text, struct dropper_request *req)
{
	char buf[DROPPER_WRITE_MAX + 1];
	size_t len = strlen(text);

	if (len > DROPPER_WRITE_MAX)
		return -EINVAL;	/* the module refuses such a write before parsing */
	memcpy(buf, text, len + 1);
	return dropper_parse_command(buf, len, req);
}

static int parse_reset(const char *text)
{
	char buf[DROPPER_WRITE_MAX + 1];
	size_t len = strlen(text);

	memcpy(buf, text, len + 1);
	return dropper_parse_reset(buf, len);
}

static void check_accepted(void)
{
	struct dropper_request req;
	static const u8 addr[4] = { 192, 168, 2, 2 };

	check(parse_dropper("0.1 192.168.2.2\n", &req) == 0 &&
	      req.command == DROPPER_SET_RATE_TARGET && req.rate_e9 == 100000000 &&
	      memcmp(req.target, addr, 4) == 0, "accept", "0.1 192.168.2.2");
	check(parse_dropper("1 0.0.0.0", &req) == 0 && req.rate_e9 == DROPPER_RATE_SCALE,
	      "accept", "1 0.0.0.0");
	check(parse_dropper("0.000000001\t255.255.255.255", &req) == 0 && req.rate_e9 == 1,
	      "accept", "0.000000001 255.255.255.255");
	check(parse_dropper("  1.000000000   10.0.0.1 \n", &req) == 0, "accept", "blanks");
	check(parse_dropper("mode regular\n", &req) == 0 && req.command == DROPPER_SET_MODE &&
	      req.mode == DROPPER_MODE_REGULAR, "accept", "mode regular");
	check(parse_dropper("mode random", &req) == 0 && req.mode == DROPPER_MODE_RANDOM,
	      "accept", "mode random");
	check(parse_dropper("every 6\n", &req) == 0 && req.command == DROPPER_SET_EVERY &&
	      req.every == 6, "accept", "every 6");
	check(parse_dropper("every 4294967295", &req) == 0 && req.every == 4294967295U,
	      "accept", "every 4294967295");
	check(parse_reset("reset\n") == 0 && parse_reset("reset") == 0, "accept", "reset");
}

static const char *const rejected[] = {
	"", "\n", "0.1", "0.1 192.168.2.2 x", "1.1 192.168.2.2", "2 192.168.2.2",
	"-0.1 192.168.2.2", "+0.1 192.168.2.2", ".5 192.168.2.2", "0. 192.168.2.2",
	"0.1234567891 192.168.2.2", "1.0000000001 1.2.3.4", "0,1 192.168.2.2",
	"1e-3 192.168.2.2", "0x1 192.168.2.2", "01 192.168.2.2", "0.1 192.168.2.256",
	"0.1 192.168.2", "0.1 192.168.2.2.", "0.1 192.168..2", "0.1 1921.168.2.2",
	"0.1 0192.168.2.2", "0.1 192.168.2.2\n\n", "0.1\n192.168.2.2", "0.1 192.168.2.2\r",
	"mode", "mode Random", "mode regular x", "mode nth", "MODE random", "every",
	"every -1", "every +6", "every 4294967296", "every 6x", "every 0x6", "every 6 7",
	"reset", "0.1 ::1", "0.1 192.168.2.2\x01", "0.1\xa0" "192.168.2.2",
	"0.1 192.168.2.2 \x7f",
};

static const char *const rejected_reset[] = {
	"", "\n", "reset\n\n", "RESET", "reset now", "resett", " reset x", "0", "reset\r",
};

static void check_rejected(void)
{
	struct dropper_request req;
	size_t i;

	for (i = 0; i < sizeof(rejected) / sizeof(rejected[0]); i++)
		check(parse_dropper(rejected[i], &req) == -EINVAL, "reject", rejected[i]);
	for (i = 0; i < sizeof(rejected_reset) / sizeof(rejected_reset[0]); i++)
		check(parse_reset(rejected_reset[i]) == -EINVAL, "reject reset", rejected_reset[i]);
}

/* xorshift32: a fixed, portable sequence of test bytes */
static u32 next_random(u32 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* Random bytes with at least one byte no command contains: all rejected, none crash. */
static void check_fuzz(void)
{
	static const char allowed[] = "0123456789.abcdefghijklmnopqrstuvwxyz \t\n";
	struct dropper_request req;
	char buf[DROPPER_WRITE_MAX + 1];
	u32 seed = 20011;
	int ok = 1;

	for (int i = 0; i < 100000; i++) {
		size_t len = 1 + (size_t)(next_random(&seed) % DROPPER_WRITE_MAX);
		size_t bad = (size_t)next_random(&seed) % len;

		for (size_t j = 0; j < len; j++)
			buf[j] = (char)(next_random(&seed) & 0xff);
		do
			buf[bad] = (char)(next_random(&seed) & 0xff);
		while (buf[bad] != '\0' && strchr(allowed, buf[bad]));
		buf[len] = '\0';
		ok &= dropper_parse_command(buf, len, &req) == -EINVAL;
	}
	check(ok, "fuzz", "100000 random writes with a foreign byte are rejected");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s drop_decision_vectors.csv\n", argv[0]);
		return 2;
	}
	check_vectors(argv[1]);
	check_regular_formula();
	check_random_count();
	check_accepted();
	check_rejected();
	check_fuzz();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
