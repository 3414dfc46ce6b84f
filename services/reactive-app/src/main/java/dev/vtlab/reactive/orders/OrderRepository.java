package dev.vtlab.reactive.orders;

import java.time.OffsetDateTime;

import dev.vtlab.common.orders.OrderSummary;
import dev.vtlab.reactive.pool.TimedPool;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.R2dbcTimeoutException;
import io.r2dbc.spi.Readable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Repository;

/**
 * The app's query over R2DBC. The connection is taken from the pool explicitly so that two things stay
 * visible: it goes back as soon as the row is read (CONN_MODE=released, before the downstream call),
 * and a timeout while acquiring it can be told apart from any other database failure.
 */
@Repository
class OrderRepository {

    // One primary-key lookup with the customer joined in, so each request costs exactly one round trip.
    // The app's statement, with the driver's positional marker instead of JDBC's '?'.
    private static final String FIND_WITH_CUSTOMER = """
            SELECT o.id, o.status, o.total_cents, o.currency, o.item_count, o.created_at,
                   c.id AS customer_id, c.name, c.email, c.tier
              FROM orders o
              JOIN customers c ON c.id = o.customer_id
             WHERE o.id = $1
            """;

    // Borrowed through TimedPool, so that every borrow, wait and use lands in the pool's exact accounting.
    private final TimedPool pool;

    OrderRepository(TimedPool pool) {
        this.pool = pool;
    }

    Mono<OrderSummary.Row> findWithCustomer(long id) {
        return Mono.usingWhen(acquire(), borrowed -> query(borrowed.connection(), id), TimedPool.Borrowed::giveBack);
    }

    private Mono<TimedPool.Borrowed> acquire() {
        // Only the pool's acquire can time out here (no statement timeout is set); r2dbc-pool reports its
        // maxAcquireTime running out as R2dbcTimeoutException.
        return pool.borrow().onErrorMap(R2dbcTimeoutException.class, PoolExhaustedException::new);
    }

    private static Mono<OrderSummary.Row> query(Connection connection, long id) {
        // singleOrEmpty drains the result instead of cancelling it after the first row: a cancelled query
        // would make the pool discard the connection rather than reuse it.
        return Flux.from(connection.createStatement(FIND_WITH_CUSTOMER).bind("$1", id).execute())
                .flatMap(result -> result.map(OrderRepository::toRow))
                .singleOrEmpty();
    }

    private static OrderSummary.Row toRow(Readable row) {
        return new OrderSummary.Row(
                new OrderSummary.Order(row.get("id", Long.class), row.get("status", String.class),
                        row.get("total_cents", Long.class), row.get("currency", String.class),
                        row.get("item_count", Integer.class),
                        row.get("created_at", OffsetDateTime.class).toInstant()),
                new OrderSummary.Customer(row.get("customer_id", Long.class), row.get("name", String.class),
                        row.get("email", String.class), row.get("tier", String.class)));
    }
}
