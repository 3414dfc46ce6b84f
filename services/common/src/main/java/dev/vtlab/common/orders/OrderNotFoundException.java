package dev.vtlab.common.orders;

import dev.vtlab.common.problems.ProblemException;
import dev.vtlab.common.problems.Problems;

import org.springframework.http.HttpStatus;

/** 404: no order has the id asked for. */
public class OrderNotFoundException extends ProblemException {

    public OrderNotFoundException(long id) {
        super(HttpStatus.NOT_FOUND, Problems.ORDER_NOT_FOUND, "Order " + id + " does not exist", null);
    }
}
