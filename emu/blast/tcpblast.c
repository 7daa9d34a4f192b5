// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcpblast: the 2001 report's TCP blast test (§2.1, §3.1.1) for the Mininet backend.
 *
 *   tcpblast server [-p PORT] [-w CLAMP] [-t TIMEOUT_S] [-C CC]
 *   tcpblast client -a ADDR [-p PORT] -n WRITES -s SIZE [-t TIMEOUT_S] [-C CC]
 *
 * The client starts a CLOCK_MONOTONIC clock, connects, makes WRITES blocking write()s of SIZE
 * bytes, shuts its write side down (FIN after the data) and stops the clock when the server's
 * one-byte reply arrives. Before closing it reads TCP_INFO and prints one JSON object:
 * elapsed_s, writes, write_size_B, payload_bytes, packets_sent (tcpi_data_segs_out: data
 * segments, retransmissions included), retransmissions (tcpi_total_retrans), and facts of
 * the connection (MSS, peer window, RTT, cwnd, bytes acknowledged). With -t the run stops after
 * TIMEOUT_S seconds and "completed" is false (its numbers are then lower bounds). -C sets the
 * socket's congestion control (TCP_CONGESTION) before connecting; either way the algorithm
 * the connection used is read back and printed as "congestion_control", so a run can prove
 * which one it had.
 *
 * The server prints "READY <port>" once it listens, reads everything of one connection,
 * answers its FIN with one byte, and prints a JSON object (bytes_received, the connection's
 * congestion_control, ...). -w sets TCP_WINDOW_CLAMP on the listening socket: the largest
 * window it advertises. -C sets the listener's congestion control, which the accepted connection inherits (tcp_ca_openreq_child):
 * a listener accepts an ECN-capable SYN only if its own algorithm needs ECN
 * (tcp_ecn_create_request), and a socket option, unlike the namespace's default, may name an
 * algorithm outside tcp_allowed_congestion_control (tcp_set_congestion_control, CAP_NET_ADMIN).
 *
 * Exit status: 0 done, 1 failure (message on stderr), 2 bad usage, 3 timeout (JSON printed).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define BLAST_PROG "tcpblast"
#include "blast-common.h"

/* The kernel's CA_NAME_MAX (include/net/tcp.h), not exported to userspace. */
#define CA_NAME_MAX 16

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: tcpblast server [-p PORT] [-w CLAMP] [-t TIMEOUT_S] [-C CC]\n"
			"       tcpblast client -a ADDR [-p PORT] -n WRITES -s SIZE [-t TIMEOUT_S]"
			" [-C CC]\n");
	exit(2);
}

/* SIGALRM after timeout_s interrupts a blocking call (no SA_RESTART). */
static void arm_timeout(double timeout_s)
{
	struct sigaction sa;
	struct itimerval it;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0)
		die("sigaction");
	if (timeout_s <= 0)
		return;
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)timeout_s;
	it.it_value.tv_usec = (suseconds_t)((timeout_s - (double)(time_t)timeout_s) * 1e6);
	if (setitimer(ITIMER_REAL, &it, NULL) < 0)
		die("setitimer");
}

static int tcp_info_of(int fd, struct tcp_info *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &len);
}

static int client(const char *addr, unsigned port, unsigned long long writes, size_t size,
		  double timeout_s, const char *cc)
{
	struct sockaddr_in sa;
	struct tcp_info info;
	char cc_used[CA_NAME_MAX] = "";
	socklen_t cc_len = sizeof(cc_used) - 1;
	unsigned long long done = 0;
	char *buf, reply;
	double start, end;
	long long io_before, io;
	struct cpu_ticks cpu_before;
	double cpu_busy;
	int fd, completed = 0;
	ssize_t n;

	buf = malloc(size);
	if (!buf)
		die("malloc");
	memset(buf, 'x', size);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "tcpblast: bad address %s\n", addr);
		return 2;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)) < 0)
		die("TCP_CONGESTION");
	arm_timeout(timeout_s);
	io_before = host_io_irqs();
	cpu_before = cpu_ticks();
	start = now_s();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (!timed_out)
			die("connect");
		goto report;
	}
	while (done < writes && !timed_out) {
		size_t off = 0;

		while (off < size) {
			n = write(fd, buf + off, size - off);
			/* the timer may end a write early, with or without bytes written */
			if (timed_out)
				goto report;
			if (n < 0) {
				if (errno == EINTR)
					continue;
				die("write");
			}
			off += (size_t)n;
		}
		done++;
	}
	if (timed_out)
		goto report;
	if (shutdown(fd, SHUT_WR) < 0)
		die("shutdown");
	for (;;) {
		n = read(fd, &reply, 1);
		if (n == 1) {
			completed = 1;
			break;
		}
		if (n == 0) {
			fprintf(stderr, "tcpblast: the server closed without its reply\n");
			return 1;
		}
		if (errno == EINTR && timed_out)
			break;
		if (errno != EINTR)
			die("read");
	}
report:
	end = now_s();
	io = host_io_since(io_before);
	cpu_busy = cpu_busy_since(cpu_before);
	if (tcp_info_of(fd, &info) < 0)
		die("getsockopt TCP_INFO");
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc_used, &cc_len) < 0)
		die("getsockopt TCP_CONGESTION");
	printf("{\"completed\": %s, \"elapsed_s\": %.9f, \"writes\": %llu, \"write_size_B\": %zu, "
	       "\"writes_done\": %llu, \"payload_bytes\": %llu, \"packets_sent\": %u, "
	       "\"segments_sent\": %u, \"retransmissions\": %u, \"snd_mss\": %u, "
	       "\"peer_window_B\": %u, \"srtt_us\": %u, \"rttvar_us\": %u, \"snd_cwnd\": %u, "
	       "\"snd_ssthresh\": %u, \"reordering\": %u, \"rto_us\": %u, "
	       "\"rcv_wscale\": %u, \"snd_wscale\": %u, \"options\": %u, "
	       "\"bytes_acked\": %llu, \"congestion_control\": \"%s\", \"host_io_irqs\": %lld, "
	       "\"cpu_busy_fraction\": %.4f, \"busy_us\": %llu, \"rwnd_limited_us\": %llu, "
	       "\"sndbuf_limited_us\": %llu}\n",
	       completed ? "true" : "false", end - start, writes, size, done,
	       done * (unsigned long long)size, info.tcpi_data_segs_out, info.tcpi_segs_out,
	       info.tcpi_total_retrans, info.tcpi_snd_mss, info.tcpi_snd_wnd, info.tcpi_rtt,
	       info.tcpi_rttvar, info.tcpi_snd_cwnd, info.tcpi_snd_ssthresh, info.tcpi_reordering,
	       info.tcpi_rto, info.tcpi_rcv_wscale, info.tcpi_snd_wscale, info.tcpi_options,
	       (unsigned long long)info.tcpi_bytes_acked, cc_used, io, cpu_busy,
	       (unsigned long long)info.tcpi_busy_time, (unsigned long long)info.tcpi_rwnd_limited,
	       (unsigned long long)info.tcpi_sndbuf_limited);
	fflush(stdout);
	close(fd);
	free(buf);
	return completed ? 0 : 3;
}

static int server(unsigned port, int clamp, double timeout_s, const char *cc)
{
	struct sockaddr_in sa;
	struct tcp_info info;
	unsigned long long received = 0;
	static char buf[1 << 16];
	int lfd, fd, one = 1, completed = 0, clamp_read = 0;
	socklen_t optlen = sizeof(clamp_read), cc_len = CA_NAME_MAX;
	char cc_used[CA_NAME_MAX] = "";
	ssize_t n;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		die("SO_REUSEADDR");
	if (clamp > 0 &&
	    setsockopt(lfd, IPPROTO_TCP, TCP_WINDOW_CLAMP, &clamp, sizeof(clamp)) < 0)
		die("TCP_WINDOW_CLAMP");
	if (cc && setsockopt(lfd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)) < 0)
		die("TCP_CONGESTION");
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind");
	if (listen(lfd, 1) < 0)
		die("listen");
	arm_timeout(timeout_s);
	printf("READY %u\n", port);
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		if (errno == EINTR && timed_out) {
			printf("{\"completed\": false, \"bytes_received\": 0}\n");
			return 3;
		}
		die("accept");
	}
	close(lfd);
	/* again on the connection: some kernels do not carry it over from the listener */
	if (clamp > 0 &&
	    setsockopt(fd, IPPROTO_TCP, TCP_WINDOW_CLAMP, &clamp, sizeof(clamp)) < 0)
		die("TCP_WINDOW_CLAMP");
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			received += (unsigned long long)n;
			continue;
		}
		if (n == 0) {
			/* the client's FIN: answer with one byte */
			if (write(fd, "R", 1) != 1)
				die("write reply");
			completed = 1;
			break;
		}
		if (errno == EINTR && timed_out)
			break;
		if (errno != EINTR)
			die("read");
	}
	if (tcp_info_of(fd, &info) < 0)
		die("getsockopt TCP_INFO");
	if (getsockopt(fd, IPPROTO_TCP, TCP_WINDOW_CLAMP, &clamp_read, &optlen) < 0)
		die("getsockopt TCP_WINDOW_CLAMP");
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc_used, &cc_len) < 0)
		die("getsockopt TCP_CONGESTION");
	printf("{\"completed\": %s, \"bytes_received\": %llu, \"rcv_mss\": %u, "
	       "\"rcv_space\": %u, \"window_clamp\": %d, \"window_clamp_read\": %d, "
	       "\"rcv_wscale\": %u, \"congestion_control\": \"%s\"}\n",
	       completed ? "true" : "false", received, info.tcpi_rcv_mss, info.tcpi_rcv_space,
	       clamp, clamp_read, info.tcpi_rcv_wscale, cc_used);
	fflush(stdout);
	close(fd);
	return completed ? 0 : 3;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "server", "client" };
	struct blast_options o = { .port = 1026 };
	const char *cc = NULL;
	int clamp = 0, opt, is_client;

	is_client = blast_mode(argc, argv, modes, 2, usage);
	while ((opt = getopt(argc, argv, "a:p:n:s:t:w:C:")) != -1) {
		if (blast_option(opt, &o, "writes", 1 << 24))
			continue;
		switch (opt) {
		case 'w':
			clamp = (int)parse_num(optarg, "window clamp", 1 << 30);
			break;
		case 'C':
			if (strlen(optarg) >= CA_NAME_MAX) {
				fprintf(stderr, "tcpblast: congestion control name too long: %s\n",
					optarg);
				return 2;
			}
			cc = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (is_client) {
		if (!o.addr || !o.count || !o.size)
			usage();
		return client(o.addr, o.port, o.count, o.size, o.timeout_s, cc);
	}
	return server(o.port, clamp, o.timeout_s, cc);
}
