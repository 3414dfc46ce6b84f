"""--slo's grammar: percentiles in ms or s, the error rate in %, several conditions; anything else refused with the
forms accepted."""

import pytest

from vtlab.core import objective
from vtlab.core.objective import Condition


def test_conditions_parse_into_milliseconds_and_shares():
    parsed = objective.parse("p99<=500ms, errors<=0.1%,p99.9<=1.5s,p50<=20ms,p90 <= 2s")
    assert parsed.conditions == (Condition("p99", 500.0), Condition("errors", 0.001), Condition("p99.9", 1500.0),
                                 Condition("p50", 20.0), Condition("p90", 2000.0))
    assert str(parsed) == "p99<=500ms,errors<=0.1%,p99.9<=1500ms,p50<=20ms,p90<=2000ms"


@pytest.mark.parametrize("text", ["p99<=500", "p99<500ms", "p95<=500ms", "errors<=0.1", "errors<=2ms", "p99<=5%",
                                  "p99<=500ms,", "", "p99<=0ms", "errors<=150%", "p99<=1s,p99<=2s", "latency<=1s"])
def test_a_malformed_objective_is_refused_naming_the_part_and_the_accepted_forms(text):
    with pytest.raises(ValueError, match=r"is not accepted.*p50, p90, p99 or p99\.9 in ms or s .* errors in %"):
        objective.parse(text)
