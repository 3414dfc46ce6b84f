package dev.vtlab.app.system;

import javax.sql.DataSource;

import dev.vtlab.app.support.PlatformReleasedApp;
import dev.vtlab.app.support.PoolSampler;
import dev.vtlab.testsupport.LabHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** The rig switches CONN_MODE between the steps of one JVM's staircase: requests then run in the new mode. */
@PlatformReleasedApp
class ConnModeSwitchTest {

    @LocalServerPort
    int port;

    @Autowired
    DataSource dataSource;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
        http.get("/api/order-summary/2"); // warm up JIT and pool so the query phase is short
    }

    @AfterEach
    void backToReleased() {
        // the context is shared with every other @PlatformReleasedApp class: leave it as CONN_MODE set it
        assertThat(http.post("/actuator/connmode", "{\"mode\":\"released\"}").status()).isEqualTo(200);
    }

    @Test
    void switchedToHeldTheConnectionIsKeptThroughTheDownstreamCall() throws Exception {
        LabHttp.Response switched = http.post("/actuator/connmode", "{\"mode\":\"held\"}");

        assertThat(switched.status()).as(switched.body()).isEqualTo(200);
        assertThat(switched.json().get("mode").asString()).isEqualTo("held");
        assertThat(http.get("/actuator/connmode").json().get("mode").asString()).isEqualTo("held");
        assertThat(http.get("/api/runtime-info").json().get("connMode").asString()).isEqualTo("held");
        PoolSampler.Result held = PoolSampler.sampleDuring(dataSource, http, "/api/order-summary/3");
        assertThat(held.response().status()).isEqualTo(200);
        // the transaction holds a connection while the stub's delay passes: most samples see it borrowed
        assertThat(held.activeShare()).as("share of samples with an active connection").isGreaterThan(0.8);
    }

    @Test
    void switchedBackToReleasedTheConnectionIsReturnedBeforeTheCall() throws Exception {
        http.post("/actuator/connmode", "{\"mode\":\"held\"}");
        http.post("/actuator/connmode", "{\"mode\":\"released\"}");

        assertThat(http.get("/api/runtime-info").json().get("connMode").asString()).isEqualTo("released");
        PoolSampler.Result released = PoolSampler.sampleDuring(dataSource, http, "/api/order-summary/3");
        assertThat(released.response().status()).isEqualTo(200);
        assertThat(released.activeShare()).as("share of samples with an active connection").isLessThan(0.2);
    }

    @Test
    void anUnknownModeIsRefusedNamingTheAcceptedOnesAndChangesNothing() {
        LabHttp.Response refused = http.post("/actuator/connmode", "{\"mode\":\"pinned\"}");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body()).contains("released, held", "pinned");
        assertThat(http.get("/api/runtime-info").json().get("connMode").asString()).isEqualTo("released");
    }
}
