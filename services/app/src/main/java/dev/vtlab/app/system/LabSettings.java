package dev.vtlab.app.system;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.vtlab.common.Env;
import dev.vtlab.common.InvalidSettingException;
import dev.vtlab.common.ServiceSettings;

import org.springframework.core.env.PropertyResolver;

import static dev.vtlab.common.Env.bool;
import static dev.vtlab.common.Env.intBetween;
import static dev.vtlab.common.Env.oneOf;

/**
 * Every environment variable the app reads, parsed and validated in one place: those it shares with the
 * reactive twin (database, stub, server, timeouts, management port) in {@link ServiceSettings}, which
 * parses and defaults them for both, and the app's own experiments here.
 *
 * <p>{@link SettingsEnvironmentPostProcessor} runs {@link #from} before Spring converts anything and sets
 * the Spring properties (virtual threads, pool, Tomcat threads, ...) from the parsed values, so a bad
 * value fails with a message naming the variable instead of an anonymous conversion error deep inside an
 * auto-configuration, and no default is written twice.
 */
public record LabSettings(
        ServerChoice server,
        boolean virtualThreads,
        ConnMode connMode,
        PathMode pathMode,
        int tomcatMaxThreads,
        int tomcatMaxConnections,
        int tomcatAcceptCount,
        OffloadExecutor offloadExecutor,
        int offloadPool,
        FanOutMode fanOutMode,
        PoolImpl poolImpl,
        ContextMode contextMode,
        int contextKb,
        DownstreamHttp downstreamHttp,
        HttpClientChoice httpClient,
        int clientPool,
        ServiceSettings service) {

    /** The embedded server that takes the requests: all three on the class path, one chosen at start-up. */
    public enum ServerChoice {
        /** Tomcat: 200 request threads unless sized; one virtual thread per request under virtual threads. */
        TOMCAT("Jetty", "Netty"),
        /** Jetty 12: a queued thread pool of 200 unless sized; under virtual threads, Jetty's VirtualThreadPool. */
        JETTY("Tomcat", "Netty"),
        /**
         * Reactor Netty under Spring WebFlux: the same blocking controllers, handed off its event loops to a blocking
         * executor (NettyBlockingExecution).
         */
        NETTY("Tomcat", "Jetty");

        private final String[] others;

        ServerChoice(String... others) {
            this.others = others;
        }

        /** WebFlux rather than the servlet stack: Spring Boot's choice when both are on the class path is servlet. */
        public boolean reactive() {
            return this == NETTY;
        }

        /**
         * The auto-configurations of the servers not chosen, kept out so that Spring Boot builds the chosen one: their
         * web servers, and their management servers' (with MANAGEMENT_PORT each would define the same child context).
         * Netty's exist for the reactive stack only, so a servlet row has nothing of Netty's to keep out.
         */
        public String excludedAutoConfigurations() {
            String stack = reactive() ? "Reactive" : "Servlet";
            List<String> excluded = new ArrayList<>();
            for (String other : others) {
                if (other.equals("Netty")) {
                    continue;
                }
                String module = "org.springframework.boot." + other.toLowerCase(Locale.ROOT) + ".autoconfigure";
                excluded.add(module + "." + stack.toLowerCase(Locale.ROOT) + "." + other + stack
                        + "WebServerAutoConfiguration");
                excluded.add(module + ".actuate.web.server." + other + stack + "ManagementContextAutoConfiguration");
            }
            return String.join(",", excluded);
        }
    }

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

    /** The HTTP version the downstream client speaks to the stub. */
    public enum DownstreamHttp {
        /** A connection per request in flight: what a blocking client does by default. */
        HTTP1,
        /** Upgraded with h2c on the first connection, then every request a stream of it: a few connections in all. */
        HTTP2;

        public java.net.http.HttpClient.Version version() {
            return this == HTTP1 ? java.net.http.HttpClient.Version.HTTP_1_1 : java.net.http.HttpClient.Version.HTTP_2;
        }
    }

    /** The library under RestClient that calls the stub, each built by Spring Boot as a user gets it. */
    public enum HttpClientChoice {
        /** The JDK's HttpClient: no limit on connections (one per request in flight over HTTP/1.1). */
        JDK("jdk"),
        /** Apache HttpClient 5, classic: a pool of 5 connections per route and 25 in all unless sized. */
        APACHE("http-components"),
        /** Reactor Netty: a pool of 2 × max(CPUs, 8) connections per host, and twice that many waiting at most. */
        REACTOR("reactor"),
        /** Jetty's client: 64 connections per destination, 1,024 requests queued at most. */
        JETTY("jetty");

        private final String bootFactory;

        HttpClientChoice(String bootFactory) {
            this.bootFactory = bootFactory;
        }

        /** Spring Boot's name for the client (spring.http.clients.imperative.factory). */
        public String bootFactory() {
            return bootFactory;
        }
    }

    /** The name a variable's value uses for an enum constant: PINNED_CONTROL is "pinned-control". */
    public static String valueName(Enum<?> constant) {
        return Env.valueName(constant);
    }

    public static LabSettings from(PropertyResolver env) {
        LabSettings settings = new LabSettings(
                oneOf(env, "SERVER", ServerChoice.TOMCAT),
                bool(env, "VT_ENABLED", false),
                oneOf(env, "CONN_MODE", ConnMode.RELEASED),
                oneOf(env, "PATH_MODE", PathMode.NORMAL),
                intBetween(env, "TOMCAT_MAX_THREADS", 200, 1, Integer.MAX_VALUE),
                // Spring Boot's own defaults; the rig sizes both to the row's users
                intBetween(env, "TOMCAT_MAX_CONNECTIONS", 8192, 1, 1_000_000),
                intBetween(env, "TOMCAT_ACCEPT_COUNT", 100, 1, 1_000_000),
                oneOf(env, "OFFLOAD_EXECUTOR", OffloadExecutor.PLATFORM),
                intBetween(env, "OFFLOAD_POOL", 50, 1, 10_000),
                oneOf(env, "FANOUT_MODE", FanOutMode.SEQUENTIAL),
                oneOf(env, "POOL_IMPL", PoolImpl.HIKARI),
                oneOf(env, "CONTEXT_MODE", ContextMode.NONE),
                intBetween(env, "CONTEXT_KB", 64, 1, 16_384),
                oneOf(env, "DOWNSTREAM_HTTP", DownstreamHttp.HTTP1),
                oneOf(env, "HTTP_CLIENT", HttpClientChoice.JDK),
                // 0: the client's own default pool, as a user gets it
                intBetween(env, "CLIENT_POOL", 0, 0, 100_000),
                // HIKARI_MAX_POOL: the published rig's name for DB_POOL_MAX, which the app still honours.
                ServiceSettings.from(env, "HIKARI_MAX_POOL"));
        settings.checkClient();
        settings.checkServer();
        return settings;
    }

    /** What the servlet stack alone has: a filter around each request binds its context. */
    private void checkServer() {
        if (server.reactive() && contextMode != ContextMode.NONE) {
            throw new InvalidSettingException("CONTEXT_MODE",
                    "none with SERVER=netty (the request context is bound by a servlet filter, which WebFlux does "
                            + "not run)", valueName(contextMode));
        }
    }

    /** The settings that only some clients have: a pool to size, the h2c upgrade of the JDK's client. */
    private void checkClient() {
        if (httpClient == HttpClientChoice.JDK && clientPool > 0) {
            throw new InvalidSettingException("CLIENT_POOL",
                    "0 with HTTP_CLIENT=jdk (the JDK's client has no connection limit to size)",
                    String.valueOf(clientPool));
        }
        if (httpClient != HttpClientChoice.JDK
                && (pathMode == PathMode.SYNCHRONIZED_PLATFORM_HTTP || pathMode == PathMode.PINNED_CONTROL)) {
            throw new InvalidSettingException("HTTP_CLIENT",
                    "jdk with PATH_MODE=" + valueName(pathMode) + " (that path calls the stub through its own JDK "
                            + "client)", valueName(httpClient));
        }
        if (httpClient != HttpClientChoice.JDK && downstreamHttp == DownstreamHttp.HTTP2) {
            throw new InvalidSettingException("DOWNSTREAM_HTTP",
                    "http1 with HTTP_CLIENT=" + valueName(httpClient) + " (http2 is the JDK client's h2c upgrade)",
                    "http2");
        }
    }

    /**
     * The Spring properties the app's settings stand for, beside the shared ones
     * ({@link ServiceSettings#springProperties()}).
     */
    public Map<String, Object> springProperties() {
        Map<String, Object> properties = new LinkedHashMap<>(service.springProperties());
        // true: Tomcat serves each request on a new virtual thread; false: on its platform thread pool.
        properties.put("spring.threads.virtual.enabled", virtualThreads);
        properties.put("spring.main.web-application-type", server.reactive() ? "reactive" : "servlet");
        properties.put("spring.autoconfigure.exclude", server.excludedAutoConfigurations());
        // Only meaningful for platform threads; Tomcat ignores it when virtual threads are on. TOMCAT_MAX_THREADS
        // sizes Jetty's pool and Netty's blocking executor alike (NettyBlockingExecution): the rows' request threads,
        // whichever server takes them.
        properties.put("server.tomcat.threads.max", tomcatMaxThreads);
        properties.put("server.jetty.threads.max", tomcatMaxThreads);
        properties.put("server.jetty.max-connections", tomcatMaxConnections);
        // Connections held open at once (a waiting request holds one), and those the kernel queues beyond them
        // (capped by net.core.somaxconn): limits of the connector, not of threads, so a row at 10,000 users sizes
        // them rather than measuring Spring Boot's 8,192.
        properties.put("server.tomcat.max-connections", tomcatMaxConnections);
        properties.put("server.tomcat.accept-count", tomcatAcceptCount);
        // Always named: with several clients on the class path Spring Boot would otherwise pick Apache's.
        properties.put("spring.http.clients.imperative.factory", httpClient.bootFactory());
        properties.put("spring.datasource.url", service.dbUrl());
        properties.put("spring.datasource.username", service.dbUser());
        properties.put("spring.datasource.password", service.dbPassword());
        // A fixed-size pool: connection set-up must not show up as noise in latency measurements.
        properties.put("spring.datasource.hikari.maximum-pool-size", service.dbPoolMax());
        properties.put("spring.datasource.hikari.minimum-idle", service.dbPoolMax());
        // How long a request waits for a free connection before it is answered 503.
        properties.put("spring.datasource.hikari.connection-timeout", service.dbPoolTimeout().toMillis());
        return properties;
    }

    /** Keeps the password out of logs and failure reports ({@link ServiceSettings#toString()} leaves it out). */
    @Override
    public String toString() {
        return "LabSettings[server=%s, virtualThreads=%s, connMode=%s, pathMode=%s, tomcatMaxThreads=%d, "
                .formatted(server, virtualThreads, connMode, pathMode, tomcatMaxThreads)
                + "tomcatMaxConnections=%d, tomcatAcceptCount=%d, ".formatted(tomcatMaxConnections, tomcatAcceptCount)
                + "offloadExecutor=%s, offloadPool=%d, fanOutMode=%s, poolImpl=%s, contextMode=%s, contextKb=%d, "
                        .formatted(offloadExecutor, offloadPool, fanOutMode, poolImpl, contextMode, contextKb)
                + "downstreamHttp=%s, httpClient=%s, clientPool=%d, %s]"
                        .formatted(downstreamHttp, httpClient, clientPool, service);
    }
}
