package dev.vtlab.app.system;

import java.util.Set;

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
 * The OpenAPI document lists every endpoint the rig's load script calls, each with its parameters and
 * its problem responses, and is served on the management port only.
 */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=true", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=2", "MANAGEMENT_PORT=0" })
class ApiDocumentationTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void theDocumentListsEveryEndpointTheLoadScriptCallsWithItsProblems() {
        JsonNode paths = documentedPaths(managementPort);
        Set<String> called = pathsTheLoadScriptCalls();
        assertThat(called).contains("/api/order-summary/{id}", "/api/orders", "/api/sleep", "/api/cpu");
        for (String path : called) {
            assertDocumented(paths, path);
        }
    }

    @Test
    void theDocumentAndSwaggerUiStayOffTheMeasuredPort() {
        assertServedOnTheManagementPortOnly(port, managementPort);
    }
}
