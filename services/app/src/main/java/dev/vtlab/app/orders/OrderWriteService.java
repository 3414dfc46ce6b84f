package dev.vtlab.app.orders;

import dev.vtlab.app.downstream.DownstreamClient;
import dev.vtlab.app.system.LiveConnMode;
import dev.vtlab.common.orders.OrderSummary;
import dev.vtlab.common.runtime.ThreadInfo;
import tools.jackson.databind.JsonNode;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Creates an order in a transaction and tells the downstream about it: the write twin of the
 * order summary, with the same CONN_MODE meaning (held: the call runs inside the transaction), read per request.
 */
@Service
class OrderWriteService {

    private final OrderRepository orders;
    private final DownstreamClient downstream;
    private final TransactionTemplate transaction;
    private final LiveConnMode connMode;

    OrderWriteService(OrderRepository orders, DownstreamClient downstream,
            PlatformTransactionManager transactionManager, LiveConnMode connMode) {
        this.orders = orders;
        this.downstream = downstream;
        this.transaction = new TransactionTemplate(transactionManager);
        this.connMode = connMode;
    }

    CreatedOrder create(NewOrder order) {
        NewOrder valid = order.validated();
        return switch (connMode.current()) {
            case RELEASED -> {
                CreatedOrder.Stored stored = transaction.execute(status -> insert(valid));
                yield answer(valid, stored, downstream.fetch(stored.id()));
            }
            case HELD -> transaction.execute(status -> {
                CreatedOrder.Stored stored = insert(valid);
                return answer(valid, stored, downstream.fetch(stored.id()));
            });
        };
    }

    private CreatedOrder.Stored insert(NewOrder order) {
        try {
            return orders.insert(order);
        }
        catch (DataIntegrityViolationException ex) {
            // the only constraint a validated order can break is the customer reference
            throw new InvalidNewOrderException("Field 'customerId' names no customer: " + order.customerId());
        }
    }

    private static CreatedOrder answer(NewOrder order, CreatedOrder.Stored stored, JsonNode downstreamAnswer) {
        return new CreatedOrder(new OrderSummary.Order(stored.id(), OrderRepository.NEW_STATUS, order.totalCents(),
                order.currency(), order.itemCount(), stored.createdAt()), order.customerId(), downstreamAnswer,
                ThreadInfo.current());
    }
}
