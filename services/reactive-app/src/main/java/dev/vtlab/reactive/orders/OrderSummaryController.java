package dev.vtlab.reactive.orders;

import dev.vtlab.common.InvalidOrderIdException;
import dev.vtlab.common.orders.OrderSummary;
import dev.vtlab.common.runtime.ThreadInfo;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

@RestController
class OrderSummaryController {

    private final OrderSummaryService service;

    OrderSummaryController(OrderSummaryService service) {
        this.service = service;
    }

    // The id arrives as text so that every malformed value is answered by our own 400, not a converter's.
    @Operation(summary = "One order with its customer and the downstream answer",
            description = "A primary-key lookup joined to the customer (R2DBC), then a non-blocking call to the "
                    + "downstream service; the measured request of every reactive row. The document names the "
                    + "event-loop thread that accepted it.")
    @GetMapping("/api/order-summary/{id}")
    Mono<OrderSummary> orderSummary(@Parameter(description = "The order id: a positive integer (1 to the number of seeded orders)", example = "42") @PathVariable("id") String id) {
        // The request hops threads (the driver's loop, then WebClient's); the one that accepted it, an
        // event-loop thread, is the honest counterpart of the app's request thread.
        ThreadInfo servedBy = ThreadInfo.current();
        return service.summarize(InvalidOrderIdException.parse(id), servedBy);
    }
}
