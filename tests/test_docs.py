"""The README and docs/ kept true: the README stays short, every relative link reaches a file (and, with an anchor,
a heading GitHub would give that anchor), every `./vtlab …` command they show is one vtlab accepts, and no table
cell or sentence is too long to read at once.

Commands are read from fenced code blocks (a trailing backslash continues a line, `#` starts a comment) and from
inline code in the prose. Each is parsed with vtlab's own parser, as `vtlab` parses it (cli.main.parse). A `run`
is then planned for real in-process with --dry-run (it prints the rows and starts nothing), and a `k8s render`
renders into a temporary folder; `k8s run` has no dry run (it measures on a cluster) and is parsed only, as are
the commands that only read runs (`report`, `compare`: their RUN, BASE and NEW are placeholders). A file a `run`
command names that the repository does not hold (`--service JAR`, `--script`, `--ids-file`) is replaced by a
stand-in: a jar whose manifest says Spring Boot, a file that exists. A synopsis is expanded into the commands it
stands for: `[--reseed]` both without and with it, `start|stop` each word, `NEW…` once.

Length is read outside fenced code blocks. A heading, a list item, a table cell and a paragraph are each a unit of
their own; a unit is cut into sentences at '.', '?' or '!' followed by a space (not ':', not inside inline code,
not after "e.g." or "i.e."), so 3.5.7 and report.md stay whole. A table row is cut into cells at every '|' not
escaped, as GitHub cuts it. A sentence's words are its whitespace-separated
tokens, inline code's included."""

from __future__ import annotations

import itertools
import re
import shlex
import zipfile
from pathlib import Path

import pytest

from vtlab.cli.main import parse

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = (README, *sorted((REPO / "docs").glob("*.md")))
README_MAX_LINES = 200
FENCE = re.compile(r"^(```|~~~)", re.M)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
# A reader takes in a table cell at a glance and a sentence in one breath; past these a rule wants a list or a table.
CELL_MAX = 300
SENTENCE_MAX_WORDS = 60
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
TABLE_RULE = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$")
# a sentence ends at . ? or ! (a closing bracket, quote or emphasis may follow) before a space, not after these
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.?!][)\]\"'”’*_]*(?=\s)")


def _prose_and_code(text: str) -> tuple[list[str], list[str]]:
    """The page cut at its fences: what lies outside them, and each fenced block's body."""
    parts = FENCE.split(text)
    # split keeps the fence marker as its own part: prose, marker, code + info line, marker, prose ...
    chunks = [part for i, part in enumerate(parts) if i % 2 == 0]
    prose, code = chunks[0::2], [chunk.split("\n", 1)[-1] for chunk in chunks[1::2]]
    return prose, code


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text (a link's text, not its address) lower-cased, every character
    but letters, digits, spaces, '-' and '_' dropped, spaces made '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor the page's headings give, a repeated one numbered as GitHub numbers it (-1, -2 …)."""
    seen: dict[str, int] = {}
    found = set()
    for prose in _prose_and_code(page.read_text())[0]:
        for _, heading in HEADING.findall(prose):
            base = slug(heading)
            found.add(f"{base}-{seen[base]}" if base in seen else base)
            seen[base] = seen.get(base, 0) + 1
    return found


def links(page: Path) -> list[str]:
    """The page's link targets outside code blocks and inline code, other than absolute addresses."""
    prose = "\n".join(_prose_and_code(page.read_text())[0])
    prose = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", prose, flags=re.S)  # a link shown as code is not one
    return [target for target in LINK.findall(prose) if not SCHEME.match(target)]


def broken(page: Path, target: str) -> str | None:
    """Why a relative link does not resolve on GitHub, or None when it does."""
    path, _, anchor = target.partition("#")
    destination = (page.parent / path).resolve() if path else page
    if not destination.exists():
        return f"{target}: no such file"
    if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
        return f"{target}: {destination.name} has no heading with that anchor"
    return None


def commands(page: Path) -> list[str]:
    """Every `./vtlab …` command line the page shows, as written."""
    prose, code = _prose_and_code(page.read_text())
    found = []
    for block in code:
        for line in re.sub(r"\\\n", " ", block).splitlines():
            if line.strip().startswith("./vtlab "):
                found.append(shlex.join(shlex.split(line, comments=True)))
    for paragraph in re.split(r"\n\s*\n", "\n".join(prose)):
        found += [span.strip() for span in re.findall(r"`([^`]+)`", paragraph.replace("\n", " "))
                  if span.strip().startswith("./vtlab ")]
    return found


def expanded(command: str) -> list[list[str]]:
    """The argument lists a command stands for: a synopsis's optional parts without and with them, each of its
    alternatives, a repeated part once."""
    optional = re.findall(r"\[([^\[\]]*)\]", command)
    template = re.sub(r"\[[^\[\]]*\]", "{}", command.replace("{", "{{").replace("}", "}}"))
    argvs = []
    for chosen in itertools.product(*[("", part) for part in optional]):
        words = shlex.split(template.format(*chosen).replace("…", ""))[1:]
        choices = [word.split("|") if re.fullmatch(r"\w[\w-]*(\|\w[\w-]*)+", word) else [word] for word in words]
        argvs += [list(argv) for argv in itertools.product(*choices)]
    return argvs


SHOWN = [(page, command) for page in PAGES for command in dict.fromkeys(commands(page))]


def test_the_readme_stays_short_and_keeps_its_two_commands_near_the_top():
    lines = README.read_text().splitlines()
    assert len(lines) <= README_MAX_LINES
    # .ci/run runs the README's test command; a newcomer reads both before anything else
    top = "\n".join(lines[:20])
    assert "\n./vtlab run " in top and "\n./vtlab test " in top


def test_every_page_is_listed_in_the_docs_index():
    index = REPO / "docs" / "README.md"
    listed = {(index.parent / target.partition("#")[0]).resolve() for target in links(index)}
    assert {page for page in PAGES if page.parent == index.parent and page != index} <= listed


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_relative_link_resolves_to_a_file_and_a_heading(page):
    problems = [problem for target in links(page) if (problem := broken(page, target))]
    assert not problems, f"{page.relative_to(REPO)}: " + "; ".join(problems)


def _stand_ins(argv: list[str], folder: Path) -> list[str]:
    """The command with each file it names that the repository lacks replaced by one that exists."""
    argv = list(argv)
    for i, word in enumerate(argv[:-1]):
        if argv[i] in ("--service", "--script", "--ids-file") and not (REPO / argv[i + 1]).exists():
            argv[i + 1] = str(folder / Path(argv[i + 1]).name)
            if word == "--service":
                with zipfile.ZipFile(argv[i + 1], "w") as jar:
                    jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nStart-Class: com.example.App\n"
                                                         "Spring-Boot-Version: 3.5.0\n")
            else:
                Path(argv[i + 1]).write_text("1\n2\n" if word == "--ids-file" else "export default function () {}\n")
    return argv


@pytest.mark.parametrize(("page", "command"), SHOWN,
                         ids=[f"{page.relative_to(REPO)}: {command}" for page, command in SHOWN])
def test_every_command_shown_parses_and_a_run_plans(page, command, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)  # the docs' relative paths are the repository's
    for argv in expanded(command):
        argv = _stand_ins(argv, tmp_path)
        try:
            args = parse(argv)
        except SystemExit as stop:  # argparse names the flag or value on stderr
            pytest.fail(f"{page.relative_to(REPO)}: `./vtlab {' '.join(argv)}` does not parse (exit {stop.code})")
        if args.command == "run":
            args.dry_run = True
        elif args.command == "k8s" and args.k8s_action == "render":
            args.out = tmp_path / "manifests"
        else:
            continue
        assert args.func(args) == 0, f"`./vtlab {' '.join(argv)}` refused:\n{capsys.readouterr().err}"


def _masked(text: str) -> str:
    """The text with inline code's characters other than spaces blanked out, so nothing inside it ends a sentence;
    the same length, so a place in it is a place in the text."""
    return CODE_SPAN.sub(lambda span: re.sub(r"\S", "x", span.group()), text)


def _cells(row: str) -> list[str]:
    """A table row's cells: cut at every '|' not escaped, inline code's too (GitHub cuts there as well)."""
    row = row.strip()
    bounds = [i for i, char in enumerate(row) if char == "|" and row[i - 1:i] != "\\"]
    if not bounds or bounds[0] != 0:
        bounds.insert(0, -1)
    if bounds[-1] != len(row) - 1:
        bounds.append(len(row))
    return [row[start + 1:end].strip() for start, end in itertools.pairwise(bounds)]


def units(page: Path) -> tuple[list[str], list[str]]:
    """The page's table cells, and its other units outside code blocks: headings, list items and paragraphs."""
    cells, others = [], []
    for prose in _prose_and_code(page.read_text())[0]:
        current: list[str] = []
        for line in [*prose.splitlines(), ""]:
            line = re.sub(r"^\s*>\s?", "", line)  # a quote's text is read as any other
            starts = not line.strip() or line.lstrip().startswith("|") or HEADING.match(line) or LIST_ITEM.match(line)
            if starts and current:
                others.append(" ".join(current))
                current = []
            if line.lstrip().startswith("|"):
                if not TABLE_RULE.match(line.strip()):
                    cells += _cells(line)
            elif HEADING.match(line):
                others.append(HEADING.match(line).group(2))
            elif line.strip():
                current.append(LIST_ITEM.sub("", line).strip() if LIST_ITEM.match(line) else line.strip())
    return cells, others


def sentences(unit: str) -> list[str]:
    """A unit cut where a sentence ends, outside inline code."""
    ends = [match.end() for match in SENTENCE_END.finditer(_masked(unit))]
    pieces = [unit[start:end].strip() for start, end in itertools.pairwise([0, *ends, len(unit)])]
    return [piece for piece in pieces if piece]


def _opening(text: str) -> str:
    """The first words of a unit, enough to find it on the page."""
    return " ".join(text.split()[:8]) + " …"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_no_table_cell_is_too_long_to_read_at_a_glance(page):
    long = [f"{len(cell)} characters: {_opening(cell)!r}" for cell in units(page)[0] if len(cell) > CELL_MAX]
    assert not long, (f"{page.relative_to(REPO)}: {len(long)} of its table cells are over {CELL_MAX} characters "
                      f"(more rows, or a list below the table, read better):\n" + "\n".join(long))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_no_sentence_is_too_long_to_read_in_one_breath(page):
    cells, others = units(page)
    long = [f"{len(sentence.split())} words: {_opening(sentence)!r}" for unit in [*cells, *others]
            for sentence in sentences(unit) if len(sentence.split()) > SENTENCE_MAX_WORDS]
    assert not long, (f"{page.relative_to(REPO)}: {len(long)} of its sentences are over {SENTENCE_MAX_WORDS} words "
                      f"(cut them, or make the rule a list):\n" + "\n".join(long))


def test_a_sentence_ends_at_a_stop_not_at_an_abbreviation_a_version_a_file_name_or_inline_code():
    assert sentences("Boot 3.5.7 writes report.md, e.g. twice: i.e. once more. Then `a. b` stays! Why? No.") == [
        "Boot 3.5.7 writes report.md, e.g. twice: i.e. once more.", "Then `a. b` stays!", "Why?", "No."]


def test_a_heading_a_list_item_a_table_cell_and_a_paragraph_are_units_of_their_own(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nA paragraph\nwrapped:\n- an item\n  continued\n\n| a | `b\\|c` |\n|---|---|\n"
                    "| d \\| e | f |\n\n```sh\nnot prose\n```\n")
    assert units(page) == (["a", "`b\\|c`", "d \\| e", "f"], ["Title", "A paragraph wrapped:", "an item continued"])
