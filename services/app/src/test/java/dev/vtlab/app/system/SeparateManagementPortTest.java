package dev.vtlab.app.system;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

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

/** MANAGEMENT_PORT: the rig's scrapes keep working while the load holds every request thread. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=false", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=2",
        "TOMCAT_MAX_THREADS=2", "MANAGEMENT_PORT=0" })
class SeparateManagementPortTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void actuatorAnswersOnItsOwnPortOnly() {
        assertThat(managementPort).isNotEqualTo(port);
        assertThat(new LabHttp(managementPort).get("/actuator/health").status()).isEqualTo(200);
        assertProblem(new LabHttp(port).get("/actuator/prometheus"), 404);
    }

    @Test
    void scrapesAreServedWhileEveryRequestThreadIsBusy() {
        LabHttp app = new LabHttp(port);
        // Four 2-second sleeps hold both request threads for ~4 s.
        List<CompletableFuture<LabHttp.Response>> busy =
                IntStream.range(0, 4).mapToObj(i -> app.getAsync("/api/sleep?ms=2000")).toList();
        sleepQuietly(500);

        long started = System.nanoTime();
        LabHttp.Response scrape = new LabHttp(managementPort).get("/actuator/prometheus");
        long tookMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(scrape.status()).isEqualTo(200);
        assertThat(scrape.body()).contains("hikaricp_connections_active{", "tomcat_connections_current_connections{");
        assertThat(tookMs).as("scrape latency while the request pool is saturated").isLessThan(1500);
        busy.forEach(request -> assertThat(request.join().status()).isEqualTo(200));
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
