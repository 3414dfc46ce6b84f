package dev.vtlab.app.system;

import dev.vtlab.common.VariableNamedProperties;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Validates the environment variables before any auto-configuration converts the Spring properties
 * derived from them (e.g. {@code spring.threads.virtual.enabled} is read by conditions long before a
 * {@code @ConfigurationProperties} bean could complain), then sets those properties from the parsed values.
 */
public class SettingsEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        LabSettings settings = LabSettings.from(environment);
        // Last, where application.properties' placeholders with defaults used to be: an explicit Spring property
        // (a test's server.port=0, --server.port) still outranks the value derived from the variable.
        environment.getPropertySources().addLast(new MapPropertySource("vtlabSettings", settings.springProperties()));
        // Over SERVER_ADDRESS and SERVER_PORT themselves, which Spring would otherwise bind raw as server.address/port.
        VariableNamedProperties.addOverTheirVariables(environment, "vtlabServerSettings",
                settings.service().serverProperties());
        if (settings.service().managementPort() != null) {
            // First: with MANAGEMENT_PORT set, actuator and the API documentation are never on the measured port.
            environment.getPropertySources().addFirst(new MapPropertySource("vtlabManagementServer",
                    settings.service().managementProperties()));
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
