/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet dropper's decision and the parsers of its /proc protocol.
 *
 * Pure inline functions, compiled into the kernel module and into its
 * userspace unit test alike, so that the test exercises the very code the
 * module runs.  The decision is defined in spec/drop-decision.md and checked
 * against spec/drop_decision_vectors.csv.
 */
#ifndef DROPPER_DECISION_H
#define DROPPER_DECISION_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <string.h>
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}
#endif

/* Rates are kept exactly, as an integer number of billionths. */
#define DROPPER_RATE_SCALE	1000000000U
#define DROPPER_RATE_DIGITS	9
/* The report's threshold is rate * 65535 on a 16-bit random number. */
#define DROPPER_RANDOM_MAX	65535U
/* Longest write the /proc files accept ("1.000000000 255.255.255.255\n"). */
#define DROPPER_WRITE_MAX	64
/* Longest rate dropper_format_rate() writes, with its NUL ("0.123456789"). */
#define DROPPER_RATE_STRLEN	12

enum dropper_mode {
	DROPPER_MODE_RANDOM,
	DROPPER_MODE_REGULAR,
};

enum dropper_command {
	DROPPER_SET_RATE_TARGET,	/* "RATE IP", the report's command */
	DROPPER_SET_MODE,		/* "mode random" or "mode regular" */
	DROPPER_SET_EVERY,		/* "every N" */
};

/* One accepted write to /proc/dropperInfo/dropper. */
struct dropper_request {
	enum dropper_command command;
	u32 rate_e9;			/* DROPPER_SET_RATE_TARGET */
	u8 target[4];			/* DROPPER_SET_RATE_TARGET, network order */
	enum dropper_mode mode;		/* DROPPER_SET_MODE */
	u32 every;			/* DROPPER_SET_EVERY */
};

/* cutoff = floor(rate * 65535), exact because the rate is exact. */
static inline u32 dropper_cutoff(u32 rate_e9)
{
	return (u32)div_u64((u64)rate_e9 * DROPPER_RANDOM_MAX,
			    DROPPER_RATE_SCALE);
}

/* Random mode: drop iff the 16-bit random number is below the cutoff. */
static inline bool dropper_random_drop(u32 cutoff, u16 r)
{
	return r < cutoff;
}

/*
 * Regular mode.  @pos counts the target packets since the last drop (or
 * since the configuration was set), before the packet at hand.  The packet
 * is the N-th one, and is dropped, iff pos + 1 reaches N; N = 0 never drops.
 */
static inline bool dropper_regular_drop(u32 every, u32 pos)
{
	return every != 0 && pos >= every - 1;
}

/* Regular mode: @pos after the packet at hand (the report's count reset). */
static inline u32 dropper_regular_next(u32 every, u32 pos)
{
	return dropper_regular_drop(every, pos) ? 0 : pos + 1;
}

/*
 * The report's generator (rng=tsc): the low 16 bits of the CPU's cycle
 * counter with their two bytes swapped.  Only as random as packet arrival
 * times measured in cycles; kept so that its quality can be studied.
 */
static inline u16 dropper_tsc_random(u64 cycles)
{
	u16 low = (u16)(cycles & 0xffff);

	return (u16)((low << 8) | (low >> 8));
}

static inline bool dropper_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Parse a drop rate, "0" or "1" optionally followed by '.' and one to nine
 * decimal digits, at most 1.  Nothing else is accepted: no sign, exponent,
 * blank or leading '.'.  Returns 0 and the rate in billionths, or -EINVAL.
 */
static inline int dropper_parse_rate(const char *s, u32 *rate_e9)
{
	u32 value, scale = DROPPER_RATE_SCALE;
	int digits = 0;

	if (s[0] != '0' && s[0] != '1')
		return -EINVAL;
	value = (u32)(s[0] - '0') * DROPPER_RATE_SCALE;
	s++;
	if (*s == '.') {
		for (s++; dropper_is_digit(*s); s++) {
			if (++digits > DROPPER_RATE_DIGITS)
				return -EINVAL;
			scale /= 10;
			value += (u32)(*s - '0') * scale;
		}
		if (digits == 0)
			return -EINVAL;
	}
	if (*s != '\0' || value > DROPPER_RATE_SCALE)
		return -EINVAL;
	*rate_e9 = value;
	return 0;
}

/* Write @rate_e9 as the shortest decimal that parses back to it. */
static inline void dropper_format_rate(u32 rate_e9,
				       char buf[DROPPER_RATE_STRLEN])
{
	u32 frac = rate_e9 % DROPPER_RATE_SCALE;
	int i, len = DROPPER_RATE_DIGITS;

	buf[0] = (char)('0' + rate_e9 / DROPPER_RATE_SCALE);
	if (frac == 0) {
		buf[1] = '\0';
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		len--;
	}
	buf[1] = '.';
	for (i = len; i >= 1; i--) {
		buf[1 + i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	buf[2 + len] = '\0';
}

/* Parse a decimal u32 made of digits only (no sign, no blank). */
static inline int dropper_parse_u32(const char *s, u32 *out)
{
	u64 value = 0;

	if (!dropper_is_digit(*s))
		return -EINVAL;
	for (; dropper_is_digit(*s); s++) {
		value = value * 10 + (u64)(*s - '0');
		if (value > 0xffffffffULL)
			return -EINVAL;
	}
	if (*s != '\0')
		return -EINVAL;
	*out = (u32)value;
	return 0;
}

/* Parse a dotted-quad IPv4 address: four decimal octets of 1-3 digits. */
static inline int dropper_parse_ipv4(const char *s, u8 addr[4])
{
	u8 parsed[4];
	int i, digits;
	u32 octet;

	for (i = 0; i < 4; i++) {
		octet = 0;
		for (digits = 0; dropper_is_digit(*s); digits++, s++) {
			if (digits == 3)
				return -EINVAL;
			octet = octet * 10 + (u32)(*s - '0');
		}
		if (digits == 0 || octet > 255)
			return -EINVAL;
		parsed[i] = (u8)octet;
		if (i < 3 && *s++ != '.')
			return -EINVAL;
	}
	if (*s != '\0')
		return -EINVAL;
	memcpy(addr, parsed, sizeof(parsed));
	return 0;
}

/*
 * Split a written line in place into at most @max words separated by blanks
 * (space or tab).  One trailing newline, as echo writes it, is allowed; any
 * other control character or an embedded NUL makes the line invalid.
 * Returns the number of words or -EINVAL.
 */
static inline int dropper_split(char *buf, size_t len, char **argv, int max)
{
	int argc = 0;
	size_t i;

	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	for (i = 0; i < len; i++) {
		if (buf[i] == ' ' || buf[i] == '\t') {
			buf[i] = '\0';
		} else if ((unsigned char)buf[i] < 0x20 ||
			   (unsigned char)buf[i] >= 0x7f) {
			return -EINVAL;
		} else if (i == 0 || buf[i - 1] == '\0') {
			if (argc == max)
				return -EINVAL;
			argv[argc++] = &buf[i];
		}
	}
	return argc;
}

/*
 * Parse one write to /proc/dropperInfo/dropper (@buf holds @len bytes and a
 * NUL after them; it is modified).  Accepted, and nothing else:
 *   RATE IP          set the random drop rate and the target address
 *   mode random      drop at random (the report's random dropper)
 *   mode regular     drop every N-th target packet (its regular dropper)
 *   every N          set N of regular mode (0 never drops)
 */
static inline int dropper_parse_command(char *buf, size_t len,
					struct dropper_request *req)
{
	char *argv[3];
	int argc = dropper_split(buf, len, argv, 2);

	if (argc != 2)
		return -EINVAL;
	if (strcmp(argv[0], "mode") == 0) {
		req->command = DROPPER_SET_MODE;
		if (strcmp(argv[1], "random") == 0)
			req->mode = DROPPER_MODE_RANDOM;
		else if (strcmp(argv[1], "regular") == 0)
			req->mode = DROPPER_MODE_REGULAR;
		else
			return -EINVAL;
		return 0;
	}
	if (strcmp(argv[0], "every") == 0) {
		req->command = DROPPER_SET_EVERY;
		return dropper_parse_u32(argv[1], &req->every);
	}
	req->command = DROPPER_SET_RATE_TARGET;
	if (dropper_parse_rate(argv[0], &req->rate_e9) ||
	    dropper_parse_ipv4(argv[1], req->target))
		return -EINVAL;
	return 0;
}

/* Parse one write to /proc/dropperInfo/numDropped: "reset" only. */
static inline int dropper_parse_reset(char *buf, size_t len)
{
	char *argv[2];
	int argc = dropper_split(buf, len, argv, 1);

	if (argc != 1 || strcmp(argv[0], "reset") != 0)
		return -EINVAL;
	return 0;
}

#endif /* DROPPER_DECISION_H */
