package dev.vtlab.app.server;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SERVER=netty with virtual threads, the "virtual threads on Netty" design: each blocking controller on a virtual
 * thread of Spring Boot's applicationTaskExecutor, uncapped; with the actuator on a port of its own, as the rig runs
 * it (its management server is Netty's too).
 */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "spring.main.web-application-type=reactive",
        "SERVER=netty", "VT_ENABLED=true", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=3",
        "MANAGEMENT_PORT=0" })
class NettyVirtualTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void eachBlockingControllerRunsOnAVirtualThread() {
        LabHttp http = new LabHttp(port);
        JsonNode summary = http.get("/api/order-summary/1").json();
        assertThat(summary.get("thread").get("virtual").asBoolean()).isTrue();

        JsonNode info = http.get("/api/runtime-info").json();
        assertThat(info.get("server").get("name").asString()).isEqualTo("netty");
        assertThat(info.get("threadMode").asString()).isEqualTo("virtual");
        assertThat(info.get("server").get("executor").asString()).isEqualTo("SimpleAsyncTaskExecutor");
        // no concurrency limit: nothing but the downstream and the pool caps the requests
        assertThat(info.get("server").get("maxThreads").asInt()).isEqualTo(-1);
        // the rig's scrapes, on the management port only
        assertThat(new LabHttp(managementPort).get("/actuator/prometheus").body())
                .contains("http_server_requests_seconds_count");
        assertThat(http.get("/actuator/prometheus").status()).isEqualTo(404);
    }
}
