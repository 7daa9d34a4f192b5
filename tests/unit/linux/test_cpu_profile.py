"""Samples per component of the packet's path (emusim.linux.cpu_profile): perf's report read
back, and kernel 6.1 functions put in the component whose work they do. No perf needed."""

from emusim.linux import cpu_profile

REPORT = """\
# Samples: 1K of event 'cpu-clock'
# Event count (approx.): 100000000
#
# Overhead       Samples  Symbol
# ........  ............  ..............................
#
    40.00%           400  [k] csum_partial_copy_generic
    20.00%           200  [k] netem_enqueue
    10.00%           100  [k] tcp_sendmsg_locked
     5.00%            50  [k] tcp_rcv_established
     5.00%            50  [k] veth_xmit
     5.00%            50  [k] dropper_hook
     5.00%            50  [.] write_all
     5.00%            50  [k] __alloc_skb
     3.00%            30  [k] default_idle
     2.00%            20  [k] some_unknown_function
"""


def test_the_report_is_read_per_symbol():
    counts = cpu_profile.parse_report(REPORT)
    assert counts["[k] csum_partial_copy_generic"] == 400
    assert counts["[.] write_all"] == 50
    assert sum(counts.values()) == 1000 and len(counts) == 10


def test_functions_go_to_their_component():
    expect = {
        "[k] csum_partial_copy_generic": "checksum",
        "[k] netem_enqueue": "qdisc (netem, HTB, FIFO)",
        "[k] htb_dequeue": "qdisc (netem, HTB, FIFO)",
        "[k] tcp_sendmsg_locked": "TCP send side",
        "[k] tcp_ack": "TCP send side",
        "[k] tcp_rcv_established": "TCP receive side",
        "[k] tcp_v4_rcv": "TCP, both sides",
        "[k] veth_xmit": "veth and device layer",
        "[k] dropper_hook": "dropper and netfilter",
        "[k] ipt_do_table": "dropper and netfilter",
        "[k] br_handle_frame": "bridge or switch",
        "[k] ip_forward": "IP and routing",
        "[k] __alloc_skb": "socket buffers and memory",
        "[k] default_idle": "idle",
        "[.] write_all": "user space",
        "[k] copy_user_enhanced_fast_string": "copy to/from user",
        "[k] some_unknown_function": "system calls and other kernel",
        # a compiler's clone is its function's
        "[k] __netif_receive_skb_core.constprop.0": "veth and device layer",
        "[k] finish_task_switch.isra.0": "interrupts, timers, scheduler",
    }
    assert {s: cpu_profile.component_of(s) for s in expect} == expect


def test_components_sum_the_samples_and_keep_every_component():
    by = cpu_profile.components(cpu_profile.parse_report(REPORT))
    assert list(by) == [name for name, _ in cpu_profile.COMPONENTS]
    assert by["checksum"] == 400 and by["qdisc (netem, HTB, FIFO)"] == 200
    assert sum(by.values()) == 1000
    top = cpu_profile.summary(cpu_profile.parse_report(REPORT), top=2)["top_symbols"]
    assert [t["symbol"] for t in top] == ["[k] csum_partial_copy_generic", "[k] netem_enqueue"]
    assert cpu_profile.summary(cpu_profile.parse_report(REPORT))["symbols"]["[.] write_all"] == 50
