// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * udpblast: the 2001 report's UDP blast test (§3.1.2) for the Mininet backend.
 *
 *   udpblast send -a ADDR [-p PORT] -n COUNT -s SIZE [-b SNDBUF] [-m MARKERS]
 *   udpblast recv [-p PORT] [-e EXPECT] [-i IDLE_MS] [-t TIMEOUT_S]
 *
 * The sender blasts COUNT datagrams of SIZE bytes with blocking send() on a connected socket,
 * as fast as the socket takes them: send() blocks while the socket's send buffer is full,
 * which is what ns-3's UdpBlastSender models with its MaxInFlight. Each datagram starts with
 * its 64-bit sequence number. The elapsed time runs from the first send() to the return of
 * the last. Then it sends MARKERS empty datagrams (end markers, 10 ms apart). It prints
 * datagrams_sent, send_errors, elapsed_s as JSON.
 *
 * The receiver prints "READY <port>" once bound, counts the datagrams of nonzero size and
 * ends at an end marker, when EXPECT datagrams have arrived, after IDLE_MS milliseconds
 * without a datagram once the first has arrived, or after TIMEOUT_S seconds in all. It
 * prints datagrams_received, bytes_received, highest_seq, elapsed_s (first to last
 * datagram) and why it ended.
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BLAST_PROG "udpblast"
#include "blast-common.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: udpblast send -a ADDR [-p PORT] -n COUNT -s SIZE [-b SNDBUF] [-m MARKERS]\n"
		"       udpblast recv [-p PORT] [-e EXPECT] [-i IDLE_MS] [-t TIMEOUT_S]\n");
	exit(2);
}

static int sender(const char *addr, unsigned port, unsigned long long count, size_t size,
		  int sndbuf, unsigned markers)
{
	struct sockaddr_in sa;
	unsigned long long seq, errors = 0;
	double start = 0, last = 0;
	char *buf;
	int fd;
	unsigned i;

	if (size < sizeof(uint64_t)) {
		fprintf(stderr, "udpblast: size must be at least %zu\n", sizeof(uint64_t));
		return 2;
	}
	buf = calloc(1, size);
	if (!buf)
		die("calloc");
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "udpblast: bad address %s\n", addr);
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	if (sndbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0)
		die("SO_SNDBUF");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect");
	for (seq = 0; seq < count; seq++) {
		uint64_t net = seq;

		memcpy(buf, &net, sizeof(net));
		if (seq == 0)
			start = now_s();
		while (send(fd, buf, size, 0) < 0) {
			if (errno == EINTR)
				continue;
			/* ENOBUFS and the like: the datagram is lost, as on the hardware */
			errors++;
			break;
		}
		last = now_s();
	}
	for (i = 0; i < markers; i++) {
		struct timespec gap = { 0, 10 * 1000 * 1000 };

		nanosleep(&gap, NULL);
		/* ECONNREFUSED once the receiver has gone: nothing to count */
		if (send(fd, buf, 0, 0) < 0 && errno != ECONNREFUSED)
			die("send marker");
	}
	printf("{\"datagrams_sent\": %llu, \"datagram_size_B\": %zu, \"send_errors\": %llu, "
	       "\"elapsed_s\": %.9f, \"markers\": %u}\n",
	       count - errors, size, errors, last - start, markers);
	fflush(stdout);
	close(fd);
	free(buf);
	return 0;
}

static int receiver(unsigned port, unsigned long long expect, int idle_ms, double timeout_s)
{
	struct sockaddr_in sa;
	static char buf[1 << 16];
	unsigned long long received = 0, bytes = 0, highest = 0;
	double first = 0, last = 0, deadline;
	const char *reason = "timeout";
	struct pollfd pfd;
	int fd, rcvbuf = 4 << 20;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	/* a large buffer, so the receiver never drops what the network delivered */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
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
	       "\"elapsed_s\": %.9f, \"end\": \"%s\"}\n",
	       received, bytes, highest, received ? last - first : 0.0, reason);
	fflush(stdout);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	unsigned long long count = 0, expect = 0;
	unsigned port = 1026, markers = 0;
	size_t size = 0;
	int sndbuf = 0, idle_ms = 2000, opt, is_sender;
	double timeout_s = 3600;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "send"))
		is_sender = 1;
	else if (!strcmp(argv[1], "recv"))
		is_sender = 0;
	else
		usage();
	optind = 2;
	while ((opt = getopt(argc, argv, "a:p:n:s:b:m:e:i:t:")) != -1) {
		switch (opt) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = (unsigned)parse_num(optarg, "port", 65535);
			break;
		case 'n':
			count = parse_num(optarg, "count", 1ULL << 40);
			break;
		case 's':
			size = (size_t)parse_num(optarg, "size", 65507);
			break;
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
		case 't':
			timeout_s = (double)parse_num(optarg, "timeout", 1 << 30);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (is_sender) {
		if (!addr || !count || !size)
			usage();
		return sender(addr, port, count, size, sndbuf, markers);
	}
	return receiver(port, expect, idle_ms, timeout_s);
}
