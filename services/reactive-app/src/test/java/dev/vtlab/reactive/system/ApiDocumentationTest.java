package dev.vtlab.reactive.system;

import java.util.Set;
import java.util.TreeSet;

import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ApiDocumentAssertions.assertDocumented;
import static dev.vtlab.testsupport.ApiDocumentAssertions.assertServedOnTheManagementPortOnly;
import static dev.vtlab.testsupport.ApiDocumentAssertions.documentedPaths;
import static dev.vtlab.testsupport.ApiDocumentAssertions.pathsTheLoadScriptCalls;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The twin's OpenAPI document lists its endpoints with their problems, among them the one the load script
 * calls on a reactive row (order-summary: the twin serves no other workload), on the management port only.
 */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "DB_POOL_MAX=2", "MANAGEMENT_PORT=0" })
class ApiDocumentationTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void theDocumentListsTheTwinsEndpointsWithTheirProblems() {
        JsonNode paths = documentedPaths(managementPort);
        Set<String> documented = new TreeSet<>(paths.propertyNames());
        assertThat(documented).containsExactly("/api/order-summary/{id}", "/api/runtime-info", "/api/thread-info");
        assertThat(pathsTheLoadScriptCalls()).contains("/api/order-summary/{id}");
        for (String path : documented) {
            assertDocumented(paths, path);
        }
    }

    @Test
    void theDocumentAndSwaggerUiStayOffTheMeasuredPort() {
        assertServedOnTheManagementPortOnly(port, managementPort);
    }
}
