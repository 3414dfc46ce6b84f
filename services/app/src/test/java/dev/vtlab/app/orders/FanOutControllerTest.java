package dev.vtlab.app.orders;

import java.time.Instant;
import java.util.Optional;

import dev.vtlab.app.downstream.DownstreamClient;
import dev.vtlab.app.system.LabConfiguration;
import dev.vtlab.common.orders.OrderSummary;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

import static dev.vtlab.app.orders.OrderSummaryControllerTest.expectProblem;
import static org.mockito.BDDMockito.given;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** GET /api/fanout/{id} on the web layer alone, in its default sequential mode: lookup and client are mocks. */
@WebMvcTest(value = FanOutController.class, properties = "FANOUT_MODE=sequential")
@Import(LabConfiguration.class)
class FanOutControllerTest {

    @Autowired
    MockMvc mvc;

    @MockitoBean
    OrderRepository orders;

    @MockitoBean
    DownstreamClient downstream;

    @Test
    void theDocumentCarriesBothDownstreamAnswersAndTheStrategyThatFetchedThem() throws Exception {
        given(orders.findWithCustomer(7)).willReturn(Optional.of(new OrderSummary.Row(
                new OrderSummary.Order(7, "NEW", 1200, "EUR", 2, Instant.parse("2026-01-01T00:00:00Z")),
                new OrderSummary.Customer(3, "Ada", "ada@example.test", "gold"))));
        given(downstream.fetch(7)).willReturn(JsonNodeFactory.instance.objectNode().put("id", 7));

        mvc.perform(get("/api/fanout/7"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.order.id").value(7))
                .andExpect(jsonPath("$.downstream.length()").value(2))
                .andExpect(jsonPath("$.fanOut").value("sequential"));
    }

    @Test
    void anUnknownOrderIsNotFoundWhateverTheDownstreamAnswers() throws Exception {
        given(orders.findWithCustomer(7)).willReturn(Optional.empty());
        given(downstream.fetch(7)).willReturn(JsonNodeFactory.instance.objectNode());

        expectProblem(mvc.perform(get("/api/fanout/7")), 404, """
                {"detail":"Order 7 does not exist","instance":"/api/fanout/7","status":404,"title":"Order not found"}""");
    }
}
