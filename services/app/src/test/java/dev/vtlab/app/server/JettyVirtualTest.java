package dev.vtlab.app.server;

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
 * SERVER=jetty with virtual threads: each request on a virtual thread of Jetty's VirtualThreadPool; with the actuator
 * on a port of its own, as the rig runs it (its management server is Jetty's too).
 */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "SERVER=jetty", "VT_ENABLED=true", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=3",
        "MANAGEMENT_PORT=0" })
class JettyVirtualTest {

    @LocalServerPort
    int port;

    @Test
    void jettyRunsEachRequestOnAVirtualThread() {
        JsonNode info = new LabHttp(port).get("/api/runtime-info").json();

        assertThat(info.get("server").get("name").asString()).isEqualTo("jetty");
        assertThat(info.get("threadMode").asString()).isEqualTo("virtual");
        assertThat(info.get("servedBy").get("virtual").asBoolean()).isTrue();
        // Spring Boot builds Jetty's VirtualThreadPool without a maximum, and Jetty's own default caps its concurrent
        // tasks at 200: the analysis takes it as the requests' cap, like platform threads'
        assertThat(info.get("server").get("executor").asString()).isEqualTo("VirtualThreadPool");
        assertThat(info.get("server").get("maxThreads").asInt()).isEqualTo(200);
    }
}
