package dev.vtlab.reactive.system;

import java.util.HashMap;
import java.util.Map;

import dev.vtlab.common.ServiceSettings;
import dev.vtlab.common.VariableNamedProperties;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Validates the environment variables before any auto-configuration converts a property derived from
 * them, then sets those properties from the parsed values, among them the R2DBC connection and pool
 * settings: DB_URL is a JDBC URL, which no placeholder in application.properties could turn into an R2DBC one.
 */
public class SettingsEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    /** Reactor Netty's ReactorNetty.POOL_MAX_CONNECTIONS. */
    static final String DOWNSTREAM_MAX_CONNECTIONS_PROPERTY = "reactor.netty.pool.maxConnections";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        LabSettings settings = LabSettings.from(environment);
        ServiceSettings service = settings.service();
        // Last, where application.properties' placeholders with defaults used to be: an explicit Spring property
        // (a test's server.port=0, --server.port) still outranks the value derived from the variable.
        environment.getPropertySources().addLast(new MapPropertySource("vtlabSettings", service.springProperties()));
        // Over SERVER_ADDRESS and SERVER_PORT themselves, which Spring would otherwise bind raw as server.address/port.
        VariableNamedProperties.addOverTheirVariables(environment, "vtlabServerSettings", service.serverProperties());
        Map<String, Object> derived = new HashMap<>();
        derived.put("spring.r2dbc.url", settings.r2dbcUrl());
        derived.put("spring.r2dbc.username", service.dbUser());
        derived.put("spring.r2dbc.password", service.dbPassword());
        derived.put("spring.r2dbc.pool.enabled", true);
        derived.put("spring.r2dbc.pool.max-size", service.dbPoolMax());
        // A fixed-size pool, opened before the app reports ready, exactly like the app's Hikari pool: the
        // comparison is then about the programming model, not about connection set-up during the hold.
        derived.put("spring.r2dbc.pool.initial-size", service.dbPoolMax());
        derived.put("spring.r2dbc.pool.min-idle", service.dbPoolMax());
        // The counterpart of Hikari's connection-timeout in the app: how long a request waits for a free
        // connection before it is answered 503.
        derived.put("spring.r2dbc.pool.max-acquire-time", service.dbPoolTimeout().toMillis() + "ms");
        // Boot's default retries a failed acquire once, a timed-out one included: that doubles the wait
        // before a 503, so a request would wait twice DB_POOL_TIMEOUT_MS where the app waits once.
        derived.put("spring.r2dbc.pool.acquire-retry", 0);
        // With MANAGEMENT_PORT, as in the app; without a management port of its own springdoc's management-port
        // mode cannot start, so the documentation stays off altogether.
        derived.putAll(service.managementProperties());
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
