package dev.vtlab.app.system;

import java.net.URI;
import java.time.Duration;

import dev.vtlab.common.Env;
import dev.vtlab.common.InvalidSettingException;

import org.springframework.core.env.PropertyResolver;

import static dev.vtlab.common.Env.bool;
import static dev.vtlab.common.Env.httpUrl;
import static dev.vtlab.common.Env.intBetween;
import static dev.vtlab.common.Env.jdbcUrl;
import static dev.vtlab.common.Env.millis;
import static dev.vtlab.common.Env.nonBlank;
import static dev.vtlab.common.Env.oneOf;
import static dev.vtlab.common.Env.optionalPort;

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
        int dbPoolMax,
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
        /**
         * Inside a monitor: pinned before JDK 24, not since JEP 491. On JDK 21 with the app's own client this
         * deadlocks once every carrier is pinned: the response's completion needs a carrier too.
         */
        SYNCHRONIZED,
        /**
         * Inside the same monitor, on the pinned control's client, whose completions run on platform threads:
         * on JDK 21 each request pins its carrier for exactly one call (the carriers become the pool) without
         * the deadlock, so the cost of monitor pinning itself can be measured.
         */
        SYNCHRONIZED_PLATFORM_HTTP,
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
        return Env.valueName(constant);
    }

    /**
     * The pool size: DB_POOL_MAX, the name the reactive twin reads too; HIKARI_MAX_POOL, the published rig's
     * name, still works. Both set to different sizes is a mistake that must not pick one silently.
     */
    static int dbPoolMax(PropertyResolver env) {
        if (env.getProperty("DB_POOL_MAX") == null) {
            return intBetween(env, "HIKARI_MAX_POOL", 50, 1, Integer.MAX_VALUE);
        }
        int size = intBetween(env, "DB_POOL_MAX", 50, 1, Integer.MAX_VALUE);
        String alias = env.getProperty("HIKARI_MAX_POOL");
        if (alias != null && intBetween(env, "HIKARI_MAX_POOL", 50, 1, Integer.MAX_VALUE) != size) {
            throw new InvalidSettingException("DB_POOL_MAX",
                    "the same as HIKARI_MAX_POOL (its older name, set to '%s') when both are set".formatted(alias),
                    String.valueOf(size));
        }
        return size;
    }

    public static LabSettings from(PropertyResolver env) {
        return new LabSettings(
                bool(env, "VT_ENABLED", false),
                dbPoolMax(env),
                oneOf(env, "CONN_MODE", ConnMode.RELEASED),
                oneOf(env, "PATH_MODE", PathMode.NORMAL),
                intBetween(env, "TOMCAT_MAX_THREADS", 200, 1, Integer.MAX_VALUE),
                jdbcUrl(env, "DB_URL", "jdbc:postgresql://127.0.0.1:5544/vtlab"),
                nonBlank(env, "DB_USER", "vtlab"),
                env.getProperty("DB_PASSWORD", ""),
                httpUrl(env, "STUB_URL", "http://127.0.0.1:8081"),
                nonBlank(env, "SERVER_ADDRESS", "127.0.0.1"),
                intBetween(env, "SERVER_PORT", 8080, 0, 65_535),
                millis(env, "DB_POOL_TIMEOUT_MS", 5000, MIN_POOL_TIMEOUT_MS),
                millis(env, "DOWNSTREAM_CONNECT_TIMEOUT_MS", 2000, 1),
                millis(env, "DOWNSTREAM_READ_TIMEOUT_MS", 10_000, 1),
                optionalPort(env, "MANAGEMENT_PORT"),
                oneOf(env, "OFFLOAD_EXECUTOR", OffloadExecutor.PLATFORM),
                intBetween(env, "OFFLOAD_POOL", 50, 1, 10_000),
                oneOf(env, "FANOUT_MODE", FanOutMode.SEQUENTIAL),
                oneOf(env, "POOL_IMPL", PoolImpl.HIKARI),
                oneOf(env, "CONTEXT_MODE", ContextMode.NONE),
                intBetween(env, "CONTEXT_KB", 64, 1, 16_384));
    }








    /** Keeps the password out of logs and failure reports. */
    @Override
    public String toString() {
        return "LabSettings[virtualThreads=%s, dbPoolMax=%d, connMode=%s, pathMode=%s, tomcatMaxThreads=%d, "
                .formatted(virtualThreads, dbPoolMax, connMode, pathMode, tomcatMaxThreads)
                + "dbUrl=%s, dbUser=%s, stubUrl=%s, server=%s:%d, dbPoolTimeout=%s, downstreamConnectTimeout=%s, "
                        .formatted(dbUrl, dbUser, stubUrl, serverAddress, serverPort, dbPoolTimeout,
                                downstreamConnectTimeout)
                + "downstreamReadTimeout=%s, managementPort=%s, offloadExecutor=%s, offloadPool=%d, "
                        .formatted(downstreamReadTimeout, managementPort, offloadExecutor, offloadPool)
                + "fanOutMode=%s, poolImpl=%s, contextMode=%s, contextKb=%d]"
                        .formatted(fanOutMode, poolImpl, contextMode, contextKb);
    }
}
