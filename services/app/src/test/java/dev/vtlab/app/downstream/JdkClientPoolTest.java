package dev.vtlab.app.downstream;

import dev.vtlab.app.support.PlatformReleasedApp;
import dev.vtlab.testsupport.LabHttp;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** The JDK's client (the default): no connection limit, and no count it lets anyone read. */
@PlatformReleasedApp
class JdkClientPoolTest {

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry registry;

    @Test
    void hasNoLimitAndItsCountsReadNotMeasured() {
        JsonNode downstream = new LabHttp(port).get("/api/runtime-info").json().get("downstream");

        assertThat(downstream.get("httpClient").asString()).isEqualTo("jdk");
        assertThat(downstream.get("pool").get("maxPerRoute").asInt()).isEqualTo(-1);
        assertThat(registry.get("vtlab.downstream.pool.max").tag("client", "jdk").gauge().value()).isEqualTo(-1);
        assertThat(registry.get("vtlab.downstream.pool.leased").tag("client", "jdk").gauge().value()).isNaN();
    }
}
