package dev.vtlab.reactive.system;

import java.util.HashMap;
import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Validates the environment variables before any auto-configuration converts a property derived from
 * them, then derives the R2DBC connection and pool settings: DB_URL is a JDBC URL, which no placeholder
 * in application.properties can turn into an R2DBC one.
 */
public class SettingsEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    /** Reactor Netty's ReactorNetty.POOL_MAX_CONNECTIONS. */
    static final String DOWNSTREAM_MAX_CONNECTIONS_PROPERTY = "reactor.netty.pool.maxConnections";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        LabSettings settings = LabSettings.from(environment);
        Map<String, Object> derived = new HashMap<>();
        derived.put("spring.r2dbc.url", settings.r2dbcUrl());
        derived.put("spring.r2dbc.username", settings.dbUser());
        derived.put("spring.r2dbc.password", settings.dbPassword());
        derived.put("spring.r2dbc.pool.enabled", true);
        derived.put("spring.r2dbc.pool.max-size", settings.dbPoolMax());
        // A fixed-size pool, opened before the app reports ready, exactly like the app's Hikari pool: the
        // comparison is then about the programming model, not about connection set-up during the hold.
        derived.put("spring.r2dbc.pool.initial-size", settings.dbPoolMax());
        derived.put("spring.r2dbc.pool.min-idle", settings.dbPoolMax());
        // The counterpart of Hikari's connection-timeout in the app: how long a request waits for a free
        // connection before it is answered 503.
        derived.put("spring.r2dbc.pool.max-acquire-time", settings.dbPoolTimeout().toMillis() + "ms");
        // Boot's default retries a failed acquire once, a timed-out one included: that doubles the wait
        // before a 503, so a request would wait twice DB_POOL_TIMEOUT_MS where the app waits once.
        derived.put("spring.r2dbc.pool.acquire-retry", 0);
        if (settings.managementPort() != null) {
            // Actuator on a server of its own, as in the app: the rig's scrapes must not queue behind the load.
            derived.put("management.server.port", settings.managementPort());
            derived.put("management.server.address", settings.serverAddress());
            // The API documentation lives there too, as actuator endpoints; without a management port of its
            // own springdoc's management-port mode cannot start, and the docs would land on the measured port.
            derived.put("springdoc.use-management-port", true);
            derived.put("springdoc.api-docs.enabled", true);
            derived.put("springdoc.swagger-ui.enabled", true);
        }
        environment.getPropertySources().addFirst(new MapPropertySource("vtlabDerivedSettings", derived));
        // Reactor Netty's shared client pool allows 500 connections by default: with 1,000 users waiting on
        // a 1 s downstream, half of them queued a second for a connection and the twin capped at ~500 req/s
        // where the app's JDK client has no cap. Read once, when the pool is first created: set it before.
        System.setProperty(DOWNSTREAM_MAX_CONNECTIONS_PROPERTY, String.valueOf(settings.downstreamMaxConnections()));
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
