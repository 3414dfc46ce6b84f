package dev.vtlab.reactive.system;

import java.net.URI;
import java.time.Duration;

import dev.vtlab.common.InvalidSettingException;

import org.springframework.core.env.PropertyResolver;

import static dev.vtlab.common.Env.httpUrl;
import static dev.vtlab.common.Env.intBetween;
import static dev.vtlab.common.Env.millis;
import static dev.vtlab.common.Env.nonBlank;
import static dev.vtlab.common.Env.optionalPort;

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
        Integer managementPort,
        int downstreamMaxConnections) {

    /** The app's lower bound (Hikari's); kept so one DB_POOL_TIMEOUT_MS is valid for both services. */
    static final int MIN_POOL_TIMEOUT_MS = 250;

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
                optionalPort(env, "MANAGEMENT_PORT"),
                intBetween(env, "DOWNSTREAM_MAX_CONNECTIONS", 10_000, 1, 1_000_000));
    }

    /** DB_URL in the R2DBC form the driver understands; validated as JDBC form by {@link #from}. */
    public String r2dbcUrl() {
        return JdbcToR2dbcUrl.convert(dbUrl);
    }




    private static String jdbcUrl(PropertyResolver env, String name, String fallback) {
        String value = nonBlank(env, name, fallback);
        if (!JdbcToR2dbcUrl.accepts(value)) {
            throw new InvalidSettingException(name, "a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db)", value);
        }
        return value;
    }


    /** Keeps the password out of logs and failure reports. */
    @Override
    public String toString() {
        return "LabSettings[dbPoolMax=%d, dbUrl=%s, dbUser=%s, stubUrl=%s, server=%s:%d, dbPoolTimeout=%s, "
                .formatted(dbPoolMax, dbUrl, dbUser, stubUrl, serverAddress, serverPort, dbPoolTimeout)
                + "downstreamConnectTimeout=%s, downstreamReadTimeout=%s, managementPort=%s, downstreamMaxConnections=%d]"
                        .formatted(downstreamConnectTimeout, downstreamReadTimeout, managementPort,
                                downstreamMaxConnections);
    }
}
