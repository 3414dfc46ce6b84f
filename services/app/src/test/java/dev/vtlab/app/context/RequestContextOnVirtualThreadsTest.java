package dev.vtlab.app.context;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** CONTEXT_MODE=scopedvalue in the running app: every API answer carries its context's id. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=true", "CONTEXT_MODE=scopedvalue", "CONTEXT_KB=32", "CONN_MODE=released", "DB_POOL_MAX=2" })
class RequestContextOnVirtualThreadsTest {

    @LocalServerPort
    int port;

    @Test
    void eachRequestGetsItsOwnContextAndRuntimeInfoReportsTheMode() {
        LabHttp http = new LabHttp(port);
        LabHttp.Response first = http.get("/api/order-summary/7");
        LabHttp.Response second = http.get("/api/order-summary/7");

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.requestId()).isNotBlank().isNotEqualTo(second.requestId());
        JsonNode context = http.get("/api/runtime-info").json().get("context");
        assertThat(context.get("mode").asString()).isEqualTo("scopedvalue");
        assertThat(context.get("kilobytes").asInt()).isEqualTo(32);
    }
}
