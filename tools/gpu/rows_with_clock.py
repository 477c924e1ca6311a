#!/usr/bin/env python3
"""The SM clock beside every row of batched_rollout_vulkan_benchmark.

Reads the benchmark's output (each row ends with the UTC span of its measurement,
"[HH:MM:SS.s-HH:MM:SS.s UTC]") and an nvidia-smi log of ONE GPU taken beside it:

    nvidia-smi -i 0 --query-gpu=timestamp,clocks.sm,power.draw[,...] --format=csv -lms 200 > clock.csv

and prints one line per row: D, B, the kernel (shortened), the median and minimum us a step (or
"error" and the row's message), the verification, and the clock samples inside the row's span
whose power is at least --min-watts (the device under load; a row's span also holds its host
set-up and verification, where the GPU idles): how many, and the lowest and highest SM clock
among them; "no loaded sample" where there is none (a row shorter than the log's period).

    python3 tools/gpu/rows_with_clock.py --bench bench.txt --clock clock.csv [--min-watts 150]
        [--format text|markdown]

Checks: the log's header must name timestamp, clocks.sm (or clocks.current.sm) and power.draw; a
value must carry the unit its header names ("MHz", "W": a line cut off mid-value is dropped, as
are "[N/A]" values); two samples with one timestamp mean several GPUs in one log (an error: take
it with -i); some row's span must fall inside the log's time range. The benchmark prints no date:
each span is placed on the day (the log's first day, the one before or after) that puts it
nearest the log, so a span across midnight UTC is read as such, and a log of another day that
covers the same times cannot be told apart. Table rows without a span (older builds) are counted
on stderr and skipped; a warning on stderr where no row has a loaded sample.

Exit status: 0; 2 with a message naming the file and the problem (unreadable or not text, no
such column, no readable sample with the line and field that failed, several GPUs, no row with a
span, no span inside the log, --min-watts negative or not finite).
"""
import argparse
import csv
import datetime as dt
import math
import re
import signal
import sys

NUM = r"(?:[\d.]+|nan|-?inf)"
ROW = re.compile(
    r"^\s*(?P<d>\d+)\s+(?P<b>\d+)\s+(?P<kernel>.*?)\s+\|\s+(?P<us>" + NUM + r")\s+(?P<min>" + NUM +
    r")\s+\|.*?\|\s+" + NUM + r"\s+(?P<verified>.*?)\s+\[(?P<start>\d\d:\d\d:\d\d(?:\.\d+)?)-"
    r"(?P<end>\d\d:\d\d:\d\d(?:\.\d+)?) UTC\]\s*$")
ERROR_ROW = re.compile(
    r"^\s*(?P<d>\d+)\s+(?P<b>\d+)\s+(?P<kernel>\S+)\s+\|\s+(?P<message>error.*?)\s+\[(?P<start>\d\d:"
    r"\d\d:\d\d(?:\.\d+)?)-(?P<end>\d\d:\d\d:\d\d(?:\.\d+)?) UTC\]\s*$")
# A table row of any build (D, B, kernel, "|"), with or without a span.
TABLE_ROW = re.compile(r"^\s*\d+\s+\d+\s+\S.*\|")


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


def read_text(path, what):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"{path}: cannot read the {what} ({e.strerror})")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: the {what} is not UTF-8 text (byte {e.start})")
    if "\0" in text:
        raise InputError(f"{path}: the {what} is not text (NUL bytes)")
    return text


def read_clock(path):
    text = read_text(path, "clock log")
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as e:
        raise InputError(f"{path}: the clock log is not CSV ({e})")
    if not rows:
        raise InputError(f"{path}: the clock log is empty")
    header = [h.strip() for h in rows[0]]

    def column(*names):  # nvidia-smi prints clocks.sm as "clocks.current.sm [MHz]"
        for i, h in enumerate(header):
            if h.split(" [")[0] in names:
                unit = re.search(r"\[(.*)\]", h)
                return i, unit.group(1) if unit else None
        raise InputError(f"{path}: the clock log has no '{names[0]}' column (header: {rows[0]})")

    it, _ = column("timestamp")
    ic, clock_unit = column("clocks.sm", "clocks.current.sm")
    ip, power_unit = column("power.draw")

    def value(field, unit):
        f = field.strip()
        if unit is not None:  # a line cut off mid-value has no unit
            if not f.endswith(" " + unit):
                raise ValueError(f"'{f}' has no unit {unit}")
            f = f[: -len(unit)].strip()
        return float(f)

    samples, first_failure, seen = [], None, {}
    for n, r in enumerate(rows[1:], start=2):
        try:
            if len(r) <= max(it, ic, ip):
                raise ValueError(f"{len(r)} fields")
            t = dt.datetime.strptime(r[it].strip(), "%Y/%m/%d %H:%M:%S.%f")
            mhz, watts = value(r[ic], clock_unit), value(r[ip], power_unit)
        except ValueError as e:  # "[N/A]", a partial line, a timestamp without milliseconds
            first_failure = first_failure or f"line {n}: {e}"
            continue
        if t in seen:
            raise InputError(f"{path}: lines {seen[t]} and {n} have one timestamp: the log holds "
                             "several GPUs (take it with nvidia-smi -i N)")
        seen[t] = n
        samples.append((t, mhz, watts))
    samples.sort()
    if not samples:
        raise InputError(f"{path}: the clock log has no readable sample" +
                         (f" (first failure: {first_failure})" if first_failure else
                          " (a header only)"))
    return samples


def place(first, last, hms_start, hms_end):
    """The span's datetimes: on the day (first's, the one before or after) nearest the log."""
    def at(day, hms):
        return dt.datetime.combine(day, dt.datetime.strptime(
            hms, "%H:%M:%S.%f" if "." in hms else "%H:%M:%S").time())

    def distance(start):
        return max(first - start, start - last, dt.timedelta(0))

    days = [first.date() + dt.timedelta(days=k) for k in (0, -1, 1)]
    day = min(days, key=lambda d: distance(at(d, hms_start)))
    start, end = at(day, hms_start), at(day, hms_end)
    if end < start:  # across midnight
        end += dt.timedelta(days=1)
    return start, end


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", required=True, help="the benchmark's output (text)")
    p.add_argument("--clock", required=True, help="the nvidia-smi CSV log of one GPU taken beside it")
    p.add_argument("--min-watts", type=float, default=150.0,
                   help="samples at or above this power count as loaded (default 150)")
    p.add_argument("--format", choices=["text", "markdown"], default="text",
                   help="aligned text (default) or a markdown table")
    a = p.parse_args(argv)
    try:
        if not math.isfinite(a.min_watts) or a.min_watts < 0:
            raise InputError(f"--min-watts {a.min_watts}: must be a finite power >= 0")
        samples = read_clock(a.clock)
        lines = read_text(a.bench, "benchmark output").splitlines()
        first, last = samples[0][0], samples[-1][0]
        out, without_span, inside = [], 0, 0
        for line in lines:
            m = ROW.match(line)
            error = None
            if not m:
                m = ERROR_ROW.match(line)
                if not m:
                    without_span += 1 if TABLE_ROW.match(line) and "UTC]" not in line else 0
                    continue
                error = m.group("message")
            start, end = place(first, last, m.group("start"), m.group("end"))
            inside += 1 if start <= last and end >= first else 0
            loaded = [mhz for t, mhz, w in samples if start <= t <= end and w >= a.min_watts]
            clock = (f"{len(loaded)} loaded sample{'s' if len(loaded) > 1 else ''}, "
                     f"{min(loaded):.0f}-{max(loaded):.0f} MHz" if loaded else "no loaded sample")
            when = m.group("start") + "-" + m.group("end")
            if error is None:
                out.append((m.group("d"), m.group("b"), short_kernel(m.group("kernel")),
                            m.group("us"), m.group("min"), m.group("verified"), clock, when))
            else:
                out.append((m.group("d"), m.group("b"), short_kernel(m.group("kernel")), "error",
                            "", error, clock, when))
        if not out:
            raise InputError(f"{a.bench}: no benchmark row ends with a UTC span "
                             "('[HH:MM:SS.s-HH:MM:SS.s UTC]'; older builds print none)")
        if inside == 0:
            raise InputError(f"{a.clock}: no row's span falls inside the log (the log covers "
                             f"{first:%H:%M:%S}-{last:%H:%M:%S} UTC, the rows "
                             f"{out[0][7].split('-')[0]}-{out[-1][7].split('-')[1]}): another run's "
                             f"log for {a.bench}?")
    except InputError as e:
        print(f"rows_with_clock: {e}", file=sys.stderr)
        return 2
    if without_span:
        print(f"rows_with_clock: {a.bench}: {without_span} table rows without a span skipped",
              file=sys.stderr)
    if all(r[6] == "no loaded sample" for r in out):
        print(f"rows_with_clock: no row has a sample at or above {a.min_watts:g} W",
              file=sys.stderr)
    if a.format == "markdown":
        print("| D | B | kernel | us/step | min us | verified | SM clock (>= %g W) | UTC |"
              % a.min_watts)
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in out:
            print("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    else:
        for r in out:
            print("%6s %6s  %-34s %9s %9s  %-28s  %-34s  %s" % r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
