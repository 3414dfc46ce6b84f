package dev.vtlab.reactive.orders;

import java.time.Instant;

import dev.vtlab.common.downstream.DownstreamTimeoutException;
import dev.vtlab.common.downstream.DownstreamUnavailableException;
import dev.vtlab.common.orders.OrderNotFoundException;
import dev.vtlab.common.orders.OrderSummary;
import dev.vtlab.common.runtime.ThreadInfo;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import io.r2dbc.spi.R2dbcTimeoutException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.JsonNodeFactory;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webflux.test.autoconfigure.WebFluxTest;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.json.JsonCompareMode;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.BDDMockito.given;

/**
 * GET /api/order-summary/{id} and the problems it answers with, on the web layer alone: the service is a mock
 * that fails as the pool, the database or the downstream would, so no PostgreSQL or stub is needed. The
 * bodies are the exact documents the app answers with for the same failures (checked against both jars).
 */
@WebFluxTest(OrderSummaryController.class)
class OrderSummaryControllerTest {

    @Autowired
    WebTestClient client;

    @MockitoBean
    OrderSummaryService service;

    @Test
    void aMalformedIdIsABadRequestNamingTheId() {
        expectProblem("/api/order-summary/abc", 400, """
                {"detail":"Order id must be a positive integer no larger than 9223372036854775807, got 'abc'",
                 "instance":"/api/order-summary/abc","status":400,"title":"Invalid order id"}""");
    }

    @Test
    void anUnknownOrderIsNotFound() {
        given(service.summarize(anyLong(), any())).willReturn(Mono.error(new OrderNotFoundException(7)));

        expectProblem("/api/order-summary/7", 404, """
                {"detail":"Order 7 does not exist","instance":"/api/order-summary/7","status":404,
                 "title":"Order not found"}""");
    }

    @Test
    void anUnusableDownstreamIsABadGateway() {
        given(service.summarize(anyLong(), any()))
                .willReturn(Mono.error(new DownstreamUnavailableException("Downstream answered HTTP 500", null)));

        expectProblem("/api/order-summary/7", 502, """
                {"detail":"Downstream answered HTTP 500","instance":"/api/order-summary/7","status":502,
                 "title":"Downstream unavailable"}""");
    }

    @Test
    void aSlowDownstreamIsAGatewayTimeout() {
        given(service.summarize(anyLong(), any()))
                .willReturn(Mono.error(new DownstreamTimeoutException("Downstream did not answer in time", null)));

        expectProblem("/api/order-summary/7", 504, """
                {"detail":"Downstream did not answer in time","instance":"/api/order-summary/7","status":504,
                 "title":"Downstream timeout"}""");
    }

    @Test
    void anExhaustedPoolIsServiceUnavailableWithRetryAfter() {
        given(service.summarize(anyLong(), any())).willReturn(Mono.error(
                new PoolExhaustedException(new R2dbcTimeoutException("maxAcquireTime"))));

        expectProblem("/api/order-summary/7", 503, """
                {"detail":"No database connection became free within the pool timeout",
                 "instance":"/api/order-summary/7","status":503,"title":"Database pool exhausted"}""")
                .expectHeader().valueEquals("Retry-After", "1");
    }

    @Test
    void anyOtherDatabaseFailureIsAnInternalErrorThatShowsNoSql() {
        given(service.summarize(anyLong(), any())).willReturn(Mono.error(
                new R2dbcNonTransientResourceException("SELECT secret FROM db.internal")));

        String body = expectProblem("/api/order-summary/7", 500, """
                {"detail":"The database query failed","instance":"/api/order-summary/7","status":500,
                 "title":"Database error"}""").expectBody(String.class).returnResult().getResponseBody();
        assertThat(body).doesNotContain("secret");
    }

    @Test
    void anUnexpectedFailureIsAnInternalErrorThatShowsNothingOfIt() {
        given(service.summarize(anyLong(), any()))
                .willReturn(Mono.error(new IllegalStateException("db.internal:5432 said no")));

        expectProblem("/api/order-summary/7", 500, """
                {"detail":"The request could not be processed","instance":"/api/order-summary/7","status":500,
                 "title":"Internal error"}""");
    }

    @Test
    void theSummaryNamesTheThreadThatAcceptedTheRequest() {
        given(service.summarize(anyLong(), any())).willAnswer(call -> Mono.just(new OrderSummary(
                new OrderSummary.Order(7, "NEW", 1200, "EUR", 2, Instant.parse("2026-01-01T00:00:00Z")),
                new OrderSummary.Customer(3, "Ada", "ada@example.test", "gold"),
                JsonNodeFactory.instance.objectNode().put("source", "stub"), call.getArgument(1, ThreadInfo.class))));

        client.get().uri("/api/order-summary/7").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.order.id").isEqualTo(7)
                .jsonPath("$.downstream.source").isEqualTo("stub")
                .jsonPath("$.thread.name").value(name -> assertThat((String) name).isNotBlank());
    }

    private WebTestClient.ResponseSpec expectProblem(String path, int status, String body) {
        WebTestClient.ResponseSpec response = client.get().uri(path).exchange();
        response.expectStatus().isEqualTo(status)
                .expectHeader().contentType("application/problem+json")
                .expectBody().json(body, JsonCompareMode.STRICT);
        return response;
    }
}
