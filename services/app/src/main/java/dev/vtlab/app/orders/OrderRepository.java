package dev.vtlab.app.orders;

import java.time.OffsetDateTime;
import java.util.Optional;

import dev.vtlab.common.orders.OrderSummary;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
class OrderRepository {

    // One primary-key lookup with the customer joined in, so each request costs exactly one round trip.
    private static final String FIND_WITH_CUSTOMER = """
            SELECT o.id, o.status, o.total_cents, o.currency, o.item_count, o.created_at,
                   c.id AS customer_id, c.name, c.email, c.tier
              FROM orders o
              JOIN customers c ON c.id = o.customer_id
             WHERE o.id = ?
            """;

    static final String NEW_STATUS = "NEW";

    // Ids from their own sequence, far above every seeded id (sql/schema.sql), so the rig can count
    // exactly the rows a run wrote and remove them afterwards.
    private static final String INSERT = """
            INSERT INTO orders (id, customer_id, status, total_cents, currency, item_count, created_at)
            VALUES (nextval('written_order_ids'), ?, ?, ?, ?, ?, now())
            RETURNING id, created_at
            """;

    private final JdbcClient jdbc;

    OrderRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<OrderSummary.Row> findWithCustomer(long id) {
        return jdbc.sql(FIND_WITH_CUSTOMER)
                .param(id)
                .query((rs, rowNum) -> new OrderSummary.Row(
                        new OrderSummary.Order(rs.getLong("id"), rs.getString("status"), rs.getLong("total_cents"),
                                rs.getString("currency"), rs.getInt("item_count"),
                                rs.getObject("created_at", OffsetDateTime.class).toInstant()),
                        new OrderSummary.Customer(rs.getLong("customer_id"), rs.getString("name"),
                                rs.getString("email"), rs.getString("tier"))))
                .optional();
    }

    CreatedOrder.Stored insert(NewOrder order) {
        return jdbc.sql(INSERT)
                .params(order.customerId(), NEW_STATUS, order.totalCents(), order.currency(), order.itemCount())
                .query((rs, rowNum) -> new CreatedOrder.Stored(rs.getLong("id"),
                        rs.getObject("created_at", OffsetDateTime.class).toInstant()))
                .single();
    }
}
