package dev.vtlab.app.server;

import dev.vtlab.testsupport.ClientErrorsContract;
import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SERVER=netty on platform threads: Reactor Netty takes the requests and WebFlux hands the blocking controllers to a
 * fixed pool of the row's request threads, never running them on an event loop. The test names the reactive stack
 * itself because Spring Boot's test bootstrap picks the web type before the app's settings are read; a real start-up
 * takes it from SERVER alone.
 */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "spring.main.web-application-type=reactive",
        "SERVER=netty", "VT_ENABLED=false", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=3",
        "TOMCAT_MAX_THREADS=64", "TOMCAT_ACCEPT_COUNT=321", "TOMCAT_MAX_CONNECTIONS=5000" })
class NettyPlatformTest implements ClientErrorsContract {

    @LocalServerPort
    int port;

    @Override
    public int port() {
        return port;
    }

    @Test
    void nettyHandsTheBlockingControllersToAPoolOfTheRowsThreads() {
        LabHttp http = new LabHttp(port);
        LabHttp.Response summary = http.get("/api/order-summary/1");
        assertThat(summary.status()).isEqualTo(200);
        // served by the blocking executor's platform thread, not one of Reactor Netty's event loops (reactor-http-…)
        JsonNode thread = summary.json().get("thread");
        assertThat(thread.get("name").asString()).startsWith("blocking-");
        assertThat(thread.get("virtual").asBoolean()).isFalse();

        JsonNode info = http.get("/api/runtime-info").json();
        JsonNode server = info.get("server");
        assertThat(server.get("name").asString()).isEqualTo("netty");
        assertThat(server.get("executor").asString()).isEqualTo("ThreadPoolTaskExecutor");
        assertThat(server.get("maxThreads").asInt()).isEqualTo(64);
        // Reactor Netty holds no limit of connections; TOMCAT_MAX_CONNECTIONS has nothing to size
        assertThat(server.get("maxConnections").asInt()).isEqualTo(-1);
        // read back from the live listening channel
        assertThat(server.get("acceptQueue").asInt()).isEqualTo(321);
        assertThat(info.get("threadMode").asString()).isEqualTo("platform");
        assertThat(info.get("tomcat").get("maxThreads").asInt()).isEqualTo(-1);
    }
}
