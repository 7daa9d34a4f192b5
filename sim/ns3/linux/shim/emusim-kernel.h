/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What Linux 6.1's TCP congestion-control modules need of the kernel, written here so that the
 * modules' own source (net/ipv4/tcp_*.c of Debian's linux-source-6.1, taken from the package
 * when the ns-3 part is built) compiles in user space and runs inside ns-3.
 *
 * Every kernel header a module includes (<linux/module.h>, <net/tcp.h>, ...) is a file of this
 * directory that includes this one. Names, types and semantics follow the 6.1.192 tree; each
 * block says where in it its definitions are. Nothing here is copied: the structures hold only
 * the fields the modules read or write, and what this file defines is written from the kernel's
 * documented behaviour. The kernel's own inline helpers of <net/tcp.h> that the modules call
 * (tcp_is_cwnd_limited, tcp_snd_cwnd_set, ...) are taken from the package by the build
 * (linux/extract.cmake) and included below as <emusim/tcp-helpers.h>. docs/linux-cc.md says
 * how a connection's state reaches them and what is left.
 *
 * One connection at a time runs module code (ns-3 is single-threaded), so locks, RCU, per-CPU
 * data and memory barriers are plain accesses.
 */
#ifndef EMUSIM_KERNEL_H
#define EMUSIM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- types: include/linux/types.h, include/uapi/asm-generic/int-ll64.h ---- */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s32 __s32;
typedef s64 __s64;
typedef u16 __be16;
typedef u32 __be32;
typedef unsigned int gfp_t;

#define U8_MAX ((u8)~0U)
#define U16_MAX ((u16)~0U)
#define U32_MAX ((u32)~0U)
#define S32_MAX ((s32)(U32_MAX >> 1))
#define U64_MAX ((u64)~0ULL)
#define U32_C(x) x##U
#define ULL(x) x##ULL
#define GFP_KERNEL 0u
#define GFP_NOWAIT 0u
#define __GFP_NOWARN 0u
#define EINVAL 22
#define EPERM 1
#define ERANGE 34

/* ---- compiler and annotations: include/linux/compiler*.h, init.h, cache.h ---- */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define __read_mostly
#define __init
#define __exit
#define __pure __attribute__((pure))
#define __bpf_kfunc
#define READ_ONCE(x) (x)
#define WRITE_ONCE(x, val) ((x) = (val))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define sizeof_field(TYPE, MEMBER) sizeof((((TYPE *)0)->MEMBER))
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), "BUILD_BUG_ON: " #cond)
/* a cmpxchg on a field no other thread touches: compare, store, return the old value */
#define cmpxchg(ptr, old, new)                                                                     \
	({                                                                                         \
		__typeof__(*(ptr)) emusim_prev_ = *(ptr);                                          \
		if (emusim_prev_ == (old))                                                         \
			*(ptr) = (new);                                                            \
		emusim_prev_;                                                                      \
	})

/* diagnostics: WARN_ON reports through the bridge (a broken invariant aborts the run) */
void emusim_kernel_warn(const char *file, int line, const char *cond);
#define WARN_ON(cond)                                                                              \
	({                                                                                         \
		int emusim_w_ = !!(cond);                                                          \
		if (unlikely(emusim_w_))                                                           \
			emusim_kernel_warn(__FILE__, __LINE__, #cond);                             \
		emusim_w_;                                                                         \
	})
#define WARN_ON_ONCE(cond) WARN_ON(cond)
#define WARN_ONCE(cond, ...) WARN_ON(cond)
#define pr_debug(...) ((void)0)
#define pr_info(...) ((void)0)
#define pr_err(...) ((void)0)

/* ---- arithmetic: include/linux/minmax.h, math.h, math64.h, log2.h, bitops ---- */
#define min(a, b)                                                                                  \
	({                                                                                         \
		__typeof__(a) emusim_a_ = (a);                                                     \
		__typeof__(b) emusim_b_ = (b);                                                     \
		emusim_a_ < emusim_b_ ? emusim_a_ : emusim_b_;                                     \
	})
#define max(a, b)                                                                                  \
	({                                                                                         \
		__typeof__(a) emusim_a_ = (a);                                                     \
		__typeof__(b) emusim_b_ = (b);                                                     \
		emusim_a_ > emusim_b_ ? emusim_a_ : emusim_b_;                                     \
	})
#define min_t(type, a, b) min((type)(a), (type)(b))
#define max_t(type, a, b) max((type)(a), (type)(b))
#define max3(a, b, c) max(max(a, b), c)
#define min_not_zero(a, b)                                                                         \
	({                                                                                         \
		__typeof__(a) emusim_x_ = (a);                                                     \
		__typeof__(b) emusim_y_ = (b);                                                     \
		emusim_x_ == 0 ? emusim_y_ : (emusim_y_ == 0 ? emusim_x_ : min(emusim_x_, emusim_y_)); \
	})
#define clamp(val, lo, hi) min(max(val, lo), hi)
#define clamp_t(type, val, lo, hi) min_t(type, max_t(type, val, lo), hi)
#define abs(x)                                                                                     \
	({                                                                                         \
		__typeof__(x) emusim_v_ = (x);                                                     \
		emusim_v_ < 0 ? -emusim_v_ : emusim_v_;                                            \
	})
#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))
/* rounds half away from zero for either sign, as math.h does */
#define DIV_ROUND_CLOSEST(x, divisor)                                                              \
	({                                                                                         \
		__typeof__(x) emusim_x_ = (x);                                                     \
		__typeof__(divisor) emusim_d_ = (divisor);                                         \
		(((__typeof__(x))-1) > 0 || ((__typeof__(divisor))-1) > 0 ||                       \
		 (((emusim_x_) > 0) == ((emusim_d_) > 0)))                                         \
			? (((emusim_x_) + ((emusim_d_) / 2)) / (emusim_d_))                        \
			: (((emusim_x_) - ((emusim_d_) / 2)) / (emusim_d_));                       \
	})

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}

#define div64_long(x, y) div64_s64((x), (y))
#define div64_ul(x, y) div64_u64((x), (y))

/* do_div(n, base): n becomes the quotient, the remainder is the value (asm-generic/div64.h) */
#define do_div(n, base)                                                                            \
	({                                                                                         \
		u32 emusim_base_ = (base);                                                         \
		u32 emusim_rem_ = (u32)((n) % emusim_base_);                                       \
		(n) = (n) / emusim_base_;                                                          \
		emusim_rem_;                                                                       \
	})

/* the position of the most significant set bit, 1-based; 0 for 0 (asm-generic/bitops/fls64.h) */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* the integer square root, rounded down (lib/math/int_sqrt.c's contract) */
static inline unsigned long int_sqrt(unsigned long x)
{
	unsigned long lo = 0, hi = x < 2 ? x : (x >> 1) + 1;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo + 1) / 2;

		if (mid <= x / mid)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* ---- time: include/linux/jiffies.h, time64.h, include/net/tcp.h:800-851 ---- */
/* Debian's kernel: CONFIG_HZ=250 (/boot/config-6.1.0-*-amd64) */
#define HZ 250
#define MSEC_PER_SEC 1000L
#define USEC_PER_MSEC 1000L
#define USEC_PER_SEC 1000000L
#define NSEC_PER_USEC 1000L
#define NSEC_PER_MSEC 1000000L
#define NSEC_PER_SEC 1000000000L
#define TCP_TS_HZ 1000

/* The clock of the connection running module code now, set by the bridge before each hook. */
extern u64 emusim_now_ns;
/* jiffies start 5 minutes before wrapping, as the kernel's do (INITIAL_JIFFIES) */
#define INITIAL_JIFFIES ((unsigned long)(unsigned int)(-300 * HZ))
#define jiffies ((unsigned long)(INITIAL_JIFFIES + emusim_now_ns / (NSEC_PER_SEC / HZ)))
#define tcp_jiffies32 ((u32)jiffies)
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)

/* HZ = 250 divides 1000: the kernel rounds ms and µs up to whole jiffies */
static inline unsigned long msecs_to_jiffies(unsigned int m)
{
	return DIV_ROUND_UP((unsigned long)m, MSEC_PER_SEC / HZ);
}

static inline unsigned long usecs_to_jiffies(unsigned int u)
{
	return DIV_ROUND_UP((unsigned long)u, USEC_PER_SEC / HZ);
}

static inline unsigned int jiffies_to_usecs(unsigned long j)
{
	return (unsigned int)(j * (USEC_PER_SEC / HZ));
}

static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)(j * (MSEC_PER_SEC / HZ));
}

/* ---- randomness: include/linux/random.h, prandom.h ---- */
/* drawn from the connection's ns-3 random stream (seeded by the run), not the host's */
u32 get_random_u32(void);
void get_random_bytes(void *buf, size_t len);

/* a uniform number in [0, ep_ro): the high word of a 32 x 32-bit product (6.1's prandom.h) */
static inline u32 prandom_u32_max(u32 ep_ro)
{
	return (u32)(((u64)get_random_u32() * ep_ro) >> 32);
}

/* ---- memory: include/linux/slab.h ---- */
#define kcalloc(n, size, flags) calloc((n), (size))
#define kzalloc(size, flags) calloc(1, (size))
#define kfree(p) free(p)

/* ---- modules: include/linux/module.h, moduleparam.h, export.h, btf*.h ---- */
struct module;
#define THIS_MODULE ((struct module *)0)
#define MODULE_AUTHOR(x)
#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_VERSION(x)
#define MODULE_PARM_DESC(name, desc)
#define MODULE_ALIAS(x)
#define MODULE_ALIAS_TCP_CC(x)
#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

/* A module's init runs when the library loads, as insmod would run it (KBUILD_MODNAME is the
 * module's name, set by the build for each file). */
#define module_init(fn)                                                                            \
	static void __attribute__((constructor)) emusim_module_init_##fn(void)                     \
	{                                                                                          \
		emusim_module_loaded(KBUILD_MODNAME, fn());                                        \
	}
#define module_exit(fn)
void emusim_module_loaded(const char *module, int init_result);

/* Parameters are registered by name with their address, so that /sys/module/M/parameters/P
 * has a counterpart (emusim_linux_set_param); perm 0444 ones are read-only after load. */
enum emusim_param_type { EMUSIM_PARAM_INT, EMUSIM_PARAM_UINT, EMUSIM_PARAM_BOOL };
void emusim_register_param(const char *module, const char *name, void *address,
			   enum emusim_param_type type, unsigned int perm, const void *ops);
#define EMUSIM_PARAM_TYPE_int EMUSIM_PARAM_INT
#define EMUSIM_PARAM_TYPE_uint EMUSIM_PARAM_UINT
#define EMUSIM_PARAM_TYPE_bool EMUSIM_PARAM_BOOL
#define module_param(name, type, perm)                                                             \
	static void __attribute__((constructor)) emusim_param_##name(void)                         \
	{                                                                                          \
		emusim_register_param(KBUILD_MODNAME, #name, &(name), EMUSIM_PARAM_TYPE_##type,    \
				      (perm), NULL);                                               \
	}
/* a parameter with its own setter (dctcp_shift_g: an unsigned int checked against a range) */
struct kernel_param;
struct kernel_param_ops {
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
};
struct kernel_param {
	const char *name;
	void *arg;
};
#define module_param_cb(name, ops, arg, perm)                                                      \
	static void __attribute__((constructor)) emusim_param_cb_##name(void)                      \
	{                                                                                          \
		emusim_register_param(KBUILD_MODNAME, #name, (arg), EMUSIM_PARAM_UINT, (perm),     \
				      (ops));                                                      \
	}
int param_set_uint_minmax(const char *val, const struct kernel_param *kp, unsigned int min,
			  unsigned int max);
int param_get_uint(char *buffer, const struct kernel_param *kp);

/* BPF type information: nothing to register outside the kernel */
struct btf_kfunc_id_set {
	struct module *owner;
	const void *set;
};
#define BTF_SET8_START(name) static const int name __attribute__((unused)) = 0;
#define BTF_SET8_END(name)
#define BTF_ID_FLAGS(...)
#define BPF_PROG_TYPE_STRUCT_OPS 0
static inline int register_btf_kfunc_id_set(int type, const struct btf_kfunc_id_set *set)
{
	(void)type;
	(void)set;
	return 0;
}

/* ---- statistics: include/net/snmp.h, ip.h (the MIB counters are not kept) ---- */
#define sock_net(sk) ((void)(sk), (void *)0)
#define NET_INC_STATS(net, field) ((void)0)
#define NET_ADD_STATS(net, field, val) ((void)0)

/* ---- sockets: include/net/sock.h, inet_sock.h, inet_connection_sock.h, linux/tcp.h ---- */
#include <linux/win_minmax.h>

/* include/net/tcp_states.h */
enum {
	TCP_ESTABLISHED = 1,
	TCP_CLOSE = 7,
	TCP_LISTEN = 10,
};

/* include/net/sock.h: enum sk_pacing */
enum sk_pacing {
	SK_PACING_NONE = 0,
	SK_PACING_NEEDED = 1,
	SK_PACING_FQ = 2,
};

struct sock {
	unsigned char sk_state;		  /* TCP_ESTABLISHED, ... */
	unsigned long sk_pacing_rate;	  /* bytes per second */
	unsigned long sk_max_pacing_rate; /* bytes per second */
	u32 sk_pacing_status;		  /* enum sk_pacing */
	u8 sk_pacing_shift;		  /* TSQ: sk_pacing_rate >> shift bytes may be queued */
	unsigned int sk_gso_max_size;	  /* 0 without GSO (sk_setup_caps) */
	u8 tos;				  /* inet_sock's: the ECN bits are the low two */
};

struct tcp_congestion_ops;

#define ICSK_CA_PRIV_SIZE (13 * sizeof(u64)) /* include/net/inet_connection_sock.h:148 */

/* icsk_ack.pending: the receiver's delayed-ACK state (include/net/inet_connection_sock.h:140) */
enum inet_csk_ack_state_t {
	ICSK_ACK_SCHED = 1,
	ICSK_ACK_TIMER = 2,
	ICSK_ACK_PUSHED = 4,
	ICSK_ACK_PUSHED2 = 8,
	ICSK_ACK_NOW = 16,
};

struct inet_connection_sock {
	struct sock icsk_sk;
	const struct tcp_congestion_ops *icsk_ca_ops;
	struct {
		u8 pending;
	} icsk_ack;
	u8 icsk_ca_state;
	u8 icsk_ca_setsockopt;
	u64 icsk_ca_priv[ICSK_CA_PRIV_SIZE / sizeof(u64)];
};

/* include/linux/tcp.h: struct tcp_options_received */
struct tcp_options_received {
	u32 rcv_tsval; /* the peer's timestamp on the last segment */
	u32 rcv_tsecr; /* our timestamp it echoed */
	u16 saw_tstamp;
};

/* include/linux/tcp.h: the fields of struct tcp_sock that congestion control reads or writes */
struct tcp_sock {
	struct inet_connection_sock inet_conn;
	u32 snd_una;
	u32 snd_nxt;
	u32 rcv_nxt;
	u32 lsndtime; /* jiffies of the last data sent (tcp_event_data_sent) */
	u32 mss_cache;
	u32 snd_cwnd;
	u32 snd_cwnd_cnt;
	u32 snd_cwnd_clamp;
	u32 snd_ssthresh;
	u32 prior_cwnd;
	u32 packets_out;
	u32 sacked_out;
	u32 lost_out;
	u32 retrans_out;
	u32 max_packets_out;
	u8 is_cwnd_limited;
	u32 app_limited;
	u32 delivered;
	u32 delivered_ce;
	u32 lost;
	u64 delivered_mstamp;
	u64 tcp_mstamp;
	u64 tcp_clock_cache;
	u64 tcp_wstamp_ns;
	u32 srtt_us;
	struct minmax rtt_min;
	u8 ecn_flags;
	struct tcp_options_received rx_opt;
};

/* 6.1.192 makes it container_of_const on the socket nested in the connection (linux/tcp.h:474):
 * the shim's tcp_sock begins with it, so the socket is the tcp_sock */
static inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

/* include/net/inet_ecn.h: the socket stops marking its packets ECN-capable */
#define INET_ECN_MASK 3
static inline void INET_ECN_dontxmit(struct sock *sk)
{
	sk->tos &= ~INET_ECN_MASK;
}

/* ---- TCP: include/net/tcp.h ---- */
/* GSO_LEGACY_MAX_SIZE, include/linux/netdevice.h:2334; MAX_TCP_HEADER = L1_CACHE_ALIGN(128 +
 * MAX_HEADER) (tcp.h:58) with Debian's config: MAX_HEADER = LL_MAX_HEADER 128 (HYPERV_NET)
 * + 48 (IP tunnels), netdevice.h:150-167; 64-byte cache lines (X86_L1_CACHE_SHIFT=6) */
#define GSO_LEGACY_MAX_SIZE 65536u
#define MAX_TCP_HEADER 320
#define TCP_INFINITE_SSTHRESH 0x7fffffff
#define TCP_INIT_CWND 10
#define TCP_RTO_MIN ((unsigned)(HZ / 5))
#define TCP_ECN_OK 1
#define TCP_ECN_QUEUE_CWR 2
#define TCP_ECN_DEMAND_CWR 4
#define TCP_ECN_SEEN 8

/* include/uapi/linux/tcp.h: enum tcp_ca_state */
enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4,
};
#define TCPF_CA_Open (1 << TCP_CA_Open)
#define TCPF_CA_Disorder (1 << TCP_CA_Disorder)
#define TCPF_CA_CWR (1 << TCP_CA_CWR)
#define TCPF_CA_Recovery (1 << TCP_CA_Recovery)
#define TCPF_CA_Loss (1 << TCP_CA_Loss)

enum tcp_ca_event {
	CA_EVENT_TX_START,
	CA_EVENT_CWND_RESTART,
	CA_EVENT_COMPLETE_CWR,
	CA_EVENT_LOSS,
	CA_EVENT_ECN_NO_CE,
	CA_EVENT_ECN_IS_CE,
};

enum tcp_ca_ack_event_flags {
	CA_ACK_SLOWPATH = (1 << 0),
	CA_ACK_WIN_UPDATE = (1 << 1),
	CA_ACK_ECE = (1 << 2),
};

#define TCP_CA_NAME_MAX 16
#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_CONG_NEEDS_ECN 0x2

union tcp_cc_info;

struct ack_sample {
	u32 pkts_acked;
	s32 rtt_us;
	u32 in_flight;
};

struct rate_sample {
	u64 prior_mstamp;
	u32 prior_delivered;
	u32 prior_delivered_ce;
	s32 delivered;
	s32 delivered_ce;
	long interval_us;
	u32 snd_interval_us;
	u32 rcv_interval_us;
	long rtt_us;
	int losses;
	u32 acked_sacked;
	u32 prior_in_flight;
	u32 last_end_seq;
	bool is_app_limited;
	bool is_retrans;
	bool is_ack_delayed;
};

struct tcp_congestion_ops {
	u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, u32 ack, u32 acked);
	void (*set_state)(struct sock *sk, u8 new_state);
	void (*cwnd_event)(struct sock *sk, enum tcp_ca_event ev);
	void (*in_ack_event)(struct sock *sk, u32 flags);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	u32 (*min_tso_segs)(struct sock *sk);
	void (*cong_control)(struct sock *sk, const struct rate_sample *rs);
	u32 (*undo_cwnd)(struct sock *sk);
	u32 (*sndbuf_expand)(struct sock *sk);
	size_t (*get_info)(struct sock *sk, u32 ext, int *attr, union tcp_cc_info *info);
	char name[TCP_CA_NAME_MAX];
	struct module *owner;
	u32 key;
	u32 flags;
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
};

int tcp_register_congestion_control(struct tcp_congestion_ops *type);
void tcp_unregister_congestion_control(struct tcp_congestion_ops *type);

/* net/ipv4/tcp_cong.c's Reno and the helpers the modules share, compiled from the package
 * (emusim/tcp_cong_reno.c, written by linux/extract.cmake) */
extern struct tcp_congestion_ops tcp_reno;
u32 tcp_slow_start(struct tcp_sock *tp, u32 acked);
void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w, u32 acked);
void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked);
u32 tcp_reno_ssthresh(struct sock *sk);
u32 tcp_reno_undo_cwnd(struct sock *sk);

/* what the connection does for a module: tcp_enter_cwr (net/ipv4/tcp_input.c) and
 * __tcp_send_ack (net/ipv4/tcp_output.c) are the socket's, reached through the bridge */
void tcp_enter_cwr(struct sock *sk);
void __tcp_send_ack(struct sock *sk, u32 rcv_nxt);

/* sequence-number order, wrapping (include/net/tcp.h:284) */
#define after(seq2, seq1) before(seq1, seq2)

/* the kernel's inline helpers: inet_csk, inet_csk_ca (include/net/inet_connection_sock.h);
 * before, between, tcp_min_rtt, tcp_time_stamp, tcp_stamp_us_delta, tcp_left_out,
 * tcp_packets_in_flight, tcp_snd_cwnd, tcp_snd_cwnd_set, tcp_in_slow_start,
 * tcp_in_initial_slowstart, tcp_in_cwnd_reduction, tcp_current_ssthresh, tcp_is_cwnd_limited
 * (include/net/tcp.h), as the package defines them */
#include <emusim/tcp-helpers.h>

/* No BPF program is attached to the hosts' cgroups: a sock_ops call replies 0
 * (tcp_call_bpf, tcp.h:2416-2438, with BPF_CGROUP_RUN_PROG_SOCK_OPS returning 0). */
#define BPF_SOCK_OPS_BASE_RTT 7
static inline int tcp_call_bpf(struct sock *sk, int op, u32 nargs, u32 *args)
{
	(void)sk;
	(void)op;
	(void)nargs;
	(void)args;
	return 0;
}

#endif /* EMUSIM_KERNEL_H */
