package dev.vtlab.common;

import static dev.vtlab.common.Env.httpUrl;
import static dev.vtlab.common.Env.intBetween;
import static dev.vtlab.common.Env.jdbcUrl;
import static dev.vtlab.common.Env.millis;
import static dev.vtlab.common.Env.nonBlank;
import static dev.vtlab.common.Env.optionalPort;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.core.env.PropertyResolver;

/**
 * The environment variables the app and its reactive twin both read, parsed, defaulted and bounded here
 * and nowhere else, so the rig can hand both services one environment and each default exists once.
 *
 * <p>Each service's SettingsEnvironmentPostProcessor parses these before Spring converts anything, then
 * feeds Spring the properties they stand for ({@link #serverProperties()}, {@link #springProperties()},
 * {@link #managementProperties()}): application.properties names none of these variables, so it cannot disagree
 * with a default here.
 */
public record ServiceSettings(
        String dbUrl,
        String dbUser,
        String dbPassword,
        int dbPoolMax,
        Duration dbPoolTimeout,
        URI stubUrl,
        String serverAddress,
        int serverPort,
        Duration downstreamConnectTimeout,
        Duration downstreamReadTimeout,
        @Nullable Integer managementPort) {

    /** Hikari rejects connection timeouts below 250 ms; the twin keeps the bound so one value suits both. */
    public static final int MIN_POOL_TIMEOUT_MS = 250;

    public static ServiceSettings from(PropertyResolver env) {
        return from(env, null);
    }

    /**
     * As {@link #from(PropertyResolver)}, with the pool size also read under {@code olderPoolSizeName} (the app
     * still honours the published rig's HIKARI_MAX_POOL; the twin never did).
     */
    public static ServiceSettings from(PropertyResolver env, @Nullable String olderPoolSizeName) {
        return new ServiceSettings(
                jdbcUrl(env, "DB_URL", "jdbc:postgresql://127.0.0.1:5544/vtlab"),
                nonBlank(env, "DB_USER", "vtlab"),
                env.getProperty("DB_PASSWORD", ""),
                dbPoolMax(env, olderPoolSizeName),
                millis(env, "DB_POOL_TIMEOUT_MS", 5000, MIN_POOL_TIMEOUT_MS),
                httpUrl(env, "STUB_URL", "http://127.0.0.1:8081"),
                // Loopback by default: the lab never needs to be reachable from elsewhere.
                nonBlank(env, "SERVER_ADDRESS", "127.0.0.1"),
                intBetween(env, "SERVER_PORT", 8080, 0, 65_535),
                millis(env, "DOWNSTREAM_CONNECT_TIMEOUT_MS", 2000, 1),
                millis(env, "DOWNSTREAM_READ_TIMEOUT_MS", 10_000, 1),
                optionalPort(env, "MANAGEMENT_PORT"));
    }

    /**
     * DB_POOL_MAX, or its older name when only that is set. Both set to different sizes is a mistake that must
     * not pick one silently.
     */
    private static int dbPoolMax(PropertyResolver env, @Nullable String olderName) {
        int fallback = 50;
        if (olderName == null) {
            return intBetween(env, "DB_POOL_MAX", fallback, 1, Integer.MAX_VALUE);
        }
        if (env.getProperty("DB_POOL_MAX") == null) {
            return intBetween(env, olderName, fallback, 1, Integer.MAX_VALUE);
        }
        int size = intBetween(env, "DB_POOL_MAX", fallback, 1, Integer.MAX_VALUE);
        String alias = env.getProperty(olderName);
        if (alias != null && intBetween(env, olderName, fallback, 1, Integer.MAX_VALUE) != size) {
            throw new InvalidSettingException("DB_POOL_MAX",
                    "the same as %s (its older name, set to '%s') when both are set".formatted(olderName, alias),
                    String.valueOf(size));
        }
        return size;
    }

    /**
     * Where the server listens: keys that SERVER_ADDRESS and SERVER_PORT also spell under relaxed binding, so each
     * service adds them over the variables ({@link VariableNamedProperties}), not last with the others.
     */
    public Map<String, Object> serverProperties() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.address", serverAddress);
        properties.put("server.port", serverPort);
        return properties;
    }

    /**
     * The other Spring properties both services derive alike from these settings: how long the downstream client
     * waits. Each service adds its database properties (JDBC or R2DBC).
     */
    public Map<String, Object> springProperties() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.http.clients.connect-timeout", downstreamConnectTimeout.toMillis() + "ms");
        properties.put("spring.http.clients.read-timeout", downstreamReadTimeout.toMillis() + "ms");
        return properties;
    }

    /**
     * With MANAGEMENT_PORT set: actuator on a server of its own (same address), so that when the load saturates
     * the request threads or event loops the rig's scrapes do not queue behind it (they would go missing exactly
     * when they matter); the API documentation lives there too, as springdoc's actuator endpoints, and so never
     * answers on the measured port. Unset: nothing (actuator on the app's port, no documentation).
     */
    public Map<String, Object> managementProperties() {
        if (managementPort == null) {
            return Map.of();
        }
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("management.server.port", managementPort);
        properties.put("management.server.address", serverAddress);
        properties.put("springdoc.use-management-port", true);
        properties.put("springdoc.api-docs.enabled", true);
        properties.put("springdoc.swagger-ui.enabled", true);
        return properties;
    }

    /** Keeps the password out of logs and failure reports. */
    @Override
    public String toString() {
        return "dbUrl=%s, dbUser=%s, dbPoolMax=%d, dbPoolTimeout=%s, stubUrl=%s, server=%s:%d, "
                .formatted(dbUrl, dbUser, dbPoolMax, dbPoolTimeout, stubUrl, serverAddress, serverPort)
                + "downstreamConnectTimeout=%s, downstreamReadTimeout=%s, managementPort=%s"
                        .formatted(downstreamConnectTimeout, downstreamReadTimeout, managementPort);
    }
}
