package dev.vtlab.app.orders;

import java.time.Instant;

import dev.vtlab.common.orders.OrderSummary;
import dev.vtlab.common.runtime.ThreadInfo;
import tools.jackson.databind.JsonNode;

/** The response document of POST /api/orders: the stored order and the downstream's answer. */
public record CreatedOrder(OrderSummary.Order order, long customerId, JsonNode downstream, ThreadInfo thread) {

    record Stored(long id, Instant createdAt) {
    }
}
