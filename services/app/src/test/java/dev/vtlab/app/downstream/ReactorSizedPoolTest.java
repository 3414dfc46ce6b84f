package dev.vtlab.app.downstream;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/** Reactor Netty's pool sized by CLIENT_POOL; its queue is twice the pool (Reactor's own default). */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=true", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=3", "HTTP_CLIENT=reactor",
        "CLIENT_POOL=4" })
class ReactorSizedPoolTest extends ClientPoolContract {

    String client() {
        return "reactor";
    }

    String factory() {
        return "ReactorClientHttpRequestFactory";
    }

    int maxPerRoute() {
        return 4;
    }

    @Test
    void itsQueueLimitIsReadOnceThePoolHasConnected() {
        assertThat(new LabHttp(port).get("/api/order-summary/1").status()).isEqualTo(200);

        assertThat(gauge("vtlab.downstream.pool.pending.max")).isEqualTo(8);
    }
}
