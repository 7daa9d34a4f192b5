"""The testbed driver without a testbed: inventory validation, command building, parsers of
captured tool output, the clock estimate, the consistency checks and the report's tables, each
against hand-worked values."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from emusim.backends.testbed import checks, host_tables, inventory, preflight, ssh
from emusim.core.paths import CONFIG_DIR, REPO_ROOT
from emusim.workloads import udp_blast

EXAMPLE = CONFIG_DIR / "testbed.example.yaml"
HOSTILE = [
    "two words",
    "it's",
    'say "hi"',
    "$(touch /tmp/emusim-pwned)",
    "`id`",
    "; rm -rf /nonexistent",
    "new\nline",
    "tab\there",
    "*",
    "\\",
    "",
    "--",
    "-x",
    "$HOME",
    "a|b&c>d<e",
]


def write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "inv.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def example() -> dict:
    return yaml.safe_load(EXAMPLE.read_text())


# --- inventory --------------------------------------------------------------------------------


def test_the_documented_example_is_valid():
    inv = inventory.load(EXAMPLE)
    assert inv.sender.ips == ("192.168.1.2",)
    assert inv.router.interfaces == ("eth2", "eth1")
    assert inv.receiver.ssh.host == "prague.lab.example.org"
    assert inv.receiver.ssh.identity_file == Path("~/.ssh/emusim_testbed").expanduser()
    assert inv.dropper_load == "present" and inv.offloads == "off"
    assert inv.clock_max_offset_ms == 50 and inv.max_attempts == 3


@pytest.mark.parametrize(
    "where",
    [("ssh",), ("hosts", "router", "ssh")],
)
def test_a_password_is_refused_naming_the_key(tmp_path, where):
    data = example()
    node = data
    for key in where:
        node = node[key]
    node["password"] = "hunter2"
    with pytest.raises(inventory.InventoryError) as err:
        inventory.load(write(tmp_path, data))
    msg = str(err.value)
    assert str(tmp_path / "inv.yaml") in msg and ".".join([*where, "password"]) in msg
    assert "passwords are not accepted" in msg and "hunter2" not in msg


def test_errors_name_file_key_and_value(tmp_path):
    data = example()
    data["hosts"]["sender"]["address"] = "192.168.1.2"  # no prefix length
    with pytest.raises(inventory.InventoryError, match=r"hosts\.sender\.address.*'192\.168\.1\.2'"):
        inventory.load(write(tmp_path, data))
    data = example()
    data["hosts"]["router"]["colour"] = "red"
    with pytest.raises(inventory.InventoryError, match=r"unknown key 'hosts\.router\.colour'"):
        inventory.load(write(tmp_path, data))
    data = example()
    data["dropper"]["load"] = "maybe"
    with pytest.raises(inventory.InventoryError, match=r"'dropper\.load' has value 'maybe'"):
        inventory.load(write(tmp_path, data))


def test_the_data_plane_must_be_two_subnets_and_ssh_must_not_use_it(tmp_path):
    data = example()
    data["hosts"]["receiver"]["address"] = "192.168.3.2/24"
    with pytest.raises(inventory.InventoryError, match="not one subnet"):
        inventory.load(write(tmp_path, data))
    data = example()
    data["hosts"]["receiver"]["ssh"]["host"] = "192.168.2.2"
    with pytest.raises(inventory.InventoryError, match="a data-plane address"):
        inventory.load(write(tmp_path, data))


def test_insmod_needs_the_module_path(tmp_path):
    data = example()
    data["dropper"] = {"load": "insmod"}
    with pytest.raises(inventory.InventoryError, match=r"dropper\.module"):
        inventory.load(write(tmp_path, data))


# --- commands ---------------------------------------------------------------------------------


def test_hostile_arguments_survive_a_posix_shell():
    # what the remote login shell does with the command string: split it back into words
    command = ssh.remote_command(["printf", "%s\\0", *HOSTILE])
    assert shlex.split(command) == ["printf", "%s\\0", *HOSTILE]
    out = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=True)
    assert out.stdout.split("\0")[:-1] == HOSTILE
    assert not Path("/tmp/emusim-pwned").exists()


def test_the_guard_passes_arguments_as_positional_parameters():
    command = ssh.remote_command(["printf", "%s\\0", *HOSTILE], guard=True)
    words = shlex.split(command)
    assert words[:3] == ["sh", "-c", ssh.GUARD_SCRIPT] and words[4:] == [
        "printf",
        "%s\\0",
        *HOSTILE,
    ]
    # the guard stops the command when its stdin ends (an SSH connection's end): here a pipe
    # held open until the command is done, whatever stdin the tests have (CI's is at its end)
    session, held = os.pipe()
    try:
        out = subprocess.run(
            ["sh", "-c", command], stdin=session, capture_output=True, text=True, check=True
        )
    finally:
        os.close(held)
        os.close(session)
    assert out.stdout.split("\0")[:-1] == HOSTILE


def test_ssh_options_never_prompt_and_check_host_keys():
    inv = inventory.load(EXAMPLE)
    argv = ssh.ssh_options(inv.router, Path("/tmp/x/router.sock"), 10)
    opts = {argv[i + 1] for i, a in enumerate(argv) if a == "-o"}
    assert {"BatchMode=yes", "StrictHostKeyChecking=yes", "IdentitiesOnly=yes"} <= opts
    assert "ControlPath=/tmp/x/router.sock" in opts and "ConnectTimeout=10" in opts
    assert argv[-4:] == ["-p", "22", "-l", "root"]
    remote = ssh.Remote(inv.router, Path("/tmp/x"), 10, 60)
    full = remote.ssh_argv(["echo", "a b"])
    assert full[-3:] == ["--", "dublin.lab.example.org", "echo 'a b'"]


# --- parsers of captured output ---------------------------------------------------------------

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Processor
cpu MHz\t\t: 2299.998

processor\t: 1
model name\t: Intel(R) Xeon(R) Processor
cpu MHz\t\t: 2299.998
"""
MEMINFO = "MemTotal:       24684112 kB\nMemFree:         1234 kB\nSwapTotal:       1048576 kB\n"
ETHTOOL = """Settings for eth1:
\tSupported ports: [  ]
\tSpeed: 10000Mb/s
\tDuplex: Full
\tAuto-negotiation: off
"""
ETHTOOL_UNKNOWN = "Settings for mgmt0:\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n"
FEATURES = """Features for eth1:
rx-checksumming: on
tx-checksumming: off
\ttx-checksum-ipv4: off [fixed]
scatter-gather: off
tcp-segmentation-offload: off
generic-segmentation-offload: off
generic-receive-offload: on
large-receive-offload: off [fixed]
"""
SYSCTLS = (
    "net.ipv4.ip_forward = 1\nnet.ipv4.tcp_rmem = 4096\t131072\t6291456\nnet.ipv4.tcp_sack = 1\n"
)
DROPPER = """rate 0.1
ip 192.168.2.2
mode random
every 0
dropped 1234
cutoff 6553
packets 12345
rng kernel
netns net:[4026531840]
"""


def test_host_fact_parsers():
    assert preflight.parse_cpuinfo(CPUINFO) == {
        "cpu": "Intel(R) Xeon(R) Processor",
        "cpu_mhz": 2299.998,
        "cpus": 2,
    }
    # 24684112 kB // 1024 = 24105 MB; 1048576 kB = 1024 MB
    assert preflight.parse_meminfo(MEMINFO) == {"memory_mb": 24105, "swap_mb": 1024}
    text = 'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'
    assert preflight.parse_os_release(text) == "Debian GNU/Linux 12 (bookworm)"
    assert preflight.parse_ethtool(ETHTOOL) == {"speed_mbps": 10000, "duplex": "full"}
    assert preflight.parse_ethtool(ETHTOOL_UNKNOWN)["speed_mbps"] is None
    features = preflight.parse_features(FEATURES)
    assert features["large-receive-offload"] == "off [fixed]"
    assert preflight.segmentation_on(features) == ["generic-receive-offload"]
    assert preflight.parse_sysctls(SYSCTLS) == {
        "net.ipv4.ip_forward": "1",
        "net.ipv4.tcp_rmem": "4096 131072 6291456",
        "net.ipv4.tcp_sack": "1",
    }
    state = preflight.parse_dropper(DROPPER)
    assert state["packets"] == "12345" and state["netns"] == "net:[4026531840]"


def test_sections_keep_each_commands_output_and_status():
    script = preflight.sections_script([("a", ["echo", "x y"]), ("b", ["sh", "-c", "exit 3"])])
    out = subprocess.run(script, capture_output=True, text=True, check=True).stdout
    assert preflight.parse_sections(out) == {"a": (0, "x y"), "b": (3, "")}


def test_clock_offset_takes_the_shortest_round_trip():
    # sent, host clock, received (s): the second sample has the shortest round trip (2 ms);
    # its midpoint is 100.001, the host read 100.004: 3 ms ahead, ± 1 ms
    samples = [(10.0, 10.5, 10.010), (100.0, 100.004, 100.002), (200.0, 190.0, 200.5)]
    got = preflight.clock_offset(samples)
    assert got["offset_ms"] == pytest.approx(3.0)
    assert got["uncertainty_ms"] == pytest.approx(1.0)
    assert got["round_trip_ms"] == pytest.approx(2.0) and got["probes"] == 3


def test_route_rows_are_the_reports_route_listing():
    row = host_tables.route_row(
        "madrid", {"dst": "192.168.2.0/24", "gateway": "192.168.1.1", "dev": "eth1"}, "pre.json"
    )
    assert (row["destination"], row["gateway"], row["genmask"], row["flags"], row["iface"]) == (
        "192.168.2.0",
        "192.168.1.1",
        "255.255.255.0",
        "UG",
        "eth1",
    )
    row = host_tables.route_row("x", {"dst": "default", "gateway": "10.0.0.1", "dev": "e"}, "s")
    assert (row["destination"], row["genmask"], row["flags"]) == ("0.0.0.0", "0.0.0.0", "UG")
    row = host_tables.route_row("x", {"dst": "10.1.2.3", "dev": "e"}, "s")
    assert (row["gateway"], row["genmask"], row["flags"]) == ("*", "255.255.255.255", "UH")


# --- consistency checks -----------------------------------------------------------------------


def test_regular_drops_must_be_exact():
    dropper = {"mode": "regular", "every_n": 10}
    # 5558 target packets, every 10th dropped: packets 10, 20, ..., 5550 = 555
    assert checks.drop_check(dropper, 5558, 555)["ok"]
    assert not checks.drop_check(dropper, 5558, 556)["ok"]
    assert checks.drop_check({"mode": "regular", "every_n": 0}, 5558, 0)["ok"]
    assert not checks.drop_check({"mode": "off"}, 100, 1)["ok"]


def test_random_drops_within_the_binomial_interval():
    dropper = {"mode": "random", "rate": "0.1"}
    # p = floor(0.1 x 65535) / 65536 = 6553/65536 = 0.09999; n = 10000: mean 999.9, SD
    # sqrt(n p (1-p)) = 30.0; the normal approximation of the 99.9 % interval is mean ± 3.29
    # SD = [901.2, 1098.6]; the binomial's skew (p < 1/2) moves its lower end up by a little
    got = checks.drop_check(dropper, 10000, 1000)
    assert got["ok"] and got["expected"] == pytest.approx(999.9, abs=0.01)
    low, high = got["interval"]
    assert abs(low - 901) <= 3 and abs(high - 1099) <= 3
    assert not checks.drop_check(dropper, 10000, 880)["ok"]
    assert not checks.drop_check(dropper, 10000, 1120)["ok"]


def test_robust_z_flags_an_elapsed_outlier_only_without_drops():
    accepted = [2.46, 2.47, 2.48]  # median 2.47, MAD 0.01
    # 0.6745 x (2.60 - 2.47) / 0.01 = 8.77 > 3.5; 0.6745 x 0.03 / 0.01 = 2.02
    assert checks.robust_z(2.60, accepted) == pytest.approx(8.7685)
    assert not checks.elapsed_check(2.60, accepted, dropper_active=False)["ok"]
    assert checks.elapsed_check(2.50, accepted, dropper_active=False)["ok"]
    assert checks.elapsed_check(2.60, accepted, dropper_active=True)["ok"]
    assert checks.elapsed_check(9.0, accepted[:2], dropper_active=False)["applied"] is False
    # identical runs: the MAD floor (0.1 % of the median) keeps 1 ms from being an outlier
    assert checks.elapsed_check(2.471, [2.47, 2.47, 2.47], dropper_active=False)["ok"]


def test_echoes_and_udp_losses():
    ping = {"kind": "ping", "count": 3}
    got = checks.run_checks(
        "ping", {"rtt_us": [1.0, 2.0], "packets_dropped": 0}, {"mode": "off"}, 0, [], ping
    )
    assert [c["check"] for c in got] == ["drops", "echoes"] and not got[1]["ok"]
    assert udp_blast.loss_check(lost=5, dropped=5)["ok"] and not udp_blast.loss_check(4, 5)["ok"]


# --- the report's tables from preflight facts ---------------------------------------------------


def fake_preflight() -> dict:
    def host(name, kernel, ifaces, sysctls, routes):
        return {
            "name": name,
            "hostname": name + ".lab",
            "kernel": kernel,
            "machine": "x86_64",
            "distribution": "Debian GNU/Linux 12 (bookworm)",
            "cpu": "Xeon",
            "cpu_mhz": 2300.0,
            "cpus": 4,
            "memory_mb": 8000,
            "swap_mb": 0,
            "tcp_sysctls": sysctls,
            "routes": routes,
            "interfaces": ifaces,
        }

    def iface(addr, mac="aa:bb:cc:dd:ee:ff"):
        return {"addresses": [addr], "mac": mac, "speed_mbps": 100, "driver": "e1000e"}

    end = {"net.ipv4.tcp_sack": "1", "net.ipv4.tcp_rmem": "4096 131072 6291456"}
    return {
        "testbed": {
            "hosts": {
                "sender": {"addresses": ["192.168.1.2/24"]},
                "router": {"addresses": ["192.168.1.1/24", "192.168.2.1/24"]},
                "receiver": {"addresses": ["192.168.2.2/24"]},
            }
        },
        "hosts": {
            "sender": host(
                "madrid",
                "6.1.0",
                {"eth0": iface("10.0.0.2/24"), "eth1": iface("192.168.1.2/24")},
                end,
                [{"dst": "192.168.2.0/24", "gateway": "192.168.1.1", "dev": "eth1"}],
            ),
            "router": host(
                "dublin",
                "6.1.0",
                {"eth1": iface("192.168.2.1/24"), "eth2": iface("192.168.1.1/24")},
                {"net.ipv4.tcp_sack": "1", "net.ipv4.ip_forward": "1"},
                [],
            ),
            "receiver": host("prague", "6.1.0", {"eth1": iface("192.168.2.2/24")}, end, []),
        },
    }


def test_tables_have_data_references_columns_and_mark_the_route():
    frames = host_tables.tables(fake_preflight(), "preflight.json")
    for name in ("hosts", "interfaces", "routes", "tcp_sysctls"):
        ref = (REPO_ROOT / "data/reference" / f"{name}.csv").read_text()
        assert list(frames[name].columns) == ref.splitlines()[0].split(","), name
    hosts = frames["hosts"]
    assert list(hosts["role"]) == ["sender", "router", "receiver"]
    assert list(hosts["host"]) == ["madrid", "dublin", "prague"]
    ifs = frames["interfaces"].set_index(["host", "interface"])
    assert ifs.loc[("madrid", "eth0"), "notes"] == ""
    assert ifs.loc[("dublin", "eth1"), "notes"].endswith("router egress, where the dropper acts")
    assert ifs.loc[("dublin", "eth2"), "notes"].endswith("router ingress, from the sender")
    assert ifs.loc[("madrid", "eth1"), "mac"] == "AA:BB:CC:DD:EE:FF"
    sysctls = frames["tcp_sysctls"]
    # sender and receiver have the same kernel and values: one group, Table 1.4, as the report
    assert set(sysctls["hosts"]) == {"dublin", "madrid,prague"}
    assert set(sysctls.loc[sysctls["hosts"] == "dublin", "table"]) == {"1.3"}
    assert "ip_forward" not in set(sysctls["key"])
    row = sysctls[(sysctls["hosts"] == "madrid,prague") & (sysctls["key"] == "tcp_rmem")]
    assert list(row["value"]) == ["4096 131072 6291456"]
    routes = frames["routes"]
    assert list(routes["flags"]) == ["UG"] and list(routes["host"]) == ["madrid"]


def test_paper_tables_read_the_testbeds_tables():
    from emusim.report import setup_tables

    frames = host_tables.tables(fake_preflight(), "preflight.json")
    hosts = setup_tables.hosts_table(frames["hosts"])
    assert list(hosts["CPU"]) == ["Xeon 2300 MHz"] * 3
    route = setup_tables.route_interfaces_table(frames["interfaces"])
    assert list(route["address"]) == [
        "192.168.1.2/24",
        "192.168.2.1/24",
        "192.168.1.1/24",
        "192.168.2.2/24",
    ]


# --- the workflow with a testbed (dry run) ------------------------------------------------------


def dry_run(tmp_path: Path, inventory_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-n",
            "--nolock",
            "--config",
            "scale=quick",
            "backends=[hardware]",
            "scenarios=[regular-drop]",
            f"hardware={{source: testbed, inventory: {inventory_path}}}",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_workflow_runs_the_hardware_on_the_testbed(tmp_path):
    proc = dry_run(tmp_path, EXAMPLE)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    jobs = proc.stdout
    # one batch for the scenario and one for the ping sweep the delay fit needs
    assert "rule testbed_batch:" in jobs and jobs.count("wildcards: scenario=") >= 2
    assert "rule hardware_reference:" not in jobs
    # the paper's Tables 1.1 and 1.2 and its host numbers come from the testbed's preflight
    for rule in ("paper_tables", "paper_numbers"):
        block = jobs.split(f"rule {rule}:")[1].split("\n")[1]
        assert "results/hardware/testbed/hosts.csv" in block, block
        assert "data/reference/hosts.csv" not in block


def test_the_workflow_refuses_an_inventory_with_a_password(tmp_path):
    data = example()
    data["hosts"]["router"]["ssh"]["password"] = "hunter2"
    proc = dry_run(tmp_path, write(tmp_path, data))
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "hosts.router.ssh.password" in out and "passwords are not accepted" in out


def test_the_dropper_target_is_the_inventorys_receiver():
    from emusim.backends.testbed import execute

    inv = inventory.load(EXAMPLE)
    topo = {"hosts": {"receiver": {"address": "10.9.9.9"}}}
    assert execute.dropper_target("10.9.9.9", topo, inv) == "192.168.2.2"
    with pytest.raises(execute.BatchError, match="not its receiver"):
        execute.dropper_target("10.9.9.8", topo, inv)


def test_a_plan_skips_the_runs_already_written(tmp_path):
    from emusim.backends.testbed import execute
    from emusim.inputs import scenario as sc

    s = sc.load("regular-drop", "quick")  # 4 points x 2 repetitions
    done = execute.run_path(tmp_path, s.name, s.points[1].id, 2)
    done.parent.mkdir(parents=True)
    done.write_text("{}")
    plan = execute.make_plan(s, tmp_path)
    assert len(plan["runs"]) == 7 and [e["path"] for e in plan["skipped"]] == [str(done)]
    assert str(done).endswith(f"hardware/regular-drop/native/{s.points[1].id}/run2.json")


@pytest.mark.parametrize(
    ("name", "key"),
    [("lossy-link", "topology.hosts.router2"), ("ecn-marking", "topology.hosts.router2")],
)
def test_a_scenario_beyond_the_three_hosts_is_refused_before_any_run(tmp_path, name, key):
    from emusim.backends.testbed import execute
    from emusim.inputs import scenario as sc

    s = sc.load(name, "quick")
    with pytest.raises(execute.BatchError, match=rf"{name}\.yaml: key '{key}'"):
        execute.make_plan(s, tmp_path)
    assert not any(tmp_path.iterdir())  # nothing planned, nothing written


@pytest.mark.parametrize(
    ("keys", "value"),
    [
        (("topology", "aqm"), {"kind": "codel"}),
        (("topology", "access_rate_Mbps"), 100),
        (("impairment", "link"), {"loss": "0.01"}),
    ],
)
def test_each_key_the_testbed_cannot_give_is_named_with_its_value(tmp_path, keys, value):
    from dataclasses import replace

    from emusim.backends.testbed import execute
    from emusim.inputs import scenario as sc

    s = sc.load("regular-drop", "quick")
    settings = {**s.settings, keys[0]: {**s.settings[keys[0]], keys[1]: value}}
    with pytest.raises(execute.BatchError) as err:
        execute.make_plan(replace(s, settings=settings), tmp_path)
    assert f"key '{'.'.join(keys)}' ({value!r})" in str(err.value)
    assert str(s.path) in str(err.value)


def test_the_dropper_build_dir_must_suit_kbuild(tmp_path):
    data = example()
    data["dropper"] = {"load": "build", "source_dir": "/var/tmp/router's dropper"}
    with pytest.raises(inventory.InventoryError, match=r"'dropper\.source_dir' has value"):
        inventory.load(write(tmp_path, data))


def test_the_guard_keeps_the_exit_status_and_stops_the_command_at_end_of_input():
    keep = ssh.remote_command(["sh", "-c", "exit 7"], guard=True)
    proc = subprocess.Popen(["sh", "-c", keep], stdin=subprocess.PIPE)
    assert proc.wait(timeout=30) == 7  # input still open: the command ran to its end
    proc.stdin.close()
    stop = ssh.remote_command(["sleep", "30"], guard=True)
    t0 = time.monotonic()
    done = subprocess.run(["sh", "-c", stop], stdin=subprocess.DEVNULL, timeout=30)
    # end of input at once: SIGTERM (128 + 15) long before the 30 s
    assert done.returncode == 143 and time.monotonic() - t0 < 10
