"""The runs listed in words (`vtlab runs` prints them) and as index.html: one self-contained page (inline CSS, no
script, no external request) linking every run's report.html, with the same columns."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from html import escape
from pathlib import Path
from urllib.parse import quote

from vtlab.report import html
from vtlab.results.listing import INDEX_NAME, HeadlineLine, Run

NAME = INDEX_NAME
COLUMNS = (("date", "date"), ("measured", "profile or target"), ("rows", "rows"), ("valid", "valid rows"),
           ("headline", "headline"), ("folder", "folder"))
NOT_REPORTED = "not reported"

CSS = html.CSS + """
tr.damaged td { background: #fdedec; } .damage { color: #922b21; }
"""


def cells(run: Run, folder: Path) -> dict[str, str]:
    """A run's line, by column; the headline one line a scenario, then what was damaged; `folder` is where the
    runs were listed from (the run's folder is named relative to it)."""
    return {"date": date(run), "measured": run.measured, "rows": str(run.rows),
            "valid": NOT_REPORTED if run.valid_rows is None else str(run.valid_rows),
            "headline": "\n".join(headline(run)), "folder": run.folder.relative_to(folder).as_posix()}


def date(run: Run) -> str:
    if run.started is None:
        return f"{run.file_time.isoformat(sep=' ', timespec='seconds')} (matrix.csv's time)"
    return run.started.isoformat(sep=" ", timespec="seconds") + (" (unfinished)" if run.finished is False else "")


def headline(run: Run) -> list[str]:
    """The report's answer a scenario a line, as its first screen says it (a paired run's paired ratio); from a
    report of before answers were written, its headline a line a load: the ratio where one was computed, else why
    not and what was measured; "not reported" where there is no report.json."""
    if run.headline is None:
        told = [NOT_REPORTED]
    elif run.answers:
        told = list(run.answers)
    else:
        told = [_line(line) for line in run.headline] or ["no headline line (the report holds the rest)"]
    return told + [f"damaged: {why}" for why in run.damage]


def _line(line: HeadlineLine) -> str:
    users = f"{int(line.load):,}" if line.load.isdigit() else line.load  # "1,000", as the report writes it
    load = f"{users} users" if line.load_model == "closed" else line.load
    if line.computed:
        return f"{line.scenario}, {load}: virtual ÷ platform {line.ratio}"
    measured = [f"{mode} {cell}" for mode, cell in (("platform", line.platform), ("virtual", line.virtual))
                if cell != "–"]
    return "; ".join([f"{line.scenario}, {load}: {line.ratio}", *measured])


def serialise(runs: Sequence[Run], folder: Path) -> str:
    """index.html of `folder`: its links are relative, so the page works wherever the folder is copied."""
    heading = "".join(f"<th>{escape(title)}</th>" for _, title in COLUMNS)
    body = "\n".join(_row(run, folder) for run in runs)
    listed = (f"{len(runs)} run(s), newest first; each links its report" if runs
              else "No runs here yet: <code>./vtlab run</code> measures one.")
    return "\n".join([
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>vtlab runs</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>vtlab runs: {escape(folder.name)}</h1>",
        f"<p class='small'>{listed} · written {escape(dt.datetime.now().isoformat(sep=' ', timespec='seconds'))}</p>",
        f"<table id='runs'><tr>{heading}</tr>", body, "</table></body></html>"])


def _row(run: Run, folder: Path) -> str:
    words = cells(run, folder)
    told = headline(run)
    shown = {**{key: escape(value) for key, value in words.items()},
             "headline": "<br>".join(escape(line) if not line.startswith("damaged: ")
                                     else f"<span class='damage'>{escape(line)}</span>" for line in told),
             "folder": _link(run, words["folder"])}
    css = " class='damaged'" if run.damage else ""
    return f"<tr{css}>" + "".join(f"<td class='{key}'>{shown[key]}</td>" for key, _ in COLUMNS) + "</tr>"


def _link(run: Run, relative: str) -> str:
    """The folder's name, linking its report.html; a run not reported links its folder."""
    target = f"{relative}/{run.report.name}" if run.report else f"{relative}/"
    note = "" if run.report else f" ({NOT_REPORTED})"
    return f"<a href='{escape(quote(target))}'>{escape(relative)}</a>{escape(note)}"
