"""Charts that do not mislead: the offered rate drawn as y = x through every load (on a log axis a segment between
its two ends bows far above the points), load labels that never overprint (their boxes measured by matplotlib's own
renderer), and a capacity run's first words its capacity ratio, its ratio at a common load said for what it is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import matplotlib.pyplot as plt

from vtlab.report import answer, charts, loadaxis, render

CROWDED = [100, 190, 195, 209, 400, 1090, 1137, 1187, 1239]  # a capacity search's points on 2 cores
FIXTURE = Path(__file__).parents[1] / "fixtures" / "capacity-run"


def test_the_offered_rate_is_y_equals_x_at_every_load_and_dense_enough_to_stay_it_on_a_log_axis():
    fig, ax = plt.subplots()
    ax.set_xscale("log")
    charts.offered_rate(ax, CROWDED)
    line = ax.get_lines()[-1]
    xs, ys = list(line.get_xdata()), list(line.get_ydata())
    plt.close(fig)
    assert xs == ys and set(CROWDED) <= set(xs)
    steps = [b / a for a, b in zip(xs, xs[1:], strict=False)]
    assert max(steps) <= (max(CROWDED) / min(CROWDED)) ** (1 / charts.OFFERED_STEPS) * 1.000001


def boxes(fig, ax):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [(text.get_text(), text.get_window_extent(renderer)) for text in ax.get_xticklabels() if text.get_text()]


def test_crowded_load_labels_never_overprint_and_the_brackets_edges_keep_theirs():
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    ax.set_xscale("log")
    ax.plot(CROWDED, CROWDED)
    loadaxis.at_loads(ax, CROWDED, kept=[1137, 1239])
    before = boxes(fig, ax)
    assert any(a.overlaps(b) for i, (_, a) in enumerate(before) for _, b in before[i + 1:])  # today's overprint
    shown = loadaxis.readable_loads(fig)[0]
    after = boxes(fig, ax)
    plt.close(fig)
    assert not any(a.overlaps(b) for i, (_, a) in enumerate(after) for _, b in after[i + 1:]), after
    assert "1,137" in shown and "1,239" in shown and "100" in shown
    assert len(shown) == len(CROWDED) and "" in shown  # every load keeps its tick; the crowded ones lose the text
    assert len(ax.get_xticks()) == len(CROWDED)


def test_a_brackets_edges_too_close_for_two_labels_read_as_one():
    # capD (2026-11-28): platform's bracket 190-195 and virtual's 952-989, at 1,280 px: only 190 and 952 kept text
    loads = [100, 190, 195, 209, 359, 718, 857, 952, 989, 1504]
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    ax.set_xscale("log")
    ax.plot(loads, loads)
    loadaxis.at_loads(ax, loads, kept=[190, 195, 952, 989], brackets=[(190, 195), (952, 989)])
    shown = loadaxis.readable_loads(fig)[0]
    after = boxes(fig, ax)
    plt.close(fig)
    assert "190–195" in shown and "195" not in shown  # the bracket told once, at its low edge
    assert not any(a.overlaps(b) for i, (_, a) in enumerate(after) for _, b in after[i + 1:]), after
    assert len(shown) == len(loads)  # every load keeps its tick
    # edges far enough apart keep a label each
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    ax.set_xscale("log")
    loadaxis.at_loads(ax, [100, 400, 1000], kept=[100, 1000], brackets=[(100, 1000)])
    assert loadaxis.readable_loads(fig)[0] == ["100", "400", "1,000"]
    plt.close(fig)


def test_a_capacity_run_tells_its_capacity_ratio_first_and_its_common_load_ratio_for_what_it_is(tmp_path):
    run_dir = tmp_path / "capacity-run"
    shutil.copytree(FIXTURE, run_dir)
    paths = render.render(run_dir)
    text = paths["markdown"].read_text()
    section = text[text.index("## Capacity at"):text.index("## The answer")]
    first = section.split("\n- ")[1]
    assert first.startswith("Virtual threads carry 2.84× the platform threads' capacity")
    told = text[text.index("## The answer"):text.index("## Headline")]
    assert answer.SEARCH_POINT in told
    drawn = json.loads((run_dir / "charts.json").read_text())["capacity"]
    assert len(drawn["x_labels"]) == len({load for mode in ("platform", "virtual") for load in drawn[mode]["load"]})
