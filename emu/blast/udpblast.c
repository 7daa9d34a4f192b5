// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * udpblast: the 2001 report's UDP blast test (§3.1.2) for the Mininet backend.
 *
 *   udpblast send -a ADDR [-p PORT] -n COUNT -s SIZE [-b SNDBUF] [-m MARKERS]
 *   udpblast flood -a ADDR [-p PORT] -s SIZE -d DURATION_MS [-r RATE_PPS] [-B BURST]
 *                  [-b SNDBUF] [-m MARKERS]
 *   udpblast recv [-p PORT] [-e EXPECT] [-i IDLE_MS] [-t TIMEOUT_S] [-R RCVBUF]
 *
 * The sender blasts COUNT datagrams of SIZE bytes with blocking send() on a connected socket,
 * as fast as the socket takes them: send() blocks while the socket's send buffer is full,
 * which is what ns-3's UdpBlastSender models with its MaxInFlight. Each datagram starts with
 * its 64-bit sequence number. The elapsed time runs from the first send() to the return of
 * the last. Then it sends MARKERS empty datagrams (end markers, 10 ms apart). It prints
 * datagrams_sent, send_errors, elapsed_s as JSON.
 *
 * The flooder (the router-forwarding study) sends datagrams of SIZE bytes for DURATION_MS
 * milliseconds, each starting with its sequence number, as fast as blocking send() allows
 * (-r 0, the study's way) or paced at RATE_PPS datagrams per second. A datagram the sender's
 * full link queue refuses fails with ENOBUFS (IP_RECVERR is set), as a NIC's full ring refuses
 * a frame, instead of vanishing: it is counted in send_errors, not as sent, and the flooder
 * pauses 50 µs before the next. Paced, it sleeps through long gaps and spins through the last
 * 200 µs before a datagram is due (a sleep wakes up tens of microseconds late, longer than a
 * small frame's wire time); behind the pace (its CPU cannot keep it) it sends as fast as it
 * can, but never more than BURST datagrams back to back to catch up. It prints what `send`
 * prints plus the duration, the rate, and its own CPU time (user and system): a sender whose
 * CPU time equals its elapsed time is CPU-bound.
 *
 * The receiver prints "READY <port>" once bound, counts the datagrams of nonzero size and
 * ends at an end marker, when EXPECT datagrams have arrived, after IDLE_MS milliseconds
 * without a datagram once the first has arrived, or after TIMEOUT_S seconds in all. It
 * prints datagrams_received, bytes_received, highest_seq, elapsed_s (first to last
 * datagram), why it ended, and its socket's receive buffer. Its buffer is 4 MiB, as far as
 * net.core.rmem_max allows; -R sets RCVBUF bytes past that limit (SO_RCVBUFFORCE, as root),
 * so that a sink that shares its CPU with the sender rides out the bursts it is woken for.
 *
 * Exit status: 0 done, 1 failure (message on stderr), 2 bad usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BLAST_PROG "udpblast"
#include "blast-common.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: udpblast send -a ADDR [-p PORT] -n COUNT -s SIZE [-b SNDBUF] [-m MARKERS]\n"
		"       udpblast flood -a ADDR [-p PORT] -s SIZE -d DURATION_MS [-r RATE_PPS]"
		" [-B BURST] [-b SNDBUF] [-m MARKERS]\n"
		"       udpblast recv [-p PORT] [-e EXPECT] [-i IDLE_MS] [-t TIMEOUT_S]"
		" [-R RCVBUF]\n");
	exit(2);
}

/* A UDP socket connected to ADDR:PORT with SO_SNDBUF set (if > 0); -1 for a bad address. */
static int open_sender(const char *addr, unsigned port, int sndbuf)
{
	struct sockaddr_in sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "udpblast: bad address %s\n", addr);
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	if (sndbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0)
		die("SO_SNDBUF");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect");
	return fd;
}

/* A zeroed buffer of SIZE bytes, or NULL (message printed) if SIZE cannot hold a sequence. */
static char *datagram_buffer(size_t size)
{
	char *buf;

	if (size < sizeof(uint64_t)) {
		fprintf(stderr, "udpblast: size must be at least %zu\n", sizeof(uint64_t));
		return NULL;
	}
	buf = calloc(1, size);
	if (!buf)
		die("calloc");
	return buf;
}

/* Send one datagram numbered SEQ; 1 if it was sent, 0 if the kernel refused it. */
static int send_numbered(int fd, char *buf, size_t size, unsigned long long seq)
{
	uint64_t net = seq;

	memcpy(buf, &net, sizeof(net));
	while (send(fd, buf, size, 0) < 0) {
		if (errno == EINTR)
			continue;
		/* ENOBUFS and the like: the datagram is lost, as on the hardware */
		return 0;
	}
	return 1;
}

/* MARKERS empty datagrams, 10 ms apart: the receiver's end of the run. */
static void send_markers(int fd, char *buf, unsigned markers)
{
	unsigned i;

	for (i = 0; i < markers; i++) {
		struct timespec gap = { 0, 10 * 1000 * 1000 };

		nanosleep(&gap, NULL);
		/* ECONNREFUSED once the receiver has gone: nothing to count */
		if (send(fd, buf, 0, 0) < 0 && errno != ECONNREFUSED)
			die("send marker");
	}
}

static int sender(const char *addr, unsigned port, unsigned long long count, size_t size,
		  int sndbuf, unsigned markers)
{
	unsigned long long seq, errors = 0;
	double start = 0, last = 0;
	long long io_before = -1, io;
	struct cpu_ticks cpu_before = { 0, 0 };
	double cpu_busy;
	char *buf;
	int fd;

	buf = datagram_buffer(size);
	if (!buf)
		return 2;
	fd = open_sender(addr, port, sndbuf);
	if (fd < 0)
		return 2;
	for (seq = 0; seq < count; seq++) {
		if (seq == 0) {
			io_before = host_io_irqs();
			cpu_before = cpu_ticks();
			start = now_s();
		}
		errors += (unsigned long long)!send_numbered(fd, buf, size, seq);
		last = now_s();
	}
	io = host_io_since(io_before);
	cpu_busy = count ? cpu_busy_since(cpu_before) : -1;
	send_markers(fd, buf, markers);
	printf("{\"datagrams_sent\": %llu, \"datagram_size_B\": %zu, \"send_errors\": %llu, "
	       "\"elapsed_s\": %.9f, \"markers\": %u, \"host_io_irqs\": %lld, "
	       "\"cpu_busy_fraction\": %.4f}\n",
	       count - errors, size, errors, last - start, markers, io, cpu_busy);
	fflush(stdout);
	close(fd);
	free(buf);
	return 0;
}

/* The flooder spins, rather than sleeps, through the last SPIN_S seconds before a datagram. */
#define SPIN_S 200e-6

/* After its link's queue refused a datagram the flooder pauses this long: far less than the
 * queue takes to drain (100 frames of the smallest datagram take 1 ms at 100 Mb/s). */
#define REFUSED_PAUSE_NS 50000L

/* Sleep until T seconds on CLOCK_MONOTONIC. */
static void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static double timeval_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static int flooder(const char *addr, unsigned port, size_t size, double duration_s,
		   double rate_pps, unsigned burst, int sndbuf, unsigned markers)
{
	unsigned long long seq = 0, errors = 0;
	double start, end, due, interval, now, last;
	long long io_before, io;
	struct rusage ru;
	char *buf;
	int fd, one = 1;

	buf = datagram_buffer(size);
	if (!buf)
		return 2;
	fd = open_sender(addr, port, sndbuf);
	if (fd < 0)
		return 2;
	/* send() then fails with ENOBUFS when the link's queue is full, as a NIC's ring refuses
	 * a frame, instead of dropping the datagram silently: it is counted as not sent */
	if (setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one)) < 0)
		die("IP_RECVERR");
	interval = rate_pps > 0 ? 1.0 / rate_pps : 0;
	io_before = host_io_irqs();
	start = now_s();
	end = start + duration_s;
	due = start;
	last = start;
	for (now = start; now < end; now = now_s()) {
		if (interval > 0) {
			if (now < due) {
				/* a sleep wakes up late by the timer's slack and the scheduler's
				 * latency: sleep only through long gaps, spin through the rest */
				if (due - now > SPIN_S)
					sleep_until(due - SPIN_S);
				continue;
			}
			/* behind the pace: catch up by at most BURST datagrams */
			if (now - due > burst * interval)
				due = now - burst * interval;
			due += interval;
		}
		if (!send_numbered(fd, buf, size, seq)) {
			struct timespec pause = { 0, REFUSED_PAUSE_NS };

			/* the link's queue is full: wait a little rather than spin on send() */
			errors++;
			nanosleep(&pause, NULL);
		}
		seq++;
		last = now_s();
	}
	io = host_io_since(io_before);
	send_markers(fd, buf, markers);
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		die("getrusage");
	printf("{\"datagrams_sent\": %llu, \"datagram_size_B\": %zu, \"send_errors\": %llu, "
	       "\"elapsed_s\": %.9f, \"duration_s\": %.9f, \"rate_pps\": %.3f, \"burst\": %u, "
	       "\"cpu_user_s\": %.6f, \"cpu_sys_s\": %.6f, \"markers\": %u, "
	       "\"host_io_irqs\": %lld}\n",
	       seq - errors, size, errors, last - start, duration_s, rate_pps, burst,
	       timeval_s(ru.ru_utime), timeval_s(ru.ru_stime), markers, io);
	fflush(stdout);
	close(fd);
	free(buf);
	return 0;
}

static int receiver(unsigned port, unsigned long long expect, int idle_ms, double timeout_s,
		    int force_rcvbuf)
{
	struct sockaddr_in sa;
	static char buf[1 << 16];
	unsigned long long received = 0, bytes = 0, highest = 0;
	double first = 0, last = 0, deadline;
	const char *reason = "timeout";
	struct pollfd pfd;
	int fd, rcvbuf = 4 << 20;
	socklen_t optlen = sizeof(rcvbuf);

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	/* a large buffer, so the receiver never drops what the network delivered */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (force_rcvbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &force_rcvbuf, sizeof(force_rcvbuf)) < 0)
		die("SO_RCVBUFFORCE");
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &optlen) < 0)
		die("SO_RCVBUF");
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind");
	printf("READY %u\n", port);
	fflush(stdout);
	deadline = now_s() + timeout_s;
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		double now = now_s();
		int wait_ms = (int)((deadline - now) * 1000);
		ssize_t n;
		int r;

		if (received > 0 && wait_ms > idle_ms)
			wait_ms = idle_ms;
		if (wait_ms <= 0) {
			reason = received > 0 && now < deadline ? "idle" : "timeout";
			break;
		}
		r = poll(&pfd, 1, wait_ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (r == 0) {
			reason = received > 0 && now_s() < deadline ? "idle" : "timeout";
			break;
		}
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("recv");
		}
		if (n == 0) {
			reason = "marker";
			break;
		}
		last = now_s();
		if (received == 0)
			first = last;
		received++;
		bytes += (unsigned long long)n;
		if ((size_t)n >= sizeof(uint64_t)) {
			uint64_t seq;

			memcpy(&seq, buf, sizeof(seq));
			if (seq > highest)
				highest = seq;
		}
		if (expect && received >= expect) {
			reason = "expected";
			break;
		}
	}
	printf("{\"datagrams_received\": %llu, \"bytes_received\": %llu, \"highest_seq\": %llu, "
	       "\"elapsed_s\": %.9f, \"end\": \"%s\", \"rcvbuf_B\": %d}\n",
	       received, bytes, highest, received ? last - first : 0.0, reason, rcvbuf);
	fflush(stdout);
	close(fd);
	return 0;
}

/* A decimal number (digits and at most one point) in [0, max], or exit with status 2. */
static double parse_decimal(const char *text, const char *what, double max)
{
	char *end;
	double value;

	errno = 0;
	value = strtod(text, &end);
	if (errno || end == text || *end || strspn(text, "0123456789.") != strlen(text) ||
	    value > max) {
		fprintf(stderr, "udpblast: bad %s %s\n", what, text);
		exit(2);
	}
	return value;
}

enum mode { MODE_SEND, MODE_FLOOD, MODE_RECV };

int main(int argc, char **argv)
{
	static const char *const modes[] = { "send", "flood", "recv" };
	struct blast_options o = { .port = 1026, .timeout_s = 3600 };
	unsigned long long expect = 0, duration_ms = 0;
	unsigned markers = 0, burst = 32;
	int sndbuf = 0, idle_ms = 2000, force_rcvbuf = 0, opt;
	double rate_pps = 0;
	enum mode mode;

	mode = (enum mode)blast_mode(argc, argv, modes, 3, usage);
	while ((opt = getopt(argc, argv, "a:p:n:s:b:m:e:i:t:d:r:B:R:")) != -1) {
		if (blast_option(opt, &o, "count", 65507))
			continue;
		switch (opt) {
		case 'b':
			sndbuf = (int)parse_num(optarg, "send buffer", 1 << 30);
			break;
		case 'm':
			markers = (unsigned)parse_num(optarg, "markers", 1000);
			break;
		case 'e':
			expect = parse_num(optarg, "expected count", 1ULL << 40);
			break;
		case 'i':
			idle_ms = (int)parse_num(optarg, "idle time", 1 << 30);
			break;
		case 'd':
			duration_ms = parse_num(optarg, "duration", 1ULL << 32);
			break;
		case 'r':
			rate_pps = parse_decimal(optarg, "rate", 1e9);
			break;
		case 'B':
			burst = (unsigned)parse_num(optarg, "burst", 1 << 20);
			break;
		case 'R':
			force_rcvbuf = (int)parse_num(optarg, "receive buffer", 1 << 30);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (mode == MODE_SEND) {
		if (!o.addr || !o.count || !o.size)
			usage();
		return sender(o.addr, o.port, o.count, o.size, sndbuf, markers);
	}
	if (mode == MODE_FLOOD) {
		if (!o.addr || !o.size || !duration_ms || !burst)
			usage();
		return flooder(o.addr, o.port, o.size, (double)duration_ms / 1000.0, rate_pps, burst,
			       sndbuf, markers);
	}
	return receiver(o.port, expect, idle_ms, o.timeout_s, force_rcvbuf);
}
