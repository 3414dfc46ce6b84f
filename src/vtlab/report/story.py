"""The report's sentences, each computed from the analysis: where each thread mode flattened and why, the
held-connection and open-model stories, which rows cannot be trusted, and what a user's service hid. Every
conclusion and ratio is drawn from valid lines only (report.validrows); where a mode has none, the sentence says so
and why, its figures set apart."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from vtlab.core import dimensions
from vtlab.core.constants import Constants
from vtlab.explain.bottleneck import CEILING_OF
from vtlab.explain.model import Aggregate, Analysis, Verdict
from vtlab.explain.validity import CEILING_EXCEEDED, IN_A_PAIR, NOT_EXPOSED, invalidating
from vtlab.report import equalspeed, ratio, sharedcores, validrows
from vtlab.report.labels import TOMCAT_THREADS, fmt, is_arm_b, row_label
from vtlab.report.scenarios.common import against, separated
from vtlab.report.validrows import load


def explain(analysis: Analysis) -> list[str]:
    """Sentences generated from the analysis: where each mode flattened and why."""
    threads = analysis.rig.tomcat_max_threads
    main = main_rows(analysis.aggregates, threads)

    def lines(conn: str, mode: str) -> list[Aggregate]:
        # one arm's: a paired run's second arm of one mode (an A/A's, a before/after's other jar) is the same mode's
        # other JVM, told beside the first in the paired section, never a step of its staircase
        return sorted((a for a in main if a.row.conn_mode == conn and a.row.thread_mode == mode
                       and a.row.path_mode == "normal" and a.row.load_model == "closed" and not is_arm_b(a.row)),
                      key=lambda a: a.row.concurrency)

    platform, virtual = lines("released", "platform"), lines("released", "virtual")
    story = [*_platform_story(platform), *_virtual_story(virtual, analysis.rig),
             *_best_against_best(platform, virtual), *_held_story(main), *_open_story(main, analysis.rig)]
    if not story:
        story.append("This run measured only the scenarios below; the order-summary story needs `--workload "
                     "order-summary` rows.")
    return (story + _validity_story(analysis.verdicts, threads) + sharedcores.sentences(analysis.verdicts, threads)
            + equalspeed.sentences(analysis.verdicts, analysis.rig, threads))


def _platform_story(lines: Sequence[Aggregate]) -> list[str]:
    """Where platform threads met their wall, told from the valid lines; the invalid ones are said to be left out
    (refusals past the wall, a cliff: told with the invalid rows)."""
    if not lines:
        return []
    platform = validrows.valid(lines)
    if not platform:
        return [f"Nothing is concluded of platform threads: {validrows.unanswered([('platform', lines)], load)}."]
    return [_platform_wall(platform) + validrows.left_out(lines, load) + "."]


def _platform_wall(platform: Sequence[Aggregate]) -> str:
    """The platform story's sentence, without its full stop."""
    walls = [a for a in platform if a.bottleneck == "thread-pool"]
    if walls:
        first, wall = walls[0], walls[-1]
        ms, source = wall.line.service_time_ms, wall.line.service_time_source  # the wall row's own scenario
        predicted = (f"Tomcat's threads ÷ the time each is busy ({fmt(ms, 0)} ms, the {source}) predict "
                     f"{fmt(wall.ceiling_rps, 0)} req/s")
        # a row with more users that served more than the wall allows, beyond its noise: the prediction failed there
        past = [a for a in platform if a.row.concurrency > wall.row.concurrency
                and f"{CEILING_EXCEEDED}thread-pool" in a.flags]
        if first is wall and past:
            return (f"Platform threads met their thread wall at {wall.row.concurrency} users with "
                    f"{fmt(wall.throughput_median, 0)} req/s: {predicted}; yet at {past[-1].row.concurrency} users "
                    f"they served {fmt(past[-1].throughput_median, 0)} req/s, beyond that prediction and its noise: "
                    "the thread wall did not hold there")
        if first is wall:  # one row at the wall: what more users do past it was not measured
            return (f"Platform threads met their thread wall at {wall.row.concurrency} users with "
                    f"{fmt(wall.throughput_median, 0)} req/s: {predicted} (p99 {fmt(wall.p99_median, 0)} ms); no "
                    "row with more users at that wall, so what lies past it was not measured")
        if separated(first.line, wall.line):
            return (f"Platform threads met their thread wall — {predicted} — yet throughput did not flatten: "
                    f"{fmt(first.throughput_median, 0)} req/s at {first.row.concurrency} users, "
                    f"{fmt(wall.throughput_median, 0)} at {wall.row.concurrency} — beyond both rows' noise")
        queue = (f", and past that users only queue (p99 {fmt(wall.p99_median, 0)} ms at {wall.row.concurrency} users)"
                 if wall.p99_median > first.p99_median else
                 f"; past that p99 did not grow ({fmt(first.p99_median, 0)} ms at {first.row.concurrency} users, "
                 f"{fmt(wall.p99_median, 0)} ms at {wall.row.concurrency})")
        return f"Platform threads flatten at {fmt(wall.throughput_median, 0)} req/s: {predicted}{queue}"
    best = max(platform, key=lambda a: a.throughput_median)
    return (f"Platform threads reached {fmt(best.throughput_median, 0)} req/s at "
            f"{best.row.concurrency} users without meeting their thread wall ({best.bottleneck})")


LIMIT_WORDS = {"concurrency": "the users themselves (each waits on the downstream, so users ÷ service time)",
               "cpu": "the CPU", "connection-pool": "the connection pool", "thread-pool": "the thread pool",
               "connection-limit": "the connections the service can hold at once",
               "client-pool": "the downstream client's connection pool"}


def _virtual_story(lines: Sequence[Aggregate], rig: Constants) -> list[str]:
    if not lines:
        return []
    virtual = validrows.valid(lines)
    if not virtual:
        return [f"Nothing is concluded of virtual threads: {validrows.unanswered([('virtual', lines)], load)}."]
    best = max(virtual, key=lambda a: a.throughput_median)
    reached = (f"a ceiling of {fmt(best.ceiling_rps, 0)} req/s that restates the row's own measurement"
               if best.line.limit_restated else
               f"{fmt(best.throughput_median / best.ceiling_rps * 100, 0)}% of a predicted "
               f"{fmt(best.ceiling_rps, 0)} req/s")
    # "limited by" a ceiling the row reached (or that restates it) and whose wall the row showed saturated; one it
    # stayed below did not limit it, and one it reached while another wall was seen is only reached. A ceiling a
    # row passed is never its limit (the analysis takes the next one up, said in the notes); the reps' mean can
    # still pass it where one rep's floor did not.
    standing = "at" if best.line.limit_restated else against(best.line, best.ceiling_rps, rig.ceiling_exceeded_margin)
    if standing == "at" and CEILING_OF.get(best.bottleneck) != best.limit:
        standing = "reached"
    limited = {"below": "short of its lowest ceiling, that of",
               "above": "past its lowest ceiling (a prediction the reps proved wrong), that of",
               "reached": "at its lowest ceiling, that of"}.get(standing, "limited by")
    ceiling = (f"({reached}), {limited} {LIMIT_WORDS.get(best.limit, best.limit)}" if standing else
               "(no ceiling computed: nothing measured predicts one)")
    return [f"Virtual threads reach {fmt(best.throughput_median, 0)} req/s{_interval_words(best)} at "
            f"{best.row.concurrency} users {ceiling}; bottleneck: {best.bottleneck}{validrows.left_out(lines, load)}."]


def _best_against_best(platform: Sequence[Aggregate], virtual: Sequence[Aggregate]) -> list[str]:
    """The best valid line of each mode against the other's; where a mode has none, no ratio, and why."""
    if not platform or not virtual:
        return []
    why = validrows.unanswered([("platform", platform), ("virtual", virtual)], load)
    if why:
        return [f"Best against best is not computed: {why}."]
    told = ratio.between(*(max(validrows.valid(lines), key=lambda a: a.throughput_median)
                           for lines in (platform, virtual)))
    if not told.computed:
        return [f"Best against best is not computed: {told.why_not}."]
    return [f"Best against best, virtual threads deliver {told.text()} the platform threads' throughput (in "
            "brackets where measured, the range both modes' 95% intervals allow)."]


def _interval_words(line: Aggregate) -> str:
    if not line.interval_known:
        return ""
    # one rep: the row's own 95% interval; several: the 95% interval of their mean (repetitions.interval)
    what = "95% interval" if line.reps == 1 else f"95% interval of the mean of {line.reps} reps"
    return f" ({what} {fmt(line.interval_low, 0)}–{fmt(line.interval_high, 0)})"


def _open_story(main: Sequence[Aggregate], rig: Constants) -> list[str]:
    """The open model per mode, told from its valid lines: the highest offered rate it kept up with, what it
    delivered above it, and the two modes side by side at the highest rate both were offered."""
    story = []
    by_mode: dict[str, dict[int, Aggregate]] = {}
    for mode in ("platform", "virtual"):
        measured = sorted((a for a in main if a.row.load_model == "open" and a.row.thread_mode == mode
                           and a.row.conn_mode == "released" and a.row.path_mode == "normal"),
                          key=lambda a: a.row.target_rps)
        if not measured:
            continue
        by_mode[mode] = {a.row.target_rps: a for a in measured}
        lines = validrows.valid(measured)
        if not lines:
            story.append(f"Open model, nothing is concluded of {mode} threads: "
                         f"{validrows.unanswered([(mode, measured)], load)}.")
            continue
        kept = [a for a in lines if a.throughput_median >= rig.open_kept_up_share * a.row.target_rps]
        over = [a for a in lines if a not in kept]
        sentence = f"Open model, {mode} threads: " + (
            f"kept up with {fmt(kept[-1].row.target_rps)} req/s offered (p99 {fmt(kept[-1].p99_median)} ms)"
            if kept else "kept up with none of the offered rates")
        if over:
            top = over[-1]
            sentence += (f"; offered {fmt(top.row.target_rps)} req/s it delivered {fmt(top.throughput_median, 1)}"
                         f"{_interval_words(top)} — its wall ({top.bottleneck}) — "
                         + _queue_words(top, rig.open_queued_factor))
        story.append(sentence + validrows.left_out(measured, load) + ".")
    common = sorted(set(by_mode.get("platform", {})) & set(by_mode.get("virtual", {})))
    if common:
        rate = common[-1]
        told = ratio.between(by_mode["platform"][rate], by_mode["virtual"][rate])
        story.append(f"Offered {fmt(rate)} req/s, virtual threads delivered {told.text()} the platform threads' rate."
                     if told.computed else f"Offered {fmt(rate)} req/s, the two modes are not compared: "
                     f"{told.why_not}.")
    return story


def _queue_words(top: Aggregate, queued: float) -> str:
    """Whether a rate the service did not keep up with queued requests: a p99 at least `queued` times the time in
    service (the rig's open_queued_factor)."""
    ms = top.line.service_time_ms
    times = top.p99_median / ms if ms > 0 else math.nan
    if math.isnan(times):
        return "its latency against its time in service not measured"
    if times >= queued:
        return (f"and latency grew (p99 {fmt(top.p99_median)} ms, {fmt(times, 1)}× the {fmt(ms)} ms a request takes "
                "unqueued): arrivals kept coming while requests waited")
    return (f"yet latency did not grow (p99 {fmt(top.p99_median)} ms against {fmt(ms)} ms in service): the arrivals "
            "it did not deliver did not queue in the service")


def _held_label(line: Aggregate) -> str:
    return f"{line.row.thread_mode}, {line.row.concurrency} users, pool {line.row.hikari_pool}"


def _held_story(main: Sequence[Aggregate]) -> list[str]:
    """The held connection, told from the valid held lines: the pool's cap and what each line met."""
    measured = [a for a in main if a.row.conn_mode == "held" and a.row.path_mode == "normal"]
    if not measured:
        return []
    held = validrows.valid(measured)
    if not held:
        return ["With the connection held across the downstream call nothing is concluded: "
                f"{validrows.unanswered([('held', measured)], _held_label)}."]
    ms, source = held[0].line.service_time_ms, held[0].line.service_time_source
    parts = ", ".join(f"{a.row.thread_mode} {fmt(a.throughput_median, 1)} req/s ({a.bottleneck})"
                      for a in sorted(held, key=lambda a: (a.row.hikari_pool, a.row.thread_mode)))
    pools = sorted({a.row.hikari_pool for a in held})
    at_pool = [a for a in held if a.bottleneck == "connection-pool"]
    moved = ("the bottleneck moves to the pool" if len(at_pool) == len(held) else
             f"the pool was the bottleneck in {len(at_pool)} of {len(held)} held rows")
    modes = "both modes" if {a.row.thread_mode for a in held} >= {"platform", "virtual"} else "it"
    return [f"With the connection held across the downstream call {moved}: "
            f"pool ÷ {fmt(ms, 0)} ms ({source}) caps {modes} at "
            + ", ".join(f"{fmt(p / (ms / 1000), 0)} req/s for {p} connections" for p in pools)
            + f" — measured: {parts}{validrows.left_out(measured, _held_label)}."
            + _held_modes_sentence(measured)]


def _held_modes_sentence(held: Sequence[Aggregate]) -> str:
    """Whether virtual threads helped with the connection held: the modes side by side at the same pool and users,
    where both have a valid line."""
    by = {(a.row.hikari_pool, a.row.concurrency, a.row.thread_mode): a for a in held}
    measured = [(by[(pool, users, "platform")], a) for (pool, users, mode), a in by.items()
                if mode == "virtual" and (pool, users, "platform") in by]
    if not measured:
        return " Only one thread mode was measured held: whether virtual threads help here was not measured."
    pairs = [(p, v) for p, v in measured if p.valid and v.valid]
    if not pairs:
        return (" The two modes are not compared held: "
                + "; ".join(validrows.unanswered([("platform", [p]), ("virtual", [v])], _held_label)
                            for p, v in measured) + ".")
    apart = [(p, v) for p, v in pairs if separated(p.line, v.line)]
    if not apart and all(a.bottleneck == "connection-pool" for pair in pairs for a in pair):
        return " Virtual threads cannot help when every request needs a connection for the whole call."
    if not apart:
        return " The two modes are within noise of each other, though not both at the pool."
    p, v = apart[0]
    return (f" Virtual threads delivered {ratio.between(p, v).text()} the platform threads' rate at "
            f"{p.row.hikari_pool} connections and {p.row.concurrency} users — beyond noise: the pool alone did not "
            "set both.")


def _validity_story(verdicts: Sequence[Verdict], threads: int) -> list[str]:
    invalid = [a for a in verdicts if not a.valid]
    if invalid:
        story = [f"{len(invalid)} row(s) cannot be trusted and are marked: "
                 + "; ".join(f"{row_label(a.row, threads)} ({';'.join(a.flags)})" for a in invalid) + "."]
    else:
        # a flag that leaves a row valid (a note) still says something the sentence below would deny; a paired run's
        # blocks that stand as their pairs do are counted, each mode's in the answer
        stood = [a for a in verdicts if IN_A_PAIR in a.flags]
        noted = [a for a in verdicts if _notes(a) and a not in stood]
        told = (["noted, without making a row invalid: " + "; ".join(
                    f"{row_label(a.row, threads)} ({';'.join(_notes(a))})" for a in noted)] if noted else [])
        if stood:
            flags = Counter(flag for a in stood for flag in invalidating(a.flags))
            told.append(f"{len(stood)} block(s) flagged for the machine's moving stand as their pairs do ("
                        + ", ".join(f"{flag} {count}" for flag, count in flags.most_common()) + ")")
        story = (["Every row is valid: the generator kept up (its CPU is in every row), no dropped "
                  "iterations, no counted errors, samplers complete, throughput steady across the hold."]
                 if not told else ["Every row is valid; " + "; ".join(told) + "."])
    return story + _not_measured_story(verdicts)


def _notes(verdict: Verdict) -> list[str]:
    """The flags a valid row carries beyond what a user's service did not expose."""
    return [flag for flag in verdict.flags if not flag.startswith(NOT_EXPOSED)]


# What each not-exposed flag leaves unmeasured, in words.
NOT_EXPOSED_WORDS = {"meters": "its meters (no /actuator/prometheus nor /actuator/metrics)",
                     "app_cpu_pct": "its CPU and memory (a --url service is not vtlab's process)",
                     "neighbours": "other processes' CPU apart from its own",
                     "hikari_active_max": "its connection pool's gauges", "jvm_threads_max": "its JVM threads"}


def _not_measured_story(verdicts: Sequence[Verdict]) -> list[str]:
    """What a user's service did not let vtlab measure, and the ceilings that stayed uncomputed for it."""
    hidden = sorted({flag.removeprefix(NOT_EXPOSED) for a in verdicts for flag in a.flags
                     if flag.startswith(NOT_EXPOSED)})
    missing = sorted({text for a in verdicts for text in a.ceilings.missing})
    if not hidden and not missing:
        return []
    return [("Not measured on your service: " + "; ".join(NOT_EXPOSED_WORDS.get(name, name) for name in hidden)
             + ". " if hidden else "") + ("Ceilings not computed: " + "; ".join(missing) + "." if missing else "")]


def main_rows(lines: Sequence[Any], threads: int = TOMCAT_THREADS) -> list[Any]:
    """The order-summary rows (verdicts or aggregates) at Tomcat's default pool: what the hero story is told
    from. A run of the user's own service tells the same story of its rows, at whatever pool it runs."""
    own = [a for a in lines if a.row.workload == "order-summary" and not dimensions.is_variant(a.row)
           and (a.row.thread_mode != "platform" or a.row.tomcat_max_threads == threads)]
    return own or [a for a in lines if a.row.workload == "service" and not dimensions.is_variant(a.row)]


def failures_sentence(failed: Sequence[Verdict]) -> list[str]:
    if not failed:
        return []
    return [f"{len(failed)} row(s) failed — a tier died during the row — and are left out of every verdict and "
            "chart above and below (see Failed rows; `--resume` measures them again)."]

