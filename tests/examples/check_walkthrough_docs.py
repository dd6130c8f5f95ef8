#!/usr/bin/env python3
"""Checks that a page of the docs shows the code of compiled examples verbatim.

    check_walkthrough_docs.py [--self-test] [--marker NAME] <source>... <page.md>

    check_walkthrough_docs.py --self-test examples/walkthrough.cpp docs/walkthrough.md
    check_walkthrough_docs.py --marker extending examples/external_project/*.cpp \\
        examples/external_project/CMakeLists.txt docs/extending.md

Every region between "// [NAME:REGION]" and "// [NAME:end]" of the sources
("# [NAME:REGION]" in CMake files), with its common indentation removed,
must appear in the page as a ```cpp (or ```cmake) block right after an
"<!-- NAME:REGION -->" marker, and every marked block of the page must come
from a source. NAME is "walkthrough" unless --marker says otherwise; region
names are unique across the sources. --self-test also plants an edit in a
copy of a source and of the page and expects the check to fail on both.
"""
import re
import sys
import textwrap


def patterns(marker):
    comment = r"(?://|#)"
    region = re.compile(rf"^[ \t]*{comment} \[{marker}:([a-z_]+)\][ \t]*\n(.*?)^[ \t]*{comment} \[{marker}:end\][ \t]*$",
                        re.MULTILINE | re.DOTALL)
    start = re.compile(rf"^[ \t]*{comment} \[{marker}:[a-z_]+\][ \t]*$", re.MULTILINE)
    end = re.compile(rf"^[ \t]*{comment} \[{marker}:end\][ \t]*$", re.MULTILINE)
    block = re.compile(rf"<!-- {marker}:([a-z_]+) -->\n```(?:cpp|cmake)\n(.*?)```\n", re.DOTALL)
    return region, start, end, block


def regions(sources, marker):
    region, start, end, _ = patterns(marker)
    found = {}
    for path, source in sources:
        names = 0
        for name, body in region.findall(source):
            if name == "end" or name in found:
                raise ValueError(f"{path}: region '{name}' repeated or misnamed")
            found[name] = textwrap.dedent(body)
            names += 1
        if len(end.findall(source)) != names or len(start.findall(source)) != 2 * names:
            raise ValueError(f"{path}: unbalanced [{marker}:...] markers")
    return found


def problems(sources, page, marker):
    code = regions(sources, marker)
    if not code:
        return [f"the sources have no [{marker}:NAME] regions"]
    *_, block = patterns(marker)
    shown = {}
    for name, body in block.findall(page):
        if name in shown:
            return [f"the page shows region '{name}' twice"]
        shown[name] = body
    out = []
    for name, body in code.items():
        if name not in shown:
            out.append(f"the page lacks region '{name}' (a ```cpp block after <!-- {marker}:{name} -->)")
        elif shown[name] != body:
            out.append(f"the page's '{name}' block differs from the source:\n--- source\n{body}--- page\n{shown[name]}")
    for name in shown:
        if name not in code:
            out.append(f"the page shows '{name}', which no source has any more")
    if page.count(f"<!-- {marker}:") != len(shown):
        out.append(f"the page has a <!-- {marker}: --> marker not followed by a ```cpp or ```cmake block")
    return out


def main(argv):
    arguments = argv[1:]
    self_test = "--self-test" in arguments
    if self_test:
        arguments.remove("--self-test")
    marker = "walkthrough"
    if "--marker" in arguments:
        at = arguments.index("--marker")
        marker = arguments[at + 1]
        del arguments[at:at + 2]
    if len(arguments) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    *source_paths, page_path = arguments
    sources = [(path, open(path, encoding="utf-8").read()) for path in source_paths]
    page = open(page_path, encoding="utf-8").read()
    try:
        found = problems(sources, page, marker)
    except ValueError as error:
        found = [str(error)]
    for problem in found:
        print(f"check_walkthrough_docs: {page_path}: {problem}", file=sys.stderr)
    if found:
        return 1
    if self_test:
        # A planted edit in a source or in the page must be caught.
        first = next(iter(regions(sources, marker).values())).splitlines()[1]
        holder = next(i for i, (_, source) in enumerate(sources) if first in source)
        edited_sources = list(sources)
        edited_sources[holder] = (sources[holder][0], sources[holder][1].replace(first, first + " ", 1))
        edited_page = page.replace(first, first.replace("(", "( ", 1) if "(" in first else first + "x", 1)
        for label, s, p in (("source", edited_sources, page), ("docs", sources, edited_page)):
            if s == sources and p == page:
                print(f"check_walkthrough_docs: self-test could not plant an edit in the {label}", file=sys.stderr)
                return 1
            if not problems(s, p, marker):
                print(f"check_walkthrough_docs: self-test: an edit in the {label} went unnoticed", file=sys.stderr)
                return 1
    print(f"check_walkthrough_docs: {page_path}: {len(regions(sources, marker))} regions shown verbatim")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
