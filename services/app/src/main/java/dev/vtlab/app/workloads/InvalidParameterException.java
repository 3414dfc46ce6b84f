package dev.vtlab.app.workloads;

import dev.vtlab.common.problems.ProblemException;

import org.springframework.http.HttpStatus;

/** 400: a workload parameter that is missing, not an integer, or out of range. */
public class InvalidParameterException extends ProblemException {

    InvalidParameterException(String name, String raw, int min, int max) {
        super(HttpStatus.BAD_REQUEST, "Invalid parameter", "Parameter '" + name + "' must be an integer from " + min
                + " to " + max + ", got " + (raw == null ? "nothing" : "'" + raw + "'"), null);
    }

    static int parse(String name, String raw, int min, int max) {
        if (raw != null) {
            try {
                int value = Integer.parseInt(raw.trim());
                if (value >= min && value <= max) {
                    return value;
                }
            }
            catch (NumberFormatException ex) {
                // fall through to the 400
            }
        }
        throw new InvalidParameterException(name, raw, min, max);
    }
}
