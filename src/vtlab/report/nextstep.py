"""Where a run gave no answer, one line of what would give one, from what set its rows apart: the flags grouped by
their cause, each cause with the flag that answers it (or where to look, where no flag does), the most frequent
first. A demanding user's next step, said from the rows, never guessed: a run whose rows carry none of these flags
gets no line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from vtlab.explain import validity

# (the flags of one cause, what answers it in a paired run, and in a run measured one mode after the other)
_WARMUP = "--warmup 90, a longer warm-up (the compiler still ran at the hold)"
_GENERATOR = "--cpus 'app=… load=…', k6 on cores of its own, or a larger machine (k6 took CPU the service needed)"
_SERVICE = "the service's own failures: its log (logs/) and the report's failed requests by status"
CAUSES = (
    (validity.MACHINE_DRIFT, "--blocks 5 --hold 20, more and longer blocks (the pairs spread with the machine)",
     "--paired, the modes measured as one (both JVMs up, blocks taken in turns: the machine's drift falls on both)"),
    (("jit-not-settled",), _WARMUP, _WARMUP),
    (("generator-interference", "generator-saturated", "generator-cpu-unknown", "dropped-iterations", "vu-cap"),
     _GENERATOR, _GENERATOR),
    (("errors-above-threshold", "errors-counted", "no-successful-requests", "writes-mismatch", "stall",
      "out-of-memory"), _SERVICE, _SERVICE),
)
SAID = 2  # causes named at most


def line(flags_of_invalid_rows: Iterable[list[str]], paired: bool) -> str:
    """ "To get an answer: …", the causes of the rows' invalidating flags (validity.invalidating) the most frequent
    first, each with its count; "" where none of them set a row apart."""
    counts: Counter[int] = Counter()
    for flags in flags_of_invalid_rows:
        named = {flag.split(":")[0] for flag in validity.invalidating(flags)}
        for index, (cause, _, _) in enumerate(CAUSES):
            if named & set(cause):
                counts[index] += 1
    if not counts:
        return ""
    told = [f"{CAUSES[index][1] if paired else CAUSES[index][2]} — {count} row{'s' if count != 1 else ''}"
            for index, count in counts.most_common(SAID)]
    return "To get an answer: " + "; ".join(told) + "."
