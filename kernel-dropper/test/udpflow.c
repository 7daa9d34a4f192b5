// SPDX-License-Identifier: GPL-2.0
/*
 * udpflow - numbered UDP datagrams, to tell exactly which packets a dropper took.
 *
 *   udpflow send DST PORT COUNT [PPS]   send datagrams 1..COUNT to DST:PORT (PPS 0: at once)
 *   udpflow recv PORT COUNT             count them until SIGTERM/SIGINT, then report:
 *       received R duplicates D foreign F
 *       missing S1 S2 ...               every number of 1..COUNT that did not arrive
 *
 * Only for the test network of the VM (network namespaces made by the test itself).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAGIC 0x44524f50u	/* "DROP" */
#define PAYLOAD 64
#define RCVBUF (32 << 20)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static unsigned long number(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0') {
		fprintf(stderr, "udpflow: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static int udp_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0) {
		perror("udpflow: socket");
		exit(1);
	}
	return fd;
}

static void sleep_until(const struct timespec *t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
}

static int do_send(const char *dst, unsigned long port, unsigned long count, unsigned long pps)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	unsigned char buf[PAYLOAD] = { 0 };
	struct timespec next;
	unsigned long sent = 0, retries = 0;
	int fd = udp_socket();

	if (inet_pton(AF_INET, dst, &to.sin_addr) != 1) {
		fprintf(stderr, "udpflow: bad address '%s'\n", dst);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (unsigned long seq = 1; seq <= count; seq++) {
		uint32_t word[2] = { htonl(MAGIC), htonl((uint32_t)seq) };

		memcpy(buf, word, sizeof(word));
		if (pps) {
			next.tv_nsec += (long)(1000000000UL / pps);
			if (next.tv_nsec >= 1000000000L) {
				next.tv_sec++;
				next.tv_nsec -= 1000000000L;
			}
			sleep_until(&next);
		}
		/* A full queue on our side is waited out, never counted as a loss. */
		while (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
				perror("udpflow: sendto");
				return 1;
			}
			retries++;
			usleep(1000);
		}
		sent++;
	}
	printf("sent %lu retries %lu\n", sent, retries);
	return 0;
}

static int do_recv(unsigned long port, unsigned long count)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	unsigned long received = 0, duplicates = 0, foreign = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned char *seen = calloc(count + 1, 1);
	int fd = udp_socket(), size = RCVBUF, draining = 0;

	if (!seen)
		return 1;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		perror("udpflow: bind");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		unsigned char buf[2048];
		uint32_t word[2];
		ssize_t n;

		if (stop)
			draining = 1;
		if (poll(&p, 1, draining ? 0 : 100) <= 0) {
			if (draining)
				break;
			continue;
		}
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < (ssize_t)sizeof(word))
			continue;
		memcpy(word, buf, sizeof(word));
		if (ntohl(word[0]) != MAGIC || ntohl(word[1]) == 0 || ntohl(word[1]) > count) {
			foreign++;
		} else if (seen[ntohl(word[1])]++) {
			duplicates++;
		} else {
			received++;
		}
	}
	printf("received %lu duplicates %lu foreign %lu\nmissing", received, duplicates, foreign);
	for (unsigned long seq = 1; seq <= count; seq++)
		if (!seen[seq])
			printf(" %lu", seq);
	printf("\n");
	free(seen);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 5 && argc <= 6 && strcmp(argv[1], "send") == 0)
		return do_send(argv[2], number(argv[3], "port"), number(argv[4], "count"),
			       argc == 6 ? number(argv[5], "rate") : 0);
	if (argc == 4 && strcmp(argv[1], "recv") == 0)
		return do_recv(number(argv[2], "port"), number(argv[3], "count"));
	fprintf(stderr, "usage: udpflow send DST PORT COUNT [PPS] | udpflow recv PORT COUNT\n");
	return 2;
}
