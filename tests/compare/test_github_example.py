"""The GitHub Actions example, checked offline: a workflow GitHub's schema (SchemaStore's, as check-jsonschema
vendors it) accepts, with a timeout, whose vtlab commands parse with vtlab's own parser and whose gate parses."""

import json
import shlex
from importlib import resources
from pathlib import Path

import jsonschema
import yaml

from vtlab.cli.main import parser
from vtlab.compare import gate

EXAMPLE = Path(__file__).parents[2] / "examples" / "github-actions" / "vtlab-gate.yml"


def _workflow():
    loaded = yaml.safe_load(EXAMPLE.read_text())
    # YAML 1.1 reads the key `on` as true; GitHub reads it as the name it is
    return {("on" if key is True else key): value for key, value in loaded.items()}


def _schema(name):
    return json.loads(resources.files("check_jsonschema.builtin_schemas").joinpath(name).read_text())


def test_the_example_is_a_workflow_githubs_schema_accepts_with_a_timeout():
    workflow = _workflow()
    jsonschema.validate(workflow, _schema("vendor/github-workflows.json"))
    jsonschema.validate(workflow, _schema("custom/github-workflows-require-timeout.json"))
    # the schema itself refuses what GitHub would: a step with neither `run` nor `uses`
    broken = json.loads(json.dumps(workflow))
    broken["jobs"]["compare"]["steps"][0] = {"name": "nothing"}
    try:
        jsonschema.validate(broken, _schema("vendor/github-workflows.json"))
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("the schema accepted a step that does nothing")


def test_its_vtlab_commands_parse_and_its_gate_is_one_compare_accepts():
    steps = _workflow()["jobs"]["compare"]["steps"]
    commands = [shlex.split(line) for step in steps for line in step.get("run", "").splitlines()
                if line.startswith("vtlab/vtlab ")]
    assert [argv[1] for argv in commands] == ["run", "run", "compare"]
    for argv in commands:
        parser().parse_args(argv[1:])  # an unknown flag or value exits 2 here
    compare = parser().parse_args(commands[2][1:])
    assert [str(p) for p in (compare.base, *compare.new)] == ["runs/base", "runs/head"]
    assert {c.metric for c in gate.parse(compare.fail_on)} == {"throughput", "p99", "cpu"}
    # each measurement writes where the comparison reads
    assert [parser().parse_args(argv[1:]).out for argv in commands[:2]] == [Path("runs/base"), Path("runs/head")]


NIGHTLY = EXAMPLE.parent / "vtlab-live-nightly.yml"


def test_the_nightly_example_is_a_workflow_whose_test_commands_parse():
    loaded = yaml.safe_load(NIGHTLY.read_text())
    workflow = {("on" if key is True else key): value for key, value in loaded.items()}
    jsonschema.validate(workflow, _schema("vendor/github-workflows.json"))
    jsonschema.validate(workflow, _schema("custom/github-workflows-require-timeout.json"))
    commands = [shlex.split(step["run"]) for step in workflow["jobs"]["live"]["steps"] if "run" in step]
    assert commands == [["./vtlab", "test", "--live"], ["./vtlab", "test", "--live", "--record"]]
    for argv in commands:
        args = parser().parse_args(argv[1:])  # an unknown flag exits 2 here
        assert args.live and args.command == "test"
    assert "schedule" in workflow["on"] and "record" in workflow["on"]["workflow_dispatch"]["inputs"]
