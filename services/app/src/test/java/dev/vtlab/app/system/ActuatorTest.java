package dev.vtlab.app.system;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PlatformReleasedApp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusScrapeEndpoint;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

@PlatformReleasedApp
class ActuatorTest {

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

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
    void prometheusExposesTheMetersTheHarnessScrapes() {
        http.get("/api/order-summary/1"); // so request meters exist

        LabHttp.Response response = http.get("/actuator/prometheus");

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).contains(
                "hikaricp_connections_active{",
                "hikaricp_connections_pending{",
                "hikaricp_connections_max{",
                "tomcat_connections_current_connections{",
                "http_server_requests_active_seconds_count{",
                "http_server_requests_seconds_count{",
                "jvm_threads_live_threads ",
                "jvm_threads_virtual_live_threads{",
                "jvm_threads_virtual_pinned_seconds_count ",
                "jvm_threads_virtual_submit_failed_total ",
                "process_memory_rss_bytes ");
    }

    @Test
    void theRunningAppScrapesThroughTheRigsEndpointNotBootsOwn() {
        // the one scrape endpoint is the platform-thread one (ScrapeEndpointAutoConfiguration), Boot's backed off
        assertThat(context.getBeansOfType(PrometheusScrapeEndpoint.class).values())
                .singleElement().isInstanceOf(PlatformThreadScrapeEndpoint.class);
    }

    @ParameterizedTest
    @ValueSource(strings = { "/actuator/env", "/actuator/beans", "/actuator/configprops", "/actuator/heapdump" })
    void sensitiveEndpointsAreNotExposed(String path) {
        assertProblem(http.get(path), 404);
    }
}
