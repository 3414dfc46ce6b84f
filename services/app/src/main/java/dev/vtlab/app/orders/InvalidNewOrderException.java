package dev.vtlab.app.orders;

/** Mapped to 400: a field of a new order is missing or out of range, or names no customer. */
public class InvalidNewOrderException extends RuntimeException {

    InvalidNewOrderException(String field, String expected, Object got) {
        super("Field '" + field + "' must be " + expected + ", got " + (got == null ? "nothing" : "'" + got + "'"));
    }

    InvalidNewOrderException(String message) {
        super(message);
    }
}
