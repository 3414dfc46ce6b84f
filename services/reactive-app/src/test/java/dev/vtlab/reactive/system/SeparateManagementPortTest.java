package dev.vtlab.reactive.system;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/** MANAGEMENT_PORT, as the rig always sets it: actuator on a server of its own. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "DB_POOL_MAX=2", "MANAGEMENT_PORT=0" })
class SeparateManagementPortTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void actuatorAnswersOnItsOwnPortOnly() {
        assertThat(managementPort).isNotEqualTo(port);
        assertThat(new LabHttp(managementPort).get("/actuator/health").status()).isEqualTo(200);
        assertThat(new LabHttp(managementPort).get("/actuator/prometheus").body())
                .contains("r2dbc_pool_pending_connections{");
        assertProblem(new LabHttp(port).get("/actuator/prometheus"), 404);
        assertThat(new LabHttp(port).get("/api/order-summary/1").status()).isEqualTo(200);
    }
}
