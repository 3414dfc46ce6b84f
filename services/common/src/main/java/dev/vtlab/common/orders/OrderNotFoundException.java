package dev.vtlab.common.orders;

/** Mapped to 404. */
public class OrderNotFoundException extends RuntimeException {

    public OrderNotFoundException(long id) {
        super("Order " + id + " does not exist");
    }
}
