package dev.vtlab.reactive.runtime;

import dev.vtlab.reactive.support.EventLoop;
import dev.vtlab.testsupport.BuildVersions;
import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.reactive.support.ReactiveApp;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

@ReactiveApp
class RuntimeInfoTest {

    @LocalServerPort
    int port;

    @Test
    void runtimeInfoHasTheShapeTheHarnessParses() {
        JsonNode info = new LabHttp(port).get("/api/runtime-info").json();

        assertThat(info.propertyNames()).containsExactly("threadMode", "servedBy", "pool", "connMode", "pathMode",
                "downstream", "jdkVersion", "springBootVersion", "availableProcessors", "eventLoopThreads");
        assertThat(info.get("servedBy").propertyNames()).containsExactly("name", "virtual");
        assertThat(info.get("pool").propertyNames()).containsExactly("implementation", "version", "maximumPoolSize",
                "minimumIdle", "initialSize", "connectionTimeoutMs");
        assertThat(info.get("downstream").propertyNames())
                .containsExactly("url", "connectTimeoutMs", "readTimeoutMs", "client", "maxConnections");
    }

    @Test
    void runtimeInfoReportsTheEventLoopAndTheConfiguredPool() {
        JsonNode info = new LabHttp(port).get("/api/runtime-info").json();

        assertThat(info.get("threadMode").asString()).isEqualTo("webflux");
        assertThat(info.get("servedBy").get("virtual").asBoolean()).isFalse();
        assertThat(info.get("servedBy").get("name").asString()).matches(EventLoop.THREAD_NAME);
        assertThat(info.get("connMode").asString()).isEqualTo("released");
        assertThat(info.get("pathMode").asString()).isEqualTo("normal");

        JsonNode pool = info.get("pool");
        assertThat(pool.get("implementation").asString()).isEqualTo("r2dbc-pool");
        assertThat(pool.get("version").asString()).isEqualTo(BuildVersions.r2dbcPool());
        assertThat(pool.get("maximumPoolSize").asInt()).as("DB_POOL_MAX").isEqualTo(3);
        assertThat(pool.get("minimumIdle").asInt()).as("fixed size, like Hikari's").isEqualTo(3);
        assertThat(pool.get("initialSize").asInt()).isEqualTo(3);
        assertThat(pool.get("connectionTimeoutMs").asLong()).isEqualTo(5000);

        JsonNode downstream = info.get("downstream");
        assertThat(downstream.get("url").asString()).isEqualTo(stripSlash(System.getenv("STUB_URL")));
        assertThat(downstream.get("connectTimeoutMs").asLong()).isEqualTo(2000);
        assertThat(downstream.get("readTimeoutMs").asLong()).isEqualTo(10000);
        assertThat(downstream.get("client").asString()).isEqualTo("WebClient (ReactorClientHttpConnector)");
        // Reactor Netty's default of 500 would cap the twin at 500 ÷ the downstream's delay
        assertThat(downstream.get("maxConnections").asInt()).isEqualTo(10_000);

        assertThat(info.get("jdkVersion").asString()).startsWith(String.valueOf(Runtime.version().feature()));
        assertThat(info.get("springBootVersion").asString()).isEqualTo(BuildVersions.springBoot());
        assertThat(info.get("availableProcessors").asInt()).isEqualTo(Runtime.getRuntime().availableProcessors());
        // Reactor Netty sizes its loops to the cores, but never below 4.
        assertThat(info.get("eventLoopThreads").asInt())
                .isEqualTo(Math.max(4, Runtime.getRuntime().availableProcessors()));
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
