package dev.vtlab.reactive.system;

import dev.vtlab.common.ProcessMemoryMetrics;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

@Configuration(proxyBeanMethods = false)
public class LabConfiguration {

    @Bean
    LabSettings labSettings(Environment environment) {
        return LabSettings.from(environment);
    }

    @Bean
    ProcessMemoryMetrics processMemoryMetrics() {
        return new ProcessMemoryMetrics();
    }
}
