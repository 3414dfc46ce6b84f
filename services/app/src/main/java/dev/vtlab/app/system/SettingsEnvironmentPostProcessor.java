package dev.vtlab.app.system;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Validates the environment variables before any auto-configuration converts the Spring properties
 * derived from them (e.g. {@code spring.threads.virtual.enabled} is read by conditions long before a
 * {@code @ConfigurationProperties} bean could complain).
 */
public class SettingsEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        LabSettings settings = LabSettings.from(environment);
        if (settings.managementPort() != null) {
            // Actuator on its own connector and threads: when the load saturates Tomcat's request pool,
            // the rig's scrapes must not queue behind it (they would go missing exactly when they matter).
            // The API documentation lives there too: springdoc serves it as actuator endpoints on that port.
            environment.getPropertySources().addFirst(new MapPropertySource("vtlabManagementServer", Map.of(
                    "management.server.port", settings.managementPort(),
                    "management.server.address", settings.serverAddress(),
                    "springdoc.use-management-port", true,
                    "springdoc.api-docs.enabled", true,
                    "springdoc.swagger-ui.enabled", true)));
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
