package dev.vtlab.app.runtime;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PlatformHeldSynchronizedApp;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

@PlatformHeldSynchronizedApp
class RuntimeInfoPlatformTunedTest {

    @LocalServerPort
    int port;

    @Test
    void runtimeInfoReportsTheTomcatThreadCapOnPlatformThreads() {
        JsonNode info = new LabHttp(port).get("/api/runtime-info").json();

        assertThat(info.get("threadMode").asString()).isEqualTo("platform");
        assertThat(info.get("tomcat").get("maxThreads").asInt()).isEqualTo(123);
        assertThat(info.get("tomcat").get("executor").asString()).isEqualTo("ThreadPoolExecutor");
        assertThat(info.get("pool").get("maximumPoolSize").asInt()).isEqualTo(2);
        assertThat(info.get("connMode").asString()).isEqualTo("held");
        assertThat(info.get("pathMode").asString()).isEqualTo("synchronized");
    }
}
