"""Prints the per-case Markdown table of docs/CONFORMANCE.md from `dashi conform` JSON reports.

Usage: python3 tools/conformance_table.py LABEL=report.json [LABEL=report.json ...]
One row per case (sorted by name): measure and tolerance from the first report that has the
case, then "<measured> <VERDICT>" per report ("not run" where a report lacks the case).
"""
import json
import sys


def fmt(x):
    return "%g" % x if isinstance(x, (int, float)) else str(x)


def main(args):
    reports = []
    for arg in args:
        label, _, path = arg.partition("=")
        with open(path) as f:
            reports.append((label, {c["name"]: c for c in json.load(f)["cases"]}))
    names = sorted(set().union(*(cases.keys() for _, cases in reports)))
    print("| case | measure | tolerance | " + " | ".join(label for label, _ in reports) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in reports) + " |")
    for name in names:
        first = next(cases[name] for _, cases in reports if name in cases)
        cells = []
        for _, cases in reports:
            c = cases.get(name)
            cells.append("not run" if c is None else "%s %s" % (fmt(c["measured"]), c["verdict"]))
        measure = first["measure"].replace("|", "\\|")  # a literal | inside a table cell
        print("| `%s` | %s | %s | %s |" % (name, measure, fmt(first["tolerance"]),
                                           " | ".join(cells)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
