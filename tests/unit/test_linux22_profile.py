"""The linux-2.2 profile's classes written for issue 18: the profile, the ablation's stand-in
steps and the repetitions a random tick phase asks for (no ns-3 run here)."""

import pytest

from emusim.backends.ns3 import command as ns3
from emusim.inputs import scenario, tcp_profiles

NEW_CLASSES = {
    "ns3::TcpL4Protocol::SocketType": "ns3::TcpLinux22",
    "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpLinux22Recovery",
    "ns3::TcpBlastClient::SocketType": "ns3::TcpLinux22Socket",
    "ns3::TcpBlastServer::SocketType": "ns3::TcpLinux22Socket",
}


def test_the_linux_2_2_profile_uses_the_classes_written_here():
    attrs = tcp_profiles.get("linux-2.2").ns3_attributes()
    for key, value in NEW_CLASSES.items():
        assert attrs[key] == value
    assert attrs["ns3::TcpLinux22Socket::TickPhase"].startswith("ns3::UniformRandomVariable[")
    assert attrs["ns3::TcpLinux22Socket::FackRetransmit"] == "true"


def test_the_attribute_only_model_is_an_ablation_step():
    steps = tcp_profiles.ablation()
    names = [s.parameter for s in steps]
    # the old choice first, the classes last: the step before them is the model of issues 3-5
    assert names[1:3] == ["congestion control (stand-in)", "loss recovery (stand-in)"]
    assert names[-5:] == [
        "congestion control",
        "loss recovery",
        "timers and timeout",
        "tick phase",
        "FACK retransmission",
    ]
    old = steps[-6].profile.ns3_attributes()
    assert old["ns3::TcpL4Protocol::SocketType"] == "ns3::TcpLinuxReno"
    assert old["ns3::TcpL4Protocol::RecoveryType"] == "ns3::TcpClassicRecovery"
    assert "ns3::TcpBlastClient::SocketType" not in old
    # every other linux-2.2 attribute is there already
    target = tcp_profiles.get("linux-2.2").ns3_attributes()
    new_keys = set(NEW_CLASSES) | {
        "ns3::TcpLinux22Socket::TickPhase",
        "ns3::TcpLinux22Socket::FackRetransmit",
    }
    assert {k: v for k, v in old.items() if k not in new_keys} == {
        k: v for k, v in target.items() if k not in new_keys
    }
    # the target's own parameter replaces the stand-in at its step
    assert steps[-5].profile.ns3_attributes()["ns3::TcpL4Protocol::SocketType"] == (
        "ns3::TcpLinux22"
    )
    assert steps[-1].profile.name == "linux-2.2"


def _registry_with(tmp_path, old, new):
    text = tcp_profiles.PROFILES_PATH.read_text()
    assert old in text
    path = tmp_path / "profiles.yaml"
    path.write_text(text.replace(old, new))
    return path


def test_the_order_must_name_each_stand_in(tmp_path):
    path = _registry_with(tmp_path, "    - loss recovery (stand-in)\n", "")
    with pytest.raises(ValueError, match=r"missing \['loss recovery \(stand-in\)'\]"):
        tcp_profiles.ablation(path)


def test_the_order_may_not_end_with_a_stand_in(tmp_path):
    path = _registry_with(
        tmp_path,
        "    - FACK retransmission\n",
        "    - FACK retransmission\n    - congestion control (stand-in)\n",
    )
    text = path.read_text().replace("  order:\n    - congestion control (stand-in)\n", "  order:\n")
    path.write_text(text)
    with pytest.raises(ValueError, match=r"must end with a parameter of linux-2.2"):
        tcp_profiles.ablation(path)


def test_only_a_random_attribute_draws_random_numbers():
    assert tcp_profiles.get("linux-2.2").draws_random_numbers()
    assert not tcp_profiles.get("ns3-default").draws_random_numbers()
    assert not tcp_profiles.get("linux-6.1").draws_random_numbers()
    # the step before the tick phase: the classes with the constant default phase
    before = next(st for st in tcp_profiles.ablation() if st.parameter == "timers and timeout")
    assert not before.profile.draws_random_numbers()


def test_a_random_tick_phase_repeats_regular_dropper_points():
    s = scenario.load("regular-drop", "quick")
    regular = s.point("drop_rate=0.05+every_n=20")
    assert ns3.repetitions_to_run(regular, 3, False, tcp_profiles.get("linux-2.2")) == [1, 2, 3]
    assert ns3.repetitions_to_run(regular, 3, False, tcp_profiles.get("ns3-default")) == [1]
    assert ns3.repetitions_to_run(regular, 3, False) == [1]


def test_the_tick_phase_counts_only_where_the_runs_use_tcp():
    linux22 = tcp_profiles.get("linux-2.2")
    blast = scenario.load("regular-drop", "paper")
    regular = blast.point("drop_rate=0.05+every_n=20")
    assert ns3.scenario_repetitions(blast, regular, linux22, 10, False) == list(range(1, 11))
    assert ns3.scenario_repetitions(blast, regular, tcp_profiles.get("ns3-default"), 10, False) == [
        1
    ]
    pings = scenario.load("ping-sweep", "paper")
    assert ns3.scenario_repetitions(pings, pings.points[0], linux22, 10, False) == [1]
    udp = scenario.load("baseline-udp", "paper")
    assert ns3.scenario_repetitions(udp, udp.points[0], linux22, 15, False) == [1]
