"""The TCP variant registry and the variant axis: against the implementations that exist (ns-3
3.44's headers in the wheel, the modules of Debian's kernel) and hand-written expectations."""

import re
from pathlib import Path

import pytest
import yaml

from emusim.backends.ns3 import build as ns3build
from emusim.inputs import scenario as sc
from emusim.inputs import tcp_profiles, variants
from emusim.inputs.scenario import ScenarioError

REGISTRY = variants.registry()

# Read off ns-3 3.44 (include/ns3/tcp-*.h) and Debian 12's linux-image-6.1.0-*-amd64
# (kernel/net/ipv4/tcp_*.ko, cubic and reno built in) when the registry was written; issue 30
# compiled Linux's modules into ns-3 (ns3: linux), all but bbr (cong_control) and cdg
# (tcp_enter_cwr); issue 55 both (bbr: cong_control, the rate sampler and the pacing clock;
# cdg: CWR carried by TcpLinuxSocket), and ns-3's own classes stay as ns3-NAME models of the
# Linux variants.
LINUX_CODE = {
    "reno", "cubic", "bic", "highspeed", "htcp", "hybla", "illinois", "scalable", "vegas",
    "veno", "westwood", "yeah", "lp", "nv", "bbr", "cdg",
}  # fmt: skip
BOTH = LINUX_CODE
NS3_ONLY = {"newreno", "ledbat", "fast"}
NS3_MODELS = {f"ns3-{n}" for n in LINUX_CODE - {"nv", "cdg"}}
"""ns-3 has a class of its own for every carried algorithm but nv and cdg"""


def test_the_registry_holds_what_each_side_ships():
    # at least these (a variant added later joins one of the three), each on its sides only
    both = {n for n, v in REGISTRY.items() if v.ns3 and v.linux}
    assert both >= BOTH
    assert {n for n, v in REGISTRY.items() if v.ns3 and not v.linux} >= NS3_ONLY | NS3_MODELS
    assert all(v.ns3 or v.linux for v in REGISTRY.values())
    assert {
        n for n, v in REGISTRY.items() if (v.ns3 is not None and v.ns3.linux_code)
    } >= LINUX_CODE
    # each model names the Linux variant whose name it carries
    assert {n: REGISTRY[n].models for n in NS3_MODELS} == {n: n[4:] for n in NS3_MODELS}


def _cmake_modules() -> set[str]:
    """LINUX_CC_MODULES of sim/ns3/CMakeLists.txt: the modules the ns-3 build compiles."""
    text = (ns3build.NS3_SOURCE_DIR / "CMakeLists.txt").read_text()
    block = text.split("set(LINUX_CC_MODULES", 1)[1].split(")", 1)[0]
    return set(block.split())


def test_every_linux_code_variant_is_a_module_the_ns3_build_compiles():
    compiled = _cmake_modules()
    for name, v in REGISTRY.items():
        if (v.ns3 is not None and v.ns3.linux_code) and v.linux.module is not None:
            assert v.linux.module.removeprefix("tcp_") in compiled, (name, v.linux.module)


LINUX_TREE = ns3build.NS3_BUILD_DIR / "linux-source" / "net" / "ipv4"


@pytest.mark.skipif(not LINUX_TREE.is_dir(), reason="the ns-3 part is not built")
def test_linux_code_variants_name_what_the_modules_register():
    # the module's own struct tcp_congestion_ops, in the source the build took from Debian's
    # package: its .name is the variant's congestion_control, TCP_CONG_NEEDS_ECN its `ecn`
    for name, v in REGISTRY.items():
        if not (v.ns3 is not None and v.ns3.linux_code) or v.linux.module is None:
            continue
        source = (LINUX_TREE / f"{v.linux.module}.c").read_text()
        registered = re.findall(r'\.name\s*=\s*"([a-z0-9_-]+)"', source)
        assert v.linux.congestion_control in registered, (name, registered)
        assert ("TCP_CONG_NEEDS_ECN" in source) == v.ecn, name


def test_every_ns3_type_is_a_class_of_the_wheel_or_of_sim_ns3():
    # ns-3's own classes, and those written here (docs/variants.md, "Adding a variant", (d))
    include = ns3build.ns3_prefix() / "include" / "ns3"
    ours = ns3build.NS3_SOURCE_DIR / "model"
    headers = "\n".join(p.read_text() for d in (include, ours) for p in d.glob("tcp-*.h"))
    for name, v in REGISTRY.items():
        if v.ns3:
            cls = v.ns3.type_id.removeprefix("ns3::")
            assert f"class {cls} :" in headers, (name, cls)


def _debian_modules_dir() -> Path | None:
    found = sorted(Path("/lib/modules").glob("*-amd64"))
    return found[-1] if found else None


@pytest.mark.skipif(_debian_modules_dir() is None, reason="Debian's kernel is not installed")
def test_every_linux_module_is_in_debians_kernel():
    mods = _debian_modules_dir()
    builtin = (mods / "modules.builtin").read_text()
    for name, v in REGISTRY.items():
        if v.linux and v.linux.module:
            path = f"kernel/net/ipv4/{v.linux.module}.ko"
            shipped = any((mods / path).parent.glob(f"{v.linux.module}.ko*"))
            assert shipped or path in builtin, (name, path)


def test_a_variant_replaces_the_profiles_congestion_control_only():
    base = tcp_profiles.get("linux-2.2").ns3_attributes()
    attrs = variants.ns3_attributes(base, REGISTRY["ns3-htcp"])
    assert attrs[variants.SOCKET_TYPE] == "ns3::TcpHtcp"
    assert {k: v for k, v in attrs.items() if k != variants.SOCKET_TYPE} == {
        k: v for k, v in base.items() if k != variants.SOCKET_TYPE
    }
    # Linux's own module: ns-3's class that runs it, the algorithm by name; linux-6.1's own
    # cubic is replaced, its socket (TcpLinuxSocket) kept
    base = tcp_profiles.get("linux-6.1").ns3_attributes()
    attrs = variants.ns3_attributes(base, REGISTRY["htcp"])
    assert attrs[variants.SOCKET_TYPE] == "ns3::TcpLinuxCongestion"
    assert attrs[variants.LINUX_CC_ALGORITHM] == "htcp"
    assert attrs["ns3::TcpBlastClient::SocketType"] == "ns3::TcpLinuxSocket"
    assert base[variants.LINUX_CC_ALGORITHM] == "cubic"
    # and ns-3's own model of it drops the profile's Linux algorithm altogether
    attrs = variants.ns3_attributes(base, REGISTRY["ns3-htcp"])
    assert attrs[variants.SOCKET_TYPE] == "ns3::TcpHtcp"
    assert variants.LINUX_CC_ALGORITHM not in attrs
    # ns3-default sets no SocketType (ns-3's default, TcpCubic): the variant's is added
    attrs = variants.ns3_attributes(
        tcp_profiles.get("ns3-default").ns3_attributes(), REGISTRY["ns3-bbr"]
    )
    assert attrs[variants.SOCKET_TYPE] == "ns3::TcpBbr"
    assert attrs["ns3::TcpSocketState::EnablePacing"] == "true"
    # Linux's bbr paces by the socket's own clock (TcpLinuxSocket), not by ns-3's pacing
    attrs = variants.ns3_attributes(base, REGISTRY["bbr"])
    assert attrs[variants.LINUX_CC_ALGORITHM] == "bbr"
    assert "ns3::TcpSocketState::EnablePacing" not in attrs


def test_a_variant_a_backend_lacks_is_refused_and_said_so(tmp_path):
    assert variants.not_implemented(REGISTRY["htcp"], "mininet") is None
    why = variants.not_implemented(REGISTRY["newreno"], "mininet")
    assert "newreno" in why and "linux" in why
    # every Linux variant has an ns-3 side now; one without, as a registry may have
    data = yaml.safe_load(variants.VARIANTS_PATH.read_text())
    data["variants"]["cdg"]["ns3"] = None
    path = tmp_path / "tcp_variants.yaml"
    path.write_text(yaml.safe_dump(data))
    linux_only = variants.registry(path)["cdg"]
    assert "ns3" in variants.not_implemented(linux_only, "ns3")
    with pytest.raises(variants.VariantError, match="cdg"):
        variants.ns3_attributes({}, linux_only)
    with pytest.raises(variants.VariantError, match="known: reno"):
        variants.get("tcp-turbo")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: d["variants"]["ns3-htcp"]["ns3"].update(type="TcpHtcp"),
            ["variants.ns3-htcp.ns3"],
        ),
        # Linux's own module in ns-3 needs a Linux side to name it
        (lambda d: d["variants"]["cdg"].update(ns3="linux", linux=None), ["cdg", "linux"]),
        # a model names a variant with a Linux side
        (lambda d: d["variants"]["ns3-htcp"].update(models="fast"), ["ns3-htcp.models", "fast"]),
        (lambda d: d["variants"]["htcp"].pop("sources"), ["variants.htcp", "sources"]),
        (lambda d: d["variants"].update({"Bad Name": d["variants"]["htcp"]}), ["Bad Name"]),
        (
            lambda d: d["variants"]["htcp"]["linux"].update(module="htcp"),
            ["variants.htcp.linux", "'htcp'"],
        ),
    ],
)
def test_an_invalid_registry_names_file_key_and_value(tmp_path, change, expected):
    data = yaml.safe_load(variants.VARIANTS_PATH.read_text())
    change(data)
    path = tmp_path / "tcp_variants.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(variants.VariantError) as err:
        variants.registry(path)
    assert str(path) in str(err.value)
    for part in expected:
        assert part in str(err.value), str(err.value)


def test_a_variant_entered_twice_is_refused(tmp_path):
    text = variants.VARIANTS_PATH.read_text()
    entry = "  htcp:\n    description: again\n    ns3: null\n    linux: null\n    sources: x\n"
    path = tmp_path / "tcp_variants.yaml"
    path.write_text(text + entry)
    with pytest.raises(variants.VariantError, match=r"tcp_variants\.yaml: line \d+: .*htcp"):
        variants.registry(path)


# --- the variant axis -------------------------------------------------------------------------


def test_lossy_link_sweeps_every_variant_in_registry_order():
    paper = sc.load("lossy-link", "paper", set(tcp_profiles.registry()))
    # 4 delays x 5 loss rates x every variant
    assert len(paper.points) == 4 * 5 * len(REGISTRY)
    assert paper.axes == ["delay_ms", "loss", "variant"]
    first = [p.values["variant"] for p in paper.points[: len(REGISTRY)]]
    assert first == list(REGISTRY)
    point = paper.point("delay_ms=50+loss=0.125+variant=htcp")
    assert point.variant == "htcp" and point.link == {"delay_ms": 50, "loss": "0.125"}
    assert point.is_random and not paper.point("delay_ms=50+loss=0+variant=htcp").is_random
    quick = sc.load("lossy-link", "quick")
    assert len(quick.points) == 3 * len(REGISTRY)
    assert quick.point("delay_ms=10+loss=0.05+variant=bbr").workload["writes"] == 691


def _lossy(tmp_path: Path, **changes) -> Path:
    (tmp_path / "topologies").mkdir(exist_ok=True)
    for name in ("lossy-link", "lin2001"):
        src = sc.SCENARIO_DIR / "topologies" / f"{name}.yaml"
        (tmp_path / "topologies" / f"{name}.yaml").write_text(src.read_text())
    data = yaml.safe_load((sc.SCENARIO_DIR / "lossy-link.yaml").read_text())
    for key, value in changes.items():
        data[key] = value
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_an_unknown_variant_names_the_key_and_the_known_ones(tmp_path):
    path = _lossy(tmp_path, sweep={"variant": ["htcp", "turbo"]})
    with pytest.raises(ScenarioError, match=r"sweep\.variant\.1.*'turbo'.*htcp.*'all'"):
        sc.load(path, "paper")
    path = _lossy(tmp_path, tcp={"variant": "turbo"}, sweep={"loss": ["0"]})
    with pytest.raises(ScenarioError, match=r"tcp\.variant.*'turbo'"):
        sc.load(path, "paper")


def test_a_fixed_variant_without_a_sweep(tmp_path):
    path = _lossy(tmp_path, tcp={"variant": "vegas"}, sweep={"loss": ["0", "0.01"]})
    s = sc.load(path, "paper")
    assert [p.variant for p in s.points] == ["vegas", "vegas"]
    assert s.points[1].id == "loss=0.01"


def test_the_impaired_link_needs_a_second_router_and_no_path_delay(tmp_path):
    path = _lossy(tmp_path, topology={"use": "lin2001"})
    with pytest.raises(ScenarioError, match="no router2"):
        sc.load(path, "paper")
    path = _lossy(tmp_path, topology={"use": "lossy-link", "delay": 72})
    with pytest.raises(ScenarioError, match=r"topology\.delay.*72"):
        sc.load(path, "paper")


def test_the_papers_registry_sentence_reads_right_when_a_group_is_empty():
    """The paper's variant paragraph (report.shared_numbers.variant_registry_numbers): with every
    shared algorithm as Linux's code and nothing on one side only, no macro is n/a."""
    from types import SimpleNamespace as V

    from emusim.report.shared_numbers import variant_registry_numbers

    code, klass = V(linux_code=True), V(linux_code=False)
    every = {"reno": V(ns3=code, linux=1, models=None), "bbr": V(ns3=code, linux=1, models=None)}
    numbers = variant_registry_numbers(every)
    assert numbers["VariantsBothHow"].startswith("all of them as Linux")
    assert numbers["VariantsOneSide"] == "none is on one side only"
    assert "n/a" not in numbers.values()
    mixed = every | {
        "vegas": V(ns3=klass, linux=1, models=None),
        "fast": V(ns3=klass, linux=None, models=None),
        "cdg": V(ns3=None, linux=1, models=None),
    }
    numbers = variant_registry_numbers(mixed)
    assert numbers["VariantsBothHow"].startswith("2 of them")
    assert "the rest (vegas)" in numbers["VariantsBothHow"]
    assert numbers["VariantsOneSide"] == "1 only ns-3 has (fast) and 1 only Linux (cdg)"
