"""What the blast tools print, parsed once for the emulation and the testbed."""

from emusim.linux import blast_output


def test_the_last_json_line_is_the_result():
    text = 'progress 10%\n{"a": 1}\nnoise\n{"a": 2, "b": [3]}\n'
    assert blast_output.last_json(text) == {"a": 2, "b": [3]}
    assert blast_output.last_json("READY\nno result\n") is None


def test_netstat_pairs_become_prefixed_counters():
    text = "TcpExt: SyncookiesSent DelayedACKs\nTcpExt: 0 17\nIpExt: InOctets\nIpExt: 4096\n"
    assert blast_output.parse_netstat(text) == {
        "TcpExt.SyncookiesSent": 0,
        "TcpExt.DelayedACKs": 17,
        "IpExt.InOctets": 4096,
    }


def test_udp_blast_metrics_count_the_lost_datagrams():
    sent = {"elapsed_s": 1.5, "datagrams_sent": 1000, "datagram_size_B": 1472, "send_errors": 0}
    received = {"datagrams_received": 990, "end": "idle"}
    assert blast_output.udp_blast_metrics(sent, received) == {
        "elapsed_s": 1.5,
        "datagrams_sent": 1000,
        "datagrams_received": 990,
        "datagrams_lost": 10,
        "datagram_size_B": 1472,
    }
