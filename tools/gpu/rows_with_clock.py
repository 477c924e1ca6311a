#!/usr/bin/env python3
"""The SM clock beside every row of batched_rollout_vulkan_benchmark.

Reads the benchmark's output (each row ends with the UTC span of its measurement,
"[HH:MM:SS.s-HH:MM:SS.s UTC]") and an nvidia-smi log taken beside it:

    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw[,...] --format=csv -lms 200 > clock.csv

and prints one line per row: D, B, the kernel (shortened), the median and minimum µs a step, the
verification, and the clock samples inside the row's span whose power is at least --min-watts (the
device under load; a row's span also holds its host set-up and verification, where the GPU idles):
how many, and the lowest and highest SM clock among them. A row with no loaded sample says so
("no loaded sample"): a row too short for the log's period, or a span outside the log.

    python3 tools/gpu/rows_with_clock.py --bench bench.txt --clock clock.csv [--min-watts 150]
        [--format text|markdown]

Exit status: 0, or 2 with a message naming the file and the problem (missing file, a clock log
without the timestamp / clocks.sm / power.draw columns, no benchmark row with a span). The date of
the spans is taken from the clock log (a span that crosses midnight UTC is read as such).
"""
import argparse
import csv
import datetime as dt
import re
import signal
import sys

ROW = re.compile(
    r"^\s*(?P<d>\d+)\s+(?P<b>\d+)\s+(?P<kernel>.*?)\s+\|\s+(?P<us>[\d.]+)\s+(?P<min>[\d.]+)\s+\|"
    r".*?\|\s+[\d.]+\s+(?P<verified>.*?)\s+\[(?P<start>\d\d:\d\d:\d\d(?:\.\d+)?)-"
    r"(?P<end>\d\d:\d\d:\d\d(?:\.\d+)?) UTC\]\s*$")
ERROR_ROW = re.compile(
    r"^\s*(?P<d>\d+)\s+(?P<b>\d+)\s+(?P<kernel>.*?)\s+\|\s+(?P<message>.*?)\s+\[(?P<start>\d\d:\d\d:"
    r"\d\d(?:\.\d+)?)-(?P<end>\d\d:\d\d:\d\d(?:\.\d+)?) UTC\]\s*$")


class InputError(Exception):
    pass


def short_kernel(kernel):
    """A short name: the kernel and, for the tiled kernels, the tile and its K groups / blocks."""
    k = kernel
    if " " not in k:  # an error row names the kernel as --kernels does
        return k
    if k.startswith("small-batch"):
        return "small-batch"
    if k.startswith("column-slice"):
        return "column-slice"
    if k.startswith("single"):
        return "single"
    m = re.search(r"tile (\d+x\d+)", k)
    name = "tiled persistent" if "persistent" in k else "tiled"
    if not m:
        return name
    extra = []
    g = re.search(r"k groups (\d+)", k)
    if g:
        extra.append("KG " + g.group(1))
    s = re.search(r"split (\d+)", k)
    if s:
        extra.append(s.group(1) + " K blocks")
    return name + " " + m.group(1) + (" (" + ", ".join(extra) + ")" if extra else "")


def read_clock(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise InputError(f"{path}: cannot read the clock log ({e.strerror})")
    if not rows:
        raise InputError(f"{path}: the clock log is empty")
    header = [h.strip() for h in rows[0]]
    def column(*names):  # nvidia-smi prints clocks.sm as "clocks.current.sm [MHz]"
        for i, h in enumerate(header):
            if h.split(" [")[0] in names:
                return i
        raise InputError(f"{path}: the clock log has no '{names[0]}' column (header: {rows[0]})")
    it = column("timestamp")
    ic = column("clocks.sm", "clocks.current.sm")
    ip = column("power.draw")
    samples = []
    for n, r in enumerate(rows[1:], start=2):
        if len(r) <= max(it, ic, ip):
            continue  # a line cut off when the logger was killed
        try:
            t = dt.datetime.strptime(r[it].strip(), "%Y/%m/%d %H:%M:%S.%f")
            mhz = float(r[ic].split()[0])
            watts = float(r[ip].split()[0])
        except (ValueError, IndexError):
            continue  # "[N/A]" or a partial line
        samples.append((t, mhz, watts))
    if not samples:
        raise InputError(f"{path}: the clock log has no readable sample")
    return samples


def span(day, hms_start, hms_end):
    def at(hms):
        return dt.datetime.combine(day, dt.datetime.strptime(hms, "%H:%M:%S.%f" if "." in hms
                                                             else "%H:%M:%S").time())
    start, end = at(hms_start), at(hms_end)
    if end < start:  # across midnight
        end += dt.timedelta(days=1)
    return start, end


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", required=True, help="the benchmark's output (text)")
    p.add_argument("--clock", required=True, help="the nvidia-smi CSV log taken beside it")
    p.add_argument("--min-watts", type=float, default=150.0,
                   help="samples at or above this power count as loaded (default 150)")
    p.add_argument("--format", choices=["text", "markdown"], default="text")
    a = p.parse_args(argv)
    try:
        samples = read_clock(a.clock)
        try:
            with open(a.bench) as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise InputError(f"{a.bench}: cannot read the benchmark output ({e.strerror})")
        day = samples[0][0].date()
        out = []
        for line in lines:
            m = ROW.match(line)
            error = None
            if not m:
                m = ERROR_ROW.match(line)
                if not m:
                    continue
                error = m.group("message")
            start, end = span(day, m.group("start"), m.group("end"))
            if start < samples[0][0] - dt.timedelta(hours=12):
                start += dt.timedelta(days=1)
                end += dt.timedelta(days=1)
            loaded = [mhz for t, mhz, w in samples if start <= t <= end and w >= a.min_watts]
            clock = (f"{len(loaded)} loaded samples, {min(loaded):.0f}–{max(loaded):.0f} MHz"
                     if loaded else "no loaded sample")
            if error is None:
                out.append((m.group("d"), m.group("b"), short_kernel(m.group("kernel")),
                            m.group("us"), m.group("min"), m.group("verified"), clock,
                            m.group("start") + "–" + m.group("end")))
            else:
                out.append((m.group("d"), m.group("b"), short_kernel(m.group("kernel")), "error",
                            "", error, clock, m.group("start") + "–" + m.group("end")))
        if not out:
            raise InputError(f"{a.bench}: no benchmark row ends with a UTC span "
                             "('[HH:MM:SS.s-HH:MM:SS.s UTC]'; older builds print none)")
    except InputError as e:
        print(f"rows_with_clock: {e}", file=sys.stderr)
        return 2
    if a.format == "markdown":
        print("| D | B | kernel | µs/step | min µs | verified | SM clock (≥ %g W) | UTC |" % a.min_watts)
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in out:
            print("| " + " | ".join(r) + " |")
    else:
        for r in out:
            print("%6s %6s  %-34s %9s %9s  %-28s  %-34s  %s" % r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
