"""report.md: the document's capacity section (a capacity run's answer, first), headline, story, scenario sections,
failed rows and comparison as Markdown (figures, every row and the environment are report.html's)."""

from __future__ import annotations

from vtlab.report.document import Document, Table

NAME = "report.md"


def serialise(document: Document) -> str:
    out = [f"# {document.title}", ""]
    if document.capacity:
        found = document.capacity
        out += [f"## {found.title}", "", *_bullets(found.sentences), "", *_table(found.table), "",
                "## The points as rows", ""]
    out += _table(document.headline)
    out += ["", *_bullets(document.story), ""]
    for section in document.sections:
        out += [f"## {section.title}", "", *_bullets(section.sentences), "", *_table(section.table), ""]
    if document.failed:
        out += ["## Failed rows", "", *_table(document.failed), ""]
    if document.compared:
        out += ["## Compared with", "", *_table(document.compared), ""]
    return "\n".join(out)


def _bullets(sentences: tuple[str, ...]) -> list[str]:
    return [f"- {sentence}" for sentence in sentences]


def _table(table: Table) -> list[str]:
    return (["| " + " | ".join(title for _, title in table.columns) + " |", "|" + "---|" * len(table.columns)]
            + ["| " + " | ".join(line[key].replace("|", "\\|") for key, _ in table.columns) + " |"
               for line in table.lines])
