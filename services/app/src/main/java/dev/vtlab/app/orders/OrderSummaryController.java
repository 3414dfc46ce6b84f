package dev.vtlab.app.orders;

import dev.vtlab.common.InvalidOrderIdException;
import dev.vtlab.common.orders.OrderSummary;

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
    @GetMapping("/api/order-summary/{id}")
    OrderSummary orderSummary(@PathVariable("id") String id) {
        return service.summarize(InvalidOrderIdException.parse(id));
    }
}
