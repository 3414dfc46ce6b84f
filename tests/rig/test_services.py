"""vtlab's service sized to the row: its heap and its connector's limits."""

from vtlab.rig import services


def test_the_services_heap_and_connections_grow_with_the_users_from_spring_boots_and_the_old_defaults():
    assert services.service_heap_mb(100) == services.service_heap_mb(2_300) == 1024  # every row's heap before
    # 5,000 users: (64 + 5,000 × 150 / 1024) / 0.4 = 1,991 MB, in 256 MB steps
    assert services.service_heap_mb(5_000) == 2048
    assert services.connection_limits(1_000) == (8192, 1_000)
    assert services.connection_limits(10_000) == (11_024, 10_000)


def test_the_service_is_refused_unless_it_runs_the_rows_client_and_its_pool_size():
    config = services.AppConfig(virtual=True, pool=50, conn_mode="released", path_mode="normal",
                                tomcat_max_threads=200, http_client="apache", client_pool=300)
    assert config.env()["HTTP_CLIENT"] == "apache" and config.env()["CLIENT_POOL"] == "300"
    info = {"threadMode": "virtual", "connMode": "released", "pathMode": "normal", "fanOutMode": "sequential",
            "pool": {"maximumPoolSize": 50, "implementation": "HikariCP"}, "context": {"mode": "none"},
            "offload": {"executor": "platform", "poolSize": 50}, "tomcat": {"maxThreads": -1},
            "downstream": {"httpVersion": "http1", "httpClient": "apache", "pool": {"maxPerRoute": 300}}}
    assert services.check_effective(info, config) == []
    info["downstream"]["pool"]["maxPerRoute"] = 5  # Apache's default: the size did not reach the client
    assert services.check_effective(info, config) == [
        "downstream client pool: asked 300 connections per route, service runs 5"]
    info["downstream"]["httpClient"] = "jdk"
    assert services.check_effective(info, config) == ["downstream client: asked apache, service runs jdk"]


def test_the_service_is_refused_unless_it_runs_on_the_rows_server_with_its_threads():
    config = services.AppConfig(virtual=False, pool=50, conn_mode="released", path_mode="normal",
                                tomcat_max_threads=200, server="jetty")
    assert config.env()["SERVER"] == "jetty"
    info = {"threadMode": "platform", "connMode": "released", "pathMode": "normal", "fanOutMode": "sequential",
            "pool": {"maximumPoolSize": 50, "implementation": "HikariCP"}, "context": {"mode": "none"},
            "offload": {"executor": "platform", "poolSize": 50}, "downstream": {"httpVersion": "http1",
                                                                                "httpClient": "jdk"},
            "server": {"name": "jetty", "maxThreads": 200}, "tomcat": {"maxThreads": -1}}
    assert services.check_effective(info, config) == []
    info["server"] = {"name": "tomcat", "maxThreads": 200}
    assert services.check_effective(info, config) == ["server: asked jetty, service runs tomcat"]
    info["server"] = {"name": "jetty", "maxThreads": 8}
    assert services.check_effective(info, config) == ["jetty max threads: asked 200, service runs 8"]
