package dev.vtlab.app.orders;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PlatformHeldSynchronizedApp;
import dev.vtlab.app.support.PoolSampler;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

@PlatformHeldSynchronizedApp
class SynchronizedPathOnPlatformThreadsTest {

    @LocalServerPort
    int port;

    @Autowired
    DataSource dataSource;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @Test
    void synchronizedPathAnswersConcurrentRequestsOnPlatformThreads() {
        // Two requests at a time: the pool has exactly two connections and held mode keeps them busy.
        List<Long> ids = List.of(5L, 6L);
        List<CompletableFuture<LabHttp.Response>> inFlight =
                ids.stream().map(id -> http.getAsync("/api/order-summary/" + id)).toList();

        for (int i = 0; i < ids.size(); i++) {
            LabHttp.Response response = inFlight.get(i).join();
            assertThat(response.status()).as(response.body()).isEqualTo(200);
            JsonNode json = response.json();
            assertThat(json.get("order").get("id").asLong()).isEqualTo(ids.get(i));
            assertThat(json.get("downstream").get("id").asLong()).isEqualTo(ids.get(i));
            assertThat(json.get("thread").get("virtual").asBoolean()).isFalse();
        }
    }

    @Test
    void heldModeKeepsConnectionForTheDownstreamCallOnPlatformThreads() throws Exception {
        http.get("/api/order-summary/7"); // warm up

        PoolSampler.Result result = PoolSampler.sampleDuring(dataSource, http, "/api/order-summary/8");

        assertThat(result.response().status()).isEqualTo(200);
        assertThat(result.activeShare()).as("share of samples with an active connection").isGreaterThan(0.8);
    }
}
