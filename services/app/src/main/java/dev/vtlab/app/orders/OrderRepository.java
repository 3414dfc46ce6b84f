package dev.vtlab.app.orders;

import java.time.OffsetDateTime;
import java.util.Optional;

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
}
