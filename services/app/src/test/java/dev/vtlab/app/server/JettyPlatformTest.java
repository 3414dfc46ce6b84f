package dev.vtlab.app.server;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** SERVER=jetty on platform threads: Jetty, not Tomcat, takes the requests, with the row's threads and queue. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "SERVER=jetty", "VT_ENABLED=false", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=3",
        "TOMCAT_MAX_THREADS=64", "TOMCAT_ACCEPT_COUNT=321", "TOMCAT_MAX_CONNECTIONS=5000" })
class JettyPlatformTest {

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry registry;

    @Test
    void jettyServesTheEndpointOnItsPoolWithTheRowsLimits() {
        LabHttp http = new LabHttp(port);
        assertThat(http.get("/api/order-summary/1").status()).isEqualTo(200);
        JsonNode info = http.get("/api/runtime-info").json();

        JsonNode server = info.get("server");
        assertThat(server.get("name").asString()).isEqualTo("jetty");
        assertThat(server.get("maxThreads").asInt()).isEqualTo(64);
        assertThat(server.get("maxConnections").asInt()).isEqualTo(5000);
        assertThat(server.get("acceptQueue").asInt()).isEqualTo(321);
        assertThat(server.get("executor").asString()).isEqualTo("QueuedThreadPool");
        assertThat(info.get("threadMode").asString()).isEqualTo("platform");
        // Tomcat was never built
        assertThat(info.get("tomcat").get("maxThreads").asInt()).isEqualTo(-1);
        // the server's own meters, which the rig reads for any Spring Boot service on Jetty
        assertThat(registry.get("jetty.threads.config.max").gauge().value()).isEqualTo(64);
        String scraped = http.get("/actuator/prometheus").body();
        assertThat(scraped).contains("jetty_threads_config_max 64.0").contains("jetty_connections_current_connections");
    }
}
