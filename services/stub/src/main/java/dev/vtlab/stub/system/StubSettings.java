package dev.vtlab.stub.system;

import java.time.Duration;

import org.springframework.core.env.PropertyResolver;

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

    private static int intBetween(PropertyResolver env, String name, int fallback, int min, int max) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        try {
            int value = Integer.parseInt(raw.trim());
            if (value >= min && value <= max) {
                return value;
            }
        }
        catch (NumberFormatException ex) {
            // fall through to the message below
        }
        throw new InvalidSettingException(name, "an integer between " + min + " and " + max, raw);
    }

    private static String nonBlank(PropertyResolver env, String name, String fallback) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        if (raw.isBlank()) {
            throw new InvalidSettingException(name, "a non-empty value", raw);
        }
        return raw.trim();
    }
}
