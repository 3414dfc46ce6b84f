package dev.vtlab.app.orders;

import dev.vtlab.common.InvalidOrderIdException;
import dev.vtlab.common.orders.OrderSummary;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;

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
            description = "A primary-key lookup joined to the customer, then a blocking call to the downstream "
                    + "service; the measured request of every order-summary row. The document names the thread "
                    + "that served it.")
    @GetMapping("/api/order-summary/{id}")
    OrderSummary orderSummary(@Parameter(description = "The order id: a positive integer (1 to the number of seeded orders)", example = "42") @PathVariable("id") String id) {
        return service.summarize(InvalidOrderIdException.parse(id));
    }
}
