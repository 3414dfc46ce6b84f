package dev.vtlab.testsupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client that asks wrongly gets from either service, the app or its twin, running for real: the same
 * problem for a malformed id, an unknown order and an unknown path, so the rig's error mix cannot tell them
 * apart. A service's test implements it by naming the port its API answers on.
 */
public interface ClientErrorsContract {

    /** The port the running service answers the API on. */
    int port();

    @ParameterizedTest
    @ValueSource(strings = { "abc", "0", "-5", "99999999999999999999", "1.5" })
    default void aMalformedOrderIdIsABadRequestNamingTheId(String id) {
        JsonNode problem = assertProblem(new LabHttp(port()).get("/api/order-summary/" + id), 400);
        assertThat(problem.get("title").asString()).isEqualTo("Invalid order id");
        assertThat(problem.get("detail").asString()).contains(id);
    }

    @Test
    default void anOrderTheDatabaseDoesNotHaveIsNotFound() {
        JsonNode problem = assertProblem(new LabHttp(port()).get("/api/order-summary/999999999"), 404);
        assertThat(problem.get("title").asString()).isEqualTo("Order not found");
    }

    /** Answered by the server's own error handling (the container's error page in the app), not a controller. */
    @Test
    default void anUnknownPathIsANotFoundProblem() {
        LabHttp http = new LabHttp(port());
        assertProblem(http.get("/api/no-such-thing"), 404);
        assertProblem(http.get("/api/order-summary"), 404);
    }
}
