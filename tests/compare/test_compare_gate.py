"""The build gate: only a significant change beyond the threshold fails it; bad conditions are named."""

import pytest

from vtlab.compare import gate
from vtlab.compare.stats import Change


def _change(share, verdict):
    return Change(100.0, 100.0 * (1 + share), 100.0 * share, 100.0 * share - 1, 100.0 * share + 1, verdict)


def test_conditions_parse_with_their_direction_and_threshold():
    conditions = gate.parse("throughput<-5%, p99>+10%")
    assert conditions == (gate.Condition("throughput", True, -0.05), gate.Condition("p99", False, 0.10))
    assert str(conditions[1]) == "p99>+10%"


@pytest.mark.parametrize("text, message", [
    ("throughput<-5", "'throughput<-5' is not METRIC<PERCENT% or METRIC>PERCENT%"),
    ("latency>10%", "unknown metric 'latency'; one of throughput, p50, p99, cpu, rss, alloc, gc, errors, capacity"),
    ("throughput=-5%", "'throughput=-5%' is not"),
])
def test_a_malformed_condition_is_refused_naming_it(text, message):
    with pytest.raises(ValueError, match=message.replace("%", "%").replace("(", r"\(")):
        gate.parse(text)


def test_only_a_significant_change_beyond_the_threshold_fails_the_gate():
    conditions = gate.parse("throughput<-5%")
    cases = [("a", "throughput", _change(-0.08, "worse")),   # significant and beyond: fails
             ("b", "throughput", _change(-0.08, "~")),       # beyond, but noise covers it
             ("c", "throughput", _change(-0.03, "worse")),   # significant, but smaller than the team cares about
             ("d", "p99", _change(-0.08, "better"))]         # another metric
    assert [b.scenario for b in gate.breaches(conditions, cases)] == ["a"]


def test_the_error_rate_is_gated_in_points_of_the_requests_since_its_base_is_mostly_zero():
    conditions = gate.parse("errors>+1%")
    from_none = Change(0.0, 0.02, 0.02, 0.015, 0.025, "worse")       # 0% -> 2% of the requests failed
    slight = Change(0.0, 0.005, 0.005, 0.003, 0.007, "worse")        # 0% -> 0.5%: real, below the threshold
    assert [b.scenario for b in gate.breaches(conditions, [("a", "errors", from_none), ("b", "errors", slight)])] == [
        "a"]
