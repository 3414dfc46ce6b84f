"""The report from a committed real run (tests/fixtures/quick-run: the default profile on 2 cores):
its analysis, chart data series, and the HTML as a real headless Chromium renders it."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

import browser
import rows as handmade

from vtlab.explain import analyze
from vtlab.report import appendix, charts, figures, headline, render, story
from vtlab.cli.main import main

FIXTURE = Path(__file__).parents[1] / "fixtures" / "quick-run"
PUBLISHED = Path(__file__).resolve().parents[2] / "reference" / "published.csv"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("report") / "quick-run"
    shutil.copytree(FIXTURE, run_dir)
    return run_dir, render.render(run_dir, [PUBLISHED])


def analysis_rows(run_dir: Path) -> list[dict[str, str]]:
    with open(run_dir / "analysis.csv", newline="") as handle:
        return list(csv.DictReader(handle))


# The quick run's verdicts, worked out by hand from its matrix.csv: the lowest-load row's p50 (1,003.373 ms) is
# the released scenario's service time, the stub's 1,000 ms the held one's. Users ÷ 1.003373 s is the users'
# ceiling (99.66, 398.66, 996.64 req/s), Tomcat's 200 threads ÷ 1.003373 s the platform threads' (199.33), 50
# connections ÷ 1 s the held pool's (50). No row failed a request, dropped an arrival or missed a sample.
QUICK_RUN_VERDICTS = {
    # (mode, connection, users): (limit, ceiling req/s, bottleneck)
    ("platform", "released", 100): ("concurrency", 99.664, "downstream"),
    ("virtual", "released", 100): ("concurrency", 99.664, "downstream"),
    ("platform", "released", 400): ("thread-pool", 199.328, "thread-pool"),
    ("virtual", "released", 400): ("concurrency", 398.655, "downstream"),
    ("platform", "released", 1000): ("thread-pool", 199.328, "thread-pool"),
    ("virtual", "released", 1000): ("concurrency", 996.638, "downstream"),
    ("platform", "held", 100): ("connection-pool", 50, "connection-pool"),
    ("virtual", "held", 100): ("connection-pool", 50, "connection-pool"),
}


def test_analysis_gives_each_row_of_the_quick_run_the_verdict_its_numbers_imply(rendered):
    run_dir, _ = rendered
    rows = analysis_rows(run_dir)
    assert len(rows) == len(QUICK_RUN_VERDICTS)
    for row in rows:
        key = (row["thread_mode"], row["conn_mode"], int(row["concurrency"]))
        limit, ceiling, bottleneck = QUICK_RUN_VERDICTS[key]
        assert (row["limit"], row["bottleneck"], row["valid"], row["flags"]) == (limit, bottleneck, "true", ""), key
        assert float(row["ceiling_rps"]) == pytest.approx(ceiling, abs=0.001), key


def test_the_default_run_tells_the_moved_bottleneck_story(rendered):
    run_dir, _ = rendered
    verdicts = {(r["conn_mode"], r["thread_mode"], int(r["concurrency"])): r for r in analysis_rows(run_dir)}
    top = max(c for (conn, _, c) in verdicts if conn == "released")
    assert verdicts[("released", "platform", top)]["bottleneck"] == "thread-pool"
    assert verdicts[("released", "platform", top)]["limit"] == "thread-pool"
    assert float(verdicts[("released", "virtual", top)]["throughput_rps"]) > 2 * float(
        verdicts[("released", "platform", top)]["throughput_rps"])
    held = [r for (conn, _, _), r in verdicts.items() if conn == "held"]
    assert held and all(r["bottleneck"] == "connection-pool" for r in held)


def test_chart_series_match_the_csv(rendered):
    run_dir, paths = rendered
    series = json.loads(paths["charts"].read_text())
    assert set(series) >= {"hero", "pool", "cpu", "pinning"}
    with open(run_dir / "matrix.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    released_virtual = sorted((int(r["concurrency"]), float(r["throughput_rps"])) for r in rows
                              if r["conn_mode"] == "released" and r["thread_mode"] == "virtual")
    assert series["hero"]["virtual"]["concurrency"] == [c for c, _ in released_virtual]
    assert series["hero"]["virtual"]["throughput_rps"] == pytest.approx([t for _, t in released_virtual])
    assert series["cpu"]["load"] == pytest.approx([float(r["load_cpu_pct"]) for r in rows])
    assert any(key.startswith("published:") for key in series["hero"])  # the committed published figures


def test_markdown_headline_and_explanation(rendered):
    _, paths = rendered
    text = paths["markdown"].read_text()
    # at 1,000 users the quick run measured platform 199.533 ± 0.408 and virtual 982.133 ± 12.099 req/s:
    # 982.133 / 199.533 = 4.92; 970.034 / 199.941 = 4.85 to 994.232 / 199.125 = 4.99
    assert "| released, pool 50 | 1000 | 199.5 ± 0.4 · p99 5,842 ms | 982.1 ± 12.1 · p99 1,090 ms | " \
           "4.92× [4.85–4.99] | thread-pool / downstream |" in text
    assert "| platform req/s (95% interval) · p99 | virtual req/s (95% interval) · p99 | " \
           "ratio v/p [range of both intervals] |" in text
    # two platform rows at the thread wall (400 and 1,000 users, 198.8 and 199.5 req/s: within noise) and a
    # p99 that grew from 2,264 to 5,842 ms: the flattening is seen, not assumed
    assert ("Platform threads flatten at 200 req/s: Tomcat's threads ÷ the time each is busy (1,003 ms, the p50 "
            "at lowest load) predict 199 req/s, and past that users only queue (p99 5,842 ms at 1000 users).") in text
    assert ("Virtual threads reach 982 req/s (95% interval 970–994) at 1000 users (99% of a predicted 997 req/s), "
            "limited by the users themselves") in text
    assert "With the connection held across the downstream call the bottleneck moves to the pool" in text
    assert "Virtual threads cannot help when every request needs a connection for the whole call." in text


def test_the_headline_ratio_carries_the_range_its_rows_intervals_allow():
    def line(mode, rps, ci, rep=1):
        return handmade.row(thread_mode=mode, rep=rep, concurrency=1000, throughput_rps=rps,
                                throughput_ci95_rps=ci, ok_requests="")
    def head_of(*rows):
        return headline.headline(analyze.analyse(list(rows), handmade.RUN).aggregates)
    one_rep = head_of(line("platform", 200, 2), line("virtual", 900, 30))
    assert one_rep[0]["platform"].startswith("200.0 ± 2.0 ") and one_rep[0]["virtual"].startswith("900.0 ± 30.0 ")
    assert one_rep[0]["ratio"] == "4.50× [4.31–4.70]"  # 870 / 202 to 930 / 198
    reps = head_of(line("platform", 200, 2), line("platform", 190, 2, rep=2), line("virtual", 900, 30),
                    line("virtual", 950, 10, rep=2))
    # two reps: the interval of their mean, not their intervals joined (870–960), its ends on the logs, t(1) =
    # 12.706. virtual: ln 900, ln 950 have mean 6.82943, s 0.03823: e^(6.82943 ± 12.706 × 0.03823 / √2) =
    # 655.85–1,303.64; platform: ln 200, ln 190, mean 5.27267, s 0.03627: e^(5.27267 ± 0.32587) = 140.72–270.03
    assert reps[0]["virtual"].startswith("mean 925.0 [655.9–1,303.6] of 2 reps ")
    assert reps[0]["platform"].startswith("mean 195.0 [140.7–270.0] of 2 reps ")
    assert reps[0]["ratio"] == "4.74× [2.43–9.26]"  # 925 / 195; 655.85 / 270.03 to 1,303.64 / 140.72
    unknown = head_of(line("platform", 200, ""), line("virtual", 900, ""))
    assert unknown[0]["ratio"] == "4.50×"  # no interval measured: no range claimed


def test_one_scenario_on_two_jdks_is_two_headline_lines_neither_overwritten():
    def line(mode, rps, jdk):
        return handmade.row(thread_mode=mode, jdk=jdk, concurrency=400, throughput_rps=rps, throughput_ci95_rps=1,
                            ok_requests="")
    rows = [line("platform", 100, 21), line("virtual", 200, 21), line("platform", 300, 25), line("virtual", 450, 25)]
    told = headline.headline(analyze.analyse(rows, handmade.RUN).aggregates)
    # before, both JDKs' lines were one key: the second JDK's aggregate overwrote the first's cell, silently
    assert [(line["scenario"], line["platform"][:5], line["virtual"][:5], line["ratio"][:5]) for line in told] == [
        ("released, pool 50", "300.0", "450.0", "1.50×"), ("released, pool 50, JDK 21", "100.0", "200.0", "2.00×")]


def test_the_headline_tells_several_reps_as_the_mean_with_its_t_interval_and_one_rep_with_its_own():
    def line(mode, rps, rep=1, ci=1):
        return handmade.row(thread_mode=mode, rep=rep, concurrency=100, throughput_rps=rps,
                            throughput_ci95_rps=ci, ok_requests="")
    rows = [line("virtual", 100), line("virtual", 110, rep=2), line("virtual", 120, rep=3),
            line("platform", 99.5, ci=0.4)]
    (reps,) = headline.headline(analyze.analyse(rows, handmade.RUN).aggregates)
    # three reps 100, 110, 120: mean 110; the logs' mean 4.69771, s 0.09119, t(2) = 4.303:
    # e^(4.69771 ± 4.303 × 0.09119 / √3) = 87.46–137.59
    assert reps["virtual"] == "mean 110.0 [87.5–137.6] of 3 reps ⚠ · p99 1,050 ms"  # spread 20 / 110 ≥ 10%: ⚠
    assert reps["platform"] == "99.5 ± 0.4 · p99 1,050 ms"  # one rep: its own within-row interval
    assert reps["ratio"] == "1.11× [0.88–1.39]"  # 110 / 99.5; 87.46 / 99.9 to 137.59 / 99.1


def test_a_run_whose_every_request_failed_still_draws_its_chart():
    """10,000 users on a 1 GB heap: every request failed, no row has a latency; the chart has no log axis to draw
    it on, and the report renders all the same (it raised "Data cannot be log-scaled" and left no report)."""
    failed = handmade.row(concurrency=10000, throughput_rps=0, ok_requests=0, http_reqs=3000, error_rate=1,
                          p50_ms="", p95_ms="", p99_ms="", p999_ms="", max_ms="", errors_by_status="0=3000")
    drawn = charts.hero(analyze.analyse([failed], handmade.RUN).aggregates, [], 200)
    assert drawn is not None and drawn[0].startswith("<svg")


def test_the_hero_caption_says_what_the_chart_draws():
    rows = [handmade.row(rep=rep, throughput_rps=rps, throughput_ci95_rps=1, ok_requests="")
            for rep, rps in ((1, 100), (2, 100), (3, 130))]
    aggregates = analyze.analyse(rows, handmade.RUN).aggregates
    _, drawn = charts.hero(aggregates, [], 200)
    # the marker is the reps' median (100), not their mean (110): the caption says so, and that the bar is the
    # interval of the mean (74.91–159.01 here, its ends on the logs), which the median may sit off the centre of
    assert drawn["virtual"]["throughput_rps"] == [100]
    assert (aggregates[0].interval_low, aggregates[0].interval_high) == (pytest.approx(74.91, abs=0.01),
                                                                         pytest.approx(159.01, abs=0.01))
    for name in ("hero", "open"):
        caption = figures.CAPTIONS[name]
        assert "the median of several" in caption and "of the reps' mean for several (Student t" in caption
        assert "95% interval, within the row's hold for one rep" in caption and "min–max" not in caption


def test_a_chart_not_drawn_has_its_sentence_and_no_caption(rendered):
    # the default run holds connections at one pool size and pins nothing: neither chart is drawn
    html = rendered[1]["html"].read_text()
    pool = html[html.index("<figure id='fig-pool'>"):]
    pool = pool[:pool.index("</figure>")]
    assert "measured at one pool size" in pool and "<figcaption" not in pool
    assert figures.CAPTIONS["pool"] not in html and "<figcaption" in html  # the drawn ones keep theirs


def test_a_check_that_needs_chromium_skips_with_its_reason_where_it_is_missing(monkeypatch):
    monkeypatch.setattr(browser, "CHROMIUM", None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs Debian's chromium"):
        browser.require()
    monkeypatch.setenv("CI", "1")  # CI installs it: there a missing Chromium fails
    with pytest.raises(pytest.fail.Exception, match="Chromium is missing in CI"):
        browser.require()


def test_report_command_rerenders_and_rejects_bad_input(rendered, capsys, tmp_path):
    run_dir, paths = rendered
    assert main(["report", str(run_dir)]) == 0
    assert "virtual req/s" in capsys.readouterr().out
    assert main(["report", str(tmp_path)]) == 2
    assert "matrix.csv" in capsys.readouterr().err
    assert main(["report", str(run_dir), "--compare", str(tmp_path / "nope.csv")]) == 2
    assert "--compare" in capsys.readouterr().err


@browser.needs_chromium
def test_html_renders_in_headless_chromium_with_its_charts_and_tables(rendered, tmp_path):
    _, paths = rendered
    page = browser.dom(paths["html"], tmp_path / "profile")
    assert page.count("<svg") >= 2
    # one pool size and no pinned thread: a sentence each, not an axis around one point or a row of zeros
    assert "the pool chart needs two sizes" in page and "nothing to chart" in page
    for table in ("id=\"headline\"", "id=\"rows\"", "id=\"environment\""):
        assert table in page
    assert "http://" not in paths["html"].read_text().replace("http://www.w3.org", "")  # self-contained
    shot = browser.screenshot(paths["html"], tmp_path / "report.png", tmp_path / "profile")
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)
    # a rendered page, not a blank one: many distinct colours (chart lines, bars, table shading)
    distinct = {tuple((pixels[y, x, :3] * 255).astype(int)) for y in range(0, pixels.shape[0], 7)
                for x in range(0, pixels.shape[1], 7)}
    assert len(distinct) > 50


def test_a_failed_row_is_listed_apart_and_changes_no_verdict(tmp_path):
    """The quick run plus one row a dead service ended: the headline, story and every other line of
    analysis.csv read exactly as without it; the row is listed under Failed rows, with no bottleneck."""
    from vtlab.results import table
    clean, broken = tmp_path / "clean", tmp_path / "broken"
    with open(FIXTURE / "matrix.csv", newline="") as handle:
        measured = list(csv.DictReader(handle))
    dead = {"ts_iso": "2026-11-24T04:00:00+00:00", "thread_mode": "virtual", "concurrency": "2000", "rep": "1",
            "conn_mode": "released", "path_mode": "normal", "hikari_pool": "50", "failed_tier": "service",
            "failure": "was killed by SIGKILL", "failure_log": "Started AppApplication\nGC | heap 512M"}
    for run_dir, rows in ((clean, measured), (broken, [*measured, dead])):
        run_dir.mkdir()
        shutil.copy(FIXTURE / "metadata.json", run_dir)
        writer = table.CsvWriter(run_dir / "matrix.csv")
        for row in rows:
            writer.append({column: row.get(column, "") for column in table.COLUMNS})
        render.render(run_dir)
    clean_md, broken_md = (clean / "report.md").read_text(), (broken / "report.md").read_text()
    assert "Failed rows" not in clean_md
    # every verdict and sentence as without it: the failed row adds its sentence and its section, nothing else
    kept = broken_md.split("\n## Failed rows\n")[0].splitlines()
    assert [line for line in kept if "1 row(s) failed" not in line] == clean_md.rstrip("\n").splitlines()
    assert "| virtual 2000 users released, pool 50 | service | was killed by SIGKILL | GC \\| heap 512M |" in broken_md
    assert "1 row(s) failed" in broken_md
    clean_rows, broken_rows = analysis_rows(clean), analysis_rows(broken)
    assert broken_rows[:-1] == clean_rows
    assert (broken_rows[-1]["bottleneck"], broken_rows[-1]["valid"], broken_rows[-1]["flags"]) == (
        "", "false", "failed:service")
    assert "id='failed-rows'" in (broken / "report.html").read_text()


def test_the_same_run_renders_the_same_html(tmp_path):
    """matplotlib salts its SVG element ids at random unless told otherwise: a re-render must not differ."""
    run_dir = tmp_path / "quick-run"
    shutil.copytree(FIXTURE, run_dir)
    first = render.render(run_dir)["html"].read_text()
    assert render.render(run_dir)["html"].read_text() == first


def test_an_open_model_run_gets_a_headline_a_story_and_an_offered_rate_chart(tmp_path):
    def at(mode, offered, rps, p99):
        return handmade.row(thread_mode=mode, load_model="open", target_rps=offered, concurrency=2 * offered,
                                # kept up (within its interval): unloaded latency; fell behind: queued
                                throughput_rps=rps, throughput_ci95_rps=2, p50_ms=1004 if rps + 2 >= offered else 5000,
                                p99_ms=p99, ok_requests="")
    rows = [at("platform", 150, 149.8, 1030), at("platform", 400, 197.9, 10200),
            at("virtual", 150, 149.9, 1020), at("virtual", 400, 398.6, 1060)]
    analysis = analyze.analyse(rows, handmade.RUN)
    sentences = " ".join(story.explain(analysis))
    assert "platform threads: kept up with 150 req/s offered" in sentences
    assert "offered 400 req/s it delivered 197.9 (95% interval 196–200) — its wall (thread-pool)" in sentences
    assert "virtual threads: kept up with 400 req/s offered" in sentences
    assert "Offered 400 req/s, virtual threads delivered 2.01× [1.98–2.04]" in sentences
    assert "measured only the scenarios below" not in sentences
    head = headline.headline(analysis.aggregates)
    assert [line["concurrency"] for line in head] == ["150/s", "400/s"] and head[1]["ratio"].startswith("2.01×")
    _, data = charts.hero(analysis.aggregates, [], 200, "open")
    assert data["virtual"]["offered_rps"] == [150, 400] and data["platform"]["throughput_rps"] == [149.8, 197.9]
    assert charts.hero(analysis.aggregates, [], 200) is None  # no closed-model rows: no closed chart


def test_every_row_shows_the_p99_of_all_responses_and_the_error_mix_when_requests_failed():
    failing = handmade.row(error_rate=0.2, errors_by_status="503=1200,0=12", p99_ms=1050, p99_all_ms=10000,
                               ok_requests="")
    clean = handmade.row(concurrency=50, p99_all_ms=1049)
    failed, fine = appendix.every_row(analyze.analyse([failing, clean], handmade.RUN).verdicts, 200).lines
    assert (failed["p99"], failed["errors"]) == ("1,050 (10,000)", "20.00% (503=1200,0=12)")
    assert (fine["p99"], fine["errors"]) == ("1,050", "0.00%")  # nothing failed: one p99, no mix


# --- report.json ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """The quick run reported by the command itself, and its report.json as parsed."""
    run_dir = tmp_path_factory.mktemp("json") / "quick-run"
    shutil.copytree(FIXTURE, run_dir)
    assert main(["report", str(run_dir)]) == 0
    return run_dir, json.loads((run_dir / "report.json").read_text())


def test_report_json_is_written_beside_the_report_with_its_schema(reported):
    run_dir, report = reported
    assert (run_dir / "report.html").exists() and (run_dir / "report.md").exists()
    assert report["schema"] == "vtlab-report/1"
    assert report["run"] == {"name": "quick-run", "started": json.loads((run_dir / "metadata.json").read_text())[
        "started"], "rows": 8, "failed_rows": 0}
    assert report["failed"] == [] and report["story"][0].startswith("Platform threads flatten at")


def test_a_run_without_capacity_json_reports_no_capacity(reported):
    run_dir, report = reported
    assert report["capacity"] is None
    assert "Capacity at" not in (run_dir / "report.md").read_text()
    assert "id='capacity'" not in (run_dir / "report.html").read_text()
    assert "capacity" not in json.loads((run_dir / "charts.json").read_text())


def test_report_json_holds_one_verdict_per_row_as_analysis_csv_judged_it(reported):
    run_dir, report = reported
    lines = analysis_rows(run_dir)
    with open(run_dir / "matrix.csv", newline="") as handle:
        assert len(report["verdicts"]) == len(lines) == len(list(csv.DictReader(handle)))
    for line, verdict in zip(lines, report["verdicts"], strict=True):
        assert (verdict["row"]["thread_mode"], verdict["row"]["conn_mode"], verdict["row"]["concurrency"]) == (
            line["thread_mode"], line["conn_mode"], int(line["concurrency"]))
        assert verdict["bottleneck"] == line["bottleneck"] and verdict["limit"] == line["limit"]
        assert verdict["valid"] is (line["valid"] == "true")
        assert ";".join(verdict["flags"]) == line["flags"]
        assert verdict["ceiling_rps"] == pytest.approx(float(line["ceiling_rps"]), abs=1e-3)
        assert verdict["measured"]["throughput_ci95_rps"] == pytest.approx(float(line["throughput_ci95_rps"]),
                                                                           abs=1e-3)
        for name in ("concurrency", "threads", "pool", "cpu"):  # inf and an empty cell (NaN): null
            cell, ceiling = line[f"ceiling_{name}_rps"], verdict["ceilings"][name]
            assert ceiling is None if cell in ("", "inf") else ceiling == pytest.approx(float(cell), abs=1e-3)
    assert any(verdict["ceilings"]["threads"] is None for verdict in report["verdicts"])  # virtual threads: none


def test_report_json_headline_says_what_report_md_says(reported):
    run_dir, report = reported
    text = (run_dir / "report.md").read_text().split("\n")
    table = [line for line in text[text.index("") + 1:] if line.startswith("| ")][1:]  # below the header
    table = table[:len(report["headline"])]
    assert len(report["headline"]) == 4
    for md_line, line in zip(table, report["headline"], strict=True):
        cells = [cell.strip() for cell in md_line.strip("|").split(" | ")]
        assert cells[:2] == [line["scenario"], line["load"]]
        for cell, mode in zip(cells[2:4], ("platform", "virtual"), strict=True):
            numbers = line[mode]
            assert cell.startswith(f"{numbers['throughput']['median']:,.1f} ")
            assert f" · p99 {numbers['p99_median_ms']:,.0f} ms" in cell
        ratio = line["ratio"]
        assert cells[4] == f"{ratio['value']:.2f}× [{ratio['low']:.2f}–{ratio['high']:.2f}]"
        assert cells[5] == f"{line['platform']['bottleneck']} / {line['virtual']['bottleneck']}"
        assert list(line["text"].values()) == cells


def test_report_json_writes_what_was_not_measured_as_null(tmp_path):
    from vtlab.results import table

    rows = [handmade.row(thread_mode=mode, throughput_ci95_rps="", p99_all_ms="", ok_requests="")
            for mode in ("platform", "virtual")]
    with open(tmp_path / table.CSV_NAME, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=table.COLUMNS, restval="", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    table.write_metadata(tmp_path, handmade.META)
    text = render.render(tmp_path)["json"].read_text()
    assert "NaN" not in text and "Infinity" not in text
    report = json.loads(text)
    assert [v["measured"]["throughput_ci95_rps"] for v in report["verdicts"]] == [None, None]
    assert [v["measured"]["p99_all_ms"] for v in report["verdicts"]] == [None, None]
    assert report["headline"][0]["ratio"]["low"] is None  # no interval measured: no range claimed


def test_a_scenario_on_another_server_or_client_is_its_own_in_the_headline_and_never_paired_with_tomcats():
    from vtlab.core import dimensions
    from vtlab.report.labels import scenario_label
    jetty = dimensions.Row(thread_mode="virtual", hikari_pool=50, server="jetty", http_client="apache", client_pool=150)
    assert scenario_label(jetty) == "released, pool 50, on jetty, apache client (150 connections)"
    assert scenario_label(dimensions.Row(thread_mode="virtual", hikari_pool=50)) == "released, pool 50"


def test_a_plateau_is_told_at_its_top_naming_the_wall_that_holds_it(tmp_path):
    import shutil
    from pathlib import Path

    from vtlab.cli.main import main

    # pc1 (2026-12-02): both modes ~205 req/s at 10, 100 and 400 users, the best median at 10 users (held by the users
    # themselves); from 100 users on a pool of 10 held them. The first screen tells the top of the plateau.
    run_dir = tmp_path / "pool"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "petclinic-pool", run_dir)
    assert main(["report", str(run_dir)]) == 0
    answer = (run_dir / "report.md").read_text().split("## Headline")[0]
    for mode in ("platform", "virtual"):
        line = next(text for text in answer.splitlines() if text.strip().startswith(f"- {mode} threads:"))
        assert "at 400 users, held by the connection pool" in line, line
