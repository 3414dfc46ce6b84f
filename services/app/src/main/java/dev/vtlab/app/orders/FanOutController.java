package dev.vtlab.app.orders;

import java.util.List;

import dev.vtlab.app.downstream.DownstreamClient;
import dev.vtlab.app.system.LabSettings;
import dev.vtlab.common.InvalidOrderIdException;
import dev.vtlab.common.InvalidSettingException;
import dev.vtlab.common.orders.OrderNotFoundException;
import dev.vtlab.common.orders.OrderSummary;
import dev.vtlab.common.runtime.ThreadInfo;
import dev.vtlab.fanout.FanOut;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import tools.jackson.databind.JsonNode;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/fanout/{id}: the order lookup and two downstream calls for one request, run by the strategy
 * FANOUT_MODE names. Sequential takes the sum of the three; structured, the slowest of them.
 */
@RestController
class FanOutController {

    private final OrderRepository orders;
    private final DownstreamClient downstream;
    private final FanOut fanOut;

    FanOutController(OrderRepository orders, DownstreamClient downstream,
            LabSettings settings) {
        this.orders = orders;
        this.downstream = downstream;
        this.fanOut = strategy(settings.fanOutMode());
    }

    @Operation(summary = "One order lookup and two downstream calls",
            description = "FANOUT_MODE sequential: one after the other; structured: all three at once in a "
                    + "StructuredTaskScope (needs --enable-preview).")
    @GetMapping("/api/fanout/{id}")
    FanOutSummary fanOut(@Parameter(description = "The order id: a positive integer (1 to the number of seeded orders)", example = "42") @PathVariable("id") String id) throws InterruptedException {
        long orderId = InvalidOrderIdException.parse(id);
        // No transaction: the structured lookup runs on a forked thread, which a thread-bound one would miss.
        FanOut.Results<OrderSummary.Row, JsonNode, JsonNode> results = fanOut.all(
                () -> orders.findWithCustomer(orderId).orElseThrow(() -> new OrderNotFoundException(orderId)),
                () -> downstream.fetch(orderId),
                () -> downstream.fetch(orderId));
        return new FanOutSummary(results.first().order(), results.first().customer(),
                List.of(results.second(), results.third()), fanOut.name(), ThreadInfo.current());
    }

    private static FanOut strategy(LabSettings.FanOutMode mode) {
        return switch (mode) {
            case SEQUENTIAL -> FanOut.sequential();
            case STRUCTURED -> {
                try {
                    yield FanOut.structured();
                }
                catch (IllegalStateException ex) {
                    throw new InvalidSettingException("FANOUT_MODE",
                            "sequential, or structured in a JVM started with --enable-preview", "structured");
                }
            }
        };
    }

    /** The response of GET /api/fanout/{id}: the order-summary document with both downstream answers. */
    record FanOutSummary(OrderSummary.Order order, OrderSummary.Customer customer, List<JsonNode> downstream,
            String fanOut, ThreadInfo thread) {
    }
}
