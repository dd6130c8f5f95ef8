#!/usr/bin/env python3
"""Checks that docs/walkthrough.md shows the code of examples/walkthrough.cpp verbatim.

    check_walkthrough_docs.py <walkthrough.cpp> <walkthrough.md>
    check_walkthrough_docs.py --self-test <walkthrough.cpp> <walkthrough.md>

Every region between "// [walkthrough:NAME]" and "// [walkthrough:end]" of the
example, with its common indentation removed, must appear in the page as a
```cpp block right after an "<!-- walkthrough:NAME -->" marker, and every
marked block of the page must come from the example. --self-test also plants
an edit in a copy of each file and expects the check to fail on both.
"""
import re
import sys
import textwrap

REGION = re.compile(r"^[ \t]*// \[walkthrough:([a-z_]+)\][ \t]*\n(.*?)^[ \t]*// \[walkthrough:end\][ \t]*$",
                    re.MULTILINE | re.DOTALL)
DOC_BLOCK = re.compile(r"<!-- walkthrough:([a-z_]+) -->\n```cpp\n(.*?)```\n", re.DOTALL)


def regions(source):
    found = {}
    for name, body in REGION.findall(source):
        if name == "end" or name in found:
            raise ValueError(f"walkthrough.cpp: region '{name}' repeated or misnamed")
        found[name] = textwrap.dedent(body)
    ends = re.findall(r"^[ \t]*// \[walkthrough:end\][ \t]*$", source, re.MULTILINE)
    starts = re.findall(r"^[ \t]*// \[walkthrough:[a-z_]+\][ \t]*$", source, re.MULTILINE)
    if len(ends) != len(found) or len(starts) != 2 * len(found):
        raise ValueError("walkthrough.cpp: unbalanced // [walkthrough:...] markers")
    return found


def problems(source, page):
    code = regions(source)
    if not code:
        return ["walkthrough.cpp has no // [walkthrough:NAME] regions"]
    shown = {}
    for name, body in DOC_BLOCK.findall(page):
        if name in shown:
            return [f"walkthrough.md shows region '{name}' twice"]
        shown[name] = body
    out = []
    for name, body in code.items():
        if name not in shown:
            out.append(f"walkthrough.md lacks region '{name}' (a ```cpp block after <!-- walkthrough:{name} -->)")
        elif shown[name] != body:
            out.append(f"walkthrough.md's '{name}' block differs from examples/walkthrough.cpp:\n"
                       f"--- example\n{body}--- docs\n{shown[name]}")
    for name in shown:
        if name not in code:
            out.append(f"walkthrough.md shows '{name}', which examples/walkthrough.cpp no longer has")
    if page.count("<!-- walkthrough:") != len(shown):
        out.append("walkthrough.md has a <!-- walkthrough: --> marker not followed by a ```cpp block")
    return out


def main(argv):
    self_test = argv[1:2] == ["--self-test"]
    source_path, page_path = argv[2:4] if self_test else argv[1:3]
    source = open(source_path, encoding="utf-8").read()
    page = open(page_path, encoding="utf-8").read()
    try:
        found = problems(source, page)
    except ValueError as error:
        found = [str(error)]
    for problem in found:
        print(f"check_walkthrough_docs: {problem}", file=sys.stderr)
    if found:
        return 1
    if self_test:
        # A planted edit in either file must be caught.
        first = next(iter(regions(source).values())).splitlines()[1]
        edited_source = source.replace(first, first + " ", 1)
        edited_page = page.replace(first, first.replace("(", "( ", 1) if "(" in first else first + "x", 1)
        for label, s, p in (("example", edited_source, page), ("docs", source, edited_page)):
            if s == source and p == page:
                print(f"check_walkthrough_docs: self-test could not plant an edit in the {label}", file=sys.stderr)
                return 1
            if not problems(s, p):
                print(f"check_walkthrough_docs: self-test: an edit in the {label} went unnoticed", file=sys.stderr)
                return 1
    print(f"check_walkthrough_docs: {len(regions(source))} regions shown verbatim")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
