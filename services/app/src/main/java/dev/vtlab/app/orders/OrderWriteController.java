package dev.vtlab.app.orders;

import java.net.URI;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class OrderWriteController {

    private final OrderWriteService service;

    OrderWriteController(OrderWriteService service) {
        this.service = service;
    }

    @Operation(summary = "Create an order (insert + downstream call)",
            description = "Inserts the order in one transaction with the downstream call; answers 201 with "
                    + "the stored order and a Location header only once the row is committed.")
    @ApiResponse(responseCode = "201", description = "Created: the stored order")
    @PostMapping("/api/orders")
    ResponseEntity<CreatedOrder> create(@RequestBody NewOrder order) {
        CreatedOrder created = service.create(order);
        return ResponseEntity.created(URI.create("/api/order-summary/" + created.order().id())).body(created);
    }
}
