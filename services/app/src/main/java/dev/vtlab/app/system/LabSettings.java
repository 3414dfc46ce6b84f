package dev.vtlab.app.system;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;

import org.springframework.core.env.PropertyResolver;

/**
 * Every environment variable the app reads, parsed and validated in one place.
 *
 * <p>Spring's own settings (virtual threads, pool size, Tomcat threads, ...) are wired to the same
 * variables through placeholders in application.properties; {@link SettingsEnvironmentPostProcessor}
 * runs {@link #from} before any of them is converted, so a bad value fails with a message naming the
 * variable instead of an anonymous conversion error deep inside an auto-configuration.
 */
public record LabSettings(
        boolean virtualThreads,
        int hikariMaxPool,
        ConnMode connMode,
        PathMode pathMode,
        int tomcatMaxThreads,
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
        OffloadExecutor offloadExecutor,
        int offloadPool,
        FanOutMode fanOutMode,
        PoolImpl poolImpl,
        ContextMode contextMode,
        int contextKb) {

    /** Hikari rejects connection timeouts below 250 ms, so the lab does too, with a clearer message. */
    static final int MIN_POOL_TIMEOUT_MS = 250;

    /** Upper bound for every timeout: anything longer is a typo, not an experiment. */
    static final int MAX_TIMEOUT_MS = 3_600_000;

    /** When the database connection is given back to the pool. */
    public enum ConnMode {
        /** Right after the query, before the downstream call. */
        RELEASED,
        /** Only after the downstream call: query and call share one transaction. */
        HELD
    }

    /** Where the downstream call is made: the JEP 491 pinning experiment and its positive control. */
    public enum PathMode {
        NORMAL,
        /** Inside a monitor: pinned before JDK 24, not since JEP 491. */
        SYNCHRONIZED,
        /** Under a native frame (an FFM upcall): still pins on JDK 25, so JFR must see it. */
        PINNED_CONTROL
    }

    /** Where GET /api/offload/{id} runs the order-summary work while the request thread waits. */
    public enum OffloadExecutor {
        /** A fixed pool of OFFLOAD_POOL platform threads. */
        PLATFORM,
        /** A new virtual thread per task. */
        VIRTUAL
    }

    /** How GET /api/fanout/{id} runs its database lookup and two downstream calls. */
    public enum FanOutMode {
        /** One after the other. */
        SEQUENTIAL,
        /** All three at once in a StructuredTaskScope (JDK 25 preview: the JVM needs --enable-preview). */
        STRUCTURED
    }

    /** The JDBC connection pool behind every database call. */
    public enum PoolImpl {
        HIKARI,
        AGROAL
    }

    /** How each request's context (CONTEXT_KB of per-request state) is made visible to the code it calls. */
    public enum ContextMode {
        /** No per-request context at all: the baseline. */
        NONE,
        /** Set in a ThreadLocal before the handler runs, removed after. */
        THREADLOCAL,
        /** Bound to a ScopedValue for the duration of the handler (final in JDK 25, JEP 506). */
        SCOPEDVALUE
    }

    /** The name a variable's value uses for an enum constant: PINNED_CONTROL is "pinned-control". */
    public static String valueName(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static LabSettings from(PropertyResolver env) {
        return new LabSettings(
                bool(env, "VT_ENABLED", false),
                intAtLeast(env, "HIKARI_MAX_POOL", 50, 1, Integer.MAX_VALUE),
                oneOf(env, "CONN_MODE", ConnMode.RELEASED),
                oneOf(env, "PATH_MODE", PathMode.NORMAL),
                intAtLeast(env, "TOMCAT_MAX_THREADS", 200, 1, Integer.MAX_VALUE),
                jdbcUrl(env, "DB_URL", "jdbc:postgresql://127.0.0.1:5544/vtlab"),
                nonBlank(env, "DB_USER", "vtlab"),
                env.getProperty("DB_PASSWORD", ""),
                httpUrl(env, "STUB_URL", "http://127.0.0.1:8081"),
                nonBlank(env, "SERVER_ADDRESS", "127.0.0.1"),
                intAtLeast(env, "SERVER_PORT", 8080, 0, 65_535),
                millis(env, "DB_POOL_TIMEOUT_MS", 5000, MIN_POOL_TIMEOUT_MS),
                millis(env, "DOWNSTREAM_CONNECT_TIMEOUT_MS", 2000, 1),
                millis(env, "DOWNSTREAM_READ_TIMEOUT_MS", 10_000, 1),
                env.containsProperty("MANAGEMENT_PORT") ? intAtLeast(env, "MANAGEMENT_PORT", 0, 0, 65_535) : null,
                oneOf(env, "OFFLOAD_EXECUTOR", OffloadExecutor.PLATFORM),
                intAtLeast(env, "OFFLOAD_POOL", 50, 1, 10_000),
                oneOf(env, "FANOUT_MODE", FanOutMode.SEQUENTIAL),
                oneOf(env, "POOL_IMPL", PoolImpl.HIKARI),
                oneOf(env, "CONTEXT_MODE", ContextMode.NONE),
                intAtLeast(env, "CONTEXT_KB", 64, 1, 16_384));
    }

    private static boolean bool(PropertyResolver env, String name, boolean fallback) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        return switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidSettingException(name, "true or false", raw);
        };
    }

    private static int intAtLeast(PropertyResolver env, String name, int fallback, int min, int max) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        String expectation = max == Integer.MAX_VALUE
                ? "an integer >= " + min
                : "an integer between " + min + " and " + max;
        try {
            int value = Integer.parseInt(raw.trim());
            if (value < min || value > max) {
                throw new InvalidSettingException(name, expectation, raw);
            }
            return value;
        }
        catch (NumberFormatException ex) {
            throw new InvalidSettingException(name, expectation, raw);
        }
    }

    private static Duration millis(PropertyResolver env, String name, int fallback, int min) {
        return Duration.ofMillis(intAtLeast(env, name, fallback, min, MAX_TIMEOUT_MS));
    }

    private static <E extends Enum<E>> E oneOf(PropertyResolver env, String name, E fallback) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        for (E candidate : fallback.getDeclaringClass().getEnumConstants()) {
            if (valueName(candidate).equalsIgnoreCase(raw.trim())) {
                return candidate;
            }
        }
        StringBuilder accepted = new StringBuilder();
        E[] all = fallback.getDeclaringClass().getEnumConstants();
        for (int i = 0; i < all.length; i++) {
            accepted.append(i == 0 ? "" : (i == all.length - 1 ? " or " : ", "))
                    .append(valueName(all[i]));
        }
        throw new InvalidSettingException(name, accepted.toString(), raw);
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
        if (!value.startsWith("jdbc:postgresql:")) {
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
        return "LabSettings[virtualThreads=%s, hikariMaxPool=%d, connMode=%s, pathMode=%s, tomcatMaxThreads=%d, "
                .formatted(virtualThreads, hikariMaxPool, connMode, pathMode, tomcatMaxThreads)
                + "dbUrl=%s, dbUser=%s, stubUrl=%s, server=%s:%d, dbPoolTimeout=%s, downstreamConnectTimeout=%s, "
                        .formatted(dbUrl, dbUser, stubUrl, serverAddress, serverPort, dbPoolTimeout,
                                downstreamConnectTimeout)
                + "downstreamReadTimeout=%s, managementPort=%s, offloadExecutor=%s, offloadPool=%d, "
                        .formatted(downstreamReadTimeout, managementPort, offloadExecutor, offloadPool)
                + "fanOutMode=%s, poolImpl=%s, contextMode=%s, contextKb=%d]"
                        .formatted(fanOutMode, poolImpl, contextMode, contextKb);
    }
}
