package dev.vtlab.app.system;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document lists every endpoint the rig's load script calls, each with its parameters and
 * its problem responses, and is served on the management port only.
 */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=true", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=2", "MANAGEMENT_PORT=0" })
class ApiDocumentationTest {

    /** The k6 script the rig drives every row with (the module runs its tests from services/app). */
    static final Path LOAD_SCRIPT = Path.of("../../load/orders.js");

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void theDocumentListsEveryEndpointTheLoadScriptCallsWithItsProblems() throws IOException {
        LabHttp.Response response = new LabHttp(managementPort).get("/actuator/openapi");
        assertThat(response.status()).isEqualTo(200);
        JsonNode paths = new ObjectMapper().readTree(response.body()).get("paths");

        Set<String> called = pathsCalledBy(Files.readString(LOAD_SCRIPT));
        assertThat(called).contains("/api/order-summary/{id}", "/api/orders", "/api/sleep", "/api/cpu");
        for (String path : called) {
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
    }

    @Test
    void theDocumentAndSwaggerUiStayOffTheMeasuredPort() {
        LabHttp management = new LabHttp(managementPort);
        LabHttp.Response welcome = management.get("/actuator/swagger-ui");
        assertThat(welcome.status()).isIn(200, 302);
        if (welcome.status() == 302) {
            // The page itself and its script load too (springdoc serves them, with static mappings off).
            String page = URI.create(welcome.location()).getPath();
            assertThat(management.get(page).body()).contains("swagger-ui");
            assertThat(management.get(page.replace("index.html", "swagger-ui-bundle.js")).status()).isEqualTo(200);
        }
        for (String path : new String[] { "/v3/api-docs", "/actuator/openapi", "/swagger-ui.html", "/swagger-ui/index.html" }) {
            assertThat(new LabHttp(port).get(path).status()).as(path).isEqualTo(404);
        }
    }

    /** {@code ${BASE_URL}/api/x/${id}} and {@code ${BASE_URL}/api/x?q=...} as the API's mapped paths. */
    static Set<String> pathsCalledBy(String script) {
        Matcher calls = Pattern.compile("\\$\\{BASE_URL}(/api/[a-z-]+(?:/[a-z-]+)*)(/\\$\\{id})?").matcher(script);
        Set<String> paths = new TreeSet<>();
        while (calls.find()) {
            paths.add(calls.group(1) + (calls.group(2) != null ? "/{id}" : ""));
        }
        return paths;
    }
}
