package dev.vtlab.app.system;

import java.net.http.HttpClient;

import dev.vtlab.common.AllocationMetrics;
import dev.vtlab.common.ProcessMemoryMetrics;
import dev.vtlab.common.ServiceSettings;

import org.springframework.boot.http.client.JdkClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

@Configuration(proxyBeanMethods = false)
public class LabConfiguration {

    @Bean
    LabSettings labSettings(Environment environment) {
        return LabSettings.from(environment);
    }

    /** The part the reactive twin reads too, for what needs nothing else (the downstream client, the pools). */
    @Bean
    ServiceSettings serviceSettings(LabSettings settings) {
        return settings.service();
    }

    /**
     * The JDK client would otherwise offer an h2c upgrade on every new connection; the stub speaks
     * HTTP/1.1 only, so the upgrade headers are pure noise in the measurement.
     */
    @Bean
    ClientHttpRequestFactoryBuilderCustomizer<JdkClientHttpRequestFactoryBuilder> http11Only() {
        return builder -> builder.withHttpClientCustomizer(client -> client.version(HttpClient.Version.HTTP_1_1));
    }

    @Bean
    AllocationMetrics allocationMetrics() {
        return new AllocationMetrics();
    }

    @Bean
    ProcessMemoryMetrics processMemoryMetrics() {
        return new ProcessMemoryMetrics();
    }
}
