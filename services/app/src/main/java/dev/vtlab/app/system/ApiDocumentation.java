package dev.vtlab.app.system;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.vtlab.common.problems.Problems;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import org.springdoc.core.customizers.GlobalOperationCustomizer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * The API's OpenAPI 3 document (served by springdoc as the actuator endpoints {@code openapi} and
 * {@code swagger-ui}, on the management port). Each endpoint describes itself where it is declared
 * ({@code @Operation}, {@code @Parameter}); the RFC 9457 problems it can answer with are listed here,
 * once, from what ApiExceptionHandler maps: one table a reader can check against the handler.
 */
@Configuration(proxyBeanMethods = false)
class ApiDocumentation {

    static final String PROBLEM_JSON = "application/problem+json";

    private static final Map<Integer, String> ORDER_LOOKUP = ordered(
            400, Problems.INVALID_ORDER_ID + ": the id is not a positive integer",
            404, Problems.ORDER_NOT_FOUND,
            502, Problems.DOWNSTREAM_UNAVAILABLE,
            503, Problems.POOL_EXHAUSTED + ": no connection became free within DB_POOL_TIMEOUT_MS (Retry-After: "
                    + Problems.RETRY_AFTER_SECONDS + ")",
            504, Problems.DOWNSTREAM_TIMEOUT);

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
        return new OpenAPI()
                .info(new Info().title("vtlab app").version("1")
                        .description("The blocking Spring Boot service vtlab measures on platform and virtual threads: "
                                + "order lookups (PostgreSQL + a downstream HTTP call), writes, and the scenario "
                                + "workloads. Failures are RFC 9457 problem details."))
                .components(new Components().addSchemas("Problem", problemSchema()));
    }

    @Bean
    GlobalOperationCustomizer problemResponses() {
        return (operation, handler) -> {
            RequestMapping mapping = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), RequestMapping.class);
            String path = mapping == null || mapping.path().length == 0 ? "" : mapping.path()[0];
            PROBLEMS.getOrDefault(path, Map.of()).forEach((status, text) ->
                    operation.getResponses().addApiResponse(String.valueOf(status), problem(text)));
            operation.getResponses().addApiResponse("500", problem(Problems.INTERNAL_ERROR + " or "
                    + Problems.DATABASE_ERROR + ": details never carry exception messages"));
            return operation;
        };
    }

    private static ApiResponse problem(String description) {
        return new ApiResponse().description(description).content(new Content().addMediaType(PROBLEM_JSON,
                new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem"))));
    }

    private static Schema<?> problemSchema() {
        return new ObjectSchema().description("RFC 9457 problem details")
                .addProperty("type", new StringSchema().format("uri"))
                .addProperty("title", new StringSchema())
                .addProperty("status", new IntegerSchema())
                .addProperty("detail", new StringSchema())
                .addProperty("instance", new StringSchema().format("uri"));
    }

    private static Map<Integer, String> ordered(Object... statusAndText) {
        Map<Integer, String> map = new LinkedHashMap<>();
        for (int i = 0; i < statusAndText.length; i += 2) {
            map.put((Integer) statusAndText[i], (String) statusAndText[i + 1]);
        }
        return map;
    }

    private static Map<Integer, String> with(Map<Integer, String> base, int status, String text) {
        Map<Integer, String> map = new LinkedHashMap<>(base);
        map.put(status, text);
        return map;
    }
}
