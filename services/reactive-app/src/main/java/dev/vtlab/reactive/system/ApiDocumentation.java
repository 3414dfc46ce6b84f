package dev.vtlab.reactive.system;

import static dev.vtlab.common.problems.ProblemDocumentation.ORDER_LOOKUP;

import java.util.Map;

import dev.vtlab.common.problems.ProblemDocumentation;
import io.swagger.v3.oas.models.OpenAPI;
import org.springdoc.core.customizers.GlobalOperationCustomizer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The twin's OpenAPI 3 document, as the app's: springdoc serves it as the actuator endpoints
 * {@code openapi} and {@code swagger-ui} on the management port; each endpoint describes itself where it
 * is declared, and the problems it can answer with (its problem exceptions' and ApiExceptionHandler's) are
 * listed here.
 */
@Configuration(proxyBeanMethods = false)
class ApiDocumentation {

    /** Problems by endpoint (the path as mapped), besides the 500 every endpoint may answer. */
    static final Map<String, Map<Integer, String>> PROBLEMS = Map.of(
            "/api/order-summary/{id}", ORDER_LOOKUP,
            "/api/runtime-info", Map.of(),
            "/api/thread-info", Map.of());

    @Bean
    OpenAPI vtlabOpenApi() {
        return ProblemDocumentation.document("vtlab reactive app",
                "The WebFlux + R2DBC twin of the vtlab app: the same order lookup (PostgreSQL + a downstream HTTP "
                        + "call), the same JSON and the same RFC 9457 problem details, on event loops.");
    }

    @Bean
    GlobalOperationCustomizer problemResponses() {
        return ProblemDocumentation.problemResponses(PROBLEMS);
    }
}
