#!/usr/bin/env python3
"""One named section of bench/RESULTS.md, replaced in place by the benchmark that measures it.

A section is the text between two marker lines:

    <!-- results:NAME -->
    ## Title
    - Machine: ...  - Commit: ...  - Command: ...  - Baseline, same run: ...
    (the table)
    <!-- /results:NAME -->

replace_section(path, name, text) puts `text` between NAME's markers, or
appends the section at the end of the file when it has none. A start marker
without its end marker, a section marked twice, or text that holds markers
itself is refused (ValueError) and the file is left as it was; the new file
is written beside the old one and renamed over it (atomic on POSIX).

The bench scripts (compare_pyg.py, mixed_precision.py, time_to_first_epoch.py,
compare_peer_kernels.py, multiprocess_scaling.py) call write_section(); each
also saves the section as OUT/NAME.section.md, since on the GPU machine only
OUT comes back. Command line:

    results_section.py [--results FILE] --apply OUT/NAME.section.md ...      # put saved sections in
    results_section.py [--results FILE] --name NAME --title TITLE --command CMD --baseline TEXT --body TABLE.md
                       [--machine TEXT] [--commit TEXT] [--out OUT]           # wrap a C++ bench's --markdown table
                                                                              # (--out: saved there too)
    results_section.py --self-test

The commit is $SGNN_COMMIT when set (set it on the GPU machine, whose copy
of the tree may carry a .git of another commit than the staged build's),
else `git rev-parse --short HEAD` of this checkout (with "+changes" when
tracked files differ from it).
"""
import argparse
import datetime
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_RESULTS = os.path.join(ROOT, "bench", "RESULTS.md")
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
MARKER = re.compile(r"^<!-- (/?)results:([^ ]+) -->$")


def start_marker(name):
    return f"<!-- results:{name} -->"


def end_marker(name):
    return f"<!-- /results:{name} -->"


def replace_section(path, name, text):
    """Replaces section NAME of the file at path by text (appends it where absent), atomically."""
    if not NAME.match(name):
        raise ValueError(f"results_section: bad section name {name!r} (lower-case letters, digits, '-')")
    body = text.strip("\n")
    for line in body.splitlines():
        if MARKER.match(line.strip()):
            raise ValueError(f"results_section: the text of section {name!r} holds a marker line: {line.strip()}")
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == start_marker(name)]
    ends = [i for i, line in enumerate(lines) if line.strip() == end_marker(name)]
    if len(starts) > 1 or len(ends) > 1:
        raise ValueError(f"{path}: section {name!r} is marked {max(len(starts), len(ends))} times")
    if starts and not ends:
        raise ValueError(f"{path}:{starts[0] + 1}: section {name!r} has no end marker {end_marker(name)}")
    if ends and not starts:
        raise ValueError(f"{path}:{ends[0] + 1}: section {name!r} has an end marker but no start marker")
    section = [start_marker(name)] + body.splitlines() + [end_marker(name)]
    if starts:
        if ends[0] < starts[0]:
            raise ValueError(f"{path}:{ends[0] + 1}: section {name!r} ends before it starts")
        lines = lines[:starts[0]] + section + lines[ends[0] + 1:]
    else:
        while lines and not lines[-1].strip():
            lines.pop()
        lines = lines + ([""] if lines else []) + section
    folder = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=".results-", dir=folder)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, os.stat(path).st_mode & 0o777)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def read_saved_section(path):
    """(name, text) of a section saved with its markers (OUT/NAME.section.md)."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().strip("\n").splitlines()
    first = MARKER.match(lines[0].strip()) if lines else None
    last = MARKER.match(lines[-1].strip()) if len(lines) > 1 else None
    if not first or first.group(1) or not last or last.group(1) != "/" or last.group(2) != first.group(2):
        raise ValueError(f"{path}: not a saved section (a start marker first, its end marker last)")
    return first.group(2), "\n".join(lines[1:-1])


def machine():
    """The GPUs (name, count, driver) where nvidia-smi answers, else the CPU model and its cores."""
    try:
        listing = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=30)
        gpus = [line.strip() for line in listing.stdout.splitlines() if line.strip()]
        if listing.returncode == 0 and gpus:
            name, driver = [part.strip() for part in gpus[0].split(",", 1)]
            return f"{len(gpus)}x {name} (driver {driver})" if len(gpus) > 1 else f"{name} (driver {driver})"
    except (OSError, subprocess.SubprocessError, ValueError):
        pass
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, no GPU"


def commit():
    """$SGNN_COMMIT when set (the device machine's copy of the tree carries a .git that need not be the staged
    build's commit), else this checkout's commit (git rev-parse), '+changes' when tracked files differ."""
    if os.environ.get("SGNN_COMMIT"):
        return os.environ["SGNN_COMMIT"]
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        if head.returncode == 0:
            changes = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                                     capture_output=True, text=True)
            return head.stdout.strip() + ("+changes" if changes.stdout.strip() else "")
    except OSError:
        pass
    return "unknown (no git checkout here; set SGNN_COMMIT)"


def command_line(argv=None):
    """The command that ran, as a reader can paste it."""
    argv = sys.argv if argv is None else argv
    script = os.path.relpath(os.path.abspath(argv[0]), ROOT) if argv else "?"
    return " ".join(["python3", shlex.quote(script)] + [shlex.quote(a) for a in argv[1:]])


def section_text(title, command, baseline, body, machine_text=None, commit_text=None):
    """A section's text: its heading, where and how it was measured, against what, then the body."""
    return "\n".join([
        f"## {title}", "",
        f"- Machine: {machine_text or machine()}",
        f"- Commit: {commit_text or commit()} ({datetime.date.today().isoformat()})",
        f"- Command: `{command}`",
        f"- Baseline, same run: {baseline}", "",
        body.strip("\n")])


def write_section(results, out, name, title, baseline, body, command=None):
    """Writes section NAME into the results file (None: skip) and saves it as OUT/NAME.section.md."""
    text = section_text(title, command or command_line(), baseline, body)
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f"{name}.section.md"), "w", encoding="utf-8") as handle:
            handle.write(start_marker(name) + "\n" + text + "\n" + end_marker(name) + "\n")
    if results:
        replace_section(results, name, text)
        print(f"results_section: wrote section {name!r} of {results}", file=sys.stderr)
    return text


def add_arguments(parser, default_section):
    """The options every bench script shares: where its section goes."""
    parser.add_argument("--results", default=DEFAULT_RESULTS,
                        help="the results file whose section this run rewrites (default bench/RESULTS.md)")
    parser.add_argument("--no-results", action="store_true",
                        help="leave the results file alone (the section is still saved in the output folder)")
    parser.add_argument("--section", default=default_section,
                        help=f"the section's name (default {default_section})")


def self_test():
    """Replacing, appending, and refusing bad files without touching them."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "RESULTS.md")

        def write(text):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)

        def read():
            with open(path, encoding="utf-8") as handle:
                return handle.read()

        write("# Results\n\n<!-- results:a -->\nold a\n<!-- /results:a -->\n\n"
              "<!-- results:b -->\nold b\n<!-- /results:b -->\n")
        replace_section(path, "a", "new a\nsecond line")
        assert read() == ("# Results\n\n<!-- results:a -->\nnew a\nsecond line\n<!-- /results:a -->\n\n"
                          "<!-- results:b -->\nold b\n<!-- /results:b -->\n"), read()
        replace_section(path, "c", "c's text\n")
        assert read().endswith("<!-- /results:b -->\n\n<!-- results:c -->\nc's text\n<!-- /results:c -->\n"), read()
        assert read().count("old b") == 1 and "old a" not in read()

        refusals = {
            "no end marker": ("# R\n<!-- results:a -->\nold a\n", "a", "new"),
            "end before start": ("<!-- /results:a -->\n<!-- results:a -->\n", "a", "new"),
            "marked twice": ("<!-- results:a -->\n<!-- /results:a -->\n<!-- results:a -->\n<!-- /results:a -->\n",
                             "a", "new"),
            "marker in the text": ("<!-- results:a -->\nx\n<!-- /results:a -->\n", "a", "<!-- /results:a -->"),
            "bad name": ("x\n", "A b", "new"),
        }
        for case, (before, name, text) in refusals.items():
            write(before)
            try:
                replace_section(path, name, text)
            except ValueError:
                pass
            else:
                raise AssertionError(f"{case}: not refused")
            assert read() == before, f"{case}: the file changed"
            assert sorted(os.listdir(folder)) == ["RESULTS.md"], f"{case}: left {os.listdir(folder)}"

        # A write that fails part-way (here: the flush to disk) leaves the old file and no temporary.
        write("<!-- results:a -->\nold a\n<!-- /results:a -->\n")
        real_fsync = os.fsync

        def failing_fsync(descriptor):
            raise OSError("disk full")
        os.fsync = failing_fsync
        try:
            replace_section(path, "a", "new a")
        except OSError:
            pass
        else:
            raise AssertionError("a failed write was not reported")
        finally:
            os.fsync = real_fsync
        assert read() == "<!-- results:a -->\nold a\n<!-- /results:a -->\n", read()
        assert sorted(os.listdir(folder)) == ["RESULTS.md"], os.listdir(folder)

        saved = os.path.join(folder, "out")
        write("# R\n")
        text = write_section(path, saved, "s", "Title", "the baseline", "| a |\n|---|\n| 1 |", command="cmd --x")
        name, restored = read_saved_section(os.path.join(saved, "s.section.md"))
        assert name == "s" and restored == text, (name, restored)
        assert "- Command: `cmd --x`" in read() and "- Baseline, same run: the baseline" in read()
    print("results_section self-test: ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default=DEFAULT_RESULTS)
    parser.add_argument("--apply", nargs="+", metavar="SAVED", help="saved sections (OUT/NAME.section.md) to put in")
    parser.add_argument("--name")
    parser.add_argument("--title")
    parser.add_argument("--command", help="the benchmark's command line, as run")
    parser.add_argument("--baseline", help="what the run measured beside ours")
    parser.add_argument("--body", help="a markdown file (a C++ bench's --markdown table)")
    parser.add_argument("--machine")
    parser.add_argument("--commit")
    parser.add_argument("--out", help="with --body: also save the section as OUT/NAME.section.md")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    try:
        if args.self_test:
            self_test()
        elif args.apply:
            for saved in args.apply:
                name, text = read_saved_section(saved)
                replace_section(args.results, name, text)
                print(f"results_section: wrote section {name!r} of {args.results}")
        elif args.name and args.title and args.command and args.baseline and args.body:
            with open(args.body, encoding="utf-8") as handle:
                body = handle.read()
            text = section_text(args.title, args.command, args.baseline, body, args.machine, args.commit)
            replace_section(args.results, args.name, text)
            if args.out:
                os.makedirs(args.out, exist_ok=True)
                with open(os.path.join(args.out, f"{args.name}.section.md"), "w", encoding="utf-8") as handle:
                    handle.write(start_marker(args.name) + "\n" + text + "\n" + end_marker(args.name) + "\n")
        else:
            parser.error("give --apply, --self-test, or --name, --title, --command, --baseline and --body")
    except (OSError, ValueError) as error:
        sys.exit(str(error))


if __name__ == "__main__":
    main()
