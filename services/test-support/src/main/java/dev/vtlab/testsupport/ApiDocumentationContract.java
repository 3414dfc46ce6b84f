package dev.vtlab.testsupport;

import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static dev.vtlab.testsupport.ApiDocumentAssertions.assertDocumented;
import static dev.vtlab.testsupport.ApiDocumentAssertions.assertServedOnTheManagementPortOnly;
import static dev.vtlab.testsupport.ApiDocumentAssertions.documentedPaths;
import static dev.vtlab.testsupport.ApiDocumentAssertions.pathsTheLoadScriptCalls;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What either service's OpenAPI document must hold, checked on the running service: every API path it maps,
 * each with a summary, its parameters and its problem responses; among them every path of the rig's load
 * script the service serves; all of it on the management port and none of it on the measured one. A service's
 * test implements it by naming its ports and its paths.
 */
public interface ApiDocumentationContract {

    /** The port the running service answers the API on. */
    int port();

    /** The port its actuator, and so the document and Swagger UI, answer on. */
    int managementPort();

    /** Every API path the service maps, as mapped ({@code /api/x/{id}}): the document lists exactly these. */
    Set<String> apiPaths();

    /** The paths of the rig's load script (load/orders.js) the service serves: the app all, the twin one. */
    Set<String> loadScriptPathsServed();

    @Test
    default void theDocumentListsEveryApiPathWithItsSummaryAndProblems() {
        JsonNode paths = documentedPaths(managementPort());
        assertThat(new TreeSet<>(paths.propertyNames())).containsExactlyInAnyOrderElementsOf(apiPaths());
        for (String path : apiPaths()) {
            assertDocumented(paths, path);
        }
    }

    @Test
    default void everyPathTheLoadScriptCallsOnThisServiceIsDocumented() {
        Set<String> served = loadScriptPathsServed();
        assertThat(served).contains("/api/order-summary/{id}");
        assertThat(pathsTheLoadScriptCalls()).containsAll(served);
        JsonNode paths = documentedPaths(managementPort());
        for (String path : served) {
            assertDocumented(paths, path);
        }
    }

    @Test
    default void theDocumentAndSwaggerUiStayOffTheMeasuredPort() {
        assertServedOnTheManagementPortOnly(port(), managementPort());
    }
}
