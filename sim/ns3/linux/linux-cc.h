/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Linux 6.1's congestion-control modules, compiled from Debian's linux-source-6.1 against the
 * shim of shim/, as a C library that ns-3 (model/tcp-linux-congestion.h) drives: one
 * `emusim_cc` per connection holds the module's `struct sock` (its tcp_sock fields and the
 * algorithm's private area, icsk_ca_priv); before each hook the caller gives the connection's
 * state (struct emusim_tcp_state, Linux's units: segments, microseconds) and reads it back
 * after, so the module sees what the kernel would show it and changes what the kernel would
 * let it change. docs/linux-cc.md.
 */
#ifndef EMUSIM_LINUX_CC_H
#define EMUSIM_LINUX_CC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The connection's state as Linux keeps it (include/linux/tcp.h, struct tcp_sock; net/sock.h) */
struct emusim_tcp_state {
	uint64_t now_ns;	   /* the host's clock: jiffies, tcp_mstamp and tcp_clock_cache */
	uint32_t snd_una;	   /* first unacknowledged sequence number */
	uint32_t snd_nxt;	   /* next sequence number to send */
	uint32_t rcv_nxt;	   /* next sequence number expected from the peer */
	uint32_t lsndtime;	   /* jiffies when data was last sent (tcp_event_data_sent) */
	uint8_t ack_pending;	   /* icsk_ack.pending: ICSK_ACK_TIMER (2) if a delayed ACK waits;
				    * out: ICSK_ACK_NOW (16) if the module asks for an ACK now */
	uint32_t mss_cache;	   /* bytes per segment */
	uint32_t snd_cwnd;	   /* segments */
	uint32_t snd_cwnd_cnt;	   /* acknowledged segments counted toward the next increase */
	uint32_t snd_cwnd_clamp;   /* segments */
	uint32_t snd_ssthresh;	   /* segments; 0x7fffffff: infinite */
	uint32_t prior_cwnd;	   /* cwnd before the last reduction (undo) */
	uint32_t packets_out;	   /* segments sent and not cumulatively acknowledged */
	uint32_t sacked_out;	   /* of which SACKed */
	uint32_t lost_out;	   /* of which marked lost */
	uint32_t retrans_out;	   /* retransmissions in flight */
	uint32_t max_packets_out;  /* most packets out in the last window (tcp_cwnd_validate) */
	uint8_t is_cwnd_limited;   /* the last window was cwnd-limited (tcp_cwnd_validate) */
	uint32_t app_limited;	   /* delivered count at which the application limited, or 0 */
	uint32_t delivered;	   /* segments delivered (acknowledged or SACKed), ever */
	uint32_t delivered_ce;	   /* of which with CE marks */
	uint32_t lost;		   /* segments marked lost, ever */
	uint64_t delivered_mstamp; /* µs: when `delivered` last grew */
	uint64_t tcp_wstamp_ns;	   /* earliest departure time of the next segment */
	uint32_t srtt_us;	   /* smoothed RTT in µs, times 8 (tcp_sock's srtt_us) */
	uint32_t min_rtt_us;	   /* windowed minimum RTT (tcp_min_rtt); 0: none yet */
	uint32_t rcv_tsval;	   /* the peer's last timestamp value */
	uint32_t rcv_tsecr;	   /* our timestamp it last echoed */
	uint8_t saw_tstamp;	   /* the last segment carried timestamps */
	uint8_t ecn_flags;	   /* TCP_ECN_OK (1) ... */
	uint8_t ca_state;	   /* TCP_CA_Open (0) ... TCP_CA_Loss (4) */
	uint8_t sk_state;	   /* TCP_ESTABLISHED (1), TCP_CLOSE (7), TCP_LISTEN (10) */
	uint64_t pacing_rate;	   /* sk_pacing_rate, bytes per second */
	uint64_t max_pacing_rate;  /* sk_max_pacing_rate, bytes per second */
	uint32_t pacing_status;	   /* enum sk_pacing: 0 none, 1 needed (the module asks TCP to pace) */
	uint8_t pacing_shift;	   /* sk_pacing_shift (TSQ), 10 by default */
	uint32_t gso_max_size;	   /* sk_gso_max_size: 0 without GSO */
	uint8_t tos_ecn;	   /* the ECN bits the socket puts on its packets (INET_ECN_dontxmit) */
	uint8_t cwr_requested;	   /* out: the module called tcp_enter_cwr in the hook; from Open
				    * or Disorder its side of the reduction is done (ssthresh,
				    * prior_cwnd, snd_cwnd_cnt, set_state), the socket's is left */
};

/* struct rate_sample (include/net/tcp.h), for cong_control */
struct emusim_rate_sample {
	uint64_t prior_mstamp;
	uint32_t prior_delivered;
	uint32_t prior_delivered_ce;
	int32_t delivered;
	int32_t delivered_ce;
	long interval_us;
	uint32_t snd_interval_us;
	uint32_t rcv_interval_us;
	long rtt_us;
	int losses;
	uint32_t acked_sacked;
	uint32_t prior_in_flight;
	uint32_t last_end_seq;
	uint8_t is_app_limited;
	uint8_t is_retrans;
	uint8_t is_ack_delayed;
};

/* What a connection's owner does for the module: draw random numbers from the run's stream,
 * send an ACK now (dctcp's receiver; `ece` whether it carries ECE, the module's
 * TCP_ECN_DEMAND_CWR at the call), report a broken kernel invariant (WARN_ON). */
struct emusim_cc_host {
	void *context;
	uint32_t (*random_u32)(void *context);
	void (*send_ack)(void *context, int ece);
	void (*warn)(void *context, const char *file, int line, const char *condition);
};

struct emusim_cc;

/* The registered algorithms' names, space-separated, in registration order (the list
 * /proc/sys/net/ipv4/tcp_available_congestion_control shows); returns the length needed. */
size_t emusim_cc_available(char *buffer, size_t length);

/* A connection running algorithm `name` (after its module's init has not run yet: see
 * emusim_cc_init), or NULL if no module registered it. */
struct emusim_cc *emusim_cc_new(const char *name, const struct emusim_cc_host *host);
/* A copy with the same algorithm and private state (a listener's forked socket). */
struct emusim_cc *emusim_cc_clone(const struct emusim_cc *cc, const struct emusim_cc_host *host);
void emusim_cc_free(struct emusim_cc *cc);

/* The algorithm the connection runs now: a module may replace itself (dctcp falls back to
 * "dctcp-reno" when ECN was not negotiated, tcp_dctcp.c:108-112). */
const char *emusim_cc_name(const struct emusim_cc *cc);
/* TCP_CONG_NEEDS_ECN (2), TCP_CONG_NON_RESTRICTED (1) of the algorithm `name`; -1 if unknown. */
int emusim_cc_flags(const char *name);

enum emusim_cc_hook {
	EMUSIM_CC_INIT,
	EMUSIM_CC_SSTHRESH,
	EMUSIM_CC_CONG_AVOID,
	EMUSIM_CC_SET_STATE,
	EMUSIM_CC_CWND_EVENT,
	EMUSIM_CC_IN_ACK_EVENT,
	EMUSIM_CC_PKTS_ACKED,
	EMUSIM_CC_CONG_CONTROL,
	EMUSIM_CC_UNDO_CWND,
	EMUSIM_CC_RELEASE,
    EMUSIM_CC_MIN_TSO_SEGS,
};
/* Whether the connection's algorithm has the hook. */
int emusim_cc_has(const struct emusim_cc *cc, enum emusim_cc_hook hook);

/* The hooks, as the kernel calls them (net/ipv4/tcp_input.c, tcp_output.c, tcp_cong.c): each
 * loads `state` into the module's socket, calls the hook and stores the socket back. */
void emusim_cc_init(struct emusim_cc *cc, struct emusim_tcp_state *state);
uint32_t emusim_cc_ssthresh(struct emusim_cc *cc, struct emusim_tcp_state *state);
void emusim_cc_cong_avoid(struct emusim_cc *cc, struct emusim_tcp_state *state, uint32_t ack,
			  uint32_t acked);
void emusim_cc_set_state(struct emusim_cc *cc, struct emusim_tcp_state *state, uint8_t new_state);
void emusim_cc_cwnd_event(struct emusim_cc *cc, struct emusim_tcp_state *state, int event);
/* tcp_enter_cwr as tcp_try_to_open calls it on an ACK with ECE (tcp_input.c:2753-2763): the
 * module's side, reported back in cwr_requested as when a module calls it itself. */
void emusim_cc_enter_cwr(struct emusim_cc *cc, struct emusim_tcp_state *state);
void emusim_cc_in_ack_event(struct emusim_cc *cc, struct emusim_tcp_state *state, uint32_t flags);
void emusim_cc_pkts_acked(struct emusim_cc *cc, struct emusim_tcp_state *state,
			  uint32_t pkts_acked, int32_t rtt_us, uint32_t in_flight);
void emusim_cc_cong_control(struct emusim_cc *cc, struct emusim_tcp_state *state,
			    const struct emusim_rate_sample *rs);
uint32_t emusim_cc_undo_cwnd(struct emusim_cc *cc, struct emusim_tcp_state *state);
/* The module's min_tso_segs (tcp_tso_segs, net/ipv4/tcp_output.c:2003-2005), or 0 if it has
 * none (the sysctl tcp_min_tso_segs applies). */
uint32_t emusim_cc_min_tso_segs(struct emusim_cc* cc, struct emusim_tcp_state* state);
void emusim_cc_release(struct emusim_cc *cc, struct emusim_tcp_state *state);

/* A module parameter, as /sys/module/MODULE/parameters/NAME takes it: 0 on success, else an
 * error text in `error`. Read-only parameters (perm 0444) are refused, as sysfs refuses. */
int emusim_cc_set_param(const char *module, const char *name, const char *value, char *error,
			size_t error_length);
/* Its value as sysfs prints it; 0 on success, -1 if there is no such parameter. */
int emusim_cc_get_param(const char *module, const char *name, char *buffer, size_t length);

/* Linux's windowed minimum (lib/win_minmax.c, struct minmax), as tcp_sock.rtt_min tracks the
 * RTT (tcp_update_rtt_min, net/ipv4/tcp_input.c:3149-3163) */
struct emusim_rtt_min {
	struct {
		uint32_t t;
		uint32_t v;
	} s[3];
};
/* start with no sample (tcp_init_sock: minmax_reset(&tp->rtt_min, tcp_jiffies32, ~0U)) */
void emusim_rtt_min_reset(struct emusim_rtt_min *m, uint64_t now_ns);
/* add a sample (0 counts as one jiffy) over a window of window_s seconds; returns the minimum */
uint32_t emusim_rtt_min_update(struct emusim_rtt_min *m, uint64_t now_ns, uint32_t window_s,
			       uint32_t rtt_us);

/* tcp_jiffies32 at a time of the host's clock (250 Hz, starting 5 minutes before the wrap) */
uint32_t emusim_jiffies32(uint64_t now_ns);

/* The source the modules were built from (linux-source's Makefile: "6.1.192"). */
const char *emusim_cc_source_version(void);

#ifdef __cplusplus
}
#endif

#endif /* EMUSIM_LINUX_CC_H */
