package dev.vtlab.stub.system;

import java.time.Duration;

import org.springframework.core.env.PropertyResolver;

import static dev.vtlab.common.Env.intBetween;
import static dev.vtlab.common.Env.nonBlank;

/**
 * The stub's environment variables, parsed and validated in one place. {@link SettingsEnvironmentPostProcessor}
 * runs this before Spring converts SERVER_PORT and friends, so a bad value fails with the variable's name.
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


}
