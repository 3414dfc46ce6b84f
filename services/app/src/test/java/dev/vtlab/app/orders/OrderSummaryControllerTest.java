package dev.vtlab.app.orders;

import java.sql.SQLTransientConnectionException;

import dev.vtlab.app.system.LabConfiguration;
import dev.vtlab.common.downstream.DownstreamTimeoutException;
import dev.vtlab.common.downstream.DownstreamUnavailableException;
import dev.vtlab.common.orders.OrderNotFoundException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.json.JsonCompareMode;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.containsString;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.BDDMockito.given;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * GET /api/order-summary/{id} and the problems it answers with, on the web layer alone: the service is a mock
 * that fails as the database, the pool or the downstream would, so no PostgreSQL or stub is needed. The
 * bodies are the exact documents the running app answers with (checked against the jar). An unknown path
 * is not here: the running app answers it through the servlet container's error page, which MockMvc has not
 * (ClientErrorsContract checks it on the running app).
 */
@WebMvcTest(OrderSummaryController.class)
@Import(LabConfiguration.class)
class OrderSummaryControllerTest {

    @Autowired
    MockMvc mvc;

    @MockitoBean
    OrderSummaryService service;

    @Test
    void aMalformedIdIsABadRequestNamingTheId() throws Exception {
        expectProblem(mvc.perform(get("/api/order-summary/abc")), 400, """
                {"detail":"Order id must be a positive integer no larger than 9223372036854775807, got 'abc'",
                 "instance":"/api/order-summary/abc","status":400,"title":"Invalid order id"}""");
    }

    @Test
    void anUnknownOrderIsNotFound() throws Exception {
        given(service.summarize(anyLong())).willThrow(new OrderNotFoundException(7));

        expectProblem(mvc.perform(get("/api/order-summary/7")), 404, """
                {"detail":"Order 7 does not exist","instance":"/api/order-summary/7","status":404,
                 "title":"Order not found"}""");
    }

    @Test
    void anUnusableDownstreamIsABadGateway() throws Exception {
        given(service.summarize(anyLong())).willThrow(new DownstreamUnavailableException("Downstream answered HTTP 500", null));

        expectProblem(mvc.perform(get("/api/order-summary/7")), 502, """
                {"detail":"Downstream answered HTTP 500","instance":"/api/order-summary/7","status":502,
                 "title":"Downstream unavailable"}""");
    }

    @Test
    void aSlowDownstreamIsAGatewayTimeout() throws Exception {
        given(service.summarize(anyLong())).willThrow(new DownstreamTimeoutException("Downstream did not answer in time", null));

        expectProblem(mvc.perform(get("/api/order-summary/7")), 504, """
                {"detail":"Downstream did not answer in time","instance":"/api/order-summary/7","status":504,
                 "title":"Downstream timeout"}""");
    }

    @Test
    void anExhaustedPoolIsServiceUnavailableWithRetryAfter() throws Exception {
        // CONN_MODE=released: JdbcClient cannot get a connection; Hikari's timeout is the cause.
        given(service.summarize(anyLong())).willThrow(new CannotGetJdbcConnectionException("no connection",
                new SQLTransientConnectionException("vtlab - Connection is not available")));

        expectProblem(mvc.perform(get("/api/order-summary/7")), 503, POOL_EXHAUSTED)
                .andExpect(header().string("Retry-After", "1"));
    }

    @Test
    void anExhaustedPoolUnderAHeldTransactionIsServiceUnavailableToo() throws Exception {
        // CONN_MODE=held: the transaction cannot begin, with the same cause.
        given(service.summarize(anyLong())).willThrow(new CannotCreateTransactionException("no connection",
                new SQLTransientConnectionException("vtlab - Connection is not available")));

        expectProblem(mvc.perform(get("/api/order-summary/7")), 503, POOL_EXHAUSTED)
                .andExpect(header().string("Retry-After", "1"));
    }

    @Test
    void anyOtherDatabaseFailureIsAnInternalErrorThatShowsNoSql() throws Exception {
        given(service.summarize(anyLong())).willThrow(new DataAccessResourceFailureException("SELECT secret FROM db.internal"));

        expectProblem(mvc.perform(get("/api/order-summary/7")), 500, """
                {"detail":"The database query failed","instance":"/api/order-summary/7","status":500,
                 "title":"Database error"}""")
                .andExpect(content().string(not(containsString("secret"))));
    }

    @Test
    void anUnexpectedFailureIsAnInternalErrorThatShowsNothingOfIt() throws Exception {
        given(service.summarize(anyLong())).willThrow(new IllegalStateException("db.internal:5432 said no"));

        expectProblem(mvc.perform(get("/api/order-summary/7")), 500, """
                {"detail":"The request could not be processed","instance":"/api/order-summary/7","status":500,
                 "title":"Internal error"}""")
                .andExpect(content().string(not(containsString("db.internal"))));
    }

    @Test
    void aMethodTheEndpointDoesNotServeIsAMethodNotAllowedProblem() throws Exception {
        expectProblem(mvc.perform(delete("/api/order-summary/1")), 405, """
                {"detail":"Method 'DELETE' is not supported.","instance":"/api/order-summary/1","status":405,
                 "title":"Method Not Allowed"}""")
                .andExpect(header().string("Allow", "GET"));
    }

    private static final String POOL_EXHAUSTED = """
            {"detail":"No database connection became free within the pool timeout","instance":"/api/order-summary/7",
             "status":503,"title":"Database pool exhausted"}""";

    static ResultActions expectProblem(ResultActions result, int status, String body) throws Exception {
        return result.andExpect(status().is(status))
                .andExpect(content().contentType("application/problem+json"))
                .andExpect(content().json(body, JsonCompareMode.STRICT));
    }
}
