package dev.vtlab.app.system;

import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusOutputFormat;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusScrapeEndpoint;

/**
 * Boot's /actuator/prometheus, its scrape written on a platform thread.
 *
 * <p>With VT_ENABLED=true the management server serves the rig's scrapes on virtual threads too, and there a
 * scrape allocates ~18 MiB instead of ~0.4 MiB (bench/scrape-alloc): PrometheusTextFormatWriter.write wraps its
 * stream in {@code new BufferedWriter(Writer)}, which on a virtual thread starts at 512 chars
 * (BufferedWriter.initialBufferSize) and grows to 8,192 by just the length of each short write
 * (BufferedWriter.growIfNeeded), copying the whole buffer every time. At the rig's 2 scrapes a second that is
 * ~37 MiB/s billed to the service being measured. One platform thread, started on the first scrape from a
 * virtual thread, writes every such scrape: the same text, the rig's cost the same in both thread modes.
 *
 * <p>Whichever thread writes a scrape, its CPU and allocation are measured there ({@link ScrapeCost}), so that the
 * harness takes the rig's cost out of the service's.
 */
public class PlatformThreadScrapeEndpoint extends PrometheusScrapeEndpoint {

    private final ExecutorService scraper =
            Executors.newSingleThreadExecutor(Thread.ofPlatform().name("prometheus-scrape").daemon().factory());

    private final ScrapeCost cost;

    public PlatformThreadScrapeEndpoint(PrometheusRegistry registry, Properties exporterProperties, ScrapeCost cost) {
        super(registry, exporterProperties);
        this.cost = cost;
    }

    @Override
    @ReadOperation(producesFrom = PrometheusOutputFormat.class)
    public WebEndpointResponse<byte[]> scrape(PrometheusOutputFormat format, @Nullable Set<String> includedNames) {
        if (!Thread.currentThread().isVirtual()) {
            return cost.measure(() -> super.scrape(format, includedNames));
        }
        try {
            return scraper.submit(() -> cost.measure(() -> super.scrape(format, includedNames))).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while the scrape was written", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : new IllegalStateException(e.getCause());
        }
    }
}
