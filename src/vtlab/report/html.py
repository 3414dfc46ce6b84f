"""report.html: the whole document as one self-contained page (inline CSS and SVG, no script, nothing fetched).

Its first screen (1280×800) answers: a contents list, each scenario's ratio and each mode's wall with the lines
that are not valid set apart, and the main chart at the page's full width; every section follows, and the
per-row time charts last, grouped by scenario and folded. A capacity run's answer comes before all of it: each
mode's capacity in words, its curve, and every point it measured, folded."""

from __future__ import annotations

from html import escape

from vtlab.report.document import Answer, CapacitySection, Document, EverySecond, Figure, Section, Table, Timeline

NAME = "report.html"

CSS = """
body { font-family: system-ui, sans-serif; margin: 0.6rem auto; max-width: 1240px; padding: 0 1rem; color: #1c2833; }
h1 { margin: 0; font-size: 1.45rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #d5d8dc; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.9rem; display: block; overflow-x: auto; }
th, td { border: 1px solid #d5d8dc; padding: 0.3rem 0.6rem; text-align: left; }
th { background: #f4f6f7; } tr.invalid td { color: #922b21; background: #fdedec; }
.story li { margin: 0.4rem 0; line-height: 1.4; } figure { margin: 1rem 0; } svg { max-width: 100%; height: auto; }
.small { color: #566573; font-size: 0.85rem; }
#contents ol { display: flex; flex-wrap: wrap; gap: 0.1rem 1.1rem; list-style: none; padding: 0; margin: 0.3rem 0;
  font-size: 0.85rem; }
#answer { border-top: 1px solid #d5d8dc; padding-top: 0.3rem; }
.answers { display: grid; grid-template-columns: repeat(auto-fit, minmax(440px, 1fr)); gap: 0.2rem 1.4rem; }
.answer p { margin: 0.15rem 0; } .answer ul { margin: 0; padding-left: 1.1rem; font-size: 0.88rem; }
.answer .apart li, .answer span.apart { color: #922b21; background: #fdedec; list-style: square; }
.answers.more { font-size: 0.85rem; margin-top: 0.3rem; } .answers.more summary { cursor: pointer; }
.answers.more > .answer { margin-left: 1.1rem; }
figure.main { margin: 0.2rem 0 0; } figure.main svg { width: 100%; height: auto; }
details.caption summary, details.seconds summary { cursor: pointer; }
details.seconds { margin: 0.2rem 0; } details.seconds.invalid > summary { color: #922b21; }
"""


def serialise(document: Document) -> str:
    run = escape(document.run_name)
    blocks = _blocks(document)
    return "\n".join([
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>vtlab report: {run}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{escape(document.title)}</h1>",
        f"<p class='small'>run {run} · {len(document.verdicts)} rows · {escape(document.started)}</p>",
        _contents(blocks, document.capacity), _capacity(document.capacity), _first_screen(document),
        *(f"<section id='{anchor}'><h2>{escape(title)}</h2>{body}</section>" for anchor, title, body in blocks),
        "</body></html>"])


def _blocks(document: Document) -> list[tuple[str, str, str]]:
    """Every section after the first screen, as (anchor, title, markup): the contents list links each. A scenario's
    anchor is its key's; the others' say "section-", apart from the ids of the tables they hold."""
    figures = [figure for figure in document.figures if figure.name != document.main_figure]
    blocks = [("section-headline", "Headline", _table(document.headline)), ("section-what-happened", "What happened",
                                                                     _story(document.story))]
    if figures:
        blocks.append(("section-figures", "Figures", "".join(_figure(figure) for figure in figures)))
    blocks += [(f"scenario-{section.key}", section.title, _section(section)) for section in document.sections]
    blocks.append(("section-every-second", "Every second", _every_second(document.every_second)))
    if document.failed:
        blocks.append(("section-failed", "Failed rows", _table(document.failed)))
    if document.compared:
        # one table line to a source line, as the page has always laid this table out
        blocks.append(("section-compared", "Compared with", _table(document.compared, "\n")))
    blocks += [("section-every-row", "Every row", _table(document.every_row, "\n")),
               # these notes carry apostrophes the page has always shown unescaped; none holds markup
               ("section-ceilings", "How the ceilings were computed", "<ul class='small'>" + "".join(
                   f"<li>{escape(note, quote=False)}</li>" for note in document.ceiling_notes) + "</ul>"),
               ("section-environment", "Environment", "<table id='environment'>" + "".join(
                   f"<tr><th>{escape(key)}</th><td>{escape(value)}</td></tr>" for key, value in document.environment)
                + "</table>")]
    return blocks


def _contents(blocks: list[tuple[str, str, str]], capacity: CapacitySection | None) -> str:
    first = f"<li><a href='#capacity'>{escape(capacity.title)}</a></li>" if capacity else ""
    return ("<nav id='contents' class='small'><ol>" + first + "<li><a href='#answer'>The answer</a></li>"
            + "".join(f"<li><a href='#{anchor}'>{escape(title)}</a></li>" for anchor, title, _ in blocks)
            + "</ol></nav>")


def _capacity(found: CapacitySection | None) -> str:
    """A capacity run's answer in words, its curve at full width (the caption folded), its points folded."""
    if found is None:
        return ""
    figure = found.figure
    return (f"<section id='capacity'><h2>{escape(found.title)}</h2>{_story(found.sentences)}"
            f"<figure id='fig-{figure.name}' class='main'>{figure.svg}<details class='caption small'><summary>How to "
            f"read this chart</summary>{escape(figure.caption)}</details></figure>"
            f"<details><summary>Every point the search measured</summary>{_table(found.table)}</details></section>")


def _first_screen(document: Document) -> str:
    """The answers told in full side by side, the others folded under one line that counts them, then the main
    chart at full width, its caption folded."""
    main = next((figure for figure in document.figures if figure.name == document.main_figure), None)
    chart = (f"<figure id='fig-{main.name}' class='main'>{main.svg}<details class='caption small'><summary>How "
             f"to read this chart</summary>{escape(main.caption)}</details></figure>") if main else ""
    more = [answer for answer in document.answers if answer.folded]
    return ("<section id='answer'><div class='answers'>"
            + "".join(_answer(answer) for answer in document.answers if not answer.folded) + "</div>"
            + (f"<details class='answers more'><summary>{escape(document.answers_folded)}</summary>"
               + "".join(map(_folded_answer, more)) + "</details>" if more else "")
            + chart + "</section>")


def _answer(answer: Answer) -> str:
    return (f"<div class='answer'><p><strong>{escape(answer.scenario)}</strong> · {escape(answer.ratio)}</p>"
            + _walls(answer) + "</div>")


def _folded_answer(answer: Answer) -> str:
    """A variant's answer in one line, its walls folded; the lines set apart counted in that line."""
    apart = f" <span class='apart'>· {len(answer.apart)} set apart, not valid</span>" if answer.apart else ""
    return (f"<details class='answer'><summary><strong>{escape(answer.scenario)}</strong> · {escape(answer.ratio)}"
            f"{apart}</summary>{_walls(answer)}</details>")


def _walls(answer: Answer) -> str:
    apart = ("<ul class='apart'>" + "".join(f"<li>set apart, not valid: {escape(line)}</li>" for line in answer.apart)
             + "</ul>") if answer.apart else ""
    return "<ul class='walls'>" + "".join(f"<li>{escape(wall)}</li>" for wall in answer.walls) + "</ul>" + apart


def _story(sentences: tuple[str, ...]) -> str:
    return "<ul class='story'>" + "".join(f"<li>{escape(sentence)}</li>" for sentence in sentences) + "</ul>"


def _table(table: Table, between_lines: str = "") -> str:
    if not table.columns:  # a section of sentences alone
        return ""
    id_attribute = f" id='{table.id}'" if table.id else ""
    classes = table.line_classes or ("",) * len(table.lines)
    return between_lines.join(
        [f"<table{id_attribute}><tr>" + "".join(f"<th>{escape(title)}</th>" for _, title in table.columns) + "</tr>",
         *((f"<tr class='{css}'>" if css else "<tr>")
           + "".join(f"<td>{escape(line[key])}</td>" for key, _ in table.columns) + "</tr>"
           for line, css in zip(table.lines, classes, strict=True)),
         "</table>"])


def _figure(figure: Figure) -> str:
    """A chart with its caption; a chart not drawn (a sentence instead) without one: a caption reads a chart."""
    if figure.instead:
        return f"<figure id='fig-{figure.name}'><p class='small'>{escape(figure.instead)}</p></figure>"
    return (f"<figure id='fig-{figure.name}'>{figure.svg}<figcaption "
            f"class='small'>{escape(figure.caption)}</figcaption></figure>")


def _section(section: Section) -> str:
    return (_story(section.sentences) + _table(section.table)
            + (f"<figure>{section.svg}</figure>" if section.svg else ""))


def _every_second(seconds: EverySecond) -> str:
    """A scenario at a time, each figure folded under its one line (the overlays first, then each row)."""
    if not seconds.figures:
        return f"<p class='small'>{escape(seconds.note)}</p>"
    groups: dict[str, list[Timeline]] = {}
    for figure in seconds.figures:
        groups.setdefault(figure.group, []).append(figure)
    return "".join(f"<section class='seconds'><h3>{escape(group)}</h3>" + "".join(map(_folded, figures))
                   + "</section>" for group, figures in groups.items())


def _folded(figure: Timeline) -> str:
    # the captions have always gone unescaped here (their apostrophes as they are); none holds markup
    return (f"<details class='seconds{'' if figure.valid else ' invalid'}'><summary>{escape(figure.summary)}"
            f"</summary><figure id='{escape(figure.id)}' class='{figure.css_class}'>{figure.svg}"
            "<figcaption class='small'>" + escape(figure.caption, quote=False)
            + (f" · <a href='{escape(figure.link[0])}'>{escape(figure.link[1], quote=False)}</a>"
               if figure.link else "") + "</figcaption></figure></details>")
