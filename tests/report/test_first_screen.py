"""The report's first screen answers (issue 46, item 2): the committed quick run (tests/fixtures/quick-run: both
modes at 100, 400 and 1,000 users, every row valid) and the doctored scenarios (18 scenarios, an invalid virtual row
at 1,000 users beside valid ones at 400), rendered, read as HTML and as Chromium lays them out at 1280×800; and the
same answer lines in report.md and report.json."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import browser

from vtlab.report import render

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _rendered(tmp_path_factory, name: str) -> Path:
    run_dir = tmp_path_factory.mktemp("first-screen") / name
    shutil.copytree(FIXTURES / name, run_dir)
    return render.render(run_dir)["html"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> Path:
    return _rendered(tmp_path_factory, "quick-run")


@pytest.fixture(scope="module")
def doctored(tmp_path_factory) -> Path:
    return _rendered(tmp_path_factory, "doctored-scenarios")


def _between(page: str, start: str, end: str) -> str:
    part = page[page.index(start):]
    return part[:part.index(end)]


def test_every_entry_of_the_contents_list_links_to_a_section_of_the_page(doctored):
    page = doctored.read_text()
    links = re.findall(r"href='#([^']+)'", _between(page, "<nav id='contents'", "</nav>"))
    assert len(links) > 10
    assert {"answer", "section-headline", "section-every-second", "section-environment"} <= set(links)
    assert [link for link in links if page.count(f"id='{link}'") != 1] == []
    # and every section of the page is in the list
    assert set(re.findall(r"<section id='([^']+)'", page)) == set(links)


def test_a_rows_time_chart_is_folded_under_its_one_line_in_its_scenarios_group(quick):
    page = quick.read_text()
    slug = "virtual-order-summary-c400-released-normal-pool50-t200-d1000-rep1"
    folded = page[:page.index(f"<figure id='timeline-{slug}'")]
    folded = folded[folded.rindex("<details"):]
    assert folded.endswith("<summary>virtual · 400 users · 396.8 req/s · valid</summary>")
    group = page[:page.index(f"<figure id='timeline-{slug}'")]
    assert group[group.rindex("<h3>"):].startswith("<h3>released, pool 50</h3>")
    # every row's chart and every overlay is folded: 8 rows, 4 scenarios measured in both modes
    assert page.count("<details class='seconds'><summary>") == 12
    assert len(re.findall(r"</summary><figure id='timeline-", page)) == 8


def test_an_invalid_row_is_set_apart_on_the_first_screen_and_left_out_of_the_ratio(doctored):
    answer = _between(doctored.read_text(), "<section id='answer'>", "<figure")
    released = _between(answer, "<strong>released, pool 50</strong>", "</div>")
    # the virtual row at 1,000 users failed too many requests: set apart, and the ratio is told at 400 users,
    # where both modes are valid (189.8 and 373.8 req/s in the doctored matrix)
    assert "virtual ÷ platform at 400 users: 1.97×" in released
    assert re.search(r"<ul class='apart'><li>set apart, not valid: virtual 1,000 users: errors-above-threshold — "
                     r"666\.6 req/s", released)
    assert "virtual threads: 373.8 req/s at 400 users" in released


def test_the_first_screen_names_each_modes_wall_and_the_ratio_with_its_range(quick):
    answer = _between(quick.read_text(), "<section id='answer'>", "<figure")
    assert "<strong>released, pool 50</strong> · virtual ÷ platform at 1,000 users: 4.92× [4.85–4.99]" in answer
    assert "platform threads: 199.5 req/s at 1,000 users, held by the server&#x27;s 200 request threads" in answer
    assert "virtual threads: 982.1 req/s at 1,000 users, held by the users themselves" in answer
    assert "<strong>held, pool 50</strong> · virtual ÷ platform at 100 users: 1.00× [0.99–1.01]" in answer
    assert "class='apart'" not in answer  # every row of the quick run is valid


# The doctored run's 18 scenarios, counted by hand from its headline table (expected/report.md): the plain service's
# with a ratio are released pool 50 (1.97×), synchronized (1.00×) and held (1.00×), in that order; of the 16 after
# the first two, 5 have a ratio (held, fan-out sequential, pool 10 with latency, sleep, agroal) and 5 a row set
# apart (pinned-control, both cpu ones, fan-out structured, write).
FOLD = "16 more scenarios: 5 with a ratio, 11 without one; 5 with rows set apart, not valid"


def test_a_run_of_many_scenarios_tells_two_answers_in_full_and_folds_the_others_under_one_count(doctored):
    answer = _between(doctored.read_text(), "<section id='answer'>", "<figure")
    shown = _between(answer, "<div class='answers'>", "<details class='answers more'>")
    assert re.findall(r"<div class='answer'><p><strong>([^<]+)</strong>", shown) == [
        "released, pool 50", "released, pool 50, synchronized"]
    fold = answer[answer.index("<details class='answers more'>"):]
    assert fold.startswith(f"<details class='answers more'><summary>{FOLD}</summary>")
    folded = re.findall(r"<details class='answer'><summary><strong>([^<]+)</strong>", fold)
    assert len(folded) == 16 and folded[:4] == ["released, pool 50, open model", "released, pool 50, downstream "
                                                "2,000 ms", "released, pool 50, pinned-control", "held, pool 50"]
    assert "<summary><strong>held, pool 50</strong> · virtual ÷ platform at 100 users: 1.00×</summary>" in fold


def test_a_run_of_few_scenarios_folds_nothing(quick):
    assert "class='answers more'" not in quick.read_text()
    assert "## The answer" in (quick.parent / "report.md").read_text()
    assert json.loads((quick.parent / "report.json").read_text())["answers_folded"] is None


def test_report_md_and_report_json_carry_the_first_screens_answer_lines(doctored):
    markdown = (doctored.parent / "report.md").read_text()
    told = _between(markdown, "## The answer\n", "## Headline\n")
    # platform's 2 reps 199.1, 180.5 and virtual's 397.333, 350.2, each mean's interval on its logs (t(1) = 12.706):
    # e^(5.24477 ± 0.62313) = 101.7–353.5 and e^(5.92165 ± 0.80238) = 167.2–832.0; 167.2 / 353.5 to 832.0 / 101.7
    assert told.startswith("## The answer\n\n- **released, pool 50** · virtual ÷ platform at 400 users: "
                           "1.97× [0.47–8.18]\n  - platform threads: 189.8 req/s at 400 users, held by the "
                           "server's 200 request threads")
    assert "  - set apart, not valid: virtual 1,000 users: errors-above-threshold — 666.6 req/s" in told
    assert f"\n{FOLD}:\n\n- **released, pool 50, open model** · at 400/s offered: no ratio" in told
    report = json.loads((doctored.parent / "report.json").read_text())
    assert report["answers_folded"] == FOLD
    first = report["answers"][0]
    assert (first["scenario"], first["ratio"], first["ratio_computed"], first["folded"]) == (
        "released, pool 50", "virtual ÷ platform at 400 users: 1.97× [0.47–8.18]", True, False)
    assert first["apart"] == ["virtual 1,000 users: errors-above-threshold — 666.6 req/s, figures from invalid "
                              "rows, not an answer"]
    assert [a["scenario"] for a in report["answers"] if not a["folded"]] == ["released, pool 50",
                                                                            "released, pool 50, synchronized"]
    assert len(report["answers"]) == 18 and sum(a["folded"] and a["ratio_computed"] for a in report["answers"]) == 5


def test_the_main_charts_load_axes_read_the_loads_measured(quick):
    svg = _between(quick.read_text(), "<figure id='fig-hero' class='main'>", "</figure>")
    ticks = re.findall(r'<g id="xtick_\d+">.*?<!-- (.*?) -->', svg, re.S)
    assert ticks == ["100", "400", "1,000"] * 2  # throughput and p99, side by side
    assert "mathdefault" not in svg  # no "10²" anywhere on its axes


def test_the_page_fetches_nothing_and_runs_no_script(doctored):
    page = doctored.read_text()
    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert re.findall(r"url\((?!#)", page) == []  # the charts' clip paths refer within the page only
    assert re.findall(r"""\ssrc=['"]""", page) == []
    assert not re.findall(r"""href=['"](?!#|k6/)""", page)  # links go within the page or to the run's own files


# Where Chromium laid out the answer and the main chart, written into the page it dumps (a copy of the report with
# this one script; the report itself has none).
MEASURE = """<script>
const box = selector => { const r = document.querySelector(selector).getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, width: r.width}; };
document.body.dataset.boxes = JSON.stringify({viewport: [innerWidth, innerHeight],
  answers: box('#answer .answers'), chart: box('#fig-hero svg'), page: box('body')});
</script></body>"""


@browser.needs_chromium
@pytest.mark.parametrize("run", ["quick", "doctored"])
def test_the_answer_and_the_main_chart_fit_the_first_screen_of_a_1280_by_800_window(run, request, tmp_path):
    measured = tmp_path / "measured.html"
    measured.write_text(request.getfixturevalue(run).read_text().replace("</body>", MEASURE))
    dom = browser.dom(measured, tmp_path / "profile", window=(1280, 800))
    boxes = json.loads(re.search(r'data-boxes="([^"]+)"', dom).group(1).replace("&quot;", '"'))
    assert boxes["viewport"][0] == 1280
    assert 0 < boxes["answers"]["top"] < boxes["answers"]["bottom"] <= boxes["chart"]["top"]
    assert boxes["chart"]["bottom"] <= 800
    assert boxes["chart"]["width"] >= 0.95 * boxes["page"]["width"]  # at the page's full width


def test_the_folds_line_counts_one_scenario_in_words_and_says_more_only_below_a_shown_answer():
    from vtlab.report import answer
    from vtlab.report.document import Answer

    shown = Answer("released, pool 50", "4.98×", ())
    variant = Answer("sleep", "no ratio: no valid platform row", (), has_ratio=False, folded=True)
    assert answer.folded_line([shown, variant]) == "1 more scenario, with no ratio"
    assert answer.folded_line([variant]) == "1 scenario, with no ratio"  # nothing shown above it: no "more"
    apart = Answer("fan-out", "2.00×", (), apart=("platform 400 users: too-noisy",), folded=True)
    assert answer.folded_line([shown, apart]) == "1 more scenario, with a ratio; its rows set apart, not valid"
    assert answer.folded_line([variant, apart]) == ("2 scenarios: 1 with a ratio, 1 without one; 1 with rows set "
                                                    "apart, not valid")
    assert answer.folded_line([shown]) == ""
