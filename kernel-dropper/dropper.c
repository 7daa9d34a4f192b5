// SPDX-License-Identifier: GPL-2.0
/*
 * dropper - the 2001 UNH packet dropper as a netfilter module
 *
 * The report's dropper patched dev_queue_xmit() of a 2.4 kernel: every IPv4
 * packet to one target address was dropped at random (a 16-bit random number
 * below rate * 65535) or regularly (every N-th one).  This module makes the
 * same decision in the last IPv4 hook before a packet is handed to the
 * neighbour layer and the device queue (NF_INET_POST_ROUTING, forwarded and
 * locally generated packets alike), and keeps the report's /proc interface:
 *
 *   /proc/dropperInfo/dropper     read: the settings and counters
 *                                 write: "RATE IP", "mode random|regular",
 *                                        "every N"
 *   /proc/dropperInfo/numDropped  read: drops since the last reset
 *                                 write: "reset"
 *
 * The decision itself lives in dropper_decision.h (spec/drop-decision.md).
 * The dropper acts in one network namespace: the initial one at load, then
 * the one of the process that last wrote to /proc/dropperInfo/dropper.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/init.h>
#include <linux/ip.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/nsproxy.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#endif

#include "dropper_decision.h"

static char *param_rate = "0";
module_param_named(rate, param_rate, charp, 0444);
MODULE_PARM_DESC(rate, "Initial drop rate of random mode, 0 to 1 (default 0)");

static char *param_target = "192.168.2.2";
module_param_named(target, param_target, charp, 0444);
MODULE_PARM_DESC(target, "Initial target IPv4 address (default 192.168.2.2)");

static char *param_mode = "random";
module_param_named(mode, param_mode, charp, 0444);
MODULE_PARM_DESC(mode, "Initial mode: random or regular (default random)");

static uint param_every;
module_param_named(every, param_every, uint, 0444);
MODULE_PARM_DESC(every, "Initial N of regular mode, every N-th target packet dropped (0 none)");

static char *param_rng = "kernel";
module_param_named(rng, param_rng, charp, 0444);
MODULE_PARM_DESC(rng,
		 "Random numbers: kernel (default) or tsc, the report's byte-swapped cycle counter (x86; to study its quality)");

enum dropper_rng {
	DROPPER_RNG_KERNEL,
	DROPPER_RNG_TSC,
};

/*
 * The settings the packet path reads, replaced as a whole under RCU so that
 * a packet sees either the old or the new settings, never a mixture.
 */
struct dropper_config {
	struct net *net;	/* where the dropper acts; compared, never used */
	unsigned int netns_inum;
	__be32 target;
	enum dropper_mode mode;
	u32 rate_e9;
	u32 cutoff;
	u32 every;
	atomic_t pos;		/* regular mode: target packets since a drop */
	struct rcu_head rcu;
};

static struct dropper_config __rcu *dropper_config;
static DEFINE_MUTEX(dropper_config_mutex);	/* serialises replacements */
static struct kmem_cache *dropper_config_cache;
static enum dropper_rng dropper_rng __read_mostly;

static atomic64_t dropper_seen = ATOMIC64_INIT(0);	/* target packets */
static atomic64_t dropper_dropped = ATOMIC64_INIT(0);	/* since load */
static atomic64_t dropper_dropped_since_reset = ATOMIC64_INIT(0);

static struct proc_dir_entry *dropper_proc_dir;

static u16 dropper_random(void)
{
#ifdef CONFIG_X86
	if (dropper_rng == DROPPER_RNG_TSC)
		return dropper_tsc_random(rdtsc());
#endif
	return (u16)get_random_u32();
}

static bool dropper_decide(struct dropper_config *cfg)
{
	int pos, next;

	if (cfg->mode == DROPPER_MODE_RANDOM)
		return dropper_random_drop(cfg->cutoff, dropper_random());

	/* Regular mode: exactly every N-th target packet, on any CPU. */
	pos = atomic_read(&cfg->pos);
	do {
		next = dropper_regular_next(cfg->every, pos);
	} while (!atomic_try_cmpxchg(&cfg->pos, &pos, next));
	return dropper_regular_drop(cfg->every, pos);
}

static unsigned int dropper_hook(void *priv, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	struct dropper_config *cfg;
	unsigned int verdict = NF_ACCEPT;

	rcu_read_lock();
	cfg = rcu_dereference(dropper_config);
	if (READ_ONCE(cfg->net) != state->net || ip_hdr(skb)->daddr != cfg->target)
		goto out;
	atomic64_inc(&dropper_seen);
	if (dropper_decide(cfg)) {
		atomic64_inc(&dropper_dropped);
		atomic64_inc(&dropper_dropped_since_reset);
		verdict = NF_DROP;
	}
out:
	rcu_read_unlock();
	return verdict;
}

static const struct nf_hook_ops dropper_nf_ops[] = {
	{
		.hook		= dropper_hook,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_POST_ROUTING,
		.priority	= NF_IP_PRI_LAST,
	},
};

static void dropper_config_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(dropper_config_cache,
			container_of(head, struct dropper_config, rcu));
}

static void dropper_bind(struct dropper_config *cfg, struct net *net)
{
	cfg->net = net;
	cfg->netns_inum = net ? net->ns.inum : 0;
}

/* Publish @cfg; the caller holds dropper_config_mutex. */
static void dropper_config_replace(struct dropper_config *cfg)
{
	struct dropper_config *old;

	atomic_set(&cfg->pos, 0);
	old = rcu_replace_pointer(dropper_config, cfg,
				  lockdep_is_held(&dropper_config_mutex));
	if (old)
		call_rcu(&old->rcu, dropper_config_free_rcu);
}

static void dropper_apply(struct dropper_config *cfg,
			  const struct dropper_request *req)
{
	switch (req->command) {
	case DROPPER_SET_RATE_TARGET:
		cfg->rate_e9 = req->rate_e9;
		cfg->cutoff = dropper_cutoff(req->rate_e9);
		memcpy(&cfg->target, req->target, sizeof(cfg->target));
		break;
	case DROPPER_SET_MODE:
		cfg->mode = req->mode;
		break;
	case DROPPER_SET_EVERY:
		cfg->every = req->every;
		break;
	}
}

static int dropper_show(struct seq_file *m, void *v)
{
	char rate_str[DROPPER_RATE_STRLEN];
	struct dropper_config *cfg;

	rcu_read_lock();
	cfg = rcu_dereference(dropper_config);
	dropper_format_rate(cfg->rate_e9, rate_str);
	seq_printf(m, "rate %s\n", rate_str);
	seq_printf(m, "ip %pI4\n", &cfg->target);
	seq_printf(m, "mode %s\n",
		   cfg->mode == DROPPER_MODE_REGULAR ? "regular" : "random");
	seq_printf(m, "every %u\n", cfg->every);
	seq_printf(m, "dropped %lld\n", atomic64_read(&dropper_dropped));
	seq_printf(m, "cutoff %u\n", cfg->cutoff);
	seq_printf(m, "packets %lld\n", atomic64_read(&dropper_seen));
	seq_printf(m, "rng %s\n",
		   dropper_rng == DROPPER_RNG_TSC ? "tsc" : "kernel");
	if (READ_ONCE(cfg->net))
		seq_printf(m, "netns net:[%u]\n", READ_ONCE(cfg->netns_inum));
	else
		seq_puts(m, "netns none\n");
	rcu_read_unlock();
	return 0;
}

static int dropper_open(struct inode *inode, struct file *file)
{
	return single_open(file, dropper_show, NULL);
}

/* Copy a whole command from userspace: one write, one command. */
static char *dropper_copy_command(struct file *file, const char __user *ubuf,
				  size_t count)
{
	if (!file_ns_capable(file, &init_user_ns, CAP_NET_ADMIN))
		return ERR_PTR(-EPERM);
	if (count == 0 || count > DROPPER_WRITE_MAX)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(ubuf, count);
}

static ssize_t dropper_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct dropper_request req;
	struct dropper_config *cfg;
	char *buf;
	int err;

	buf = dropper_copy_command(file, ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = dropper_parse_command(buf, count, &req);
	kfree(buf);
	if (err)
		return err;

	cfg = kmem_cache_alloc(dropper_config_cache, GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	mutex_lock(&dropper_config_mutex);
	*cfg = *rcu_dereference_protected(dropper_config,
					  lockdep_is_held(&dropper_config_mutex));
	dropper_apply(cfg, &req);
	dropper_bind(cfg, current->nsproxy->net_ns);
	dropper_config_replace(cfg);
	mutex_unlock(&dropper_config_mutex);
	return count;
}

static const struct proc_ops dropper_proc_ops = {
	.proc_open	= dropper_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= dropper_write,
};

static int num_dropped_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%lld\n", atomic64_read(&dropper_dropped_since_reset));
	return 0;
}

static int num_dropped_open(struct inode *inode, struct file *file)
{
	return single_open(file, num_dropped_show, NULL);
}

static ssize_t num_dropped_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char *buf;
	int err;

	buf = dropper_copy_command(file, ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = dropper_parse_reset(buf, count);
	kfree(buf);
	if (err)
		return err;
	atomic64_set(&dropper_dropped_since_reset, 0);
	return count;
}

static const struct proc_ops num_dropped_proc_ops = {
	.proc_open	= num_dropped_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= num_dropped_write,
};

static int __net_init dropper_net_init(struct net *net)
{
	return nf_register_net_hooks(net, dropper_nf_ops,
				     ARRAY_SIZE(dropper_nf_ops));
}

static void __net_exit dropper_net_exit(struct net *net)
{
	struct dropper_config *cfg;

	nf_unregister_net_hooks(net, dropper_nf_ops, ARRAY_SIZE(dropper_nf_ops));

	/* A namespace that goes away unbinds the dropper: no stale pointer. */
	mutex_lock(&dropper_config_mutex);
	cfg = rcu_dereference_protected(dropper_config,
					lockdep_is_held(&dropper_config_mutex));
	if (cfg && cfg->net == net) {
		WRITE_ONCE(cfg->net, NULL);
		WRITE_ONCE(cfg->netns_inum, 0);
	}
	mutex_unlock(&dropper_config_mutex);
}

static struct pernet_operations dropper_net_ops = {
	.init = dropper_net_init,
	.exit = dropper_net_exit,
};

/* Check the module parameters and turn them into the initial settings. */
static int dropper_parse_params(struct dropper_config *cfg)
{
	struct dropper_request req = { .command = DROPPER_SET_RATE_TARGET };

	if (dropper_parse_rate(param_rate, &req.rate_e9)) {
		pr_err("invalid rate=%s (a decimal from 0 to 1)\n", param_rate);
		return -EINVAL;
	}
	if (dropper_parse_ipv4(param_target, req.target)) {
		pr_err("invalid target=%s (a dotted-quad IPv4 address)\n",
		       param_target);
		return -EINVAL;
	}
	if (strcmp(param_mode, "random") == 0) {
		cfg->mode = DROPPER_MODE_RANDOM;
	} else if (strcmp(param_mode, "regular") == 0) {
		cfg->mode = DROPPER_MODE_REGULAR;
	} else {
		pr_err("invalid mode=%s (random or regular)\n", param_mode);
		return -EINVAL;
	}
	if (strcmp(param_rng, "kernel") == 0) {
		dropper_rng = DROPPER_RNG_KERNEL;
	} else if (IS_ENABLED(CONFIG_X86) && strcmp(param_rng, "tsc") == 0) {
		dropper_rng = DROPPER_RNG_TSC;
	} else {
		pr_err("invalid rng=%s (kernel, or tsc on x86)\n", param_rng);
		return -EINVAL;
	}
	dropper_apply(cfg, &req);
	cfg->every = param_every;
	dropper_bind(cfg, &init_net);
	return 0;
}

static int __init dropper_init(void)
{
	struct dropper_config initial = {}, *cfg;
	struct proc_dir_entry *entry;
	int err;

	err = dropper_parse_params(&initial);
	if (err)
		return err;

	dropper_config_cache = KMEM_CACHE(dropper_config, 0);
	if (!dropper_config_cache)
		return -ENOMEM;

	cfg = kmem_cache_alloc(dropper_config_cache, GFP_KERNEL);
	if (!cfg) {
		err = -ENOMEM;
		goto err_cache;
	}
	*cfg = initial;
	mutex_lock(&dropper_config_mutex);
	dropper_config_replace(cfg);
	mutex_unlock(&dropper_config_mutex);

	err = register_pernet_subsys(&dropper_net_ops);
	if (err)
		goto err_config;

	err = -ENOMEM;
	dropper_proc_dir = proc_mkdir("dropperInfo", NULL);
	if (!dropper_proc_dir)
		goto err_pernet;
	entry = proc_create("dropper", 0644, dropper_proc_dir,
			    &dropper_proc_ops);
	if (!entry)
		goto err_proc;
	entry = proc_create("numDropped", 0644, dropper_proc_dir,
			    &num_dropped_proc_ops);
	if (!entry)
		goto err_proc;

	pr_info("loaded: mode %s, target %s, rate %s, every %u, rng %s\n",
		param_mode, param_target, param_rate, param_every, param_rng);
	return 0;

err_proc:
	proc_remove(dropper_proc_dir);
err_pernet:
	unregister_pernet_subsys(&dropper_net_ops);
err_config:
	kmem_cache_free(dropper_config_cache,
			rcu_replace_pointer(dropper_config, NULL, true));
	rcu_barrier();	/* settings replaced by an early write */
err_cache:
	kmem_cache_destroy(dropper_config_cache);
	return err;
}

static void __exit dropper_exit(void)
{
	/* No new writes or reads, then no packet in the hook, then free. */
	proc_remove(dropper_proc_dir);
	unregister_pernet_subsys(&dropper_net_ops);
	kmem_cache_free(dropper_config_cache,
			rcu_replace_pointer(dropper_config, NULL, true));
	rcu_barrier();	/* configurations still waiting for a grace period */
	kmem_cache_destroy(dropper_config_cache);
	pr_info("unloaded, %lld packets dropped\n",
		atomic64_read(&dropper_dropped));
}

module_init(dropper_init);
module_exit(dropper_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("emusim; after Glenn Herrin and Chaoxing Lin (UNH, 2001)");
MODULE_DESCRIPTION("Random and regular IPv4 packet dropper with the 2001 UNH /proc interface");
