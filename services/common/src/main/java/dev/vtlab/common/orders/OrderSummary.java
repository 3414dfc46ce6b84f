package dev.vtlab.common.orders;

import java.time.Instant;

import dev.vtlab.common.runtime.ThreadInfo;
import tools.jackson.databind.JsonNode;

/** The response document of GET /api/order-summary/{id}, the same from the app and the reactive twin. */
public record OrderSummary(Order order, Customer customer, JsonNode downstream, ThreadInfo thread) {

    public record Order(long id, String status, long totalCents, String currency, int itemCount, Instant createdAt) {
    }

    public record Customer(long id, String name, String email, String tier) {
    }

    /** What the single database query returns, before the downstream part is known. */
    public record Row(Order order, Customer customer) {
    }
}
