package dev.vtlab.reactive.system;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

import org.springframework.core.env.PropertyResolver;

/**
 * Every environment variable the reactive app reads, parsed and validated in one place.
 *
 * <p>Names, defaults and limits are the app's wherever a variable means the same thing, so the rig can
 * hand both services one environment. {@link SettingsEnvironmentPostProcessor} runs {@link #from} before
 * Spring converts anything derived from these, so a bad value fails naming the variable.
 */
public record LabSettings(
        int dbPoolMax,
        String dbUrl,
        String dbUser,
        String dbPassword,
        URI stubUrl,
        String serverAddress,
        int serverPort,
        Duration dbPoolTimeout,
        Duration downstreamConnectTimeout,
        Duration downstreamReadTimeout,
        Integer managementPort) {

    /** The app's lower bound (Hikari's); kept so one DB_POOL_TIMEOUT_MS is valid for both services. */
    static final int MIN_POOL_TIMEOUT_MS = 250;

    /** Upper bound for every timeout: anything longer is a typo, not an experiment. */
    static final int MAX_TIMEOUT_MS = 3_600_000;

    public static LabSettings from(PropertyResolver env) {
        return new LabSettings(
                intBetween(env, "DB_POOL_MAX", 50, 1, Integer.MAX_VALUE),
                jdbcUrl(env, "DB_URL", "jdbc:postgresql://127.0.0.1:5544/vtlab"),
                nonBlank(env, "DB_USER", "vtlab"),
                env.getProperty("DB_PASSWORD", ""),
                httpUrl(env, "STUB_URL", "http://127.0.0.1:8081"),
                nonBlank(env, "SERVER_ADDRESS", "127.0.0.1"),
                intBetween(env, "SERVER_PORT", 8080, 0, 65_535),
                millis(env, "DB_POOL_TIMEOUT_MS", 5000, MIN_POOL_TIMEOUT_MS),
                millis(env, "DOWNSTREAM_CONNECT_TIMEOUT_MS", 2000, 1),
                millis(env, "DOWNSTREAM_READ_TIMEOUT_MS", 10000, 1),
                env.getProperty("MANAGEMENT_PORT") == null ? null
                        : intBetween(env, "MANAGEMENT_PORT", 0, 0, 65_535));
    }

    /** DB_URL in the R2DBC form the driver understands; validated as JDBC form by {@link #from}. */
    public String r2dbcUrl() {
        return JdbcToR2dbcUrl.convert(dbUrl);
    }

    private static int intBetween(PropertyResolver env, String name, int fallback, int min, int max) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        String expectation = max == Integer.MAX_VALUE
                ? "an integer >= " + min
                : "an integer between " + min + " and " + max;
        try {
            int value = Integer.parseInt(raw.trim());
            if (value >= min && value <= max) {
                return value;
            }
        }
        catch (NumberFormatException ex) {
            // fall through to the message below
        }
        throw new InvalidSettingException(name, expectation, raw);
    }

    private static Duration millis(PropertyResolver env, String name, int fallback, int min) {
        return Duration.ofMillis(intBetween(env, name, fallback, min, MAX_TIMEOUT_MS));
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

    private static String jdbcUrl(PropertyResolver env, String name, String fallback) {
        String value = nonBlank(env, name, fallback);
        if (!JdbcToR2dbcUrl.accepts(value)) {
            throw new InvalidSettingException(name, "a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db)", value);
        }
        return value;
    }

    private static URI httpUrl(PropertyResolver env, String name, String fallback) {
        String value = nonBlank(env, name, fallback);
        String expectation = "an absolute http:// or https:// URL such as http://127.0.0.1:8081";
        try {
            URI uri = new URI(value.endsWith("/") ? value.substring(0, value.length() - 1) : value);
            boolean http = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
            if (!http || uri.getHost() == null) {
                throw new InvalidSettingException(name, expectation, value);
            }
            return uri;
        }
        catch (URISyntaxException ex) {
            throw new InvalidSettingException(name, expectation, value);
        }
    }

    /** Keeps the password out of logs and failure reports. */
    @Override
    public String toString() {
        return "LabSettings[dbPoolMax=%d, dbUrl=%s, dbUser=%s, stubUrl=%s, server=%s:%d, dbPoolTimeout=%s, "
                .formatted(dbPoolMax, dbUrl, dbUser, stubUrl, serverAddress, serverPort, dbPoolTimeout)
                + "downstreamConnectTimeout=%s, downstreamReadTimeout=%s, managementPort=%s]"
                        .formatted(downstreamConnectTimeout, downstreamReadTimeout, managementPort);
    }
}
