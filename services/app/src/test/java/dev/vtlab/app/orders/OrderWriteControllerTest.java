package dev.vtlab.app.orders;

import java.time.Instant;

import dev.vtlab.app.system.LabConfiguration;
import dev.vtlab.common.orders.OrderSummary;
import dev.vtlab.common.runtime.ThreadInfo;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

import static dev.vtlab.app.orders.OrderSummaryControllerTest.expectProblem;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** POST /api/orders on the web layer alone: the service that inserts and calls downstream is a mock. */
@WebMvcTest(OrderWriteController.class)
@Import(LabConfiguration.class)
class OrderWriteControllerTest {

    private static final String ORDER = """
            {"customerId":5,"totalCents":1200,"currency":"EUR","itemCount":2}""";

    @Autowired
    MockMvc mvc;

    @MockitoBean
    OrderWriteService service;

    @Test
    void aStoredOrderIsCreatedWithTheLocationOfItsSummary() throws Exception {
        given(service.create(any())).willReturn(new CreatedOrder(
                new OrderSummary.Order(1_000_000_000_001L, "NEW", 1200, "EUR", 2, Instant.parse("2026-01-01T00:00:00Z")),
                5, JsonNodeFactory.instance.objectNode().put("source", "stub"), new ThreadInfo("t", 1, false)));

        mvc.perform(post("/api/orders").contentType(MediaType.APPLICATION_JSON).content(ORDER))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/order-summary/1000000000001"))
                .andExpect(jsonPath("$.order.id").value(1_000_000_000_001L))
                .andExpect(jsonPath("$.customerId").value(5));
    }

    @Test
    void anInvalidFieldIsABadRequestNamingTheField() throws Exception {
        given(service.create(any())).willThrow(new InvalidNewOrderException("customerId", "a positive integer", 0));

        expectProblem(mvc.perform(post("/api/orders").contentType(MediaType.APPLICATION_JSON).content(ORDER)), 400, """
                {"detail":"Field 'customerId' must be a positive integer, got '0'","instance":"/api/orders",
                 "status":400,"title":"Invalid order"}""");
    }

    @Test
    void malformedJsonIsABadRequestProblemThatQuotesNothingOfTheParser() throws Exception {
        expectProblem(mvc.perform(post("/api/orders").contentType(MediaType.APPLICATION_JSON).content("{bad")), 400, """
                {"detail":"Failed to read request","instance":"/api/orders","status":400,"title":"Bad Request"}""");
    }
}
