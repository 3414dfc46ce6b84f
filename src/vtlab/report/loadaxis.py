"""A load axis (users, or offered requests a second) ticked at the loads measured and written out, on a log axis too;
where neighbours' labels would overprint, a readable subset keeps its text (measured by matplotlib's own renderer),
a bracket's edges first, told as one label ("190–195") where even upright they cannot be two."""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib import ticker


def number(value: float) -> str:
    """ "1,000"; "0.5" below one."""
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def at_loads(ax, loads: Sequence[float], kept: Sequence[float] = (),
             brackets: Sequence[tuple[float, float]] = ()) -> list[str]:
    """The x axis ticked at the loads measured and written out ("100, 400, 1,000"), on a log axis too, where
    matplotlib would write powers of ten between them; the labels drawn. Where neighbours would overprint, svg keeps
    a readable subset's text (readable_loads), `kept` (a bracket's edges) first; a bracket (its low and high edge)
    whose edges overprint each other even upright is labelled once, at its low edge ("190–195")."""
    ticks = sorted({v for v in loads if v > 0 and not math.isnan(v)})
    if not ticks:
        return []
    labels = [number(tick) for tick in ticks]
    ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(ticker.FixedFormatter(labels))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.vtlab_loads = (ticks, labels, {float(v) for v in kept}, tuple(brackets))
    return labels


# Air between two neighbouring labels of a load axis, in points: less, and they read as one number.
LABEL_GAP_PT = 2.0


def readable_loads(fig) -> dict[int, list[str]]:
    """Every load axis of `fig` (at_loads) with the labels that would overprint left without text, their ticks kept:
    the kept loads first, then from the left, each label shown only where its box, measured by matplotlib's renderer
    with LABEL_GAP_PT of air, meets no label shown; where kept ones would overprint each other, every label upright.
    The labels shown per axis (by its index in fig.axes): what a test reads back."""
    axes = [(index, ax) for index, ax in enumerate(fig.axes) if getattr(ax, "vtlab_loads", None)]
    done = {index: ax.vtlab_shown for index, ax in axes if getattr(ax, "vtlab_shown", None) is not None}
    axes = [(index, ax) for index, ax in axes if index not in done]
    if not axes:
        return done
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    gap = LABEL_GAP_PT * fig.dpi / 72
    shown_by_axis: dict[int, list[str]] = {}
    for index, ax in axes:
        ticks, labels, kept, brackets = ax.vtlab_loads
        shown = _shown(ax, renderer, ticks, kept, gap)
        if shown is None:
            continue
        if _edge_hidden(ticks, kept, shown):
            # the edges themselves would overprint each other: upright labels are a line's height wide
            ax.tick_params(axis="x", labelrotation=90)
            fig.canvas.draw()
            shown = _shown(ax, renderer, ticks, kept, gap) or shown
        if _edge_hidden(ticks, kept, shown):
            # still: a bracket's two edges told as one label at its low edge, its high edge's tick left without text
            labels, kept = _joined(ticks, labels, kept, [(low, high) for low, high in brackets
                                                         if _edge_hidden(ticks, {low, high}, shown)])
            ax.xaxis.set_major_formatter(ticker.FixedFormatter(labels))
            fig.canvas.draw()
            shown = _shown(ax, renderer, ticks, kept, gap) or shown
        texts = [labels[i] if i in shown else "" for i in range(len(ticks))]
        ax.xaxis.set_major_formatter(ticker.FixedFormatter(texts))
        ax.vtlab_shown = shown_by_axis[index] = texts  # once: measured again, a blank label overlaps nothing
    return {**done, **shown_by_axis}


def _edge_hidden(ticks: Sequence[float], kept: set[float], shown: Sequence[int]) -> bool:
    return any(ticks[i] in kept for i in set(range(len(ticks))) - set(shown))


def _joined(ticks: Sequence[float], labels: Sequence[str], kept: set[float],
            brackets: Sequence[tuple[float, float]]) -> tuple[list[str], set[float]]:
    """The labels with each of `brackets`' low edge reading "low–high" and its high edge's empty (no longer kept)."""
    joined, still = list(labels), set(kept)
    for low, high in brackets:
        if low in ticks and high in ticks and low < high:
            joined[ticks.index(low)] = f"{number(low)}–{number(high)}"
            joined[ticks.index(high)] = ""
            still.discard(high)
    return joined, still


def _shown(ax, renderer, ticks: Sequence[float], kept: set[float], gap: float) -> list[int] | None:
    """The labels' indices that can be shown without overprinting: the kept ones first, then from the left, each
    where its box (with `gap` of air) meets no box shown; None where the labels are not the ticks'."""
    boxes = [text.get_window_extent(renderer) for text in ax.get_xticklabels()]
    if len(boxes) != len(ticks):
        return None
    shown: list[int] = []
    for i in sorted(range(len(ticks)), key=lambda i: (ticks[i] not in kept, i)):
        if not any(boxes[i].padded(gap / 2).overlaps(boxes[j].padded(gap / 2)) for j in shown):
            shown.append(i)
    return shown
