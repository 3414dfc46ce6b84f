package dev.vtlab.app.system;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import com.sun.management.ThreadMXBean;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusOutputFormat;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusScrapeEndpoint;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scrape served on a virtual thread allocates what it does on a platform thread, not the ~18 MiB Boot's own
 * endpoint does there (bench/scrape-alloc). Bytes are the JVM's total allocation counter around scrapes on fresh
 * virtual threads: exact per thread, and a virtual thread's bytes are its carrier's.
 */
class PlatformThreadScrapeEndpointTest {

    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int SCRAPES = 10;
    private static final long MIB = 1 << 20;

    private static PrometheusMeterRegistry meters;

    @BeforeAll
    static void metersBeyondOneWriterBuffer() {
        // More than BufferedWriter's 8,192 chars of text, as the service's ~100 meters are.
        meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(meters);
        new JvmGcMetrics().bindTo(meters);
        new JvmThreadMetrics().bindTo(meters);
        for (int i = 0; i < 300; i++) {
            Gauge.builder("lab.gauge", () -> 1.0).tag("index", Integer.toString(i)).register(meters);
        }
    }

    @Test
    void scrapeOnAVirtualThreadAllocatesWellUnderAMebibyte() throws Exception {
        PrometheusScrapeEndpoint endpoint =
                new PlatformThreadScrapeEndpoint(meters.getPrometheusRegistry(), new Properties());
        assertThat(text(endpoint)).hasSizeGreaterThan(8192).contains("lab_gauge{index=\"299\"} 1.0");

        assertThat(bytesPerVirtualScrape(endpoint)).isLessThan(MIB);
    }

    @Test
    void actuatorFindsOneScrapeOperationOnTheReplacement() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
                        WebEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=prometheus")
                .withBean(PlatformThreadScrapeEndpoint.class, () ->
                        new PlatformThreadScrapeEndpoint(meters.getPrometheusRegistry(), new Properties()))
                .run(context -> assertThat(context.getBean(WebEndpointsSupplier.class).getEndpoints())
                        .filteredOn(endpoint -> endpoint.getEndpointId().equals(EndpointId.of("prometheus")))
                        .singleElement()
                        .satisfies(endpoint -> assertThat(endpoint.getOperations()).hasSize(1)));
    }

    @Test
    void bootsOwnEndpointOnAVirtualThreadStillAllocatesMebibytes() throws Exception {
        // The cause, held: when a JDK grows BufferedWriter geometrically this fails and the workaround can go.
        PrometheusScrapeEndpoint endpoint =
                new PrometheusScrapeEndpoint(meters.getPrometheusRegistry(), new Properties());

        assertThat(bytesPerVirtualScrape(endpoint)).isGreaterThan(8 * MIB);
    }

    private static long bytesPerVirtualScrape(PrometheusScrapeEndpoint endpoint) throws InterruptedException {
        for (int i = 0; i < SCRAPES; i++) {  // the platform thread started and the code loaded before counting
            Thread.ofVirtual().start(() -> text(endpoint)).join();
        }
        long before = THREADS.getTotalThreadAllocatedBytes();
        for (int i = 0; i < SCRAPES; i++) {
            Thread.ofVirtual().start(() -> text(endpoint)).join();
        }
        return (THREADS.getTotalThreadAllocatedBytes() - before) / SCRAPES;
    }

    private static String text(PrometheusScrapeEndpoint endpoint) {
        return new String(endpoint.scrape(PrometheusOutputFormat.CONTENT_TYPE_004, null).getBody(),
                StandardCharsets.UTF_8);
    }
}
