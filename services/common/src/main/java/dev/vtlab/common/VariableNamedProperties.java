package dev.vtlab.common;

import java.util.Map;

import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;

/**
 * The Spring properties whose key is also a variable's name: Spring reads SERVER_PORT as server.port (relaxed
 * binding), straight from the system environment, so a derived value placed last would lose to the raw variable,
 * spaces and all, after the variable had been validated trimmed.
 */
public final class VariableNamedProperties {

    private VariableNamedProperties() {
    }

    /**
     * Just above the system environment: the parsed value is the one bound, and what ranks above the variable (a
     * command-line argument, a system property, a test's property) still outranks it. Without a system environment
     * (a test's MockEnvironment), last, as every other derived property.
     */
    public static void addOverTheirVariables(ConfigurableEnvironment environment, String name,
            Map<String, Object> properties) {
        MutablePropertySources sources = environment.getPropertySources();
        MapPropertySource derived = new MapPropertySource(name, properties);
        if (sources.contains(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)) {
            sources.addBefore(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, derived);
        }
        else {
            sources.addLast(derived);
        }
    }
}
