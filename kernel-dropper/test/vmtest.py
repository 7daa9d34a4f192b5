"""Run the dropper module's test (guest_test.py) in a VM booting Debian's packaged kernel.

    python vmtest.py --release 6.1.0-NN-amd64 --module dropper.ko --udpflow udpflow

Streams the guest's lines (prefixed ``vm|``), then prints the counts it checked as
``COUNT key=value ...`` lines, the kernel release, whether KVM was used and the time taken,
and writes them all to build/kernel-dropper/vmtest.json. Exits 0 only if every check passed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from emusim.core.paths import BUILD_DIR
from emusim.infra import vm, vm_setup

HERE = Path(__file__).resolve().parent
GUEST_TEST = HERE / "guest_test.py"
RESULT_JSON = BUILD_DIR / "kernel-dropper" / "vmtest.json"
# SLUB debugging of the module's own cache: red zones, poisoning and, when the module
# unloads, a kernel warning for any configuration object it failed to free.
KERNEL_ARGS = ("slub_debug=FZPU,dropper_config",)


def parse_result(output: str) -> dict | None:
    """The guest's ``RESULT {json}`` line, if it got that far."""
    for line in reversed(output.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line.removeprefix("RESULT "))
    return None


def count_lines(result: dict) -> list[str]:
    """One ``COUNT`` line per check that counted packets."""
    lines = []
    for check in result["checks"]:
        if check["counts"]:
            fields = " ".join(f"{key}={value}" for key, value in check["counts"].items())
            lines.append(f"COUNT {fields} ok={'yes' if check['ok'] else 'no'}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--release", help="kernel release (default: newest packaged)")
    parser.add_argument("--module", required=True, type=Path)
    parser.add_argument("--udpflow", required=True, type=Path)
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds for the VM")
    args = parser.parse_args()
    for path in (args.module, args.udpflow):
        if not path.is_file():
            print(f"vmtest: {path} is missing (make module tools)", file=sys.stderr)
            return 2
    command = [
        sys.executable,
        str(GUEST_TEST),
        "--module",
        str(args.module.resolve()),
        "--udpflow",
        str(args.udpflow.resolve()),
    ]
    try:
        run = vm.run_in_vm(
            command,
            release=args.release,
            timeout_s=args.timeout,
            append=KERNEL_ARGS,
            on_line=lambda line: print(f"vm| {line}", flush=True),
        )
    except vm_setup.VMError as err:
        print(f"vmtest: {err}", file=sys.stderr)
        return 2
    result = parse_result(run.output)
    if result is None:
        print(f"vmtest: the guest test printed no result (exit {run.returncode})", file=sys.stderr)
        return 1
    failed = [c["name"] for c in result["checks"] if not c["ok"]]
    summary = {
        "kernel_release": run.kernel_release,
        "kvm": run.kvm,
        "vm_elapsed_s": round(run.elapsed_s, 1),
        "guest_exit": run.returncode,
        **result,
    }
    RESULT_JSON.parent.mkdir(parents=True, exist_ok=True)
    tmp = RESULT_JSON.with_suffix(".tmp")
    tmp.write_text(json.dumps(summary, indent=1) + "\n")
    tmp.replace(RESULT_JSON)
    print("\nCounts checked in the VM:")
    for line in count_lines(result):
        print(line)
    print(
        f"KERNEL release={run.kernel_release} kvm={'yes' if run.kvm else 'no'} "
        f"vm_elapsed_s={run.elapsed_s:.1f} guest_test_s={result['elapsed_s']}"
    )
    passed = len(result["checks"]) - len(failed)
    for name in failed:
        print(f"FAILED: {name}")
    print(f"{passed} passed, {len(failed)} failed")
    return 0 if not failed and run.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
