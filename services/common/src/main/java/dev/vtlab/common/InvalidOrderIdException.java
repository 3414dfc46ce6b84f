package dev.vtlab.common;

import dev.vtlab.common.problems.ProblemException;
import dev.vtlab.common.problems.Problems;

import org.springframework.http.HttpStatus;

/** 400 from both services: the id in the path is not a positive 64-bit integer. */
public class InvalidOrderIdException extends ProblemException {

    public InvalidOrderIdException(String raw) {
        super(HttpStatus.BAD_REQUEST, Problems.INVALID_ORDER_ID,
                "Order id must be a positive integer no larger than " + Long.MAX_VALUE + ", got '" + raw + "'", null);
    }

    /** Parsed by hand so that "abc", "0", "-5" and overflowing numbers all get the same clear 400. */
    public static long parse(String raw) {
        try {
            long id = Long.parseLong(raw);
            if (id > 0) {
                return id;
            }
        }
        catch (NumberFormatException ex) {
            // fall through to the 400
        }
        throw new InvalidOrderIdException(raw);
    }
}
