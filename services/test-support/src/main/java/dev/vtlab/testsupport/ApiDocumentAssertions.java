package dev.vtlab.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What both services' OpenAPI documents must hold: every endpoint the rig's load script calls (as far as
 * the service serves it) with a summary, its parameters and its problem responses, served by springdoc on
 * the management port and never on the measured one.
 */
public final class ApiDocumentAssertions {

    /** The k6 script the rig drives every row with (a module runs its tests from services/<module>). */
    public static final Path LOAD_SCRIPT = Path.of("../../load/orders.js");

    private ApiDocumentAssertions() {
    }

    /** The API paths the load script calls, as mapped: {@code ${BASE_URL}/api/x/${id}} is {@code /api/x/{id}}. */
    public static Set<String> pathsTheLoadScriptCalls() {
        try {
            return pathsCalledBy(Files.readString(LOAD_SCRIPT));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static Set<String> pathsCalledBy(String script) {
        Matcher calls = Pattern.compile("\\$\\{BASE_URL}(/api/[a-z-]+(?:/[a-z-]+)*)(/\\$\\{id})?").matcher(script);
        Set<String> paths = new TreeSet<>();
        while (calls.find()) {
            paths.add(calls.group(1) + (calls.group(2) != null ? "/{id}" : ""));
        }
        return paths;
    }

    /** The document's {@code paths}, fetched where springdoc serves it: the management port's actuator. */
    public static JsonNode documentedPaths(int managementPort) {
        LabHttp.Response response = new LabHttp(managementPort).get("/actuator/openapi");
        assertThat(response.status()).isEqualTo(200);
        return response.json().get("paths");
    }

    /** The path is documented with a summary and the 500 problem; a {@code {id}} path with its parameter and 404. */
    public static void assertDocumented(JsonNode paths, String path) {
        assertThat(paths.has(path)).as("%s in the OpenAPI document", path).isTrue();
        JsonNode operation = paths.get(path).properties().iterator().next().getValue();
        assertThat(operation.path("summary").asString()).as("%s summary", path).isNotBlank();
        assertThat(operation.path("responses").has("500")).as("%s 500 problem", path).isTrue();
        if (path.endsWith("{id}")) {
            assertThat(operation.path("parameters").get(0).path("description").asString()).isNotBlank();
            assertThat(operation.path("responses").path("404").path("content").has("application/problem+json"))
                    .as("%s documents its 404 as a problem", path).isTrue();
        }
    }

    /** Swagger UI (its page and script) answers on the management port; neither it nor the document on the app's. */
    public static void assertServedOnTheManagementPortOnly(int port, int managementPort) {
        LabHttp management = new LabHttp(managementPort);
        LabHttp.Response welcome = management.get("/actuator/swagger-ui");
        assertThat(welcome.status()).isIn(200, 302);
        if (welcome.status() == 302) {
            String page = URI.create(welcome.location()).getPath();
            assertThat(management.get(page).body()).contains("swagger-ui");
            assertThat(management.get(page.replace("index.html", "swagger-ui-bundle.js")).status()).isEqualTo(200);
        }
        for (String path : new String[] { "/v3/api-docs", "/actuator/openapi", "/swagger-ui.html", "/swagger-ui/index.html" }) {
            assertThat(new LabHttp(port).get(path).status()).as(path).isEqualTo(404);
        }
    }
}
