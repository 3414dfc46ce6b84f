"""The user's jar's AOT cache: keyed by what the training ran and the service was told, never by a secret's text."""

from pathlib import Path

from vtlab.core.settings import Java
from vtlab.rig import aot
from vtlab.targets import requestmix, useraot, userrow
from vtlab.targets.userservice import Call, Target


def _get(path: str) -> Call:
    return Call(mix=requestmix.endpoint("GET", path, (1, 9), None))


def cache(tmp_path: Path, target: Target, jvm_opts=()) -> Path:
    home = tmp_path / "jdk"
    home.mkdir(exist_ok=True)
    (home / "release").write_text('JAVA_RUNTIME_VERSION="25.0.3+9-LTS"\n')
    jar = tmp_path / "svc.jar"
    jar.write_bytes(b"a build")
    return aot.cache_for(Java(home), jar, userrow.options(jvm_opts), "virtual",
                         "service-" + useraot._call_digest(target)).path


def test_the_cache_of_a_users_jar_changes_with_its_call_script_settings_arguments_and_options(tmp_path):
    script = tmp_path / "load.js"
    script.write_text("export default function () {}")
    endpoint = Target(call=_get("/things/{id}"), jar=tmp_path / "svc.jar",
                      env=(("SPRING_DATASOURCE_PASSWORD", "s3cret"),))
    same = cache(tmp_path, endpoint)
    assert cache(tmp_path, endpoint) == same  # one command line, one cache
    others = [
        cache(tmp_path, Target(call=_get("/other/{id}"), jar=endpoint.jar, env=endpoint.env)),
        cache(tmp_path, Target(call=endpoint.call, jar=endpoint.jar, env=(("SPRING_DATASOURCE_PASSWORD", "x"),))),
        cache(tmp_path, Target(call=endpoint.call, jar=endpoint.jar, env=endpoint.env, args=("--debug",))),
        cache(tmp_path, endpoint, jvm_opts=("-XX:+UseParallelGC",)),
    ]
    with_script = cache(tmp_path, Target(call=Call(script=script), jar=endpoint.jar))
    script.write_text("export default function () { /* changed */ }")
    others += [with_script, cache(tmp_path, Target(call=Call(script=script), jar=endpoint.jar))]
    assert len({same, *others}) == 1 + len(others)
    assert all("s3cret" not in path.name for path in [same, *others])
