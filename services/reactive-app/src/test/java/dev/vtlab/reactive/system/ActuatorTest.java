package dev.vtlab.reactive.system;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.reactive.support.ReactiveApp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

@ReactiveApp
class ActuatorTest {

    @LocalServerPort
    int port;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @Test
    void healthIsUp() {
        LabHttp.Response response = http.get("/actuator/health");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("status").asString()).isEqualTo("UP");
    }

    @Test
    void onlyHealthAndPrometheusAreExposed() {
        assertThat(http.get("/actuator").json().get("_links").propertyNames())
                .containsExactlyInAnyOrder("self", "health", "health-path", "prometheus");
    }

    @Test
    void prometheusExposesThePoolGaugesAndTheAppsThreadMeters() {
        http.get("/api/order-summary/1"); // so request meters exist

        LabHttp.Response response = http.get("/actuator/prometheus");

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).contains(
                "r2dbc_pool_acquired_connections{name=\"connectionFactory\"}",
                "r2dbc_pool_pending_connections{name=\"connectionFactory\"}",
                "r2dbc_pool_max_allocated_connections{name=\"connectionFactory\"} 3.0",
                "r2dbc_pool_allocated_connections{",
                "r2dbc_pool_idle_connections{",
                "r2dbc_pool_acquire_seconds_count{name=\"connectionFactory\",outcome=\"success\"}",
                "r2dbc_pool_acquire_seconds_count{name=\"connectionFactory\",outcome=\"timeout\"}",
                "r2dbc_pool_usage_seconds_sum{name=\"connectionFactory\"}",
                "http_server_requests_active_seconds_count{",
                "http_server_requests_seconds_count{",
                "jvm_threads_live_threads ",
                "jvm_threads_virtual_live_threads{",
                "jvm_threads_virtual_pinned_seconds_count ",
                "process_memory_rss_bytes ");
    }

    @ParameterizedTest
    @ValueSource(strings = { "/actuator/env", "/actuator/beans", "/actuator/configprops", "/actuator/heapdump" })
    void sensitiveEndpointsAreNotExposed(String path) {
        assertProblem(http.get(path), 404);
    }
}
