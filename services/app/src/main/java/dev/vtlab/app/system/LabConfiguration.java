package dev.vtlab.app.system;

import dev.vtlab.common.AllocationMetrics;
import dev.vtlab.common.ProcessMemoryMetrics;
import dev.vtlab.common.ServiceSettings;

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

    /** CONN_MODE as requests read it, switched by the rig between the steps of a staircase. */
    @Bean
    LiveConnMode liveConnMode(LabSettings settings) {
        return new LiveConnMode(settings.connMode());
    }

    @Bean
    ConnModeEndpoint connModeEndpoint(LiveConnMode live) {
        return new ConnModeEndpoint(live);
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
