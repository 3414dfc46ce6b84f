package dev.vtlab.app.system;

import java.util.Set;

import dev.vtlab.testsupport.ApiDocumentationContract;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ApiDocumentAssertions.pathsTheLoadScriptCalls;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The app's OpenAPI document (the contract both services keep): every endpoint with its problems, the load
 * script's included, on the management port only.
 */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=true", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=2", "MANAGEMENT_PORT=0" })
class ApiDocumentationTest implements ApiDocumentationContract {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Override
    public int port() {
        return port;
    }

    @Override
    public int managementPort() {
        return managementPort;
    }

    /** The endpoints ApiDocumentation lists problems for: an endpoint missing there fails the contract. */
    @Override
    public Set<String> apiPaths() {
        return ApiDocumentation.PROBLEMS.keySet();
    }

    /** The app serves every workload of the load script. */
    @Override
    public Set<String> loadScriptPathsServed() {
        return pathsTheLoadScriptCalls();
    }

    @Test
    void theLoadScriptsPathsAreReadFromItAtAll() {
        // Guards the script parser: were it to find nothing, "every path it calls is documented" would hold.
        assertThat(pathsTheLoadScriptCalls()).contains("/api/order-summary/{id}", "/api/orders", "/api/sleep", "/api/cpu");
    }
}
