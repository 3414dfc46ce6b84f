package dev.vtlab.app.runtime;

import dev.vtlab.testsupport.BuildVersions;
import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PlatformReleasedApp;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

@PlatformReleasedApp
class RuntimeInfoDefaultsTest {

    @LocalServerPort
    int port;

    @Test
    void runtimeInfoHasTheShapeTheHarnessParses() {
        JsonNode info = new LabHttp(port).get("/api/runtime-info").json();

        assertThat(info.propertyNames()).containsExactly("threadMode", "servedBy", "pool", "connMode", "pathMode",
                "tomcat", "server", "downstream", "offload", "fanOutMode", "context", "jdkVersion", "springBootVersion", "availableProcessors",
                "virtualThreadSchedulerParallelism");
        assertThat(info.get("servedBy").propertyNames()).containsExactly("name", "virtual");
        assertThat(info.get("pool").propertyNames()).containsExactly("implementation", "version", "maximumPoolSize",
                "minimumIdle", "connectionTimeoutMs");
        assertThat(info.get("tomcat").propertyNames())
                .containsExactly("maxThreads", "maxConnections", "acceptCount", "executor");
        assertThat(info.get("downstream").propertyNames())
                .containsExactly("url", "connectTimeoutMs", "readTimeoutMs", "client", "httpVersion", "httpClient",
                        "pool");
        assertThat(info.get("downstream").get("pool").propertyNames()).containsExactly("maxPerRoute", "maxPending");
        assertThat(info.get("offload").propertyNames()).containsExactly("executor", "poolSize");
        assertThat(info.get("context").propertyNames()).containsExactly("mode", "kilobytes");
    }

    @Test
    void runtimeInfoReportsPlatformThreadsAndDefaultSettings() {
        JsonNode info = new LabHttp(port).get("/api/runtime-info").json();

        assertThat(info.get("threadMode").asString()).isEqualTo("platform");
        assertThat(info.get("servedBy").get("virtual").asBoolean()).isFalse();
        assertThat(info.get("pool").get("implementation").asString()).isEqualTo("HikariCP");
        assertThat(info.get("fanOutMode").asString()).isEqualTo("sequential");
        assertThat(info.get("context").get("mode").asString()).isEqualTo("none");

        JsonNode pool = info.get("pool");
        assertThat(pool.get("implementation").asString()).isEqualTo("HikariCP");
        assertThat(pool.get("version").asString()).isEqualTo(BuildVersions.hikariCp());
        assertThat(pool.get("maximumPoolSize").asInt()).isEqualTo(3);
        assertThat(pool.get("minimumIdle").asInt()).isEqualTo(3);
        assertThat(pool.get("connectionTimeoutMs").asLong()).isEqualTo(5000);

        assertThat(info.get("connMode").asString()).isEqualTo("released");
        assertThat(info.get("pathMode").asString()).isEqualTo("normal");

        JsonNode tomcat = info.get("tomcat");
        assertThat(tomcat.get("maxThreads").asInt()).isEqualTo(200);
        assertThat(tomcat.get("maxConnections").asInt()).isEqualTo(8192);
        assertThat(tomcat.get("acceptCount").asInt()).isEqualTo(100);
        assertThat(tomcat.get("executor").asString()).isEqualTo("ThreadPoolExecutor");
        JsonNode server = info.get("server");
        assertThat(server.get("name").asString()).isEqualTo("tomcat");
        assertThat(server.get("maxThreads").asInt()).isEqualTo(200);
        assertThat(server.get("maxConnections").asInt()).isEqualTo(8192);
        assertThat(server.get("acceptQueue").asInt()).isEqualTo(100);

        JsonNode downstream = info.get("downstream");
        assertThat(downstream.get("url").asString()).isEqualTo(stripSlash(System.getenv("STUB_URL")));
        assertThat(downstream.get("connectTimeoutMs").asLong()).isEqualTo(2000);
        assertThat(downstream.get("readTimeoutMs").asLong()).isEqualTo(10000);
        assertThat(downstream.get("client").asString()).isEqualTo("JdkClientHttpRequestFactory");
        assertThat(downstream.get("httpVersion").asString()).isEqualTo("http1");

        assertThat(info.get("jdkVersion").asString()).startsWith(String.valueOf(Runtime.version().feature()));
        assertThat(info.get("springBootVersion").asString()).isEqualTo(BuildVersions.springBoot());
        assertThat(info.get("availableProcessors").asInt()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(info.get("virtualThreadSchedulerParallelism").asInt()).isPositive();
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
