package dev.vtlab.stub.system;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.core.env.PropertyResolver;

import static dev.vtlab.common.Env.intBetween;
import static dev.vtlab.common.Env.nonBlank;

/**
 * The stub's environment variables, parsed and validated in one place. {@link SettingsEnvironmentPostProcessor}
 * runs this before Spring converts anything and sets server.address and server.port from the parsed values, so a bad
 * value fails with the variable's name and a good one is bound as validated (trimmed).
 */
public record StubSettings(Duration delay, Duration jitter, String serverAddress, int serverPort) {

    /** Upper bound for delay and jitter: anything longer is a typo, not an experiment. */
    static final int MAX_DELAY_MS = 600_000;

    public static StubSettings from(PropertyResolver env) {
        return new StubSettings(
                Duration.ofMillis(intBetween(env, "STUB_DELAY_MS", 100, 0, MAX_DELAY_MS)),
                Duration.ofMillis(intBetween(env, "STUB_JITTER_MS", 0, 0, MAX_DELAY_MS)),
                nonBlank(env, "SERVER_ADDRESS", "127.0.0.1"),
                intBetween(env, "SERVER_PORT", 8081, 0, 65_535));
    }

    /** Where the stub listens, from the parsed values: application.properties' placeholders bound the raw ones. */
    public Map<String, Object> serverProperties() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.address", serverAddress);
        properties.put("server.port", serverPort);
        return properties;
    }
}
