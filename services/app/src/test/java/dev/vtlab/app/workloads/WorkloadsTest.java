package dev.vtlab.app.workloads;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PlatformReleasedApp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

@PlatformReleasedApp
class WorkloadsTest {

    @LocalServerPort
    int port;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @Test
    void sleepBlocksTheRequestThreadForTheAskedTime() {
        long started = System.nanoTime();
        LabHttp.Response response = http.get("/api/sleep?ms=150");
        long tookMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(response.status()).as(response.body()).isEqualTo(200);
        JsonNode json = response.json();
        assertThat(json.get("requestedMs").asInt()).isEqualTo(150);
        assertThat(json.get("sleptMs").asLong()).isGreaterThanOrEqualTo(150);
        assertThat(tookMs).isGreaterThanOrEqualTo(150);
        assertThat(json.get("thread").get("virtual").asBoolean()).isFalse();
    }

    @Test
    void cpuWorkIsDeterministicAndScalesWithTheAmount() {
        JsonNode small = http.get("/api/cpu?work=10").json();
        JsonNode again = http.get("/api/cpu?work=10").json();
        JsonNode large = http.get("/api/cpu?work=11").json();

        assertThat(small.get("work").asInt()).isEqualTo(10);
        assertThat(small.get("digestPrefix").asString()).hasSize(16).isEqualTo(again.get("digestPrefix").asString());
        assertThat(large.get("digestPrefix").asString()).isNotEqualTo(small.get("digestPrefix").asString());
    }

    @ParameterizedTest
    @ValueSource(strings = { "/api/sleep", "/api/sleep?ms=-1", "/api/sleep?ms=60001", "/api/sleep?ms=abc",
            "/api/cpu", "/api/cpu?work=0", "/api/cpu?work=1000001", "/api/cpu?work=1e3" })
    void badParametersAreBadRequests(String path) {
        JsonNode problem = assertProblem(http.get(path), 400);
        assertThat(problem.get("title").asString()).isEqualTo("Invalid parameter");
    }
}
