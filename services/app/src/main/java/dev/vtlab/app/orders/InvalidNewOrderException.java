package dev.vtlab.app.orders;

import dev.vtlab.common.problems.ProblemException;

import org.springframework.http.HttpStatus;

/** 400: a field of a new order is missing or out of range, or names no customer. */
public class InvalidNewOrderException extends ProblemException {

    InvalidNewOrderException(String field, String expected, Object got) {
        this("Field '" + field + "' must be " + expected + ", got " + (got == null ? "nothing" : "'" + got + "'"));
    }

    InvalidNewOrderException(String message) {
        super(HttpStatus.BAD_REQUEST, "Invalid order", message, null);
    }
}
