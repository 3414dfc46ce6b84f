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

    private static final int SCRAPES = 5;

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

    @Test
    void eachScrapeCountsItsOwnCpuAndAllocationOnceWritten() {
        // a scrape shows the scrapes before it: between this first and the last are exactly SCRAPES of them
        String first = http.get("/actuator/prometheus").body();
        String last = first;
        for (int i = 0; i < SCRAPES; i++) {
            last = http.get("/actuator/prometheus").body();
        }

        assertThat(meter(last, "vtlab_scrape_total") - meter(first, "vtlab_scrape_total")).isEqualTo(SCRAPES);
        double cpuPerScrape = (meter(last, "vtlab_scrape_cpu_seconds_total")
                - meter(first, "vtlab_scrape_cpu_seconds_total")) / SCRAPES;
        double bytesPerScrape = (meter(last, "vtlab_scrape_allocated_bytes_total")
                - meter(first, "vtlab_scrape_allocated_bytes_total")) / SCRAPES;
        assertThat(cpuPerScrape).isPositive().isLessThan(0.5);
        // at least the text each wrote, and far under the ~18 MiB of a scrape written on a virtual thread
        assertThat(bytesPerScrape).isGreaterThan(last.length()).isLessThan(4 << 20);
    }

    @ParameterizedTest
    @ValueSource(strings = { "/actuator/env", "/actuator/beans", "/actuator/configprops", "/actuator/heapdump" })
    void sensitiveEndpointsAreNotExposed(String path) {
        assertProblem(http.get(path), 404);
    }

    private static double meter(String prometheus, String name) {
        return prometheus.lines().filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst().orElseThrow(() -> new AssertionError(name + " not in the scrape"));
    }
}
