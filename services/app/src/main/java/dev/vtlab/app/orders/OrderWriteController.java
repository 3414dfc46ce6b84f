package dev.vtlab.app.orders;

import java.net.URI;

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

    @PostMapping("/api/orders")
    ResponseEntity<CreatedOrder> create(@RequestBody NewOrder order) {
        CreatedOrder created = service.create(order);
        return ResponseEntity.created(URI.create("/api/order-summary/" + created.order().id())).body(created);
    }
}
