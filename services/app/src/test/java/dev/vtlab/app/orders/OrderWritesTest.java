package dev.vtlab.app.orders;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PlatformReleasedApp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

@PlatformReleasedApp
class OrderWritesTest {

    /** sql/schema.sql: written orders take ids from here on, above every seeded id. */
    static final long WRITTEN_ID_START = 1_000_000_000_000L;

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
        removeWrittenOrders();
    }

    @AfterEach
    void removeWrittenOrders() {
        jdbc.sql("DELETE FROM orders WHERE id >= ?").param(WRITTEN_ID_START).update();
    }

    @Test
    void aValidOrderIsStoredOnceAndAnsweredWithItsLocation() {
        LabHttp.Response response = http.post("/api/orders",
                "{\"customerId\": 42, \"totalCents\": 1999, \"currency\": \"EUR\", \"itemCount\": 3}");

        assertThat(response.status()).as(response.body()).isEqualTo(201);
        JsonNode order = response.json().get("order");
        long id = order.get("id").asLong();
        assertThat(id).isGreaterThanOrEqualTo(WRITTEN_ID_START);
        assertThat(response.location()).endsWith("/api/order-summary/" + id);
        assertThat(response.json().get("downstream").get("id").asLong()).isEqualTo(id);
        assertThat(jdbc.sql("SELECT customer_id, total_cents, currency, item_count, status FROM orders WHERE id = ?")
                .param(id).query().singleRow())
                .containsEntry("customer_id", 42L).containsEntry("total_cents", 1999L)
                .containsEntry("currency", "EUR").containsEntry("item_count", 3).containsEntry("status", "NEW");
        assertThat(written()).isOne();
        // and the new order reads back through the summary endpoint
        assertThat(http.get("/api/order-summary/" + id).json().get("customer").get("id").asLong()).isEqualTo(42);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"totalCents\": 1, \"currency\": \"EUR\", \"itemCount\": 1}",
            "{\"customerId\": 0, \"totalCents\": 1, \"currency\": \"EUR\", \"itemCount\": 1}",
            "{\"customerId\": 1, \"totalCents\": -1, \"currency\": \"EUR\", \"itemCount\": 1}",
            "{\"customerId\": 1, \"totalCents\": 1, \"currency\": \"euro\", \"itemCount\": 1}",
            "{\"customerId\": 1, \"totalCents\": 1, \"currency\": \"EUR\", \"itemCount\": 0}",
            "{\"customerId\": 1, \"totalCents\": 1, \"currency\": \"EUR\", \"itemCount\": 1001}",
            "{\"customerId\": 999999999, \"totalCents\": 1, \"currency\": \"EUR\", \"itemCount\": 1}",
            "{\"customerId\": \"one\", \"totalCents\": 1, \"currency\": \"EUR\", \"itemCount\": 1}",
            "{\"customerId\": 1, ",
            "[]" })
    void aBadBodyIsABadRequestAndWritesNothing(String body) {
        assertProblem(http.post("/api/orders", body), 400);
        assertThat(written()).isZero();
    }

    private long written() {
        return jdbc.sql("SELECT count(*) FROM orders WHERE id >= ?").param(WRITTEN_ID_START).query(Long.class).single();
    }
}
