#!/usr/bin/env python3
"""Resolves the `#include "name"` lines of a GLSL source into one file for glslangValidator.

Every shader family shares GLSL the same way: a source says `#include "file.glsl"` where the shared
text belongs, and the build (shaders/defs.bzl) puts the file's text there. The expansion is done
here rather than by glslang's GL_GOOGLE_include_directive because glslang records that extension
in the module (two OpSourceExtension instructions): splitting a shader into files would then
change its SPIR-V words and the shader build hash that certifications are keyed by, while the
code is the same.

Each included text is framed by `// @origin PATH:LINE` comments (the next line is LINE of PATH),
so a message about the expanded file can name the line of the file it came from
(spirv_contract_check.py does); comments do not reach the SPIR-V.

Usage: glsl_expand.py OUT SRC [NAME=PATH ...]
  NAME=PATH  the file to put in place of `#include "NAME"` (every include must be listed;
             an included file may include others; a file included twice is an error).
"""

import re
import sys

ORIGIN = "// @origin"
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*(//.*)?$')


def Expand(path, files, seen, chain):
    out = []
    with open(path) as f:
        for number, line in enumerate(f, start=1):
            m = _INCLUDE.match(line)
            if not m:
                out.append(line if line.endswith("\n") else line + "\n")
                continue
            name = m.group(1)
            where = "%s:%d" % (path, number)
            if name not in files:
                raise ValueError("%s: #include \"%s\" is not among the shader's includes (%s)" %
                                 (where, name, ", ".join(sorted(files)) or "none"))
            if name in chain:
                raise ValueError("%s: #include \"%s\" includes itself (%s)" %
                                 (where, name, " -> ".join(chain + [name])))
            if name in seen:
                raise ValueError("%s: \"%s\" is included a second time" % (where, name))
            seen.add(name)
            out.append("%s %s:1\n" % (ORIGIN, files[name]))
            out.extend(Expand(files[name], files, seen, chain + [name]))
            out.append("%s %s:%d\n" % (ORIGIN, path, number + 1))
    return out


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    out_path, src = argv[1], argv[2]
    files = {}
    for arg in argv[3:]:
        name, _, path = arg.partition("=")
        if not path or name in files:
            sys.stderr.write("glsl_expand.py: bad or repeated include argument '%s'\n" % arg)
            return 2
        files[name] = path
    try:
        text = "".join(["%s %s:1\n" % (ORIGIN, src)] + Expand(src, files, set(), []))
    except (OSError, ValueError) as e:
        sys.stderr.write("%s\n" % e)
        return 1
    with open(out_path, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
