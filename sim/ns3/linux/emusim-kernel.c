// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel facilities Linux 6.1's congestion-control modules call, and the connection API
 * of linux-cc.h through which ns-3 drives them. Written here from the 6.1.192 tree's
 * documented behaviour (file:line at each function); docs/linux-cc.md.
 */
#include "shim/emusim-kernel.h"

#include "linux-cc.h"

#include <errno.h>
#include <stdio.h>

/* the release the modules were taken from (version.c, written by extract.cmake) */
extern const char *emusim_linux_source_release;

u64 emusim_now_ns;

/* ---- the connection running module code now (ns-3 runs one hook at a time) ---- */

struct emusim_cc {
	struct tcp_sock tp;
	struct emusim_cc_host host;
	bool cwr_requested; /* the hook running now called tcp_enter_cwr */
};

static struct emusim_cc *current_cc;

void emusim_kernel_warn(const char *file, int line, const char *cond)
{
	if (current_cc && current_cc->host.warn)
		current_cc->host.warn(current_cc->host.context, file, line, cond);
	else
		fprintf(stderr, "linux-cc: WARN_ON(%s) at %s:%d\n", cond, file, line);
}

u32 get_random_u32(void)
{
	if (!current_cc || !current_cc->host.random_u32) {
		emusim_kernel_warn(__FILE__, __LINE__, "random number drawn outside a connection");
		return 0;
	}
	return current_cc->host.random_u32(current_cc->host.context);
}

void get_random_bytes(void *buf, size_t len)
{
	u8 *out = buf;
	size_t i;

	for (i = 0; i < len; i++)
		out[i] = (u8)get_random_u32();
}

/*
 * __tcp_send_ack (tcp_output.c): an ACK now. dctcp calls it for the ACK a CE change would
 * otherwise delay, after setting TCP_ECN_DEMAND_CWR to the prior CE state
 * (dctcp_ece_ack_update, tcp_dctcp.h:28-44), so that the ACK carries ECE as the data it
 * acknowledges did (tcp_ecn_send: th->ece from TCP_ECN_DEMAND_CWR, tcp_output.c:383-384).
 * The owner acknowledges up to its rcv_nxt, which is still rcv_nxt before the segment whose
 * CE state changed (ns-3 reports the CE state before it takes the segment).
 */
void __tcp_send_ack(struct sock *sk, u32 rcv_nxt)
{
	(void)rcv_nxt;
	if (current_cc && current_cc->host.send_ack)
		current_cc->host.send_ack(current_cc->host.context,
					  !!(tcp_sk(sk)->ecn_flags & TCP_ECN_DEMAND_CWR));
}

/*
 * tcp_enter_cwr (tcp_input.c:2726-2736), which tcp_cdg's backoff calls from its cong_avoid: a
 * window reduction the congestion control starts itself. From Open or Disorder the reduction
 * starts as tcp_init_cwnd_reduction starts it (:2669-2681): the window is kept as prior_cwnd,
 * the increase count cleared and the threshold is the module's own ssthresh; then the state
 * becomes CWR through tcp_set_ca_state, the module's set_state first (tcp_cong.c:37-46). A
 * reduction under way (CWR, Recovery, Loss) is left as it is. What the socket keeps (high_seq,
 * PRR's counts, tlp_high_seq, the undo marker and prior_ssthresh, which every call clears) is
 * the connection owner's: the call is reported back in the state (cwr_requested) and
 * TcpLinuxSocket carries it out when the hook returns (docs/linux-cc.md, "CWR").
 */
void tcp_enter_cwr(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct inet_connection_sock *icsk = inet_csk(sk);

	if (!current_cc) {
		emusim_kernel_warn(__FILE__, __LINE__, "tcp_enter_cwr outside a connection's hook");
		return;
	}
	current_cc->cwr_requested = true;
	if (icsk->icsk_ca_state >= TCP_CA_CWR)
		return;
	tp->snd_cwnd_cnt = 0;
	tp->prior_cwnd = tcp_snd_cwnd(tp);
	tp->snd_ssthresh = icsk->icsk_ca_ops->ssthresh(sk);
	if (icsk->icsk_ca_ops->set_state)
		icsk->icsk_ca_ops->set_state(sk, TCP_CA_CWR);
	icsk->icsk_ca_state = TCP_CA_CWR;
}

/* ---- net/ipv4/tcp_cong.c: registration ---- */

#define EMUSIM_MAX_ALGORITHMS 32

static struct tcp_congestion_ops *algorithms[EMUSIM_MAX_ALGORITHMS];
static size_t n_algorithms;

static struct tcp_congestion_ops *find_algorithm(const char *name)
{
	size_t i;

	for (i = 0; i < n_algorithms; i++)
		if (strcmp(algorithms[i]->name, name) == 0)
			return algorithms[i];
	return NULL;
}

/* tcp_register_congestion_control (tcp_cong.c:82-107): ssthresh, undo_cwnd and one of
 * cong_avoid or cong_control are required (:86-91); names are unique (the kernel compares a
 * hash of the name, :93-99). */
int tcp_register_congestion_control(struct tcp_congestion_ops *ca)
{
	if (!ca->ssthresh || !ca->undo_cwnd || !(ca->cong_avoid || ca->cong_control)) {
		fprintf(stderr, "linux-cc: %s does not implement required ops\n", ca->name);
		return -EINVAL;
	}
	if (find_algorithm(ca->name) || n_algorithms == EMUSIM_MAX_ALGORITHMS) {
		fprintf(stderr, "linux-cc: %s already registered or no room\n", ca->name);
		return -EINVAL;
	}
	algorithms[n_algorithms++] = ca;
	return 0;
}

void tcp_unregister_congestion_control(struct tcp_congestion_ops *ca)
{
	(void)ca;
}

void emusim_module_loaded(const char *module, int init_result)
{
	if (init_result != 0)
		fprintf(stderr, "linux-cc: module %s: init returned %d\n", module, init_result);
}

/* Reno, tcp_cong.c's own (compiled from the package: emusim/tcp_cong_reno.c), is always built
 * in and registered before any module, as the kernel registers it at boot
 * (tcp_init, net/ipv4/tcp.c:4917) */
static void __attribute__((constructor(101))) emusim_register_reno(void)
{
	tcp_register_congestion_control(&tcp_reno);
}

/* ---- module parameters: kernel/params.c ---- */

#define EMUSIM_MAX_PARAMS 128

struct emusim_param {
	const char *module;
	const char *name;
	void *address;
	enum emusim_param_type type;
	unsigned int perm;
	const struct kernel_param_ops *ops;
};

static struct emusim_param params[EMUSIM_MAX_PARAMS];
static size_t n_params;

void emusim_register_param(const char *module, const char *name, void *address,
			   enum emusim_param_type type, unsigned int perm, const void *ops)
{
	if (n_params == EMUSIM_MAX_PARAMS) {
		fprintf(stderr, "linux-cc: no room for parameter %s.%s\n", module, name);
		return;
	}
	params[n_params++] = (struct emusim_param){ module, name, address, type, perm, ops };
}

static struct emusim_param *find_param(const char *module, const char *name)
{
	size_t i;

	for (i = 0; i < n_params; i++)
		if (strcmp(params[i].module, module) == 0 && strcmp(params[i].name, name) == 0)
			return &params[i];
	return NULL;
}

/* kstrtoint/kstrtouint with base 0 (lib/kstrtox.c): decimal, 0x hex or 0 octal, a trailing
 * newline allowed, nothing else */
static int parse_integer(const char *text, long long low, long long high, long long *value)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 0);
	if (end == text || errno != 0)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end != '\0' || v < low || v > high)
		return -EINVAL;
	*value = v;
	return 0;
}

/* param_set_bool (kernel/params.c) takes kstrtobool's words: y/Y/1/on and n/N/0/off */
static int parse_bool(const char *text, bool *value)
{
	if (strchr("yY1", text[0]) && text[0] && (text[1] == '\0' || text[1] == '\n'))
		*value = true;
	else if (strchr("nN0", text[0]) && text[0] && (text[1] == '\0' || text[1] == '\n'))
		*value = false;
	else if (strcmp(text, "on") == 0)
		*value = true;
	else if (strcmp(text, "off") == 0)
		*value = false;
	else
		return -EINVAL;
	return 0;
}

int param_set_uint_minmax(const char *val, const struct kernel_param *kp, unsigned int min_value,
			  unsigned int max_value)
{
	long long v;

	if (parse_integer(val, min_value, max_value, &v) != 0)
		return -EINVAL;
	*(unsigned int *)kp->arg = (unsigned int)v;
	return 0;
}

int param_get_uint(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "%u\n", *(unsigned int *)kp->arg);
}

int emusim_cc_set_param(const char *module, const char *name, const char *value, char *error,
			size_t error_length)
{
	struct emusim_param *p = find_param(module, name);
	long long v;
	bool b;
	int ret;

	if (!p) {
		snprintf(error, error_length, "module %s has no parameter %s", module, name);
		return -1;
	}
	if (!(p->perm & 0222)) {
		snprintf(error, error_length,
			 "parameter %s of %s is read-only (perm %04o): set only when the module loads",
			 name, module, p->perm);
		return -1;
	}
	if (p->ops && p->ops->set) {
		struct kernel_param kp = { name, p->address };

		ret = p->ops->set(value, &kp);
	} else if (p->type == EMUSIM_PARAM_INT) {
		ret = parse_integer(value, INT32_MIN, INT32_MAX, &v);
		if (ret == 0)
			*(int *)p->address = (int)v;
	} else if (p->type == EMUSIM_PARAM_UINT) {
		ret = parse_integer(value, 0, UINT32_MAX, &v);
		if (ret == 0)
			*(unsigned int *)p->address = (unsigned int)v;
	} else {
		ret = parse_bool(value, &b);
		if (ret == 0)
			*(bool *)p->address = b;
	}
	if (ret != 0) {
		snprintf(error, error_length, "parameter %s of %s refuses the value '%s'", name,
			 module, value);
		return -1;
	}
	return 0;
}

int emusim_cc_get_param(const char *module, const char *name, char *buffer, size_t length)
{
	struct emusim_param *p = find_param(module, name);

	if (!p)
		return -1;
	if (p->type == EMUSIM_PARAM_INT)
		snprintf(buffer, length, "%d", *(int *)p->address);
	else if (p->type == EMUSIM_PARAM_UINT)
		snprintf(buffer, length, "%u", *(unsigned int *)p->address);
	else
		snprintf(buffer, length, "%c", *(bool *)p->address ? 'Y' : 'N');
	return 0;
}

/* ---- the connection API (linux-cc.h) ---- */

size_t emusim_cc_available(char *buffer, size_t length)
{
	size_t i, used = 0;

	if (length)
		buffer[0] = '\0';
	for (i = 0; i < n_algorithms; i++) {
		const char *sep = i ? " " : "";

		used += (size_t)snprintf(used < length ? buffer + used : NULL,
					 used < length ? length - used : 0, "%s%s", sep,
					 algorithms[i]->name);
	}
	return used + 1;
}

int emusim_cc_flags(const char *name)
{
	const struct tcp_congestion_ops *ca = find_algorithm(name);

	return ca ? (int)ca->flags : -1;
}

struct emusim_cc *emusim_cc_new(const char *name, const struct emusim_cc_host *host)
{
	struct tcp_congestion_ops *ca = find_algorithm(name);
	struct emusim_cc *cc;

	if (!ca)
		return NULL;
	cc = calloc(1, sizeof(*cc));
	if (!cc)
		return NULL;
	cc->tp.inet_conn.icsk_ca_ops = ca;
	if (host)
		cc->host = *host;
	return cc;
}

struct emusim_cc *emusim_cc_clone(const struct emusim_cc *cc, const struct emusim_cc_host *host)
{
	struct emusim_cc *copy = malloc(sizeof(*copy));

	if (!copy)
		return NULL;
	*copy = *cc;
	if (host)
		copy->host = *host;
	return copy;
}

void emusim_cc_free(struct emusim_cc *cc)
{
	free(cc);
}

const char *emusim_cc_name(const struct emusim_cc *cc)
{
	return cc->tp.inet_conn.icsk_ca_ops->name;
}

int emusim_cc_has(const struct emusim_cc *cc, enum emusim_cc_hook hook)
{
	const struct tcp_congestion_ops *ca = cc->tp.inet_conn.icsk_ca_ops;

	switch (hook) {
	case EMUSIM_CC_INIT:
		return ca->init != NULL;
	case EMUSIM_CC_SSTHRESH:
		return ca->ssthresh != NULL;
	case EMUSIM_CC_CONG_AVOID:
		return ca->cong_avoid != NULL;
	case EMUSIM_CC_SET_STATE:
		return ca->set_state != NULL;
	case EMUSIM_CC_CWND_EVENT:
		return ca->cwnd_event != NULL;
	case EMUSIM_CC_IN_ACK_EVENT:
		return ca->in_ack_event != NULL;
	case EMUSIM_CC_PKTS_ACKED:
		return ca->pkts_acked != NULL;
	case EMUSIM_CC_CONG_CONTROL:
		return ca->cong_control != NULL;
	case EMUSIM_CC_UNDO_CWND:
		return ca->undo_cwnd != NULL;
	case EMUSIM_CC_RELEASE:
		return ca->release != NULL;
	case EMUSIM_CC_MIN_TSO_SEGS:
		return ca->min_tso_segs != NULL;
	}
	return 0;
}

/* The state into the module's socket: every field the kernel keeps and a module reads. */
static struct sock *load(struct emusim_cc *cc, const struct emusim_tcp_state *s)
{
	struct tcp_sock *tp = &cc->tp;
	struct sock *sk = &tp->inet_conn.icsk_sk;

	current_cc = cc;
	cc->cwr_requested = false;
	emusim_now_ns = s->now_ns;
	tp->tcp_mstamp = s->now_ns / NSEC_PER_USEC;
	tp->tcp_clock_cache = s->now_ns;
	tp->snd_una = s->snd_una;
	tp->snd_nxt = s->snd_nxt;
	tp->rcv_nxt = s->rcv_nxt;
	tp->lsndtime = s->lsndtime;
	tp->inet_conn.icsk_ack.pending = s->ack_pending;
	tp->mss_cache = s->mss_cache;
	tp->snd_cwnd = s->snd_cwnd;
	tp->snd_cwnd_cnt = s->snd_cwnd_cnt;
	tp->snd_cwnd_clamp = s->snd_cwnd_clamp;
	tp->snd_ssthresh = s->snd_ssthresh;
	tp->prior_cwnd = s->prior_cwnd;
	tp->packets_out = s->packets_out;
	tp->sacked_out = s->sacked_out;
	tp->lost_out = s->lost_out;
	tp->retrans_out = s->retrans_out;
	tp->max_packets_out = s->max_packets_out;
	tp->is_cwnd_limited = s->is_cwnd_limited;
	tp->app_limited = s->app_limited;
	tp->delivered = s->delivered;
	tp->delivered_ce = s->delivered_ce;
	tp->lost = s->lost;
	tp->delivered_mstamp = s->delivered_mstamp;
	tp->tcp_wstamp_ns = s->tcp_wstamp_ns;
	tp->srtt_us = s->srtt_us;
	/* the windowed minimum as tcp_min_rtt reads it; ~0U before any sample (tcp_init_sock) */
	minmax_reset(&tp->rtt_min, tcp_jiffies32, s->min_rtt_us ? s->min_rtt_us : ~0U);
	tp->rx_opt.rcv_tsval = s->rcv_tsval;
	tp->rx_opt.rcv_tsecr = s->rcv_tsecr;
	tp->rx_opt.saw_tstamp = s->saw_tstamp;
	tp->ecn_flags = s->ecn_flags;
	tp->inet_conn.icsk_ca_state = s->ca_state;
	sk->sk_state = s->sk_state;
	sk->sk_pacing_rate = s->pacing_rate;
	sk->sk_max_pacing_rate = s->max_pacing_rate;
	sk->sk_pacing_status = s->pacing_status;
	sk->sk_pacing_shift = s->pacing_shift;
	sk->sk_gso_max_size = s->gso_max_size;
	sk->tos = s->tos_ecn;
	return sk;
}

/* The socket back into the state: what a module may have changed. */
static void store(struct emusim_cc *cc, struct emusim_tcp_state *s)
{
	const struct tcp_sock *tp = &cc->tp;
	const struct sock *sk = &tp->inet_conn.icsk_sk;

	s->snd_cwnd = tp->snd_cwnd;
	s->snd_cwnd_cnt = tp->snd_cwnd_cnt;
	s->snd_cwnd_clamp = tp->snd_cwnd_clamp;
	s->snd_ssthresh = tp->snd_ssthresh;
	s->prior_cwnd = tp->prior_cwnd;
	s->app_limited = tp->app_limited; /* bbr_update_min_rtt in PROBE_RTT (tcp_bbr.c:965-966) */
	s->ecn_flags = tp->ecn_flags;
	s->ack_pending = tp->inet_conn.icsk_ack.pending; /* dctcp's ICSK_ACK_NOW (tcp_dctcp.h:39) */
	s->pacing_rate = sk->sk_pacing_rate;
	s->pacing_status = sk->sk_pacing_status;
	s->tos_ecn = sk->tos;
	s->cwr_requested = cc->cwr_requested;
	current_cc = NULL;
}

#define CA(cc) ((cc)->tp.inet_conn.icsk_ca_ops)

void emusim_cc_init(struct emusim_cc *cc, struct emusim_tcp_state *state)
{
	struct sock *sk = load(cc, state);

	/* tcp_init_congestion_control (tcp_cong.c:211-224): the private area is cleared first */
	memset(cc->tp.inet_conn.icsk_ca_priv, 0, sizeof(cc->tp.inet_conn.icsk_ca_priv));
	if (CA(cc)->init)
		CA(cc)->init(sk);
	store(cc, state);
}

uint32_t emusim_cc_ssthresh(struct emusim_cc *cc, struct emusim_tcp_state *state)
{
	uint32_t ssthresh = CA(cc)->ssthresh(load(cc, state));

	store(cc, state);
	return ssthresh;
}

void emusim_cc_cong_avoid(struct emusim_cc *cc, struct emusim_tcp_state *state, uint32_t ack,
			  uint32_t acked)
{
	struct sock *sk = load(cc, state);

	if (CA(cc)->cong_avoid)
		CA(cc)->cong_avoid(sk, ack, acked);
	store(cc, state);
}

void emusim_cc_set_state(struct emusim_cc *cc, struct emusim_tcp_state *state, uint8_t new_state)
{
	struct sock *sk = load(cc, state);

	/* tcp_set_ca_state (tcp_cong.c / tcp.h): the hook runs before the state changes */
	if (CA(cc)->set_state)
		CA(cc)->set_state(sk, new_state);
	cc->tp.inet_conn.icsk_ca_state = new_state;
	state->ca_state = new_state;
	store(cc, state);
}

void emusim_cc_cwnd_event(struct emusim_cc *cc, struct emusim_tcp_state *state, int event)
{
	struct sock *sk = load(cc, state);

	if (CA(cc)->cwnd_event)
		CA(cc)->cwnd_event(sk, (enum tcp_ca_event)event);
	store(cc, state);
}

void emusim_cc_enter_cwr(struct emusim_cc *cc, struct emusim_tcp_state *state)
{
	struct sock *sk = load(cc, state);

	tcp_enter_cwr(sk);
	store(cc, state);
}

void emusim_cc_in_ack_event(struct emusim_cc *cc, struct emusim_tcp_state *state, uint32_t flags)
{
	struct sock *sk = load(cc, state);

	if (CA(cc)->in_ack_event)
		CA(cc)->in_ack_event(sk, flags);
	store(cc, state);
}

void emusim_cc_pkts_acked(struct emusim_cc *cc, struct emusim_tcp_state *state,
			  uint32_t pkts_acked, int32_t rtt_us, uint32_t in_flight)
{
	struct sock *sk = load(cc, state);
	struct ack_sample sample = { .pkts_acked = pkts_acked, .rtt_us = rtt_us,
				     .in_flight = in_flight };

	if (CA(cc)->pkts_acked)
		CA(cc)->pkts_acked(sk, &sample);
	store(cc, state);
}

void emusim_cc_cong_control(struct emusim_cc *cc, struct emusim_tcp_state *state,
			    const struct emusim_rate_sample *r)
{
	struct sock *sk = load(cc, state);
	struct rate_sample rs = {
		.prior_mstamp = r->prior_mstamp,
		.prior_delivered = r->prior_delivered,
		.prior_delivered_ce = r->prior_delivered_ce,
		.delivered = r->delivered,
		.delivered_ce = r->delivered_ce,
		.interval_us = r->interval_us,
		.snd_interval_us = r->snd_interval_us,
		.rcv_interval_us = r->rcv_interval_us,
		.rtt_us = r->rtt_us,
		.losses = r->losses,
		.acked_sacked = r->acked_sacked,
		.prior_in_flight = r->prior_in_flight,
		.last_end_seq = r->last_end_seq,
		.is_app_limited = r->is_app_limited,
		.is_retrans = r->is_retrans,
		.is_ack_delayed = r->is_ack_delayed,
	};

	if (CA(cc)->cong_control)
		CA(cc)->cong_control(sk, &rs);
	store(cc, state);
}

uint32_t emusim_cc_min_tso_segs(struct emusim_cc *cc, struct emusim_tcp_state *state)
{
	uint32_t segs = 0;
	struct sock *sk = load(cc, state);

	/* tcp_tso_segs asks the module first (tcp_output.c:2003-2005) */
	if (CA(cc)->min_tso_segs)
		segs = CA(cc)->min_tso_segs(sk);
	store(cc, state);
	return segs;
}

uint32_t emusim_cc_undo_cwnd(struct emusim_cc *cc, struct emusim_tcp_state *state)
{
	uint32_t cwnd = CA(cc)->undo_cwnd(load(cc, state));

	store(cc, state);
	return cwnd;
}

void emusim_cc_release(struct emusim_cc *cc, struct emusim_tcp_state *state)
{
	struct sock *sk = load(cc, state);

	if (CA(cc)->release)
		CA(cc)->release(sk);
	store(cc, state);
}

_Static_assert(sizeof(struct emusim_rtt_min) == sizeof(struct minmax),
	       "struct emusim_rtt_min must be laid out as struct minmax");

void emusim_rtt_min_reset(struct emusim_rtt_min *m, uint64_t now_ns)
{
	emusim_now_ns = now_ns;
	minmax_reset((struct minmax *)m, tcp_jiffies32, ~0U);
}

uint32_t emusim_rtt_min_update(struct emusim_rtt_min *m, uint64_t now_ns, uint32_t window_s,
			       uint32_t rtt_us)
{
	emusim_now_ns = now_ns;
	return minmax_running_min((struct minmax *)m, window_s * HZ, tcp_jiffies32,
				  rtt_us ? rtt_us : jiffies_to_usecs(1));
}

uint32_t emusim_jiffies32(uint64_t now_ns)
{
	emusim_now_ns = now_ns;
	return tcp_jiffies32;
}

const char *emusim_cc_source_version(void)
{
	return emusim_linux_source_release;
}
