package dev.vtlab.app.system;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The rig's scrape endpoint in place of Boot's own, which backs off (its bean is conditional on none being there):
 * an auto-configuration ordered before Boot's Prometheus one, so that it is defined first, and so that a test slice
 * without the Prometheus registry (a web slice of one controller) never asks for one.
 */
@AutoConfiguration(before = PrometheusMetricsExportAutoConfiguration.class)
@ConditionalOnClass(PrometheusRegistry.class)
public class ScrapeEndpointAutoConfiguration {

    /** What each scrape cost the service, as meters of its own (bound to the registry as any MeterBinder bean). */
    @Bean
    ScrapeCost scrapeCost() {
        return new ScrapeCost();
    }

    /** The rig's scrapes written on a platform thread: see the class. */
    @Bean
    PlatformThreadScrapeEndpoint prometheusEndpoint(PrometheusRegistry registry, PrometheusConfig config,
            ScrapeCost cost) {
        return new PlatformThreadScrapeEndpoint(registry, config.prometheusProperties(), cost);
    }
}
