package dev.vtlab.reactive.orders;

/** No database connection became free within the pool's acquire timeout (mapped to 503). */
public class PoolExhaustedException extends RuntimeException {

    public PoolExhaustedException(Throwable cause) {
        super("No database connection became free within the pool timeout", cause);
    }
}
