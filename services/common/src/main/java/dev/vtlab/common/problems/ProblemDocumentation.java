package dev.vtlab.common.problems;

import java.util.LinkedHashMap;
import java.util.Map;

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

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * How both services' OpenAPI documents describe their {@link Problems}: the Problem schema, one response
 * per status an endpoint can answer with, and the order lookup's table, which the app and its twin share
 * status for status. Each service lists its endpoints' problems in a table of its own (path as mapped →
 * status → description), drawn from the {@link ProblemException}s its endpoints throw and its exception
 * handler; every endpoint may also answer 500.
 */
public final class ProblemDocumentation {

    public static final String PROBLEM_JSON = "application/problem+json";

    /** What a lookup of one order (the order-summary request and its variants) can answer besides 200. */
    public static final Map<Integer, String> ORDER_LOOKUP = ordered(
            400, Problems.INVALID_ORDER_ID + ": the id is not a positive integer",
            404, Problems.ORDER_NOT_FOUND,
            502, Problems.DOWNSTREAM_UNAVAILABLE,
            503, Problems.POOL_EXHAUSTED + ": no connection became free within DB_POOL_TIMEOUT_MS (Retry-After: "
                    + Problems.RETRY_AFTER_SECONDS + ")",
            504, Problems.DOWNSTREAM_TIMEOUT);

    private ProblemDocumentation() {
    }

    /** The document's head, with the Problem schema every problem response refers to. */
    public static OpenAPI document(String title, String description) {
        return new OpenAPI()
                .info(new Info().title(title).version("1").description(description))
                .components(new Components().addSchemas("Problem", problemSchema()));
    }

    /** Adds each operation's problem responses from {@code problemsByPath}, and the 500 every one may give. */
    public static GlobalOperationCustomizer problemResponses(Map<String, Map<Integer, String>> problemsByPath) {
        return (operation, handler) -> {
            RequestMapping mapping = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), RequestMapping.class);
            String path = mapping == null || mapping.path().length == 0 ? "" : mapping.path()[0];
            problemsByPath.getOrDefault(path, Map.of()).forEach((status, text) ->
                    operation.getResponses().addApiResponse(String.valueOf(status), problem(text)));
            operation.getResponses().addApiResponse("500", problem(Problems.INTERNAL_ERROR + " or "
                    + Problems.DATABASE_ERROR + ": details never carry exception messages"));
            return operation;
        };
    }

    /** Statuses and descriptions in pairs, kept in the order given: {@code ordered(400, "...", 404, "...")}. */
    public static Map<Integer, String> ordered(Object... statusAndText) {
        Map<Integer, String> map = new LinkedHashMap<>();
        for (int i = 0; i < statusAndText.length; i += 2) {
            map.put((Integer) statusAndText[i], (String) statusAndText[i + 1]);
        }
        return map;
    }

    /** {@code base} with one status added or described anew. */
    public static Map<Integer, String> with(Map<Integer, String> base, int status, String text) {
        Map<Integer, String> map = new LinkedHashMap<>(base);
        map.put(status, text);
        return map;
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
}
