package dev.vtlab.app.system;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import com.sun.management.ThreadMXBean;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
                new PlatformThreadScrapeEndpoint(meters.getPrometheusRegistry(), new Properties(), new ScrapeCost());
        assertThat(text(endpoint)).hasSizeGreaterThan(8192).contains("lab_gauge{index=\"299\"} 1.0");

        assertThat(bytesPerVirtualScrape(endpoint)).isLessThan(MIB);
    }

    @Test
    void aScrapeFromAVirtualThreadIsCountedOnThePlatformThreadThatWritesIt() throws Exception {
        SimpleMeterRegistry counted = new SimpleMeterRegistry();
        ScrapeCost cost = new ScrapeCost();
        cost.bindTo(counted);
        PrometheusScrapeEndpoint endpoint =
                new PlatformThreadScrapeEndpoint(meters.getPrometheusRegistry(), new Properties(), cost);
        int textBytes = text(endpoint).length();  // one scrape on this (platform) thread

        bytesPerVirtualScrape(endpoint);  // 2 x SCRAPES more, each handed to the platform thread

        double scrapes = counted.get("vtlab.scrape").functionCounter().count();
        assertThat(scrapes).isEqualTo(1 + 2 * SCRAPES);
        // each wrote its text into a buffer of its own, well under a virtual thread's ~18 MiB
        assertThat(counted.get("vtlab.scrape.allocated").functionCounter().count() / scrapes)
                .isGreaterThan(textBytes).isLessThan(MIB);
        assertThat(counted.get("vtlab.scrape.cpu").functionCounter().count() / scrapes)
                .isPositive().isLessThan(0.5);
    }

    @Test
    void actuatorFindsOneScrapeOperationOnTheReplacement() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
                        WebEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=prometheus")
                .withBean(PlatformThreadScrapeEndpoint.class, () -> new PlatformThreadScrapeEndpoint(
                        meters.getPrometheusRegistry(), new Properties(), new ScrapeCost()))
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
