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
     * The HTTP version is the row's (DOWNSTREAM_HTTP), never the JDK client's default: that is HTTP/2, offered by an
     * h2c upgrade on every new connection, which the stub (HTTP/1.1 and h2c) would accept.
     */
    @Bean
    ClientHttpRequestFactoryBuilderCustomizer<JdkClientHttpRequestFactoryBuilder> downstreamHttpVersion(
            LabSettings settings) {
        HttpClient.Version version = settings.downstreamHttp().version();
        return builder -> builder.withHttpClientCustomizer(client -> client.version(version));
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
