#!/usr/bin/env python3
"""The build-time contract check of a bit-exact shader's SPIR-V (docs/CONFORMANCE.md).

A bit-exact shader must round every fp64 operation the way a CPU built with -ffp-contract=off
does, so its SPIR-V may contain
  - no fused multiply-add: no GLSL.std.450 `Fma` extended instruction (nor any other *Fma* op);
  - no fp64 arithmetic result without a `NoContraction` decoration (GLSL `precise`): OpFAdd,
    OpFSub, OpFMul, OpFDiv, OpFRem, OpFMod, OpDot and the vector/matrix products, whenever the
    result type is a 64-bit float or a vector/matrix of them.
A driver may contract an undecorated multiply and add into an FMA (lavapipe happens not to, so the
conformance suite cannot see it there), hence the check on the module itself. OpFNegate is exact
and is not checked: a negated product can only be fused if the product itself is undecorated,
which is reported on the product.

Usage: spirv_contract_check.py SHADER MODULE.spv [--source SOURCE.comp]
       spirv_contract_check.py SHADER --disassembly FILE.spvasm
SHADER names the shader in the messages. The module is disassembled with spirv-dis (Debian's
spirv-tools). With --source (the GLSL the module was compiled from), a violation also names the
GLSL line: the source is compiled again with -g and the offending instruction is found there by
its position among the instructions of its kind. Exit status 0 when the module obeys the
contract; otherwise 1, with one line per violation naming the shader, the disassembly line and
the instruction.
"""

import os
import re
import subprocess
import sys
import tempfile

# Arithmetic whose fp64 result must carry NoContraction.
_CONTRACTIBLE = {
    "OpFAdd", "OpFSub", "OpFMul", "OpFDiv", "OpFRem", "OpFMod", "OpDot",
    "OpVectorTimesScalar", "OpMatrixTimesScalar", "OpVectorTimesMatrix", "OpMatrixTimesVector",
    "OpMatrixTimesMatrix", "OpOuterProduct",
}

_RESULT = re.compile(r"^\s*(%\S+)\s*=\s*(Op\w+)\s+(\S+)(.*)$")
_DECORATE = re.compile(r"^\s*OpDecorate\s+(%\S+)\s+NoContraction\b")


def Violations(lines):
    """(line number, problem, line) for every break of the contract in a disassembled module."""
    fp64_types = set()
    no_contraction = set()
    for text in lines:
        m = _RESULT.match(text)
        if m:
            result, op, first, rest = m.groups()
            if op == "OpTypeFloat" and first == "64":
                fp64_types.add(result)
            elif op in ("OpTypeVector", "OpTypeMatrix") and first in fp64_types:
                fp64_types.add(result)
        d = _DECORATE.match(text)
        if d:
            no_contraction.add(d.group(1))
    out = []
    for number, text in enumerate(lines, start=1):
        if re.search(r"\bOpExtInst\b.*\bFma\b", text) or re.search(r"\bOp\w*Fma\w*\b", text):
            out.append((number, "fused multiply-add", text.strip()))
            continue
        m = _RESULT.match(text)
        if not m:
            continue
        result, op, result_type, _ = m.groups()
        if op in _CONTRACTIBLE and result_type in fp64_types and result not in no_contraction:
            out.append((number, "fp64 " + op + " without NoContraction (not `precise`)",
                        text.strip()))
    return out


def _Kind(text):
    """The opcode (with the extended instruction's name) of a disassembly line, or None."""
    m = _RESULT.match(text)
    if m:
        op = m.group(2)
        if op == "OpExtInst":
            ext = text.split()
            return op + ":" + (ext[5] if len(ext) > 5 else "")
        return op
    parts = text.split()
    return parts[0] if parts and parts[0].startswith("Op") else None


def Disassemble(module):
    # errors="replace": a -g module carries the GLSL text, split into strings at byte boundaries.
    dis = subprocess.run(["spirv-dis", "--no-color", module], capture_output=True,
                         encoding="utf-8", errors="replace")
    if dis.returncode != 0:
        raise RuntimeError("spirv-dis failed on %s: %s" % (module, dis.stderr.strip()))
    return dis.stdout.splitlines()


def SourceLines(lines, found, source):
    """{disassembly line number: "source:line: text"} for the violations, from a -g build."""
    with tempfile.TemporaryDirectory() as tmp:
        debug = os.path.join(tmp, "debug.spv")
        cc = subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.2", "-g", "-o",
                             debug, source], capture_output=True, text=True)
        if cc.returncode != 0:
            return {}
        debug_lines = Disassemble(debug)
    with open(source, encoding="utf-8") as f:
        text = f.read().splitlines()
    origin = Origins(source, text)
    # The n-th instruction of each kind in the module and in the -g build are the same one: -g
    # adds OpLine / OpString / OpSource text, not code.
    wanted = {number for number, _, _ in found}
    position = {}
    counts = {}
    for number, line in enumerate(lines, start=1):
        kind = _Kind(line)
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
            if number in wanted:
                position[(kind, counts[kind])] = number
    out = {}
    counts = {}
    current = None
    for line in debug_lines:
        parts = line.split()
        if parts[:1] == ["OpLine"] and len(parts) >= 3:
            current = int(parts[2])
            continue
        if parts[:1] == ["OpNoLine"]:
            current = None
            continue
        kind = _Kind(line)
        if not kind:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        number = position.get((kind, counts[kind]))
        if number is not None and current is not None and 0 < current <= len(text):
            out[number] = "%s: %s" % (origin[current - 1], text[current - 1].strip())
    return out


def Origins(source, text):
    """For each line of an expanded source, "file:line" it came from (glsl_expand.py's marks)."""
    out = []
    path, line = source, 1
    for t in text:
        m = re.match(r"^// @origin (.+):(\d+)$", t)
        if m:
            out.append("%s:%d" % (source, len(out) + 1))
            path, line = m.group(1), int(m.group(2))
            continue
        out.append("%s:%d" % (path, line))
        line += 1
    return out


def main(argv):
    args = argv[1:]
    source = None
    if len(args) >= 2 and args[-2] == "--source":
        source = args[-1]
        args = args[:-2]
    try:
        if len(args) == 2:
            shader = args[0]
            lines = Disassemble(args[1])
        elif len(args) == 3 and args[1] == "--disassembly":
            shader = args[0]
            with open(args[2]) as f:
                lines = f.read().splitlines()
        else:
            sys.stderr.write(__doc__)
            return 2
    except (OSError, RuntimeError) as e:
        sys.stderr.write("%s\n" % e)
        return 1
    found = Violations(lines)
    where = SourceLines(lines, found, source) if (found and source) else {}
    for number, problem, line in found:
        sys.stderr.write("%s: SPIR-V contract violation: %s at disassembly line %d: %s\n" %
                         (shader, problem, number, line))
        if number in where:
            sys.stderr.write("    from GLSL %s\n" % where[number])
    if found:
        sys.stderr.write("%s: %d violation(s) of the bit-exact contract (docs/CONFORMANCE.md, "
                         "\"Static contract check\"); make the operation `precise` or, if the "
                         "shader is not compared bit for bit, drop its bit_exact\n" %
                         (shader, len(found)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
