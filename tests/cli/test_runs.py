"""`vtlab runs` and `vtlab report` without a run folder, on a results folder of recorded runs: two reported, one as
recorded without its report, one damaged, one folder that is no run. Every expected value below was read by hand
from tests/recorded/ (metadata.json's started and target, analysis.csv's valid column, report.md's headline)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
from html import unescape
from pathlib import Path

import pytest

import browser
from vtlab.cli.main import main
from vtlab.core import settings
from vtlab.report import render

RECORDED = Path(__file__).resolve().parents[1] / "recorded"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DERIVED = ("analysis.csv", "report.md", "report.html", "report.json", "charts.json")
# the damaged run has no start it can tell: it is dated by its matrix.csv, set to fall between two others
DAMAGED_TIME = dt.datetime(2026, 11, 27, 13, 45, tzinfo=dt.timezone.utc)

TINY = ["2026-11-27 13:57:16+00:00  quick  2 rows, 2 valid  {dir}/tiny",
        "    released, pool 50 · virtual ÷ platform at 20 users: 0.85× [0.75–0.96]"]
URL = ["2026-11-27 13:53:47+00:00  --url http://127.0.0.1:57407 · GET /api/order-summary/{{id}} (ids 1-1000)  "
       "1 row, not reported  {dir}/url",
       "    not reported"]
DAMAGED = ["2026-11-27 13:45:00+00:00 (matrix.csv's time)  unknown  1 row, not reported  {dir}/damaged",
           "    not reported",
           "    damaged: matrix.csv: its last row is cut short",
           "    damaged: metadata.json: not JSON (Unterminated string starting at: line 1 column 13 (char 12))"]
OVERLOAD = ["2026-11-27 13:37:50+00:00  quick  1 row, 0 valid  {dir}/group/overload",
            "    held, pool 2 · at 40 users: no ratio: platform threads not measured here"]


def _copy(recorded: str, to: Path, keep_report: bool = True) -> Path:
    shutil.copytree(RECORDED / recorded, to)
    if not keep_report:
        for name in DERIVED:
            (to / name).unlink(missing_ok=True)
    return to


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("results")
    render.render(_copy("tiny-matrix/run", folder / "tiny"))
    render.render(_copy("overload/run", folder / "group" / "overload"))  # a run one level down
    _copy("url-service/url", folder / "url", keep_report=False)
    damaged = _copy("spike/run", folder / "damaged", keep_report=False)
    (damaged / "metadata.json").write_text('{"started": "2026-11-27T13:5')  # cut short
    matrix = (damaged / "matrix.csv").read_text()
    last_row = matrix.rstrip("\n").rfind("\n") + 1
    (damaged / "matrix.csv").write_text(matrix[:last_row + 40])  # the second row half written
    os.utime(damaged / "matrix.csv", (DAMAGED_TIME.timestamp(),) * 2)
    (folder / "notes").mkdir()
    (folder / "notes" / "todo.txt").write_text("not a run\n")
    return folder


def _expected(*runs: list[str], folder: Path) -> list[str]:
    return [line.format(dir=folder) for run in runs for line in run]


def test_runs_are_listed_newest_first_with_what_each_measured_and_answered_and_what_was_damaged(results, capsys):
    # notes/ holds no matrix.csv: no run, not listed
    assert main(["runs", "--dir", str(results)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"4 run(s) under {results}, newest first:"
    assert out[1:-1] == _expected(TINY, URL, DAMAGED, OVERLOAD, folder=results)
    assert out[-1] == f"index: {results / 'index.html'}"


def test_the_index_links_every_reported_run_to_its_report_and_the_others_to_their_folder(results, capsys):
    main(["runs", "--dir", str(results)])
    page = (results / "index.html").read_text()
    links = re.findall(r"<a href='([^']*)'>", page)
    assert links == ["tiny/report.html", "url/", "damaged/", "group/overload/report.html"]
    assert (results / links[0]).resolve() == (results / "tiny" / "report.html").resolve()
    assert all((results / link).exists() for link in links)
    assert "http://" not in page.replace("http://127.0.0.1:57407", "")  # nothing fetched from the network
    assert "<script" not in page and "GET /api/order-summary/{id} (ids 1-1000)" in page


def test_the_index_escapes_what_the_runs_recorded(tmp_path, capsys):
    run = _copy("url-service/url", tmp_path / "<b>run", keep_report=False)
    metadata = (run / "metadata.json").read_text().replace("GET /api/order-summary", "GET /<i>x</i>")
    (run / "metadata.json").write_text(metadata)
    assert main(["runs", "--dir", str(tmp_path)]) == 0
    page = (tmp_path / "index.html").read_text()
    assert "<b>" not in page and "<i>" not in page
    assert "&lt;b&gt;run" in page and "GET /&lt;i&gt;x&lt;/i&gt;" in page
    assert "<a href='%3Cb%3Erun/'>" in page


@browser.needs_chromium
def test_the_index_opens_in_chromium_with_its_links(results, capsys, tmp_path):
    main(["runs", "--dir", str(results)])
    dom = browser.dom(results / "index.html", tmp_path / "chromium-profile")
    assert re.findall(r'<a href="([^"]*)">', dom) == ["tiny/report.html", "url/", "damaged/",
                                                      "group/overload/report.html"]
    assert "0.85× [0.75–0.96]" in dom


def test_no_runs_is_said_and_no_error(tmp_path, capsys, monkeypatch):
    assert main(["runs", "--dir", str(tmp_path)]) == 0
    assert f"No runs under {tmp_path}." in capsys.readouterr().out
    monkeypatch.setattr(settings, "RESULTS", tmp_path / "never-made")
    assert main(["runs"]) == 0
    assert "No runs yet" in capsys.readouterr().out


def test_a_dir_that_does_not_exist_is_a_usage_error_naming_the_flag(tmp_path, capsys):
    assert main(["runs", "--dir", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "--dir" in err and "nope" in err
    assert not (tmp_path / "nope").exists()


def test_report_without_a_run_folder_reports_on_the_newest_run(tmp_path, capsys, monkeypatch):
    # named so that the newest sorts last by name: the date decides, not the name
    _copy("overload/run", tmp_path / "z-older", keep_report=False)
    newest = _copy("tiny-matrix/run", tmp_path / "a-newer", keep_report=False)
    monkeypatch.setattr(settings, "RESULTS", tmp_path)
    assert main(["report"]) == 0
    assert f"reporting on the latest run: {newest}" in capsys.readouterr().out
    assert (newest / "report.html").exists() and not (tmp_path / "z-older" / "report.html").exists()


def test_report_without_a_run_folder_and_no_runs_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(settings, "RESULTS", tmp_path)
    assert main(["report"]) == 2
    assert "RUN_DIR" in capsys.readouterr().err


# A folder of several reported runs: the committed quick run (its golden report.md: 8 rows, every one valid) and
# four recorded ones, each line read by hand from its metadata.json, matrix.csv, analysis.csv and report.md.
SEVERAL = {
    "tiny": ("2026-11-27 13:57:16+00:00", "quick", "2", "2",
             ["released, pool 50 · virtual ÷ platform at 20 users: 0.85× [0.75–0.96]"]),
    "url": ("2026-11-27 13:53:47+00:00", "--url http://127.0.0.1:57407 · GET /api/order-summary/{id} (ids 1-1000)",
            "1", "1", ["your service · at 10 users: no ratio: platform threads not measured here"]),
    "group/overload": ("2026-11-27 13:37:50+00:00", "quick", "1", "0",
                       ["held, pool 2 · at 40 users: no ratio: platform threads not measured here"]),
    "variants": ("2026-11-27 13:31:28+00:00", "quick", "5", "5",
                 [f"{scenario} · at 20 users: no ratio: platform threads not measured here"
                  for scenario in ("fan-out, sequential", "fan-out, structured",
                                   "released, pool 50 (agroal), scopedvalue context",
                                   "released, pool 50 (agroal), scopedvalue context, PostgreSQL +60 ms each way")]),
    "quick": ("2026-11-25 03:25:34+00:00", "quick", "8", "8",
              ["released, pool 50 · virtual ÷ platform at 1,000 users: 4.92× [4.85–4.99]",
               "held, pool 50 · virtual ÷ platform at 100 users: 1.00× [0.99–1.01]"]),
}
# What Chromium built of the index, written into the page it dumps (a copy beside index.html, so that its links
# resolve as the index's own; the index itself has no script): each line's cells as drawn, each link resolved.
READ_INDEX = """<script>
document.body.dataset.runs = JSON.stringify([...document.querySelectorAll('#runs tr')].slice(1).map(tr => ({
  cells: Object.fromEntries([...tr.cells].map(td => [td.className, td.innerText])),
  link: tr.querySelector('a').href})));
</script></body>"""


@pytest.fixture(scope="module")
def several(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("several")
    shutil.copytree(FIXTURES / "quick-run", folder / "quick", ignore=shutil.ignore_patterns("expected"))
    for name, recorded in (("tiny", "tiny-matrix/run"), ("url", "url-service/url"),
                           ("group/overload", "overload/run"), ("variants", "variants/run")):
        _copy(recorded, folder / name, keep_report=False)
    for name in SEVERAL:
        render.render(folder / name)
    return folder


@browser.needs_chromium
def test_chromium_lists_every_run_of_a_folder_with_what_it_measured_and_links_its_report(several, capsys, tmp_path):
    assert main(["runs", "--dir", str(several)]) == 0
    read = several / "index-read.html"
    read.write_text((several / "index.html").read_text().replace("</body>", READ_INDEX))
    dom = browser.dom(read, tmp_path / "chromium-profile")
    listed = json.loads(unescape(re.search(r'data-runs="([^"]+)"', dom).group(1)))
    assert [line["cells"]["folder"] for line in listed] == list(SEVERAL)  # newest first
    for line, (name, (date, measured, rows, valid, headline)) in zip(listed, SEVERAL.items(), strict=True):
        assert line["cells"] == {"date": date, "measured": measured, "rows": rows, "valid": valid,
                                 "headline": "\n".join(headline), "folder": name}
        assert line["link"] == (several / name / "report.html").as_uri()
        assert (several / name / "report.html").is_file()


def test_a_report_of_before_answers_were_written_is_listed_by_its_headline_its_loads_as_the_report_writes_them():
    from vtlab.report import runsindex
    from vtlab.results.listing import HeadlineLine, Run

    line = HeadlineLine("released, pool 50", "1000", "closed", "4.92× [4.85–4.99]", True, "190.0", "935.0")
    run = Run(Path("r"), None, DAMAGED_TIME, "quick", 8, 8, (line,), None, True, ())
    assert runsindex.headline(run) == ["released, pool 50, 1,000 users: virtual ÷ platform 4.92× [4.85–4.99]"]
    answered = Run(Path("r"), None, DAMAGED_TIME, "quick", 8, 8, (line,), None, True, (),
                   answers=("released, pool 50 · virtual ÷ platform at 1,000 users: 4.97× [4.84–5.10] paired",))
    assert runsindex.headline(answered) == ["released, pool 50 · virtual ÷ platform at 1,000 users: 4.97× [4.84–5.10] "
                                            "paired"]
