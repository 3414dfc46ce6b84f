package dev.vtlab.common.downstream;

/** The downstream service did not connect or answer in time (mapped to 504). */
public class DownstreamTimeoutException extends RuntimeException {

    public DownstreamTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
