"""Run in the VM by test_testbed_vm.py: the virtual testbed with the real dropper module.

    python tests/support/testbed_guest.py snakemake --root COPY --module dropper.ko --work DIR \
        -- SNAKEMAKE_ARGS...
    python tests/support/testbed_guest.py build --work DIR

``snakemake``: builds the three hosts (network namespaces with their sshd, links shaped by
netem at 100 Mb/s with the report's delay; the inventory lets the preflight insmod MODULE on
the router), writes the inventory and runs ``python -m snakemake SNAKEMAKE_ARGS --config ...
hardware=...`` in the workflow copy ROOT. ``build``: the same hosts with ``dropper.load:
build`` and the preflight alone, which copies kernel-dropper/ to the router, builds it against
the running kernel and loads it; writes DIR/preflight.json. Either tears the testbed down and
prints ``RESULT {json}``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

from emusim.backends.testbed.virtual import VirtualTestbed

REPORT_DELAY_US = 71.8878


def run_snakemake(args, inventory: Path, result: dict) -> None:
    smk = args.snakemake
    env = dict(
        os.environ,
        EMUSIM_ROOT=str(args.root),
        XDG_CACHE_HOME=str(args.work / "cache"),
        MPLCONFIGDIR=str(args.work / "mpl"),
    )
    t0 = time.monotonic()
    argv = [
        sys.executable,
        "-m",
        "snakemake",
        *smk,
        "--config",
        "scale=quick",
        "backends=[hardware]",
        "scenarios=[regular-drop]",
        f"hardware={{source: testbed, inventory: {inventory}}}",
    ]
    proc = subprocess.Popen(
        argv, cwd=args.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        print(f"smk| {line.rstrip()}", flush=True)
    result["snakemake_exit"] = proc.wait()
    result["snakemake_s"] = round(time.monotonic() - t0, 1)


def run_build_preflight(args, inventory: Path, result: dict) -> None:
    data = yaml.safe_load(inventory.read_text())
    data["dropper"] = {"load": "build", "source_dir": str(args.work / "router-dropper")}
    inventory.write_text(yaml.safe_dump(data))
    t0 = time.monotonic()
    out = args.work / "preflight.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "emusim.backends.testbed",
            "preflight",
            "--inventory",
            str(inventory),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    print(proc.stderr, flush=True)
    result["preflight_exit"] = proc.returncode
    result["preflight_s"] = round(time.monotonic() - t0, 1)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("snakemake", "build"))
    parser.add_argument("--root", type=Path)
    parser.add_argument("--module", type=Path)
    parser.add_argument("--work", required=True, type=Path)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.snakemake = argv[cut + 1 :]
    t0 = time.monotonic()
    result: dict = {"kernel_release": os.uname().release}
    tb = VirtualTestbed(args.work, delay_us=REPORT_DELAY_US, dropper_module=args.module)
    try:
        inventory = tb.start()
        result["testbed_s"] = round(time.monotonic() - t0, 1)
        print(f"guest: testbed up in {result['testbed_s']} s: {inventory}", flush=True)
        if args.mode == "snakemake":
            run_snakemake(args, inventory, result)
        else:
            run_build_preflight(args, inventory, result)
    finally:
        tb.stop()
    result["total_s"] = round(time.monotonic() - t0, 1)
    print("RESULT " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
