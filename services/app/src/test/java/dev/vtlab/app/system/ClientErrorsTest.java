package dev.vtlab.app.system;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PlatformReleasedApp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

@PlatformReleasedApp
class ClientErrorsTest {

    @LocalServerPort
    int port;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @ParameterizedTest
    @ValueSource(strings = { "abc", "0", "-5", "99999999999999999999", "1.5" })
    void malformedOrderIdIsABadRequest(String id) {
        JsonNode problem = assertProblem(http.get("/api/order-summary/" + id), 400);
        assertThat(problem.get("detail").asString()).contains(id);
    }

    @Test
    void missingOrderIsNotFound() {
        JsonNode problem = assertProblem(http.get("/api/order-summary/999999999"), 404);
        assertThat(problem.get("title").asString()).isEqualTo("Order not found");
    }

    @Test
    void unknownPathIsANotFoundProblem() {
        assertProblem(http.get("/api/no-such-thing"), 404);
        assertProblem(http.get("/api/order-summary"), 404);
    }
}
