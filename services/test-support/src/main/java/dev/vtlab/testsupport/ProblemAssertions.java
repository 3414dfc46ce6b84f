package dev.vtlab.testsupport;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

public final class ProblemAssertions {

    private ProblemAssertions() {
    }

    /** An RFC 9457 body with the given status, a title, and nothing that looks like a stack trace. */
    public static JsonNode assertProblem(LabHttp.Response response, int status) {
        assertThat(response.status()).as("status of %s", response.body()).isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        JsonNode problem = response.json();
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.path("title").asString("")).isNotBlank();
        assertThat(problem.has("trace")).isFalse();
        assertThat(response.body()).doesNotContain("Exception", "\tat ", "at dev.vtlab", "at org.");
        return problem;
    }
}
