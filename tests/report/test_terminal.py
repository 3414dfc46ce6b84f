"""What a run prints as it ends: the report's answer and the rows set apart by flag, not the whole report; a long
answer cut with how many more, a capacity search's own section first. Fed made-up reports and analyses, so the data
could say otherwise."""

import csv

from vtlab.report import terminal

REPORT = """# vtlab: platform vs virtual threads

## The answer

- **released, pool 50** · virtual ÷ platform at 1,000 users: 4.95× [4.82–5.09] paired, 3 pairs
  - platform threads: 190 req/s at 1,000 users, held by the server's 200 request threads
  - virtual threads: 948 req/s at 1,000 users, held by the users themselves

## Headline

| scenario | concurrency |
|---|---|
| released, pool 50 | 1000 |
"""


def analysis(path, *rows):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["thread_mode", "valid", "flags"])
        writer.writeheader()
        for valid, flags in rows:
            writer.writerow({"thread_mode": "virtual", "valid": valid, "flags": flags})
    return path


def test_the_run_ends_with_its_answer_and_the_rows_set_apart_by_flag_not_the_tables(tmp_path):
    csv_path = analysis(tmp_path / "a.csv", ("true", ""), ("false", "noisy-neighbour;too-noisy;jit-busy:87.2%"),
                        ("false", "hypervisor-steal"), ("false", "generator-priced:16%±19%;noisy-neighbour"))
    told = terminal.summary(REPORT, csv_path)
    assert told.splitlines()[0] == "# vtlab: platform vs virtual threads"
    assert "4.95× [4.82–5.09] paired, 3 pairs" in told and "held by the users themselves" in told
    assert "| scenario |" not in told and "## Headline" not in told
    assert "3 of 4 rows set apart (not published as answers): noisy-neighbour 2," in told
    assert "hypervisor-steal 1" in told and "too-noisy 1" in told
    assert "jit-busy" not in told and "generator-priced" not in told  # notes beside a row, not what set it apart
    assert len(told.splitlines()) <= 20


def test_every_row_valid_is_said_and_a_long_answer_is_cut_with_how_many_more(tmp_path):
    many = "\n".join(f"- **scenario {i}** · virtual ÷ platform: 1.0{i}×" for i in range(20))
    report = f"# vtlab\n\n## The answer\n\n{many}\n\n## Headline\n"
    told = terminal.summary(report, analysis(tmp_path / "a.csv", ("true", ""), ("true", "")))
    assert "Every row is valid (2 of 2)." in told
    assert f"- … {20 - terminal.ANSWER_LINES} more in the report" in told
    assert "scenario 19" not in told and len(told.splitlines()) <= 20


def test_a_capacity_searchs_answer_comes_first(tmp_path):
    report = ("# vtlab capacity\n\n## Capacity at p99<=1500ms\n\n- virtual threads: 1,187 req/s [1,137–1,239]\n\n"
              "## The answer\n\n- **released** · 1.00×\n\n## Headline\n")
    told = terminal.summary(report, analysis(tmp_path / "a.csv", ("true", "")))
    assert told.index("1,187 req/s") < told.index("1.00×")


def test_an_answer_with_no_ratio_ends_with_what_would_give_one(tmp_path):
    report = ("# vtlab\n\n## The answer\n\n- **your service** · at 400 users: no ratio: no valid platform row "
              "(too-noisy)\n\n## Headline\n")
    rows = [("false", "too-noisy;host-speed:74%"), ("false", "not-steady;jit-not-settled"), ("true", "")]
    told = terminal.summary(report, analysis(tmp_path / "analysis.csv", *rows))
    assert "To get an answer: --paired, the modes measured as one" in told and "— 2 rows" in told, told
    # the same rows measured in turns: more and longer blocks, not --paired again
    with open(tmp_path / "matrix.csv", "w") as handle:
        handle.write("thread_mode,taken_in_turns\nvirtual,yes\n")
    assert "To get an answer: --blocks 5 --hold 20" in terminal.summary(report, tmp_path / "analysis.csv")
    # an answer given: no such line, whatever the rows set apart
    assert "To get an answer" not in terminal.summary(REPORT, tmp_path / "analysis.csv")


ADVICE = """
## Before you flip: what to change

- Each wall a setting sizes, with the size that carries what the users ask.
- released, pool 50, platform at 400 users: held by its request threads (200); its users ask 399 req/s, which 400 carry, and then the users themselves would hold it at 399 req/s; try --tomcat-threads 400; each platform thread reserves a stack: ~400 MiB of address space at -Xss1m.
- released, pool 50, platform at 1,000 users: held by its request threads (200); try --tomcat-threads 1000; each platform thread reserves a stack.
- held, pool 50, platform at 100 users: held by its connection pool (50); try --pools 100; the connection is held across the downstream call.
- held, pool 50, virtual at 100 users: held by its connection pool (50); try --pools 100; the connection is held.
- virtual at 3,000 users: no setting and no thread model lifts a CPU wall: 0.5 ms of CPU a request.
- things, platform at 1,000 users: held by its connection pool (10); try --service-env SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE=100.
"""  # noqa: E501


def test_the_settings_the_advice_suggests_are_named_once_a_flag_with_the_command_that_tries_them(tmp_path):
    analysis(tmp_path / "analysis.csv", ("True", ""))
    told = terminal.summary(REPORT + ADVICE, tmp_path / "analysis.csv").splitlines()
    assert (f"Before you flip: 2 settings to try (--tomcat-threads 400/1000, --pools 100); `vtlab advise {tmp_path} "
            "--try` re-measures each on its points") in told
    assert not any("Before you flip" in line for line in terminal.summary(REPORT, tmp_path / "analysis.csv")
                   .splitlines())
    # a user's service: its advice's flags are its own environment's, which no try of vtlab's sets
    (tmp_path / "metadata.json").write_text('{"target": {"jar": "things.jar", "call": "GET /things/{id}"}}')
    assert not any("Before you flip" in line for line in terminal.summary(REPORT + ADVICE, tmp_path / "analysis.csv")
                   .splitlines())
