"""report.md: the document's capacity section (a capacity run's answer, first), its answer (report.html's first
screen, the folded answers after the line that counts them), headline, story, scenario sections, failed rows and
comparison as Markdown (figures, every row and the environment are report.html's)."""

from __future__ import annotations

from vtlab.report.document import Answer, Document, Table

NAME = "report.md"


def serialise(document: Document) -> str:
    out = [f"# {document.title}", ""]
    if document.capacity:
        found = document.capacity
        out += [f"## {found.title}", "", *_bullets(found.sentences), "", *_table(found.table), ""]
    out += [*_answers(document), "## Headline", "", *_table(document.headline)]
    out += ["", *_bullets(document.story), ""]
    for section in document.sections:
        out += [f"## {section.title}", "", *_bullets(section.sentences), "", *_table(section.table), ""]
    if document.failed:
        out += ["## Failed rows", "", *_table(document.failed), ""]
    if document.compared:
        out += ["## Compared with", "", *_table(document.compared), ""]
    return "\n".join(out)


def _answers(document: Document) -> list[str]:
    """Each answer a bullet, its walls and the lines set apart below it; the folded ones after their count."""
    if not document.answers:
        return []
    shown = [line for answer in document.answers if not answer.folded for line in _answer(answer)]
    folded = [line for answer in document.answers if answer.folded for line in _answer(answer)]
    return ["## The answer", "", *shown, ""] + ([document.answers_folded + ":", "", *folded, ""] if folded else [])


def _answer(answer: Answer) -> list[str]:
    return [f"- **{answer.scenario}** · {answer.ratio}", *(f"  - {wall}" for wall in answer.walls),
            *(f"  - set apart, not valid: {line}" for line in answer.apart)]


def _bullets(sentences: tuple[str, ...]) -> list[str]:
    return [f"- {sentence}" for sentence in sentences]


def _table(table: Table) -> list[str]:
    if not table.columns:  # a section of sentences alone
        return []
    return (["| " + " | ".join(title for _, title in table.columns) + " |", "|" + "---|" * len(table.columns)]
            + ["| " + " | ".join(line[key].replace("|", "\\|") for key, _ in table.columns) + " |"
               for line in table.lines])
