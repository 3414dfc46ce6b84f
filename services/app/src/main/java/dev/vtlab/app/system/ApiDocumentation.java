package dev.vtlab.app.system;

import static dev.vtlab.common.problems.ProblemDocumentation.ORDER_LOOKUP;
import static dev.vtlab.common.problems.ProblemDocumentation.ordered;
import static dev.vtlab.common.problems.ProblemDocumentation.with;

import java.util.Map;

import dev.vtlab.common.problems.ProblemDocumentation;
import dev.vtlab.common.problems.Problems;
import io.swagger.v3.oas.models.OpenAPI;
import org.springdoc.core.customizers.GlobalOperationCustomizer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The API's OpenAPI 3 document (served by springdoc as the actuator endpoints {@code openapi} and
 * {@code swagger-ui}, on the management port). Each endpoint describes itself where it is declared
 * ({@code @Operation}, {@code @Parameter}); the RFC 9457 problems it can answer with are listed here,
 * once, from the problem exceptions its code throws and what ApiExceptionHandler maps: one table a reader
 * can check against both.
 */
@Configuration(proxyBeanMethods = false)
class ApiDocumentation {

    /** Problems by endpoint (the path as mapped), besides the 500 every endpoint may answer. */
    static final Map<String, Map<Integer, String>> PROBLEMS = Map.of(
            "/api/order-summary/{id}", ORDER_LOOKUP,
            "/api/offload/{id}", with(ORDER_LOOKUP, 503, Problems.POOL_EXHAUSTED
                    + ", or the offload executor was saturated (Retry-After: " + Problems.RETRY_AFTER_SECONDS + ")"),
            "/api/fanout/{id}", ORDER_LOOKUP,
            "/api/orders", ordered(400, "Invalid order: a field is missing or out of range",
                    502, Problems.DOWNSTREAM_UNAVAILABLE, 503, Problems.POOL_EXHAUSTED, 504, Problems.DOWNSTREAM_TIMEOUT),
            "/api/sleep", ordered(400, "Invalid parameter: ms must be an integer between 0 and 60000"),
            "/api/cpu", ordered(400, "Invalid parameter: work must be an integer between 1 and 1000000"),
            "/api/runtime-info", Map.of(),
            "/api/thread-info", Map.of());

    @Bean
    OpenAPI vtlabOpenApi() {
        return ProblemDocumentation.document("vtlab app",
                "The blocking Spring Boot service vtlab measures on platform and virtual threads: order lookups "
                        + "(PostgreSQL + a downstream HTTP call), writes, and the scenario workloads. Failures are "
                        + "RFC 9457 problem details.");
    }

    @Bean
    GlobalOperationCustomizer problemResponses() {
        return ProblemDocumentation.problemResponses(PROBLEMS);
    }
}
