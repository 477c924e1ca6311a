#!/usr/bin/env python3
"""Mutation testing of the conformance suite: does it catch every plausible accelerator bug?

For each mutant of tools/mutation/mutants.txt (a find/replace patch of one file), in a scratch copy
of the repository: apply it, rebuild `dashi` incrementally with Bazel, run `dashi conform --filter
FILTER` on the default Vulkan device (validation and synchronisation validation on), and record
which cases killed it. Restores the file afterwards.

  tools/mutation/run_mutants.py                    # every mutant; exit 1 unless all are killed
  tools/mutation/run_mutants.py --only decode-     # mutants whose name starts with this
  tools/mutation/run_mutants.py --list             # the mutants and what is expected of them
  tools/mutation/run_mutants.py --report out.md    # also write the result table (Markdown)

Verdicts: KILLED (a case FAILED; the failing cases are named), KILLED AT BUILD (the build refused
it: the SPIR-V contract check), SURVIVED (nothing noticed: a hole in the suite), EQUIVALENT (listed
with the reason, not run unless --run-equivalent), DEVICE-ONLY (run, reported, not required here),
INVALID (the patch no longer applies, or a mutant that should build did not: fix the mutant).
Standard library only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_mutants(path):
    mutants, current, section, lines = [], None, None, []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if section in ("find", "replace"):
                if line in ("--- replace", "--- end"):
                    current[section] = "\n".join(lines) + "\n"
                    lines = []
                    section = "replace" if line == "--- replace" else None
                    continue
                lines.append(line)
                continue
            if line.startswith("#") or not line.strip():
                continue
            if line.startswith("[") and line.endswith("]"):
                current = {"name": line[1:-1]}
                mutants.append(current)
            elif line == "--- find":
                section, lines = "find", []
            elif "=" in line and current is not None:
                key, value = line.split("=", 1)
                current[key.strip()] = value.strip()
            else:
                sys.exit(f"{path}: cannot parse line: {line}")
    names = set()
    for m in mutants:
        for key in ("file", "filter", "kind", "expect", "why", "find", "replace"):
            if key not in m:
                sys.exit(f"{path}: mutant [{m['name']}] has no {key}")
        if m["name"] in names:
            sys.exit(f"{path}: mutant [{m['name']}] appears twice")
        names.add(m["name"])
    return mutants


def sync_scratch(scratch):
    """Copies every tracked file of the repository into `scratch` (only files that changed)."""
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True,
                           capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src, dst = os.path.join(ROOT, rel), os.path.join(scratch, rel)
        if not os.path.isfile(src) or os.path.islink(src):
            continue
        with open(src, "rb") as f:
            data = f.read()
        if os.path.exists(dst):
            with open(dst, "rb") as f:
                if f.read() == data:
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)


def build(scratch, log):
    r = subprocess.run(["bazel", "build", "//tools:dashi"], cwd=scratch, capture_output=True,
                       text=True)
    with open(log, "w") as f:
        f.write(r.stdout + r.stderr)
    return r.returncode == 0, r.stdout + r.stderr


def conform(scratch, filter_text, out_json):
    dashi = os.path.join(scratch, "bazel-bin", "tools", "dashi")
    r = subprocess.run([dashi, "conform", "--no-store", "--golden-dir",
                        os.path.join(scratch, "golden"), "--filter", filter_text, "--out", out_json],
                       cwd=scratch, capture_output=True, text=True)
    try:
        with open(out_json) as f:
            report = json.load(f)
    except (OSError, ValueError):
        how = (f"killed by signal {-r.returncode}" if r.returncode < 0
               else f"exit code {r.returncode}")
        return None, f"dashi conform wrote no report ({how})\n" + r.stdout + r.stderr
    return report, r.stdout + r.stderr


def first_error(text):
    for line in text.splitlines():
        if "contract violation" in line:  # the SPIR-V contract check's own message
            return line.strip()
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()
    return "(no error line)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mutants", default=os.path.join(ROOT, "tools", "mutation", "mutants.txt"))
    ap.add_argument("--scratch", default="/tmp/dashi-mutation",
                    help="scratch copy of the repository (kept between runs for incremental builds)")
    ap.add_argument("--only", default="",
                    help="run the mutants whose name starts with this (comma-separated prefixes)")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    ap.add_argument("--run-equivalent", action="store_true", help="also run equivalent mutants")
    ap.add_argument("--report", default="", help="write the result table (Markdown) here")
    args = ap.parse_args()

    prefixes = tuple(args.only.split(",")) if args.only else ("",)
    mutants = [m for m in parse_mutants(args.mutants) if m["name"].startswith(prefixes)]
    if args.list:
        for m in mutants:
            print(f"{m['name']:42s} {m['kind']:6s} {m['expect'][:60]}")
        return 0
    os.makedirs(args.scratch, exist_ok=True)
    print(f"mutation: {len(mutants)} mutants; scratch {args.scratch}", flush=True)
    sync_scratch(args.scratch)
    logs = os.path.join(args.scratch, "mutation_logs")
    os.makedirs(logs, exist_ok=True)
    ok, out = build(args.scratch, os.path.join(logs, "baseline.build.log"))
    if not ok:
        print(out[-3000:])
        sys.exit("mutation: the unmutated tree does not build")

    results = []
    for m in mutants:
        expect = m["expect"].split(":")[0].strip()
        t0 = time.time()
        if expect == "equivalent" and not args.run_equivalent:
            results.append((m, "EQUIVALENT", m["expect"].split(":", 1)[1].strip(), 0.0))
            print(f"  {m['name']:42s} EQUIVALENT (not run)", flush=True)
            continue
        path = os.path.join(args.scratch, m["file"])
        with open(path, encoding="utf-8") as f:
            original = f.read()
        if original.count(m["find"]) != 1:
            results.append((m, "INVALID", f"the find text occurs {original.count(m['find'])} "
                            f"times in {m['file']}", 0.0))
            print(f"  {m['name']:42s} INVALID (patch does not apply)", flush=True)
            continue
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original.replace(m["find"], m["replace"]))
            ok, out = build(args.scratch, os.path.join(logs, m["name"] + ".build.log"))
            if not ok:
                verdict = "KILLED AT BUILD" if expect == "build" else "INVALID"
                detail = first_error(out)
            elif expect == "build":
                verdict, detail = "SURVIVED", "the build accepted it"
            else:
                report, out = conform(args.scratch, m["filter"],
                                      os.path.join(logs, m["name"] + ".report.json"))
                with open(os.path.join(logs, m["name"] + ".conform.log"), "w") as f:
                    f.write(out)
                if report is None:
                    verdict, detail = "KILLED", out.splitlines()[0] + " (the run died)"
                else:
                    failing = [c["name"] for c in report["cases"] if c["verdict"] == "FAIL"]
                    ran = [c for c in report["cases"] if c["verdict"] != "NOT_SUPPORTED"]
                    if failing:
                        verdict = "KILLED"
                        detail = f"{len(failing)} of {len(report['cases'])} cases: " + \
                            ", ".join(failing[:3]) + (" ..." if len(failing) > 3 else "")
                    elif not ran:
                        verdict, detail = "NOT RUN HERE", "every case NOT_SUPPORTED on this device"
                    else:
                        verdict, detail = "SURVIVED", f"{len(ran)} cases passed"
                if expect == "device-only":
                    verdict = "DEVICE-ONLY: " + verdict
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
        results.append((m, verdict, detail, time.time() - t0))
        print(f"  {m['name']:42s} {verdict}  ({time.time() - t0:.0f} s) {detail[:90]}", flush=True)

    required = [r for r in results if r[0]["expect"].split(":")[0].strip() in ("killed", "build")]
    killed = [r for r in required if r[1] in ("KILLED", "KILLED AT BUILD")]
    bad = [r for r in results if r[1] in ("SURVIVED", "INVALID")]
    lines = ["| mutant | edits | verdict | killed by / reason |", "| --- | --- | --- | --- |"]
    for m, verdict, detail, _ in results:
        lines.append(f"| `{m['name']}` | {m['kind']}: `{m['file']}` | {verdict} | "
                     f"{detail.replace('|', '/')} |")
    summary = (f"{len(killed)} of {len(required)} non-equivalent mutants killed "
               f"({100.0 * len(killed) / max(len(required), 1):.0f} %); "
               f"{sum(1 for r in results if r[1] == 'EQUIVALENT')} equivalent, "
               f"{sum(1 for r in results if r[1].startswith('DEVICE-ONLY'))} device-only")
    print("\n" + "\n".join(lines) + "\n\n" + summary)
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(lines) + "\n\n" + summary + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
