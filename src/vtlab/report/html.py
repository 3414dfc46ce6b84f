"""report.html: the whole document as one self-contained page (inline CSS and SVG, no external request)."""

from __future__ import annotations

from html import escape

from vtlab.report.document import Document, EverySecond, Figure, Section, Table

NAME = "report.html"

CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #1c2833; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #d5d8dc; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #d5d8dc; padding: 0.3rem 0.6rem; text-align: left; }
th { background: #f4f6f7; } tr.invalid td { color: #922b21; background: #fdedec; }
.story li { margin: 0.4rem 0; line-height: 1.4; } figure { margin: 1rem 0; } svg { max-width: 100%; height: auto; }
.small { color: #566573; font-size: 0.85rem; }
"""


def serialise(document: Document) -> str:
    run = escape(document.run_name)
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>vtlab report: {run}</title>",
             f"<style>{CSS}</style></head><body>",
             f"<h1>{escape(document.title)}</h1>",
             f"<p class='small'>run {run} · {len(document.verdicts)} rows · {escape(document.started)}</p>",
             "<h2>Headline</h2>" + _table(document.headline),
             "<h2>What happened</h2>" + _story(document.story),
             "<h2>Figures</h2>",
             *(_figure(figure) for figure in document.figures),
             *(_section(section) for section in document.sections),
             _every_second(document.every_second)]
    if document.failed:
        parts.append("<h2>Failed rows</h2>" + _table(document.failed))
    if document.compared:
        # one table line to a source line, as the page has always laid this table out
        parts += ["<h2>Compared with</h2>", _table(document.compared, "\n")]
    parts += ["<h2>Every row</h2>" + _table(document.every_row, "\n"),
              "<h2>How the ceilings were computed</h2><ul class='small'>"
              # these notes carry apostrophes the page has always shown unescaped; none holds markup
              + "".join(f"<li>{escape(note, quote=False)}</li>" for note in document.ceiling_notes) + "</ul>",
              "<h2>Environment</h2><table id='environment'>"
              + "".join(f"<tr><th>{escape(key)}</th><td>{escape(value)}</td></tr>"
                        for key, value in document.environment)
              + "</table>",
              "</body></html>"]
    return "\n".join(parts)


def _story(sentences: tuple[str, ...]) -> str:
    return "<ul class='story'>" + "".join(f"<li>{escape(sentence)}</li>" for sentence in sentences) + "</ul>"


def _table(table: Table, between_lines: str = "") -> str:
    id_attribute = f" id='{table.id}'" if table.id else ""
    classes = table.line_classes or ("",) * len(table.lines)
    return between_lines.join(
        [f"<table{id_attribute}><tr>" + "".join(f"<th>{escape(title)}</th>" for _, title in table.columns) + "</tr>",
         *((f"<tr class='{css}'>" if css else "<tr>")
           + "".join(f"<td>{escape(line[key])}</td>" for key, _ in table.columns) + "</tr>"
           for line, css in zip(table.lines, classes, strict=True)),
         "</table>"])


def _figure(figure: Figure) -> str:
    drawn = f"<p class='small'>{escape(figure.instead)}</p>" if figure.instead else figure.svg
    return (f"<figure id='fig-{figure.name}'>{drawn}<figcaption "
            f"class='small'>{escape(figure.caption)}</figcaption></figure>")


def _section(section: Section) -> str:
    return (f"<section id='scenario-{section.key}'><h2>{escape(section.title)}</h2>" + _story(section.sentences)
            + _table(section.table) + (f"<figure>{section.svg}</figure>" if section.svg else "") + "</section>")


def _every_second(seconds: EverySecond) -> str:
    if not seconds.figures:
        return f"<h2>Every second</h2><p class='small'>{escape(seconds.note)}</p>"
    # the captions have always gone unescaped here (their apostrophes as they are); none holds markup
    return "<h2>Every second</h2>" + "".join(
        f"<figure id='{escape(figure.id)}' class='{figure.css_class}'>{figure.svg}<figcaption class='small'>"
        + escape(figure.caption, quote=False)
        + (f" · <a href='{escape(figure.link[0])}'>{escape(figure.link[1], quote=False)}</a>" if figure.link else "")
        + "</figcaption></figure>" for figure in seconds.figures)
