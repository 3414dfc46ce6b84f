package dev.vtlab.reactive.system;

import java.util.Set;

import dev.vtlab.testsupport.ApiDocumentationContract;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The twin's OpenAPI document (the contract both services keep): its three endpoints with their problems,
 * among them the one the load script calls on a reactive row, on the management port only.
 */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "DB_POOL_MAX=2", "MANAGEMENT_PORT=0" })
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

    @Override
    public Set<String> apiPaths() {
        return Set.of("/api/order-summary/{id}", "/api/runtime-info", "/api/thread-info");
    }

    /** The twin serves order-summary only: a reactive row of the rig runs no other workload. */
    @Override
    public Set<String> loadScriptPathsServed() {
        return Set.of("/api/order-summary/{id}");
    }
}
