"""The ns-3 programs' command lines against their one table (sim/ns3/programs/arguments.yaml):
what each built program declares (its --PrintHelp) is what the table lists, every program has
an entry, and the Python side refuses an argument its program does not take."""

import re
import subprocess

import pytest

from emusim.backends.ns3 import build as ns3build
from emusim.backends.ns3 import command as ns3

pytestmark = pytest.mark.ns3


def declared(program_path) -> set[str]:
    """The names under "Program Options:" of a program's --PrintHelp."""
    out = subprocess.run(
        [str(program_path), "--PrintHelp"], capture_output=True, text=True, check=True
    ).stdout
    options = out.split("Program Options:", 1)[1].split("General Arguments:", 1)[0]
    return set(re.findall(r"^\s+--(\w+):", options, re.M))


@pytest.mark.parametrize("program", ns3build.program_names())
def test_each_program_declares_what_the_table_lists(ns3_programs, program):
    assert declared(ns3_programs / program) == ns3.program_arguments(program)


def test_every_program_is_listed_once():
    import yaml

    table = set(yaml.safe_load(ns3.ARGUMENTS_TABLE.read_text())["programs"])
    own = {
        p.name.removesuffix(".arguments.yaml")
        for p in ns3.ARGUMENTS_TABLE.parent.glob("*.arguments.yaml")
    }
    assert not table & own
    assert table | own == set(ns3build.program_names())


def test_an_argument_the_program_does_not_take_is_refused():
    ns3.check_arguments("testbed-2001", ["--writes=5", "--ns3::TcpSocket::SegmentSize=1448"])
    with pytest.raises(ValueError, match=r"lossy-link takes no argument --dropMode"):
        ns3.check_arguments("lossy-link", ["--writes=5", "--dropMode=random"])
