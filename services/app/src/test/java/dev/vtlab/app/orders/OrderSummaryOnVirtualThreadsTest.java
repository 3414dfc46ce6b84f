package dev.vtlab.app.orders;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;

import javax.sql.DataSource;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PoolSampler;
import dev.vtlab.app.support.VirtualHeldSynchronizedApp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

@VirtualHeldSynchronizedApp
class OrderSummaryOnVirtualThreadsTest {

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
    void requestRunsOnVirtualThreadWhenEnabled() {
        LabHttp.Response response = http.get("/api/order-summary/1");

        assertThat(response.status()).as(response.body()).isEqualTo(200);
        assertThat(response.json().get("thread").get("virtual").asBoolean()).isTrue();
        assertThat(http.get("/api/thread-info").json().get("virtual").asBoolean()).isTrue();
    }

    @Test
    void heldModeKeepsConnectionForTheDownstreamCall() throws Exception {
        http.get("/api/order-summary/2"); // warm up

        PoolSampler.Result result = PoolSampler.sampleDuring(dataSource, http, "/api/order-summary/3");

        assertThat(result.response().status()).isEqualTo(200);
        assertThat(result.samples()).as("samples taken during the request").isGreaterThan(20);
        assertThat(result.activeShare()).as("share of samples with an active connection").isGreaterThan(0.8);
    }

    @Test
    void synchronizedPathAnswersConcurrentRequestsOnVirtualThreads() {
        // 1 and 1025 share a stripe (1025 % 1024 == 1); the others do not.
        List<Long> ids = List.of(1L, 1025L, 2L, 3L, 4L);
        List<CompletableFuture<LabHttp.Response>> inFlight =
                ids.stream().map(id -> http.getAsync("/api/order-summary/" + id)).toList();

        for (int i = 0; i < ids.size(); i++) {
            LabHttp.Response response = inFlight.get(i).join();
            assertThat(response.status()).as(response.body()).isEqualTo(200);
            JsonNode json = response.json();
            assertThat(json.get("order").get("id").asLong()).isEqualTo(ids.get(i));
            assertThat(json.get("downstream").get("id").asLong()).isEqualTo(ids.get(i));
            assertThat(json.get("thread").get("virtual").asBoolean()).isTrue();
        }
        assertThat(LongStream.of(1, 1025).map(id -> id % 1024).distinct().count()).isOne();
    }
}
