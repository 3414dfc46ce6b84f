package dev.vtlab.stub.system;

import dev.vtlab.common.VariableNamedProperties;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Fails start-up on a bad environment variable before Spring converts the properties derived from it, then sets
 * those properties from the parsed values: over SERVER_ADDRESS and SERVER_PORT themselves, which Spring would
 * otherwise bind raw as server.address and server.port.
 */
public class SettingsEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        VariableNamedProperties.addOverTheirVariables(environment, "stubServerSettings",
                StubSettings.from(environment).serverProperties());
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
