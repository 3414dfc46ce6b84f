package dev.vtlab.app.system;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Validates the environment variables before any auto-configuration converts the Spring properties
 * derived from them (e.g. {@code spring.threads.virtual.enabled} is read by conditions long before a
 * {@code @ConfigurationProperties} bean could complain).
 */
public class SettingsEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        LabSettings.from(environment);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
