package dev.vtlab.app.orders;

import javax.sql.DataSource;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PlatformReleasedApp;
import dev.vtlab.app.support.PoolSampler;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

@PlatformReleasedApp
class OrderSummaryOnPlatformThreadsTest {

    @LocalServerPort
    int port;

    @Autowired
    DataSource dataSource;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @Test
    void summaryJoinsOrderCustomerAndDownstreamAnswer() {
        LabHttp.Response response = http.get("/api/order-summary/1");

        assertThat(response.status()).as(response.body()).isEqualTo(200);
        assertThat(response.contentType()).startsWith("application/json");
        JsonNode json = response.json();
        assertThat(json.propertyNames()).containsExactly("order", "customer", "downstream", "thread");

        JsonNode order = json.get("order");
        assertThat(order.propertyNames())
                .containsExactly("id", "status", "totalCents", "currency", "itemCount", "createdAt");
        assertThat(order.get("id").asLong()).isEqualTo(1);
        assertThat(order.get("totalCents").isIntegralNumber()).isTrue();
        assertThat(order.get("itemCount").isIntegralNumber()).isTrue();
        assertThat(order.get("createdAt").asString()).matches("\\d{4}-\\d{2}-\\d{2}T.*Z");

        JsonNode customer = json.get("customer");
        assertThat(customer.propertyNames()).containsExactly("id", "name", "email", "tier");
        assertThat(customer.get("id").asLong()).isPositive();

        // The stub's answer is embedded as an object, not as an escaped string.
        JsonNode downstream = json.get("downstream");
        assertThat(downstream.isObject()).isTrue();
        assertThat(downstream.get("id").asLong()).isEqualTo(1);
        assertThat(downstream.get("source").asString()).isEqualTo("stub");

        assertThat(json.get("thread").propertyNames()).containsExactly("name", "id", "virtual");
    }

    @Test
    void requestRunsOnPlatformThreadWhenVirtualThreadsAreOff() {
        JsonNode thread = http.get("/api/order-summary/1").json().get("thread");
        assertThat(thread.get("virtual").asBoolean()).isFalse();
        assertThat(thread.get("name").asString()).startsWith("http-nio-");

        JsonNode threadInfo = http.get("/api/thread-info").json();
        assertThat(threadInfo.get("virtual").asBoolean()).isFalse();
        assertThat(threadInfo.get("id").asLong()).isPositive();
    }

    @Test
    void releasedModeReturnsConnectionBeforeTheDownstreamCall() throws Exception {
        http.get("/api/order-summary/2"); // warm up JIT and pool so the query phase is short

        PoolSampler.Result result = PoolSampler.sampleDuring(dataSource, http, "/api/order-summary/3");

        assertThat(result.response().status()).isEqualTo(200);
        assertThat(result.samples()).as("samples taken during the request").isGreaterThan(20);
        // Only the few-ms query phase may show a borrowed connection; the downstream call must not.
        assertThat(result.activeShare()).as("share of samples with an active connection").isLessThan(0.2);
    }
}
