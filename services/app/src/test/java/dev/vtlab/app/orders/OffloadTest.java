package dev.vtlab.app.orders;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PlatformReleasedApp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/** OFFLOAD_EXECUTOR=platform with OFFLOAD_POOL=1 (see {@link PlatformReleasedApp}). */
@PlatformReleasedApp
class OffloadTest {

    @LocalServerPort
    int port;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @Test
    void theWorkRunsOnTheOffloadPoolAndAnswersTheSameDocument() {
        List<CompletableFuture<LabHttp.Response>> inFlight =
                LongStream.of(31, 32, 33).mapToObj(id -> http.getAsync("/api/offload/" + id)).toList();

        for (int i = 0; i < inFlight.size(); i++) {
            LabHttp.Response response = inFlight.get(i).join();
            assertThat(response.status()).as(response.body()).isEqualTo(200);
            JsonNode json = response.json();
            assertThat(json.get("order").get("id").asLong()).isEqualTo(31 + i);
            assertThat(json.get("downstream").get("id").asLong()).isEqualTo(31 + i);
            // a pool of one: every request, however concurrent, was served by the same platform thread
            assertThat(json.get("thread").get("name").asString()).isEqualTo("offload-0");
            assertThat(json.get("thread").get("virtual").asBoolean()).isFalse();
        }
        JsonNode offload = http.get("/api/runtime-info").json().get("offload");
        assertThat(offload.get("executor").asString()).isEqualTo("platform");
        assertThat(offload.get("poolSize").asInt()).isEqualTo(1);
    }

    @Test
    void failuresOfTheOffloadedWorkKeepTheirProblemDetails() {
        assertProblem(http.get("/api/offload/999999999"), 404);
        assertProblem(http.get("/api/offload/abc"), 400);
    }
}
