package dev.vtlab.reactive.orders;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;

import dev.vtlab.reactive.support.EventLoop;
import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.reactive.support.ReactiveApp;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.Connection;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** The document must be the app's: same fields in the same order, same values for the same id. */
@ReactiveApp
class OrderSummaryTest {

    private static final long ID = 42;

    @LocalServerPort
    int port;

    @Autowired
    ConnectionPool pool;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @Test
    void summaryHasTheAppsShape() {
        LabHttp.Response response = http.get("/api/order-summary/1");

        assertThat(response.status()).as(response.body()).isEqualTo(200);
        assertThat(response.contentType()).startsWith("application/json");
        JsonNode json = response.json();
        // The same assertions as the app's OrderSummaryOnPlatformThreadsTest.
        assertThat(json.propertyNames()).containsExactly("order", "customer", "downstream", "thread");
        assertThat(json.get("order").propertyNames())
                .containsExactly("id", "status", "totalCents", "currency", "itemCount", "createdAt");
        assertThat(json.get("order").get("totalCents").isIntegralNumber()).isTrue();
        assertThat(json.get("order").get("itemCount").isIntegralNumber()).isTrue();
        assertThat(json.get("order").get("createdAt").asString()).matches("\\d{4}-\\d{2}-\\d{2}T.*Z");
        assertThat(json.get("customer").propertyNames()).containsExactly("id", "name", "email", "tier");
        assertThat(json.get("downstream").isObject()).isTrue();
        assertThat(json.get("thread").propertyNames()).containsExactly("name", "id", "virtual");
    }

    @Test
    void valuesAreTheDatabaseRowAndTheStubsAnswer() throws Exception {
        JsonNode json = http.get("/api/order-summary/" + ID).json();

        Map<String, Object> row = readRow(ID);
        JsonNode order = json.get("order");
        assertThat(order.get("id").asLong()).isEqualTo(ID);
        assertThat(order.get("status").asString()).isEqualTo(row.get("status"));
        assertThat(order.get("totalCents").asLong()).isEqualTo(row.get("total_cents"));
        assertThat(order.get("currency").asString()).isEqualTo(row.get("currency"));
        assertThat(order.get("itemCount").asInt()).isEqualTo(row.get("item_count"));
        assertThat(order.get("createdAt").asString())
                .isEqualTo(((OffsetDateTime) row.get("created_at")).toInstant().toString());
        JsonNode customer = json.get("customer");
        assertThat(customer.get("id").asLong()).isEqualTo(row.get("customer_id"));
        assertThat(customer.get("name").asString()).isEqualTo(row.get("name"));
        assertThat(customer.get("email").asString()).isEqualTo(row.get("email"));
        assertThat(customer.get("tier").asString()).isEqualTo(row.get("tier"));

        // Embedded as the stub sent it (an object, not an escaped string), as in the app.
        assertThat(json.get("downstream")).isEqualTo(stubAnswer(ID));
    }

    @Test
    void servingThreadIsAnEventLoopNotAVirtualThread() {
        JsonNode thread = http.get("/api/order-summary/1").json().get("thread");
        assertThat(thread.get("virtual").asBoolean()).isFalse();
        assertThat(thread.get("name").asString()).matches(EventLoop.THREAD_NAME);
        assertThat(thread.get("id").asLong()).isPositive();

        JsonNode threadInfo = http.get("/api/thread-info").json();
        assertThat(threadInfo.get("virtual").asBoolean()).isFalse();
        assertThat(threadInfo.get("name").asString()).matches(EventLoop.THREAD_NAME);
    }

    /** The expected row, read independently of the app's repository (the test thread may block). */
    private Map<String, Object> readRow(long id) {
        String sql = """
                SELECT o.status, o.total_cents, o.currency, o.item_count, o.created_at,
                       c.id AS customer_id, c.name, c.email, c.tier
                  FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = $1""";
        return Mono.usingWhen(Mono.<Connection>from(pool.create()),
                connection -> Flux.from(connection.createStatement(sql).bind("$1", id).execute())
                        .flatMap(result -> result.map(row -> Map.<String, Object>of(
                                "status", row.get("status", String.class),
                                "total_cents", row.get("total_cents", Long.class),
                                "currency", row.get("currency", String.class),
                                "item_count", row.get("item_count", Integer.class),
                                "created_at", row.get("created_at", OffsetDateTime.class),
                                "customer_id", row.get("customer_id", Long.class),
                                "name", row.get("name", String.class),
                                "email", row.get("email", String.class),
                                "tier", row.get("tier", String.class))))
                        .single(),
                Connection::close).block(Duration.ofSeconds(10));
    }

    private static JsonNode stubAnswer(long id) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(System.getenv("STUB_URL") + "/downstream/" + id))
                    .timeout(Duration.ofSeconds(10)).build();
            return JsonMapper.shared().readTree(client.send(request, HttpResponse.BodyHandlers.ofString()).body());
        }
    }
}
