package dev.vtlab.reactive.orders;

import dev.vtlab.common.orders.OrderNotFoundException;
import dev.vtlab.common.orders.OrderSummary;
import dev.vtlab.common.runtime.ThreadInfo;
import dev.vtlab.reactive.downstream.DownstreamClient;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Service;

/** The app's released, normal path: query, give the connection back, then call the downstream. */
@Service
class OrderSummaryService {

    private final OrderRepository orders;
    private final DownstreamClient downstream;

    OrderSummaryService(OrderRepository orders, DownstreamClient downstream) {
        this.orders = orders;
        this.downstream = downstream;
    }

    Mono<OrderSummary> summarize(long id, ThreadInfo servedBy) {
        return orders.findWithCustomer(id)
                .switchIfEmpty(Mono.error(() -> new OrderNotFoundException(id)))
                .flatMap(row -> downstream.fetch(id)
                        .map(answer -> new OrderSummary(row.order(), row.customer(), answer, servedBy)));
    }
}
